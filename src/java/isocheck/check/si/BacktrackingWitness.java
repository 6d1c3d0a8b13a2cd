package isocheck.check.si;

import isocheck.history.History;
import isocheck.order.RegisterAnalysis;
import isocheck.util.LongHeap;
import java.util.Arrays;

/**
 * A serial order of an rw-register history's committed transactions that extends session order
 * and reads-from and has every read see the last write before it (Papadimitriou's serial
 * schedules; PolySI, PVLDB'23, §2), found by a greedy pass that can undo its version-order
 * choices: conflict-directed backjumping with nogood recording (Prosser, "Hybrid algorithms for
 * the constraint satisfaction problem", Computational Intelligence 9(3), 1993, §4; Dechter,
 * "Enhancement schemes for constraint processing", Artificial Intelligence 41(3), 1990, §3), by
 * {@link ConflictDirectedBackjumping} over transactions.
 * Called where {@link SerialWitness}'s greedy passes stall on a file with no invocations, and
 * before them on a file listed session by session (dbcop, Cobra, Plume text: no time to go by):
 * that pass fixes each writer's place in its key's version order for good when it places it, and
 * there one writer placed a step early leaves a reader waiting for ever (issue 29).
 *
 * <p>The pass: each session's next transaction (its head) is placed when every read names the
 * current version of its key and, for each key it writes, every other reader of the current
 * version is placed (a writer waits for the readers of the version it overwrites, so no read is
 * ever left naming an overwritten version); read-only heads first (placing one never rules a
 * serial order out), then the others by their depth over session order, reads-from
 * ({@link ForcedWriters}) and each key's writers by the integers they wrote ({@link #valueRanks}). A writer t of key x also waits for every writer w of x that session order
 * and reads-from put before some reader of t's version (w before that reader, so before t, in
 * every serial order: the pruning rule of PolySI, PVLDB'23, §4.2, one round, on the known edges
 * alone), found once from vector clocks ({@link ForcedWriters}); and, softly, for the writer of
 * the key's next smaller integer ({@link #valuePredecessors}: Jepsen's, dbcop's and Cobra's
 * clients count each key's values up, so a store that committed a key's writers about when they
 * were invoked has about that version order). A soft wait is given up when nothing else can be
 * placed and the heads' waits, followed from a head, reach a soft wait rather than close a
 * cycle of hard waits (which is undone first, below): it chooses, it never rules out.
 * The state (placements, each key's current version, the readers left of each version) is kept
 * with an undo log. When no head can be placed, the heads wait for each other in a cycle: a head
 * waits for the writer of a version it reads, for its session's earlier transactions (through
 * their session's head), or, as a writer, for the readers of the version it would overwrite. The
 * last of these is a choice: the current version's writer D was placed before this writer w. The
 * pass follows each head's wait until a head repeats, takes the cycle's choices (and the reasons
 * of the nogoods on it), undoes every placement from that of the choice placed last on, and
 * records the nogood "D waits until one of the writers it was placed before on the cycle is
 * placed", implied by the cycle's other choices and dropped when an undo takes one of them back
 * (nogoods by level: an undo drops them in time linear in what it undoes). A nogood left with
 * other writers to wait for when a cycle goes through one of them is narrowed to those (unit
 * propagation), with nothing undone.
 *
 * <p>The order the pass ends with is a candidate only: {@link SerialWitness} checks it edge by
 * edge, as it checks its own, so a witness is never claimed wrongly. The pass gives up (the
 * search decides, as without it) when a cycle has no version edge to undo, or after a budget of
 * placements and undos proportional to the history (-Disocheck.witness.backtrack-budget, per
 * transaction; default {@link #BUDGET}). -Disocheck.witness.debug=true prints its cycles and
 * timings; -Disocheck.witness.clocks=0 and -Disocheck.witness.values=false turn the forced and the
 * soft waits off (tests and benches compare).
 */
final class BacktrackingWitness extends ConflictDirectedBackjumping {
  private long blockerCalls;

  // The state (besides the base's): per session, the place in ssTxn of its head.
  private final int[] next;

