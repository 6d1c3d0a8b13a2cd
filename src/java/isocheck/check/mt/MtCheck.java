package isocheck.check.mt;

import isocheck.check.CheckOptions;
import isocheck.check.Checker;
import isocheck.check.Level;
import isocheck.check.Verdict;
import isocheck.graph.BcGraph;
import isocheck.graph.Cycle;
import isocheck.graph.Digraph;
import isocheck.graph.Edge;
import isocheck.graph.Scc;
import isocheck.history.History;
import isocheck.history.Kw;
import isocheck.order.RegisterAnalysis;
import isocheck.report.Anomaly;
import isocheck.report.AnomalySet;
import isocheck.report.CycleReport;
import isocheck.report.Steps;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The serializable and snapshot-isolation levels of a mini-transaction history in linear time:
 * MTC (ext. version) §IV-B Algorithm 1, CheckSER, CheckSI and CheckSSER, with the Theorem 1-2
 * optimisations (only the immediate write-write edges of {@link MtAnalysis}, and session order
 * between consecutive transactions only).
 *
 * <ol>
 * <li>The Divergence check first, for every level (Lemma 1: a lost update violates SI, hence SER
 *     and SSER; and each reader of a diverged version would otherwise anti-depend on every
 *     sibling).
 * <li>Serializable: SO ∪ WR ∪ WW ∪ RW acyclic (CheckSER; without SO for {@code serializable},
 *     whose name carries no session order, with it for {@code strong-session-serializable}).
 * <li>Snapshot isolation: (SO ∪ WR ∪ WW) ; RW? acyclic (CheckSI, Cerone–Gotsman), decided on the
 *     begin/commit split graph ({@link BcGraph}), which has a path for each composed edge and a
 *     cycle exactly when the composition has one, in linear size where the composition has
 *     in-degree × out-degree edges per transaction.
 * <li>Strict serializability and strong SI: the same with realtime order, through the relay
 *     encoding of {@link Orders#realtime} (O(n) edges, where CheckSSER adds Θ(n²)).
 * </ol>
 *
 * <p>This is complete only when every key's version order is known ({@link MtAnalysis}); when
 * some key's is not, and no pre-check anomaly or lost update already violates every level asked
 * for, the general search decides the history, with the known keys' orders given to it
 * ({@link Outcome#orderedKeys}). Counterexamples are the shortest cycles of each Adya type in
 * each cyclic component, named after MTC's Table I ({@link TableI}).
 */
public final class MtCheck {
  private MtCheck() {}

  /** The levels this checker decides. */
  static final EnumSet<Level> DECIDES = EnumSet.of(Level.STRICT_SERIALIZABLE, Level.STRONG_SESSION_SERIALIZABLE,
      Level.SERIALIZABLE, Level.STRONG_SNAPSHOT_ISOLATION, Level.STRONG_SESSION_SNAPSHOT_ISOLATION, Level.SNAPSHOT_ISOLATION);

  /** What the MT checker did. */
  public static final class Outcome {
    /** The verdicts, or null when the general checkers decide. */
    public final LinkedHashMap<Level, Verdict> verdicts;
    /** The rw-register pre-checks (for the general checkers: computed once). */
    public final RegisterAnalysis ra;
    /** Per key: whether the history fixes its version order (the general search need not search it). */
    public final boolean[] orderedKeys;
    /**
     * For the general search, when the unordered keys' chains are rooted in {@code :info}
     * transactions (not blind writes): the polygraph of their chains' orders
     * ({@link ChainPolygraph}); else null (the polygraph of writers).
     */
    public final isocheck.check.si.Polygraph polygraph;

    Outcome(LinkedHashMap<Level, Verdict> verdicts, RegisterAnalysis ra, boolean[] orderedKeys,
            isocheck.check.si.Polygraph polygraph) {
      this.verdicts = verdicts;
      this.ra = ra;
      this.orderedKeys = orderedKeys;
      this.polygraph = polygraph;
    }
  }

  /**
   * Decides the requested levels of an rw-register history it can (the serializable and SI
   * levels other than GSI; the general checkers decide the others, given its verdicts), adding
   * anomalies and [:stats :mt] (which path decides, and why); else returns an outcome without
   * verdicts and adds no anomaly.
   */
  public static Outcome check(History h, CheckOptions o, Set<Level> requested, AnomalySet anomalies, Map<String, Object> stats) {
    return check(h, o, requested, anomalies, stats, null);
  }

  /** As above, telling {@code preChecked} (when not null) the pre-checks as soon as they are done, before the chains. */
  public static Outcome check(History h, CheckOptions o, Set<Level> requested, AnomalySet anomalies, Map<String, Object> stats,
                              java.util.function.Consumer<RegisterAnalysis> preChecked) {
    EnumSet<Level> req = EnumSet.noneOf(Level.class);
    for (Level l : requested) if (DECIDES.contains(l)) req.add(l);
    long t0 = System.nanoTime();
    int cap = Math.max(o.maxAnomaliesPerType, 1);
    RegisterAnalysis ra = new RegisterAnalysis(h, cap);
    if (preChecked != null) preChecked.accept(ra);
    long tr = System.nanoTime();
    MtAnalysis mt = new MtAnalysis(h, ra, cap);
    Map<String, Object> ms = mt.stats();
    // (In this order: Map.of's iteration order changes from one JVM to the next.)
    LinkedHashMap<String, Object> times = new LinkedHashMap<>();
    times.put("pre-checks", (tr - t0) / 1_000_000L);
    times.put("chains", (System.nanoTime() - tr) / 1_000_000L);
    ms.put("ms", times);
    stats.put("mt", ms);
    if (req.isEmpty()) {
      general(ms, "no level asked for is one the mini-transaction checker decides (gsi and Elle's read committed, read "
          + "uncommitted and repeatable read are decided by the general checkers)");
      return new Outcome(null, ra, mt.orderedByRmw, null);
    }
    boolean ruledOut = true;
    for (Level l : req) {
      boolean out = !mt.divergences.isEmpty();
      for (String t : ra.anomalies.types()) out |= Level.violatedBy(t).contains(l);
      ruledOut &= out;
    }
    if (mt.unorderedKeys > 0 && !ruledOut) {
      String why = String.format("%,d of %,d keys have no version order in the history (%s)", mt.unorderedKeys, mt.nKeys,
          mt.unorderedExample);
      if (!ChainPolygraph.applies(mt)) {
        general(ms, why + "; the general search decides them, given the order of the other keys");
        return new Outcome(null, ra, mt.orderedByRmw, null);
      }
      long tp = System.nanoTime();
      isocheck.check.si.Polygraph p = ChainPolygraph.build(mt);
      ms.put("chain-constraints", (long) p.constraints());
      ms.put("chain-polygraph-ms", (System.nanoTime() - tp) / 1_000_000L);
      ms.put("path", new Kw("chains"));
      ms.put("reason", why + "; the general search decides the order of their chains of read-modify-writes");
      return new Outcome(null, ra, mt.ordered, p);
    }
    ms.put("path", new Kw("fast"));
    ms.put("reason", mt.unorderedKeys == 0
        ? "every key's version order is fixed by its read-modify-writes (MTC Algorithm 1)"
        : String.format("%,d keys have no version order in the history, but %s already violate every level asked for",
            mt.unorderedKeys, mt.divergences.isEmpty() ? "pre-check anomalies" : "lost updates"));
    for (String t : ra.anomalies.types()) {
      List<Anomaly> kept = ra.anomalies.get(t);
      for (Anomaly a : kept) anomalies.add(TableI.named(a, TableI.ofPrecheck(h, a)));
      for (long i = kept.size(); i < ra.anomalies.count(t); i++) anomalies.tally(t);
    }
    for (String t : mt.divergences.types()) {
      List<Anomaly> kept = mt.divergences.get(t);
      for (Anomaly a : kept) anomalies.add(a);
      for (long i = kept.size(); i < mt.divergences.count(t); i++) anomalies.tally(t);
    }
    Checker.putCommitted(stats, ra.committed);
    long t1 = System.nanoTime();

    Level.Family top = Level.Family.PLAIN;
    for (Level l : req) if (l.family.ordinal() > top.ordinal()) top = l.family;
    Digraph g = Checker.observedGraph(h, ra.committed, mt.edges(), top.ordinal() >= Level.Family.PROCESS.ordinal(),
        top == Level.Family.REALTIME, stats);
    long t2 = System.nanoTime();

    Levels lv = new Levels(h, o, g, mt, anomalies, stats, t0);
    lv.committed = ra.committed;
    LinkedHashMap<Level, Verdict> verdicts = lv.decide(req, top);
    Checker.putStageMs(stats, t0, t1, t2, System.nanoTime());
    return new Outcome(verdicts, ra, mt.ordered, null);
  }

  private static void general(Map<String, Object> ms, String reason) {
    ms.put("path", new Kw("general"));
    ms.put("reason", reason);
  }

  /** The acyclicity tests per level, and counterexamples. */
  private static final class Levels {
    final History h;
    final CheckOptions o;
    final Digraph g;
    final MtAnalysis mt;
    final AnomalySet anomalies;
    final Map<String, Object> stats;
    final Steps steps;
    final int n;
    /** Typed cycles of cyclic components (the general checker's search), named here by {@link #add}. */
    final isocheck.check.CycleReporter cycles;
    Digraph bc;
    final Set<String> reported = new HashSet<>();
    /** Which transactions committed (the analysis'), for the certificates. */
    boolean[] committed;

    Levels(History h, CheckOptions o, Digraph g, MtAnalysis mt, AnomalySet anomalies, Map<String, Object> stats, long t0) {
      this.h = h;
      this.o = o;
      this.g = g;
      this.mt = mt;
      this.anomalies = anomalies;
      this.stats = stats;
      this.steps = new Steps(h, mt);
      this.n = h.nTxns;
      this.cycles = new isocheck.check.CycleReporter(n, g.n, o, (c, f) -> add(c)).checkStarted(t0);
    }

    static int serFilter(Level.Family f) { return isocheck.check.CycleReporter.serFilter(f); }

    /**
     * v (l holds), with its witness: a topological order of l's graph (every key's version order
     * is fixed, so its edges are all the level's), the result's :certificates.
     */
    Verdict certified(Level l, Verdict v) {
      if (!o.certificates || committed == null) return v;
      boolean si = l.kind == Level.Kind.SI;
      int[] order = si ? isocheck.check.Witness.topological(bc(), isocheck.check.CycleReporter.siFilter(l.family))
          : isocheck.check.Witness.topological(g, serFilter(l.family));
      if (order != null) v.witness = new isocheck.check.Witness(si, order, committed);
      return v;
    }

    static int siFilter(Level.Family f) { return isocheck.check.CycleReporter.siFilter(f); }

    Digraph bc() {
      if (bc == null) bc = BcGraph.of(g, n);
      return bc;
    }

    LinkedHashMap<Level, Verdict> decide(Set<Level> req, Level.Family topFam) {
      boolean anySi = false;
      for (Level l : req) anySi |= l.kind == Level.Kind.SI;
      int top = topFam.ordinal();
      isocheck.check.CycleReporter.ByFamily fam = new isocheck.check.CycleReporter.ByFamily(top, anySi,
          (f, in) -> Scc.of(g, serFilter(f), in), (f, in) -> Scc.of(BcGraph.of(g, n, false, in), siFilter(f), BcGraph.lift(in, n, 2 * n + (g.n - n))));
      Scc[] ser = fam.ser, si = fam.si;
      boolean[] serOk = fam.serAcyclic, siOk = fam.siAcyclic;
      // Counterexamples weakest family first, so that each cycle gets its weakest name.
      for (int fi = 0; fi <= top; fi++) {
        Level.Family f = Level.Family.values()[fi];
        if (!serOk[fi]) cycles.report(ser[fi], g, f, true, null, siFilter(f));
        else if (anySi && !siOk[fi]) cycles.report(si[fi], g, f, false, bc(), siFilter(f));
      }
      for (Level l : req) {
        int fi = l.family.ordinal();
        boolean cyclic = l.kind == Level.Kind.SER ? !serOk[fi] : !siOk[fi];
        if (cyclic && violating(l).isEmpty()) {
          if (l.kind == Level.Kind.SER) cycles.witness(ser[fi] != null ? ser[fi] : Scc.of(g, serFilter(l.family)), g, serFilter(l.family), false, l.family);
          else cycles.witness(si[fi] != null ? si[fi] : Scc.of(bc(), siFilter(l.family)), bc(), siFilter(l.family), true, l.family);
        }
      }
      if (cycles.truncated) stats.put("cycle-search-truncated", true);
      isocheck.check.Checker.noteCounterexamples(stats, cycles);
      LinkedHashMap<Level, Verdict> out = new LinkedHashMap<>();
      for (Level l : req) {
        int fi = l.family.ordinal();
        boolean cyclic = l.kind == Level.Kind.SER ? !serOk[fi] : !siOk[fi];
        List<String> types = violating(l);
        if (cyclic || !types.isEmpty()) out.put(l, new Verdict(Verdict.Value.FALSE, null, types));
        else out.put(l, certified(l, new Verdict(Verdict.Value.TRUE, null, List.of())));
      }
      return out;
    }

    List<String> violating(Level l) { return Level.ruledOutBy(anomalies.types(), l); }

    /**
     * Adds a cycle over transactions as an anomaly (once per type and steps), with its Table I
     * name. A write-write step a read backs is named as that read; one that no read backs (the
     * initial chain's last writer before the key's one other chain: a fact under the
     * serializable and SI levels only) counts as the
     * anti-dependency it would be in the other order, so the type claims no weak level that a
     * cycle of reads and session order would (rw-register G0 and G1c do, {@link Level#violatedBy}).
     */
    void add(Cycle tc) {
      if (!reported.add(tc.anomalyType() + " " + isocheck.check.CycleReporter.canonical(tc))) return;
      String named = null;
      String type = tc.anomalyType();
      if (type.startsWith("G0") || type.startsWith("G1c")) {
        int k = tc.length();
        int[] ls = tc.labels.clone();
        boolean changed = false;
        for (int i = 0; i < k; i++) {
          int a = tc.nodes[i], b = tc.nodes[(i + 1) % k];
          if (ls[i] != Edge.WW || a >= n || b >= n) continue;
          // A write-write step a read backs (b read a's version, then wrote the key) is that read
          // too: a cycle of them is one of reads (G1c), which no version order escapes; as G0 it
          // would claim Elle's read uncommitted, which on registers orders versions freely.
          ls[i] = (g.maskOf(a, b) & Edge.WR) == 0 ? Edge.RW : Edge.WR;
          changed = true;
        }
        if (changed) named = new Cycle(tc.nodes, ls).anomalyType();
      }
      Anomaly a = CycleReport.of(h, steps, tc, new boolean[tc.length()], null, null, named);
      anomalies.add(TableI.named(a, TableI.ofCycle(tc, mt)));
    }
  }
}
