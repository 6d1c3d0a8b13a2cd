package isocheck.online;

import isocheck.util.IntList;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Map;

/**
 * Causal order CO = (SO ∪ WR)⁺ of an rw-register history as it is produced, and the commit-order
 * edges TCC's <i>Causal</i> axiom forces from it (Plume, OOPSLA'24, §3.1 Def. 6; the BuildCM step
 * of §4.1): for a read of x by t3 from t1 and a committed writer t2 ≠ t1 of x with t2 →CO t3,
 * t2 precedes t1 in every commit order. Plume's Theorem 5 makes this exact: a history is TCC iff
 * it has none of the intra-transaction TAPs and CO ∪ those edges is acyclic (the axiom's premise
 * is CO, which no commit order changes, so one round of forced edges is the whole saturation).
 * The owner ({@link RegisterOnline}) keeps the graph and its cycles; this class decides which
 * edges to add, and when.
 *
 * <p><b>When.</b> A transaction's causal past is final once its incoming edges are: its session
 * predecessor (the last committed transaction of its session before it) and, for an {@code :ok}
 * one, the writers of its reads; for an {@code :info} one (or a failed one a read showed, or one
 * still pending at the end) only the session predecessor (its reads are unknown, as offline). A
 * transaction {@link #enter}s with those predecessors once they are known (the owner calls it at
 * the {@code :ok}, at the completion of one a read showed committed while in flight, at once for
 * an {@code :info} one shown later) and waits until each predecessor has its clock (a writer read
 * while in flight waits for its completion); then its clock is their join, its reads are checked
 * against it, and those waiting for it go on. A wait that never ends is a cycle of CO, which the
 * owner's graph has already reported (TAP g).
 *
 * <p><b>Clocks</b> (as {@link WeakOnline}'s, Plume §4.2 with {@link isocheck.clock.ChainClocks}'
 * chains): entry c of t's clock is the highest place on chain c of a transaction in t's causal
 * past. Only writers are placed on chains (only they are asked about), and readers of a late
 * transaction; a session's writers go on its chain, in order (each follows the previous by SO); a
 * session's first takes a chain an ended session left ({@code :info}: Jepsen retires the process)
 * whose last member it knows, else a new one, so the chains number about the width of causal
 * order, not the processes that ever ran. A transaction committed after its session ended (an
 * {@code :info} one a later read shows) is <i>late</i>: on no chain; nothing follows it but its
 * readers, so it is in b's past iff one of its readers is (or is b).
 *
 * <p><b>Which writers.</b> Per key, its writers by chain in chain order: for a read of x by t3
 * from t1 only the last writer of x on each chain at or below t3's entry matters (the earlier ones
 * precede it in CO, so their edge to t1 is implied through it), and none that precedes t1 in CO
 * (implied). So a read costs one binary search per chain with a writer of x, plus the late writers
 * of x. A read of nil (t1 the initial state) with such a writer is a violation at once
 * (COConflictCM).
 *
 * <p><b>Memory.</b> A writer's clock is kept while the owner holds it (a read may name it any
 * time), a non-writer's until its session successor has joined it. The owner's window ({@link
 * RegisterOnline}, class comment) drops transactions and forgets keys, and this state is renumbered
 * with them ({@link #remap}): a dropped transaction's causal past is dropped too, so a held
 * transaction's clock keeps all it needs (entries for dropped members are never asked about).
 */
final class CausalClocks {
  /** What the owner does: the facts of transactions, and the forced edges. */
  interface Owner {
    int sessionOf(int t);

    /** The keys t writes (may repeat), or null. */
    int[] writtenKeys(int t);

    /** t2 must commit before t1 (t3 read x from t1, t1 possibly the initial state): add the edge or report. */
    void forceCausal(int t3, int t2, int t1, int x);

    /** A transaction waiting for its clock will query key x (delta 1), or has (-1): x stays open meanwhile. */
    void pin(int x, int delta);

    /** A read of key x, some of whose writers were on a chain since recycled, was checked without them. */
    void stale(int t3, int x);
  }

  private static final byte NONE = 0, WAITING = 1, RESOLVED = 2;
  private static final int[] EMPTY = new int[0];
  /** The initial state, as the owner names it in a query. */
  private final int initial;

