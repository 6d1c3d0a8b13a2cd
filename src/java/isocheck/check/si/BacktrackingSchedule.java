package isocheck.check.si;

import isocheck.history.History;
import isocheck.order.RegisterAnalysis;
import isocheck.util.LongHeap;
import isocheck.util.IntList;
import java.util.Arrays;

/**
 * A begin/commit schedule of an rw-register history's committed transactions that witnesses
 * strong-session snapshot isolation, found by a pass that can undo its choices: each transaction a
 * begin event and a commit event, the begin before the commit and after its session predecessor's
 * commit, every read seeing the last version committed before its transaction began, and no two
 * writers of a key overlapping (first committer wins) — the begin/commit formulation of snapshot
 * isolation (PolySI, PVLDB'23, §2; Cerone, Bernardi and Gotsman, "A framework for transactional
 * consistency models with atomic visibility", CONCUR'15, §4; Adya's start-ordered serialization
 * graph, PhD thesis, MIT 1999, §4.3). The search is {@link BacktrackingWitness}'s
 * conflict-directed backjumping with nogoods (Prosser 1993, §4; Dechter 1990, §3; {@link
 * ConflictDirectedBackjumping}) over events rather than transactions. Called by {@link SerialWitness} on a file with no invocations:
 * where it lists transactions session by session (dbcop, Cobra, Plume text: no time to go by;
 * issue 29), instead of the greedy passes; where it interleaves them, once Kahn's schedule failed.
 *
 * <p>The pass: each session's next event (its head) is placed when it can be. A begin can when
 * every read names the current version of its key and no other transaction that writes a key it
 * writes is open (begun, not committed: two open writers of a key could never both commit); a
 * commit can when every reader of the current version of each key it writes has begun (a read
 * never names an overwritten version). Commits and read-only begins go first (placing one that can
 * go never rules a schedule out: an earlier commit only shortens its transaction's window, in
 * which no reader of what it overwrites is left to begin), then writers' begins by their depth
 * over session order, reads-from and each key's writers by value ({@link #depthRanks}); a writer's begin whose commit would still wait for readers is
 * deferred while anything else can go (so that its window stays short), and so is one that
 * wrote a higher integer than a writer of the same key not yet committed (the order the values
 * suggest; {@link #hinted}); when nothing but deferred begins is left to place, the parked
 * heads' waits are followed first, and a cycle they close (a version chosen wrongly) is undone
 * before a deferred begin goes (at 10^6 on the snapshot-isolation store's session-ordered
 * history, 20.4 million steps became 2.8 million). No look-ahead as {@link BacktrackingWitness}'s: at 10^5 on the
 * snapshot-isolation store's session-ordered history it halved the backtracks (1,165 to 507) but
 * cost more than they did (pass CPU 50 ms without, 90-190 ms with). The state (placements,
 * each key's current version and open writer, the readers left of each version) is kept with an
 * undo log. When no head can be placed, the heads wait for each other in a cycle. Two of the
 * waits are choices: a commit waiting for the readers of the current version of a key it writes
 * (that version's commit D was placed before it: the version order D, then it), and a begin
 * waiting for the commit of an open writer u of a key it writes (u's begin was placed before this
 * transaction committed: the version order u, then it). The pass follows each head's wait until a
 * head repeats, takes the cycle's choices (and the reasons of the nogoods on it), undoes every
 * placement from that of the choice placed last on, and records the nogood "that event waits
 * until one of the commits it was placed before on the cycle is placed", implied by the cycle's
 * other choices and dropped when an undo takes one of them back; a nogood left with other commits
 * to wait for when a cycle goes through one of them is narrowed to those, with nothing undone.
 *
 * <p>The schedule the pass ends with is a candidate only: {@link SerialWitness} checks it event by
 * event, as it checks its own, so a witness is never claimed wrongly. The pass gives up (the
 * search decides, as without it) when a cycle has no choice to undo, or after a budget of
 * placements and undos proportional to the history (-Disocheck.witness.backtrack-budget, per
 * event; default {@link #BUDGET}, as {@link BacktrackingWitness}'s per transaction). -Disocheck.witness.debug=true prints its
 * cycles and timings.
 */
