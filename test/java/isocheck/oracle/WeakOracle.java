package isocheck.oracle;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A brute-force reference for the weak isolation levels RC, RA, TCC and CI (Plume, OOPSLA'24,
 * §3.1: Biswas–Enea axioms), on rw-register and list-append Jepsen histories.
 *
 * <p>It shares no code with isocheck's checker and uses no graph algorithm beyond the definition
 * of a transitive closure: for RC, RA and TCC it checks the well-formedness conditions, then
 * enumerates the total orders of the committed transactions that extend CO (t⊥ first) and checks
 * the level's axioms literally on each, pruning a prefix as soon as an axiom instance is decided
 * false. CI needs no order. The level holds iff some order passes.
 *
 * <h2>The model</h2>
 *
 * <ul>
 * <li>T, the committed transactions: the :ok ones, plus each :info (or never completed) one some
 *     :ok transaction's read observed (for lists: any element of a read). :fail transactions and
 *     unobserved :info ones are not in T. Only :ok transactions' reads are known; the reads of
 *     every other transaction are ignored.
 * <li>t⊥ writes the initial value (register: nil; list: empty) of every key and precedes
 *     everything in SO, CO and CM. Here it is node 0; T's transactions are nodes 1..n-1.
 * <li>Reads-from (operation level): a register read [:r k v] reads from the write of (k,v) (v nil:
 *     from t⊥); a list read [:r k [v1..vn]] reads from the append of (k,vn) (empty: from t⊥),
 *     and its earlier elements are merely <em>visible</em>.
 * <li>SO: per :process, the order of its transactions in T by completion position (invocation
 *     position when never completed). "SO-before" is any earlier transaction of the session.
 *     WR: every reads-from between two different transactions, lifted to transactions. VIS:
 *     writer(vj) to the reader, for the earlier elements vj of a list read. CO = (SO ∪ WR ∪ VIS)+.
 * </ul>
 *
 * <h2>Per level</h2>
 *
 * RC, RA and TCC: well-formedness (every read's writer in T ∪ {t⊥}; RC-(1) no read of a later own
 * write; RC-(2) after an own write to k, a read of k returns the own latest write, for lists the
 * list ends with exactly the own appends so far; RC-(3) no other transaction reads a non-last
 * register write; CO acyclic), then a CM exists satisfying the list rule (lists only) and the
 * level's axiom: MonoAtomicView (RC), ReadAtomic (RA) or Causal (TCC). CI: the CutIsolation axiom,
 * and every read's writer exists (no thin-air read: Def. 2). The comments at each check name the condition it is.
 */
public final class WeakOracle {

  /** The verdict for one level, with a short witness: the commit order found, or why none. */
  public static final class Answer {
    public final boolean valid;
    public final String witness;

    Answer(boolean valid, String witness) {
      this.valid = valid;
      this.witness = witness;
    }

    @Override public String toString() { return valid + ": " + witness; }
  }

  static final int OK = Jepsen.OK, INFO = Jepsen.INFO;

  /** One micro-op. Values are interned ids; NIL is the initial value (register nil). */
  static final class Mop {
    final boolean write; // [:w k v] or [:append k v]
    final int key;
    final int val; // the written value, or a register read's value (NIL = initial)
    final int[] list; // a list read's elements; null otherwise
    final Object shown; // the micro-op as given, for witnesses

    Mop(boolean write, int key, int val, int[] list, Object shown) {
      this.write = write;
      this.key = key;
      this.val = val;
      this.list = list;
      this.shown = shown;
    }
  }

  static final int NIL = -1;

  /** One transaction of the history. */
  static final class Txn {
    final Jepsen.Pair op; // process, status, positions and name
    List<Mop> mops = new ArrayList<>();
    boolean readsKnown; // :ok: the completion's read values are real
    boolean observed; // some :ok transaction's read saw one of its writes
    int node = -1; // index in T (1-based; 0 is t⊥), or -1 when not committed

    Txn(Jepsen.Pair op) { this.op = op; }

    /** Position in the history for session order: the completion's, else the invocation's. */
    long pos() { return op.comp >= 0 ? op.comp : op.inv; }
  }

  /** Where a write is: its transaction and the micro-op's position there. */
  record Write(Txn txn, int at) {}