  private final Owner owner;
  private int cap = 1024;
  private byte[] state = new byte[cap];
  private int[] soPred = new int[cap], waitN = new int[cap], chain = new int[cap], idx = new int[cap];
  /** The previous member of t's chain when t was placed (-1: none). */
  private int[] chainPrev = new int[cap];
  /**
   * late: known only through its successors (readersOf): committed after its session ended, or
   * retracted from its chain's tail; hasReader: some committed transaction read from it.
   */
  private boolean[] late = new boolean[cap], readsLate = new boolean[cap], hasReader = new boolean[cap];
  private int[][] clock = new int[cap][], pendPreds = new int[cap][], pendQueries = new int[cap][];
  private IntList[] waiters = new IntList[cap], readersOf = new IntList[cap];

  // Sessions
  private final IntList sessionChain = new IntList(), unresolvedOf = new IntList(), lastOf = new IntList();
  /** Per session: the last member retracted from its chain (-1: none), whom the session's next commit follows. */
  private final IntList lastRetracted = new IntList();
  private boolean[] dead = new boolean[16];
  // Chains: the last place used, the last member left on it and its place; chains ended sessions left.
  private final IntList chainLen = new IntList(), tailOf = new IntList(), tailIdx = new IntList(), freeChains = new IntList();
  // Keys: writers by chain, and late writers.
  private final ArrayList<KeyWriters> keys = new ArrayList<>();
  /** Keys retired (the owner's window rule) and keys stale (a writer's chain was recycled). */
  private boolean[] retired = new boolean[64], stale = new boolean[64];
  // Recycling chains: per chain, (member, key not retired) pairs; whether a reader of a late
  // transaction is on it (never recycled); free; the keys with writers on it.
  private final IntList liveOf = new IntList();
  private boolean[] lateReaderOn = new boolean[16], free = new boolean[16];
  private final ArrayList<IntList> keysOn = new ArrayList<>();
  private final IntList recyclable = new IntList();
  private long recycled, retracted, moved, droppedChains;

  private final IntList work = new IntList();
  private long waited, queries, examined, edges;

  CausalClocks(Owner owner, int initial) {
    // The recycling state is indexed by chain and key; the owner retires keys (or never does).
    this.owner = owner;
    this.initial = initial;
  }

  private void ensure(int t) {
    if (t < cap) return;
    int c = Math.max(2 * cap, t + 1);
    state = Arrays.copyOf(state, c);
    soPred = Arrays.copyOf(soPred, c);
    waitN = Arrays.copyOf(waitN, c);
    chain = Arrays.copyOf(chain, c);
    idx = Arrays.copyOf(idx, c);
    late = Arrays.copyOf(late, c);
    readsLate = Arrays.copyOf(readsLate, c);
    hasReader = Arrays.copyOf(hasReader, c);
    chainPrev = Arrays.copyOf(chainPrev, c);
    clock = Arrays.copyOf(clock, c);
    pendPreds = Arrays.copyOf(pendPreds, c);
    pendQueries = Arrays.copyOf(pendQueries, c);
    waiters = Arrays.copyOf(waiters, c);
    readersOf = Arrays.copyOf(readersOf, c);
    cap = c;
  }

  private void session(int s) {
    while (sessionChain.size() <= s) {
      sessionChain.add(-1);
      unresolvedOf.add(0);
      lastOf.add(-1);
      lastRetracted.add(-1);
    }
    if (s >= dead.length) dead = Arrays.copyOf(dead, Math.max(2 * dead.length, s + 1));
  }

  /** A transaction of session s was invoked: the session goes on (a process reused after an :info one). */
  void invoked(int s) {
    session(s);
    dead[s] = false;
  }

  /** t is committed, with session predecessor p (-1: none): late when its session has ended. */
  void committed(int t, int s, int p) {
    ensure(t);
    session(s);
    soPred[t] = p;
    chain[t] = -1;
    state[t] = NONE;
    late[t] = dead[s];
    hasReader[t] = false;
    readsLate[t] = false;
    readersOf[t] = null;
    if (!late[t]) unresolvedOf.set(s, unresolvedOf.get(s) + 1);
    // After members retracted from the session's chain: t follows them, so it is one of their successors.
    int m = lastRetracted.get(s);
    if (m >= 0) {
      lastRetracted.set(s, -1);
      successor(m, t);
    }
  }

