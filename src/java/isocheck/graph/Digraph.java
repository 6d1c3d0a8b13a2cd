package isocheck.graph;

import java.util.Arrays;

/**
 * A compact directed graph in CSR form: for node v, its out-edges are positions
 * {@code [start(v), start(v+1))} of the target and mask arrays, sorted by target, one entry per
 * target with the union of the edge types. Self-loops are kept (a transaction that depends on
 * itself is a one-node cycle).
 */
public final class Digraph {
  public final int n;
  final int[] start;
  final int[] target;
  final byte[] mask;

  public int start(int v) { return start[v]; }
  public int end(int v) { return start[v + 1]; }
  public int target(int e) { return target[e]; }
  public int mask(int e) { return mask[e]; }
  public int edgeCount() { return target.length; }

  /** The union of edge types from a to b, or 0 when there is no edge. */
  public int maskOf(int a, int b) {
    if (!ordered) throw new IllegalStateException("maskOf on an unordered graph");
    int lo = start[a], hi = start[a + 1] - 1;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      int t = target[mid];
      if (t < b) lo = mid + 1;
      else if (t > b) hi = mid - 1;
      else return mask[mid];
    }
    return 0;
  }

  /**
   * Packs an edge list over nodes 0..n-1, merging parallel edges: {@link #unordered}, then
   * {@link #ordered}. The graph is the same for any split of the work among cores.
   */
  public static Digraph of(int n, EdgeList es) { return unordered(n, es).ordered(); }

  /** False for a graph {@link #unordered} made, until {@link #ordered}. */
  private final boolean ordered;
  /** For an unordered graph, the edges it was packed from (which {@link #ordered} uses to choose its split). */
  private final int packedFrom;

  private Digraph(int n, int[] start, int[] target, byte[] mask, boolean ordered) {
    this.n = n;
    this.start = start;
    this.target = target;
    this.mask = mask;
    this.ordered = ordered;
    this.packedFrom = target.length;
  }

  /**
   * The edge list packed per source node and no further: within a node, edges in list order,
   * parallel edges kept. Enough for a pass whose outcome depends on neither (Kahn's algorithm
   * choosing by a fixed priority, a reachability test), and a third of the cost of sorting and
   * merging them ({@link #ordered}), which is what a search that then succeeds saves. Not for
   * {@link #maskOf}, nor for searches whose result follows the order of the edges (components,
   * cycles). On every core ({@link isocheck.util.Ranges}) from a million edges on: each range of
   * edges is counted and scattered into its own slots of each node's adjacency, after the ranges
   * before it, so the order is the sequential one.
   */
  public static Digraph unordered(int n, EdgeList es) {
    int m = es.n;
    isocheck.util.Ranges er = m >= PARALLEL_EDGES ? new isocheck.util.Ranges(m) : null;
    int[] count = new int[n + 1];
    int[] tgt = new int[m];
    byte[] msk = new byte[m];
    if (er == null || er.count == 1) {
      for (int i = 0; i < m; i++) count[es.src[i] + 1]++;
      for (int v = 0; v < n; v++) count[v + 1] += count[v];
      int[] pos = Arrays.copyOf(count, n);
      for (int i = 0; i < m; i++) {
        int p = pos[es.src[i]]++;
        tgt[p] = es.dst[i];
        msk[p] = es.type[i];
      }
      return new Digraph(n, count, tgt, msk, false);
    }
    int parts = er.count;
    // Per range of edges: its count per source node.
    int[][] cnt = new int[parts][];
    er.forEach(c -> {
      int[] k = new int[n];
      for (int i = er.from(c), e = er.to(c); i < e; i++) k[es.src[i]]++;
      cnt[c] = k;
    });
    for (int v = 0; v < n; v++) {
      int sum = count[v];
      for (int c = 0; c < parts; c++) {
        int k = cnt[c][v];
        cnt[c][v] = sum; // (now: where range c's edges of v start)
        sum += k;
      }
      count[v + 1] = sum;
    }
    er.forEach(c -> {
      int[] pos = cnt[c];
      for (int i = er.from(c), e = er.to(c); i < e; i++) {
        int p = pos[es.src[i]]++;
        tgt[p] = es.dst[i];
        msk[p] = es.type[i];
      }
    });
    return new Digraph(n, count, tgt, msk, false);
  }

  /** An ordered graph from CSR arrays whose adjacencies are already sorted by target and merged. */
  static Digraph packed(int n, int[] start, int[] target, byte[] mask) { return new Digraph(n, start, target, mask, true); }

  /** Set by {@link #ordered} on the unordered graph whose arrays it sorted: not to be used again. */
  private boolean consumed;

  private void consumed() {
    if (consumed) throw new IllegalStateException("an unordered graph used after it was ordered");
  }

  /** Whether each adjacency is sorted by target and merged ({@link #of}); false for {@link #unordered}'s graphs. */
  public boolean isOrdered() { return ordered; }

  /**
   * This graph with each adjacency sorted by target and parallel edges merged, as {@link #of}
   * packs it: this one when it is; else sorted in place, in the unordered graph's arrays, which
   * is not to be used afterwards. On every core from a million edges on: each range of nodes
   * sorts and merges its adjacencies within its own slots, the ranges then moved together.
   */
  public Digraph ordered() {
    if (ordered) return this;
    consumed();
    consumed = true;
    int m = target.length;
    int[] count = start, tgt = target;
    byte[] msk = mask;
    int[] st = new int[n + 1];
    int w;
    if (packedFrom < PARALLEL_EDGES) {
      w = compact(count, tgt, msk, st, 0, n, 0);
    } else {
      isocheck.util.Ranges nr = new isocheck.util.Ranges(n);
      int[] end = new int[nr.count];
      nr.forEach(c -> end[c] = compact(count, tgt, msk, st, nr.from(c), nr.to(c), count[nr.from(c)]));
      // Move the ranges' compacted slots together.
      w = end[0];
      for (int c = 1; c < nr.count; c++) {
        int from = nr.from(c), base = count[from], len = end[c] - base, shift = base - w;
        if (shift > 0) {
          System.arraycopy(tgt, base, tgt, w, len);
          System.arraycopy(msk, base, msk, w, len);
          for (int v = from, to = nr.to(c); v < to; v++) st[v] -= shift;
        }
        w += len;
      }
    }
    st[n] = w;
    return new Digraph(n, st, w == m ? tgt : Arrays.copyOf(tgt, w), w == m ? msk : Arrays.copyOf(msk, w), true);
  }

  /**
   * Whether the edges whose types meet {@code filter} form no cycle (a self-loop is one): Kahn's
   * algorithm, whose answer depends neither on edge order nor on parallel edges, so an
   * {@link #unordered} graph will do.
   */
  public boolean acyclic(int filter) {
    consumed();
    int[] indeg = new int[n];
    for (int e = 0; e < target.length; e++) if ((mask[e] & filter) != 0) indeg[target[e]]++;
    int[] queue = new int[n];
    int head = 0, tail = 0;
    for (int v = 0; v < n; v++) if (indeg[v] == 0) queue[tail++] = v;
    while (head < tail) {
      int v = queue[head++];
      for (int e = start[v], end = start[v + 1]; e < end; e++) {
        if ((mask[e] & filter) != 0 && --indeg[target[e]] == 0) queue[tail++] = target[e];
      }
    }
    return tail == n;
  }

  /** How many edges {@link #ordered} keeps: distinct (source, target) pairs. */
  public long distinctEdgeCount() {
    if (ordered) return target.length;
    consumed();
    int[] seen = new int[n];
    java.util.Arrays.fill(seen, -1);
    long c = 0;
    for (int v = 0; v < n; v++) {
      for (int e = start[v], end = start[v + 1]; e < end; e++) {
        int t = target[e];
        if (seen[t] != v) {
          seen[t] = v;
          c++;
        }
      }
    }
    return c;
  }

  /** Edges from which {@link #of} packs on every core. */
  static final int PARALLEL_EDGES = 1 << 20;

  /**
   * Sorts each adjacency of nodes [from, to) (slots count[v]..count[v+1]) by target and merges
   * duplicates, compacting from slot w on (w ≤ count[from]); sets start[v]; returns the end.
   */
  private static int compact(int[] count, int[] tgt, byte[] msk, int[] start, int from, int to, int w) {
    long[] buf = new long[16];
    for (int v = from; v < to; v++) {
      int a = count[v], b = count[v + 1];
      start[v] = w;
      int len = b - a;
      if (len == 0) continue;
      if (len == 1) {
        tgt[w] = tgt[a];
        msk[w] = msk[a];
        w++;
        continue;
      }
      if (buf.length < len) buf = new long[Math.max(len, buf.length * 2)];
      for (int i = 0; i < len; i++) buf[i] = ((long) tgt[a + i] << 8) | (msk[a + i] & 0xff);
      Arrays.sort(buf, 0, len);
      int lastT = -1;
      for (int i = 0; i < len; i++) {
        int t = (int) (buf[i] >>> 8);
        byte mk = (byte) buf[i];
        if (t == lastT) msk[w - 1] |= mk;
        else {
          tgt[w] = t;
          msk[w] = mk;
          w++;
          lastT = t;
        }
      }
    }
    return w;
  }
}