  private final boolean lists;
  private final List<Txn> all = new ArrayList<>();
  private final HashMap<Object, Integer> keyIds = new HashMap<>(), valIds = new HashMap<>();
  private final List<Object> keyNames = new ArrayList<>(), valNames = new ArrayList<>();
  /** (key, value) -> its unique write, over every transaction whatever its status. */
  private final HashMap<Long, Write> writes = new HashMap<>();

  // ---- derived, over the nodes 0 (t⊥) .. n-1
  private int n;
  private Txn[] node;
  private boolean[][] so, wr, vis, co;
  /** Every read of a transaction in T whose read values are known, in history order. */
  private final List<Read> reads = new ArrayList<>();
  /** The first violation of RC-(1..3), thin-air/aborted reads or CO acyclicity; null if none. */
  private String illFormed;

  /**
   * One known read: reader node, its position in the reader, the key, and the transaction it
   * reads from (node, or -1 when the writer is aborted or nonexistent).
   */
  static final class Read {
    int reader, at, key;
    Mop mop;
    int from = -1; // node of the writer of the value read (register) / last element (list); 0 = t⊥
    /** The version the read shows of others' writes: the register read's writer; for a list, the
     *  writer of the last element the reader did not append itself (0 = t⊥; -1 = no writer). The
     *  axioms' "t3 reads x from t1" uses this, so a read after the reader's own appends still
     *  shows which version of x it was built on. */
    int view = -1;
    Write fromWrite; // that write, when it exists
  }

  private WeakOracle(boolean lists) { this.lists = lists; }

  // ======================================================================= parsing

  /** Integral numbers compare as longs, whatever their boxed type. */
  private static Object norm(Object o) {
    if (o instanceof Integer || o instanceof Short || o instanceof Byte) return ((Number) o).longValue();
    return o;
  }

  private int keyId(Object k) {
    return keyIds.computeIfAbsent(norm(k), x -> { keyNames.add(x); return keyNames.size() - 1; });
  }

  private int valId(Object v) {
    return valIds.computeIfAbsent(norm(v), x -> { valNames.add(x); return valNames.size() - 1; });
  }

  private static long kv(int k, int v) { return ((long) k << 32) | (v & 0xffffffffL); }

  /**
   * Reads a Jepsen history: op maps with :type, :process, :f :txn and :value (micro-ops
   * [:w k v] / [:r k v] for rw-register, [:append k v] / [:r k list] for list-append; the workload
   * is detected from the micro-ops). Ops whose :f is not :txn are skipped. An invocation pairs
   * with the next completion of its process; an invocation never completed is indeterminate,
   * and a completion with no invocation stands alone.
   *
   * @throws IllegalArgumentException on malformed input: an unknown :type or micro-op, a process
   *     invoking twice, both workloads mixed, a read value of the wrong shape, a nil write, or a
   *     (key, value) written twice (reads-from would be ambiguous).
   */
  public static WeakOracle fromJepsen(List<?> ops) {
    // First pass: the workload.
    boolean sawW = false, sawAppend = false, sawList = false, sawScalar = false;
    for (Object x : ops) {
      if (!(x instanceof Map<?, ?> op)) throw new IllegalArgumentException("not an op map: " + x);
      if (!"txn".equals(Jepsen.name(op.get(Jepsen.F)))) continue;
      if (!(op.get(Jepsen.VALUE) instanceof List<?> mops)) continue;
      for (Object m : mops) {
        if (!(m instanceof List<?> mop) || mop.size() != 3) throw new IllegalArgumentException("bad micro-op " + m);
        String f = Jepsen.name(mop.get(0));
        if ("w".equals(f)) sawW = true;
        else if ("append".equals(f)) sawAppend = true;
        else if ("r".equals(f)) {
          Object v = mop.get(2);
          if (v instanceof List<?>) sawList = true;
          else if (v != null) sawScalar = true;
        } else throw new IllegalArgumentException("unknown micro-op " + m);
      }
    }
    if (sawW && sawAppend) throw new IllegalArgumentException("both :w and :append micro-ops");
    boolean lists = sawAppend || (!sawW && sawList);
    if (lists ? sawScalar : sawList)
      throw new IllegalArgumentException((lists ? "list-append" : "rw-register") + " history with a read of the wrong shape");

    WeakOracle o = new WeakOracle(lists);
    for (Jepsen.Pair p : Jepsen.transactions(ops)) {
      if (p.process == null) throw new IllegalArgumentException("a transaction without :process");
      Txn t = new Txn(p);
      o.fill(t, p.mops(), p.status == OK && p.comp >= 0);
      o.all.add(t);
    }
    for (Txn t : o.all)
      for (int i = 0; i < t.mops.size(); i++) {
        Mop m = t.mops.get(i);
        if (m.write && o.writes.put(kv(m.key, m.val), new Write(t, i)) != null)
          throw new IllegalArgumentException("value written twice: " + m.shown);
      }
    o.derive();
    return o;
  }

