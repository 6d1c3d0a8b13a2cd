package isocheck.oracle;

import clojure.lang.Keyword;
import clojure.lang.PersistentVector;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/**
 * Random small rw-register histories for {@link RegisterOracle}: 1–8 transactions of 1–4
 * micro-ops ([:w k v], [:r k v]) over 1–3 keys on 1–4 threads, as vectors of Jepsen op maps,
 * deterministic per seed. Written values are unique in the history; at most 7 transactions
 * write any one key.
 *
 * <p>Each history is the record of a simulated store, so that a fair share holds at each level
 * and a fair share does not:
 *
 * <ol>
 * <li>Micro-ops have one of four shapes per history: random; read-modify-write (read keys, then
 *     write them: lost updates); cross (read keys, then write others: write skew); blind (a
 *     transaction only writes or only reads: the version order is hidden, as in Viper's
 *     BlindW workloads, so long forks and G-SIb need the order inferred).
 * <li>Threads run their transactions in turn; invocations and completions of the threads are
 *     interleaved at random. Each completes :ok, :fail or :info; a thread's last transaction
 *     sometimes never completes. After an :info the thread usually continues under a fresh
 *     process id, as Jepsen does.
 * <li>The committed transactions (:ok, and each indeterminate one with probability 1/2) get an
 *     execution, a sequence of begin and commit events: inside their invoke/complete intervals
 *     (overlapping, or serial), or, ignoring realtime and processes, a random serial order, a
 *     random interleaving, or a begin-heavy interleaving. Sometimes first-committer-wins
 *     applies: a transaction that would commit a key written by one that committed while it
 *     was open aborts (:fail, or an uncommitted :info) or retries.
 * <li>Reads come from the execution: the snapshot at begin, or the transaction's own latest
 *     write of the key. With a per-history deviance rate a transaction instead reads an older
 *     snapshot, a snapshot per key (forked), a later snapshot per read, or the future.
 * <li>Sometimes one read is corrupted: the initial value, a value of an uncommitted
 *     transaction, an intermediate write, a value nobody wrote, another committed write of the
 *     key, or its own later write.
 * <li>Sometimes the history is written with completions only, or loses a few invocations.
 * </ol>
 *
 * <p>The generator only produces inputs; what a history satisfies is the oracle's business.
 */
public final class RegisterHistoryGen {
  private RegisterHistoryGen() {}

  private static final int OK = Jepsen.OK, FAIL = Jepsen.FAIL, INFO = Jepsen.INFO;
  private static final int MAX_WRITERS = 7;

