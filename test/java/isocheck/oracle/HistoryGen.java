package isocheck.oracle;

import clojure.lang.Keyword;
import clojure.lang.PersistentVector;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * Random tiny list-append histories (2–6 transactions of 1–4 micro-ops over 2–3 keys, on 1–3
 * threads), as vectors of Jepsen op maps, deterministic per seed.
 *
 * <p>Each history comes from a simulated run, so that it is valid at some levels and not at
 * others:
 *
 * <ol>
 * <li>Micro-ops have one of three shapes per history: random; read-modify-write (reads, then
 *     appends, maybe a final read); or cross (reads, then appends to keys not read: write skew
 *     and long forks).
 * <li>Transactions are spread over threads; the threads' invocations and completions are
 *     interleaved at random (realtime overlap). Each completes :ok, :fail or :info; sometimes a
 *     thread's last invocation never completes. After an :info, the thread usually continues
 *     under a fresh process (as Jepsen does), sometimes under the same one.
 * <li>The committed transactions (:ok, and each indeterminate one with probability 1/2) get an
 *     execution: begin/commit events placed inside their invoke/complete intervals (honest,
 *     concurrent or serial), or, ignoring realtime and sessions, a random serial order, a
 *     random interleaving, or a begin-heavy interleaving (many overlapping transactions).
 *     Optionally first-committer-wins applies: a transaction whose appends clash with one that
 *     committed while it was open aborts (:fail, or an uncommitted :info) or retries later.
 * <li>Reads are taken from the execution: normally the snapshot at begin plus the
 *     transaction's own appends; with a per-history deviance rate a transaction instead reads a
 *     stale snapshot, a per-key (forked) snapshot, a later snapshot per read, or the future.
 * <li>Occasionally one read is corrupted (element dropped, neighbours swapped, two appends of
 *     one writer swapped, an element duplicated, a failed or unknown value added, emptied).
 * <li>Sometimes the history is written with completions only (no :invoke ops), or loses a few
 *     invocations.
 * </ol>
 *
 * <p>The generator only produces inputs; whether a history satisfies a level is the oracle's
 * business, never the generator's intent.
 */
public final class HistoryGen {
  private HistoryGen() {}

  private static final int OK = Jepsen.OK, FAIL = Jepsen.FAIL, INFO = Jepsen.INFO;

  /** One generated history: the ops and a short description of how it was made. */
  public static final class Gen {
    public final PersistentVector ops;
    public final String how;
    Gen(PersistentVector ops, String how) { this.ops = ops; this.how = how; }
  }

  public static Gen generate(long seed) { return generate(seed, 6); }

  /** A history with 2..maxTxns transactions (the tests use 6; larger is for exploration). */
  public static Gen generate(long seed, int maxTxns) { return generate(seed, maxTxns, false); }

