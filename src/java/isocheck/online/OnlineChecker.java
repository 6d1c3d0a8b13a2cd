package isocheck.online;

import isocheck.check.Level;
import isocheck.graph.Cycle;
import isocheck.graph.Edge;
import isocheck.history.Edn;
import isocheck.history.HistoryBuilder;
import isocheck.history.Kw;
import isocheck.history.OpRecord;
import isocheck.history.OpSink;
import isocheck.history.OpType;
import isocheck.solver.TopologicalOrder;
import isocheck.util.IntList;
import isocheck.util.LongIntMap;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Checks a list-append history while it is being produced, one op at a time, as Jepsen's
 * interpreter hands invocations and completions to a generator: the serializable and
 * snapshot-isolation levels, each with its session (strong-session) and realtime (strict,
 * strong, GSI) variant, reporting each violation at the event that makes it certain.
 *
 * <p><b>Version orders are observed.</b> A read {@code [:r k [v1 … vn]]} shows the whole list of
 * k at one version (Elle, "Elle: Inferring Isolation Anomalies from Experimental Observations",
 * VLDB 2020, §4.1), so the longest read so far fixes a prefix of k's version order, and every read
 * must be a prefix of it (otherwise incompatible-order). As reads arrive the prefix grows; each
 * new element's writer gets a write dependency (ww) from the previous element's writer, each read
 * a read dependency (wr) from the writer of its last element, and an anti-dependency (rw) to the
 * writer of the element after it once some read shows one. A committed append no read has shown
 * yet follows every element shown so far (every later read is a prefix of the same order): it
 * gets ww from the last shown writer and rw from the readers of the last shown version.
 *
 * <p><b>Only certain edges enter the graph.</b> A transaction enters when it is certainly
 * committed: at its {@code :ok}, or, for an {@code :info} or still pending one, when a read shows
 * one of its appends. A {@code :fail} transaction never enters; a read showing one of its
 * appends is an aborted read (G1a), reported at whichever comes second, the read or the failure.
 * The reads of an {@code :info} transaction are unknown and add nothing. Every edge added is
 * implied by the history seen so far whatever the operations still to come (if a later read
 * contradicts an order, that is incompatible-order, itself a violation of every level here), and
 * edges are only ever added, so a cycle, once closed, is certain: the event that closed it is
 * reported as the moment it became certain.
 *
 * <p><b>Graphs.</b> Serializable levels: one node per committed transaction, acyclic(ww ∪ wr ∪ rw)
 * (Adya PL-3), plus process order (strong-session) or process and realtime order (strict).
 * Snapshot isolation: Viper's begin/commit split (EuroSys'23, Def. 2; {@link
 * isocheck.graph.BcGraph}): B(t) → C(t), a dependency a → b (ww, wr, process, realtime) as
 * C(a) → B(b), an anti-dependency as B(a) → C(b); GSI's realtime edges as C(a) → C(b). Each graph
 * keeps a topological order incrementally (Pearce–Kelly, {@link TopologicalOrder}); an edge that
 * would close a cycle is refused, and the path it would close is the counterexample. The levels'
 * graphs are views of one edge store ({@link LevelGraphs}, {@link #shareGraphs}): each edge is
 * stored once, with the levels that hold it, and each level keeps only its own order over it. Realtime
 * order is added as Elle's realtime graph does, without quadratic edges: a frontier of the
 * committed transactions that no later-invoked committed transaction follows; each transaction
 * gets edges from the frontier as it stood at its invocation. A level's graph whose every edge a
 * stronger serializable level's graph also gets is built only at that graph's first cycle (see
 * {@code Graph}): while it is acyclic, so is every graph it covers.
 *
 * <p>Also reported online: G1a (aborted read), G1b (intermediate read) and incompatible-order,
 * each ruling out every level checked here. Left to the check at the end of the run: internal
 * inconsistencies, garbage, duplicate and future reads, and what only a search over the order of
 * never-read appends can find. So every violation reported here is one the offline check reports
 * too (tests check it on the simulator), and the offline check may find more.
 *
 * <p><b>The window</b> (with {@code maxWritesPerKey} > 0, Jepsen's {@code :max-writes-per-key}):
 * memory bounded by what can still change, not by the run. A key is <i>closed</i> once it has had
 * maxWritesPerKey distinct appends invoked (Jepsen's generator then retires it) and no transaction
 * naming it is in flight. A committed transaction T is <i>sealed</i> when it has completed and each
 * of its appends is to a closed key, or was shown by a read and T completed before every
 * transaction still in flight was invoked. Every so often (when twice as many transactions are
 * held as the last collection kept) the transactions not sealed, and every node some graph
 * reaches from them, are kept; the rest are dropped (with their edges), the kept ones renumbered.
 * A transaction never committed is dropped once its keys are closed; a closed key none of whose
 * writers is kept keeps only its order (packed deltas), for the final reads, until more than
 * {@link #retiredKeysKept} (8192) keys are packed: then the oldest no held transaction names are
 * forgotten (their ids reused; remembered as forgotten, integer keys as ranges), and a later touch
 * of one needs the dropped order. A session whose process ended (an :info completion) with no
 * held transaction that may still commit is forgotten likewise (a later op of its process needs
 * its order, for the session levels). So the heap does not grow with the run. The weak levels
 * have a window of their own ({@link WeakOnline}).
 *
 * <p><i>Soundness does not rest on the sealing rule</i>, which only chooses what to drop: (1) the
 * dropped set D is closed under predecessors when it is dropped (a predecessor of a node no
 * unsealed node reaches is not reached either); (2) every later edge whose target is in D is
 * detected (references to dropped transactions become {@link #DROPPED}; an unread append of a
 * dropped writer marks its key; a packed key accepts only a read equal to its order) and marks the
 * verdicts incomplete ({@link #complete}) from that event; an edge from D to a kept node is
 * skipped. If (2) never fires, a cycle of the whole history either avoids D -- all its edges were
 * offered between kept nodes, so it was found -- or enters D by an edge that, by (1) and (2), was
 * offered before its target was dropped with its source already in D or dropped along; following
 * the cycle back, all of it lies in D and all its edges were offered before the last of its nodes
 * was dropped, when the graph (acyclic, since an edge closing a cycle is refused and reported)
 * held them: so a cycle had been reported already. The pre-checks keep their information (G1a by
 * the writer's status, checked when either side arrives; G1b by the dropped writers' intermediate
 * values; incompatible-order by the order, packed or not). So a complete verdict is the verdict
 * without the window, and an incomplete one still reports only certain violations. The rule
 * makes (2) rare on Jepsen-shaped histories: it fires on a read older than every transaction in
 * flight of a key still active (a very stale read), on a stale final read of a retired key, and
 * on one showing two or more appends no read had shown (their order among themselves was never
 * seen). One such append is fine: the first element a read adds gets no edge it did not get when
 * it committed (from the last element's writer and readers).
 *
 * <p>Not thread-safe: one thread calls {@link #op} and the readers; {@link #violated} and {@link
 * #events} may be read from others. With {@link #parallel}, the weak levels run on a thread of
 * their own ({@link Relay}); the readers wait for it to catch up, so what they return is what
 * one thread would have found, but for the order of {@link #violations} (the violations kept
 * past each level's first, when one anomaly type has more than the cap) and the thread the
 * listener is told on.
 */
public final class OnlineChecker implements OpSink {
  /**
   * Told each violation kept (see {@link #OnlineChecker}) as it is found: on the ingesting
   * thread, or the weak levels' own with {@link #parallel}.
   */
  public interface Listener {
    void found(Violation v);
  }

  /**
   * Whether the online checker decides this level: the serializable and snapshot-isolation
   * families, and the weak levels RC, RA and TCC ({@link WeakOnline}).
   */
  public static boolean decides(Level l) {
    return l.kind == Level.Kind.SER || l.kind == Level.Kind.SI || WeakOnline.decides(l);
  }

  private static final byte PENDING = 4;
  /** A reference to a transaction the window dropped (in KeyState.writers, lastCommittedOf). */
  static final int DROPPED = -2;
  /** DROPPED as stored in a LongIntMap, which holds non-negative values only. */
  private static final int DROPPED_IN_MAP = Integer.MAX_VALUE;

  private final String txnF;
  private final Listener listener;
  private final int maxPerType;
  private final Graph[] graphs;
  /** With {@link #shareGraphs} (the default): the store every level's graph is a view of, and the views, in graphs' order. */
  private LevelGraphs shared;
  private LevelGraphs.View[] views = new LevelGraphs.View[0];
  private final List<Level> levels, strongLevels;
  private final boolean anySo, anyRt;
  /** The weak levels' checker, or null when none is asked. */
  private final WeakOnline weak;
  /** With {@link #parallel}: the weak levels' thread, else null. */
  private Relay relay;
  /** The event the weak levels are ingesting (their thread's, with a relay): for their reports. */
  private long wEvent, wIndex = OpRecord.ABSENT, wTime = OpRecord.ABSENT, wArrived;
  /** The rw-register engine: takes the history when its first ops show registers ({@link RegisterOnline}). */
  private final RegisterOnline reg;

  // The window (0: none)
  private final int maxWritesPerKey;
  private int gcMin = 4096, gcAt = 4096;
  private long gcs, droppedTxns, droppedNodes, droppedEdges, retiredKeys, peakLive, degradations;
  private long incompleteFrom = -1;
  private String incompleteWhy;
  private boolean incompleteByWeak;
  private final IntList openKeys = new IntList();
  /** Packed keys, oldest first; past retiredKeysKept of them the oldest are forgotten (ids reused). */
  private final IntList packedOrder = new IntList(), freeKeyIds = new IntList();
  private int retiredKeysKept = 8192;
  private long keysSeen, forgottenKeys;
  private final WeakOnline.LongRanges forgottenLong = new WeakOnline.LongRanges();
  private final java.util.HashSet<Object> forgottenObj = new java.util.HashSet<>();
  private int[][] touched = new int[1024][];

  // Events
  private long events;
  private long curEvent, curIndex = OpRecord.ABSENT, curTime = OpRecord.ABSENT, curArrived;

  // Transactions (ids in order of first event)
  private int nTxns;
  private long txnsSeen;
  private byte[] status = new byte[1024];
  private boolean[] observed = new boolean[1024];
  private int[] session = new int[1024], node = new int[1024];
  private long[] firstEv = new long[1024], invEv = new long[1024], doneEv = new long[1024];
  private long[] invIndex = new long[1024], doneIndex = new long[1024];
  private int[][] rtPreds = new int[1024][];
  private int[][] appKeys = new int[1024][];
  private long[][] appVals = new long[1024][];

  // Sessions (processes)
  private final Processes procs = new Processes();
  /** Per session: whether its last completion was :info. */
  private boolean[] ended = new boolean[16];
  private final IntList pendingOf = new IntList(), lastCommittedOf = new IntList();
  private long[] lastFirstEv = new long[16]; // per session: firstEv of lastCommittedOf, kept when it is dropped

  // Keys and values
  private LongIntMap longKeys = new LongIntMap();
  private final HashMap<Object, Integer> objKeys = new HashMap<>();
  private final ArrayList<Object> keyObjs = new ArrayList<>();
  private final ArrayList<KeyState> keys = new ArrayList<>();
  private final ValueCodes values = new ValueCodes();

  // Committed transactions: node numbers, shared by every graph (each adds its nodes in step)
  private final IntList txnOfNode = new IntList(1024);

  // Realtime frontier: committed transactions no later-invoked committed transaction follows.
  private final IntList frontier = new IntList();

  // Violations
  private final ArrayList<Violation> kept = new ArrayList<>();
  private final Map<String, Long> counts = new LinkedHashMap<>();
  private final Map<Level, Violation> firstOf = new LinkedHashMap<>();
  private volatile boolean violated;
  private volatile long eventsSeen;

  // Scratch
  private final IntList path = new IntList();
  private final IntList ownKeys = new IntList(), readKeys = new IntList();
  private long[] ownVals = new long[8];
  private long[] codes = new long[64];

  /**
   * @param levels the levels to check; those it does not decide ({@link #decides}) are ignored
   * @param txnF the :f of transaction ops ("txn")
   * @param maxPerType violations kept (and told to the listener) per anomaly type; all are counted
   * @param listener told each violation kept, or null
   */
  public OnlineChecker(List<Level> levels, String txnF, int maxPerType, Listener listener) {
    this(levels, txnF, maxPerType, listener, 0);
  }

  /**
   * @param maxWritesPerKey the appends a key gets before the workload retires it (Jepsen's
   *     {@code :max-writes-per-key}), which bounds memory by a window (see the class comment);
   *     0 keeps every transaction
   */
  public OnlineChecker(List<Level> levels, String txnF, int maxPerType, Listener listener, int maxWritesPerKey) {
    if (maxWritesPerKey < 0) throw new IllegalArgumentException("maxWritesPerKey must be >= 0, got " + maxWritesPerKey);
    this.maxWritesPerKey = maxWritesPerKey;
    this.txnF = txnF;
    this.listener = listener;
    this.maxPerType = maxPerType;
    ArrayList<Graph> gs = new ArrayList<>();
    ArrayList<Level> ls = new ArrayList<>(), strong = new ArrayList<>(), weakLs = new ArrayList<>();
    boolean so = false, rt = false;
    for (Level l : levels) {
      if (!decides(l) || ls.contains(l)) continue;
      ls.add(l);
      if (WeakOnline.decides(l)) {
        weakLs.add(l);
        continue;
      }
      strong.add(l);
      Graph g = new Graph(l);
      gs.add(g);
      so |= g.so;
      rt |= g.rt;
    }
    // Shared work: a graph whose every edge a serializable graph of this checker also gets (its
    // family's orders a subset of that graph's) stays empty while that graph is acyclic (see Graph).
    // The serializable graphs go first, the strongest first, so a cover refuses an edge before
    // the graphs it covers are offered it.
    gs.sort((x, y) -> x.si != y.si ? (x.si ? 1 : -1) : Integer.bitCount(y.level.family.bits) - Integer.bitCount(x.level.family.bits));
    for (Graph g : gs) {
      for (Graph r : gs) {
        if (r == g || r.si || r.cover != null) continue;
        int gb = g.level.family.bits, rb = r.level.family.bits;
        if ((gb & ~rb) == 0 && (g.si || gb != rb)) {
          g.cover = r;
          g.g = null;
          break;
        }
      }
    }
    this.graphs = gs.toArray(new Graph[0]);
    shareGraphs(true);
    this.levels = List.copyOf(ls);
    this.strongLevels = List.copyOf(strong);
    this.weak = weakLs.isEmpty() ? null : new WeakOnline(weakLs,
        (a, ls2, txns, steps, ex) -> reportAt(wEvent, wIndex, wTime, wArrived, a, ls2, txns, steps, ex),
        why -> needDroppedAt(wEvent, wIndex, why, true), maxWritesPerKey);
    this.anySo = so;
    this.anyRt = rt;
    this.reg = ls.isEmpty() ? null : new RegisterOnline(ls, this::report, this::needDropped, maxWritesPerKey);
  }

  /** The levels checked online. */
  public List<Level> levels() { return levels; }

  /** Whether some violation was found (readable from any thread). */
  public boolean violated() { return violated; }

  /** Transaction events ingested, by every level (readable from any thread). */
  public long events() {
    Relay w = relay;
    return w == null ? eventsSeen : w.eventsDone(eventsSeen);
  }

  /**
   * Runs the weak levels (RC, RA, TCC), when checked, on a thread of their own, beside the strong
   * levels on the ingesting thread (see {@link Relay}); call before the first op.
   * The ingesting side then calls {@link #flush} whenever it waits for more events (else the
   * weak levels' reports wait for a batch to fill), and {@link #end} at the end, which ends
   * the thread. The verdicts are the same. Off (at any time): waits for the weak levels' thread
   * to catch up and ends it (rethrowing its failure); they go on on the ingesting thread.
   */
  public void parallel(boolean on) {
    if (on && relay == null && events > 0) throw new IllegalStateException("parallel must be set before the first op");
    if (on && relay == null && weak != null) {
      relay = new Relay((r, ev, arrived) -> {
        wEvent = ev;
        wIndex = r.index;
        wTime = r.time;
        wArrived = arrived;
        weak.op(r, ev);
      }, "isocheck online weak levels");
    } else if (!on && relay != null) {
      Relay w = relay;
      relay = null;
      w.finish();
    }
  }

  /**
   * Whether the strong levels' graphs share one edge store ({@link LevelGraphs}: each edge
   * stored once, each level keeping its own topological order over it; the default), or each
   * keeps a graph of its own (a {@link TopologicalOrder}). The results are the same either way
   * (tests compare them); sharing is cheaper with several levels. Call before the first op.
   */
  public void shareGraphs(boolean on) {
    if (events > 0) throw new IllegalStateException("shareGraphs must be set before the first op");
    if (on == (shared != null)) return;
    shared = on ? new LevelGraphs() : null;
    views = new LevelGraphs.View[on ? graphs.length : 0];
    for (int i = 0; i < graphs.length; i++) {
      Graph g = graphs[i];
      if (on) {
        g.v = views[i] = shared.view(g.si, g.rtCommit);
        if (g.cover != null) g.v.unbuild();
        g.g = null;
      } else {
        g.v = null;
        g.g = g.cover != null ? null : new TopologicalOrder(0);
      }
    }
  }

  /** Whether the strong levels' graphs share one edge store ({@link #shareGraphs}). */
  public boolean sharesGraphs() { return shared != null; }

  /** Whether the weak levels run on a thread of their own ({@link #parallel}). */
  public boolean isParallel() { return relay != null; }

  /** With {@link #parallel}: hands the weak levels' thread the events given so far. */
  public void flush() {
    if (relay != null) relay.flush();
  }

  /**
   * With {@link #parallel}: waits for the weak levels' thread to do every event given so far
   * (rethrowing its failure). The readers call it.
   */
  public void sync() {
    if (relay != null) relay.sync();
  }

  /** The violations kept, in the order found. */
  public List<Violation> violations() {
    sync();
    return List.copyOf(kept);
  }

  /** The first violation of each level that has one. */
  public Map<Level, Violation> firstViolations() {
    sync();
    return new LinkedHashMap<>(firstOf);
  }

  /**
   * Whether every level's verdict so far is the one the whole history up to here gives: false
   * once an event needed a transaction the window had dropped (see the class comment); the
   * violations found stay certain, but a level with none may still be violated.
   */
  public boolean complete() {
    sync();
    return incompleteFrom < 0;
  }

  /** The event from which the verdicts are incomplete, or -1 (see {@link #complete}). */
  public long incompleteFrom() {
    sync();
    return incompleteFrom;
  }

  /**
   * Transactions held (live), and committed ones among them (graph nodes). The weak levels'
   * transactions held count too.
   */
  public int liveTxns() {
    sync();
    return nTxns + (weak != null ? weak.held() : 0) + (reg != null ? reg.held() : 0);
  }

  public int liveNodes() { return txnOfNode.size(); }

  /** The most transactions held at once (sampled before each window collection and at the end). */
  public long peakLiveTxns() {
    sync();
    return Math.max(peakLive, nTxns) + (weak != null ? weak.peakHeld() : 0) + (reg != null ? reg.peakHeld() : 0);
  }

  /** Collect the window once this many transactions are held (default 4096; then twice what a collection keeps). */
  public void gcThreshold(int n) {
    if (n < 1) throw new IllegalArgumentException("gc threshold must be >= 1");
    gcMin = n;
    gcAt = Math.max(n, Math.min(gcAt, 2 * nTxns));
    sync();
    if (weak != null) weak.gcThreshold(n);
    if (reg != null) reg.gcThreshold(n);
  }

  /** Violations found per anomaly type (kept or not). */
  public Map<String, Long> counts() {
    sync();
    return new LinkedHashMap<>(counts);
  }

  /** Transactions seen, committed (graph nodes), and edges per level, for stats. */
  public Map<String, Object> stats() {
    sync();
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("events", events);
    m.put("txns", txnsSeen);
    m.put("committed", (long) txnOfNode.size() + droppedNodes);
    m.put("keys", keysSeen);
    Map<String, Object> es = new LinkedHashMap<>();
    for (Level l : levels) {
      for (Graph g : graphs) if (g.level == l) es.put(l.id, g.v != null ? g.v.edges : g.g == null ? g.dropped : (long) g.g.edgeCount() + g.dropped);
    }
    m.put("edges", es);
    if (weak != null) m.put("weak", weak.stats());
    if (reg != null && reg.active()) m.put("register", reg.stats());
    if (maxWritesPerKey > 0 && reg != null && reg.active()) {
      Map<String, Object> w = reg.windowStats(); // an rw-register history: the register engine's window
      w.put("needed-dropped", degradations);
      m.put("window", w);
    } else if (maxWritesPerKey > 0) {
      Map<String, Object> w = new LinkedHashMap<>();
      w.put("max-writes-per-key", (long) maxWritesPerKey);
      w.put("live-txns", (long) nTxns);
      w.put("live-nodes", (long) txnOfNode.size());
      w.put("peak-live-txns", peakLiveTxns());
      w.put("dropped-txns", droppedTxns);
      w.put("retired-keys", retiredKeys);
      w.put("forgotten-keys", forgottenKeys);
      w.put("collections", gcs);
      w.put("needed-dropped", degradations);
      m.put("window", w);
    }
    return m;
  }

  /** The result as plain data (string keys, {@link Kw} values), for the Clojure layer. */
  public Map<String, Object> toData() {
    return toData(true);
  }

  /**
   * The result as plain data; without the violations kept (an empty "violations" list) when
   * withViolations is false, for a caller that converts them itself ({@link #violations}).
   */
  public Map<String, Object> toData(boolean withViolations) {
    sync();
    Map<String, Object> m = new LinkedHashMap<>();
    List<Object> ls = new ArrayList<>();
    for (Level l : levels) ls.add(new Kw(l.id));
    m.put("levels-checked", ls);
    boolean register = reg != null && reg.active();
    if (register) m.put("workload", new Kw("rw-register"));
    // rw-register: the weak levels are decided exactly online (RegisterOnline.scope); a strong
    // level needs the version order, the final check's search.
    boolean exact = true, strong = false;
    if (register) {
      for (Level l : levels) {
        exact &= "exact".equals(reg.scope(l));
        strong |= !WeakOnline.decides(l);
      }
    }
    m.put("complete?", complete() && (!register || exact));
    if (register && complete() && !exact) {
      String why = reg.inexactBecause();
      m.put("incomplete-from-event", strong ? 0L : reg.inexactFrom());
      m.put("incomplete-because", "rw-register: online, "
          + (why == null ? "rc, ra and tcc exactly; the other levels " : "every level ")
          + "only what no version order can explain (pre-checks; cycles of write-read, session and realtime order, and the"
          + " commit order the weak levels' axioms force); the rest needs the version order, which the final check searches for"
          + (why == null ? "" : "; rc, ra and tcc not exactly from event " + reg.inexactFrom() + ": " + why));
    }
    if (!complete()) {
      m.put("incomplete-from-event", incompleteFrom);
      m.put("incomplete-because", incompleteWhy);
    }
    Map<String, Object> vs = new LinkedHashMap<>();
    for (Level l : levels) {
      Map<String, Object> v = new LinkedHashMap<>();
      Violation f = firstOf.get(l);
      v.put("valid?", f == null ? (Object) Boolean.TRUE : (Object) Boolean.FALSE);
      if (f != null) v.put("first", f.toData());
      if (register) v.put("online-scope", new Kw(reg.scope(l)));
      vs.put(l.id, v);
    }
    m.put("levels", vs);
    List<Object> kv = new ArrayList<>();
    if (withViolations) for (Violation v : kept) kv.add(v.toData());
    m.put("violations", kv);
    Map<String, Object> cs = new LinkedHashMap<>();
    counts.forEach(cs::put);
    m.put("anomaly-counts", cs);
    m.put("stats", stats());
    return m;
  }

  // ------------------------------------------------------------------ ingest

  @Override
  public void op(OpRecord r) {
    op(r, 0);
  }

  /**
   * Ingests r, which arrived (was handed to the online checker) at {@code arrivedNanos} (a
   * {@link System#nanoTime()}; 0: unknown): each violation it makes certain carries it, for the
   * latency to its report ({@link Violation#arrivedNanos}).
   */
  public void op(OpRecord r, long arrivedNanos) {
    if (!txnF.equals(Kw.nameOf(r.f))) return;
    if (!r.hasProcess || r.process == null || !HistoryBuilder.clientProcess(r.process)) return;
    if (r.type < 0 || r.valueShape != OpRecord.VALUE_TXN) return;
    long ev = events++;
    curEvent = ev;
    curIndex = r.index;
    curTime = r.time;
    curArrived = arrivedNanos;
    if (reg != null && reg.op(r, ev)) {
      eventsSeen = events;
      return;
    }
    if (weak != null) {
      if (relay != null) relay.op(r, ev, arrivedNanos);
      else {
        wEvent = ev;
        wIndex = r.index;
        wTime = r.time;
        wArrived = arrivedNanos;
        weak.op(r, ev);
      }
      if (graphs.length == 0) {
        eventsSeen = events;
        return;
      }
    }
    int s = sessionOf(r.process);
    if (r.type == OpType.INVOKE) {
      int old = pendingOf.get(s);
      if (old >= 0) { // a malformed history: the offline check says so
        status[old] = OpType.INFO;
        untouch(old);
      }
      pendingOf.set(s, newTxn(s, r, ev, true));
      eventsSeen = events;
      return;
    }
    int t = pendingOf.get(s);
    if (t >= 0) pendingOf.set(s, -1);
    else t = newTxn(s, r, ev, false);
    untouch(t);
    doneEv[t] = ev;
    doneIndex[t] = r.index;
    status[t] = (byte) r.type;
    ended[s] = r.type == OpType.INFO;
    if (r.type == OpType.OK) ok(t, r);
    else if (r.type == OpType.FAIL && observed[t]) failedObserved(t);
    if (maxWritesPerKey > 0 && nTxns >= gcAt) collect();
    eventsSeen = events;
  }

  /** t completed: the keys it touched no longer have it in flight. */
  private void untouch(int t) {
    int[] ks = touched[t];
    if (ks == null) return;
    touched[t] = null;
    for (int k : ks) keys.get(k).inFlight--;
  }

  private int sessionOf(Object p) {
    int s = procs.find(p);
    if (s >= 0) return s;
    if (anySo && procs.forgotten(p)) needDropped("an op of process " + Edn.str(p) + " after the window had forgotten its ended session");
    return newSession(p);
  }

  private int newSession(Object p) {
    int s = procs.add(p);
    if (s < pendingOf.size()) {
      pendingOf.set(s, -1);
      lastCommittedOf.set(s, -1);
    } else {
      pendingOf.add(-1);
      lastCommittedOf.add(-1);
      if (s == lastFirstEv.length) {
        lastFirstEv = Arrays.copyOf(lastFirstEv, 2 * s);
        ended = Arrays.copyOf(ended, 2 * s);
      }
    }
    lastFirstEv[s] = 0;
    ended[s] = false;
    return s;
  }

  /**
   * Forgets the sessions whose process ended (an :info completion) with no transaction held
   * that may still commit: their ids are reused, their processes remembered as forgotten (a
   * later op of one needs the session's order, for the session levels).
   */
  private void forgetSessions() {
    int ns = pendingOf.size();
    boolean[] busy = new boolean[ns];
    for (int t = 0; t < nTxns; t++) if (node[t] < 0 && status[t] != OpType.FAIL) busy[session[t]] = true;
    for (int s = 0; s < ns; s++) {
      if (procs.process(s) == null || !ended[s] || busy[s] || pendingOf.get(s) >= 0) continue;
      procs.forget(s);
      lastCommittedOf.set(s, -1);
    }
    procs.compact();
  }

  private int keyId(OpRecord r, int i) {
    if (r.keyIsLong(i)) {
      long k = r.keyLong(i);
      int id = longKeys.get(k);
      if (id >= 0) return id;
      boolean gone = forgottenLong.contains(k);
      id = newKey(k, gone);
      longKeys.put(k, id);
      return id;
    }
    Object k = r.key(i);
    Integer id = objKeys.get(k);
    if (id != null) return id;
    int n = newKey(k, !forgottenObj.isEmpty() && forgottenObj.contains(k));
    objKeys.put(k, n);
    return n;
  }

  /** A key's id (a forgotten one's reused): a key seen for the first time, or again after the window forgot it (packed, order unknown). */
  private int newKey(Object k, boolean forgotten) {
    KeyState st = new KeyState(maxWritesPerKey > 0 ? Math.min(maxWritesPerKey, 64) : 4);
    int id;
    if (freeKeyIds.size() > 0) {
      id = freeKeyIds.pop();
      keys.set(id, st);
      keyObjs.set(id, k);
    } else {
      id = keys.size();
      keys.add(st);
      keyObjs.add(k);
    }
    if (forgotten) {
      st.pack();
      st.forgotten = true;
      packedOrder.add(id);
    } else {
      keysSeen++;
      openKeys.add(id);
    }
    return id;
  }

  /** How many retired keys (their order only) the window keeps before forgetting the oldest (default 8192; a knob for tests). */
  public void retiredKeysKept(int n) {
    if (n < 0) throw new IllegalArgumentException("retired keys kept must be >= 0");
    retiredKeysKept = n;
    if (reg != null) reg.retiredKeysKept(n);
  }

  /**
   * Forgets the oldest packed keys past retiredKeysKept that no held transaction names: the key
   * is remembered as forgotten (integer keys as ranges), so a later touch needs the dropped order.
   */
  private void forgetRetiredKeys() {
    if (packedOrder.size() <= retiredKeysKept) return;
    boolean[] named = new boolean[keys.size()];
    for (int t = 0; t < nTxns; t++) {
      if (appKeys[t] != null) for (int k : appKeys[t]) named[k] = true;
      if (touched[t] != null) for (int k : touched[t]) named[k] = true;
    }
    int excess = packedOrder.size() - retiredKeysKept, j = 0;
    boolean longs = false;
    for (int i = 0, m = packedOrder.size(); i < m; i++) {
      int k = packedOrder.get(i);
      KeyState st = keys.get(k);
      if (excess > 0 && !named[k] && st.inFlight == 0) {
        excess--;
        Object o = keyObjs.get(k);
        if (o instanceof Long && longKeys.get((Long) o) == k) {
          forgottenLong.add((Long) o);
          longs = true;
        } else {
          forgottenObj.add(o);
          objKeys.remove(o);
        }
        if (!st.forgotten) forgottenKeys++;
        keys.set(k, null);
        keyObjs.set(k, null);
        freeKeyIds.add(k);
      } else packedOrder.set(j++, k);
    }
    packedOrder.truncate(j);
    if (longs) {
      LongIntMap nl = new LongIntMap(Math.max(16, keys.size() - freeKeyIds.size()));
      for (int k = 0; k < keyObjs.size(); k++) {
        Object o = keyObjs.get(k);
        if (o instanceof Long && longKeys.get((Long) o) == k) nl.put((Long) o, k);
      }
      longKeys = nl;
    }
  }

  private int newTxn(int s, OpRecord r, long ev, boolean invoked) {
    int t = nTxns++;
    txnsSeen++;
    if (t == status.length) grow();
    touched[t] = null;
    if (invoked && maxWritesPerKey > 0) touch(t, r);
    status[t] = PENDING;
    observed[t] = false;
    session[t] = s;
    node[t] = -1;
    firstEv[t] = ev;
    invEv[t] = invoked ? ev : -1;
    doneEv[t] = -1;
    invIndex[t] = invoked ? r.index : OpRecord.ABSENT;
    doneIndex[t] = OpRecord.ABSENT;
    rtPreds[t] = invoked && anyRt && frontier.size() > 0 ? frontier.toArray() : null;
    int n = r.mopCount(), na = 0;
    for (int i = 0; i < n; i++) if (r.kind(i) == OpRecord.APPEND) na++;
    if (na == 0) {
      appKeys[t] = null;
      appVals[t] = null;
      return t;
    }
    int[] ks = new int[na];
    long[] vs = new long[na];
    for (int i = 0, j = 0; i < n; i++) {
      if (r.kind(i) != OpRecord.APPEND) continue;
      int k = keyId(r, i);
      long v = values.append(r, i);
      ks[j] = k;
      vs[j++] = v;
      KeyState st = keys.get(k);
      if (st.packed != null) {
        needDropped("an append to key " + Edn.str(keyObjs.get(k)) + " after it had retired");
        continue;
      }
      if (st.writerOf.get(v) < 0) {
        st.writerOf.put(v, t);
        st.appends++;
      }
    }
    appKeys[t] = ks;
    appVals[t] = vs;
    return t;
  }

  private void grow() {
    int c = status.length * 2;
    status = Arrays.copyOf(status, c);
    observed = Arrays.copyOf(observed, c);
    session = Arrays.copyOf(session, c);
    node = Arrays.copyOf(node, c);
    firstEv = Arrays.copyOf(firstEv, c);
    invEv = Arrays.copyOf(invEv, c);
    doneEv = Arrays.copyOf(doneEv, c);
    invIndex = Arrays.copyOf(invIndex, c);
    doneIndex = Arrays.copyOf(doneIndex, c);
    rtPreds = Arrays.copyOf(rtPreds, c);
    appKeys = Arrays.copyOf(appKeys, c);
    appVals = Arrays.copyOf(appVals, c);
    touched = Arrays.copyOf(touched, c);
  }

  /** t is invoked: each key it names (read or append) has it in flight until it completes. */
  private void touch(int t, OpRecord r) {
    int n = r.mopCount();
    ownKeys.clear();
    for (int i = 0; i < n; i++) {
      byte kind = r.kind(i);
      if (kind != OpRecord.APPEND && kind != OpRecord.READ) continue;
      int k = keyId(r, i);
      boolean dup = false;
      for (int a = 0; a < ownKeys.size(); a++) if (ownKeys.get(a) == k) dup = true;
      if (!dup) ownKeys.add(k);
    }
    if (ownKeys.size() == 0) return;
    int[] ks = ownKeys.toArray();
    for (int k : ks) keys.get(k).inFlight++;
    touched[t] = ks;
  }

  /** The number isocheck names transaction t by (T12): its completion's :index, else its invocation's, else its event. */
  private long display(int t) {
    if (doneEv[t] >= 0) return doneIndex[t] != OpRecord.ABSENT ? doneIndex[t] : doneEv[t];
    return invIndex[t] != OpRecord.ABSENT ? invIndex[t] : firstEv[t];
  }

  private String name(int t) { return "T" + display(t); }

  // ------------------------------------------------------------------ commits

  /** t is certainly committed: it becomes a node of every graph, with its session and realtime edges. */
  private void commit(int t) {
    node[t] = txnOfNode.size();
    txnOfNode.add(t);
    if (shared != null) shared.addNode(views);
    else for (Graph g : graphs) g.addNode();
    if (anySo) {
      int s = session[t], p = lastCommittedOf.get(s);
      if (p == -1 || lastFirstEv[s] < firstEv[t]) {
        if (p != -1) edge(p, t, Edge.SO, -1);
        lastCommittedOf.set(s, t);
        lastFirstEv[s] = firstEv[t];
      } else {
        edge(t, p, Edge.SO, -1); // an :info transaction shown committed after its session went on
      }
    }
    int[] preds = rtPreds[t];
    if (preds != null) {
      rtPreds[t] = null;
      for (int f : preds) edge(f, t, Edge.RT, -1);
    }
  }

  private void ok(int t, OpRecord r) {
    if (node[t] < 0) commit(t);
    reads(t, r);
    unreadAppends(t);
    if (anyRt) {
      long inv = invEv[t];
      if (inv >= 0) {
        int j = 0;
        for (int i = 0, n = frontier.size(); i < n; i++) {
          int f = frontier.get(i);
          if (doneEv[f] >= inv) frontier.set(j++, f);
        }
        frontier.truncate(j);
      }
      frontier.add(t);
    }
  }

  /** t's appends that no read has shown yet: they follow every element shown so far. */
  private void unreadAppends(int t) {
    int[] ks = appKeys[t];
    if (ks == null) return;
    long[] vs = appVals[t];
    for (int j = 0; j < ks.length; j++) {
      int k = ks[j];
      boolean dup = false;
      for (int i = 0; i < j; i++) if (ks[i] == k) dup = true;
      if (dup) continue;
      KeyState st = keys.get(k);
      if (st.packed != null) continue; // the append itself needed the dropped order (newTxn)
      if (st.position(vs[j]) >= 0) continue;
      if (st.unread == null) st.unread = new IntList(4);
      st.unread.add(t);
      int last = st.lastKnownWriter(st.len);
      if (last != -1 && last != t && (last == DROPPED || node[last] >= 0)) edge(last, t, Edge.WW, k);
      if (st.waiting != null) {
        for (int i = 0, n = st.waiting.size(); i < n; i++) {
          int rd = st.waiting.get(i);
          if (rd != t) edge(rd, t, Edge.RW, k);
        }
      }
    }
  }

  // ------------------------------------------------------------------ reads

  private void reads(int t, OpRecord r) {
    int n = r.mopCount();
    ownKeys.clear();
    readKeys.clear();
    for (int i = 0; i < n; i++) {
      byte kind = r.kind(i);
      if (kind == OpRecord.APPEND) {
        if (ownKeys.size() == ownVals.length) ownVals = Arrays.copyOf(ownVals, ownVals.length * 2);
        ownVals[ownKeys.size()] = values.append(r, i);
        ownKeys.add(keyId(r, i));
        continue;
      }
      if (kind != OpRecord.READ) continue;
      byte tag = r.valueTag(i);
      if (tag != OpRecord.V_LIST && tag != OpRecord.V_NIL) continue; // not list-append: the offline check says so
      int k = keyId(r, i);
      int len = tag == OpRecord.V_LIST ? r.listLen(i) : 0;
      if (codes.length < len) codes = new long[Math.max(len, 2 * codes.length)];
      for (int j = 0; j < len; j++) codes[j] = values.elem(r, i, j);
      // The reader's own appends to k so far must end the list (else :internal, left offline).
      int own = 0;
      for (int a = 0; a < ownKeys.size(); a++) if (ownKeys.get(a) == k) own++;
      if (own > len) continue;
      boolean internalOk = true;
      for (int a = 0, p = len - own; a < ownKeys.size(); a++) {
        if (ownKeys.get(a) != k) continue;
        if (codes[p++] != ownVals[a]) {
          internalOk = false;
          break;
        }
      }
      if (internalOk) internalOk = sameAsEarlier(r, i, k, len);
      if (!internalOk) {
        report("internal", allLevels(), new long[] {display(t)}, new String[0],
            name(t) + " read key " + Edn.str(keyObjs.get(k)) + " as " + r.renderMop(i)
                + ", but its own earlier reads and appends of that key say otherwise.");
        continue;
      }
      if (keys.get(k).packed != null) {
        retiredRead(t, k, len, own, r, i);
        continue;
      }
      boolean first = true;
      for (int a = 0; a < readKeys.size(); a++) if (readKeys.get(a) == k) first = false;
      if (first) readKeys.add(k);
      if (!observe(t, k, len, r, i)) continue;
      if (first) readEdges(t, k, len - own, r, i);
    }
  }

  /**
   * Whether read mop i of k (codes[0..len)) is what the transaction's previous read of k (if any)
   * and its appends to k since then say it must be.
   */
  private boolean sameAsEarlier(OpRecord r, int i, int k, int len) {
    int j = i - 1;
    while (j >= 0 && !(r.kind(j) == OpRecord.READ && keyIdIfKnown(r, j) == k)) j--;
    if (j < 0) return true;
    byte tag = r.valueTag(j);
    if (tag != OpRecord.V_LIST && tag != OpRecord.V_NIL) return true;
    int pl = tag == OpRecord.V_LIST ? r.listLen(j) : 0;
    int p = 0;
    for (; p < pl; p++) {
      long c = values.elem(r, j, p);
      if (p >= len || codes[p] != c) return false;
    }
    for (int a = j + 1; a < i; a++) {
      if (r.kind(a) != OpRecord.APPEND || keyIdIfKnown(r, a) != k) continue;
      if (p >= len || codes[p++] != values.append(r, a)) return false;
    }
    return p == len;
  }

  private int keyIdIfKnown(OpRecord r, int i) {
    if (r.keyIsLong(i)) return longKeys.get(r.keyLong(i));
    Integer id = objKeys.get(r.key(i));
    return id == null ? -1 : id;
  }

  /** Compares a read of k (codes[0..len)) with k's order so far and extends it; false when incompatible. */
  private boolean observe(int t, int k, int len, OpRecord r, int mop) {
    KeyState st = keys.get(k);
    int common = Math.min(st.len, len);
    for (int p = 0; p < common; p++) {
      if (st.vals[p] != codes[p]) {
        report("incompatible-order", allLevels(), new long[] {display(t)}, new String[0],
            name(t) + " read key " + Edn.str(keyObjs.get(k)) + " as " + r.renderMop(mop) + ", which differs at position "
                + (p + 1) + " (" + values.str(codes[p]) + ") from the order earlier reads showed ("
                + values.str(st.vals[p]) + " there): no single order of appends explains both.");
        return false;
      }
    }
    if (len > st.len) extend(t, k, st, len, r, mop);
    return true;
  }

  /**
   * A read of a key whose transactions the window dropped, keeping only its order: the same
   * order again adds nothing but a wr edge from a dropped writer; a different one is
   * incompatible-order; a shorter or longer one needs the dropped writers.
   */
  private void retiredRead(int t, int k, int len, int own, OpRecord r, int mop) {
    KeyState st = keys.get(k);
    if (own > 0) return; // its append to the retired key already needed the dropped ones (newTxn)
    if (st.forgotten) {
      needDropped("a read of key " + Edn.str(keyObjs.get(k)) + ", which the window had forgotten");
      return;
    }
    long[] vals = st.unpack();
    int common = Math.min(st.len, len);
    for (int p = 0; p < common; p++) {
      if (vals[p] != codes[p]) {
        report("incompatible-order", allLevels(), new long[] {display(t)}, new String[0],
            name(t) + " read key " + Edn.str(keyObjs.get(k)) + " as " + r.renderMop(mop) + ", which differs at position "
                + (p + 1) + " (" + values.str(codes[p]) + ") from the order earlier reads showed ("
                + values.str(vals[p]) + " there): no single order of appends explains both.");
        return;
      }
    }
    if (len == st.len && st.nDu > 0) {
      needDropped("a read of retired key " + Edn.str(keyObjs.get(k)) + ", which a dropped transaction appended to unseen");
    } else if (len == st.len + 1 && st.nDu == 1 && st.du[0] == codes[len - 1] && !st.intermediate(codes[len - 1])) {
      // The one unseen append, shown: its edges were added when it committed (as in extend).
      long[] nv = Arrays.copyOf(vals, len);
      nv[len - 1] = codes[len - 1];
      st.packed = KeyState.encode(nv, len);
      st.len = len;
      st.nDu = 0;
      st.lastIntermediate = false;
    } else if (len != st.len) {
      needDropped("a read of retired key " + Edn.str(keyObjs.get(k)) + " showing " + len + " elements where earlier reads showed "
          + st.len + " (its writers had been dropped)");
    } else if (len > 0 && st.lastIntermediate) {
      needDropped("a read of retired key " + Edn.str(keyObjs.get(k)) + " ending in an intermediate append of a dropped transaction");
    }
  }

  private void extend(int reader, int k, KeyState st, int len, OpRecord r, int mop) {
    int from = st.len;
    for (int p = from; p < len; p++) {
      long v = codes[p];
      int w = st.writer(v);
      st.add(v, w);
      if (w == DROPPED) {
        // The first new element, an unseen append of a dropped writer: its edges (from the last
        // element's writer and readers) were added when it committed. Any other needs the writer.
        if (p == from && st.removeDu(v)) continue;
        needDropped("a read of key " + Edn.str(keyObjs.get(k)) + " showing an append of a transaction the window had dropped");
        continue;
      }
      if (w < 0) continue; // nobody appended it (yet): garbage or future read, left offline
      if (status[w] == OpType.FAIL) {
        if (w != reader) abortedRead(reader, w, k, v, r.renderMop(mop));
        continue;
      }
      observed[w] = true;
      if (node[w] < 0) commit(w);
      if (st.unread != null) st.removeUnread(w);
      int prev = p > 0 ? st.writers[p - 1] : -1;
      if (prev != -1 && prev != w && (prev == DROPPED || node[prev] >= 0)) edge(prev, w, Edge.WW, k);
    }
    // Readers of the version that was last: the next element's writer overwrote what they read.
    if (st.waiting != null && st.waiting.size() > 0) {
      for (int i = 0, n = st.waiting.size(); i < n; i++) {
        int rd = st.waiting.get(i);
        int w = st.nextKnownWriter(from, rd, node);
        if (w != -1) edge(rd, w, Edge.RW, k);
      }
      st.waiting.clear();
    }
    // Appends still unread follow the new last element too.
    if (st.nDu > 0) needDropped("a read extending key " + Edn.str(keyObjs.get(k)) + ", which a dropped transaction appended to unseen");
    if (st.unread != null && st.unread.size() > 0) {
      int last = st.lastKnownWriter(st.len);
      if (last >= 0 && node[last] >= 0) { // from a dropped writer: skipped, as in edge()
        for (int i = 0, n = st.unread.size(); i < n; i++) {
          int u = st.unread.get(i);
          if (u != last) edge(last, u, Edge.WW, k);
        }
      }
    }
  }

  /** The edges of t's first read of k, which saw the first ext elements of k's order (its own appends excluded). */
  private void readEdges(int t, int k, int ext, OpRecord r, int mop) {
    KeyState st = keys.get(k);
    if (ext > 0) {
      int w = st.writers[ext - 1];
      if (w == DROPPED && st.intermediate(st.vals[ext - 1])) {
        needDropped("a read of key " + Edn.str(keyObjs.get(k)) + " ending in an intermediate append of a transaction the window had dropped");
      }
      if (w >= 0 && w != t && node[w] >= 0) {
        edge(w, t, Edge.WR, k);
        intermediate(t, w, k, st.vals[ext - 1], r, mop);
      }
    }
    if (ext < st.len) {
      int w = st.nextKnownWriter(ext, t, node);
      if (w != -1) edge(t, w, Edge.RW, k);
    } else {
      if (st.waiting == null) st.waiting = new IntList(4);
      st.waiting.add(t);
      if (st.nDu > 0) needDropped("a read of the last version of key " + Edn.str(keyObjs.get(k)) + ", which a dropped transaction appended to unseen");
      if (st.unread != null) {
        for (int i = 0, n = st.unread.size(); i < n; i++) {
          int u = st.unread.get(i);
          if (u != t) edge(t, u, Edge.RW, k);
        }
      }
    }
  }

  /** G1b: t read k ending with v, which w appended to k before another append of its own to k. */
  private void intermediate(int t, int w, int k, long v, OpRecord r, int mop) {
    int[] ks = appKeys[w];
    if (ks == null) return;
    long[] vs = appVals[w];
    int at = -1;
    for (int j = 0; j < ks.length; j++) if (ks[j] == k && vs[j] == v) { at = j; break; }
    if (at < 0) return;
    for (int j = at + 1; j < ks.length; j++) {
      if (ks[j] != k) continue;
      report("G1b", allLevels(), new long[] {display(t), display(w)}, new String[0],
          name(t) + " read key " + Edn.str(keyObjs.get(k)) + " as " + r.renderMop(mop) + ", ending with " + values.str(v)
              + ", but " + name(w) + " appended " + values.str(v) + " and then " + values.str(vs[j])
              + " to that key: " + name(t) + " saw an intermediate state of " + name(w) + ".");
      return;
    }
  }

  private void abortedRead(int reader, int w, int k, long v, String read) {
    report("G1a", allLevels(), new long[] {display(reader), display(w)}, new String[0],
        name(reader) + " read key " + Edn.str(keyObjs.get(k)) + " as " + read + ", which includes " + values.str(v)
            + ", appended by " + name(w) + ", whose op failed: an aborted read.");
  }

  /** w failed after a read had shown one of its appends. */
  private void failedObserved(int w) {
    int[] ks = appKeys[w];
    long[] vs = appVals[w];
    for (int j = 0; ks != null && j < ks.length; j++) {
      KeyState st = keys.get(ks[j]);
      if (st.position(vs[j]) < 0) continue;
      report("G1a", allLevels(), new long[] {display(w)}, new String[0],
          "A read showed " + values.str(vs[j]) + " in key " + Edn.str(keyObjs.get(ks[j])) + ", appended by " + name(w)
              + ", whose op then failed: an aborted read.");
      return;
    }
  }

  // ------------------------------------------------------------------ the window

  /** Whether no append to k will be invoked any more and no transaction naming it is in flight. */
  private boolean closed(KeyState st) {
    return st.packed != null || (st.appends >= maxWritesPerKey && st.inFlight == 0);
  }

  private boolean keysClosed(int t) {
    int[] ks = appKeys[t];
    if (ks != null) for (int k : ks) if (!closed(keys.get(k))) return false;
    return true;
  }

  /**
   * Whether committed t is sealed (class comment): completed, and each of its appends either to
   * a closed key, or shown by a read and t completed before every transaction in flight was
   * invoked (oldestInFlight: the first event of the oldest one).
   */
  private boolean sealed(int t, long oldestInFlight) {
    if (status[t] == PENDING) return false;
    int[] ks = appKeys[t];
    if (ks == null) return true;
    boolean old = doneEv[t] < oldestInFlight;
    long[] vs = appVals[t];
    for (int j = 0; j < ks.length; j++) {
      KeyState st = keys.get(ks[j]);
      if (closed(st)) continue;
      if (!old || st.position(vs[j]) < 0) return false;
    }
    return true;
  }

  /**
   * Drops every transaction no future edge can reach (class comment): the open ones (in flight,
   * or with an append to a key not closed, or a session's last commit that an earlier
   * indeterminate transaction of the session may yet precede) and everything reachable from
   * them in some graph are kept, renumbered densely in the same order; so are the transactions
   * not committed whose keys are not all closed. Keys closed with no writer kept keep only their
   * order.
   */
  private void collect() {
    gcs++;
    peakLive = Math.max(peakLive, nTxns);
    int n = nTxns, nodes = txnOfNode.size();
    boolean[] keep = new boolean[n], liveNode = new boolean[nodes];
    int[] queue = new int[nodes];
    int qn = 0;
    long oldestInFlight = Long.MAX_VALUE;
    for (int t = 0; t < n; t++) if (status[t] == PENDING) oldestInFlight = Math.min(oldestInFlight, firstEv[t]);
    for (int t = 0; t < n; t++) {
      if (node[t] >= 0 || status[t] != PENDING && keysClosed(t)) continue;
      keep[t] = true;
      if (status[t] == OpType.FAIL) continue;
      int p = lastCommittedOf.get(session[t]); // t may yet commit: then t -process-> p
      if (p >= 0 && firstEv[p] > firstEv[t] && !liveNode[node[p]]) {
        liveNode[node[p]] = true;
        queue[qn++] = node[p];
      }
    }
    for (int v = 0; v < nodes; v++) {
      int t = txnOfNode.get(v);
      if (!liveNode[v] && !sealed(t, oldestInFlight)) {
        liveNode[v] = true;
        queue[qn++] = v;
      }
    }
    if (shared != null) for (int qi = 0; qi < qn; qi++) qn = shared.successors(queue[qi], liveNode, queue, qn);
    else for (int qi = 0; qi < qn; qi++) for (Graph g : graphs) if (g.g != null) qn = g.successors(queue[qi], liveNode, queue, qn);
    for (int v = 0; v < nodes; v++) if (liveNode[v]) keep[txnOfNode.get(v)] = true;
    int[] newId = new int[n];
    int kept = 0;
    for (int t = 0; t < n; t++) newId[t] = keep[t] ? kept++ : DROPPED;
    gcAt = Math.max(gcMin, 2 * kept);
    if (kept == n) return;

    // Dropped writers' intermediate appends, for G1b on reads that end in one.
    for (int t = 0; t < n; t++) {
      if (keep[t] || appKeys[t] == null) continue;
      int[] ks = appKeys[t];
      for (int j = 0; j < ks.length; j++) {
        for (int j2 = j + 1; j2 < ks.length; j2++) {
          if (ks[j2] != ks[j]) continue;
          KeyState st = keys.get(ks[j]);
          if (st.packed == null) st.addIntermediate(appVals[t][j]);
          break;
        }
      }
    }
    // Dropped writers' appends no read showed yet.
    for (int t = 0; t < n; t++) {
      if (keep[t] || appKeys[t] == null || node[t] < 0) continue;
      int[] ks = appKeys[t];
      for (int j = 0; j < ks.length; j++) {
        KeyState st = keys.get(ks[j]);
        if (st.packed != null || st.unread == null) continue;
        for (int i = 0, m = st.unread.size(); i < m; i++) {
          if (st.unread.get(i) == t) {
            st.addDu(appVals[t][j]);
            break;
          }
        }
      }
    }
    // Keys: renumber; pack the closed ones no kept transaction wrote.
    int kj = 0;
    for (int i = 0, m = openKeys.size(); i < m; i++) {
      int k = openKeys.get(i);
      KeyState st = keys.get(k);
      if (!st.remap(newId) && closed(st)) {
        st.pack();
        retiredKeys++;
        packedOrder.add(k);
      } else openKeys.set(kj++, k);
    }
    openKeys.truncate(kj);
    forgetRetiredKeys();
    forgetSessions();
    // Transactions and nodes.
    int[] nodeMap = new int[nodes];
    int nn = renumberLive(liveNode, nodes, nodeMap);
    for (int t = 0; t < n; t++) {
      int j = newId[t];
      if (j < 0) continue;
      status[j] = status[t];
      observed[j] = observed[t];
      session[j] = session[t];
      node[j] = node[t] >= 0 ? nodeMap[node[t]] : -1;
      firstEv[j] = firstEv[t];
      invEv[j] = invEv[t];
      doneEv[j] = doneEv[t];
      invIndex[j] = invIndex[t];
      doneIndex[j] = doneIndex[t];
      rtPreds[j] = remap(rtPreds[t], newId);
      appKeys[j] = appKeys[t];
      appVals[j] = appVals[t];
      touched[j] = touched[t];
    }
    for (int t = kept; t < n; t++) {
      rtPreds[t] = null;
      appKeys[t] = null;
      appVals[t] = null;
      touched[t] = null;
    }
    droppedTxns += n - kept;
    droppedNodes += nodes - nn;
    nTxns = kept;
    nodeTxns(txnOfNode, nn, node, kept);
    if (shared != null) shared.compact(nodeMap, nn, views);
    else for (Graph g : graphs) g.rebuild(nodeMap, nn);
    for (int s = 0, m = pendingOf.size(); s < m; s++) {
      int p = pendingOf.get(s);
      if (p >= 0) pendingOf.set(s, newId[p]);
      int c = lastCommittedOf.get(s);
      if (c >= 0) lastCommittedOf.set(s, newId[c]);
    }
    frontier.keepMapped(newId);
  }

  /**
   * A window compaction's node numbering: nodeMap[v] the new number of each of the first nodes
   * nodes that liveNode keeps, in order, -1 for the others; returns how many are kept. Shared
   * with RegisterOnline's window.
   */
  static int renumberLive(boolean[] liveNode, int nodes, int[] nodeMap) {
    int nn = 0;
    for (int v = 0; v < nodes; v++) nodeMap[v] = liveNode[v] ? nn++ : -1;
    return nn;
  }

  /** a's elements mapped (the dropped ones, mapped to -1, left out); null for none. Shared with RegisterOnline's window. */
  static int[] remap(int[] a, int[] map) {
    if (a == null) return null;
    int j = 0;
    int[] out = new int[a.length];
    for (int x : a) if (map[x] >= 0) out[j++] = map[x];
    return j == 0 ? null : j == a.length ? out : Arrays.copyOf(out, j);
  }

  /** Refills txnOfNode after a window compaction: each of the nn nodes' transaction among the kept, -1 for none. Shared with RegisterOnline. */
  static void nodeTxns(IntList txnOfNode, int nn, int[] node, int kept) {
    txnOfNode.clear();
    for (int v = 0; v < nn; v++) txnOfNode.add(-1);
    for (int t = 0; t < kept; t++) if (node[t] >= 0) txnOfNode.set(node[t], t);
  }

  // ------------------------------------------------------------------ graphs

  /** The levels a pre-check anomaly rules out here: the strong ones (the weak levels have their own, WeakOnline). */
  private List<Level> allLevels() { return strongLevels; }

  /**
   * The end of the history: the weak levels' transactions still in flight become indeterminate
   * (their reads unknown), which lets the causal clocks waiting for them be made.
   */
  @Override
  public void end() {
    if (reg != null) reg.end();
    if (relay != null) { // the weak levels' thread ends: they end on this one
      Relay w = relay;
      relay = null;
      w.finish();
    }
    if (weak != null) weak.end();
  }

  private void edge(int a, int b, int type, int k) {
    if (a == b) return;
    if (b == DROPPED) {
      if (type == Edge.SO ? anySo : type != Edge.RT || anyRt) {
        needDropped("a " + Edge.name(type) + " edge" + (k >= 0 ? " on key " + Edn.str(keyObjs.get(k)) : "")
            + " into a transaction the window had dropped");
      }
      return;
    }
    if (a == DROPPED) return; // from a dropped transaction: no cycle can pass through it (class comment)
    int tag = type | (k >= 0 && k < (1 << 24) - 1 ? (k + 1) << 7 : 0);
    if (shared != null) {
      int e = -1;
      for (Graph g : graphs) {
        if (type == Edge.SO && !g.so || type == Edge.RT && !g.rt) continue;
        if (e < 0) e = shared.push(node[a], node[b], tag);
        g.edge(e, node[a], node[b], type, tag);
      }
      if (e >= 0) shared.popIfUnheld(e);
    } else for (Graph g : graphs) g.edge(a, b, type, tag);
  }

  /** An event needed a dropped transaction: the verdicts are incomplete from here (class comment). */
  private void needDropped(String why) {
    needDroppedAt(curEvent, curIndex, why, false);
  }

  /**
   * Event ev (at :index index) needed a dropped transaction. Either engine's thread: the
   * earliest such event counts, and at one event the first the weak levels told, else the
   * first the strong ones told (one thread's order: the weak levels take each event first).
   */
  private synchronized void needDroppedAt(long ev, long index, String why, boolean byWeak) {
    degradations++;
    if (incompleteFrom >= 0 && (incompleteFrom < ev || incompleteFrom == ev && (incompleteByWeak || !byWeak))) return;
    incompleteFrom = ev;
    incompleteByWeak = byWeak;
    incompleteWhy = why + (index != OpRecord.ABSENT ? " (at :index " + index + ")" : " (at event " + ev + ")");
  }

  private void report(String anomaly, List<Level> ls, long[] txns, String[] steps, String explanation) {
    reportAt(curEvent, curIndex, curTime, curArrived, anomaly, ls, txns, steps, explanation);
  }

  /** A violation certain at event ev (either engine's thread: they take turns here). */
  private synchronized void reportAt(long ev, long index, long time, long arrived, String anomaly, List<Level> ls,
      long[] txns, String[] steps, String explanation) {
    long c = counts.merge(anomaly, 1L, Long::sum);
    boolean newLevel = false;
    for (Level l : ls) if (!firstOf.containsKey(l)) newLevel = true;
    if (c > maxPerType && !newLevel) {
      violated = true;
      return;
    }
    Violation v = new Violation(anomaly, ls, ev, index, time, arrived, txns, steps, explanation);
    for (Level l : ls) firstOf.putIfAbsent(l, v);
    kept.add(v);
    violated = true;
    if (listener != null) listener.found(v);
  }

  /**
   * One level's dependency graph: transaction nodes (serializable) or begin/commit nodes (SI).
   *
   * <p><b>Covered graphs.</b> When a serializable graph R of this checker (the cover) gets every
   * edge this one gets (this one's orders a subset of R's: SER ⊑ strong-session ⊑ strict, and
   * each SI level under the serializable level of the same orders or stronger), this graph is not
   * built while R is acyclic: a cycle here would be one of R's (a begin/commit cycle, its
   * intra-transaction steps left out, is a closed walk of transaction edges, all R's). At R's
   * first refused edge the covered graphs are built from R's edges, which are then every edge
   * offered so far (R accepted them all), in R's topological order (each mapped edge goes
   * forward in it), before the refused edge is offered to them; from then on they are kept as
   * any other. The window's reachability needs only R (the same transaction edges). For a valid
   * run of SER+SI this halves the graph work; for all seven levels, one graph (strict
   * serializable) is kept instead of seven. Once they are built (a run violating the stronger
   * levels), {@link LevelGraphs} keeps their cost down: one edge store, an order per level.
   */
  private final class Graph {
    final Level level;
    final boolean si, so, rt, rtCommit;
    TopologicalOrder g = new TopologicalOrder(0);
    /** With {@link #shareGraphs}: this level's view of the shared store (then g is null). */
    LevelGraphs.View v;
    /** While not built: the graph that gets every edge this one would (see the class comment). */
    Graph cover;
    /** Edges dropped with their transactions, for stats; while not built, the edges it would have. */
    long dropped;

    /** Builds this covered graph from its cover's edges (see the class comment). */
    void build() {
      Graph r = cover;
      cover = null;
      if (v != null) {
        v.build(r.v);
        return;
      }
      int nodes = txnOfNode.size(), per = si ? 2 : 1;
      TopologicalOrder ng = new TopologicalOrder(nodes * per);
      int[] order = r.g.order();
      int[] o = new int[nodes * per];
      int j = 0;
      for (int x : order) {
        if (si) {
          o[j++] = 2 * x;
          o[j++] = 2 * x + 1;
        } else o[j++] = x;
      }
      ng.setOrder(o);
      if (si) for (int v = 0; v < nodes; v++) ng.add(2 * v, 2 * v + 1, Edge.INTRA, 0);
      for (int e = 0, m = r.g.edgeCount(); e < m; e++) {
        int tag = r.g.tag(e), type = tag & 127;
        if (type == Edge.SO && !so || type == Edge.RT && !rt) continue;
        int a = r.g.from(e), b = r.g.to(e);
        if (ng.add(from(a, type), to(b, type), tag, 0) < 0) throw new IllegalStateException("a covered graph's edge went backwards");
      }
      dropped -= ng.edgeCount();
      g = ng;
    }

    int from(int na, int type) { return !si ? na : type == Edge.RW ? 2 * na : 2 * na + 1; }

    int to(int nb, int type) { return !si ? nb : type == Edge.RW || (rtCommit && type == Edge.RT) ? 2 * nb + 1 : 2 * nb; }

    /** Keeps the nodes of the transactions nodeMap keeps (old node -> new node or -1), in the same order. */
    void rebuild(int[] nodeMap, int nodes) {
      if (g == null) return;
      int per = si ? 2 : 1;
      TopologicalOrder ng = new TopologicalOrder(nodes * per);
      int[] order = g.order();
      int[] keep = new int[nodes * per];
      int j = 0;
      for (int x : order) {
        int nn = nodeMap[x / per];
        if (nn >= 0) keep[j++] = nn * per + x % per;
      }
      ng.setOrder(keep);
      // The kept edges, counted first so that the new graph is built without regrowing.
      int m = g.edgeCount(), kept = 0;
      int[] from = new int[m], to = new int[m], outDeg = new int[nodes * per], inDeg = new int[nodes * per];
      for (int e = 0; e < m; e++) {
        int a = g.from(e), b = g.to(e), na = nodeMap[a / per], nb = nodeMap[b / per];
        if (na < 0 || nb < 0) continue;
        int x = na * per + a % per, y = nb * per + b % per;
        from[e] = x;
        to[e] = y;
        outDeg[x]++;
        inDeg[y]++;
        kept++;
      }
      ng.reserve(kept, outDeg, inDeg);
      for (int e = 0; e < m; e++) {
        int a = g.from(e), b = g.to(e);
        if (nodeMap[a / per] >= 0 && nodeMap[b / per] >= 0) ng.add(from[e], to[e], g.tag(e), 0);
      }
      dropped += g.edgeCount() - ng.edgeCount();
      g = ng;
    }

    /** Marks the transaction nodes node v has an edge to (in this graph) and queues the new ones; the new queue length. */
    int successors(int v, boolean[] mark, int[] queue, int qn) {
      int per = si ? 2 : 1;
      for (int x = v * per; x < v * per + per; x++) {
        for (int i = 0, d = g.outDegree(x); i < d; i++) {
          int u = g.to(g.outEdge(x, i)) / per;
          if (!mark[u]) {
            mark[u] = true;
            queue[qn++] = u;
          }
        }
      }
      return qn;
    }

    Graph(Level l) {
      level = l;
      si = l.kind == Level.Kind.SI;
      so = (l.family.bits & Edge.SO) != 0;
      rt = (l.family.bits & Edge.RT) != 0;
      rtCommit = l.family == Level.Family.COMMIT_REALTIME;
    }

    void addNode() {
      if (g == null) {
        if (si) dropped++; // its begin -> commit edge
        return;
      }
      if (si) {
        int b = g.addNode(), c = g.addNode();
        g.add(b, c, Edge.INTRA, 0);
      } else g.addNode();
    }

    void edge(int a, int b, int type, int tag) {
      if (type == Edge.SO && !so || type == Edge.RT && !rt) return;
      if (g == null) {
        dropped++;
        return;
      }
      int from = from(node[a], type), to = to(node[b], type);
      if (g.add(from, to, tag, 0) >= 0) return;
      for (Graph c : graphs) if (c.cover == this) c.build();
      cycle(from, to, tag);
    }

    /** With {@link #shareGraphs}: offers store edge e, from transaction node na to nb (of a type this level takes). */
    void edge(int e, int na, int nb, int type, int tag) {
      if (!v.built()) {
        v.hold(e);
        return;
      }
      int from = v.from(na, type), to = v.to(nb, type);
      if (v.add(e, from, to)) return;
      for (Graph c : graphs) if (c.cover == this) c.build();
      cycle(from, to, tag);
    }

    /** from → to (tag) was refused: to reaches from. Reports the cycle. */
    private void cycle(int from, int to, int tag) {
      path.clear();
      if (v != null ? !v.path(to, from, path) : g.path(to, from, g.edgeCount(), path) < 0) return; // cannot happen: add refused it
      int n = path.size() + 1;
      int[] ns = new int[n], ls = new int[n], ks = new int[n];
      int m = 0;
      for (int i = -1; i < path.size(); i++) {
        int src = i < 0 ? from : v != null ? v.stepFrom(path.get(i)) : g.from(path.get(i));
        int tg = i < 0 ? tag : v != null ? v.stepTag(path.get(i)) : g.tag(path.get(i));
        int type = tg & 127;
        if (type == Edge.INTRA) continue;
        ns[m] = txnOfNode.get(si ? src / 2 : src);
        ls[m] = type;
        ks[m++] = (tg >>> 7) - 1;
      }
      ns = Arrays.copyOf(ns, m);
      ls = Arrays.copyOf(ls, m);
      String type = new Cycle(ns, ls).anomalyType();
      if (rtCommit && type.endsWith("-realtime")) type = type + "-commit";
      long[] txns = new long[m];
      String[] steps = new String[m];
      StringBuilder sb = new StringBuilder();
      for (int i = 0; i < m; i++) {
        txns[i] = display(ns[i]);
        steps[i] = Edge.name(ls[i]);
        sb.append(name(ns[i])).append(" -").append(steps[i]);
        if (ks[i] >= 0) sb.append(" ").append(Edn.str(keyObjs.get(ks[i])));
        sb.append("-> ");
      }
      sb.append(name(ns[0]));
      report(type, List.of(level), txns, steps, "a cycle " + sb + " (" + level.id + " forbids it)");
    }
  }

  /** What is known of one key: the order its reads showed, who wrote each element, who waits. */
  private static final class KeyState {
    LongIntMap writerOf; // value code -> txn (DROPPED_IN_MAP: dropped)

    /** room: the appends it is expected to get (the window's max-writes-per-key), so that its table seldom regrows. */
    KeyState(int room) { writerOf = new LongIntMap(room); }
    /** Distinct values appended (invoked); transactions in flight that name the key. */
    int appends, inFlight;
    /** Values a dropped writer appended to this key before another append of its own to it (G1b). */
    long[] inter;
    int nInter;
    /** Once packed: the order (zigzag varint deltas), nothing else; whether its last element is in inter. */
    byte[] packed;
    /** Seen again after the window forgot it: its order is unknown. */
    boolean forgotten;
    boolean lastIntermediate;
    /** Appends here of dropped transactions that no read showed: each follows the last element shown. */
    long[] du;
    int nDu;

    void addDu(long v) {
      if (du == null) du = new long[2];
      else if (nDu == du.length) du = Arrays.copyOf(du, 2 * nDu);
      du[nDu++] = v;
    }

    boolean removeDu(long v) {
      for (int i = 0; i < nDu; i++) {
        if (du[i] != v) continue;
        du[i] = du[--nDu];
        return true;
      }
      return false;
    }

    int writer(long v) {
      int w = writerOf.get(v);
      return w == DROPPED_IN_MAP ? DROPPED : w;
    }

    boolean intermediate(long v) {
      for (int i = 0; i < nInter; i++) if (inter[i] == v) return true;
      return false;
    }

    void addIntermediate(long v) {
      if (inter == null) inter = new long[2];
      else if (nInter == inter.length) inter = Arrays.copyOf(inter, 2 * nInter);
      inter[nInter++] = v;
    }

    /** Renumbers the transactions it names (newId: old id -> new id or DROPPED); whether a writer is still held. */
    boolean remap(int[] newId) {
      boolean live = false;
      for (int p = 0; p < len; p++) if (writers[p] >= 0) writers[p] = newId[writers[p]];
      for (int i = 0, n = writerOf.slots(); i < n; i++) {
        int w = writerOf.slotValue(i);
        if (w < 0 || w == DROPPED_IN_MAP) continue;
        int nw = newId[w];
        writerOf.setSlotValue(i, nw == DROPPED ? DROPPED_IN_MAP : nw);
        live |= nw >= 0;
      }
      remapList(waiting, newId);
      remapList(unread, newId);
      return live;
    }

    private static void remapList(IntList l, int[] newId) {
      if (l == null) return;
      int j = 0;
      for (int i = 0, n = l.size(); i < n; i++) {
        int t = newId[l.get(i)];
        if (t >= 0) l.set(j++, t);
      }
      l.truncate(j);
    }

    /** Keeps the order only (the class comment's retired key). */
    void pack() {
      lastIntermediate = len > 0 && intermediate(vals[len - 1]);
      packed = encode(vals, len);
      writerOf = null;
      vals = null;
      writers = null;
      waiting = null;
      unread = null;
    }

    static byte[] encode(long[] vals, int len) {
      byte[] b = new byte[len + 4];
      int n = 0;
      long prev = 0;
      for (int p = 0; p < len; p++) {
        long d = vals[p] - prev;
        prev = vals[p];
        long z = (d << 1) ^ (d >> 63);
        while (true) {
          if (n == b.length) b = Arrays.copyOf(b, 2 * n + 10);
          if ((z & ~0x7FL) == 0) {
            b[n++] = (byte) z;
            break;
          }
          b[n++] = (byte) ((z & 0x7F) | 0x80);
          z >>>= 7;
        }
      }
      return Arrays.copyOf(b, n);
    }

    long[] unpack() {
      long[] out = new long[len];
      long prev = 0;
      for (int p = 0, i = 0; p < len; p++) {
        long z = 0;
        int shift = 0;
        while (true) {
          byte x = packed[i++];
          z |= (long) (x & 0x7F) << shift;
          if (x >= 0) break;
          shift += 7;
        }
        prev += (z >>> 1) ^ -(z & 1);
        out[p] = prev;
      }
      return out;
    }
    long[] vals = new long[4];
    int[] writers = new int[4];
    int len;
    /** Readers (first reads) of the last version shown, waiting for the next element. */
    IntList waiting;
    /** Committed transactions with an append to this key no read has shown yet. */
    IntList unread;

    void add(long v, int w) {
      if (len == vals.length) {
        vals = Arrays.copyOf(vals, 2 * len);
        writers = Arrays.copyOf(writers, 2 * len);
      }
      vals[len] = v;
      writers[len++] = w;
    }

    int position(long v) {
      if (vals == null) return -1;
      for (int p = 0; p < len; p++) if (vals[p] == v) return p;
      return -1;
    }

    /** The writer of the last element before position end with a known writer, or -1. */
    int lastKnownWriter(int end) {
      for (int p = end - 1; p >= 0; p--) if (writers[p] != -1) return writers[p];
      return -1;
    }

    /** The first committed writer at or after position p other than t; -1 when t is it or none is known. */
    int nextKnownWriter(int p, int t, int[] node) {
      for (; p < len; p++) {
        int w = writers[p];
        if (w == t) return -1;
        if (w == DROPPED) return DROPPED;
        if (w >= 0 && node[w] >= 0) return w;
      }
      return -1;
    }

    void removeUnread(int w) {
      int j = 0;
      for (int i = 0, n = unread.size(); i < n; i++) if (unread.get(i) != w) unread.set(j++, unread.get(i));
      unread.truncate(j);
    }
  }
}
