package isocheck.sim;

import isocheck.history.History;
import isocheck.history.Kw;
import isocheck.history.OpRecord;
import isocheck.history.OpSink;
import isocheck.history.OpType;
import java.util.Set;

/**
 * One simulation run: a discrete-event interleaving of sessions against one simulated store,
 * streaming Jepsen ops to a sink as they happen.
 *
 * <p>At each event the engine picks, uniformly among the sessions that can act, either an idle
 * session, which invokes its next transaction (an {@code :invoke} op whose reads carry nil), or
 * a session with a transaction in flight, which advances it one step. How many steps a
 * transaction takes is the store's business:
 * <ul>
 * <li>STRICT_SERIALIZABLE and SERIALIZABLE: one step, at which the whole transaction executes
 *     atomically, commits and completes. The serializable store lets read-only transactions
 *     read a stale commit-order prefix, no older than the session's {@link Session#floor}.
 * <li>SNAPSHOT_ISOLATION and READ_COMMITTED: one step per micro-op, then a commit step that
 *     completes the transaction. Snapshot isolation takes its snapshot at the first step and
 *     applies first-committer-wins at commit; read committed reads the latest committed state
 *     at each read step and takes long write locks at each write step (blocking, or aborting
 *     the transaction that would close a deadlock).
 * </ul>
 * The completion ({@code :ok} with the reads filled in, {@code :fail} or {@code :info}
 * repeating the invocation's micro-ops) is emitted at the commit step. Memory stays bounded by
 * the active keys and the transactions in flight: ops go to the sink as they happen and retired
 * keys are dropped once no transaction refers to them.
 *
 * <p>The transactions are the engine's own (drawn as {@link SimConfig} says), or, when a
 * {@link ClientTxns} is given, a client's: then a free session invokes the client's next
 * transaction, phase by phase, and the run ends when the last phase is exhausted and done.
 */
final class Engine {
  static final int OK = OpType.OK, FAIL = OpType.FAIL, INFO = OpType.INFO;
  private static final Object[] TYPE_KW = {Kw.INVOKE, Kw.OK, Kw.FAIL, Kw.INFO};
  /** How far back (in commits) the serializable store's stale reads may go. */
  private static final int STALE_WINDOW = 64;

  final SimConfig c;
  final OpSink sink;
  final Rng rng;
  final boolean lists;
  final Store store;
  final Bug bug;
  /** The client's transactions, or null when the engine draws its own. */
  private final ClientTxns client;

  final KeyState[] pool;
  long nextKeyId;
  private final double[] zipfCdf;

  final Session[] sessions;
  private final int[] ready;
  private int nReady;

  int commitSeq;
  int invoked;
  /** Whether the last transaction of the workload has been invoked. */
  private boolean ended;
  long ordinal, time;
  int nOk, nFail, nInfo, nPending;
  int bugActions, bugFirings, activeScenarios;
  final int maxScenarios;
  private final OpRecord rec = new OpRecord();

  Engine(SimConfig c, OpSink sink) { this(c, sink, null); }

  Engine(SimConfig c, OpSink sink, ClientTxns client) {
    this.c = c;
    this.client = client;
    this.sink = sink;
    this.rng = new Rng(c.seed);
    this.lists = c.workload == History.Workload.APPEND;
    this.store = c.store;
    this.bug = c.bug;
    int poolSize = client == null ? c.keys : 0;
    pool = new KeyState[poolSize];
    for (int i = 0; i < poolSize; i++) pool[i] = new KeyState(i, i);
    nextKeyId = poolSize;
    zipfCdf = client == null && c.keyDist == SimConfig.KeyDist.ZIPF ? zipfCdf(c.keys, c.zipfExponent) : null;
    sessions = new Session[c.sessions];
    ready = new int[c.sessions];
    for (int i = 0; i < c.sessions; i++) sessions[i] = new Session(i);
    maxScenarios = Math.max(1, c.sessions / 4);
  }

