package isocheck.check.si;

import isocheck.history.History;
import isocheck.util.IntList;
import java.util.Arrays;

/**
 * For each writer t of each key x of an rw-register history, writers of x that session order and
 * reads-from put before some reader r of t's version: such a writer w precedes r in every serial
 * order, and r reads x from t, so w precedes t (PolySI, PVLDB'23, §4.2: pruning, one round, on the
 * known edges alone). {@link BacktrackingWitness} has t wait for them, so that its version choices
 * follow the known edges as far as they reach (issue 29). Found in one pass of Kahn's algorithm
 * over session order and reads-from, which also gives each transaction its depth there (Lamport's
 * clocks: a session step 8, a read 1 after its writer) for the pass's ranks.
 *
 * <p>Reachability by vector clocks (Fidge; Mattern, "Virtual time and global states of
 * distributed systems", 1988, §4) over a few slots rather than one entry per session: a file
 * whose processes crashed has a session per process id (a Jepsen run with 1% {@code :info}
 * transactions at 10^5 has a thousand), of which a few run at a time. A session takes a slot when
 * one of its transactions is first read from another session (before that, its transactions
 * reach others only through its later ones), and gives it up after its last transaction; with
 * every slot taken, the slot used longest ago is taken from its session (a free slot never used
 * before one freed: with as many slots as sessions, no two sessions share one). Each taking is an
 * occupancy numbered in an order, and a clock entry is the occupancy's base plus a place in its
 * session, so that a later occupancy's entries are greater: merging two clocks takes the later
 * occupancy's entry, losing what the earlier one knew (a writer w of that session is then not
 * found to reach r: a wait missed, never one wrong). A transaction w of the occupancy's session
 * reaches r when r's entry for the slot lies in the occupancy's range at or after w's place.
 * A key with few writers (64) has, per session, the last of its writers there that reaches a
 * reader found by bisection along the session's writes of the key (reaching is monotone along a
 * session), unless it reaches t (the earlier ones reach readers through it, and one that reaches
 * t precedes it anyway); a key with more, per reader, the last writer at or before each slot's
 * entry in that slot's session, and before the reader in its own. Keys are split into a range
 * per core (isocheck.util.Ranges), each range's pairs joined in key order. (On the serializable
 * store's session-ordered 10^5 history the lists took 55-60 ms of CPU by a scan of every writer
 * of the key, memory-bound; now about 25 ms on each of two cores.)
 */
final class ForcedWriters {
  /**
   * Slots of the clocks: one per session up to twice this many sessions, else this many
   * (-Disocheck.witness.clocks=N, read at each construction; 0: no forced writers, depths alone).
   */
  static final int SLOTS = 16;

  /**
   * Writes from which the lists are found on every core, a range of keys each (fewer: on this
   * thread; -Disocheck.witness.parallel-writes=N, read at each construction: tests split small
   * histories).
   */
  static final int PARALLEL = 1 << 14;

  /** Per transaction, its depth over session order and reads-from; null when those edges have a cycle. */
  final long[] depth;
  /** The committed transactions in the order the sweep took them (a topological order of session order and reads-from); null on a cycle. */
  int[] order;
  /** Per committed transaction t, its forced writers from start[t] to start[t + 1] of writer; null without clocks. */
  final int[] start, writer;
  /** Slots used, occupancies (takings of a slot), and those that took a slot from a session still running. */
  int slots, occupancies, evictions;

  private final int n, mops, nKeys;
  private final int[] rdStart, rdV, wrStart, wrKey, wrMop, vrStart, vrTxn, ssStart, ssTxn, sessionOf, posInSession;

