package isocheck.oracle;

import clojure.lang.Keyword;
import clojure.lang.PersistentVector;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/**
 * Random small histories for cross-checking weak isolation (RC, RA, TCC, CI): 2–7 transactions of
 * 1–4 micro-ops over 1–3 keys on 1–4 processes, rw-register or list-append, as vectors of Jepsen
 * op maps (invocation and completion), deterministic per seed. Written values are unique per key.
 *
 * <p>Each history comes from a simulated weakly consistent store, so that it holds at some
 * levels and not at others:
 *
 * <ol>
 * <li>Transactions are spread over processes; each completes :ok, :fail or :info (an :info one
 *     commits with probability 1/2; a process's last :info may never complete; after an :info a
 *     process sometimes continues under a fresh process id, as Jepsen does). Micro-ops have one
 *     of three shapes per history: random; split (a transaction writes distinct keys, or only
 *     reads: fractured reads); chain (reads, then writes: causal chains through reads-from).
 *     Reads often repeat a key already read (non-repeatable reads).
 * <li>The committed transactions get an arbitration order (a random interleaving of the
 *     sessions). Each transaction reads from a <em>visible set</em> of arbitration-earlier
 *     transactions: per key, the arbitration-latest visible writer's last write (register) or
 *     the visible appends in arbitration order (list), followed by its own writes so far. The
 *     visible set follows one of six per-history modes: causal (closed under session order and
 *     visibility), causal-gap (causal, but a transaction misses a writer it is causally after
 *     through its session: RA without TCC), atomic (one random set per transaction, session
 *     predecessors included or not, "so-visible" when they are), monotonic (a set growing from
 *     read to read), fractured (a fresh random set per read) or divergent (each reader orders
 *     the writers it sees its own way). Without corruption, register histories of the causal,
 *     so-visible atomic and monotonic modes satisfy TCC, RA and RC respectively.
 * <li>Sometimes reads are corrupted: list elements swapped or dropped, own writes missing, a
 *     value of an aborted transaction or from thin air, an intermediate value, a value from the
 *     future (a later transaction, or the reader's own later write), an initial value.
 * </ol>
 *
 * <p>The generator only produces inputs; the levels a history satisfies are the oracle's business.
 */
public final class WeakHistoryGen {
  private WeakHistoryGen() {}

  private static final int OK = Jepsen.OK, FAIL = Jepsen.FAIL, INFO = Jepsen.INFO;

  /** A transaction being generated. Reads hold a Long (register; null = initial) or a List<Long>. */
  private static final class T {
    int process;
    int status;
    boolean committed, neverCompletes;
    final List<Boolean> writes = new ArrayList<>();
    final List<Integer> key = new ArrayList<>();
    final List<Object> val = new ArrayList<>(); // written Long, or the read's result

    int size() { return key.size(); }

    boolean write(int i) { return writes.get(i); }
  }

