package isocheck.check.si;

import isocheck.history.History;
import isocheck.history.OpRecord;
import isocheck.order.RegisterAnalysis;
import isocheck.util.LongHeap;
import java.util.Arrays;

/**
 * A serial order of an rw-register history's committed transactions that extends session order
 * and reads-from and has every read see the last write before it (Papadimitriou's serial
 * schedules; PolySI, PVLDB'23, §2), found by a greedy pass that can undo its version-order
 * choices: conflict-directed backjumping with nogood recording (Prosser, "Hybrid algorithms for
 * the constraint satisfaction problem", Computational Intelligence 9(3), 1993, §4; Dechter,
 * "Enhancement schemes for constraint processing", Artificial Intelligence 41(3), 1990, §3).
 * Called where {@link SerialWitness}'s greedy passes stall on a file with no invocations, and
 * before them on a file listed session by session (dbcop, Cobra, Plume text: no time to go by):
 * that pass fixes each writer's place in its key's version order for good when it places it, and
 * there one writer placed a step early leaves a reader waiting for ever (issue 29).
 *
 * <p>The pass: each session's next transaction (its head) is placed when every read names the
 * current version of its key and, for each key it writes, every other reader of the current
 * version is placed (a writer waits for the readers of the version it overwrites, so no read is
 * ever left naming an overwritten version); read-only heads first (placing one never rules a
 * serial order out), then the others by their depth over session order and reads-from
 * ({@link ForcedWriters}). A writer t of key x also waits for every writer w of x that session order
 * and reads-from put before some reader of t's version (w before that reader, so before t, in
 * every serial order: the pruning rule of PolySI, PVLDB'23, §4.2, one round, on the known edges
 * alone), found once from vector clocks ({@link ForcedWriters}); and, softly, for the writer of
 * the key's next smaller integer ({@link #valuePredecessors}: Jepsen's, dbcop's and Cobra's
 * clients count each key's values up, so a store that committed a key's writers about when they
 * were invoked has about that version order). A soft wait is given up when nothing else can be
 * placed: it chooses, it never rules out.
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
final class BacktrackingWitness {
  /** Placements and undos allowed, per committed transaction. */
  static final int BUDGET = 20;
  private static final boolean DEBUG = Boolean.getBoolean("isocheck.witness.debug");
  private long blockerCalls, walkSteps;

  private final History h;
  private final int n, mops, nKeys;
  /** Per committed :ok transaction t, its reads that name a version: rdV (a final write mop, or mops + key for ⊥), rdKey; from rdStart[t]. */
  private final int[] rdStart, rdV, rdKey;
  /** Per committed transaction t, its final writes: wrKey, wrMop; from wrStart[t]. */
  private final int[] wrStart, wrKey, wrMop;
  /** Per version (as rdV), its readers (transactions), from vrStart[v]. */
  private final int[] vrStart, vrTxn;
  /** Per session, its committed transactions in order, from ssStart[s]; per transaction its session (-1: not committed). */
  private final int[] ssStart, ssTxn, sessionOf;
  private final long[] rank;
  private final int total;

  // The state, with its undo log.
  private final boolean[] placed;
  private final int[] posOf, order, latest, left, next;
  /** Per placement (by position), the versions its writes replaced, in wrStart order: a stack. */
  private final int[] replaced;
  private int replacedTop, placedCount;

  // Nogoods, "ngBlocked[i] waits until one of its fors is placed" (nfW from ngFor[i] to
  // ngFor[i + 1]: the writers it was placed before on the cycle), each implied by its reasons: version
  // choices (D placed before the unplaced writer wD of the same key), pairs rsD/rsW from
  // ngReason[i] to ngReason[i + 1]. Alive while every reason's D stays placed (ngLevel: the
  // last reason's position + 1); per transaction a list through ngNext from ngHead.
  private boolean[] ngAlive = new boolean[16];
  private int[] ngBlocked = new int[16], ngFor = new int[17], ngLevel = new int[16], ngNext = new int[16], ngReason = new int[17];
  private int[] rsD = new int[64], rsW = new int[64];
  private int rsTop, nfTop;
  private int[] nfW = new int[64];
  private final int[] ngHead;
  private int ngTop;

  // The heads: in the heap, or parked on what they wait for, a transaction b or a version v
  // (list key b, or n + v): doubly linked lists, so that an undo can take a head out of one.
  private final LongHeap heap = new LongHeap(64);
  /** Per parked head, the nogood it waits by (-1: none). */
  private final int[] parkedNg;
  private final int[] heapEpoch, parkKey, parkNext, parkPrev, parkedOn, listHead;
  private final int epoch = 1;

  /** Statistics of the last {@link #run}: backtracks taken, and placements plus undos. */
  long backtracks, steps;
  /** Why the last {@link #run} gave up: "budget", "cycle", or null. */
  String gaveUp;
  /** Whether the answer is no longer wanted (the witness run ahead was closed): the pass then gives up soon. */
  private final java.util.function.BooleanSupplier cancelled;

  BacktrackingWitness(History h, RegisterAnalysis ra, boolean[] committed, int[] version, java.util.function.BooleanSupplier cancelled) {
    long t0 = cpu();
    this.h = h;
    this.cancelled = cancelled;
    n = h.nTxns;
    mops = h.mopCount();
    nKeys = h.keyCount();
    rdStart = new int[n + 1];
    wrStart = new int[n + 1];
    int nr = 0, nw = 0;
    for (int t = 0; t < n; t++) {
      if (!committed[t]) continue;
      boolean ok = h.isOk(t);
      for (int m = h.mopStart(t); m < h.mopEnd(t); m++) {
        if (h.mopKind(m) == OpRecord.READ) {
          if (ok && version[m] != Integer.MIN_VALUE) nr++;
        } else if (ra.isFinalWrite(m)) nw++;
      }
    }
    rdV = new int[nr];
    rdKey = new int[nr];
    wrKey = new int[nw];
    wrMop = new int[nw];
    int[] vc = new int[mops + nKeys + 1];
    sessionOf = new int[n];
    Arrays.fill(sessionOf, -1);
    int sessions = h.sessionCount(), tot = 0;
    ssStart = new int[sessions + 1];
    nr = 0;
    nw = 0;
    for (int t = 0; t < n; t++) {
      rdStart[t] = nr;
      wrStart[t] = nw;
      if (!committed[t]) continue;
      tot++;
      sessionOf[t] = h.session(t);
      ssStart[h.session(t) + 1]++;
      boolean ok = h.isOk(t);
      for (int m = h.mopStart(t); m < h.mopEnd(t); m++) {
        if (h.mopKind(m) == OpRecord.READ) {
          if (!ok || version[m] == Integer.MIN_VALUE) continue;
          int v = version[m] == Polygraph.BOT ? mops + h.mopKey(m) : ra.writerOfRead[m];
          rdV[nr] = v;
          rdKey[nr++] = h.mopKey(m);
          vc[v + 1]++;
        } else if (ra.isFinalWrite(m)) {
          wrKey[nw] = h.mopKey(m);
          wrMop[nw++] = m;
        }
      }
    }
    rdStart[n] = nr;
    wrStart[n] = nw;
    total = tot;
    for (int v = 0; v < mops + nKeys; v++) vc[v + 1] += vc[v];
    vrStart = vc;
    vrTxn = new int[nr];
    int[] fill = Arrays.copyOf(vc, mops + nKeys);
    left = new int[mops + nKeys];
    for (int t = 0; t < n; t++) {
      for (int i = rdStart[t]; i < rdStart[t + 1]; i++) {
        vrTxn[fill[rdV[i]]++] = t;
        left[rdV[i]]++;
      }
    }
    for (int s = 0; s < sessions; s++) ssStart[s + 1] += ssStart[s];
    ssTxn = new int[tot];
    int[] sf = Arrays.copyOf(ssStart, sessions);
    rank = new long[n];
    posInSession = new int[n];
    for (int t = 0; t < n; t++) {
      if (!committed[t]) continue;
      int s = h.session(t), i = sf[s]++;
      ssTxn[i] = t;
      posInSession[t] = i;
      // Read-only transactions first (placing one never rules anything out), then by depth
      // (ForcedWriters), or by place in the session where the edges have a cycle.
      boolean readOnly = wrStart[t] == wrStart[t + 1];
      rank[t] = readOnly ? 0 : 1 + i - ssStart[s];
    }
    if (DEBUG) System.err.println("backtracking: tables " + (cpu() - t0) / 1000000 + " ms");
    forced = new ForcedWriters(h, total, rdStart, rdV, wrStart, wrKey, wrMop, vrStart, vrTxn, ssStart, ssTxn, sessionOf, posInSession);
    if (forced.depth != null) for (int t = 0; t < n; t++) if (committed[t] && rank[t] != 0) rank[t] = 1 + forced.depth[t];
    forcedStart = forced.start;
    forcedW = forced.writer;
    if (DEBUG) System.err.println("backtracking: forced writers " + (cpu() - t0) / 1000000 + " ms, " + (forcedW == null ? 0 : forcedW.length)
        + " (slots " + forced.slots + ", occupancies " + forced.occupancies + ", evictions " + forced.evictions + ")");
    placed = new boolean[n];
    posOf = new int[n];
    order = new int[tot];
    latest = new int[nKeys];
    for (int x = 0; x < nKeys; x++) latest[x] = mops + x;
    next = Arrays.copyOf(ssStart, sessions);
    replaced = new int[nw];
    levelHead = new int[total + 2];
    Arrays.fill(levelHead, -1);
    ngHead = new int[n];
    Arrays.fill(ngHead, -1);
    heapEpoch = new int[n];
    parkKey = new int[n];
    Arrays.fill(parkKey, -1);
    parkNext = new int[n];
    parkPrev = new int[n];
    parkedOn = new int[n];
    listHead = new int[n + mops + nKeys];
    Arrays.fill(listHead, -1);
    if (DEBUG) System.err.println("backtracking: set up " + (cpu() - t0) / 1000000 + " ms");
    parkedNg = new int[n];
    parkedSoft = new boolean[n];
    vpTxn = values() ? valuePredecessors() : null;
    if (DEBUG) System.err.println("backtracking: values' order " + (cpu() - t0) / 1000000 + " ms");
  }

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
      Object v = h.value(h.mopVal(wrMop[i]));
      long x;
      if (v instanceof Long) x = (Long) v;
      else if (v instanceof Integer) x = (Integer) v;
      else return null;
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

  /** This thread's CPU time, ns (debug timings: the machine is shared). */
  static long cpu() { return java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime(); }

  /** The serial order found (committed transactions), or null when the pass gave up. */
  int[] run() {
    long t0 = cpu();
    int[] r = run0();
    if (DEBUG) System.err.println("backtracking: " + (cpu() - t0) / 1000000 + " ms, steps " + steps + " blocker " + blockerCalls + " walk " + walkSteps + " gave up " + gaveUp
        + "; pops: stale " + dStale + " placed " + dPlace + " parked on nogood " + dNg + " version " + dVer + " forced " + dForced + " txn " + dTxn + "; placements " + placedCount);
    return r;
  }

  private int[] run0() {
    String b = System.getProperty("isocheck.witness.backtrack-budget");
    long budget = (long) (b != null ? Integer.parseInt(b) : BUDGET) * Math.max(total, 16);
    backtracks = 0;
    steps = 0;
    gaveUp = null;
    restart();
    while (placedCount < total) {
      if (heap.size() == 0) {
        if (releaseHeld()) continue;
        if (!backtrack()) return null;
        continue;
      }
      if (++steps > budget || ((steps & 4095) == 0 && cancelled.getAsBoolean())) {
        gaveUp = "budget";
        return null;
      }
      int t = (int) heap.pop();
      heapEpoch[t] = 0;
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

  private static final int DEAD = Integer.MIN_VALUE + 1;

  /** Every session's head into the heap. */
  private void restart() {
    heap.clear();
    held.clear();
    for (int s = 0; s + 1 < ssStart.length; s++) if (next[s] < ssStart[s + 1]) push(ssTxn[next[s]]);
  }

  private void push(int t) {
    if (heapEpoch[t] == epoch) return;
    heapEpoch[t] = epoch;
    heap.push(rank[t] << 32 | t);
  }

  /**
   * What head t waits for: a transaction b (≥ 0), a version v (-v - 1), MIN_VALUE for nothing,
   * DEAD when a read names a version already overwritten (cannot happen while writers wait for
   * their readers; a guard).
   */
  private long dStale, dPlace, dNg, dVer, dForced, dTxn, dSoftRel;
  private boolean lastForced;

  private int blocker(int t) {
    if (DEBUG) { blockerCalls++; lastForced = false; }
    parkedNg[t] = -1;
    for (int i = ngHead[t]; i >= 0; i = ngNext[i]) {
      if (!ngAlive[i]) continue;
      boolean any = false;
      for (int j = ngFor[i]; j < ngFor[i + 1] && !any; j++) any = placed[nfW[j]];
      if (!any) {
        parkedNg[t] = i;
        return nfW[ngFor[i]];
      }
    }
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

  /** Per committed transaction, its place in ssTxn. */
  private int[] posInSession;

  private void park(int t, int w) {
    parkedOn[t] = w;
    parkedSoft[t] = false;
    int k = w >= 0 ? w : n + (-w - 1);
    parkKey[t] = k;
    parkPrev[t] = -1;
    parkNext[t] = listHead[k];
    if (listHead[k] >= 0) parkPrev[listHead[k]] = t;
    listHead[k] = t;
  }

  /** Takes parked t out of its list. */
  private void unpark(int t) {
    int k = parkKey[t];
    if (parkPrev[t] >= 0) parkNext[parkPrev[t]] = parkNext[t];
    else listHead[k] = parkNext[t];
    if (parkNext[t] >= 0) parkPrev[parkNext[t]] = parkPrev[t];
    parkKey[t] = -1;

  }

  /** Every head parked on list k back into the heap. */
  private void wake(int k) {
    for (int t = listHead[k]; t >= 0; t = parkNext[t]) {
      parkKey[t] = -1;

      push(t);
    }
    listHead[k] = -1;
  }

  private void wakeTxn(int b) { wake(b); }

  private void wakeVer(int v) { if (listHead[n + v] >= 0) wake(n + v); }

  private void place(int t) {
    placed[t] = true;
    posOf[t] = placedCount;
    order[placedCount++] = t;
    for (int i = rdStart[t]; i < rdStart[t + 1]; i++) if (--left[rdV[i]] <= 1) wakeVer(rdV[i]);
    for (int i = wrStart[t]; i < wrStart[t + 1]; i++) {
      replaced[replacedTop++] = latest[wrKey[i]];
      latest[wrKey[i]] = wrMop[i];
    }
    int s = sessionOf[t];
    next[s]++;
    if (next[s] < ssStart[s + 1]) push(ssTxn[next[s]]);
    wakeTxn(t);
  }

  /**
   * Undoes the placements from position p on, and drops the nogoods that needed them. The heads
   * parked on what is undone stay parked (it is unplaced again), but for those parked on a
   * version an undone transaction wrote (the current version of its key went back: they are
   * tried again) and those parked by a dropped nogood; the undone transactions are tried again
   * (those that are heads).
   */
  private void undoTo(int p) {
    while (placedCount > p) {
      int t = order[--placedCount];
      steps++;
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
      push(t);
    }
    // (Alive nogoods have their level at most the placements before the undo: the lists of the
    // levels above p, walked once.)
    for (int l = p + 1; l <= maxLevel; l++) {
      for (int i = levelHead[l]; i >= 0; i = levelNext[i]) {
        ngAlive[i] = false;
        int b = ngBlocked[i];
        if (parkKey[b] >= 0 && parkedNg[b] == i) {
          unpark(b);
          push(b);
        }
      }
      levelHead[l] = -1;
    }
    maxLevel = Math.min(maxLevel, p);
  }

  /** Per level, its nogoods (through levelNext); the highest level with nogoods, or lower. */
  private final int[] levelHead;
  private int[] levelNext = new int[16];
  private int maxLevel;

  /** Per head, the step of the current cycle search it was reached at (stamped by search). */
  private int[] seen;
  private int[] seenStep;
  private int search;

  /**
   * The heads wait for each other in a cycle: undoes the last version choice on it, records the
   * nogood, and starts again. False when the cycle has no version edge (the pass gives up).
   */
  private boolean backtrack() {
    if (seen == null) {
      seen = new int[n];
      seenStep = new int[n];
    }
    search++;
    // A parked head to start from: any session's head.
    int t = -1;
    for (int s = 0; s + 1 < ssStart.length && t < 0; s++) if (next[s] < ssStart[s + 1]) t = ssTxn[next[s]];
    isocheck.util.IntList path = new isocheck.util.IntList(16);
    while (seen[t] != search) {
      if (DEBUG) walkSteps++;
      seen[t] = search;
      seenStep[t] = path.size();
      path.add(t);
      if (parkKey[t] >= 0 && parkedNg[t] >= 0 && blocker(t) != parkedOn[t]) {
        // Parked by a nogood another of whose writers is placed since: tried again.
        unpark(t);
        push(t);
        return true;
      }
      int u = successor(t);
      if (u < 0) {
        if (DEBUG) System.err.println("no successor of " + t + " parked " + (parkKey[t] >= 0) + " on " + parkedOn[t] + " placed " + placedCount);
        gaveUp = "cycle";
        return false;
      }
      t = u;
    }
    // The cycle: path from seenStep[t] on. Its choices: each version edge (a head w waits for
    // the readers of the current version, whose writer D was placed first), and each nogood
    // edge's reasons. The one placed last is undone, and its opposite recorded, implied by the
    // others.
    conflict.clear();
    for (int i = seenStep[t]; i < path.size(); i++) {
      int w = path.get(i);
      if (parkedOn[w] < 0) {
        int v = -parkedOn[w] - 1;
        if (v < mops) { // (⊥ comes first in every order: no choice)
          conflict.add(h.mopTxn(v));
          conflict.add(w);
        }
      } else if (parkedNg[w] >= 0) {
        int g = parkedNg[w];
        for (int j = ngReason[g]; j < ngReason[g + 1]; j++) {
          conflict.add(rsD[j]);
          conflict.add(rsW[j]);
        }
      }
    }
    // A head parked by a nogood with writers left to wait for besides the one on the cycle: the
    // cycle shows it cannot wait for that one (given the cycle's choices), so it waits for the
    // others (unit propagation), by a nogood implied by those choices; nothing is undone.
    for (int i = seenStep[t]; i < path.size(); i++) {
      int w = path.get(i), g = parkedNg[w];
      if (parkedOn[w] < 0 || g < 0 || ngFor[g + 1] - ngFor[g] < 2) continue;
      fors.clear();
      for (int j = ngFor[g]; j < ngFor[g + 1]; j++) if (nfW[j] != parkedOn[w]) fors.add(nfW[j]);
      steps++;
      addNogood(w, -1);
      unpark(w);
      push(w);
      return true;
    }
    int best = -1;
    for (int i = 0; i < conflict.size(); i += 2) {
      int d = conflict.get(i);
      if (best < 0 || posOf[d] > posOf[best]) best = d;
    }
    if (DEBUG && best < 0) System.err.println("gave up: a cycle without choices, placed " + placedCount);
    if (DEBUG) System.err.println("backtrack " + backtracks + " placed " + placedCount + " cycle " + (path.size() - seenStep[t]) + " choices " + conflict.size() / 2 + " undo to " + (best < 0 ? -1 : posOf[best]) + " steps " + steps + " nogoods " + ngTop);
    if (best < 0 || !placed[best]) {
      gaveUp = "cycle";
      return false;
    }
    backtracks++;
    steps++;
    undoTo(posOf[best]);
    // Its opposite: best waits for one of the writers it was placed before on the cycle.
    fors.clear();
    for (int i = 0; i < conflict.size(); i += 2) {
      if (conflict.get(i) != best) continue;
      boolean dup = false;
      for (int j = 0; j < fors.size() && !dup; j++) dup = fors.get(j) == conflict.get(i + 1);
      if (!dup) fors.add(conflict.get(i + 1));
    }
    addNogood(best, best);
    return true;
  }

  /**
   * Records the nogood "blocked waits until one of {@link #fors} is placed", implied by the
   * choices of {@link #conflict} but those of {@code undone} (the choice it reverses).
   */
  private void addNogood(int blocked, int undone) {
    if (ngTop + 1 >= ngBlocked.length) {
      int c = 2 * ngBlocked.length;
      ngBlocked = Arrays.copyOf(ngBlocked, c);
      ngFor = Arrays.copyOf(ngFor, c + 1);
      ngLevel = Arrays.copyOf(ngLevel, c);
      ngNext = Arrays.copyOf(ngNext, c);
      ngReason = Arrays.copyOf(ngReason, c + 1);
      ngAlive = Arrays.copyOf(ngAlive, c);
      levelNext = Arrays.copyOf(levelNext, c);
    }
    int g = ngTop++, level = 0;
    ngAlive[g] = true;
    ngBlocked[g] = blocked;
    ngFor[g] = nfTop;
    for (int i = 0; i < fors.size(); i++) {
      if (nfTop == nfW.length) nfW = Arrays.copyOf(nfW, 2 * nfTop);
      nfW[nfTop++] = fors.get(i);
    }
    ngFor[g + 1] = nfTop;
    ngReason[g] = rsTop;
    for (int i = 0; i < conflict.size(); i += 2) {
      int d = conflict.get(i), w = conflict.get(i + 1);
      if (d == undone) continue;
      boolean dup = false;
      for (int j = ngReason[g]; j < rsTop && !dup; j++) dup = rsD[j] == d && rsW[j] == w;
      if (dup) continue;
      if (rsTop == rsD.length) {
        rsD = Arrays.copyOf(rsD, 2 * rsTop);
        rsW = Arrays.copyOf(rsW, 2 * rsTop);
      }
      rsD[rsTop] = d;
      rsW[rsTop++] = w;
      level = Math.max(level, posOf[d] + 1);
    }
    ngReason[g + 1] = rsTop;
    ngLevel[g] = level;
    levelNext[g] = levelHead[level];
    levelHead[level] = g;
    maxLevel = Math.max(maxLevel, level);
    ngNext[g] = ngHead[blocked];
    ngHead[blocked] = g;
  }

  private final isocheck.util.IntList fors = new isocheck.util.IntList(4);
  private final isocheck.util.IntList conflict = new isocheck.util.IntList(16);

  /**
   * The head head t waits for (t parked): the session head of what it waits for; for a
   * version, of one of its readers not placed (not t). -1 when t is not parked.
   */
  private int successor(int t) {
    if (parkKey[t] < 0) return -1;
    int w = parkedOn[t];
    int u;
    if (w >= 0) u = w;
    else {
      int v = -w - 1;
      u = -1;
      for (int i = vrStart[v]; i < vrStart[v + 1]; i++) {
        int r = vrTxn[i];
        if (r != t && !placed[r]) {
          u = r;
          break;
        }
      }
      if (u < 0) return -1;
    }
    return ssTxn[next[sessionOf[u]]];
  }
}
