package isocheck.check.weak;

import isocheck.clock.ChainClocks;
import isocheck.clock.Clocks;
import isocheck.clock.TreeClocks;
import isocheck.graph.Digraph;
import isocheck.graph.Edge;
import isocheck.graph.EdgeList;
import isocheck.graph.Scc;
import java.util.Arrays;

/**
 * Causal order CO = (SO ∪ WR ∪ VIS)+ (Plume Def. 2; VIS: list elements seen before the last one)
 * with one clock per transaction (Plume §4.2, C4 Alg. 2), its entries indexed by a chain
 * decomposition of CO ({@link ChainClocks}) rather than by session: t1 →CO t2 iff
 * {@code clock[t2][chain(t1)] >= index(t1)}. Sessions are Jepsen processes, and Jepsen starts a
 * new one after every crash ({@code :info}), so session-indexed clocks grow with transactions ×
 * processes; chains grow with the width of CO, which a crashed process's successor usually does
 * not widen (it takes over a chain whose tail it knows). A transaction nothing follows in CO is on
 * no chain: only it reaches itself.
 *
 * <p>Plume builds the clocks incrementally, pushing each new edge downstream with an early-stop
 * DFS, because it reads transactions in an order that is not causal. We build every clock once,
 * from complete predecessors, in a topological order: transaction-id order when every CO edge
 * points forward in it (the common case, checked in one pass over the facts), else the order of
 * CO's strongly connected components (Tarjan, on the predecessor graph, so the components come
 * out in topological order). So no clock changes after it is first read: the tree-clock invariant holds by
 * construction (pitfall 18), and the CO clocks are frozen before any commit-order edge exists
 * (pitfall 4). A CO cycle (TAP g) is a component of two or more transactions; its members go on
 * one chain and share one row. Tree clocks ({@code "tree"}) are built afterwards over the same
 * chains (every transaction then on one), and only for acyclic CO.
 */
final class CausalOrder {
  final WeakHistory wh;
  final Clocks clocks;
  /** Per transaction, its chain (-1: on none, or not committed) and 1-based position in it. */
  final int[] chain, index;
  /** Number of chains. */
  final int chains;
  /** Why the tree clocks asked for were replaced by chain vectors (CO has a cycle, or they would not fit), or null. */
  final String fellBack;
  /**
   * Whether every CO edge goes from a lower to a higher transaction id (ids follow completion
   * order, so this is the common case: a write is read after its transaction completed). Then id
   * order is a topological order of CO, which is acyclic, and no graph is needed to build clocks.
   */
  final boolean idOrdered;
  /** The windows of id order that hold CO's backward edges ({@link Windows}); null when idOrdered (there are none). */
  final Windows windows;
  private Digraph succ, pred;
  private Scc scc;

  CausalOrder(WeakHistory wh, String clockKind, boolean useIdOrder, boolean mergeChains) {
    this.wh = wh;
    idOrdered = useIdOrder && idOrdered(wh);
    windows = idOrdered ? null : windows(wh);
    boolean tree = "tree".equals(clockKind);
    boolean cyclic = !idOrdered && scc().hasCycle();
    int[] order = topologicalOrder();
    long budget = entryBudget();
    ChainClocks cc = new ChainClocks(wh.n, budget, mergeChains);
    decompose(cc, order, tree && !cyclic ? null : successors());
    chains = cc.chains();
    long treeInts = 4L * wh.n * Math.max(1, chains);
    fellBack = !tree ? null : cyclic ? "causal order has a cycle: vector clocks used"
        : treeInts > Math.min(budget, Integer.MAX_VALUE - 8) ? String.format("tree clocks would take %,d MB "
            + "(%,d transactions × %,d chains): vector clocks used", treeInts * 4 >> 20, (long) wh.n, (long) chains) : null;
    boolean treeClocks = tree && fellBack == null;
    chain = new int[wh.n];
    index = new int[wh.n];
    for (int t = 0; t < wh.n; t++) {
      chain[t] = cc.chain(t);
      index[t] = cc.index(t);
    }
    clocks = treeClocks ? treeClocks(cc, order) : cc;
  }

  /**
   * Row entries the chain clocks may take: two thirds of the heap still free (4 bytes an entry).
   * The system property isocheck.weak.clock-entries sets it instead (tests use it).
   */
  private static long entryBudget() {
    String p = System.getProperty("isocheck.weak.clock-entries");
    if (p != null) return Long.parseLong(p);
    Runtime rt = Runtime.getRuntime();
    long free = rt.maxMemory() - (rt.totalMemory() - rt.freeMemory());
    return Math.max(1 << 20, free / 6);
  }

