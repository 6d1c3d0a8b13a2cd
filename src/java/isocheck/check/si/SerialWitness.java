package isocheck.check.si;

import isocheck.graph.Edge;
import isocheck.graph.EdgeList;
import isocheck.graph.Orders;
import isocheck.history.History;
import isocheck.history.OpRecord;
import isocheck.order.RegisterAnalysis;
import java.util.Arrays;

/**
 * A witness that an rw-register history satisfies a serializable or snapshot-isolation level,
 * found without the polygraph: one schedule that follows the history's own time, checked in one
 * pass. Serializability holds when some total order of the committed transactions, extending
 * reads-from and the level's session or realtime order, has every read see the last write before
 * it (Papadimitriou's serial schedules; PolySI, PVLDB'23, §2). Snapshot isolation holds when some
 * order of begin and commit events, a begin before its commit, has every read see the last write
 * committed before its transaction began, and no two transactions that write a common key overlap
 * (first committer wins; the begin/commit formulation of PolySI §2 and Cerone et al.,
 * CONCUR'15).
 *
 * <p>The schedule: Kahn's algorithm over reads-from and the level's orders (realtime through
 * {@link Orders#realtime}'s relays), the ready event that happened first next: a transaction at
 * its completion (serializability), a begin at its invocation and a commit at its completion
 * (snapshot isolation), a never-completed one at its invocation. A correct store usually committed in an order
 * close to this. When the check passes, the level holds; when it fails, nothing is concluded and
 * the polygraph search decides. Reads are those the polygraph counts (external reads of {@code
 * :ok} transactions naming a committed transaction's final write, or the initial state); the
 * others are violations the pre-checks report.
 */
final class SerialWitness {
  private static final int BOT = Polygraph.BOT;

  private final History h;
  private final RegisterAnalysis ra;
  private final boolean[] committed;
  private final int n;
  /** Per read mop: the version it names (a transaction, or BOT), or MIN_VALUE when it names none. */
  private int[] version;

  SerialWitness(History h, RegisterAnalysis ra) {
    this.h = h;
    this.ra = ra;
    this.committed = ra.committed;
    this.n = h.nTxns;
  }