  ForcedWriters(History h, int total, int[] rdStart, int[] rdV, int[] wrStart, int[] wrKey, int[] wrMop, int[] vrStart,
                int[] vrTxn, int[] ssStart, int[] ssTxn, int[] sessionOf, int[] posInSession) {
    this.n = h.nTxns;
    this.mops = h.mopCount();
    this.nKeys = h.keyCount();
    this.rdStart = rdStart;
    this.rdV = rdV;
    this.wrStart = wrStart;
    this.wrKey = wrKey;
    this.wrMop = wrMop;
    this.vrStart = vrStart;
    this.vrTxn = vrTxn;
    this.ssStart = ssStart;
    this.ssTxn = ssTxn;
    this.sessionOf = sessionOf;
    this.posInSession = posInSession;
    // The clocks: n × slots ints, at most 64 MB (fewer slots on larger histories).
    // (Up to 32 sessions, one slot each: Plume's 25 sessions thrashed 16 slots, 96,000 takings.)
    int sessions = ssStart.length - 1, want = Integer.getInteger("isocheck.witness.clocks", sessions <= 2 * SLOTS ? Math.max(sessions, SLOTS) : SLOTS);
    int k = (int) Math.min(want, (16L << 20) / Math.max(1, n));
    slots = k < 2 ? 0 : k;
    int[] vc = slots > 0 ? new int[n * slots] : null;
    long c0 = DEBUG ? ConflictDirectedBackjumping.cpu() : 0;
    long[] d = sweep(h, total, vc);
    long c1 = DEBUG ? ConflictDirectedBackjumping.cpu() : 0;
    depth = d;
    if (d == null || vc == null) {
      start = null;
      writer = null;
      return;
    }
    IntList out = new IntList(16);
    start = new int[n + 1];
    lists(vc, out);
    writer = out.toArray();
    if (DEBUG) System.err.println("forced writers: sweep " + (c1 - c0) / 1000000 + " ms, lists " + (ConflictDirectedBackjumping.cpu() - c1) / 1000000 + " ms, scans " + scans + " reader scans " + readerScans + " reads " + readsCalls + " pairs " + writer.length);
  }

  private long scans, readerScans, readsCalls;
  private static final boolean DEBUG = Boolean.getBoolean("isocheck.witness.debug");

  // Occupancies: base (an entry is base + place in session), first entry, session.
  private int[] occBase = new int[64], occFirst = new int[65], occSession = new int[64], occSlot = new int[64];
  /** Per transaction, the occupancy of its session's slot when it was swept, or the next one its session took; -1 for none. */
  private int[] occOf;

  /** Kahn's algorithm over session order and reads-from: depths, and the clocks when vc is given. Null on a cycle. */
  private long[] sweep(History h, int total, int[] vc) {
    int K = slots, sessions = ssStart.length - 1;
    int[] indeg = new int[n], queue = new int[total];
    long[] depth = new long[n];
    int tail = 0;
    for (int g = 0; g < total; g++) {
      int t = ssTxn[g];
      if (g > ssStart[sessionOf[t]]) indeg[t]++;
      for (int i = rdStart[t]; i < rdStart[t + 1]; i++) if (rdV[i] < mops) indeg[t]++;
      if (indeg[t] == 0) queue[tail++] = t;
    }
    int[] sessSlot = null, sessOcc = null, slotSession = null;
    long[] slotUsed = null;
    long counter = 0;
    if (vc != null) {
      Arrays.fill(vc, -1);
      occOf = new int[n];
      Arrays.fill(occOf, -1);
      sessSlot = new int[sessions];
      Arrays.fill(sessSlot, -1);
      sessOcc = new int[sessions];
      slotSession = new int[K];
      Arrays.fill(slotSession, -1);
      slotUsed = new long[K];
    }
    for (int head = 0; head < tail; head++) {
      int t = queue[head], s = sessionOf[t], g = posInSession[t], q = g + 1, z = -1;
      boolean last = q == ssStart[s + 1];
      if (vc != null) {
        z = sessSlot[s];
        if (z < 0 && readAcross(t, s) && counter < Integer.MAX_VALUE - (ssStart[s + 1] - g)) {
          // A slot: a free one used longest ago, else the one used longest ago (taken from its session).
          for (int y = 0; y < K; y++) {
            boolean better;
            if (z < 0) better = true;
            else if ((slotSession[y] < 0) != (slotSession[z] < 0)) better = slotSession[y] < 0;
            else better = slotUsed[y] < slotUsed[z];
            if (better) z = y;
          }
          if (slotSession[z] >= 0) {
            sessSlot[slotSession[z]] = -1;
            evictions++;
          }
          int o = occupancies++;
          if (o == occBase.length) {
            occBase = Arrays.copyOf(occBase, 2 * o);
            occSession = Arrays.copyOf(occSession, 2 * o);
            occSlot = Arrays.copyOf(occSlot, 2 * o);
            occFirst = Arrays.copyOf(occFirst, 2 * o + 1);
          }
          occFirst[o] = (int) counter;
          occBase[o] = (int) counter - (g - ssStart[s]);
          occSession[o] = s;
          occSlot[o] = z;
          counter += ssStart[s + 1] - g;
          occFirst[o + 1] = (int) counter;
          sessSlot[s] = z;
          sessOcc[s] = o;
          slotSession[z] = s;
        }
        if (z >= 0) {
          slotUsed[z] = head + 1; // (a slot never used stays 0, and is taken before one freed: with as many slots as sessions, none is shared)
          vc[t * K + z] = occBase[sessOcc[s]] + (g - ssStart[s]);
          occOf[t] = sessOcc[s];
        }
      }
      if (!last) {
        int u = ssTxn[q];
        if (vc != null) merge(vc, t * K, u * K, K);
        depth[u] = Math.max(depth[u], depth[t] + 8);
        if (--indeg[u] == 0) queue[tail++] = u;
      } else if (z >= 0) {
        sessSlot[s] = -1;
        slotSession[z] = -1;
      }
      for (int i = wrStart[t]; i < wrStart[t + 1]; i++) {
        int v = wrMop[i];
        for (int j = vrStart[v]; j < vrStart[v + 1]; j++) {
          int r = vrTxn[j];
          if (vc != null && r != t) merge(vc, t * K, r * K, K);
          depth[r] = Math.max(depth[r], depth[t] + 1);
          if (--indeg[r] == 0) queue[tail++] = r;
        }
      }
    }
    if (tail < total) return null;
    order = queue;
    if (vc != null) {
      // A transaction swept before its session took a slot: the occupancy its session took next.
      for (int s = 0; s < sessions; s++) {
        int o = -1;
        for (int g = ssStart[s + 1] - 1; g >= ssStart[s]; g--) {
          int t = ssTxn[g];
          if (occOf[t] >= 0) o = occOf[t];
          else occOf[t] = o;
        }
      }
    }
    return depth;
  }

