package isocheck.check.si;

import isocheck.graph.Edge;
import isocheck.graph.EdgeList;
import isocheck.graph.Orders;
import isocheck.history.History;
import isocheck.history.OpRecord;
import isocheck.order.RegisterAnalysis;
import isocheck.util.LongHeap;
import java.util.Arrays;

/**
 * A witness that an rw-register history satisfies a serializable or snapshot-isolation level,
 * found without the polygraph: one schedule that follows the history's own time, checked in one
 * pass. Serializability holds when some total order of the committed transactions, extending
 * reads-from and the level's session or realtime order, has every read see the last write before
 * it (Papadimitriou's serial schedules; PolySI, PVLDB'23, §2). Snapshot isolation holds when some
 * order of begin and commit events, a begin before its commit, has every read see the last write
 * committed before its transaction began, and no two transactions that write a common key overlap
 * (first committer wins; the begin/commit formulation of PolySI §2 and Cerone et al.,
 * CONCUR'15).
 *
 * <p>Each level is tried first by a greedy pass ({@link #greedy}): Kahn's algorithm on the
 * in-edges each transaction carries (reads-from, session and realtime order), in completion
 * order, choosing the version order as it goes, so that a writer waits for the readers of the
 * version it overwrites (snapshot isolation: on begin and commit events, a begin placed just
 * before its commit unless a writer waits for it); the order it ends with is then checked edge
 * by edge. No graph is built: at 10^6 transactions it settles strict serializability in about
 * 3 s and strong SI in about 5 s, where the schedule below took 6.5 and 7.5.
 *
 * <p>The schedule: Kahn's algorithm over reads-from and the level's orders (realtime through
 * {@link Orders#realtime}'s relays), the ready event that happened first next: a transaction at
 * its completion (serializability), a begin at its invocation and a commit at its completion
 * (snapshot isolation), a never-completed one at its invocation. A correct store usually committed in an order
 * close to this. When the check passes, the level holds; when it fails, nothing is concluded and
 * the polygraph search decides. Reads are those the polygraph counts (external reads of {@code
 * :ok} transactions naming a committed transaction's final write, or the initial state); the
 * others are violations the pre-checks report.
 *
 * <p>On a file with no invocations, where the greedy passes stall, serializability with session
 * order is tried by {@link BacktrackingWitness}, snapshot isolation with session order by {@link
 * BacktrackingSchedule} (where the file lists sessions one after another, instead of the greedy
 * passes; where it interleaves them, after Kahn's schedule): passes that can undo their choices.
 */
final class SerialWitness {
  private static final int BOT = Polygraph.BOT;

  private final History h;
  private final RegisterAnalysis ra;
  private final boolean[] committed;
  private final int n;
  /** Which schedule the last {@link #holds} that returned true found: "greedy" or "schedule" (Kahn's). */
  String by;
  /**
   * The schedule the last {@link #holds} checked (serializability: transactions; snapshot
   * isolation: begin 2t, commit 2t + 1; higher nodes are relays and gates): when it returned
   * true, the witness.
   */
  int[] lastOrder;
  /** How many greedy passes the last {@link #holds} ran: 1, or 2 when the first stalled. */
  int passes;
  /** Per read mop: the version it names (a transaction, or BOT), or MIN_VALUE when it names none. */
  private int[] version;
  /**
   * Set from another thread when a schedule tried ahead is no longer wanted
   * ({@link RegisterSearch.WitnessAhead#close}): the pass then stops soon and fails.
   */
  volatile boolean cancelled;

  SerialWitness(History h, RegisterAnalysis ra) {
    this.h = h;
    this.ra = ra;
    this.committed = ra.committed;
    this.n = h.nTxns;
  }

  /**
   * Whether the history-ordered schedule witnesses the level: snapshot isolation when {@code si}
   * (else serializability), with session order when {@code session}, realtime order (a commit
   * before the next begin, or transaction) when {@code realtime}.
   */
  boolean holds(boolean si, boolean session, boolean realtime) { return holds(si, session, realtime, true); }

  /**
   * As above; without {@code schedule}, the first greedy pass alone, neither the second nor
   * Kahn's schedule (the caller has a cheaper way when it fails: for the realtime levels, the
   * polygraph whose writer pairs realtime orders are known edges; at 10^5 rw-register a second
   * pass that also stalled cost 0.2 s more than that polygraph's whole search).
   */
  boolean holds(boolean si, boolean session, boolean realtime, boolean schedule) {
    return holds(si, session, realtime, schedule, schedule);
  }

  /**
   * As above, with the second greedy pass when {@code again} and Kahn's schedule when
   * {@code kahn} (and the greedy passes failed).
   */
  boolean holds(boolean si, boolean session, boolean realtime, boolean again, boolean kahn) {
    if (version == null) version = ra.versions();
    lastOrder = null;
    backtracking = null;
    backtrackingSchedule = null;
    if (cancelled) return false;
    by = "greedy";
    // (Tests turn the greedy pass off, -Disocheck.witness.greedy=false, so that Kahn's schedule,
    // which it now nearly always makes unnecessary, is still compared with the oracle.)
    if (!"false".equals(System.getProperty("isocheck.witness.greedy")) && greedy(si, session, realtime, again)) return true;
    if (!kahn || cancelled) return false;
    if (scheduleBacktracking(si, session, realtime, again) && interleaved()) {
      // A file with no invocations that lists transactions interleaved (in the order they
      // completed, as Jepsen's): Kahn's schedule, which follows the file's order, first, then the
      // backtracking schedule (on the snapshot-isolation store's 10^5 history so listed, Kahn's
      // schedule took 59-88 ms of CPU, the backtracking schedule 127-209).
      if (kahnSchedule(si, session, realtime)) return true;
      int[] order = cancelled ? null : backtrackingSchedule();
      if (order == null || cancelled) return false;
      lastOrder = order;
      return verified(order, si, session, realtime);
    }
    return kahnSchedule(si, session, realtime);
  }

