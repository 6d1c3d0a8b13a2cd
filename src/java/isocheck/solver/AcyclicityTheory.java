package isocheck.solver;

import isocheck.util.IntList;
import java.util.Arrays;

/**
 * The one theory of the {@link AcyclicitySolver}: the graph made of the known edges and the
 * edges of the true literals must stay acyclic. This is the theory of VeriStrong's solver
 * (Cai et al., "Fast Verification of Strong Database Isolation", PVLDB 2026, §6.3 and its
 * acyclic-minisat) and of MonoSAT's acyclicity predicate (Bayless et al., "SAT Modulo
 * Monotonic Theories", AAAI 2015), restricted to what a polygraph search needs.
 *
 * <ul>
 * <li>The graph is a {@link TopologicalOrder} (Pearce–Kelly). When a literal becomes true its
 *     edges are inserted, one by one; when the solver backtracks they are removed newest first.
 * <li>An insertion that would close a cycle is a conflict. The cycle is the inserted edge plus
 *     a path back whose number of non-root literals is least (a 0-1 BFS inside PK's affected
 *     region, edges of known and level-0 literals costing 0): the conflict clause is the
 *     negation of those literals, so edges already implied by the fixed graph cost nothing,
 *     which generalises dropping the reasons of edges the known graph implies (VeriStrong
 *     §6.3).
 * <li>Theory propagation, where it is cheap: when an insertion x→y reorders, PK has just
 *     computed δF (reached from y) and δB (reaching x); a literal not yet assigned that has an
 *     edge from δF into δB would close a cycle, so it is set false. Its reason, a path, is found
 *     only if conflict analysis asks for it, using only edges older than the propagation.
 * <li>Decisions follow the current topological order (VeriStrong §6.3, Alg. 3): a variable is
 *     decided to the literal whose edges point forward in the order, so that the search extends
 *     an order the graph already has instead of fighting it.
 * </ul>
 */
final class AcyclicityTheory implements Theory {
  private CdclSolver s;
  final TopologicalOrder g;
  boolean topoPolarity = true;
  boolean propagateEdges = true;
  /** Lazy decisions ({@link #settled}), with the topological polarity only; off by default. */
  boolean lazy = false;

  // Edge bindings: literal bLit[b] puts bFrom[b] → bTo[b] in the graph.
  private int nb;
  private int[] bLit = new int[16], bFrom = new int[16], bTo = new int[16];
  private int[][] litB = new int[0][];
  private int[] litBN = new int[0];
  // Per node, the bindings leaving / entering it: candidates for theory propagation.
  private int[][] pendOut, pendIn;
  private int[] pendOutN, pendInN;

  private final IntList knownFrom = new IntList(), knownTo = new IntList(); // not yet taken in
  private final IntList allKnownFrom = new IntList(), allKnownTo = new IntList();
  private boolean started;

  private int head; // trail literals [0, head) are in the graph
  private int[] stackAt = new int[16]; // edge count before trail[i] was taken in
  private int[] propBinding = new int[0], propLimit = new int[0];
  private int[][] expl = new int[0][];

  private final IntList path = new IntList();
  private EdgeCycle lastCycle;
  private int[] modelOrder;
  private int[] modelEdges;

  AcyclicityTheory(int nodes) {
    g = new TopologicalOrder(nodes);
    pendOut = new int[Math.max(nodes, 4)][];
    pendIn = new int[Math.max(nodes, 4)][];
    pendOutN = new int[Math.max(nodes, 4)];
    pendInN = new int[Math.max(nodes, 4)];
  }

  void attach(CdclSolver solver) { s = solver; }

  int addNode() {
    int v = g.addNode();
    if (v >= pendOut.length) {
      int c = pendOut.length * 2;
      pendOut = Arrays.copyOf(pendOut, c);
      pendIn = Arrays.copyOf(pendIn, c);
      pendOutN = Arrays.copyOf(pendOutN, c);
      pendInN = Arrays.copyOf(pendInN, c);
    }
    return v;
  }

  @Override
  public void newVar(int v) {
    if (2 * v + 1 >= litB.length) {
      int c = Math.max(32, 2 * (2 * v + 2));
      litB = Arrays.copyOf(litB, c);
      litBN = Arrays.copyOf(litBN, c);
      propBinding = Arrays.copyOf(propBinding, c / 2);
      propLimit = Arrays.copyOf(propLimit, c / 2);
      expl = Arrays.copyOf(expl, c / 2);
    }
  }

  // ------------------------------------------------------------------ building

