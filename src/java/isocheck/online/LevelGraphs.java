package isocheck.online;

import isocheck.graph.Edge;
import isocheck.solver.TopologicalOrder;
import isocheck.util.IntList;
import java.util.Arrays;

/**
 * The dependency graphs of the strong levels one {@link OnlineChecker} checks, over one edge
 * store: each transaction edge (ww, wr, rw, process, realtime) is stored once, at transaction
 * level, with a mask of the levels' graphs (<i>views</i>) that hold it; each view keeps only its
 * own topological order, maintained as Pearce &amp; Kelly's PK does ("A Dynamic Topological Sort
 * Algorithm for Directed Acyclic Graphs", ACM JEA 11 (2006), §2; {@link
 * isocheck.solver.TopologicalOrder}), searching the store's adjacency filtered by its mask bit.
 * A snapshot-isolation view reads the store through Viper's begin/commit split (EuroSys'23,
 * Def. 2): transaction x is nodes 2x (begin) and 2x+1 (commit), with the edge 2x → 2x+1 implied
 * (never stored); a dependency a → b is C(a) → B(b), an anti-dependency B(a) → C(b), GSI's
 * realtime edge C(a) → C(b).
 *
 * <p>Each view holds exactly the edges the same level's own {@link
 * isocheck.solver.TopologicalOrder} would, in the same order (the store's adjacency lists are
 * in insertion order, as a separate graph's are), and its order moves exactly as that graph's
 * (PK's reorder depends only on the sets δF and δB, not on the order they are searched in), so a
 * refused edge and the path {@link View#path} finds are the same: the verdicts, counterexamples
 * and counts do not change (online_test compares both ways over the simulator). What changes is
 * the cost with several levels: an edge is stored once instead of once per level (with all
 * seven levels, seven adjacency appends and edge records become one, plus seven order
 * comparisons), the window's reachability walks one graph, and its compaction rebuilds one
 * edge list.
 */
final class LevelGraphs {
  // Store: transaction nodes 0..nodes-1 (OnlineChecker's node numbers), edges by id.
  private int nodes;
  private int m;
  private int[] eFrom = new int[1024], eTo = new int[1024], eTag = new int[1024], eMask = new int[1024];
  private int[][] out = new int[1024][], in = new int[1024][];
  private int[] outN = new int[1024], inN = new int[1024];

  // Search scratch, over view nodes (two per transaction at most), shared by the views.
  private int[] mark = new int[2048], stack = new int[2048], deltaF = new int[2048], deltaB = new int[2048];
  private int[] parent = new int[2048];
  private int epoch;
  private long[] sortBuf = new long[16];
  private int[] posBuf = new int[16];

  private int nViews;

  /** A new view: a level's graph (si: the begin/commit split; rtCommit: realtime edges C → C). */
  View view(boolean si, boolean rtCommit) {
    if (nViews == 31) throw new IllegalStateException("at most 31 levels' graphs share a store");
    return new View(1 << nViews++, si, rtCommit);
  }

  int nodes() { return nodes; }

  /** Adds a transaction node to the store and to every view built (placed last in their orders). */
  void addNode(View[] views) {
    if (nodes == out.length) {
      int cap = 2 * nodes;
      out = Arrays.copyOf(out, cap);
      in = Arrays.copyOf(in, cap);
      outN = Arrays.copyOf(outN, cap);
      inN = Arrays.copyOf(inN, cap);
    }
    if (2 * nodes + 2 > mark.length) {
      int cap = 2 * mark.length;
      mark = Arrays.copyOf(mark, cap);
      stack = new int[cap];
      deltaF = new int[cap];
      deltaB = new int[cap];
      parent = new int[cap];
    }
    out[nodes] = null;
    in[nodes] = null;
    outN[nodes] = 0;
    inN[nodes] = 0;
    nodes++;
    for (View v : views) v.addNode();
  }

  /** Stores edge a → b (transaction nodes) with tag, held by no view yet; its id. */
  int push(int a, int b, int tag) {
    if (m == eFrom.length) {
      int cap = 2 * m;
      eFrom = Arrays.copyOf(eFrom, cap);
      eTo = Arrays.copyOf(eTo, cap);
      eTag = Arrays.copyOf(eTag, cap);
      eMask = Arrays.copyOf(eMask, cap);
    }
    int e = m++;
    eFrom[e] = a;
    eTo[e] = b;
    eTag[e] = tag;
    eMask[e] = 0;
    out[a] = TopologicalOrder.append(out[a], outN[a]++, e);
    in[b] = TopologicalOrder.append(in[b], inN[b]++, e);
    return e;
  }

  /** Drops edge e, the last pushed, when no view took it. */
  void popIfUnheld(int e) {
    if (eMask[e] != 0) return;
    m--;
    outN[eFrom[e]]--;
    inN[eTo[e]]--;
  }

  /** Marks the transaction nodes v has an edge to (in some view) and queues the new ones; the new queue length. */
  int successors(int v, boolean[] seen, int[] queue, int qn) {
    int[] ov = out[v];
    for (int i = 0, d = outN[v]; i < d; i++) {
      int u = eTo[ov[i]];
      if (!seen[u]) {
        seen[u] = true;
        queue[qn++] = u;
      }
    }
    return qn;
  }