  /** Kahn's schedule ({@link #holds}). */
  private boolean kahnSchedule(boolean si, boolean session, boolean realtime) {
    by = "schedule";
    EdgeList es = new EdgeList(64);
    // Reads-from, and the orders, between transactions; relays numbered from n.
    for (int t = 0; t < n; t++) {
      if (!h.isOk(t)) continue;
      for (int m = h.mopStart(t); m < h.mopEnd(t); m++) {
        int v = h.mopKind(m) == OpRecord.READ ? version[m] : Integer.MIN_VALUE;
        if (v >= 0) es.add(v, t, Edge.WR);
      }
    }
    if (session) Orders.sessionOrder(h, committed, es);
    int relays = realtime ? Orders.realtime(h, committed, es) : 0;
    // A read of the initial state of x precedes every write of x (known anti-dependencies, as
    // in the polygraph), through one gate node per such key: its readers → gate → its writers.
    // In serializability a transaction that read the initial state and then wrote the key (a
    // read-modify-write of ⊥, at most one per key, else a lost update) is both: the other readers
    // go before it, and it before the gate.
    int nKeys = h.keyCount();
    int[] gate = new int[nKeys], rmw = new int[nKeys];
    Arrays.fill(gate, -1);
    Arrays.fill(rmw, -1);
    int gates = 0;
    for (int t = 0; t < n; t++) {
      if (!h.isOk(t)) continue;
      for (int m = h.mopStart(t); m < h.mopEnd(t); m++) {
        if (h.mopKind(m) != OpRecord.READ || version[m] != BOT) continue;
        int x = h.mopKey(m);
        if (gate[x] < 0) gate[x] = gates++;
        if (!writes(t, x, m)) continue;
        if (rmw[x] >= 0 && rmw[x] != t) return false; // a lost update: no schedule
        rmw[x] = t;
      }
    }
    // Nodes: SER, transaction t, relay n + r, gate n + relays + g; SI, begin 2t, commit 2t + 1,
    // relay 2n + r, gate 2n + relays + g.
    int base = si ? 2 * n : n, nodes = base + relays + gates;
    IntCsr g = new IntCsr(nodes);
    for (int pass = 0; pass < 2; pass++) {
      orders(g, pass, si, es);
      for (int t = 0; t < n; t++) {
        if (!committed[t]) continue;
        for (int m = h.mopStart(t); m < h.mopEnd(t); m++) {
          int x = h.mopKey(m);
          if (gate[x] < 0) continue;
          int gn = base + relays + gate[x];
          boolean r0 = h.mopKind(m) == OpRecord.READ && version[m] == BOT;
          if (si) {
            if (r0) g.edge(pass, 2 * t, gn);
            else if (h.mopKind(m) == OpRecord.WRITE) g.edge(pass, gn, 2 * t + 1);
          } else if (rmw[x] < 0) {
            if (r0) g.edge(pass, t, gn);
            else if (h.mopKind(m) == OpRecord.WRITE) g.edge(pass, gn, t);
          } else if (t == rmw[x]) {
            if (r0) g.edge(pass, t, gn);
          } else {
            if (r0) g.edge(pass, t, rmw[x]);
            else if (h.mopKind(m) == OpRecord.WRITE) g.edge(pass, gn, t);
          }
        }
      }
      if (pass == 0) g.allocate();
    }
    int[] order = topological(g, ranks(si, realtime, nodes), nodes);
    if (order == null) return false;
    lastOrder = order;
    return acyclicWith(order, si, es, relays);
  }

  /**
   * When each event happened, as the schedules order them (per node; relays and gates 0, as
   * soon as they are ready): a transaction at its completion (serializability), a begin at its
   * invocation and a commit at its completion (snapshot isolation). Under serializability a
   * read-only transaction as soon as it is ready (with {@code realtime}, from its invocation on:
   * the greedy pass then has tried every transaction that completed before it): its place is
   * bounded by the versions it read, not by when it completed, and a store may serve it an
   * older snapshot. At its completion, it came after the writers that overwrote what it read;
   * on a real Jepsen run of a stale-read store (4,236 transactions, 168 keys written blind, session
   * order violated) the greedy passes stalled and the polygraph's pinned rounds took 4.4 s; now the
   * first greedy pass witnesses serializability.
   */
  private long[] ranks(boolean si, boolean realtime, int nodes) {
    long[] rank = new long[nodes];
    long maxOrd = 0;
    for (int t = 0; t < n; t++) maxOrd = Math.max(maxOrd, Math.max(h.completeOrdinal(t), h.invokeOrdinal(t)) + 1);
    // Without an invocation, a begin is ranked just after its session predecessor completed,
    // the earliest it can have begun: its reads then decide when it is placed, as a read-only
    // transaction's do (ranked at its own commit, it looked later than writers it never saw).
    java.util.HashMap<Object, Long> sessionDone = si ? new java.util.HashMap<>() : null;
    for (int t = 0; t < n; t++) {
      long c = h.completeOrdinal(t), i = h.invokeOrdinal(t);
      // Never completed (:info): committed, if at all, some time after its invocation; as
      // early as that, since its readers wait for it.
      long done = c >= 0 ? c + 1 : i >= 0 ? i + 1 : maxOrd + 1;
      if (si) {
        Long prev = i >= 0 ? null : sessionDone.get(h.process(t));
        rank[2 * t] = i >= 0 ? i + 1 : prev != null ? Math.min(prev + 1, done) : Math.min(1, done);
        if (c >= 0) sessionDone.merge(h.process(t), c, Math::max);
        rank[2 * t + 1] = done;
      } else {
        rank[t] = !h.isOk(t) || !h.readOnly(t) ? done : realtime && i >= 0 ? i + 1 : 0;
      }
    }
    return rank;
  }