  /** Fills a transaction's micro-ops from an op's :value (read values only when known). */
  private void fill(Txn t, List<?> mops, boolean readsKnown) {
    t.mops.clear();
    t.readsKnown = readsKnown;
    for (Object m : mops) {
      List<?> mop = (List<?>) m;
      String f = Jepsen.name(mop.get(0));
      Object k = mop.get(1), v = mop.get(2);
      if (k == null) throw new IllegalArgumentException("nil key in " + m);
      int key = keyId(k);
      if (!"r".equals(f)) {
        if (v == null) throw new IllegalArgumentException("nil written in " + m);
        t.mops.add(new Mop(true, key, valId(v), null, m));
      } else if (!readsKnown) {
        t.mops.add(new Mop(false, key, NIL, lists ? new int[0] : null, m));
      } else if (lists) {
        List<?> l = v == null ? List.of() : (List<?>) v;
        int[] a = new int[l.size()];
        for (int j = 0; j < a.length; j++) {
          if (l.get(j) == null) throw new IllegalArgumentException("nil element in " + m);
          a[j] = valId(l.get(j));
        }
        t.mops.add(new Mop(false, key, NIL, a, m));
      } else {
        t.mops.add(new Mop(false, key, v == null ? NIL : valId(v), null, m));
      }
    }
  }

  // ======================================================================= the history H = (T, SO, WR)

  private Write writeOf(int key, int val) { return val == NIL ? null : writes.get(kv(key, val)); }

  /** The value a read returns for reads-from: the register value, or the list's last element. */
  private static int readValue(Mop m) {
    if (m.list == null) return m.val;
    return m.list.length == 0 ? NIL : m.list[m.list.length - 1];
  }

  /** The written values a read shows: a list's elements, a register's value (none if nil). */
  private static int[] valuesSeen(Mop m) {
    return m.list != null ? m.list : m.val == NIL ? new int[0] : new int[] {m.val};
  }

  /** Node of the transaction that wrote (key, val): 0 for the initial value, -1 if not in T. */
  private int nodeOf(int key, int val) {
    if (val == NIL) return 0;
    Write w = writeOf(key, val);
    return w == null ? -1 : w.txn.node;
  }

  private void derive() {
    // T: :ok transactions, and indeterminate ones an :ok transaction's read observed.
    for (Txn t : all)
      for (Mop m : t.mops) {
        if (m.write || !t.readsKnown) continue;
        for (int v : valuesSeen(m)) {
          Write w = writeOf(m.key, v);
          if (w != null) w.txn.observed = true;
        }
      }
    List<Txn> committed = new ArrayList<>();
    for (Txn t : all) if (t.op.status == OK || (t.op.status == INFO && t.observed)) committed.add(t);
    n = committed.size() + 1;
    node = new Txn[n];
    for (int i = 0; i < committed.size(); i++) {
      node[i + 1] = committed.get(i);
      committed.get(i).node = i + 1;
    }
    so = new boolean[n][n];
    wr = new boolean[n][n];
    vis = new boolean[n][n];
    // SO: t⊥ before everything; within a process, earlier completion first.
    for (int a = 1; a < n; a++) {
      so[0][a] = true;
      for (int b = 1; b < n; b++)
        if (a != b && node[a].op.process.equals(node[b].op.process) && node[a].pos() < node[b].pos()) so[a][b] = true;
    }
    // Reads-from, WR and VIS, over the known reads of T.
    for (int r = 1; r < n; r++) {
      Txn t = node[r];
      if (!t.readsKnown) continue;
      for (int i = 0; i < t.mops.size(); i++) {
        Mop m = t.mops.get(i);
        if (m.write) continue;
        Read rd = new Read();
        rd.reader = r;
        rd.at = i;
        rd.key = m.key;
        rd.mop = m;
        rd.fromWrite = writeOf(m.key, readValue(m));
        rd.from = nodeOf(m.key, readValue(m));
        rd.view = rd.from;
        if (m.list != null && rd.from == r) {
          rd.view = 0;
          for (int j = m.list.length - 1; j >= 0; j--) {
            int w = nodeOf(m.key, m.list[j]);
            if (w != r) { rd.view = w; break; }
          }
        }
        reads.add(rd);
        if (rd.from >= 0 && rd.from != r) wr[rd.from][r] = true;
        if (m.list != null)
          for (int j = 0; j + 1 < m.list.length; j++) {
            int w = nodeOf(m.key, m.list[j]);
            if (w > 0 && w != r) vis[w][r] = true;
          }
      }
    }
    // CO = (SO ∪ WR ∪ VIS)+, by the definition of a transitive closure.
    co = new boolean[n][n];
    for (int a = 0; a < n; a++) for (int b = 0; b < n; b++) co[a][b] = so[a][b] || wr[a][b] || vis[a][b];
    for (int k = 0; k < n; k++)
      for (int a = 0; a < n; a++)
        if (co[a][k]) for (int b = 0; b < n; b++) if (co[k][b]) co[a][b] = true;
    illFormed = wellFormedness();
  }

