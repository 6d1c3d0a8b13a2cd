package isocheck.check;

import isocheck.graph.BcGraph;
import isocheck.graph.Cycle;
import isocheck.graph.CycleFinder;
import isocheck.graph.Digraph;
import isocheck.graph.Edge;
import isocheck.graph.EdgeList;
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
import java.util.Arrays;
import java.util.EnumSet;
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
 * level's edges (for snapshot isolation, over the begin/commit split graph, {@link BcGraph}) →
 * within each cyclic component, a search for the shortest cycle of each anomaly type → for
 * snapshot isolation on list-append, the order of never-read appends ({@link UnreadOrder}).
 * Stronger graphs are checked first: when one is acyclic, every level it implies holds.
 *
 * <p>Verdicts are sound and complete. On list-append histories a level is violated iff a
 * pre-check anomaly or a cycle of its kind exists. On rw-register histories the version order is
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
    if (h.nTxns == 0) {
      // Nothing to check is not a pass: an empty or wrong file must not look like a correct database.
      LinkedHashMap<Level, Verdict> none = new LinkedHashMap<>();
      for (Level l : o.levels) none.put(l, new Verdict(Verdict.Value.UNKNOWN, h.noTxnReason, List.of()));
      return new Result(h, none, anomalies, stats);
    }
    LinkedHashMap<Level, Verdict> got = req.isEmpty() ? new LinkedHashMap<>() : strong(h, o, req, anomalies, stats);
    @SuppressWarnings("unchecked")
    java.util.Map<String, Object> ms = (java.util.Map<String, Object>) stats.computeIfAbsent("ms", k -> new LinkedHashMap<String, Object>());
    if (!weak.isEmpty()) {
      long t = System.nanoTime();
      got.putAll(isocheck.check.weak.WeakCheck.check(h, weak, o.weak, anomalies, stats));
      long wms = (System.nanoTime() - t) / 1_000_000L;
      ms.put("weak", wms);
      ms.put("total", ((Long) ms.getOrDefault("total", 0L)) + wms);
    }
    LinkedHashMap<Level, Verdict> verdicts = new LinkedHashMap<>();
    for (Level l : o.levels) verdicts.put(l, got.get(l));
    consolidate(verdicts, anomalies, h.workload);
    return new Result(h, verdicts, anomalies, stats);
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
      if (e.getValue().value != Verdict.Value.UNKNOWN || !l.implemented()) continue;
      java.util.TreeSet<String> types = new java.util.TreeSet<>();
      for (String t : anomalies.types()) if (Level.violatedBy(t, w).contains(l)) types.add(t);
      for (java.util.Map.Entry<Level, Verdict> o : decided.entrySet()) {
        if (o.getKey() != l && o.getValue().value == Verdict.Value.FALSE && l.implies(o.getKey())) types.addAll(o.getValue().anomalyTypes);
      }
      if (!types.isEmpty()) e.setValue(new Verdict(Verdict.Value.FALSE, null, new ArrayList<>(types)));
    }
  }

  /** The serializable and snapshot-isolation levels (and the unimplemented names). */
  private static LinkedHashMap<Level, Verdict> strong(History h, CheckOptions o, LinkedHashSet<Level> req, AnomalySet anomalies,
                                                      LinkedHashMap<String, Object> stats) {
    long t0 = System.nanoTime();
    Level.Family maxFam = Level.Family.PLAIN;
    boolean anySer = false, anySi = false;
    for (Level l : req) {
      if (!l.implemented()) continue;
      if (l.family.ordinal() > maxFam.ordinal()) maxFam = l.family;
      if (l.kind == Level.Kind.SER) anySer = true;
      else anySi = true;
    }
    int n = h.nTxns;
    boolean[] committed, orderedKeys = null;
    isocheck.check.si.Polygraph mtPolygraph = null;
    EdgeList es;
    Steps.DataExplainer dx;
    ListAppendAnalysis la = null;
    if (h.workload == History.Workload.APPEND) {
      la = new ListAppendAnalysis(h, Math.max(o.maxAnomaliesPerType, 1));
      anomalies.addAll(la.anomalies);
      committed = la.committed;
      es = la.edges;
      dx = new ListAppendExplainer(la);
    } else {
      // Mini-transactions first (isocheck.check.mt): linear when the history fixes every key's
      // version order; else the general search below, told which keys' orders are known.
      isocheck.check.mt.MtCheck.Outcome mt = o.miniTransactions ? isocheck.check.mt.MtCheck.check(h, o, req, anomalies, stats) : null;
      if (mt != null && mt.verdicts != null) return mt.verdicts;
      if (mt != null) {
        orderedKeys = mt.orderedKeys;
        mtPolygraph = mt.polygraph;
      }
      RegisterAnalysis ra = mt != null ? mt.ra : new RegisterAnalysis(h, Math.max(o.maxAnomaliesPerType, 1));
      anomalies.addAll(ra.anomalies);
      committed = ra.committed;
      es = ra.edges;
      dx = ra;
    }
    long committedCount = 0;
    for (boolean c : committed) if (c) committedCount++;
    stats.put("committed", committedCount);
    long t1 = System.nanoTime();

    if (maxFam.ordinal() >= Level.Family.PROCESS.ordinal()) Orders.sessionOrder(h, committed, es);
    int relays = maxFam == Level.Family.REALTIME ? Orders.realtime(h, committed, es) : 0;
    Digraph g = Digraph.of(n + relays, es);
    stats.put("edges", (long) g.edgeCount());
    if (relays > 0) stats.put("realtime-relays", (long) relays);
    long t2 = System.nanoTime();

    Run run = new Run(h, g, o, anomalies, new Steps(h, dx), stats);
    if (dx instanceof RegisterAnalysis) run.ra = (RegisterAnalysis) dx;
    run.orderedKeys = orderedKeys;
    run.mtPolygraph = mtPolygraph;
    LinkedHashMap<Level, Verdict> verdicts = h.workload == History.Workload.APPEND
        ? run.appendLevels(req, maxFam, anySer, anySi, la)
        : run.registerLevels(req, maxFam);
    long t3 = System.nanoTime();
    LinkedHashMap<String, Object> ms = new LinkedHashMap<>();
    ms.put("analysis", (t1 - t0) / 1_000_000L);
    ms.put("graph", (t2 - t1) / 1_000_000L);
    ms.put("levels", (t3 - t2) / 1_000_000L);
    ms.put("total", (t3 - t0) / 1_000_000L);
    stats.put("ms", ms);
    return verdicts;
  }

  /** One check's working state. */
  private static final class Run {
    final History h;
    final Digraph g;
    final CheckOptions o;
    final AnomalySet anomalies;
    final Steps steps;
    final LinkedHashMap<String, Object> stats;
    final int n;
    final int[] member, local;
    int stamp;
    Digraph bc;
    /** The rw-register analysis, for the version-order search. */
    RegisterAnalysis ra;
    /** Keys whose version order the history fixes, or null; the polygraph of chains to search, or null (isocheck.check.mt). */
    boolean[] orderedKeys;
    isocheck.check.si.Polygraph mtPolygraph;
    boolean truncated;
    long sccNs, searchNs, unreadNs;

    Scc scc(Digraph gr, int filter) {
      long t = System.nanoTime();
      Scc s = Scc.of(gr, filter);
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
      this.member = new int[g.n];
      this.local = new int[g.n];
    }

    static int serFilter(Level.Family f) { return Edge.DATA | f.bits; }
    static int siFilter(Level.Family f) { return Edge.WW | Edge.WR | Edge.RW | Edge.INTRA | f.bits; }

    Digraph bc() {
      if (bc == null) bc = BcGraph.of(g, n);
      return bc;
    }

    LinkedHashMap<Level, Verdict> appendLevels(Set<Level> req, Level.Family maxFam, boolean anySer, boolean anySi,
                                               ListAppendAnalysis la) {
      int top = maxFam.ordinal();
      Scc[] ser = new Scc[3], si = new Scc[3];
      boolean[] serAcyclic = new boolean[3], siAcyclic = new boolean[3];
      for (int fi = top; fi >= 0; fi--) {
        Level.Family f = Level.Family.values()[fi];
        if (fi < top && serAcyclic[fi + 1]) serAcyclic[fi] = true;
        else {
          ser[fi] = scc(g, serFilter(f));
          serAcyclic[fi] = !ser[fi].hasCycle();
        }
        if (anySi) {
          if (serAcyclic[fi] || (fi < top && siAcyclic[fi + 1])) siAcyclic[fi] = true;
          else {
            si[fi] = scc(bc(), siFilter(f));
            siAcyclic[fi] = !si[fi].hasCycle();
          }
        }
      }
      // Counterexamples, weakest family first, so each cycle gets its weakest name.
      long ts = System.nanoTime();
      for (int fi = 0; fi <= top; fi++) {
        Level.Family f = Level.Family.values()[fi];
        if (anySer && !serAcyclic[fi]) {
          stats.put("cyclic-components-" + fname(f), (long) ser[fi].cyclicCount);
          reportSer(ser[fi], f, true);
        } else if (anySi && !siAcyclic[fi]) {
          stats.put("cyclic-components-" + fname(f), (long) si[fi].cyclicCount);
          reportSi(si[fi], f);
        }
      }
      searchNs += System.nanoTime() - ts;
      // Snapshot isolation: the order of appends no read observed.
      long tu0 = System.nanoTime();
      UnreadOrder.Outcome[] uo = new UnreadOrder.Outcome[3];
      if (anySi) {
        int multi = 0;
        for (int[] u : la.unread) if (u != null && u.length >= 2) multi++;
        if (multi > 0) stats.put("keys-with-unordered-unread-appends", (long) multi);
        boolean pre = hasPrecheck();
        UnreadOrder.Outcome prev = null;
        for (int fi = 0; fi <= top && multi > 0 && !pre; fi++) {
          Level.Family f = Level.Family.values()[fi];
          boolean wanted = false;
          for (Level l : req) if (l.implemented() && l.kind == Level.Kind.SI && l.family.ordinal() >= fi) wanted = true;
          if (!wanted || !siAcyclic[fi]) continue;
          if (serAcyclic[fi]) continue; // a topological order of the acyclic SER graph orders them
          if (prev != null && prev.status == UnreadOrder.Status.VIOLATED) {
            uo[fi] = prev;
            continue;
          }
          uo[fi] = UnreadOrder.resolve(bc(), siFilter(f), n, la.unread, o.unreadBudget, completionHint());

          if (uo[fi].status == UnreadOrder.Status.VIOLATED) reportUnread(uo[fi], la);
          prev = uo[fi];
        }
      }
      unreadNs += System.nanoTime() - tu0;
      // Make sure every violated level has a counterexample of a type that rules it out.
      for (Level l : req) {
        if (!l.implemented()) continue;
        int fi = l.family.ordinal();
        boolean cyc = l.kind == Level.Kind.SER ? !serAcyclic[fi] : !siAcyclic[fi];
        if (cyc && violating(l).isEmpty()) {
          if (l.kind == Level.Kind.SER) witness(ser[fi] != null ? ser[fi] : Scc.of(g, serFilter(l.family)), g, serFilter(l.family), false);
          else witness(si[fi] != null ? si[fi] : Scc.of(bc(), siFilter(l.family)), bc(), siFilter(l.family), true);
        }
      }
      if (truncated) stats.put("cycle-search-truncated", true);
      phaseStats();
      LinkedHashMap<Level, Verdict> out = new LinkedHashMap<>();
      for (Level l : req) {
        if (!l.implemented()) {
          out.put(l, unimplemented(l));
          continue;
        }
        int fi = l.family.ordinal();
        List<String> types = violating(l);
        boolean cyc = l.kind == Level.Kind.SER ? !serAcyclic[fi] : !siAcyclic[fi];
        if (cyc || !types.isEmpty()) out.put(l, new Verdict(Verdict.Value.FALSE, null, types));
        else if (l.kind == Level.Kind.SI && uo[fi] != null && uo[fi].status == UnreadOrder.Status.UNKNOWN) {
          out.put(l, new Verdict(Verdict.Value.UNKNOWN, uo[fi].reason, List.of()));
        } else out.put(l, new Verdict(Verdict.Value.TRUE, null, List.of()));
      }
      return out;
    }

    LinkedHashMap<Level, Verdict> registerLevels(Set<Level> req, Level.Family maxFam) {
      int top = maxFam.ordinal();
      boolean[] acyclic = new boolean[3];
      for (int fi = top; fi >= 0; fi--) {
        Level.Family f = Level.Family.values()[fi];
        if (fi < top && acyclic[fi + 1]) { acyclic[fi] = true; continue; }
        Scc s = Scc.of(g, Edge.WR | f.bits);
        acyclic[fi] = !s.hasCycle();
        if (!acyclic[fi]) reportSer(s, f, false);
      }
      // The version order: the polygraph search (isocheck.check.si), strongest level first, so
      // that a level another one implies is settled by it.
      LinkedHashMap<Level, Verdict> decided = new LinkedHashMap<>();
      isocheck.check.si.RegisterSearch search = null;
      LinkedHashMap<String, Object> searchStats = new LinkedHashMap<>();
      java.util.EnumMap<Level, isocheck.check.si.RegisterSearch.Outcome> outcomes = new java.util.EnumMap<>(Level.class);
      long deadline = System.nanoTime() + o.timeLimitMs * 1_000_000L;
      for (Level l : Level.values()) {
        if (!req.contains(l) || !l.implemented()) continue;
        if (!violating(l).isEmpty()) continue;
        Level by = null;
        for (java.util.Map.Entry<Level, Verdict> e : decided.entrySet()) {
          if (e.getValue().value == Verdict.Value.TRUE && e.getKey().implies(l)) by = e.getKey();
        }
        if (by != null) {
          decided.put(l, new Verdict(Verdict.Value.TRUE, null, List.of()));
          continue;
        }
        if (search == null) search = new isocheck.check.si.RegisterSearch(h, ra, o.searchShortcuts, orderedKeys, mtPolygraph);
        isocheck.check.si.RegisterSearch.Outcome oc = search.decide(l, deadline);
        outcomes.put(l, oc);
        searchStats.put(l.id, oc.stats);
        decided.put(l, new Verdict(oc.value, oc.reason, List.of()));
      }
      if (!searchStats.isEmpty()) stats.put("search", searchStats);
      // Counterexamples weakest level first: a stronger level a weaker one's counterexample
      // already rules out (by its name) adds none of its own.
      Level[] all = Level.values();
      for (int i = all.length - 1; i >= 0; i--) {
        isocheck.check.si.RegisterSearch.Outcome oc = outcomes.get(all[i]);
        if (oc == null || !violating(all[i]).isEmpty()) continue;
        for (Anomaly a : oc.anomalies) anomalies.add(a);
      }
      LinkedHashMap<Level, Verdict> out = new LinkedHashMap<>();
      for (Level l : req) {
        if (!l.implemented()) {
          out.put(l, unimplemented(l));
          continue;
        }
        List<String> types = violating(l);
        Verdict d = decided.get(l);
        if (!types.isEmpty()) out.put(l, new Verdict(Verdict.Value.FALSE, null, types));
        else if (d != null && d.value == Verdict.Value.FALSE) {
          out.put(l, new Verdict(Verdict.Value.FALSE, null, List.of("unclassified-cycle")));
        } else out.put(l, d);
      }
      return out;
    }

    Verdict unimplemented(Level l) {
      return new Verdict(Verdict.Value.UNKNOWN, l.id + " is not implemented yet (isocheck decides strict-serializable, "
          + "strong-session-serializable, serializable, strong-snapshot-isolation, strong-session-snapshot-isolation, "
          + "snapshot-isolation, tcc, ra, rc and ci)", List.of());
    }

    List<String> violating(Level l) {
      List<String> r = new ArrayList<>();
      for (String t : anomalies.types()) if (Level.violatedBy(t).contains(l)) r.add(t);
      java.util.Collections.sort(r);
      return r;
    }

    boolean hasPrecheck() {
      for (String t : anomalies.types()) {
        EnumSet<Level> v = Level.violatedBy(t);
        if (v.contains(Level.SERIALIZABLE) && v.contains(Level.SNAPSHOT_ISOLATION) && v.contains(Level.STRICT_SERIALIZABLE) && !t.startsWith("G0") && !t.startsWith("G1c") && !t.startsWith("G-")) return true;
      }
      return false;
    }

    /** Completion position per txn (txns never completed last, by invocation): the order to try first. */
    long[] completionHint() {
      long[] hint = new long[n];
      for (int t = 0; t < n; t++) {
        long c = h.completeOrdinal(t);
        hint[t] = c >= 0 ? c : Long.MAX_VALUE / 2 + Math.max(0, h.invokeOrdinal(t));
      }
      return hint;
    }

    void phaseStats() {
      LinkedHashMap<String, Object> ph = new LinkedHashMap<>();
      ph.put("scc", sccNs / 1_000_000L);
      ph.put("counterexamples", searchNs / 1_000_000L);
      ph.put("unread-order", unreadNs / 1_000_000L);
      stats.put("levels-ms", ph);
    }

    static String fname(Level.Family f) { return f.name().toLowerCase(java.util.Locale.ROOT); }

    // ------------------------------------------------------------------ counterexamples

    List<CycleFinder.Spec> specs(Level.Family f, boolean g2) {
      int nb = f.newBits(), fb = f.bits;
      List<CycleFinder.Spec> l = new ArrayList<>();
      l.add(new CycleFinder.Spec(Edge.WW | fb, nb, false, CycleFinder.Rw.NONE, nb != 0 ? nb : Edge.WW));
      l.add(new CycleFinder.Spec(Edge.WW | Edge.WR | fb, nb, true, CycleFinder.Rw.NONE, nb != 0 ? nb : Edge.WR));
      l.add(new CycleFinder.Spec(Edge.DATA | fb, nb, false, CycleFinder.Rw.EXACTLY_ONE, nb != 0 ? nb : Edge.RW));
      l.add(new CycleFinder.Spec(Edge.DATA | fb, nb, false, CycleFinder.Rw.NONADJACENT, Edge.RW));
      if (g2) l.add(new CycleFinder.Spec(Edge.DATA | fb, nb, false, CycleFinder.Rw.AT_LEAST_ONE, Edge.RW));
      return l;
    }

    /** Typed cycles in each cyclic component of a graph over transactions (and relays). */
    void reportSer(Scc scc, Level.Family f, boolean g2) { report(scc, f, g2, false); }

    /** Typed cycles in each cyclic component of the begin/commit graph (snapshot isolation only). */
    void reportSi(Scc scc, Level.Family f) { report(scc, f, false, true); }

    /**
     * For each cyclic component (the smallest first, up to maxComponents): a cycle of each anomaly
     * type; if the typed searches find none within their budget, some cycle of the component.
     */
    private void report(Scc scc, Level.Family f, boolean g2, boolean isBc) {
      List<int[]> comps = components(scc, isBc ? bc() : null);
      int searched = 0;
      for (int[] nodes : comps) {
        if (searched++ >= o.maxComponents) {
          truncated = true;
          break;
        }
        stamp++;
        for (int v : nodes) member[v] = stamp;
        if (searchComponent(nodes, f, g2)) continue;
        int t = firstTxn(nodes);
        if (isBc) {
          int cb = scc.comp[BcGraph.begin(t)], cc = scc.comp[BcGraph.commit(t)];
          witnessIn(scc, bc(), siFilter(f), scc.cyclic[cb] ? cb : cc, true);
        } else {
          Cycle c = CycleFinder.anyCycle(g, member, stamp, t, serFilter(f) & (g2 ? ~0 : ~Edge.RW));
          if (c != null) addCycle(c.withoutRelays(n), -1, null, null);
        }
      }
    }

    private int firstTxn(int[] nodes) {
      for (int v : nodes) if (v < n) return v;
      return nodes[0];
    }

    boolean searchComponent(int[] nodes, Level.Family f, boolean g2) {
      CycleFinder cf = new CycleFinder(g, member, stamp, nodes, local, o.searchBudget);
      Set<String> found = new HashSet<>();
      for (CycleFinder.Spec spec : specs(f, g2)) {
        Cycle c = cf.find(spec);
        if (c == null) continue;
        // A breadth-first search over (node, state) may close a walk that repeats a node: report
        // its simple cycles instead, each under its own name.
        for (Cycle sc : c.withoutRelays(n).simpleCycles()) {
          if (found.add(sc.anomalyType())) addCycle(sc, -1, null, null);
        }
      }
      return !found.isEmpty();
    }

    /** The cycles reported so far, by type and steps: the families' searches can meet one cycle several times. */
    final Set<String> reported = new HashSet<>();

    void addCycle(Cycle tc, int hypothetical, String note, java.util.Map<String, Object> extra) {
      if (!reported.add(tc.anomalyType() + " " + canonical(tc))) return;
      anomalies.add(CycleReport.of(h, steps, tc, hypothetical, note, extra));
    }

    /** A cycle's nodes and labels from its smallest node on: the same for every rotation of it. */
    static String canonical(Cycle c) {
      int k = c.nodes.length, at = 0;
      for (int i = 1; i < k; i++) if (c.nodes[i] < c.nodes[at]) at = i;
      StringBuilder sb = new StringBuilder();
      for (int j = 0; j < k; j++) {
        int i = (at + j) % k;
        sb.append(c.nodes[i]).append(':').append(c.labels[i]).append(' ');
      }
      return sb.toString();
    }

    /**
     * The cyclic components' nodes in the transaction graph. For a BC graph, a component's
     * transactions are the owners of its begin and commit nodes.
     */
    List<int[]> components(Scc scc, Digraph bcg) {
      int nn = bcg == null ? g.n : bcg.n;
      int[] cnt = new int[scc.count + 1];
      for (int v = 0; v < nn; v++) if (scc.cyclic[scc.comp[v]]) cnt[scc.comp[v] + 1]++;
      for (int c = 0; c < scc.count; c++) cnt[c + 1] += cnt[c];
      int[] at = Arrays.copyOf(cnt, scc.count);
      int[] byComp = new int[cnt[scc.count]];
      for (int v = 0; v < nn; v++) if (scc.cyclic[scc.comp[v]]) byComp[at[scc.comp[v]]++] = v;
      List<int[]> out = new ArrayList<>();
      int[] seen = new int[g.n];
      for (int c = 0; c < scc.count; c++) {
        if (!scc.cyclic[c]) continue;
        int[] ns = new int[cnt[c + 1] - cnt[c]];
        int k = 0;
        for (int i = cnt[c]; i < cnt[c + 1]; i++) {
          int v = bcg == null ? byComp[i] : BcGraph.owner(byComp[i], n);
          if (seen[v] == c + 1) continue;
          seen[v] = c + 1;
          ns[k++] = v;
        }
        out.add(Arrays.copyOf(ns, k));
      }
      // Smallest components first: they make the clearest counterexamples.
      out.sort((x, y) -> Integer.compare(x.length, y.length));
      return out;
    }

    /** Some cycle of the first cyclic component of (gr, filter), as a counterexample. */
    void witness(Scc scc, Digraph gr, int filter, boolean isBc) {
      for (int c = 0; c < scc.count; c++) {
        if (scc.cyclic[c]) {
          witnessIn(scc, gr, filter, c, isBc);
          return;
        }
      }
    }

    void witnessIn(Scc scc, Digraph gr, int filter, int c, boolean isBc) {
      Cycle cy = CycleFinder.anyCycleIn(gr, scc, c, filter);
      if (cy == null) return;
      Cycle tc = isBc ? BcGraph.toTxnCycle(cy, n).withoutRelays(n) : cy.withoutRelays(n);
      addCycle(tc, -1, null, null);
    }

    void reportUnread(UnreadOrder.Outcome u, ListAppendAnalysis la) {
      if (u.a < 0) {
        // The forced orders of never-read appends close a cycle by themselves.
        Cycle c = BcGraph.toTxnCycle(u.forcedCycle, n).withoutRelays(n);
        String note = "Appends no read observed have an unknown order, but here every order is forced: for each step "
            + "marked as an order of never-read appends, the opposite order closes a cycle of its own. Together they "
            + "close this one:";
        anomalies.add(CycleReport.of(h, steps, c, hypothetical(c), note, Anomaly.map("forced-orders", (long) u.forced)));
        return;
      }
      Cycle c1 = BcGraph.toTxnCycle(u.first, n).withoutRelays(n);
      Cycle c2 = BcGraph.toTxnCycle(u.second, n).withoutRelays(n);
      int a = u.a, b = u.b;
      // The violation needs both cycles, so it counts only for levels whose graphs hold both:
      // name it after the one that needs the stronger orders.
      if (Level.violatedBy(c2.anomalyType()).size() < Level.violatedBy(c1.anomalyType()).size()) {
        Cycle t = c1;
        c1 = c2;
        c2 = t;
        int x = a;
        a = b;
        b = x;
      }
      int key = -1;
      for (int k = 0; k < la.unread.length && key < 0; k++) {
        int[] us = la.unread[k];
        if (us == null) continue;
        boolean ha = false, hb = false;
        for (int x : us) {
          ha |= x == a;
          hb |= x == b;
        }
        if (ha && hb) key = k;
      }
      Anomaly second = CycleReport.of(h, steps, c2, hypothetical(c2), null, null);
      String note = h.name(a) + " and " + h.name(b) + " both appended to key " + (key >= 0 ? h.keyStr(key) : "?")
          + " and both committed, but no read observed either append, so which came first is unknown. Snapshot "
          + "isolation lets one writer of a key commit only before the other begins, and either order closes a cycle."
          + " If " + h.name(a) + "'s append came first:";
      java.util.Map<String, Object> extra = Anomaly.map("key", key >= 0 ? h.key(key) : null,
          "unordered", isocheck.report.Data.ops(h, a, b), "alternative", second.data);
      Anomaly first = CycleReport.of(h, steps, c1, hypothetical(c1), note, extra);
      anomalies.add(new Anomaly(first.type, first.txns, first.data,
          first.explanation + "\nIf " + h.name(b) + "'s came first instead:\n" + second.explanation, first.cycle));
    }

    /** The steps of a cycle that are orders of never-read appends rather than observed dependencies. */
    private boolean[] hypothetical(Cycle c) {
      boolean[] hyp = new boolean[c.length()];
      for (int i = 0; i < c.length(); i++) {
        int a = c.nodes[i], b = c.nodes[(i + 1) % c.length()];
        hyp[i] = c.labels[i] == Edge.WW && (g.maskOf(a, b) & Edge.WW) == 0;
      }
      return hyp;
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

  static EnumSet<Level> implementedLevels() {
    EnumSet<Level> s = EnumSet.noneOf(Level.class);
    for (Level l : Level.values()) if (l.implemented()) s.add(l);
    return s;
  }
}