  private void successor(int a, int t) {
    if (!late[t]) readsLate[t] = true; // on a chain, so that who knows it can be told
    if (readersOf[a] == null) readersOf[a] = new IntList(2);
    readersOf[a].add(t);
  }

  /** Committed reader t read from committed w (the owner's readFrom). */
  void read(int t, int w) {
    ensure(t);
    // A reader in w's own session follows w there anyway (a retracted member's successors are the
    // session's next ones): only another session's reader spreads w.
    if (owner.sessionOf(t) != owner.sessionOf(w)) hasReader[w] = true;
    if (late[w]) successor(w, t);
  }

  /** Whether t has entered (its predecessors are known). */
  boolean entered(int t) { return state[t] != NONE; }

  /** Session s ended (an :info completion): its chain is free once its members have their places. */
  void retire(int s) {
    session(s);
    dead[s] = true;
    maybeFree(s);
  }

  private void maybeFree(int s) {
    int ch = sessionChain.get(s);
    if (!dead[s] || unresolvedOf.get(s) != 0 || ch < 0) return;
    retractTail(ch, s);
    freeChains.add(ch);
    free[ch] = true;
    sessionChain.set(s, -1);
    if (liveOf.get(ch) == 0 && !lateReaderOn[ch]) recyclable.add(ch);
  }

  /**
   * Session s ended, its members all placed: the members at the end of its chain that nothing
   * follows but their session successors (no reader yet) leave the chain, so that a new session
   * that knows the member before them can continue it (else a writer no one read, a dead process's
   * last, would hold its chain forever, and the chains would grow with the processes that ever
   * ran). A retracted member is known through its successors ({@link #knows}): its readers to
   * come, the next retracted member, and the session's next commit (an :info transaction shown
   * later, or the process reused). Places on the chain go on increasing, so a clock that knew a
   * retracted member (a higher place than the tail's) does not claim the members to come.
   */
  private void retractTail(int ch, int s) {
    int m = tailOf.get(ch), next = -1;
    while (m >= 0 && owner.sessionOf(m) == s && !hasReader[m] && !readsLate[m]) {
      int prev = chainPrev[m];
      chain[m] = -1;
      late[m] = true;
      int[] wk = owner.writtenKeys(m);
      if (wk != null) {
        for (int i = 0; i < wk.length; i++) {
          int x = wk[i];
          if (before(wk, i)) continue; // a key written twice: once
          KeyWriters kw = keys.get(x);
          kw.retract(m, ch);
          if (!retired[x]) liveOf.set(ch, liveOf.get(ch) - 1);
        }
      }
      if (next >= 0) successor(m, next);
      else lastRetracted.set(s, m);
      retracted++;
      next = m;
      m = prev;
    }
    tailOf.set(ch, m);
    tailIdx.set(ch, m >= 0 ? idx[m] : 0);
  }

  /**
   * Key x retired: no transaction in flight names it, and the workload will not name it again
   * (the owner's window rule). Its writers are never asked about again, so a free chain all of
   * whose members write only retired keys can be recycled.
   */
  void retireKey(int x) {
    keyRoom(x);
    if (retired[x]) return;
    retired[x] = true;
    KeyWriters kw = x < keys.size() ? keys.get(x) : null;
    if (kw == null) return;
    for (int j = 0; j < kw.n; j++) {
      int ch = kw.chains[j], live = liveOf.get(ch) - kw.lists[j].size();
      liveOf.set(ch, live);
      if (live == 0 && free[ch] && !lateReaderOn[ch]) recyclable.add(ch);
    }
  }

  private void keyRoom(int x) {
    if (x < retired.length) return;
    int c = Math.max(2 * retired.length, x + 1);
    retired = Arrays.copyOf(retired, c);
    stale = Arrays.copyOf(stale, c);
  }