  public static HistoryGen.Gen generate(long seed) {
    Random r = new Random(mix(seed)); // Random's first draws barely differ between nearby seeds
    boolean lists = r.nextBoolean();
    // Visibility mode (below). A causal gap needs a causal chain to break: it gets more
    // transactions, 2–3 sessions and the chain shape.
    int mode = r.nextInt(7);
    if (mode == 6) mode = 1; // causal gaps twice as often: the pattern is rare even then
    boolean gapMode = mode == 1;
    int n = r.nextBoolean() && !gapMode ? 2 + r.nextInt(6) : 4 + r.nextInt(4);
    int nProc = gapMode ? 2 + r.nextInt(2) : 1 + r.nextInt(4);
    int nKeys = gapMode ? 2 + r.nextInt(2) : 1 + r.nextInt(3);
    int writePct = 25 + r.nextInt(40);
    // Shapes (see above): 0 random, 1 split, 2 chain.
    int shape = nKeys == 1 ? 0 : gapMode ? 2 : r.nextInt(3);
    boolean split = shape == 1, chain = shape == 2;
    StringBuilder how = new StringBuilder(lists ? "append" : "register").append(new String[] {"", " split", " chain"}[shape]);

    // ---- transactions: processes, micro-ops, statuses. Index order is each process's order.
    long[] nextVal = new long[nKeys];
    T[] ts = new T[n];
    for (int t = 0; t < n; t++) {
      T x = ts[t] = new T();
      x.process = r.nextInt(nProc);
      int m = chain ? 2 + r.nextInt(3) : 1 + r.nextInt(4);
      // Split shape: a transaction either writes distinct keys (all of them, often) or only reads.
      boolean writer = split && r.nextInt(100) < writePct;
      if (writer) m = Math.min(m + 1, nKeys);
      int offset = r.nextInt(nKeys);
      for (int i = 0; i < m; i++) {
        boolean w = split ? writer : chain ? i >= (m + 1) / 2 : r.nextInt(100) < writePct;
        int k = writer ? (offset + i) % nKeys : r.nextInt(nKeys);
        // Re-read a key already read, now and then: chances for non-repeatable reads.
        if (!w && r.nextInt(100) < 40)
          for (int j = 0; j < i; j++) if (!x.write(j)) { k = x.key.get(j); break; }
        x.writes.add(w);
        x.key.add(k);
        x.val.add(w ? (Object) (++nextVal[k]) : null);
      }
      int u = r.nextInt(100);
      x.status = u < 80 ? OK : u < 88 ? FAIL : INFO;
      x.committed = x.status == OK || (x.status == INFO && r.nextBoolean());
    }
    // A process's last transaction, when :info, may never complete.
    for (int p = 0; p < nProc; p++) {
      int last = -1;
      for (int t = 0; t < n; t++) if (ts[t].process == p) last = t;
      if (last >= 0 && ts[last].status == INFO && r.nextBoolean()) ts[last].neverCompletes = true;
    }

    // ---- arbitration: a random interleaving of the sessions' committed transactions
    List<Integer> arb = new ArrayList<>();
    {
      int[] next = new int[nProc];
      List<List<Integer>> sess = new ArrayList<>();
      for (int p = 0; p < nProc; p++) sess.add(new ArrayList<>());
      for (int t = 0; t < n; t++) if (ts[t].committed) sess.get(ts[t].process).add(t);
      while (true) {
        List<Integer> live = new ArrayList<>();
        for (int p = 0; p < nProc; p++) if (next[p] < sess.get(p).size()) live.add(p);
        if (live.isEmpty()) break;
        int p = live.get(r.nextInt(live.size()));
        arb.add(sess.get(p).get(next[p]++));
      }
    }
    int[] rank = new int[n];
    java.util.Arrays.fill(rank, -1);
    for (int i = 0; i < arb.size(); i++) rank[arb.get(i)] = i;

    // ---- visibility and reads
    String[] modes = {"causal", "causal-gap", "atomic", "monotonic", "fractured", "divergent"};
    how.append(' ').append(modes[mode]);
    int seePct = 30 + r.nextInt(60); // chance that an arbitration-earlier transaction is visible
    boolean sessionVisible = mode <= 1 || r.nextInt(100) < 60;
    if (sessionVisible) how.append(" so-visible");
    boolean[][] seen = new boolean[n][n]; // causal modes: visible sets, closed
    boolean[][] coAct = new boolean[n][n]; // coAct[t][u]: u is CO-before t through reads made
    for (int t : arb) {
      T x = ts[t];
      boolean[] vis = new boolean[n];
      // Arbitration-earlier transactions, visible at random (session predecessors maybe always).
      for (int i = 0; i < rank[t]; i++) {
        int u = arb.get(i);
        if (r.nextInt(100) < seePct || (sessionVisible && ts[u].process == x.process)) vis[u] = true;
      }
      if (mode <= 1) { // causal: close under visibility of what is visible
        for (int i = rank[t] - 1; i >= 0; i--) {
          int u = arb.get(i);
          if (vis[u]) for (int v = 0; v < n; v++) if (seen[u][v]) vis[v] = true;
        }
        seen[t] = vis.clone();
        // Causal gap: this transaction misses a transaction of another session that is CO-before
        // it through an earlier transaction of its own session, and that is the latest visible
        // writer of a key it reads: causality breaks while atomic visibility may hold.
        if (mode == 1 && r.nextInt(100) < 70) {
          List<Integer> gaps = new ArrayList<>();
          for (int u = 0; u < n; u++) {
            if (!vis[u] || ts[u].process == x.process) continue;
            boolean before = false, latest = false;
            for (int p = 0; p < n; p++) if (rank[p] >= 0 && rank[p] < rank[t] && ts[p].process == x.process && coAct[p][u]) before = true;
            for (int j = 0; j < x.size(); j++) if (!x.write(j) && latestWriter(ts, x.key.get(j), vis, arb) == u) latest = true;
            if (before && latest) gaps.add(u);
          }
          if (!gaps.isEmpty()) {
            vis[gaps.get(r.nextInt(gaps.size()))] = false;
            how.append(" gap");
          }
        }
      }
      // Divergent: this reader's own order of the writers it sees.
      List<Integer> order = new ArrayList<>(arb);
      if (mode == 5) Collections.shuffle(order, r);
      for (int i = 0; i < x.size(); i++) {
        if (x.write(i)) continue;
        if (mode == 3 || mode == 4) { // per read: monotonic grows the set, fractured redraws it
          if (mode == 4) vis = new boolean[n];
          for (int j = 0; j < rank[t]; j++) if (r.nextInt(100) < seePct / 2) vis[arb.get(j)] = true;
        }
        x.val.set(i, readAt(ts, x, i, vis, order, lists, coAct[t]));
      }
      // What is CO-before t: the writers it read from (above), its session's earlier
      // transactions, and what is CO-before those.
      for (int u = 0; u < n; u++) if (rank[u] >= 0 && rank[u] < rank[t] && ts[u].process == x.process) coAct[t][u] = true;
      for (int u = 0; u < n; u++) if (coAct[t][u]) for (int v = 0; v < n; v++) if (coAct[u][v]) coAct[t][v] = true;
    }

    // ---- corruption: 0–2 reads of :ok transactions get a wrong value
    int corruptions = r.nextInt(100) < 35 ? 1 + (r.nextInt(100) < 25 ? 1 : 0) : 0;
    for (int c = 0; c < corruptions; c++) {
      List<int[]> rs = new ArrayList<>();
      for (int t = 0; t < n; t++) if (ts[t].status == OK) for (int i = 0; i < ts[t].size(); i++) if (!ts[t].write(i)) rs.add(new int[] {t, i});
      if (rs.isEmpty()) break;
      int[] ti = rs.get(r.nextInt(rs.size()));
      String what = corrupt(r, ts, ti[0], ti[1], rank, lists, nextVal);
      how.append(" corrupt-").append(what);
    }

    return new HistoryGen.Gen(emit(r, ts, nProc, lists, how), how.toString());
  }