  /**
   * Whether the history-ordered schedule witnesses the level: snapshot isolation when {@code si}
   * (else serializability), with session order when {@code session}, realtime order (a commit
   * before the next begin, or transaction) when {@code realtime}.
   */
  boolean holds(boolean si, boolean session, boolean realtime) {
    if (version == null) version = versions();
    EdgeList es = new EdgeList(64);
    // Reads-from, and the orders, between transactions; relays numbered from n.
    for (int t = 0; t < n; t++) {
      if (!h.isOk(t)) continue;
      for (int m = h.mopStart(t); m < h.mopEnd(t); m++) {
        int v = h.mopKind(m) == OpRecord.READ ? version[m] : Integer.MIN_VALUE;
        if (v >= 0) es.add(v, t, Edge.WR);
      }
    }
    if (session) Orders.sessionOrder(h, committed, es);
    int relays = realtime ? Orders.realtime(h, committed, es) : 0;
    // A read of the initial state of x precedes every write of x (known anti-dependencies, as
    // in the polygraph), through one gate node per such key: its readers → gate → its writers.
    // In serializability a transaction that read the initial state and then wrote the key (a
    // read-modify-write of ⊥, at most one per key, else a lost update) is both: the other readers
    // go before it, and it before the gate.
    int nKeys = h.keyCount();
    int[] gate = new int[nKeys], rmw = new int[nKeys];
    Arrays.fill(gate, -1);
    Arrays.fill(rmw, -1);
    int gates = 0;
    for (int t = 0; t < n; t++) {
      if (!h.isOk(t)) continue;
      for (int m = h.mopStart(t); m < h.mopEnd(t); m++) {
        if (h.mopKind(m) != OpRecord.READ || version[m] != BOT) continue;
        int x = h.mopKey(m);
        if (gate[x] < 0) gate[x] = gates++;
        if (!writes(t, x, m)) continue;
        if (rmw[x] >= 0 && rmw[x] != t) return false; // a lost update: no schedule
        rmw[x] = t;
      }
    }
    // Nodes: SER, transaction t, relay n + r, gate n + relays + g; SI, begin 2t, commit 2t + 1,
    // relay 2n + r, gate 2n + relays + g.
    int base = si ? 2 * n : n, nodes = base + relays + gates;
    IntCsr g = new IntCsr(nodes);
    for (int pass = 0; pass < 2; pass++) {
      orders(g, pass, si, es);
      for (int t = 0; t < n; t++) {
        if (!committed[t]) continue;
        for (int m = h.mopStart(t); m < h.mopEnd(t); m++) {
          int x = h.mopKey(m);
          if (gate[x] < 0) continue;
          int gn = base + relays + gate[x];
          boolean r0 = h.mopKind(m) == OpRecord.READ && version[m] == BOT;
          if (si) {
            if (r0) g.edge(pass, 2 * t, gn);
            else if (h.mopKind(m) == OpRecord.WRITE) g.edge(pass, gn, 2 * t + 1);
          } else if (rmw[x] < 0) {
            if (r0) g.edge(pass, t, gn);
            else if (h.mopKind(m) == OpRecord.WRITE) g.edge(pass, gn, t);
          } else if (t == rmw[x]) {
            if (r0) g.edge(pass, t, gn);
          } else {
            if (r0) g.edge(pass, t, rmw[x]);
            else if (h.mopKind(m) == OpRecord.WRITE) g.edge(pass, gn, t);
          }
        }
      }
      if (pass == 0) g.allocate();
    }
    long[] rank = new long[nodes]; // relays and gates 0: as soon as they are ready
    long maxOrd = 0;
    for (int t = 0; t < n; t++) maxOrd = Math.max(maxOrd, Math.max(h.completeOrdinal(t), h.invokeOrdinal(t)) + 1);
    for (int t = 0; t < n; t++) {
      long c = h.completeOrdinal(t), i = h.invokeOrdinal(t);
      // Never completed (:info): committed, if at all, some time after its invocation; as
      // early as that, since its readers wait for it.
      long done = c >= 0 ? c + 1 : i >= 0 ? i + 1 : maxOrd + 1;
      if (si) {
        rank[2 * t] = i >= 0 ? i + 1 : done;
        rank[2 * t + 1] = done;
      } else {
        rank[t] = done;
      }
    }
    int[] order = topological(g, rank, nodes);
    if (order == null) return false;
    return acyclicWith(order, si, es, relays);
  }

