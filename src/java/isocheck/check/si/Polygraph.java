package isocheck.check.si;

import isocheck.graph.Edge;
import isocheck.graph.EdgeList;
import isocheck.graph.Orders;
import isocheck.history.History;
import isocheck.history.OpRecord;
import isocheck.order.RegisterAnalysis;
import isocheck.util.IntList;
import java.util.ArrayList;
import java.util.List;

/**
 * The generalized polygraph of a history (PolySI, PVLDB'23, Def. 9 and §4.2), over its committed
 * transactions: known edges, and constraints of two sides each, exactly one of which holds. This
 * class builds it for rw-register histories ({@link #of}); {@link AppendSearch#polygraph} builds
 * the list-append one, whose only open orders are those of appends no read observed.
 *
 * <p>rw-register. Values are unique per key, so every read names the version it
 * read (reads-from is known); only the version (write-write) order is unknown.
 *
 * <ul>
 * <li><b>Known edges</b>: reads-from (WR); the write-write orders the history itself fixes and
 *     the anti-dependencies (RW) they imply; session order (SO) and realtime order (RT, through
 *     relay nodes numbered from {@code nTxns}, {@link Orders#realtime}) when the level carries
 *     them.
 * <li><b>Constraints</b>: one per unordered pair of transactions writing a common key,
 *     coalesced across keys (any execution orders the pair the same way on every key they share,
 *     else it has a write cycle, G0). Side 0 puts {@code first} before {@code second}, side 1 the
 *     reverse. A side carries its WW edge on each shared key and the RW edges from the readers
 *     of the earlier writer's version of that key to the later writer (never from the later
 *     writer itself).
 * </ul>
 *
 * <p>Inference fixed before any search (si-solver.md §4 and §6):
 * <ul>
 * <li>The initial state ⊥ precedes every transaction: a read of nil of key x anti-depends on every
 *     committed writer of x (pitfall 1: PolySI's and VeriStrong's loaders leave ⊥ unordered).
 * <li>A read-modify-write T (reads x from U, then writes x) fixes U before T on x, and every other
 *     reader of U's x anti-depends on T; two of them on one version are a lost update.
 * <li>{@code :info} transactions someone read are committed ({@link RegisterAnalysis} marks them):
 *     they have no session successor (Jepsen renumbers the process) and incoming realtime edges
 *     only. Those nobody read are left out: dropping an unread writer only drops constraints, so
 *     if any execution explains the history, one without it does too. Never treated as aborted.
 * </ul>
 */
public final class Polygraph {
  /** A read of the initial state, as a version's writer. */
  public static final int BOT = -1;

  /**
   * Why a known edge holds, for explanations; TRANSLATED: the workload's analysis fixed it and
   * explains it (list-append: the version order read off the lists).
   */
  public static final int READS_FROM = 0, READ_MODIFY_WRITE = 1, INITIAL_READ = 2, OVERWRITTEN_READ = 3, ORDER = 4,
      TRANSLATED = 5;
  /**
   * The read-modify-writes that follow the initial state of a key come before its other writes
   * (isocheck.check.mt: the chain from ⊥ is contiguous and first): the last of them → another
   * chain's first write (WW), and its readers → that write (RW).
   */
  public static final int INITIAL_CHAIN = 6;

  public final History h;
  public final int nTxns;
  /** Transactions and realtime relays. */
  public final int nodes;
  public final boolean[] committed;
  /** Known edges over transactions (and relays), labelled {@link Edge} types. */
  public final EdgeList known;
  /**
   * Per known edge: the key it is about (-1 for SO and RT), and why it holds (the constants
   * above); both empty when the workload's analysis explains every known edge (list-append).
   */
  public final IntList knownKey, knownWhy;
  /** Constraints: the writer pairs, first &lt; second, numbered in (first, second) order. */
  public final int[] first, second;
  /** Side s of constraint c holds edges [sideStart[2c+s], sideStart[2c+s+1]) of sideSrc/Dst/Type/Key. */
  public final int[] sideStart, sideSrc, sideDst, sideType, sideKey;
  /** Lost updates: two read-modify-writes of one version. */
  public final List<int[]> lostUpdates = new ArrayList<>();

