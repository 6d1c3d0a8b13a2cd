package isocheck.check.si;

import isocheck.history.History;
import isocheck.history.OpRecord;
import isocheck.order.RegisterAnalysis;
import isocheck.util.IntList;
import isocheck.util.LongHeap;
import java.util.Arrays;

/**
 * Conflict-directed backjumping with nogood recording (Prosser, "Hybrid algorithms for the
 * constraint satisfaction problem", Computational Intelligence 9(3), 1993, §4; Dechter,
 * "Enhancement schemes for constraint processing", Artificial Intelligence 41(3), 1990, §3) over
 * a pass that places the heads of an rw-register history's sessions one node at a time: the
 * machinery {@link BacktrackingWitness} (nodes are transactions: a serial order) and {@link
 * BacktrackingSchedule} (nodes are begin and commit events: a snapshot-isolation schedule) share.
 * A subclass says when a head can be placed ({@link #blocker}), what placing and unplacing a node
 * changes ({@link #unplace}), and which session head comes next ({@link #head}); this class keeps
 * the tables of reads, writes and sessions, the placements with their undo log, the heads (in a
 * heap, or parked on what they wait for), and the nogoods.
 *
 * <p>Nodes: transaction t's are t &lt;&lt; shift (its begin) and (t &lt;&lt; shift) | shift (its
 * commit; with shift 0 both are t itself). When no head can be placed, the heads wait for each
 * other in a cycle ({@link #backtrack}): the pass follows each head's wait until a head repeats,
 * takes the cycle's choices (a commit D placed before a head that waits for the readers of D's
 * version, the subclass's own ({@link #choice}), and the reasons of the nogoods on it), undoes
 * every placement from that of the choice placed last on (the backjump), and records the nogood
 * "D waits until one of the nodes it was placed before on the cycle is placed", implied by the
 * cycle's other choices and dropped when an undo takes one of them back (nogoods by level: an
 * undo drops them in time linear in what it undoes). A nogood left with other nodes to wait for
 * when a cycle goes through one of them is narrowed to those (unit propagation), with nothing
 * undone.
 */
abstract class ConflictDirectedBackjumping {
  /** Placements and undos allowed, per node. */
  static final int BUDGET = 20;
  static final boolean DEBUG = Boolean.getBoolean("isocheck.witness.debug");
  /** What {@link #blocker} returns when a read names a version already overwritten. */
  static final int DEAD = Integer.MIN_VALUE + 1;

  final History h;
  final int n, mops, nKeys;
  /** Nodes per transaction: 1 &lt;&lt; shift. */
  final int shift;
  /** Per committed :ok transaction t, its reads that name a version: rdV (a final write mop, or mops + key for ⊥), rdKey; from rdStart[t]. */
  final int[] rdStart, rdV, rdKey;
  /** Per committed transaction t, its final writes: wrKey, wrMop; from wrStart[t]. */
  final int[] wrStart, wrKey, wrMop;
  /** Per version (as rdV), its readers (transactions), from vrStart[v]. */
  final int[] vrStart, vrTxn;
  /** Per session, its committed transactions in order, from ssStart[s]; per transaction its session (-1: not committed). */
  final int[] ssStart, ssTxn, sessionOf;
  /** Per committed transaction, its place in ssTxn. */
  final int[] posInSession;
  /** Per transaction, its rank in the heap (its begin's): 0 read-only, else 1 + its place in its session (subclasses refine it). */
  final long[] rank;
  /** Committed transactions. */
  final int total;

  // The state, with its undo log.
  final boolean[] placed;
  final int[] posOf, order, latest, left;
  /** Per placement that wrote, the versions its writes replaced, in wrStart order: a stack. */
  final int[] replaced;
  int replacedTop, placedCount;

  // Nogoods, "ngBlocked[i] waits until one of its fors is placed" (nfW from ngFor[i] to
  // ngFor[i + 1]: the nodes it was placed before on the cycle), each implied by its reasons:
  // choices, pairs rsD (a node placed) and rsW (a node not placed before it), from ngReason[i] to
  // ngReason[i + 1]. Alive while every reason's D stays placed (ngLevel: the last reason's
  // position + 1); per node a list through ngNext from ngHead.
  private boolean[] ngAlive = new boolean[16];
  private int[] ngBlocked = new int[16], ngFor = new int[17], ngLevel = new int[16], ngNext = new int[16], ngReason = new int[17];
  private int[] rsD = new int[64], rsW = new int[64];
  private int rsTop, nfTop;
  private int[] nfW = new int[64];
  private final int[] ngHead;
  int ngTop;
  /** Per level, its nogoods (through levelNext); the highest level with nogoods, or lower. */
  private final int[] levelHead;
  private int[] levelNext = new int[16];
  private int maxLevel;
  private final IntList fors = new IntList(4);
  final IntList conflict = new IntList(16);