  /**
   * A free chain no one will ask about again (its members write retired keys only, and none reads
   * a late transaction), taken by a new session: its places go on increasing, so a clock that knew
   * an old member (a lower place) does not claim the new ones; its old members leave their keys'
   * lists, and those keys are marked stale (a read of one again is checked without them, and says so).
   */
  private int recycle() {
    while (recyclable.size() > 0) {
      int ch = recyclable.pop();
      if (!free[ch] || liveOf.get(ch) != 0 || lateReaderOn[ch]) continue;
      free[ch] = false;
      for (int i = freeChains.size() - 1; i >= 0; i--) {
        if (freeChains.get(i) != ch) continue;
        freeChains.set(i, freeChains.get(freeChains.size() - 1));
        freeChains.truncate(freeChains.size() - 1);
        break;
      }
      IntList ks = keysOn.get(ch);
      for (int i = 0; i < ks.size(); i++) {
        int x = ks.get(i);
        keyRoom(x);
        if (keys.get(x).drop(ch)) stale[x] = true; // writers forgotten (retracted ones stay, as late ones)
      }
      ks.clear();
      tailOf.set(ch, -1);
      recycled++;
      return ch;
    }
    return -1;
  }

  /**
   * t's incoming edges are final: it waits for its predecessors' clocks (preds may repeat), then
   * its reads (queries: key, writer pairs; the initial state for a nil read) are checked.
   */
  void enter(int t, int[] preds, int[] qs) {
    state[t] = WAITING;
    int wait = 0;
    for (int p : preds) {
      if (state[p] == RESOLVED) continue;
      if (waiters[p] == null) waiters[p] = new IntList(2);
      waiters[p].add(t);
      wait++;
    }
    if (wait > 0) {
      waited++;
      waitN[t] = wait;
      pendPreds[t] = preds;
      pendQueries[t] = qs;
      if (qs != null) for (int i = 0; i < qs.length; i += 2) owner.pin(qs[i], 1);
      return;
    }
    clockOf(t, preds, qs);
    work.clear();
    work.add(t);
    while (work.size() > 0) {
      int u = work.pop();
      IntList ws = waiters[u];
      if (ws == null) continue;
      waiters[u] = null;
      for (int i = 0; i < ws.size(); i++) {
        int v = ws.get(i);
        if (--waitN[v] != 0) continue;
        int[] ps = pendPreds[v], q = pendQueries[v];
        pendPreds[v] = pendQueries[v] = null;
        clockOf(v, ps, q);
        if (q != null) for (int j = 0; j < q.length; j += 2) owner.pin(q[j], -1);
        work.add(v);
      }
    }
  }