  /** SplitMix64's finaliser: spreads consecutive seeds over the whole range. */
  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }

  /** What read i of x returns when it sees the transactions in vis, ordered by order. */
  private static Object readAt(T[] ts, T x, int i, boolean[] vis, List<Integer> order, boolean lists, boolean[] from) {
    int k = x.key.get(i);
    List<Long> l = new ArrayList<>();
    Long last = null;
    int lastFrom = -1;
    for (int u : order) {
      if (!vis[u] || ts[u] == x) continue;
      for (int j = 0; j < ts[u].size(); j++)
        if (ts[u].write(j) && ts[u].key.get(j) == k) {
          l.add((Long) ts[u].val.get(j));
          last = (Long) ts[u].val.get(j);
          lastFrom = u;
          if (lists) from[u] = true; // every element's writer is visible to the reader
        }
    }
    if (lastFrom >= 0) from[lastFrom] = true;
    for (int j = 0; j < i; j++)
      if (x.write(j) && x.key.get(j) == k) { l.add((Long) x.val.get(j)); last = (Long) x.val.get(j); }
    return lists ? l : last;
  }

  /** The arbitration-latest transaction in vis that writes key k, or -1. */
  private static int latestWriter(T[] ts, int k, boolean[] vis, List<Integer> arb) {
    int latest = -1;
    for (int u : arb)
      if (vis[u]) for (int j = 0; j < ts[u].size(); j++) if (ts[u].write(j) && ts[u].key.get(j) == k) latest = u;
    return latest;
  }

  /** Replaces read i of transaction t with a wrong value; returns what was done. */
  @SuppressWarnings("unchecked")
  private static String corrupt(Random r, T[] ts, int t, int i, int[] rank, boolean lists, long[] nextVal) {
    T x = ts[t];
    int k = x.key.get(i);
    Object cur = x.val.get(i);
    List<Long> l = lists ? new ArrayList<>((List<Long>) cur) : null;
    // Candidate values written to k by others: aborted, later in arbitration, intermediate.
    List<Long> aborted = new ArrayList<>(), future = new ArrayList<>(), intermediate = new ArrayList<>();
    for (int u = 0; u < ts.length; u++) {
      if (u == t) continue;
      Long prev = null;
      for (int j = 0; j < ts[u].size(); j++) {
        if (!ts[u].write(j) || ts[u].key.get(j) != k) continue;
        Long v = (Long) ts[u].val.get(j);
        if (!ts[u].committed) aborted.add(v);
        else if (rank[u] > rank[t] || rank[t] < 0) future.add(v);
        if (prev != null) intermediate.add(prev);
        prev = v;
      }
    }
    List<Long> ownLater = new ArrayList<>();
    for (int j = i + 1; j < x.size(); j++) if (x.write(j) && x.key.get(j) == k) ownLater.add((Long) x.val.get(j));
    int c = r.nextInt(lists ? 8 : 6);
    String what;
    switch (c) {
      case 0: { // a value of a transaction that did not commit, else from thin air
        Long v = aborted.isEmpty() ? ++nextVal[k] + 1000 : aborted.get(r.nextInt(aborted.size()));
        what = aborted.isEmpty() ? "thin-air" : "aborted";
        if (lists) l.add(r.nextInt(l.size() + 1), v); else cur = v;
        break;
      }
      case 1: { // a value from the future: a later transaction, or the reader's own later write
        List<Long> src = !ownLater.isEmpty() && (future.isEmpty() || r.nextBoolean()) ? ownLater : future;
        what = src == ownLater ? "own-future" : "future";
        if (src.isEmpty()) { what = "initial"; if (lists) l.clear(); else cur = null; break; }
        Long v = src.get(r.nextInt(src.size()));
        if (lists) l.add(v); else cur = v;
        break;
      }
      case 2: { // an intermediate value of another transaction
        what = "intermediate";
        if (intermediate.isEmpty()) { what = "initial"; if (lists) l.clear(); else cur = null; break; }
        Long v = intermediate.get(r.nextInt(intermediate.size()));
        if (lists) { int at = l.indexOf(v); if (at >= 0) l.subList(at + 1, l.size()).clear(); else l.add(v); } else cur = v;
        break;
      }
      case 3: { // own writes missing: what the read would be without them
        what = "missing-own";
        boolean wroteBefore = false;
        for (int j = 0; j < i; j++) if (x.write(j) && x.key.get(j) == k) wroteBefore = true;
        if (!wroteBefore) { what = "initial"; if (lists) l.clear(); else cur = null; break; }
        List<Long> others = new ArrayList<>();
        Long lastOther = null;
        if (lists) { for (Long v : l) if (!own(x, i, k, v)) others.add(v); l = others; }
        else {
          for (int u = 0; u < ts.length; u++) for (int j = 0; j < ts[u].size(); j++)
            if (u != t && ts[u].committed && ts[u].write(j) && ts[u].key.get(j) == k && rank[u] < rank[t]) lastOther = (Long) ts[u].val.get(j);
          cur = lastOther;
        }
        break;
      }
      case 4: { // the initial value
        what = "initial";
        if (lists) l.clear(); else cur = null;
        break;
      }
      case 5: { // an own earlier write that is not the latest, else any other committed value
        what = "stale";
        List<Long> any = new ArrayList<>();
        for (int j = 0; j < i; j++) if (x.write(j) && x.key.get(j) == k) any.add((Long) x.val.get(j));
        if (any.size() >= 2) any.remove(any.size() - 1);
        else {
          any.clear();
          for (int u = 0; u < ts.length; u++) for (int j = 0; j < ts[u].size(); j++)
            if (u != t && ts[u].committed && ts[u].write(j) && ts[u].key.get(j) == k) any.add((Long) ts[u].val.get(j));
        }
        if (any.isEmpty()) { if (lists) l.clear(); else cur = null; break; }
        Long v = any.get(r.nextInt(any.size()));
        if (lists) { l.remove(v); l.add(v); } else cur = v;
        break;
      }
      case 6: { // lists: two elements swapped
        what = "swapped";
        if (l.size() >= 2) { int a = r.nextInt(l.size() - 1); Collections.swap(l, a, a + 1); }
        break;
      }
      default: { // lists: one element dropped
        what = "dropped";
        if (!l.isEmpty()) l.remove(r.nextInt(l.size()));
        break;
      }
    }
    x.val.set(i, lists ? l : cur);
    return what;
  }

  private static boolean own(T x, int before, int k, Long v) {
    for (int j = 0; j < before; j++) if (x.write(j) && x.key.get(j) == k && v.equals(x.val.get(j))) return true;
    return false;
  }

  /** Jepsen ops: each process's transactions in order, processes interleaved at random. */
  @SuppressWarnings("unchecked")
  private static PersistentVector emit(Random r, T[] ts, int nProc, boolean lists, StringBuilder how) {
    int n = ts.length;
    // Process ids: after an :info, sometimes a fresh one (Jepsen's worker gets a new process).
    boolean renameAfterInfo = r.nextBoolean();
    long[] process = new long[n];
    long[] current = new long[nProc];
    for (int p = 0; p < nProc; p++) current[p] = p;
    long fresh = nProc;
    for (int t = 0; t < n; t++) {
      process[t] = current[ts[t].process];
      if (ts[t].status == INFO && renameAfterInfo) current[ts[t].process] = fresh++;
    }
    // Events 2t (invoke) and 2t+1 (completion), each process in order, interleaved.
    List<List<Integer>> queues = new ArrayList<>();
    for (int p = 0; p < nProc; p++) queues.add(new ArrayList<>());
    for (int t = 0; t < n; t++) {
      queues.get(ts[t].process).add(2 * t);
      if (!ts[t].neverCompletes) queues.get(ts[t].process).add(2 * t + 1);
    }
    List<Object> ops = new ArrayList<>();
    long index = 0;
    int[] at = new int[nProc];
    while (true) {
      List<Integer> live = new ArrayList<>();
      for (int p = 0; p < nProc; p++) if (at[p] < queues.get(p).size()) live.add(p);
      if (live.isEmpty()) break;
      int p = live.get(r.nextInt(live.size()));
      int e = queues.get(p).get(at[p]++);
      int t = e / 2;
      boolean inv = e % 2 == 0;
      T x = ts[t];
      Keyword type = inv ? Jepsen.INVOKE : x.status == OK ? Jepsen.OK_K : x.status == FAIL ? Jepsen.FAIL_K : Jepsen.INFO_K;
      List<Object> mops = new ArrayList<>();
      for (int i = 0; i < x.size(); i++) {
        Object v;
        if (x.write(i)) v = x.val.get(i);
        else if (!inv && x.status == OK) {
          Object got = x.val.get(i);
          v = lists ? (((List<Long>) got).isEmpty() && r.nextBoolean() ? null : PersistentVector.create((List<Long>) got)) : got;
        } else v = null;
        mops.add(PersistentVector.create(x.write(i) ? (lists ? Jepsen.APPEND : Jepsen.W) : Jepsen.R, (long) x.key.get(i), v));
      }
      ops.add(Jepsen.op(index++, type, process[t], mops));
    }
    return PersistentVector.create(ops);
  }
}
