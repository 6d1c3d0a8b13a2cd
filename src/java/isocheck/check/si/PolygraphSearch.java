package isocheck.check.si;

import isocheck.check.Level;
import isocheck.check.Verdict;
import isocheck.graph.BcGraph;
import isocheck.graph.Cycle;
import isocheck.graph.CycleFinder;
import isocheck.graph.Digraph;
import isocheck.graph.Edge;
import isocheck.graph.EdgeList;
import isocheck.graph.Scc;
import isocheck.history.History;
import isocheck.history.Kw;
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
 * Decides the serializable, snapshot-isolation and GSI levels over a generalized {@link Polygraph}
 * (PolySI, PVLDB'23, Def. 9; Viper, EuroSys'23): the polygraph laid out per level
 * ({@link LevelGraph}), {@link Pruning} to a fixpoint, then, for what pruning leaves open, a
 * search for one choice of sides that leaves the graph acyclic. Sides consistent with a
 * topological order of the pruned graph are tried first (the polarity VeriStrong §6.3 takes from
 * its incremental order); when they close a cycle, the CDCL(T) solver decides
 * ({@link AcyclicitySolver}). Past the deadline a level still open is unknown with the reason,
 * never guessed.
 *
 * <p>The workload says where the polygraph comes from: {@link RegisterSearch} (rw-register: the
 * whole version order is open) and {@link AppendSearch} (list-append: only the order of appends
 * no read observed is open).
 *
 * <p>A violation comes with a counterexample made of base steps: a cycle of the known graph
 * (the dependencies the history fixes, process and realtime order, and orders pruning forced),
 * or a pair of writers whose two orders each close a cycle.
 */
public abstract class PolygraphSearch {
  /** One level's outcome: the verdict, its reason when unknown, counterexamples, statistics. */
  public static final class Outcome {
    public final Verdict.Value value;
    public final String reason;
    public final List<Anomaly> anomalies;
    public final Map<String, Object> stats;
    /** When the level holds: the order that shows it (the result's :certificates), or null when none was kept. */
    public isocheck.check.Witness witness;

    Outcome(Verdict.Value value, String reason, List<Anomaly> anomalies, Map<String, Object> stats) {
      this.value = value;
      this.reason = reason;
      this.anomalies = anomalies;
      this.stats = stats;
    }
  }

  final History h;
  final boolean shortcuts;
  private final Polygraph[] byFamily = new Polygraph[Level.Family.values().length];
  private final long[] buildNs = new long[Level.Family.values().length];
  private final java.util.EnumMap<Level, Outcome> outcomes = new java.util.EnumMap<>(Level.class);

  /** With shortcuts false, no pruning rounds after the first and no time-ordered choice: the solver decides (for tests). */
  PolygraphSearch(History h, boolean shortcuts) {
    this.h = h;
    this.shortcuts = shortcuts;
  }

  // ------------------------------------------------------------------ what the workload supplies

  /** Builds the polygraph with the orders of family f (called once per family). */
  abstract Polygraph build(Level.Family f);

  /** Told each level's stages: polygraph, known graph, time order, pruning, solver. */
  isocheck.util.Progress progress = isocheck.util.Progress.NONE;

  /** Whether to try the workload's witness schedule before building the polygraph ({@link #witness}). */
  boolean tryWitness = true;

  /** Turns the witness schedule off (tests compare: the polygraph search must agree). */
  public PolygraphSearch witness(boolean on) {
    tryWitness = on;
    return this;
  }

  /** Tells progress each level's stages (polygraph, known graph, time order, pruning, solver). */
  public PolygraphSearch progress(isocheck.util.Progress p) {
    progress = p;
    return this;
  }

  /** Explains the steps of a counterexample: the known edges by the workload's own evidence. */
  abstract PolygraphExplainer explainer(Polygraph p);

  /**
   * Decides l before any polygraph is built when the workload can (null: it cannot). Statistics
   * go to st.
   */
  Outcome early(Level l, Map<String, Object> st) { return null; }

  /**
   * Shows l holds without the polygraph when the workload can: a schedule following the
   * history's time that satisfies the level (null: none found; the search decides).
   */
  Outcome witness(Level l, Map<String, Object> st) { return null; }

  /**
   * The known edges alone, with the orders of family f, when the workload can build them for
   * less than the polygraph and that polygraph is not built yet (null: it cannot, or need not).
   */
  Polygraph knownOnly(Level.Family f) { return null; }

  /**
   * Told that a level of family f failed its witness schedule and that the weaker levels' steps
   * may come next ({@link #viaWeaker}): the workload may start building f's polygraph on the
   * other core meanwhile, if it is likely needed and cheap enough to build on speculation.
   * Whether that build is under way (the weaker levels' steps are taken only then).
   */
  boolean ahead(Level.Family f) { return false; }

  /** Told that l's known graph closed a cycle ({@link #knownCycle}): l is violated (the workload may prepare its refutation). */
  void knownCycleFound(Level l) {}

  /** Whether f's polygraph was built by {@link #ahead} (its polygraph-ms is then the time waited for it). */
  boolean builtAhead(Level.Family f) { return false; }

  /** Whether f's polygraph was built ahead by the thread of the witness run ahead, once its schedule failed ({@code :built-after-witness}). */
  boolean builtAfterWitness(Level.Family f) { return false; }

  /**
   * Ends what {@link #ahead} and {@link #decideAhead} started and no level used (called once the
   * levels are decided): waits for it.
   */
  public void close() {
    Thread t = decideThread;
    decideThread = null;
    join(t);
    stopBeside();
  }

  // ------------------------------------------------------------------ deciding a level ahead

  /** The thread deciding a level ahead ({@link #decideAhead}), until the caller's thread waits for it; or null. */
  private Thread decideThread;
  private volatile Throwable decideFailed;
  private isocheck.util.HeldProgress held;

  /**
   * Starts deciding level l on a thread of its own, with a time limit of its own (from now),
   * while the caller's thread does other work (list-append: the counterexamples of the families
   * whose graphs are cyclic, isocheck.check.Checker); the next {@link #decide} of any level
   * waits for it first, and then finds l decided. Its progress is held back until then
   * ({@link isocheck.util.HeldProgress}). Its statistics say {@code :decided-ahead true}.
   */
  public void decideAhead(Level l, long timeLimitMs) {
    if (decideThread != null) throw new IllegalStateException("a level is already being decided ahead");
    held = new isocheck.util.HeldProgress(progress);
    progress = held;
    Thread t = new Thread(() -> {
      try {
        Outcome o = decide(l, System.nanoTime() + timeLimitMs * 1_000_000L);
        o.stats.put("decided-ahead", true);
      } catch (Throwable e) {
        decideFailed = e;
      }
    }, "isocheck-search");
    t.setDaemon(true);
    decideThread = t;
    t.start();
  }

  /** Waits for the level being decided ahead, if any (from any thread but its own); rethrows what it threw. */
  private void awaitDecided() {
    Thread t = decideThread;
    if (t == null || t == Thread.currentThread()) return;
    held.release();
    join(t);
    decideThread = null;
    Throwable e = decideFailed;
    decideFailed = null;
    if (e instanceof RuntimeException) throw (RuntimeException) e;
    if (e instanceof Error) throw (Error) e;
    if (e != null) throw new IllegalStateException(e);
  }

  /** What a computation run on another thread returned; what it threw, rethrown here. */
  static <T> T joined(java.util.concurrent.CompletableFuture<T> f) {
    try {
      return f.join();
    } catch (java.util.concurrent.CompletionException e) {
      Throwable c = e.getCause();
      if (c instanceof RuntimeException) throw (RuntimeException) c;
      if (c instanceof Error) throw (Error) c;
      throw e;
    }
  }

  /** Waits for thread t (when not null) to end ({@link isocheck.util.Threads#join}). */
  static void join(Thread t) { isocheck.util.Threads.join(t); }

  // ------------------------------------------------------------------ a level decided beside another

  /**
   * The level to search beside l's search, on a thread of its own, once l's polygraph is built
   * (the workload says which: a level that shares it, is often needed after l, and whose search
   * would begin with that polygraph, every earlier step of it a no-op), or null.
   */
  Level besideOf(Level l) { return null; }

  /** Which levels the caller will ask for, as far as it knows before the search: a level decided beside l must be one. */
  private java.util.function.Predicate<Level> wanted = l -> false;

  /** Tells the search which levels the caller will ask for (a level no other decides: requested, not ruled out yet). */
  public PolygraphSearch wanted(java.util.function.Predicate<Level> w) {
    wanted = w;
    return this;
  }

  /**
   * The level being decided beside another ({@link #startBeside}; null once waited for or
   * dropped), its thread (null once waited for or stopped), its outcome, its held progress.
   */
  private Level besideLevel;
  private Thread besideThread;
  /** The beside thread, as it knows itself (besideThread is cleared once waited for): whose progress and solver are the beside search's. */
  private volatile Thread besideRunner;
  /** Whether a level was decided beside (once per check). */
  private boolean besideStarted;
  private final java.util.concurrent.CompletableFuture<Outcome> besideOutcome = new java.util.concurrent.CompletableFuture<>();
  private isocheck.util.HeldProgress besideHeld;
  private isocheck.util.Progress besideProgress;
  private volatile boolean besideCancelled;
  private volatile AcyclicitySolver besideSolver;

  /** Thrown on the beside thread, at its next stage, once it is stopped ({@link #dropBeside}, {@link #close}): its outcome is not wanted. */
  private static final class BesideCancelled extends RuntimeException {
    BesideCancelled() { super(null, null, false, false); }
  }

  /** The progress of the thread running this: the beside thread's held one, or the search's. */
  private isocheck.util.Progress progress() { return Thread.currentThread() == besideRunner ? besideProgress : progress; }

  /**
   * Starts deciding {@link #besideOf}(l) on a thread of its own, as {@link #search} would
   * once it got to it, if the caller will ask for it, and while the heap has room for a second
   * search. When the caller asks for it, {@link #search} waits for that outcome
   * ({@code :decided-beside true}); when it never does (a level it implies held, or one that
   * rules it out did not), {@link #close} stops the thread. Either way its outcome is that of
   * the search in place: the levels' outcomes do not depend on which thread was faster.
   */
  private void startBeside(Level l, long deadline) {
    // (Tests compare: -Disocheck.search.beside=false decides every level in place.)
    if (!shortcuts || besideStarted
        || "false".equals(System.getProperty("isocheck.search.beside"))) return;
    Level b = besideOf(l);
    if (b == null || outcomes.containsKey(b) || !wanted.test(b)) return;
    Polygraph bp;
    try {
      bp = polygraph(b.family);
    } catch (Polygraph.TooLarge e) {
      return;
    }
    if (!roomFor(bp)) return;
    besideLevel = b;
    besideHeld = new isocheck.util.HeldProgress(progress);
    besideProgress = new isocheck.util.Progress() {
      @Override public void stage(String name, long total, String unit) {
        if (besideCancelled) throw new BesideCancelled();
        besideHeld.stage(name, total, unit);
      }

      @Override public void done(long units) {
        if (besideCancelled) throw new BesideCancelled();
        besideHeld.done(units);
      }
    };
    besideStarted = true;
    besideThread = isocheck.util.Threads.start("isocheck-beside", besideOutcome, () -> {
      besideRunner = Thread.currentThread(); // (before its first step: progress(), the solver)
      return searchIn(b, bp, deadline, new LinkedHashMap<>());
    });
  }

  /**
   * Whether the heap has room for a second search beside this one on polygraph p: twice what
   * its graphs take (about 48 bytes a known or side edge, 128 a node, as measured), free.
   */
  private static boolean roomFor(Polygraph p) {
    Runtime rt = Runtime.getRuntime();
    long free = rt.maxMemory() - (rt.totalMemory() - rt.freeMemory());
    long need = 48L * (p.known.size() + p.sideSrc.length) + 128L * 2 * p.nodes;
    return free > 2 * need;
  }

  /** The outcome of l decided beside ({@link #startBeside}): waited for; what its search threw, rethrown. */
  private Outcome awaitBeside(Level l) {
    besideHeld.release();
    join(besideThread);
    besideThread = null;
    besideLevel = null;
    Outcome o = joined(besideOutcome);
    LinkedHashMap<String, Object> st = statsOf(l);
    st.putAll(o.stats);
    st.put("decided-beside", true);
    Outcome r = new Outcome(o.value, o.reason, o.anomalies, st);
    r.witness = o.witness; // (a level decided beside is certified as one decided in place)
    return r;
  }

