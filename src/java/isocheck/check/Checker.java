package isocheck.check;

import isocheck.graph.BcGraph;
import isocheck.graph.Cycle;
import isocheck.graph.Digraph;
import isocheck.graph.Edge;
import isocheck.graph.EdgeList;
import isocheck.graph.OrderEdges;
import isocheck.graph.Orders;
import isocheck.graph.Scc;
import isocheck.history.History;
import isocheck.order.ListAppendAnalysis;
import isocheck.order.ListAppendExplainer;
import isocheck.order.RegisterAnalysis;
import isocheck.report.Anomaly;
import isocheck.report.AnomalySet;
import isocheck.report.CycleReport;
import isocheck.report.Steps;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Decides isolation levels on a history and explains every violation.
 *
 * <p>Pipeline: the workload's analysis (pre-checks, version orders, WW/WR/RW edges) → session and
 * realtime edges → one compact graph → per level, a strongly-connected-components pass over the
 * level's edges (for snapshot isolation, over the begin/commit split graph, {@link BcGraph}; for
 * GSI, the same with realtime edges entering commits) → within each cyclic component, a search
 * for the shortest cycle of each anomaly type → the levels whose graph is acyclic, to the
 * polygraph search ({@link isocheck.check.si}): on list-append, the order of appends no read
 * observed; on rw-register, the whole version order. Elle's read committed and read uncommitted
 * need no version order, repeatable read has serializability's ({@link
 * isocheck.check.adya.AdyaLevels}). Stronger graphs are checked first: when one is acyclic, every
 * level it implies holds.
 *
 * <p>Verdicts are sound and complete. On list-append histories a level is violated iff a
 * pre-check anomaly or a cycle of its kind exists, whatever the order of the appends no read
 * observed ({@link isocheck.check.si.AppendSearch}). On rw-register histories the version order is
 * not observable: pre-checks and cycles of write-read, process and realtime edges are violations,
 * and the rest is the version-order search of {@link isocheck.check.si.RegisterSearch}
 * (polygraph, pruning, solver), unknown only past the time limit or the heap, with the reason.
 */
public final class Checker {
  private Checker() {}

  public static Result check(History h, CheckOptions o) {
    LinkedHashSet<Level> req = new LinkedHashSet<>(), weak = new LinkedHashSet<>();
    for (Level l : o.levels) (isocheck.check.weak.WeakCheck.handles(l) ? weak : req).add(l);
    AnomalySet anomalies = new AnomalySet(o.maxAnomaliesPerType);
    LinkedHashMap<String, Object> stats = new LinkedHashMap<>();
    int[] counts = h.statusCounts();
    stats.put("workload", new isocheck.history.Kw(h.workload.cliName));
    stats.put("txns", (long) h.nTxns);
    stats.put("ok", (long) counts[0]);
    stats.put("fail", (long) counts[1]);
    stats.put("info", (long) counts[2]);
    stats.put("keys", (long) h.keyCount());
    stats.put("sessions", (long) h.sessionCount());
    stats.put("ops", h.opsSeen);
    if (h.opsSkipped > 0) stats.put("skipped-ops", h.opsSkipped);
    if (h.nonClientOps > 0) stats.put("skipped-non-client-ops", h.nonClientOps);
    if (h.nTxns == 0) {
      // Nothing to check is not a pass: an empty or wrong file must not look like a correct database.
      LinkedHashMap<Level, Verdict> none = new LinkedHashMap<>();
      for (Level l : o.levels) none.put(l, new Verdict(Verdict.Value.UNKNOWN, h.noTxnReason, List.of()));
      return new Result(h, none, anomalies, stats);
    }
    // (The serializable level's refutation facts, when the witness thread built them: below.)
    isocheck.check.si.ConstraintProof[] prepared = new isocheck.check.si.ConstraintProof[1];
    LinkedHashMap<Level, Verdict> got = req.isEmpty() ? new LinkedHashMap<>() : strong(h, o, req, anomalies, stats, prepared);
    @SuppressWarnings("unchecked")
    java.util.Map<String, Object> ms = (java.util.Map<String, Object>) stats.computeIfAbsent("ms", k -> new LinkedHashMap<String, Object>());
    // A strong level that holds and implies every weak level asked ({@link Level#implies}: with
    // session order, its serial or snapshot order is a commit order satisfying every weak axiom,
    // and no intra-transaction pattern survives it): they hold, with nothing to find.
    Level implying = null;
    for (java.util.Map.Entry<Level, Verdict> e : got.entrySet()) {
      if (e.getValue().value != Verdict.Value.TRUE || !weak.stream().allMatch(e.getKey()::implies)) continue;
      implying = e.getKey();
      break;
    }
    if (!weak.isEmpty() && implying != null && o.weakImplied) {
      LinkedHashMap<String, Object> ws = new LinkedHashMap<>();
      ws.put("implied-by", new isocheck.history.Kw(implying.id));
      stats.put("weak", ws);
      for (Level l : weak) {
        // The strong level's serial order, or its snapshot order's commits, is a commit order
        // satisfying every weak axiom (its certificate, :commit-order).
        Verdict v = new Verdict(Verdict.Value.TRUE, null, List.of());
        v.witness = got.get(implying).witness;
        got.put(l, v);
      }
    } else if (!weak.isEmpty()) {
      long t = System.nanoTime();
      o.weak.certificates = o.certificates;
      try {
        got.putAll(isocheck.check.weak.WeakCheck.check(h, weak, o.weak, anomalies, stats, o.progress));
      } catch (OutOfMemoryError e) {
        // The levels decided before keep their verdicts; the weak ones are unknown with the
        // reason. (Asked for alone, the weak levels' failure is the whole check's: the caller
        // says how much heap it needs.)
        if (got.isEmpty()) throw e;
        String reason = String.format("out of memory while checking the weak levels: their reads, writes and causal order "
            + "of %,d transactions did not fit in this JVM's heap (max %,d MB); raise the heap (ISOCHECK_HEAP, -Xmx)",
            (long) h.nTxns, Runtime.getRuntime().maxMemory() >> 20);
        for (Level l : weak) got.put(l, new Verdict(Verdict.Value.UNKNOWN, reason, List.of()));
        @SuppressWarnings("unchecked")
        java.util.Map<String, Object> ws = (java.util.Map<String, Object>) stats.computeIfAbsent("weak", k -> new LinkedHashMap<String, Object>());
        ws.put("out-of-memory", true);
      }
      long wms = (System.nanoTime() - t) / 1_000_000L;
      ms.put("weak", wms);
      ms.put("total", ((Long) ms.getOrDefault("total", 0L)) + wms);
    }
    LinkedHashMap<Level, Verdict> verdicts = new LinkedHashMap<>();
    for (Level l : o.levels) verdicts.put(l, got.get(l));
    consolidate(verdicts, anomalies, h.workload);
    boolean factsAhead = prepared[0] != null;
    if (o.certificates) refutations(h, verdicts, anomalies, ms, prepared);
    // ([:stats :refutation-facts-ahead]: a proof took the facts the witness thread built.)
    if (factsAhead && prepared[0] == null) stats.put("refutation-facts-ahead", true);
    Result r = new Result(h, verdicts, anomalies, stats);
    Object cx = stats.remove(CX_SEARCH);
    r.counterexampleSearch = o.skipCounterexamples() ? "skipped" : cx != null ? (String) cx : "smallest";
    return r;
  }

