package isocheck.solver;

import isocheck.util.IntList;
import java.util.Arrays;

/**
 * A directed acyclic graph kept together with a topological order of its nodes, maintained
 * incrementally as edges are inserted: Pearce &amp; Kelly, "A Dynamic Topological Sort Algorithm
 * for Directed Acyclic Graphs", ACM JEA 11 (2006), §2 (algorithm PK).
 *
 * <p>{@code ord[v]} is v's position; every edge a→b has {@code ord[a] < ord[b]}. Inserting
 * x→y with {@code ord[x] < ord[y]} costs O(1). Otherwise the affected region is the interval
 * {@code [ord[y], ord[x]]}: a forward search from y inside it (δF, PK's dfs_f) either reaches x,
 * and then x→y would close a cycle and is refused, or stops; a backward search from x inside it
 * (δB, dfs_b) collects the nodes that reach x; the positions held by δB ∪ δF are then handed out
 * again, δB first, each set in its old relative order (PK's reorder). Only the affected region is
 * visited, which is what makes the algorithm fast on the sparse, mostly-ordered graphs of a
 * polygraph search.
 *
 * <p>Edges live on a stack and are removed in LIFO order ({@link #truncate}), as a CDCL(T)
 * solver backtracks. Removing edges never invalidates a topological order, so the order is
 * not rolled back (VeriStrong, PVLDB 2026, §6.3, does the same). Parallel edges are allowed.
 * Edge ids are stack positions: while an edge is present its id is stable, and an id is reused
 * after the edge is removed.
 *
 * <p>Each edge carries an int tag (the caller's reason) and a cost, 0 or 1. {@link #path} finds
 * a path of least total cost, using only edges below a given id: the acyclicity theory uses it
 * to explain a cycle with as few non-fixed literals as possible.
 */
public final class TopologicalOrder {
  private int n;
  private int[] ord; // node -> position
  private int[] at; // position -> node

  private int m;
  private int[] eFrom = new int[16], eTo = new int[16], eTag = new int[16];
  private byte[] eCost = new byte[16];
  private int[][] out, in;
  private int[] outN, inN;

  // Search scratch. mark[v] == fEpoch: v is in δF of the last insertion; == bEpoch: in δB.
  private int[] mark;
  private int epoch = 0, fEpoch = -1, bEpoch = -1;
  private int[] stack;
  private int[] deltaF, deltaB;
  private int nF, nB;
  private long[] sortBuf = new long[16];
  private int[] posBuf = new int[16];
  private boolean lastReordered;

  // Path search scratch (0-1 BFS).
  private int[] dist, parentEdge, distStamp;
  private int distEpoch = 0;
  private int[] deque = new int[64];

  private long insertions, reorders, visited;

  public TopologicalOrder(int n) {
    this.n = n;
    int cap = Math.max(n, 4);
    ord = new int[cap];
    at = new int[cap];
    for (int v = 0; v < n; v++) {
      ord[v] = v;
      at[v] = v;
    }
    out = new int[cap][];
    in = new int[cap][];
    outN = new int[cap];
    inN = new int[cap];
    mark = new int[cap];
    Arrays.fill(mark, -1);
    stack = new int[cap];
    deltaF = new int[cap];
    deltaB = new int[cap];
    dist = new int[cap];
    parentEdge = new int[cap];
    distStamp = new int[cap];
    Arrays.fill(distStamp, -1);
  }

  /** The number of nodes. */
  public int nodes() { return n; }

  /**
   * Makes room for {@code edges} more edges, {@code outDeg[v]} more out of node v and {@code
   * inDeg[v]} more into it (arrays over the nodes), so that inserting them regrows nothing: for
   * building a graph from a known edge list (the online checker's window rebuilds its graphs so).
   */
  public void reserve(int edges, int[] outDeg, int[] inDeg) {
    int need = m + edges;
    if (need > eFrom.length) {
      eFrom = Arrays.copyOf(eFrom, need);
      eTo = Arrays.copyOf(eTo, need);
      eTag = Arrays.copyOf(eTag, need);
      eCost = Arrays.copyOf(eCost, need);
    }
    for (int v = 0; v < n; v++) {
      out[v] = room(out[v], outN[v], outDeg[v]);
      in[v] = room(in[v], inN[v], inDeg[v]);
    }
  }