  /**
   * Asked for l, which implies the level being decided beside (strong SI, GSI's): when l holds,
   * as it usually does once asked for (strict serializability's counterexample did not rule it
   * out), the level beside is implied and its search was not needed. So it is stopped now (at
   * its next stage), not left to compete with l's search for the memory and the collector until
   * the check ends; if l fails, the level is searched in place, when asked for.
   */
  private void dropBeside(Level l) {
    if (besideLevel == null || l == besideLevel || !l.implies(besideLevel) || Thread.currentThread() == besideRunner) return;
    besideLevel = null;
    besideCancelled = true;
    AcyclicitySolver s = besideSolver;
    if (s != null) s.interrupt();
  }

  /** Stops the search of a level decided beside that no one asked for, and waits for its thread. */
  private void stopBeside() {
    Thread t = besideThread;
    besideThread = null;
    if (t == null) return;
    besideCancelled = true;
    boolean interrupted = false;
    while (t.isAlive()) {
      AcyclicitySolver s = besideSolver;
      if (s != null) s.interrupt();
      try {
        t.join(20);
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) Thread.currentThread().interrupt();
  }

  /** Decides l from the built polygraph before the search when the workload can (null: it cannot). */
  Outcome before(Level l, Polygraph p, Map<String, Object> st) { return null; }

  /** What is being searched, for messages: "the version order of rw-register writes". */
  abstract String subject();

  /** What the constraints order, for messages: "the writes". */
  abstract String orderNoun();

  /** What one constraint is, plural, for messages: "write-order constraints". */
  abstract String constraintNoun();

  /**
   * The sentence that opens a two-cycle counterexample: a and b, writers of keys, are unordered,
   * and the two cycles together are the anomaly named.
   */
  abstract String pairNote(Level l, int a, int b, java.util.Set<String> keys, String named);

  /** Whether the steps of the order under consideration are marked hypothetical in counterexamples. */
  boolean markConsidered() { return false; }

  /**
   * Whether an UNSAT answer is explained as a pair of writers, both orders cyclic (the order the
   * solver forced, with the cycle that forced it), rather than by its final cycle alone.
   */
  boolean refuteAsPair() { return false; }

  // ------------------------------------------------------------------ the search

  Polygraph polygraph(Level.Family f) {
    int i = f.ordinal();
    if (byFamily[i] == null) {
      long t = System.nanoTime();
      byFamily[i] = build(f);
      buildNs[i] = System.nanoTime() - t;
    }
    return byFamily[i];
  }

  /**
   * Decides level l (a serializable, snapshot-isolation or GSI level, or repeatable read, whose
   * graph is serializability's: isocheck.check.adya.AdyaLevels) by deadline (System.nanoTime());
   * each level once.
   */
  public Outcome decide(Level l, long deadline) {
    if (l == Level.REPEATABLE_READ) {
      // (Its reason says so when unknown: a reason naming serializability alone read as if
      // repeatable read's own verdict were missing for another level's sake.)
      Outcome o = decide(Level.SERIALIZABLE, deadline);
      return o.value != Verdict.Value.UNKNOWN || o.reason == null || !o.anomalies.isEmpty() ? o
          : new Outcome(o.value, "repeatable-read shares serializability's search (without predicate reads, the cycles "
              + "it forbids are the same): " + o.reason, o.anomalies, o.stats);
    }
    awaitDecided();
    dropBeside(l);
    Outcome o = outcomes.get(l);
    if (o == null) {
      try {
        o = shortcuts ? viaSessions(l, deadline) : null;
        // (Deciding the session counterpart may have decided l: its known graph, as the weaker level's.)
        if (o == null) o = outcomes.get(l);
        if (o == null && shortcuts) o = viaWeaker(l, deadline);
        Level same = o == null ? sameWithoutRealtime(l) : null;
        if (same != null) o = asSame(l, same, deadline);
        if (o == null) o = search(l, deadline);
      } catch (OutOfMemoryError e) {
        o = outOfMemory(l);
      }
      outcomes.put(l, o);
    }
    return o;
  }

  /**
   * l decided as {@code same}, the level whose graph is l's without realtime information
   * ({@link #sameWithoutRealtime}): once, unless a level that implies same already holds
   * (serializability, before GSI as SI). Taken where l's own search would start, after l's
   * witness and the weaker levels' steps ({@link #viaWeaker}), whose counterexamples (the
   * plain level's cycle, G2-item) are the smaller.
   */
  private Outcome asSame(Level l, Level same, long deadline) {
    Level by = null;
    for (Map.Entry<Level, Outcome> e : outcomes.entrySet()) {
      if (e.getValue().value == Verdict.Value.TRUE && e.getKey().implies(same)) by = e.getKey();
    }
    Outcome os = by != null ? outcomes.get(by) : decide(same, deadline);
    LinkedHashMap<String, Object> st = statsOf(l);
    st.put("decided-by", new Kw("same-without-realtime"));
    st.put("same-as", new Kw(same.id));
    if (by != null) st.put("implied-by", new Kw(by.id));
    else st.put("same-as-search", os.stats);
    Outcome o = new Outcome(os.value, os.reason, os.anomalies, st);
    o.witness = os.witness;
    return o;
  }

  /** Whether no transaction has an invocation (null until asked). */
  private Boolean noInvocation;

  /**
   * The level whose graph is l's when the history has no realtime information (no transaction
   * was recorded invoked: completions alone, as the dbcop, Cobra and Plume text formats, and
   * Jepsen histories converted to them, give them): realtime order has no edge, so a realtime
   * level (strict serializability, strong SI) is its strong-session counterpart and GSI is
   * snapshot isolation, edge for edge. Null otherwise. Such a level is decided once, as that
   * level ({@code :decided-by :same-without-realtime}, {@code :same-as}): before, GSI's search
   * repeated snapshot isolation's on the writer orders realtime could fix (none), 20 s on a
   * history of 12,000 transactions over 2 keys that serializability had settled in 6.
   * (Tests turn it off, -Disocheck.search.same-without-realtime=false.)
   */
  private Level sameWithoutRealtime(Level l) {
    if (l.family != Level.Family.REALTIME && l.family != Level.Family.COMMIT_REALTIME) return null;
    if (l.kind != Level.Kind.SER && l.kind != Level.Kind.SI) return null;
    if ("false".equals(System.getProperty("isocheck.search.same-without-realtime"))) return null;
    if (noInvocation == null) {
      boolean none = true;
      for (int t = 0; t < h.nTxns && none; t++) none = h.invokeOrdinal(t) < 0;
      noInvocation = none;
    }
    if (!noInvocation) return null;
    if (l.family == Level.Family.COMMIT_REALTIME) return Level.SNAPSHOT_ISOLATION;
    return l.kind == Level.Kind.SER ? Level.STRONG_SESSION_SERIALIZABLE : Level.STRONG_SESSION_SNAPSHOT_ISOLATION;
  }

  // ------------------------------------------------------------------ out of memory

  /**
   * The first level whose search ran out of memory ({@link #outOfMemory}), or null: the levels
   * decided after it take their cheap steps (witness, known graph) but build no polygraph.
   */
  private Level exhausted;

  /**
   * l's outcome when deciding it ran out of memory: unknown with the reason, the search's
   * polygraphs and the level decided beside dropped, so that the levels after it (the weak
   * levels, Elle's, and those a witness or known cycle decides) are still decided in the memory
   * freed; before, the whole check ended "out of memory", every verdict lost. Its statistics
   * say {@code :out-of-memory true}.
   */
  private Outcome outOfMemory(Level l) {
    release();
    if (exhausted == null) exhausted = l;
    LinkedHashMap<String, Object> st = statsOf(l);
    st.put("out-of-memory", true);
    return new Outcome(Verdict.Value.UNKNOWN, String.format("out of memory while deciding %s: its search of %s did not fit "
        + "in this JVM's heap (max %,d MB); raise the heap (ISOCHECK_HEAP, -Xmx)", l.id, subject(),
        Runtime.getRuntime().maxMemory() >> 20), List.of(), st);
  }

  /**
   * Drops what the search keeps for the levels after this one (the polygraphs, and the workload's
   * own: {@link #releaseBuilt}), and stops a level decided beside: what a search that ran out of
   * memory leaves.
   */
  private void release() {
    java.util.Arrays.fill(byFamily, null);
    if (Thread.currentThread() != besideRunner) {
      stopBeside();
      besideLevel = null;
    }
    releaseBuilt();
  }

  /** Drops the polygraphs and known graphs the workload keeps for later levels ({@link #release}). */
  void releaseBuilt() {}

  /** The levels whose witness schedule was tried (once is enough: it depends on the level alone). */
  private final java.util.EnumSet<Level> witnessTried = java.util.EnumSet.noneOf(Level.class);

  /** The levels whose known graph alone was checked and found acyclic (not checked again). */
  private final java.util.EnumSet<Level> knownAcyclicTried = java.util.EnumSet.noneOf(Level.class);

  /** Statistics of steps taken for a level before its own search (the witness, the known graph), carried into it. */
  private final java.util.EnumMap<Level, LinkedHashMap<String, Object>> pending = new java.util.EnumMap<>(Level.class);

  private LinkedHashMap<String, Object> statsOf(Level l) { return pending.computeIfAbsent(l, k -> new LinkedHashMap<>()); }

  /** The next weaker level in l's chain (realtime ⊒ process ⊒ plain; GSI ⊒ plain SI), or null for a plain level. */
  static Level weaker(Level l) {
    if (l.family == Level.Family.PLAIN) return null;
    boolean ser = l.kind == Level.Kind.SER;
    if (l.family == Level.Family.REALTIME) return ser ? Level.STRONG_SESSION_SERIALIZABLE : Level.STRONG_SESSION_SNAPSHOT_ISOLATION;
    return ser ? Level.SERIALIZABLE : Level.SNAPSHOT_ISOLATION;
  }

  /**
   * The cheap steps of the weaker levels before l's own search, when l's witness schedule
   * fails: the witness of each weaker level but the plain one (one that holds ends this: l is
   * then searched, and the weaker ones hold), then the plain level's known graph alone. A cycle
   * there violates the plain level, and so l, which implies it, without l's polygraph; and
   * every level between, without theirs. On the Jepsen-shaped history of a snapshot-isolation
   * store (lein bench search, 10^6 transactions), the three serializable levels were each
   * refuted by a polygraph or known graph of their own (3.1 s); the plain level's known graph
   * alone takes a fifth of that. Null: l is searched on its own (its witness is then not tried
   * again).
   */
  private Outcome viaWeaker(Level l, long deadline) {
    if (l.family == Level.Family.PLAIN || (l.kind != Level.Kind.SER && l.kind != Level.Kind.SI)) return null;
    if (tryWitness) {
      Outcome w = witnessOnce(l);
      if (w != null) return w;
    }
    // The weaker levels' witnesses and known graph only once l's witness was tried and failed:
    // a sign l may be violated. (When l's polygraph exists, none is tried: it decides l at once.)
    boolean failed = pending.containsKey(l) && pending.get(l).containsKey("witness-ms");
    // And only while l's polygraph is being built on the other core: then these steps cost no
    // time of their own. Else l's polygraph exists (strong SI's, once strict serializability's
    // was built) and searching it is as cheap: on the Jepsen-shaped history of an SI store at
    // 10^6, strong-session SI's schedule (1 s) came before strong SI's time order (0.6 s),
    // which then implied it.
    failed = failed && ahead(l.family);
    Level m = weaker(l);
    for (; m.family != Level.Family.PLAIN; m = weaker(m)) {
      Outcome om = outcomes.get(m);
      if (om != null) return om.value == Verdict.Value.FALSE ? impliedFalse(l, m, om) : null;
      if (!failed) continue;
      probe = true;
      Outcome w;
      try {
        w = witnessOnce(m);
      } finally {
        probe = false;
      }
      if (w != null) {
        outcomes.put(m, w);
        return null;
      }
    }
    Outcome op = outcomes.get(m);
    if (op == null && failed && !knownAcyclicTried.contains(m)) {
      op = knownCycle(m, deadline, statsOf(m));
      if (op != null) outcomes.put(m, op);
    }
    return op != null && op.value == Verdict.Value.FALSE ? impliedFalse(l, m, op) : null;
  }

  /** l violated because the weaker level m, which it implies, is: m's counterexamples, which rule l out too. */
  private Outcome impliedFalse(Level l, Level m, Outcome om) {
    LinkedHashMap<String, Object> st = statsOf(l);
    st.put("decided-by", new Kw("weaker-level"));
    st.put("weaker-level", new Kw(m.id));
    return new Outcome(Verdict.Value.FALSE, null, om.anomalies, st);
  }

  /**
   * Whether the witness being tried is a weaker level's, tried for a stronger one
   * ({@link #viaWeaker}): then its cheaper part alone, the greedy passes, not Kahn's schedule,
   * since the plain level's known graph comes next. (On the Jepsen-shaped history of an SI
   * store at 10^6, strong-session serializability's greedy passes failed in 0.1 s and Kahn's
   * schedule then in 0.3 s, beside the polygraph build the check waits for.) The level is not
   * witnessed again when it is decided itself: its search decides it.
   */
  boolean probe;

  /** l's witness schedule, once: the outcome when it holds, else null. */
  private Outcome witnessOnce(Level l) {
    if (!witnessTried.add(l)) return null;
    progress.stage(l.id + ": time-ordered schedule");
    return witness(l, statsOf(l));
  }

  /**
   * A plain serializable or SI level, first by its strong-session counterpart, which implies it:
   * when that holds, so does l. Without session order a known graph can be so wide that pruning's
   * reachability does not pay and the solver meets every open pair (a 10^5-transaction history of
   * a serializable store: unknown after 60 s), while with it the graph is as narrow as the
   * clients are many, and a correct store usually keeps session order too. Null: l is searched
   * on its own (the counterpart is violated, or l is not plain).
   */
  private Outcome viaSessions(Level l, long deadline) {
    if (l.family != Level.Family.PLAIN || (l.kind != Level.Kind.SER && l.kind != Level.Kind.SI)) return null;
    Level s = l.kind == Level.Kind.SER ? Level.STRONG_SESSION_SERIALIZABLE : Level.STRONG_SESSION_SNAPSHOT_ISOLATION;
    Outcome os = decide(s, deadline);
    if (os.value != Verdict.Value.TRUE) return null;
    LinkedHashMap<String, Object> st = new LinkedHashMap<>();
    st.put("decided-by", new Kw("implied"));
    st.put("implied-by", new Kw(s.id));
    st.put("implied-by-search", os.stats);
    Outcome r = new Outcome(Verdict.Value.TRUE, null, List.of(), st);
    r.witness = os.witness;
    return r;
  }

  /** The snapshot-isolation level with the same orders as l. */
  static Level siOf(Level.Family f) {
    return f == Level.Family.PLAIN ? Level.SNAPSHOT_ISOLATION
        : f == Level.Family.PROCESS ? Level.STRONG_SESSION_SNAPSHOT_ISOLATION
        : f == Level.Family.COMMIT_REALTIME ? Level.GSI : Level.STRONG_SNAPSHOT_ISOLATION;
  }

  private Outcome search(Level l, long deadline) {
    if (l == besideLevel) return awaitBeside(l);
    LinkedHashMap<String, Object> st = statsOf(l);
    Outcome early = early(l, st);
    if (early != null) return early;
    if (shortcuts && tryWitness && witnessTried.add(l)) {
      progress.stage(l.id + ": time-ordered schedule");
      Outcome w = witness(l, st);
      if (w != null) return w;
    }
    if (shortcuts && !knownAcyclicTried.contains(l)) {
      Outcome k = knownCycle(l, deadline, st);
      if (k != null) return k;
    }
    if (exhausted != null && byFamily[l.family.ordinal()] == null) {
      st.put("out-of-memory", true);
      return new Outcome(Verdict.Value.UNKNOWN, String.format("not searched: deciding %s ran out of memory before it (its "
          + "search of %s did not fit in this JVM's heap, max %,d MB); raise the heap (ISOCHECK_HEAP, -Xmx)", exhausted.id,
          subject(), Runtime.getRuntime().maxMemory() >> 20), List.of(), st);
    }
    if (System.nanoTime() > deadline) return late(l, "before its polygraph was built", st);
    Polygraph p;
    progress().stage(l.id + ": polygraph");
    try {
      p = polygraph(l.family);
    } catch (Polygraph.TooLarge e) {
      st.put("side-edges", e.edges);
      // Refused for being quadratic though it fits: constraints generated lazily get a share of
      // the time, and the whole polygraph the rest if they did not decide.
      boolean fits = e.edges <= Polygraph.maxSideEdges() && !"false".equals(System.getProperty("isocheck.search.whole-after-lazy"));
      long now = System.nanoTime();
      // (Tests leave them no time, -Disocheck.search.lazy-share=0, to meet the whole polygraph after them.)
      int share = Integer.getInteger("isocheck.search.lazy-share", LAZY_SHARE);
      Outcome lz = lazily(l, fits ? (share <= 0 ? now : now + Math.max(0, deadline - now) / share) : deadline, st);
      if (lz != null && (!fits || lz.value != Verdict.Value.UNKNOWN || System.nanoTime() >= deadline)) return lz;
      if (lz == null) {
        return new Outcome(Verdict.Value.UNKNOWN, "deciding " + l.id + " needs " + subject() + ", but " + e.getMessage(),
            List.of(), st);
      }
      progress().stage(l.id + ": polygraph, whole, after constraints generated lazily");
      Polygraph.Builder.WHOLE.set(true);
      try {
        p = polygraph(l.family);
      } catch (Polygraph.TooLarge e2) {
        return lz;
      } finally {
        Polygraph.Builder.WHOLE.set(false);
      }
      st.remove("time-limit-passed");
      st.put("whole-after-lazy", true);
      return searchIn(l, p, deadline, st);
    }
    return searchIn(l, p, deadline, st);
  }

  /**
   * Constraints generated lazily get 1/LAZY_SHARE of the time left when the whole polygraph
   * would fit, then it is built whole and searched with the rest ({@code :whole-after-lazy
   * true}). lein bench prune's proxy of VeriStrong's yuga-G2-b (27,000 transactions of the SI
   * store, 450 keys written about 120 times each; 9.8 million side edges, 91 a micro-op):
   * serializability, violated, without session order, was still open lazily at 60 s (25,239
   * pairs, 26,796 conflicts in the second round's solve), where the whole polygraph's search
   * refutes it in 6-7 s (polygraph, pinned rounds, solver). The lazy wins measured (lein bench lazy, search) take at most
   * 8.5 s, within a quarter of the default limit.
   */
  static final int LAZY_SHARE = 4;

  // ------------------------------------------------------------------ constraints generated lazily

  /**
   * Family f's constraints generated lazily ({@link LazyConstraints}), when its whole polygraph
   * is too large to build and the workload can generate them (null: it cannot).
   */
  LazyConstraints lazy(Level.Family f) { return null; }

  /** Family f's polygraph p with the session and realtime orders f carries. */
  Polygraph withOrders(Polygraph p, Level.Family f) {
    return p.withOrders(f.carries(Level.Family.PROCESS), f.carries(Level.Family.COMMIT_REALTIME));
  }

  /**
   * A model's order that breaks at most this many pairs is tried for a repair
   * ({@link LazyConstraints#repair}); one that breaks more gets its pairs at once.
   */
  static final int REPAIR_BELOW = 64;

  private static final boolean DEBUG = Boolean.getBoolean("isocheck.lazy.debug");

  /**
   * l unknown because the search's time limit passed at a stage boundary (or in a long stage's
   * loop), named by {@code where}: the search stops there rather than run its next stage to the
   * end (on a Plume-shaped history of 10^5 transactions with a 2 s limit, the polygraph build,
   * pruning and the solver's setup each ran past it, 10 s in all). Statistics say
   * {@code :time-limit-passed true}.
   */
  private Outcome late(Level l, String where, Map<String, Object> st) {
    st.put("time-limit-passed", true);
    return new Outcome(Verdict.Value.UNKNOWN, String.format("the time limit passed while searching %s for %s (%s); raise "
        + "the time limit (:time-limit, --time-limit)", subject(), l.id, where), List.of(), st);
  }

  /**
   * Per node of g, where the solver's first order should place it (AcyclicitySolver#setNodeRanks),
   * or null for node ids: the workloads whose node ids may not follow time say.
   */
  long[] nodeRanks(LevelGraph g) { return null; }

  /** Whether a round of {@link #lazily} is being searched (no level is then searched beside it). */
  private boolean lazyRound;

  /**
   * Decides l by constraints generated lazily ({@link LazyConstraints}), with one incremental
   * solver ({@link AcyclicitySolver}) over l's level graph: the known edges, and a variable per
   * writer pair generated so far. Each model's topological order is repaired into a witness of
   * the whole polygraph when its version orders allow ({@link LazyConstraints#repair}: the level
   * holds); else the pairs it breaks become variables ({@link LazyConstraints#refine}) and the
   * solver goes on, keeping what it learnt and its order. UNSAT on a subset of the constraints is
   * UNSAT on all of them: the ordinary search on the polygraph of the pairs generated then finds
   * and explains the violation. Null when the workload cannot generate constraints lazily. Its
   * statistics say {@code :lazy-rounds} (models refined), {@code :lazy-pairs} (the constraints
   * generated) and {@code :side-edges} (what the whole polygraph would have had).
   */
  private Outcome lazily(Level l, long deadline, LinkedHashMap<String, Object> st) {
    LazyConstraints z;
    long t0 = System.nanoTime();
    // (Tests turn it off, -Disocheck.search.lazy-constraints=false, to meet the unknown verdict
    // of a polygraph too large to build.)
    if ("false".equals(System.getProperty("isocheck.search.lazy-constraints"))) return null;
    try {
      z = lazy(l.family);
    } catch (Polygraph.TooLarge e) {
      return null;
    }
    if (z == null) return null;
    boolean si = l.kind == Level.Kind.SI;
    progress().stage(l.id + ": constraints generated lazily");
    Polygraph p = withOrders(z.polygraph(), l.family);
    LinkedHashMap<String, Object> rs = st;
    Outcome pre = before(l, p, rs);
    if (pre != null) return pre;
    LevelGraph g = new LevelGraph(p, si, l.family == Level.Family.COMMIT_REALTIME);
    AcyclicitySolver s = new AcyclicitySolver(g.nodes);
    boolean known = true;
    for (int i = 0; i < g.known.size() && known; i++) known = s.addKnownEdge(g.known.src(i), g.known.dst(i));
    if (!known) return explainLazily(l, z, p, deadline, rs, t0); // (a cycle of known edges: the search shows it)
    s.setNodeRanks(nodeRanks(g));
    for (int c = 0; c < p.constraints(); c++) z.bind(s, g, p.first[c], p.second[c]);
    s.setLazyDecisions(!"false".equals(System.getProperty("isocheck.search.lazy")));
    long conflicts = 0;
    int rounds = 0;
    while (true) {
      long left = (deadline - System.nanoTime()) / 1_000_000L;
      Status status = left <= 0 ? Status.UNKNOWN : null;
      if (status == null) {
        s.setTimeBudget(left);
        status = s.okay() ? s.solve() : Status.UNSAT;
      }
      rounds++;
      rs.put("lazy-rounds", (long) rounds);
      rs.put("lazy-pairs", (long) z.pairs());
      rs.put("lazy-ms", (System.nanoTime() - t0) / 1_000_000L);
      rs.put("lazy-conflicts", s.stats().conflicts);
      if (status == Status.UNSAT) return explainLazily(l, z, null, deadline, rs, t0);
      if (status != Status.SAT) {
        return new Outcome(Verdict.Value.UNKNOWN, String.format("the time limit passed while searching %s for %s with "
            + "%s generated lazily (%,d so far, in %,d rounds; the whole polygraph would take %,d edges); raise the time "
            + "limit (:time-limit, --time-limit)", subject(), l.id, constraintNoun(), z.pairs(), rounds,
            (Long) rs.getOrDefault("side-edges", 0L)), List.of(), rs);
      }
      int[] order = s.topologicalOrder();
      long ta = System.nanoTime();
      // The pairs the model's order breaks. None, or a few: the order may be repaired into a
      // witness (its version orders kept, the rest moved; with none broken, the order itself,
      // checked); many, it will not be, and the repair, a pass over the whole graph, is skipped.
      long[] fresh = z.refine(order, si);
      long tb = System.nanoTime();
      int[] witness = fresh.length <= REPAIR_BELOW ? z.repair(g, order) : null;
      if (witness == null && fresh.length == 0) throw new IllegalStateException(l.id + ": a model breaks no constraint, yet its order is no witness");
      long tc = System.nanoTime();
      if (DEBUG) System.err.printf("lazy %s round %d: +%d -> %d pairs, %d conflicts; refine %d ms, repair %d ms, %d ms%n", l.id, rounds, fresh.length, z.pairs(), s.stats().conflicts, (tb - ta) / 1_000_000L, (tc - tb) / 1_000_000L, (tc - t0) / 1_000_000L);
      if (witness != null) {
        rs.put("decided-by", new Kw("lazy-constraints"));
        Outcome o = new Outcome(Verdict.Value.TRUE, null, new ArrayList<>(), rs);
        if (witnesses) o.witness = new isocheck.check.Witness(si, witness, p.committed);
        return o;
      }
      for (long pair : fresh) z.bind(s, g, (int) (pair >>> 32), (int) pair);
    }
  }

  /**
   * l is violated on the constraints generated so far (or its known edges close a cycle): the
   * ordinary search on their polygraph ({@code p}, or built now) finds and explains it.
   */
  private Outcome explainLazily(Level l, LazyConstraints z, Polygraph p, long deadline, LinkedHashMap<String, Object> st,
                                long t0) {
    progress().stage(l.id + ": polygraph of the constraints generated lazily");
    Polygraph q = p != null ? p : withOrders(z.polygraph(), l.family);
    lazyRound = true;
    try {
      Outcome o = searchIn(l, q, deadline, st);
      st.put("lazy-ms", (System.nanoTime() - t0) / 1_000_000L);
      if (o.value == Verdict.Value.TRUE) throw new IllegalStateException(l.id + " holds on the constraints the solver refuted");
      return o;
    } finally {
      lazyRound = false;
    }
  }


  /** l's search from its polygraph p on: what {@link #search} does once p is built. */
  private Outcome searchIn(Level l, Polygraph p, long deadline, LinkedHashMap<String, Object> st) {
    st.put("polygraph-ms", buildNs[l.family.ordinal()] / 1_000_000L);
    if (builtAhead(l.family)) st.put("built-ahead", true);
    if (builtAfterWitness(l.family)) st.put("built-after-witness", true);
    st.put("constraints", (long) p.constraints());
    st.put("known-edges", (long) p.known.size());
    if (p.realtimeEdges > 0) st.put("realtime-edges", p.realtimeEdges);
    Outcome pre = before(l, p, st);
    if (pre != null) return pre;
    if (!lazyRound) startBeside(l, deadline);
    List<Anomaly> found = new ArrayList<>();
    boolean si = l.kind == Level.Kind.SI;
    long tp = System.nanoTime();
    LevelGraph g = new LevelGraph(p, si, l.family == Level.Family.COMMIT_REALTIME);
    // The known graph alone first: a cycle in it is a violation, and when the sides the
    // history's own time suggests leave it acyclic the level holds: the common case, with
    // neither pruning nor solver. Then pruning to a fixpoint, the time order again, the solver.
    // (Without the shortcuts, as tests compare, the solver decides alone.)
    progress().stage(l.id + ": known graph");
    Pruning pr = new Pruning(g).build();
    if (shortcuts) progress().stage(l.id + ": time order");
    int[] pos = shortcuts ? timeOrder(g, pr.known()) : null;
    if (pos == null && shortcuts) pr.firstCycle();
    else if (pos == null) pr.checkOnly();
    else pr.acyclic();
    if (shortcuts && pr.status == Pruning.Status.OPEN && topologicalChoice(g, pr, pos, st)) {
      st.put("prune-ms", (System.nanoTime() - tp) / 1_000_000L);
      st.put("open", (long) p.constraints());
      st.put("decided-by", new Kw("time-order"));
      return holds(found, st, g, lastChoice);
    }
    boolean knownCycle = pr.status == Pruning.Status.VIOLATED;
    if (pr.status == Pruning.Status.OPEN && System.nanoTime() > deadline) {
      st.put("prune-ms", (System.nanoTime() - tp) / 1_000_000L);
      return late(l, String.format("before pruning: %,d %s open", p.constraints(), constraintNoun()), st);
    }
    if (shortcuts && pr.status == Pruning.Status.OPEN) {
      if ("false".equals(System.getProperty("isocheck.search.prune"))) {
        // (Tests skip pruning, -Disocheck.search.prune=false, so that the time order and the
        // solver after it, the pinned rounds first, meet what pruning would have decided.)
        pr.checkOnly();
      } else {
        progress().stage(l.id + ": pruning", p.constraints(), "constraints decided");
        Pruning full = new Pruning(g);
        full.progress = progress();
        pr = full.run(deadline);
      }
    }
    st.put("pruning-rounds", (long) pr.rounds);
    if (!pr.roundStats.isEmpty()) {
      // Per round: ms (its graph, components and clocks, then the sides' tests) and constraints decided.
      List<Long> ms = new ArrayList<>(), dec = new ArrayList<>();
      for (long[] rs : pr.roundStats) {
        ms.add(rs[0] + rs[1]);
        dec.add(rs[3]);
      }
      st.put("pruning-round-ms", ms);
      st.put("pruning-round-decided", dec);
    }
    if (pr.tooWide) st.put("pruning-stopped", new isocheck.history.Kw("too-wide"));
    st.put("pruned", (long) pr.decided);
    long t1 = System.nanoTime();
    st.put("prune-ms", (t1 - tp) / 1_000_000L);
    if (pr.status == Pruning.Status.VIOLATED) {
      // A serializability counterexample may rest on orders pruning forced by serializability's
      // rules; its cycle's shape then claims snapshot isolation too only if SI is violated as
      // well. Else no order avoids a cycle with an anti-dependency: G2-item (Adya).
      st.put("decided-by", new Kw(knownCycle ? "known-graph" : "pruning"));
      found.add(counterexample(l, g, pr, knownCycle));
      return new Outcome(Verdict.Value.FALSE, null, found, st);
    }
    if (pr.status == Pruning.Status.DECIDED) {
      st.put("decided-by", new Kw(p.constraints() == 0 ? "known-graph" : "pruning"));
      return holds(found, st, g, pr.choice);
    }
    int open = p.constraints() - pr.decided;
    st.put("open", (long) open);
    if (System.nanoTime() > deadline) {
      return late(l, String.format("after pruning: %,d of %,d %s open", open, p.constraints(), constraintNoun()), st);
    }
    if (shortcuts) progress().stage(l.id + ": time order");
    int[] again = shortcuts ? timeOrder(g, pr.known()) : null;
    if (again != null && topologicalChoice(g, pr, again, st)) {
      st.put("decided-by", new Kw("time-order"));
      return holds(found, st, g, lastChoice);
    }
    if (again != null && !"false".equals(System.getProperty("isocheck.search.pinned"))) {
      // In turns: the pinned rounds, which find a model where the level holds, and the solver
      // over every open constraint, which (with lazy decisions) refutes it where it does not.
      // First PINNED_ROUNDS rounds, more while they are cheap (CHEAP_ROUNDS_SHARE), in a third
      // of the time left; then the full solver, with all
      // the time left but a quarter of it when more than TURNS_AFTER_NS is left; then rounds
      // again until the deadline, and the full solver for whatever time they leave. (A
      // Plume-shaped history of 2·10^5 transactions over 200,000 keys, serializable: 5 rounds
      // find its model in 19 s, where the full solver was unknown after 400 s: decided with a
      // limit of 120 s. Over 400,000 keys, violated: the full solver refutes it in 1.3 s, where
      // the rounds never end with a model. 10^5 over 50,000 keys, violated: the full solver
      // needs 28 s, 12,828 conflicts; with half or three quarters of the time left it was, at
      // least once each, unknown at the default 60 s, which it is not with all of it.)
      progress().stage(l.id + ": solver, the time order's sides fixed");
      Pinned pin = new Pinned(l, g, pr, again, st, found);
      long now = System.nanoTime();
      // (Tests take one round first and skip the full solver's turn, so that the rounds after it
      // meet the cases it would have decided: -Disocheck.search.pinned-rounds=1,
      // -Disocheck.search.full-turn=false. Rounds set so get that many alone, cheap or not.)
      Integer setRounds = Integer.getInteger("isocheck.search.pinned-rounds");
      // (The first PINNED_ROUNDS rounds may run to the deadline: a round of the Plume-shaped
      // history over 200,000 keys takes 3-6 s on a loaded machine, and once a third of the time
      // left fitted only one, the full solver's turn, over 9.8 million open constraints, took the
      // rest: unknown, where the second round finds the model.)
      Outcome o = pin.rounds(now + Math.max(1, (deadline - now) / 3), setRounds != null ? setRounds : PINNED_ROUNDS,
          setRounds != null ? 0 : (deadline - now) / CHEAP_ROUNDS_SHARE, deadline);
      if (o != null) return o;
      if (!pin.exhausted) {
        if (!"false".equals(System.getProperty("isocheck.search.full-turn"))) {
          progress().stage(l.id + ": solver");
          now = System.nanoTime();
          long left = deadline - now, reserve = left > TURNS_AFTER_NS ? left / 4 : 0;
          o = solve(l, g, pr, again, deadline - reserve, deadline, st, found);
          if (o.value != Verdict.Value.UNKNOWN) return o;
        }
        progress().stage(l.id + ": solver, the time order's sides fixed, again");
        Outcome again2 = pin.rounds(deadline, Integer.MAX_VALUE);
        if (again2 != null) return again2;
        if (o != null && System.nanoTime() >= deadline - 1_000_000L) return o;
      }
    }
    progress().stage(l.id + ": solver");
    return solve(l, g, pr, again, deadline, deadline, st, found);
  }

  /**
   * The time order's sides where they cannot close a cycle, and the solver for the rest: every
   * open constraint one of whose sides points wholly forward in pos (a topological order of the
   * known graph with the sides pruning decided) is fixed to that side (the writers' order in pos
   * first), as a known edge; the others, contested (both sides go back somewhere), are the
   * solver's variables. Known and fixed edges all agree with pos, so only the contested ones can
   * close a cycle, and the solver, whose trail then holds them alone, does not redo the fixed
   * ones' decisions after each conflict. Satisfiable: the level holds (the outcome). Else null:
   * the fixed sides were a choice, so nothing is concluded, and the solver decides every open
   * constraint. On a Plume-shaped history of 2·10^5 transactions (an SI store; strong-session
   * serializability violated, so serializability searched without session order), 4.9 million
   * open constraints, too wide for pruning, left the solver unknown after 60 s (71 conflicts,
   * each redoing up to millions of decisions); 878 of their edges went back in the time order.
   * ({@code [:stats :search <level> :pinned-solve]}). Rounds are run in turns with the full
   * solver ({@link #searchIn}): the state (which sides are fixed) carries over.
   */
  private final class Pinned {
    final Level l;
    final LevelGraph g;
    final Pruning pr;
    final Map<String, Object> st;
    final List<Anomaly> found;
    final int nc, open;
    /** Per constraint: the side it is fixed to, or -1 while contested (pruning's choices included). */
    final int[] fix;
    final boolean[] near;
    final LinkedHashMap<String, Object> ps = new LinkedHashMap<>();
    int contested, rounds, contestedSolves, sccFreed;
    final boolean nearFreeing = !"false".equals(System.getProperty("isocheck.search.near-freeing"));
    long conflicts, ns, contestedConflicts, contestedNs;
    final int[] pos;
    /** Whether no round can follow: none freed a fixed side, or none is left fixed. */
    boolean exhausted;

    Pinned(Level l, LevelGraph g, Pruning pr, int[] pos, Map<String, Object> st, List<Anomaly> found) {
      long t0 = System.nanoTime();
      this.l = l;
      this.pos = pos;
      this.g = g;
      this.pr = pr;
      this.st = st;
      this.found = found;
      nc = g.p.constraints();
      fix = new int[nc];
      for (int c = 0; c < nc; c++) {
        if (pr.choice[c] >= 0) {
          fix[c] = pr.choice[c];
          continue;
        }
        int a = g.p.first[c], b = g.p.second[c];
        int pref = g.si ? (pos[BcGraph.commit(a)] < pos[BcGraph.commit(b)] ? 0 : 1) : (pos[a] < pos[b] ? 0 : 1);
        if (forward(g, c, pref, pos)) fix[c] = pref;
        else if (forward(g, c, 1 - pref, pos)) fix[c] = 1 - pref;
        else {
          fix[c] = -1;
          contested++;
        }
      }
      open = open(pr);
      near = new boolean[g.nodes];
      exhausted = contested == open;
      ps.put("open", (long) open);
      ps.put("contested", (long) contested);
      st.put("pinned-solve", ps);
      ns = System.nanoTime() - t0;
    }

    /**
     * Per node, its strongly connected component of the known graph with pruning's sides, the
     * fixed sides and the given model's edges (from, to pairs) when that component is a cycle,
     * else -1; null when there is none (the model and the fixed sides are a choice for every
     * open constraint that leaves the graph acyclic).
     */
    int[] cyclicComponents(int[] model) {
      isocheck.graph.EdgeList es = new isocheck.graph.EdgeList(g.known.size() + model.length / 2 + 16);
      for (int i = 0; i < g.known.size(); i++) es.add(g.known.src(i), g.known.dst(i), 1);
      for (int c = 0; c < nc; c++) {
        int side = pr.choice[c] >= 0 ? pr.choice[c] : fix[c];
        if (side < 0) continue;
        for (int e = g.p.sideFrom(c, side); e < g.p.sideTo(c, side); e++) es.add(g.sideSrc[e], g.sideDst[e], 1);
      }
      for (int i = 0; i + 1 < model.length; i += 2) es.add(model[i], model[i + 1], 1);
      isocheck.graph.Scc scc = isocheck.graph.Scc.of(Digraph.unordered(g.nodes, es), 1);
      if (!scc.hasCycle()) return null;
      int[] comp = new int[g.nodes];
      for (int v = 0; v < g.nodes; v++) comp[v] = scc.cyclic[scc.comp[v]] ? scc.comp[v] : -1;
      return comp;
    }

    /**
     * Rounds until {@code until} (System.nanoTime()), {@code maxRounds} more at most: the
     * outcome when one finds a model, else null ({@link #exhausted} says whether another
     * round could follow).
     */
    Outcome rounds(long until, int maxRounds) { return rounds(until, maxRounds, 0); }

    /**
     * As above, and past maxRounds while cheap: while the rounds of this turn have taken less
     * than {@code cheapNs} each on average.
     */
    Outcome rounds(long until, int maxRounds, long cheapNs) { return rounds(until, maxRounds, cheapNs, until); }

    /** As above; the first maxRounds rounds may run until {@code firstUntil} when that is later than until. */
    Outcome rounds(long until, int maxRounds, long cheapNs, long firstUntil) {
      long t0 = System.nanoTime();
      try {
        for (int k = 0; (k < maxRounds || (k > 0 && (System.nanoTime() - t0) / k < cheapNs)) && !exhausted; k++) {
          long upTo = k < maxRounds ? Math.max(until, firstUntil) : until;
          long left = (upTo - System.nanoTime()) / 1_000_000L;
          if (left <= 0) return null;
          rounds++;
          long tr = System.nanoTime();
          AcyclicitySolver s = new AcyclicitySolver(g.nodes);
          for (int i = 0; i < g.known.size(); i++) s.addKnownEdge(g.known.src(i), g.known.dst(i));
          for (int c = 0; c < nc; c++) {
            if (fix[c] < 0) continue;
            for (int e = g.p.sideFrom(c, fix[c]); e < g.p.sideTo(c, fix[c]); e++) s.addKnownEdge(g.sideSrc[e], g.sideDst[e]);
          }
          // (Latest pair first, as in solve.)
          for (int c = nc - 1; c >= 0; c--) {
            if (fix[c] >= 0) continue;
            int x = s.newVar();
            for (int e = g.p.sideFrom(c, 0); e < g.p.sideTo(c, 0); e++) s.addEdge(x, g.sideSrc[e], g.sideDst[e]);
            for (int e = g.p.sideFrom(c, 1); e < g.p.sideTo(c, 1); e++) s.addEdge(-x, g.sideSrc[e], g.sideDst[e]);
          }
          left = (upTo - System.nanoTime()) / 1_000_000L;
          if (left <= 0) return null;
          s.setTimeBudget(left);
          if (Thread.currentThread() == besideRunner) {
            besideSolver = s;
            if (besideCancelled) throw new BesideCancelled();
          }
          long ts = System.nanoTime();
          Status status = s.okay() ? s.solve() : Status.UNSAT;
          conflicts += s.stats().conflicts;
          if (DEBUG) System.err.printf("pinned %s round %d: %,d contested, build %d ms, solve %d ms, %d conflicts: %s%n", l.id, rounds, contested, (ts - tr) / 1_000_000L, (System.nanoTime() - ts) / 1_000_000L, s.stats().conflicts, status);
          if (status == Status.SAT) {
            st.put("decided-by", new Kw("solver"));
            return holdsIn(found, st, g, s.topologicalOrder());
          }
          if (status != Status.UNSAT) return null;
          Refutation ref = s.refutation();
          List<EdgeCycle> cycles = new ArrayList<>();
          if (ref != null) for (Refutation.Step step : ref.steps) if (step.cycle != null) cycles.add(step.cycle);
          // The fixed sides near the cycles that refuted this choice are contested next round.
          java.util.Arrays.fill(near, false);
          if (s.lastCycle() != null) cycles.add(s.lastCycle());
          for (EdgeCycle ec : cycles) for (int v : ec.nodes) near[v] = true;
          int freed = 0;
          // (Tests skip this, -Disocheck.search.near-freeing=false, so that every round takes the
          // step below: the contested constraints alone, then the model's components.)
          for (int c = 0; c < nc && nearFreeing; c++) {
            if (fix[c] < 0 || pr.choice[c] >= 0) continue;
            boolean touch = touches(g, near, g.p.first[c]) || touches(g, near, g.p.second[c]);
            for (int e = g.p.sideFrom(c, fix[c]); !touch && e < g.p.sideTo(c, fix[c]); e++) touch = near[g.sideSrc[e]] || near[g.sideDst[e]];
            if (touch) {
              fix[c] = -1;
              freed++;
            }
          }
          if (freed == 0) {
            // None: the refutation's recorded cycles miss the fixed sides it rests on (learnt
            // clauses keep no derivation). Then the contested constraints alone, without the
            // fixed sides: their refutation is l's. Else their model, with the fixed sides, has a
            // cycle (or it would be a model of this round); every fixed side inside one of its
            // strongly connected components is contested next (at least one: known and fixed
            // edges alone go forward in pos). So each round frees one at least, and the rounds
            // end in a model or a refutation. (A 10^4 history of an SI store, blind writes over
            // 616 keys: serializability's 102,589 open constraints were unknown after 60 s, and
            // took 219 s at a 900 s limit; the rounds stopped after 5, none freed by their
            // cycles. The 63 sides inside the model's components freed, the 6th round found a
            // model: 0.3 s.)
            long now = System.nanoTime();
            Outcome r = solve(l, g, pr, pos, now + Math.max(1, (until - now) / 2), until, st, found, fix);
            contestedSolves++;
            contestedNs += System.nanoTime() - now;
            if (lastContestedSolve != null) contestedConflicts += (Long) lastContestedSolve.getOrDefault("conflicts", 0L);
            if (r != null) {
              ps.put("refuted-by-contested", true);
              return r;
            }
            if (lastContestedModel == null) return null;
            int[] comp = cyclicComponents(lastContestedModel);
            if (comp == null) {
              st.put("decided-by", new Kw("solver"));
              ps.put("model", new Kw("contested-and-fixed"));
              return holdsIn(found, st, g, witnesses ? witnessOrder(g, fix, lastContestedModel) : null);
            }
            for (int c = 0; c < nc; c++) {
              if (fix[c] < 0 || pr.choice[c] >= 0) continue;
              boolean in = false;
              for (int e = g.p.sideFrom(c, fix[c]); !in && e < g.p.sideTo(c, fix[c]); e++) {
                in = comp[g.sideSrc[e]] >= 0 && comp[g.sideSrc[e]] == comp[g.sideDst[e]];
              }
              if (in) {
                fix[c] = -1;
                freed++;
              }
            }
            sccFreed += freed;
          }
          contested += freed;
          exhausted = freed == 0 || contested == open;
          if (DEBUG) System.err.printf("pinned %s round %d: freed %,d (%d cycles), %d ms in all%n", l.id, rounds, freed, cycles.size(), (System.nanoTime() - tr) / 1_000_000L);
        }
        return null;
      } finally {
        ns += System.nanoTime() - t0;
        ps.put("rounds", (long) rounds);
        ps.put("contested", (long) contested);
        ps.put("conflicts", conflicts);
        if (contestedSolves > 0) {
          ps.put("contested-solves", (long) contestedSolves);
          ps.put("contested-conflicts", contestedConflicts);
          ps.put("contested-ms", contestedNs / 1_000_000L);
          if (sccFreed > 0) ps.put("freed-by-components", (long) sccFreed);
        }
        ps.put("ms", ns / 1_000_000L);
      }
    }
  }


  /**
   * Rounds of the pinned solve's first turn ({@link Pinned}) at most: each builds a solver over
   * every known and fixed edge (a Plume-shaped history of 10^5 transactions over 10^5 keys, 4.8
   * million constraints: 1.3-3 s a round), and a violated level never ends them with a model
   * (that history took 8 rounds and 26 s before the solver over every open constraint refuted
   * serializability in 7.6 s); the level that holds, for which they exist, took 2. A level that
   * needs more gets them after the full solver's turn.
   */
  static final int PINNED_ROUNDS = 2;

  /**
   * More rounds in the first turn (still within a third of the time left) while they take less
   * than this share of the time left each, on average (1/100: 0.6 s of the default 60): where a
   * round takes tens of milliseconds (a 10^4 history whose model took 6, and a read-committed
   * store's, 91), not where it takes seconds (a Plume-shaped history of 10^5 transactions over
   * 50,000 keys, violated: 3 s a round, where the full solver needs 28 s).
   */
  static final long CHEAP_ROUNDS_SHARE = 100;

  /**
   * With more than this left after the first rounds (a time limit raised above the default
   * 60 s), a quarter of it is kept from the full solver for more rounds; with less, the full
   * solver has all of it, as a violated level's refutation may need (see {@link #searchIn}).
   */
  static final long TURNS_AFTER_NS = 60_000_000_000L;

  /** Whether transaction t's node (SI: its begin or its commit) is marked. */
  private static boolean touches(LevelGraph g, boolean[] near, int t) {
    return g.si ? near[2 * t] || near[BcGraph.commit(t)] : near[t];
  }

  /** The constraints pruning left open. */
  private static int open(Pruning pr) {
    int k = 0;
    for (int c : pr.choice) if (c < 0) k++;
    return k;
  }

  /** Whether every edge of constraint c's side points forward in pos. */
  private static boolean forward(LevelGraph g, int c, int side, int[] pos) {
    for (int e = g.p.sideFrom(c, side); e < g.p.sideTo(c, side); e++) {
      if (pos[g.sideSrc[e]] >= pos[g.sideDst[e]]) return false;
    }
    return true;
  }

  /**
   * The known edges alone first, when they cost less than the writer pairs ({@link #knownOnly}):
   * a cycle among them rules l out without building the pairs (on the SI store's history of
   * lein bench search, strong-session serializability at 10^6), and then a level that holds can
   * still be witnessed without them. The outcome when they rule l out (a cycle, or a lost
   * update), else null (and l is marked checked when they were built).
   */
  private Outcome knownCycle(Level l, long deadline, Map<String, Object> st) {
    long tk = System.nanoTime();
    progress.stage(l.id + ": known graph");
    Polygraph k = knownOnly(l.family);
    if (k == null) return null;
    // (Two read-modify-writes of one version close a cycle of anti-dependencies here too:
    // reported as the lost update they are, as from the polygraph.)
    Outcome lost = before(l, k, st);
    if (lost != null) return lost;
    LevelGraph kg = new LevelGraph(k, l.kind == Level.Kind.SI, l.family == Level.Family.COMMIT_REALTIME);
    Pruning kp = new Pruning(kg).checkPacked();
    st.put("known-only-ms", (System.nanoTime() - tk) / 1_000_000L);
    if (kp.status != Pruning.Status.VIOLATED) {
      knownAcyclicTried.add(l);
      return null;
    }
    st.put("known-edges", (long) k.known.size());
    st.put("decided-by", new Kw("known-graph"));
    knownCycleFound(l);
    List<Anomaly> found = new ArrayList<>();
    found.add(counterexample(l, kg, kp, true));
    return new Outcome(Verdict.Value.FALSE, null, found, st);
  }

  /**
   * The open constraints to the CDCL(T) solver ({@link AcyclicitySolver}): one variable each, its
   * truth putting side 0's edges in the graph and its falsity side 1's, over the known graph with
   * every side pruning decided. SAT: the level holds. UNSAT: the solver's refutation ends in a
   * cycle of known and forced edges, present in every compatible graph: the counterexample.
   */
  private Outcome solve(Level l, LevelGraph g, Pruning pr, int[] pos, long until, long deadline, Map<String, Object> st,
                        List<Anomaly> found) {
    return solve(l, g, pr, pos, until, deadline, st, found, null);
  }

  /**
   * As above; with {@code only} (a {@link Pinned} round's sides, -1 where contested), over the
   * contested constraints alone, the others left out (not fixed): null unless that refutes l.
   * A choice for every open constraint leaves the graph acyclic only if the contested ones' part
   * of it does, so their refutation is l's, and its cycles are made of known edges and their
   * sides alone (a pinned round's refutation may rest on the sides it fixed, which prove
   * nothing).
   */
  private Outcome solve(Level l, LevelGraph g, Pruning pr, int[] pos, long until, long deadline, Map<String, Object> st,
                        List<Anomaly> found, int[] only) {
    long t0 = System.nanoTime();
    int nc = g.p.constraints();
    AcyclicitySolver s = new AcyclicitySolver(g.nodes);
    for (int i = 0; i < g.known.size(); i++) s.addKnownEdge(g.known.src(i), g.known.dst(i));
    int[] var = new int[nc];
    int[] ofVar = new int[nc + 1];
    for (int c = 0; c < nc; c++) {
      if (pr.choice[c] < 0) continue;
      for (int e = g.p.sideFrom(c, pr.choice[c]); e < g.p.sideTo(c, pr.choice[c]); e++) s.addKnownEdge(g.sideSrc[e], g.sideDst[e]);
    }
    // Variables are made latest pair first: the solver first decides the variables no conflict
    // has touched last-made-first, so it sweeps the writer pairs in time order (constraints are
    // numbered by their earlier writer), each polarity following the current topological order.
    // Made the other way round, BlindW-RW at 10^4 took 12,000 conflicts instead of 7.
    // With the time order (pos): the constraints it contests (both sides go back in it) made
    // last, so decided first: a refutation among them comes before the millions of others are
    // decided, so no conflict undoes those. (A Plume-shaped history of 10^5 transactions over
    // 10^5 keys, serializability violated: refuted after 2,384 decisions in 0.19 s, instead of
    // 4.2 million in 1.8 s.)
    boolean[] late = null;
    if (pos != null) {
      late = new boolean[nc];
      for (int c = 0; c < nc; c++) late[c] = pr.choice[c] < 0 && !forward(g, c, 0, pos) && !forward(g, c, 1, pos);
    }
    for (int pass = 0; pass < 2; pass++) {
      for (int c = nc - 1; c >= 0; c--) {
        if (pr.choice[c] >= 0 || (late != null && late[c] != (pass == 1)) || (late == null && pass == 1)) continue;
        if (only != null && only[c] >= 0) continue;
        if ((c & 65535) == 0 && System.nanoTime() > deadline) {
          // (Setting millions of constraints up takes seconds: the limit holds here too.)
          if (only != null) return null;
          return late(l, String.format("while the solver was given the %,d open %s", nc - pr.decided, constraintNoun()), st);
        }
        int x = s.newVar();
        var[c] = x;
        if (x >= ofVar.length) ofVar = java.util.Arrays.copyOf(ofVar, x * 2 + 1);
        ofVar[x] = c;
        for (int e = g.p.sideFrom(c, 0); e < g.p.sideTo(c, 0); e++) s.addEdge(x, g.sideSrc[e], g.sideDst[e]);
        for (int e = g.p.sideFrom(c, 1); e < g.p.sideTo(c, 1); e++) s.addEdge(-x, g.sideSrc[e], g.sideDst[e]);
      }
    }
    s.setTimeBudget(Math.max(1, (until - System.nanoTime()) / 1_000_000L));
    // With the time order (the shortcuts' path, after pruning and the pinned rounds): lazy
    // decisions (AcyclicitySolver#setLazyDecisions), the constraints a side of which keeps the
    // solver's order set aside until the contested ones are decided, so that a conflict among
    // those does not undo and redo the millions of others. A Plume-shaped history of 2·10^5
    // transactions over 400,000 keys (serializability, 4.9 million open constraints): the solver
    // was unknown after 40 s (67 conflicts, 99 million decisions); lazy, it refuted the level in
    // 1.4 s (257 conflicts, 3,059 decisions). Without the time order (the solver alone, as tests
    // compare) they stay off: there the settled constraints' edges, decided first, steer the
    // contested ones (Viper's BlindW-RW at 10^4: 0.19 s, and 2.3 s lazy). (Tests turn them off
    // with -Disocheck.search.lazy=false.)
    if (pos != null && !"false".equals(System.getProperty("isocheck.search.lazy"))) s.setLazyDecisions(true);
    if (Thread.currentThread() == besideRunner) {
      // (Stopped by close: interrupted until its thread ends, the solver ends soon after it starts.)
      besideSolver = s;
      if (besideCancelled) throw new BesideCancelled();
    }
    Status status = s.solve();
    LinkedHashMap<String, Object> ss = new LinkedHashMap<>(s.stats().toMap());
    ss.put("ms", (System.nanoTime() - t0) / 1_000_000L);
    if (only != null) {
      lastContestedSolve = ss;
      lastContestedModel = status == Status.SAT ? s.modelEdges() : null;
      if (status != Status.UNSAT) return null;
    }
    st.put("solver", ss);
    if (status == Status.SAT) {
      st.put("decided-by", new Kw("solver"));
      return holdsIn(found, st, g, s.topologicalOrder());
    }
    if (status == Status.UNKNOWN) {
      return new Outcome(Verdict.Value.UNKNOWN, String.format("the time limit passed while searching %s for %s: after "
          + "pruning, %,d of %,d %s were open; raise the time limit (:time-limit, --time-limit)", subject(), l.id,
          nc - pr.decided, nc, constraintNoun()), found, st);
    }
    st.put("decided-by", new Kw("solver"));
    found.add(refuted(l, g, pr, s, ofVar));
    return new Outcome(Verdict.Value.FALSE, null, found, st);
  }

  /** The statistics of the last solve over a pinned round's contested constraints alone. */
  private Map<String, Object> lastContestedSolve;

  /** Its model's edges (from, to pairs) when it had one, else null. */
  private int[] lastContestedModel;

  /** The counterexample of an UNSAT answer: the refutation's final cycle, its forced steps explained as such. */
  private Anomaly refuted(Level l, LevelGraph g, Pruning pr, AcyclicitySolver s, int[] ofVar) {
    Refutation ref = s.refutation();
    PolygraphExplainer px = explainer(g.p);
    px.forced(pr);
    ArrayList<Integer> lits = new ArrayList<>();
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
          "The search found no order of " + orderNoun() + " that leaves the graph acyclic.", null);
    }
    Steps steps = new Steps(h, px);
    if (refuteAsPair() && ref != null) {
      // An order on the final cycle whose opposite closes a cycle too, with the known edges and
      // the orders forced at the root (true in every compatible graph): the cycle that forced
      // it, or else one found under the flipped order. Both orders of that pair close a cycle.
      int[] root = lits.stream().mapToInt(Integer::intValue).toArray();
      for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < ec.length(); i++) {
          int lit = ec.lits[i];
          if (lit == 0) continue;
          EdgeCycle other = null;
          if (pass == 0) {
            for (Refutation.Step step : ref.steps) {
              if (step.lit == lit && step.reason == Refutation.Reason.CYCLE && step.cycle != null) other = step.cycle;
            }
          } else {
            int[] flipped = root.clone();
            for (int j = 0; j < flipped.length; j++) if (flipped[j] == lit) flipped[j] = -lit;
            other = s.cycleUnder(flipped);
          }
          if (other == null) continue;
          int c = ofVar[Math.abs(lit)], side = lit > 0 ? 0 : 1;
          Cycle c0 = txnCycle(g, edgeCycle(g, pr, ec, ofVar)), c1 = txnCycle(g, edgeCycle(g, pr, other, ofVar));
          return pair(l, g, px, steps, c, side, c0, c1);
        }
      }
    }
    Cycle tc = txnCycle(g, edgeCycle(g, pr, ec, ofVar));
    boolean serOnly = !g.si && !provesSi(g.p, -1, 0, tc, null);
    String note = "No order of " + orderNoun() + " leaves the graph acyclic: the search forced each step marked forced (the "
        + "other order of those two writers closes a cycle, given the steps forced before it), and they close this cycle:";
    return CycleReport.of(h, steps, tc, new boolean[tc.length()], note, null, name(tc, l.family, serOnly));
  }

  /** A solver cycle over level-graph nodes as a labelled cycle. */
  private static Cycle edgeCycle(LevelGraph g, Pruning pr, EdgeCycle ec, int[] ofVar) {
    int k = ec.length();
    int[] ns = new int[k], ls = new int[k];
    for (int i = 0; i < k; i++) {
      int a = ec.from(i), b = ec.to(i), lit = ec.lits[i];
      ns[i] = a;
      ls[i] = lit == 0 ? knownLabel(pr, a, b) : sideLabel(g, ofVar[Math.abs(lit)], lit > 0 ? 0 : 1, a, b);
    }
    return new Cycle(ns, ls);
  }

  private static int knownLabel(Pruning pr, int a, int b) {
    int m = pr.full().maskOf(a, b);
    return m != 0 ? Edge.label(m) : Edge.WW;
  }

  private static int sideLabel(LevelGraph g, int c, int side, int a, int b) {
    for (int e = g.p.sideFrom(c, side); e < g.p.sideTo(c, side); e++) {
      if (g.sideSrc[e] == a && g.sideDst[e] == b) return g.p.sideType[e];
    }
    return Edge.WW;
  }

  /**
   * Chooses, for every open constraint, the side whose first edge agrees with pos, a topological
   * order of the pruned graph; true when known ∪ decided ∪ chosen is acyclic (then the level holds).
   */
  /** Whether a level that holds keeps the order that shows it ({@link Outcome#witness}; CheckOptions#certificates). */
  public boolean witnesses = true;

  /** The sides the last {@link #topologicalChoice} chose, per constraint. */
  private int[] lastChoice;

  /** The level holds: its outcome, with the witness of the sides chosen (per constraint, 0 or 1). */
  private Outcome holds(List<Anomaly> found, Map<String, Object> st, LevelGraph g, int[] choice) {
    return holdsIn(found, st, g, witnesses ? witnessOrder(g, choice) : null);
  }

  /** The level holds: its outcome, with order (the level graph's nodes, null: no witness kept) as its witness. */
  private Outcome holdsIn(List<Anomaly> found, Map<String, Object> st, LevelGraph g, int[] order) {
    Outcome o = new Outcome(Verdict.Value.TRUE, null, found, st);
    if (order != null && witnesses) o.witness = new isocheck.check.Witness(g.si, order, g.p.committed);
    return o;
  }

  /**
   * A topological order of g's known edges with the chosen side of each constraint, or null
   * when a side is not chosen or they close a cycle (Kahn's algorithm).
   */
  static int[] witnessOrder(LevelGraph g, int[] choice) {
    int nc = g.p.constraints();
    for (int c = 0; c < nc; c++) if (choice == null || choice[c] < 0) return null;
    return witnessOrder(g, choice, null);
  }

  /**
   * As above, with {@code extra} edges ({@code [from0, to0, from1, to1, …]}, may be null) for the
   * constraints not chosen ({@code choice[c] < 0}): the solver's model of the contested ones.
   */
  static int[] witnessOrder(LevelGraph g, int[] choice, int[] extra) {
    int nodes = g.nodes;
    int[] indeg = new int[nodes];
    isocheck.graph.EdgeList k = g.known;
    int nc = g.p.constraints(), nx = extra == null ? 0 : extra.length / 2;
    for (int i = 0; i < k.size(); i++) indeg[k.dst(i)]++;
    for (int c = 0; c < nc; c++) if (choice[c] >= 0) for (int e = g.p.sideFrom(c, choice[c]); e < g.p.sideTo(c, choice[c]); e++) indeg[g.sideDst[e]]++;
    for (int x = 0; x < nx; x++) indeg[extra[2 * x + 1]]++;
    int[] start = new int[nodes + 1];
    for (int i = 0; i < k.size(); i++) start[k.src(i) + 1]++;
    for (int c = 0; c < nc; c++) if (choice[c] >= 0) for (int e = g.p.sideFrom(c, choice[c]); e < g.p.sideTo(c, choice[c]); e++) start[g.sideSrc[e] + 1]++;
    for (int x = 0; x < nx; x++) start[extra[2 * x] + 1]++;
    for (int v = 0; v < nodes; v++) start[v + 1] += start[v];
    int[] fill = java.util.Arrays.copyOf(start, nodes), to = new int[start[nodes]];
    for (int i = 0; i < k.size(); i++) to[fill[k.src(i)]++] = k.dst(i);
    for (int c = 0; c < nc; c++) if (choice[c] >= 0) for (int e = g.p.sideFrom(c, choice[c]); e < g.p.sideTo(c, choice[c]); e++) to[fill[g.sideSrc[e]]++] = g.sideDst[e];
    for (int x = 0; x < nx; x++) to[fill[extra[2 * x]]++] = extra[2 * x + 1];
    int[] order = new int[nodes];
    int head = 0, tail = 0;
    for (int v = 0; v < nodes; v++) if (indeg[v] == 0) order[tail++] = v;
    while (head < tail) {
      int v = order[head++];
      for (int i = start[v]; i < start[v + 1]; i++) if (--indeg[to[i]] == 0) order[tail++] = to[i];
    }
    return tail == nodes ? order : null;
  }

  private boolean topologicalChoice(LevelGraph g, Pruning pr, int[] pos, Map<String, Object> st) {
    int[] choice = pr.choice.clone();
    lastChoice = choice;
    for (int c = 0; c < choice.length; c++) {
      if (choice[c] >= 0) continue;
      // The version order follows the writers' commits (serializability: the transactions).
      int a = g.p.first[c], b = g.p.second[c];
      choice[c] = g.si ? (pos[BcGraph.commit(a)] < pos[BcGraph.commit(b)] ? 0 : 1) : (pos[a] < pos[b] ? 0 : 1);
    }
    long[] backward = new long[2];
    boolean ok = acyclicWith(g, pr.known(), pos, choice, backward);
    // How far the choice went against the order ({@code :backward-edges}, and the nodes between
    // their ends that its check searched, {@code :backward-nodes}): 0 where the order already
    // agreed with every choice.
    st.put("backward-edges", backward[0]);
    st.put("backward-nodes", backward[1]);
    return ok;
  }

  /**
   * Whether d (acyclic, pos a topological order of it) stays acyclic with the edges of each
   * constraint's chosen side. An edge that goes forward in pos cannot close a cycle by itself;
   * every node of a cycle lies between the two ends of one of the backward edges on it (walking
   * the cycle, positions rise along forward edges and fall only along backward ones). So only
   * the nodes inside those intervals are searched, by Kahn's algorithm: where the history's
   * time order is close to a valid one, few and short intervals, not the whole graph. (The
   * backward edges and the nodes searched are counted into backward[0] and backward[1].)
   */
  private static boolean acyclicWith(LevelGraph g, Digraph d, int[] pos, int[] choice, long[] backward) {
    int n = d.n;
    int[] cover = null;
    int[] sideSrc = g.sideSrc, sideDst = g.sideDst;
    for (int c = 0; c < choice.length; c++) {
      for (int e = g.p.sideFrom(c, choice[c]), to = g.p.sideTo(c, choice[c]); e < to; e++) {
        int u = sideSrc[e], v = sideDst[e];
        if (pos[u] < pos[v]) continue;
        backward[0]++;
        if (cover == null) cover = new int[n + 1];
        cover[pos[v]]++;
        cover[pos[u] + 1]--;
      }
    }
    if (cover == null) return true;
    // Nodes by position, those inside some backward interval marked.
    int[] at = new int[n];
    for (int v = 0; v < n; v++) at[pos[v]] = v;
    boolean[] in = new boolean[n];
    int inside = 0;
    for (int p = 0, depth = 0; p < n; p++) {
      depth += cover[p];
      if (depth > 0) {
        in[at[p]] = true;
        inside++;
      }
    }
    backward[1] = inside;
    // The chosen edges inside, as CSR: counted, then filled (a second walk over the sides rather
    // than a list of every chosen edge: most lie outside the intervals).
    int[] xs = new int[n + 1];
    for (int c = 0; c < choice.length; c++) {
      for (int e = g.p.sideFrom(c, choice[c]), to = g.p.sideTo(c, choice[c]); e < to; e++) {
        if (in[sideSrc[e]] && in[sideDst[e]]) xs[sideSrc[e] + 1]++;
      }
    }
    for (int v = 0; v < n; v++) xs[v + 1] += xs[v];
    int[] xt = new int[xs[n]], fill = java.util.Arrays.copyOf(xs, n);
    for (int c = 0; c < choice.length; c++) {
      for (int e = g.p.sideFrom(c, choice[c]), to = g.p.sideTo(c, choice[c]); e < to; e++) {
        int u = sideSrc[e], v = sideDst[e];
        if (in[u] && in[v]) xt[fill[u]++] = v;
      }
    }
    int[] indeg = new int[n];
    for (int p = 0; p < n; p++) {
      int v = at[p];
      if (!in[v]) continue;
      for (int e = d.start(v); e < d.end(v); e++) if (in[d.target(e)]) indeg[d.target(e)]++;
      for (int i = xs[v]; i < xs[v + 1]; i++) indeg[xt[i]]++;
    }
    int[] queue = new int[inside];
    int head = 0, tail = 0;
    for (int p = 0; p < n; p++) if (in[at[p]] && indeg[at[p]] == 0) queue[tail++] = at[p];
    while (head < tail) {
      int v = queue[head++];
      for (int e = d.start(v); e < d.end(v); e++) {
        int w = d.target(e);
        if (in[w] && --indeg[w] == 0) queue[tail++] = w;
      }
      for (int i = xs[v]; i < xs[v + 1]; i++) if (--indeg[xt[i]] == 0) queue[tail++] = xt[i];
    }
    return tail == inside;
  }

  /**
   * Positions in a topological order of the acyclic graph d that follows the history's own time
   * where d leaves a choice (Kahn's algorithm, the ready node that happened first next): a
   * transaction by its completion (serializability), a begin by its invocation and a commit by
   * its completion (snapshot isolation; GSI's begins, a read-only transaction (its begin), and
   * relays, as soon as they are ready; a begin after the commits of the writers it follows,
   * {@link #laterBegins}). A store that is correct usually committed in an order close to this,
   * so its sides agree with it. Null when d has a cycle (Kahn's algorithm stops short).
   */
  private int[] timeOrder(LevelGraph g, Digraph d) {
    int n = d.n;
    // Ranks: relays 0, then op ordinals + 1, then transactions never completed (by invocation).
    long[] rank = new long[n];
    long maxOrd = 0;
    for (int v = 0; v < n; v++) {
      int t = g.owner(v);
      if (t >= g.p.nTxns) continue;
      // GSI: a snapshot may be older than the start, so a begin goes as early as it can (rank 0,
      // as relays). On the SSER store with stale reads (rw-register, 10^5) this order settles GSI
      // at once, where begins placed at their invocations left 22,000 constraints to the solver.
      if (g.rtToCommit && (v & 1) == 0) continue;
      // A read-only transaction (snapshot isolation: its begin) as soon as it is ready too: its
      // place in a serial order is bounded by the versions it read (and the level's orders, which
      // d carries), not by when it completed, and a store may serve it an older snapshot. Placed
      // at its completion, after the writers that overwrote what it read, each of its
      // anti-dependencies went back in the order, and the sides fixed around them closed cycles
      // one pinned round at a time: on a real Jepsen run of a stale-read store (4,236
      // transactions, 168 keys written blind), serializability took 140 rounds (13,751 contested
      // constraints, 4.4 s) and snapshot isolation 52 (0.9 s); now each order has 2 backward
      // edges, and 1 round (2 contested) decides each.
      if ((!g.si || v == BcGraph.begin(t)) && h.isOk(t) && h.readOnly(t)) continue;
      long c = h.completeOrdinal(t), i = h.invokeOrdinal(t);
      long at = g.si && (v & 1) == 0 && i >= 0 ? i : c;
      rank[v] = at >= 0 ? at + 1 : -1 - Math.max(0, i); // never completed: placed below
      if (at >= 0) maxOrd = Math.max(maxOrd, at + 1);
    }
    for (int v = 0; v < n; v++) if (rank[v] < 0) rank[v] = maxOrd + 1 + (-1 - rank[v]);
    // Without invocations the ordinals are the file's order (dbcop, Cobra and Plume text list
    // transactions session by session): the workload's estimate of when each ran instead
    // (nodeRanks), for the nodes not placed as soon as they are ready. On a Plume-shaped history
    // of 2·10^5 transactions over 200,000 keys listed session by session, serializability's
    // order went back 342,016 times in the file's order, 252,094 constraints contested, unknown
    // at 60 s.
    long[] est = nodeRanks(g);
    if (est != null) for (int v = 0; v < n; v++) if (rank[v] > 0 && g.owner(v) < g.p.nTxns) rank[v] = est[v];
    if (g.si) laterBegins(g, rank);
    else readersFirst(g, rank);
    long top = 0;
    for (int v = 0; v < n; v++) top = Math.max(top, rank[v]);
    // Nodes sorted by (rank, node): counting sort.
    int[] sorted = new int[n];
    if (top < 4L * n + 1024) {
      int[] cnt = new int[(int) top + 2];
      for (int v = 0; v < n; v++) cnt[(int) rank[v] + 1]++;
      for (int r = 0; r <= top; r++) cnt[r + 1] += cnt[r];
      for (int v = 0; v < n; v++) sorted[cnt[(int) rank[v]]++] = v;
    } else if (top < Integer.MAX_VALUE) {
      // (rank, node) packed in a long, sorted as primitives (the estimated ranks reach 2^30).
      long[] keys = new long[n];
      for (int v = 0; v < n; v++) keys[v] = rank[v] << 32 | v;
      java.util.Arrays.sort(keys);
      for (int v = 0; v < n; v++) sorted[v] = (int) keys[v];
    } else {
      Integer[] boxed = new Integer[n];
      for (int v = 0; v < n; v++) boxed[v] = v;
      java.util.Arrays.sort(boxed, (x, y) -> rank[x] != rank[y] ? Long.compare(rank[x], rank[y]) : Integer.compare(x, y));
      for (int v = 0; v < n; v++) sorted[v] = boxed[v];
    }
    // Each node's place in that order: (rank, node) comparisons become int ones, on one array.
    int[] at = new int[n];
    for (int i = 0; i < n; i++) at[sorted[i]] = i;
    int[] indeg = new int[n];
    for (int v = 0; v < n; v++) for (int e = d.start(v); e < d.end(v); e++) indeg[d.target(e)]++;
    // Kahn's algorithm, the ready node of least (rank, node) next: those at or after the cursor
    // in sorted order are found by scanning; those the cursor passed before they were ready wait
    // in a heap of their places (few, when the graph mostly follows time). pos[v] > 0 once v is
    // placed.
    int[] heap = new int[16];
    int size = 0, cursor = 0, k = 0;
    int[] pos = new int[n];
    while (true) {
      while (cursor < n && (pos[sorted[cursor]] > 0 || indeg[sorted[cursor]] > 0)) cursor++;
      int v;
      if (cursor < n && (size == 0 || cursor < heap[0])) v = sorted[cursor++];
      else if (size > 0) {
        v = sorted[heap[0]];
        size = pop(heap, size);
      } else break;
      pos[v] = ++k;
      for (int e = d.start(v); e < d.end(v); e++) {
        int w = d.target(e);
        if (--indeg[w] == 0 && at[w] < cursor) {
          if (size == heap.length) heap = java.util.Arrays.copyOf(heap, size * 2);
          size = push(heap, size, at[w]);
        }
      }
    }
    if (k < n) return null;
    for (int v = 0; v < n; v++) pos[v]--;
    return pos;
  }

  /**
   * Snapshot isolation: of two writers of a key whose order is open, the one whose commit ranks
   * first is the other's predecessor in the choice that follows ({@link #topologicalChoice}), and
   * its commit must come before the other's begin (no concurrent writers of a key). So each begin
   * is ranked just after the commits of those writers (all ranks doubled, a begin's odd). Ranked
   * at its invocation, or, GSI's, as early as it can be, the begin was often placed before them:
   * on the serializable store's Jepsen-shaped history at 10^6 (GSI), 335,980 chosen edges went
   * backward over intervals covering 2,529,185 of 2,545,681 nodes, which the check of the choice
   * then searched (0.26 s); ranked after them, none.
   */
  private static void laterBegins(LevelGraph g, long[] rank) {
    for (int v = 0; v < rank.length; v++) rank[v] *= 2;
    for (int c = 0; c < g.p.first.length; c++) {
      int a = g.p.first[c], b = g.p.second[c];
      long ra = rank[BcGraph.commit(a)], rb = rank[BcGraph.commit(b)];
      if (ra < rb || (ra == rb && a < b)) rank[BcGraph.begin(b)] = Math.max(rank[BcGraph.begin(b)], ra + 1);
      else rank[BcGraph.begin(a)] = Math.max(rank[BcGraph.begin(a)], rb + 1);
    }
  }

  /**
   * Serializability's time order (rank per node of g, transactions at their completion): the
   * workload may move a transaction ahead of the writers it likely precedes, lowering ranks only
   * (a rank stays at least 0). Only the search's path depends on it, never a verdict.
   */
  void readersFirst(LevelGraph g, long[] rank) {}

  /** Pushes x onto the min-heap heap[0, size); returns the new size. */
  private static int push(int[] heap, int size, int x) {
    int i = size++;
    while (i > 0) {
      int parent = (i - 1) >>> 1;
      if (heap[parent] <= x) break;
      heap[i] = heap[parent];
      i = parent;
    }
    heap[i] = x;
    return size;
  }

  /** Removes the least of the min-heap heap[0, size); returns the new size. */
  private static int pop(int[] heap, int size) {
    int x = heap[--size], i = 0;
    while (true) {
      int l = 2 * i + 1;
      if (l >= size) break;
      int m = l + 1 < size && heap[l + 1] < heap[l] ? l + 1 : l;
      if (heap[m] >= x) break;
      heap[i] = heap[m];
      i = m;
    }
    if (size > 0) heap[i] = x;
    return size;
  }

  // ------------------------------------------------------------------ counterexamples

  /**
   * The name of a counterexample found with the orders of family f: its cycle's shape
   * (G-single-item, G-nonadjacent-item, ...), or G2-item when serializability's rules forced
   * orders that snapshot isolation does not; and at least f's suffix, since orders were inferred
   * with f's edges (GSI's realtime steps, commit → commit, are -realtime-commit). A shape without
   * an anti-dependency (G0, G1c) is named G-SI: its write-write steps rest on orders forced under
   * the searched level's rules (a cycle of observed dependencies, session and realtime order
   * alone is found before the search), which read committed's and read uncommitted's rules never
   * force (isocheck.check.adya.AdyaLevels), so it must not rule them out; snapshot isolation (of
   * family f) is violated, and every level implying it.
   */
  static String name(Cycle c, Level.Family f, boolean serOnly) {
    String t = shape(c, f);
    String base = serOnly ? "G2-item" : Level.Family.baseOf(t);
    if (base.equals("G0") || base.equals("G1c")) base = "G-SI";
    return base + Level.Family.ofType(t).suffix;
  }

  /** A cycle's own shape, with at least f's suffix (GSI's realtime steps named -realtime-commit). */
  static String shape(Cycle c, Level.Family f) {
    String t = c.anomalyType();
    Level.Family own = Level.Family.ofType(t);
    if (f == Level.Family.COMMIT_REALTIME && own == Level.Family.REALTIME) own = Level.Family.COMMIT_REALTIME;
    Level.Family fam = f.carries(own) ? f : own;
    return Level.Family.baseOf(t) + fam.suffix;
  }

  /**
   * l's counterexample once pruning (or the known graph alone, {@code knownOnly}: no order
   * forced) found l violated. A serializable level's is named by a shape snapshot isolation
   * forbids only when it proves SI of its family violated too ({@link #provesSi}), else G2-item:
   * a name claims every level it rules out (isocheck.check.Level#ruledOutBy), and the SI levels
   * then show it as theirs. A cycle of known edges alone is named by its own shape, and SI need
   * not be decided for it: the SI levels' graph holds the same known edges, so a shape SI
   * forbids (no two adjacent anti-dependencies: G0, G1c, G-single, G-nonadjacent) is a cycle of
   * their begin/commit graph too, and SI is violated; a shape it allows is named G2-item either
   * way. (On the 10^6 Jepsen-shaped history of an SI store, serializability's known cycle no
   * longer waits for strong-session SI's schedule, about 1 s, which strong SI then implies.)
   */
  private Anomaly counterexample(Level l, LevelGraph g, Pruning pr, boolean knownOnly) {
    PolygraphExplainer px = explainer(g.p);
    px.forced(pr);
    Steps steps = new Steps(h, px);
    if (pr.badConstraint < 0) {
      // The known graph, with the orders pruning forced, has a cycle.
      for (int c = 0; c < pr.fullScc().count; c++) {
        if (!pr.fullScc().cyclic[c]) continue;
        Cycle cy = CycleFinder.anyCycleIn(pr.full(), pr.fullScc(), c, ~0);
        Cycle tc = txnCycle(g, cy);
        boolean serOnly = !g.si && !knownOnly && !provesSi(g.p, -1, 0, tc, null);
        return CycleReport.of(h, steps, tc, new boolean[tc.length()], null, null, name(tc, l.family, serOnly));
      }
      throw new IllegalStateException("a cyclic graph without a cycle");
    }
    Cycle c0 = sideCycle(g, pr, pr.badEdge0), c1 = sideCycle(g, pr, pr.badEdge1);
    return pair(l, g, px, steps, pr.badConstraint, 0, c0, c1);
  }

  /**
   * Whether a serializable level's counterexample (the cycle c0; with c1, a pair: c0 with side s
   * of constraint c, c1 with the other side) proves snapshot isolation of its family violated
   * too, so that it may bear a name SI forbids: each cycle has a shape SI forbids (no two
   * adjacent anti-dependencies: each is a cycle of SI's begin/commit graph), and each of its
   * write-write and anti-dependency steps is a known edge of the polygraph or an edge of the
   * side its branch considers, never an order pruning or the solver forced by serializability's
   * rules (the other order may close only a cycle SI allows, a write skew). Else the
   * counterexample proves serializability violated alone: G2-item, and the SI levels are
   * decided, and shown, by their own search. (Issue 26: on VeriStrong's CockroachDB histories,
   * a pair named G-single-item after its first branch, whose second was a write skew, was shown
   * as snapshot isolation's counterexample.) The known edges are scanned once, only from the
   * cycles' nodes: a counterexample is built once per level.
   */
  static boolean provesSi(Polygraph p, int c, int s, Cycle c0, Cycle c1) {
    Cycle[] cs = c1 == null ? new Cycle[] {c0} : new Cycle[] {c0, c1};
    for (Cycle cy : cs) if (cy.adjacentRw()) return false;
    // The write-write and anti-dependency steps that are not the considered side's: known edges?
    java.util.HashSet<Long> need = new java.util.HashSet<>();
    boolean[] from = new boolean[p.nodes];
    for (int k = 0; k < cs.length; k++) {
      Cycle cy = cs[k];
      int n = cy.length(), side = k == 0 ? s : 1 - s;
      for (int i = 0; i < n; i++) {
        int a = cy.nodes[i], b = cy.nodes[(i + 1) % n], t = cy.labels[i];
        if (t != Edge.WW && t != Edge.RW) continue; // reads-from, session and realtime order: never forced
        if (c >= 0 && onSide(p, c, side, a, b, t)) continue;
        from[a] = true;
        need.add(key(a, b, t));
      }
    }
    EdgeList kn = p.known;
    for (int i = 0, m = kn.size(); i < m && !need.isEmpty(); i++) {
      int a = kn.src(i);
      if (!from[a]) continue;
      int b = kn.dst(i), t = kn.type(i);
      // A write-write step stands for any dependency (each enters its target's begin in SI's
      // graph); an anti-dependency step only for an anti-dependency.
      need.remove(key(a, b, t == Edge.RW ? Edge.RW : Edge.WW));
    }
    return need.isEmpty();
  }

  private static long key(int a, int b, int t) { return ((long) a << 33) | ((long) b << 3) | (t == Edge.RW ? 1 : 0); }

  /** Whether a → b of type t is an edge of side s of constraint c. */
  private static boolean onSide(Polygraph p, int c, int s, int a, int b, int t) {
    for (int e = p.sideFrom(c, s); e < p.sideTo(c, s); e++) {
      if (p.sideSrc[e] == a && p.sideDst[e] == b && p.sideType[e] == t) return true;
    }
    return false;
  }

  /**
   * Two cycles, one per order of the writers of constraint c: c0 with side s (the order
   * considered first), c1 with the other side. Named after the two together ({@link #name}: c0's
   * shape, or c1's when only c1 has an anti-dependency); each is described by its own shape.
   */
  private Anomaly pair(Level l, LevelGraph g, PolygraphExplainer px, Steps steps, int c, int s, Cycle c0, Cycle c1) {
    int a = s == 0 ? g.p.first[c] : g.p.second[c], b = s == 0 ? g.p.second[c] : g.p.first[c];
    // (Both branches must prove what the name claims: a serializable level's pair one of whose
    // cycles SI allows, or rests on orders serializability forced, proves serializability alone.)
    boolean serOnly = !g.si && !provesSi(g.p, c, s, c0, c1);
    String named = name(c0, l.family, serOnly);
    if (!serOnly && Level.Family.baseOf(named).equals("G-SI") && !Level.Family.baseOf(name(c1, l.family, false)).equals("G-SI")) {
      named = name(c1, l.family, false);
    }
    px.considering(c, s);
    Anomaly first = CycleReport.of(h, steps, c0, considered(g.p, c, s, c0), null, null, shape(c0, l.family));
    px.considering(c, 1 - s);
    Anomaly second = CycleReport.of(h, steps, c1, considered(g.p, c, 1 - s, c1), null, null, shape(c1, l.family));
    px.considering(-1, 0);
    java.util.TreeSet<String> keys = new java.util.TreeSet<>();
    for (int side = 0; side < 2; side++) {
      for (int e = g.p.sideFrom(c, side); e < g.p.sideTo(c, side); e++) if (g.p.sideType[e] == Edge.WW) keys.add(h.keyStr(g.p.sideKey[e]));
    }
    Map<String, Object> data = new LinkedHashMap<>(first.data);
    data.put("type", new Kw(named));
    data.put("unordered", Data.ops(h, a, b));
    data.put("alternative", second.data);
    return new Anomaly(named, first.txns, data, pairNote(l, a, b, keys, named) + "\n" + first.explanation + "\nIf " + h.name(b)
        + "'s came first instead:\n" + second.explanation, first.cycle);
  }

  /** Per step of tc: whether it is an edge of side s of constraint c (when those are marked). */
  private boolean[] considered(Polygraph p, int c, int s, Cycle tc) {
    boolean[] hyp = new boolean[tc.length()];
    if (!markConsidered()) return hyp;
    for (int i = 0; i < tc.length(); i++) {
      int a = tc.nodes[i], b = tc.nodes[(i + 1) % tc.length()];
      for (int e = p.sideFrom(c, s); e < p.sideTo(c, s) && !hyp[i]; e++) {
        hyp[i] = p.sideSrc[e] == a && p.sideDst[e] == b && p.sideType[e] == tc.labels[i];
      }
    }
    return hyp;
  }

  /** The cycle a side edge u → v closes with the pruned graph: u → v, then a shortest path v ⇝ u. */
  private static Cycle sideCycle(LevelGraph g, Pruning pr, int e) {
    int u = g.sideSrc[e], v = g.sideDst[e];
    int[] path = u == v ? new int[] {v} : Pruning.path(pr.full(), v, u);
    int k = path.length;
    int[] ns = new int[k], ls = new int[k];
    ns[0] = u;
    ls[0] = g.p.sideType[e];
    for (int i = 0; i + 1 < k; i++) {
      ns[i + 1] = path[i];
      ls[i + 1] = Edge.label(pr.full().maskOf(path[i], path[i + 1]));
    }
    // path ends at u, which is ns[0]: the cycle is u, path[0..k-2].
    return txnCycle(g, new Cycle(ns, ls));
  }

  static Cycle txnCycle(LevelGraph g, Cycle c) {
    Cycle t = g.si ? BcGraph.toTxnCycle(c, g.p.nTxns) : c;
    return t.withoutRelays(g.p.nTxns);
  }
}