  /**
   * Proofs for the violated serializable, SI and repeatable-read levels of an rw-register history
   * whose anomalies are all cycles ({@link isocheck.check.si.ConstraintProof}): every version
   * order closes a cycle the level forbids, for {@code isocheck.verify} to check where a
   * counterexample rests on orders the search chose. A proof with fewer orders (or snapshot
   * isolation's, whose cycles are cycles) serves a level with more.
   */
  static void refutations(History h, LinkedHashMap<Level, Verdict> verdicts, AnomalySet anomalies, java.util.Map<String, Object> ms) {
    refutations(h, verdicts, anomalies, ms, null);
  }

  /**
   * As above; prepared[0] (prepared may be null): a level's facts built ahead on the witness
   * thread ({@link isocheck.check.si.ConstraintProof#prepare}), taken by the proof they serve.
   */
  static void refutations(History h, LinkedHashMap<Level, Verdict> verdicts, AnomalySet anomalies, java.util.Map<String, Object> ms,
                          isocheck.check.si.ConstraintProof[] prepared) {
    if (h.workload != History.Workload.REGISTER) return;
    long t0 = System.nanoTime();
    long[] budget = {isocheck.check.si.ConstraintProof.MAX_WORK}; // shared by the levels' proofs
    // The levels to prove, with their counterexamples' transactions (a hint for the search).
    LinkedHashMap<Level, int[]> wanted = new LinkedHashMap<>();
    for (java.util.Map.Entry<Level, Verdict> e : verdicts.entrySet()) {
      Level l = e.getKey();
      Verdict v = e.getValue();
      if (v == null || v.value != Verdict.Value.FALSE || !(l.kind == Level.Kind.SER || l.kind == Level.Kind.SI || l == Level.REPEATABLE_READ)) continue;
      boolean cycles = !v.anomalyTypes.isEmpty();
      java.util.TreeSet<Integer> hint = new java.util.TreeSet<>();
      for (String t : v.anomalyTypes) {
        List<isocheck.report.Anomaly> inst = anomalies.get(t);
        if (inst.isEmpty() || inst.get(0).cycle == null) cycles = false;
        else for (int x : inst.get(0).txns) hint.add(x);
      }
      if (cycles) wanted.put(l, hint.stream().mapToInt(Integer::intValue).toArray());
    }
    if (wanted.isEmpty()) return;
    // A proof with fewer orders, or snapshot isolation's (its cycles are cycles), proves a level
    // with more: so each violated level's orders are tried weakest first, and each is built once.
    List<Level> tries = new ArrayList<>(wanted.keySet());
    // (Not Comparator.comparingInt: its lambdas are spun at run time, isocheck.report.AnomalyOrder.ORDER.)
    tries.sort((a, b) -> {
      int c = Integer.compare(orders(a), orders(b));
      return c != 0 ? c : Integer.compare(a.kind == Level.Kind.SI ? 0 : 1, b.kind == Level.Kind.SI ? 0 : 1);
    });
    java.util.HashMap<Level, java.util.Map<String, Object>> built = new java.util.HashMap<>();
    for (java.util.Map.Entry<Level, int[]> e : wanted.entrySet()) {
      Level l = e.getKey();
      for (Level m : tries) {
        if (!l.family.carries(m.family) || m.kind != Level.Kind.SI && l.kind == Level.Kind.SI) continue;
        if (!built.containsKey(m)) built.put(m, isocheck.check.si.ConstraintProof.of(h, m, wanted.get(m), budget, prepared));
        if (built.get(m) != null) {
          verdicts.get(l).refutation = built.get(m);
          break;
        }
      }
    }
    ms.put("refutations", (System.nanoTime() - t0) / 1_000_000L);
  }

  /** How many orders a level's proof needs: the plain levels none beyond the history's, session 1, realtime 2. */
  private static int orders(Level l) {
    return l.family == Level.Family.PLAIN ? 0 : l.family == Level.Family.REALTIME ? 2 : 1;
  }

  /** Where a check's typed counterexample searches leave their kind until the result takes it. */
  private static final String CX_SEARCH = "counterexample-search";

  /**
   * Notes how a cycle reporter's counterexamples were searched ({@link CycleReporter#searchKind}),
   * for the result's {@code :counterexample-search}: bounded if any search was.
   */
  public static void noteCounterexamples(java.util.Map<String, Object> stats, CycleReporter cycles) {
    String k = cycles.searchKind();
    if (!"bounded".equals(stats.get(CX_SEARCH))) stats.put(CX_SEARCH, k);
  }