  /**
   * Keeps the transaction nodes nodeMap keeps (old node -> new node or -1), their edges in the
   * same order, and each view's order restricted to them.
   */
  void compact(int[] nodeMap, int nn, View[] views) {
    int j = 0;
    for (int e = 0; e < m; e++) {
      int a = nodeMap[eFrom[e]], b = nodeMap[eTo[e]];
      if (a < 0 || b < 0) continue;
      eFrom[j] = a;
      eTo[j] = b;
      eTag[j] = eTag[e];
      eMask[j++] = eMask[e];
    }
    m = j;
    int[] od = new int[nn], id = new int[nn];
    for (int e = 0; e < m; e++) {
      od[eFrom[e]]++;
      id[eTo[e]]++;
    }
    int[][] no = new int[Math.max(nn, 16)][], ni = new int[no.length][];
    for (int v = 0; v < nn; v++) {
      if (od[v] > 0) no[v] = new int[od[v] + (od[v] >> 1) + 1];
      if (id[v] > 0) ni[v] = new int[id[v] + (id[v] >> 1) + 1];
    }
    Arrays.fill(od, 0);
    Arrays.fill(id, 0);
    for (int e = 0; e < m; e++) {
      int a = eFrom[e], b = eTo[e];
      no[a][od[a]++] = e;
      ni[b][id[b]++] = e;
    }
    out = no;
    in = ni;
    outN = Arrays.copyOf(od, no.length);
    inN = Arrays.copyOf(id, no.length);
    nodes = nn;
    for (View v : views) v.compact(nodeMap, nn);
  }

  /**
   * One level's graph: its mask bit in the store and its topological order. Until {@link
   * #build} (while a stronger serializable level's graph covers it, see OnlineChecker) it keeps
   * no order and takes every edge offered.
   */
  final class View {
    final int bit;
    final boolean si, rtCommit;
    private final int per;
    private boolean built = true;
    private int n;
    private int[] ord = new int[16], at = new int[16];
    /** Edges held, cumulative (the begin → commit edges counted, as a separate graph holds them). */
    long edges;

    private View(int bit, boolean si, boolean rtCommit) {
      this.bit = bit;
      this.si = si;
      this.rtCommit = rtCommit;
      this.per = si ? 2 : 1;
    }

    boolean built() { return built; }

    /** Not built: takes every edge offered, keeps no order, until {@link #build}. */
    void unbuild() {
      built = false;
      n = 0;
    }

    /** The view node edge e (a transaction edge of type) leaves from / goes into. */
    int from(int a, int type) { return !si ? a : type == Edge.RW ? 2 * a : 2 * a + 1; }

    int to(int b, int type) { return !si ? b : type == Edge.RW || (rtCommit && type == Edge.RT) ? 2 * b + 1 : 2 * b; }

    private void addNode() {
      if (si) edges++;
      if (!built) return;
      if (n + per > ord.length) {
        ord = Arrays.copyOf(ord, 2 * ord.length + per);
        at = Arrays.copyOf(at, ord.length);
      }
      for (int i = 0; i < per; i++) {
        ord[n] = n;
        at[n] = n;
        n++;
      }
    }

    /** Built from cover's order (every edge this view holds goes forward in it: OnlineChecker's Graph). */
    void build(View cover) {
      int nodes = LevelGraphs.this.nodes;
      n = nodes * per;
      ord = new int[Math.max(16, n + n / 2)];
      at = new int[ord.length];
      int j = 0;
      for (int p = 0; p < cover.n; p++) {
        int x = cover.at[p];
        if (si) {
          at[j++] = 2 * x;
          at[j++] = 2 * x + 1;
        } else at[j++] = x;
      }
      for (int p = 0; p < n; p++) ord[at[p]] = p;
      built = true;
    }

    private void compact(int[] nodeMap, int nn) {
      if (!built) return;
      int j = 0;
      for (int p = 0; p < n; p++) {
        int x = at[p], nx = nodeMap[x / per];
        if (nx >= 0) at[j++] = nx * per + x % per;
      }
      n = j;
      for (int p = 0; p < n; p++) ord[at[p]] = p;
    }

    /** The view's transaction order, as transaction nodes (an SI view's begin nodes). */
    int[] order() {
      int[] o = new int[n / per];
      for (int p = 0, j = 0; p < n; p++) if (at[p] % per == 0) o[j++] = at[p] / per;
      return o;
    }

    /** Marks edge e (of type) as held: an unbuilt view's, or after {@link #add} accepted it. */
    void hold(int e) {
      eMask[e] |= bit;
      edges++;
    }