  /** A generated history, with a short description of how it was made. */
  public static HistoryGen.Gen generate(long seed) {
    Random r = new Random(mix(seed));
    int n = r.nextInt(100) < 15 ? 1 + r.nextInt(3) : 3 + r.nextInt(6);
    // Shapes (below): 0 random 25%, 1 read-modify-write 20%, 2 cross 35%, 3 blind 20%.
    int u0 = r.nextInt(100);
    int shape = u0 < 25 ? 0 : u0 < 45 ? 1 : u0 < 80 ? 2 : 3;
    int nKeys = shape == 2 ? 2 + r.nextInt(2) : 1 + r.nextInt(3);
    int nThreads = shape == 2 ? 2 + r.nextInt(3) : 1 + r.nextInt(4);
    StringBuilder how = new StringBuilder(new String[] {"random", "rmw", "cross", "blind"}[shape]);

    // ---- micro-ops. Values are unique across the history.
    boolean[][] w = new boolean[n][];
    int[][] key = new int[n][];
    long[][] val = new long[n][]; // writes: the value; reads: filled below (0 = nil)
    int[] writers = new int[nKeys];
    long next = 1;
    for (int t = 0; t < n; t++) {
      // Cross transactions are half the time the textbook write-skew form: read every other
      // key, then write one.
      boolean skew = shape == 2 && r.nextBoolean();
      int target = r.nextInt(nKeys);
      int m = skew ? nKeys : 1 + r.nextInt(4);
      w[t] = new boolean[m];
      key[t] = new int[m];
      val[t] = new long[m];
      boolean blindWriter = r.nextInt(100) < 50;
      int reads = skew ? m - 1 : m == 1 ? r.nextInt(2) : 1 + r.nextInt(m - 1); // rmw, cross: reads first
      boolean[] readKey = new boolean[nKeys], wroteKey = new boolean[nKeys];
      for (int i = 0; i < m; i++) {
        int k = r.nextInt(nKeys);
        boolean write;
        switch (shape) {
          case 0: write = r.nextInt(100) < 45; break;
          case 1: {
            write = i >= reads;
            if (write) { // write a key read earlier, when there is one
              List<Integer> rk = new ArrayList<>();
              for (int q = 0; q < nKeys; q++) if (readKey[q]) rk.add(q);
              if (!rk.isEmpty()) k = rk.get(r.nextInt(rk.size()));
            }
            break;
          }
          case 2: {
            write = i >= reads;
            if (skew) { k = write ? target : (target + 1 + i) % nKeys; break; }
            if (write && readKey[k]) // write a key not read, when there is one
              for (int d = 0; d < nKeys; d++) if (!readKey[(k + d) % nKeys]) { k = (k + d) % nKeys; break; }
            break;
          }
          default: write = blindWriter;
        }
        if (write && !wroteKey[k] && writers[k] >= MAX_WRITERS) write = false;
        w[t][i] = write;
        key[t][i] = k;
        if (write) {
          val[t][i] = next++;
          if (!wroteKey[k]) writers[k]++;
          wroteKey[k] = true;
        } else readKey[k] = true;
      }
    }

    // ---- threads, statuses, timeline, processes
    int[] thread = new int[n];
    List<List<Integer>> perThread = new ArrayList<>();
    for (int th = 0; th < nThreads; th++) perThread.add(new ArrayList<>());
    for (int t = 0; t < n; t++) { thread[t] = r.nextInt(nThreads); perThread.get(thread[t]).add(t); }
    int infoPct = new int[] {0, 10, 25}[r.nextInt(3)];
    int[] status = new int[n];
    for (int t = 0; t < n; t++) {
      int u = r.nextInt(100);
      status[t] = u < infoPct ? INFO : u < infoPct + 8 ? FAIL : OK;
    }
    boolean completionOnly = r.nextInt(100) < 8;
    boolean[] neverCompletes = new boolean[n];
    if (!completionOnly && r.nextInt(100) < 15) {
      List<Integer> l = perThread.get(r.nextInt(nThreads));
      if (!l.isEmpty()) {
        int t = l.get(l.size() - 1);
        neverCompletes[t] = true;
        status[t] = INFO;
      }
    }
    // Events: 2t = invocation of t, 2t+1 = its completion; threads interleaved at random.
    List<Integer> timeline = new ArrayList<>();
    int[] cursor = new int[nThreads];
    while (true) {
      List<Integer> live = new ArrayList<>();
      for (int th = 0; th < nThreads; th++) {
        int c = cursor[th];
        if (c >= perThread.get(th).size() * 2) continue;
        int t = perThread.get(th).get(c / 2);
        if (c % 2 == 1 && neverCompletes[t]) continue;
        live.add(th);
      }
      if (live.isEmpty()) break;
      int th = live.get(r.nextInt(live.size()));
      timeline.add(2 * perThread.get(th).get(cursor[th] / 2) + cursor[th] % 2);
      cursor[th]++;
    }
    int end = timeline.size();
    double[] invAt = new double[n], compAt = new double[n];
    for (int i = 0; i < end; i++) {
      int e = timeline.get(i);
      if (e % 2 == 0) invAt[e / 2] = i; else compAt[e / 2] = i;
    }
    for (int t = 0; t < n; t++) if (neverCompletes[t]) compAt[t] = end + 3;
    boolean renameAfterInfo = r.nextInt(100) < 75;
    long[] process = new long[n];
    long fresh = nThreads;
    for (int th = 0; th < nThreads; th++) {
      long p = th;
      for (int t : perThread.get(th)) {
        process[t] = p;
        if (status[t] == INFO && renameAfterInfo) p = fresh++;
      }
    }

    // ---- committed set and execution: 2t = begin of t, 2t+1 = its commit
    boolean[] committed = new boolean[n];
    List<Integer> cs = new ArrayList<>();
    for (int t = 0; t < n; t++) {
      committed[t] = status[t] == OK || (status[t] == INFO && r.nextBoolean());
      if (committed[t]) cs.add(t);
    }
    List<Integer> exec = new ArrayList<>();
    int mode = r.nextInt(100);
    if (mode < 50) {
      boolean serial = mode >= 30;
      // Wide: begin early and commit late in the interval, so that transactions overlap.
      boolean wide = !serial && r.nextBoolean();
      how.append(serial ? " honest-serial" : wide ? " honest wide" : " honest");
      // Points inside each interval. An :info transaction may commit after its completion,
      // unless its thread goes on under the same process (then before the next invocation).
      List<double[]> evs = new ArrayList<>();
      for (int t : cs) {
        double lo = completionOnly ? compAt[t] - 1 - 3 * r.nextDouble() : invAt[t];
        double hi = status[t] == INFO && (renameAfterInfo || lastOfThread(perThread.get(thread[t]), t)) ? end + 3 : compAt[t];
        double a = lo + r.nextDouble() * (hi - lo), b = serial ? a : lo + r.nextDouble() * (hi - lo);
        if (wide) { a = lo + 0.2 * r.nextDouble() * (hi - lo); b = hi - 0.2 * r.nextDouble() * (hi - lo); }
        evs.add(new double[] {Math.min(a, b), 0, t});
        evs.add(new double[] {Math.max(a, b), 1, t});
      }
      evs.sort((x, y) -> x[0] != y[0] ? Double.compare(x[0], y[0]) : x[1] != y[1] ? Double.compare(x[1], y[1]) : Double.compare(x[2], y[2]));
      for (double[] e : evs) {
        int t = (int) e[2];
        if (!serial) exec.add(2 * t + (int) e[1]);
        else if (e[1] == 0) { exec.add(2 * t); exec.add(2 * t + 1); }
      }
    } else if (mode < 65) {
      how.append(" random-serial");
      List<Integer> perm = new ArrayList<>(cs);
      Collections.shuffle(perm, r);
      for (int t : perm) { exec.add(2 * t); exec.add(2 * t + 1); }
    } else {
      boolean beginHeavy = mode >= 82;
      how.append(beginHeavy ? " concurrent" : " random-interleaving");
      List<Integer> avail = new ArrayList<>();
      for (int t : cs) avail.add(2 * t);
      while (!avail.isEmpty()) {
        int pick = r.nextInt(avail.size());
        if (beginHeavy && r.nextInt(100) < 75)
          for (int i = 0; i < avail.size(); i++) if (avail.get(i) % 2 == 0) { pick = i; break; }
        int e = avail.remove(pick);
        exec.add(e);
        if (e % 2 == 0) avail.add(e + 1);
      }
    }
    if (r.nextInt(100) < 45) {
      boolean abort = r.nextBoolean();
      how.append(abort ? " fcw-abort" : " fcw-retry");
      exec = firstCommitterWins(r, exec, w, key, committed, status, abort);
    }

    // ---- reads from the execution
    List<Integer> commitSeq = new ArrayList<>();
    int[] beginAt = new int[n], commitAt = new int[n]; // commits before B_t, before C_t
    for (int e : exec) {
      int t = e / 2;
      if (e % 2 == 0) beginAt[t] = commitSeq.size();
      else { commitAt[t] = commitSeq.size(); commitSeq.add(t); }
    }
    int total = commitSeq.size();
    int deviance = new int[] {0, 0, 0, 15, 35, 60}[r.nextInt(6)];
    how.append(" dev").append(deviance);
    for (int t = 0; t < n; t++) {
      if (status[t] != OK) continue;
      int b = beginAt[t], c = commitAt[t];
      int view = r.nextInt(100) < deviance ? 1 + r.nextInt(4) : 0;
      int[] at = new int[nKeys];
      for (int k = 0; k < nKeys; k++) at[k] = b;
      if (view == 1) Arrays.fill(at, b == 0 ? 0 : r.nextInt(b)); // stale
      if (view == 2) for (int k = 0; k < nKeys; k++) at[k] = r.nextBoolean() ? r.nextInt(b + 1) : b + r.nextInt(c - b + 1); // forked
      if (view == 4) Arrays.fill(at, b == total ? b : b + 1 + r.nextInt(total - b)); // future
      long[] own = new long[nKeys];
      for (int i = 0; i < w[t].length; i++) {
        int k = key[t][i];
        if (w[t][i]) { own[k] = val[t][i]; continue; }
        if (own[k] != 0) { val[t][i] = own[k]; continue; }
        int upTo = view == 3 ? b + r.nextInt(c - b + 1) : at[k]; // view 3: a later snapshot per read
        val[t][i] = stateAt(commitSeq, upTo, t, k, w, key, val);
      }
    }

    // ---- corruption of one read
    if (r.nextInt(100) < 20) {
      List<int[]> rs = new ArrayList<>();
      for (int t = 0; t < n; t++) if (status[t] == OK) for (int i = 0; i < w[t].length; i++) if (!w[t][i]) rs.add(new int[] {t, i});
      if (!rs.isEmpty()) {
        int[] ti = rs.get(r.nextInt(rs.size()));
        how.append(" corrupt-").append(corrupt(r, ti[0], ti[1], w, key, val, committed));
      }
    }

    // ---- ops
    boolean someDropped = !completionOnly && r.nextInt(100) < 6;
    boolean[] dropInv = new boolean[n];
    for (int t = 0; t < n; t++) dropInv[t] = completionOnly || (someDropped && !neverCompletes[t] && r.nextInt(100) < 40);
    if (completionOnly) how.append(" completion-only");
    if (someDropped) how.append(" some-invocations-dropped");
    List<Object> ops = new ArrayList<>();
    long index = 0;
    for (int e : timeline) {
      int t = e / 2;
      boolean inv = e % 2 == 0;
      if (inv && dropInv[t]) continue;
      Keyword type = inv ? Jepsen.INVOKE : status[t] == OK ? Jepsen.OK_K : status[t] == FAIL ? Jepsen.FAIL_K : Jepsen.INFO_K;
      List<Object> mops = new ArrayList<>();
      for (int i = 0; i < w[t].length; i++) {
        Object v = w[t][i] ? (Object) val[t][i] : !inv && status[t] == OK && val[t][i] != 0 ? (Object) val[t][i] : null;
        mops.add(PersistentVector.create(w[t][i] ? Jepsen.W : Jepsen.R, (long) key[t][i], v));
      }
      ops.add(Jepsen.op(index++, type, process[t], mops));
    }
    return new HistoryGen.Gen(PersistentVector.create(ops), how.toString());
  }