  /** A lost update: {key, the version's writer or BOT, t1, t2}. */
  public static int[] lostUpdate(int key, int version, int t1, int t2) { return new int[] {key, version, t1, t2}; }

  /**
   * A polygraph over {@code nodes} nodes (the history's transactions, then realtime relays): the
   * known edges with their keys and reasons, and the constraints' sides as flat arrays (see the
   * fields; the reasons may be left empty). Each workload's builder fills these ({@link #of},
   * {@link AppendSearch#polygraph}).
   */
  Polygraph(History h, int nodes, boolean[] committed, EdgeList known, IntList knownKey, IntList knownWhy, int[] first,
            int[] second, int[] sideStart, int[] src, int[] dst, int[] type, int[] key) {
    boolean reasons = knownKey.size() == known.size() && knownWhy.size() == known.size();
    if (!reasons && (knownKey.size() > 0 || knownWhy.size() > 0)) throw new IllegalArgumentException("known edges without reasons");
    if (sideStart.length != 2 * first.length + 1 || second.length != first.length) throw new IllegalArgumentException("bad sides");
    this.h = h;
    this.nTxns = h.nTxns;
    this.nodes = nodes;
    this.committed = committed;
    this.known = known;
    this.knownKey = knownKey;
    this.knownWhy = knownWhy;
    this.first = first;
    this.second = second;
    this.sideStart = sideStart;
    this.sideSrc = src;
    this.sideDst = dst;
    this.sideType = type;
    this.sideKey = key;
  }

  /**
   * A polygraph built elsewhere (isocheck.check.mt: constraints between chains of
   * read-modify-writes rather than between writers), without session or realtime order
   * ({@link #withOrders} adds them). Constraint c's side s holds edges
   * [sideStart[2c+s], sideStart[2c+s+1]); side 0 orders {@code first[c]}'s chain before
   * {@code second[c]}'s. The arrays are kept, not copied.
   */
  public static Polygraph of(History h, boolean[] committed, EdgeList known, IntList knownKey, IntList knownWhy,
                             int[] first, int[] second, int[] sideStart, int[] src, int[] dst, int[] type, int[] key) {
    return new Polygraph(h, h.nTxns, committed, known, knownKey, knownWhy, first, second, sideStart, src, dst, type, key);
  }

  public int constraints() { return first.length; }

  public int sideFrom(int c, int s) { return sideStart[2 * c + s]; }

  public int sideTo(int c, int s) { return sideStart[2 * c + s + 1]; }

  /**
   * Builds the polygraph of an rw-register history with session order when {@code session} and
   * realtime order when {@code realtime}.
   */
  public static Polygraph of(History h, RegisterAnalysis ra, boolean session, boolean realtime) {
    return of(h, ra, session, realtime, null);
  }

  /**
   * As above, with no constraint on the keys marked in {@code ordered} (may be null): keys whose
   * version order the known edges already fix, as a chain of read-modify-writes from the initial
   * state, or from one writer when none read-modify-wrote the initial value
   * (isocheck.check.mt.MtAnalysis). A pair's orders on its other keys still are constraints.
   */
  public static Polygraph of(History h, RegisterAnalysis ra, boolean session, boolean realtime, boolean[] ordered) {
    Builder b = new Builder(h, ra);
    b.ordered = ordered;
    return b.build().withOrders(session, realtime);
  }

