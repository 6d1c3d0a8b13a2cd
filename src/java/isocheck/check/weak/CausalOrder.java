package isocheck.check.weak;

import isocheck.clock.Clocks;
import isocheck.clock.TreeClocks;
import isocheck.clock.VectorClocks;
import isocheck.graph.Digraph;
import isocheck.graph.Edge;
import isocheck.graph.EdgeList;
import isocheck.graph.Scc;
import java.util.Arrays;

/**
 * Causal order CO = (SO ∪ WR ∪ VIS)+ (Plume Def. 2; VIS: list elements seen before the last one)
 * with one clock per transaction, entries per session (Plume §4.2, C4 Alg. 2): t1 →CO t2 iff
 * {@code clock[t2][session(t1)] >= position(t1)}.
 *
 * <p>Plume builds the clocks incrementally, pushing each new edge downstream with an early-stop
 * DFS, because it reads transactions in an order that is not causal. We build every clock once,
 * from complete predecessors, in a topological order: transaction-id order when every CO edge
 * points forward in it (the common case, checked in one pass over the facts), else the order of
 * CO's strongly connected components (Tarjan, on the predecessor graph, so the components come
 * out in topological order). So no clock changes after it is first read: the tree-clock invariant holds by
 * construction (pitfall 18), and the CO clocks are frozen before any commit-order edge exists
 * (pitfall 4). A CO cycle (TAP g) is a component of two or more transactions; its members share
 * one clock, which needs flat vectors, so a cyclic history always uses {@link VectorClocks}.
 */
final class CausalOrder {
  final WeakHistory wh;
  final Clocks clocks;
  /** Whether the clocks asked for were replaced by vectors because CO has a cycle. */
  final boolean fellBack;
  /**
   * Whether every CO edge goes from a lower to a higher transaction id (ids follow completion
   * order, so this is the common case: a write is read after its transaction completed). Then id
   * order is a topological order of CO, which is acyclic, and no graph is needed to build clocks.
   */
  final boolean idOrdered;
  private Digraph succ, pred;
  private Scc scc;

  CausalOrder(WeakHistory wh, String clockKind, boolean useIdOrder) {
    this.wh = wh;
    idOrdered = useIdOrder && idOrdered(wh);
    boolean tree = "tree".equals(clockKind);
    boolean cyclic = !idOrdered && scc().hasCycle();
    fellBack = tree && cyclic;
    int k = Math.max(1, wh.k);
    clocks = tree && !cyclic ? new TreeClocks(wh.n, k) : new VectorClocks(wh.n, k);
    if (idOrdered) buildInIdOrder();
    else build();
  }

  private static boolean idOrdered(WeakHistory wh) {
    for (int t = 0; t < wh.n; t++) {
      for (int i = wh.rfStart[t]; i < wh.rfStart[t + 1]; i++) if (wh.rfFrom[i] >= t) return false;
      for (int i = wh.visStart[t]; i < wh.visStart[t + 1]; i++) if (wh.visFrom[i] >= t) return false;
    }
    return true; // session order follows ids by construction (WeakHistory.sessionTxns)
  }

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

  /** CO's components (on the predecessor graph, so numbered sources first); computed on first use. */
  Scc scc() {
    if (scc == null) scc = Scc.of(pred(), Edge.SO | Edge.WR);
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
  void edges(EdgeList es, boolean reversed) {
    for (int[] txns : wh.sessionTxns) {
      for (int i = 1; i < txns.length; i++) add(es, reversed, txns[i - 1], txns[i], Edge.SO);
    }
    for (int t = 0; t < wh.n; t++) {
      for (int i = wh.rfStart[t]; i < wh.rfStart[t + 1]; i++) {
        int w = wh.rfFrom[i];
        if (w != WeakHistory.BOT) add(es, reversed, w, t, Edge.WR);
      }
      for (int i = wh.visStart[t]; i < wh.visStart[t + 1]; i++) add(es, reversed, wh.visFrom[i], t, Edge.WR);
    }
  }

  private static void add(EdgeList es, boolean reversed, int a, int b, int mask) {
    if (reversed) es.add(b, a, mask);
    else es.add(a, b, mask);
  }

  /**
   * Clocks in id order, from the reads-from and visibility facts directly: the session
   * predecessor first (a copy), then each writer t does not know yet (a writer w whose position
   * is covered by t's entry for w's session is known, and so is all w knows).
   */
  private void buildInIdOrder() {
    for (int t = 0; t < wh.n; t++) {
      if (!wh.committed[t]) continue;
      int s = wh.session(t), p = wh.pos[t];
      clocks.start(t, s, p);
      if (p > 1) clocks.join(t, wh.sessionTxns[s][p - 2]);
      for (int i = wh.rfStart[t]; i < wh.rfStart[t + 1]; i++) joinUnknown(t, wh.rfFrom[i]);
      for (int i = wh.visStart[t]; i < wh.visStart[t + 1]; i++) joinUnknown(t, wh.visFrom[i]);
    }
  }

  private void joinUnknown(int t, int w) {
    if (w != WeakHistory.BOT && clocks.get(t, wh.session(w)) < wh.pos[w]) clocks.join(t, w);
  }

  /** Clocks in topological order: Tarjan numbers the predecessor graph's components sources-first. */
  private void build() {
    Scc scc = scc();
    Digraph pred = pred();
    int n = wh.n, c = scc.count;
    int[] start = new int[c + 1];
    for (int t = 0; t < n; t++) start[scc.comp[t] + 1]++;
    for (int i = 0; i < c; i++) start[i + 1] += start[i];
    int[] order = new int[n];
    int[] fill = Arrays.copyOf(start, c);
    for (int t = 0; t < n; t++) order[fill[scc.comp[t]]++] = t;
    for (int ci = 0; ci < c; ci++) {
      int a = start[ci], b = start[ci + 1];
      if (!scc.cyclic[ci]) {
        int t = order[a];
        if (!wh.committed[t]) continue;
        clocks.start(t, wh.session(t), wh.pos[t]);
        // The session predecessor first (a copy), then the others.
        for (int e = pred.start(t); e < pred.end(t); e++) if ((pred.mask(e) & Edge.SO) != 0) clocks.join(t, pred.target(e));
        for (int e = pred.start(t); e < pred.end(t); e++) if ((pred.mask(e) & Edge.SO) == 0) clocks.join(t, pred.target(e));
        continue;
      }
      VectorClocks v = (VectorClocks) clocks;
      int rep = order[a];
      for (int i = a; i < b; i++) v.start(order[i], wh.session(order[i]), wh.pos[order[i]]);
      for (int i = a; i < b; i++) {
        int t = order[i];
        v.raise(rep, wh.session(t), wh.pos[t]);
        for (int e = pred.start(t); e < pred.end(t); e++) {
          int p = pred.target(e);
          if (scc.comp[p] != ci) v.join(rep, p);
        }
      }
      for (int i = a + 1; i < b; i++) v.copy(order[i], rep);
    }
  }

  /** Whether a →CO b, reflexively (a == b counts). Both committed; a may be t⊥. */
  boolean reaches(int a, int b) {
    if (a == WeakHistory.BOT) return true;
    if (b == WeakHistory.BOT) return false;
    return clocks.get(b, wh.session(a)) >= wh.pos[a];
  }

  /** Whether a →CO b with a ≠ b. */
  boolean before(int a, int b) { return a != b && reaches(a, b); }
}
