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
  public static final int BOT = RegisterAnalysis.INITIAL;

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
  /**
   * Realtime fixes the order of two writers of a key when one completed before the other was
   * invoked (levels with realtime order: {@link #of(History, RegisterAnalysis, boolean[], boolean)}):
   * the earlier one's write first (WW), and its version's readers before the later (RW).
   */
  public static final int REALTIME_ORDER = 7;

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
   * With orders added ({@link #withOrders}) they cover the edges before the orders, which come
   * last and need no reason of their own (ORDER).
   */
  public final IntList knownKey, knownWhy;
  /** Constraints: the writer pairs, first &lt; second, numbered in (first, second) order. */
  public final int[] first, second;
  /** Side s of constraint c holds edges [sideStart[2c+s], sideStart[2c+s+1]) of sideSrc/Dst/Type/Key. */
  public final int[] sideStart, sideSrc, sideDst, sideType, sideKey;
  /** Lost updates: two read-modify-writes of one version. */
  public final List<int[]> lostUpdates = new ArrayList<>();
  /**
   * Whether the writer pairs realtime orders are known edges rather than constraints
   * ({@link #REALTIME_ORDER}): sound only with realtime order among the known edges, so
   * {@link #withOrders} must add it.
   */
  boolean fixedByRealtime;
  /** How many of the known edges realtime fixed ({@link #REALTIME_ORDER}). */
  public long realtimeEdges;

  /** A lost update: {key, the version's writer or BOT, t1, t2}. */
  public static int[] lostUpdate(int key, int version, int t1, int t2) { return new int[] {key, version, t1, t2}; }

  /**
   * A polygraph over {@code nodes} nodes (the history's transactions, then realtime relays): the
   * known edges with their keys and reasons, and the constraints' sides as flat arrays (see the
   * fields; the reasons may be left empty, or cover a prefix). Each workload's builder fills these ({@link #of},
   * {@link AppendSearch#polygraph}).
   */
  Polygraph(History h, int nodes, boolean[] committed, EdgeList known, IntList knownKey, IntList knownWhy, int[] first,
            int[] second, int[] sideStart, int[] src, int[] dst, int[] type, int[] key) {
    // (The reasons cover the known edges, or, orders added, those before the orders.)
    if (knownKey.size() != knownWhy.size() || knownWhy.size() > known.size()) throw new IllegalArgumentException("known edges without reasons");
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
   * As above, without session or realtime order, which {@link #withOrders} adds; when
   * {@code byRealtime}, only for levels with realtime order (strict serializability, strong SI,
   * GSI), whose executions order two writers of a key as realtime does when one completed
   * ({@code :ok}) before the other was invoked: such a pair is no constraint but known edges, the
   * earlier writer's WW edge to the later and its version's readers' RW edges, kept only along
   * the covering pairs of that order (the others follow by transitivity, through WW steps;
   * {@link #REALTIME_ORDER}). Pruning would force the same sides (the other closes a cycle with
   * realtime order), but only after building every pair: on a history whose keys each see a few
   * writers over its run, nearly all of them. Constraints are left for the writers that overlap
   * in time, at most as many per writer as there were concurrent transactions.
   */
  public static Polygraph of(History h, RegisterAnalysis ra, boolean[] ordered, boolean byRealtime) {
    return of(h, ra, ordered, byRealtime, false);
  }

  /**
   * The known edges alone (with the writer orders realtime fixes when {@code byRealtime}, as
   * {@link #of(History, RegisterAnalysis, boolean[], boolean)} has them), without session or
   * realtime order ({@link #withOrders} adds them) and without a constraint: a cycle among them is in every graph the full polygraph allows (its
   * known edges are these), so it is a violation found without building the writer pairs, which
   * at 10^6 transactions take seconds and gigabytes. No cycle concludes nothing.
   */
  public static Polygraph knownOnly(History h, RegisterAnalysis ra, boolean[] ordered, boolean byRealtime) {
    return of(h, ra, ordered, byRealtime, true);
  }

  private static Polygraph of(History h, RegisterAnalysis ra, boolean[] ordered, boolean byRealtime, boolean knownOnly) {
    Builder b = new Builder(h, ra);
    b.knownOnly = knownOnly;
    b.byRealtime = byRealtime;
    return of(b, ordered);
  }

  static Polygraph of(Builder b, boolean[] ordered) {
    b.ordered = ordered;
    Polygraph p = b.build();
    p.fixedByRealtime = b.byRealtime;
    for (int i = 0; i < p.knownWhy.size(); i++) if (p.knownWhy.get(i) == REALTIME_ORDER) p.realtimeEdges++;
    return p;
  }

  /**
   * The first steps of {@link #of(History, RegisterAnalysis, boolean[], boolean)}, which do not
   * need the keys whose order is known: each key's writers and reads, grouped by version. A thread
   * that would wait for those keys (the mini-transaction chains) takes them meanwhile, then
   * finishes with {@link Prepared#of}: on the serializable store's Jepsen-shaped history at 10^6,
   * 0.16 s of the build (one core, C1) no longer after the chains.
   */
  public static Prepared prepare(History h, RegisterAnalysis ra, boolean byRealtime) { return prepare(h, ra, byRealtime, null); }

  /**
   * As above, given up (null returned) soon after {@code stop} says so: the check closing the
   * thread that waits for the chains, because it will not search (the mini-transaction checker
   * decided every level), waits for it.
   */
  public static Prepared prepare(History h, RegisterAnalysis ra, boolean byRealtime, java.util.function.BooleanSupplier stop) {
    Builder b = new Builder(h, ra);
    b.byRealtime = byRealtime;
    b.stop = stop;
    try {
      return new Prepared(b.prepare());
    } catch (Stopped e) {
      return null;
    }
  }

  /** {@link Builder#stop} said so. */
  private static final class Stopped extends RuntimeException {
    Stopped() { super(null, null, false, false); }
  }

  /** A polygraph's first steps ({@link #prepare}). */
  public static final class Prepared {
    private Builder b;

    private Prepared(Builder b) { this.b = b; }

    /** The polygraph {@code Polygraph.of(h, ra, ordered, byRealtime)} gives; once. */
    public Polygraph of(boolean[] ordered) {
      Builder d = b;
      if (d == null) throw new IllegalStateException("built already");
      b = null;
      return Polygraph.of(d, ordered);
    }
  }

  /**
   * This polygraph with session order (when {@code session}) and realtime order (when
   * {@code realtime}) added to its known edges. The constraints do not depend on those orders, so
   * their arrays are shared with this one, not copied: the four families of levels cost one set
   * of constraints.
   */
  /** Session order and realtime order, once computed or given ({@link #orders}): [from, to) of es. */
  private EdgeList sessionOrder, realtimeOrder;
  private int soFrom, soTo, rtFrom, rtTo, realtimeRelays;

  /**
   * Takes the session and realtime orders (either may be absent) from where the check's observed
   * graph appended them (its transactions committed as this polygraph's: else, or when null,
   * ignored), rather than computing them again in {@link #withOrders}.
   */
  public synchronized Polygraph orders(isocheck.graph.OrderEdges o) {
    if (o == null || !java.util.Arrays.equals(o.committed, committed)) return this;
    if (o.session && sessionOrder == null) {
      sessionOrder = o.es;
      soFrom = o.soFrom;
      soTo = o.soTo;
    }
    if (o.realtime && realtimeOrder == null) {
      realtimeOrder = o.es;
      rtFrom = o.rtFrom;
      rtTo = o.rtTo;
      realtimeRelays = o.relays;
    }
    return this;
  }

  public synchronized Polygraph withOrders(boolean session, boolean realtime) {
    // (Synchronized, as orders is: the families' searches may ask from two threads, GSI's beside
    // strict serializability's, PolygraphSearch#startBeside.)
    if (fixedByRealtime && !realtime) throw new IllegalArgumentException("writer orders fixed by realtime need realtime order");
    if (!session && !realtime) return this;
    // (Each order computed once for the families sharing this polygraph: strict
    // serializability's and GSI's realtime order are the same edges.)
    if (session && sessionOrder == null) {
      sessionOrder = new EdgeList(64);
      Orders.sessionOrder(h, committed, sessionOrder);
      soTo = sessionOrder.size();
    }
    if (realtime && realtimeOrder == null) {
      realtimeOrder = new EdgeList(64);
      realtimeRelays = Orders.realtime(h, committed, realtimeOrder);
      rtTo = realtimeOrder.size();
    }
    int relays = realtime ? realtimeRelays : 0;
    EdgeList k2 = new EdgeList(known.size() + (session ? soTo - soFrom : 0) + (realtime ? rtTo - rtFrom : 0));
    k2.addAll(known);
    if (session) for (int i = soFrom; i < soTo; i++) k2.add(sessionOrder.src(i), sessionOrder.dst(i), Edge.SO);
    if (realtime) for (int i = rtFrom; i < rtTo; i++) k2.add(realtimeOrder.src(i), realtimeOrder.dst(i), Edge.RT);
    // The reasons are this polygraph's own lists, shared, not copied: they cover its known
    // edges, which come first, and the orders after them need none (ORDER). (Two lists of ints
    // per edge: 9.8 million edges on the serializable store's Jepsen-shaped 10^6 history.)
    Polygraph p = new Polygraph(h, nTxns + relays, committed, k2, knownKey, knownWhy, first, second, sideStart, sideSrc, sideDst,
        sideType, sideKey);
    p.lostUpdates.addAll(lostUpdates);
    p.fixedByRealtime = fixedByRealtime;
    p.realtimeEdges = realtimeEdges;
    return p;
  }

  /**
   * One pass over the writes and one over the reads, each counted first and then filled into flat
   * per-key arrays (a list per key cost more than the rest of the build at 10^5 transactions),
   * then per key over its writers.
   */
  static final class Builder {
    final History h;
    final RegisterAnalysis ra;
    final int n, nKeys;
    final boolean[] committed;
    /** Per key k: its committed writers, in id order, at slots [wStart[k], wStart[k + 1]) of wTxn. */
    int[] wStart, wTxn;
    /**
     * Per key k: the reads that name a version, as (the version's writer or BOT, reader), by
     * version and then reader, at [rStart[k], rStart[k + 1]) of rVer and rTxn.
     */
    int[] rStart, rVer, rTxn;
    /** Per writer slot: the readers of its version, [verLo[s], verHi[s]) of rVer and rTxn. */
    int[] verLo, verHi;
    /** Per key: the read-modify-writes, as pairs (version writer or BOT, writer). */
    final IntList[] rmwVersion, rmwTxn;
    /** Keys without constraints (their order is known), or null. */
    boolean[] ordered;
    /** Whether writer pairs realtime orders are known edges, not constraints ({@link #of(History, RegisterAnalysis, boolean[], boolean)}). */
    boolean byRealtime;
    /** Whether to stop after the known edges: no constraint ({@link #knownOnly}). */
    boolean knownOnly;
    /**
     * byRealtime, per writer slot: the least invocation among the key's writers from that slot
     * on (-1 when one has none), so a scan for the writers overlapping one stops early.
     */
    long[] sufMinInvoke;
    /**
     * byRealtime, per writer slot: its writer's invocation and its end ({@link #end}), read in
     * slot order by the scans over each key's writers, where the writers' own fields in the
     * history were a cache miss each.
     */
    long[] slotInvoke, slotEnd;

    boolean constrained(int k) { return ordered == null || !ordered[k]; }

    Builder(History h, RegisterAnalysis ra) {
      this.h = h;
      this.ra = ra;
      n = h.nTxns;
      nKeys = h.keyCount();
      committed = ra.committed.clone();
      rmwVersion = new IntList[nKeys];
      rmwTxn = new IntList[nKeys];
    }

    private static IntList add(IntList[] a, int k, int v) {
      if (a[k] == null) a[k] = new IntList(4);
      a[k].add(v);
      return a[k];
    }

    int writers(int k) { return wStart[k + 1] - wStart[k]; }

    int writer(int k, int j) { return wTxn[wStart[k] + j]; }

    /**
     * The committed writers of each key, counted and then filled: each transaction's final write
     * of a key, which the pre-checks marked, once per key it writes (no per-key array of the last
     * writer seen, a cache miss a micro-op).
     */
    private void writers() {
      wStart = new int[nKeys + 1];
      for (int pass = 0; pass < 2; pass++) {
        int[] fill = pass == 0 ? null : java.util.Arrays.copyOf(wStart, nKeys);
        for (int t = 0; t < n; t++) {
          stopIfAsked(t);
          if (!committed[t]) continue;
          for (int m = h.mopStart(t); m < h.mopEnd(t); m++) {
            if (h.mopKind(m) != OpRecord.WRITE || !ra.isFinalWrite(m)) continue;
            int k = h.mopKey(m);
            if (pass == 0) wStart[k + 1]++;
            else wTxn[fill[k]++] = t;
          }
        }
        if (pass == 0) {
          for (int k = 0; k < nKeys; k++) wStart[k + 1] += wStart[k];
          wTxn = new int[wStart[nKeys]];
        }
      }
    }

    /** The reads naming a version, per key by version (counted, filled, sorted), and the read-modify-writes. */
    private void reads() {
      rStart = new int[nKeys + 1];
      int[] stamp = new int[nKeys], versions = ra.versions();
      for (int pass = 0; pass < 2; pass++) {
        int[] fill = pass == 0 ? null : java.util.Arrays.copyOf(rStart, nKeys);
        java.util.Arrays.fill(stamp, -1);
        for (int t = 0; t < n; t++) {
          stopIfAsked(t);
          if (!h.isOk(t)) continue;
          if (pass == 1) for (int m = h.mopEnd(t) - 1; m >= h.mopStart(t); m--) if (h.mopKind(m) == OpRecord.WRITE) stamp[h.mopKey(m)] = t;
          for (int m = h.mopStart(t); m < h.mopEnd(t); m++) {
            int version = versions[m];
            if (version == RegisterAnalysis.NO_VERSION) continue;
            int k = h.mopKey(m);
            if (pass == 0) {
              rStart[k + 1]++;
              continue;
            }
            int i = fill[k]++;
            rVer[i] = version;
            rTxn[i] = t;
            if (stamp[k] == t) {
              add(rmwVersion, k, version);
              add(rmwTxn, k, t);
            }
          }
        }
        if (pass == 0) {
          for (int k = 0; k < nKeys; k++) rStart[k + 1] += rStart[k];
          rVer = new int[rStart[nKeys]];
          rTxn = new int[rStart[nKeys]];
        }
      }
      // Readers of one version side by side (readers in id order within it), so a writer's
      // readers are one range.
      long[] pairs = new long[16];
      for (int k = 0; k < nKeys; k++) {
        int lo = rStart[k], hi = rStart[k + 1];
        boolean sorted = true;
        for (int i = lo + 1; i < hi && sorted; i++) sorted = rVer[i - 1] <= rVer[i];
        if (sorted) continue; // (filled in reader order)
        if (pairs.length < hi - lo) pairs = new long[Math.max(hi - lo, 2 * pairs.length)];
        for (int i = lo; i < hi; i++) pairs[i - lo] = ((long) rVer[i] << 32) | (rTxn[i] & 0xffffffffL);
        java.util.Arrays.sort(pairs, 0, hi - lo);
        for (int i = lo; i < hi; i++) {
          rVer[i] = (int) (pairs[i - lo] >> 32);
          rTxn[i] = (int) pairs[i - lo];
        }
      }
      // Per writer slot, its version's readers. Versions are final writes of committed writers,
      // so none lies between two writers.
      verLo = new int[wTxn.length];
      verHi = new int[wTxn.length];
      for (int k = 0; k < nKeys; k++) {
        int i = rStart[k], e = rStart[k + 1];
        for (int s = wStart[k]; s < wStart[k + 1]; s++) {
          while (i < e && rVer[i] < wTxn[s]) i++;
          verLo[s] = i;
          while (i < e && rVer[i] == wTxn[s]) i++;
          verHi[s] = i;
        }
      }
    }

    /**
     * Whether a polygraph of this many side edges is better searched with its constraints
     * generated lazily ({@link LazyConstraints}), although it fits: quadratic in the writers of
     * its keys, past {@link #LAZY_FROM_EDGES} edges and {@link #LAZY_FROM_RATIO} per micro-op
     * (keys written thousands of times without rotation). Then {@link TooLarge} is thrown and the
     * search generates them lazily. (lein bench lazy, 12,000 transactions: 2 keys written by
     * every writer, 73 million side edges, 6,000 per micro-op: 21.5 s and 10 GB whole, 3.2 s and
     * 1.4 GB lazily; Jepsen-shaped over 1,000 keys never rotated, 28 million, 580 per micro-op:
     * 4.2 s and 2.6 GB against 0.14 s and 123 MB. lein bench order's session-ordered
     * Jepsen-shaped history of the SI store at 10^5, keys rotated after 32 writes, 6 million side
     * edges, 15 per micro-op: 12.2 s whole (31 pinned rounds), 2.5 s lazily. Plume-shaped
     * histories, 2·10^5 transactions over 200,000 keys, 37 million side edges, 9 per micro-op:
     * decided whole with a 120 s limit, unknown lazily at 60 s. Tests turn it off,
     * -Disocheck.search.lazy-constraints=false.)
     */
    private boolean lazier(long edges) {
      if ("false".equals(System.getProperty("isocheck.search.lazy-constraints")) || WHOLE.get()) return false;
      // (Tests lower the bound, -Disocheck.search.lazy-from-edges=N: past N edges, whatever the ratio.)
      Long from = Long.getLong("isocheck.search.lazy-from-edges");
      if (from != null) return edges > from;
      return edges > LAZY_FROM_EDGES && edges > LAZY_FROM_RATIO * (long) h.mopCount();
    }

    static final long LAZY_FROM_EDGES = 4_000_000L, LAZY_FROM_RATIO = 12;

    /**
     * Set by the search, in its thread, when constraints generated lazily did not decide a level
     * within their share of the time and the whole polygraph fits: built whole then, however
     * quadratic ({@link PolygraphSearch}).
     */
    static final ThreadLocal<Boolean> WHOLE = ThreadLocal.withInitial(() -> false);

    /** Whether {@link #prepare} ran. */
    private boolean prepared;
    /** Checked every 4,096 transactions by {@link #prepare}'s passes (null: never stopped). */
    java.util.function.BooleanSupplier stop;

    private void stopIfAsked(int t) {
      if ((t & 4095) == 0 && stop != null && stop.getAsBoolean()) throw new Stopped();
    }

    /**
     * The steps of {@link #build} that do not depend on {@link #ordered}: each key's writers and
     * reads, and (byRealtime) the writer slots' times. Once.
     */
    Builder prepare() {
      if (prepared) return this;
      writers();
      reads();
      if (byRealtime) {
        slotInvoke = new long[wTxn.length];
        slotEnd = new long[wTxn.length];
        for (int s = 0; s < wTxn.length; s++) {
          slotInvoke[s] = h.invokeOrdinal(wTxn[s]);
          slotEnd[s] = end(wTxn[s]);
        }
      }
      prepared = true;
      return this;
    }

    Polygraph build() {
      prepare();
      // Size first: a key written by w transactions gives w(w-1)/2 pairs, two WW edges each, and
      // each of its reads an RW edge per other writer. Refuse what would not fit, before allocating.
      long edges = 0;
      for (int k = 0; k < nKeys; k++) {
        long w = writers(k), rd = rStart[k + 1] - rStart[k];
        if (w > 1 && constrained(k)) edges += w * (w - 1) + rd * (w - 1);
      }
      // (Realtime leaves far fewer: counted exactly below, before the sides are allocated.)
      if (!byRealtime && !knownOnly && (edges > maxSideEdges() || lazier(edges))) throw new TooLarge(edges);
      EdgeList known = new EdgeList();
      IntList knownKey = new IntList(), knownWhy = new IntList();
      PolygraphParts parts = new PolygraphParts(known, knownKey, knownWhy);
      // Reads-from.
      for (int k = 0; k < nKeys; k++) {
        for (int i = rStart[k]; i < rStart[k + 1]; i++) if (rVer[i] != BOT) parts.known(rVer[i], rTxn[i], Edge.WR, k, READS_FROM);
      }
      List<int[]> lost = new ArrayList<>();
      for (int k = 0; k < nKeys; k++) {
        // The initial state: its readers anti-depend on every writer of the key (realtime: on
        // those no other writer completed before, whom the rest follow).
        long firstEnd = byRealtime && constrained(k) ? firstCompletion(k) : Long.MAX_VALUE;
        for (int i = rStart[k]; i < rStart[k + 1] && rVer[i] == BOT; i++) {
          int r = rTxn[i];
          for (int s = wStart[k]; s < wStart[k + 1]; s++) {
            int w = wTxn[s];
            if (w != r && (firstEnd == Long.MAX_VALUE || firstEnd >= slotInvoke[s])) parts.known(r, w, Edge.RW, k, INITIAL_READ);
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
            for (int j = firstRead(k, ver); j < rStart[k + 1] && rVer[j] == ver; j++) {
              int r = rTxn[j];
              if (r != t) parts.known(r, t, Edge.RW, k, OVERWRITTEN_READ);
            }
          }
        }
      }
      if (byRealtime) realtimeOrders(parts);
      if (knownOnly) {
        Polygraph p = new Polygraph(h, n, committed, known, knownKey, knownWhy, new int[0], new int[0], new int[1], new int[0],
            new int[0], new int[0], new int[0]);
        p.lostUpdates.addAll(lost);
        return p;
      }
      // Constraints, per writer a in id order: the later writers b of each key a writes, grouped
      // by b (a pair sharing several keys is one constraint). Numbered in (a, b) order, sized in a
      // first pass and filled in a second into flat arrays (a list of lists per pair costs ten
      // times more; a hash map of pairs misses the cache on every probe).
      int[][] txnKeys = writtenKeys();
      int[] txnKeyStart = txnKeys[0], txnKeyList = txnKeys[1], txnKeyPos = txnKeys[2];
      int nc = 0;
      long totalEdges = 0;
      // The first pass keeps each writer's later writers it found, sorted, for the second, which
      // then neither scans nor sorts again (on the serializable store's Jepsen-shaped history at
      // 10^6, the scans with their realtime tests and the sorts were most of the constraints'
      // cost); past maxKept() of them, the second pass finds them again.
      final int maxKept = maxKept();
      long[] kept = new long[Math.min(1024, Math.max(1, maxKept))];
      int nKept = 0;
      int[] keptEnd = new int[n];
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
          long[] found;
          int from = 0, m;
          if (pass == 1 && kept != null) {
            found = kept;
            from = a == 0 ? 0 : keptEnd[a - 1];
            m = keptEnd[a];
          } else {
            m = laterWriters(a, txnKeyStart, txnKeyList, txnKeyPos);
            found = later;
            if (pass == 0 && kept != null) {
              if ((long) nKept + m > maxKept) kept = null;
              else {
                if (nKept + m > kept.length) kept = java.util.Arrays.copyOf(kept, (int) Math.min(maxKept, Math.max(nKept + m, 2L * kept.length)));
                System.arraycopy(later, 0, kept, nKept, m);
                nKept += m;
                keptEnd[a] = nKept;
              }
            }
          }
          if (m == from) continue;
          for (int i = from; i < m; ) {
            int b = (int) (found[i] >>> 32), e = i;
            while (e < m && (int) (found[e] >>> 32) == b) e++;
            if (pass == 0) {
              for (int x = i; x < e; x++) {
                int ki = (int) found[x], k = txnKeyList[ki];
                totalEdges += sideSize(k, txnKeyPos[ki], b) + sideSize(k, position(k, b), a);
              }
            } else {
              firstA[c] = a;
              secondA[c] = b;
              start[2 * c] = o;
              for (int x = i; x < e; x++) {
                int ki = (int) found[x];
                o = side(src, dst, type, key, o, txnKeyList[ki], txnKeyPos[ki], a, b);
              }
              start[2 * c + 1] = o;
              for (int x = i; x < e; x++) {
                int k = txnKeyList[(int) found[x]];
                o = side(src, dst, type, key, o, k, position(k, b), b, a);
              }
            }
            c++;
            i = e;
          }
        }
        if (pass == 0) {
          nc = c;
          if (totalEdges > Integer.MAX_VALUE - 16 || (byRealtime && (totalEdges > maxSideEdges() || lazier(totalEdges)))) throw new TooLarge(totalEdges);
          keptEnd = kept == null ? null : keptEnd;
          continue;
        }
        start[2 * nc] = o;
        Polygraph p = new Polygraph(h, n, committed, known, knownKey, knownWhy, firstA, secondA, start, src, dst, type, key);
        p.lostUpdates.addAll(lost);
        return p;
      }
      throw new AssertionError();
    }

    /** {@link #laterWriters}'s. */
    private long[] later = new long[64];

    /**
     * Writer a's later writers of each constrained key it writes, those realtime leaves unordered
     * with it (when it fixes orders), as (writer << 32 | index of the key among a's), sorted, in
     * {@link #later}[0, m); returns m.
     */
    private int laterWriters(int a, int[] txnKeyStart, int[] txnKeyList, int[] txnKeyPos) {
      int m = 0;
      long end = byRealtime ? end(a) : Long.MAX_VALUE, ia = h.invokeOrdinal(a);
      for (int i = txnKeyStart[a]; i < txnKeyStart[a + 1]; i++) {
        int k = txnKeyList[i];
        if (!constrained(k)) continue;
        for (int s = wStart[k] + txnKeyPos[i] + 1; s < wStart[k + 1]; s++) {
          if (byRealtime) {
            if (sufMinInvoke[s] > end) break; // a completed before each writer from here on was invoked
            // Realtime orders a and this writer, one way or the other (as Orders#realtime).
            long ib = slotInvoke[s];
            if ((ib >= 0 && end < ib) || (ia >= 0 && slotEnd[s] < ia)) continue;
          }
          if (m == later.length) later = java.util.Arrays.copyOf(later, m * 2);
          later[m++] = ((long) wTxn[s] << 32) | i;
        }
      }
      if (m > 1) java.util.Arrays.sort(later, 0, m);
      return m;
    }

    /**
     * The most later writers the constraints' first pass keeps for the second (8 bytes each): 16
     * million, or what a 32nd of the free heap holds.
     * (Tests lower it, -Disocheck.polygraph.max-kept=N, to compare the second pass's own scan.)
     */
    static int maxKept() {
      // (At most a 32nd of the heap still free: the sides' own arrays, checked against a third
      // of it, come after.)
      return Integer.getInteger("isocheck.polygraph.max-kept", (int) Math.min(1 << 24, freeHeap() / 32 / 8));
    }

    /** When t's completion fixes it before later invocations: its position, if :ok; else never. */
    private long end(int t) {
      long c = h.completeOrdinal(t);
      return h.isOk(t) && c >= 0 ? c : Long.MAX_VALUE;
    }

    /** The earliest completion (:ok) among k's writers. */
    private long firstCompletion(int k) {
      long first = Long.MAX_VALUE;
      for (int s = wStart[k]; s < wStart[k + 1]; s++) first = Math.min(first, slotEnd[s]);
      return first;
    }

    /**
     * The known edges realtime fixes, per constrained key written twice or more: for each writer
     * b, WW c → b and RW r → b (r ≠ b a reader of c's version) for each c covered by b in
     * realtime order, that is, each writer completed before b's invocation that completed after
     * every other such writer's invocation (the others are ordered before one of those, so their
     * edges follow by transitivity). Those c all overlap at the latest such invocation, so there
     * are at most as many as the transactions running at once. Also fills {@link #sufMinInvoke}.
     */
    private void realtimeOrders(PolygraphParts parts) {
      sufMinInvoke = new long[wTxn.length];
      int[] ok = new int[16];
      long[] okEnd = new long[16], prefMaxInv = new long[16];
      for (int k = 0; k < nKeys; k++) {
        int w0 = wStart[k], w1 = wStart[k + 1];
        if (w1 - w0 < 2 || !constrained(k)) continue;
        long min = Long.MAX_VALUE;
        for (int s = w1 - 1; s >= w0; s--) sufMinInvoke[s] = min = Math.min(min, slotInvoke[s]);
        // The :ok writers (slots), by completion (ids follow it), with the latest invocation up to each.
        if (ok.length < w1 - w0) {
          ok = new int[Math.max(w1 - w0, 2 * ok.length)];
          okEnd = new long[ok.length];
          prefMaxInv = new long[ok.length];
        }
        int no = 0;
        for (int s = w0; s < w1; s++) {
          long e = slotEnd[s];
          if (e == Long.MAX_VALUE) continue;
          if (no > 0 && okEnd[no - 1] >= e) throw new IllegalStateException("transactions not numbered in completion order");
          ok[no] = s;
          okEnd[no] = e;
          prefMaxInv[no] = Math.max(no > 0 ? prefMaxInv[no - 1] : Long.MIN_VALUE, slotInvoke[s]);
          no++;
        }
        if (no == 0) continue;
        for (int sb = w0; sb < w1; sb++) {
          long ib = slotInvoke[sb];
          if (ib < 0) continue;
          int b = wTxn[sb];
          // The :ok writers completed before b's invocation: okEnd[0, lo).
          int lo = 0, hi = no;
          while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (okEnd[mid] < ib) lo = mid + 1;
            else hi = mid;
          }
          if (lo == 0) continue;
          long latest = prefMaxInv[lo - 1];
          for (int i = lo - 1; i >= 0 && okEnd[i] > latest; i--) {
            int sc = ok[i], c = wTxn[sc];
            parts.known(c, b, Edge.WW, k, REALTIME_ORDER);
            for (int x = verLo[sc]; x < verHi[sc]; x++) if (rTxn[x] != b) parts.known(rTxn[x], b, Edge.RW, k, REALTIME_ORDER);
          }
        }
      }
    }

    /**
     * Per committed transaction, the keys it writes and its position among each key's writers, as
     * CSR arrays: {start (n + 1), key, position}.
     */
    int[][] writtenKeys() {
      int[] start = new int[n + 1];
      for (int s = 0; s < wTxn.length; s++) start[wTxn[s] + 1]++;
      for (int t = 0; t < n; t++) start[t + 1] += start[t];
      int[] keys = new int[start[n]], pos = new int[start[n]], fill = java.util.Arrays.copyOf(start, n);
      for (int k = 0; k < nKeys; k++) {
        for (int s = wStart[k]; s < wStart[k + 1]; s++) {
          int i = fill[wTxn[s]]++;
          keys[i] = k;
          pos[i] = s - wStart[k];
        }
      }
      return new int[][] {start, keys, pos};
    }

    /**
     * How many edges side "a before b on key k" has, a being writer {@code pa} of k: WW a → b, and
     * RW r → b for each reader r ≠ b of a's version.
     */
    int sideSize(int k, int pa, int b) {
      int s = wStart[k] + pa, c = 1;
      for (int i = verLo[s]; i < verHi[s]; i++) if (rTxn[i] != b) c++;
      return c;
    }

    /** Writes side "a before b on key k" at o, a being writer {@code pa} of k; returns the next free index. */
    int side(int[] src, int[] dst, int[] type, int[] key, int o, int k, int pa, int a, int b) {
      src[o] = a;
      dst[o] = b;
      type[o] = Edge.WW;
      key[o++] = k;
      int s = wStart[k] + pa;
      for (int i = verLo[s]; i < verHi[s]; i++) {
        int r = rTxn[i];
        if (r == b) continue;
        src[o] = r;
        dst[o] = b;
        type[o] = Edge.RW;
        key[o++] = k;
      }
      return o;
    }

    /** The position of writer t among k's writers (in id order). */
    int position(int k, int t) { return firstOf(wTxn, wStart[k], wStart[k + 1], t) - wStart[k]; }

    /** The index of the first read of k naming version v (or where it would go). */
    private int firstRead(int k, int v) { return firstOf(rVer, rStart[k], rStart[k + 1], v); }

    /** The first index of v in the sorted range [lo, hi) of a (or where it would go). */
    private static int firstOf(int[] a, int lo, int hi, int v) {
      while (lo < hi) {
        int mid = (lo + hi) >>> 1;
        if (a[mid] < v) lo = mid + 1;
        else hi = mid;
      }
      return lo;
    }
  }

  /** Thrown when the constraints would not fit in memory. */
  public static final class TooLarge extends RuntimeException {
    public final long edges;

    TooLarge(long edges) {
      super(String.format("the write-order constraints would take %,d edges (%,d MB, and up to eight times that while "
          + "searching), more than the %,d MB free of this JVM's heap (max %,d MB) allow: keys written by many "
          + "transactions make pairs quadratic in their writers; raise the heap (ISOCHECK_HEAP, -Xmx), or rotate keys as "
          + "Jepsen's workloads do", edges, edges * 16 >> 20, freeHeap() >> 20, Runtime.getRuntime().maxMemory() >> 20));
      this.edges = edges;
    }
  }

  /**
   * Side edges that fit: 16 bytes each, in an eighth of the heap still free. The search holds
   * more than the edges themselves: the level graph's copy, pruning's graph, and when the
   * solver is reached its bindings and a second graph of the fixed sides (Plume-shaped
   * histories, the whole check: 74.6 million side edges needed about 12.6 GB, out of memory at
   * 8.4 GB after 65 s, every level's verdict lost; 35.7 million were decided in 6.7 GB). At a
   * third (48 bytes an edge) the first was searched; at an eighth it is refused at once, the
   * levels that need it :unknown with this reason and the others decided.
   */
  static long maxSideEdges() {
    String p = System.getProperty("isocheck.search.max-edges");
    if (p != null) return Long.parseLong(p);
    return freeHeap() / 128;
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