  /**
   * Makes the verdicts agree with one another and with the anomalies, by construction: a level
   * its own check left unknown is violated when an anomaly found rules it out
   * ({@link Level#violatedBy}) or when it implies a violated level ({@link Level#implies}; TCC
   * violated means strong-session serializability is too), and then it names those anomaly
   * types. A level decided true stays true: that no anomaly found rules it out, and that no level
   * it implies is violated, is what the tests check of the mapping and of the checkers, on every
   * history they run.
   */
  static void consolidate(LinkedHashMap<Level, Verdict> verdicts, AnomalySet anomalies, History.Workload w) {
    LinkedHashMap<Level, Verdict> decided = new LinkedHashMap<>(verdicts);
    for (java.util.Map.Entry<Level, Verdict> e : verdicts.entrySet()) {
      Level l = e.getKey();
      if (e.getValue().value != Verdict.Value.UNKNOWN) continue;
      java.util.TreeSet<String> types = new java.util.TreeSet<>();
      for (String t : anomalies.types()) if (Level.violatedBy(t, w).contains(l)) types.add(t);
      for (java.util.Map.Entry<Level, Verdict> o : decided.entrySet()) {
        if (o.getKey() != l && o.getValue().value == Verdict.Value.FALSE && l.implies(o.getKey())) types.addAll(o.getValue().anomalyTypes);
      }
      if (!types.isEmpty()) e.setValue(new Verdict(Verdict.Value.FALSE, null, new ArrayList<>(types)));
    }
  }

  /**
   * After the mini-transaction checker decided some levels: the others by the general path, over
   * a copy of the anomalies found so far, of whose own findings only the types not found yet are
   * kept (the same cycle is not counted twice).
   */
  private static LinkedHashMap<Level, Verdict> rest(History h, CheckOptions o, LinkedHashSet<Level> req,
                                                    isocheck.check.mt.MtCheck.Outcome mt, AnomalySet anomalies,
                                                    LinkedHashMap<String, Object> stats) {
    LinkedHashSet<Level> others = new LinkedHashSet<>(req);
    others.removeAll(mt.verdicts.keySet());
    AnomalySet scratch = new AnomalySet(anomalies.cap());
    scratch.addAll(anomalies);
    // (Asked again, the MT checker decides none of these, but tells the general search which
    // keys' orders the history fixes.)
    Object mtStats = stats.get("mt");
    LinkedHashMap<Level, Verdict> got = strong(h, o, others, scratch, stats);
    if (mtStats != null) stats.put("mt", mtStats);
    for (String t : scratch.types()) {
      if (anomalies.has(t)) continue;
      List<Anomaly> kept = scratch.get(t);
      for (Anomaly a : kept) anomalies.add(a);
      for (long i = kept.size(); i < scratch.count(t); i++) anomalies.tally(t);
    }
    LinkedHashMap<Level, Verdict> all = new LinkedHashMap<>(mt.verdicts);
    all.putAll(got);
    return all;
  }

  /** The serializable, snapshot-isolation and GSI levels, and Elle's read uncommitted, read committed, repeatable read. */
  private static LinkedHashMap<Level, Verdict> strong(History h, CheckOptions o, LinkedHashSet<Level> req, AnomalySet anomalies,
                                                      LinkedHashMap<String, Object> stats) {
    return strong(h, o, req, anomalies, stats, (isocheck.check.si.ConstraintProof[]) null);
  }

  /**
   * As above; rw-register with certificates: prepared[0] (prepared may be null) is set to the
   * serializable level's refutation facts the witness thread built, when that level is violated.
   */
  private static LinkedHashMap<Level, Verdict> strong(History h, CheckOptions o, LinkedHashSet<Level> req, AnomalySet anomalies,
                                                      LinkedHashMap<String, Object> stats, isocheck.check.si.ConstraintProof[] prepared) {
    isocheck.check.si.RegisterSearch.WitnessAhead[] ahead = new isocheck.check.si.RegisterSearch.WitnessAhead[1];
    LinkedHashMap<Level, Verdict> got = null;
    try {
      got = strong(h, o, req, anomalies, stats, ahead);
      return got;
    } finally {
      if (ahead[0] != null) {
        // Violated, the plain serializable level's refutation takes the facts built for it.
        boolean keep = false;
        if (prepared != null && got != null) {
          for (Level l : new Level[] {Level.SERIALIZABLE, Level.REPEATABLE_READ}) {
            Verdict v = got.get(l);
            if (v != null && v.value == Verdict.Value.FALSE) keep = true;
          }
        }
        if (keep) {
          ahead[0].closeKeepingProof();
          prepared[0] = ahead[0].preparedProof();
        } else {
          ahead[0].close();
        }
      }
    }
  }