  /**
   * The level by one greedy pass over the transactions in the order they completed (snapshot
   * isolation: over their begins and commits, {@link Greedy}), with no graph built: Kahn's algorithm on in-edges, which the history gives per transaction (the
   * writers it read from, its session predecessor, the transactions that completed before it was
   * invoked), with the version order chosen as it goes (each key's writers in the order they are
   * placed). A transaction is placed when those predecessors are, and every other reader of the
   * latest version of each key it writes is too (its anti-dependencies); otherwise it waits for
   * one that is not, and is tried again, before the pass goes on, once that one is placed. When
   * every committed transaction is placed, the order is checked edge by edge, independently
   * ({@link #verified}): reads-from, session and realtime order, write-write and anti-dependency
   * edges all forward, so the order is serial and the level holds. A transaction that can never
   * be placed (a cycle, or a version order chosen badly) or an order that fails the check
   * concludes nothing: the caller builds the graph.
   */
  /** Per version (a final write mop; ⊥ of key x is mops + x): its readers, counted once for every pass. */
  private int[] readers;

  private int[] readers(int mops, int nKeys) {
    if (readers != null) return readers;
    int[] c = new int[mops + nKeys];
    for (int t = 0; t < n; t++) {
      if (!h.isOk(t)) continue;
      for (int m = h.mopStart(t); m < h.mopEnd(t); m++) {
        if (h.mopKind(m) != OpRecord.READ) continue;
        int v = version[m];
        if (v == Integer.MIN_VALUE) continue;
        c[v == BOT ? mops + h.mopKey(m) : ra.writerOfRead[m]]++;
      }
    }
    return readers = c;
  }

  private boolean greedy(boolean si, boolean session, boolean realtime, boolean again) {
    int mops = h.mopCount(), nKeys = h.keyCount();
    passes = 0;
    if (scheduleBacktracking(si, session, realtime, again) && !interleaved()) {
      // Listed session by session with no invocations: the greedy passes follow the file's
      // order, no guide to time there (on the snapshot-isolation store's 10^5 history so
      // listed, both stalled, in 30 ms); the backtracking schedule alone.
      int[] order = backtrackingSchedule();
      if (order == null || cancelled) return false;
      lastOrder = order;
      return verified(order, si, session, realtime);
    }
    boolean backtrack = !si && session && (again || realtime) && timeless() && backtrackingOn();
    int[] order = null;
    // A file listed session by session (dbcop, Cobra, Plume text), with no invocations: the
    // greedy passes go by the file's order and stall (issue 29; at 10^5 rw-register they took
    // 60-140 ms of CPU to fail): the backtracking pass first.
    boolean first = backtrack && !interleaved();
    long dt0 = System.nanoTime();
    if (first && !cancelled) order = backtracking();
    if (first && ConflictDirectedBackjumping.DEBUG) System.err.println("witness: backtracking wall " + (System.nanoTime() - dt0) / 1000000 + " ms");
    if (order == null && !cancelled) {
      passes = 1;
      Greedy one = new Greedy(si, mops, nKeys, session, realtime, false, null);
      order = one.run();
      if (order == null && again && !cancelled) {
        // Stalled: again, with each key's writers placed in the order they were first tried (in
        // the first pass's arrays, reset).
        passes = 2;
        order = new Greedy(si, mops, nKeys, session, realtime, true, one).run();
      }
      if (order != null) by = "greedy";
    }
    if (order == null && backtrack && !first && !cancelled) {
      // Stalled on a file with no invocations (dbcop, Cobra, Plume text; a realtime level's
      // order is then empty, the level its session counterpart's): the pass that can undo its
      // version choices (BacktrackingWitness). Not where transactions have invocations: the
      // greedy pass follows their time, and where it stalls the level is usually violated; on
      // the SI store's Plume-shaped 10^5 history (strong-session serializability violated,
      // lein bench search) the backtracking pass cost 2 s (its set-up, and 52,195 placements
      // before a cycle with no choice to undo) before pruning decided.
      order = backtracking();
    }
    if (order == null || cancelled) return false;
    lastOrder = order;
    long dt1 = System.nanoTime();
    boolean ok = verified(order, si, session, realtime);
    if (first && ConflictDirectedBackjumping.DEBUG) System.err.println("witness: verified wall " + (System.nanoTime() - dt1) / 1000000 + " ms");
    return ok;
  }

  /** The backtracking pass's order (by set to "backtracking"), or null when it gave up. */
  private int[] backtracking() {
    BacktrackingWitness b = new BacktrackingWitness(h, ra, committed, version, () -> cancelled);
    backtracking = b;
    int[] order = b.run();
    if (order != null) by = "backtracking";
    return order;
  }

  /**
   * Whether the greedy passes that stall are followed by {@link BacktrackingWitness} or, for
   * snapshot isolation, {@link BacktrackingSchedule} (tests and benches compare:
   * -Disocheck.search.backtracking-witness=false; the latter alone,
   * -Disocheck.search.backtracking-schedule=false).
   */
  static boolean backtrackingOn() { return !"false".equals(System.getProperty("isocheck.search.backtracking-witness")); }

  private Boolean timeless;

  /** Whether no committed transaction has an invocation (the file has no realtime information). */
  private boolean timeless() {
    if (timeless == null) {
      boolean none = true;
      for (int t = 0; t < n && none; t++) if (committed[t] && h.invokeOrdinal(t) >= 0) none = false;
      timeless = none;
    }
    return timeless;
  }