  /** The first violation of the well-formedness RC, RA and TCC share, or null. */
  private String wellFormedness() {
    for (Read rd : reads) {
      Txn t = node[rd.reader];
      Mop m = rd.mop;
      // Every read has a writer in T ∪ {t⊥} (Def. 2; TAP-a ThinAirRead, TAP-b AbortedRead). For
      // lists this applies to every element.
      int[] seen = valuesSeen(m);
      for (int v : seen) {
        Write w = writeOf(m.key, v);
        if (w == null) return "ThinAirRead: " + txnName(rd.reader) + " " + m.shown + ": " + valNames.get(v) + " was never written";
        if (w.txn.node < 0) return "AbortedRead: " + txnName(rd.reader) + " " + m.shown + ": " + valNames.get(v) + " was written by a transaction that did not commit";
      }
      // RC-(1): a read never reads a later write of its own transaction (TAP-c FutureRead); for
      // lists, no element may be an own later append.
      for (int v : seen) {
        Write w = writeOf(m.key, v);
        if (w.txn == t && w.at > rd.at) return "FutureRead (RC-(1)): " + txnName(rd.reader) + " " + m.shown + " sees its own later write " + w.txn.mops.get(w.at).shown;
      }
      // RC-(2): after own writes to k, a read of k returns the latest of them (TAP-d
      // NotMyOwnWrite, TAP-e NotMyLastWrite); for lists, the list ends with exactly the own
      // appends to k so far, in program order.
      List<Integer> own = new ArrayList<>();
      for (int j = 0; j < rd.at; j++) {
        Mop p = t.mops.get(j);
        if (p.write && p.key == rd.key) own.add(p.val);
      }
      if (!own.isEmpty()) {
        if (m.list == null) {
          int last = own.get(own.size() - 1);
          if (m.val != last) {
            boolean earlierOwn = own.contains(m.val);
            return (earlierOwn ? "NotMyLastWrite" : "NotMyOwnWrite") + " (RC-(2)): " + txnName(rd.reader) + " " + m.shown
                + " after writing " + valNames.get(last);
          }
        } else {
          int len = m.list.length, k = own.size();
          boolean ends = len >= k;
          for (int j = 0; ends && j < k; j++) ends = m.list[len - k + j] == own.get(j);
          if (!ends) return "NotMyOwnWrite (RC-(2)): " + txnName(rd.reader) + " " + m.shown + " does not end with its own appends " + names(own);
        }
      }
      // RC-(3): another transaction reads only a register's last write of a transaction (TAP-f
      // IntermediateRead). (For lists the list rule below covers it.)
      if (m.list == null && rd.fromWrite != null && rd.fromWrite.txn != t) {
        Txn w = rd.fromWrite.txn;
        for (int j = rd.fromWrite.at + 1; j < w.mops.size(); j++) {
          Mop later = w.mops.get(j);
          if (later.write && later.key == rd.key)
            return "IntermediateRead (RC-(3)): " + txnName(rd.reader) + " " + m.shown + " reads a write " + txnName(w.node)
                + " overwrote with " + later.shown;
        }
      }
    }
    // CO is acyclic (Def. 2; TAP-g CyclicCO).
    for (int a = 1; a < n; a++)
      if (co[a][a]) {
        StringBuilder sb = new StringBuilder("CyclicCO: ");
        for (int b = 1; b < n; b++) if (co[a][b] && co[b][a]) sb.append(txnName(b)).append(' ');
        return sb.append("are on a cycle of SO ∪ WR ∪ VIS").toString();
      }
    return null;
  }

