package isocheck.check.si;

import isocheck.check.Level;
import isocheck.check.Verdict;
import isocheck.graph.BcGraph;
import isocheck.graph.Cycle;
import isocheck.graph.CycleFinder;
import isocheck.graph.Digraph;
import isocheck.graph.Edge;
import isocheck.graph.Scc;
import isocheck.history.History;
import isocheck.order.RegisterAnalysis;
import isocheck.report.Anomaly;
import isocheck.report.CycleReport;
import isocheck.report.Data;
import isocheck.report.Steps;
import isocheck.solver.AcyclicitySolver;
import isocheck.solver.EdgeCycle;
import isocheck.solver.Refutation;
import isocheck.solver.Status;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Decides the serializable and snapshot-isolation levels on an rw-register history, where the
 * version order is not observable (PolySI, PVLDB'23; Viper, EuroSys'23): the generalized
 * {@link Polygraph} of the history, laid out per level ({@link LevelGraph}), {@link Pruning} to a
 * fixpoint, then, for what pruning leaves open, a search for one choice of sides that leaves the
 * graph acyclic. Sides consistent with a topological order of the pruned graph are tried first
 * (the polarity VeriStrong §6.3 takes from its incremental order); when they close a cycle and
 * no solver is given, the level is unknown with the reason, never guessed.
 *
 * <p>A violation comes with a counterexample made of base steps: a cycle of the known graph
 * (write-read, write-write and anti-dependency steps the history fixes, process and realtime
 * order, and orders pruning forced), or a pair of writers whose two orders each close a cycle.
 */
public final class RegisterSearch {
  /** One level's outcome: the verdict, its reason when unknown, counterexamples, statistics. */
  public static final class Outcome {
    public final Verdict.Value value;
    public final String reason;
    public final List<Anomaly> anomalies;
    public final Map<String, Object> stats;

    Outcome(Verdict.Value value, String reason, List<Anomaly> anomalies, Map<String, Object> stats) {
      this.value = value;
      this.reason = reason;
      this.anomalies = anomalies;
      this.stats = stats;
    }
  }

  private final History h;
  private final RegisterAnalysis ra;
  private final Polygraph[] byFamily = new Polygraph[3];
  private List<Anomaly> lost;

  private final boolean shortcuts;

  public RegisterSearch(History h, RegisterAnalysis ra) { this(h, ra, true); }

  /** With shortcuts false, no pruning rounds after the first and no time-ordered choice: the solver decides (for tests). */
  public RegisterSearch(History h, RegisterAnalysis ra, boolean shortcuts) { this(h, ra, shortcuts, null); }

  /**
   * With orderedKeys (per key, may be null): keys whose version order the history fixes
   * (isocheck.check.mt: read-modify-write chains), which get no write-order constraints.
   */
  public RegisterSearch(History h, RegisterAnalysis ra, boolean shortcuts, boolean[] orderedKeys) {
    this(h, ra, shortcuts, orderedKeys, null);
  }

  /**
   * With {@code plain}: the polygraph to search (without session or realtime order), built
   * elsewhere (isocheck.check.mt's constraints between chains of read-modify-writes).
   */
  public RegisterSearch(History h, RegisterAnalysis ra, boolean shortcuts, boolean[] orderedKeys, Polygraph plain) {
    this.h = h;
    this.ra = ra;
    this.shortcuts = shortcuts;
    this.orderedKeys = orderedKeys;
    byFamily[Level.Family.PLAIN.ordinal()] = plain;
  }

  private final boolean[] orderedKeys;

  private final long[] buildNs = new long[3];