  /** The backtracking pass the last {@link #holds} ran, or null. */
  BacktrackingWitness backtracking;

  /** The snapshot-isolation backtracking pass the last {@link #holds} ran, or null. */
  BacktrackingSchedule backtrackingSchedule;

  /**
   * Whether a snapshot-isolation level whose greedy passes stall is tried by {@link
   * BacktrackingSchedule}: with session order, on a file with no invocations, as {@link
   * BacktrackingWitness} for serializability (off: -Disocheck.search.backtracking-witness=false,
   * or -Disocheck.search.backtracking-schedule=false for this one alone).
   */
  private boolean scheduleBacktracking(boolean si, boolean session, boolean realtime, boolean again) {
    return si && session && (again || realtime) && timeless() && !cancelled && backtrackingOn()
        && !"false".equals(System.getProperty("isocheck.search.backtracking-schedule"));
  }

  /** Runs {@link BacktrackingSchedule}: its schedule, or null. */
  private int[] backtrackingSchedule() {
    BacktrackingSchedule b = new BacktrackingSchedule(h, ra, committed, version, () -> cancelled);
    backtrackingSchedule = b;
    int[] order = b.run();
    if (order != null) by = "backtracking";
    return order;
  }

  private Boolean interleaved;

  /**
   * Whether the file lists committed transactions interleaved: a quarter or more of them follow
   * one of another session (Jepsen's order, by completion; dbcop, Cobra and Plume text list them
   * session by session, where that is one in hundreds).
   */
  private boolean interleaved() {
    if (interleaved == null) {
      int c = 0, switches = 0, last = -1;
      for (int t = 0; t < n; t++) {
        if (!committed[t]) continue;
        c++;
        if (last >= 0 && h.session(t) != last) switches++;
        last = h.session(t);
      }
      interleaved = 4L * switches >= c;
    }
    return interleaved;
  }

  /**
   * The state of {@link #greedy}'s pass. Nodes: serializability, transaction t; snapshot
   * isolation, its begin 2t and commit 2t + 1. A begin waits for the commits it read from, its
   * process predecessor's commit and (realtime) every earlier-completed commit; a commit waits for
   * its begin and for the begins of the other readers of each version it overwrites, and needs
   * that version's commit placed before its own begin (first committer wins: two writers of a
   * key do not overlap), else the pass fails.
   */
  private final class Greedy {
    final boolean si;
    final int mops;
    final boolean session, realtime;
    /** Per version (a final write mop; ⊥ of key x is mops + x): its readers not yet placed (SI: not yet begun). */
    final int[] left;
    /** Per key: its latest placed version. */
    final int[] latest;
    final int[] prev;
    final long[] rank;
    final boolean[] placed;
    /** Per placed node: its place in the order. */
    final int[] posOf;
    /**
     * Nodes waiting for node v: headT[v], then nextW; for version x: headV[x] - 1 (0: none),
     * then nextW (a node waits for one thing at a time, so one link serves both). Few versions
     * are waited for: a bit each says which, so that the versions read, woken as their readers
     * are placed, do not each cost a cache miss in headV (at 10^6 transactions, 88 MB; a HashMap
     * of lists boxed each version).
     */
    final int[] headT, nextW, headV;
    final long[] waitedFor;
    /** Waiting :ok transactions (SI: their commits) by completion: realtime predecessors of later invocations. */
    final LongHeap waiting;
    final boolean[] inWaiting;
    /** Woken nodes, by rank: tried before the pass goes on. */
    final LongHeap ready;
    int[] order;
    int placedCount;
    /** Set when two writers of a key overlap in the order chosen (SI): the pass cannot succeed. */
    boolean failed;
    /**
     * With {@code inLine}, per key: its writers in the order they were first tried, and how many
     * of them are placed; a writer is placed only after those tried before it. (Without it, a
     * writer that waited for readers could be overtaken on another key it writes by a later one,
     * and then need that one's readers first: where those depend on it, the pass stalls, as on a
     * serializable store's Jepsen-shaped history.)
     */
    final boolean inLine;
    final isocheck.util.IntList[] line;
    final int[] lineHead;
    final boolean[] lined;

    /**
     * A pass; with {@code after} (a failed pass of the same level), in its arrays, reset: a second
     * pass allocated afresh cost a collection, on the serializable store's Jepsen-shaped history at
     * 10^6 a full one (0.1 s), beside the polygraph's build, and sorted its nodes again.
     */
    Greedy(boolean si, int mops, int nKeys, boolean session, boolean realtime, boolean inLine, Greedy after) {
      this.inLine = inLine;
      line = inLine ? new isocheck.util.IntList[nKeys] : null;
      lineHead = inLine ? new int[nKeys] : null;
      lined = inLine ? new boolean[n] : null;
      this.si = si;
      this.mops = mops;
      this.session = session;
      this.realtime = realtime;
      if (after != null) {
        // The same level's: its session predecessors and ranks are these; the rest as new.
        left = after.left;
        System.arraycopy(readers(mops, nKeys), 0, left, 0, left.length);
        headV = after.headV;
        Arrays.fill(headV, 0);
        waitedFor = after.waitedFor;
        Arrays.fill(waitedFor, 0L);
        latest = after.latest;
        for (int x = 0; x < nKeys; x++) latest[x] = mops + x;
        prev = after.prev;
        rank = after.rank;
        placed = after.placed;
        Arrays.fill(placed, false);
        posOf = after.posOf;
        headT = after.headT;
        Arrays.fill(headT, -1);
        nextW = after.nextW;
        inWaiting = after.inWaiting;
        Arrays.fill(inWaiting, false);
        sorted = after.sorted;
        order = after.order;
        waiting = new LongHeap(64);
        ready = new LongHeap(64);
        return;
      }
      left = readers(mops, nKeys).clone();
      headV = new int[mops + nKeys];
      waitedFor = new long[(mops + nKeys + 63) >>> 6];
      latest = new int[nKeys];
      for (int x = 0; x < nKeys; x++) latest[x] = mops + x;
      prev = new int[n];
      Arrays.fill(prev, -1);
      if (session) {
        int[] last = new int[h.sessionCount()];
        Arrays.fill(last, -1);
        for (int t = 0; t < n; t++) {
          if (!committed[t]) continue;
          prev[t] = last[h.session(t)];
          last[h.session(t)] = t;
        }
      }
      int nodes = si ? 2 * n : n;
      rank = ranks(si, realtime, nodes);
      // A begin is placed no earlier than just before its commit: where a begin must come
      // sooner (a writer of a version it read waits for it), it is placed when that writer's
      // commit has waited for it; placed at its invocation, it would overlap a writer of the
      // same key that committed, as the store saw it, before it began.
      if (si) for (int t = 0; t < n; t++) rank[2 * t] = rank[2 * t + 1];
      placed = new boolean[nodes];
      posOf = new int[nodes];
      headT = new int[nodes];
      nextW = new int[nodes];
      Arrays.fill(headT, -1);
      waiting = new LongHeap(64);
      inWaiting = new boolean[n];
      ready = new LongHeap(64);
    }