  /** A known edge. Returns false if it closes a cycle with the fixed graph (UNSAT for good). */
  boolean addKnown(int from, int to) {
    allKnownFrom.add(from);
    allKnownTo.add(to);
    if (!started) {
      knownFrom.add(from);
      knownTo.add(to);
      if (from == to) return rootCycle(-1, from, to);
      return true;
    }
    if (g.add(from, to, -1, 0) < 0) return rootCycle(-1, from, to);
    return true;
  }

  /** Binds edge from→to to internal literal l. Returns false when that makes UNSAT for good. */
  boolean bind(int l, int from, int to) {
    if (from == to) return s.addInternalClause(new int[] {l ^ 1});
    if (nb == bLit.length) {
      int c = nb * 2;
      bLit = Arrays.copyOf(bLit, c);
      bFrom = Arrays.copyOf(bFrom, c);
      bTo = Arrays.copyOf(bTo, c);
    }
    int b = nb++;
    bLit[b] = l;
    bFrom[b] = from;
    bTo[b] = to;
    litB[l] = append(litB[l], litBN[l]++, b);
    pendOut[from] = append(pendOut[from], pendOutN[from]++, b);
    pendIn[to] = append(pendIn[to], pendInN[to]++, b);
    // A literal already true at the root and already taken in gets its new edge now.
    if (started && s.value(l) == 1 && s.trailPos[l >> 1] < head) {
      if (g.add(from, to, b, 0) < 0) return rootCycle(b, from, to);
    }
    return true;
  }

  private static int[] append(int[] a, int i, int x) {
    if (a == null) a = new int[2];
    else if (i == a.length) a = Arrays.copyOf(a, i * 2);
    a[i] = x;
    return a;
  }

  /** Edge from→to (binding b, or -1 if known) closes a cycle with root edges: UNSAT. */
  private boolean rootCycle(int b, int from, int to) {
    // Called once started, or for a self-loop: either way the path back exists now.
    IntList conflict = new IntList();
    cycle(b, from, to, conflict);
    s.rootTheoryConflict(conflict.toArray());
    return false;
  }

  /**
   * Per node, where the first order should place it among the ready ones (smaller first, then
   * the node id), or null: by node id ({@link AcyclicitySolver#setNodeRanks}).
   */
  long[] rank;

  /**
   * Takes in the known edges: their topological order (Kahn, the ready node of smallest rank,
   * else node id, first, so that node ids that already follow the order are kept), then each
   * edge in O(1). A cyclic known graph is a root conflict.
   */
  private boolean start(IntList conflict) {
    started = true;
    int n = g.nodes();
    int m = knownFrom.size();
    int[] indeg = new int[n];
    int[] cnt = new int[n + 1];
    for (int i = 0; i < m; i++) {
      indeg[knownTo.get(i)]++;
      cnt[knownFrom.get(i) + 1]++;
    }
    for (int v = 0; v < n; v++) cnt[v + 1] += cnt[v];
    int[] adj = new int[m];
    int[] pos = Arrays.copyOf(cnt, n);
    for (int i = 0; i < m; i++) adj[pos[knownFrom.get(i)]++] = knownTo.get(i);
    isocheck.util.LongHeap heap = new isocheck.util.LongHeap(n);
    long[] r = rank != null && rank.length == n ? rank : null;
    for (int v = 0; v < n; v++) if (indeg[v] == 0) heap.push(r == null ? v : r[v] << 32 | v);
    int[] order = new int[n];
    int k = 0;
    while (heap.size() > 0) {
      int v = (int) heap.pop();
      order[k++] = v;
      for (int e = cnt[v]; e < cnt[v + 1]; e++) {
        int w = adj[e];
        if (--indeg[w] == 0) heap.push(r == null ? w : r[w] << 32 | w);
      }
    }
    if (k == n) g.setOrder(order);
    // Acyclic: every insertion is forward. Cyclic: PK finds the first closing edge.
    for (int i = 0; i < m; i++) {
      int from = knownFrom.get(i), to = knownTo.get(i);
      if (g.add(from, to, -1, 0) < 0) {
        cycle(-1, from, to, conflict);
        return false;
      }
    }
    knownFrom.clear();
    knownTo.clear();
    return true;
  }

  // ------------------------------------------------------------------ Theory