  // The heads: in the heap, or parked on what they wait for, a node f or a version v (list key f,
  // or nodes + v): doubly linked lists, so that an undo can take a head out of one.
  final LongHeap heap = new LongHeap(64);
  final boolean[] inHeap;
  /** Per parked head, the nogood it waits by (-1: none). */
  final int[] parkedNg;
  final int[] parkKey, parkNext, parkPrev, parkedOn, listHead;
  /** n &lt;&lt; shift. */
  final int nodes;

  /** Per head, the step of the current cycle search it was reached at (stamped by search). */
  private int[] seen, seenStep;
  private int search;
  long walkSteps;

  /** Statistics of the last run: backtracks taken, and placements plus undos. */
  long backtracks, steps;
  /** Why the last run gave up: "budget", "cycle", or null. */
  String gaveUp;
  /** Whether the answer is no longer wanted (the witness run ahead was closed): the pass then gives up soon. */
  final java.util.function.BooleanSupplier cancelled;
  /** The prefix of the debug output. */
  final String name;

  ConflictDirectedBackjumping(String name, int shift, History h, RegisterAnalysis ra, boolean[] committed, int[] version, java.util.function.BooleanSupplier cancelled) {
    long t0 = DEBUG ? cpu() : 0;
    this.name = name;
    this.shift = shift;
    this.h = h;
    this.cancelled = cancelled;
    n = h.nTxns;
    mops = h.mopCount();
    nKeys = h.keyCount();
    nodes = n << shift;
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
    posInSession = new int[n];
    int[] sf = Arrays.copyOf(ssStart, sessions);
    rank = new long[n];
    for (int t = 0; t < n; t++) {
      if (!committed[t]) continue;
      int s = h.session(t), i = sf[s]++;
      ssTxn[i] = t;
      posInSession[t] = i;
      // Read-only transactions first (placing one never rules anything out), then by place in
      // the session (the subclasses refine it by depth).
      rank[t] = wrStart[t] == wrStart[t + 1] ? 0 : 1 + i - ssStart[s];
    }
    if (DEBUG) System.err.println(name + ": tables " + (cpu() - t0) / 1000000 + " ms");
    placed = new boolean[nodes];
    posOf = new int[nodes];
    order = new int[tot << shift];
    latest = new int[nKeys];
    for (int x = 0; x < nKeys; x++) latest[x] = mops + x;
    replaced = new int[nw];
    levelHead = new int[(tot << shift) + 2];
    Arrays.fill(levelHead, -1);
    ngHead = new int[nodes];
    Arrays.fill(ngHead, -1);
    inHeap = new boolean[nodes];
    parkKey = new int[nodes];
    Arrays.fill(parkKey, -1);
    parkNext = new int[nodes];
    parkPrev = new int[nodes];
    parkedOn = new int[nodes];
    parkedNg = new int[nodes];
    listHead = new int[nodes + mops + nKeys];
    Arrays.fill(listHead, -1);
    if (DEBUG) System.err.println(name + ": set up " + (cpu() - t0) / 1000000 + " ms");
  }

  /** This thread's CPU time, ns (debug timings: the machine is shared). */
  static long cpu() { return java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime(); }

  /** Session s's next node, or -1 when all are placed. */
  abstract int head(int s);

  /**
   * What head e waits for: a node f (≥ 0), a version v (-v - 1), MIN_VALUE for nothing, DEAD when
   * a read names a version already overwritten; sets parkedNg (by {@link #nogoodWait}) for the wait it returns.
   */
  abstract int blocker(int e);

  /** Takes back the placement of e (the last; placedCount already lowered), but for pushing it. */
  abstract void unplace(int e);

  /** Adds to {@link #conflict} the choice of parked head w on a cycle, if its wait is one of the subclass's own. */
  void choice(int w) {}

  /** (Debug output for a cycle whose choice best is undone.) */
  void debugCycle(IntList path, int from, int best) {}

  /**
   * Whether {@link #backtrack}'s walk stops at head e rather than follow its wait: it then undoes
   * nothing, returns false and sets {@link #stopped} (a subclass's waits the walk must not
   * take as choices).
   */
  boolean stopAt(int e) { return false; }