    /** The version read mop m names (a final write mop, or mops + key for ⊥), or -1. */
    int vid(int m) {
      if (h.mopKind(m) != OpRecord.READ) return -1;
      int v = version[m];
      if (v == Integer.MIN_VALUE) return -1;
      return v == BOT ? mops + h.mopKey(m) : ra.writerOfRead[m];
    }

    /** The node of t's commit (serializability: t). */
    int commit(int t) { return si ? 2 * t + 1 : t; }

    /** The committed nodes by (rank, node), as keys ({@link #key}); a second pass takes the first's. */
    long[] sorted;

    int[] run() {
      if (sorted == null) {
        int c = 0;
        for (int t = 0; t < n; t++) if (committed[t]) c++;
        long[] keys = new long[si ? 2 * c : c];
        for (int t = 0, k = 0; t < n; t++) {
          if (!committed[t]) continue;
          if (si) {
            keys[k++] = key(rank, 2 * t);
            keys[k++] = key(rank, 2 * t + 1);
          } else keys[k++] = key(rank, t);
        }
        Arrays.sort(keys);
        sorted = keys;
        order = new int[keys.length];
      }
      long[] keys = sorted;
      int i = 0;
      for (long kv : keys) {
        if ((++i & 4095) == 0 && cancelled) return null;
        int v = (int) kv;
        if (!placed[v]) attempt(v);
        while (ready.size() > 0 && !failed) {
          int u = (int) ready.pop();
          if (!placed[u]) attempt(u);
        }
        if (failed) return null;
      }
      return placedCount == keys.length ? order : null;
    }

    void attempt(int v) {
      int b = blocker(v);
      if (failed) return;
      if (b == Integer.MIN_VALUE) {
        place(v);
        return;
      }
      if (b >= 0) {
        nextW[v] = headT[b];
        headT[b] = v;
      } else {
        int x = -b - 1;
        nextW[v] = headV[x] - 1;
        headV[x] = v + 1;
        waitedFor[x >>> 6] |= 1L << x;
      }
      int t = si ? v >>> 1 : v;
      if (v == commit(t) && !inWaiting[t] && h.isOk(t) && h.completeOrdinal(t) >= 0) {
        inWaiting[t] = true;
        waiting.push((h.completeOrdinal(t) << 32) | v);
      }
    }

    /** What node v waits for: a node (≥ 0), a version x (-x - 1), or MIN_VALUE for nothing. */
    int blocker(int v) {
      int t = si ? v >>> 1 : v;
      boolean begin = !si || (v & 1) == 0, end = !si || (v & 1) == 1;
      boolean ok = h.isOk(t);
      if (inLine && end && !lined[t]) {
        // In line on each key it writes from its first try, whatever it then waits for.
        lined[t] = true;
        for (int m = h.mopStart(t); m < h.mopEnd(t); m++) {
          if (h.mopKind(m) != OpRecord.WRITE || !ra.isFinalWrite(m)) continue;
          int x = h.mopKey(m);
          if (line[x] == null) line[x] = new isocheck.util.IntList(4);
          line[x].add(t);
        }
      }
      if (begin) {
        if (prev[t] >= 0 && !placed[commit(prev[t])]) return commit(prev[t]);
        if (ok) {
          for (int m = h.mopStart(t); m < h.mopEnd(t); m++) {
            if (h.mopKind(m) != OpRecord.READ) continue;
            int w = version[m];
            if (w >= 0 && !placed[commit(w)]) return commit(w);
          }
        }
        if (realtime && h.invokeOrdinal(t) >= 0) {
          long inv = h.invokeOrdinal(t);
          while (waiting.size() > 0 && placed[(int) waiting.peek()]) waiting.pop();
          if (waiting.size() > 0 && (waiting.peek() >>> 32) < inv) return (int) waiting.peek();
        }
      }
      if (end) {
        if (si && !placed[2 * t]) return 2 * t;
        if (inLine) {
          for (int m = h.mopStart(t); m < h.mopEnd(t); m++) {
            if (h.mopKind(m) != OpRecord.WRITE || !ra.isFinalWrite(m)) continue;
            int x = h.mopKey(m), u = line[x].get(lineHead[x]);
            if (u != t) return commit(u);
          }
        }
        // Every other reader of the latest version of each key t writes: t's own reads of it
        // counted out (serializability; under SI they were, when t's begin was placed), by a
        // scan of t only where some reader is left: the version's count, one random access,
        // usually says none is. (Before, every read of t was counted out and back in around
        // this loop, two random accesses each: lein bench cli's 10^5 rw-register history's
        // strong-session schedule took 227 ms, now 205, medians of 18 warm runs; at 4·10^5
        // and on Jepsen's shape at 10^6, with C2, the same within noise. And under SI its reads
        // were counted out twice: a commit went before a reader of the version it overwrote
        // had begun, and the order then failed its check.)
        for (int m = h.mopStart(t); m < h.mopEnd(t); m++) {
          if (h.mopKind(m) != OpRecord.WRITE || !ra.isFinalWrite(m)) continue;
          int x = h.mopKey(m), lv = latest[x], c = left[lv];
          if (c > 0 && ok && !si) c -= ownReads(t, x, lv);
          if (c > 0) return -lv - 1;
        }
      }
      return Integer.MIN_VALUE;
    }