  /** As above; rw-register: ahead[0] is set to the witness started ahead, if any, for the caller to close. */
  private static LinkedHashMap<Level, Verdict> strong(History h, CheckOptions o, LinkedHashSet<Level> req, AnomalySet anomalies,
                                                      LinkedHashMap<String, Object> stats,
                                                      isocheck.check.si.RegisterSearch.WitnessAhead[] ahead) {
    long t0 = System.nanoTime();
    // The chain PLAIN ⊑ PROCESS ⊑ REALTIME of the serializable and SI levels; GSI's commit-realtime
    // graph and Elle's plain levels are decided beside it.
    Level.Family maxFam = Level.Family.PLAIN;
    boolean anySer = false, anySi = false;
    for (Level l : req) {
      if (l.kind == Level.Kind.ADYA) continue;
      if (l.family != Level.Family.COMMIT_REALTIME && l.family.ordinal() > maxFam.ordinal()) maxFam = l.family;
      if (l.kind == Level.Kind.SER) anySer = true;
      else anySi = true;
    }
    int n = h.nTxns;
    boolean[] committed, orderedKeys = null;
    isocheck.check.si.Polygraph mtPolygraph = null;
    EdgeList es;
    Steps.DataExplainer dx;
    ListAppendAnalysis la = null;
    o.progress.stage("analysis");
    if (h.workload == History.Workload.APPEND) {
      la = new ListAppendAnalysis(h, Math.max(o.maxAnomaliesPerType, 1));
      anomalies.addAll(la.anomalies);
      committed = la.committed;
      es = la.edges;
      dx = new ListAppendExplainer(la);
    } else {
      // The first level's witness schedule starts on the other core as soon as the pre-checks
      // are done (isocheck.check.si.RegisterSearch.WitnessAhead), beside the chains and the
      // observed graph; closed by the caller, if still running, when the levels are decided.
      java.util.function.Consumer<RegisterAnalysis> preChecked = ra -> {
        if (o.searchShortcuts && o.searchWitness) {
          ahead[0] = isocheck.check.si.RegisterSearch.WitnessAhead.start(h, ra, req,
              l -> Level.ruledOutBy(ra.anomalies.types(), l).isEmpty(), o.certificates);
        }
      };
      // Mini-transactions first (isocheck.check.mt): linear when the history fixes every key's
      // version order; else the general search below, told which keys' orders are known.
      isocheck.check.mt.MtCheck.Outcome mt = o.miniTransactions ? isocheck.check.mt.MtCheck.check(h, o, req, anomalies, stats, preChecked) : null;
      if (mt != null && mt.verdicts != null) {
        if (ahead[0] != null) ahead[0].close();
        if (mt.verdicts.keySet().containsAll(req)) return mt.verdicts;
        // The levels the MT checker does not decide (gsi, Elle's): the general path, told what
        // it found (its anomalies rule levels out), adding only anomaly types it did not find.
        return rest(h, o, req, mt, anomalies, stats);
      }
      if (mt != null) {
        orderedKeys = mt.orderedKeys;
        mtPolygraph = mt.polygraph;
      }
      RegisterAnalysis ra = mt != null ? mt.ra : new RegisterAnalysis(h, Math.max(o.maxAnomaliesPerType, 1));
      if (mt == null) preChecked.accept(ra);
      if (ahead[0] != null) ahead[0].chains(orderedKeys, mtPolygraph != null);
      anomalies.addAll(ra.anomalies);
      committed = ra.committed;
      es = ra.edges;
      dx = ra;
    }
    putCommitted(stats, committed);
    long t1 = System.nanoTime();

    o.progress.stage("graph");
    OrderEdges orders = OrderEdges.append(h, committed, es, maxFam.carries(Level.Family.PROCESS),
        maxFam == Level.Family.REALTIME || req.contains(Level.GSI));
    // (rw-register: unordered, ordered only if it has a cycle, Run#registerLevels.)
    Digraph g = observedGraph(orders, h, stats, h.workload == History.Workload.APPEND);
    long t2 = System.nanoTime();

    Run run = new Run(h, g, o, anomalies, new Steps(h, dx), stats);
    run.cycles.checkStarted(t0);
    if (dx instanceof RegisterAnalysis) run.ra = (RegisterAnalysis) dx;
    run.orderedKeys = orderedKeys;
    run.mtPolygraph = mtPolygraph;
    run.witnessAhead = ahead[0];
    run.orders = orders;
    LinkedHashMap<Level, Verdict> verdicts = h.workload == History.Workload.APPEND
        ? run.appendLevels(req, maxFam, anySer, anySi, la)
        : run.registerLevels(req, maxFam);
    putStageMs(stats, t0, t1, t2, System.nanoTime());
    return verdicts;
  }

  /** {@code [:stats :committed]}: how many transactions are committed. */
  public static void putCommitted(java.util.Map<String, Object> stats, boolean[] committed) {
    long c = 0;
    for (boolean b : committed) if (b) c++;
    stats.put("committed", c);
  }

  /**
   * The graph of the orders a history shows: es (its write-read and other known edges) with
   * session order and realtime order (through relays, {@link Orders#realtime}) added when asked;
   * {@code [:stats :edges]} and {@code :realtime-relays}.
   */
  public static Digraph observedGraph(History h, boolean[] committed, EdgeList es, boolean session, boolean realtime,
                                      java.util.Map<String, Object> stats) {
    return observedGraph(OrderEdges.append(h, committed, es, session, realtime), h, stats);
  }

  /** As above, from the orders appended to es ({@link OrderEdges#append}), which the search then shares. */
  static Digraph observedGraph(OrderEdges orders, History h, java.util.Map<String, Object> stats) {
    return observedGraph(orders, h, stats, true);
  }

  /**
   * As above; without {@code ordered}, packed per node and no further ({@link Digraph#unordered}),
   * for a check that orders it only when it has a cycle ({@code :edges} counts the edges ordering
   * keeps).
   */
  static Digraph observedGraph(OrderEdges orders, History h, java.util.Map<String, Object> stats, boolean ordered) {
    Digraph g = ordered ? Digraph.of(h.nTxns + orders.relays, orders.es) : Digraph.unordered(h.nTxns + orders.relays, orders.es);
    stats.put("edges", g.distinctEdgeCount());
    if (orders.relays > 0) stats.put("realtime-relays", (long) orders.relays);
    return g;
  }

  /** {@code [:stats :ms]}: analysis t0..t1, graph t1..t2, levels t2..t3. */
  public static void putStageMs(java.util.Map<String, Object> stats, long t0, long t1, long t2, long t3) {
    LinkedHashMap<String, Object> ms = new LinkedHashMap<>();
    ms.put("analysis", (t1 - t0) / 1_000_000L);
    ms.put("graph", (t2 - t1) / 1_000_000L);
    ms.put("levels", (t3 - t2) / 1_000_000L);
    ms.put("total", (t3 - t0) / 1_000_000L);
    stats.put("ms", ms);
  }