    /**
     * Offers store edge e, which goes from view node x to y: held (true) unless y reaches x in
     * this view (PK: the affected region searched forward from y and backward from x, then
     * reordered), the order unchanged then.
     */
    boolean add(int e, int x, int y) {
      int ub = ord[x], lb = ord[y];
      if (lb < ub) {
        int f = ++epoch, nF = 0, sp = 0;
        mark[y] = f;
        deltaF[nF++] = y;
        stack[sp++] = y;
        while (sp > 0) {
          int w = stack[--sp];
          int u = w / per;
          boolean begin = si && (w & 1) == 0;
          if (begin) { // the implied begin → commit edge, first
            int z = w + 1;
            if (z == x) return false;
            if (ord[z] < ub && mark[z] != f) {
              mark[z] = f;
              deltaF[nF++] = z;
              stack[sp++] = z;
            }
          }
          int[] ow = out[u];
          for (int i = 0, k = outN[u]; i < k; i++) {
            int z = successor(ow[i], begin);
            if (z < 0) continue;
            if (z == x) return false;
            if (ord[z] < ub && mark[z] != f) {
              mark[z] = f;
              deltaF[nF++] = z;
              stack[sp++] = z;
            }
          }
        }
        int b = ++epoch, nB = 0;
        mark[x] = b;
        deltaB[nB++] = x;
        stack[sp++] = x;
        while (sp > 0) {
          int w = stack[--sp];
          int u = w / per;
          boolean commit = si && (w & 1) == 1;
          if (commit) {
            int z = w - 1;
            if (ord[z] > lb && mark[z] != b) {
              mark[z] = b;
              deltaB[nB++] = z;
              stack[sp++] = z;
            }
          }
          int[] iw = in[u];
          for (int i = 0, k = inN[u]; i < k; i++) {
            int z = predecessor(iw[i], u, w);
            if (z < 0) continue;
            if (ord[z] > lb && mark[z] != b) {
              mark[z] = b;
              deltaB[nB++] = z;
              stack[sp++] = z;
            }
          }
        }
        reorder(nB, nF);
      }
      hold(e);
      return true;
    }

    /**
     * The node store edge g leads to from a node of its tail's transaction, in this view: -1 when
     * the view does not hold g, or (SI) when g does not leave from that node's side (a begin node
     * has only rw edges out, a commit node the others).
     */
    private int successor(int g, boolean begin) {
      if ((eMask[g] & bit) == 0) return -1;
      int type = eTag[g] & 127;
      if (si && (type == Edge.RW) != begin) return -1;
      return to(eTo[g], type);
    }

    /** The node store edge g (into transaction u) comes from when it enters node w, in this view; -1 when it does not. */
    private int predecessor(int g, int u, int w) {
      if ((eMask[g] & bit) == 0) return -1;
      int type = eTag[g] & 127;
      if (si && to(u, type) != w) return -1;
      return from(eFrom[g], type);
    }

    /** PK's reorder, TopologicalOrder's over this view's order. */
    private void reorder(int nB, int nF) {
      int k = nB + nF;
      if (posBuf.length < k) {
        posBuf = new int[Math.max(k, 2 * posBuf.length)];
        sortBuf = new long[posBuf.length];
      }
      TopologicalOrder.reorder(ord, at, deltaB, nB, deltaF, nF, sortBuf, posBuf);
    }

    /**
     * A path src ⇝ dst in this view, as steps appended to stepsOut (a store edge id, or {@code
     * -1 - x} for transaction x's begin → commit edge); false when there is none. The search is
     * TopologicalOrder#path's with every cost 0 (a depth-first search in adjacency order,
     * within dst's position), so it finds the same path a separate graph would.
     */
    boolean path(int src, int dst, IntList stepsOut) {
      if (src == dst) return true;
      int hi = ord[dst];
      if (ord[src] > hi) return false;
      int f = ++epoch, sp = 0;
      mark[src] = f;
      parent[src] = Integer.MIN_VALUE;
      stack[sp++] = src;
      boolean found = false;
      while (sp > 0) {
        int w = stack[--sp];
        if (w == dst) {
          found = true;
          break;
        }
        int u = w / per;
        boolean begin = si && (w & 1) == 0;
        if (begin) {
          int z = w + 1;
          if (ord[z] <= hi && mark[z] != f) {
            mark[z] = f;
            parent[z] = -1 - u;
            stack[sp++] = z;
          }
        }
        int[] ow = out[u];
        for (int i = 0, k = outN[u]; i < k; i++) {
          int g = ow[i];
          int z = successor(g, begin);
          if (z < 0 || ord[z] > hi || mark[z] == f) continue;
          mark[z] = f;
          parent[z] = g;
          stack[sp++] = z;
        }
      }
      if (!found && mark[dst] != f) return false;
      int start = stepsOut.size();
      for (int v = dst; v != src; ) {
        int s = parent[v];
        stepsOut.add(s);
        v = s < 0 ? 2 * (-1 - s) : from(eFrom[s], eTag[s] & 127);
      }
      for (int i = start, j = stepsOut.size() - 1; i < j; i++, j--) {
        int t = stepsOut.get(i);
        stepsOut.set(i, stepsOut.get(j));
        stepsOut.set(j, t);
      }
      return true;
    }

    /** The view node step s (of {@link #path}) leaves from. */
    int stepFrom(int s) { return s < 0 ? 2 * (-1 - s) : from(eFrom[s], eTag[s] & 127); }

    /** The tag of step s. */
    int stepTag(int s) { return s < 0 ? Edge.INTRA : eTag[s]; }
  }
}