  SimResult run() {
    if (client != null) client.nextPhase();
    for (Session s : sessions) refresh(s);
    while (true) {
      if (nReady == 0) {
        // Everything is idle: a client's next phase starts now, as after Jepsen's gen/phases.
        if (client == null || !client.nextPhase()) break;
        for (Session s : sessions) refresh(s);
        continue;
      }
      Session s = sessions[ready[rng.nextInt(nReady)]];
      time += 1 + rng.nextInt(1000);
      if (s.inFlight) step(s);
      else invoke(s);
    }
    sink.end();
    Set<String> satisfy = bugActions == 0 ? store.guarantees()
        : Levels.intersection(store.guarantees(), bug.keeps());
    Set<String> violate = bugFirings > 0 ? bug.breaks() : Levels.of();
    return new SimResult(c, satisfy, violate, bugFirings, bugActions, invoked, nOk, nFail, nInfo,
        nPending, ordinal, client == null ? nextKeyId : client.keysUsed());
  }

  // ------------------------------------------------------------------ scheduling

  /** Puts the session in or out of the set of sessions that can act, from its state. */
  void refresh(Session s) {
    boolean want;
    if (s.crashed) want = false;
    else if (s.inFlight) want = !s.blocked;
    else if (client != null) want = !s.queue.isEmpty() || (s.reservedBy == null && client.hasNext());
    else want = invoked < c.txns && (s.reservedBy == null || !s.queue.isEmpty());
    if (want && s.readyPos < 0) {
      s.readyPos = nReady;
      ready[nReady++] = s.idx;
    } else if (!want && s.readyPos >= 0) {
      int last = ready[--nReady];
      ready[s.readyPos] = last;
      sessions[last].readyPos = s.readyPos;
      s.readyPos = -1;
    }
  }

  /**
   * Whether a new bug scenario may start now. With a client's transactions, only during the
   * first phase (the main workload): later phases, such as final reads, see the store as it is.
   */
  boolean canStartScenario() {
    if (activeScenarios >= maxScenarios) return false;
    return client == null ? invoked < c.txns : client.phase() == 0 && client.hasNext();
  }

  /**
   * An idle session no scenario holds, whose floor is at most maxFloor, other than the ones
   * excluded; searched from a random offset so the choice is seeded. Null when there is none.
   */
  Session idleSession(int maxFloor, Session ex1, Session ex2) {
    int n = sessions.length, start = rng.nextInt(n);
    for (int k = 0; k < n; k++) {
      Session s = sessions[(start + k) % n];
      if (s.idleAndFree() && s.floor <= maxFloor && s != ex1 && s != ex2) return s;
    }
    return null;
  }

  // ------------------------------------------------------------------ invocation

  private void invoke(Session s) {
    Txn t = s.txn;
    t.reset();
    if (s.queue.isEmpty() && s.reservedBy == null && bug != null && canStartScenario()
        && rng.chance(c.bugRate)) {
      BugScenario.startAtInvoke(this, s);
    }
    Shape sh = s.queue.poll();
    if (sh != null) {
      for (int i = 0; i < sh.kind.length; i++) t.add(sh.kind[i], sh.key[i]);
      t.shape = sh;
      t.scen = sh.scen;
      t.role = sh.role;
    } else if (client != null) {
      client.fill(t);
    } else {
      randomTxn(t);
    }
    if (sh != null || client == null) {
      for (int i = 0; i < t.n; i++) if (t.kind[i] != OpRecord.READ) t.val[i] = nextValue(t.key[i]);
    }
    invoked++;
    emit(s, t, OpType.INVOKE);
    s.inFlight = true;
    if (client != null && sh == null && !client.hasNext()) {
      for (Session o : sessions) refresh(o); // the phase ran dry: free sessions stop invoking
    }
    if (!ended && (client == null ? invoked == c.txns : client.lastPhase() && !client.hasNext())) {
      ended = true;
      endOfInvocations();
    }
    refresh(s);
  }

  private void randomTxn(Txn t) {
    int n = c.minOps + (c.maxOps > c.minOps ? rng.nextInt(c.maxOps - c.minOps + 1) : 0);
    byte w = lists ? OpRecord.APPEND : OpRecord.WRITE;
    boolean readOnly = c.blind && rng.chance(c.readFraction);
    for (int i = 0; i < n; i++) {
      boolean read = c.blind ? readOnly : rng.chance(c.readFraction);
      t.add(read ? OpRecord.READ : w, pickKey());
    }
  }

  /** A key from the pool; with a client's transactions, a fresh key of the scenarios' own. */
  KeyState pickKey() { return client == null ? pool[pickSlot()] : client.ownKey(); }