  /** One check's working state. */
  private static final class Run {
    final History h;
    /** The observed graph: rw-register's unordered until a component search needs it ordered ({@link #ordered}). */
    Digraph g;
    final CheckOptions o;
    final AnomalySet anomalies;
    final Steps steps;
    final LinkedHashMap<String, Object> stats;
    final int n;
    /** Typed cycles of cyclic components, named and kept by {@link #addCycle}. */
    final CycleReporter cycles;
    Digraph bc, bcGsi;
    /** The rw-register analysis, for the version-order search. */
    RegisterAnalysis ra;
    /** Keys whose version order the history fixes, or null; the polygraph of chains to search, or null (isocheck.check.mt). */
    boolean[] orderedKeys;
    isocheck.check.si.Polygraph mtPolygraph;
    /** The first level's witness schedule, started ahead (rw-register), or null. */
    isocheck.check.si.RegisterSearch.WitnessAhead witnessAhead;
    /** The session and realtime order edges of the observed graph, which the search's polygraphs share. */
    OrderEdges orders;
    long sccNs, searchNs, polygraphNs;

    Scc scc(Digraph gr, int filter) { return scc(gr, filter, null); }

    Scc scc(Digraph gr, int filter, int[] groups) {
      long t = System.nanoTime();
      Scc s = Scc.of(gr, filter, groups);
      sccNs += System.nanoTime() - t;
      return s;
    }

    Run(History h, Digraph g, CheckOptions o, AnomalySet anomalies, Steps steps, LinkedHashMap<String, Object> stats) {
      this.h = h;
      this.g = g;
      this.o = o;
      this.anomalies = anomalies;
      this.steps = steps;
      this.stats = stats;
      this.n = h.nTxns;
      this.cycles = new CycleReporter(n, g.n, o, this::addCycle);
    }

    static int serFilter(Level.Family f) { return CycleReporter.serFilter(f); }
    static int siFilter(Level.Family f) { return CycleReporter.siFilter(f); }

    Digraph bc() {
      if (bc == null) bc = BcGraph.of(g, n);
      return bc;
    }

    /** GSI's begin/commit graph: realtime edges enter commits. */
    Digraph bcGsi() {
      if (bcGsi == null) bcGsi = BcGraph.of(g, n, true);
      return bcGsi;
    }

    static int gsiFilter() { return Edge.WW | Edge.WR | Edge.RW | Edge.INTRA | Edge.RT; }

    LinkedHashMap<Level, Verdict> appendLevels(Set<Level> req, Level.Family maxFam, boolean anySer, boolean anySi,
                                               ListAppendAnalysis la) {
      int top = maxFam.ordinal();
      o.progress.stage("cycles");
      boolean gsi = req.contains(Level.GSI);
      CycleReporter.ByFamily fam = new CycleReporter.ByFamily(top, anySi, (f, in) -> scc(g, serFilter(f), in),
          (f, in) -> scc(BcGraph.of(g, n, false, in), siFilter(f), BcGraph.lift(in, n, 2 * n + (g.n - n))));
      boolean[] serAcyclic = fam.serAcyclic, siAcyclic = fam.siAcyclic;
      // GSI: plain SI's graph cyclic rules it out; strong SI's acyclic settles it.
      Scc gsiScc = null;
      boolean gsiAcyclic = true;
      if (gsi && !siAcyclic[0]) gsiAcyclic = false;
      else if (gsi && !(top == 2 && siAcyclic[2])) {
        gsiScc = scc(bcGsi(), gsiFilter());
        gsiAcyclic = !gsiScc.hasCycle();
      }
      final boolean gsiOk = gsiAcyclic;
      java.util.function.Predicate<Level> cyclic = l -> l == Level.GSI ? !gsiOk
          : l.kind == Level.Kind.ADYA ? l == Level.REPEATABLE_READ && !serAcyclic[0]
          : !(l.kind == Level.Kind.SER ? serAcyclic : siAcyclic)[l.family.ordinal()];
      java.util.function.Predicate<Level> skip = l -> l.kind == Level.Kind.ADYA || cyclic.test(l);
      // The order of appends no read observed: the polygraph engine (check/si), on the
      // serializable, SI and GSI levels whose known graph is acyclic. (Elle's three levels need
      // no order of them: isocheck.check.adya.AdyaLevels.) The first level it decides is decided
      // on a thread of its own beside the counterexamples below, which it does not depend on
      // (list-append 10^5 under faults: 61 ms of search beside 82 of counterexamples).
      isocheck.check.si.AppendSearch search = new isocheck.check.si.AppendSearch(h, la, g, o.searchShortcuts);
      search.witnesses = o.certificates;
      search.progress(o.progress);
      for (Level l : req) if (l.kind == Level.Kind.SER || l.kind == Level.Kind.SI) search.knownAcyclic(l, !cyclic.test(l));
      Level first = firstSearched(req, skip);
      // (Tests compare: -Disocheck.search.ahead=false decides it in place.)
      if (first != null && o.searchShortcuts && !"false".equals(System.getProperty("isocheck.search.ahead"))) {
        search.decideAhead(first, o.timeLimitMs);
      }
      try {
        return appendVerdicts(req, top, anySer, anySi, la, fam, gsiScc, gsiAcyclic, cyclic, skip, search);
      } finally {
        search.close();
      }
    }