  /**
   * This polygraph with session order (when {@code session}) and realtime order (when
   * {@code realtime}) added to its known edges. The constraints do not depend on those orders, so
   * their arrays are shared with this one, not copied: the four families of levels cost one set
   * of constraints.
   */
  public Polygraph withOrders(boolean session, boolean realtime) {
    if (!session && !realtime) return this;
    int relays = 0;
    EdgeList so = new EdgeList(64), rt = new EdgeList(64);
    if (session) Orders.sessionOrder(h, committed, so);
    if (realtime) relays = Orders.realtime(h, committed, rt);
    boolean reasons = knownWhy.size() == known.size() && known.size() > 0;
    EdgeList k2 = new EdgeList(known.size() + so.size() + rt.size());
    IntList key2 = new IntList(), why2 = new IntList();
    for (int i = 0; i < known.size(); i++) k2.add(known.src(i), known.dst(i), known.type(i));
    if (reasons) {
      key2.addAll(knownKey);
      why2.addAll(knownWhy);
    }
    for (EdgeList es : new EdgeList[] {so, rt}) {
      int type = es == so ? Edge.SO : Edge.RT;
      for (int i = 0; i < es.size(); i++) {
        k2.add(es.src(i), es.dst(i), type);
        if (reasons) {
          key2.add(-1);
          why2.add(ORDER);
        }
      }
    }
    Polygraph p = new Polygraph(h, nTxns + relays, committed, k2, key2, why2, first, second, sideStart, sideSrc, sideDst,
        sideType, sideKey);
    p.lostUpdates.addAll(lostUpdates);
    return p;
  }

  /** One pass over the reads, then per key over its writers. */
  private static final class Builder {
    final History h;
    final RegisterAnalysis ra;
    final int n, nKeys;
    final boolean[] committed;
    /** Per key: committed writers (their last write of the key), in id order. */
    final IntList[] writers;
    /** Per key: the readers of each version, as pairs (version writer or BOT, reader). */
    final IntList[] readVersion, reader;
    /** Per key: the read-modify-writes, as pairs (version writer or BOT, writer). */
    final IntList[] rmwVersion, rmwTxn;
    /** Per key: see {@link #readerRanges}. */
    int[][] readersLo;
    /** Keys without constraints (their order is known), or null. */
    boolean[] ordered;

    boolean constrained(int k) { return ordered == null || !ordered[k]; }

    Builder(History h, RegisterAnalysis ra) {
      this.h = h;
      this.ra = ra;
      n = h.nTxns;
      nKeys = h.keyCount();
      committed = ra.committed.clone();
      writers = new IntList[nKeys];
      readVersion = new IntList[nKeys];
      reader = new IntList[nKeys];
      rmwVersion = new IntList[nKeys];
      rmwTxn = new IntList[nKeys];
    }

    private static IntList add(IntList[] a, int k, int v) {
      if (a[k] == null) a[k] = new IntList(4);
      a[k].add(v);
      return a[k];
    }