  /**
   * The level's graph with the version order the schedule gives (each key's writers in the
   * order their commits were placed): reads-from, the orders, write-write between consecutive
   * writers, and an anti-dependency from each read to the writer after the version it read
   * (after ⊥: the key's first writer). Serializability: edges between transactions; snapshot
   * isolation: begin/commit events, with write-write and reads-from from a commit to a begin,
   * anti-dependencies from a begin to a commit (the begin/commit graph, isocheck.graph.BcGraph).
   * Acyclic: the level holds with that version order (Adya's theorem; PolySI Thm 4.1).
   */
  private boolean acyclicWith(int[] order, boolean si, EdgeList es, int relays) {
    int nKeys = h.keyCount();
    // Each key's committed writers, in schedule order: counted, then filled walking the order.
    int[] start = new int[nKeys + 1];
    int[] stamp = new int[nKeys];
    Arrays.fill(stamp, -1);
    for (int t = 0; t < n; t++) {
      if (!committed[t]) continue;
      for (int m = h.mopStart(t); m < h.mopEnd(t); m++) {
        if (h.mopKind(m) != OpRecord.WRITE || stamp[h.mopKey(m)] == t) continue;
        stamp[h.mopKey(m)] = t;
        start[h.mopKey(m) + 1]++;
      }
    }
    for (int x = 0; x < nKeys; x++) start[x + 1] += start[x];
    int[] fill = Arrays.copyOf(start, nKeys), writer = new int[start[nKeys]];
    int[] slot = new int[h.mopCount()]; // per final write: its place among its key's writers
    Arrays.fill(stamp, -1);
    for (int v : order) {
      if (si ? v >= 2 * n || (v & 1) == 0 : v >= n) continue;
      int t = si ? v >>> 1 : v;
      if (!committed[t]) continue;
      for (int m = h.mopEnd(t) - 1; m >= h.mopStart(t); m--) {
        if (h.mopKind(m) != OpRecord.WRITE || stamp[h.mopKey(m)] == t) continue;
        int x = h.mopKey(m);
        stamp[x] = t;
        slot[m] = fill[x];
        writer[fill[x]++] = t;
      }
    }
    // Write-write and anti-dependency edges, gathered once (their look-ups miss the caches).
    EdgeList more = new EdgeList(Math.max(64, writer.length + h.mopCount() / 2));
    for (int x = 0; x < nKeys; x++) {
      for (int i = start[x] + 1; i < start[x + 1]; i++) more.add(writer[i - 1], writer[i], Edge.WW);
    }
    for (int t = 0; t < n; t++) {
      if (!h.isOk(t)) continue;
      for (int m = h.mopStart(t); m < h.mopEnd(t); m++) {
        if (h.mopKind(m) != OpRecord.READ || version[m] == Integer.MIN_VALUE) continue;
        int x = h.mopKey(m);
        int next = version[m] == BOT ? start[x] : slot[ra.writerOfRead[m]] + 1;
        if (next >= start[x + 1]) continue;
        int w = writer[next];
        if (w == t) {
          if (++next >= start[x + 1]) continue; // t overwrote what it read: the writer after t
          w = writer[next];
        }
        more.add(t, w, Edge.RW);
      }
    }
    int base = si ? 2 * n : n, nodes = base + relays;
    IntCsr g = new IntCsr(nodes);
    for (int pass = 0; pass < 2; pass++) {
      orders(g, pass, si, es);
      // Snapshot isolation: write-write from a commit to the next writer's begin, an
      // anti-dependency from the reader's begin to the overwriter's commit.
      for (int i = 0; i < more.size(); i++) {
        int a = more.src(i), b = more.dst(i);
        boolean ww = more.type(i) == Edge.WW;
        g.edge(pass, si ? (ww ? 2 * a + 1 : 2 * a) : a, si ? (ww ? 2 * b : 2 * b + 1) : b);
      }
      if (pass == 0) g.allocate();
    }
    int[] indeg = new int[nodes];
    for (int e = 0; e < g.target.length; e++) indeg[g.target[e]]++;
    int[] queue = new int[nodes];
    int head = 0, tail = 0;
    for (int v = 0; v < nodes; v++) if (indeg[v] == 0) queue[tail++] = v;
    while (head < tail) {
      int v = queue[head++];
      for (int e = g.start[v]; e < g.start[v + 1]; e++) if (--indeg[g.target[e]] == 0) queue[tail++] = g.target[e];
    }
    return tail == nodes;
  }

  /**
   * The edges every graph here has: reads-from and the level's orders (es, relays from n), and
   * for snapshot isolation each transaction's begin before its commit; a commit → begin between
   * transactions.
   */
  private void orders(IntCsr g, int pass, boolean si, EdgeList es) {
    if (si) for (int t = 0; t < n; t++) if (committed[t]) g.edge(pass, 2 * t, 2 * t + 1);
    for (int i = 0; i < es.size(); i++) {
      int a = es.src(i), b = es.dst(i);
      g.edge(pass, si ? (a < n ? 2 * a + 1 : n + a) : a, si ? (b < n ? 2 * b : n + b) : b);
    }
  }