  /** The family's polygraph: the plain one built once, the others sharing its constraints. */
  private Polygraph polygraph(Level.Family f) {
    int i = f.ordinal();
    if (byFamily[i] == null) {
      long t = System.nanoTime();
      int p = Level.Family.PLAIN.ordinal();
      if (byFamily[p] == null) {
        byFamily[p] = Polygraph.of(h, ra, false, false, orderedKeys);
        buildNs[p] = System.nanoTime() - t;
        t = System.nanoTime();
      }
      byFamily[i] = byFamily[p].withOrders(f != Level.Family.PLAIN, f == Level.Family.REALTIME);
      if (i != p) buildNs[i] = buildNs[p] + System.nanoTime() - t;
    }
    return byFamily[i];
  }

  private final java.util.EnumMap<Level, Outcome> outcomes = new java.util.EnumMap<>(Level.class);

  /** Decides level l (a serializable or snapshot-isolation level) by deadline (System.nanoTime()); each level once. */
  public Outcome decide(Level l, long deadline) {
    Outcome o = outcomes.get(l);
    if (o == null) {
      o = search(l, deadline);
      outcomes.put(l, o);
    }
    return o;
  }

  /** The snapshot-isolation level with the same orders as l. */
  private static Level siOf(Level.Family f) {
    return f == Level.Family.PLAIN ? Level.SNAPSHOT_ISOLATION
        : f == Level.Family.PROCESS ? Level.STRONG_SESSION_SNAPSHOT_ISOLATION : Level.STRONG_SNAPSHOT_ISOLATION;
  }

  private Outcome search(Level l, long deadline) {
    long t0 = System.nanoTime();
    Polygraph p;
    try {
      p = polygraph(l.family);
    } catch (Polygraph.TooLarge e) {
      return new Outcome(Verdict.Value.UNKNOWN, "deciding " + l.id + " needs the version order of rw-register writes, but "
          + e.getMessage(), List.of(), new LinkedHashMap<>(Map.of("side-edges", e.edges)));
    }
    LinkedHashMap<String, Object> st = new LinkedHashMap<>();
    st.put("polygraph-ms", buildNs[l.family.ordinal()] / 1_000_000L);
    st.put("constraints", (long) p.constraints());
    st.put("known-edges", (long) p.known.size());
    List<Anomaly> found = new ArrayList<>();
    if (!p.lostUpdates.isEmpty()) {
      // Two read-modify-writes of one version: every serializable and SI level forbids it.
      if (lost == null) {
        lost = new ArrayList<>();
        for (int[] lu : p.lostUpdates) lost.add(lostUpdate(lu));
      }
      found.addAll(lost);
      st.put("lost-updates", (long) p.lostUpdates.size());
      return new Outcome(Verdict.Value.FALSE, null, found, st);
    }
    boolean si = l.kind == Level.Kind.SI;
    long tp = System.nanoTime();
    LevelGraph g = new LevelGraph(p, si);
    // The known graph alone first: a cycle in it is a violation, and when the sides the
    // history's own time suggests leave it acyclic the level holds: the common case, with
    // neither pruning nor solver. Then pruning to a fixpoint, the time order again, the solver.
    // (Without the shortcuts, as tests compare, the solver decides alone.)
    Pruning pr = new Pruning(g).checkOnly();
    if (shortcuts && pr.status == Pruning.Status.OPEN && topologicalChoice(g, pr)) {
      st.put("prune-ms", (System.nanoTime() - tp) / 1_000_000L);
      st.put("open", (long) p.constraints());
      st.put("decided-by", new isocheck.history.Kw("time-order"));
      return new Outcome(Verdict.Value.TRUE, null, found, st);
    }
    if (shortcuts && pr.status == Pruning.Status.OPEN) pr = new Pruning(g).run(deadline);
    st.put("pruning-rounds", (long) pr.rounds);
    st.put("pruned", (long) pr.decided);
    long t1 = System.nanoTime();
    st.put("prune-ms", (t1 - tp) / 1_000_000L);
    if (pr.status == Pruning.Status.VIOLATED) {
      // A serializability counterexample may rest on orders pruning forced by serializability's
      // rules; its cycle's shape then claims snapshot isolation too only if SI is violated as
      // well. Else no order avoids a cycle with an anti-dependency: G2-item (Adya).
      boolean serOnly = !si && decide(siOf(l.family), deadline).value != Verdict.Value.FALSE;
      found.add(counterexample(g, pr, l.family, serOnly));
      return new Outcome(Verdict.Value.FALSE, null, found, st);
    }
    if (pr.status == Pruning.Status.DECIDED) return new Outcome(Verdict.Value.TRUE, null, found, st);
    int open = p.constraints() - pr.decided;
    st.put("open", (long) open);
    if (shortcuts && topologicalChoice(g, pr)) {
      st.put("decided-by", new isocheck.history.Kw("time-order"));
      return new Outcome(Verdict.Value.TRUE, null, found, st);
    }
    return solve(l, g, pr, deadline, st, found);
  }

