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
 * Called where {@link SerialWitness}'s greedy pass stalls: that pass fixes each writer's place in
 * its key's version order for good when it places it, and on a file listed session by session
 * (dbcop, Cobra, Plume text: no time to go by) one writer placed a step early leaves a reader
 * waiting for ever (issue 29).
 *
 * <p>The pass: each session's next transaction (its head) is placed when every read names the
 * current version of its key and, for each key it writes, every other reader of the current
 * version is placed (a writer waits for the readers of the version it overwrites, so no read is
 * ever left naming an overwritten version); read-only heads first, then the others by their
 * place in their session. The state (placements, and each key's current version) is kept with an
 * undo log. When no head can be placed, the heads wait for each other in a cycle: a head
 * waits for the writer of a version it reads, for its session's earlier transactions (through
 * their session's head), or, as a writer, for the readers of the version it would overwrite. The
 * last of these is the only edge a choice made: the current version's writer W0 was placed before
 * this writer w. The pass finds a cycle (following each head's wait), takes its version edge
 * whose W0 was placed last, undoes every placement from W0's on, and records the nogood "W0
 * before w": W0 then waits until w is placed. A nogood holds only while the placements before
 * W0's stand, so it is dropped when an undo goes back past them.
 *
 * <p>The order the pass ends with is a candidate only: {@link SerialWitness} checks it edge by
 * edge, as it checks its own, so a witness is never claimed wrongly. The pass gives up (the
 * search decides, as without it) when a cycle has no version edge to undo, or after a budget of
 * placements and undos proportional to the history (-Disocheck.witness.backtrack-budget, per
 * transaction; default {@link #BUDGET}).
 */
final class BacktrackingWitness {
  /** Placements and undos allowed, per committed transaction. */
  static final int BUDGET = 20;
  private static final boolean DEBUG = Boolean.getBoolean("isocheck.witness.debug");

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

  // Nogoods, "ngBlocked[i] waits until ngFor[i] is placed", each implied by its reasons: version
  // choices (D placed before the unplaced writer wD of the same key), pairs rsD/rsW from
  // ngReason[i] to ngReason[i + 1]. Alive while every reason's D stays placed (ngLevel: the
  // last reason's position + 1); per transaction a list through ngNext from ngHead.
  private int[] ngBlocked = new int[16], ngFor = new int[16], ngLevel = new int[16], ngNext = new int[16], ngReason = new int[17];
  private int[] rsD = new int[64], rsW = new int[64];
  private int rsTop;
  private final int[] ngHead;
  private int ngTop;

  // The heads: in the heap, or parked on a transaction or a version (lists through parkNext),
  // all reset at each undo by a new epoch.
  private final LongHeap heap = new LongHeap(64);
  /** Per parked head, the nogood it waits by (-1: none). */
  private final int[] parkedNg;
  private final int[] heapEpoch, parkEpoch, parkNext, parkedOn, waitTxnHead, waitTxnEpoch, waitVerHead, waitVerEpoch;
  private int epoch = 1;

  /** Statistics of the last {@link #run}: backtracks taken, and placements plus undos. */
  long backtracks, steps;
  /** Why the last {@link #run} gave up: "budget", "cycle", or null. */
  String gaveUp;
  /** Whether the answer is no longer wanted (the witness run ahead was closed): the pass then gives up soon. */
  private final java.util.function.BooleanSupplier cancelled;

  BacktrackingWitness(History h, RegisterAnalysis ra, boolean[] committed, int[] version, java.util.function.BooleanSupplier cancelled) {
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
    for (int t = 0; t < n; t++) {
      if (!committed[t]) continue;
      int s = h.session(t), i = sf[s]++;
      ssTxn[i] = t;
      // Read-only transactions first (placing one never rules anything out), then by place in
      // the session: the sessions advance together.
      boolean readOnly = wrStart[t] == wrStart[t + 1];
      rank[t] = readOnly ? 0 : 1 + i - ssStart[s];
    }
    placed = new boolean[n];
    posOf = new int[n];
    order = new int[tot];
    latest = new int[nKeys];
    for (int x = 0; x < nKeys; x++) latest[x] = mops + x;
    next = Arrays.copyOf(ssStart, sessions);
    replaced = new int[nw];
    ngHead = new int[n];
    Arrays.fill(ngHead, -1);
    heapEpoch = new int[n];
    parkEpoch = new int[n];
    parkNext = new int[n];
    parkedOn = new int[n];
    parkedNg = new int[n];
    waitTxnHead = new int[n];
    waitTxnEpoch = new int[n];
    waitVerHead = new int[mops + nKeys];
    waitVerEpoch = new int[mops + nKeys];
  }

  /** The serial order found (committed transactions), or null when the pass gave up. */
  int[] run() {
    String b = System.getProperty("isocheck.witness.backtrack-budget");
    long budget = (long) (b != null ? Integer.parseInt(b) : BUDGET) * Math.max(total, 16);
    backtracks = 0;
    steps = 0;
    gaveUp = null;
    restart();
    while (placedCount < total) {
      if (heap.size() == 0) {
        if (!backtrack()) return null;
        continue;
      }
      if (++steps > budget || ((steps & 4095) == 0 && cancelled.getAsBoolean())) {
        gaveUp = "budget";
        return null;
      }
      int t = (int) heap.pop();
      heapEpoch[t] = 0;
      if (placed[t] || ssTxn[next[sessionOf[t]]] != t) continue;
      int w = blocker(t);
      if (w == Integer.MIN_VALUE) place(t);
      else if (w == DEAD) {
        gaveUp = "cycle";
        return null;
      } else park(t, w);
    }
    return order;
  }

  private static final int DEAD = Integer.MIN_VALUE + 1;

  /** Every session's head into the heap, anew (the parked lists forgotten). */
  private void restart() {
    epoch++;
    heap.clear();
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
  private int blocker(int t) {
    parkedNg[t] = -1;
    for (int i = ngHead[t]; i >= 0; i = ngNext[i]) {
      if (!placed[ngFor[i]]) {
        parkedNg[t] = i;
        return ngFor[i];
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
    return Integer.MIN_VALUE;
  }

  private void park(int t, int w) {
    parkEpoch[t] = epoch;
    parkedOn[t] = w;
    if (w >= 0) {
      parkNext[t] = waitTxnEpoch[w] == epoch ? waitTxnHead[w] : -1;
      waitTxnEpoch[w] = epoch;
      waitTxnHead[w] = t;
    } else {
      int v = -w - 1;
      parkNext[t] = waitVerEpoch[v] == epoch ? waitVerHead[v] : -1;
      waitVerEpoch[v] = epoch;
      waitVerHead[v] = t;
    }
  }

  private void wakeTxn(int b) {
    if (waitTxnEpoch[b] != epoch) return;
    waitTxnEpoch[b] = 0;
    for (int t = waitTxnHead[b]; t >= 0; t = parkNext[t]) {
      parkEpoch[t] = 0;
      push(t);
    }
  }

  private void wakeVer(int v) {
    if (waitVerEpoch[v] != epoch) return;
    waitVerEpoch[v] = 0;
    for (int t = waitVerHead[v]; t >= 0; t = parkNext[t]) {
      parkEpoch[t] = 0;
      push(t);
    }
  }

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

  /** Undoes the placements from position p on, and drops the nogoods that needed them. */
  private void undoTo(int p) {
    while (placedCount > p) {
      int t = order[--placedCount];
      steps++;
      placed[t] = false;
      for (int i = wrStart[t + 1] - 1; i >= wrStart[t]; i--) latest[wrKey[i]] = replaced[--replacedTop];
      for (int i = rdStart[t]; i < rdStart[t + 1]; i++) left[rdV[i]]++;
      next[sessionOf[t]]--;
    }
    // The nogoods whose reasons were undone, dropped (the others kept, in order).
    boolean drop = false;
    for (int i = 0; i < ngTop && !drop; i++) drop = ngLevel[i] > p;
    if (!drop) return;
    for (int i = 0; i < ngTop; i++) ngHead[ngBlocked[i]] = -1;
    int k = 0, r = 0;
    for (int i = 0; i < ngTop; i++) {
      if (ngLevel[i] > p) continue;
      int from = ngReason[i], to = ngReason[i + 1];
      ngBlocked[k] = ngBlocked[i];
      ngFor[k] = ngFor[i];
      ngLevel[k] = ngLevel[i];
      ngReason[k] = r;
      for (int j = from; j < to; j++, r++) {
        rsD[r] = rsD[j];
        rsW[r] = rsW[j];
      }
      ngNext[k] = ngHead[ngBlocked[k]];
      ngHead[ngBlocked[k]] = k;
      k++;
    }
    ngTop = k;
    ngReason[k] = r;
    rsTop = r;
  }

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
      seen[t] = search;
      seenStep[t] = path.size();
      path.add(t);
      int u = successor(t);
      if (u < 0) {
        if (DEBUG) System.err.println("no successor of " + t + " parked " + (parkEpoch[t] == epoch) + " on " + parkedOn[t] + " placed " + placedCount);
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
    int best = -1, bestW = -1;
    for (int i = 0; i < conflict.size(); i += 2) {
      int d = conflict.get(i);
      if (best < 0 || posOf[d] > posOf[best]) {
        best = d;
        bestW = conflict.get(i + 1);
      }
    }
    if (DEBUG) System.err.println("backtrack " + backtracks + " placed " + placedCount + " cycle " + (path.size() - seenStep[t]) + " choices " + conflict.size() / 2 + " undo to " + (best < 0 ? -1 : posOf[best]) + " steps " + steps + " nogoods " + ngTop);
    if (best < 0) {
      gaveUp = "cycle";
      return false;
    }
    backtracks++;
    int p = posOf[best];
    undoTo(p);
    if (ngTop + 1 >= ngBlocked.length) {
      int c = 2 * ngBlocked.length;
      ngBlocked = Arrays.copyOf(ngBlocked, c);
      ngFor = Arrays.copyOf(ngFor, c);
      ngLevel = Arrays.copyOf(ngLevel, c);
      ngNext = Arrays.copyOf(ngNext, c);
      ngReason = Arrays.copyOf(ngReason, c + 1);
    }
    int g = ngTop++, level = 0;
    ngBlocked[g] = best;
    ngFor[g] = bestW;
    ngReason[g] = rsTop;
    for (int i = 0; i < conflict.size(); i += 2) {
      int d = conflict.get(i), w = conflict.get(i + 1);
      if (d == best && w == bestW) continue;
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
    ngNext[g] = ngHead[best];
    ngHead[best] = g;
    restart();
    return true;
  }

  private final isocheck.util.IntList conflict = new isocheck.util.IntList(16);

  /**
   * The head head t waits for (t parked): the session head of what it waits for; for a
   * version, of one of its readers not placed (not t). -1 when t is not parked.
   */
  private int successor(int t) {
    if (parkEpoch[t] != epoch) return -1;
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