    /** The polygraph without session or realtime order ({@link #withOrders} adds them). */
    Polygraph build() {
      int[] writesKey = new int[nKeys];
      java.util.Arrays.fill(writesKey, -1);
      for (int t = 0; t < n; t++) {
        if (!committed[t]) continue;
        for (int m = h.mopEnd(t) - 1; m >= h.mopStart(t); m--) {
          if (h.mopKind(m) != OpRecord.WRITE) continue;
          int k = h.mopKey(m);
          if (writesKey[k] == t) continue;
          writesKey[k] = t;
          add(writers, k, t);
        }
      }
      // Reads: only the external reads of :ok transactions name a version; reads the pre-checks
      // flagged (aborted, intermediate, garbage, future) are violations already and name none.
      int[] stamp = new int[nKeys];
      java.util.Arrays.fill(stamp, -1);
      for (int t = 0; t < n; t++) {
        if (!h.isOk(t)) continue;
        for (int m = h.mopEnd(t) - 1; m >= h.mopStart(t); m--) {
          if (h.mopKind(m) == OpRecord.WRITE) stamp[h.mopKey(m)] = t;
        }
        for (int m = h.mopStart(t); m < h.mopEnd(t); m++) {
          if (h.mopKind(m) != OpRecord.READ || !ra.external[m]) continue;
          int k = h.mopKey(m), v = h.mopVal(m), version;
          if (v == History.NIL) version = BOT;
          else {
            int w = ra.writerOfRead[m]; // the pre-checks looked it up: h.writerMop(k, v)
            if (w < 0) continue;
            int wt = h.mopTxn(w);
            if (wt == t || !committed[wt] || !ra.isFinalWrite(w)) continue;
            version = wt;
          }
          add(readVersion, k, version);
          add(reader, k, t);
          if (stamp[k] == t) {
            add(rmwVersion, k, version);
            add(rmwTxn, k, t);
          }
        }
      }
      // Readers of one version side by side, so a writer's readers are one binary search away.
      for (int k = 0; k < nKeys; k++) if (reader[k] != null) sortByVersion(readVersion[k], reader[k]);
      // Size first: a key written by w transactions gives w(w-1)/2 pairs, two WW edges each, and
      // each of its reads an RW edge per other writer. Refuse what would not fit, before allocating.
      long edges = 0;
      for (int k = 0; k < nKeys; k++) {
        long w = writers[k] == null ? 0 : writers[k].size(), rd = reader[k] == null ? 0 : reader[k].size();
        if (w > 1 && constrained(k)) edges += w * (w - 1) + rd * (w - 1);
      }
      if (edges > maxSideEdges()) throw new TooLarge(edges);
      EdgeList known = new EdgeList();
      IntList knownKey = new IntList(), knownWhy = new IntList();
      PolygraphParts parts = new PolygraphParts(known, knownKey, knownWhy);
      // Reads-from.
      for (int k = 0; k < nKeys; k++) {
        if (reader[k] == null) continue;
        for (int i = 0; i < reader[k].size(); i++) {
          int ver = readVersion[k].get(i);
          if (ver != BOT) parts.known(ver, reader[k].get(i), Edge.WR, k, READS_FROM);
        }
      }
      List<int[]> lost = new ArrayList<>();
      for (int k = 0; k < nKeys; k++) {
        IntList ws = writers[k];
        // The initial state: its readers anti-depend on every writer of the key.
        if (reader[k] != null && ws != null) {
          for (int i = 0; i < reader[k].size(); i++) {
            if (readVersion[k].get(i) != BOT) continue;
            int r = reader[k].get(i);
            for (int j = 0; j < ws.size(); j++) if (ws.get(j) != r) parts.known(r, ws.get(j), Edge.RW, k, INITIAL_READ);
          }
        }
        // Read-modify-writes fix their version's writer first, and that version's other readers
        // before them; two of one version are a lost update.
        if (rmwTxn[k] != null) {
          for (int i = 0; i < rmwTxn[k].size(); i++) {
            int ver = rmwVersion[k].get(i), t = rmwTxn[k].get(i);
            for (int j = 0; j < i; j++) {
              if (rmwVersion[k].get(j) == ver) lost.add(lostUpdate(k, ver, rmwTxn[k].get(j), t));
            }
            if (ver == BOT) continue;
            parts.known(ver, t, Edge.WW, k, READ_MODIFY_WRITE);
            for (int j = first(readVersion[k], ver); j < readVersion[k].size() && readVersion[k].get(j) == ver; j++) {
              int r = reader[k].get(j);
              if (r != t) parts.known(r, t, Edge.RW, k, OVERWRITTEN_READ);
            }
          }
        }
      }
      // Constraints, per writer a in id order: the later writers b of each key a writes, grouped
      // by b (a pair sharing several keys is one constraint). Numbered in (a, b) order, sized in a
      // first pass and filled in a second into flat arrays (a list of lists per pair costs ten
      // times more; a hash map of pairs misses the cache on every probe).
      readerRanges();
      int[][] txnKeys = writtenKeys();
      int[] txnKeyStart = txnKeys[0], txnKeyList = txnKeys[1], txnKeyPos = txnKeys[2];
      long[] buf = new long[64];
      int nc = 0;
      long totalEdges = 0;
      for (int pass = 0; pass < 2; pass++) {
        int[] start = pass == 0 ? null : new int[2 * nc + 1];
        int[] firstA = pass == 0 ? null : new int[nc], secondA = pass == 0 ? null : new int[nc];
        int[] src = null, dst = null, type = null, key = null;
        if (pass == 1) {
          src = new int[(int) totalEdges];
          dst = new int[(int) totalEdges];
          type = new int[(int) totalEdges];
          key = new int[(int) totalEdges];
        }
        int c = 0, o = 0;
        for (int a = 0; a < n; a++) {
          int m = 0;
          for (int i = txnKeyStart[a]; i < txnKeyStart[a + 1]; i++) {
            int k = txnKeyList[i];
            if (!constrained(k)) continue;
            IntList ws = writers[k];
            for (int j = txnKeyPos[i] + 1; j < ws.size(); j++) {
              if (m == buf.length) buf = java.util.Arrays.copyOf(buf, m * 2);
              buf[m++] = ((long) ws.get(j) << 32) | i;
            }
          }
          if (m == 0) continue;
          java.util.Arrays.sort(buf, 0, m);
          for (int i = 0; i < m; ) {
            int b = (int) (buf[i] >>> 32), e = i;
            while (e < m && (int) (buf[e] >>> 32) == b) e++;
            if (pass == 0) {
              for (int x = i; x < e; x++) {
                int ki = (int) buf[x], k = txnKeyList[ki];
                totalEdges += sideSize(k, txnKeyPos[ki], b) + sideSize(k, position(k, b), a);
              }
            } else {
              firstA[c] = a;
              secondA[c] = b;
              start[2 * c] = o;
              for (int x = i; x < e; x++) {
                int ki = (int) buf[x];
                o = side(src, dst, type, key, o, txnKeyList[ki], txnKeyPos[ki], a, b);
              }
              start[2 * c + 1] = o;
              for (int x = i; x < e; x++) {
                int k = txnKeyList[(int) buf[x]];
                o = side(src, dst, type, key, o, k, position(k, b), b, a);
              }
            }
            c++;
            i = e;
          }
        }
        if (pass == 0) {
          nc = c;
          if (totalEdges > Integer.MAX_VALUE - 16) throw new TooLarge(totalEdges);
          continue;
        }
        start[2 * nc] = o;
        Polygraph p = new Polygraph(h, n, committed, known, knownKey, knownWhy, firstA, secondA, start, src, dst, type, key);
        p.lostUpdates.addAll(lost);
        return p;
      }
      throw new AssertionError();
    }