  private static void merge(int[] vc, int from, int to, int k) {
    for (int y = 0; y < k; y++) vc[to + y] = Math.max(vc[to + y], vc[from + y]); // (vectorized by C2)
  }

  /** Whether another session reads one of t's writes. */
  private boolean readAcross(int t, int s) {
    for (int i = wrStart[t]; i < wrStart[t + 1]; i++) {
      int v = wrMop[i];
      for (int j = vrStart[v]; j < vrStart[v + 1]; j++) if (sessionOf[vrTxn[j]] != s) return true;
    }
    return false;
  }

  /**
   * Keys with at most this many writers have each writer tried against the readers' clocks; the
   * others, each slot's entry looked up (-Disocheck.witness.scan=N, read at each construction:
   * tests try both ways).
   */
  private final int scan = Integer.getInteger("isocheck.witness.scan", 64);

  // Each key's writers (their places in ssTxn), in that order, from bStart[x].
  private int[] bStart, bPlace;

  /** The forced writers of each writer, from the clocks. */
  private void lists(int[] vc, IntList out) {
    long cLists = DEBUG ? ConflictDirectedBackjumping.cpu() : 0;
    int K = slots, total = ssTxn.length, nw = wrKey.length;
    bStart = new int[nKeys + 1];
    for (int i = 0; i < nw; i++) bStart[wrKey[i] + 1]++;
    for (int x = 0; x < nKeys; x++) bStart[x + 1] += bStart[x];
    // Each key's writes in ssTxn's order; per write, side by side (a key's are read together,
    // key by key): [place, transaction, write (its mop), clock slot, the range of the slot's
    // entries that show it reached (lo, hi; lo > hi for none), the end of its session's places,
    // the first of the key's writes in its session, its readers' range in vrTxn (looked up here,
    // in ssTxn's order: by key, they missed the caches)].
    bPlace = new int[nw];
    int[] b = new int[W * nw];
    int[] fill = Arrays.copyOf(bStart, nKeys);
    for (int g = 0; g < total; g++) {
      int t = ssTxn[g], s = sessionOf[t], o = occOf[t];
      for (int i = wrStart[t]; i < wrStart[t + 1]; i++) {
        int j = fill[wrKey[i]]++, e = W * j;
        bPlace[j] = g;
        b[e] = g;
        b[e + 8] = vrStart[wrMop[i]];
        b[e + 9] = vrStart[wrMop[i] + 1];
        b[e + 1] = t;
        b[e + 2] = wrMop[i];
        b[e + 6] = ssStart[s + 1];
        if (o >= 0) {
          b[e + 3] = occSlot[o];
          b[e + 4] = Math.max(occFirst[o], occBase[o] + (g - ssStart[s]));
          b[e + 5] = occFirst[o + 1] - 1;
        } else {
          b[e + 4] = 1;
        }
      }
    }
    // Per write, the first of its key's writes in its session (b[e + 7]).
    for (int x = 0; x < nKeys; x++) {
      for (int j = bStart[x], first = j; j < bStart[x + 1]; j++) {
        if (j > bStart[x] && b[W * j + 6] != b[W * (j - 1) + 6]) first = j;
        b[W * j + 7] = first;
      }
    }
    long cFill = DEBUG ? ConflictDirectedBackjumping.cpu() : 0;
    // Pairs (writer t, a writer it waits for), key by key; then by t.
    // Key by key, a range of keys per core from PARALLEL writes on (each its own lists, joined
    // in key order; a pair found through keys of two ranges is listed twice, which costs a wait
    // a second look).
    this.b = b;
    this.vc = vc;
    int count = nw >= Integer.getInteger("isocheck.witness.parallel-writes", PARALLEL) ? Math.min(isocheck.util.Ranges.cores(), Math.max(1, nKeys)) : 1;
    Scan[] parts = new Scan[count];
    java.util.function.IntConsumer range = c -> {
      Scan sc = new Scan(nw / count);
      for (int x = (int) ((long) nKeys * c / count), e = (int) ((long) nKeys * (c + 1) / count); x < e; x++) {
        int b0 = bStart[x], b1 = bStart[x + 1];
        if (b1 - b0 < 2) continue;
        for (int jt = b0; jt < b1; jt++) sc.waits(x, b0, b1, jt);
      }
      parts[c] = sc;
    };
    if (count == 1) range.accept(0);
    else java.util.stream.IntStream.range(0, count).parallel().forEach(range);
    this.b = null;
    this.vc = null;
    IntList pt = parts[0].pt, pw = parts[0].pw;
    for (int c = 1; c < parts.length; c++) {
      pt.addAll(parts[c].pt);
      pw.addAll(parts[c].pw);
      if (DEBUG) { scans += parts[c].scans; readsCalls += parts[c].readsCalls; }
    }
    if (DEBUG) { scans += parts[0].scans; readsCalls += parts[0].readsCalls; }
    long cScan = DEBUG ? ConflictDirectedBackjumping.cpu() : 0;
    if (DEBUG) System.err.println("forced writers: fill " + (cFill - cLists) / 1000000 + " ms, scan " + (cScan - cFill) / 1000000 + " ms");
    int m = pt.size();
    for (int p = 0; p < m; p++) start[pt.get(p) + 1]++;
    for (int t = 0; t < n; t++) start[t + 1] += start[t];
    int[] f = Arrays.copyOf(start, n);
    out.ensureCapacity(m);
    int[] ws = out.raw();
    for (int p = 0; p < m; p++) ws[f[pt.get(p)]++] = pw.get(p);
    out.truncate(m);
  }