  private int pickSlot() {
    int n = pool.length;
    switch (c.keyDist) {
      case ZIPF: {
        double u = rng.nextDouble();
        int lo = 0, hi = n - 1;
        while (lo < hi) {
          int mid = (lo + hi) >>> 1;
          if (zipfCdf[mid] > u) hi = mid;
          else lo = mid + 1;
        }
        return lo;
      }
      case HOTSPOT: {
        int hot = Math.max(1, n / 5);
        if (hot == n || rng.chance(0.8)) return rng.nextInt(hot);
        return hot + rng.nextInt(n - hot);
      }
      default:
        return rng.nextInt(n);
    }
  }

  private static double[] zipfCdf(int n, double s) {
    double[] cdf = new double[n];
    double sum = 0;
    for (int i = 0; i < n; i++) {
      sum += 1.0 / Math.pow(i + 1, s);
      cdf[i] = sum;
    }
    for (int i = 0; i < n; i++) cdf[i] /= sum;
    cdf[n - 1] = 1.0;
    return cdf;
  }

  /** The key's next unique value; retires the key once it has handed out maxWritesPerKey values. */
  long nextValue(KeyState k) {
    long v = k.nextValue++;
    k.writes++;
    if (c.maxWritesPerKey > 0 && k.slot >= 0 && k.writes >= c.maxWritesPerKey) {
      pool[k.slot] = new KeyState(nextKeyId++, k.slot);
      k.slot = -1;
    }
    return v;
  }

  /** A key no one has used, outside the pool. */
  KeyState freshKey() { return client == null ? new KeyState(nextKeyId++, -1) : client.ownKey(); }

  /** After the last invocation: crash up to pendingAtEnd of the transactions in flight. */
  private void endOfInvocations() {
    int want = c.pendingAtEnd;
    int n = sessions.length, start = rng.nextInt(n);
    for (int k = 0; k < n && want > 0; k++) {
      Session s = sessions[(start + k) % n];
      if (s.inFlight && !s.crashed) {
        crash(s);
        want--;
      }
    }
    for (Session s : sessions) refresh(s);
  }

  private void crash(Session s) {
    Txn t = s.txn;
    s.crashed = true;
    if (t.waitingOn != null) {
      t.waitingOn.waiters--;
      t.waitingOn = null;
    }
    releaseLocks(t);
    nPending++;
    refresh(s);
  }

  // ------------------------------------------------------------------ stores

  private void step(Session s) {
    Txn t = s.txn;
    switch (store) {
      case STRICT_SERIALIZABLE:
      case SERIALIZABLE:
        atomicStep(s, t);
        break;
      case SNAPSHOT_ISOLATION:
        siStep(s, t);
        break;
      default:
        rcStep(s, t);
    }
  }

  /** The client-visible outcome the run wants for a transaction the store would commit. */
  private int decide(Txn t) {
    if (t.shape != null) return OK;
    double u = rng.nextDouble();
    if (u < c.failRate) return FAIL;
    if (u < c.failRate + c.infoRate) return INFO;
    return OK;
  }

  /** STRICT_SERIALIZABLE and SERIALIZABLE: the whole transaction at its completion step. */
  private void atomicStep(Session s, Txn t) {
    int outcome = decide(t);
    if (outcome == FAIL) {
      finish(s, t, FAIL, 0);
      return;
    }
    int view = commitSeq;
    if (store == Store.SERIALIZABLE && !t.hasWrites && t.shape == null) {
      int lo = Math.max(s.floor, commitSeq - STALE_WINDOW);
      if (lo < commitSeq && rng.nextBoolean()) view = lo + rng.nextInt(commitSeq - lo + 1);
    }
    for (int i = 0; i < t.n; i++) if (t.kind[i] == OpRecord.READ) execRead(s, t, i, view);
    commit(s, t, outcome);
  }

