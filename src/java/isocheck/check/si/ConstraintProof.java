package isocheck.check.si;

import isocheck.check.Level;
import isocheck.history.History;
import isocheck.history.OpRecord;
import isocheck.history.OpType;
import isocheck.util.IntList;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A refutation that needs no trust in the search (issue 27): for a violated serializable,
 * snapshot-isolation or repeatable-read level of an rw-register history whose counterexamples
 * rest on write orders the search chose, a proof that every version order closes a cycle the
 * level forbids. It is built on the history alone, by its own small search, and checked by
 * {@code isocheck.verify}, which shares no code with it.
 *
 * <p>The constraints are Cobra's (Tan et al., OSDI'20, §3: a polygraph's constraint per pair of
 * writers of a key): for two committed writers a, b of key x, either a's version comes first
 * (a →ww b, and every reader of a's version →rw b) or b's does. The facts are the edges the
 * history shows: reads (wr), read-modify-writes (ww: t read w's version of x, then wrote x),
 * anti-dependencies from a read of the initial value or of a version a read-modify-write
 * overwrote, and the process and realtime orders the level includes. A derivation fixes one
 * order of a constraint because the other closes a cycle with the facts and the orders derived
 * before it (PolySI's pruning, Huang et al., VLDB'23, §4.2, recorded step by step); a split is a
 * constraint both of whose orders lead, each after its own derivations, to a cycle (a case split
 * of the solver's search, made explicit). Snapshot isolation's cycles are those of Viper's
 * begin/commit graph (Zhang et al., EuroSys'23, Def. 2): no anti-dependency right after a step
 * that enters its transaction at its commit (an anti-dependency, or GSI's realtime order).
 *
 * <p>The proof, in the result map's {@code :refutations} (doc/reports.md): a node is
 * {@code {:derive [order ...], :split order, :then node, :else node}}, an order
 * {@code {:key k, :before i, :after j}} (T{@code i}'s write of k before T{@code j}'s). Each
 * derived order's reverse closes a cycle; under the split order the {@code :then} node holds
 * (absent: that order closes a cycle at once), under its reverse the {@code :else} node.
 * Only the derivations some cycle uses are kept. When the facts alone close a cycle (one the
 * counterexample need not be), the proof is {@code {:derive [], :cycle-through i}}: a cycle
 * through T{@code i}.
 */
public final class ConstraintProof {
  private final History h;
  private final int n, keys;
  private final boolean serial, session, realtime, rtToCommit;
  /** Work done (states and edges visited, closure words updated), against {@link #MAX_WORK}. */
  private long work;

  /**
   * The most work a proof may take: a count, not a time, so that a history's result is the same
   * on every run and machine (about 0.5 s on a 2-core laptop).
   */
  public static final long MAX_WORK = 300_000_000L;

  /** The work this proof may do (what is left of the check's {@link #MAX_WORK}). */
  private long maxWork = MAX_WORK;
  private static final boolean DEBUG = Boolean.getBoolean("isocheck.proof.debug");

  /** Edge kinds: a data or order dependency (enters at begin), an anti-dependency, GSI's realtime (enters at commit). */
  private static final int D = 0, RW = 1, RTC = 2;

  private final boolean[] committed;
  /** Per key, its committed writers. */
  private final int[][] writers;
  /** Per (key, writer): the :ok transactions that read the writer's last write of the key before writing it themselves. */
  private final java.util.HashMap<Long, int[]> readersOf = new java.util.HashMap<>();
  /** Base graph (CSR): nodes 0..n-1 transactions, n+x the initial version of key x. */
  private int[] off, dst, kind;
  /** Realtime: committed transactions by invocation, and their invocations. */
  private int[] byInvoke;
  private long[] invokes;

  private ConstraintProof(History h, boolean serial, boolean session, boolean realtime, boolean rtToCommit) {
    this(h, serial, session, realtime, rtToCommit, null);
  }

  /** As above; {@code stop} (may be null) saying to give up, between the passes of the build ({@link Stopped}). */
  private ConstraintProof(History h, boolean serial, boolean session, boolean realtime, boolean rtToCommit,
                          java.util.function.BooleanSupplier stop) {
    this.h = h;
    this.n = h.nTxns;
    this.keys = h.keyCount();
    this.serial = serial;
    this.session = session;
    this.realtime = realtime;
    this.rtToCommit = rtToCommit;
    this.stop = stop;
    committed = new boolean[n];
    writers = new int[keys][];
    build();
  }

  private final java.util.function.BooleanSupplier stop;

  /** A build given up ({@link #prepare}). */
  private static final class Stopped extends RuntimeException {
    Stopped() { super(null, null, false, false); }
  }

  private void stopIfAsked() {
    if (stop != null && stop.getAsBoolean()) throw new Stopped();
  }

  /** The largest history a proof is tried on, and the most constraints (beyond: those near the counterexample). */
  static final int MAX_TXNS = 20_000, MAX_CONSTRAINTS = 20_000;

  /**
   * The proof that level l is violated (the refutation's data, for {@code :refutations}; when
   * the facts alone close a cycle, {@code {:derive [], :cycle-through i}}), or null: not an
   * rw-register history, more than {@link #MAX_TXNS} transactions, a level without such proofs,
   * or none found within {@link #MAX_WORK} (beyond {@link #MAX_CONSTRAINTS} pairs of writers,
   * among those near the counterexample only). hint: the counterexamples' transactions, whose
   * constraints are split first (and, beyond that many pairs, the only ones tried with their
   * neighbours).
   */
  public static Map<String, Object> of(History h, Level l, int[] hint) {
    return of(h, l, hint, new long[] {MAX_WORK});
  }

  /** As above, within the work left in budget[0], which the work done is taken from. */
  public static Map<String, Object> of(History h, Level l, int[] hint, long[] budget) {
    return of(h, l, hint, budget, null);
  }

  /**
   * As above, with a proof's facts built ahead ({@link #prepare}) in prepared[0] (may be null):
   * taken (prepared[0] then null) when they are l's (the same history and orders), else built
   * here. The proof is the same either way: the facts are the history's, and the work counted
   * against the budget is the search's, not the build's.
   */
  public static Map<String, Object> of(History h, Level l, int[] hint, long[] budget, ConstraintProof[] prepared) {
    if (h.workload != History.Workload.REGISTER || h.nTxns > MAX_TXNS) return null;
    boolean serial = l.kind == Level.Kind.SER || l == Level.REPEATABLE_READ;
    if (!serial && l.kind != Level.Kind.SI) return null;
    boolean session = l.family == Level.Family.PROCESS || l.family == Level.Family.REALTIME;
    boolean realtime = l.family == Level.Family.REALTIME || l.family == Level.Family.COMMIT_REALTIME;
    if (budget[0] <= 0) return null;
    boolean rtToCommit = l.family == Level.Family.COMMIT_REALTIME;
    ConstraintProof p = prepared == null ? null : prepared[0];
    if (p != null && p.h == h && p.serial == serial && p.session == session && p.realtime == realtime && p.rtToCommit == rtToCommit) {
      prepared[0] = null;
    } else {
      p = new ConstraintProof(h, serial, session, realtime, rtToCommit);
    }
    p.maxWork = budget[0];
    try {
      return p.prove(hint);
    } finally {
      budget[0] -= p.work;
    }
  }

  /**
   * Level l's facts, built ahead of its proof, for {@link #of(History, Level, int[], long[],
   * ConstraintProof[])} to take (on another thread: the check's witness thread, once a schedule
   * failed, while the search decides the levels; {@code RegisterSearch.WitnessAhead}); null when
   * l has no such proofs on h (as {@link #of} would say), or when {@code stop} said to give up.
   */
  public static ConstraintProof prepare(History h, Level l, java.util.function.BooleanSupplier stop) {
    if (h.workload != History.Workload.REGISTER || h.nTxns > MAX_TXNS) return null;
    boolean serial = l.kind == Level.Kind.SER || l == Level.REPEATABLE_READ;
    if (!serial && l.kind != Level.Kind.SI) return null;
    boolean session = l.family == Level.Family.PROCESS || l.family == Level.Family.REALTIME;
    boolean realtime = l.family == Level.Family.REALTIME || l.family == Level.Family.COMMIT_REALTIME;
    try {
      return new ConstraintProof(h, serial, session, realtime, l.family == Level.Family.COMMIT_REALTIME, stop);
    } catch (Stopped e) {
      return null;
    }
  }

  // ------------------------------------------------------------------ the facts

  private int writerTxn(int x, int v) {
    if (v == History.NIL) return -1;
    int w = h.writerMop(x, v);
    return w < 0 ? -1 : h.mopTxn(w);
  }

  private static long pk(int x, int t) { return ((long) x << 32) | (t & 0xffffffffL); }

  private void build() {
    // (Primitive arrays and lists, no streams or boxed lists: a proof is built once per check,
    // mostly before the JIT has compiled it, where they cost more than the work itself; 1,000
    // Plume-shaped transactions, the facts closing a cycle: 22-27 ms instead of 34-58. The edges
    // are added in the same order as before, so the searches below find the same proofs.)
    // Committed: :ok, or not :fail with a write an :ok transaction read.
    for (int t = 0; t < n; t++) committed[t] = h.isOk(t);
    for (int t = 0; t < n; t++) {
      if (!h.isOk(t)) continue;
      for (int m = h.mopStart(t); m < h.mopEnd(t); m++) {
        if (h.mopKind(m) != OpRecord.READ) continue;
        int w = writerTxn(h.mopKey(m), h.mopVal(m));
        if (w >= 0 && w != t && h.status(w) != OpType.FAIL) committed[w] = true;
      }
    }
    stopIfAsked();
    // last[m]: write m is its transaction's last write of its key.
    boolean[] last = new boolean[h.mopCount()];
    int[] stamp = new int[keys];
    for (int t = 0; t < n; t++) {
      for (int m = h.mopEnd(t) - 1; m >= h.mopStart(t); m--) {
        if (h.mopKind(m) != OpRecord.WRITE) continue;
        int x = h.mopKey(m);
        if (stamp[x] != t + 1) {
          stamp[x] = t + 1;
          last[m] = true;
        }
      }
    }
    int[] count = new int[keys];
    for (int t = 0; t < n; t++) {
      if (!committed[t]) continue;
      for (int m = h.mopStart(t); m < h.mopEnd(t); m++) if (last[m]) count[h.mopKey(m)]++;
    }
    for (int x = 0; x < keys; x++) writers[x] = new int[count[x]];
    Arrays.fill(count, 0);
    for (int t = 0; t < n; t++) {
      if (!committed[t]) continue;
      for (int m = h.mopStart(t); m < h.mopEnd(t); m++) {
        if (last[m]) {
          int x = h.mopKey(m);
          writers[x][count[x]++] = t;
        }
      }
    }
    stopIfAsked();
    // Readers of each version (its writer's last write), and read-modify-writes. (Hash maps of
    // the same keys inserted in the same order as ever: the edges below follow their order.)
    java.util.HashMap<Long, IntList> rd = new java.util.HashMap<>(), rmw = new java.util.HashMap<>();
    IntList eu = new IntList(), ev = new IntList(), ek = new IntList();
    // Per key, r's first and last write of it (valid where stamp[x] == r + 1).
    int[] first = new int[keys], lastAt = new int[keys];
    Arrays.fill(stamp, 0);
    for (int r = 0; r < n; r++) {
      if (!h.isOk(r)) continue;
      for (int m = h.mopStart(r); m < h.mopEnd(r); m++) {
        if (h.mopKind(m) != OpRecord.WRITE) continue;
        int x = h.mopKey(m);
        if (stamp[x] != r + 1) {
          stamp[x] = r + 1;
          first[x] = m;
        }
        lastAt[x] = m;
      }
      for (int m = h.mopStart(r); m < h.mopEnd(r); m++) {
        if (h.mopKind(m) != OpRecord.READ) continue;
        int x = h.mopKey(m), v = h.mopVal(m), w = writerTxn(x, v);
        if (w >= 0 && w != r && committed[w]) { // wr
          eu.add(w);
          ev.add(r);
          ek.add(D);
        }
        boolean wrote = stamp[x] == r + 1;
        if (wrote && first[x] < m) continue; // not external: r wrote x before it
        boolean writesAfter = wrote && lastAt[x] > m;
        if (v == History.NIL) {
          rd.computeIfAbsent(pk(x, -1), k -> new IntList()).add(r);
          if (writesAfter) rmw.computeIfAbsent(pk(x, -1), k -> new IntList()).add(r);
        } else if (w >= 0 && w != r && committed[w] && last[h.writerMop(x, v)]) {
          rd.computeIfAbsent(pk(x, w), k -> new IntList()).add(r);
          if (writesAfter) {
            rmw.computeIfAbsent(pk(x, w), k -> new IntList()).add(r);
            eu.add(w); // ww: r read w's version, then wrote the key
            ev.add(r);
            ek.add(D);
          }
        }
      }
    }
    stopIfAsked();
    for (Map.Entry<Long, IntList> e : rd.entrySet()) {
      long key = e.getKey();
      int x = (int) (key >>> 32), w = (int) key;
      IntList succ = rmw.get(key), rs = e.getValue();
      readersOf.put(key, rs.toArray());
      for (int i = 0; i < rs.size(); i++) {
        int r = rs.get(i);
        if (w == -1) {
          // A read of the initial value precedes every write of the key: through the key's node to
          // those that did not read the initial value, directly to those that did (none reaches itself).
          eu.add(r);
          ev.add(n + x);
          ek.add(RW);
        }
        if (succ == null) continue;
        for (int j = 0; j < succ.size(); j++) {
          int s = succ.get(j);
          if (s == r) continue;
          eu.add(r);
          ev.add(s);
          ek.add(RW);
        }
      }
    }
    for (int x = 0; x < keys; x++) {
      IntList succ = rmw.get(pk(x, -1));
      for (int w : writers[x]) {
        if (succ != null && contains(succ, w)) continue;
        eu.add(n + x);
        ev.add(w);
        ek.add(D);
      }
    }
    stopIfAsked();
    if (session) {
      Integer[] ts = new Integer[n];
      for (int t = 0; t < n; t++) ts[t] = t;
      Arrays.sort(ts, java.util.Comparator.comparingInt((Integer t) -> h.session(t)).thenComparingLong(this::when).thenComparingInt(t -> t));
      int prev = -1;
      for (int t : ts) {
        if (!committed[t]) continue;
        if (prev >= 0 && h.session(prev) == h.session(t)) {
          eu.add(prev);
          ev.add(t);
          ek.add(D);
        }
        prev = t;
      }
    }
    int nodes = n + keys;
    off = new int[nodes + 1];
    int edges = eu.size();
    for (int e = 0; e < edges; e++) off[eu.get(e) + 1]++;
    for (int i = 0; i < nodes; i++) off[i + 1] += off[i];
    dst = new int[edges];
    kind = new int[edges];
    int[] pos = Arrays.copyOf(off, nodes);
    for (int e = 0; e < edges; e++) {
      int i = pos[eu.get(e)]++;
      dst[i] = ev.get(e);
      kind[i] = ek.get(e);
    }
    if (realtime) {
      int c = 0;
      for (int t = 0; t < n; t++) if (committed[t] && h.invokeOrdinal(t) >= 0) c++;
      Integer[] bi = new Integer[c];
      c = 0;
      for (int t = 0; t < n; t++) if (committed[t] && h.invokeOrdinal(t) >= 0) bi[c++] = t;
      Arrays.sort(bi, java.util.Comparator.comparingLong(h::invokeOrdinal));
      byInvoke = new int[c];
      invokes = new long[c];
      for (int i = 0; i < c; i++) {
        byInvoke[i] = bi[i];
        invokes[i] = h.invokeOrdinal(bi[i]);
      }
    }
  }

  private static boolean contains(IntList l, int v) {
    for (int i = 0; i < l.size(); i++) if (l.get(i) == v) return true;
    return false;
  }

  private long when(int t) { return h.invokeOrdinal(t) >= 0 ? h.invokeOrdinal(t) : h.completeOrdinal(t); }


  // ------------------------------------------------------------------ orders and cycles

  /** An order: key x, a's write before b's; a derivation (uses: the orders its cycle took) or a split's choice. */
  private static final class Order {
    final int x, a, b, id;
    int[] uses = new int[0];
    Order(int x, int a, int b, int id) { this.x = x; this.a = a; this.b = b; this.id = id; }
  }

  private final List<Order> orders = new ArrayList<>();
  /** Per node, the edges of the orders assumed: {dst, kind, order id}, stacked. */
  private final ArrayList<ArrayList<int[]>> extra = new ArrayList<>();
  /** The tails of the edges pushed, in order, to pop them. */
  private final ArrayList<Integer> pushed = new ArrayList<>();

  private int[] readers(int x, int a) {
    int[] r = readersOf.get(pk(x, a));
    return r == null ? new int[0] : r;
  }

  private void addEdge(int u, int v, int k, int id) {
    while (extra.size() <= u) extra.add(null);
    if (extra.get(u) == null) extra.set(u, new ArrayList<>());
    extra.get(u).add(new int[] {v, k, id});
    pushed.add(u);
    if (closure == null) return;
    // Keep the closure: every state that reaches (or is) a source state of the edge now reaches
    // its target state and all the target reaches.
    for (int c = 0; c < 2; c++) {
      if (serial && c == 1 || !serial && k == RW && c == 1) continue;
      int su = 2 * u + c, sv = 2 * v + (serial ? 0 : k == D ? 0 : 1);
      long[] rv = closure[sv].clone();
      work += (long) closure.length * (1 + rv.length / 8);
      rv[sv >>> 6] |= 1L << (sv & 63);
      for (int t = 0; t < closure.length; t++) {
        if (t != su && !bit(closure[t], su)) continue;
        long[] rt = closure[t];
        for (int w = 0; w < rt.length; w++) rt[w] |= rv[w];
      }
    }
  }

  /**
   * Per state, the states it reaches (a bitset), kept as orders are assumed; null when the
   * history is too large for it (then each test is a search).
   */
  private long[][] closure;

  /** The largest graph (transactions and keys) whose closure is kept. */
  static final int MAX_CLOSURE = 3_000;

  private void buildClosure() {
    int states = 2 * (n + keys);
    closure = new long[states][];
    for (int s0 = 0; s0 < states; s0++) {
      long[] r = new long[(states + 63) >>> 6];
      closure[s0] = r;
      if (serial && (s0 & 1) == 1) continue;
      search(s0 >> 1, (s0 & 1) == 1, -1, new int[0]);
      for (int s = 0; s < states; s++) if (parent[s] != -2 && s != s0) r[s >>> 6] |= 1L << (s & 63);
    }
  }

  /** The assumptions made so far, to go back to: edges pushed and the closure. */
  private Object[] mark() {
    long[][] c = null;
    if (closure != null) {
      c = new long[closure.length][];
      for (int i = 0; i < c.length; i++) c[i] = closure[i].clone();
    }
    return new Object[] {pushed.size(), c};
  }

  private void reset(Object[] m) {
    popTo((Integer) m[0]);
    if (m[1] != null) closure = (long[][]) m[1];
  }

  /** Assumes order o: a →ww b, and each reader of a's version →rw b. */
  private void assume(Order o) {
    addEdge(o.a, o.b, D, o.id);
    for (int r : readers(o.x, o.a)) if (r != o.b) addEdge(r, o.b, RW, o.id);
  }

  private void popTo(int size) {
    while (pushed.size() > size) {
      int u = pushed.remove(pushed.size() - 1);
      ArrayList<int[]> l = extra.get(u);
      l.remove(l.size() - 1);
    }
  }

  /**
   * Whether assuming "a's write of x before b's" closes a cycle with the facts and the orders
   * assumed: the order's edges all enter b, so b reaches one of their tails. The ids of the
   * orders the cycle takes (with -2 for this one), or null.
   */
  private int[] closes(int x, int a, int b) {
    int[] r = readers(x, a);
    if (serial) {
      return search(b, false, a, r);
    }
    // Begin/commit: a →ww b enters b at its begin, so begin(b) must reach a (either end); a
    // reader's →rw b enters b at its commit, so commit(b) must reach the reader's begin.
    int[] u = search(b, false, a, new int[0]);
    return u != null ? u : search(b, true, -1, r);
  }

  private int[] parent;
  private long searches;
  private int depthUsed;
  private int[] parentId;
  private int[] queue;

  /**
   * BFS over (node, entered-at-commit) states from (src, atCommit). Targets: node a in either
   * state, or any of rs (not src) at its begin (serializable: one state). The order ids on the
   * path, or null.
   */
  private int[] search(int src, boolean atCommit, int a, int[] rs) {
    if (work > maxWork) throw new OutOfTime();
    searches++;
    int nodes = n + keys, states = 2 * nodes;
    if (parent == null) {
      parent = new int[states];
      parentId = new int[states];
      queue = new int[states];
    }
    Arrays.fill(parent, -2);
    boolean[] target = new boolean[nodes];
    if (a >= 0) target[a] = true;
    boolean[] rTarget = new boolean[nodes];
    for (int r : rs) if (r != src) rTarget[r] = true;
    int s0 = 2 * src + (atCommit ? 1 : 0);
    parent[s0] = -1;
    int qh = 0, qt = 0;
    queue[qt++] = s0;
    int rtNext = byInvoke == null ? 0 : byInvoke.length; // positions at or after it are enqueued
    while (qh < qt) {
      int s = queue[qh++];
      int u = s >> 1;
      work += 1 + off[u + 1] - off[u];
      boolean commit = (s & 1) == 1;
      if (s != s0 && (target[u] || rTarget[u] && (serial || !commit))) return path(s);
      for (int i = off[u]; i < off[u + 1]; i++) {
        if (kind[i] == RW && commit && !serial) continue;
        int v = dst[i], sv = 2 * v + (serial ? 0 : u >= n ? (commit ? 1 : 0) : kind[i] == D ? 0 : 1); // the initial version's node keeps the state
        if (parent[sv] != -2) continue;
        parent[sv] = s;
        parentId[sv] = -1;
        queue[qt++] = sv;
      }
      if (u < extra.size() && extra.get(u) != null) {
        for (int[] e : extra.get(u)) {
          if (e[1] == RW && commit && !serial) continue;
          int sv = 2 * e[0] + (serial ? 0 : e[1] == D ? 0 : 1);
          if (parent[sv] != -2) continue;
          parent[sv] = s;
          parentId[sv] = e[2];
          queue[qt++] = sv;
        }
      }
      if (realtime && u < n && h.isOk(u) && h.completeOrdinal(u) >= 0) {
        int lo = firstInvokedAfter(h.completeOrdinal(u));
        int bit = serial || !rtToCommit ? 0 : 1;
        for (int i = lo; i < rtNext; i++) {
          int sv = 2 * byInvoke[i] + bit;
          if (parent[sv] != -2) continue;
          parent[sv] = s;
          parentId[sv] = -1;
          queue[qt++] = sv;
        }
        rtNext = Math.min(rtNext, lo);
      }
    }
    return null;
  }

  private int[] path(int s) {
    // The distinct ids, ascending.
    IntList ids = new IntList();
    for (int x = s; parent[x] >= 0; x = parent[x]) if (parentId[x] >= 0) ids.add(parentId[x]);
    int[] a = ids.toArray();
    Arrays.sort(a);
    int k = 0;
    for (int i = 0; i < a.length; i++) if (k == 0 || a[i] != a[k - 1]) a[k++] = a[i];
    return Arrays.copyOf(a, k);
  }

  private static final class OutOfTime extends RuntimeException {
    OutOfTime() { super(null, null, false, false); }
  }

  // ------------------------------------------------------------------ the search for a proof

  /** A constraint: two committed writers of key x, a &lt; b. */
  private int[][] constraints;
  private boolean[] decided;

  /** A node of the proof: its derivations, its split (the constraint), and its branches (null: closes at once). */
  private static final class Node {
    final List<Order> derived = new ArrayList<>();
    Order split;
    int[] usesThen, usesElse;
    Node then, other;
  }

  private Map<String, Object> prove(int[] hint) {
    try {
      int through = cyclicFacts();
      if (through >= 0) {
        // The facts alone close a cycle (one the counterexample may not be): it is the proof.
        LinkedHashMap<String, Object> m = new LinkedHashMap<>();
        m.put("derive", List.of());
        m.put("cycle-through", h.displayIndex(through));
        return m;
      }
      long pairs = 0;
      for (int x = 0; x < keys; x++) pairs += (long) writers[x].length * (writers[x].length - 1) / 2;
      // Too many pairs of writers: only those near the counterexample (its transactions and their
      // neighbours in the facts' graph) are tried; the proof may then need more and be not found.
      boolean[] region = null;
      if (pairs > MAX_CONSTRAINTS) {
        if (hint == null || hint.length == 0) return null;
        region = near(hint);
      }
      List<int[]> cs = new ArrayList<>();
      for (int x = 0; x < keys; x++) {
        int[] w = writers[x];
        for (int i = 0; i < w.length; i++) {
          if (region != null && !region[w[i]]) continue;
          for (int j = i + 1; j < w.length; j++) if (region == null || region[w[j]]) cs.add(new int[] {x, w[i], w[j]});
        }
        if (cs.size() > MAX_CONSTRAINTS) return null;
      }
      constraints = cs.toArray(new int[0][]);
      long tc = System.nanoTime();
      if (n + keys <= MAX_CLOSURE) buildClosure();
      if (DEBUG) System.err.println("closure ms " + (System.nanoTime() - tc) / 1_000_000 + " serial " + serial + " realtime " + realtime + " session " + session + " edges " + dst.length);
      tc = System.nanoTime();
      decided = new boolean[constraints.length];
      boolean[] near = new boolean[n];
      if (hint != null) for (int t : hint) if (t >= 0 && t < n) near[t] = true;
      Node root = null;
      for (int depth = 0; depth <= 2 && root == null; depth++) {
        depthUsed = depth;
        root = solve(depth, near);
      }
      if (DEBUG) System.err.println("proof ms " + (System.nanoTime() - tc) / 1_000_000 + " depth " + depthUsed + ": " + constraints.length + " constraints, " + orders.size() + " orders tried, " + searches + " searches, work " + work + ", found " + (root != null));
      if (root == null) return null;
      java.util.HashSet<Integer> needed = new java.util.HashSet<>();
      need(root, needed);
      return data(root, needed);
    } catch (OutOfTime e) {
      return null;
    }
  }

  /** The transactions of ts and their neighbours in the facts' graph (either way). */
  private boolean[] near(int[] ts) {
    boolean[] in = new boolean[n];
    for (int t : ts) if (t >= 0 && t < n) in[t] = true;
    boolean[] out = in.clone();
    for (int u = 0; u < n + keys; u++) {
      for (int i = off[u]; i < off[u + 1]; i++) {
        int v = dst[i];
        if (u < n && in[u] && v < n) out[v] = true;
        if (v < n && in[v] && u < n) out[u] = true;
      }
    }
    return out;
  }

  /** A transaction on a cycle of the facts alone, or -1. */
  private int cyclicFacts() {
    // One search for a cycle, by colouring (iterative DFS over states). Realtime order goes
    // through a chain of nodes, one per invocation in order (node n + keys + i: it reaches the
    // i-th invoked transaction and the next node), so it costs as many edges as transactions.
    int rts = realtime ? byInvoke.length : 0, nodes = n + keys + rts, states = 2 * nodes;
    byte[] colour = new byte[states];
    int[] stack = new int[states], it = new int[states];
    int[][] frame = new int[states][];
    for (int s0 = 0; s0 < 2 * n; s0++) {
      if (colour[s0] != 0 || (serial && (s0 & 1) == 1)) continue;
      int sp = 0;
      stack[sp] = s0;
      it[sp] = 0;
      colour[s0] = 1;
      while (sp >= 0) {
        if (++work > maxWork) throw new OutOfTime();
        int s = stack[sp], u = s >> 1;
        boolean commit = (s & 1) == 1;
        if (it[sp] == 0) frame[sp] = successors(u, commit);
        int[] next = frame[sp];
        if (it[sp] < next.length) {
          int sv = next[it[sp]++];
          if (colour[sv] == 1) {
            for (int i = sp; i >= 0; i--) {
              if (stack[i] >> 1 < n) return stack[i] >> 1;
              if (stack[i] == sv) break;
            }
          }
          if (colour[sv] == 0) {
            colour[sv] = 1;
            stack[++sp] = sv;
            it[sp] = 0;
          }
        } else {
          colour[s] = 2;
          sp--;
        }
      }
    }
    return -1;
  }

  /** The base successors of a state, realtime through the chain of invocations ({@link #cyclicFacts}). */
  private int[] successors(int u, boolean commit) {
    int rtBit = serial || !rtToCommit ? 0 : 1;
    if (u >= n + keys) { // the chain's node of the i-th invocation
      int i = u - n - keys;
      return i + 1 < byInvoke.length ? new int[] {2 * byInvoke[i] + rtBit, 2 * (u + 1) + rtBit} : new int[] {2 * byInvoke[i] + rtBit};
    }
    int c = 0;
    for (int i = off[u]; i < off[u + 1]; i++) if (!(kind[i] == RW && commit && !serial)) c++;
    int lo = -1;
    if (realtime && u < n && h.isOk(u) && h.completeOrdinal(u) >= 0) {
      lo = firstInvokedAfter(h.completeOrdinal(u));
      if (lo < byInvoke.length) c++;
      else lo = -1;
    }
    int[] out = new int[c];
    c = 0;
    for (int i = off[u]; i < off[u + 1]; i++) {
      if (kind[i] == RW && commit && !serial) continue;
      int bit = serial ? 0 : u >= n ? (commit ? 1 : 0) : kind[i] == D ? 0 : 1;
      out[c++] = 2 * dst[i] + bit;
    }
    if (lo >= 0) out[c] = 2 * (n + keys + lo) + rtBit;
    return out;
  }

  /** The first position in invocation order whose transaction was invoked after completion ordinal c. */
  private int firstInvokedAfter(long c) {
    int lo = 0, hi = byInvoke.length;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (invokes[mid] > c) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }

  private Order order(int x, int a, int b) {
    Order o = new Order(x, a, b, orders.size());
    orders.add(o);
    return o;
  }

  /**
   * Derives what the facts force, then, when no constraint closes a cycle both ways, splits on
   * a constraint (those of the hint's transactions first) and searches each branch, depth levels
   * deep. The proof's node, or null. Either way the assumptions it made are undone.
   */
  private Node solve(int depth, boolean[] near) {
    Object[] mark = mark();
    List<Integer> decidedHere = new ArrayList<>();
    Node node = new Node();
    try {
      if (propagate(node, decidedHere)) return node;
      if (depth == 0) return null;
      List<Integer> cand = new ArrayList<>();
      for (int pass = 0; pass < 3 && cand.size() < 48; pass++) {
        for (int c = 0; c < constraints.length && cand.size() < 48; c++) {
          if (decided[c]) continue;
          int[] k = constraints[c];
          int close = (near[k[1]] ? 1 : 0) + (near[k[2]] ? 1 : 0);
          if (close == 2 - pass) cand.add(c);
        }
      }
      for (int c : cand) {
        int[] k = constraints[c];
        decided[c] = true;
        Order yes = order(k[0], k[1], k[2]);
        Object[] m2 = mark();
        assume(yes);
        Node then = solve(depth - 1, near);
        reset(m2);
        if (then != null) {
          Order no = order(k[0], k[2], k[1]);
          m2 = mark();
          assume(no);
          Node other = solve(depth - 1, near);
          reset(m2);
          if (other != null) {
            node.split = yes;
            node.then = then;
            node.other = other;
            decided[c] = false;
            return node;
          }
        }
        decided[c] = false;
      }
      return null;
    } finally {
      for (int c : decidedHere) decided[c] = false;
      reset(mark);
    }
  }

  /**
   * Unit propagation: each open constraint one of whose orders closes a cycle gets the other
   * (a derivation, assumed at once); true when one closes a cycle both ways (node.split).
   */
  private boolean propagate(Node node, List<Integer> decidedHere) {
    boolean changed = true;
    while (changed) {
      changed = false;
      // The closure says which orders close a cycle; those found are searched again, for the
      // cycle's orders.
      for (int c = 0; c < constraints.length; c++) {
        if (decided[c]) continue;
        int[] k = constraints[c];
        boolean ab0 = closesFast(k[0], k[1], k[2]), ba0 = closesFast(k[0], k[2], k[1]);
        if (!ab0 && !ba0) continue;
        int[] ab = ab0 ? closes(k[0], k[1], k[2]) : null, ba = ba0 ? closes(k[0], k[2], k[1]) : null;
        if (ab != null && ba != null) {
          node.split = order(k[0], k[1], k[2]);
          node.usesThen = ab;
          node.usesElse = ba;
          return true;
        }
        if (ab == null && ba == null) continue;
        Order o = ab != null ? order(k[0], k[2], k[1]) : order(k[0], k[1], k[2]);
        o.uses = ab != null ? ab : ba;
        decided[c] = true;
        decidedHere.add(c);
        node.derived.add(o);
        assume(o);
        changed = true;
      }
    }
    return false;
  }

  private static boolean bit(long[] r, int s) { return (r[s >>> 6] & (1L << (s & 63))) != 0; }

  /** Whether {@link #closes} would find a cycle: from the closure when it is kept. */
  private boolean closesFast(int x, int a, int b) {
    if (closure == null) return closes(x, a, b) != null;
    int[] rs = readers(x, a);
    long[] r0 = closure[2 * b];
    if (bit(r0, 2 * a) || bit(r0, 2 * a + 1)) return true;
    if (serial) {
      for (int r : rs) if (r != b && bit(r0, 2 * r)) return true;
      return false;
    }
    long[] r1 = closure[2 * b + 1];
    for (int r : rs) if (r != b && bit(r1, 2 * r)) return true;
    return false;
  }

  /** The derivations the proof's cycles use, transitively. */
  private void need(Node node, java.util.Set<Integer> needed) {
    if (node.then != null) need(node.then, needed);
    if (node.other != null) need(node.other, needed);
    if (node.usesThen != null) for (int i : node.usesThen) needed.add(i);
    if (node.usesElse != null) for (int i : node.usesElse) needed.add(i);
    for (int i = node.derived.size() - 1; i >= 0; i--) {
      Order o = node.derived.get(i);
      if (needed.contains(o.id)) for (int u : o.uses) needed.add(u);
    }
  }

  private Map<String, Object> data(Node node, java.util.Set<Integer> needed) {
    LinkedHashMap<String, Object> m = new LinkedHashMap<>();
    List<Object> ds = new ArrayList<>();
    for (Order o : node.derived) if (needed.contains(o.id)) ds.add(orderData(o));
    m.put("derive", ds);
    m.put("split", orderData(node.split));
    if (node.then != null) m.put("then", data(node.then, needed));
    if (node.other != null) m.put("else", data(node.other, needed));
    return m;
  }

  private Map<String, Object> orderData(Order o) {
    LinkedHashMap<String, Object> m = new LinkedHashMap<>();
    m.put("key", h.key(o.x));
    m.put("before", h.displayIndex(o.a));
    m.put("after", h.displayIndex(o.b));
    return m;
  }
}