  /** The version each read names, as {@link Polygraph}'s builder counts it. */
  private int[] versions() {
    int[] out = new int[h.mopCount()];
    Arrays.fill(out, Integer.MIN_VALUE);
    for (int t = 0; t < n; t++) {
      if (!h.isOk(t)) continue;
      for (int m = h.mopStart(t); m < h.mopEnd(t); m++) {
        if (h.mopKind(m) != OpRecord.READ || !ra.external[m]) continue;
        int k = h.mopKey(m), v = h.mopVal(m);
        if (v == History.NIL) {
          out[m] = BOT;
          continue;
        }
        int w = ra.writerOfRead[m];
        if (w < 0) continue;
        int wt = h.mopTxn(w);
        if (wt == t || !committed[wt] || !ra.isFinalWrite(w)) continue;
        out[m] = wt;
      }
    }
    return out;
  }

  /** Whether t writes x after mop m. */
  private boolean writes(int t, int x, int m) {
    for (int i = m + 1; i < h.mopEnd(t); i++) if (h.mopKind(i) == OpRecord.WRITE && h.mopKey(i) == x) return true;
    return false;
  }

  /**
   * Kahn's algorithm, the ready node of least (rank, node) next (relays as soon as they are
   * ready); the nodes in that order, or null when the graph has a cycle among committed nodes.
   * Nodes of transactions not committed have no edges and are placed where their rank says.
   */
  private int[] topological(IntCsr g, long[] rank, int nodes) {
    int[] indeg = new int[nodes];
    for (int v = 0; v < nodes; v++) for (int e = g.start[v]; e < g.start[v + 1]; e++) indeg[g.target[e]]++;
    int[] out = new int[nodes];
    LongHeap heap = new LongHeap(nodes);
    for (int v = 0; v < nodes; v++) if (indeg[v] == 0) heap.push(key(rank, v));
    int k = 0;
    while (heap.size > 0) {
      int v = (int) (heap.pop() & 0xffffffffL);
      out[k++] = v;
      for (int e = g.start[v]; e < g.start[v + 1]; e++) {
        int w = g.target[e];
        if (--indeg[w] == 0) heap.push(key(rank, w));
      }
    }
    return k == nodes ? out : null;
  }

  private static long key(long[] rank, int v) {
    return (rank[v] << 32) | (v & 0xffffffffL);
  }

  /** Adjacency in CSR form, counted in pass 0 and filled in pass 1. */
  private static final class IntCsr {
    final int[] start;
    int[] target, fill;

    IntCsr(int nodes) { start = new int[nodes + 1]; }

    void edge(int pass, int a, int b) {
      if (pass == 0) start[a + 1]++;
      else target[fill[a]++] = b;
    }

    void allocate() {
      for (int v = 0; v + 1 < start.length; v++) start[v + 1] += start[v];
      target = new int[start[start.length - 1]];
      fill = Arrays.copyOf(start, start.length - 1);
    }
  }

  /** A binary min-heap of longs. */
  private static final class LongHeap {
    long[] a;
    int size;

    LongHeap(int cap) { a = new long[Math.max(16, cap)]; }

    void push(long x) {
      if (size == a.length) a = Arrays.copyOf(a, size * 2);
      int i = size++;
      while (i > 0) {
        int p = (i - 1) >>> 1;
        if (a[p] <= x) break;
        a[i] = a[p];
        i = p;
      }
      a[i] = x;
    }

    long pop() {
      long top = a[0], x = a[--size];
      int i = 0;
      while (true) {
        int c = 2 * i + 1;
        if (c >= size) break;
        if (c + 1 < size && a[c + 1] < a[c]) c++;
        if (a[c] >= x) break;
        a[i] = a[c];
        i = c;
      }
      a[i] = x;
      return top;
    }
  }
}