  /**
   * The open constraints to the CDCL(T) solver ({@link AcyclicitySolver}): one variable each, its
   * truth putting side 0's edges in the graph and its falsity side 1's, over the known graph with
   * every side pruning decided. SAT: the level holds. UNSAT: the solver's refutation ends in a
   * cycle of known and forced edges, present in every compatible graph: the counterexample.
   */
  private Outcome solve(Level l, LevelGraph g, Pruning pr, long deadline, Map<String, Object> st, List<Anomaly> found) {
    long t0 = System.nanoTime();
    int nc = g.p.constraints();
    AcyclicitySolver s = new AcyclicitySolver(g.nodes);
    for (int i = 0; i < g.known.size(); i++) s.addKnownEdge(g.known.src(i), g.known.dst(i));
    int[] var = new int[nc];
    int[] ofVar = new int[nc + 1];
    for (int c = 0; c < nc; c++) {
      if (pr.choice[c] >= 0) {
        for (int e = g.p.sideFrom(c, pr.choice[c]); e < g.p.sideTo(c, pr.choice[c]); e++) s.addKnownEdge(g.sideSrc[e], g.sideDst[e]);
        continue;
      }
    }
    // Variables are made latest pair first: the solver first decides the variables no conflict
    // has touched last-made-first, so it sweeps the writer pairs in time order (constraints are
    // numbered by their earlier writer), each polarity following the current topological order.
    // Made the other way round, BlindW-RW at 10^4 took 12,000 conflicts instead of 7.
    for (int c = nc - 1; c >= 0; c--) {
      if (pr.choice[c] >= 0) continue;
      int x = s.newVar();
      var[c] = x;
      if (x >= ofVar.length) ofVar = java.util.Arrays.copyOf(ofVar, x * 2 + 1);
      ofVar[x] = c;
      for (int e = g.p.sideFrom(c, 0); e < g.p.sideTo(c, 0); e++) s.addEdge(x, g.sideSrc[e], g.sideDst[e]);
      for (int e = g.p.sideFrom(c, 1); e < g.p.sideTo(c, 1); e++) s.addEdge(-x, g.sideSrc[e], g.sideDst[e]);
    }
    s.setTimeBudget(Math.max(1, (deadline - System.nanoTime()) / 1_000_000L));
    Status status = s.solve();
    LinkedHashMap<String, Object> ss = new LinkedHashMap<>(s.stats().toMap());
    ss.put("ms", (System.nanoTime() - t0) / 1_000_000L);
    st.put("solver", ss);
    if (status == Status.SAT) {
      st.put("decided-by", new isocheck.history.Kw("solver"));
      return new Outcome(Verdict.Value.TRUE, null, found, st);
    }
    if (status == Status.UNKNOWN) {
      return new Outcome(Verdict.Value.UNKNOWN, String.format("the time limit passed while searching the version order of "
          + "rw-register writes for %s: after pruning, %,d of %,d write-order constraints were open; raise the time limit "
          + "(:time-limit, --time-limit)", l.id, nc - pr.decided, nc), found, st);
    }
    st.put("decided-by", new isocheck.history.Kw("solver"));
    boolean serOnly = l.kind != Level.Kind.SI && decide(siOf(l.family), deadline).value != Verdict.Value.FALSE;
    found.add(refuted(g, pr, s, var, ofVar, l.family, serOnly));
    return new Outcome(Verdict.Value.FALSE, null, found, st);
  }