final class BacktrackingSchedule extends ConflictDirectedBackjumping {
  // The state (besides the base's; events: begin 2t, commit 2t + 1): per key its open writer
  // (begun, not committed), per session how many of its events are placed.
  private final int[] open, nextEv;
  /** Per parked head, whether it waits for an open writer's commit. */
  private final boolean[] parkedOpen;

  /** Ranks from here on are deferred writers' begins: tried when nothing else can go. */
  private static final long DEFER = 1L << 29;

  BacktrackingSchedule(History h, RegisterAnalysis ra, boolean[] committed, int[] version, java.util.function.BooleanSupplier cancelled) {
    super("backtracking schedule", 1, h, ra, committed, version, cancelled);
    long t0 = DEBUG ? cpu() : 0;
    if (!"false".equals(System.getProperty("isocheck.witness.value-hint"))) valueOrder();
    if (DEBUG) System.err.println("backtracking schedule: values " + (cpu() - t0) / 1000000 + " ms");
    depthRanks(committed);
    if (DEBUG) System.err.println("backtracking schedule: depths " + (cpu() - t0) / 1000000 + " ms");
    open = new int[nKeys];
    Arrays.fill(open, -1);
    nextEv = new int[ssStart.length - 1];
    parkedOpen = new boolean[2 * n];
  }

  /**
   * Writers ranked by their depth (Lamport's clocks, as {@link BacktrackingWitness}'s: a session
   * step 8, a read 1 after its writer) over session order and reads-from and, where it goes
   * forward in that order, each key's next writer by the integers they wrote (an estimate of
   * time, which orders no schedule). Without the last, the first transaction of a session that
   * began late (Jepsen gives a process a new id after an indeterminate operation) that read nothing
   * written, or a writer of a new key, had depth 0: its begin went first, and its commit waited
   * for readers of the initial state thousands of events on, while no other writer of its keys
   * could begin (at 10^5 on the snapshot-isolation store's session-ordered history, undos of
   * 3,000 to 11,000 events, and the pass ran out of budget; with it, 505 backtracks and 286,055
   * steps, and so in one round of relaxation as in three, with or without readers of the initial
   * state placed before each key's writers).
   */
  private void depthRanks(boolean[] committed) {
    int[] start = new int[n + 1];
    int[] target = null;
    byte[] weight = null;
    boolean values = kwSlot != null;
    for (int pass = 0; pass < 2; pass++) {
      int[] fill = pass == 0 ? null : Arrays.copyOf(start, n);
      for (int t = 0; t < n; t++) {
        if (!committed[t]) continue;
        int q = posInSession[t] + 1;
        if (q < ssStart[sessionOf[t] + 1]) {
          if (pass == 0) start[t + 1]++;
          else { target[fill[t]] = ssTxn[q]; weight[fill[t]++] = 8; }
        }
        for (int i = wrStart[t]; i < wrStart[t + 1]; i++) {
          int v = wrMop[i];
          for (int j = vrStart[v]; j < vrStart[v + 1]; j++) {
            if (pass == 0) start[t + 1]++;
            else { target[fill[t]] = vrTxn[j]; weight[fill[t]++] = 1; }
          }
          if (values && kwPlace[i] + 1 < kwStart[wrKey[i] + 1]) {
            if (pass == 0) start[t + 1]++;
            else { target[fill[t]] = h.mopTxn(wrMop[kwSlot[kwPlace[i] + 1]]); weight[fill[t]++] = -1; }
          }
        }
      }
      if (pass == 0) {
        for (int v = 0; v < n; v++) start[v + 1] += start[v];
        target = new int[start[n]];
        weight = new byte[start[n]];
      }
    }
    // Kahn's algorithm on session order and reads-from, relaxing the value edges too (weight -1
    // marks them: length 1, not counted in the in-degrees) where they go forward in its order.
    int[] indeg = new int[n], queue = new int[total];
    for (int e = 0; e < target.length; e++) if (weight[e] > 0) indeg[target[e]]++;
    int tail = 0;
    for (int t = 0; t < n; t++) if (committed[t] && indeg[t] == 0) queue[tail++] = t;
    int[] depth = new int[n];
    for (int head = 0; head < tail; head++) {
      int v = queue[head];
      for (int e = start[v]; e < start[v + 1]; e++) {
        int u = target[e], w = weight[e];
        depth[u] = Math.max(depth[u], depth[v] + Math.abs(w));
        if (w > 0 && --indeg[u] == 0) queue[tail++] = u;
      }
    }
    if (tail < total) return; // a cycle of session order and reads-from: the session ranks stand
    for (int t = 0; t < n; t++) if (committed[t] && rank[t] != 0) rank[t] = 1 + Math.min(depth[t], DEFER / 2);
  }