    /** The rest of {@link #appendLevels}, once the cycles are found and the search has begun. */
    private LinkedHashMap<Level, Verdict> appendVerdicts(Set<Level> req, int top, boolean anySer, boolean anySi,
                                                         ListAppendAnalysis la, CycleReporter.ByFamily fam, Scc gsiScc,
                                                         boolean gsiAcyclic, java.util.function.Predicate<Level> cyclic,
                                                         java.util.function.Predicate<Level> skip,
                                                         isocheck.check.si.AppendSearch search) {
      Scc[] ser = fam.ser, si = fam.si;
      boolean[] serAcyclic = fam.serAcyclic, siAcyclic = fam.siAcyclic;
      boolean rr = req.contains(Level.REPEATABLE_READ);
      // Counterexamples, weakest family first, so each cycle gets its weakest name (GSI's before
      // the realtime family's: a cycle of its graph is one of strong SI's too).
      long ts = System.nanoTime();
      for (int fi = 0; fi <= top + 1; fi++) {
        if (fi == Math.min(2, top + 1) && gsiScc != null && !gsiAcyclic) {
          stats.put("cyclic-components-" + fname(Level.Family.COMMIT_REALTIME), (long) gsiScc.cyclicCount);
          report(gsiScc, g, Level.Family.COMMIT_REALTIME, false, bcGsi());
        }
        if (fi > top) break;
        Level.Family f = Level.Family.values()[fi];
        if ((anySer || (rr && fi == 0)) && !serAcyclic[fi]) {
          stats.put("cyclic-components-" + fname(f), (long) ser[fi].cyclicCount);
          reportSer(ser[fi], f, true);
        } else if (anySi && !siAcyclic[fi]) {
          stats.put("cyclic-components-" + fname(f), (long) si[fi].cyclicCount);
          reportSi(si[fi], f);
        }
      }
      searchNs += System.nanoTime() - ts;
      long tp0 = System.nanoTime();
      int multi = 0;
      for (int[] u : la.unread) if (u != null && u.length >= 2) multi++;
      if (multi > 0) stats.put("keys-with-unordered-unread-appends", (long) multi);
      o.progress.stage("order of never-read appends");
      LinkedHashMap<Level, Verdict> decided = searched(req, search, skip);
      polygraphNs += System.nanoTime() - tp0;
      // Elle's read committed and read uncommitted: the same lists, fewer edge types.
      boolean rcAcyclic = true, ruAcyclic = true;
      Scc rcScc = null, ruScc = null;
      Digraph ruGraph = null;
      if (req.contains(Level.READ_COMMITTED) && !(anySi && siAcyclic[0]) && !serAcyclic[0]) {
        rcScc = scc(g, isocheck.check.adya.AdyaLevels.filter(Level.READ_COMMITTED));
        rcAcyclic = !rcScc.hasCycle();
      }
      if (req.contains(Level.READ_UNCOMMITTED)) {
        ruGraph = isocheck.check.adya.AdyaLevels.writeOrders(la, g);
        if (ruGraph != g || !(serAcyclic[0] || (anySi && siAcyclic[0]) || (rcScc != null && rcAcyclic))) {
          ruScc = scc(ruGraph, Edge.WW);
          ruAcyclic = !ruScc.hasCycle();
        }
      }
      if (!rcAcyclic && violating(Level.READ_COMMITTED).isEmpty()) report(rcScc, g, Level.Family.PLAIN, false, null);
      if (!ruAcyclic && violating(Level.READ_UNCOMMITTED).isEmpty()) report(ruScc, ruGraph, Level.Family.PLAIN, false, null);
      // Make sure every violated level has a counterexample of a type that rules it out.
      for (Level l : req) {
        int fi = l.family.ordinal();
        if (!violating(l).isEmpty()) continue;
        if (l == Level.GSI) {
          if (!gsiAcyclic && gsiScc != null) witness(gsiScc, bcGsi(), gsiFilter(), true, Level.Family.COMMIT_REALTIME);
        } else if (l == Level.READ_COMMITTED) {
          if (!rcAcyclic) witness(rcScc, g, isocheck.check.adya.AdyaLevels.filter(l), false, Level.Family.PLAIN);
        } else if (l == Level.READ_UNCOMMITTED) {
          if (!ruAcyclic) witness(ruScc, ruGraph, Edge.WW, false, Level.Family.PLAIN);
        } else if (l.kind == Level.Kind.SER || l == Level.REPEATABLE_READ) {
          if (!serAcyclic[fi]) witness(ser[fi] != null ? ser[fi] : Scc.of(g, serFilter(l.family)), g, serFilter(l.family), false, Level.Family.PLAIN);
        } else if (!siAcyclic[fi]) {
          witness(si[fi] != null ? si[fi] : Scc.of(bc(), siFilter(l.family)), bc(), siFilter(l.family), true, Level.Family.PLAIN);
        }
      }
      if (cycles.truncated) stats.put("cycle-search-truncated", true);
      noteCounterexamples(stats, cycles);
      phaseStats();
      LinkedHashMap<Level, Verdict> out = new LinkedHashMap<>();
      for (Level l : req) {
        List<String> types = violating(l);
        boolean cyc = l == Level.READ_COMMITTED ? !rcAcyclic : l == Level.READ_UNCOMMITTED ? !ruAcyclic : cyclic.test(l);
        if (cyc) out.put(l, new Verdict(Verdict.Value.FALSE, null, types));
        else if (l.kind == Level.Kind.ADYA) out.put(l, verdict(l, types, new Verdict(Verdict.Value.TRUE, null, List.of())));
        else out.put(l, verdict(l, types, decided.get(l)));
      }
      return out;
    }

    /**
     * The level {@link #searched} decides first when the anomalies found so far are all there
     * are (the strongest serializable or SI level asked for that they do not rule out and skip
     * does not skip), or null.
     */
    Level firstSearched(Set<Level> req, java.util.function.Predicate<Level> skip) {
      for (Level l : Level.values()) {
        if (req.contains(l) && l.kind != Level.Kind.WEAK && violating(l).isEmpty() && !skip.test(l)) return l;
      }
      return null;
    }