  /** SNAPSHOT_ISOLATION: snapshot at the first step, one micro-op per step, first committer wins. */
  private void siStep(Session s, Txn t) {
    if (t.step < t.n) {
      if (t.step == 0) t.snapshot = commitSeq;
      if (t.kind[t.step] == OpRecord.READ) execRead(s, t, t.step, t.snapshot);
      t.step++;
      return;
    }
    int outcome = decide(t);
    if (outcome == FAIL) {
      finish(s, t, FAIL, 0);
      return;
    }
    boolean conflict = false;
    for (int i = 0; i < t.n && !conflict; i++) {
      if (t.kind[i] != OpRecord.READ && t.key[i].lastSeq() > t.snapshot) conflict = true;
    }
    if (conflict && !(t.scen != null && t.scen.skipFirstCommitterWins(this, s, t))) {
      finish(s, t, outcome == INFO ? INFO : FAIL, 0);
      return;
    }
    commit(s, t, outcome);
  }

  /** READ_COMMITTED: latest committed state per read step, long write locks, install at commit. */
  private void rcStep(Session s, Txn t) {
    if (t.step < t.n) {
      int i = t.step;
      if (t.kind[i] == OpRecord.READ) execRead(s, t, i, commitSeq);
      else if (!acquire(s, t, t.key[i])) return;
      t.step++;
      return;
    }
    int outcome = decide(t);
    if (outcome == FAIL) {
      releaseLocks(t);
      finish(s, t, FAIL, 0);
      return;
    }
    commit(s, t, outcome);
  }

  /** Takes k's write lock for t; false when t must wait (now blocked) or was aborted by a deadlock. */
  private boolean acquire(Session s, Txn t, KeyState k) {
    if (k.lockOwner == null) {
      k.lockOwner = t;
      t.addLock(k);
      return true;
    }
    if (k.lockOwner == t) return true;
    Txn h = k.lockOwner;
    for (int guard = sessions.length + 1; h != null && guard > 0; guard--) {
      if (h == t) {
        releaseLocks(t);
        finish(s, t, FAIL, 0);
        return false;
      }
      if (h.waitingOn == null) break;
      h = h.waitingOn.lockOwner;
    }
    t.waitingOn = k;
    k.waiters++;
    s.blocked = true;
    refresh(s);
    return false;
  }

  private void releaseLocks(Txn t) {
    for (int i = 0; i < t.nLocks; i++) {
      KeyState k = t.locks[i];
      t.locks[i] = null;
      k.lockOwner = null;
      if (k.waiters > 0) {
        for (Session o : sessions) {
          Txn w = o.txn;
          if (o.inFlight && !o.crashed && w.waitingOn == k) {
            w.waitingOn = null;
            k.waiters--;
            o.blocked = false;
            refresh(o);
          }
        }
      }
    }
    t.nLocks = 0;
  }

  /** Executes read i of t at commit seq view (or returns the scenario's fixed result). */
  private void execRead(Session s, Txn t, int i, int view) {
    KeyState k = t.key[i];
    Shape sh = t.shape;
    if (sh != null && sh.fixed(i)) {
      sh.scen.markActed(this);
      if (sh.isLit[i]) {
        t.rLen[i] = -1;
        t.rHas[i] = true;
        t.rVal[i] = sh.lit[i];
      } else {
        int p = sh.fix[i];
        t.rLen[i] = p;
        t.rHas[i] = p > 0;
        t.rVal[i] = p > 0 ? k.vals[p - 1] : 0;
      }
      if (sh.viewSeq > s.floor) s.floor = sh.viewSeq;
      return;
    }
    if (!lists) {
      for (int j = i - 1; j >= 0; j--) {
        if (t.key[j] == k && t.kind[j] == OpRecord.WRITE) {
          t.rLen[i] = -1;
          t.rHas[i] = true;
          t.rVal[i] = t.val[j];
          return;
        }
      }
    }
    int p = view >= commitSeq ? k.len : k.prefixLen(view);
    t.rLen[i] = p;
    t.rHas[i] = p > 0;
    t.rVal[i] = p > 0 ? k.vals[p - 1] : 0;
    if (view > s.floor) s.floor = view;
  }