  /** Whether {@link #backtrack}'s walk may start from head e. */
  boolean startsWalk(int e) { return true; }

  /** Set by {@link #backtrack} when its walk stopped ({@link #stopAt}): false then is not giving up. */
  boolean stopped;

  /** While {@link #walk} runs (the subclasses' {@link #stopAt} and {@link #startsWalk} apply then). */
  boolean walking;

  /**
   * {@link #backtrack} as a walk the subclass may stop ({@link #stopAt}): 1 when it undid a
   * choice (or narrowed a nogood, or woke a head), 0 when it stopped at a head with nothing
   * done, -1 when it gave up.
   */
  final int walk() {
    stopped = false;
    walking = true;
    boolean undone;
    try {
      undone = backtrack();
    } finally {
      walking = false;
    }
    return undone ? 1 : stopped ? 0 : -1;
  }

  /**
   * The placements and undos allowed: -Disocheck.witness.backtrack-budget per node, default
   * {@link #BUDGET}, and as many again per node placed at once so far ({@link #outOfBudget}).
   * Resets the statistics.
   */
  final long budget() {
    String b = System.getProperty("isocheck.witness.backtrack-budget");
    backtracks = 0;
    steps = 0;
    gaveUp = null;
    perNode = b != null ? Integer.parseInt(b) : BUDGET;
    highWater = 0;
    return perNode * Math.max(total << shift, 16);
  }

  private long perNode;
  /** The most nodes placed at once so far (the subclasses' place() raise it). */
  int highWater;

  /**
   * Whether the steps taken are past the budget: the {@link #budget} given, and as many steps
   * again per node for the most placed at once so far. A pass that gets on (it had placed 60,043
   * of 86,352 on the serializable store's session-ordered 10^5 history with 20% :info when the
   * fixed budget ran out, and finishes in 3.07 million steps) goes on; one that thrashes near its
   * start gives up about as soon as before.
   */
  final boolean outOfBudget(long budget) {
    return steps > budget + perNode * highWater;
  }

  /** Node e into the heap, by its transaction's rank (a commit of begin/commit nodes: 0). */
  final void push(int e) {
    if (inHeap[e]) return;
    inHeap[e] = true;
    heap.push(((e & shift) == 1 ? 0 : rank[e >>> shift]) << 32 | e);
  }

  /** Head e's wait by an alive nogood none of whose nodes is placed (parkedNg set), or MIN_VALUE. */
  final int nogoodWait(int e) {
    parkedNg[e] = -1;
    for (int i = ngHead[e]; i >= 0; i = ngNext[i]) {
      if (!ngAlive[i]) continue;
      boolean any = false;
      for (int j = ngFor[i]; j < ngFor[i + 1] && !any; j++) any = placed[nfW[j]];
      if (!any) {
        parkedNg[e] = i;
        return nfW[ngFor[i]];
      }
    }
    return Integer.MIN_VALUE;
  }

  void park(int e, int w) {
    parkedOn[e] = w;
    int k = w >= 0 ? w : nodes + (-w - 1);
    parkKey[e] = k;
    parkPrev[e] = -1;
    parkNext[e] = listHead[k];
    if (listHead[k] >= 0) parkPrev[listHead[k]] = e;
    listHead[k] = e;
  }

  /** Takes parked e out of its list. */
  final void unpark(int e) {
    int k = parkKey[e];
    if (parkPrev[e] >= 0) parkNext[parkPrev[e]] = parkNext[e];
    else listHead[k] = parkNext[e];
    if (parkNext[e] >= 0) parkPrev[parkNext[e]] = parkPrev[e];
    parkKey[e] = -1;
  }

  /** Every head parked on list k back into the heap. */
  final void wake(int k) {
    for (int e = listHead[k]; e >= 0; e = parkNext[e]) {
      parkKey[e] = -1;
      push(e);
    }
    listHead[k] = -1;
  }

  /** Every head parked on version v back into the heap. */
  final void wakeVer(int v) { if (listHead[nodes + v] >= 0) wake(nodes + v); }

