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
 * <li>ww: list-append, some read's list shows T's append before S's; rw-register, a chain of
 *     read-modify-writes (each reads the previous one's value of the key, then writes it) leads
 *     from T to S; at a level with realtime order, also T and S write a common key and T
 *     completed before S was invoked (the level commits T first);
 * <li>rw: T read a version of a key that S overwrote, in a read before any write of its own to
 *     the key: list-append, T's list is empty and S appended to the key, or some read shows S's
 *     append after the last element T saw; rw-register, T read nil (the initial value) and S
 *     wrote the key, or a chain of read-modify-writes leads from the writer of the value T read
 *     to S (or, at a level with realtime order, that writer completed before S was invoked).
 * </ul>
 * Steps that rest on a write order the version-order search chose (pruning, the solver, or a
 * hypothetical order of never-read appends) have no such evidence: the refutation is then
 * reported as not certified, with the step.
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
      if (Boolean.TRUE.equals(s.get("hypothetical"))) {
        throw new Unproven(step(f, t, i, k, kind[i]) + " is an order of never-read appends under consideration, not a fact");
      }
    }
    Object last = ops.get(k) instanceof Map ? ((Map<?, ?>) ops.get(k)).get("index") : null;
    if (!(last instanceof Long) || f.h.displayIndex(t[0]) != (Long) last) throw new Unproven("its cycle does not close");
    for (int i = 0; i < k; i++) {
      if (!ev.committed(t[i])) throw new Unproven(f.name(t[i]) + " may not have committed (no :ok, and no write of it read)");
    }
    for (int i = 0; i < k; i++) {
      int a = t[i], b = t[(i + 1) % k];
      String why = justify(f, ev, a, b, kind[i], session, realtime);
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

  private static String step(Facts f, int[] t, int i, int k, String kind) {
    return "the step " + f.name(t[i]) + " → " + f.name(t[(i + 1) % k]) + " (" + kind + ")";
  }

  /** Null when the history shows a → b of this kind; else why not. */
  private static String justify(Facts f, Evidence ev, int a, int b, String kind, boolean session, boolean realtime) {
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
        return ev.versionBefore(a, b) || realtime && writesCommonKey(f, a, b) && f.realtimeBefore(a, b) ? null : "no read shows " + f.name(a) + "'s write of a key before " + f.name(b) + "'s";
      case "rw":
        if (!h.isOk(a)) return f.name(a) + " did not complete :ok, so its reads are unknown";
        for (int m = h.mopStart(a); m < h.mopEnd(a); m++) {
          if (f.isRead(m) && ev.overwrites(m, a, b, realtime)) return null;
        }
        return "no read of " + f.name(a) + " shows a version that the history orders before a write of " + f.name(b)
            + " (a write order the search chose)";
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

    /** List-append: some read of x shows an append of a before an append of b. */
    private boolean listOrder(int x, int a, int b) {
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
      if (len == 0) return true;
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