    /**
     * The levels a polygraph search decides (rw-register: every one; list-append: those whose
     * known graph is acyclic; never one a pre-check or a cycle already rules out), strongest
     * first, so that a level another one implies is settled by it. Their counterexamples go in
     * weakest first: a stronger level a weaker one's counterexample already rules out (by its
     * name) adds none of its own. Statistics per level in [:stats :search].
     */
    LinkedHashMap<Level, Verdict> searched(Set<Level> req, isocheck.check.si.PolygraphSearch search,
                                           java.util.function.Predicate<Level> skip) {
      LinkedHashMap<Level, Verdict> decided = new LinkedHashMap<>();
      LinkedHashMap<String, Object> searchStats = new LinkedHashMap<>();
      java.util.EnumMap<Level, isocheck.check.si.PolygraphSearch.Outcome> outcomes = new java.util.EnumMap<>(Level.class);
      long deadline = System.nanoTime() + o.timeLimitMs * 1_000_000L;
      // The types of the counterexamples found so far: a level one of them rules out needs no
      // search of its own (strict serializability's cycle of known edges shaped
      // G-nonadjacent-item-realtime rules out strong SI: on the serializable store's 10^6
      // Jepsen-shaped history, strong SI's own check of its known graph took 0.9 s).
      // (Such a level's counterexamples are those of the outcome that ruled it out, added below
      // in its place, weakest first, when nothing weaker rules it out already.)
      java.util.Set<String> foundTypes = new java.util.TreeSet<>();
      java.util.EnumMap<Level, isocheck.check.si.PolygraphSearch.Outcome> ruledOut = new java.util.EnumMap<>(Level.class);
      for (Level l : Level.values()) {
        if (!req.contains(l) || l.kind == Level.Kind.WEAK) continue;
        if (!violating(l).isEmpty() || skip.test(l)) continue;
        if (!Level.ruledOutBy(foundTypes, l).isEmpty()) {
          for (isocheck.check.si.PolygraphSearch.Outcome oc : outcomes.values()) {
            List<String> types = new ArrayList<>();
            for (Anomaly a : oc.anomalies) types.add(a.type);
            if (oc.value == Verdict.Value.FALSE && !Level.ruledOutBy(types, l).isEmpty()) {
              ruledOut.put(l, oc);
              break;
            }
          }
          continue;
        }
        Level by = null;
        for (java.util.Map.Entry<Level, Verdict> e : decided.entrySet()) {
          if (e.getValue().value == Verdict.Value.TRUE && e.getKey().implies(l)) by = e.getKey();
        }
        if (by != null) {
          Verdict v = new Verdict(Verdict.Value.TRUE, null, List.of());
          v.witness = decided.get(by).witness;
          decided.put(l, v);
          // (In this order: Map.of's iteration order changes from one JVM to the next.)
          LinkedHashMap<String, Object> implied = new LinkedHashMap<>();
          implied.put("decided-by", new isocheck.history.Kw("implied"));
          implied.put("implied-by", new isocheck.history.Kw(by.id));
          searchStats.put(l.id, implied);
          continue;
        }
        isocheck.check.si.PolygraphSearch.Outcome oc = search.decide(l, deadline);
        outcomes.put(l, oc);
        if (oc.value == Verdict.Value.FALSE) for (Anomaly a : oc.anomalies) foundTypes.add(a.type);
        searchStats.put(l.id, oc.stats);
        Verdict v = new Verdict(oc.value, oc.reason, List.of());
        if (oc.value == Verdict.Value.TRUE) v.witness = oc.witness;
        decided.put(l, v);
      }
      if (!searchStats.isEmpty()) stats.put("search", searchStats);
      // (Repeatable read shares serializability's outcome: added once.)
      Level[] all = Level.values();
      java.util.Set<isocheck.check.si.PolygraphSearch.Outcome> added =
          java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
      for (int i = all.length - 1; i >= 0; i--) {
        isocheck.check.si.PolygraphSearch.Outcome oc = outcomes.containsKey(all[i]) ? outcomes.get(all[i]) : ruledOut.get(all[i]);
        if (oc == null || !violating(all[i]).isEmpty() || !added.add(oc)) continue;
        for (Anomaly a : oc.anomalies) anomalies.add(a);
      }
      return decided;
    }

    /** A searched level's verdict: false with the anomaly types that rule it out, else the search's. */
    Verdict verdict(Level l, List<String> types, Verdict d) {
      if (!types.isEmpty()) return new Verdict(Verdict.Value.FALSE, null, types);
      if (d != null && d.value == Verdict.Value.FALSE) return new Verdict(Verdict.Value.FALSE, null, List.of("unclassified-cycle"));
      return d;
    }