  private static boolean lastOfThread(List<Integer> l, int t) { return l.get(l.size() - 1) == t; }

  /** Value of key k after the first upTo commits (t's own commit excluded); 0 = nil. */
  private static long stateAt(List<Integer> commitSeq, int upTo, int t, int k, boolean[][] w, int[][] key, long[][] val) {
    long v = 0;
    for (int j = 0; j < upTo; j++) {
      int u = commitSeq.get(j);
      if (u == t) continue;
      for (int i = 0; i < w[u].length; i++) if (w[u][i] && key[u][i] == k) v = val[u][i];
    }
    return v;
  }

  /**
   * The execution with first-committer-wins applied: a transaction about to commit a key that a
   * transaction committed while it was open also wrote aborts, or (when retrying, up to four
   * times) begins again there and commits at a random later point.
   */
  private static List<Integer> firstCommitterWins(Random r, List<Integer> exec, boolean[][] w, int[][] key,
                                                  boolean[] committed, int[] status, boolean abort) {
    int n = w.length;
    java.util.LinkedList<Integer> rest = new java.util.LinkedList<>(exec);
    List<Integer> out = new ArrayList<>();
    boolean[] open = new boolean[n];
    List<List<Integer>> sinceBegin = new ArrayList<>();
    for (int t = 0; t < n; t++) sinceBegin.add(new ArrayList<>());
    int[] retries = new int[n];
    while (!rest.isEmpty()) {
      int e = rest.removeFirst(), t = e / 2;
      if (e % 2 == 0) {
        out.add(e);
        open[t] = true;
        sinceBegin.get(t).clear();
        continue;
      }
      boolean clash = false;
      for (int u : sinceBegin.get(t)) if (shareWrittenKey(w, key, t, u)) clash = true;
      if (clash) {
        out.remove(Integer.valueOf(2 * t));
        open[t] = false;
        if (abort || retries[t]++ >= 4) {
          committed[t] = false;
          if (status[t] == OK) status[t] = FAIL;
        } else {
          out.add(2 * t);
          open[t] = true;
          sinceBegin.get(t).clear();
          rest.add(r.nextInt(rest.size() + 1), 2 * t + 1);
        }
        continue;
      }
      out.add(e);
      open[t] = false;
      for (int u = 0; u < n; u++) if (open[u]) sinceBegin.get(u).add(t);
    }
    return out;
  }

