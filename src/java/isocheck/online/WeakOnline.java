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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

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
 * <p>Memory: every committed transaction is kept (the window of {@link OnlineChecker} does not
 * apply to these levels); a clock has one int per session known when it was made.
 */
final class WeakOnline {
  /** Where violations go (the owning OnlineChecker's report). */
  interface Reporter {
    void report(String anomaly, List<Level> levels, long[] txns, String[] steps, String explanation);
  }

  static boolean decides(Level l) { return l == Level.RC || l == Level.RA || l == Level.TCC; }

  private static final byte PENDING = 4;
  private static final int BOT = -1;

  private final Reporter out;
  private final boolean rc, ra, tcc;
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
  private int[][] appKeys = new int[1024][], appMops = new int[1024][], clock = new int[1024][];
  private long[][] appVals = new long[1024][];
  private IntList[] waiters = new IntList[1024];
  /** A transaction waiting for its clock: its preds and its TCC queries (key, position read from), kept until resolved. */
  private int[][] pendingPreds = new int[1024][], tccQueries = new int[1024][];

  // Sessions
  private final LongIntMap longSessions = new LongIntMap();
  private final HashMap<Object, Integer> objSessions = new HashMap<>();
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
  private final LongIntMap longKeys = new LongIntMap();
  private final HashMap<Object, Integer> objKeys = new HashMap<>();
  private final ArrayList<Object> keyObjs = new ArrayList<>();
  private final ArrayList<Key> keys = new ArrayList<>();
  private final HashMap<Object, Long> objValues = new HashMap<>();
  private final HashMap<Long, Object> objValueOf = new HashMap<>();

  // CO ∪ VO
  private final TopologicalOrder g = new TopologicalOrder(0);
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

  WeakOnline(List<Level> levels, Reporter out) {
    this.out = out;
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

  /** Transactions held: every one seen (the window does not apply here). */
  int held() { return n; }

  /** Statistics for the result map. */
  Map<String, Object> stats() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("committed", (long) txnOfNode.size());
    m.put("edges", (long) g.edgeCount());
    m.put("sessions", (long) pendingOf.size());
    if (tcc) m.put("chains", (long) chainLen.size());
    m.put("triangles-checked", triangles);
    m.put("clocks-waited", deferred);
    return m;
  }

  // ------------------------------------------------------------------ ingest

  /** One transaction op of a client process (OnlineChecker filters the others). */
  void op(OpRecord r, long ev) {
    events = ev;
    int s = sessionOf(r.process);
    if (r.type == OpType.INVOKE) {
      int old = pendingOf.get(s);
      if (old >= 0) complete(old, OpType.INFO, false); // a malformed history (the final check says so): the process goes on
      pendingOf.set(s, newTxn(s, r));
      display[pendingOf.get(s)] = r.index != OpRecord.ABSENT ? r.index : ev;
      return;
    }
    int t = pendingOf.get(s);
    if (t >= 0) pendingOf.set(s, -1);
    else t = newTxn(s, r);
    display[t] = r.index != OpRecord.ABSENT ? r.index : ev;
    if (r.type == OpType.OK) ok(t, r);
    else complete(t, r.type, true);
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
    if (p instanceof Long || p instanceof Integer || p instanceof Short || p instanceof Byte) {
      long l = ((Number) p).longValue();
      int s = longSessions.get(l);
      if (s >= 0) return s;
      s = newSession();
      longSessions.put(l, s);
      return s;
    }
    Integer i = objSessions.get(p);
    if (i != null) return i;
    int s = newSession();
    objSessions.put(p, s);
    return s;
  }

  private int newSession() {
    int s = pendingOf.size();
    pendingOf.add(-1);
    lastCommittedOf.add(-1);
    sessionWriters.add(new LongIntMap(8));
    sessionChain.add(-1);
    if (s == dead.length) dead = Arrays.copyOf(dead, 2 * s);
    return s;
  }

  private int keyId(OpRecord r, int i) {
    if (r.keyIsLong(i)) {
      long k = r.keyLong(i);
      int id = longKeys.get(k);
      if (id >= 0) return id;
      id = keys.size();
      longKeys.put(k, id);
      keyObjs.add(k);
      keys.add(new Key());
      return id;
    }
    Object k = r.key(i);
    Integer id = objKeys.get(k);
    if (id != null) return id;
    int nk = keys.size();
    objKeys.put(k, nk);
    keyObjs.add(k);
    keys.add(new Key());
    return nk;
  }

  private long objCode(Object v) {
    if (v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte) return ((Number) v).longValue();
    Long c = objValues.get(v);
    if (c == null) {
      c = Long.MIN_VALUE + 1 + objValues.size();
      objValues.put(v, c);
      objValueOf.put(c, v);
    }
    return c;
  }

  private String valueStr(long code) {
    Object o = objValueOf.get(code);
    return o != null ? Edn.str(o) : Long.toString(code);
  }