  /** t's clock: the join of its predecessors'; its reads checked against it; then its own place. */
  private void clockOf(int t, int[] ps, int[] qs) {
    int len = chainLen.size();
    // The latest preds first (a read's writers, who often know the session predecessor): a pred
    // the join knows already has its past in it, so it is skipped. Clocks never change once made,
    // so a join that is one pred's clock is that clock, shared (most readers that write nothing).
    int[] base = null, c = null;
    for (int i = ps.length - 1; i >= 0; i--) {
      int p = ps[i];
      int[] cp = clock[p];
      if (cp == null) continue;
      int[] cur = c != null ? c : base;
      if (cur != null && chain[p] >= 0 && chain[p] < cur.length && cur[chain[p]] >= idx[p]) continue;
      if (cur == null) {
        base = cp;
        continue;
      }
      if (c == null) c = Arrays.copyOf(base, Math.max(len + 1, base.length));
      for (int s = 0; s < cp.length; s++) if (cp[s] > c[s]) c[s] = cp[s];
    }
    boolean mine = c != null;
    if (c == null) c = base != null ? base : EMPTY;
    if (qs != null) check(t, c, qs);
    int s = owner.sessionOf(t);
    int[] wk = owner.writtenKeys(t);
    if (!late[t] && (wk != null || readsLate[t])) {
      int own = sessionChain.get(s), ch = own;
      // A free chain (an ended session's, or one a session moved off) whose last member t knows,
      // the lowest first: a session's first writer takes it, and a later one moves its session
      // onto it when it is lower than the session's own (which is then free, its last member
      // known to t and soon to others), so sessions gather on the low chains and clocks stay short.
      int best = -1, bestAt = -1;
      for (int i = freeChains.size() - 1; i >= 0; i--) {
        int f = freeChains.get(i);
        if ((own >= 0 && f > own) || (best >= 0 && f > best)) continue;
        if (tailIdx.get(f) > 0 && (f >= c.length || c[f] < tailIdx.get(f))) continue;
        best = f;
        bestAt = i;
      }
      if (best >= 0) {
        ch = best;
        free[best] = false;
        freeChains.set(bestAt, freeChains.get(freeChains.size() - 1));
        freeChains.truncate(freeChains.size() - 1);
        if (own >= 0) {
          freeChains.add(own);
          free[own] = true;
          moved++;
          if (liveOf.get(own) == 0 && !lateReaderOn[own]) recyclable.add(own);
        }
      }
      if (ch < 0) ch = recycle();
      if (ch < 0) {
        ch = chainLen.size();
        chainLen.add(0);
        tailOf.add(-1);
        tailIdx.add(0);
        liveOf.add(0);
        keysOn.add(new IntList(4));
        if (ch >= free.length) {
          free = Arrays.copyOf(free, 2 * free.length);
          lateReaderOn = Arrays.copyOf(lateReaderOn, 2 * lateReaderOn.length);
        }
      }
      if (readsLate[t]) lateReaderOn[ch] = true;
      sessionChain.set(s, ch);
      int at = chainLen.get(ch) + 1;
      chainLen.set(ch, at);
      chain[t] = ch;
      idx[t] = at;
      chainPrev[t] = tailOf.get(ch);
      tailOf.set(ch, t);
      tailIdx.set(ch, at);
      if (!mine || ch >= c.length) c = Arrays.copyOf(c, Math.max(c.length, ch + 1));
      c[ch] = at;
    }
    int e = c.length; // trailing zeros need no room (a shared clock has none)
    while (e > 0 && c[e - 1] == 0) e--;
    clock[t] = e == c.length ? c : Arrays.copyOf(c, e);
    if (wk != null) {
      for (int i = 0; i < wk.length; i++) {
        int x = wk[i];
        if (before(wk, i)) continue; // a key written twice: once
        keyRoom(x);
        int ch = chain[t];
        if (writer(x).add(t, ch) && ch >= 0) keysOn.get(ch).add(x);
        if (ch >= 0 && !retired[x]) liveOf.set(ch, liveOf.get(ch) + 1);
      }
    }
    // A session predecessor that writes nothing: only t joins its clock (nothing reads it).
    int sp = soPred[t];
    if (sp >= 0 && owner.writtenKeys(sp) == null && !readsLate[sp]) clock[sp] = null;
    state[t] = RESOLVED;
    if (!late[t]) {
      unresolvedOf.set(s, unresolvedOf.get(s) - 1);
      maybeFree(s);
    }
  }

  /**
   * Whether a (resolved) is in the causal past of the transaction b whose clock (join of its
   * preds') is c: by a's place on its chain, or for a late one, whether b is or knows one of its
   * successors (on chains, or late themselves: a retracted member's next).
   */
  private boolean knows(int[] c, int b, int a) {
    if (a == b || state[a] != RESOLVED) return false;
    int ch = chain[a];
    if (ch >= 0) return ch < c.length && c[ch] >= idx[a];
    if (!late[a]) return false; // on no chain and not late: writes nothing, asked about by no one
    IntList rs = readersOf[a];
    if (rs == null) return false;
    for (int i = 0; i < rs.size(); i++) {
      int r = rs.get(i);
      if (r == b || knows(c, b, r)) return true;
    }
    return false;
  }

  /** t3's reads against its causal past c: the writers of each key it knows, after the one it read from. */
  private void check(int t3, int[] c, int[] qs) {
    for (int i = 0; i < qs.length; i += 2) {
      int x = qs[i], t1 = qs[i + 1];
      if (x >= keys.size() || keys.get(x) == null) continue;
      queries++;
      if (x < stale.length && stale[x]) owner.stale(t3, x);
      KeyWriters kw = keys.get(x);
      int[] c1 = t1 == initial ? null : clock[t1];
      for (int j = 0; j < kw.n; j++) {
        int ch = kw.chains[j];
        int bound = ch < c.length ? c[ch] : 0;
        if (bound == 0) continue;
        IntList l = kw.lists[j];
        // The last writer on chain ch at or below bound.
        int lo = 0, hi = l.size() - 1, at = -1;
        while (lo <= hi) {
          int mid = (lo + hi) >>> 1;
          if (idx[l.get(mid)] <= bound) {
            at = mid;
            lo = mid + 1;
          } else hi = mid - 1;
        }
        examined++;
        if (at < 0) continue;
        int t2 = l.get(at);
        if (t2 == t1 || t2 == t3) continue;
        if (c1 != null && ch < c1.length && c1[ch] >= idx[t2]) continue; // t2 →CO t1: implied
        edges++;
        owner.forceCausal(t3, t2, t1, x);
        if (t1 == initial) break;
      }
      IntList lw = kw.late;
      if (lw == null) continue;
      for (int j = 0; j < lw.size(); j++) {
        int t2 = lw.get(j);
        examined++;
        if (t2 == t1 || t2 == t3 || !knows(c, t3, t2)) continue;
        if (c1 != null && knows(c1, t1, t2)) continue;
        edges++;
        owner.forceCausal(t3, t2, t1, x);
        if (t1 == initial) break;
      }
    }
  }