  private static boolean shareWrittenKey(boolean[][] w, int[][] key, int t, int u) {
    for (int i = 0; i < w[t].length; i++)
      if (w[t][i]) for (int j = 0; j < w[u].length; j++) if (w[u][j] && key[u][j] == key[t][i]) return true;
    return false;
  }

  /** Gives read i of t a wrong value; returns what it did. */
  private static String corrupt(Random r, int t, int i, boolean[][] w, int[][] key, long[][] val, boolean[] committed) {
    int k = key[t][i];
    List<Long> uncommitted = new ArrayList<>(), intermediate = new ArrayList<>(), other = new ArrayList<>(), ownLater = new ArrayList<>();
    for (int u = 0; u < w.length; u++) {
      long prev = 0;
      for (int j = 0; j < w[u].length; j++) {
        if (!w[u][j] || key[u][j] != k) continue;
        if (u == t) { if (j > i) ownLater.add(val[u][j]); continue; }
        if (prev != 0) intermediate.add(prev);
        prev = val[u][j];
      }
      if (u != t && prev != 0) (committed[u] ? other : uncommitted).add(prev);
    }
    String[] names = {"initial", "uncommitted", "intermediate", "thin-air", "other", "own-later"};
    List<List<Long>> src = List.of(List.of(), uncommitted, intermediate, List.of(), other, ownLater);
    int c = r.nextInt(names.length);
    if (c != 0 && c != 3 && src.get(c).isEmpty()) c = 0;
    long v = c == 0 ? 0 : c == 3 ? 10000 + r.nextInt(100) : src.get(c).get(r.nextInt(src.get(c).size()));
    val[t][i] = v;
    return names[c];
  }

  /** SplitMix64's finaliser: nearby seeds give unrelated histories. */
  private static long mix(long z) {
    z += 0x9e3779b97f4a7c15L;
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }
}