  // The scan's tables (lists): per write, W ints in b; the clocks.
  private static final int W = 10;
  private int[] b, vc;

  /** One range of keys' scan: its own state and pairs (writer t, a writer it waits for). */
  private final class Scan {
    final int[] front = new int[slots], stamp = new int[n];
    int[] rPlace = new int[16];
    final IntList pt, pw;
    long scans, readsCalls;

    Scan(int capacity) {
      pt = new IntList(Math.max(16, capacity));
      pw = new IntList(Math.max(16, capacity));
    }

    /** Writer b[W * jt]'s waits (key x's writes from b0 to b1), into pt and pw: a method per writer, so that the JIT compiles it whole early. */
    private void waits(int x, int b0, int b1, int jt) {
      int K = slots;
      int[] b = ForcedWriters.this.b, vc = ForcedWriters.this.vc, front = this.front, rPlace = this.rPlace;
      int t = b[W * jt + 1], v = b[W * jt + 2], r0 = b[W * jt + 8], r1 = b[W * jt + 9], nr = r1 - r0;
      if (nr == 0) return;
      if (nr > rPlace.length) this.rPlace = rPlace = new int[2 * nr];
      Arrays.fill(front, -1);
      for (int j = r0, k = 0; j < r1; j++, k++) {
        int r = vrTxn[j];
        for (int y = 0, rb = r * K; y < K; y++) front[y] = Math.max(front[y], vc[rb + y]); // (vectorized by C2)
        rPlace[k] = posInSession[r];
      }
      if (b1 - b0 <= scan) {
        int tb = t * K;
        // Few writers of x: each tried against the readers' clocks and places; of a
        // session's, the last that reaches a reader (the earlier ones reach it through it).
        // Session by session (their runs of x's writes), from the last: in each, the last writer
        // that reaches a reader, by bisection (reaching is monotone along a session: an earlier
        // writer reaches what a later one does; the clock's test may miss one across occupancies,
        // and then a wait is missed, never one wrong).
        int ts = ssStart[sessionOf[t] + 1];
        for (int j = b1 - 1; j >= b0; ) {
          int first = b[W * j + 7], s = b[W * j + 6];
          if (s == ts) { // (t's session: its earlier writers precede t)
            j = first - 1;
            continue;
          }
          // The readers' last place in this session, if any (places in ssTxn are by session).
          int rmax = -1;
          for (int k = 0; k < nr; k++) if (rPlace[k] < s && rPlace[k] > rmax) rmax = rPlace[k];
          int lo = first, hi = j, found = -1;
          while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (DEBUG) scans++;
            if (reaches(W * mid, rmax)) {
              found = mid;
              lo = mid + 1;
            } else hi = mid - 1;
          }
          j = first - 1;
          for (int f = found; f >= first; f--) {
            int e = W * f, w = b[e + 1], y = b[e + 3], ct = vc[tb + y];
            // (w reaches t: it and its session's earlier ones precede t anyway, no wait needed.)
            if (ct >= b[e + 4] && ct <= b[e + 5]) break;
            if (DEBUG) readsCalls++;
            if (reads(w, v)) continue; // (a reader of t's version: after t)
            if (stamp[w] != t + 1) {
              stamp[w] = t + 1;
              pt.add(t);
              pw.add(w);
            }
            break;
          }
        }
      } else {
        for (int k = 0; k < nr; k++) {
          int r = vrTxn[vrStart[v] + k];
          add(t, x, v, ssStart[sessionOf[r]], rPlace[k], stamp, pt, pw);
        }
        for (int y = 0; y < K; y++) {
          int c = front[y];
          if (c < 0) continue;
          int o = occupancyOf(c), s = occSession[o];
          add(t, x, v, ssStart[s], ssStart[s] + (c - occBase[o]), stamp, pt, pw);
        }
      }
    }

