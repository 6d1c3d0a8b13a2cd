package isocheck.check;

import isocheck.graph.Digraph;
import isocheck.history.History;
import java.util.List;

/**
 * The order that shows a serializable or snapshot-isolation level holds, as the search found it,
 * for the result's {@code :certificates} (doc/reports.md). Nodes as the search numbers them:
 * serializability, transaction t; snapshot isolation, its begin 2t and commit 2t + 1; higher
 * numbers (realtime relays, gates) and transactions the analysis did not count as committed are
 * left out when the order is shown. The check of a certificate ({@code isocheck.verify}) shares
 * nothing with this code.
 */
public final class Witness {
  /** Whether the nodes are begin/commit events (snapshot isolation) rather than transactions. */
  public final boolean si;
  final int[] nodes;
  final boolean[] committed;

  public Witness(boolean si, int[] nodes, boolean[] committed) {
    this.si = si;
    this.nodes = nodes;
    this.committed = committed;
  }

  /** The nodes in the witness's order (not copied: read only). */
  public int[] nodes() { return nodes; }

  /** The transactions counted as committed (not copied: read only). */
  public boolean[] committed() { return committed; }

  /** The committed transactions in the witness's order, by their display index (T12 is 12); an SI witness by its commits. */
  public List<Long> serialOrder(History h) {
    int n = h.nTxns;
    LongVec out = new LongVec(nodes.length);
    for (int v : nodes) {
      if (si ? (v >= 2 * n || (v & 1) == 0) : v >= n) continue;
      int t = si ? v >> 1 : v;
      if (committed[t]) out.addLong(h.displayIndex(t));
    }
    return out;
  }

  /**
   * The begin and commit events, each a transaction's display index: its first occurrence is its
   * start, its second its commit (a serial witness: the two adjacent).
   */
  public List<Long> eventOrder(History h) {
    int n = h.nTxns;
    LongVec out = new LongVec(si ? nodes.length : 2 * nodes.length);
    for (int v : nodes) {
      if (v >= (si ? 2 * n : n)) continue;
      int t = si ? v >> 1 : v;
      if (!committed[t]) continue;
      long d = h.displayIndex(t);
      out.addLong(d);
      if (!si) out.addLong(d);
    }
    return out;
  }

  /**
   * A topological order of g's nodes over the edges whose mask meets filter (Kahn's algorithm),
   * or null when they have a cycle.
   */
  public static int[] topological(Digraph g, int filter) {
    int nodes = g.n;
    int[] indeg = new int[nodes];
    for (int v = 0; v < nodes; v++) {
      for (int e = g.start(v); e < g.end(v); e++) if ((g.mask(e) & filter) != 0) indeg[g.target(e)]++;
    }
    int[] order = new int[nodes];
    int head = 0, tail = 0;
    for (int v = 0; v < nodes; v++) if (indeg[v] == 0) order[tail++] = v;
    while (head < tail) {
      int v = order[head++];
      for (int e = g.start(v); e < g.end(v); e++) {
        if ((g.mask(e) & filter) != 0 && --indeg[g.target(e)] == 0) order[tail++] = g.target(e);
      }
    }
    return tail == nodes ? order : null;
  }

  /**
   * A list of longs in one array (a 10^6-transaction certificate: 8 MB, not 10^6 boxed Longs);
   * read-only once built, boxed one at a time as it is printed.
   */
  static final class LongVec extends java.util.AbstractList<Long> implements java.util.RandomAccess {
    private long[] a;
    private int size;

    LongVec(int capacity) { a = new long[Math.max(capacity, 1)]; }

    void addLong(long x) {
      if (size == a.length) a = java.util.Arrays.copyOf(a, 2 * a.length);
      a[size++] = x;
    }

    @Override public Long get(int i) {
      if (i < 0 || i >= size) throw new IndexOutOfBoundsException(i);
      return a[i];
    }

    @Override public Long set(int i, Long x) {
      Long old = get(i);
      a[i] = x;
      return old;
    }

    @Override public int size() { return size; }
  }
}