  /** The schedule found (begin 2t, commit 2t + 1, of the committed transactions), or null when the pass gave up. */
  int[] run() {
    long t0 = DEBUG ? cpu() : 0;
    int[] r = run0();
    if (DEBUG) System.err.println("backtracking schedule: " + (cpu() - t0) / 1000000 + " ms, steps " + steps + " backtracks " + backtracks + " nogoods " + ngTop + " deferrals " + deferrals + " parks " + parks + " undone " + undone + " gave up " + gaveUp);
    return r;
  }

  private int[] run0() {
    long budget = budget();
    heap.clear();
    for (int s = 0; s + 1 < ssStart.length; s++) {
      int e = head(s);
      if (e >= 0) push(e);
    }
    while (placedCount < 2 * total) {
      if (heap.size() == 0) {
        if (!backtrack()) return null;
        continue;
      }
      if ((++steps > budget && outOfBudget(budget)) || ((steps & 4095) == 0 && cancelled.getAsBoolean())) {
        gaveUp = "budget";
        return null;
      }
      long key = heap.pop();
      int e = (int) key;
      inHeap[e] = false;
      if (placed[e] || head(sessionOf[e >>> 1]) != e) continue;
      int w = blocker(e);
      if (w == Integer.MIN_VALUE) {
        int tier = (e & 1) == 0 && wrStart[(e >>> 1) + 1] > wrStart[e >>> 1] ? tier(e >>> 1) : 0;
        if ((key >>> 32) < tier * DEFER) {
          if (DEBUG) deferrals++;
          inHeap[e] = true;
          heap.push((tier * DEFER + rank[e >>> 1]) << 32 | e);
        } else if (walkFirst && (key >>> 32) >= DEFER && !walked) {
          // A deferred begin, placed because no other event can go: the parked heads' waits
          // followed first, so that a cycle of them (a version chosen wrongly) is undone now.
          inHeap[e] = true;
          heap.push(key);
          int r = walk();
          if (r > 0) continue;
          if (r < 0) return null;
          walked = true;
        } else {
          walked = false;
          place(e);
        }
      } else if (w == DEAD) {
        gaveUp = "cycle";
        return null;
      } else {
        if (DEBUG) parks++;
        park(e, w);
      }
    }
    return order;
  }

  private long deferrals, parks, undone;

  /** As BacktrackingWitness's (-Disocheck.witness.walk-first=false: not; read at each construction). */
  private final boolean walkFirst = !"false".equals(System.getProperty("isocheck.witness.walk-first"));
  /** Whether the last deferred begin's walk stopped (it is placed next, without another walk). */
  private boolean walked;

  @Override
  boolean stopAt(int e) { return walking && parkKey[e] < 0; }

  @Override
  boolean startsWalk(int e) { return !walking || parkKey[e] >= 0; }

  /** Session s's next event, or -1 when all are placed. */
  @Override
  int head(int s) {
    int k = nextEv[s];
    if (k >= 2 * (ssStart[s + 1] - ssStart[s])) return -1;
    return 2 * ssTxn[ssStart[s] + (k >>> 1)] + (k & 1);
  }