  BacktrackingWitness(History h, RegisterAnalysis ra, boolean[] committed, int[] version, java.util.function.BooleanSupplier cancelled) {
    super("backtracking", 0, h, ra, committed, version, cancelled);
    long t0 = DEBUG ? cpu() : 0;
    // The values' order beside the forced writers (from ForcedWriters.PARALLEL writes on), on a
    // core of the common pool if there is one free (it needs only the writes; it took 8-12 ms of CPU beside ForcedWriters' 50-90 on
    // the serializable store's session-ordered 10^5 history); here, if none has started it by
    // the time it is needed.
    boolean vals = values();
    java.util.concurrent.atomic.AtomicBoolean claimed = new java.util.concurrent.atomic.AtomicBoolean(!vals);
    java.util.concurrent.CompletableFuture<int[]> vp = new java.util.concurrent.CompletableFuture<>();
    if (vals && isocheck.util.Ranges.cores() > 1 && wrKey.length >= ForcedWriters.PARALLEL) {
      java.util.concurrent.ForkJoinPool.commonPool().execute(() -> {
        if (!claimed.compareAndSet(false, true)) return;
        try {
          vp.complete(valuePredecessors());
        } catch (Throwable e) {
          vp.completeExceptionally(e);
        }
      });
    }
    forced = new ForcedWriters(h, total, rdStart, rdV, wrStart, wrKey, wrMop, vrStart, vrTxn, ssStart, ssTxn, sessionOf, posInSession);
    // Writers by depth (ForcedWriters), or by place in the session where the edges have a cycle.
    if (forced.depth != null) for (int t = 0; t < n; t++) if (committed[t] && rank[t] != 0) rank[t] = 1 + forced.depth[t];
    forcedStart = forced.start;
    forcedW = forced.writer;
    if (DEBUG) System.err.println("backtracking: forced writers " + (cpu() - t0) / 1000000 + " ms, " + (forcedW == null ? 0 : forcedW.length)
        + " (slots " + forced.slots + ", occupancies " + forced.occupancies + ", evictions " + forced.evictions + ")");
    next = Arrays.copyOf(ssStart, ssStart.length - 1);
    parkedSoft = new boolean[n];
    vpTxn = !vals ? null : claimed.compareAndSet(false, true) ? valuePredecessors() : vp.join();
    if (vpTxn != null && forced.order != null && !"false".equals(System.getProperty("isocheck.witness.value-ranks"))) valueRanks(forced.order);
    walkFirst = !"false".equals(System.getProperty("isocheck.witness.walk-first"));
  }

  /**
   * The ranks again: depths over session order, reads-from and each key's writers by the
   * integers they wrote (a writer 1 after the writer of its key's next smaller integer), in the
   * sweep's order (ForcedWriters#order), a writer of the next smaller integer not yet reached
   * taken at its depth without these edges. Without them, the first transaction of a session
   * that began late (Jepsen gives a process a new id after an indeterminate operation) that read
   * nothing written had depth 0, as early as the history's first; as {@link BacktrackingSchedule}'s
   * ranks.
   */
  private void valueRanks(int[] order) {
    long[] d = new long[n], before = forced.depth;
    boolean[] reached = new boolean[n];
    for (int t : order) {
      int g = posInSession[t];
      long best = g > ssStart[sessionOf[t]] ? d[ssTxn[g - 1]] + 8 : 0;
      for (int i = rdStart[t]; i < rdStart[t + 1]; i++) if (rdV[i] < mops) best = Math.max(best, d[h.mopTxn(rdV[i])] + 1);
      for (int i = wrStart[t]; i < wrStart[t + 1]; i++) {
        int p = vpTxn[i];
        if (p >= 0 && p != t) best = Math.max(best, (reached[p] ? d[p] : before[p]) + 1);
      }
      d[t] = best;
      reached[t] = true;
    }
    for (int t : order) if (rank[t] != 0) rank[t] = 1 + d[t];
  }

  /**
   * Whether, when no head is ready, the heads' waits are followed before a soft wait is given
   * up, so that a cycle of hard waits alone (a version chosen wrongly) is undone first
   * (-Disocheck.witness.walk-first=false: not, as before; read at each construction).
   */
  private final boolean walkFirst;
  /** How often that walk stopped at a soft wait (one was then given up). */
  long softStops;

  @Override
  boolean stopAt(int e) { return walking && parkKey[e] >= 0 && parkedSoft[e]; }

  /** Session order and reads-from: depths (the ranks), and each writer's forced writers. */
  final ForcedWriters forced;
  /** Per committed transaction t, the writers it waits for (ForcedWriters), from forcedStart[t]; null for none. */
  private final int[] forcedStart, forcedW;