  /**
   * The transactions among the owner's first n that its window must hold for these clocks: those
   * waiting for their clock, the preds they will join, and the writers their reads name (the
   * targets of the edges their check may force).
   */
  void holds(int n, IntList out) {
    for (int t = 0, m = Math.min(n, cap); t < m; t++) {
      if (state[t] != WAITING) continue;
      out.add(t);
      int[] ps = pendPreds[t];
      if (ps != null) for (int p : ps) out.add(p);
      int[] q = pendQueries[t];
      if (q != null) for (int i = 1; i < q.length; i += 2) if (q[i] >= 0) out.add(q[i]);
    }
  }

  /**
   * The owner's window dropped transactions and forgot keys: transaction t is now newId[t] (-1:
   * dropped), key x newKey[x] (-1: forgotten); kept transactions and keys keep their order. What
   * a held transaction names after it (its readers, waiters, a retracted member's successors) is
   * held (the owner keeps what its graphs reach); what it names before it (session predecessor,
   * chain predecessor) may be dropped, and is then forgotten. A dropped writer leaves its keys'
   * lists; its causal past is dropped too, so no query about a held writer changes (class comment).
   */
  void remap(int[] newId, int kept, int[] newKey, int keysKept) {
    for (int t = 0; t < newId.length; t++) {
      int j = newId[t];
      if (j < 0) continue;
      if (t >= cap) { // never committed (nothing here): an empty slot
        ensure(j);
        state[j] = NONE;
        clock[j] = null;
        pendPreds[j] = pendQueries[j] = null;
        waiters[j] = readersOf[j] = null;
        continue;
      }
      state[j] = state[t];
      soPred[j] = soPred[t] >= 0 ? newId[soPred[t]] : -1;
      waitN[j] = waitN[t];
      chain[j] = chain[t];
      idx[j] = idx[t];
      chainPrev[j] = chainPrev[t] >= 0 ? newId[chainPrev[t]] : -1;
      late[j] = late[t];
      readsLate[j] = readsLate[t];
      hasReader[j] = hasReader[t];
      clock[j] = clock[t];
      int[] ps = pendPreds[t];
      if (ps != null) {
        ps = ps.clone();
        for (int i = 0; i < ps.length; i++) ps[i] = newId[ps[i]]; // held (holds)
      }
      pendPreds[j] = ps;
      int[] q = pendQueries[t];
      if (q != null) {
        q = q.clone();
        for (int i = 0; i < q.length; i += 2) {
          q[i] = newKey[q[i]]; // pinned: open, kept
          if (q[i + 1] >= 0) q[i + 1] = newId[q[i + 1]];
        }
      }
      pendQueries[j] = q;
      waiters[j] = remap(waiters[t], newId);
      readersOf[j] = remap(readersOf[t], newId);
    }
    for (int t = kept; t < cap; t++) {
      state[t] = NONE;
      clock[t] = null;
      pendPreds[t] = pendQueries[t] = null;
      waiters[t] = readersOf[t] = null;
    }
    for (int ch = 0; ch < tailOf.size(); ch++) {
      int m = tailOf.get(ch);
      if (m >= 0) tailOf.set(ch, newId[m]); // dropped: so is every member before it
    }
    for (int s = 0; s < lastRetracted.size(); s++) {
      int m = lastRetracted.get(s);
      if (m >= 0) lastRetracted.set(s, newId[m]);
    }
    // Keys: renumbered; dropped writers leave their lists (and the count of live pairs of their chain).
    ArrayList<KeyWriters> nks = new ArrayList<>(keysKept);
    for (int x = 0; x < keysKept; x++) nks.add(null);
    boolean[] nr = new boolean[Math.max(64, keysKept)], nst = new boolean[Math.max(64, keysKept)];
    for (int x = 0; x < newKey.length; x++) {
      KeyWriters kw = x < keys.size() ? keys.get(x) : null;
      boolean ret = x < retired.length && retired[x];
      if (kw != null) {
        for (int j = 0; j < kw.n; j++) {
          int ch = kw.chains[j];
          IntList l = kw.lists[j];
          int c = 0;
          for (int i = 0; i < l.size(); i++) {
            int w = newKey[x] >= 0 ? newId[l.get(i)] : -1;
            if (w >= 0) l.set(c++, w);
            else if (!ret) {
              int live = liveOf.get(ch) - 1;
              liveOf.set(ch, live);
              if (live == 0 && free[ch] && !lateReaderOn[ch]) recyclable.add(ch);
            }
          }
          l.truncate(c);
        }
        if (kw.late != null) {
          IntList l = kw.late;
          int c = 0;
          for (int i = 0; i < l.size(); i++) {
            int w = newKey[x] >= 0 ? newId[l.get(i)] : -1;
            if (w >= 0) l.set(c++, w);
          }
          l.truncate(c);
        }
      }
      int nx = newKey[x];
      if (nx < 0) continue;
      nks.set(nx, kw);
      nr[nx] = ret;
      nst[nx] = x < stale.length && stale[x];
    }
    keys.clear();
    keys.addAll(nks);
    retired = nr;
    stale = nst;
    for (int ch = 0; ch < keysOn.size(); ch++) {
      IntList ks = keysOn.get(ch);
      int c = 0;
      for (int i = 0; i < ks.size(); i++) {
        int x = ks.get(i);
        int nx = x < newKey.length ? newKey[x] : -1;
        if (nx >= 0) ks.set(c++, nx);
      }
      ks.truncate(c);
    }
    dropChains(kept);
  }