  /** The counterexample of an UNSAT answer: the refutation's final cycle, its forced steps explained as such. */
  private Anomaly refuted(LevelGraph g, Pruning pr, AcyclicitySolver s, int[] var, int[] ofVar, Level.Family f, boolean serOnly) {
    Refutation ref = s.refutation();
    PolygraphExplainer px = new PolygraphExplainer(g.p, ra);
    px.forced(pr);
    java.util.ArrayList<Integer> lits = new java.util.ArrayList<>();
    if (ref != null) {
      for (Refutation.Step step : ref.steps) {
        if (step.lit == 0) continue;
        lits.add(step.lit);
        int c = ofVar[Math.abs(step.lit)];
        px.forced(c, step.lit > 0 ? 0 : 1);
      }
    }
    EdgeCycle ec = ref == null ? null : ref.finalCycle();
    if (ec == null) ec = s.cycleUnder(lits.stream().mapToInt(Integer::intValue).toArray());
    if (ec == null) ec = s.lastCycle();
    if (ec == null) {
      return new Anomaly("unclassified-cycle", new int[0], new LinkedHashMap<>(),
          "The version-order solver found no order of the writes that leaves the graph acyclic.", null);
    }
    int k = ec.length();
    int[] ns = new int[k], ls = new int[k];
    for (int i = 0; i < k; i++) {
      int a = ec.from(i), b = ec.to(i), lit = ec.lits[i];
      ns[i] = a;
      ls[i] = lit == 0 ? knownLabel(g, pr, a, b) : sideLabel(g, ofVar[Math.abs(lit)], lit > 0 ? 0 : 1, a, b);
    }
    Cycle tc = txnCycle(g, new Cycle(ns, ls));
    Steps steps = new Steps(h, px);
    boolean[] hyp = new boolean[tc.length()];
    String note = "No order of the writes leaves the graph acyclic: the search forced each step marked forced (the other "
        + "order of those two writers closes a cycle, given the steps forced before it), and they close this cycle:";
    return CycleReport.of(h, steps, tc, hyp, note, null, name(tc, f, serOnly));
  }

  private static int knownLabel(LevelGraph g, Pruning pr, int a, int b) {
    int m = pr.last.maskOf(a, b);
    return m != 0 ? Edge.label(m) : Edge.WW;
  }

  private static int sideLabel(LevelGraph g, int c, int side, int a, int b) {
    for (int e = g.p.sideFrom(c, side); e < g.p.sideTo(c, side); e++) {
      if (g.sideSrc[e] == a && g.sideDst[e] == b) return g.p.sideType[e];
    }
    return Edge.WW;
  }

  /**
   * Chooses, for every open constraint, the side whose first edge agrees with a topological order
   * of the pruned graph; true when known ∪ decided ∪ chosen is acyclic (then the level holds).
   */
  private boolean topologicalChoice(LevelGraph g, Pruning pr) {
    int[] pos = timeOrder(g, pr.last);
    int[] choice = pr.choice.clone();
    for (int c = 0; c < choice.length; c++) {
      if (choice[c] >= 0) continue;
      // The version order follows the writers' commits (serializability: the transactions).
      int a = g.p.first[c], b = g.p.second[c];
      choice[c] = g.si ? (pos[BcGraph.commit(a)] < pos[BcGraph.commit(b)] ? 0 : 1) : (pos[a] < pos[b] ? 0 : 1);
    }
    isocheck.graph.EdgeList es = new isocheck.graph.EdgeList(g.known.size() + 1024);
    for (int i = 0; i < g.known.size(); i++) es.add(g.known.src(i), g.known.dst(i), g.known.type(i));
    for (int c = 0; c < choice.length; c++) {
      for (int e = g.p.sideFrom(c, choice[c]); e < g.p.sideTo(c, choice[c]); e++) es.add(g.sideSrc[e], g.sideDst[e], g.p.sideType[e]);
    }
    return !Scc.of(Digraph.of(g.nodes, es), ~0).hasCycle();
  }