  @Override
  public boolean propagate(IntList conflict) {
    if (!started && !start(conflict)) return false;
    int[] trail = s.trail;
    while (head < s.trailN) {
      int i = head;
      if (i >= stackAt.length) stackAt = Arrays.copyOf(stackAt, Math.max(i + 1, stackAt.length * 2));
      stackAt[i] = g.edgeCount();
      head = i + 1;
      int l = trail[i];
      int k = litBN[l];
      if (k == 0) continue;
      int cost = s.level[l >> 1] == 0 ? 0 : 1;
      int[] bs = litB[l];
      for (int j = 0; j < k; j++) {
        int b = bs[j];
        if (g.add(bFrom[b], bTo[b], b, cost) < 0) {
          cycle(b, bFrom[b], bTo[b], conflict);
          return false;
        }
        if (propagateEdges && g.lastReordered()) propagateAround();
      }
    }
    return true;
  }

  /**
   * The conflict of edge from→to (binding b, or -1 if known) that cannot be inserted: the
   * negations of the literals on the cycle, into {@code conflict}; the cycle into lastCycle.
   */
  private void cycle(int b, int from, int to, IntList conflict) {
    path.clear();
    int c = g.path(to, from, g.edgeCount(), path);
    if (c < 0) throw new IllegalStateException("no path closing the cycle " + from + "->" + to);
    if (b >= 0) conflict.add(bLit[b] ^ 1);
    for (int i = 0; i < path.size(); i++) {
      int t = g.tag(path.get(i));
      if (t >= 0) conflict.add(bLit[t] ^ 1);
    }
    lastCycle = cycleOf(b, from, to, path);
  }

  private EdgeCycle cycleOf(int b, int from, int to, IntList p) {
    int k = p.size() + 1;
    int[] nodes = new int[k], lits = new int[k];
    nodes[0] = from;
    lits[0] = b >= 0 ? CdclSolver.external(bLit[b]) : 0;
    for (int i = 0; i < p.size(); i++) {
      int e = p.get(i);
      nodes[i + 1] = g.from(e);
      int t = g.tag(e);
      lits[i + 1] = t >= 0 ? CdclSolver.external(bLit[t]) : 0;
    }
    return new EdgeCycle(nodes, lits);
  }

  /**
   * After inserting x→y with a reorder: every binding from δF (reachable from y) into δB
   * (reaching x) whose literal is unassigned would close a cycle; set it false. Scans from the
   * side with fewer candidate bindings.
   */
  private void propagateAround() {
    int nF = g.deltaFSize(), nBk = g.deltaBSize();
    long sumF = 0, sumB = 0;
    for (int i = 0; i < nF; i++) sumF += pendOutN[g.deltaF(i)];
    for (int i = 0; i < nBk; i++) sumB += pendInN[g.deltaB(i)];
    if (sumF <= sumB) {
      for (int i = 0; i < nF; i++) {
        int a = g.deltaF(i);
        int[] bs = pendOut[a];
        for (int j = 0, k = pendOutN[a]; j < k; j++) {
          int b = bs[j];
          if (g.inDeltaB(bTo[b])) refute(b);
        }
      }
    } else {
      for (int i = 0; i < nBk; i++) {
        int a = g.deltaB(i);
        int[] bs = pendIn[a];
        for (int j = 0, k = pendInN[a]; j < k; j++) {
          int b = bs[j];
          if (g.inDeltaF(bFrom[b])) refute(b);
        }
      }
    }
  }

  private void refute(int b) {
    int l = bLit[b];
    if (s.value(l) != 0) return;
    int v = l >> 1;
    propBinding[v] = b;
    propLimit[v] = g.edgeCount();
    expl[v] = null;
    s.imply(l ^ 1);
  }

  @Override
  public int[] explain(int l) {
    int v = l >> 1;
    int[] e = expl[v];
    if (e != null) return e;
    int b = propBinding[v];
    path.clear();
    if (g.path(bTo[b], bFrom[b], propLimit[v], path) < 0) throw new IllegalStateException("lost the reason of " + l);
    int[] c = new int[path.size() + 1];
    int k = 0;
    c[k++] = l;
    for (int i = 0; i < path.size(); i++) {
      int t = g.tag(path.get(i));
      if (t >= 0) c[k++] = bLit[t] ^ 1;
    }
    return expl[v] = Arrays.copyOf(c, k);
  }

  /** The cycle behind a literal the theory set false (its binding's edge plus the path back). */
  EdgeCycle cycleFor(int l) {
    int v = l >> 1;
    int b = propBinding[v];
    IntList p = new IntList();
    if (g.path(bTo[b], bFrom[b], propLimit[v], p) < 0) throw new IllegalStateException("lost the reason of " + l);
    return cycleOf(b, bFrom[b], bTo[b], p);
  }

  @Override
  public void backtrack(int trailSize) {
    if (head > trailSize) {
      g.truncate(stackAt[trailSize]);
      head = trailSize;
    }
  }