  /**
   * What head e waits for: an event f (≥ 0), a version v (-v - 1; a commit waits for its
   * readers), MIN_VALUE for nothing, DEAD when a read names a version already overwritten
   * (cannot happen while commits wait for the readers of what they overwrite; a guard). Sets
   * parkedNg and parkedOpen for the wait it returns.
   */
  @Override
  int blocker(int e) {
    parkedOpen[e] = false;
    int ng = nogoodWait(e);
    if (ng != Integer.MIN_VALUE) return ng;
    int t = e >>> 1;
    if ((e & 1) == 0) {
      for (int i = rdStart[t]; i < rdStart[t + 1]; i++) {
        int v = rdV[i];
        if (latest[rdKey[i]] == v) continue;
        if (v >= mops) return DEAD;
        int wt = h.mopTxn(v);
        if (placed[2 * wt + 1]) return DEAD;
        return 2 * wt + 1;
      }
      for (int i = wrStart[t]; i < wrStart[t + 1]; i++) {
        int u = open[wrKey[i]];
        if (u >= 0) {
          parkedOpen[e] = true;
          return 2 * u + 1;
        }
      }
    } else {
      for (int i = wrStart[t]; i < wrStart[t + 1]; i++) {
        int lv = latest[wrKey[i]];
        if (left[lv] > 0) return -lv - 1;
      }
    }
    return Integer.MIN_VALUE;
  }

  /**
   * How long writer t's begin, which could go, is deferred: 2 when a writer of a key it writes
   * that wrote a lower integer has not committed ({@link #hinted}: the version order the values
   * suggest), 1 when its commit would wait for readers were it to begin now ({@link #pending}),
   * else 0.
   */
  private int tier(int t) {
    if (kwSlot != null && !hinted(t)) return 2;
    return pending(t) ? 1 : 0;
  }

  /**
   * Per key, its writes (slots of wrKey) by the integers they wrote, from kwStart[x]; per slot its
   * place there; per key the first place whose writer has not committed, or lower (raised as
   * asked, lowered by an undo). Null where a value is not an integer.
   */
  private int[] kwStart, kwSlot, kwPlace, lowest;

  /** Whether every write of a key t writes with a lower integer is committed. */
  private boolean hinted(int t) {
    for (int i = wrStart[t]; i < wrStart[t + 1]; i++) {
      int x = wrKey[i], end = kwStart[x + 1], l = lowest[x];
      while (l < end && placed[2 * h.mopTxn(wrMop[kwSlot[l]]) + 1]) l++;
      lowest[x] = l;
      if (kwPlace[i] > l) return false;
    }
    return true;
  }

  /** Each key's writes by the integers they wrote (kwStart, kwSlot, kwPlace, lowest), or none. */
  private void valueOrder() {
    int nw = wrKey.length;
    long[] packed = new long[nw];
    int[] start = new int[nKeys + 1];
    for (int i = 0; i < nw; i++) {
      int val = h.mopVal(wrMop[i]);
      if (!h.valueIsInteger(val)) return;
      long x = h.valueAsLong(val);
      if (x < Integer.MIN_VALUE || x > Integer.MAX_VALUE) return;
      start[wrKey[i] + 1]++;
    }
    for (int x = 0; x < nKeys; x++) start[x + 1] += start[x];
    int[] fill = Arrays.copyOf(start, nKeys);
    for (int i = 0; i < nw; i++) packed[fill[wrKey[i]]++] = h.valueAsLong(h.mopVal(wrMop[i])) << 32 | i;
    for (int x = 0; x < nKeys; x++) Arrays.sort(packed, start[x], start[x + 1]);
    kwStart = start;
    kwSlot = new int[nw];
    kwPlace = new int[nw];
    for (int p = 0; p < nw; p++) {
      kwSlot[p] = (int) packed[p];
      kwPlace[kwSlot[p]] = p;
    }
    lowest = Arrays.copyOf(start, nKeys);
  }

  /**
   * Whether writer t's commit would wait for readers were t to begin now: some reader of the
   * current version of a key it writes, other than t itself, has not begun.
   */
  private boolean pending(int t) {
    for (int i = wrStart[t]; i < wrStart[t + 1]; i++) {
      int lv = latest[wrKey[i]], c = left[lv];
      if (c == 0) continue;
      for (int j = rdStart[t]; j < rdStart[t + 1]; j++) if (rdV[j] == lv) c--;
      if (c > 0) return true;
    }
    return false;
  }