  /**
   * Chains with no held member and no session going on them are never asked about again: they
   * leave every clock, and the others are renumbered in order (a free one with no held member is
   * no longer offered to a new session).
   */
  private void dropChains(int kept) {
    int nc = chainLen.size();
    boolean[] keepCh = new boolean[nc];
    for (int t = 0, m = Math.min(kept, cap); t < m; t++) if (state[t] == RESOLVED && chain[t] >= 0) keepCh[chain[t]] = true;
    for (int s = 0; s < sessionChain.size(); s++) if (sessionChain.get(s) >= 0) keepCh[sessionChain.get(s)] = true;
    int[] chMap = new int[nc];
    int c2 = 0;
    for (int ch = 0; ch < nc; ch++) chMap[ch] = keepCh[ch] ? c2++ : -1;
    if (c2 == nc) return;
    droppedChains += nc - c2;
    for (int ch = 0; ch < nc; ch++) {
      int j = chMap[ch];
      if (j < 0) continue;
      chainLen.set(j, chainLen.get(ch));
      tailOf.set(j, tailOf.get(ch));
      tailIdx.set(j, tailIdx.get(ch));
      liveOf.set(j, liveOf.get(ch));
      lateReaderOn[j] = lateReaderOn[ch];
      free[j] = free[ch];
      keysOn.set(j, keysOn.get(ch));
    }
    chainLen.truncate(c2);
    tailOf.truncate(c2);
    tailIdx.truncate(c2);
    liveOf.truncate(c2);
    for (int ch = c2; ch < nc; ch++) {
      lateReaderOn[ch] = false;
      free[ch] = false;
    }
    while (keysOn.size() > c2) keysOn.remove(keysOn.size() - 1);
    mapChains(freeChains, chMap);
    mapChains(recyclable, chMap);
    for (int s = 0; s < sessionChain.size(); s++) if (sessionChain.get(s) >= 0) sessionChain.set(s, chMap[sessionChain.get(s)]);
    for (int t = 0, m = Math.min(kept, cap); t < m; t++) if (state[t] == RESOLVED && chain[t] >= 0) chain[t] = chMap[chain[t]];
    for (KeyWriters kw : keys) {
      if (kw == null) continue;
      int j = 0;
      for (int i = 0; i < kw.n; i++) {
        int ch = chMap[kw.chains[i]];
        if (ch < 0) continue; // no held member: its list is empty
        kw.chains[j] = ch;
        kw.lists[j++] = kw.lists[i];
      }
      for (int i = j; i < kw.n; i++) kw.lists[i] = null;
      kw.n = j;
    }
    // Clocks: each array once (a clock may be shared by several transactions).
    java.util.IdentityHashMap<int[], int[]> done = new java.util.IdentityHashMap<>();
    for (int t = 0, m = Math.min(kept, cap); t < m; t++) {
      int[] c = clock[t];
      if (c == null) continue;
      int[] nc2 = done.get(c);
      if (nc2 == null) {
        int e = 0;
        for (int ch = 0; ch < c.length; ch++) if (c[ch] != 0 && chMap[ch] >= 0) e = chMap[ch] + 1;
        nc2 = e == 0 ? EMPTY : new int[e];
        for (int ch = 0; ch < c.length; ch++) if (c[ch] != 0 && chMap[ch] >= 0 && chMap[ch] < e) nc2[chMap[ch]] = c[ch];
        done.put(c, nc2);
      }
      clock[t] = nc2;
    }
  }