  /**
   * Positions in a topological order of the acyclic graph d that follows the history's own time
   * where d leaves a choice (Kahn's algorithm, the ready node that happened first next): a
   * transaction by its completion (serializability), a begin by its invocation and a commit by
   * its completion (snapshot isolation); relays as soon as they are ready. A store that is
   * correct usually committed in an order close to this, so its sides agree with it.
   */
  private int[] timeOrder(LevelGraph g, Digraph d) {
    int n = d.n;
    long[] prio = new long[n];
    for (int v = 0; v < n; v++) {
      int t = g.owner(v);
      if (t >= g.p.nTxns) prio[v] = Long.MIN_VALUE;
      else {
        long c = h.completeOrdinal(t), i = h.invokeOrdinal(t);
        boolean begin = g.si && (v & 1) == 0;
        long at = begin ? (i >= 0 ? i : c) : (c >= 0 ? c : Long.MAX_VALUE / 4 + Math.max(0, i));
        prio[v] = at;
      }
    }
    int[] indeg = new int[n];
    for (int v = 0; v < n; v++) for (int e = d.start(v); e < d.end(v); e++) indeg[d.target(e)]++;
    java.util.PriorityQueue<long[]> q = new java.util.PriorityQueue<>((x, y) -> x[0] != y[0] ? Long.compare(x[0], y[0]) : Long.compare(x[1], y[1]));
    for (int v = 0; v < n; v++) if (indeg[v] == 0) q.add(new long[] {prio[v], v});
    int[] pos = new int[n];
    int k = 0;
    while (!q.isEmpty()) {
      int v = (int) q.poll()[1];
      pos[v] = k++;
      for (int e = d.start(v); e < d.end(v); e++) {
        int w = d.target(e);
        if (--indeg[w] == 0) q.add(new long[] {prio[w], w});
      }
    }
    return pos;
  }

  // ------------------------------------------------------------------ counterexamples

  private Anomaly lostUpdate(int[] lu) {
    int k = lu[0], ver = lu[1], a = lu[2], b = lu[3];
    String version = ver < 0 ? "nil, the initial value" : h.valueStr(valueOf(ver, k)) + ", " + h.name(ver) + "'s write";
    return new Anomaly("lost-update", new int[] {a, b},
        Anomaly.map("key", h.key(k), "ops", Data.ops(h, a, b)),
        h.name(a) + " and " + h.name(b) + " both read key " + h.keyStr(k) + " = " + version + ", and both wrote it: "
            + "whichever committed second overwrote a write it never saw (a lost update), which every serializable and "
            + "snapshot-isolation level forbids.", null);
  }

  private int valueOf(int t, int k) {
    for (int m = h.mopEnd(t) - 1; m >= h.mopStart(t); m--) {
      if (h.mopKind(m) == isocheck.history.OpRecord.WRITE && h.mopKey(m) == k) return h.mopVal(m);
    }
    return History.NIL;
  }

  /**
   * The name of a counterexample found with the orders of family f: its cycle's shape (G0, G1c,
   * G-single-item, ...), or G2-item when serializability's rules forced orders that snapshot
   * isolation does not; and at least f's suffix, since orders were inferred with f's edges.
   */
  private static String name(Cycle c, Level.Family f, boolean serOnly) {
    String t = c.anomalyType();
    Level.Family own = t.endsWith("-realtime") ? Level.Family.REALTIME : t.endsWith("-process") ? Level.Family.PROCESS : Level.Family.PLAIN;
    String base = serOnly ? "G2-item" : t.replace("-realtime", "").replace("-process", "");
    Level.Family fam = own.ordinal() > f.ordinal() ? own : f;
    return base + (fam == Level.Family.PLAIN ? "" : fam == Level.Family.PROCESS ? "-process" : "-realtime");
  }

