package isocheck.check.si;

import isocheck.graph.Edge;
import isocheck.graph.EdgeList;
import isocheck.graph.Orders;
import isocheck.history.History;
import isocheck.history.OpRecord;
import isocheck.order.RegisterAnalysis;
import isocheck.util.IntList;
import isocheck.util.PairIntMap;
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
  /** Constraints: the writer pairs, first &lt; second. */
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

  public int constraints() { return first.length; }

  public int sideFrom(int c, int s) { return sideStart[2 * c + s]; }

  public int sideTo(int c, int s) { return sideStart[2 * c + s + 1]; }

  /**
   * Builds the polygraph of an rw-register history with session order when {@code session} and
   * realtime order when {@code realtime}.
   */
  public static Polygraph of(History h, RegisterAnalysis ra, boolean session, boolean realtime) {
    return new Builder(h, ra).build(session, realtime);
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

    Polygraph build(boolean session, boolean realtime) {
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
            int w = h.writerMop(k, v);
            if (w < 0) continue;
            int wt = h.mopTxn(w);
            if (wt == t || !committed[wt] || !isFinalWrite(wt, w, k)) continue;
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
        if (w > 1) edges += w * (w - 1) + rd * (w - 1);
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
      // Constraints, in two passes over each key's writer pairs: number the pairs and count
      // their sides' edges, then fill flat arrays (a list of lists per pair costs ten times more).
      PairIntMap pairs = new PairIntMap(1024);
      IntList first = new IntList(), second = new IntList(), count = new IntList();
      for (int k = 0; k < nKeys; k++) {
        IntList ws = writers[k];
        if (ws == null || ws.size() < 2) continue;
        for (int i = 0; i < ws.size(); i++) {
          for (int j = i + 1; j < ws.size(); j++) {
            int a = ws.get(i), b = ws.get(j);
            int c = pairs.get(a, b);
            if (c < 0) {
              c = first.size();
              pairs.putIfAbsent(a, b, c);
              first.add(a);
              second.add(b);
              count.add(0);
              count.add(0);
            }
            count.set(2 * c, count.get(2 * c) + sideSize(a, b, k));
            count.set(2 * c + 1, count.get(2 * c + 1) + sideSize(b, a, k));
          }
        }
      }
      int nc = first.size();
      int[] start = new int[2 * nc + 1];
      for (int i = 0; i < 2 * nc; i++) start[i + 1] = start[i] + count.get(i);
      int total = start[2 * nc];
      int[] src = new int[total], dst = new int[total], type = new int[total], key = new int[total];
      int[] fill = java.util.Arrays.copyOf(start, 2 * nc);
      count = null;
      for (int k = 0; k < nKeys; k++) {
        IntList ws = writers[k];
        if (ws == null || ws.size() < 2) continue;
        for (int i = 0; i < ws.size(); i++) {
          for (int j = i + 1; j < ws.size(); j++) {
            int a = ws.get(i), b = ws.get(j), c = pairs.get(a, b);
            fill[2 * c] = side(src, dst, type, key, fill[2 * c], a, b, k);
            fill[2 * c + 1] = side(src, dst, type, key, fill[2 * c + 1], b, a, k);
          }
        }
      }
      pairs = null;
      int relays = 0;
      if (session) {
        EdgeList so = new EdgeList(64);
        Orders.sessionOrder(h, committed, so);
        for (int i = 0; i < so.size(); i++) parts.known(so.src(i), so.dst(i), Edge.SO, -1, ORDER);
      }
      if (realtime) {
        EdgeList rt = new EdgeList(64);
        relays = Orders.realtime(h, committed, rt);
        for (int i = 0; i < rt.size(); i++) parts.known(rt.src(i), rt.dst(i), Edge.RT, -1, ORDER);
      }
      Polygraph p = new Polygraph(h, n + relays, committed, known, knownKey, knownWhy, first.toArray(), second.toArray(),
          start, src, dst, type, key);
      p.lostUpdates.addAll(lost);
      return p;
    }

    /** How many edges side "a before b on key k" has: WW a → b, and RW r → b for each reader r ≠ b of a's version. */
    private int sideSize(int a, int b, int k) {
      int c = 1;
      if (reader[k] == null) return c;
      IntList vs = readVersion[k];
      for (int i = first(vs, a); i < vs.size() && vs.get(i) == a; i++) if (reader[k].get(i) != b) c++;
      return c;
    }

    /** Writes side "a before b on key k" at o; returns the next free index. */
    private int side(int[] src, int[] dst, int[] type, int[] key, int o, int a, int b, int k) {
      src[o] = a;
      dst[o] = b;
      type[o] = Edge.WW;
      key[o++] = k;
      if (reader[k] == null) return o;
      IntList vs = readVersion[k];
      for (int i = first(vs, a); i < vs.size() && vs.get(i) == a; i++) {
        int r = reader[k].get(i);
        if (r == b) continue;
        src[o] = r;
        dst[o] = b;
        type[o] = Edge.RW;
        key[o++] = k;
      }
      return o;
    }

    /** The first index of version v in the sorted list vs (or where it would go). */
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


    /** Whether mop w is t's last write of key k (a read of an earlier one is an intermediate read). */
    private boolean isFinalWrite(int t, int w, int k) {
      for (int m = w + 1; m < h.mopEnd(t); m++) if (h.mopKind(m) == OpRecord.WRITE && h.mopKey(m) == k) return false;
      return true;
    }
  }

  /** Thrown when the constraints would not fit in memory. */
  public static final class TooLarge extends RuntimeException {
    public final long edges;

    TooLarge(long edges) {
      super(String.format("the write-order constraints would take %,d edges (about %,d MB), more than this JVM's heap "
          + "holds (max %,d MB): keys written by many transactions make pairs quadratic in their writers; raise -Xmx, "
          + "or rotate keys as Jepsen's workloads do", edges, edges * 16 >> 20, Runtime.getRuntime().maxMemory() >> 20));
      this.edges = edges;
    }
  }

  /** Side edges that fit: 16 bytes each, in a third of the heap still free. */
  static long maxSideEdges() {
    String p = System.getProperty("isocheck.search.max-edges");
    if (p != null) return Long.parseLong(p);
    Runtime rt = Runtime.getRuntime();
    return (rt.maxMemory() - (rt.totalMemory() - rt.freeMemory())) / 48;
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