    LinkedHashMap<Level, Verdict> registerLevels(Set<Level> req, Level.Family maxFam) {
      int top = maxFam.ordinal();
      o.progress.stage("cycles");
      boolean[] acyclic = new boolean[3];
      Scc[] wr = new Scc[3];
      // First whether the strongest family's graph is acyclic, as the graph is packed (Kahn's
      // algorithm): usually it is, and so is every weaker family's and GSI's (subsets of its
      // edges), with neither the components searched nor the graph ordered for them (on the
      // serializable store's Jepsen-shaped history at 10^6, ordering the graph and its component
      // search took 0.35 s). Else the components, in the ordered graph, as before.
      boolean topAcyclic = g.acyclic(Edge.WR | Level.Family.values()[top].bits);
      for (int fi = top; fi >= 0; fi--) {
        Level.Family f = Level.Family.values()[fi];
        if (fi < top && acyclic[fi + 1]) { acyclic[fi] = true; continue; }
        if (fi == top && topAcyclic) { acyclic[fi] = true; continue; }
        wr[fi] = Scc.of(ordered(), Edge.WR | f.bits);
        acyclic[fi] = !wr[fi].hasCycle();
      }
      // Observed cycles (reads-from, process and realtime order), weakest family first; GSI's
      // (reads-from and realtime order: every such cycle enters and leaves commits legally) before
      // the realtime family's, so that each is named for the weakest level it rules out.
      // (Its edges are a subset of the realtime family's: that graph acyclic, so is GSI's. The
      // Jepsen-shaped history of an SI store at 10^6: 0.16 s not spent.)
      Scc gsiWr = req.contains(Level.GSI) && acyclic[0] && !(top == 2 && acyclic[2]) && !g.acyclic(Edge.WR | Edge.RT)
          ? Scc.of(ordered(), Edge.WR | Edge.RT) : null;
      long tc = System.nanoTime();
      for (int fi = 0; fi <= top + 1; fi++) {
        if (fi == Math.min(2, top + 1) && gsiWr != null && gsiWr.hasCycle()) report(gsiWr, g, Level.Family.COMMIT_REALTIME, false, null);
        if (fi > top) break;
        if (!acyclic[fi]) reportSer(wr[fi], Level.Family.values()[fi], false);
      }
      if (gsiWr != null || !acyclic[0] || !acyclic[top]) {
        // ([:stats :levels-ms :counterexamples]: the observed cycles' typed searches, as list-append's.)
        LinkedHashMap<String, Object> ph = new LinkedHashMap<>();
        ph.put("counterexamples", (System.nanoTime() - tc) / 1_000_000L);
        stats.put("levels-ms", ph);
      }
      // The version order: the polygraph search (isocheck.check.si). Elle's read committed and
      // read uncommitted need none (isocheck.check.adya.AdyaLevels); repeatable read needs
      // serializability's.
      isocheck.check.si.PolygraphSearch search =
          new isocheck.check.si.RegisterSearch(h, ra, o.searchShortcuts, orderedKeys, mtPolygraph).witnessAhead(witnessAhead).orders(orders)
              .witness(o.searchWitness).progress(o.progress).wanted(l -> req.contains(l) && violating(l).isEmpty());
      search.witnesses = o.certificates;
      LinkedHashMap<Level, Verdict> decided;
      try {
        decided = searched(req, search, l -> l == Level.READ_COMMITTED || l == Level.READ_UNCOMMITTED);
      } finally {
        search.close();
      }
      noteCounterexamples(stats, cycles);
      LinkedHashMap<Level, Verdict> out = new LinkedHashMap<>();
      for (Level l : req) {
        List<String> types = violating(l);
        if (l == Level.READ_COMMITTED && types.isEmpty() && !acyclic[0]) out.put(l, new Verdict(Verdict.Value.FALSE, null, List.of("G1c")));
        else if (l == Level.READ_COMMITTED || l == Level.READ_UNCOMMITTED) out.put(l, verdict(l, types, new Verdict(Verdict.Value.TRUE, null, List.of())));
        else out.put(l, verdict(l, types, decided.get(l)));
      }
      return out;
    }

    List<String> violating(Level l) { return Level.ruledOutBy(anomalies.types(), l); }

    /** The observed graph, ordered ({@link Digraph#ordered}) for component searches and their cycles. */
    Digraph ordered() { return g = g.ordered(); }

    void phaseStats() {
      LinkedHashMap<String, Object> ph = new LinkedHashMap<>();
      ph.put("scc", sccNs / 1_000_000L);
      ph.put("counterexamples", searchNs / 1_000_000L);
      ph.put("search", polygraphNs / 1_000_000L);
      stats.put("levels-ms", ph);
    }

    static String fname(Level.Family f) { return f.name().toLowerCase(java.util.Locale.ROOT); }

    // ------------------------------------------------------------------ counterexamples

    /** Typed cycles in each cyclic component of a graph over transactions (and relays). */
    void reportSer(Scc scc, Level.Family f, boolean g2) { report(scc, g, f, g2, null); }

    /** Typed cycles in each cyclic component of the begin/commit graph (snapshot isolation only). */
    void reportSi(Scc scc, Level.Family f) { report(scc, g, f, false, bc()); }

    /**
     * Typed cycles of each cyclic component, searched in the transaction graph over (g, or read
     * uncommitted's own write orders); bcg is the begin/commit graph scc is of (null: scc is of over).
     */
    private void report(Scc scc, Digraph over, Level.Family f, boolean g2, Digraph bcg) {
      cycles.report(scc, over, f, g2, bcg, f == Level.Family.COMMIT_REALTIME ? gsiFilter() : siFilter(f));
    }

    void witness(Scc scc, Digraph gr, int filter, boolean isBc, Level.Family f) { cycles.witness(scc, gr, filter, isBc, f); }

    /** The cycles reported so far, by type and steps: the families' searches can meet one cycle several times. */
    final Set<String> reported = new HashSet<>();

    /** Names a cycle found with family f's orders (Elle's names) and keeps it, once. */
    void addCycle(Cycle tc, Level.Family f) {
      String type = CycleReporter.typeName(tc, f);
      String c = CycleReporter.canonical(tc);
      // GSI's cycles are reported before the realtime family's: the same cycle keeps GSI's name.
      if (type.endsWith(Level.Family.REALTIME.suffix)
          && reported.contains(Level.Family.baseOf(type) + Level.Family.COMMIT_REALTIME.suffix + " " + c)) return;
      if (!reported.add(type + " " + c)) return;
      // (Longer than every instance kept, with the cap reached: counted, its report not built.
      // On the Jepsen-shaped list-append history at 10^5, 1,936 cycles were explained in words
      // for 16 kept per type: 64 of the counterexamples' 98 ms.)
      if (anomalies.wouldDrop(type, tc.length())) {
        anomalies.tally(type);
        return;
      }
      anomalies.add(CycleReport.of(h, steps, tc, new boolean[tc.length()], null, null, type));
    }
  }

  /** Convenience: parse level names and check. */
  public static Result check(History h, List<String> levelNames) {
    List<Level> ls = new ArrayList<>();
    for (String s : levelNames) {
      Level l = Level.parse(s);
      if (l == null) throw new IllegalArgumentException("unknown level " + s + "; known: " + Level.knownNames());
      ls.add(l);
    }
    return check(h, new CheckOptions().levels(ls));
  }
}
