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
 * <p><b>Memory.</b> A writer's clock is kept while the history goes on (a read may name it any
 * time; the register engine keeps every transaction, no window), a non-writer's until its session
 * successor has joined it.
 */
final class CausalClocks {
  /** What the owner does: the facts of transactions, and the forced edges. */
  interface Owner {
    int sessionOf(int t);

    /** The keys t writes (may repeat), or null. */
    int[] writtenKeys(int t);

    /** t2 must commit before t1 (t3 read x from t1, t1 possibly the initial state): add the edge or report. */
    void forceCausal(int t3, int t2, int t1, int x);
  }

  private static final byte NONE = 0, WAITING = 1, RESOLVED = 2;
  /** The initial state, as the owner names it in a query. */
  private final int initial;

  private final Owner owner;
  private int cap = 1024;
  private byte[] state = new byte[cap];
  private int[] soPred = new int[cap], waitN = new int[cap], chain = new int[cap], idx = new int[cap];
  private boolean[] late = new boolean[cap], readsLate = new boolean[cap];
  private int[][] clock = new int[cap][], pendPreds = new int[cap][], pendQueries = new int[cap][];
  private IntList[] waiters = new IntList[cap], readersOf = new IntList[cap];

  // Sessions
  private final IntList sessionChain = new IntList(), unresolvedOf = new IntList(), lastOf = new IntList();
  private boolean[] dead = new boolean[16];
  // Chains: the last place used; chains ended sessions left.
  private final IntList chainLen = new IntList(), freeChains = new IntList();
  // Keys: writers by chain, and late writers.
  private final ArrayList<KeyWriters> keys = new ArrayList<>();

  private final IntList work = new IntList();
  private long waited, queries, examined, edges;

  CausalClocks(Owner owner, int initial) {
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
    if (!late[t]) unresolvedOf.set(s, unresolvedOf.get(s) + 1);
  }

  /** Whether t's session predecessor is a late transaction (then CO past it is not followed: see {@link #knows}). */
  boolean late(int t) { return t >= 0 && late[t]; }

  /** Committed reader t read from committed w (the owner's readFrom). */
  void read(int t, int w) {
    ensure(t);
    if (!late[w]) return;
    readsLate[t] = true;
    if (readersOf[w] == null) readersOf[w] = new IntList(2);
    readersOf[w].add(t);
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
    freeChains.add(ch);
    sessionChain.set(s, -1);
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
        work.add(v);
      }
    }
  }

  /** t's clock: the join of its predecessors'; its reads checked against it; then its own place. */
  private void clockOf(int t, int[] ps, int[] qs) {
    int len = chainLen.size();
    int[] c = new int[len + 1];
    // The latest preds first (a read's writers, who often know the session predecessor): a pred
    // the join knows already has its past in it, so it is skipped.
    for (int i = ps.length - 1; i >= 0; i--) {
      int p = ps[i];
      int[] cp = clock[p];
      if (cp == null || chain[p] >= 0 && chain[p] < c.length && c[chain[p]] >= idx[p]) continue;
      for (int s = 0; s < cp.length; s++) if (cp[s] > c[s]) c[s] = cp[s];
    }
    if (qs != null) check(t, c, qs);
    int s = owner.sessionOf(t);
    int[] wk = owner.writtenKeys(t);
    if (!late[t] && (wk != null || readsLate[t])) {
      int own = sessionChain.get(s), ch = own;
      // A session's first: a chain an ended session left, whose last member t knows (the most
      // recently freed first, a bounded number of them).
      for (int i = freeChains.size() - 1, tries = own < 0 ? 64 : 0; i >= 0 && tries > 0; i--, tries--) {
        int f = freeChains.get(i);
        if (f >= c.length || c[f] < chainLen.get(f)) continue;
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
    if (wk != null) {
      for (int i = 0; i < wk.length; i++) {
        int x = wk[i];
        boolean dup = false;
        for (int j = 0; j < i && !dup; j++) dup = wk[j] == x;
        if (!dup) writer(x).add(t, chain[t]);
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

  /** Whether a (resolved) is in the causal past of the transaction b whose clock (join of its preds') is c. */
  private boolean knows(int[] c, int b, int a) {
    if (a == b || state[a] != RESOLVED) return false;
    int ch = chain[a];
    if (ch >= 0) return ch < c.length && c[ch] >= idx[a];
    if (!late[a]) return false; // on no chain and not late: writes nothing, asked about by no one
    IntList rs = readersOf[a];
    if (rs == null) return false;
    for (int i = 0; i < rs.size(); i++) {
      int r = rs.get(i);
      if (r == b) return true;
      if (state[r] == RESOLVED && chain[r] >= 0 && chain[r] < c.length && c[chain[r]] >= idx[r]) return true;
    }
    return false;
  }

  /** t3's reads against its causal past c: the writers of each key it knows, after the one it read from. */
  private void check(int t3, int[] c, int[] qs) {
    for (int i = 0; i < qs.length; i += 2) {
      int x = qs[i], t1 = qs[i + 1];
      if (x >= keys.size() || keys.get(x) == null) continue;
      queries++;
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

  private KeyWriters writer(int x) {
    while (keys.size() <= x) keys.add(null);
    KeyWriters kw = keys.get(x);
    if (kw == null) keys.set(x, kw = new KeyWriters());
    return kw;
  }

  void stats(Map<String, Object> m) {
    m.put("chains", (long) chainLen.size());
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

    void add(int t, int ch) {
      if (ch < 0) {
        if (late == null) late = new IntList(2);
        late.add(t);
        return;
      }
      for (int j = n - 1; j >= 0; j--) {
        if (chains[j] == ch) {
          lists[j].add(t);
          return;
        }
      }
      if (n == chains.length) {
        chains = Arrays.copyOf(chains, 2 * n);
        lists = Arrays.copyOf(lists, 2 * n);
      }
      chains[n] = ch;
      lists[n++] = new IntList(4);
      lists[n - 1].add(t);
    }
  }
}
