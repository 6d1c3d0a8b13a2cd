package isocheck.check.si;

import isocheck.graph.BcGraph;
import isocheck.graph.Edge;
import isocheck.graph.EdgeList;

/**
 * A polygraph laid out for one level's acyclicity test (si-solver.md §4.5). Serializability:
 * one node per transaction (and realtime relay), every edge as it is: a level holds iff some
 * choice of sides leaves known ∪ chosen acyclic (Adya PL-3; PolySI Thm 6 with RW in Dep). Snapshot
 * isolation: Viper's begin/commit split (EuroSys'23, Def. 2; {@link BcGraph}): B(t) → C(t), a
 * dependency a → b (WW, WR, SO, RT) as C(a) → B(b), an anti-dependency a → b as B(a) → C(b), so
 * a cycle never takes two anti-dependencies in a row, and plain acyclicity decides SI without
 * PolySI's Dep;RW composition edges. GSI ({@code rtToCommit}): realtime edges enter commits,
 * a → b as C(a) → C(b) (Viper §5; {@link BcGraph#of(isocheck.graph.Digraph, int, boolean)}).
 */
final class LevelGraph {
  final Polygraph p;
  final boolean si, rtToCommit;
  final int nodes;
  /** Known edges, node-level: begin → commit (snapshot isolation), then the polygraph's in order. */
  final EdgeList known;
  /** Side edges, node-level, indexed like the polygraph's. */
  final int[] sideSrc, sideDst;

  LevelGraph(Polygraph p, boolean si) { this(p, si, false); }

  LevelGraph(Polygraph p, boolean si, boolean rtToCommit) {
    this.p = p;
    this.si = si;
    this.rtToCommit = rtToCommit;
    int n = p.nTxns, relays = p.nodes - n;
    nodes = si ? 2 * n + relays : p.nodes;
    if (!si) {
      // Transaction nodes: the polygraph's own edges (no copy).
      known = p.known;
      sideSrc = p.sideSrc;
      sideDst = p.sideDst;
      return;
    }
    known = new EdgeList(p.known.size() + n);
    for (int t = 0; t < n; t++) if (p.committed[t]) known.add(BcGraph.begin(t), BcGraph.commit(t), Edge.INTRA);
    for (int i = 0; i < p.known.size(); i++) {
      int type = p.known.type(i);
      known.add(from(p.known.src(i), type), to(p.known.dst(i), type), type);
    }
    int m = p.sideSrc.length;
    sideSrc = new int[m];
    sideDst = new int[m];
    for (int i = 0; i < m; i++) {
      sideSrc[i] = from(p.sideSrc[i], p.sideType[i]);
      sideDst[i] = to(p.sideDst[i], p.sideType[i]);
    }
  }

  /** The node an edge of this type leaves transaction (or relay) a from. */
  int from(int a, int type) {
    if (!si) return a;
    if (a >= p.nTxns) return 2 * p.nTxns + (a - p.nTxns);
    return type == Edge.RW ? BcGraph.begin(a) : BcGraph.commit(a);
  }

  /** The node an edge of this type enters transaction (or relay) b at. */
  int to(int b, int type) {
    if (!si) return b;
    if (b >= p.nTxns) return 2 * p.nTxns + (b - p.nTxns);
    return type == Edge.RW || (rtToCommit && type == Edge.RT) ? BcGraph.commit(b) : BcGraph.begin(b);
  }

  /** The transaction (or relay) a node belongs to. */
  int owner(int v) { return si ? BcGraph.owner(v, p.nTxns) : v; }
}