  /**
   * As {@link #generate(long, int)}, and with {@code sink}, one more key that no read names and
   * most transactions append to (at a random place among their micro-ops): several never-read
   * appends per key, whose order only snapshot isolation's rule (no two concurrent writers of a
   * key) constrains. Without {@code sink}, the same history as before for each seed.
   */
  public static Gen generate(long seed, int maxTxns, boolean sink) {
    Random r = new Random(seed);
    int n = 2 + r.nextInt(maxTxns - 1);
    int nKeys = 2 + r.nextInt(2);
    int nThreads = r.nextInt(100) < 20 ? 1 : 2 + r.nextInt(2);
    // Micro-ops: kind (true = append), key, value (appends: unique per history). Shapes: random
    // kinds; read-modify-write (reads first, then appends, maybe a final read); or cross (every
    // txn reads, then appends to keys it did not read), which makes write skew and forks likely.
    int shape = r.nextInt(100) < 20 ? 0 : r.nextInt(100) < 40 ? 1 : 2;
    boolean[][] app = new boolean[n][];
    int[][] key = new int[n][], val = new int[n][];
    int next = 1;
    for (int t = 0; t < n; t++) {
      int m = shape == 2 ? 2 + r.nextInt(3) : 1 + r.nextInt(4);
      app[t] = new boolean[m];
      key[t] = new int[m];
      val[t] = new int[m];
      int reads = shape == 0 ? -1 : m == 1 ? r.nextInt(2) : 1 + r.nextInt(m - 1);
      boolean finalRead = shape != 0 && m >= 3 && r.nextInt(100) < 30;
      boolean[] readKey = new boolean[nKeys];
      for (int i = 0; i < m; i++) {
        app[t][i] = shape != 0 ? i >= reads && !(finalRead && i == m - 1) : r.nextInt(100) < 45;
        key[t][i] = r.nextInt(nKeys);
        if (shape == 2 && app[t][i] && readKey[key[t][i]]) {
          int k0 = r.nextInt(nKeys);
          for (int d = 0; d < nKeys; d++) if (!readKey[(k0 + d) % nKeys]) { key[t][i] = (k0 + d) % nKeys; break; }
        }
        if (!app[t][i]) readKey[key[t][i]] = true;
        if (app[t][i]) val[t][i] = next++;
      }
    }
    StringBuilder how = new StringBuilder(shape == 0 ? "random " : shape == 1 ? "rmw " : "cross ");
    if (sink) {
      int k = nKeys++;
      for (int t = 0; t < n; t++) {
        if (r.nextInt(100) >= 60) continue;
        int m = app[t].length, at = r.nextInt(m + 1);
        boolean[] a2 = new boolean[m + 1];
        int[] k2 = new int[m + 1], v2 = new int[m + 1];
        for (int i = 0, j = 0; i <= m; i++) {
          if (i == at) {
            a2[i] = true;
            k2[i] = k;
            v2[i] = next++;
          } else {
            a2[i] = app[t][j];
            k2[i] = key[t][j];
            v2[i] = val[t][j];
            j++;
          }
        }
        app[t] = a2;
        key[t] = k2;
        val[t] = v2;
      }
      how.append("sink ");
    }

    // ---- threads, timeline and statuses
    int[] thread = new int[n];
    for (int t = 0; t < n; t++) thread[t] = r.nextInt(nThreads);
    boolean completionOnly = r.nextInt(100) < 8;
    int[] status = new int[n];
    for (int t = 0; t < n; t++) {
      int u = r.nextInt(100);
      status[t] = u < 80 ? OK : u < 88 ? FAIL : INFO;
    }
    // Per thread, its txns in order; the last one may never complete.
    List<List<Integer>> perThread = new ArrayList<>();
    for (int th = 0; th < nThreads; th++) perThread.add(new ArrayList<>());
    for (int t = 0; t < n; t++) perThread.get(thread[t]).add(t);
    boolean[] neverCompletes = new boolean[n];
    if (!completionOnly && r.nextInt(100) < 12) {
      int th = r.nextInt(nThreads);
      List<Integer> l = perThread.get(th);
      if (!l.isEmpty()) {
        int t = l.get(l.size() - 1);
        neverCompletes[t] = true;
        status[t] = INFO;
      }
    }
    // Events: 2t = invoke of t, 2t+1 = completion of t; interleave the threads at random.
    List<Integer> timeline = new ArrayList<>();
    int[] cursor = new int[nThreads]; // per thread: events emitted
    while (true) {
      List<Integer> live = new ArrayList<>();
      for (int th = 0; th < nThreads; th++) {
        int done = cursor[th], len = perThread.get(th).size() * 2;
        if (done < len) {
          int t = perThread.get(th).get(done / 2);
          if (done % 2 == 1 && neverCompletes[t]) continue;
          live.add(th);
        }
      }
      if (live.isEmpty()) break;
      int th = live.get(r.nextInt(live.size()));
      int t = perThread.get(th).get(cursor[th] / 2);
      timeline.add(2 * t + (cursor[th] % 2));
      cursor[th]++;
    }
    double[] invAt = new double[n], compAt = new double[n];
    int end = timeline.size();
    for (int i = 0; i < timeline.size(); i++) {
      int e = timeline.get(i);
      if (e % 2 == 0) invAt[e / 2] = i;
      else compAt[e / 2] = i;
    }
    for (int t = 0; t < n; t++) if (neverCompletes[t]) compAt[t] = end + 3;
    // Processes: a thread continues under a fresh process after :info, usually.
    boolean renameAfterInfo = r.nextInt(100) < 75;
    Object[] process = new Object[n];
    int freshProc = nThreads;
    for (int th = 0; th < nThreads; th++) {
      long p = th;
      for (int t : perThread.get(th)) {
        process[t] = p;
        if (status[t] == INFO && renameAfterInfo) p = freshProc++;
      }
    }

    // ---- committed set and execution
    boolean[] committed = new boolean[n];
    for (int t = 0; t < n; t++) committed[t] = status[t] == OK || (status[t] == INFO && r.nextBoolean());
    int mode = r.nextInt(100);
    List<Integer> exec = new ArrayList<>(); // 2t = begin, 2t+1 = commit
    List<Integer> cs = new ArrayList<>();
    for (int t = 0; t < n; t++) if (committed[t]) cs.add(t);
    if (mode < 50) {
      boolean serial = mode >= 35;
      how.append(serial ? "honest-serial" : "honest");
      // Points inside the invoke/complete intervals (an :info may commit after its completion).
      double[][] pts = new double[n][];
      for (int t : cs) {
        double lo = completionOnly ? compAt[t] - 1 - r.nextDouble() * 3 : invAt[t];
        double hi = status[t] == INFO ? end + 3 : compAt[t];
        double a = lo + r.nextDouble() * (hi - lo), b = lo + r.nextDouble() * (hi - lo);
        if (serial) b = a;
        pts[t] = new double[] {Math.min(a, b), Math.max(a, b)};
      }
      List<double[]> evs = new ArrayList<>();
      for (int t : cs) {
        evs.add(new double[] {pts[t][0], 0, 2 * t});
        evs.add(new double[] {pts[t][1], 1, 2 * t + 1});
      }
      evs.sort((x, y) -> x[0] != y[0] ? Double.compare(x[0], y[0]) : x[1] != y[1] ? Double.compare(x[1], y[1]) : Double.compare(x[2], y[2]));
      if (serial) {
        for (double[] e : evs) if (e[1] == 0) { int t = (int) e[2] / 2; exec.add(2 * t); exec.add(2 * t + 1); }
      } else for (double[] e : evs) exec.add((int) e[2]);
    } else if (mode < 62) {
      how.append("random-serial");
      List<Integer> perm = new ArrayList<>(cs);
      java.util.Collections.shuffle(perm, r);
      for (int t : perm) { exec.add(2 * t); exec.add(2 * t + 1); }
    } else {
      // Random interleaving; "concurrent" prefers begins, so that many txns overlap.
      boolean concurrent = mode >= 72;
      how.append(concurrent ? "concurrent" : "random-interleaving");
      List<Integer> avail = new ArrayList<>();
      for (int t : cs) avail.add(2 * t);
      while (!avail.isEmpty()) {
        int pick = r.nextInt(avail.size());
        if (concurrent && r.nextInt(100) < 80) {
          for (int i = 0; i < avail.size(); i++) if (avail.get(i) % 2 == 0) { pick = i; break; }
        }
        int e = avail.remove(pick);
        exec.add(e);
        if (e % 2 == 0) avail.add(e + 1);
      }
    }
    // First-committer-wins: a txn whose appends clash with a txn that committed while it was open
    // either aborts (:fail, or an uncommitted :info) or retries: it begins again at that point
    // and commits later.
    if (r.nextInt(100) < 45) {
      int abortPct = r.nextBoolean() ? 100 : 25;
      how.append(abortPct == 100 ? "+fcw-abort" : "+fcw-retry");
      java.util.LinkedList<Integer> rest = new java.util.LinkedList<>(exec);
      List<Integer> out = new ArrayList<>();
      List<List<Integer>> committedWhileOpen = new ArrayList<>();
      for (int t = 0; t < n; t++) committedWhileOpen.add(new ArrayList<>());
      boolean[] open = new boolean[n];
      int[] retries = new int[n];
      while (!rest.isEmpty()) {
        int e = rest.removeFirst();
        int t = e / 2;
        if (e % 2 == 0) {
          out.add(e);
          open[t] = true;
          committedWhileOpen.get(t).clear();
          continue;
        }
        boolean clash = false;
        for (int u : committedWhileOpen.get(t)) if (sharesAppendKey(app, key, t, u)) clash = true;
        if (clash) {
          out.remove(Integer.valueOf(2 * t));
          open[t] = false;
          if (r.nextInt(100) < abortPct || retries[t]++ >= 4) {
            committed[t] = false;
            if (status[t] == OK) status[t] = FAIL;
          } else {
            out.add(2 * t);
            open[t] = true;
            committedWhileOpen.get(t).clear();
            rest.add(r.nextInt(rest.size() + 1), 2 * t + 1);
          }
          continue;
        }
        out.add(e);
        open[t] = false;
        for (int u = 0; u < n; u++) if (open[u]) committedWhileOpen.get(u).add(t);
      }
      exec = out;
    }

    // ---- reads
    // Snapshots: states after each prefix of the commit sequence.
    List<Integer> commitSeq = new ArrayList<>();
    int[] beginIdx = new int[n], commitIdx = new int[n]; // commits before B_t, C_t
    for (int e : exec) {
      int t = e / 2;
      if (e % 2 == 0) beginIdx[t] = commitSeq.size();
      else { commitIdx[t] = commitSeq.size(); commitSeq.add(t); }
    }
    int total = commitSeq.size();
    int[] devianceChoices = {0, 20, 40, 70};
    int deviance = devianceChoices[r.nextInt(devianceChoices.length)];
    how.append(" dev").append(deviance);
    Object[][] readVal = new Object[n][];
    for (int t = 0; t < n; t++) {
      readVal[t] = new Object[app[t].length];
      if (status[t] != OK) continue;
      int s = beginIdx[t], c = commitIdx[t];
      int view = r.nextInt(100) < deviance ? 1 + r.nextInt(4) : 0;
      int[] perKey = new int[nKeys];
      for (int k = 0; k < nKeys; k++) {
        switch (view) {
          case 1: perKey[k] = -1; break; // filled below (stale, same for all keys)
          case 2: perKey[k] = r.nextBoolean() ? r.nextInt(s + 1) : s + r.nextInt(c - s + 1); break; // forked
          default: perKey[k] = s;
        }
      }
      if (view == 1) Arrays.fill(perKey, s == 0 ? 0 : r.nextInt(s));
      if (view == 4) Arrays.fill(perKey, total == s ? s : s + 1 + r.nextInt(total - s));
      int[] ownCount = new int[nKeys];
      List<List<Long>> own = new ArrayList<>();
      for (int k = 0; k < nKeys; k++) own.add(new ArrayList<>());
      for (int i = 0; i < app[t].length; i++) {
        int k = key[t][i];
        if (app[t][i]) { own.get(k).add((long) val[t][i]); ownCount[k]++; continue; }
        int at = view == 3 ? s + r.nextInt(c - s + 1) : perKey[k];
        List<Long> l = new ArrayList<>();
        for (int j = 0; j < at; j++) {
          int u = commitSeq.get(j);
          if (u == t) continue;
          for (int q = 0; q < app[u].length; q++) if (app[u][q] && key[u][q] == k) l.add((long) val[u][q]);
        }
        l.addAll(own.get(k));
        readVal[t][i] = l;
      }
    }
    // ---- corruption
    if (r.nextInt(100) < 12) {
      List<int[]> reads = new ArrayList<>();
      for (int t = 0; t < n; t++) for (int i = 0; i < app[t].length; i++) if (status[t] == OK && !app[t][i]) reads.add(new int[] {t, i});
      if (!reads.isEmpty()) {
        int[] ti = reads.get(r.nextInt(reads.size()));
        @SuppressWarnings("unchecked")
        List<Long> l = new ArrayList<>((List<Long>) readVal[ti[0]][ti[1]]);
        int k = key[ti[0]][ti[1]];
        int c = r.nextInt(7);
        how.append(" corrupt").append(c);
        switch (c) {
          case 0: if (!l.isEmpty()) l.remove(l.size() - 1); break;
          case 1: if (!l.isEmpty()) l.remove(r.nextInt(l.size())); break;
          case 2: if (l.size() >= 2) { int a = r.nextInt(l.size() - 1); Long x = l.get(a); l.set(a, l.get(a + 1)); l.set(a + 1, x); } break;
          case 3: if (!l.isEmpty()) l.add(l.get(r.nextInt(l.size()))); break;
          case 4: {
            // A value appended to this key by an uncommitted txn, else one nobody appended.
            long v = 1000;
            for (int u = 0; u < n; u++) if (!committed[u]) for (int q = 0; q < app[u].length; q++) if (app[u][q] && key[u][q] == k) v = val[u][q];
            l.add(r.nextInt(l.size() + 1), v);
            break;
          }
          case 5: {
            // Reverse two appends of one writer (its program order) inside the read.
            int[] owner = new int[l.size()];
            for (int j = 0; j < l.size(); j++) {
              owner[j] = -1;
              for (int u = 0; u < n; u++) for (int q = 0; q < app[u].length; q++) if (app[u][q] && key[u][q] == k && val[u][q] == l.get(j)) owner[j] = u;
            }
            List<int[]> pairs = new ArrayList<>();
            for (int a = 0; a < l.size(); a++) for (int b = a + 1; b < l.size(); b++) if (owner[a] >= 0 && owner[a] == owner[b]) pairs.add(new int[] {a, b});
            if (!pairs.isEmpty()) {
              int[] ab = pairs.get(r.nextInt(pairs.size()));
              Long x = l.get(ab[0]);
              l.set(ab[0], l.get(ab[1]));
              l.set(ab[1], x);
            }
            break;
          }
          default: l.clear();
        }
        readVal[ti[0]][ti[1]] = l;
      }
    }

    // ---- ops
    // Some histories lose a few invocations (completions only for those txns).
    boolean[] dropInv = new boolean[n];
    boolean someDropped = !completionOnly && r.nextInt(100) < 6;
    for (int t = 0; t < n; t++) dropInv[t] = completionOnly || (someDropped && !neverCompletes[t] && r.nextInt(100) < 40);
    if (someDropped) how.append(" some-invocations-dropped");
    List<Object> ops = new ArrayList<>();
    long index = 0;
    for (int e : timeline) {
      int t = e / 2;
      boolean inv = e % 2 == 0;
      if (inv && dropInv[t]) continue;
      Keyword type = inv ? Jepsen.INVOKE : status[t] == OK ? Jepsen.OK_K : status[t] == FAIL ? Jepsen.FAIL_K : Jepsen.INFO_K;
      List<Object> mops = new ArrayList<>();
      for (int i = 0; i < app[t].length; i++) {
        Object v;
        if (app[t][i]) v = (long) val[t][i];
        else if (!inv && status[t] == OK) {
          @SuppressWarnings("unchecked")
          List<Long> l = (List<Long>) readVal[t][i];
          v = l.isEmpty() && r.nextBoolean() ? null : PersistentVector.create(l);
        } else v = null;
        mops.add(PersistentVector.create(app[t][i] ? Jepsen.APPEND : Jepsen.R, (long) key[t][i], v));
      }
      ops.add(Jepsen.op(index++, type, process[t], mops));
    }
    if (completionOnly) how.append(" completion-only");
    return new Gen(PersistentVector.create(ops), how.toString());
  }

  private static boolean sharesAppendKey(boolean[][] app, int[][] key, int t, int u) {
    for (int i = 0; i < app[t].length; i++) {
      if (!app[t][i]) continue;
      for (int j = 0; j < app[u].length; j++) if (app[u][j] && key[u][j] == key[t][i]) return true;
    }
    return false;
  }
}