  // ======================================================================= checking a level

  /**
   * The verdict for "rc", "ra", "tcc" or "ci".
   *
   * @throws IllegalArgumentException for any other level
   */
  public Answer check(String level) {
    String l = level.startsWith(":") ? level.substring(1) : level;
    switch (l.toLowerCase()) {
      case "ci": return cutIsolation();
      case "rc": return search(Axiom.MONO_ATOMIC_VIEW);
      case "ra": return search(Axiom.READ_ATOMIC);
      case "tcc": return search(Axiom.CAUSAL);
      default: throw new IllegalArgumentException("unknown weak level " + level);
    }
  }

  /** Every level's verdict, by level name. */
  public Map<String, Answer> checkAll() {
    LinkedHashMap<String, Answer> m = new LinkedHashMap<>();
    for (String l : new String[] {"rc", "ra", "tcc", "ci"}) m.put(l, check(l));
    return m;
  }

  /**
   * CutIsolation (Def. 3): if a transaction reads key x from other transactions more than once,
   * every such read returns the same value (lists: the same version, the writer of the last
   * element the reader did not append itself). As in the formal
   * axiom, the two reads must come from two different transactions t1 ≠ t2 of WT_x, where WT_x
   * is T's writers of x and t⊥; two different values of one transaction are an intermediate read
   * (TAP-f), and reads of aborted writes are not constrained here. A read of a value no
   * transaction wrote (thin air) fails CI: Def. 3 is an axiom over histories, and Def. 2 gives
   * every read a writer in T ∪ {t⊥}, so such an observation is no history at all.
   */
  private Answer cutIsolation() {
    for (Read rd : reads) {
      for (int v : valuesSeen(rd.mop)) {
        if (writeOf(rd.mop.key, v) == null) {
          return new Answer(false, "ThinAirRead: " + txnName(rd.reader) + " " + rd.mop.shown + ": " + valNames.get(v) + " was never written");
        }
      }
    }
    for (int i = 0; i < reads.size(); i++) {
      Read r1 = reads.get(i);
      if (r1.view < 0 || r1.view == r1.reader) continue;
      for (int j = i + 1; j < reads.size(); j++) {
        Read r2 = reads.get(j);
        if (r2.reader != r1.reader || r2.key != r1.key || r2.view < 0 || r2.view == r2.reader) continue;
        if (r1.view != r2.view)
          return new Answer(false, "CutIsolation: " + txnName(r1.reader) + " reads " + keyNames.get(r1.key) + " from "
              + txnName(r1.view) + " " + r1.mop.shown + " and from " + txnName(r2.view) + " " + r2.mop.shown);
      }
    }
    return new Answer(true, "no transaction reads a key from two other transactions");
  }

  enum Axiom { MONO_ATOMIC_VIEW, READ_ATOMIC, CAUSAL }

  private static final long NODE_BUDGET = 50_000_000L;

  /** Enumeration state: pos[t] is t's place in the order being built, -1 while unplaced. */
  private int[] pos;
  private long nodes;
  private final LinkedHashMap<String, Integer> prunedBy = new LinkedHashMap<>();
  private String firstPrune;

  /**
   * RC, RA or TCC: well-formedness, then a search for a CM: a total order of T ∪ {t⊥}, t⊥ first,
   * extending CO (a transaction is placed only after all its SO, WR and VIS predecessors), under
   * which the list rule and the level's axiom hold.
   */
  private Answer search(Axiom axiom) {
    if (illFormed != null) return new Answer(false, illFormed);
    pos = new int[n];
    java.util.Arrays.fill(pos, -1);
    pos[0] = 0;
    nodes = 0;
    prunedBy.clear();
    firstPrune = null;
    String v = violation(axiom);
    if (v == null && dfs(1, axiom)) {
      Txn[] order = new Txn[n];
      StringBuilder sb = new StringBuilder("CM: ⊥");
      for (int t = 1; t < n; t++) order[pos[t]] = node[t];
      for (int i = 1; i < n; i++) sb.append(' ').append(txnName(order[i].node));
      return new Answer(true, sb.toString());
    }
    if (v != null) note(v);
    StringBuilder sb = new StringBuilder("no commit order: ");
    sb.append(prunedBy.size() == 1 ? "every order violates " + prunedBy.keySet().iterator().next()
        : "orders violate " + prunedBy);
    return new Answer(false, sb.append("; e.g. ").append(firstPrune).toString());
  }

