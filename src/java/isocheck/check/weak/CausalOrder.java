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
 * DFS, because it reads transactions in an order that is not causal. We instead compute the
 * strongly connected components of the CO graph first (Tarjan, on the predecessor graph, so the
 * components come out in topological order) and build every clock once, from complete
 * predecessors. So no clock changes after it is first read: the tree-clock invariant holds by
 * construction (pitfall 18), and the CO clocks are frozen before any commit-order edge exists
 * (pitfall 4). A CO cycle (TAP g) is a component of two or more transactions; its members share
 * one clock, which needs flat vectors, so a cyclic history always uses {@link VectorClocks}.
 */
final class CausalOrder {
  final WeakHistory wh;
  /** CO edges, successors and predecessors, masks {@link Edge#SO} and {@link Edge#WR} (reads-from and visibility). */
  final Digraph succ, pred;
  final Scc scc;
  final Clocks clocks;
  /** Whether the clocks asked for were replaced by vectors because CO has a cycle. */
  final boolean fellBack;

  CausalOrder(WeakHistory wh, String clockKind) {
    this.wh = wh;
    int n = wh.n;
    EdgeList es = new EdgeList(wh.rfFrom.length + wh.visFrom.length + n);
    EdgeList rev = new EdgeList(wh.rfFrom.length + wh.visFrom.length + n);
    for (int[] txns : wh.sessionTxns) {
      for (int i = 1; i < txns.length; i++) {
        es.add(txns[i - 1], txns[i], Edge.SO);
        rev.add(txns[i], txns[i - 1], Edge.SO);
      }
    }
    for (int t = 0; t < n; t++) {
      for (int i = wh.rfStart[t]; i < wh.rfStart[t + 1]; i++) {
        int w = wh.rfFrom[i];
        if (w == WeakHistory.BOT) continue;
        es.add(w, t, Edge.WR);
        rev.add(t, w, Edge.WR);
      }
      for (int i = wh.visStart[t]; i < wh.visStart[t + 1]; i++) {
        es.add(wh.visFrom[i], t, Edge.WR);
        rev.add(t, wh.visFrom[i], Edge.WR);
      }
    }
    succ = Digraph.of(n, es);
    pred = Digraph.of(n, rev);
    scc = Scc.of(pred, Edge.SO | Edge.WR);
    boolean tree = "tree".equals(clockKind);
    fellBack = tree && scc.hasCycle();
    int k = Math.max(1, wh.k);
    clocks = tree && !scc.hasCycle() ? new TreeClocks(n, k) : new VectorClocks(n, k);
    build();
  }

  /** Clocks in topological order: Tarjan numbers the predecessor graph's components sources-first. */
  private void build() {
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