  private static boolean idOrdered(WeakHistory wh) {
    for (int t = 0; t < wh.n; t++) {
      for (int i = wh.rfStart[t]; i < wh.rfStart[t + 1]; i++) if (wh.rfFrom[i] >= t) return false;
      for (int i = wh.visStart[t]; i < wh.visStart[t + 1]; i++) if (wh.visFrom[i] >= t) return false;
    }
    return true; // session order follows ids by construction (WeakHistory.sessionTxns)
  }

  /** The windows of CO's backward edges (session order points forward by construction). */
  private static Windows windows(WeakHistory wh) {
    Windows.Builder b = new Windows.Builder(wh.n);
    for (int t = 0; t < wh.n; t++) {
      for (int i = wh.rfStart[t]; i < wh.rfStart[t + 1]; i++) b.edge(wh.rfFrom[i], t);
      for (int i = wh.visStart[t]; i < wh.visStart[t + 1]; i++) b.edge(wh.visFrom[i], t);
    }
    return b.build();
  }

  /** Whether a may precede b in CO although a's id is the higher: both lie in one window. */
  boolean mayGoBack(int a, int b) { return windows != null && windows.same(a, b); }

  /** CO successors, masks {@link Edge#SO} and {@link Edge#WR} (reads-from and visibility); built on first use. */
  Digraph succ() {
    if (succ == null) succ = graph(false);
    return succ;
  }

  /** CO predecessors; built on first use. */
  Digraph pred() {
    if (pred == null) pred = graph(true);
    return pred;
  }

  /**
   * CO's components (on the predecessor graph, so numbered sources first); computed on first use,
   * from the edges inside windows only (every cycle lies in one, and the numbering stays a
   * topological order: see {@link Windows}).
   */
  Scc scc() {
    if (scc == null) {
      Windows w = windows != null ? windows : new Windows.Builder(wh.n).build();
      EdgeList es = new EdgeList();
      edges(es, true, w);
      scc = Scc.of(Digraph.of(wh.n, es), Edge.SO | Edge.WR, w.group);
    }
    return scc;
  }

  /** Whether CO has a cycle (TAP g). */
  boolean cyclic() { return !idOrdered && scc().hasCycle(); }

  /** Whether t lies on a CO cycle. */
  boolean onCycle(int t) { return !idOrdered && scc().cyclic[scc().comp[t]]; }

  private Digraph graph(boolean reversed) {
    EdgeList es = new EdgeList(factCount());
    edges(es, reversed);
    return Digraph.of(wh.n, es);
  }

  /** Upper bound on CO's edges: session steps, reads-from and visibility facts. */
  int factCount() { return wh.rfFrom.length + wh.visFrom.length + wh.n; }

  /** Adds CO's edges (session order, reads-from, visibility; duplicates included) to es, reversed or not. */
  void edges(EdgeList es, boolean reversed) { edges(es, reversed, null); }

  /** As above, only the edges inside one of the windows (all of them when within is null). */
  void edges(EdgeList es, boolean reversed, Windows within) {
    for (int[] txns : wh.sessionTxns) {
      for (int i = 1; i < txns.length; i++) add(es, reversed, txns[i - 1], txns[i], Edge.SO, within);
    }
    for (int t = 0; t < wh.n; t++) {
      for (int i = wh.rfStart[t]; i < wh.rfStart[t + 1]; i++) {
        int w = wh.rfFrom[i];
        if (w != WeakHistory.BOT) add(es, reversed, w, t, Edge.WR, within);
      }
      for (int i = wh.visStart[t]; i < wh.visStart[t + 1]; i++) add(es, reversed, wh.visFrom[i], t, Edge.WR, within);
    }
  }

  private static void add(EdgeList es, boolean reversed, int a, int b, int mask, Windows within) {
    if (within != null && !within.same(a, b)) return;
    if (reversed) es.add(b, a, mask);
    else es.add(a, b, mask);
  }

  /** The committed transactions in a topological order of CO: id order, or component by component. */
  private int[] topologicalOrder() {
    int[] order = new int[wh.n];
    int c = 0;
    if (idOrdered) {
      for (int t = 0; t < wh.n; t++) if (wh.committed[t]) order[c++] = t;
      return Arrays.copyOf(order, c);
    }
    Scc s = scc();
    int[] start = new int[s.count + 1];
    for (int t = 0; t < wh.n; t++) start[s.comp[t] + 1]++;
    for (int i = 0; i < s.count; i++) start[i + 1] += start[i];
    for (int t = 0; t < wh.n; t++) order[start[s.comp[t]]++] = t;
    for (int t : order) if (wh.committed[t]) order[c++] = t;
    return Arrays.copyOf(order, c);
  }