  private void note(String v) {
    String kind = v.substring(0, v.indexOf(':'));
    prunedBy.merge(kind, 1, Integer::sum);
    if (firstPrune == null) firstPrune = v;
  }

  private boolean dfs(int depth, Axiom axiom) {
    if (depth == n) return true;
    if (++nodes > NODE_BUDGET) throw new IllegalStateException("weak oracle: search too large");
    for (int t = 1; t < n; t++) {
      if (pos[t] >= 0 || !predecessorsPlaced(t)) continue;
      pos[t] = depth;
      String v = violation(axiom);
      if (v == null && dfs(depth + 1, axiom)) return true;
      if (v != null) note(v);
      pos[t] = -1;
    }
    return false;
  }

  /**
   * The verdict of check(level) by the plainest search, to test check's pruning: every
   * permutation of T is tried, and kept when, complete, it extends CO and satisfies the list rule
   * and the level's axiom. Small histories only (at most 8 committed transactions).
   */
  public boolean checkExhaustively(String level) {
    Axiom axiom = switch (level) {
      case "rc" -> Axiom.MONO_ATOMIC_VIEW;
      case "ra" -> Axiom.READ_ATOMIC;
      case "tcc" -> Axiom.CAUSAL;
      default -> null;
    };
    if (axiom == null) return check(level).valid;
    if (n > 9) throw new IllegalArgumentException("too many transactions to try every order");
    if (illFormed != null) return false;
    pos = new int[n];
    pos[0] = 0;
    return everyOrder(1, new boolean[n], axiom);
  }

  private boolean everyOrder(int depth, boolean[] used, Axiom axiom) {
    if (depth == n) {
      for (int a = 0; a < n; a++) for (int b = 0; b < n; b++) if (co[a][b] && pos[a] >= pos[b]) return false;
      return violation(axiom) == null;
    }
    for (int t = 1; t < n; t++) {
      if (used[t]) continue;
      used[t] = true;
      pos[t] = depth;
      boolean ok = everyOrder(depth + 1, used, axiom);
      used[t] = false;
      if (ok) return true;
    }
    return false;
  }

  /** CO ⊆ CM: every direct SO, WR or VIS predecessor of t is already placed. */
  private boolean predecessorsPlaced(int t) {
    for (int u = 0; u < n; u++) if ((so[u][t] || wr[u][t] || vis[u][t]) && pos[u] < 0) return false;
    return true;
  }

  /**
   * Whether "a <CM b" is already false in every completion of the current prefix: b is placed
   * and a is not placed before it (an unplaced a will come after b).
   */
  private boolean notBefore(int a, int b) { return pos[b] >= 0 && !(pos[a] >= 0 && pos[a] < pos[b]); }

  /** Whether read ry shows a write of t2 ≠ its reader: reads from it, or (lists) holds its append. */
  private boolean shows(Read ry, int t2) {
    if (t2 == ry.reader) return false;
    if (ry.from == t2 || ry.view == t2) return true;
    if (ry.mop.list == null) return false;
    for (int v : ry.mop.list) if (nodeOf(ry.key, v) == t2) return true;
    return false;
  }

  /** Whether node t writes key k (t⊥ writes every key). */
  private boolean writesKey(int t, int k) {
    if (t == 0) return true;
    for (Mop m : node[t].mops) if (m.write && m.key == k) return true;
    return false;
  }