  private Anomaly counterexample(LevelGraph g, Pruning pr, Level.Family f, boolean serOnly) {
    PolygraphExplainer px = new PolygraphExplainer(g.p, ra);
    px.forced(pr);
    Steps steps = new Steps(h, px);
    if (pr.badConstraint < 0) {
      // The known graph, with the orders pruning forced, has a cycle.
      for (int c = 0; c < pr.lastScc.count; c++) {
        if (!pr.lastScc.cyclic[c]) continue;
        Cycle cy = CycleFinder.anyCycleIn(pr.last, pr.lastScc, c, ~0);
        Cycle tc = txnCycle(g, cy);
        return CycleReport.of(h, steps, tc, new boolean[tc.length()], null, null, name(tc, f, serOnly));
      }
      throw new IllegalStateException("a cyclic graph without a cycle");
    }
    int c = pr.badConstraint, a = g.p.first[c], b = g.p.second[c];
    Cycle c0 = sideCycle(g, pr, pr.badEdge0), c1 = sideCycle(g, pr, pr.badEdge1);
    String named = name(c0, f, serOnly);
    px.considering(c, 0);
    Anomaly first = CycleReport.of(h, steps, c0, new boolean[c0.length()], null, null, named);
    px.considering(c, 1);
    Anomaly second = CycleReport.of(h, steps, c1, new boolean[c1.length()], null, null, named);
    px.considering(-1, 0);
    java.util.TreeSet<String> keys = new java.util.TreeSet<>();
    for (int s = 0; s < 2; s++) {
      for (int e = g.p.sideFrom(c, s); e < g.p.sideTo(c, s); e++) if (g.p.sideType[e] == Edge.WW) keys.add(h.keyStr(g.p.sideKey[e]));
    }
    String note = h.name(a) + " and " + h.name(b) + " both wrote " + (keys.size() == 1 ? "key " : "keys ") + String.join(", ", keys)
        + ", and no read shows which write came first. Either order closes a cycle. If " + h.name(a) + "'s came first:";
    Map<String, Object> data = new LinkedHashMap<>(first.data);
    data.put("unordered", Data.ops(h, a, b));
    data.put("alternative", second.data);
    return new Anomaly(first.type, first.txns, data,
        note + "\n" + first.explanation + "\nIf " + h.name(b) + "'s came first instead:\n" + second.explanation, first.cycle);
  }

  /** The cycle a side edge u → v closes with the pruned graph: u → v, then a shortest path v ⇝ u. */
  private static Cycle sideCycle(LevelGraph g, Pruning pr, int e) {
    int u = g.sideSrc[e], v = g.sideDst[e];
    int[] path = u == v ? new int[] {v} : Pruning.path(pr.last, v, u);
    int k = path.length;
    int[] ns = new int[k], ls = new int[k];
    ns[0] = u;
    ls[0] = g.p.sideType[e];
    for (int i = 0; i + 1 < k; i++) {
      ns[i + 1] = path[i];
      ls[i + 1] = Edge.label(pr.last.maskOf(path[i], path[i + 1]));
    }
    // path ends at u, which is ns[0]: the cycle is u, path[0..k-2].
    return txnCycle(g, new Cycle(ns, ls));
  }

  private static Cycle txnCycle(LevelGraph g, Cycle c) {
    Cycle t = g.si ? BcGraph.toTxnCycle(c, g.p.nTxns) : c;
    return t.withoutRelays(g.p.nTxns);
  }
}
