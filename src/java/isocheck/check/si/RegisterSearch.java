package isocheck.check.si;

import isocheck.check.Level;
import isocheck.check.Verdict;
import isocheck.history.History;
import isocheck.order.RegisterAnalysis;
import isocheck.report.Anomaly;
import isocheck.report.Data;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Decides the serializable, snapshot-isolation and GSI levels, and repeatable read (whose graph is
 * serializability's: isocheck.check.adya.AdyaLevels), on an rw-register history, where the
 * version order is not observable (PolySI, PVLDB'23; Viper, EuroSys'23): the generalized
 * {@link Polygraph} of the history, one constraint per pair of writers of a common key, decided
 * by the {@link PolygraphSearch} engine. Two read-modify-writes of one version are a lost update
 * before any search.
 */
public final class RegisterSearch extends PolygraphSearch {
  private final RegisterAnalysis ra;
  private List<Anomaly> lost;

  public RegisterSearch(History h, RegisterAnalysis ra) { this(h, ra, true); }

  /** With shortcuts false, no pruning rounds after the first and no time-ordered choice: the solver decides (for tests). */
  public RegisterSearch(History h, RegisterAnalysis ra, boolean shortcuts) { this(h, ra, shortcuts, null, null); }

  /**
   * With {@code orderedKeys} (per key, may be null): keys whose version order the history fixes
   * (isocheck.check.mt: read-modify-write chains), which get no write-order constraints; and
   * with {@code plain} (may be null): the polygraph to search, without session or realtime
   * order, built elsewhere (isocheck.check.mt's constraints between chains of read-modify-writes).
   */
  public RegisterSearch(History h, RegisterAnalysis ra, boolean shortcuts, boolean[] orderedKeys, Polygraph plain) {
    super(h, shortcuts);
    this.ra = ra;
    this.orderedKeys = orderedKeys;
    this.plain = plain;
    this.given = plain != null;
  }

  private final boolean[] orderedKeys;

  /**
   * The polygraph without session or realtime order, built once: the families share its
   * constraints ({@link Polygraph#withOrders}); or given (the MT checker's).
   */
  private Polygraph plain;

  /**
   * For the families with realtime order (with shortcuts): the polygraph whose writer pairs
   * realtime orders are known edges, not constraints ({@link Polygraph#of(History, RegisterAnalysis, boolean[], boolean)}),
   * built once for both. (Without shortcuts, as tests compare, the plain one: pruning and the
   * solver must find the same.)
   */
  private Polygraph timed;

  private final boolean given;

  private boolean timed(Level.Family f) { return !given && shortcuts && f.carries(Level.Family.COMMIT_REALTIME); }

  @Override
  Polygraph build(Level.Family f) {
    boolean session = f.carries(Level.Family.PROCESS), realtime = f.carries(Level.Family.COMMIT_REALTIME);
    if (timed(f)) {
      if (timed == null) {
        adoptAhead();
        knownTimed = null;
        timedWasAhead = timedAhead != null;
        // (Whole after constraints generated lazily: the build ahead refused it as quadratic.)
        timed = timedWasAhead && !Polygraph.Builder.WHOLE.get() ? awaitAhead() : Polygraph.of(h, ra, orderedKeys, true);
        timedAhead = null;
      }
      return timed.orders(orders).withOrders(session, realtime);
    }
    if (plain == null) {
      // The next level's schedule run ahead is not taken once this polygraph exists (the
      // time-ordered choice on it is, {@link #witness}): stopped.
      WitnessAhead wa = nextAhead != null ? nextAhead : witnessAhead;
      if (wa != null && wa.nextW != null) wa.nextW.cancelled = true;
      knownBase = null; // its known edges are the plain polygraph's
      plain = Polygraph.of(h, ra, false, false, orderedKeys);
    }
    return plain.orders(orders).withOrders(session, realtime);
  }

  /**
   * GSI beside strict serializability, on the polygraph they share (with the writer orders
   * realtime fixes): once strict serializability's search has it, GSI's search would begin with
   * it (its witness and known graph need none once it exists), and GSI is needed whenever strong
   * SI does not hold. On the serializable store's Jepsen-shaped history (lein bench search,
   * 10^6 transactions), strict serializability's known cycle (0.37 s) rules out strong SI, and
   * GSI's search (0.85 s) came after it; beside it, the check waits for the longer of the two.
   * (When strong SI holds, it implies GSI, and the thread is stopped once strong SI is asked
   * for.) From {@link #BESIDE_FROM_TXNS} transactions on.
   */
  @Override
  Level besideOf(Level l) {
    // (Tests lower the size: -Disocheck.search.beside-from=0.)
    return l == Level.STRICT_SERIALIZABLE && timed(l.family) && timed(Level.GSI.family)
        && h.nTxns >= Integer.getInteger("isocheck.search.beside-from", BESIDE_FROM_TXNS) ? Level.GSI : null;
  }

  /**
   * From this many transactions on, GSI is searched beside strict serializability. Below, the
   * gain is small and the loss where strong SI holds (GSI's search not needed) as large: the
   * second search's memory brings a collection more. At 10^5 transactions, CLI, medians: the
   * serializable store's Jepsen-shaped history 0.31 s instead of 0.34, the strictly serializable
   * store's with stale reads 0.31 instead of 0.35; lein bench cli's rw-register history (from an
   * SI store: strong SI holds) 1.01 instead of 0.96. At 10^6 the serializable store's 2.04 s
   * instead of 2.54.
   */
  static final int BESIDE_FROM_TXNS = 300_000;

  /** The realtime families' polygraph being built on the other core ({@link #ahead}), or null. */
  private java.util.concurrent.CompletableFuture<Polygraph> timedAhead;
  private Thread aheadThread;
  private boolean timedWasAhead, aheadAsked;

  @Override
  boolean builtAhead(Level.Family f) { return timed(f) && timedWasAhead; }

  @Override
  boolean builtAfterWitness(Level.Family f) { return timed(f) && timedWasAhead && timedByWitness; }

  /** Whether the polygraph built ahead came from the failed witness's thread ({@link WitnessAhead}). */
  private boolean timedByWitness;

  /**
   * When a realtime level's witness schedule fails (strict serializability's, first), its
   * polygraph (with the writer orders realtime fixes) is built on a thread of its own while the
   * weaker levels' schedules and the plain known graph are tried on this one: after them, that
   * level or strong SI nearly always searches it. (Not when :info writers make many pairs
   * likely: their known edges go first, {@link #knownOnly}.) Lein bench cli's 10^5
   * rw-register history: the strong-session schedule (0.24 s) runs beside the build (0.38 s).
   * (On a large history the failed witness's thread started it, {@link WitnessAhead}, and it
   * may be done when first asked: the same steps are taken as when this call starts it, so
   * that the first level's outcome and statistics do not depend on timing. Asked again, for
   * another level, the steps are taken only while it is still being built.)
   */
  @Override
  boolean ahead(Level.Family f) {
    if (!timed(f) || timed != null || manyOverlaps()) return false;
    adoptAhead();
    if (timedAhead != null) {
      boolean first = !aheadAsked;
      aheadAsked = true;
      return first || !timedAhead.isDone();
    }
    aheadAsked = true;
    ra.versions(); // (computed here, before the thread starts: it reads them)
    timedAhead = new java.util.concurrent.CompletableFuture<>();
    aheadThread = isocheck.util.Threads.start("isocheck-polygraph", timedAhead, () -> Polygraph.of(h, ra, orderedKeys, true));
    return true;
  }

  /** The witness run ahead whose schedule failed, and whose thread then builds the realtime families' polygraph; or null. */
  private WitnessAhead polygraphOf;

  /** Takes the polygraph the failed witness's thread builds, if it does, as the one built ahead. */
  private void adoptAhead() {
    if (timedAhead != null || polygraphOf == null) return;
    timedAhead = polygraphOf.polygraphAhead();
    timedByWitness = timedAhead != null;
    polygraphOf = null;
  }

  /** The polygraph built ahead; what its build threw, rethrown here (Polygraph.TooLarge, out of memory). */
  private Polygraph awaitAhead() { return joined(timedAhead); }

  /** Waits for a build started ahead that no level used, so that it does not outlive the check. */
  @Override
  public void close() {
    super.close();
    Thread t = aheadThread;
    aheadThread = null;
    timedAhead = null;
    join(t);
  }

  /** The families' constraints generated lazily ({@link #lazy}): without and with the writer orders realtime fixes. */
  private LazyConstraints lazyPlain, lazyTimed;

  /**
   * When the whole polygraph is too large: its constraints generated lazily, per family kind
   * (with the writer orders realtime fixes, or without), shared by the levels of those families:
   * a pair one level's order needed is a constraint of the others too. Not for a polygraph
   * given (the MT checker's chains).
   */
  @Override
  LazyConstraints lazy(Level.Family f) {
    if (given) return null;
    if (timed(f)) {
      if (lazyTimed == null) lazyTimed = new LazyConstraints(h, ra, orderedKeys, true);
      return lazyTimed;
    }
    if (lazyPlain == null) lazyPlain = new LazyConstraints(h, ra, orderedKeys, false);
    return lazyPlain;
  }

  @Override
  Polygraph withOrders(Polygraph p, Level.Family f) { return super.withOrders(p.orders(orders), f); }

  /** {@link TimeEstimate}'s estimate, once computed (an empty array: none). */
  private double[] estimate;

  /**
   * Where the history has no invocations (transaction ids are then the file's order, which for
   * dbcop, Cobra and Plume text is session by session): the nodes by {@link TimeEstimate} (a
   * transaction, or a commit, at its estimated time; a begin just before its commit; relays
   * first), so that the lazy search starts from about the order a file listed in time would
   * give, whatever order the file lists transactions in. Else null (completion order, which
   * ids follow, is time).
   */
  @Override
  long[] nodeRanks(LevelGraph g) {
    // (Benches compare the ids' order: -Disocheck.search.estimate=false.)
    if ("false".equals(System.getProperty("isocheck.search.estimate"))) return null;
    if (estimate == null) {
      boolean timeless = true;
      for (int t = 0; t < h.nTxns && timeless; t++) if (ra.committed[t] && h.invokeOrdinal(t) >= 0) timeless = false;
      double[] e = timeless ? TimeEstimate.of(h, ra, ra.committed, ra.versions(), true) : null;
      estimate = e == null ? new double[0] : e;
    }
    if (estimate.length == 0) return null;
    double max = 1;
    for (double e : estimate) max = Math.max(max, e);
    double scale = (1 << 28) / max;
    int n = h.nTxns;
    long[] rank = new long[g.nodes];
    for (int t = 0; t < n; t++) {
      long r = 4 + 2 * (long) (estimate[t] * scale);
      if (g.si) {
        rank[isocheck.graph.BcGraph.begin(t)] = r - 1;
        rank[isocheck.graph.BcGraph.commit(t)] = r;
      } else rank[t] = r;
    }
    return rank;
  }

  /**
   * Serializability's time order, a reader before the writer that overwrote what it read: where
   * a transaction r read key x's version written by a, and the next writer of x after a in the
   * time order (w, not r) completed before r, r most likely read a snapshot taken before w
   * committed (a snapshot-isolation store, or a stale read) and precedes w in every serial order
   * that keeps that version order: its rank is lowered to just before w's, and so on along such
   * chains (a few passes). Ranked at its completion, after w, the time order's sides around r
   * went the wrong way, and each pinned round freed one such spot: on a Plume-shaped history of
   * 2·10^5 transactions over 200,000 keys from an SI store (serializability holds; 9.8 million
   * constraints, too wide for pruning), 5 rounds, 17 s, and the solver over every open
   * constraint between them unknown after 130 s. (Benches compare, -Disocheck.search.readers-first=false.)
   */
  @Override
  void readersFirst(LevelGraph g, long[] rank) {
    if ("false".equals(System.getProperty("isocheck.search.readers-first"))) return;
    if (g.nodes < h.nTxns) return;
    // (The ranks of transactions are the same for every serializable level: the pairs once.)
    if (likely == null) likely = likelyBefore(rank);
    int[] pairs = likely;
    for (int pass = 0; pass < 8; pass++) {
      boolean changed = false;
      for (int i = 0; i + 1 < pairs.length; i += 2) {
        int r = pairs[i], w = pairs[i + 1];
        long to = Math.max(0, rank[w] - 1);
        if (rank[r] > to) {
          rank[r] = to;
          changed = true;
        }
      }
      if (!changed) break;
    }
  }

  /** {@link #readersFirst}'s pairs (reader, writer), once computed. */
  private int[] likely;

  /** The likely anti-dependencies that go back in the time order (ranks per transaction): reader r, next writer w, flattened. */
  private int[] likelyBefore(long[] rank) {
    int n = h.nTxns, nk = h.keyCount();
    int[] version = ra.versions();
    // Per key, its committed writers (once each) sorted by (rank, id): CSR of packed longs.
    int[] start = new int[nk + 1], last = new int[nk];
    java.util.Arrays.fill(last, -1);
    for (int t = 0; t < n; t++) {
      if (!ra.committed[t]) continue;
      for (int m = h.mopStart(t); m < h.mopEnd(t); m++) {
        if (h.mopKind(m) != isocheck.history.OpRecord.WRITE || last[h.mopKey(m)] == t) continue;
        last[h.mopKey(m)] = t;
        start[h.mopKey(m) + 1]++;
      }
    }
    for (int k = 0; k < nk; k++) start[k + 1] += start[k];
    long[] ws = new long[start[nk]];
    int[] fill = java.util.Arrays.copyOf(start, nk);
    java.util.Arrays.fill(last, -1);
    for (int t = 0; t < n; t++) {
      if (!ra.committed[t]) continue;
      for (int m = h.mopStart(t); m < h.mopEnd(t); m++) {
        int k = h.mopKey(m);
        if (h.mopKind(m) != isocheck.history.OpRecord.WRITE || last[k] == t) continue;
        last[k] = t;
        ws[fill[k]++] = rank[t] << 32 | t;
      }
    }
    for (int k = 0; k < nk; k++) java.util.Arrays.sort(ws, start[k], start[k + 1]);
    // The likely anti-dependencies that go back in the time order: reader r → next writer w.
    isocheck.util.IntList pairs = new isocheck.util.IntList();
    for (int r = 0; r < n; r++) {
      if (!ra.committed[r] || !h.isOk(r)) continue;
      for (int m = h.mopStart(r); m < h.mopEnd(r); m++) {
        int a = version[m];
        if (a == RegisterAnalysis.NO_VERSION) continue;
        int k = h.mopKey(m), i;
        if (a == RegisterAnalysis.INITIAL) i = start[k];
        else {
          i = java.util.Arrays.binarySearch(ws, start[k], start[k + 1], rank[a] << 32 | a);
          if (i < 0) continue;
          i++;
        }
        if (i >= start[k + 1]) continue;
        int w = (int) ws[i];
        if (w == r || rank[w] >= rank[r]) continue;
        pairs.add(r);
        pairs.add(w);
      }
    }
    return pairs.toArray();
  }

  @Override
  void releaseBuilt() {
    likely = null;
    lazyPlain = null;
    lazyTimed = null;
    timed = null;
    knownBase = null;
    knownTimed = null;
    witness = null;
    if (!given) plain = null;
  }

  /** The known edges alone, without orders ({@link Polygraph#knownOnly}), built once. */
  private Polygraph knownBase;

  /**
   * For the families without realtime order, while their polygraph is not built: their known
   * edges alone (the realtime families' polygraph, with the writer orders realtime fixes, costs
   * about as little).
   */
  @Override
  Polygraph knownOnly(Level.Family f) {
    boolean session = f.carries(Level.Family.PROCESS), realtime = f.carries(Level.Family.COMMIT_REALTIME);
    if (given) return null;
    if (timed(f)) {
      if (timed != null || !manyOverlaps()) return null;
      if (knownTimed == null) knownTimed = Polygraph.knownOnly(h, ra, orderedKeys, true);
      return knownTimed.orders(orders).withOrders(session, realtime);
    }
    if (plain != null) return null;
    if (knownBase == null) knownBase = Polygraph.knownOnly(h, ra, orderedKeys, false);
    return knownBase.orders(orders).withOrders(session, realtime);
  }

  /** The realtime families' known edges alone (with the writer orders realtime fixes), built once. */
  private Polygraph knownTimed;

  private Boolean manyOverlaps;

  /**
   * Whether the realtime families' polygraph may keep many pairs: an {@code :info} writer (it may
   * have committed any time after its invocation) overlaps every writer of its keys invoked
   * after it, so it is the writers of each key times its {@code :info} writers, summed, against
   * four per writer. Then their known edges are checked alone first (at 10^5 transactions on 20
   * keys with 30% :info, 23.6 million pairs took 8.8 s to build, and the known graph had the
   * cycle); else that polygraph costs about what its known edges do, and is built at once (on
   * the 10^5 history of lein bench cli, checking them alone first cost 0.1 s).
   */
  private boolean manyOverlaps() {
    if (manyOverlaps == null) manyOverlaps = manyOverlaps(h, ra);
    return manyOverlaps;
  }

  private static boolean manyOverlaps(History h, RegisterAnalysis ra) {
    int nk = h.keyCount();
    int[] writers = new int[nk], info = new int[nk], last = new int[nk];
    java.util.Arrays.fill(last, -1);
    long all = 0;
    for (int t = 0; t < h.nTxns; t++) {
      if (!ra.committed[t]) continue;
      boolean indeterminate = !h.isOk(t) || h.completeOrdinal(t) < 0;
      for (int m = h.mopStart(t); m < h.mopEnd(t); m++) {
        if (h.mopKind(m) != isocheck.history.OpRecord.WRITE) continue;
        int k = h.mopKey(m);
        if (last[k] == t) continue;
        last[k] = t;
        writers[k]++;
        all++;
        if (indeterminate) info[k]++;
      }
    }
    long pairs = 0;
    for (int k = 0; k < nk; k++) pairs += (long) info[k] * writers[k];
    return pairs > 4 * all;
  }

  private SerialWitness witness;

  /**
   * The witness schedule of the level a search decides first, started on a thread of its own as
   * soon as the pre-checks are done, before the search exists: the greedy pass is sequential,
   * and meanwhile the caller's thread builds the mini-transaction chains and the observed graph
   * on the other core (isocheck.check.Checker). The search takes its answer when it comes to
   * that level's witness ({@link #witnessAhead(WitnessAhead)}); when it never does (the MT
   * checker decided, or the pre-checks ruled the level out), {@link #close} stops it. When that
   * schedule fails, the thread may go on with the next level's schedule ({@link #next}) and a
   * plain serializable level's refutation facts ({@link #proofLevel}), each once wanted.
   */
  public static final class WitnessAhead implements AutoCloseable {
    final Level level;
    final SerialWitness w;
    /** Its answer once taken: whether the level holds, or null when it did not run. */
    Boolean ran;
    private final java.util.concurrent.CompletableFuture<Boolean> result = new java.util.concurrent.CompletableFuture<>();
    /** What the chains found ({@link #chains}), or null when the check will not search (closed first). */
    private final java.util.concurrent.CompletableFuture<Chains> chains = new java.util.concurrent.CompletableFuture<>();
    /** Once the schedule failed and the chains are known: the polygraph being built, or null when none is. */
    private final java.util.concurrent.CompletableFuture<java.util.concurrent.CompletableFuture<Polygraph>> plan =
        new java.util.concurrent.CompletableFuture<>();
    private final Thread thread;
    /**
     * The snapshot-isolation level the search decides next, witnessed on this thread once the
     * first (serializable) level's schedule failed, or null; its schedule, and its answer (null:
     * not run). See {@link #start}.
     */
    final Level next;
    final SerialWitness nextW;
    private final java.util.concurrent.CompletableFuture<Boolean> nextResult = new java.util.concurrent.CompletableFuture<>();
    /**
     * The plain serializable level (serializability or repeatable read) whose refutation's facts
     * this thread builds last, once the first schedule failed ({@link ConstraintProof#prepare}),
     * or null; the facts (null: not built); whether they are no longer wanted.
     */
    final Level proofLevel;
    private final java.util.concurrent.CompletableFuture<ConstraintProof> proof = new java.util.concurrent.CompletableFuture<>();
    private volatile boolean proofDropped;
    /** Whether to build the facts: true once a serializable level's known graph closed a cycle ({@link #proofWanted}), false once closed. */
    private final java.util.concurrent.CompletableFuture<Boolean> proofGo = new java.util.concurrent.CompletableFuture<>();
    /** Whether to try the next level's schedule: true once wanted ({@link #proofWanted}, {@link #nextHolds}), false once closed. */
    private final java.util.concurrent.CompletableFuture<Boolean> nextGo = new java.util.concurrent.CompletableFuture<>();

    private record Chains(boolean[] ordered, boolean given) {}

    private WitnessAhead(History h, RegisterAnalysis ra, Level l, Level next, Level proofLevel) {
      level = l;
      w = new SerialWitness(h, ra);
      this.next = next;
      nextW = next == null ? null : new SerialWitness(h, ra);
      this.proofLevel = proofLevel;
      boolean realtime = l.family.carries(Level.Family.COMMIT_REALTIME);
      // As the search's own witness would run it (timed: shortcuts on, no MT polygraph given);
      // null (not run) when no key has two blind writers: the history is then likely one the
      // MT checker decides, or whose chains it gives the search, and the witness is not tried.
      thread = new Thread(() -> {
        Boolean ok;
        try {
          ok = twoBlindWriters(h) && !w.cancelled
              ? w.holds(l.kind == Level.Kind.SI, l.family.carries(Level.Family.PROCESS), realtime, !realtime) : null;
          result.complete(ok);
        } catch (Throwable e) {
          result.completeExceptionally(e);
          plan.complete(null);
          nextResult.complete(null);
          proof.complete(null);
          return;
        }
        // A large history's realtime level whose schedule failed: its polygraph next, on this
        // thread, under the search's own conditions for building it ahead (RegisterSearch#ahead:
        // no polygraph of chains given, few :info writers), once the chains are known.
        java.util.concurrent.CompletableFuture<Polygraph> build = null;
        Chains c = null;
        Polygraph.Prepared prepared = null;
        Throwable failed = null;
        try {
          // (Tests lower the size: -Disocheck.witness.polygraph-from=0.)
          if (Boolean.FALSE.equals(ok) && realtime && h.nTxns >= Integer.getInteger("isocheck.witness.polygraph-from", EARLY_POLYGRAPH_TXNS)
              && !manyOverlaps(h, ra)) {
            // Its first steps, which need no chains, while the chains are built (Polygraph#prepare).
            try {
              if (!w.cancelled) prepared = Polygraph.prepare(h, ra, true, () -> w.cancelled);
            } catch (Throwable e) {
              failed = e; // (out of memory, say: thrown to the search from the build it waits for)
            }
            c = chains.join();
            if (c != null && !c.given && !w.cancelled && (prepared != null || failed != null)) build = new java.util.concurrent.CompletableFuture<>();
          }
        } catch (Throwable e) {
          build = null;
        } finally {
          plan.complete(build);
        }
        if (build == null) {
          // The next level's schedule, when the first's failed (as the search would run it in
          // place: a schedule of its own, not a probe), once wanted: a serializable level's known
          // graph closed a cycle (the SI level is then searched, and by its schedule first), or
          // the search came to it ({@link #nextGo}). (A failed schedule alone is no sign: the SI
          // store's Jepsen-shaped history at 1,000 transactions fails it, the solver finds
          // serializability holds, and snapshot isolation follows from it.)
          Boolean nextOk = null;
          try {
            if (next != null && Boolean.FALSE.equals(ok) && !nextW.cancelled && nextGo.join() && !nextW.cancelled) {
              nextOk = nextW.holds(true, true, false, true);
              if (nextW.cancelled) nextOk = null;
            }
          } catch (Throwable e) {
            nextOk = null; // (out of memory, say: the search runs it in place, and meets it there)
          }
          nextResult.complete(nextOk);
          // Then the serializable level's refutation's facts (the check's last step,
          // isocheck.check.Checker#refutations), once a serializable level's known graph closed a
          // cycle: wanted then, unless a weaker level holds.
          ConstraintProof facts = null;
          try {
            // (Not w.cancelled: the check closes this thread keeping the facts as soon as the
            // levels are decided, which may be before this thread comes here.)
            if (proofLevel != null && Boolean.FALSE.equals(ok) && !proofDropped && proofGo.join()) {
              facts = ConstraintProof.prepare(h, proofLevel, () -> proofDropped);
            }
          } catch (Throwable e) {
            facts = null; // (out of memory, say: the check builds them in place, and meets it there)
          }
          proof.complete(facts);
          return;
        }
        nextResult.complete(null);
        proof.complete(null);
        try {
          if (failed != null) throw failed;
          build.complete(prepared.of(c.ordered));
        } catch (Throwable e) {
          build.completeExceptionally(e);
        }
      }, "isocheck-witness");
      thread.setDaemon(true);
      thread.start();
    }

    /**
     * From this many transactions on, the failed realtime schedule's thread builds that level's
     * polygraph. Below, the build is short and competes with the chains, the observed graph and
     * their JIT compilation on the other core (10^4 and 10^5 rw-register: no gain, some loss).
     */
    static final int EARLY_POLYGRAPH_TXNS = 300_000;

    /**
     * Tells the thread what the mini-transaction chains found: the keys whose version order the
     * history fixes (may be null), and whether the search is given the chains' polygraph (then no
     * polygraph of writers is built). Called once, before the search.
     */
    public void chains(boolean[] orderedKeys, boolean givenPolygraph) { chains.complete(new Chains(orderedKeys, givenPolygraph)); }

    /**
     * The realtime families' polygraph being built since the schedule failed, or null when none
     * is; called once the schedule's answer was taken ({@link #holds}).
     */
    java.util.concurrent.CompletableFuture<Polygraph> polygraphAhead() { return joined(plan); }

    /**
     * Starts the witness of the level among {@code req} that the search decides first (a plain
     * level's strong-session counterpart, which decides it), of those {@code searched} says the
     * search will decide (not ruled out by the pre-checks), or returns null when there is none.
     */
    public static WitnessAhead start(History h, RegisterAnalysis ra, java.util.Set<Level> req,
                                     java.util.function.Predicate<Level> searched) {
      return start(h, ra, req, searched, false);
    }

    /**
     * As above; with {@code proofs} (the check wants refutations, isocheck.check.Checker), a
     * requested plain serializable level's refutation facts are built on the thread too, last,
     * once the first schedule failed ({@link #proofLevel}).
     */
    public static WitnessAhead start(History h, RegisterAnalysis ra, java.util.Set<Level> req,
                                     java.util.function.Predicate<Level> searched, boolean proofs) {
      // (Tests compare: -Disocheck.witness.ahead=false runs it in place.)
      if ("false".equals(System.getProperty("isocheck.witness.ahead"))) return null;
      for (Level l : Level.values()) {
        if (!req.contains(l) || !searched.test(l)) continue;
        Level s = l == Level.REPEATABLE_READ ? Level.SERIALIZABLE : l;
        if (s.kind != Level.Kind.SER && s.kind != Level.Kind.SI) continue;
        if (s.family == Level.Family.PLAIN) {
          s = s.kind == Level.Kind.SER ? Level.STRONG_SESSION_SERIALIZABLE : Level.STRONG_SESSION_SNAPSHOT_ISOLATION;
        }
        // Strong-session serializability first, and snapshot isolation or its strong-session
        // level the first SI level the search decides after it: when the first schedule fails,
        // the second is tried next on this thread, beside the search of the serializable level
        // (its known graph, its counterexample; 1,000 Plume-shaped transactions at SER+SI, where
        // serializability is violated: the SI schedule's 7-9 ms no longer after them).
        Level next = null;
        if (s == Level.STRONG_SESSION_SERIALIZABLE) {
          for (Level l2 : Level.values()) {
            if (l2.ordinal() <= l.ordinal() || !req.contains(l2) || !searched.test(l2) || l2.kind != Level.Kind.SI) continue;
            if (l2 == Level.SNAPSHOT_ISOLATION || l2 == Level.STRONG_SESSION_SNAPSHOT_ISOLATION) next = Level.STRONG_SESSION_SNAPSHOT_ISOLATION;
            break;
          }
        }
        // (Tests compare: -Disocheck.witness.ahead-next=false runs the second in place.)
        if ("false".equals(System.getProperty("isocheck.witness.ahead-next"))) next = null;
        // (And -Disocheck.witness.proof-ahead=false builds the refutation's facts in place.)
        Level proofLevel = null;
        if (proofs && h.nTxns <= ConstraintProof.MAX_TXNS && !"false".equals(System.getProperty("isocheck.witness.proof-ahead"))) {
          for (Level p : new Level[] {Level.SERIALIZABLE, Level.REPEATABLE_READ}) {
            if (req.contains(p) && searched.test(p)) {
              proofLevel = p;
              break;
            }
          }
        }
        return new WitnessAhead(h, ra, s, next, proofLevel);
      }
      return null;
    }

    /**
     * Whether two :ok transactions wrote one key, each without reading it first (a blind write,
     * a root of the key's chains, isocheck.check.mt.MtAnalysis): then the key's version order is
     * not in the history, and, its chains not all rooted in :info transactions, the general
     * search decides it. One bit a key: found at once on a Jepsen or Plume history, a pass over
     * the micro-ops on a mini-transaction one.
     */
    static boolean twoBlindWriters(History h) {
      long[] seen = new long[(h.keyCount() + 63) >>> 6];
      int[] stamp = null;
      for (int t = 0; t < h.nTxns; t++) {
        if (!h.isOk(t)) continue;
        int s = h.mopStart(t), e = h.mopEnd(t);
        boolean scan = e - s <= 48;
        if (!scan && stamp == null) stamp = new int[h.keyCount()];
        for (int m = s; m < e; m++) {
          int k = h.mopKey(m);
          boolean first;
          if (scan) {
            int a = m - 1;
            while (a >= s && h.mopKey(a) != k) a--;
            first = a < s;
          } else {
            first = stamp[k] != t + 1;
            stamp[k] = t + 1;
          }
          if (!first || h.mopKind(m) != isocheck.history.OpRecord.WRITE) continue;
          if ((seen[k >>> 6] & (1L << k)) != 0) return true;
          seen[k >>> 6] |= 1L << k;
        }
      }
      return false;
    }

    /** The schedule's answer, waited for (null: not run); what it threw, rethrown (out of memory). */
    Boolean holds() { return joined(result); }

    /** The next level's schedule's answer ({@link #next}), asked for and waited for; null when it did not run. */
    Boolean nextHolds() {
      nextGo.complete(true);
      return joined(nextResult);
    }

    /**
     * The refutation facts built on this thread ({@link #proofLevel}), once it has ended
     * ({@link #close}), or null when none were built.
     */
    public ConstraintProof preparedProof() { return proof.isDone() ? proof.getNow(null) : null; }

    /**
     * Says a serializable level's known graph closed a cycle: the thread tries the next level's
     * schedule, and then builds the refutation's facts ({@link #proofLevel}), those it has.
     */
    void proofWanted() {
      nextGo.complete(true);
      proofGo.complete(true);
    }

    /**
     * Stops the schedule if it still runs (its answer is no longer wanted), and waits for its
     * thread (and for a polygraph it builds that no level took: rare, a search whose schedule
     * failed goes on to that polygraph); refutation facts being built are given up.
     */
    @Override
    public void close() {
      proofDropped = true;
      closeKeepingProof();
    }

    /**
     * As {@link #close}, but the refutation's facts being built are finished and kept (a plain
     * serializable level is violated: the check's refutation takes them, {@link #preparedProof}).
     */
    public void closeKeepingProof() {
      w.cancelled = true;
      if (nextW != null) nextW.cancelled = true;
      chains.complete(null);
      nextGo.complete(false);
      proofGo.complete(false); // (not asked for by now: not built; a build under way is finished)
      join(thread);
    }
  }

  private WitnessAhead witnessAhead;

  /** The witness run ahead whose first schedule failed and whose thread tries the next level's ({@link WitnessAhead#next}), until taken. */
  private WitnessAhead nextAhead;

  /** The session and realtime order edges the check's observed graph added, or null. */
  private isocheck.graph.OrderEdges orders;

  /**
   * Takes the session and realtime order edges the check's observed graph added (may be null):
   * the polygraphs add them to their known edges rather than computing them again
   * ({@link Polygraph#orders}; the serializable store's Jepsen-shaped history at 10^6: 2.5
   * million realtime edges, 50-90 ms, before strict serializability's search could start).
   */
  public RegisterSearch orders(isocheck.graph.OrderEdges o) {
    orders = o;
    return this;
  }

  /** Takes the answer of a witness started ahead ({@link WitnessAhead}; may be null). */
  public RegisterSearch witnessAhead(WitnessAhead wa) {
    witnessAhead = wa;
    started = wa;
    return this;
  }

  /** The witness started ahead, kept after its answers were taken (its thread may build a refutation's facts), or null. */
  private WitnessAhead started;

  @Override
  void knownCycleFound(Level l) {
    if (l.kind == Level.Kind.SER && started != null) started.proofWanted();
  }

  /**
   * The history's own schedule ({@link SerialWitness}), tried before the polygraph is built: on
   * a correct store it usually satisfies the level, and then neither the constraints (millions at
   * 10^6 transactions) nor pruning are needed; tried while no polygraph has been built. GSI is witnessed with realtime order entering at
   * the begin, which is stronger than its own (at the commit): what satisfies it satisfies GSI.
   */
  @Override
  Outcome witness(Level l, Map<String, Object> st) {
    // Once the polygraph this level would search exists (another level's, or the MT checker's),
    // its constraints are shared and the time-ordered choice on it is cheaper than a schedule of
    // its own.
    if ((timed(l.family) ? timed : plain) != null || (l.kind != Level.Kind.SER && l.kind != Level.Kind.SI)) return null;
    long t = System.nanoTime();
    boolean ok;
    WitnessAhead wa = witnessAhead;
    if (wa != null && wa.level == l && witness == null && timed(l.family) == l.family.carries(Level.Family.COMMIT_REALTIME)) {
      witnessAhead = null;
      wa.ran = wa.holds();
      // (Failed: its thread goes on to the next level's schedule, if it has one.)
      if (Boolean.FALSE.equals(wa.ran) && wa.next != null) nextAhead = wa;
      // (Failed, for a realtime level of a large history: its thread builds that level's polygraph.)
      if (Boolean.FALSE.equals(wa.ran) && timed(l.family)) polygraphOf = wa;
    }
    // The next level's schedule, run ahead on the same thread, taken as the in-place one below
    // would be (not a probe, not a timed level's).
    WitnessAhead na = nextAhead;
    Boolean nextRan = null;
    if (na != null && na.next == l && !probe && !timed(l.family)) {
      nextAhead = null;
      nextRan = na.nextHolds();
    }
    if (wa != null && wa.ran != null) {
      // Run ahead, as below: its witness-ms is the time waited for it.
      ok = wa.ran;
      witness = wa.w;
      st.put("witness-ahead", true);
    } else if (nextRan != null) {
      ok = nextRan;
      witness = na.nextW;
      st.put("witness-ahead", true);
    } else {
      if (witness == null) witness = new SerialWitness(h, ra);
      // For the realtime levels, when the greedy pass fails, the polygraph with the writer orders
      // realtime fixes is about as cheap as Kahn's schedule (10^6 rw-register: 6-8 s, against
      // 6.5-7), and decides either way; the schedule only ever shows a level holds.
      boolean schedule = !timed(l.family);
      ok = witness.holds(l.kind == Level.Kind.SI, l.family.carries(Level.Family.PROCESS),
          l.family.carries(Level.Family.COMMIT_REALTIME), schedule, schedule && !probe);
    }
    st.put("witness-ms", (System.nanoTime() - t) / 1_000_000L);
    BacktrackingWitness bw = witness.backtracking;
    if (bw != null) {
      // The greedy passes stalled and the backtracking pass ran: how often it undid a version
      // choice, and its placements and undos (found or not).
      st.put("witness-backtracks", bw.backtracks);
      st.put("witness-backtrack-steps", bw.steps);
    }
    BacktrackingSchedule bs = witness.backtrackingSchedule;
    if (bs != null) {
      // Snapshot isolation's: the same figures, of its begin/commit schedule.
      st.put("witness-backtracks", bs.backtracks);
      st.put("witness-backtrack-steps", bs.steps);
    }
    if (!ok) return null;
    st.put("decided-by", new isocheck.history.Kw("witness"));
    st.put("witness", new isocheck.history.Kw(witness.by));
    if (witness.by.equals("greedy")) st.put("greedy-passes", (long) witness.passes);
    Outcome r = new Outcome(Verdict.Value.TRUE, null, new ArrayList<>(), st);
    if (witness.lastOrder != null && witnesses) r.witness = new isocheck.check.Witness(l.kind == Level.Kind.SI, witness.lastOrder, ra.committed);
    return r;
  }

  @Override
  PolygraphExplainer explainer(Polygraph p) { return new PolygraphExplainer(p, ra, ra); }

  @Override
  Outcome before(Level l, Polygraph p, Map<String, Object> st) {
    if (p.lostUpdates.isEmpty()) return null;
    // Two read-modify-writes of one version: every serializable and SI level forbids it, and
    // repeatable read (either order closes a cycle with an anti-dependency).
    if (lost == null) {
      lost = new ArrayList<>();
      for (int[] lu : p.lostUpdates) lost.add(lostUpdate(lu));
    }
    st.put("lost-updates", (long) p.lostUpdates.size());
    st.put("decided-by", new isocheck.history.Kw("lost-update"));
    return new Outcome(Verdict.Value.FALSE, null, new ArrayList<>(lost), st);
  }

  @Override
  String subject() { return "the version order of rw-register writes"; }

  @Override
  String constraintNoun() { return "write-order constraints"; }

  @Override
  String orderNoun() { return "the writes"; }

  @Override
  String pairNote(Level l, int a, int b, java.util.Set<String> keys, String named) {
    return h.name(a) + " and " + h.name(b) + " both wrote " + (keys.size() == 1 ? "key " : "keys ") + String.join(", ", keys)
        + ", and no read shows which write came first. Either order closes a cycle (together, " + named + ": "
        + isocheck.report.CycleReport.describe(named) + "). If " + h.name(a) + "'s came first:";
  }

  // ------------------------------------------------------------------ lost updates

  private Anomaly lostUpdate(int[] lu) {
    int k = lu[0], ver = lu[1], a = lu[2], b = lu[3];
    String version = ver < 0 ? "nil, the initial value" : h.valueStr(valueOf(ver, k)) + ", " + h.name(ver) + "'s write";
    return new Anomaly("lost-update", new int[] {a, b},
        Anomaly.map("key", h.key(k), "ops", Data.ops(h, a, b)),
        h.name(a) + " and " + h.name(b) + " both read key " + h.keyStr(k) + " = " + version + ", and both wrote it: "
            + "whichever committed second overwrote a write it never saw (a lost update), which every serializable and "
            + "snapshot-isolation level forbids, and repeatable read.", null);
  }

  private int valueOf(int t, int k) {
    for (int m = h.mopEnd(t) - 1; m >= h.mopStart(t); m--) {
      if (h.mopKind(m) == isocheck.history.OpRecord.WRITE && h.mopKey(m) == k) return h.mopVal(m);
    }
    return History.NIL;
  }
}
