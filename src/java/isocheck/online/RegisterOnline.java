package isocheck.online;

import isocheck.check.Level;
import isocheck.graph.Cycle;
import isocheck.graph.Edge;
import isocheck.history.Edn;
import isocheck.history.Kw;
import isocheck.history.OpRecord;
import isocheck.history.OpType;
import isocheck.solver.TopologicalOrder;
import isocheck.util.IntList;
import isocheck.util.LongIntMap;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Checks an rw-register history ({@code [:w k v]}, {@code [:r k v]}, nil the initial value) while
 * it is produced, reporting only what no version order can explain: the version order of a
 * register is never observed (a read shows one value, not the list of those before it), so the
 * write-write and anti-dependencies that decide write skew, lost update and the like are a
 * search's to find, at the end of the run (isocheck.order.RegisterAnalysis and the solvers).
 *
 * <p><b>Facts.</b> Values are unique per key (Jepsen's rw-register generator writes each value to
 * a key once), so a read names its writer: write-read (wr) is a fact, as session order (so) and
 * realtime order (rt: a completed before b was invoked) are. So are the pre-checks of
 * {@link isocheck.order.RegisterAnalysis}: an aborted read (G1a: the writer failed, reported at the
 * read or at the failure, whichever comes second), an intermediate read (G1b: the writer wrote
 * the key again), a future read (a transaction reads what it writes only later), an internal
 * inconsistency (a read that disagrees with the transaction's own earlier write or read of the
 * key) and, at the end of the history, a read of a value nobody wrote (garbage-read, thin air:
 * until the end a writer may still be invoked). Each rules out every level checked here.
 *
 * <p><b>Cycles.</b> Every level checked online contains its family's orders and write-read:
 * serializability (Adya PL-3) and snapshot isolation (Cerone–Gotsman; a dependency a → b is
 * C(a) → B(b), B(b) → C(b), so a cycle of dependencies is one of begin/commit nodes, realtime as
 * C → C for GSI included) forbid a cycle of wr ∪ their family's so/rt; read committed, read
 * atomic and causal consistency forbid a cycle of so ∪ wr (Plume, OOPSLA'24, TAP g, CyclicCO:
 * causal order must be acyclic). So one graph per family (plain: wr; process: so ∪ wr; realtime:
 * so ∪ rt ∪ wr; GSI's: rt ∪ wr), each with a topological order kept incrementally
 * (Pearce–Kelly, {@link TopologicalOrder}); an edge that would close a cycle is refused and the
 * path it closes reported (G1c, G1c-process, G1c-realtime).
 *
 * <p><b>Forced commit order (the weak levels).</b> Plume's axioms (OOPSLA'24, §3.1 Defs 4-6;
 * {@link isocheck.check.weak.CommitOrder}) force, for a read of x by t from t1 and a committed
 * writer t2 ≠ t1 of x, t2 before t1 in every commit order: read committed when t read from t2 by
 * a read of another key earlier in its program, read atomic when t read from t2 anywhere or t2
 * precedes t in its session, TCC when t2 is in t's causal past (so ∪ wr)⁺, which
 * {@link CausalClocks} decides once that past is final. These are facts of the reads, whatever
 * the version order, so each weak level gets a graph of its own (pitfall 1): so ∪ wr ∪ the edges
 * of its rule and the weaker ones'; a cycle there, or a forced edge into the initial state (a nil
 * read), is a violation (CyclicCO, NonMonoReadCM, FracturedReadCM, ConflictCM, COConflictCM).
 * Realtime edges are added as {@link OnlineChecker} adds them: from the frontier of committed
 * transactions as it stood at the invocation.
 *
 * <p><b>Exact for RC, RA and TCC.</b> Plume's Theorems 3-5: a history satisfies the level iff it
 * has none of the intra-transaction TAPs and so ∪ wr ∪ the level's forced edges is acyclic (the
 * axioms' premises are session, write-read and causal order, which no commit order changes, so one
 * round of forced edges is the whole saturation). Every read of every {@code :ok} transaction
 * forces its edges here (a repeated read too: read committed's axiom is per read), TCC's once the
 * reader's causal past is final; so at the end of the history these verdicts are the offline
 * check's ({@link #scope}: {@code :exact}), unless an event made this engine miss facts, which it
 * then says ({@link #inexactBecause}) and keeps reporting only certain violations: a read that
 * completed before its writer was invoked (its forced edges are not derived), an {@code :info}
 * transaction shown committed after its process went on, a process reused after an {@code :info}
 * transaction a read showed committed (the session facts leave it out), a value written twice, a
 * read of a retired key whose writers' chain {@link CausalClocks} recycled.
 *
 * <p><b>Certainty.</b> A transaction is committed at its {@code :ok}, or once an {@code :ok} read
 * shows one of its writes (an {@code :info} or pending one); a {@code :fail} one never, and a read
 * of its write is G1a. The reads of an {@code :info} transaction are unknown and add nothing. Edges
 * are only ever added, so a cycle, once closed, holds in every extension of the history. A value
 * written to one key twice (by two transactions, or one transaction twice) names no writer: reads
 * of it add nothing here (and the final check refuses the history: its reads cannot name their
 * writer).
 *
 * <p>Left to the final check: every violation of a strong level that needs the version order (ww,
 * rw: G0, G-single, G2, lost update).
 *
 * <p><b>The window</b> (with {@code maxWritesPerKey} > 0, Jepsen's {@code :max-writes-per-key},
 * which its rw-register generator and the simulator retire keys after): memory bounded by what can
 * still change, not by the run; without it every transaction is kept. A key is <i>closed</i> once
 * it has had maxWritesPerKey writes invoked and no transaction naming it is in flight (nor waits
 * for its clock, TCC's pin); <i>open</i> otherwise. A write of t to key x is <i>superseded</i> when
 * another {@code :ok} writer of x was invoked after t completed and itself completed before every
 * transaction in flight (at some collection) was invoked: a read of t's value of x from then on is
 * a stale read in real time. A transaction is <i>live</i> when it is in flight; or has a write to
 * an open key, and is not committed (an {@code :info} or failed one: a read may yet show it
 * committed, or aborted: G1a), or, when a weak level is checked, has not completed {@code :ok} or
 * that write is not superseded (the weak levels' forced edges go into the writer a read names; the
 * strong levels' graphs get no later edge into a committed writer); or is a reader
 * waiting for a value's writer; or is the last commit of a session an earlier live transaction
 * not committed may yet precede (an {@code :info} one shown committed later: an edge into it); or,
 * for TCC, waits for its clock, or is a pred it will join, or a writer its reads name. Every so
 * often (when twice as many transactions are held as the last collection kept; {@link
 * #gcThreshold}) the live transactions and every node a graph (of any level) reaches from them are
 * kept, renumbered densely in the same order, with the edges among them; the rest D is dropped
 * (not when that would be less than an eighth: the rebuild costs about what the graphs hold). A
 * dropped writer's values stay in its key's writer map, marked dropped (and whether it was
 * committed), with the values a committed one overwrote itself (G1b), and the key marked as
 * having lost a writer; of the closed keys with no writer kept and no reader waiting, the newest
 * {@link #retiredKeysKept} (8192) keep that map and the older ones are forgotten (their ids
 * reused; remembered as forgotten, integer keys as ranges; a key named again after that never
 * reports a garbage read, as its values may be a forgotten writer's). TCC's clocks are renumbered
 * with the transactions ({@link CausalClocks#remap}): a dropped writer leaves its keys' lists, and
 * a chain with no held member and no session on it leaves every clock.
 *
 * <p><i>Soundness</i> (it does not rest on which transactions are live, which only makes the
 * detection below rare). (1) D is closed under predecessors in every graph when it is dropped
 * (what is kept is everything the graphs reach from the live set). (2) Every later edge into D is
 * detected and makes the verdicts incomplete ({@link OnlineChecker#complete}) from that event:
 * the edges into a transaction are write-read into its reader (a reader in flight, or waiting:
 * live), session and realtime order into a transaction as it commits (in flight, or not committed
 * with an open write: live; or shown committed through a read of a dropped or forgotten one,
 * detected below), session order from an {@code :info} transaction shown committed into its
 * session's later last commit (live while that transaction is; else detected), and a forced
 * commit-order edge t2 → t1 into the writer t1 a read names, with a weak level checked (the read
 * of a value whose writer was dropped, or of a forgotten key, is detected; without one, the read
 * of a dropped committed writer's value adds only an edge from D). An edge from D into a kept
 * node is skipped. If (2)
 * never fires, a cycle through D would enter D by an edge added before its target was dropped,
 * whose source is then in D by (1); following the cycle back, all of it was in the graph when its
 * last node was dropped, and the graph was acyclic then (an edge closing a cycle is refused and
 * reported): so no cycle is missed. (3) The forced edges: a read's writers and RA's session writers
 * are held or detected; a forced edge into the initial state (a nil read) from a dropped writer
 * is a violation, not an edge, so a nil read of a key that lost a writer is detected; TCC's
 * queries see held writers only, and a held writer is in a held reader's causal past iff it was
 * before (a dropped pred's past is dropped, by (1), so a clock loses only dropped members; the
 * last held writer of a key on a chain below a bound is the last writer there, as a held writer's
 * CO successors are held). (4) The pre-checks consult held writers or what their marks keep (G1a:
 * a failed writer of an open key is live, a dropped one not committed is detected when read; G1b: the values dropped writers overwrote; future read, internal: the
 * transaction itself), and a garbage read's reader waits, live. So a complete verdict is the verdict without the window, and an incomplete
 * one still reports only certain violations. On Jepsen-shaped histories (2) fires only, with a
 * weak level, on a stale read (of a superseded write, or a nil read after a dropped write) or a
 * read of a retired key, and, without one, on a read of a forgotten key or of the value of a
 * dropped writer never shown committed; Jepsen's generator never names a retired key again. What grows with the run: a few words per
 * process that ever ran (Jepsen's processes are replaced after each {@code :info}), the forgotten
 * integer keys' ranges (one while they are forgotten in order), and the codes of non-integer
 * values ({@link ValueCodes}).
 *
 * <p>The workload is told by the first op that shows it: a write or a non-list read makes this
 * engine take the history (and {@link OnlineChecker}'s list-append engines see no more of it); an
 * append or a list read makes it step aside for good.
 */
final class RegisterOnline {
  private static final byte PENDING = 4;
  /** In a key's writer map: the value was written twice (it names no writer). */
  private static final int AMBIGUOUS = Integer.MAX_VALUE;
  /** The code of nil (never a value's: interned codes start above it). */
  private static final long NIL = Long.MIN_VALUE;
  /** In a key's writer map: the value's writer, committed, was dropped by the window. */
  private static final int DROPPED_IN_MAP = Integer.MAX_VALUE - 1;
  /** In a key's writer map: the value's writer, not committed, was dropped (a read of it needs it). */
  private static final int DROPPED_OTHER_IN_MAP = Integer.MAX_VALUE - 2;
  /** A session's last commit, dropped by the window (lastCommittedOf). */
  private static final int DROPPED = -2;

  private final WeakOnline.Reporter out;
  /** Told when an event needs what the window dropped (the verdicts are incomplete from there). */
  private final Consumer<String> needDropped;
  private final List<Level> all;
  /** Every level but RC, which lets a transaction read a key twice and see two committed values (Plume's TAP j). */
  private final List<Level> allButRc;
  /** 0: undecided, 1: rw-register (this engine's), -1: list-append (not this engine's). */
  private int mode;

  // Transactions
  private int n;
  private byte[] status = new byte[1024];
  private int[] session = new int[1024], node = new int[1024], readBy = new int[1024], soPred = new int[1024];
  private long[] firstEv = new long[1024], invEv = new long[1024], doneEv = new long[1024];
  private long[] display = new long[1024];
  private int[][] rtPreds = new int[1024][];
  /** Per transaction: its writes as (key, value) pairs, and which of them it overwrote itself. */
  private int[][] wKeys = new int[1024][];
  private long[][] wVals = new long[1024][];
  private boolean[][] wInter = new boolean[1024][];

  // Sessions
  private final LongIntMap longSessions = new LongIntMap();
  private final HashMap<Object, Integer> objSessions = new HashMap<>();
  private final IntList pendingOf = new IntList(), lastCommittedOf = new IntList();
  private long[] lastFirstEv = new long[16];
  /** Per session: its last commit, dropped by the window, was an :info transaction. */
  private boolean[] lastInfo = new boolean[16];

  // Keys and values
  private LongIntMap longKeys = new LongIntMap();
  private final HashMap<Object, Integer> objKeys = new HashMap<>();
  private final ArrayList<Object> keyObjs = new ArrayList<>();
  private final ArrayList<LongIntMap> writerOf = new ArrayList<>();
  /** Per key: value -> readers (txn, in pairs with the read's event) of a value no one had written yet. */
  private final ArrayList<HashMap<Long, IntList>> waiting = new ArrayList<>();
  private final ValueCodes values = new ValueCodes();
  private long ambiguous, waitingReads, txnsSeen, keysSeen;

  // The window (maxWritesPerKey > 0; see the class comment)
  private int gcMin = 4096, gcAt = 4096, peakHeld, retiredKeysKept = 8192;
  private long gcs, droppedTxns, droppedNodes, droppedEdges, forgottenKeys, needed;
  /**
   * Per key: the latest invocation of an :ok writer of it that completed before every transaction
   * in flight (at some collection) was invoked; a writer that completed before it is superseded.
   */
  private long[] keySup = new long[64];
  /** Per key: some writer of it was dropped (a nil read of it then needs them). */
  private boolean[] keyThin = new boolean[64];
  /** Per key: named again after the window forgot it (a value of it no one wrote since may be a forgotten writer's). */
  private boolean[] keyReborn = new boolean[64];
  /** Per key (null: none): the values dropped :ok writers overwrote themselves, with the writer's name (G1b). */
  private final ArrayList<HashMap<Long, Long>> keyInter = new ArrayList<>();
  private final WeakOnline.LongRanges forgottenLong = new WeakOnline.LongRanges();
  private final java.util.HashSet<Object> forgottenObj = new java.util.HashSet<>();

  // Graphs, one per family; nodes are committed transactions, numbered alike in every graph.
  private final Graph[] graphs;
  private final boolean anySo, anyRt, anyForced, raForced, tcc;
  /**
   * The commit-order edges a weak graph gets (Plume's axioms): none, read committed's, read
   * atomic's (and RC's), TCC's (and RA's and RC's). A graph gets the edges of every rule up to its own.
   */
  private static final int RC_FORCED = 1, RA_FORCED = 2, TCC_FORCED = 3;
  /** In an edge's tag: a commit-order edge forced by TCC's causal rule (not implied by RA's). */
  private static final int CAUSAL_TAG = Integer.MIN_VALUE;
  /** Why the weak levels' online verdicts may miss what the offline check finds (null: exact). */
  private String inexact;
  private long inexactAt = -1;
  private long curEv;
  /** TCC: the causal order's clocks over chains ({@link CausalClocks}). */
  private final CausalClocks causal;
  /**
   * TCC's chain recycling: a key retires once it has had maxWritesPerKey writes invoked and no
   * transaction in flight names it (nor a transaction waiting for its clock queries it).
   */
  private final int maxWritesPerKey;
  private final IntList keyWrites = new IntList(), keyInFlight = new IntList();
  private int[][] touched;
  /** In a read's writer list: the initial state (a nil read); -1: no writer known. */
  private static final int INITIAL = -5;
  /** RA: per session, key -> its last :ok writer. */
  private final ArrayList<LongIntMap> sessionWriters = new ArrayList<>();
  private final IntList rKey = new IntList(), rFrom = new IntList();
  private long forced;
  private final IntList txnOfNode = new IntList(1024);
  private final IntList frontier = new IntList();
  private long wr, so, rt;

  // Scratch
  private final IntList seenKeys = new IntList(), path = new IntList();
  private long[] seenVals = new long[8];
  private boolean[] seenWrite = new boolean[8], seenOwn = new boolean[8];
  private final IntList preds = new IntList();

  RegisterOnline(List<Level> levels, WeakOnline.Reporter out) { this(levels, out, why -> { }, 0); }

  /**
   * @param maxWritesPerKey the writes a key gets before the workload retires it (Jepsen's
   *     {@code :max-writes-per-key}; 0: none): memory is bounded by a window (class comment), and
   *     TCC's clocks recycle the chains of writers of retired keys
   * @param needDropped told when an event needs what the window dropped
   */
  RegisterOnline(List<Level> levels, WeakOnline.Reporter out, Consumer<String> needDropped, int maxWritesPerKey) {
    this.out = out;
    this.needDropped = why -> {
      needed++;
      needDropped.accept(why);
    };
    this.maxWritesPerKey = maxWritesPerKey;
    this.all = List.copyOf(levels);
    ArrayList<Level> nr = new ArrayList<>(levels);
    nr.remove(Level.RC);
    this.allButRc = List.copyOf(nr);
    LinkedHashMap<Level.Family, List<Level>> byFamily = new LinkedHashMap<>();
    boolean rc = false, ra = false, tc = false;
    for (Level l : levels) {
      if (l == Level.RC) rc = true;
      else if (l == Level.RA) ra = true;
      else if (l == Level.TCC) tc = true;
      else byFamily.computeIfAbsent(l.family, f -> new ArrayList<>()).add(l);
    }
    ArrayList<Graph> gs = new ArrayList<>();
    boolean s = false, r = false;
    for (Map.Entry<Level.Family, List<Level>> e : byFamily.entrySet()) {
      gs.add(new Graph(e.getKey(), e.getValue(), 0));
      s |= (e.getKey().bits & Edge.SO) != 0;
      r |= (e.getKey().bits & Edge.RT) != 0;
    }
    // One graph per weak level (pitfall 1: a level's verdict from its own edges only).
    if (rc) gs.add(new Graph(Level.Family.PROCESS, List.of(Level.RC), RC_FORCED));
    if (ra) gs.add(new Graph(Level.Family.PROCESS, List.of(Level.RA), RA_FORCED));
    if (tc) gs.add(new Graph(Level.Family.PROCESS, List.of(Level.TCC), TCC_FORCED));
    graphs = gs.toArray(new Graph[0]);
    anySo = s || rc || ra || tc;
    anyRt = r;
    raForced = ra || tc;
    anyForced = rc || raForced;
    tcc = tc;
    touched = maxWritesPerKey > 0 ? new int[1024][] : null;
    causal = !tc ? null : new CausalClocks(new CausalClocks.Owner() {
      @Override public int sessionOf(int t) { return session[t]; }

      @Override public int[] writtenKeys(int t) { return wKeys[t]; }

      @Override public void forceCausal(int t3, int t2, int t1, int x) { force(t3, t2, t1, x, TCC_FORCED); }

      @Override public void pin(int x, int delta) { keyInFlight(x, delta); }

      @Override public void stale(int t3, int x) {
        inexact(name(t3) + " read key " + Edn.str(keyObjs.get(x)) + " after it had retired (" + maxWritesPerKey
            + " writes, none in flight) and TCC's clocks had recycled the chain of one of its writers");
      }
    }, INITIAL);
  }

  /** Whether the history is an rw-register one (so this engine has taken it). */
  boolean active() { return mode > 0; }

  /**
   * Ingests one transaction event (already filtered by {@link OnlineChecker#op}); whether it was
   * this engine's (an rw-register history's), so the list-append engines should not see it.
   */
  boolean op(OpRecord r, long ev) {
    if (mode < 0) return false;
    if (mode == 0) {
      for (int i = 0, m = r.mopCount(); i < m; i++) {
        byte k = r.kind(i);
        byte tag = r.valueTag(i);
        if (k == OpRecord.APPEND || k == OpRecord.READ && tag == OpRecord.V_LIST) {
          mode = -1;
          return false;
        }
        if (k == OpRecord.WRITE || k == OpRecord.READ && (tag == OpRecord.V_LONG || tag == OpRecord.V_OBJ)) mode = 1;
      }
    }
    ingest(r, ev);
    return mode > 0;
  }

  /** The end of the history: a read of a value nobody wrote is now certain garbage. */
  void end() {
    if (mode <= 0) return;
    // Committed while in flight and never completed: their reads are unknown (as offline), their
    // causal past their session's; those waiting for them go on.
    if (causal != null) for (int t = 0; t < n; t++) if (node[t] >= 0 && !causal.entered(t)) enterCausal(t, false);
    for (int k = 0; k < waiting.size(); k++) {
      HashMap<Long, IntList> w = waiting.get(k);
      if (w == null) continue;
      for (Map.Entry<Long, IntList> e : w.entrySet()) {
        IntList rs = e.getValue();
        for (int i = 0; i < rs.size(); i++) {
          int t = rs.get(i);
          out.report("garbage-read", all, new long[] {display[t]}, new String[0],
              name(t) + " read key " + Edn.str(keyObjs.get(k)) + " = " + valueStr(e.getKey())
                  + ", yet no transaction of the history wrote that value to that key: a value out of thin air.");
        }
      }
    }
    waiting.clear();
  }

  Map<String, Object> stats() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("txns", txnsSeen);
    m.put("committed", (long) txnOfNode.size() + droppedNodes);
    m.put("keys", keysSeen);
    m.put("wr-edges", wr);
    m.put("process-edges", so);
    m.put("realtime-edges", rt);
    m.put("forced-commit-order-edges", forced);
    if (causal != null) causal.stats(m);
    m.put("ambiguous-values", ambiguous);
    m.put("reads-before-their-writer", waitingReads);
    if (maxWritesPerKey > 0) m.put("window", windowStats());
    return m;
  }

  /** The window's figures (the same names as {@link OnlineChecker}'s list-append window). */
  Map<String, Object> windowStats() {
    Map<String, Object> w = new LinkedHashMap<>();
    w.put("max-writes-per-key", (long) maxWritesPerKey);
    w.put("live-txns", (long) n);
    w.put("live-nodes", (long) txnOfNode.size());
    w.put("live-keys", (long) keyObjs.size());
    w.put("peak-live-txns", (long) Math.max(peakHeld, n));
    w.put("dropped-txns", droppedTxns);
    w.put("dropped-edges", droppedEdges);
    w.put("forgotten-keys", forgottenKeys);
    w.put("collections", gcs);
    w.put("needed-dropped", needed);
    return w;
  }

  /** Transactions held. */
  int held() { return mode > 0 ? n : 0; }

  /** The most transactions held at once (sampled before each collection). */
  int peakHeld() { return mode > 0 ? Math.max(peakHeld, n) : 0; }

  /** How many retired keys with no writer held the window keeps (their writer maps) before forgetting the oldest. */
  void retiredKeysKept(int k) { retiredKeysKept = k; }

  /** Collect the window once this many transactions are held (then twice what a collection keeps). */
  void gcThreshold(int t) {
    gcMin = t;
    gcAt = Math.max(t, Math.min(gcAt, 2 * n));
  }

  /**
   * What level l's online verdict covers: "exact" for RC, RA and TCC (Plume's Theorems 3-5: the
   * forced commit order is all there is to them, and every fact of it is derived here), unless an
   * event made them miss facts ({@link #inexactBecause}); "certain-facts" for the strong levels,
   * whose version order is the final check's search.
   */
  String scope(Level l) {
    return (l == Level.RC || l == Level.RA || l == Level.TCC) && inexact == null ? "exact" : "certain-facts";
  }

  /** Why the weak levels' online verdicts are not exact (null while they are), and from which event. */
  String inexactBecause() { return inexact; }

  long inexactFrom() { return inexactAt; }

  // ------------------------------------------------------------------ ingest

  private void ingest(OpRecord r, long ev) {
    curEv = ev;
    int s = sessionOf(r.process);
    if (r.type == OpType.INVOKE) {
      int old = pendingOf.get(s);
      if (old >= 0) { // a malformed history: the final check says so
        status[old] = OpType.INFO;
        release(old);
      }
      if (causal != null) causal.invoked(s);
      pendingOf.set(s, newTxn(s, r, ev, true));
      return;
    }
    int t = pendingOf.get(s);
    if (t >= 0) pendingOf.set(s, -1);
    else t = newTxn(s, r, ev, false);
    doneEv[t] = ev;
    display[t] = r.index != OpRecord.ABSENT ? r.index : ev;
    byte was = status[t];
    status[t] = (byte) r.type;
    if (r.type == OpType.OK) ok(t, r);
    else if (r.type == OpType.FAIL && readBy[t] >= 0 && was != OpType.FAIL) {
      int rd = readBy[t];
      out.report("G1a", all, new long[] {display[rd], display[t]}, new String[0],
          name(rd) + " read a value " + name(t) + " wrote, and " + name(t) + "'s op then failed: an aborted read.");
    }
    if (causal != null && r.type != OpType.OK) {
      // Committed while in flight (a read showed it): its reads are unknown, its past is its session's.
      if (node[t] >= 0 && !causal.entered(t)) enterCausal(t, false);
      if (r.type == OpType.INFO) causal.retire(s);
    }
    release(t);
    if (maxWritesPerKey > 0 && n >= gcAt) collect();
  }

  /** t completed (or will not): the keys it named no longer have it in flight. */
  private void release(int t) {
    if (touched == null || touched[t] == null) return;
    int[] ks = touched[t];
    touched[t] = null;
    for (int k : ks) keyInFlight(k, -1);
  }

  /** The weak levels' online verdicts may miss, from here, what the offline check finds: say why (once). */
  private void inexact(String why) {
    if (inexact != null) return;
    inexact = why;
    inexactAt = curEv;
  }

  private int newTxn(int s, OpRecord r, long ev, boolean invoked) {
    txnsSeen++;
    int t = n++;
    if (t == status.length) grow();
    status[t] = PENDING;
    session[t] = s;
    node[t] = -1;
    readBy[t] = -1;
    firstEv[t] = ev;
    invEv[t] = invoked ? ev : -1;
    doneEv[t] = -1;
    display[t] = r.index != OpRecord.ABSENT ? r.index : ev;
    rtPreds[t] = invoked && anyRt && frontier.size() > 0 ? frontier.toArray() : null;
    if (touched != null) touched[t] = invoked ? touch(r) : null;
    int m = r.mopCount(), nw = 0;
    for (int i = 0; i < m; i++) if (r.kind(i) == OpRecord.WRITE) nw++;
    if (nw == 0) {
      wKeys[t] = null;
      wVals[t] = null;
      wInter[t] = null;
      return t;
    }
    int[] ks = new int[nw];
    long[] vs = new long[nw];
    boolean[] inter = new boolean[nw];
    for (int i = 0, j = 0; i < m; i++) {
      if (r.kind(i) != OpRecord.WRITE) continue;
      ks[j] = keyId(r, i);
      vs[j++] = valueCode(r, i);
    }
    for (int j = 0; j < nw; j++) for (int j2 = j + 1; j2 < nw; j2++) if (ks[j2] == ks[j]) inter[j] = true;
    wKeys[t] = ks;
    wVals[t] = vs;
    wInter[t] = inter;
    for (int j = 0; j < nw; j++) {
      LongIntMap w = writerOf.get(ks[j]);
      int prev = w.putIfAbsent(vs[j], t);
      if (prev != t || dupWithin(ks, vs, j)) {
        if (prev != AMBIGUOUS) ambiguous++;
        w.put(vs[j], AMBIGUOUS);
        inexact("a value written to key " + Edn.str(keyObjs.get(ks[j])) + " twice names no writer (the final check refuses such a history)");
        continue;
      }
      HashMap<Long, IntList> wait = waiting.get(ks[j]);
      IntList rs = wait == null ? null : wait.remove(vs[j]);
      if (rs != null) {
        inexact(name(rs.get(0)) + " completed reading a value of key " + Edn.str(keyObjs.get(ks[j])) + " before its writer " + name(t)
            + " was invoked: the commit order that read forces was not derived");
        for (int i = 0; i < rs.size(); i++) readFrom(rs.get(i), t, ks[j], vs[j]);
      }
    }
    return t;
  }

  /** The keys an invoked transaction names (each once), in flight until it completes; its writes counted. */
  private int[] touch(OpRecord r) {
    int m = r.mopCount();
    int[] ks = new int[m];
    int c = 0;
    for (int i = 0; i < m; i++) {
      byte kind = r.kind(i);
      if (kind != OpRecord.READ && kind != OpRecord.WRITE) continue;
      int k = keyId(r, i);
      boolean seen = false;
      for (int j = 0; j < c && !seen; j++) seen = ks[j] == k;
      if (kind == OpRecord.WRITE) keyWrites.set(k, keyWrites.get(k) + 1);
      if (seen) continue;
      ks[c++] = k;
      keyInFlight(k, 1);
    }
    return c == m ? ks : Arrays.copyOf(ks, c);
  }

  /** Key k gets (delta 1) or loses (-1) one transaction naming it; with none left and its writes done, it retires. */
  private void keyInFlight(int k, int delta) {
    if (maxWritesPerKey <= 0) return;
    int f = keyInFlight.get(k) + delta;
    keyInFlight.set(k, f);
    if (f == 0 && keyWrites.get(k) >= maxWritesPerKey && causal != null) causal.retireKey(k);
  }

  private static boolean dupWithin(int[] ks, long[] vs, int j) {
    for (int i = 0; i < j; i++) if (ks[i] == ks[j] && vs[i] == vs[j]) return true;
    return false;
  }

  private void grow() {
    int c = status.length * 2;
    status = Arrays.copyOf(status, c);
    session = Arrays.copyOf(session, c);
    node = Arrays.copyOf(node, c);
    readBy = Arrays.copyOf(readBy, c);
    soPred = Arrays.copyOf(soPred, c);
    firstEv = Arrays.copyOf(firstEv, c);
    invEv = Arrays.copyOf(invEv, c);
    doneEv = Arrays.copyOf(doneEv, c);
    display = Arrays.copyOf(display, c);
    rtPreds = Arrays.copyOf(rtPreds, c);
    wKeys = Arrays.copyOf(wKeys, c);
    wVals = Arrays.copyOf(wVals, c);
    wInter = Arrays.copyOf(wInter, c);
    if (touched != null) touched = Arrays.copyOf(touched, c);
  }

  private void ok(int t, OpRecord r) {
    if (node[t] < 0) commit(t);
    int m = r.mopCount();
    seenKeys.clear();
    rKey.clear();
    rFrom.clear();
    for (int i = 0; i < m; i++) {
      byte kind = r.kind(i);
      if (kind != OpRecord.READ && kind != OpRecord.WRITE) continue;
      byte tag = r.valueTag(i);
      if (tag == OpRecord.V_LIST) continue; // not rw-register: the final check says so
      int k = keyId(r, i);
      long v = tag == OpRecord.V_NIL ? NIL : valueCode(r, i);
      int at = -1;
      for (int a = 0; a < seenKeys.size(); a++) if (seenKeys.get(a) == k) at = a;
      boolean again = false;
      if (at >= 0) {
        long before = seenVals[at];
        boolean wrote = seenWrite[at];
        seenVals[at] = v;
        seenWrite[at] = kind == OpRecord.WRITE;
        seenOwn[at] |= kind == OpRecord.WRITE;
        if (kind == OpRecord.READ && before != v) {
          // After its own write: not-my-own-write, ruling out every level; after its own read
          // only: a non-repeatable read, which read committed allows.
          out.report("internal", wrote ? all : allButRc, new long[] {display[t]}, new String[0],
              name(t) + " read key " + Edn.str(keyObjs.get(k)) + " = " + valueStr(v) + ", but its own earlier "
                  + (wrote ? "write" : "read") + " of that key says it should be " + valueStr(before) + ".");
        }
        // A read of a key it only read before is a read of its own (read committed's axiom is
        // about each read, in program order); after its own write, every level is ruled out already.
        if (kind != OpRecord.READ || seenOwn[at]) continue;
        again = before == v;
      } else {
        if (seenKeys.size() == seenVals.length) {
          seenVals = Arrays.copyOf(seenVals, 2 * seenVals.length);
          seenWrite = Arrays.copyOf(seenWrite, 2 * seenWrite.length);
          seenOwn = Arrays.copyOf(seenOwn, 2 * seenOwn.length);
        }
        seenVals[seenKeys.size()] = v;
        seenWrite[seenKeys.size()] = kind == OpRecord.WRITE;
        seenOwn[seenKeys.size()] = kind == OpRecord.WRITE;
        seenKeys.add(k);
        if (kind != OpRecord.READ) continue;
      }
      if (v == NIL) {
        if (anyForced && keyThin[k]) needDropped.accept(name(t) + " read key " + Edn.str(keyObjs.get(k))
            + " = nil after the window had dropped a writer of it (its forced commit order needs that writer)");
        rKey.add(k);
        rFrom.add(INITIAL);
        continue;
      }
      int w = writerOf.get(k).get(v);
      if (w == AMBIGUOUS) continue;
      if (w == DROPPED_IN_MAP && !anyForced) {
        // No forced commit order: a dropped committed writer is only the source of an edge, skipped
        // (class comment); G1b from the values it overwrote.
        HashMap<Long, Long> iv = keyInter.get(k);
        Long by = again || iv == null ? null : iv.get(v);
        if (by != null) {
          out.report("G1b", all, new long[] {display[t], by}, new String[0],
              name(t) + " read key " + Edn.str(keyObjs.get(k)) + " = " + valueStr(v) + ", but T" + by
                  + " overwrote that value within the same transaction: an intermediate read.");
        }
        continue;
      }
      if (w == DROPPED_IN_MAP || w == DROPPED_OTHER_IN_MAP) {
        needDropped.accept(name(t) + " read key " + Edn.str(keyObjs.get(k)) + " = " + valueStr(v)
            + ", written by a transaction the window had dropped");
        continue;
      }
      if (again) { // the same value again: the same writer, already followed
        if (w >= 0 && w != t && status[w] != OpType.FAIL) {
          rKey.add(k);
          rFrom.add(w);
        }
        continue;
      }
      if (w < 0 && keyReborn[k]) continue; // maybe a forgotten writer's (the verdicts say they are incomplete)
      if (w < 0) {
        HashMap<Long, IntList> wait = waiting.get(k);
        if (wait == null) waiting.set(k, wait = new HashMap<>());
        wait.computeIfAbsent(v, x -> new IntList(2)).add(t);
        waitingReads++;
        continue;
      }
      if (w == t) {
        out.report("future-read", all, new long[] {display[t]}, new String[0],
            name(t) + " read key " + Edn.str(keyObjs.get(k)) + " = " + valueStr(v) + ", a value it itself wrote only later.");
        continue;
      }
      if (readFrom(t, w, k, v)) {
        rKey.add(k);
        rFrom.add(w);
      }
    }
    if (anyForced) forcedEdges(t);
    if (causal != null) enterCausal(t, true);
    if (anyRt) {
      long inv = invEv[t];
      if (inv >= 0) {
        int j = 0;
        for (int i = 0, c = frontier.size(); i < c; i++) {
          int f = frontier.get(i);
          if (doneEv[f] >= inv) frontier.set(j++, f);
        }
        frontier.truncate(j);
      }
      frontier.add(t);
    }
  }

  /**
   * The commit-order edges the weak levels' axioms force from committed t's reads (Plume §3.1,
   * Defs 4-5; {@link isocheck.check.weak.CommitOrder}): for a read of x from t1 and a committed
   * writer t2 ≠ t1 of x, t2 → t1 when t read from t2 earlier in its program (read committed),
   * or anywhere, or t2 precedes t in its session (read atomic; TCC's include them). Reads whose
   * writer is not known yet add none (a subset of the forced edges: what is reported stays
   * certain). A read of the initial state with such a t2 is a violation at once.
   */
  private void forcedEdges(int t) {
    LongIntMap mine = null;
    if (raForced) {
      while (sessionWriters.size() <= session[t]) sessionWriters.add(null);
      mine = sessionWriters.get(session[t]);
    }
    for (int i = 0, c = rKey.size(); i < c; i++) {
      int x = rKey.get(i), t1 = rFrom.get(i);
      for (int j = 0; j < c; j++) {
        int t2 = rFrom.get(j);
        if (j == i || t2 < 0 || t2 == t1 || !writes(t2, x)) continue;
        // Read committed: t2 observed by a read of another key earlier in t's program.
        force(t, t2, t1, x, j < i && rKey.get(j) != x ? RC_FORCED : RA_FORCED);
      }
      if (mine != null) {
        int t2 = mine.get(x);
        if (t2 >= 0 && t2 != t1) force(t, t2, t1, x, RA_FORCED);
      }
    }
    if (raForced && wKeys[t] != null) {
      if (mine == null) sessionWriters.set(session[t], mine = new LongIntMap(8));
      for (int k : wKeys[t]) mine.put(k, t);
    }
  }

  private boolean writes(int w, int x) {
    int[] ks = wKeys[w];
    if (ks != null) for (int k : ks) if (k == x) return true;
    return false;
  }

  /** t2 must commit before t1 (the reader t read x from t1) at the weak levels of rule and up. */
  private void force(int t, int t2, int t1, int x, int rule) {
    forced++;
    int tag = Edge.CM | (x < (1 << 24) - 1 ? (x + 1) << 7 : 0) | (rule == TCC_FORCED ? CAUSAL_TAG : 0);
    for (Graph g : graphs) {
      if (g.forced < rule) continue;
      if (t1 == INITIAL) {
        String anomaly = rule == TCC_FORCED ? "COConflictCM" : g.forced == RC_FORCED ? "NonMonoReadCM" : "FracturedReadCM";
        g.report(anomaly, new long[] {display[t], display[t2]}, new String[0],
            name(t) + " read key " + Edn.str(keyObjs.get(x)) + " = nil (its initial state), although it "
                + (rule == RC_FORCED ? "had already read from " : rule == RA_FORCED ? "read from, or followed in its session, "
                    : "causally follows ") + name(t2)
                + ", which wrote that key");
      } else {
        g.edge(node[t2], node[t1], Edge.CM, tag);
      }
    }
  }

  /**
   * t's incoming causal edges are final (its completion, or its commit when an :info one): its
   * session predecessor and, with reads, the writers it read from; then TCC's causal edges from
   * its reads once every predecessor has its clock ({@link CausalClocks}).
   */
  private void enterCausal(int t, boolean reads) {
    preds.clear();
    int sp = soPred[t];
    if (sp >= 0) preds.add(sp);
    int[] qs = null;
    if (reads) {
      int c = rKey.size();
      qs = new int[2 * c];
      for (int i = 0; i < c; i++) {
        int w = rFrom.get(i);
        qs[2 * i] = rKey.get(i);
        qs[2 * i + 1] = w;
        if (w >= 0) preds.add(w);
      }
    }
    causal.enter(t, preds.toArray(), qs);
  }

  /** Committed reader t read v from k, written by w: G1a, G1b, or a write-read edge; whether t read from w. */
  private boolean readFrom(int t, int w, int k, long v) {
    if (status[w] == OpType.FAIL) {
      out.report("G1a", all, new long[] {display[t], display[w]}, new String[0],
          name(t) + " read key " + Edn.str(keyObjs.get(k)) + " = " + valueStr(v) + ", written by " + name(w)
              + ", whose op failed: an aborted read.");
      return false;
    }
    if (readBy[w] < 0) readBy[w] = t;
    int[] ks = wKeys[w];
    long[] vs = wVals[w];
    for (int j = 0; j < ks.length; j++) {
      if (ks[j] == k && vs[j] == v && wInter[w][j]) {
        out.report("G1b", all, new long[] {display[t], display[w]}, new String[0],
            name(t) + " read key " + Edn.str(keyObjs.get(k)) + " = " + valueStr(v) + ", but " + name(w)
                + " overwrote that value within the same transaction: an intermediate read.");
        break;
      }
    }
    if (node[w] < 0) {
      commit(w);
      // An :info writer shown committed: its reads are unknown, its causal past its session's.
      if (causal != null && status[w] == OpType.INFO) enterCausal(w, false);
    }
    if (causal != null) causal.read(t, w);
    wr++;
    edge(w, t, Edge.WR, k);
    return true;
  }

  /** t is certainly committed: a node of every graph, with its session and realtime edges. */
  private void commit(int t) {
    node[t] = txnOfNode.size();
    txnOfNode.add(t);
    for (Graph g : graphs) g.g.addNode();
    soPred[t] = -1;
    if (anySo) {
      int s = session[t], p = lastCommittedOf.get(s);
      if (p == -1 || lastFirstEv[s] < firstEv[t]) {
        if (p != -1) {
          so++;
          edge(p, t, Edge.SO, -1);
          // A process reused after an :info transaction a read showed committed: the weak levels'
          // session facts (RA's session writers, TCC's chains) leave that one out.
          if (p == DROPPED ? lastInfo[s] : status[p] == OpType.INFO) inexact(name(t) + "'s process went on after " + (p == DROPPED ? "an earlier transaction" : name(p))
              + ", an :info transaction shown committed: the session order past it was not followed");
        }
        soPred[t] = p >= 0 ? p : -1;
        lastCommittedOf.set(s, t);
        lastFirstEv[s] = firstEv[t];
      } else {
        so++;
        edge(t, p, Edge.SO, -1); // an :info transaction shown committed after its session went on
        inexact(name(t) + ", an :info transaction, was shown committed after its process went on: the session order"
            + " it adds to its successors was not followed");
      }
      if (causal != null) causal.committed(t, s, soPred[t]);
    }
    int[] preds = rtPreds[t];
    if (preds != null) {
      rtPreds[t] = null;
      for (int f : preds) {
        rt++;
        edge(f, t, Edge.RT, -1);
      }
    }
  }

  private void edge(int a, int b, int type, int k) {
    if (a == b || a == DROPPED) return; // from a dropped transaction: on no cycle (class comment)
    if (b == DROPPED) {
      needDropped.accept("a " + Edge.name(type) + " edge into a transaction the window had dropped");
      return;
    }
    int tag = type | (k >= 0 && k < (1 << 24) - 1 ? (k + 1) << 7 : 0);
    for (Graph g : graphs) g.edge(node[a], node[b], type, tag);
  }

  // ------------------------------------------------------------------ the window

  /** Whether no write to key k will be invoked any more and no transaction naming it is in flight (or waits for its clock). */
  private boolean closed(int k) {
    return keyWrites.get(k) >= maxWritesPerKey && keyInFlight.get(k) == 0;
  }

  /**
   * Whether t is live by itself (class comment): in flight; or with a write to an open key, and
   * either not committed by an :ok (it may yet be shown committed, or a read of it is G1a) or not
   * superseded there.
   */
  private boolean live(int t, boolean[] closed) {
    if (status[t] == PENDING) return true;
    int[] ks = wKeys[t];
    if (ks == null) return false;
    for (int k : ks) {
      if (closed[k]) continue;
      // Without the weak levels' forced edges, no later edge goes into a committed writer.
      if (node[t] < 0 || anyForced && (status[t] != OpType.OK || doneEv[t] >= keySup[k])) return true;
    }
    return false;
  }

  private int mark(int t, boolean[] keep, boolean[] liveNode, int[] queue, int qn) {
    keep[t] = true;
    int v = node[t];
    if (v >= 0 && !liveNode[v]) {
      liveNode[v] = true;
      queue[qn++] = v;
    }
    return qn;
  }

  /**
   * Drops what no later event can need (class comment): the live transactions and every node a
   * graph reaches from them are kept, renumbered densely in the same order; the rest is dropped
   * with its edges. Keys closed with no writer kept are forgotten (their ids reused).
   */
  private void collect() {
    gcs++;
    peakHeld = Math.max(peakHeld, n);
    int nodes = txnOfNode.size(), nk = keyObjs.size();
    long oldest = Long.MAX_VALUE;
    for (int t = 0; t < n; t++) if (status[t] == PENDING) oldest = Math.min(oldest, firstEv[t]);
    for (int t = 0; t < n; t++) {
      if (status[t] != OpType.OK || wKeys[t] == null || doneEv[t] >= oldest) continue;
      for (int k : wKeys[t]) keySup[k] = Math.max(keySup[k], invEv[t]);
    }
    boolean[] closed = new boolean[nk];
    for (int k = 0; k < nk; k++) closed[k] = closed(k);
    boolean[] keep = new boolean[n], liveNode = new boolean[nodes];
    int[] queue = new int[nodes];
    int qn = 0;
    for (int t = 0; t < n; t++) {
      if (!live(t, closed)) continue;
      qn = mark(t, keep, liveNode, queue, qn);
      // Not committed, it may yet be: then its session's last commit, if later, gets an edge from it.
      if (node[t] >= 0 || status[t] == OpType.FAIL || wKeys[t] == null) continue;
      int p = lastCommittedOf.get(session[t]);
      if (p >= 0 && firstEv[p] > firstEv[t]) qn = mark(p, keep, liveNode, queue, qn);
    }
    // Readers of a value no one had written yet: its writer's edge to them is to come.
    for (int k = 0; k < nk; k++) {
      HashMap<Long, IntList> w = waiting.get(k);
      if (w == null) continue;
      for (IntList rs : w.values()) for (int i = 0; i < rs.size(); i++) qn = mark(rs.get(i), keep, liveNode, queue, qn);
    }
    if (causal != null) {
      IntList hs = new IntList();
      causal.holds(n, hs);
      for (int i = 0; i < hs.size(); i++) if (hs.get(i) >= 0) qn = mark(hs.get(i), keep, liveNode, queue, qn);
    }
    // Everything a graph reaches from the live ones.
    for (int qi = 0; qi < qn; qi++) {
      int v = queue[qi];
      for (Graph g : graphs) {
        for (int i = 0, d = g.g.outDegree(v); i < d; i++) {
          int u = g.g.to(g.g.outEdge(v, i));
          if (!liveNode[u]) {
            liveNode[u] = true;
            queue[qn++] = u;
          }
        }
      }
    }
    for (int v = 0; v < nodes; v++) if (liveNode[v]) keep[txnOfNode.get(v)] = true;
    int[] newId = new int[n];
    int kept = 0;
    for (int t = 0; t < n; t++) newId[t] = keep[t] ? kept++ : -1;
    gcAt = Math.max(gcMin, 2 * kept);
    // Rebuilding the graphs costs about what they hold: not for less than an eighth of them.
    if (kept == n || n - kept < n / 8) return;

    // Keys: those closed with no writer kept and no reader waiting are forgotten; the others
    // renumbered densely, a dropped writer's values marked.
    boolean[] heldWriter = new boolean[nk];
    for (int t = 0; t < n; t++) {
      int[] ks = wKeys[t];
      if (ks != null) for (int k : ks) if (keep[t]) heldWriter[k] = true; else keyThin[k] = true;
    }
    // Writer maps: each writer's values to its new id, or marked dropped (a map holds only its
    // key's writers' values, by their writes; ids before the first dropped one do not change).
    for (int t = 0; t < n; t++) {
      int[] ks = wKeys[t];
      int to = newId[t] >= 0 ? newId[t] : node[t] >= 0 ? DROPPED_IN_MAP : DROPPED_OTHER_IN_MAP;
      if (ks == null || to == t) continue;
      long[] vs = wVals[t];
      for (int j = 0; j < ks.length; j++) {
        LongIntMap wm = writerOf.get(ks[j]);
        if (wm.get(vs[j]) == t) wm.put(vs[j], to);
      }
    }
    for (int t = 0; t < n; t++) {
      if (keep[t] || wKeys[t] == null || node[t] < 0) continue;
      int[] ks = wKeys[t];
      for (int j = 0; j < ks.length; j++) {
        if (!wInter[t][j]) continue;
        HashMap<Long, Long> iv = keyInter.get(ks[j]);
        if (iv == null) keyInter.set(ks[j], iv = new HashMap<>());
        iv.put(wVals[t][j], display[t]);
      }
    }
    // Retired keys no held transaction writes: the newest retiredKeysKept keep their writer maps
    // (a stale read of one needs no more without the weak levels), the older ones are forgotten.
    boolean[] forget = new boolean[nk];
    int idle = 0;
    for (int k = 0; k < nk; k++) {
      HashMap<Long, IntList> w = waiting.get(k);
      forget[k] = closed[k] && !heldWriter[k] && (w == null || w.isEmpty());
      if (forget[k]) idle++;
    }
    for (int k = 0, drop = idle - retiredKeysKept; k < nk; k++) { // ids are in order of first use
      if (!forget[k]) continue;
      if (drop > 0) drop--;
      else forget[k] = false;
    }
    int[] newKey = new int[nk];
    int kk = 0;
    for (int k = 0; k < nk; k++) {
      if (forget[k]) {
        newKey[k] = -1;
        Object key = keyObjs.get(k);
        if (key instanceof Long && longKeys.get((Long) key) == k) forgottenLong.add((Long) key);
        else forgottenObj.add(key);
        forgottenKeys++;
      } else newKey[k] = kk++;
    }
    LongIntMap lk = new LongIntMap(Math.max(16, kk));
    for (int k = 0; k < nk; k++) {
      int j = newKey[k];
      Object key = keyObjs.get(k);
      boolean isLong = key instanceof Long && longKeys.get((Long) key) == k;
      if (!isLong && j < 0) objKeys.remove(key);
      else if (!isLong) objKeys.put(key, j);
      if (j < 0) continue;
      if (isLong) lk.put((Long) key, j);
      LongIntMap wm = writerOf.get(k);
      HashMap<Long, IntList> wt = waiting.get(k);
      if (wt != null) for (IntList rs : wt.values()) for (int i = 0; i < rs.size(); i++) rs.set(i, newId[rs.get(i)]);
      keyObjs.set(j, key);
      keyInter.set(j, keyInter.get(k));
      writerOf.set(j, wm);
      waiting.set(j, wt);
      keyWrites.set(j, keyWrites.get(k));
      keyInFlight.set(j, keyInFlight.get(k));
      keySup[j] = keySup[k];
      keyThin[j] = keyThin[k];
      keyReborn[j] = keyReborn[k];
    }
    longKeys = lk;
    for (int k = nk - 1; k >= kk; k--) {
      keyObjs.remove(k);
      keyInter.remove(k);
      writerOf.remove(k);
      waiting.remove(k);
    }
    keyWrites.truncate(kk);
    keyInFlight.truncate(kk);

    // Sessions whose last commit is dropped: whether it was an :info one (read before the move below).
    for (int s = 0, m = lastCommittedOf.size(); s < m; s++) {
      int c = lastCommittedOf.get(s);
      if (c >= 0 && newId[c] < 0) lastInfo[s] = status[c] == OpType.INFO;
    }
    // Transactions and nodes.
    int[] nodeMap = new int[nodes];
    int nn = OnlineChecker.renumberLive(liveNode, nodes, nodeMap);
    for (int t = 0; t < n; t++) {
      int j = newId[t];
      if (j < 0) continue;
      status[j] = status[t];
      session[j] = session[t];
      node[j] = node[t] >= 0 ? nodeMap[node[t]] : -1;
      readBy[j] = readBy[t] >= 0 ? newId[readBy[t]] : -1;
      soPred[j] = soPred[t] >= 0 ? newId[soPred[t]] : -1;
      firstEv[j] = firstEv[t];
      invEv[j] = invEv[t];
      doneEv[j] = doneEv[t];
      display[j] = display[t];
      rtPreds[j] = OnlineChecker.remap(rtPreds[t], newId);
      wKeys[j] = OnlineChecker.remap(wKeys[t], newKey);
      wVals[j] = wVals[t];
      wInter[j] = wInter[t];
      if (touched != null) touched[j] = OnlineChecker.remap(touched[t], newKey);
    }
    for (int t = kept; t < n; t++) {
      rtPreds[t] = null;
      wKeys[t] = null;
      wVals[t] = null;
      wInter[t] = null;
      if (touched != null) touched[t] = null;
    }
    droppedTxns += n - kept;
    droppedNodes += nodes - nn;
    n = kept;
    OnlineChecker.nodeTxns(txnOfNode, nn, node, kept);
    for (Graph g : graphs) g.rebuild(nodeMap, nn, newKey);
    for (int s = 0, m = pendingOf.size(); s < m; s++) {
      int p = pendingOf.get(s);
      if (p >= 0) pendingOf.set(s, newId[p]);
      int c = lastCommittedOf.get(s);
      if (c >= 0) lastCommittedOf.set(s, newId[c] >= 0 ? newId[c] : DROPPED);
    }
    frontier.keepMapped(newId);
    // RA's session writers: a dropped one is before every held write of its key.
    for (int s = 0; s < sessionWriters.size(); s++) {
      LongIntMap sw = sessionWriters.get(s);
      if (sw == null) continue;
      LongIntMap nw = new LongIntMap(Math.max(4, sw.size()));
      for (int i = 0, c = sw.slots(); i < c; i++) {
        int w = sw.slotValue(i);
        if (w < 0) continue;
        int k = (int) sw.slotKey(i);
        if (newId[w] >= 0 && newKey[k] >= 0) nw.put(newKey[k], newId[w]);
      }
      sessionWriters.set(s, nw.size() == 0 ? null : nw);
    }
    if (causal != null) causal.remap(newId, kept, newKey, kk);
  }


  // ------------------------------------------------------------------ names

  private int sessionOf(Object p) {
    Integer known;
    if (p instanceof Long || p instanceof Integer || p instanceof Short || p instanceof Byte) {
      long l = ((Number) p).longValue();
      int s = longSessions.get(l);
      if (s >= 0) return s;
      s = newSession();
      longSessions.put(l, s);
      return s;
    }
    known = objSessions.get(p);
    if (known != null) return known;
    int s = newSession();
    objSessions.put(p, s);
    return s;
  }

  private int newSession() {
    int s = pendingOf.size();
    pendingOf.add(-1);
    lastCommittedOf.add(-1);
    if (s == lastFirstEv.length) {
      lastFirstEv = Arrays.copyOf(lastFirstEv, 2 * s);
      lastInfo = Arrays.copyOf(lastInfo, 2 * s);
    }
    return s;
  }

  private int keyId(OpRecord r, int i) {
    if (r.keyIsLong(i)) {
      long k = r.keyLong(i);
      int id = longKeys.get(k);
      if (id >= 0) return id;
      boolean again = forgottenKeys > 0 && forgottenLong.contains(k);
      if (again) forgotten(k);
      id = newKey(k);
      keyReborn[id] = again;
      longKeys.put(k, id);
      return id;
    }
    Object k = r.key(i);
    Integer id = objKeys.get(k);
    if (id != null) return id;
    boolean again = forgottenKeys > 0 && forgottenObj.contains(k);
    if (again) forgotten(k);
    int nid = newKey(k);
    keyReborn[nid] = again;
    objKeys.put(k, nid);
    return nid;
  }

  /** A key the window forgot is named again: what it knew of it is gone. */
  private void forgotten(Object k) {
    needDropped.accept("an op naming key " + Edn.str(k) + ", which the window had forgotten (it had retired)");
  }

  private int newKey(Object k) {
    keysSeen++;
    int id = keyObjs.size();
    if (id == keySup.length) {
      keySup = Arrays.copyOf(keySup, 2 * id);
      keyThin = Arrays.copyOf(keyThin, 2 * id);
      keyReborn = Arrays.copyOf(keyReborn, 2 * id);
    }
    keySup[id] = -1;
    keyThin[id] = false;
    keyReborn[id] = false;
    keyObjs.add(k);
    keyInter.add(null);
    writerOf.add(new LongIntMap(4));
    waiting.add(null);
    keyWrites.add(0);
    keyInFlight.add(0);
    return id;
  }

  private long valueCode(OpRecord r, int i) {
    if (r.valueTag(i) == OpRecord.V_LONG) return r.valueLong(i);
    return values.intern(r.value(i));
  }

  private String valueStr(long code) {
    if (code == NIL) return "nil";
    return values.str(code);
  }

  private String name(int t) { return "T" + display[t]; }

  // ------------------------------------------------------------------ graphs

  /** The graph of one family's orders and write-read, shared by the levels of that family. */
  private final class Graph {
    final List<Level> levels;
    final boolean so, rt, rtCommit;
    /** 0 for a strong level's graph; else the commit-order edges it gets (RC_FORCED, RA_FORCED). */
    final int forced;
    TopologicalOrder g = new TopologicalOrder(0);

    /**
     * Keeps the nodes nodeMap keeps (renumbered, in the same order) and the edges between them,
     * their keys (in their tags) renumbered by newKey.
     */
    void rebuild(int[] nodeMap, int nodes, int[] newKey) {
      TopologicalOrder ng = new TopologicalOrder(nodes);
      int[] order = g.order(), keep = new int[nodes];
      int j = 0;
      for (int x : order) if (nodeMap[x] >= 0) keep[j++] = nodeMap[x];
      ng.setOrder(keep);
      int m = g.edgeCount(), kept = 0;
      int[] outDeg = new int[nodes], inDeg = new int[nodes];
      for (int e = 0; e < m; e++) {
        int a = nodeMap[g.from(e)], b = nodeMap[g.to(e)];
        if (a < 0 || b < 0) continue;
        outDeg[a]++;
        inDeg[b]++;
        kept++;
      }
      ng.reserve(kept, outDeg, inDeg);
      for (int e = 0; e < m; e++) {
        int a = nodeMap[g.from(e)], b = nodeMap[g.to(e)];
        if (a < 0 || b < 0) continue;
        int tag = g.tag(e), k = ((tag & ~CAUSAL_TAG) >>> 7) - 1;
        if (k >= 0) {
          int nk = newKey[k];
          tag = (tag & (CAUSAL_TAG | 127)) | (nk >= 0 && nk < (1 << 24) - 1 ? (nk + 1) << 7 : 0);
        }
        ng.add(a, b, tag, 0);
      }
      droppedEdges += m - ng.edgeCount();
      g = ng;
    }

    Graph(Level.Family f, List<Level> levels, int forced) {
      this.levels = List.copyOf(levels);
      this.forced = forced;
      so = (f.bits & Edge.SO) != 0;
      rt = (f.bits & Edge.RT) != 0;
      rtCommit = f == Level.Family.COMMIT_REALTIME;
    }

    void edge(int from, int to, int type, int tag) {
      if (type == Edge.SO && !so || type == Edge.RT && !rt) return;
      if (g.add(from, to, tag, 0) >= 0) return;
      path.clear();
      if (g.path(to, from, g.edgeCount(), path) < 0) return; // cannot happen: add refused it
      int c = path.size() + 1;
      int[] ns = new int[c], ls = new int[c], ks = new int[c];
      boolean causalCm = false;
      for (int i = -1; i < path.size(); i++) {
        int src = i < 0 ? from : g.from(path.get(i));
        int tg = i < 0 ? tag : g.tag(path.get(i));
        ns[i + 1] = txnOfNode.get(src);
        ls[i + 1] = tg & 127;
        ks[i + 1] = ((tg & ~CAUSAL_TAG) >>> 7) - 1;
        causalCm |= (tg & CAUSAL_TAG) != 0;
      }
      boolean cm = false;
      for (int l : ls) cm |= l == Edge.CM;
      String anomaly;
      if (forced == 0) {
        anomaly = new Cycle(ns, ls).anomalyType();
        if (rtCommit && anomaly.endsWith("-realtime")) anomaly += "-commit";
      } else anomaly = !cm ? "CyclicCO" : causalCm ? "ConflictCM" : forced == RC_FORCED ? "NonMonoReadCM" : "FracturedReadCM";
      long[] txns = new long[c];
      String[] steps = new String[c];
      StringBuilder sb = new StringBuilder();
      for (int i = 0; i < c; i++) {
        txns[i] = display[ns[i]];
        steps[i] = Edge.name(ls[i]);
        sb.append(name(ns[i])).append(" -").append(steps[i]);
        if (ks[i] >= 0) sb.append(" ").append(Edn.str(keyObjs.get(ks[i])));
        sb.append("-> ");
      }
      sb.append(name(ns[0]));
      report(anomaly, txns, steps, "a cycle " + sb + " of write-read" + (so ? ", session" : "") + (rt ? ", realtime" : "")
          + (cm ? " and the commit order the reads force" : "") + " order, whatever the version order");
    }

    void report(String anomaly, long[] txns, String[] steps, String why) {
      StringBuilder lv = new StringBuilder();
      for (Level l : levels) lv.append(lv.length() > 0 ? ", " : "").append(l.id);
      out.report(anomaly, levels, txns, steps, why + " (" + lv + " forbid" + (levels.size() == 1 ? "s" : "") + " it)");
    }
  }
}