  /**
   * Undoes the placements from position p on ({@link #unplace}), and drops the nogoods that
   * needed them (those parked by one back into the heap); the undone nodes are tried again
   * (those that are heads).
   */
  final void undoTo(int p) {
    while (placedCount > p) {
      int e = order[--placedCount];
      steps++;
      unplace(e);
      push(e);
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

  /**
   * The heads wait for each other in a cycle: undoes the last choice on it, records the nogood,
   * and starts again. False when the cycle has no choice (the pass gives up).
   */
  /** The session {@link #backtrack}'s last walk started from. */
  private int walkFrom;

  final boolean backtrack() {
    if (seen == null) {
      seen = new int[nodes];
      seenStep = new int[nodes];
    }
    search++;
    // A parked head to start from: any session's head, from the session the last walk started
    // from on (from the first every time, the sessions that ended before it were passed over
    // on every walk: at 10^6, 10,013 sessions and 143,699 walks).
    int e = -1, sessions = ssStart.length - 1;
    for (int k = 0; k < sessions && e < 0; k++) {
      int s = walkFrom + k < sessions ? walkFrom + k : walkFrom + k - sessions;
      e = head(s);
      if (e >= 0 && !startsWalk(e)) e = -1;
      if (e >= 0) walkFrom = s;
    }
    if (e < 0) {
      stopped = true; // (no head to start from: the walk stops where it starts)
      return false;
    }
    IntList path = new IntList(16);
    while (seen[e] != search) {
      if (stopAt(e)) {
        stopped = true;
        return false;
      }
      if (DEBUG) walkSteps++;
      seen[e] = search;
      seenStep[e] = path.size();
      path.add(e);
      if (parkKey[e] >= 0 && parkedNg[e] >= 0 && blocker(e) != parkedOn[e]) {
        // Parked by a nogood another of whose nodes is placed since: tried again.
        unpark(e);
        push(e);
        return true;
      }
      int u = successor(e);
      if (u < 0) {
        if (DEBUG) System.err.println("no successor of " + e + " parked " + (parkKey[e] >= 0) + " on " + parkedOn[e] + " placed " + placedCount);
        gaveUp = "cycle";
        return false;
      }
      e = u;
    }
    // The cycle: path from seenStep[e] on. Its choices: each head waiting for the readers of the
    // current version (whose commit D was placed first), the subclass's own, and each nogood
    // edge's reasons. The one placed last is undone, and its opposite recorded, implied by the
    // others.
    conflict.clear();
    for (int i = seenStep[e]; i < path.size(); i++) {
      int w = path.get(i);
      if (parkedOn[w] < 0) {
        int v = -parkedOn[w] - 1;
        if (v < mops) { // (⊥ comes first in every order: no choice)
          conflict.add(h.mopTxn(v) << shift | shift);
          conflict.add(w);
        }
      } else if (parkedNg[w] >= 0) {
        int g = parkedNg[w];
        for (int j = ngReason[g]; j < ngReason[g + 1]; j++) {
          conflict.add(rsD[j]);
          conflict.add(rsW[j]);
        }
      } else choice(w);
    }
    // A head parked by a nogood with nodes left to wait for besides the one on the cycle: the
    // cycle shows it cannot wait for that one (given the cycle's choices), so it waits for the
    // others (unit propagation), by a nogood implied by those choices; nothing is undone.
    for (int i = seenStep[e]; i < path.size(); i++) {
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
    if (DEBUG) {
      if (best < 0) System.err.println("gave up: a cycle without choices, placed " + placedCount);
      else debugCycle(path, seenStep[e], best);
      System.err.println("backtrack " + backtracks + " placed " + placedCount + " cycle " + (path.size() - seenStep[e]) + " choices " + conflict.size() / 2 + " undo to " + (best < 0 ? -1 : posOf[best]) + " steps " + steps + " nogoods " + ngTop);
    }
    if (best < 0 || !placed[best]) {
      gaveUp = "cycle";
      return false;
    }
    backtracks++;
    steps++;
    undoTo(posOf[best]);
    // Its opposite: best waits for one of the nodes it was placed before on the cycle.
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

  /**
   * The head parked head e waits for: the session head of what it waits for; for a version, of
   * one of its readers whose first node is not placed (not e's transaction). -1 when e is not
   * parked.
   */
  private int successor(int e) {
    if (parkKey[e] < 0) return -1;
    int w = parkedOn[e];
    int u;
    if (w >= 0) u = w >>> shift;
    else {
      int v = -w - 1, t = e >>> shift;
      u = -1;
      for (int i = vrStart[v]; i < vrStart[v + 1]; i++) {
        int r = vrTxn[i];
        if (r != t && !placed[r << shift]) {
          u = r;
          break;
        }
      }
      if (u < 0) return -1;
    }
    return head(sessionOf[u]);
  }
}