  private static int[] room(int[] a, int used, int more) {
    if (more == 0) return a;
    if (a == null) return new int[more];
    return used + more <= a.length ? a : Arrays.copyOf(a, used + more);
  }

  /** Adds a node, placed last in the order; returns its id. */
  public int addNode() {
    if (n == ord.length) {
      int cap = ord.length * 2;
      ord = Arrays.copyOf(ord, cap);
      at = Arrays.copyOf(at, cap);
      out = Arrays.copyOf(out, cap);
      in = Arrays.copyOf(in, cap);
      outN = Arrays.copyOf(outN, cap);
      inN = Arrays.copyOf(inN, cap);
      int old = mark.length;
      mark = Arrays.copyOf(mark, cap);
      Arrays.fill(mark, old, cap, -1);
      stack = Arrays.copyOf(stack, cap);
      deltaF = Arrays.copyOf(deltaF, cap);
      deltaB = Arrays.copyOf(deltaB, cap);
      dist = Arrays.copyOf(dist, cap);
      parentEdge = Arrays.copyOf(parentEdge, cap);
      distStamp = Arrays.copyOf(distStamp, cap);
      Arrays.fill(distStamp, old, cap, -1);
    }
    ord[n] = n;
    at[n] = n;
    return n++;
  }

  /** The number of edges present (also the id the next edge gets). */
  public int edgeCount() { return m; }

  public int from(int e) { return eFrom[e]; }
  public int to(int e) { return eTo[e]; }
  public int tag(int e) { return eTag[e]; }
  public int cost(int e) { return eCost[e]; }

  /** v's position in the current topological order. */
  public int position(int v) { return ord[v]; }

  /** The node at position p. */
  public int nodeAt(int p) { return at[p]; }

  /** The nodes in topological order (a copy). */
  public int[] order() { return Arrays.copyOf(at, n); }

  /** Out-degree of v (present edges). */
  public int outDegree(int v) { return outN[v]; }

  /** The id of v's i-th outgoing edge. */
  public int outEdge(int v, int i) { return out[v][i]; }

  /**
   * Replaces the order by {@code nodesInOrder} (a permutation of all nodes). Allowed only when
   * the order is consistent with every present edge, which holds trivially without edges.
   */
  public void setOrder(int[] nodesInOrder) {
    if (nodesInOrder.length != n) throw new IllegalArgumentException("not a permutation of the nodes");
    for (int p = 0; p < n; p++) {
      at[p] = nodesInOrder[p];
      ord[nodesInOrder[p]] = p;
    }
    for (int e = 0; e < m; e++) {
      if (ord[eFrom[e]] >= ord[eTo[e]]) throw new IllegalArgumentException("order contradicts edge " + eFrom[e] + "->" + eTo[e]);
    }
  }

  /** Whether the last successful {@link #add} had to reorder (δF, δB are then meaningful). */
  public boolean lastReordered() { return lastReordered; }

  /** After a reordering insertion x→y: the nodes reachable from y that were moved (δF, with y). */
  public int deltaFSize() { return nF; }
  public int deltaF(int i) { return deltaF[i]; }
  /** After a reordering insertion x→y: the nodes reaching x that were moved (δB, with x). */
  public int deltaBSize() { return nB; }
  public int deltaB(int i) { return deltaB[i]; }
  /** Whether v is in δF / δB of the last reordering insertion. */
  public boolean inDeltaF(int v) { return mark[v] == fEpoch; }
  public boolean inDeltaB(int v) { return mark[v] == bEpoch; }

  public long insertions() { return insertions; }
  public long reorders() { return reorders; }
  public long visited() { return visited; }