    /**
     * Per committed transaction, the keys it writes and its position among each key's writers, as
     * CSR arrays: {start (n + 1), key, position}.
     */
    private int[][] writtenKeys() {
      int[] start = new int[n + 1];
      for (int k = 0; k < nKeys; k++) {
        if (writers[k] == null) continue;
        for (int j = 0; j < writers[k].size(); j++) start[writers[k].get(j) + 1]++;
      }
      for (int t = 0; t < n; t++) start[t + 1] += start[t];
      int[] keys = new int[start[n]], pos = new int[start[n]], fill = java.util.Arrays.copyOf(start, n);
      for (int k = 0; k < nKeys; k++) {
        if (writers[k] == null) continue;
        for (int j = 0; j < writers[k].size(); j++) {
          int t = writers[k].get(j), i = fill[t]++;
          keys[i] = k;
          pos[i] = j;
        }
      }
      return new int[][] {start, keys, pos};
    }


    /**
     * How many edges side "a before b on key k" has, a being writer {@code pa} of k: WW a → b, and
     * RW r → b for each reader r ≠ b of a's version.
     */
    private int sideSize(int k, int pa, int b) {
      int c = 1;
      for (int i = readersLo[k][pa]; i < readersLo[k][pa + 1]; i++) if (reader[k].get(i) != b) c++;
      return c;
    }