    /** How many of t's reads of key x name version lv. */
    int ownReads(int t, int x, int lv) {
      int c = 0;
      for (int m = h.mopStart(t); m < h.mopEnd(t); m++) if (h.mopKey(m) == x && vid(m) == lv) c++;
      return c;
    }

    void place(int v) {
      int t = si ? v >>> 1 : v;
      boolean begin = !si || (v & 1) == 0, end = !si || (v & 1) == 1;
      if (end && si) {
        // First committer wins: the version this commit follows was committed before t began.
        for (int m = h.mopStart(t); m < h.mopEnd(t); m++) {
          if (h.mopKind(m) != OpRecord.WRITE || !ra.isFinalWrite(m)) continue;
          int lv = latest[h.mopKey(m)];
          if (lv < mops && !begunAfter(h.mopTxn(lv), t)) {
            failed = true;
            return;
          }
        }
      }
      placed[v] = true;
      posOf[v] = placedCount;
      order[placedCount++] = v;
      if (begin && h.isOk(t)) {
        for (int m = h.mopStart(t); m < h.mopEnd(t); m++) {
          int x = vid(m);
          // Its waiters are woken at one reader left, not only at none: a writer that read the
          // version it overwrites (read-modify-write) counts its own read out, so it can go
          // once the one left is its own. Woken only at none, it was never retried, and the
          // pass stalled with nothing blocking it (at 10^5, 10,719 of 94,286 placed).
          if (x >= 0 && --left[x] <= 1 && (waitedFor[x >>> 6] & (1L << x)) != 0) {
            for (int w = headV[x] - 1; w >= 0; w = nextW[w]) ready.push(key(rank, w));
            headV[x] = 0;
            waitedFor[x >>> 6] &= ~(1L << x);
          }
        }
      }
      if (end) {
        for (int m = h.mopStart(t); m < h.mopEnd(t); m++) {
          if (h.mopKind(m) == OpRecord.WRITE && ra.isFinalWrite(m)) {
            latest[h.mopKey(m)] = m;
            if (inLine) lineHead[h.mopKey(m)]++; // t was at the head: the next in line may go
          }
        }
      }
      for (int w = headT[v]; w >= 0; w = nextW[w]) ready.push(key(rank, w));
      headT[v] = -1;
    }

    /** Whether w's commit was placed before t's begin (both are placed). */
    boolean begunAfter(int w, int t) { return posOf[2 * w + 1] < posOf[2 * t]; }
  }

  /**
   * Whether {@code order} is a schedule for the level. Serializability: the committed
   * transactions, serial. Snapshot isolation: their begin (2t) and commit (2t + 1) events, each
   * begin before its commit, and each key's writers, in the order of their commits, each begun
   * after the previous one committed (first committer wins). Both: every reads-from, session-order
   * and realtime edge (from a commit to a begin) forward, write-write edges forward by the
   * version order's construction (each key's writers in the order of their commits), and every
   * anti-dependency forward (from a reader's begin to the commit of the writer after the version
   * it read).
   */
  private boolean verified(int[] order, boolean si, boolean session, boolean realtime) {
    int[] pos = new int[si ? 2 * n : n];
    Arrays.fill(pos, -1);
    for (int i = 0; i < order.length; i++) pos[order[i]] = i;
    if (si) for (int t = 0; t < n; t++) if (committed[t] && (pos[2 * t] < 0 || pos[2 * t] > pos[2 * t + 1])) return false;
    if (!everyRange((from, to) -> {
      for (int t = from; t < to; t++) {
        if (!h.isOk(t)) continue;
        for (int m = h.mopStart(t); m < h.mopEnd(t); m++) {
          int v = h.mopKind(m) == OpRecord.READ ? version[m] : Integer.MIN_VALUE;
          if (v < 0) continue;
          int c = si ? 2 * v + 1 : v;
          if (pos[c] < 0 || pos[c] > pos[si ? 2 * t : t]) return false;
        }
      }
      return true;
    })) return false;
    if (session) {
      EdgeList so = new EdgeList(Math.max(64, n));
      Orders.sessionOrder(h, committed, so);
      for (int i = 0; i < so.size(); i++) {
        int a = so.src(i), b = so.dst(i);
        if (pos[si ? 2 * a + 1 : a] > pos[si ? 2 * b : b]) return false;
      }
    }
    if (realtime && !realtimeForward(pos, si)) return false;
    // Writers in commit order: succ[v] is the transaction whose write follows version v (a final
    // write mop, or mops + x for ⊥ of key x), -1 for none.
    int mops = h.mopCount(), nKeys = h.keyCount();
    int[] succ = new int[mops + nKeys], last = new int[nKeys];
    Arrays.fill(succ, -1);
    for (int x = 0; x < nKeys; x++) last[x] = mops + x;
    for (int v : order) {
      if (si && (v & 1) == 0) continue;
      int t = si ? v >>> 1 : v;
      for (int m = h.mopStart(t); m < h.mopEnd(t); m++) {
        if (h.mopKind(m) != OpRecord.WRITE || !ra.isFinalWrite(m)) continue;
        int x = h.mopKey(m), p = last[x];
        if (si && p < mops && pos[2 * h.mopTxn(p) + 1] > pos[2 * t]) return false; // overlapping writers
        succ[p] = t;
        last[x] = m;
      }
    }
    return antiDependenciesForward(succ, pos, si);
  }

