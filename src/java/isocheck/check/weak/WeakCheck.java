package isocheck.check.weak;

import isocheck.check.Level;
import isocheck.check.Verdict;
import isocheck.check.Witness;
import isocheck.clock.ChainClocks;
import isocheck.graph.Digraph;
import isocheck.graph.Edge;
import isocheck.graph.Scc;
import isocheck.history.History;
import isocheck.history.Kw;
import isocheck.report.AnomalySet;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Decides the weak levels CI, RC, RA and TCC (Plume, OOPSLA'24: Defs 3–6, Thms 2–5) on
 * rw-register and list-append histories, soundly and completely, and explains every violation as
 * one of Plume's fourteen TAPs.
 *
 * <p>Pipeline: {@link WeakHistory} (committed set, reads-from, the intra-transaction TAPs a–f and
 * j, the list version order) → {@link CausalOrder} (CO with vector or tree clocks; TAP g) →
 * {@link CommitOrder} (per level, the commit-order edges its axiom forces, and one
 * acyclicity test of CO ∪ version order ∪ those edges: transaction-id order when every edge points
 * forward in it, else a strongly-connected-components pass) → classification of
 * each forced edge that lies on a cycle into the most specific TAP (h, i, k–n), which runs only
 * once a violation is known, so valid histories pay nothing for it.
 *
 * <p>Verdicts: CI = no j; RC = none of a–i; RA = none of a–l; TCC = none of a–n (Plume Table 2);
 * the list-append patterns (incompatible order, duplicates, a cycle of version and causal order)
 * rule out RC, RA and TCC. A level's verdict comes from its own graph, never from another
 * level's edges filtered by label (pitfall 1).
 */
public final class WeakCheck {
  private WeakCheck() {}

  public static final class Options {
    /** "vector" or "tree". */
    public String clocks = "vector";
    /** Find every anomaly (default, as in Plume's completeness experiment) or stop at the first per level. */
    public boolean stopAtFirst = false;
    /**
     * Use transaction-id order when it is a topological order of a level's graph (the common
     * case), instead of a strongly-connected-components pass. Both are exact; tests turn this off
     * to compare them.
     */
    public boolean idOrder = true;
    /**
     * Let a transaction continue a chain of causal order other than its session's (a crashed
     * process's successor takes over its chain), so clocks grow with the width of causal order,
     * not with the number of processes. Both are exact; tests turn this off to compare them.
     */
    public boolean mergeChains = true;
    /**
     * Decide TCC on list-append by the version order when no read knows a writer ranked after
     * the one it read ({@link CommitOrder#listCausalWithoutForcedEdges}), without building the
     * forced edges. Both are exact; tests turn this off to compare them.
     */
    public boolean versionOrder = true;
    /**
     * Keep, for each level that holds, a commit order that shows it (the result's {@code
     * :certificates}, {@code :commit-order}): transaction-id order when it is a topological order
     * of the level's graph, else one found on that graph. {@code CheckOptions.certificates} sets it.
     */
    public boolean certificates = true;
  }

  private static Tap.WeakLevel weak(Level l) {
    switch (l) {
      case CI: return Tap.WeakLevel.CI;
      case RC: return Tap.WeakLevel.RC;
      case RA: return Tap.WeakLevel.RA;
      case TCC: return Tap.WeakLevel.TCC;
      default: return null;
    }
  }

  /**
   * The levels a weak anomaly type rules out, or null if the type is not one of ours. Patterns
   * within one transaction or key (a–f, j, the list patterns) rule out every strong level too;
   * the causal and commit-order patterns rule out the strong levels that carry session order
   * (they imply TCC), not plain serializability, SI or GSI.
   */
  public static EnumSet<Level> violatedBy(String type) {
    Tap tap = Tap.byId(type);
    if (tap == null) return null;
    EnumSet<Level> r = EnumSet.noneOf(Level.class);
    for (Tap.WeakLevel w : tap.violates()) r.add(Level.valueOf(w.name()));
    boolean local = tap.ordinal() <= Tap.INTERMEDIATE_READ.ordinal() || tap == Tap.NON_REPEATABLE_READ
        || tap == Tap.INCOMPATIBLE_ORDER || tap == Tap.DUPLICATE_ELEMENTS;
    for (Level l : EnumSet.range(Level.STRICT_SERIALIZABLE, Level.SNAPSHOT_ISOLATION)) {
      if (local || l.family.carries(Level.Family.PROCESS)) r.add(l);
    }
    return r;
  }

  /** Whether the checker decides this level here. */
  public static boolean handles(Level l) { return weak(l) != null; }

  /** Decides the requested weak levels, adding anomalies and statistics. */
  public static LinkedHashMap<Level, Verdict> check(History h, Collection<Level> levels, Options o, AnomalySet anomalies,
                                                    Map<String, Object> stats) {
    return check(h, levels, o, anomalies, stats, isocheck.util.Progress.NONE);
  }

  /** As above, telling progress each stage as it begins. */
  public static LinkedHashMap<Level, Verdict> check(History h, Collection<Level> levels, Options o, AnomalySet anomalies,
                                                    Map<String, Object> stats, isocheck.util.Progress progress) {
    Run r = new Run(h, levels, o, anomalies, stats);
    r.progress = progress;
    return r.run();
  }

  private static final class Run {
    final History h;
    final List<Level> levels = new ArrayList<>();
    final EnumSet<Tap.WeakLevel> want = EnumSet.noneOf(Tap.WeakLevel.class);
    final Options o;
    final AnomalySet anomalies;
    final Map<String, Object> stats;
    final EnumSet<Tap> found = EnumSet.noneOf(Tap.class);
    final EnumMap<Tap.WeakLevel, Boolean> cyclic = new EnumMap<>(Tap.WeakLevel.class);
    final HashSet<Long> reported = new HashSet<>();
    final LinkedHashMap<String, Object> ws = new LinkedHashMap<>();
    isocheck.util.Progress progress = isocheck.util.Progress.NONE;
    WeakHistory wh;
    CausalOrder co;
    CommitOrder cm;
    TapReport rep;

    Run(History h, Collection<Level> ls, Options o, AnomalySet anomalies, Map<String, Object> stats) {
      this.h = h;
      for (Level l : ls) {
        if (weak(l) == null) continue;
        levels.add(l);
        want.add(weak(l));
      }
      this.o = o;
      this.anomalies = anomalies;
      this.stats = stats;
    }

    /** Counts an instance, and explains it while fewer than the cap of its type are kept. */
    void emit(Tap tap, java.util.function.Supplier<isocheck.report.Anomaly> make) {
      found.add(tap);
      if (anomalies.kept(tap.id) < anomalies.cap()) anomalies.add(make.get());
      else anomalies.tally(tap.id);
    }

    LinkedHashMap<Level, Verdict> run() {
      long t0 = System.nanoTime();
      progress.stage("weak levels: reads and writes");
      wh = new WeakHistory(h);
      for (Tap.Instance in : wh.intra) {
        if (rep == null) rep = new TapReport(wh, null);
        final Tap.Instance i = in;
        emit(in.tap, () -> rep.intra(i));
      }
      long t1 = System.nanoTime();
      EnumSet<Tap.WeakLevel> graphLevels = EnumSet.copyOf(want);
      graphLevels.remove(Tap.WeakLevel.CI);
      if (o.stopAtFirst) graphLevels.removeIf(this::violatedByFound);
      long t2 = t1, t3 = t1;
      String noClocks = null;
      if (!graphLevels.isEmpty()) {
        try {
          progress.stage("weak levels: causal order");
          co = new CausalOrder(wh, o.clocks, o.idOrder, o.mergeChains);
        } catch (OutOfMemoryError | ChainClocks.TooWide e) {
          // One clock entry per transaction and chain of causal order: only a causal order
          // thousands of transactions wide (many concurrent, unrelated writers that are read
          // later) can need more than the heap.
          noClocks = String.format("causal order of %,d transactions is too wide for this JVM's heap (max %,d MB): %s; "
              + "raise -Xmx", (long) wh.n, Runtime.getRuntime().maxMemory() >> 20,
              e instanceof ChainClocks.TooWide ? e.getMessage() : "out of memory building the causal clocks");
          ws.put("clocks-error", noClocks);
        }
      }
      if (co != null) {
        rep = new TapReport(wh, co);
        t2 = System.nanoTime();
        ws.put("clocks", new Kw(co.clocks.name()));
        if (co.fellBack != null) ws.put("clocks-note", co.fellBack);
        ws.put("clock-bytes", co.clocks.bytes());
        ws.put("chains", (long) co.chains);
        ws.put("sessions", (long) wh.k);
        ws.put("co-order", new Kw(co.idOrdered ? "id-order" : "scc"));
        ws.put("co-facts", (long) (wh.rfFrom.length + wh.visFrom.length + wh.n));
        if (wh.list) ws.put("ww-edges", (long) wh.wwSrc.size());
        cm = new CommitOrder(wh, co);
        rep.observations(cm); // before TAP g's reports, whose steps name the reads
        cyclicCo();
        levelsByGraph(graphLevels);
        t3 = System.nanoTime();
      }
      LinkedHashMap<Level, Verdict> out = new LinkedHashMap<>();
      for (Level l : levels) {
        Tap.WeakLevel wl = weak(l);
        List<String> types = new ArrayList<>();
        for (Tap tap : found) if (tap.violates().contains(wl)) types.add(tap.id);
        boolean bad = !types.isEmpty() || Boolean.TRUE.equals(cyclic.get(wl));
        if (!bad && noClocks != null && wl != Tap.WeakLevel.CI) {
          out.put(l, new Verdict(Verdict.Value.UNKNOWN, noClocks, List.of()));
          continue;
        }
        if (bad && types.isEmpty()) types.add("unclassified-cycle"); // never accept a cycle silently (pitfall 12)
        Verdict v = bad ? new Verdict(Verdict.Value.FALSE, null, types) : new Verdict(Verdict.Value.TRUE, null, List.of());
        if (!bad && orders.get(wl) != null) v.witness = new Witness(false, orders.get(wl), wh.committed);
        out.put(l, v);
      }
      LinkedHashMap<String, Object> ms = new LinkedHashMap<>();
      ms.put("history", (t1 - t0) / 1_000_000L);
      ms.put("causal", (t2 - t1) / 1_000_000L);
      ms.put("commit-order", (t3 - t2) / 1_000_000L);
      ws.put("ms", ms);
      stats.put("weak", ws);
      return out;
    }

    boolean violatedByFound(Tap.WeakLevel l) {
      for (Tap t : found) if (t.violates().contains(l)) return true;
      return false;
    }

    /** TAP g: one instance per cyclic component of CO. */
    void cyclicCo() {
      if (!co.cyclic()) return;
      Scc s = co.scc();
      boolean[] done = new boolean[s.count];
      for (int t = 0; t < wh.n; t++) {
        int c = s.comp[t];
        if (!s.cyclic[c] || done[c]) continue;
        done[c] = true;
        final int start = t;
        emit(Tap.CYCLIC_CO, () -> rep.cycle(Tap.CYCLIC_CO, co.succ(), Edge.SO | Edge.WR, s.comp, c, start));
      }
    }

    /**
     * The levels needing a commit-order graph, strongest first: when one is acyclic with no
     * contradicted initial read, every weaker one is too (its forced edges are implied by the
     * stronger level's). When one is violated, the weaker ones are built as well (unless stopping
     * at the first anomaly), so that each cycle gets its most specific TAP.
     */
    void levelsByGraph(EnumSet<Tap.WeakLevel> graphLevels) {
      Tap.WeakLevel[] order = {Tap.WeakLevel.TCC, Tap.WeakLevel.RA, Tap.WeakLevel.RC};
      EnumMap<Tap.WeakLevel, CommitOrder.Forced> forced = new EnumMap<>(Tap.WeakLevel.class);
      boolean strongerViolated = false, started = false;
      int[] stronger = null; // the commit order of the last level that held: every weaker level's axiom holds in it
      for (Tap.WeakLevel l : order) {
        boolean need = graphLevels.contains(l) || (started && strongerViolated && !o.stopAtFirst);
        if (!need) continue;
        if (started && !strongerViolated) {
          cyclic.put(l, false);
          orders.put(l, stronger);
          continue;
        }
        started = true;
        progress.stage(l.name().toLowerCase(java.util.Locale.ROOT) + ": commit order");
        long t = System.nanoTime();
        // The first level built is the strongest asked: when TCC holds by the version order, it
        // and every weaker level hold (RA, RC asked alone included).
        LinkedHashMap<String, Object> byVo = listCausalHolds(t);
        if (byVo != null) {
          if (l != Tap.WeakLevel.TCC) byVo.put("implied-by", new Kw("tcc"));
          ws.put(l.name().toLowerCase(java.util.Locale.ROOT), byVo);
          cyclic.put(l, false);
          // CO ∪ the version order: every forced edge is implied by its version-order edges.
          // Its graph's cycles and backward paths lie in windows: id order with each window in a
          // topological order of its own edges (none: id order itself).
          stronger = !o.certificates ? null : voWindows == null ? idOrder() : topological(voGraph, voWindows);
          orders.put(l, stronger);
          strongerViolated = false;
          continue;
        }
        CommitOrder.Forced f = l == Tap.WeakLevel.TCC ? cm.causal() : l == Tap.WeakLevel.RA ? cm.readAtomic() : cm.monoAtomicView();
        forced.put(l, f);
        // Id order is a topological order of CO; when every version-order and forced edge goes
        // forward in it too, the level's graph is acyclic without building it.
        boolean idAcyclic = co.idOrdered && wwForward() && forward(f.src, f.dst);
        boolean bad;
        if (idAcyclic && f.botRf.size() == 0) {
          bad = false;
          levelStats(l, f, null, null, t);
          if (o.certificates) stronger = idOrder();
        } else {
          Digraph g = cm.graph(f);
          Scc s = CommitOrder.scc(g);
          bad = s.hasCycle() || f.botRf.size() > 0;
          levelStats(l, f, g, s, t);
          if (!bad && o.certificates) stronger = topological(g);
        }
        if (!bad) orders.put(l, stronger);
        cyclic.put(l, bad);
        strongerViolated = bad;
      }
      // Classification, weakest level first, so each instance gets its most specific name.
      for (int i = order.length - 1; i >= 0; i--) {
        Tap.WeakLevel l = order[i];
        if (!Boolean.TRUE.equals(cyclic.get(l)) || !forced.containsKey(l)) continue;
        progress.stage(l.name().toLowerCase(java.util.Locale.ROOT) + ": counterexamples");
        classify(l, forced.get(l));
      }
    }

    /**
     * TCC on list-append by the version order alone ({@link CommitOrder#listCausalWithoutForcedEdges}):
     * the statistics of a level it decides when no read knows a writer ranked after the one it
     * read and CO ∪ the version order is acyclic (TCC holds, and RA and RC with it). Null sends
     * the level to the general scan, which then also names the cycles; histories with
     * intra-transaction anomalies (an incompatible read has no rank) always go there.
     */
    LinkedHashMap<String, Object> listCausalHolds(long t) {
      if (!o.versionOrder || !wh.list || !wh.intra.isEmpty()) return null;
      long examined = cm.listCausalWithoutForcedEdges(8L * wh.rfFrom.length + (1L << 24));
      if (examined < 0) return null;
      // CO ∪ the version order: its cycles lie in the windows of its backward edges, so only
      // the edges inside them are packed and searched.
      Digraph g = null;
      Windows w = null;
      if (!(co.idOrdered && wwForward())) {
        CommitOrder.Forced none = new CommitOrder.Forced();
        w = cm.windows(none);
        g = cm.graph(none, w);
        if (CommitOrder.scc(g, w).hasCycle()) return null;
        voGraph = g;
        voWindows = w;
      }
      LinkedHashMap<String, Object> m = new LinkedHashMap<>();
      m.put("forced-edges", 0L);
      m.put("examined", examined);
      m.put("decided-by", new Kw("version-order"));
      if (g != null) {
        m.put("windows", (long) w.count);
        m.put("window-transactions", (long) w.nodes);
        m.put("window-edges", (long) g.edgeCount());
      }
      m.put("ms", (System.nanoTime() - t) / 1_000_000L);
      return m;
    }

    /** CO ∪ the version order inside its windows, when {@link #listCausalHolds} built them (else null). */
    Digraph voGraph;
    Windows voWindows;

    /**
     * A topological order of an acyclic graph whose edges outside w's windows all point forward
     * in id order, from g, its edges inside the windows ({@link CommitOrder#graph(CommitOrder.Forced, Windows)}):
     * id order, each window's transactions (a range of ids) in a topological order of g's edges.
     */
    int[] topological(Digraph g, Windows w) {
      int[] order = new int[wh.n], indeg = new int[wh.n];
      int filter = Edge.SO | Edge.WR | Edge.WW | Edge.CM;
      int tail = 0;
      for (int v = 0; v < wh.n; ) {
        if (w.group[v] < 0) {
          order[tail++] = v++;
          continue;
        }
        int a = v, b = v, c = w.group[v];
        while (b < wh.n && w.group[b] == c) b++;
        for (int u = a; u < b; u++) {
          for (int e = g.start(u); e < g.end(u); e++) if ((g.mask(e) & filter) != 0 && w.same(u, g.target(e))) indeg[g.target(e)]++;
        }
        int head = tail;
        for (int u = a; u < b; u++) if (indeg[u] == 0) order[tail++] = u;
        while (head < tail) {
          int u = order[head++];
          for (int e = g.start(u); e < g.end(u); e++) {
            if ((g.mask(e) & filter) != 0 && w.same(u, g.target(e)) && --indeg[g.target(e)] == 0) order[tail++] = g.target(e);
          }
        }
        if (tail != b) throw new IllegalStateException("a level that holds has a cyclic commit-order graph");
        v = b;
      }
      return order;
    }

    /** Per weak level that holds, a commit order that shows it (transactions, all of them: the witness keeps the committed ones). */
    final EnumMap<Tap.WeakLevel, int[]> orders = new EnumMap<>(Tap.WeakLevel.class);

    /** Transaction-id order: a commit order when every edge of the level's graph points forward in it. */
    int[] idOrder() {
      int[] ids = new int[wh.n];
      for (int t = 0; t < wh.n; t++) ids[t] = t;
      return ids;
    }

    /** A topological order of a level's acyclic graph (CO, version order, forced edges). */
    static int[] topological(Digraph g) {
      int[] order = Witness.topological(g, Edge.SO | Edge.WR | Edge.WW | Edge.CM);
      if (order == null) throw new IllegalStateException("a level that holds has a cyclic commit-order graph");
      return order;
    }

    Boolean wwForward;

    boolean wwForward() {
      if (wwForward == null) wwForward = forward(wh.wwSrc, wh.wwDst);
      return wwForward;
    }

    static boolean forward(isocheck.util.IntList src, isocheck.util.IntList dst) {
      for (int i = 0; i < src.size(); i++) if (src.get(i) >= dst.get(i)) return false;
      return true;
    }

    /** The level's statistics; g and s are null when id order showed the graph acyclic. */
    void levelStats(Tap.WeakLevel l, CommitOrder.Forced f, Digraph g, Scc s, long t) {
      LinkedHashMap<String, Object> m = new LinkedHashMap<>();
      m.put("forced-edges", (long) f.size());
      m.put("examined", f.examined);
      m.put("decided-by", new Kw(g == null ? "id-order" : "scc"));
      if (g != null) {
        m.put("graph-edges", (long) g.edgeCount());
        m.put("cyclic-components", (long) s.cyclicCount);
      }
      m.put("ms", (System.nanoTime() - t) / 1_000_000L);
      ws.put(l.name().toLowerCase(java.util.Locale.ROOT), m);
      if (g == null) return;
      graphs.put(l, g);
      sccs.put(l, s);
    }

    final EnumMap<Tap.WeakLevel, Digraph> graphs = new EnumMap<>(Tap.WeakLevel.class);
    final EnumMap<Tap.WeakLevel, Scc> sccs = new EnumMap<>(Tap.WeakLevel.class);

    void classify(Tap.WeakLevel l, CommitOrder.Forced f) {
      Digraph g = graphs.get(l);
      Scc s = sccs.get(l);
      String lid = l.name().toLowerCase(java.util.Locale.ROOT);
      int limit = o.stopAtFirst ? 1 : Integer.MAX_VALUE, emitted = 0;
      for (int i = 0; i < f.botRf.size() && emitted < limit; i++) {
        int rfi = f.botRf.get(i), t2 = f.botT2.get(i), via = f.botVia.get(i);
        if (!reported.add(((long) rfi << 32) | t2)) continue;
        Tap tap = label(l, rfi, t2, true);
        if (tap == null) continue;
        emitted++;
        emit(tap, () -> rep.triangle(tap, rfi, t2, via, true, g, s.comp, f, lid));
      }
      boolean[] hasForced = new boolean[s.count];
      for (int i = 0; i < f.size(); i++) {
        int t2 = f.src.get(i), t1 = f.dst.get(i);
        int c = s.comp[t2];
        if (c != s.comp[t1] || !s.cyclic[c]) continue;
        hasForced[c] = true;
        if (emitted >= limit) continue;
        int rfi = f.rf.get(i), via = f.via.get(i);
        if (!reported.add(((long) rfi << 32) | t2)) continue;
        boolean chain = co.reaches(t1, t2);
        Tap tap = label(l, rfi, t2, chain);
        if (tap == null) continue;
        emitted++;
        emit(tap, () -> rep.triangle(tap, rfi, t2, via, chain, g, s.comp, f, lid));
      }
      // Cycles with no forced edge: version order against causal order (CO cycles are TAP g).
      boolean[] done = new boolean[s.count];
      for (int t = 0; t < wh.n && emitted < limit; t++) {
        int c = s.comp[t];
        if (!s.cyclic[c] || hasForced[c] || done[c]) continue;
        done[c] = true;
        if (co.onCycle(t)) continue;
        final int start = t;
        emitted++;
        emit(Tap.CYCLIC_VERSION_ORDER, () -> rep.cycle(Tap.CYCLIC_VERSION_ORDER, g, Edge.SO | Edge.WR | Edge.WW, s.comp, c, start));
      }
    }

    /**
     * The most specific TAP for forced edge t2 → t1 (read fact rfi) on a cycle of level l's graph:
     * a causal chain t1 →CO t2 gives h, k or m by how t2 precedes t3 (observed by an earlier read
     * of another key, observed or in session, causally); otherwise the cycle runs through commit
     * order and the level names it: i (RC), l (RA), n (TCC).
     */
    Tap label(Tap.WeakLevel l, int rfi, int t2, boolean chain) {
      int t3 = h.mopTxn(wh.rfMop[rfi]), x = wh.rfKey[rfi], mx = wh.rfMop[rfi];
      boolean otherKey = false, sameKey = false, before = false;
      CommitOrder.Obs ob = cm.obs();
      for (int j = ob.start[t3]; j < ob.start[t3 + 1]; j++) {
        if (ob.writer[j] != t2) continue;
        if (ob.key[j] == x) sameKey = true;
        else {
          otherKey = true;
          if (ob.mop[j] < mx) before = true;
        }
      }
      boolean so = wh.session(t2) == wh.session(t3) && wh.pos[t2] < wh.pos[t3];
      // t3 read x from both t1 and t2 and from no other key of t2: that is TAP j, already reported.
      if (sameKey && !otherKey && !so && l == Tap.WeakLevel.RA) return null;
      if (!chain) return l == Tap.WeakLevel.RC ? Tap.NON_MONO_READ_CM : l == Tap.WeakLevel.RA ? Tap.FRACTURED_READ_CM : Tap.CONFLICT_CM;
      if (before) return Tap.NON_MONO_READ_CO;
      if (otherKey || so) return Tap.FRACTURED_READ_CO;
      return Tap.CO_CONFLICT_CM;
    }
  }
}
