package isocheck.verify;

import isocheck.history.History;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Checks a refutation: a counterexample cycle of a violated serializable or snapshot-isolation
 * level (the result's {@code :anomalies}: {@code :cycle} ops and {@code :steps}), step by step
 * against the history alone, and that the level forbids its shape. A cycle none of whose orders
 * can be avoided proves the level violated (Adya's DSG; for snapshot isolation the begin/commit
 * graph of Viper, EuroSys'23, Def. 2; Cerone et al., CONCUR'15: (WR ∪ WW);RW? acyclic).
 *
 * <p>Each transaction of the cycle committed (:ok, or a write of it was read by an :ok
 * transaction). A step T → S holds when the history shows it, on any key:
 * <ul>
 * <li>process: one process ran T, then S; realtime: T completed :ok before S was invoked;
 * <li>wr: S read a value (a list element) T wrote;
 * <li>ww: list-append, some read's list shows T's append before S's, or some read shows T's
 *     append and none S's (every read is a prefix of the key's final list, which holds S's
 *     append: it comes after every append read); rw-register, a chain of
 *     read-modify-writes (each reads the previous one's value of the key, then writes it) leads
 *     from T to S; at a level with realtime order, also T and S write a common key and T
 *     completed before S was invoked (the level commits T first);
 * <li>rw: T read a version of a key that S overwrote, in a read before any write of its own to
 *     the key: list-append, T's list is empty and S appended to the key, or some read shows S's
 *     append after the last element T saw, or no read shows an append of S; rw-register, T read nil (the initial value) and S
 *     wrote the key, or a chain of read-modify-writes leads from the writer of the value T read
 *     to S (or, at a level with realtime order, that writer completed before S was invoked).
 * </ul>
 * Steps that rest on a write order the version-order search chose (pruning, the solver, or an
 * order of two never-read appends) have no such evidence: the refutation is then reported as
 * not certified, with the step. One exception, a pair ({@link #checkPair}): two writers of a
 * key whose order no read shows, where each order closes a cycle; each branch's cycle is
 * checked with its own order assumed, and the two orders are all there are.
 *
 * <p>Shape: serializability forbids every cycle; snapshot isolation, a cycle in which no
 * anti-dependency directly follows a step that enters its transaction at its commit (an
 * anti-dependency, or GSI's realtime step). Process steps count only at the levels with process
 * order, realtime steps only at those with realtime order.
 */
final class CycleCheck {
  private CycleCheck() {}

  /** A cycle that does not check: why, naming the step. */
  static final class Unproven extends RuntimeException {
    Unproven(String why) { super(why, null, false, false); }
  }

  /**
   * Checks one counterexample (data with :cycle and :steps) for a level; the number of its
   * steps, or Unproven.
   */
  static int check(Facts f, Evidence ev, Object cx, boolean serial, boolean session, boolean realtime, boolean toCommit) {
    return check(f, ev, cx, serial, session, realtime, toCommit, null);
  }

  /**
   * As above, assuming, when assume is {a, b}, that a's writes of each key both write come
   * before b's (one branch of a pair: {@link #checkPair}); a step under consideration
   * (:hypothetical) must then be shown by the history with that order.
   */
  static int check(Facts f, Evidence ev, Object cx, boolean serial, boolean session, boolean realtime, boolean toCommit, int[] assume) {
    if (!(cx instanceof Map)) throw new Unproven("it is not a map");
    Object cy = ((Map<?, ?>) cx).get("cycle"), st = ((Map<?, ?>) cx).get("steps");
    if (!(cy instanceof List) || !(st instanceof List)) throw new Unproven("it is not a cycle");
    List<?> ops = (List<?>) cy, steps = (List<?>) st;
    int k = steps.size();
    if (k == 0 || ops.size() != k + 1) throw new Unproven("its cycle and steps do not match");
    int[] t = new int[k];
    String[] kind = new String[k];
    for (int i = 0; i < k; i++) {
      Object idx = ops.get(i) instanceof Map ? ((Map<?, ?>) ops.get(i)).get("index") : null;
      try {
        t[i] = f.txn(idx);
      } catch (Facts.Rejected e) {
        throw new Unproven(e.getMessage());
      }
      Map<?, ?> s = steps.get(i) instanceof Map ? (Map<?, ?>) steps.get(i) : Map.of();
      kind[i] = String.valueOf(s.get("type"));
    }
    Object last = ops.get(k) instanceof Map ? ((Map<?, ?>) ops.get(k)).get("index") : null;
    if (!(last instanceof Long) || f.h.displayIndex(t[0]) != (Long) last) throw new Unproven("its cycle does not close");
    for (int i = 0; i < k; i++) {
      if (!ev.committed(t[i])) throw new Unproven(f.name(t[i]) + " may not have committed (no :ok, and no write of it read)");
    }
    for (int i = 0; i < k; i++) {
      int a = t[i], b = t[(i + 1) % k];
      String why = justify(f, ev, a, b, kind[i], session, realtime, assume);
      if (why != null) throw new Unproven(step(f, t, i, k, kind[i]) + ": " + why);
    }
    if (!serial) {
      for (int i = 0; i < k; i++) {
        boolean entersAtCommit = kind[i].equals("rw") || (toCommit && kind[i].equals("realtime"));
        if (entersAtCommit && kind[(i + 1) % k].equals("rw")) {
          throw new Unproven(step(f, t, i, k, kind[i]) + " and " + step(f, t, (i + 1) % k, k, kind[(i + 1) % k])
              + " are adjacent, which snapshot isolation allows (no cycle of begins and commits)");
        }
      }
    }
    return k;
  }

  /**
   * A pair (the search's "either order closes a cycle"): cx's :unordered names writers a and b,
   * its cycle is the branch where a's writes of their common keys come first, :alternative the
   * branch where b's do. Both committed, with a common key (so one order or the other is the
   * key's version order), and each branch's cycle shown by the history plus its order: the level
   * is violated whichever order the database chose. The steps of the two cycles, or Unproven.
   */
  static int[] checkPair(Facts f, Evidence ev, Object cx, boolean serial, boolean session, boolean realtime, boolean toCommit) {
    Map<?, ?> m = (Map<?, ?>) cx;
    Object un = m.get("unordered");
    if (!(un instanceof List) || ((List<?>) un).size() != 2 || !(m.get("alternative") instanceof Map)) {
      throw new Unproven("it is not a pair of branches");
    }
    int a, b;
    try {
      a = f.txn(((List<?>) un).get(0) instanceof Map ? ((Map<?, ?>) ((List<?>) un).get(0)).get("index") : null);
      b = f.txn(((List<?>) un).get(1) instanceof Map ? ((Map<?, ?>) ((List<?>) un).get(1)).get("index") : null);
    } catch (Facts.Rejected e) {
      throw new Unproven(e.getMessage());
    }
    boolean common = false;
    for (int p = f.h.mopStart(a); p < f.h.mopEnd(a); p++) {
      if (f.isWrite(p)) for (int q = f.h.mopStart(b); q < f.h.mopEnd(b); q++) common |= f.isWrite(q) && f.h.mopKey(q) == f.h.mopKey(p);
    }
    if (a == b || !common) throw new Unproven(f.name(a) + " and " + f.name(b) + " write no common key");
    for (int t : new int[] {a, b}) {
      if (!ev.committed(t)) throw new Unproven(f.name(t) + " may not have committed (no :ok, and no write of it read)");
    }
    // The branches are the two orders; which one the result lists first does not matter.
    Unproven first = null;
    for (int[] o : new int[][] {{a, b}, {b, a}}) {
      try {
        int k0, k1;
        try {
          k0 = check(f, ev, cx, serial, session, realtime, toCommit, o);
        } catch (Unproven u) {
          throw new Unproven("if " + f.name(o[0]) + "'s write came first, " + u.getMessage());
        }
        try {
          k1 = check(f, ev, m.get("alternative"), serial, session, realtime, toCommit, new int[] {o[1], o[0]});
        } catch (Unproven u) {
          throw new Unproven("if " + f.name(o[1]) + "'s write came first, " + u.getMessage());
        }
        return new int[] {a, b, k0, k1};
      } catch (Unproven u) {
        if (first == null) first = u;
      }
    }
    throw first;
  }

  private static String step(Facts f, int[] t, int i, int k, String kind) {
    return "the step " + f.name(t[i]) + " → " + f.name(t[(i + 1) % k]) + " (" + kind + ")";
  }

  /** Null when the history shows a → b of this kind; else why not. */
  private static String justify(Facts f, Evidence ev, int a, int b, String kind, boolean session, boolean realtime, int[] assume) {
    History h = f.h;
    switch (kind) {
      case "process":
        if (!session) return "this level has no process order";
        return h.session(a) == h.session(b) && f.when(a) < f.when(b) ? null : "they did not run on one process in this order";
      case "realtime":
        if (!realtime) return "this level has no realtime order";
        return f.realtimeBefore(a, b) ? null : f.name(a) + " did not complete before " + f.name(b) + " was invoked";
      case "wr":
        for (int m = h.mopStart(b); m < h.mopEnd(b); m++) {
          if (f.isRead(m) && h.isOk(b) && ev.shows(m, a)) return null;
        }
        return "no read of " + f.name(b) + " shows a write of " + f.name(a);
      case "ww":
        return ev.versionBefore(a, b) || assume != null && ev.assumedBefore(a, b, assume) || realtime && writesCommonKey(f, a, b) && f.realtimeBefore(a, b) ? null
            : "no read shows " + f.name(a) + "'s write of a key before " + f.name(b) + "'s" + (assume == null ? "" : ", nor does the branch's order");
      case "rw":
        if (!h.isOk(a)) return f.name(a) + " did not complete :ok, so its reads are unknown";
        for (int m = h.mopStart(a); m < h.mopEnd(a); m++) {
          if (f.isRead(m) && (ev.overwrites(m, a, b, realtime) || assume != null && ev.assumedOverwrites(m, a, b, assume))) return null;
        }
        return "no read of " + f.name(a) + " shows a version that the history orders before a write of " + f.name(b)
            + (assume == null ? " (a write order the search chose)" : "");
      default:
        return "verify does not know steps of type " + kind;
    }
  }

  private static boolean writesCommonKey(Facts f, int a, int b) {
    for (int p = f.h.mopStart(a); p < f.h.mopEnd(a); p++) {
      if (!f.isWrite(p)) continue;
      for (int q = f.h.mopStart(b); q < f.h.mopEnd(b); q++) if (f.isWrite(q) && f.h.mopKey(q) == f.h.mopKey(p)) return true;
    }
    return false;
  }

  /** What the history shows about versions: reads by key, writers of values, read-modify-writes. */
  static final class Evidence {
    private final Facts f;
    private final History h;
    /** Per key, the read mops of :ok transactions. */
    private final List<List<Integer>> reads = new ArrayList<>();

    Evidence(Facts f) {
      this.f = f;
      this.h = f.h;
      for (int k = 0; k < h.keyCount(); k++) reads.add(new ArrayList<>());
      for (int t = 0; t < f.n; t++) {
        if (!h.isOk(t)) continue;
        for (int m = h.mopStart(t); m < h.mopEnd(t); m++) if (f.isRead(m)) reads.get(h.mopKey(m)).add(m);
      }
    }

    private int[] sessionPred;

    /** Each transaction's predecessor in its process (-1 for the first), computed once. */
    int[] sessionPred() {
      if (sessionPred == null) sessionPred = WeakCycleCheck.sessionPred(f);
      return sessionPred;
    }

    /** Per key, the longest read of an :ok transaction (-1: none), and its elements' writers' first positions; built when asked. */
    private final java.util.HashMap<Integer, java.util.HashMap<Integer, Integer>> firstPos = new java.util.HashMap<>();

    /**
     * List-append: a key both write whose longest read shows a's first append to it before b's
     * (each commit order of the weak levels keeps it), in words; else null.
     */
    String longestOrder(int a, int b) {
      for (int p = h.mopStart(a); p < h.mopEnd(a); p++) {
        if (!f.isWrite(p)) continue;
        int x = h.mopKey(p);
        java.util.HashMap<Integer, Integer> pos = firstPos.computeIfAbsent(x, this::positions);
        Integer pa = pos.get(a), pb = pos.get(b);
        if (pa != null && pb != null && pa < pb) {
          return "the longest read of key " + f.key(x) + " shows " + f.name(a) + "'s append before " + f.name(b) + "'s";
        }
      }
      return null;
    }

    private java.util.HashMap<Integer, Integer> positions(int x) {
      int longest = -1;
      for (int m : reads.get(x)) if (longest < 0 || h.mopLen(m) > h.mopLen(longest)) longest = m;
      java.util.HashMap<Integer, Integer> pos = new java.util.HashMap<>();
      for (int j = 0; longest >= 0 && j < Math.max(h.mopLen(longest), 0); j++) {
        int w = writer(x, h.listElem(longest, j));
        if (w >= 0) pos.putIfAbsent(w, j);
      }
      return pos;
    }

    /** The read mops of :ok transactions of key x. */
    List<Integer> readsOf(int x) { return reads.get(x); }

    /** The transaction that wrote value v of key x (-1: none, or nil). */
    private int writer(int x, int v) {
      if (v == History.NIL) return -1;
      int w = h.writerMop(x, v);
      return w < 0 ? -1 : h.mopTxn(w);
    }

    /** Committed: :ok, or a value it wrote was read by an :ok transaction (never :fail). */
    boolean committed(int t) {
      if (f.failed(t)) return false;
      if (h.isOk(t)) return true;
      for (int m = h.mopStart(t); m < h.mopEnd(t); m++) {
        if (!f.isWrite(m)) continue;
        for (int r : reads.get(h.mopKey(m))) if (shows(r, t)) return true;
      }
      return false;
    }

    /** Whether read m shows a write of t (its value, or an element of its list). */
    boolean shows(int m, int t) {
      int x = h.mopKey(m);
      if (!f.append) return writer(x, h.mopVal(m)) == t;
      for (int j = 0; j < Math.max(h.mopLen(m), 0); j++) if (writer(x, h.listElem(m, j)) == t) return true;
      return false;
    }

    /** Whether the history fixes a's write of some key before b's. */
    boolean versionBefore(int a, int b) {
      if (a == b) return false;
      for (int m = h.mopStart(b); m < h.mopEnd(b); m++) {
        if (!f.isWrite(m)) continue;
        int x = h.mopKey(m);
        if (f.append ? listOrder(x, a, b) : rmwChain(x, a, b)) return true;
      }
      return false;
    }

    /** Per key, the values some :ok read of it shows (list-append); built when asked. */
    private final java.util.HashMap<Integer, java.util.HashSet<Integer>> shownValues = new java.util.HashMap<>();

    /**
     * List-append: whether t appended to x a value no read of x shows. Every read's list is a
     * prefix of the key's final list, which holds each committed append: so every version read
     * precedes that append, and every append some read shows comes before it.
     */
    private boolean unreadAppend(int x, int t) {
      java.util.HashSet<Integer> shown = shownValues.computeIfAbsent(x, k -> {
        java.util.HashSet<Integer> vs = new java.util.HashSet<>();
        for (int m : reads.get(k)) for (int j = 0; j < Math.max(h.mopLen(m), 0); j++) vs.add(h.listElem(m, j));
        return vs;
      });
      for (int p = h.mopStart(t); p < h.mopEnd(t); p++) {
        if (f.isWrite(p) && h.mopKey(p) == x && !shown.contains(h.mopVal(p))) return true;
      }
      return false;
    }

    /** Whether some read of x shows an append of t. */
    private boolean readAppend(int x, int t) {
      for (int m : reads.get(x)) if (shows(m, t)) return true;
      return false;
    }

    /** Whether the history orders u's write of x before v's (a list's order, an unread append, a read-modify-write chain). */
    boolean before(int x, int u, int v) {
      if (u == v) return false;
      return f.append ? listOrder(x, u, v) : rmwChain(x, u, v);
    }

    /**
     * One branch of a pair, assume = {a, b}: a's writes of a key both write come before b's. u's
     * write of such a key x precedes v's when u is a (or the history orders u before a) and v is
     * b (or the history orders b before v).
     */
    boolean assumedBefore(int u, int v, int[] assume) {
      int a = assume[0], b = assume[1];
      for (int p = h.mopStart(u); p < h.mopEnd(u); p++) {
        if (!f.isWrite(p)) continue;
        int x = h.mopKey(p);
        if (!writesKey(a, x) || !writesKey(b, x) || !writesKey(v, x)) continue;
        if ((u == a || before(x, u, a)) && (v == b || before(x, b, v))) return true;
      }
      return false;
    }

    /** As {@link #overwrites}, under the branch's order: read m of r saw a's version (or one before it), and v is b or after it. */
    boolean assumedOverwrites(int m, int r, int v, int[] assume) {
      int x = h.mopKey(m), a = assume[0], b = assume[1];
      if (!writesKey(a, x) || !writesKey(b, x) || !writesKey(v, x) || r == v) return false;
      for (int p = h.mopStart(r); p < m; p++) if (f.isWrite(p) && h.mopKey(p) == x) return false; // an internal read
      int w;
      if (f.append) {
        int len = Math.max(h.mopLen(m), 0);
        if (len == 0) return false;
        w = writer(x, h.listElem(m, len - 1));
      } else {
        w = writer(x, h.mopVal(m));
      }
      return w >= 0 && (w == a || before(x, w, a)) && (v == b || before(x, b, v));
    }

    private boolean writesKey(int t, int x) {
      for (int p = h.mopStart(t); p < h.mopEnd(t); p++) if (f.isWrite(p) && h.mopKey(p) == x) return true;
      return false;
    }

    /** List-append: some read of x shows an append of a before an append of b, or a's is read and b's is in no read. */
    private boolean listOrder(int x, int a, int b) {
      if (unreadAppend(x, b) && readAppend(x, a)) return true;
      for (int m : reads.get(x)) {
        boolean seenA = false;
        for (int j = 0; j < Math.max(h.mopLen(m), 0); j++) {
          int w = writer(x, h.listElem(m, j));
          if (w == a) seenA = true;
          else if (w == b && seenA) return true;
        }
      }
      return false;
    }

    /**
     * rw-register: a chain of read-modify-writes of x leads from a to b: each link reads x (before
     * writing it itself) as the previous one's write and then writes x.
     */
    private boolean rmwChain(int x, int a, int b) {
      java.util.ArrayDeque<Integer> todo = new java.util.ArrayDeque<>();
      java.util.HashSet<Integer> seen = new java.util.HashSet<>();
      todo.add(a);
      seen.add(a);
      while (!todo.isEmpty()) {
        int u = todo.poll();
        for (int m : reads.get(x)) {
          int r = h.mopTxn(m);
          if (seen.contains(r) || writer(x, h.mopVal(m)) != u || !writesAfter(r, x, m)) continue;
          if (r == b) return true;
          seen.add(r);
          todo.add(r);
        }
      }
      return false;
    }

    /** Whether t writes x after mop m, and not before it. */
    private boolean writesAfter(int t, int x, int m) {
      boolean after = false;
      for (int p = h.mopStart(t); p < h.mopEnd(t); p++) {
        if (!f.isWrite(p) || h.mopKey(p) != x) continue;
        if (p < m) return false;
        after = true;
      }
      return after;
    }

    /**
     * Whether read m of transaction a saw a version of its key that b's write of it overwrote; at
     * a level with realtime order, also when the writer of the value read completed before b
     * was invoked (the level orders their writes so).
     */
    boolean overwrites(int m, int a, int b, boolean realtime) {
      int x = h.mopKey(m);
      boolean bWrites = false;
      for (int p = h.mopStart(b); p < h.mopEnd(b); p++) if (f.isWrite(p) && h.mopKey(p) == x) bWrites = true;
      if (!bWrites || a == b) return false;
      for (int p = h.mopStart(a); p < m; p++) if (f.isWrite(p) && h.mopKey(p) == x) return false; // an internal read
      if (!f.append) {
        int w = writer(x, h.mopVal(m));
        return h.mopVal(m) == History.NIL ? true : w >= 0 && (rmwChain(x, w, b) || realtime && f.realtimeBefore(w, b));
      }
      int len = Math.max(h.mopLen(m), 0);
      if (len == 0 || unreadAppend(x, b)) return true;
      int last = h.listElem(m, len - 1);
      for (int r : reads.get(x)) {
        boolean seenLast = false;
        for (int j = 0; j < Math.max(h.mopLen(r), 0); j++) {
          int e = h.listElem(r, j);
          if (e == last) seenLast = true;
          else if (seenLast && writer(x, e) == b) return true;
        }
      }
      return false;
    }
  }
}