  @Override
  public int decide(int v) {
    if (!topoPolarity) return 0;
    int d = score(2 * v) - score(2 * v + 1);
    return d > 0 ? 2 * v : d < 0 ? 2 * v + 1 : 0;
  }

  /**
   * A literal of v whose edges all point forward in the current order (deciding it keeps the
   * order: no cycle, no reordering), or 0; 0 for a variable bound to no edge.
   */
  @Override
  public int settled(int v) {
    if (!topoPolarity || !lazy) return 0;
    int p = 2 * v, n = p + 1;
    if (n >= litBN.length) return 0;
    if (litBN[p] == 0 && litBN[n] == 0) return 0;
    if (forward(p)) return p;
    return forward(n) ? n : 0;
  }

  private boolean forward(int l) {
    int k = litBN[l];
    int[] bs = litB[l];
    for (int j = 0; j < k; j++) {
      int b = bs[j];
      if (g.position(bFrom[b]) >= g.position(bTo[b])) return false;
    }
    return true;
  }

  /** Edges of literal l pointing forward in the current order, minus those pointing back. */
  private int score(int l) {
    int k = litBN[l];
    if (k == 0) return 0;
    int[] bs = litB[l];
    int sc = 0;
    for (int j = 0; j < k; j++) {
      int b = bs[j];
      sc += g.position(bFrom[b]) < g.position(bTo[b]) ? 1 : -1;
    }
    return sc;
  }

  @Override
  public void onModel() {
    modelOrder = g.order();
    IntList es = new IntList();
    for (int b = 0; b < nb; b++) {
      if (s.value(bLit[b]) == 1) {
        es.add(bFrom[b]);
        es.add(bTo[b]);
      }
    }
    modelEdges = es.toArray();
  }

  /**
   * A cycle among the known edges and the edges bound to the given (internal) literals, or
   * null: a depth-first search, independent of the solver's state.
   */
  EdgeCycle cycleUnder(boolean[] litOn) {
    int n = g.nodes();
    IntList ef = new IntList(), et = new IntList(), el = new IntList();
    for (int i = 0; i < allKnownFrom.size(); i++) {
      ef.add(allKnownFrom.get(i));
      et.add(allKnownTo.get(i));
      el.add(0);
    }
    for (int b = 0; b < nb; b++) {
      if (bLit[b] < litOn.length && litOn[bLit[b]]) {
        ef.add(bFrom[b]);
        et.add(bTo[b]);
        el.add(CdclSolver.external(bLit[b]));
      }
    }
    int m = ef.size();
    int[] start = new int[n + 1];
    for (int i = 0; i < m; i++) start[ef.get(i) + 1]++;
    for (int v = 0; v < n; v++) start[v + 1] += start[v];
    int[] adj = new int[m];
    int[] fill = Arrays.copyOf(start, n);
    for (int i = 0; i < m; i++) adj[fill[ef.get(i)]++] = i;
    byte[] color = new byte[n]; // 0 white, 1 on the stack, 2 done
    int[] stackNode = new int[n], stackPos = new int[n], viaEdge = new int[n];
    for (int root = 0; root < n; root++) {
      if (color[root] != 0) continue;
      int sp = 0;
      stackNode[sp] = root;
      stackPos[sp] = start[root];
      viaEdge[sp] = -1;
      sp++;
      color[root] = 1;
      while (sp > 0) {
        int v = stackNode[sp - 1];
        if (stackPos[sp - 1] == start[v + 1]) {
          color[v] = 2;
          sp--;
          continue;
        }
        int e = adj[stackPos[sp - 1]++];
        int w = et.get(e);
        if (color[w] == 0) {
          color[w] = 1;
          stackNode[sp] = w;
          stackPos[sp] = start[w];
          viaEdge[sp] = e;
          sp++;
        } else if (color[w] == 1) {
          // The stack from w up to v, then e back to w.
          int j = sp - 1;
          while (stackNode[j] != w) j--;
          int k = sp - j;
          int[] nodes = new int[k], lits = new int[k];
          for (int i = 0; i < k; i++) {
            nodes[i] = stackNode[j + i];
            lits[i] = i + 1 < k ? el.get(viaEdge[j + i + 1]) : el.get(e);
          }
          return new EdgeCycle(nodes, lits);
        }
      }
    }
    return null;
  }

  int[] modelOrder() { return modelOrder; }
  int[] modelEdges() { return modelEdges; }
  EdgeCycle lastCycle() { return lastCycle; }
  int bindings() { return nb; }
}
