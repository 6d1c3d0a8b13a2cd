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
    // Begin → commit of each committed transaction, then the polygraph's edges in order, each
    // mapped where it stands (by ranges, on every core: 8.8 million known edges at 10^6
    // Jepsen-shaped transactions).
    int intra = 0;
    for (int t = 0; t < n; t++) if (p.committed[t]) intra++;
    EdgeList pk = p.known;
    int mk = pk.size(), off = intra;
    EdgeList kn = EdgeList.ofSize(intra + mk);
    known = kn;
    for (int t = 0, j = 0; t < n; t++) if (p.committed[t]) kn.set(j++, BcGraph.begin(t), BcGraph.commit(t), Edge.INTRA);
    isocheck.util.Ranges kr = new isocheck.util.Ranges(mk);
    kr.forEach(c -> {
      for (int i = kr.from(c), e = kr.to(c); i < e; i++) {
        int type = pk.type(i);
        kn.set(off + i, from(pk.src(i), type), to(pk.dst(i), type), type);
      }
    });
    int m = p.sideSrc.length;
    int[] ss = new int[m], sd = new int[m];
    sideSrc = ss;
    sideDst = sd;
    isocheck.util.Ranges sr = new isocheck.util.Ranges(m);
    sr.forEach(c -> {
      for (int i = sr.from(c), e = sr.to(c); i < e; i++) {
        ss[i] = from(p.sideSrc[i], p.sideType[i]);
        sd[i] = to(p.sideDst[i], p.sideType[i]);
      }
    });
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