  /**
   * Inserts from→to unless it would close a cycle. Returns the new edge's id, or -1 (the graph
   * and order unchanged) when to already reaches from, or when from == to.
   */
  public int add(int from, int to, int tag, int cost) {
    lastReordered = false;
    if (from == to) return -1;
    int ub = ord[from], lb = ord[to];
    if (lb < ub) {
      // PK: the affected region [lb, ub]. Forward from `to`, staying below ub.
      int f = ++epoch;
      fEpoch = f;
      nF = 0;
      int sp = 0;
      mark[to] = f;
      deltaF[nF++] = to;
      stack[sp++] = to;
      while (sp > 0) {
        int w = stack[--sp];
        int[] ow = out[w];
        for (int i = 0, k = outN[w]; i < k; i++) {
          int x = eTo[ow[i]];
          if (x == from) {
            visited += nF;
            fEpoch = -1;
            return -1;
          }
          if (ord[x] < ub && mark[x] != f) {
            mark[x] = f;
            deltaF[nF++] = x;
            stack[sp++] = x;
          }
        }
      }
      // Backward from `from`, staying above lb.
      int b = ++epoch;
      bEpoch = b;
      nB = 0;
      mark[from] = b;
      deltaB[nB++] = from;
      stack[sp++] = from;
      while (sp > 0) {
        int w = stack[--sp];
        int[] iw = in[w];
        for (int i = 0, k = inN[w]; i < k; i++) {
          int y = eFrom[iw[i]];
          if (ord[y] > lb && mark[y] != b) {
            mark[y] = b;
            deltaB[nB++] = y;
            stack[sp++] = y;
          }
        }
      }
      visited += nF + nB;
      reorder();
      reorders++;
      lastReordered = true;
    }
    return push(from, to, tag, cost);
  }

  private int push(int from, int to, int tag, int cost) {
    if (m == eFrom.length) {
      int cap = m * 2;
      eFrom = Arrays.copyOf(eFrom, cap);
      eTo = Arrays.copyOf(eTo, cap);
      eTag = Arrays.copyOf(eTag, cap);
      eCost = Arrays.copyOf(eCost, cap);
    }
    int e = m++;
    eFrom[e] = from;
    eTo[e] = to;
    eTag[e] = tag;
    eCost[e] = (byte) cost;
    out[from] = append(out[from], outN[from]++, e);
    in[to] = append(in[to], inN[to]++, e);
    insertions++;
    return e;
  }

  /**
   * Sets a[i] = x in an adjacency list of i used entries (null: none yet), grown twice when
   * full; the list to keep. Shared with online.LevelGraphs.
   */
  public static int[] append(int[] a, int i, int x) {
    if (a == null) a = new int[4];
    else if (i == a.length) a = Arrays.copyOf(a, i * 2);
    a[i] = x;
    return a;
  }

  /** PK's reorder: δB then δF, each sorted by old position, take the pooled positions in order. */
  private void reorder() {
    int k = nB + nF;
    if (sortBuf.length < k) {
      sortBuf = new long[Math.max(k, sortBuf.length * 2)];
      posBuf = new int[sortBuf.length];
    }
    reorder(ord, at, deltaB, nB, deltaF, nF, sortBuf, posBuf);
  }

  /**
   * PK's reorder (§2) of the order ord/at (node → position, position → node): δB = deltaB[0, nB)
   * then δF = deltaF[0, nF), each sorted by old position, take their pooled positions in order.
   * sortBuf needs room for max(nB, nF), posBuf for nB + nF. Shared with online.LevelGraphs'
   * views (one order each over a shared edge store).
   */
  public static void reorder(int[] ord, int[] at, int[] deltaB, int nB, int[] deltaF, int nF, long[] sortBuf, int[] posBuf) {
    int k = nB + nF;
    sortByOrd(ord, deltaB, nB, sortBuf);
    sortByOrd(ord, deltaF, nF, sortBuf);
    for (int i = 0; i < nB; i++) posBuf[i] = ord[deltaB[i]];
    for (int i = 0; i < nF; i++) posBuf[nB + i] = ord[deltaF[i]];
    Arrays.sort(posBuf, 0, k);
    for (int i = 0; i < nB; i++) {
      int v = deltaB[i], p = posBuf[i];
      ord[v] = p;
      at[p] = v;
    }
    for (int i = 0; i < nF; i++) {
      int v = deltaF[i], p = posBuf[nB + i];
      ord[v] = p;
      at[p] = v;
    }
  }

