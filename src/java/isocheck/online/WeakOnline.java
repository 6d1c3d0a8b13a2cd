package isocheck.online;

import isocheck.check.Level;
import isocheck.graph.Edge;
import isocheck.history.Edn;
import isocheck.history.HistoryBuilder;
import isocheck.history.Kw;
import isocheck.history.OpRecord;
import isocheck.history.OpType;
import isocheck.solver.TopologicalOrder;
import isocheck.util.IntList;
import isocheck.util.LongIntMap;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Checks the weak levels read committed (RC), read atomic (RA) and transactional causal
 * consistency (TCC) on a list-append history while it is produced, as Plume defines them (Plume,
 * OOPSLA'24, §3.1 Defs 4–6; the TAPs of its Table 1), with the list semantics of the offline
 * check ({@link isocheck.check.weak.WeakCheck}): a read {@code [:r k [v1 … vn]]} reads k from
 * the writer of its last element not the reader's own (reads-from), sees the writers of the
 * earlier ones (visibility), and shows a prefix of k's version order; an append no read has shown
 * follows every element shown so far.
 *
 * <p><b>Why triangles suffice.</b> Causal order CO is (session order ∪ reads-from ∪ visibility)⁺
 * and VO each key's version order. A level holds iff there is no intra-transaction TAP (a–f, and
 * j for RA and TCC) and CO ∪ VO ∪ F is acyclic, F the commit-order edges t2 → t1 its axiom forces
 * for each read of x by t3 from t1 and writer t2 ≠ t1 of x: RC when t3 observed t2 by a read of
 * another key before that read; RA when t2 precedes t3 in its session or t3 observed it; TCC when
 * t2 →CO t3. On lists every committed writer of x is ordered against t1 by VO (shown, or unshown
 * and so after every shown element), so a forced edge is either implied by VO (t2 before t1) or
 * closes a two-cycle with it (t2 after t1, or t1 the initial state). So a level is violated iff an
 * intra-transaction TAP, a cycle of CO ∪ VO (TAP g, or a version order contradicting causal
 * order), or a <i>triangle</i>: a read of x from t1 and a writer t2 of x after t1 that the
 * level's axiom puts before the reader.
 *
 * <p><b>Certainty.</b> A read's facts are fixed at its transaction's {@code :ok}; positions in a
 * key's order never change (a read that is not a prefix of another is incompatible-order, itself
 * a violation of all three levels); an append not shown yet will be shown, if ever, after every
 * element shown now. So each edge and triangle, once seen, holds in every extension of the
 * history. RC's and RA's triangles are decided at the reader's {@code :ok} (what it observed and
 * its session's past are known then); CO ∪ VO keeps a topological order incrementally
 * (Pearce–Kelly, {@link TopologicalOrder}), as {@link OnlineChecker} does. TCC needs the reader's
 * causal past: vector clocks over sessions (a session's committed transactions are a chain of CO,
 * so the past is a prefix of each). A transaction's clock is the join of its session
 * predecessor's and those of the writers it observed; a writer still in flight (its commit shown
 * by a read before its completion) has reads not known yet, so its readers' clocks, and their
 * TCC triangles, wait for its completion ({@code :info}: its reads are unknown, as offline, and
 * add nothing). An {@code :info} or pending transaction is committed once an {@code :ok} read
 * shows one of its appends; one never shown is in no edge.
 *
 * <p>Intra-transaction TAPs (Plume Table 1): aborted (b, at the read or at the writer's
 * failure), future (c), not-my-own-write and not-my-last-write (d, e), intermediate (f: a block
 * of one writer's elements must be all its appends to the key, in order), non-repeatable (j, RA
 * and TCC only), duplicate elements and incompatible-order. A read showing a value no one has
 * appended (yet) adds nothing: thin-air reads are left to the final check.
 *
 * <p><b>The window</b> (with {@code maxWritesPerKey} > 0, Jepsen's {@code :max-writes-per-key}):
 * memory bounded by what can still change, not by the run. A key is <i>closed</i> once it has had
 * maxWritesPerKey distinct appends invoked and no transaction naming it is in flight; <i>open</i>
 * otherwise, or while a transaction waiting for its clock queries it (pinned). A committed
 * transaction is <i>sealed</i> when it has completed, has its clock, and each of its appends is to
 * a closed key, or to an open key not pinned, shown by a read, and it completed before every
 * transaction still in flight was invoked (so no read can honestly miss it). Every so often (when
 * twice as many transactions are held as the last collection kept) the live set L -- those not
 * sealed, those in flight, those not committed with an append to an open key, the preds a waiting
 * clock joins, the readers of a late transaction -- and everything CO ∪ VO reaches from L are
 * kept, and the rest D dropped; the kept ones are renumbered, and so are the keys and TCC's chains.
 * A closed key any of whose appenders is dropped is forgotten whole (remembered as forgotten:
 * integer keys as ranges); an open one keeps its order, its dropped writers marked (a prefix of
 * it, else it is forgotten too); a closed one a held transaction that may yet commit appends to
 * is kept, stale, for that commit. TCC's chains with no held member and no session going on them
 * are dropped from every clock. A session that ended (an :info completion) with nothing held that
 * may still commit, and its chain freed, is forgotten (its process remembered as forgotten).
 *
 * <p><i>Soundness.</i> After a collection: (P1) every appender of a kept key is held, except the
 * writers of a prefix of an open key's order (or of a stale key); (P2) D is closed under
 * predecessors in CO ∪ VO (a predecessor of a node nothing in L reaches is not reached either);
 * (P3) a transaction waiting for its clock, its preds, and a held late transaction's readers are
 * held; (P4) a held transaction not committed has no forgotten key unless it was invoked after
 * the key was forgotten (then its append was flagged); (P5) a dropped transaction's causal past is
 * dropped (P2, CO ⊆ (CO ∪ VO)-paths), so its clock says nothing about a held one, and a chain with
 * no held member and no session going on it never gets a member queried again. Every later event
 * that names dropped state is detected and marks the verdicts incomplete ({@link
 * OnlineChecker#complete}): a read or append of a forgotten or stale key, a read ending inside a
 * key's dropped prefix (it read from a dropped writer a dropped one follows), an op of a forgotten
 * process. Otherwise each check consults only held facts, the same as without the window: a
 * read's writers are held or the dropped prefix's last (reads from it, P1), so RC's and RA's
 * triangles (t2 observed after t1 on k: t2 is a later writer of k, held) and TAP j are decided as
 * before, and a read showing the whole prefix can miss no dropped writer after the one it read
 * from; TCC's queries ask about held writers only, and clocks lose only entries of dropped chains
 * (P5), so {@link #knows} answers as before; RA's session writers and a session's last commit,
 * when dropped, are before every held write of the key and add nothing (P5); a cycle of CO ∪ VO
 * closed by a later edge between held nodes cannot pass through D, since a path into D needs an
 * edge into D, which only an event naming dropped state adds (P2), and an edge from a dropped
 * node is skipped. So a complete verdict is the verdict without the window, and an incomplete one
 * reports only certain violations. Jepsen's generator never names a retired key again, so on its
 * histories the flags fire only on reads older than every transaction in flight (a serializable
 * store's stale reads). Without a window every transaction is kept and TCC's clocks grow with the
 * width of causal order.
 */
final class WeakOnline {
  /** Where violations go (the owning OnlineChecker's report). */
  interface Reporter {
    void report(String anomaly, List<Level> levels, long[] txns, String[] steps, String explanation);
  }

  static boolean decides(Level l) { return l == Level.RC || l == Level.RA || l == Level.TCC; }

  private static final byte PENDING = 4;
  private static final int BOT = -1;
  /** A key the window forgot (keyId), or a session's last commit it dropped (lastCommittedOf). */
  private static final int FORGOTTEN = -2;
  /** A writer the window dropped, in a key's order (Key.writers); in Key.writerOf, DROPPED_IN_MAP. */
  private static final int DROPPED = -2, DROPPED_IN_MAP = Integer.MAX_VALUE;
  /** The view (TAP j) of a read ending at the last element of a key's dropped prefix. */
  private static final int DROPPED_VIEW = -3;

  private final Reporter out;
  /** Told when an event needs state the window dropped (the verdicts are incomplete from there). */
  private final Consumer<String> needDropped;
  private final boolean rc, ra, tcc;

  // The window (0: none; see the class comment)
  private final int maxWritesPerKey;
  /** A key's tables' first size: the appends it gets before it retires, when known (at most 64). */
  private final int keyRoom;
  private int gcMin = 4096, gcAt = 4096;
  private long gcs, droppedTxns, forgottenKeys, droppedChains;
  private int peakHeld;
  private int[][] touched = new int[1024][];
  /** Keys forgotten (every later touch needs them): integer ones as ranges, others one by one. */
  private final LongRanges forgottenLong = new LongRanges();
  private final HashSet<Object> forgottenObj = new HashSet<>();
  private final List<Level> rcUp = new ArrayList<>(), raUp = new ArrayList<>(), tccOnly = new ArrayList<>();

  // Transactions
  private int n;
  private byte[] status = new byte[1024];
  private boolean[] committed = new boolean[1024], resolved = new boolean[1024], shown = new boolean[1024];
  private int[] session = new int[1024], node = new int[1024], soPred = new int[1024];
  private int[] waiting = new int[1024];
  /** TCC: each resolved transaction's chain of causal order and 1-based place on it (chain -1: off every chain). */
  private int[] chain = new int[1024], idx = new int[1024];
  /** Committed only after its session had ended (an :info one shown later): on no chain; its readers tell who knows it. */
  private boolean[] late = new boolean[1024], readsLate = new boolean[1024];
  private IntList[] readersOf = new IntList[1024];
  private long[] display = new long[1024];
  /** The event of its invocation while in flight, then of its completion (the window's age). */
  private long[] evAt = new long[1024];
  private int[][] appKeys = new int[1024][], appMops = new int[1024][], clock = new int[1024][];
  private long[][] appVals = new long[1024][];
  private IntList[] waiters = new IntList[1024];
  /** A transaction waiting for its clock: its preds and its TCC queries (key, position read from), kept until resolved. */
  private int[][] pendingPreds = new int[1024][], tccQueries = new int[1024][];

  // Sessions
  private final Processes procs = new Processes();
  private final IntList pendingOf = new IntList(), lastCommittedOf = new IntList();
  /** TCC: each session's chain (-1: none yet), and whether it ended (an :info completion retires its process). */
  private final IntList sessionChain = new IntList();
  private boolean[] dead = new boolean[16];
  /** TCC's chains: the last place used. */
  private final IntList chainLen = new IntList();
  private final IntList freeChains = new IntList();
  /** Per session, key -> its last committed writer (RA's session case). */
  private final ArrayList<LongIntMap> sessionWriters = new ArrayList<>();

  // Keys and values
  private LongIntMap longKeys = new LongIntMap();
  private final HashMap<Object, Integer> objKeys = new HashMap<>();
  private final ArrayList<Object> keyObjs = new ArrayList<>();
  private final ArrayList<Key> keys = new ArrayList<>();
  private final ValueCodes values = new ValueCodes();

  // CO ∪ VO
  private TopologicalOrder g = new TopologicalOrder(0);
  private final IntList txnOfNode = new IntList(1024);
  private boolean cyclic;

  private long events, triangles, deferred;

  // Scratch (per :ok transaction)
  private long[] codes = new long[64];
  private int[] elemW = new int[64];
  private final IntList rKey = new IntList(), rMop = new IntList(), rFrom = new IntList(), rPos = new IntList(), rView = new IntList(), rBlk = new IntList();
  private final IntList oWriter = new IntList(), oMop = new IntList(), oKey = new IntList();
  private final IntList ownKeys = new IntList();
  private long[] ownVals = new long[8];
  private final IntList path = new IntList(), preds = new IntList(), newlyCommitted = new IntList(), work = new IntList();
  private int curT;

  WeakOnline(List<Level> levels, Reporter out) { this(levels, out, why -> {}, 0); }

  /**
   * @param needDropped told (with the reason) when an event needs what the window dropped
   * @param maxWritesPerKey Jepsen's {@code :max-writes-per-key} (the window; 0: none)
   */
  WeakOnline(List<Level> levels, Reporter out, Consumer<String> needDropped, int maxWritesPerKey) {
    this.out = out;
    this.needDropped = needDropped;
    this.maxWritesPerKey = maxWritesPerKey;
    this.keyRoom = maxWritesPerKey > 0 ? Math.min(maxWritesPerKey, 64) : 4;
    rc = levels.contains(Level.RC);
    ra = levels.contains(Level.RA);
    tcc = levels.contains(Level.TCC);
    for (Level l : List.of(Level.TCC, Level.RA, Level.RC)) {
      if (!levels.contains(l)) continue;
      rcUp.add(l);
      if (l != Level.RC) raUp.add(l);
      if (l == Level.TCC) tccOnly.add(l);
    }
  }

  /** Transactions held (all seen, without a window). */
  int held() { return n; }

  /** The most transactions held at once (sampled before each collection). */
  int peakHeld() { return Math.max(peakHeld, n); }

  /** Collect once this many transactions are held (then twice what a collection keeps). */
  void gcThreshold(int t) {
    gcMin = t;
    gcAt = Math.max(t, Math.min(gcAt, 2 * n));
  }

  /** Statistics for the result map. */
  Map<String, Object> stats() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("committed", (long) txnOfNode.size());
    m.put("edges", (long) g.edgeCount());
    m.put("sessions", (long) procs.live());
    if (tcc) m.put("chains", (long) chainLen.size());
    m.put("triangles-checked", triangles);
    m.put("clocks-waited", deferred);
    if (maxWritesPerKey > 0) {
      m.put("held-txns", (long) n);
      m.put("peak-held-txns", (long) peakHeld());
      m.put("dropped-txns", droppedTxns);
      m.put("forgotten-keys", forgottenKeys);
      if (tcc) m.put("dropped-chains", droppedChains);
      m.put("collections", gcs);
    }
    return m;
  }

  // ------------------------------------------------------------------ ingest

  /** One transaction op of a client process (OnlineChecker filters the others). */
  void op(OpRecord r, long ev) {
    events = ev;
    int s = sessionOf(r.process);
    if (r.type == OpType.INVOKE) {
      int old = pendingOf.get(s);
      if (old >= 0) { // a malformed history (the final check says so): the process goes on
        untouch(old);
        complete(old, OpType.INFO, false);
      }
      int t = newTxn(s, r);
      evAt[t] = ev;
      pendingOf.set(s, t);
      display[t] = r.index != OpRecord.ABSENT ? r.index : ev;
      if (maxWritesPerKey > 0) touch(t, r);
      return;
    }
    int t = pendingOf.get(s);
    if (t >= 0) pendingOf.set(s, -1);
    else t = newTxn(s, r);
    untouch(t);
    evAt[t] = ev;
    display[t] = r.index != OpRecord.ABSENT ? r.index : ev;
    if (r.type == OpType.OK) ok(t, r);
    else complete(t, r.type, true);
    if (maxWritesPerKey > 0 && n >= gcAt) collect();
  }

  /** t is invoked: each key it names has it in flight until it completes. */
  private void touch(int t, OpRecord r) {
    int m = r.mopCount();
    work.clear();
    for (int i = 0; i < m; i++) {
      byte kind = r.kind(i);
      if (kind != OpRecord.APPEND && kind != OpRecord.READ) continue;
      int k = keyId(r, i);
      if (k < 0) continue;
      boolean dup = false;
      for (int a = 0; a < work.size(); a++) if (work.get(a) == k) dup = true;
      if (!dup) work.add(k);
    }
    if (work.size() == 0) return;
    int[] ks = work.toArray();
    work.clear();
    for (int k : ks) keys.get(k).inFlight++;
    touched[t] = ks;
  }

  private void untouch(int t) {
    int[] ks = touched[t];
    if (ks == null) return;
    touched[t] = null;
    for (int k : ks) if (k >= 0) keys.get(k).inFlight--;
  }

  /** The end of the history: transactions still in flight are indeterminate (their reads unknown). */
  void end() {
    for (int s = 0; s < pendingOf.size(); s++) {
      int t = pendingOf.get(s);
      if (t >= 0) {
        pendingOf.set(s, -1);
        complete(t, OpType.INFO, true);
      }
    }
  }

  private void complete(int t, int type, boolean ends) {
    status[t] = (byte) type;
    if (type == OpType.INFO && tcc && ends) retire(session[t]);
    if (type == OpType.FAIL && shown[t]) {
      out.report("AbortedRead", rcUp, new long[] {display[t]}, new String[0],
          "An :ok read showed an append of " + name(t) + ", whose op then failed: an aborted read.");
    }
    if (committed[t] && !resolved[t]) resolveAlone(t);
  }

  /**
   * Session s ended: its chain is free for another session once its last committed transaction
   * has its place (a transaction committed after this is on no chain: {@link #late}).
   */
  private void retire(int s) {
    if (dead[s]) return;
    dead[s] = true;
    int p = lastCommittedOf.get(s);
    if (p < 0 || resolved[p]) freeChain(s);
  }

  private void freeChain(int s) {
    int c = sessionChain.get(s);
    if (c < 0) return;
    sessionChain.set(s, -1);
    freeChains.add(c);
  }

  /** A committed transaction whose reads are unknown (or never count): its past is its session's. */
  private void resolveAlone(int t) {
    if (!tcc) {
      resolved[t] = true;
      return;
    }
    preds.clear();
    if (soPred[t] >= 0) preds.add(soPred[t]);
    tryResolve(t, preds.toArray(), null);
  }

  private int sessionOf(Object p) {
    int s = procs.find(p);
    if (s >= 0) return s;
    if (procs.forgotten(p)) needDropped.accept("an op of process " + Edn.str(p) + " after the window had forgotten its ended session");
    return newSession(p);
  }

  private int newSession(Object p) {
    int s = procs.add(p);
    if (s < pendingOf.size()) {
      pendingOf.set(s, -1);
      lastCommittedOf.set(s, -1);
      sessionWriters.set(s, new LongIntMap(8));
      sessionChain.set(s, -1);
      dead[s] = false;
      return s;
    }
    pendingOf.add(-1);
    lastCommittedOf.add(-1);
    sessionWriters.add(new LongIntMap(8));
    sessionChain.add(-1);
    if (s == dead.length) dead = Arrays.copyOf(dead, 2 * s);
    return s;
  }

  /**
   * Forgets the sessions that ended (an :info completion) with nothing held that may still
   * commit or wait for a clock, and whose chain was freed: their ids are reused, their
   * processes remembered as forgotten (a later op of one needs the session's past).
   */
  private void forgetSessions() {
    int ns = pendingOf.size();
    boolean[] busy = new boolean[ns];
    for (int t = 0; t < n; t++) if (!committed[t] && status[t] != OpType.FAIL || committed[t] && !resolved[t]) busy[session[t]] = true;
    for (int s = 0; s < ns; s++) {
      if (procs.process(s) == null || !dead[s] || busy[s] || pendingOf.get(s) >= 0 || sessionChain.get(s) >= 0) continue;
      procs.forget(s);
      sessionWriters.set(s, null);
      lastCommittedOf.set(s, -1);
    }
    procs.compact();
  }

  /** The key's id, or FORGOTTEN when the window dropped it (the caller says so). */
  private int keyId(OpRecord r, int i) {
    if (r.keyIsLong(i)) {
      long k = r.keyLong(i);
      int id = longKeys.get(k);
      if (id >= 0) return id;
      if (forgottenLong.contains(k)) return FORGOTTEN;
      id = keys.size();
      longKeys.put(k, id);
      keyObjs.add(k);
      keys.add(new Key(keyRoom));
      return id;
    }
    Object k = r.key(i);
    Integer id = objKeys.get(k);
    if (id != null) return id;
    if (!forgottenObj.isEmpty() && forgottenObj.contains(k)) return FORGOTTEN;
    int nk = keys.size();
    objKeys.put(k, nk);
    keyObjs.add(k);
    keys.add(new Key(keyRoom));
    return nk;
  }

  private int newTxn(int s, OpRecord r) {
    int t = n++;
    if (t == status.length) grow();
    status[t] = PENDING;
    committed[t] = resolved[t] = shown[t] = false;
    session[t] = s;
    node[t] = -1;
    soPred[t] = -1;
    waiting[t] = 0;
    chain[t] = -1;
    late[t] = readsLate[t] = false;
    touched[t] = null;
    int m = r.mopCount(), na = 0;
    for (int i = 0; i < m; i++) if (r.kind(i) == OpRecord.APPEND) na++;
    if (na == 0) return t;
    int[] ks = new int[na], ms = new int[na];
    long[] vs = new long[na];
    for (int i = 0, j = 0; i < m; i++) {
      if (r.kind(i) != OpRecord.APPEND) continue;
      int k = keyId(r, i);
      long v = values.append(r, i);
      ks[j] = k;
      ms[j] = i;
      vs[j++] = v;
      if (k < 0) {
        needDropped.accept("an append to key " + Edn.str(r.key(i)) + " after the window had dropped its writers");
        continue;
      }
      Key st = keys.get(k);
      if (st.stale) needDropped.accept("an append to key " + Edn.str(r.key(i)) + " after the window had dropped its writers");
      if (st.writerOf.get(v) < 0) {
        st.writerOf.put(v, t);
        st.appends++;
      }
    }
    appKeys[t] = ks;
    appMops[t] = ms;
    appVals[t] = vs;
    return t;
  }

  private void grow() {
    int c = status.length * 2;
    status = Arrays.copyOf(status, c);
    committed = Arrays.copyOf(committed, c);
    resolved = Arrays.copyOf(resolved, c);
    shown = Arrays.copyOf(shown, c);
    session = Arrays.copyOf(session, c);
    node = Arrays.copyOf(node, c);
    soPred = Arrays.copyOf(soPred, c);
    waiting = Arrays.copyOf(waiting, c);
    display = Arrays.copyOf(display, c);
    evAt = Arrays.copyOf(evAt, c);
    appKeys = Arrays.copyOf(appKeys, c);
    appMops = Arrays.copyOf(appMops, c);
    appVals = Arrays.copyOf(appVals, c);
    clock = Arrays.copyOf(clock, c);
    waiters = Arrays.copyOf(waiters, c);
    chain = Arrays.copyOf(chain, c);
    idx = Arrays.copyOf(idx, c);
    late = Arrays.copyOf(late, c);
    readsLate = Arrays.copyOf(readsLate, c);
    readersOf = Arrays.copyOf(readersOf, c);
    pendingPreds = Arrays.copyOf(pendingPreds, c);
    tccQueries = Arrays.copyOf(tccQueries, c);
    touched = Arrays.copyOf(touched, c);
  }

  private String name(int t) { return "T" + display[t]; }

  // ------------------------------------------------------------------ the window

  /** Whether no append to k will be invoked any more and no transaction naming it is in flight. */
  private boolean closed(int k) {
    Key st = keys.get(k);
    return st.appends >= maxWritesPerKey && st.inFlight == 0;
  }

  private void mark(int t, boolean[] keep, IntList queue) {
    if (t < 0 || keep[t]) return;
    keep[t] = true;
    queue.add(t);
  }

  /**
   * Drops what no later event can need (the class comment's rule), renumbering the rest densely
   * in the same order: transactions, CO ∪ VO's nodes, keys and TCC's chains.
   */
  private void collect() {
    gcs++;
    peakHeld = Math.max(peakHeld, n);
    int nk = keys.size(), ns = pendingOf.size();
    // Keys open: not closed, or queried by a transaction waiting for its clock (pinned: every
    // appender held). Held: closed, but a held transaction that may yet commit appends to it.
    boolean[] open = new boolean[nk], pinned = new boolean[nk], held = new boolean[nk];
    for (int k = 0; k < nk; k++) open[k] = !closed(k);
    for (int t = 0; t < n; t++) {
      int[] q = tccQueries[t];
      if (q != null) for (int i = 0; i < q.length; i += 2) if (q[i] >= 0) pinned[q[i]] = open[q[i]] = true;
    }
    boolean[] keep = new boolean[n];
    IntList queue = new IntList(64);
    for (int t = 0; t < n; t++) {
      if (committed[t] && resolved[t]) continue;
      boolean k = status[t] == PENDING || committed[t]; // committed here: waiting for its clock
      int[] ks = appKeys[t];
      if (!k && ks != null) for (int x : ks) if (x >= 0 && open[x]) k = true;
      if (!k) continue;
      mark(t, keep, queue);
      if (!committed[t] && status[t] != OpType.FAIL && ks != null) for (int x : ks) if (x >= 0 && !open[x]) held[x] = true;
    }
    // A committed transaction is sealed (class comment) unless an append of it is to a key held
    // open and not shown, or shown after some transaction in flight was invoked, or to a key a
    // waiting clock queries.
    long oldest = Long.MAX_VALUE;
    for (int t = 0; t < n; t++) if (status[t] == PENDING) oldest = Math.min(oldest, evAt[t]);
    for (int t = 0; t < n; t++) {
      if (keep[t] || !committed[t]) continue;
      int[] ks = appKeys[t];
      if (ks == null) continue;
      boolean old = evAt[t] < oldest;
      for (int a = 0; a < ks.length; a++) {
        int x = ks[a];
        if (x < 0 || !open[x]) continue;
        if (pinned[x] || !old || keys.get(x).position(appVals[t][a]) < 0) {
          mark(t, keep, queue);
          break;
        }
      }
    }
    // Closure: CO ∪ VO successors, the preds a waiting clock joins, a late transaction's readers.
    for (int qi = 0; qi < queue.size(); qi++) {
      int t = queue.get(qi);
      if (node[t] >= 0) {
        int v = node[t];
        for (int i = 0, d = g.outDegree(v); i < d; i++) mark(txnOfNode.get(g.to(g.outEdge(v, i))), keep, queue);
      }
      int[] ps = pendingPreds[t];
      if (ps != null) for (int p : ps) mark(p, keep, queue);
      IntList rs = readersOf[t];
      if (rs != null) for (int i = 0; i < rs.size(); i++) mark(rs.get(i), keep, queue);
    }
    int[] newId = new int[n];
    int kept = 0;
    for (int t = 0; t < n; t++) newId[t] = keep[t] ? kept++ : FORGOTTEN;
    gcAt = Math.max(gcMin, 2 * kept);
    if (kept == n) return;

    // Keys (P1): one held open keeps its order, the dropped writers a prefix of it; a closed one a
    // dropped transaction appended to is forgotten, and so is one whose dropped appends are not such a prefix.
    boolean[] forget = new boolean[nk];
    int[] droppedApps = new int[nk];
    for (int t = 0; t < n; t++) {
      if (keep[t] || appKeys[t] == null) continue;
      for (int x : appKeys[t]) {
        if (x < 0) continue;
        droppedApps[x]++;
        if (!open[x] && !held[x]) forget[x] = true;
      }
    }
    for (int k = 0; k < nk; k++) {
      if (droppedApps[k] == 0 || forget[k]) continue;
      Key st = keys.get(k);
      if (st.stale) continue;
      if (held[k]) { // kept for its held appenders' commits only: every read of it needs the dropped ones
        st.stale = true;
        continue;
      }
      int p = st.dropped;
      while (p < st.len && newId[st.writers[p]] < 0) p++;
      boolean ok = p - st.dropped == droppedApps[k];
      for (int q = p; q < st.len && ok; q++) if (newId[st.writers[q]] < 0) ok = false;
      if (!ok) forget[k] = true;
    }
    int[] newKey = new int[nk];
    int kk = 0;
    for (int k = 0; k < nk; k++) newKey[k] = forget[k] ? FORGOTTEN : kk++;
    if (kk < nk) {
      LongIntMap nl = new LongIntMap(Math.max(16, kk));
      HashMap<Object, Integer> no = new HashMap<>();
      ArrayList<Object> nObjs = new ArrayList<>(kk);
      ArrayList<Key> nKeys = new ArrayList<>(kk);
      for (int k = 0; k < nk; k++) {
        Object o = keyObjs.get(k);
        boolean isLong = o instanceof Long && longKeys.get((Long) o) == k;
        if (forget[k]) {
          forgottenKeys++;
          if (isLong) forgottenLong.add((Long) o);
          else forgottenObj.add(o);
          continue;
        }
        if (isLong) nl.put((Long) o, newKey[k]);
        else no.put(o, newKey[k]);
        nObjs.add(o);
        nKeys.add(keys.get(k));
      }
      longKeys = nl;
      objKeys.clear();
      objKeys.putAll(no);
      keyObjs.clear();
      keyObjs.addAll(nObjs);
      keys.clear();
      keys.addAll(nKeys);
    }
    for (Key st : keys) st.remap(newId);

    // TCC's chains: those with a held member or a session still going on them (P5).
    int nc = chainLen.size();
    int[] newChain = null;
    if (tcc) {
      boolean[] liveChain = new boolean[nc];
      for (int t = 0; t < n; t++) if (keep[t] && chain[t] >= 0) liveChain[chain[t]] = true;
      for (int s = 0; s < ns; s++) if (sessionChain.get(s) >= 0) liveChain[sessionChain.get(s)] = true;
      newChain = new int[nc];
      int cc = 0;
      for (int c = 0; c < nc; c++) newChain[c] = liveChain[c] ? cc++ : -1;
      droppedChains += nc - cc;
      if (cc < nc) {
        for (int c = 0; c < nc; c++) if (newChain[c] >= 0) chainLen.set(newChain[c], chainLen.get(c));
        chainLen.truncate(cc);
        int fj = 0;
        for (int i = 0; i < freeChains.size(); i++) {
          int c = newChain[freeChains.get(i)];
          if (c >= 0) freeChains.set(fj++, c);
        }
        freeChains.truncate(fj);
        for (int s = 0; s < ns; s++) if (sessionChain.get(s) >= 0) sessionChain.set(s, newChain[sessionChain.get(s)]);
      } else newChain = null;
    }

    // CO ∪ VO: the held nodes, in the same order (P2: no held node reaches a dropped one).
    int nodes = txnOfNode.size();
    int[] nodeMap = new int[nodes];
    int nn = 0;
    for (int v = 0; v < nodes; v++) nodeMap[v] = keep[txnOfNode.get(v)] ? nn++ : -1;
    TopologicalOrder ng = new TopologicalOrder(nn);
    int[] order = g.order(), o = new int[nn];
    int j = 0;
    for (int x : order) if (nodeMap[x] >= 0) o[j++] = nodeMap[x];
    ng.setOrder(o);
    for (int e = 0, m = g.edgeCount(); e < m; e++) {
      int a = nodeMap[g.from(e)], b = nodeMap[g.to(e)];
      if (a < 0 || b < 0) continue;
      int tag = g.tag(e), k = (tag >>> 7) - 1, ty = tag & 127;
      if (k >= 0 && k < nk) tag = newKey[k] >= 0 && newKey[k] < (1 << 24) - 1 ? ty | (newKey[k] + 1) << 7 : ty;
      ng.add(a, b, tag, 0);
    }
    g = ng;
    txnOfNode.clear();
    for (int v = 0; v < nn; v++) txnOfNode.add(-1);

    // Transactions.
    for (int t = 0; t < n; t++) {
      int u = newId[t];
      if (u < 0) continue;
      status[u] = status[t];
      committed[u] = committed[t];
      resolved[u] = resolved[t];
      shown[u] = shown[t];
      session[u] = session[t];
      node[u] = node[t] >= 0 ? nodeMap[node[t]] : -1;
      if (node[u] >= 0) txnOfNode.set(node[u], u);
      soPred[u] = soPred[t] >= 0 ? Math.max(-1, newId[soPred[t]]) : soPred[t];
      waiting[u] = waiting[t];
      chain[u] = chain[t] >= 0 && newChain != null ? newChain[chain[t]] : chain[t];
      idx[u] = idx[t];
      late[u] = late[t];
      readsLate[u] = readsLate[t];
      readersOf[u] = remapList(readersOf[t], newId);
      display[u] = display[t];
      appKeys[u] = remapKeys(appKeys[t], newKey);
      appMops[u] = appMops[t];
      appVals[u] = appVals[t];
      int[] c = clock[t];
      if (c != null && newChain != null) {
        int[] nc2 = new int[c.length];
        int e = 0;
        for (int x = 0; x < c.length; x++) {
          int y = newChain[x];
          if (y >= 0 && c[x] != 0) {
            nc2[y] = c[x];
            e = Math.max(e, y + 1);
          }
        }
        c = Arrays.copyOf(nc2, e);
      }
      clock[u] = c;
      waiters[u] = remapList(waiters[t], newId);
      pendingPreds[u] = remapArray(pendingPreds[t], newId);
      int[] q = tccQueries[t];
      if (q != null) {
        q = q.clone();
        for (int i = 0; i < q.length; i += 2) if (q[i] >= 0) q[i] = newKey[q[i]];
      }
      tccQueries[u] = q;
      touched[u] = remapKeys(touched[t], newKey);
      evAt[u] = evAt[t];
    }
    for (int t = kept; t < n; t++) {
      readersOf[t] = null;
      appKeys[t] = appMops[t] = null;
      appVals[t] = null;
      clock[t] = null;
      waiters[t] = null;
      pendingPreds[t] = tccQueries[t] = null;
      touched[t] = null;
    }
    droppedTxns += n - kept;
    n = kept;

    // Sessions.
    for (int s = 0; s < ns; s++) {
      int p = pendingOf.get(s);
      if (p >= 0) pendingOf.set(s, newId[p]);
      int c = lastCommittedOf.get(s);
      if (c >= 0) lastCommittedOf.set(s, newId[c]); // FORGOTTEN: the session cannot commit again (but see commit)
      LongIntMap sw = sessionWriters.get(s);
      if (sw == null) continue;
      if (dead[s]) {
        sessionWriters.set(s, null);
        continue;
      }
      LongIntMap nw = new LongIntMap(Math.max(8, sw.size()));
      for (int i = 0, m = sw.slots(); i < m; i++) {
        int w = sw.slotValue(i);
        if (w < 0) continue;
        long k = sw.slotKey(i);
        if (k < nk && newKey[(int) k] >= 0 && newId[w] >= 0) nw.put(newKey[(int) k], newId[w]);
      }
      sessionWriters.set(s, nw);
    }
    forgetSessions();
  }

  private static IntList remapList(IntList l, int[] newId) {
    if (l == null) return null;
    IntList out = new IntList(l.size());
    for (int i = 0; i < l.size(); i++) if (newId[l.get(i)] >= 0) out.add(newId[l.get(i)]);
    return out.size() == 0 ? null : out;
  }

  private static int[] remapArray(int[] a, int[] newId) {
    if (a == null) return null;
    int[] out = new int[a.length];
    for (int i = 0; i < a.length; i++) out[i] = newId[a[i]];
    return out;
  }

  private static int[] remapKeys(int[] ks, int[] newKey) {
    if (ks == null) return null;
    int[] out = new int[ks.length];
    for (int i = 0; i < ks.length; i++) out[i] = ks[i] >= 0 ? newKey[ks[i]] : ks[i];
    return out;
  }

  // ------------------------------------------------------------------ commits and CO ∪ VO

  /** t is certainly committed: a node, after its session's last committed transaction. */
  private void commit(int t) {
    committed[t] = true;
    node[t] = txnOfNode.size();
    txnOfNode.add(t);
    g.addNode();
    int s = session[t];
    int p = lastCommittedOf.get(s);
    if (p == FORGOTTEN) p = -1; // dropped: its edge to t would come from D, its past holds nothing held (P2, P5)
    soPred[t] = p;
    if (dead[s]) late[t] = true; // its session's chain may have gone on with another session
    else lastCommittedOf.set(s, t);
    if (p >= 0) edge(p, t, Edge.SO, -1);
    if (status[t] != PENDING && status[t] != OpType.OK) resolveAlone(t); // an :info one, shown after its completion
  }

  private void edge(int a, int b, int type, int k) {
    if (a == b || a == DROPPED) return; // from a dropped transaction: no cycle passes through it (P2)
    if (b < 0) {
      needDropped.accept("an edge into a transaction the window had dropped");
      return;
    }
    int tag = type | (k >= 0 && k < (1 << 24) - 1 ? (k + 1) << 7 : 0);
    int from = node[a], to = node[b];
    if (g.add(from, to, tag, 0) >= 0) return;
    path.clear();
    if (g.path(to, from, g.edgeCount(), path) < 0) return;
    boolean vo = type == Edge.WW;
    StringBuilder sb = new StringBuilder();
    int m = path.size() + 1;
    long[] txns = new long[m];
    String[] steps = new String[m];
    for (int i = -1; i < path.size(); i++) {
      int src = i < 0 ? from : g.from(path.get(i));
      int tg = i < 0 ? tag : g.tag(path.get(i));
      int ty = tg & 127, kk = (tg >>> 7) - 1;
      vo |= ty == Edge.WW;
      int tx = txnOfNode.get(src);
      txns[i + 1] = display[tx];
      steps[i + 1] = ty == Edge.WW ? "vo" : Edge.name(ty);
      sb.append(name(tx)).append(" -").append(steps[i + 1]);
      if (kk >= 0) sb.append(" ").append(Edn.str(keyObjs.get(kk)));
      sb.append("-> ");
    }
    sb.append(name(a));
    cyclic = true;
    out.report(vo ? "CyclicVersionOrder" : "CyclicCO", rcUp, txns, steps,
        "a cycle " + sb + (vo ? " of causal and version order" : " of causal order") + " (RC, RA and TCC forbid it)");
  }

  // ------------------------------------------------------------------ a committed transaction's reads

  private void ok(int t, OpRecord r) {
    status[t] = OpType.OK;
    curT = t;
    if (!committed[t]) commit(t);
    rKey.clear();
    rMop.clear();
    rFrom.clear();
    rPos.clear();
    rView.clear();
    rBlk.clear();
    oWriter.clear();
    oMop.clear();
    oKey.clear();
    ownKeys.clear();
    int m = r.mopCount();
    for (int i = 0; i < m; i++) {
      byte kind = r.kind(i);
      if (kind == OpRecord.APPEND) {
        if (ownKeys.size() == ownVals.length) ownVals = Arrays.copyOf(ownVals, ownVals.length * 2);
        ownVals[ownKeys.size()] = values.append(r, i);
        ownKeys.add(keyId(r, i));
      } else if (kind == OpRecord.READ) {
        byte tag = r.valueTag(i);
        if (tag == OpRecord.V_LIST || tag == OpRecord.V_NIL) read(t, r, i);
      }
    }
    unshownAppends(t);
    nonRepeatable(t);
    if (rc || ra) observedTriangles(t);
    if (ra) sessionTriangles(t);
    // The session's writers, for its later transactions (after t's own checks).
    int[] ks = appKeys[t];
    if (ks != null) {
      LongIntMap sw = sessionWriters.get(session[t]);
      if (sw == null) sessionWriters.set(session[t], sw = new LongIntMap(8));
      for (int k : ks) if (k >= 0) sw.put(k, t);
    }
    if (tcc) {
      int nq = rKey.size();
      int[] q = new int[2 * nq];
      int c = 0;
      for (int i = 0; i < nq; i++) {
        if (rFrom.get(i) == Integer.MIN_VALUE) continue;
        q[c++] = rKey.get(i);
        q[c++] = rBlk.get(i);
      }
      preds.clear();
      if (soPred[t] >= 0) preds.add(soPred[t]);
      for (int i = 0; i < oWriter.size(); i++) preds.add(oWriter.get(i));
      tryResolve(t, preds.toArray(), Arrays.copyOf(q, c));
    } else resolved[t] = true;
  }

  /**
   * One read mop i of t's. Records, for a valid one, its key, mop, writer read from (BOT) and
   * that writer's position (-1 for BOT), and its observations; extends the key's order.
   */
  private void read(int t, OpRecord r, int i) {
    int k = keyId(r, i);
    if (k < 0) {
      needDropped.accept("a read of key " + Edn.str(r.key(i)) + " after the window had dropped its writers");
      readFacts(k, i, Integer.MIN_VALUE, 0, Integer.MIN_VALUE, false);
      return;
    }
    if (keys.get(k).stale) {
      needDropped.accept("a read of key " + Edn.str(keyObjs.get(k)) + " after the window had dropped its writers");
      readFacts(k, i, Integer.MIN_VALUE, 0, Integer.MIN_VALUE, false);
      return;
    }
    byte tag = r.valueTag(i);
    int len = tag == OpRecord.V_LIST ? r.listLen(i) : 0;
    if (codes.length < len) {
      codes = new long[Math.max(len, 2 * codes.length)];
      elemW = new int[codes.length];
    }
    Key st = keys.get(k);
    // Elements that agree with the key's order so far (the usual read): their writers are known
    // there, and they hold no duplicate (a valid read showed them).
    int known = 0, lim = Math.min(len, st.len);
    for (int j = 0; j < len; j++) {
      codes[j] = values.elem(r, i, j);
      if (j == known && j < lim && codes[j] == st.vals[j]) elemW[known++] = st.writers[j];
      else elemW[j] = st.writer(codes[j]);
    }
    // The window dropped the writers of a prefix of the order (P1): a read must show all of it
    // (one ending inside it might miss a dropped writer after the one it read from).
    int dp = st.dropped;
    if (known < dp) {
      if (known == len) {
        needDropped.accept("a read of key " + Edn.str(keyObjs.get(k)) + " ending before appends whose writers the window had dropped");
      } else {
        out.report("incompatible-order", rcUp, new long[] {display[t]}, new String[0],
            name(t) + " read key " + Edn.str(keyObjs.get(k)) + " as " + r.renderMop(i) + ", which differs at position "
                + (known + 1) + " (" + values.str(codes[known]) + ") from the order earlier reads showed (" + values.str(st.vals[known])
                + " there): no single order of appends explains both.");
      }
      readFacts(k, i, Integer.MIN_VALUE, 0, Integer.MIN_VALUE, false);
      return;
    }
    for (int j = dp; j < len; j++) {
      if (elemW[j] != DROPPED) continue;
      needDropped.accept("a read of key " + Edn.str(keyObjs.get(k)) + " showing an append the window had dropped out of order");
      readFacts(k, i, Integer.MIN_VALUE, 0, Integer.MIN_VALUE, false);
      return;
    }
    // The version it shows, for TAP j: its last element not t's own.
    int vj = len - 1;
    while (vj >= 0 && elemW[vj] == t) vj--;
    int view = vj < 0 ? BOT : elemW[vj] == DROPPED ? DROPPED_VIEW
        : elemW[vj] < 0 || status[elemW[vj]] == OpType.FAIL ? Integer.MIN_VALUE : elemW[vj];
    // a (left offline), duplicates, b, c.
    for (int j = dp; j < len; j++) {
      int w = elemW[j];
      if (w < 0) { readFacts(k, i, Integer.MIN_VALUE, 0, view, false); return; }
    }
    for (int j = dp; j < len; j++) {
      int w = elemW[j];
      for (int j2 = 0; j2 < j && j >= known && len <= 64; j2++) {
        if (codes[j2] == codes[j]) {
          intra("duplicate-elements", t, w, k, r, i, "which holds " + values.str(codes[j]) + " twice");
          { readFacts(k, i, Integer.MIN_VALUE, 0, view, false); return; }
        }
      }
      if (status[w] == OpType.FAIL) {
        intra("AbortedRead", t, w, k, r, i, "which includes " + values.str(codes[j]) + ", appended by " + name(w) + ", whose op failed");
        { readFacts(k, i, Integer.MIN_VALUE, 0, view, false); return; }
      }
      if (w == t && appMop(t, codes[j], k) > i) {
        intra("FutureRead", t, t, k, r, i, "which includes " + values.str(codes[j]) + ", its own later append");
        { readFacts(k, i, Integer.MIN_VALUE, 0, view, false); return; }
      }
    }
    if (len > 64 && known < len && hasDuplicate(len)) {
      intra("duplicate-elements", t, t, k, r, i, "which holds an element twice");
      { readFacts(k, i, Integer.MIN_VALUE, 0, view, false); return; }
    }
    for (int j = dp; j < len; j++) if (elemW[j] != t) shown[elemW[j]] = true;
    // d, e: the list ends with exactly t's appends to k so far, in program order.
    int mine = 0;
    for (int a = 0; a < ownKeys.size(); a++) if (ownKeys.get(a) == k) mine++;
    int f = len - mine;
    boolean ownOk = f >= 0;
    if (ownOk) {
      for (int a = 0, p = f; a < ownKeys.size(); a++) {
        if (ownKeys.get(a) != k) continue;
        if (codes[p] != ownVals[a] || elemW[p] != t) {
          ownOk = false;
          break;
        }
        p++;
      }
    }
    if (ownOk) for (int j = 0; j < f; j++) if (elemW[j] == t) ownOk = false;
    if (!ownOk) {
      boolean lastOwn = len > 0 && elemW[len - 1] == t;
      intra(lastOwn ? "NotMyLastWrite" : "NotMyOwnWrite", t, t, k, r, i,
          "although its own appends to that key so far (" + mine + ") must end it, in order");
      { readFacts(k, i, Integer.MIN_VALUE, 0, view, false); return; }
    }
    // f: each block of one writer's elements is all its appends to k, in order. The blocks of
    // the key's order are (valid reads made them), so only the last one this read shares with
    // it (which the read may cut short) and those beyond are checked.
    int shared = Math.min(known, f);
    for (int j = Math.max(dp, shared == 0 ? 0 : st.blockOf(shared - 1)); j < f; ) {
      int w = elemW[j], e = j;
      int[] ks = appKeys[w];
      long[] vs = appVals[w];
      boolean whole = true;
      for (int a = 0; a < ks.length; a++) {
        if (ks[a] != k) continue;
        if (e >= f || elemW[e] != w || codes[e] != vs[a]) {
          whole = false;
          break;
        }
        e++;
      }
      if (whole && e < f && elemW[e] == w) whole = false;
      if (!whole) {
        intra("IntermediateRead", t, w, k, r, i, "in which " + name(w) + "'s appends to that key are not all there, in order");
        { readFacts(k, i, Integer.MIN_VALUE, 0, view, false); return; }
      }
      j = e;
    }
    // The version order: a prefix of it, or an extension.
    int common = Math.min(st.len, f);
    for (int p = 0; p < common; p++) {
      if (st.vals[p] != codes[p]) {
        out.report("incompatible-order", rcUp, new long[] {display[t]}, new String[0],
            name(t) + " read key " + Edn.str(keyObjs.get(k)) + " as " + r.renderMop(i) + ", which differs at position "
                + (p + 1) + " (" + values.str(codes[p]) + ") from the order earlier reads showed (" + values.str(st.vals[p])
                + " there): no single order of appends explains both.");
        { readFacts(k, i, Integer.MIN_VALUE, 0, view, false); return; }
      }
    }
    if (f > st.len) extend(k, st, f);
    int from = f == 0 ? BOT : elemW[f - 1];
    int blk = f == 0 ? -1 : st.blockIndex(f - 1);
    readFacts(k, i, from, f == 0 ? -1 : st.blockStart.get(blk), view, true);
    rBlk.add(blk);
    if (from != BOT) edge(from, t, Edge.WR, k);
    for (int j = dp; j < f; j++) {
      int w = elemW[j];
      if (j > 0 && elemW[j - 1] == w) continue;
      oWriter.add(w);
      oMop.add(i);
      oKey.add(k);
      if (late[w]) {
        if (readersOf[w] == null) readersOf[w] = new IntList(2);
        readersOf[w].add(t);
        readsLate[t] = true;
      }
    }
  }

  /** Records read i (its writer from: MIN_VALUE when the read is not valid). Returns nothing, for brevity at call sites. */
  private void readFacts(int k, int mop, int from, int at, int view, boolean valid) {
    if (!valid) rBlk.add(-1);
    rKey.add(k);
    rMop.add(mop);
    rFrom.add(from);
    rPos.add(at);
    rView.add(view);
  }

  private boolean hasDuplicate(int len) {
    long[] c = Arrays.copyOf(codes, len);
    Arrays.sort(c);
    for (int j = 1; j < len; j++) if (c[j] == c[j - 1]) return true;
    return false;
  }

  /** The mop of t's append of v to k, or -1. */
  private int appMop(int t, long v, int k) {
    int[] ks = appKeys[t];
    if (ks == null) return -1;
    for (int a = 0; a < ks.length; a++) if (ks[a] == k && appVals[t][a] == v) return appMops[t][a];
    return -1;
  }

  private void intra(String tap, int t, int w, int k, OpRecord r, int i, String why) {
    List<Level> ls = rcUp;
    out.report(tap, ls, w == t ? new long[] {display[t]} : new long[] {display[t], display[w]}, new String[0],
        name(t) + " read key " + Edn.str(keyObjs.get(k)) + " as " + r.renderMop(i) + ", " + why + " (" + tap + ").");
  }

  /** The key's order grows to codes[0..f): each new block's writer committed, ordered after the previous one. */
  private void extend(int k, Key st, int f) {
    int from = st.len;
    newlyCommitted.clear();
    for (int p = from; p < f; p++) {
      int w = elemW[p];
      st.add(codes[p], w);
      if (p > 0 && st.writers[p - 1] == w) continue;
      st.blockStart.add(p);
      if (!committed[w]) {
        commit(w);
        newlyCommitted.add(w);
      }
      st.removeUnshown(w);
      if (p > 0) edge(st.writers[p - 1], w, Edge.WW, k);
    }
    int last = st.writers[st.len - 1];
    for (int i = 0; i < st.unshown.size(); i++) edge(last, st.unshown.get(i), Edge.WW, k);
    // A writer committed by this read: its appends elsewhere that no read showed follow those keys' orders.
    for (int i = 0; i < newlyCommitted.size(); i++) unshownAppends(newlyCommitted.get(i));
  }

  /** t's appends no read has shown: after every element shown so far. */
  private void unshownAppends(int t) {
    int[] ks = appKeys[t];
    if (ks == null) return;
    for (int a = 0; a < ks.length; a++) {
      if (ks[a] < 0) {
        if (committed[t] && status[t] != OpType.OK) needDropped.accept("a commit of " + name(t) + ", which appended to a key the window had forgotten");
        continue;
      }
      Key st = keys.get(ks[a]);
      if (st.position(appVals[t][a]) >= 0 || st.isUnshown(t)) continue;
      st.unshown.add(t);
      if (st.len > 0) edge(st.writers[st.len - 1], t, Edge.WW, ks[a]);
    }
  }


  // ------------------------------------------------------------------ TAP j and triangles

  private void nonRepeatable(int t) {
    if (!ra && !tcc) return;
    for (int i = 0; i < rKey.size(); i++) {
      int v = rView.get(i);
      if (v == Integer.MIN_VALUE) continue;
      for (int j = 0; j < i; j++) {
        if (rKey.get(j) != rKey.get(i) || rView.get(j) == Integer.MIN_VALUE || rView.get(j) == v) continue;
        out.report("NonRepeatableRead", raUp, new long[] {display[t]}, new String[0],
            name(t) + " read key " + Edn.str(keyObjs.get(rKey.get(i))) + " twice, from " + who(rView.get(j)) + " and then from "
                + who(v) + " (NonRepeatableRead).");
        return;
      }
    }
  }

  private String who(int w) { return w == BOT ? "the initial state" : w == DROPPED_VIEW || w == DROPPED ? "a writer the window dropped" : name(w); }

  /**
   * Whether writer t2 of key k lies after the version at position `at` of k (-1: the initial
   * state) in k's order: shown later, or not shown (then after every element shown). Null-safe:
   * false when t2 does not append to k.
   */
  private boolean after(int t2, int k, int at) {
    int[] ks = appKeys[t2];
    if (ks == null) return false;
    for (int a = 0; a < ks.length; a++) {
      if (ks[a] != k) continue;
      int p = keys.get(k).position(appVals[t2][a]);
      return p < 0 || p > at;
    }
    return false;
  }

  /**
   * RC's and RA's triangles through what t observed: t read k from t1 (at position at), and
   * observed t2, a writer of k after t1 (RC: by a read of another key before that read; RA: by
   * any read).
   */
  private void observedTriangles(int t) {
    boolean doneRc = !rc, doneRa = !ra;
    for (int i = 0; i < rKey.size() && !(doneRc && doneRa); i++) {
      int t1 = rFrom.get(i);
      if (t1 == Integer.MIN_VALUE) continue;
      int k = rKey.get(i), mx = rMop.get(i), at = rPos.get(i);
      for (int o = 0; o < oWriter.size(); o++) {
        int t2 = oWriter.get(o);
        if (t2 == t1 || t2 == t) continue;
        triangles++;
        if (!after(t2, k, at)) continue;
        boolean mono = oKey.get(o) != k && oMop.get(o) < mx;
        if (mono && !doneRc) {
          triangle("NonMonoReadCM", rcUp, t, t1, t2, k, "observed " + name(t2) + " by an earlier read of another key");
          doneRc = doneRa = true;
        } else if (!doneRa) {
          triangle("FracturedReadCM", raUp, t, t1, t2, k, "observed " + name(t2));
          doneRa = true;
        }
        if (doneRc && doneRa) return;
      }
    }
  }

  /** RA's session case: t read k from t1, and its session's last earlier writer of k lies after t1. */
  private void sessionTriangles(int t) {
    LongIntMap sw = sessionWriters.get(session[t]);
    if (sw == null || sw.size() == 0) return;
    for (int i = 0; i < rKey.size(); i++) {
      int t1 = rFrom.get(i);
      if (t1 == Integer.MIN_VALUE) continue;
      int k = rKey.get(i), t2 = sw.get(k);
      if (t2 < 0 || t2 == t1) continue;
      triangles++;
      if (!after(t2, k, rPos.get(i))) continue;
      triangle("FracturedReadCM", raUp, t, t1, t2, k, "follows " + name(t2) + " in its session");
      return;
    }
  }

  private void triangle(String tap, List<Level> ls, int t3, int t1, int t2, int k, String how) {
    String x = Edn.str(keyObjs.get(k));
    out.report(tap, ls, t1 < 0 ? new long[] {display[t3], display[t2]} : new long[] {display[t3], display[t1], display[t2]},
        new String[0], name(t3) + " read key " + x + " from " + who(t1) + ", but " + how + ", which appended to " + x
            + " after " + (t1 == BOT ? "its initial state" : t1 == DROPPED ? "the version it read" : name(t1)) + " (" + tap + ").");
  }

  // ------------------------------------------------------------------ clocks (TCC)

  /** t's clock is the join of preds' (and t itself) once every pred has one; queries are then checked. */
  private void tryResolve(int t, int[] ps, int[] queries) {
    int wait = 0;
    for (int p : ps) {
      if (resolved[p]) continue;
      if (waiters[p] == null) waiters[p] = new IntList(2);
      waiters[p].add(t);
      wait++;
    }
    if (wait > 0) {
      deferred++;
      waiting[t] = wait;
      pendingPreds[t] = ps;
      tccQueries[t] = queries;
      return;
    }
    resolve(t, ps, queries);
  }

  private void resolve(int t0, int[] ps0, int[] queries0) {
    clockOf(t0, ps0, queries0);
    work.clear();
    work.add(t0);
    while (work.size() > 0) {
      int t = work.pop();
      IntList ws = waiters[t];
      if (ws == null) continue;
      waiters[t] = null;
      for (int i = 0; i < ws.size(); i++) {
        int u = ws.get(i);
        if (--waiting[u] != 0) continue;
        clockOf(u, pendingPreds[u], tccQueries[u]);
        work.add(u);
      }
    }
  }

  /**
   * t's clock: the join of its preds' and its own place. Chains (as in {@link
   * isocheck.check.weak.CausalOrder}) hold only the transactions {@link #knows} is asked about:
   * those that append, and readers of a late transaction; the others are on none (their
   * clocks are joins only, dropped once their session's next transaction has joined them). A
   * session's such transactions go on its chain, in order; its first takes a chain an ended
   * session left whose last member it knows, else a new one. So chains number about the width
   * of causal order (the transactions no later one knows yet: on a Jepsen-shaped history, the
   * writers of cold keys no one has read since), not the sessions that ever ran. A transaction
   * committed after its session ended is on no chain: its readers say who knows it.
   */
  private void clockOf(int t, int[] ps, int[] queries) {
    int len = chainLen.size();
    int[] c = new int[len + 1];
    // The latest preds first (a read's last writers, who often know the earlier ones): a pred
    // the join knows already has its past in it (clocks are exact), so it is skipped.
    for (int i = ps.length - 1; i >= 0; i--) {
      int p = ps[i];
      int[] cp = clock[p];
      if (cp == null || chain[p] >= 0 && c[chain[p]] >= idx[p]) continue;
      for (int s = 0; s < cp.length; s++) if (cp[s] > c[s]) c[s] = cp[s];
    }
    if (!late[t] && (appKeys[t] != null || readsLate[t])) {
      int s = session[t], own = sessionChain.get(s), ch = own;
      // A session's first: a chain some ended session left, whose last member t knows (the
      // most recently freed first, a bounded number of them).
      for (int i = freeChains.size() - 1, tries = own < 0 ? 64 : 0; i >= 0 && tries > 0; i--, tries--) {
        int f = freeChains.get(i);
        if (c[f] < chainLen.get(f)) continue;
        ch = f;
        freeChains.set(i, freeChains.get(freeChains.size() - 1));
        freeChains.truncate(freeChains.size() - 1);
        break;
      }
      if (ch < 0) {
        ch = chainLen.size();
        chainLen.add(0);
      }
      sessionChain.set(s, ch);
      int at = chainLen.get(ch) + 1;
      chainLen.set(ch, at);
      chain[t] = ch;
      idx[t] = at;
      if (ch >= c.length) c = Arrays.copyOf(c, ch + 1);
      c[ch] = at;
    }
    int e = c.length; // trailing zeros need no room
    while (e > 0 && c[e - 1] == 0) e--;
    clock[t] = e == c.length ? c : Arrays.copyOf(c, e);
    // A session predecessor on no chain (appends nothing, so no one reads it): only t joined its clock.
    int sp = soPred[t];
    if (sp >= 0 && chain[sp] < 0 && !late[sp] && appKeys[sp] == null) clock[sp] = null;
    resolved[t] = true;
    pendingPreds[t] = null;
    tccQueries[t] = null;
    if (!late[t] && dead[session[t]] && lastCommittedOf.get(session[t]) == t) freeChain(session[t]);
    if (queries != null) causalTriangles(t, queries);
  }

  /** Whether committed a →CO b (a ≠ b), b's clock known: a's place on its chain, or a reader of a that b knows. */
  private boolean knows(int b, int a) {
    if (a < 0) {
      needDropped.accept("a causal query about a transaction the window had dropped");
      return false;
    }
    if (a == b || !resolved[a]) return false;
    int ch = chain[a];
    if (ch >= 0) {
      int[] c = clock[b];
      return ch < c.length && c[ch] >= idx[a];
    }
    IntList rs = readersOf[a];
    if (rs == null) return false;
    for (int i = 0; i < rs.size(); i++) {
      int r = rs.get(i);
      if (r == b || (chain[r] >= 0 && knows(b, r))) return true;
    }
    return false;
  }

  /** TCC's triangles: t read k from the version ending block blk (-1: the initial state), and knows a writer of k after it. */
  private void causalTriangles(int t, int[] q) {
    for (int i = 0; i < q.length; i += 2) {
      int k = q[i], blk = q[i + 1];
      if (k < 0) {
        needDropped.accept("a causal query on a key the window had forgotten");
        continue;
      }
      Key st = keys.get(k);
      int t1 = blk < 0 ? BOT : st.writers[st.blockStart.get(blk)];
      int b = blk + 1;
      for (; b < st.blockStart.size(); b++) {
        int t2 = st.writers[st.blockStart.get(b)];
        triangles++;
        if (t2 != t1 && knows(t, t2)) {
          triangle("ConflictCM", tccOnly, t, t1, t2, k, "causally follows " + name(t2));
          return;
        }
      }
      for (int u = 0; u < st.unshown.size(); u++) {
        int t2 = st.unshown.get(u);
        triangles++;
        if (t2 != t1 && knows(t, t2)) {
          triangle("ConflictCM", tccOnly, t, t1, t2, k, "causally follows " + name(t2));
          return;
        }
      }
    }
  }

  /** What is known of one key: the order its reads showed, its writers, its appends not shown yet. */
  private static final class Key {
    /** Distinct values appended (invoked); transactions in flight that name the key. */
    int appends, inFlight;
    /** The order's first positions whose writers the window dropped (P1). */
    int dropped;
    /** Closed, with writers dropped anywhere: kept for the commits of held appenders only (P4). */
    boolean stale;

    int writer(long v) {
      int w = writerOf.get(v);
      return w == DROPPED_IN_MAP ? DROPPED : w;
    }
    final LongIntMap writerOf, posOf;
    long[] vals;
    int[] writers;

    /** room: the appends it is expected to get (the window's max-writes-per-key), so that its tables seldom regrow. */
    Key(int room) {
      writerOf = new LongIntMap(room);
      posOf = new LongIntMap(room);
      vals = new long[room];
      writers = new int[room];
    }
    int len;
    final IntList blockStart = new IntList(2);
    final IntList unshown = new IntList(2);

    /** Renumbers its writers (every one held: P1). */
    void remap(int[] newId) {
      for (int p = 0; p < len; p++) if (writers[p] >= 0) writers[p] = newId[writers[p]];
      while (dropped < len && writers[dropped] == DROPPED) dropped++;
      for (int i = 0, m = writerOf.slots(); i < m; i++) {
        int w = writerOf.slotValue(i);
        if (w >= 0 && w != DROPPED_IN_MAP) writerOf.setSlotValue(i, newId[w] >= 0 ? newId[w] : DROPPED_IN_MAP);
      }
      int j = 0;
      for (int i = 0; i < unshown.size(); i++) if (newId[unshown.get(i)] >= 0) unshown.set(j++, newId[unshown.get(i)]);
      unshown.truncate(j);
    }

    void add(long v, int w) {
      if (len == vals.length) {
        vals = Arrays.copyOf(vals, 2 * len);
        writers = Arrays.copyOf(writers, 2 * len);
      }
      posOf.put(v, len);
      vals[len] = v;
      writers[len++] = w;
    }

    int position(long v) { return posOf.get(v); }

    /** The block (writer run) holding position p. */
    int blockIndex(int p) { return blockStart.lastAtMost(p); }

    /** The position of the first element of the block holding p. */
    int blockOf(int p) { return blockStart.get(blockIndex(p)); }

    boolean isUnshown(int w) {
      for (int i = 0, m = unshown.size(); i < m; i++) if (unshown.get(i) == w) return true;
      return false;
    }

    void removeUnshown(int w) {
      for (int i = 0, m = unshown.size(); i < m; i++) {
        if (unshown.get(i) != w) continue;
        unshown.set(i, unshown.get(m - 1));
        unshown.truncate(m - 1);
        return;
      }
    }
  }

  /** A set of longs as sorted disjoint ranges: compact for keys forgotten about in order, as Jepsen's are. */
  static final class LongRanges {
    private long[] lo = new long[8], hi = new long[8];
    private int n;

    int ranges() { return n; }

    /** The index of the last range starting at or before x, or -1. */
    private int floor(long x) {
      int a = 0, b = n - 1, r = -1;
      while (a <= b) {
        int m = (a + b) >>> 1;
        if (lo[m] <= x) {
          r = m;
          a = m + 1;
        } else b = m - 1;
      }
      return r;
    }

    boolean contains(long x) {
      int i = floor(x);
      return i >= 0 && x <= hi[i];
    }

    void add(long x) {
      int i = floor(x);
      if (i >= 0 && x <= hi[i]) return;
      boolean left = i >= 0 && hi[i] != Long.MAX_VALUE && hi[i] + 1 == x;
      boolean right = i + 1 < n && x != Long.MAX_VALUE && lo[i + 1] == x + 1;
      if (left && right) {
        hi[i] = hi[i + 1];
        System.arraycopy(lo, i + 2, lo, i + 1, n - i - 2);
        System.arraycopy(hi, i + 2, hi, i + 1, n - i - 2);
        n--;
      } else if (left) hi[i] = x;
      else if (right) lo[i + 1] = x;
      else {
        if (n == lo.length) {
          lo = Arrays.copyOf(lo, 2 * n);
          hi = Arrays.copyOf(hi, 2 * n);
        }
        System.arraycopy(lo, i + 1, lo, i + 2, n - i - 1);
        System.arraycopy(hi, i + 1, hi, i + 2, n - i - 1);
        lo[i + 1] = hi[i + 1] = x;
        n++;
      }
    }
  }
}
