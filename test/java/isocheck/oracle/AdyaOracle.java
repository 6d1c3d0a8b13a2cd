package isocheck.oracle;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A brute-force reference for Elle's {@code :read-uncommitted}, {@code :read-committed} and
 * {@code :repeatable-read} (Adya's PL-1, PL-2, PL-2.99, with the anomalies Elle's model graph
 * attaches to them), on list-append and rw-register histories. Like {@link Oracle} it shares no
 * code with the checker; unlike it, it works on the definitions' own terms, Adya's direct
 * serialization graph over a chosen execution, because these levels have no operational model
 * of begins and commits.
 *
 * <h2>The definitions it decides</h2>
 *
 * An execution: the committed set C (the :ok transactions, the :info ones some :ok read observed,
 * and any subset of the other :info ones) and, per key, a version order of C's writes. Reads of
 * :ok transactions only are known; like Elle, only a transaction's first read of a key names a
 * version (rw-register: when it is the first access of the key; list-append: less its own
 * appends at the end). The graph: WW from each version to every later one (different
 * transactions), WR from a version's writer to its readers, RW from a read of a version to every
 * later version's writer (other than the reader).
 *
 * <ul>
 * <li><b>read-uncommitted</b>: no read holds an element twice or an element or value no one wrote
 *     (garbage: isocheck's decision, no level holds on it), and some execution has no cycle of
 *     WW edges. On list-append the version orders are those every :ok read shows: its elements'
 *     writers in C in list order, then the key's appends no read shows (in any order, enumerated).
 *     An element's writer appending again out of its program order is a WW self-loop.
 * <li><b>read-committed</b>: no fact below, and some execution has no cycle of WW and WR edges;
 *     <b>repeatable-read</b>: no fact below, and some execution has no cycle at all. Facts: an
 *     element or value no one wrote (garbage), or written by a :fail transaction (G1a); a first
 *     read whose last element or value its writer overwrote later in that transaction (G1b); a
 *     read showing the reader's own later append or write (future read); list-append only: an
 *     element twice, two :ok reads of a key neither a prefix of the other, and then the version
 *     order of a key is its longest read followed by its unread appends.
 * </ul>
 *
 * <h2>How</h2>
 *
 * list-append: every committed set and every order of each key's unread appends, the graph built
 * and its closure computed, each level's cycle condition tested. rw-register:
 * {@link #registerLiteral} does the same over every version order (every permutation of each
 * key's writers: small histories only); {@link #register} searches instead for a total order π of
 * C whose induced version orders put every edge forward, which exists iff some version orders
 * leave the graph acyclic (a topological order of the acyclic graph induces the same version
 * orders, since WW relates every pair of a key's writers). For read committed an edge is forward
 * when every writer a transaction read from precedes it; for repeatable read, when moreover
 * each of its reads saw the last writer of the key placed before it (nil: none). The tests check
 * that both ways agree.
 */
public final class AdyaOracle {
  private AdyaOracle() {}

  public enum Level {
    REPEATABLE_READ("repeatable-read"), READ_COMMITTED("read-committed"), READ_UNCOMMITTED("read-uncommitted");

    public final String id;

    Level(String id) { this.id = id; }

    public static Level of(String id) {
      for (Level l : values()) if (l.id.equals(id)) return l;
      throw new IllegalArgumentException("unknown level " + id);
    }
  }

  /** Whether a level holds, and an execution that shows it (or why none does). */
  public static final class Answer {
    public final boolean valid;
    public final String witness;
    Answer(boolean valid, String witness) { this.valid = valid; this.witness = witness; }
    @Override public String toString() { return valid + ": " + witness; }
  }

  /** Combinations of committed sets and orders tried before list-append falls back (see {@link #append}). */
  static final long MAX_COMBINATIONS = 200_000;

  // ------------------------------------------------------------------ list-append

  /**
   * The three levels on a list-append history. When a history has more combinations of committed
   * sets and unread-append orders than {@link #MAX_COMBINATIONS}, only the committed set C
   * without the unobserved :info transactions and, per key, the unread appends in a topological
   * order of the rest of the graph are tried: an unread append has no reader, so the orders
   * among unread appends only add WW edges between them, which that order puts forward.
   */
  public static Map<Level, Answer> append(Oracle o) { return append(o, MAX_COMBINATIONS); }

  /** As {@link #append(Oracle)}, falling back beyond cap combinations (0: always; the tests compare). */
  public static Map<Level, Answer> append(Oracle o, long cap) {
    int n = o.txns.size();
    if (n > 30) throw new IllegalArgumentException("the oracle is for tiny histories");
    // Writers of elements: (key, value) -> {txn, micro-op index}.
    HashMap<Long, int[]> writer = new HashMap<>();
    for (Oracle.Txn t : o.txns) {
      for (int i = 0; i < t.key.size(); i++) {
        if (t.isAppend.get(i)) writer.putIfAbsent(kv(t.key.get(i), t.val.get(i)), new int[] {t.id, i});
      }
    }
    // Facts.
    boolean dup = false, garbage = false, aborted = false, future = false, intermediate = false, incompatible = false;
    HashMap<Integer, List<int[]>> readsOf = new HashMap<>(); // key -> every :ok read list
    boolean[] observed = new boolean[n];
    for (Oracle.Txn t : o.txns) {
      HashSet<Integer> readKeys = new HashSet<>();
      for (int i = 0; i < t.key.size(); i++) {
        int[] r = t.read.get(i);
        if (t.isAppend.get(i) || r == null) continue;
        int k = t.key.get(i);
        readsOf.computeIfAbsent(k, x -> new ArrayList<>()).add(r);
        HashSet<Integer> seen = new HashSet<>();
        for (int v : r) {
          if (!seen.add(v)) dup = true;
          int[] w = writer.get(kv(k, v));
          if (w == null) garbage = true;
          else {
            Oracle.Txn wt = o.txns.get(w[0]);
            if (wt.status == Oracle.FAIL && w[0] != t.id) aborted = true;
            if (wt.status == Oracle.INFO) observed[w[0]] = true;
            if (w[0] == t.id && w[1] > i) future = true;
          }
        }
        if (readKeys.add(k)) {
          int e = observedLength(t, i);
          if (e > 0) {
            int[] w = writer.get(kv(k, r[e - 1]));
            if (w != null && w[0] != t.id && !lastAppend(o.txns.get(w[0]), w[1])) intermediate = true;
          }
        }
      }
    }
    HashMap<Integer, int[]> longest = new HashMap<>();
    for (Map.Entry<Integer, List<int[]>> e : readsOf.entrySet()) {
      int[] best = new int[0];
      for (int[] r : e.getValue()) if (r.length > best.length) best = r;
      for (int[] r : e.getValue()) if (!prefix(r, best)) incompatible = true;
      longest.put(e.getKey(), best);
    }
    boolean facts = garbage || aborted || future || intermediate || incompatible || dup;
    String why = facts ? "facts:" + (garbage ? " garbage" : "") + (aborted ? " G1a" : "") + (future ? " future-read" : "")
        + (intermediate ? " G1b" : "") + (incompatible ? " incompatible-order" : "") + (dup ? " duplicate-elements" : "") : null;

    LinkedHashMap<Level, Answer> out = new LinkedHashMap<>();
    AppendGraphs ag = new AppendGraphs(o, writer, readsOf, longest, observed, cap);
    out.put(Level.REPEATABLE_READ, facts ? new Answer(false, why) : ag.search(ALL));
    out.put(Level.READ_COMMITTED, facts ? new Answer(false, why) : ag.search(WW | WR));
    // A value no one wrote: no execution of any level (isocheck's decision, see Level.violatedBy).
    out.put(Level.READ_UNCOMMITTED, dup || garbage ? new Answer(false, "facts:" + (dup ? " duplicate-elements" : "") + (garbage ? " garbage" : ""))
        : ag.searchUnion());
    return out;
  }

  static final int WW = 1, WR = 2, RW = 4, ALL = 7;

  private static long kv(int k, int v) { return ((long) k << 32) | (v & 0xffffffffL); }

  /** How many elements of t's read i it observed from others: less its own earlier appends at the end, when there. */
  private static int observedLength(Oracle.Txn t, int i) {
    int[] r = t.read.get(i);
    int k = t.key.get(i);
    List<Integer> own = new ArrayList<>();
    for (int j = 0; j < i; j++) if (t.isAppend.get(j) && t.key.get(j) == k) own.add(t.val.get(j));
    if (own.size() > r.length) return r.length;
    for (int j = 0; j < own.size(); j++) if (r[r.length - own.size() + j] != own.get(j)) return r.length;
    return r.length - own.size();
  }

  private static boolean lastAppend(Oracle.Txn t, int i) {
    for (int j = i + 1; j < t.key.size(); j++) if (t.isAppend.get(j) && t.key.get(j).equals(t.key.get(i))) return false;
    return true;
  }

  private static boolean prefix(int[] a, int[] b) {
    return a.length <= b.length && Arrays.equals(a, 0, a.length, b, 0, a.length);
  }

  /** The graphs of a list-append history, per committed set and unread-append orders. */
  private static final class AppendGraphs {
    final Oracle o;
    final int n;
    final HashMap<Long, int[]> writer;
    final HashMap<Integer, List<int[]>> readsOf;
    final HashMap<Integer, int[]> longest;
    final boolean[] observed;
    final int[] keys;
    final long cap;

    AppendGraphs(Oracle o, HashMap<Long, int[]> writer, HashMap<Integer, List<int[]>> readsOf, HashMap<Integer, int[]> longest,
                 boolean[] observed, long cap) {
      this.o = o;
      this.cap = cap;
      this.n = o.txns.size();
      this.writer = writer;
      this.readsOf = readsOf;
      this.longest = longest;
      this.observed = observed;
      HashSet<Integer> ks = new HashSet<>();
      for (Oracle.Txn t : o.txns) ks.addAll(t.key);
      keys = ks.stream().mapToInt(Integer::intValue).sorted().toArray();
    }

    /** The committed sets: ok, observed info, and each subset of the other info transactions. */
    List<boolean[]> committedSets() {
      return AdyaOracle.committedSets(n, t -> o.txns.get(t).status == Oracle.OK, t -> o.txns.get(t).status == Oracle.INFO, observed);
    }

    /** Per key: the committed transactions with an append to it that no :ok read shows. */
    int[][] unread(boolean[] c) {
      int[][] u = new int[keys.length][];
      for (int ki = 0; ki < keys.length; ki++) {
        int k = keys[ki];
        HashSet<Integer> shown = new HashSet<>();
        for (int[] r : readsOf.getOrDefault(k, List.of())) for (int v : r) shown.add(v);
        List<Integer> l = new ArrayList<>();
        for (Oracle.Txn t : o.txns) {
          if (!c[t.id]) continue;
          for (int i = 0; i < t.key.size(); i++) {
            if (t.isAppend.get(i) && t.key.get(i) == k && !shown.contains(t.val.get(i))) {
              l.add(t.id);
              break;
            }
          }
        }
        u[ki] = l.stream().mapToInt(Integer::intValue).toArray();
      }
      return u;
    }

    /** Committed writers of a list's elements, in order (an element read twice counted once). */
    int[] writers(int k, int[] list, boolean[] c, int len) {
      List<Integer> ws = new ArrayList<>();
      HashSet<Integer> seen = new HashSet<>();
      for (int p = 0; p < len; p++) {
        if (!seen.add(list[p])) continue;
        int[] w = writer.get(kv(k, list[p]));
        if (w != null && c[w[0]]) ws.add(w[0]);
      }
      return ws.stream().mapToInt(Integer::intValue).toArray();
    }

    /** A transaction's appends shown out of its program order: a write cycle of its own. */
    void programOrder(int k, int[] list, boolean[] c, boolean[][] e) {
      HashMap<Integer, Integer> lastIdx = new HashMap<>();
      for (int v : list) {
        int[] w = writer.get(kv(k, v));
        if (w == null || !c[w[0]]) continue;
        Integer before = lastIdx.get(w[0]);
        if (before != null && w[1] < before) e[w[0]][w[0]] = true;
        else lastIdx.put(w[0], w[1]);
      }
    }

    /** WW along a chain of writers: each to every later one. */
    static void chain(int[] ws, boolean[][] e) {
      for (int i = 0; i < ws.length; i++) for (int j = i + 1; j < ws.length; j++) if (ws[i] != ws[j]) e[ws[i]][ws[j]] = true;
    }

    /** Read committed (WW|WR) and repeatable read (ALL): some committed set and unread orders leave the graph acyclic. */
    Answer search(int types) {
      long combos = 0;
      for (boolean[] c : committedSets()) {
        int[][] u = unread(c);
        long orders = 1;
        for (int[] x : u) orders *= factorial(x.length);
        combos += orders;
      }
      boolean reduced = combos > cap;
      for (boolean[] c : reduced ? List.of(committedSets().get(0)) : committedSets()) {
        int[][] u = unread(c);
        if (reduced) {
          boolean[][] e = graph(c, u, null, types);
          if (acyclic(e)) return new Answer(true, "reduced: committed " + names(c) + ", unread appends in a topological order");
          continue;
        }
        int[][] perm = new int[u.length][];
        String w = permute(c, u, perm, 0, types);
        if (w != null) return new Answer(true, w);
      }
      return new Answer(false, "every committed set and order of unread appends closes a cycle" + (reduced ? " (reduced)" : ""));
    }

    String permute(boolean[] c, int[][] u, int[][] perm, int ki, int types) {
      if (ki == u.length) {
        boolean[][] e = graph(c, u, perm, types);
        if (!acyclic(e)) return null;
        StringBuilder sb = new StringBuilder("committed " + names(c));
        for (int i = 0; i < u.length; i++) if (perm[i].length > 1) sb.append("; unread on key ").append(i).append(": ").append(Arrays.toString(perm[i]));
        return sb.toString();
      }
      for (int[] p : permutations(u[ki])) {
        perm[ki] = p;
        String w = permute(c, u, perm, ki + 1, types);
        if (w != null) return w;
      }
      return null;
    }

    /**
     * The graph for committed set c with unread orders perm (null: no edges among unread appends):
     * the longest read of each key, then its unread appends, as the version order.
     */
    boolean[][] graph(boolean[] c, int[][] u, int[][] perm, int types) {
      boolean[][] e = new boolean[n][n];
      for (int ki = 0; ki < keys.length; ki++) {
        int k = keys[ki];
        int[] ord = longest.getOrDefault(k, new int[0]);
        int[] shown = writers(k, ord, c, ord.length);
        int[] after = perm != null ? perm[ki] : u[ki];
        int[] chain = concat(shown, perm != null ? after : new int[0]);
        chain(chain, e);
        if (perm == null) for (int s : shown) for (int x : after) if (s != x) e[s][x] = true;
        programOrder(k, ord, c, e);
        if ((types & (WR | RW)) == 0) continue;
        // First reads of the key by :ok transactions.
        for (Oracle.Txn r : o.txns) {
          for (int i = 0; i < r.key.size(); i++) {
            if (r.isAppend.get(i) || r.read.get(i) == null || r.key.get(i) != k) continue;
            int eLen = observedLength(r, i);
            int[] before = writers(k, ord, c, eLen);
            if ((types & WR) != 0 && before.length > 0 && before[before.length - 1] != r.id) e[before[before.length - 1]][r.id] = true;
            if ((types & RW) != 0) {
              HashSet<Integer> earlier = new HashSet<>();
              for (int w : before) earlier.add(w);
              // Every writer of a later version: the shown ones past the read, then the unread.
              int[] all = writers(k, ord, c, ord.length);
              for (int j = before.length; j < all.length; j++) if (all[j] != r.id) e[r.id][all[j]] = true;
              for (int x : after) if (x != r.id) e[r.id][x] = true;
            }
            break;
          }
        }
      }
      return e;
    }

    /** Read uncommitted: the write orders every :ok read shows, and the unread appends after each. */
    Answer searchUnion() {
      for (boolean[] c : committedSets()) {
        int[][] u = unread(c);
        boolean[][] e = new boolean[n][n];
        for (int ki = 0; ki < keys.length; ki++) {
          int k = keys[ki];
          for (int[] r : readsOf.getOrDefault(k, List.of())) {
            int[] ws = writers(k, r, c, r.length);
            chain(ws, e);
            programOrder(k, r, c, e);
            if (ws.length > 0) for (int x : u[ki]) if (x != ws[ws.length - 1]) e[ws[ws.length - 1]][x] = true;
          }
        }
        // The unread appends among themselves: WW only, so a topological order of the rest orders
        // them with every edge forward; enumerated anyway when few.
        long orders = 1;
        for (int[] x : u) orders *= factorial(x.length);
        if (orders > cap) {
          if (acyclic(e)) return new Answer(true, "reduced: committed " + names(c));
          continue;
        }
        int[][] perm = new int[u.length][];
        String w = permuteWw(c, e, u, perm, 0);
        if (w != null) return new Answer(true, w);
      }
      return new Answer(false, "every committed set closes a cycle of write orders (G0)");
    }

    String permuteWw(boolean[] c, boolean[][] base, int[][] u, int[][] perm, int ki) {
      if (ki == u.length) {
        boolean[][] e = new boolean[n][];
        for (int i = 0; i < n; i++) e[i] = base[i].clone();
        for (int[] p : perm) chain(p, e);
        return acyclic(e) ? "committed " + names(c) : null;
      }
      for (int[] p : permutations(u[ki])) {
        perm[ki] = p;
        String w = permuteWw(c, base, u, perm, ki + 1);
        if (w != null) return w;
      }
      return null;
    }

    String names(boolean[] c) {
      StringBuilder sb = new StringBuilder("{");
      for (int t = 0; t < n; t++) if (c[t]) sb.append(sb.length() > 1 ? " " : "").append(o.txnName(t));
      return sb.append('}').toString();
    }
  }

  // ------------------------------------------------------------------ rw-register

  /** The facts and reads-from of an rw-register history. */
  private static final class RegisterFacts {
    final RegisterOracle o;
    final int n, nk;
    /** Per txn: its external reads, as {key, writer txn or -1 for nil}. */
    final List<List<int[]>> ext = new ArrayList<>();
    /** Per txn and key: whether it writes the key. */
    final boolean[][] writes;
    final boolean[] observed;
    String facts;
    /** Some first read returns a value no transaction wrote. */
    boolean garbage;

    RegisterFacts(RegisterOracle o) {
      this.o = o;
      n = o.txns.size();
      nk = o.keyCount();
      writes = new boolean[n][nk];
      observed = new boolean[n];
      // Writers: (key, value) -> {txn, micro-op index}.
      HashMap<Long, int[]> writer = new HashMap<>();
      for (RegisterOracle.Txn t : o.txns) {
        for (int i = 0; i < t.key.size(); i++) {
          if (!t.isWrite.get(i)) continue;
          writes[t.id][t.key.get(i)] = true;
          writer.putIfAbsent(kv(t.key.get(i), t.val.get(i)), new int[] {t.id, i});
        }
      }
      List<String> f = new ArrayList<>();
      for (RegisterOracle.Txn t : o.txns) {
        List<int[]> mine = new ArrayList<>();
        ext.add(mine);
        if (t.status != RegisterOracle.OK) continue;
        HashSet<Integer> touched = new HashSet<>();
        for (int i = 0; i < t.key.size(); i++) {
          int k = t.key.get(i), v = t.val.get(i);
          if (!touched.add(k) || t.isWrite.get(i) || v == RegisterOracle.UNKNOWN) continue;
          if (v == RegisterOracle.NIL) {
            mine.add(new int[] {k, -1});
            continue;
          }
          int[] w = writer.get(kv(k, v));
          if (w == null) { f.add("garbage"); garbage = true; continue; }
          RegisterOracle.Txn wt = o.txns.get(w[0]);
          if (w[0] == t.id) { f.add("future-read"); continue; }
          if (wt.status == RegisterOracle.FAIL) { f.add("G1a"); continue; }
          boolean last = true;
          for (int j = w[1] + 1; j < wt.key.size(); j++) if (wt.isWrite.get(j) && wt.key.get(j) == k) last = false;
          if (!last) { f.add("G1b"); continue; }
          if (wt.status == RegisterOracle.INFO) observed[w[0]] = true;
          mine.add(new int[] {k, w[0]});
        }
      }
      facts = f.isEmpty() ? null : "facts: " + String.join(" ", new java.util.TreeSet<>(f));
    }

    List<boolean[]> committedSets() {
      return AdyaOracle.committedSets(n, t -> o.txns.get(t).status == RegisterOracle.OK,
          t -> o.txns.get(t).status == RegisterOracle.INFO, observed);
    }
  }

  /** The three levels on an rw-register history, by the search over total orders (see the class comment). */
  public static Map<Level, Answer> register(RegisterOracle o) {
    RegisterFacts rf = new RegisterFacts(o);
    if (rf.n > 30) throw new IllegalArgumentException("the oracle is for tiny histories");
    LinkedHashMap<Level, Answer> out = new LinkedHashMap<>();
    out.put(Level.REPEATABLE_READ, rf.facts != null ? new Answer(false, rf.facts) : order(rf, true));
    out.put(Level.READ_COMMITTED, rf.facts != null ? new Answer(false, rf.facts) : order(rf, false));
    out.put(Level.READ_UNCOMMITTED, rf.garbage ? new Answer(false, "facts: garbage")
        : new Answer(true, "any total order of the committed transactions"));
    return out;
  }

  private static Answer order(RegisterFacts rf, boolean latest) {
    for (boolean[] c : rf.committedSets()) {
      int[] last = new int[rf.nk];
      Arrays.fill(last, -1);
      ArrayList<Integer> trail = new ArrayList<>();
      if (place(rf, c, 0, last, latest, new HashSet<>(), trail)) {
        StringBuilder sb = new StringBuilder();
        for (int t : trail) sb.append(sb.length() > 0 ? " " : "").append(rf.o.txnName(t));
        return new Answer(true, sb.toString());
      }
    }
    return new Answer(false, "no order of any committed set puts every edge forward");
  }

  /** Places the committed transactions one by one (placed: bitmask); last: per key, the last placed writer. */
  private static boolean place(RegisterFacts rf, boolean[] c, int placed, int[] last, boolean latest, HashSet<String> dead,
                               List<Integer> trail) {
    boolean all = true;
    for (int t = 0; t < rf.n; t++) if (c[t] && (placed & (1 << t)) == 0) all = false;
    if (all) return true;
    String memo = placed + (latest ? Arrays.toString(last) : "");
    if (dead.contains(memo)) return false;
    for (int t = 0; t < rf.n; t++) {
      if (!c[t] || (placed & (1 << t)) != 0) continue;
      boolean ok = true;
      for (int[] rd : rf.ext.get(t)) {
        int k = rd[0], w = rd[1];
        if (latest) ok &= last[k] == w;
        else ok &= w < 0 || (placed & (1 << w)) != 0;
      }
      if (!ok) continue;
      int[] next = last.clone();
      for (int k = 0; k < rf.nk; k++) if (rf.writes[t][k]) next[k] = t;
      trail.add(t);
      if (place(rf, c, placed | (1 << t), next, latest, dead, trail)) return true;
      trail.remove(trail.size() - 1);
    }
    dead.add(memo);
    return false;
  }

  /**
   * The three levels by the literal definition: every committed set and every version order (each
   * key's committed writers in every order), the graph and its closure. Null when there are more
   * than {@code cap} combinations.
   */
  public static Map<Level, Answer> registerLiteral(RegisterOracle o, long cap) {
    RegisterFacts rf = new RegisterFacts(o);
    List<boolean[]> sets = rf.committedSets();
    long combos = 0;
    for (boolean[] c : sets) {
      long p = 1;
      for (int k = 0; k < rf.nk; k++) {
        int w = 0;
        for (int t = 0; t < rf.n; t++) if (c[t] && rf.writes[t][k]) w++;
        p *= factorial(w);
      }
      combos += p;
    }
    if (combos > cap) return null;
    boolean rr = false, rc = false, ru = false;
    for (boolean[] c : sets) {
      List<List<int[]>> perKey = new ArrayList<>();
      for (int k = 0; k < rf.nk; k++) {
        List<Integer> ws = new ArrayList<>();
        for (int t = 0; t < rf.n; t++) if (c[t] && rf.writes[t][k]) ws.add(t);
        perKey.add(permutations(ws.stream().mapToInt(Integer::intValue).toArray()));
      }
      int[] idx = new int[rf.nk];
      while (true) {
        int[][] ord = new int[rf.nk][];
        for (int k = 0; k < rf.nk; k++) ord[k] = perKey.get(k).get(idx[k]);
        boolean[][] ww = new boolean[rf.n][rf.n], wr = new boolean[rf.n][rf.n], rw = new boolean[rf.n][rf.n];
        for (int k = 0; k < rf.nk; k++) AppendGraphs.chain(ord[k], ww);
        for (int r = 0; r < rf.n; r++) {
          if (!c[r]) continue;
          for (int[] rd : rf.ext.get(r)) {
            int k = rd[0], w = rd[1];
            if (w >= 0) wr[w][r] = true;
            int at = -1;
            for (int j = 0; j < ord[k].length; j++) if (ord[k][j] == w) at = j;
            for (int j = at + 1; j < ord[k].length; j++) if (ord[k][j] != r) rw[r][ord[k][j]] = true;
          }
        }
        ru |= acyclic(ww);
        boolean[][] dep = or(ww, wr);
        rc |= acyclic(dep);
        rr |= acyclic(or(dep, rw));
        int k = 0;
        while (k < rf.nk && ++idx[k] == perKey.get(k).size()) idx[k++] = 0;
        if (k == rf.nk) break;
      }
    }
    LinkedHashMap<Level, Answer> out = new LinkedHashMap<>();
    out.put(Level.REPEATABLE_READ, new Answer(rf.facts == null && rr, rf.facts != null ? rf.facts : "literal"));
    out.put(Level.READ_COMMITTED, new Answer(rf.facts == null && rc, rf.facts != null ? rf.facts : "literal"));
    out.put(Level.READ_UNCOMMITTED, new Answer(ru && !rf.garbage, rf.garbage ? "facts: garbage" : "literal"));
    return out;
  }

  // ------------------------------------------------------------------ small helpers

  private static boolean[][] or(boolean[][] a, boolean[][] b) {
    boolean[][] r = new boolean[a.length][a.length];
    for (int i = 0; i < a.length; i++) for (int j = 0; j < a.length; j++) r[i][j] = a[i][j] || b[i][j];
    return r;
  }

  /** Whether the relation has no cycle (self-loops included): Warshall's closure. */
  static boolean acyclic(boolean[][] e) {
    int n = e.length;
    boolean[][] r = new boolean[n][];
    for (int i = 0; i < n; i++) r[i] = e[i].clone();
    for (int k = 0; k < n; k++) for (int i = 0; i < n; i++) if (r[i][k]) for (int j = 0; j < n; j++) if (r[k][j]) r[i][j] = true;
    for (int i = 0; i < n; i++) if (r[i][i]) return false;
    return true;
  }

  private static long factorial(int k) {
    long f = 1;
    for (int i = 2; i <= k; i++) f *= i;
    return f;
  }

  static int[] concat(int[] a, int[] b) {
    int[] r = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, r, a.length, b.length);
    return r;
  }

  static List<int[]> permutations(int[] a) {
    List<int[]> out = new ArrayList<>();
    permute(a.clone(), 0, out);
    return out;
  }

  private static void permute(int[] a, int i, List<int[]> out) {
    if (i >= a.length - 1) {
      out.add(a.clone());
      return;
    }
    for (int j = i; j < a.length; j++) {
      int x = a[i]; a[i] = a[j]; a[j] = x;
      permute(a, i + 1, out);
      x = a[i]; a[i] = a[j]; a[j] = x;
    }
  }

  /**
   * Every set of transactions that may have committed: the ok ones and the :info ones someone
   * observed, plus each subset of the other :info ones.
   */
  static List<boolean[]> committedSets(int n, java.util.function.IntPredicate ok, java.util.function.IntPredicate info,
                                       boolean[] observed) {
    List<Integer> free = new ArrayList<>();
    boolean[] base = new boolean[n];
    for (int t = 0; t < n; t++) {
      if (ok.test(t) || (info.test(t) && observed[t])) base[t] = true;
      else if (info.test(t)) free.add(t);
    }
    List<boolean[]> sets = new ArrayList<>();
    for (int mask = 0; mask < (1 << free.size()); mask++) {
      boolean[] c = base.clone();
      for (int i = 0; i < free.size(); i++) if ((mask & (1 << i)) != 0) c[free.get(i)] = true;
      sets.add(c);
    }
    return sets;
  }
}