  /**
   * Commits t (outcome OK or INFO; an INFO commits or not, a coin flip), installs its writes
   * under one new commit seq, and completes it. Also where bugs hook into commits.
   */
  private void commit(Session s, Txn t, int outcome) {
    boolean install = outcome == OK || (outcome == INFO && rng.nextBoolean());
    int reported = outcome;
    BugScenario leak = null;
    if (outcome == OK && t.hasWrites && t.shape == null && t.scen == null && bug == Bug.ABORTED_READ
        && canStartScenario() && rng.chance(c.bugRate)) {
      leak = BugScenario.AbortedRead.start(this, s);
      if (leak != null) reported = FAIL;
    }
    int seq = 0;
    if (install && t.hasWrites) {
      seq = ++commitSeq;
      install(t, seq, reported == OK);
      if (seq > s.floor) s.floor = seq;
    }
    releaseLocks(t);
    if (leak != null) ((BugScenario.AbortedRead) leak).leaked(this, t, seq);
    else if (reported == OK && seq > 0 && t.shape == null && t.scen == null && bug != null
        && canStartScenario() && rng.chance(c.bugRate)) {
      BugScenario.startAtCommit(this, s, t, seq);
    }
    finish(s, t, reported, seq);
  }

  /**
   * Installs t's writes: all its appends to a key, in program order (list-append), or its last
   * write to each key (register), each as versions with commit seq seq.
   */
  private void install(Txn t, int seq, boolean ok) {
    byte[] fl = new byte[t.n];
    for (int i = 0; i < t.n; i++) {
      if (!t.isFirstWrite(i)) continue;
      KeyState k = t.key[i];
      int f = t.firstOn(k);
      byte b = ok ? KeyState.F_OK : 0;
      if (t.kind[f] == OpRecord.READ && t.rLen[f] == k.len) b |= KeyState.F_RMW;
      fl[i] = b;
    }
    for (int i = 0; i < t.n; i++) {
      if (t.kind[i] == OpRecord.READ) continue;
      KeyState k = t.key[i];
      if (!lists) {
        boolean later = false;
        for (int j = i + 1; j < t.n && !later; j++) later = t.key[j] == k && t.kind[j] != OpRecord.READ;
        if (later) continue;
      }
      k.add(t.val[i], seq, fl[t.firstWriteOn(k)]);
    }
  }

  /** Emits t's completion and returns the session to idle. */
  private void finish(Session s, Txn t, int reported, int seq) {
    emit(s, t, reported);
    if (reported == OK) nOk++;
    else if (reported == FAIL) nFail++;
    else nInfo++;
    s.inFlight = false;
    s.blocked = false;
    if (reported == INFO) {
      s.process += sessions.length;
      s.processObj = s.process;
    }
    BugScenario sc = t.scen;
    if (sc != null) sc.onComplete(this, s, t, reported, seq);
    refresh(s);
  }

  // ------------------------------------------------------------------ ops

  private void emit(Session s, Txn t, int type) {
    OpRecord r = rec;
    r.reset(ordinal);
    r.index = ordinal++;
    r.time = time;
    r.type = type;
    r.typeRaw = TYPE_KW[type];
    r.process = s.processObj;
    r.hasProcess = true;
    r.f = Kw.TXN;
    r.valueShape = OpRecord.VALUE_TXN;
    boolean fill = type == OK;
    for (int i = 0; i < t.n; i++) {
      KeyState k = t.key[i];
      byte kind = t.kind[i];
      if (kind == OpRecord.READ) {
        r.beginMop(OpRecord.READ, Kw.R);
        r.setKey(k.id);
        if (!fill) r.setValueNil();
        else if (lists) emitList(r, t, i);
        else if (t.rHas[i]) r.setValue(t.rVal[i]);
        else r.setValueNil();
      } else {
        r.beginMop(kind, kind == OpRecord.APPEND ? Kw.APPEND : Kw.W);
        r.setKey(k.id);
        r.setValue(t.val[i]);
      }
    }
    sink.op(r);
  }

  /** A list read: the prefix the store returned, then the transaction's own earlier appends. */
  private static void emitList(OpRecord r, Txn t, int i) {
    KeyState k = t.key[i];
    int p = t.rLen[i];
    boolean own = false;
    for (int j = 0; j < i && !own; j++) own = t.key[j] == k && t.kind[j] == OpRecord.APPEND;
    if (p == 0 && !own) {
      r.setValueNil();
      return;
    }
    r.beginList();
    long[] vals = k.vals;
    for (int e = 0; e < p; e++) r.addElem(vals[e]);
    if (own) {
      for (int j = 0; j < i; j++) if (t.key[j] == k && t.kind[j] == OpRecord.APPEND) r.addElem(t.val[j]);
    }
  }
}