    /** Writes side "a before b on key k" at o, a being writer {@code pa} of k; returns the next free index. */
    private int side(int[] src, int[] dst, int[] type, int[] key, int o, int k, int pa, int a, int b) {
      src[o] = a;
      dst[o] = b;
      type[o] = Edge.WW;
      key[o++] = k;
      for (int i = readersLo[k][pa]; i < readersLo[k][pa + 1]; i++) {
        int r = reader[k].get(i);
        if (r == b) continue;
        src[o] = r;
        dst[o] = b;
        type[o] = Edge.RW;
        key[o++] = k;
      }
      return o;
    }

    /** The position of writer t among k's writers (in id order). */
    private int position(int k, int t) { return first(writers[k], t); }

    /**
     * Per key written twice or more: where the readers of each writer's version start in the
     * key's readers (sorted by version, so writer j's are [lo[j], lo[j + 1])).
     */
    private void readerRanges() {
      readersLo = new int[nKeys][];
      for (int k = 0; k < nKeys; k++) {
        IntList ws = writers[k];
        if (ws == null || ws.size() < 2) continue;
        int[] lo = new int[ws.size() + 1];
        IntList vs = readVersion[k];
        int nr = vs == null ? 0 : vs.size(), i = 0;
        for (int j = 0; j < ws.size(); j++) {
          while (i < nr && vs.get(i) < ws.get(j)) i++;
          lo[j] = i;
          // Versions are final writes of committed writers, so none lies between two writers.
          int e = i;
          while (e < nr && vs.get(e) == ws.get(j)) e++;
          lo[j + 1] = e;
          i = e;
        }
        readersLo[k] = lo;
      }
    }

    /** The first index of v in the sorted list vs (or where it would go). */
    private static int first(IntList vs, int v) {
      int lo = 0, hi = vs.size();
      while (lo < hi) {
        int mid = (lo + hi) >>> 1;
        if (vs.get(mid) < v) lo = mid + 1;
        else hi = mid;
      }
      return lo;
    }

    /** Sorts the pairs (version, reader) by version, readers in id order within one. */
    private static void sortByVersion(IntList vs, IntList rs) {
      int n = vs.size();
      long[] pairs = new long[n];
      for (int i = 0; i < n; i++) pairs[i] = ((long) vs.get(i) << 32) | (rs.get(i) & 0xffffffffL);
      java.util.Arrays.sort(pairs);
      for (int i = 0; i < n; i++) {
        vs.set(i, (int) (pairs[i] >> 32));
        rs.set(i, (int) pairs[i]);
      }
    }
  }

  /** Thrown when the constraints would not fit in memory. */
  public static final class TooLarge extends RuntimeException {
    public final long edges;

    TooLarge(long edges) {
      super(String.format("the write-order constraints would take %,d edges (%,d MB, and up to three times that while "
          + "searching), more than the %,d MB free of this JVM's heap (max %,d MB) allow: keys written by many "
          + "transactions make pairs quadratic in their writers; raise the heap (ISOCHECK_HEAP, -Xmx), or rotate keys as "
          + "Jepsen's workloads do", edges, edges * 16 >> 20, freeHeap() >> 20, Runtime.getRuntime().maxMemory() >> 20));
      this.edges = edges;
    }
  }

  /** Side edges that fit: 16 bytes each, in a third of the heap still free. */
  static long maxSideEdges() {
    String p = System.getProperty("isocheck.search.max-edges");
    if (p != null) return Long.parseLong(p);
    return freeHeap() / 48;
  }

  /** Heap not in use: what the JVM may still allocate. */
  static long freeHeap() {
    Runtime rt = Runtime.getRuntime();
    return rt.maxMemory() - (rt.totalMemory() - rt.freeMemory());
  }

  /** The known edges being collected, with their provenance. */
  private record PolygraphParts(EdgeList known, IntList key, IntList why) {
    void known(int from, int to, int type, int k, int reason) {
      known.add(from, to, type);
      key.add(k);
      why.add(reason);
    }
  }
}