    /** Whether the write at b[e] reaches a reader: by the readers' front on its slot, or one at a later place than it in its session (rmax). */
    private boolean reaches(int e, int rmax) {
      int c = front[b[e + 3]];
      return (c >= b[e + 4] && c <= b[e + 5]) || b[e] < rmax;
    }
  }

  /** The occupancy whose entries hold e. */
  private int occupancyOf(int e) { return IntList.lastAtMost(occFirst, occupancies, e); }

  /**
   * Adds to t's list the last writer of x placed in ssTxn from lo to hi (one session) that is
   * not t and does not read v (a reader of t's version that writes x comes after t), if it is
   * not t's own predecessor in session.
   */
  private void add(int t, int x, int v, int lo, int hi, int[] stamp, IntList pt, IntList pw) {
    int a = bStart[x], b = bStart[x + 1];
    // The last place at or before hi.
    while (a < b) {
      int mid = (a + b) >>> 1;
      if (bPlace[mid] <= hi) a = mid + 1;
      else b = mid;
    }
    for (int j = a - 1; j >= bStart[x] && bPlace[j] >= lo; j--) {
      int w = ssTxn[bPlace[j]];
      if (w == t) return; // (the earlier ones precede t in its session)
      if (reads(w, v)) continue;
      if (stamp[w] != t + 1) {
        stamp[w] = t + 1;
        pt.add(t);
        pw.add(w);
      }
      return;
    }
  }

  private boolean reads(int w, int v) {
    for (int i = rdStart[w]; i < rdStart[w + 1]; i++) if (rdV[i] == v) return true;
    return false;
  }
}