  /** Per transaction, whether anything follows it in CO (a session successor, or a reader); null-safe for BOT. */
  private boolean[] successors() {
    boolean[] has = new boolean[wh.n];
    for (int[] txns : wh.sessionTxns) for (int i = 0; i + 1 < txns.length; i++) has[txns[i]] = true;
    for (int w : wh.rfFrom) if (w != WeakHistory.BOT) has[w] = true;
    for (int w : wh.visFrom) has[w] = true;
    return has;
  }

  /** t's session predecessor among committed transactions, or -1. */
  private int soPred(int t) {
    int p = wh.pos[t];
    return p > 1 ? wh.sessionTxns[wh.session(t)][p - 2] : -1;
  }

  private boolean soSucc(int t) { return wh.pos[t] < wh.sessionTxns[wh.session(t)].length; }

  /**
   * Builds the chain clocks in topological order, placing each transaction on a chain (those
   * with no successor on none, when succ is given; every one when it is null). A cyclic
   * component's members share the join of their outside predecessors, and go on one chain.
   */
  private void decompose(ChainClocks cc, int[] order, boolean[] succ) {
    Scc s = idOrdered ? null : scc();
    for (int i = 0; i < order.length; ) {
      int t = order[i];
      if (s == null || !s.cyclic[s.comp[t]]) {
        int sp = soPred(t);
        cc.open(t, sp);
        joinFactsOf(cc, t, t, -1, null);
        if (succ != null && !succ[t]) cc.skip(t);
        else cc.place(t, sp, soSucc(t));
        i++;
        continue;
      }
      int c = s.comp[t], j = i;
      while (j < order.length && s.comp[order[j]] == c) j++;
      cc.open(t, -1);
      for (int m = i; m < j; m++) {
        int u = order[m], sp = soPred(u);
        if (sp >= 0 && s.comp[sp] != c) cc.join(t, sp);
        joinFactsOf(cc, t, u, c, s.comp);
      }
      int ch = cc.place(t, -1, soSucc(order[j - 1]));
      for (int m = i + 1; m < j; m++) cc.append(order[m], ch, soSucc(order[m]));
      cc.raise(t, ch, cc.index(order[j - 1]));
      for (int m = i + 1; m < j; m++) cc.share(order[m], t);
      i = j;
    }
  }

  /** Joins into row t the writers u read from or saw, outside component comp (if compOf is given), unless t knows them. */
  private void joinFactsOf(ChainClocks cc, int t, int u, int comp, int[] compOf) {
    for (int i = wh.rfStart[u]; i < wh.rfStart[u + 1]; i++) {
      int w = wh.rfFrom[i];
      if (w != WeakHistory.BOT && (compOf == null || compOf[w] != comp) && !cc.knows(t, w)) cc.join(t, w);
    }
    for (int i = wh.visStart[u]; i < wh.visStart[u + 1]; i++) {
      int w = wh.visFrom[i];
      if ((compOf == null || compOf[w] != comp) && !cc.knows(t, w)) cc.join(t, w);
    }
  }

  /**
   * Tree clocks over the chains already made (Mathur et al.; each chain plays a thread): each
   * transaction joins its chain predecessor first (it reaches t), then its CO predecessors.
   */
  private Clocks treeClocks(ChainClocks cc, int[] order) {
    TreeClocks tc = new TreeClocks(wh.n, Math.max(1, cc.chains()));
    for (int t : order) {
      tc.start(t, cc.chain(t), cc.index(t));
      if (cc.previous(t) >= 0) tc.join(t, cc.previous(t));
      int sp = soPred(t);
      if (sp >= 0 && sp != cc.previous(t)) tc.join(t, sp);
      for (int i = wh.rfStart[t]; i < wh.rfStart[t + 1]; i++) if (wh.rfFrom[i] != WeakHistory.BOT) tc.join(t, wh.rfFrom[i]);
      for (int i = wh.visStart[t]; i < wh.visStart[t + 1]; i++) tc.join(t, wh.visFrom[i]);
    }
    return tc;
  }

  /** Whether a →CO b, reflexively (a == b counts). Both committed; a may be t⊥. */
  boolean reaches(int a, int b) {
    if (a == WeakHistory.BOT) return true;
    if (b == WeakHistory.BOT) return false;
    int c = chain[a];
    return c < 0 ? a == b : clocks.get(b, c) >= index[a];
  }

  /** Whether a →CO b with a ≠ b. */
  boolean before(int a, int b) { return a != b && reaches(a, b); }
}