  private static void mapChains(IntList l, int[] chMap) {
    int c = 0;
    for (int i = 0; i < l.size(); i++) {
      int ch = chMap[l.get(i)];
      if (ch >= 0) l.set(c++, ch);
    }
    l.truncate(c);
  }

  private static IntList remap(IntList l, int[] newId) {
    if (l == null) return null;
    int c = 0;
    for (int i = 0; i < l.size(); i++) {
      int w = newId[l.get(i)];
      if (w >= 0) l.set(c++, w);
    }
    l.truncate(c);
    return c == 0 ? null : l;
  }

  private KeyWriters writer(int x) {
    while (keys.size() <= x) keys.add(null);
    KeyWriters kw = keys.get(x);
    if (kw == null) keys.set(x, kw = new KeyWriters());
    return kw;
  }

  void stats(Map<String, Object> m) {
    m.put("chains", (long) chainLen.size());
    m.put("chains-recycled", recycled);
    m.put("chains-dropped", droppedChains);
    m.put("chains-free", (long) freeChains.size());
    m.put("retracted", retracted);
    m.put("sessions-moved", moved);
    int r = 0;
    for (int x = 0; x < retired.length; x++) if (retired[x]) r++;
    m.put("keys-retired", (long) r);
    m.put("clocks-waited", waited);
    m.put("causal-queries", queries);
    m.put("causal-writers-examined", examined);
    m.put("causal-edges", edges);
  }

  /** One key's writers: per chain, in chain order; and the late ones. */
  private static final class KeyWriters {
    int n;
    int[] chains = new int[2];
    IntList[] lists = new IntList[2];
    IntList late;

    /** Adds writer t on chain ch (-1: late); whether this key had no writer on ch yet. */
    boolean add(int t, int ch) {
      if (ch < 0) {
        if (late == null) late = new IntList(2);
        late.add(t);
        return false;
      }
      for (int j = n - 1; j >= 0; j--) {
        if (chains[j] == ch) {
          lists[j].add(t);
          return false;
        }
      }
      if (n == chains.length) {
        chains = Arrays.copyOf(chains, 2 * n);
        lists = Arrays.copyOf(lists, 2 * n);
      }
      chains[n] = ch;
      lists[n++] = new IntList(4);
      lists[n - 1].add(t);
      return true;
    }

    /** Writer t leaves chain ch (retracted: the last of its writers there) for the late ones. */
    void retract(int t, int ch) {
      for (int j = 0; j < n; j++) {
        if (chains[j] != ch) continue;
        IntList l = lists[j];
        if (l.size() > 0 && l.last() == t) l.pop();
        break;
      }
      if (late == null) late = new IntList(2);
      late.add(t);
    }

    /** Forgets the writers on chain ch (it is recycled); whether there were any. */
    boolean drop(int ch) {
      for (int j = 0; j < n; j++) {
        if (chains[j] != ch) continue;
        boolean any = lists[j].size() > 0;
        chains[j] = chains[n - 1];
        lists[j] = lists[n - 1];
        lists[--n] = null;
        return any;
      }
      return false;
    }
  }

  /** Whether a[i] occurs in a[0..i) (a transaction's written keys, with repeats). */
  private static boolean before(int[] a, int i) {
    for (int j = 0; j < i; j++) if (a[j] == a[i]) return true;
    return false;
  }
}