  /** Whether writers wait, softly, for the writer of their key's next smaller integer (-Disocheck.witness.values=false: not). */
  static boolean values() { return !"false".equals(System.getProperty("isocheck.witness.values")); }
  /** Per write (as wrKey), the transaction that wrote its key's next smaller integer, -1 for none; null when a value is not an integer. */
  private final int[] vpTxn;
  /** Per parked head, whether it waits softly (for vpTxn) and is in {@link #held}. */
  private final boolean[] parkedSoft;
  /** The heads parked by a soft wait, by rank (stale entries skipped). */
  private final LongHeap held = new LongHeap(64);
  /** Whether the last {@link #softBlocker} found a wait. */
  private boolean soft;

  /**
   * Per write, the writer of its key's next smaller integer: null when some value written is not
   * an integer that fits an int.
   */
  private int[] valuePredecessors() {
    int nw = wrKey.length;
    int[] kc = new int[nKeys + 1];
    for (int i = 0; i < nw; i++) kc[wrKey[i] + 1]++;
    for (int x = 0; x < nKeys; x++) kc[x + 1] += kc[x];
    int[] fill = Arrays.copyOf(kc, nKeys);
    long[] packed = new long[nw];
    for (int i = 0; i < nw; i++) {
      int val = h.mopVal(wrMop[i]);
      if (!h.valueIsInteger(val)) return null;
      long x = h.valueAsLong(val);
      if (x < Integer.MIN_VALUE || x > Integer.MAX_VALUE) return null;
      packed[fill[wrKey[i]]++] = x << 32 | i;
    }
    int[] vp = new int[nw];
    Arrays.fill(vp, -1);
    for (int x = 0; x < nKeys; x++) {
      Arrays.sort(packed, kc[x], kc[x + 1]);
      for (int j = kc[x] + 1; j < kc[x + 1]; j++) vp[(int) packed[j]] = h.mopTxn(wrMop[(int) packed[j - 1]]);
    }
    return vp;
  }

  /** The unplaced writer of the next smaller integer of a key t writes (a soft wait), or MIN_VALUE. */
  private int softBlocker(int t) {
    for (int i = wrStart[t]; i < wrStart[t + 1]; i++) {
      int p = vpTxn[i];
      if (p >= 0 && p != t && !placed[p]) {
        soft = true;
        return p;
      }
    }
    return Integer.MIN_VALUE;
  }

  /** No head is ready: places the head of least rank held by a soft wait alone, if any. */
  private boolean releaseHeld() {
    while (held.size() > 0) {
      int t = (int) held.pop();
      if (placed[t] || parkKey[t] < 0 || !parkedSoft[t] || ssTxn[next[sessionOf[t]]] != t) continue;
      unpark(t);
      steps++;
      int w = blocker(t);
      if (w == Integer.MIN_VALUE) {
        place(t);
        return true;
      }
      if (w != DEAD) park(t, w);
    }
    return false;
  }

  /** The serial order found (committed transactions), or null when the pass gave up. */
  int[] run() {
    long t0 = DEBUG ? cpu() : 0;
    int[] r = run0();
    if (DEBUG) System.err.println("backtracking: " + (cpu() - t0) / 1000000 + " ms, steps " + steps + " blocker " + blockerCalls + " walk " + walkSteps + " gave up " + gaveUp
        + "; pops: stale " + dStale + " placed " + dPlace + " parked on nogood " + dNg + " version " + dVer + " forced " + dForced + " txn " + dTxn + "; placements " + placedCount + ", soft waits given up after a walk " + softStops);
    return r;
  }