  private long appendCode(OpRecord r, int i) {
    return r.valueTag(i) == OpRecord.V_LONG ? r.valueLong(i) : objCode(r.value(i));
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
    int m = r.mopCount(), na = 0;
    for (int i = 0; i < m; i++) if (r.kind(i) == OpRecord.APPEND) na++;
    if (na == 0) return t;
    int[] ks = new int[na], ms = new int[na];
    long[] vs = new long[na];
    for (int i = 0, j = 0; i < m; i++) {
      if (r.kind(i) != OpRecord.APPEND) continue;
      int k = keyId(r, i);
      long v = appendCode(r, i);
      ks[j] = k;
      ms[j] = i;
      vs[j++] = v;
      Key st = keys.get(k);
      if (st.writerOf.get(v) < 0) st.writerOf.put(v, t);
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
  }

  private String name(int t) { return "T" + display[t]; }

  // ------------------------------------------------------------------ commits and CO ∪ VO

  /** t is certainly committed: a node, after its session's last committed transaction. */
  private void commit(int t) {
    committed[t] = true;
    node[t] = txnOfNode.size();
    txnOfNode.add(t);
    g.addNode();
    int s = session[t];
    int p = lastCommittedOf.get(s);
    soPred[t] = p;
    if (dead[s]) late[t] = true; // its session's chain may have gone on with another session
    else lastCommittedOf.set(s, t);
    if (p >= 0) edge(p, t, Edge.SO, -1);
    if (status[t] != PENDING && status[t] != OpType.OK) resolveAlone(t); // an :info one, shown after its completion
  }

  private void edge(int a, int b, int type, int k) {
    if (a == b) return;
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
        ownVals[ownKeys.size()] = appendCode(r, i);
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
    if (ks != null) for (int k : ks) sessionWriters.get(session[t]).put(k, t);
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
      codes[j] = r.elemIsLong(i, j) ? r.elemLong(i, j) : objCode(r.elem(i, j));
      if (j == known && j < lim && codes[j] == st.vals[j]) elemW[known++] = st.writers[j];
      else elemW[j] = st.writerOf.get(codes[j]);
    }
    // The version it shows, for TAP j: its last element not t's own.
    int vj = len - 1;
    while (vj >= 0 && elemW[vj] == t) vj--;
    int view = vj < 0 ? BOT : elemW[vj] < 0 || status[elemW[vj]] == OpType.FAIL ? Integer.MIN_VALUE : elemW[vj];
    // a (left offline), duplicates, b, c.
    for (int j = 0; j < len; j++) {
      int w = elemW[j];
      if (w < 0) { readFacts(k, i, Integer.MIN_VALUE, 0, view, false); return; }
    }
    for (int j = 0; j < len; j++) {
      int w = elemW[j];
      for (int j2 = 0; j2 < j && j >= known && len <= 64; j2++) {
        if (codes[j2] == codes[j]) {
          intra("duplicate-elements", t, w, k, r, i, "which holds " + valueStr(codes[j]) + " twice");
          { readFacts(k, i, Integer.MIN_VALUE, 0, view, false); return; }
        }
      }
      if (status[w] == OpType.FAIL) {
        intra("AbortedRead", t, w, k, r, i, "which includes " + valueStr(codes[j]) + ", appended by " + name(w) + ", whose op failed");
        { readFacts(k, i, Integer.MIN_VALUE, 0, view, false); return; }
      }
      if (w == t && appMop(t, codes[j], k) > i) {
        intra("FutureRead", t, t, k, r, i, "which includes " + valueStr(codes[j]) + ", its own later append");
        { readFacts(k, i, Integer.MIN_VALUE, 0, view, false); return; }
      }
    }
    if (len > 64 && known < len && hasDuplicate(len)) {
      intra("duplicate-elements", t, t, k, r, i, "which holds an element twice");
      { readFacts(k, i, Integer.MIN_VALUE, 0, view, false); return; }
    }
    for (int j = 0; j < len; j++) if (elemW[j] != t) shown[elemW[j]] = true;
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
    for (int j = shared == 0 ? 0 : st.blockOf(shared - 1); j < f; ) {
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
                + (p + 1) + " (" + valueStr(codes[p]) + ") from the order earlier reads showed (" + valueStr(st.vals[p])
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
    for (int j = 0; j < f; j++) {
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

  private String who(int w) { return w == BOT ? "the initial state" : name(w); }

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
    if (sw.size() == 0) return;
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
    out.report(tap, ls, t1 == BOT ? new long[] {display[t3], display[t2]} : new long[] {display[t3], display[t1], display[t2]},
        new String[0], name(t3) + " read key " + x + " from " + who(t1) + ", but " + how + ", which appended to " + x
            + " after " + (t1 == BOT ? "its initial state" : name(t1)) + " (" + tap + ").");
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
    final LongIntMap writerOf = new LongIntMap(4);
    final LongIntMap posOf = new LongIntMap(4);
    long[] vals = new long[4];
    int[] writers = new int[4];
    int len;
    final IntList blockStart = new IntList(2);
    final IntList unshown = new IntList(2);

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
    int blockIndex(int p) {
      int lo = 0, hi = blockStart.size() - 1;
      while (lo < hi) {
        int mid = (lo + hi + 1) >>> 1;
        if (blockStart.get(mid) <= p) lo = mid;
        else hi = mid - 1;
      }
      return lo;
    }

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
}