  private static void sortByOrd(int[] ord, int[] a, int len, long[] sortBuf) {
    for (int i = 0; i < len; i++) sortBuf[i] = ((long) ord[a[i]] << 32) | a[i];
    Arrays.sort(sortBuf, 0, len);
    for (int i = 0; i < len; i++) a[i] = (int) sortBuf[i];
  }

  /** Removes the edges with ids ≥ newCount, newest first. The order stays valid. */
  public void truncate(int newCount) {
    while (m > newCount) {
      int e = --m;
      outN[eFrom[e]]--;
      inN[eTo[e]]--;
    }
  }

  /**
   * A least-cost path src ⇝ dst over the edges with id &lt; limit, as edge ids in path order,
   * appended to {@code edgesOut}; returns its cost, or -1 when dst is not reachable that way.
   * Only nodes whose position lies between src's and dst's are searched: any path between
   * them does, since the order is topological. src == dst gives the empty path.
   */
  public int path(int src, int dst, int limit, IntList edgesOut) {
    if (src == dst) return 0;
    int lo = ord[src], hi = ord[dst];
    if (lo > hi) return -1;
    int ep = ++distEpoch;
    int cap = deque.length, mask = cap - 1;
    int head = 0, tail = 0; // deque holds nodes in [head, tail) modulo cap
    distStamp[src] = ep;
    dist[src] = 0;
    parentEdge[src] = -1;
    deque[tail++ & mask] = src;
    int seen = 0;
    while (head != tail) {
      int w = deque[head++ & mask];
      // A node may sit in the deque twice (pushed again when its distance improved); the
      // stale copy is popped after the good one and finds no improvement to make.
      if (w == dst) break;
      seen++;
      int dw = dist[w];
      int[] ow = out[w];
      for (int i = 0, k = outN[w]; i < k; i++) {
        int e = ow[i];
        if (e >= limit) continue;
        int x = eTo[e];
        int px = ord[x];
        if (px > hi) continue;
        int nd = dw + eCost[e];
        if (distStamp[x] == ep && dist[x] <= nd) continue;
        distStamp[x] = ep;
        dist[x] = nd;
        parentEdge[x] = e;
        if (tail - head == cap) {
          // grow, keeping the circular contents in order
          int[] nq = new int[cap * 2];
          for (int j = 0; j < cap; j++) nq[j] = deque[(head + j) & mask];
          deque = nq;
          head = 0;
          tail = cap;
          cap *= 2;
          mask = cap - 1;
        }
        if (eCost[e] == 0) deque[--head & mask] = x;
        else deque[tail++ & mask] = x;
      }
    }
    visited += seen;
    if (distStamp[dst] != ep) return -1;
    int start = edgesOut.size();
    for (int v = dst; v != src; v = eFrom[parentEdge[v]]) edgesOut.add(parentEdge[v]);
    for (int i = start, j = edgesOut.size() - 1; i < j; i++, j--) {
      int t = edgesOut.get(i);
      edgesOut.set(i, edgesOut.get(j));
      edgesOut.set(j, t);
    }
    return dist[dst];
  }

  /** Whether a reaches b through present edges (a reaches itself); for tests and assertions. */
  public boolean reaches(int a, int b) {
    IntList tmp = new IntList();
    return path(a, b, m, tmp) >= 0;
  }

  /** Checks that ord/at are inverse permutations and every present edge goes forward. */
  public boolean consistent() {
    for (int p = 0; p < n; p++) if (ord[at[p]] != p) return false;
    for (int e = 0; e < m; e++) if (ord[eFrom[e]] >= ord[eTo[e]]) return false;
    return true;
  }
}