  private int[] run0() {
    long budget = budget();
    restart();
    while (placedCount < total) {
      if (heap.size() == 0) {
        if (walkFirst && held.size() > 0) {
          // The waits followed first: a cycle of hard waits is a version chosen wrongly, undone
          // now. Giving up a soft wait first placed a late session's first transaction early:
          // at 10^6 (the serializable store's session-ordered history) its version was undone
          // only when a cycle came back to it hundreds of thousands of placements on, 59,007
          // backtracks in all, and the pass ran out of budget; so, 20,792 and 3 million steps.
          int r = walk();
          if (r > 0) continue;
          if (r < 0) return null;
          softStops++;
        }
        if (releaseHeld()) continue;
        if (!backtrack()) return null;
        continue;
      }
      if ((++steps > budget && outOfBudget(budget)) || ((steps & 4095) == 0 && cancelled.getAsBoolean())) {
        gaveUp = "budget";
        return null;
      }
      int t = (int) heap.pop();
      inHeap[t] = false;
      if (placed[t] || ssTxn[next[sessionOf[t]]] != t) {
        if (DEBUG) dStale++;
        continue;
      }
      soft = false;
      int w = blocker(t);
      if (DEBUG) { if (w == Integer.MIN_VALUE) dPlace++; else if (parkedNg[t] >= 0) dNg++; else if (w < 0) dVer++; else if (lastForced) dForced++; else dTxn++; }
      if (w == Integer.MIN_VALUE && vpTxn != null) w = softBlocker(t);
      if (w == Integer.MIN_VALUE) place(t);
      else if (w == DEAD) {
        gaveUp = "cycle";
        return null;
      } else {
        park(t, w);
        if (soft) {
          parkedSoft[t] = true;
          held.push(rank[t] << 32 | t);
        }
      }
    }
    return order;
  }


  /** Every session's head into the heap. */
  private void restart() {
    heap.clear();
    held.clear();
    for (int s = 0; s + 1 < ssStart.length; s++) if (next[s] < ssStart[s + 1]) push(ssTxn[next[s]]);
  }

  @Override
  int head(int s) { return next[s] < ssStart[s + 1] ? ssTxn[next[s]] : -1; }

  /**
   * What head t waits for: a transaction b (≥ 0), a version v (-v - 1), MIN_VALUE for nothing,
   * DEAD when a read names a version already overwritten (cannot happen while writers wait for
   * their readers; a guard).
   */
  private long dStale, dPlace, dNg, dVer, dForced, dTxn;
  private boolean lastForced;

  @Override
  int blocker(int t) {
    if (DEBUG) { blockerCalls++; lastForced = false; }
    int ng = nogoodWait(t);
    if (ng != Integer.MIN_VALUE) return ng;
    for (int i = rdStart[t]; i < rdStart[t + 1]; i++) {
      int v = rdV[i];
      if (latest[rdKey[i]] == v) continue;
      if (v >= mops) return DEAD;
      int wt = h.mopTxn(v);
      if (placed[wt]) return DEAD;
      return wt;
    }
    for (int i = wrStart[t]; i < wrStart[t + 1]; i++) {
      int lv = latest[wrKey[i]], c = left[lv];
      if (c == 0) continue;
      for (int j = rdStart[t]; j < rdStart[t + 1]; j++) if (rdV[j] == lv) c--;
      if (c > 0) return -lv - 1;
    }
    if (forcedW != null) for (int i = forcedStart[t]; i < forcedStart[t + 1]; i++) if (!placed[forcedW[i]]) {
      if (DEBUG) lastForced = true;
      return forcedW[i];
    }
    return Integer.MIN_VALUE;
  }

  @Override
  void park(int t, int w) {
    super.park(t, w);
    parkedSoft[t] = false;
  }

  private void place(int t) {
    placed[t] = true;
    posOf[t] = placedCount;
    order[placedCount++] = t;
    if (placedCount > highWater) highWater = placedCount;
    for (int i = rdStart[t]; i < rdStart[t + 1]; i++) if (--left[rdV[i]] <= 1) wakeVer(rdV[i]);
    for (int i = wrStart[t]; i < wrStart[t + 1]; i++) {
      replaced[replacedTop++] = latest[wrKey[i]];
      latest[wrKey[i]] = wrMop[i];
    }
    int s = sessionOf[t];
    next[s]++;
    if (next[s] < ssStart[s + 1]) push(ssTxn[next[s]]);
    wake(t);
  }

  /**
   * Takes back t's placement. The heads parked on t stay parked (it is unplaced again), but for
   * those parked on a version t wrote (the current version of its key went back: they are tried
   * again).
   */
  @Override
  void unplace(int t) {
    int s = sessionOf[t];
    if (next[s] < ssStart[s + 1]) {
      int head = ssTxn[next[s]];
      if (parkKey[head] >= 0) unpark(head); // no longer a head
    }
    next[s]--;
    placed[t] = false;
    for (int i = wrStart[t + 1] - 1; i >= wrStart[t]; i--) {
      latest[wrKey[i]] = replaced[--replacedTop];
      if (listHead[n + wrMop[i]] >= 0) wake(n + wrMop[i]);
    }
    for (int i = rdStart[t]; i < rdStart[t + 1]; i++) left[rdV[i]]++;
  }
}