  /**
   * Whether each read's anti-dependency goes forward in pos: from its reader (SI: the begin) to
   * the writer after the version it read (SI: the commit), succ[v] being that writer (-1: none).
   */
  private boolean antiDependenciesForward(int[] succ, int[] pos, boolean si) {
    int mops = h.mopCount();
    return everyRange((from, to) -> {
      for (int t = from; t < to; t++) {
        if (!h.isOk(t)) continue;
        for (int m = h.mopStart(t); m < h.mopEnd(t); m++) {
          if (h.mopKind(m) != OpRecord.READ || version[m] == Integer.MIN_VALUE) continue;
          int x = h.mopKey(m);
          int w = succ[version[m] == BOT ? mops + x : ra.writerOfRead[m]];
          if (w == t) w = succ[finalWrite(t, x)]; // t overwrote it: the writer after t
          if (w >= 0 && pos[si ? 2 * t : t] > pos[si ? 2 * w + 1 : w]) return false;
        }
      }
      return true;
    });
  }

  /** A check over the transactions [from, to). */
  private interface RangeCheck {
    boolean holds(int from, int to);
  }

  /**
   * Whether the check holds over every transaction, a range of them per core (isocheck.util.Ranges;
   * the checks only read, so the answer does not depend on the split).
   */
  private boolean everyRange(RangeCheck check) {
    isocheck.util.Ranges txns = new isocheck.util.Ranges(n);
    boolean[] ok = new boolean[txns.count];
    txns.forEach(c -> ok[c] = check.holds(txns.from(c), txns.to(c)));
    for (boolean b : ok) if (!b) return false;
    return true;
  }

  /** Transaction t's final write of key x (t writes x). */
  private int finalWrite(int t, int x) {
    for (int m = h.mopEnd(t) - 1; m >= h.mopStart(t); m--) if (h.mopKind(m) == OpRecord.WRITE && h.mopKey(m) == x) return m;
    throw new IllegalStateException("T" + t + " does not write key " + x);
  }

  /**
   * Whether every realtime edge (as {@link Orders#realtime} has them: T → S when T, committed
   * and {@code :ok}, completed before S, committed, was invoked) goes forward in pos.
   */
  private boolean realtimeForward(int[] pos, boolean si) {
    long[] comp = new long[n], inv = new long[n];
    int nc = 0, ni = 0;
    for (int t = 0; t < n; t++) {
      if (!committed[t]) continue;
      if (h.isOk(t) && h.completeOrdinal(t) >= 0) comp[nc++] = (h.completeOrdinal(t) << 32) | t;
      if (h.invokeOrdinal(t) >= 0) inv[ni++] = (h.invokeOrdinal(t) << 32) | t;
    }
    Arrays.sort(comp, 0, nc);
    Arrays.sort(inv, 0, ni);
    int latest = -1; // the latest position of a completion so far
    for (int i = 0, ci = 0; i < ni; i++) {
      long io = inv[i] >>> 32;
      while (ci < nc && comp[ci] >>> 32 < io) {
        int a = (int) comp[ci++];
        latest = Math.max(latest, pos[si ? 2 * a + 1 : a]);
      }
      int b = (int) inv[i];
      if (latest > pos[si ? 2 * b : b]) return false;
    }
    return true;
  }

  /**
   * The level's graph with the version order the schedule gives (each key's writers in the
   * order their commits were placed): reads-from, the orders, write-write between consecutive
   * writers, and an anti-dependency from each read to the writer after the version it read
   * (after ⊥: the key's first writer). Serializability: edges between transactions; snapshot
   * isolation: begin/commit events, with write-write and reads-from from a commit to a begin,
   * anti-dependencies from a begin to a commit (the begin/commit graph, isocheck.graph.BcGraph).
   * Acyclic: the level holds with that version order (Adya's theorem; PolySI Thm 4.1).
   */
  private boolean acyclicWith(int[] order, boolean si, EdgeList es, int relays) {
    int nKeys = h.keyCount();
    int[] start = new int[nKeys + 1], slot = new int[h.mopCount()];
    int[] writer = versionOrder(order, si, start, slot);
    // Write-write and anti-dependency edges, gathered once (their look-ups miss the caches).
    EdgeList more = new EdgeList(Math.max(64, writer.length + h.mopCount() / 2));
    for (int x = 0; x < nKeys; x++) {
      for (int i = start[x] + 1; i < start[x + 1]; i++) more.add(writer[i - 1], writer[i], Edge.WW);
    }
    for (int t = 0; t < n; t++) {
      if (!h.isOk(t)) continue;
      for (int m = h.mopStart(t); m < h.mopEnd(t); m++) {
        if (h.mopKind(m) != OpRecord.READ || version[m] == Integer.MIN_VALUE) continue;
        int x = h.mopKey(m);
        int next = version[m] == BOT ? start[x] : slot[ra.writerOfRead[m]] + 1;
        if (next >= start[x + 1]) continue;
        int w = writer[next];
        if (w == t) {
          if (++next >= start[x + 1]) continue; // t overwrote what it read: the writer after t
          w = writer[next];
        }
        more.add(t, w, Edge.RW);
      }
    }
    int base = si ? 2 * n : n, nodes = base + relays;
    IntCsr g = new IntCsr(nodes);
    for (int pass = 0; pass < 2; pass++) {
      orders(g, pass, si, es);
      // Snapshot isolation: write-write from a commit to the next writer's begin, an
      // anti-dependency from the reader's begin to the overwriter's commit.
      for (int i = 0; i < more.size(); i++) {
        int a = more.src(i), b = more.dst(i);
        boolean ww = more.type(i) == Edge.WW;
        g.edge(pass, si ? (ww ? 2 * a + 1 : 2 * a) : a, si ? (ww ? 2 * b : 2 * b + 1) : b);
      }
      if (pass == 0) g.allocate();
    }
    int[] indeg = new int[nodes];
    for (int e = 0; e < g.target.length; e++) indeg[g.target[e]]++;
    int[] queue = new int[nodes];
    int head = 0, tail = 0;
    for (int v = 0; v < nodes; v++) if (indeg[v] == 0) queue[tail++] = v;
    while (head < tail) {
      int v = queue[head++];
      for (int e = g.start[v]; e < g.start[v + 1]; e++) if (--indeg[g.target[e]] == 0) queue[tail++] = g.target[e];
    }
    return tail == nodes;
  }