  /** The first axiom instance the current prefix decides false, or null. */
  private String violation(Axiom axiom) {
    String v = listRule();
    if (v != null) return v;
    for (Read rx : reads) {
      int t3 = rx.reader, t1 = rx.view, x = rx.key;
      if (t1 < 0 || t1 == t3) continue; // "t3 reads x from t1", t1 ≠ t3
      for (int t2 = 0; t2 < n; t2++) {
        if (t2 == t1 || t2 == t3 || !writesKey(t2, x)) continue; // t2 ≠ t1 writes x, t3 ∉ {t1, t2}
        String why = null;
        switch (axiom) {
          case MONO_ATOMIC_VIEW:
            // RC-(4) MonoAtomicView: t3 reads y ≠ x from t2 (r_y) and later, in program order,
            // reads x from t1 (r_x) ⟹ t2 <CM t1.
            for (Read ry : reads)
              if (ry.reader == t3 && ry.at < rx.at && ry.key != x && shows(ry, t2)) {
                why = "reads " + ry.mop.shown + " from " + txnName(t2) + " before " + rx.mop.shown;
                break;
              }
            if (why != null && notBefore(t2, t1)) return "MonoAtomicView: " + txnName(t3) + " " + why + " from " + txnName(t1)
                + ", and " + txnName(t2) + " writes " + keyNames.get(x) + ", so " + txnName(t2) + " <CM " + txnName(t1);
            break;
          case READ_ATOMIC:
            // ReadAtomic: t2 SO-before t3 (any earlier transaction of the session) or t3 reads
            // something from t2 ⟹ t2 <CM t1.
            if (so[t2][t3]) why = "is SO-before";
            else if (wr[t2][t3] || vis[t2][t3]) why = "is read (or seen in a list) by";
            if (why != null && notBefore(t2, t1)) return "ReadAtomic: " + txnName(t3) + " reads " + rx.mop.shown + " from " + txnName(t1)
                + ", and " + txnName(t2) + " writes " + keyNames.get(x) + " and " + why + " " + txnName(t3) + ", so "
                + txnName(t2) + " <CM " + txnName(t1);
            break;
          case CAUSAL:
            // Causal: t2 CO-before t3 ⟹ t2 <CM t1.
            if (co[t2][t3] && notBefore(t2, t1)) return "Causal: " + txnName(t3) + " reads " + rx.mop.shown + " from " + txnName(t1)
                + ", and " + txnName(t2) + " writes " + keyNames.get(x) + " and is CO-before " + txnName(t3) + ", so "
                + txnName(t2) + " <CM " + txnName(t1);
            break;
        }
      }
    }
    return null;
  }

  /**
   * The list rule (lists only; RC, RA and TCC): a list read of k in r that reads from w ≠ r
   * equals the concatenation, in CM order, of the appends to k (in program order) of every
   * c ∈ T with c ≤CM w; when the list ends with r's own appends (RC-(2)), the part before them
   * equals that concatenation for w' = the writer of the last element r did not write (t⊥ when
   * none). Decided once w (w') is placed: the transactions CM-before it are then exactly the
   * placed ones before it.
   */
  private String listRule() {
    if (!lists) return null;
    for (Read rd : reads) {
      Txn r = node[rd.reader];
      int[] list = rd.mop.list;
      int own = 0; // r's appends to the key before the read (RC-(2) made the list end with them)
      for (int j = 0; j < rd.at; j++) if (r.mops.get(j).write && r.mops.get(j).key == rd.key) own++;
      int prefix = list.length - own;
      int w = 0; // the writer of the last element r did not write, t⊥ when none
      for (int j = list.length - 1; j >= 0; j--) {
        int wj = nodeOf(rd.key, list[j]);
        if (wj != rd.reader) { w = wj; break; }
      }
      if (pos[w] < 0) continue;
      List<Integer> expected = new ArrayList<>();
      for (int p = 1; p <= pos[w]; p++)
        for (int c = 1; c < n; c++)
          if (pos[c] == p) for (Mop m : node[c].mops) if (m.write && m.key == rd.key) expected.add(m.val);
      boolean same = expected.size() == prefix;
      for (int j = 0; same && j < prefix; j++) same = expected.get(j) == list[j];
      if (!same)
        return "ListOrder: " + txnName(rd.reader) + " " + rd.mop.shown + (own > 0 ? " (before its own appends)" : "")
            + " is not the appends of the transactions up to " + txnName(w) + " in this order, " + names(expected);
    }
    return null;
  }

  // ======================================================================= names

  private String txnName(int nd) { return nd == 0 ? "⊥" : "T" + node[nd].op.name; }

  private String names(List<Integer> vals) {
    StringBuilder sb = new StringBuilder("[");
    for (int i = 0; i < vals.size(); i++) sb.append(i > 0 ? " " : "").append(valNames.get(vals.get(i)));
    return sb.append(']').toString();
  }

  /** "list-append" or "rw-register". */
  public String workload() { return lists ? "list-append" : "rw-register"; }

  /** The number of committed transactions (T, without t⊥). */
  public int committedCount() { return n - 1; }
}