  private void place(int e) {
    placed[e] = true;
    posOf[e] = placedCount;
    order[placedCount++] = e;
    if (placedCount > highWater) highWater = placedCount;
    int t = e >>> 1;
    if ((e & 1) == 0) {
      for (int i = rdStart[t]; i < rdStart[t + 1]; i++) if (--left[rdV[i]] == 0) wakeVer(rdV[i]);
      for (int i = wrStart[t]; i < wrStart[t + 1]; i++) open[wrKey[i]] = t;
    } else {
      for (int i = wrStart[t]; i < wrStart[t + 1]; i++) {
        int x = wrKey[i];
        replaced[replacedTop++] = latest[x];
        latest[x] = wrMop[i];
        open[x] = -1;
      }
    }
    int s = sessionOf[t];
    nextEv[s]++;
    int hd = head(s);
    if (hd >= 0) push(hd);
    if (listHead[e] >= 0) wake(e);
  }

  /**
   * Takes back e's placement. The heads parked on e stay parked (it is unplaced again), but for
   * those parked on a version an undone commit wrote (the current version of its key went back)
   * and those parked on the commit of a writer whose begin is undone (it is no longer open).
   */
  @Override
  void unplace(int e) {
    if (DEBUG) undone++;
    int t = e >>> 1, s = sessionOf[t];
    int hd = head(s);
    if (hd >= 0 && parkKey[hd] >= 0) unpark(hd); // no longer a head
    nextEv[s]--;
    placed[e] = false;
    if ((e & 1) == 1) {
      for (int i = wrStart[t + 1] - 1; i >= wrStart[t]; i--) {
        latest[wrKey[i]] = replaced[--replacedTop];
        open[wrKey[i]] = t;
        if (kwPlace != null && lowest[wrKey[i]] > kwPlace[i]) lowest[wrKey[i]] = kwPlace[i];
        if (listHead[2 * n + wrMop[i]] >= 0) wake(2 * n + wrMop[i]);
      }
    } else {
      for (int i = wrStart[t]; i < wrStart[t + 1]; i++) open[wrKey[i]] = -1;
      for (int i = rdStart[t]; i < rdStart[t + 1]; i++) left[rdV[i]]++;
      if (wrStart[t] < wrStart[t + 1] && listHead[e + 1] >= 0) wake(e + 1);
    }
  }

  /** A begin waiting for an open writer: the writer's begin was placed before this one's commit. */
  @Override
  void choice(int w) {
    if (parkedOpen[w]) {
      conflict.add(parkedOn[w] - 1); // the open writer's begin
      conflict.add(w | 1); // before this one's commit
    }
  }

  /** (The cycles that undo much: each head, what it waits for, and the readers not begun.) */
  @Override
  void debugCycle(IntList path, int from, int best) {
    if (placedCount - posOf[best] <= 3000) return;
    StringBuilder sb = new StringBuilder("  cycle:");
    for (int i = from; i < path.size(); i++) {
      int w = path.get(i);
      sb.append(' ').append((w & 1) == 0 ? "B" : "C").append(w >>> 1).append("[s").append(sessionOf[w >>> 1]).append(" d").append(rank[w >>> 1]).append(" p").append(posInSession[w >>> 1] - ssStart[sessionOf[w >>> 1]]).append(']');
      if (parkedOn[w] < 0) {
        int v = -parkedOn[w] - 1;
        for (int k = vrStart[v]; k < vrStart[v + 1]; k++) if (!placed[2 * vrTxn[k]]) sb.append(" {unbegun reader T").append(vrTxn[k]).append(" d").append(rank[vrTxn[k]]).append(" s").append(sessionOf[vrTxn[k]]).append(" p").append(posInSession[vrTxn[k]] - ssStart[sessionOf[vrTxn[k]]]).append('}');
      }
      if (parkedOn[w] < 0) sb.append(" ~ver of T").append(-parkedOn[w] - 1 < mops ? h.mopTxn(-parkedOn[w] - 1) : -1);
      else if (parkedNg[w] >= 0) sb.append(" ~ng C").append(parkedOn[w] >>> 1);
      else if (parkedOpen[w]) sb.append(" ~open C").append(parkedOn[w] >>> 1);
      else sb.append(" ~").append((parkedOn[w] & 1) == 0 ? "B" : "C").append(parkedOn[w] >>> 1);
      sb.append(" ->");
    }
    for (int i = 0; i < conflict.size(); i += 2) sb.append(" choice ").append(conflict.get(i)).append("@").append(posOf[conflict.get(i)]).append(">").append(conflict.get(i + 1));
    System.err.println(sb);
  }
}