  /**
   * The version order a schedule gives: each key's committed writers in the order their
   * commits were placed, key x's in the returned array from start[x] to start[x + 1]; slot[m]
   * is final write m's place there.
   */
  private int[] versionOrder(int[] order, boolean si, int[] start, int[] slot) {
    int nKeys = h.keyCount();
    // Each key's committed writers, in schedule order: counted, then filled walking the order.
    int[] stamp = new int[nKeys];
    Arrays.fill(stamp, -1);
    for (int t = 0; t < n; t++) {
      if (!committed[t]) continue;
      for (int m = h.mopStart(t); m < h.mopEnd(t); m++) {
        if (h.mopKind(m) != OpRecord.WRITE || stamp[h.mopKey(m)] == t) continue;
        stamp[h.mopKey(m)] = t;
        start[h.mopKey(m) + 1]++;
      }
    }
    for (int x = 0; x < nKeys; x++) start[x + 1] += start[x];
    int[] fill = Arrays.copyOf(start, nKeys), writer = new int[start[nKeys]];
    Arrays.fill(stamp, -1);
    for (int v : order) {
      if (si ? v >= 2 * n || (v & 1) == 0 : v >= n) continue;
      int t = si ? v >>> 1 : v;
      if (!committed[t]) continue;
      for (int m = h.mopEnd(t) - 1; m >= h.mopStart(t); m--) {
        if (h.mopKind(m) != OpRecord.WRITE || stamp[h.mopKey(m)] == t) continue;
        int x = h.mopKey(m);
        stamp[x] = t;
        slot[m] = fill[x];
        writer[fill[x]++] = t;
      }
    }
    return writer;
  }

  /**
   * The edges every graph here has: reads-from and the level's orders (es, relays from n), and
   * for snapshot isolation each transaction's begin before its commit; a commit → begin between
   * transactions.
   */
  private void orders(IntCsr g, int pass, boolean si, EdgeList es) {
    if (si) for (int t = 0; t < n; t++) if (committed[t]) g.edge(pass, 2 * t, 2 * t + 1);
    for (int i = 0; i < es.size(); i++) {
      int a = es.src(i), b = es.dst(i);
      g.edge(pass, si ? (a < n ? 2 * a + 1 : n + a) : a, si ? (b < n ? 2 * b : n + b) : b);
    }
  }

  /** Whether t writes x after mop m. */
  private boolean writes(int t, int x, int m) {
    for (int i = m + 1; i < h.mopEnd(t); i++) if (h.mopKind(i) == OpRecord.WRITE && h.mopKey(i) == x) return true;
    return false;
  }

  /**
   * Kahn's algorithm, the ready node of least (rank, node) next (relays as soon as they are
   * ready); the nodes in that order, or null when the graph has a cycle among committed nodes.
   * Nodes of transactions not committed have no edges and are placed where their rank says.
   */
  private int[] topological(IntCsr g, long[] rank, int nodes) {
    int[] indeg = new int[nodes];
    for (int v = 0; v < nodes; v++) for (int e = g.start[v]; e < g.start[v + 1]; e++) indeg[g.target[e]]++;
    int[] out = new int[nodes];
    LongHeap heap = new LongHeap(nodes);
    for (int v = 0; v < nodes; v++) if (indeg[v] == 0) heap.push(key(rank, v));
    int k = 0;
    while (heap.size() > 0) {
      int v = (int) (heap.pop() & 0xffffffffL);
      out[k++] = v;
      for (int e = g.start[v]; e < g.start[v + 1]; e++) {
        int w = g.target[e];
        if (--indeg[w] == 0) heap.push(key(rank, w));
      }
    }
    return k == nodes ? out : null;
  }

  private static long key(long[] rank, int v) {
    return (rank[v] << 32) | (v & 0xffffffffL);
  }

  /** Adjacency in CSR form, counted in pass 0 and filled in pass 1. */
  private static final class IntCsr {
    final int[] start;
    int[] target, fill;

    IntCsr(int nodes) { start = new int[nodes + 1]; }

    void edge(int pass, int a, int b) {
      if (pass == 0) start[a + 1]++;
      else target[fill[a]++] = b;
    }

    void allocate() {
      for (int v = 0; v + 1 < start.length; v++) start[v + 1] += start[v];
      target = new int[start[start.length - 1]];
      fill = Arrays.copyOf(start, start.length - 1);
    }
  }
}
