package isocheck.verify;

import isocheck.history.History;
import isocheck.history.OpRecord;
import java.util.HashMap;
import java.util.List;

/**
 * What the history itself says, as a certificate's checks need it: transactions by the names
 * the result uses (T12: display index 12), their status, their reads and writes, and the
 * session and realtime facts. Reads only {@link History}'s accessors.
 */
final class Facts {
  final History h;
  final int n;
  final boolean append;
  private final HashMap<Long, Integer> byName = new HashMap<>();

  Facts(History h) {
    this.h = h;
    this.n = h.nTxns;
    this.append = h.workload == History.Workload.APPEND;
    for (int t = 0; t < n; t++) byName.put(h.displayIndex(t), t);
  }

  String name(int t) { return h.name(t); }

  /** The transaction a certificate names, or an exception naming what is wrong. */
  int txn(Object name) {
    if (!(name instanceof Long)) throw new Rejected("the certificate names a transaction by " + name + ", not by its index");
    Integer t = byName.get((Long) name);
    if (t == null) throw new Rejected("the certificate names T" + name + ", which is not a transaction of the history");
    return t;
  }

  boolean ok(int t) { return h.isOk(t); }

  /** Whether t is known to have aborted (:fail): it may not be in a certificate. */
  boolean failed(int t) { return !h.isOk(t) && h.status(t) == isocheck.history.OpType.FAIL; }

  /** Whether mop m reads. */
  boolean isRead(int m) { return h.mopKind(m) == OpRecord.READ; }

  /** Whether mop m writes (a register write, or a list append). */
  boolean isWrite(int m) { return h.mopKind(m) == OpRecord.WRITE || h.mopKind(m) == OpRecord.APPEND; }

  /** Realtime: a completed (ok) before b was invoked. */
  boolean realtimeBefore(int a, int b) {
    return h.isOk(a) && h.completeOrdinal(a) >= 0 && h.invokeOrdinal(b) >= 0 && h.completeOrdinal(a) < h.invokeOrdinal(b);
  }

  String value(int v) { return h.valueStr(v); }

  String key(int k) { return h.keyStr(k); }

  /** A list of value ids, shown. */
  String list(List<Integer> vs, int len) {
    StringBuilder b = new StringBuilder("[");
    for (int j = 0; j < len; j++) b.append(j == 0 ? "" : " ").append(value(vs.get(j)));
    return b.append(']').toString();
  }

  /** A certificate that does not check: the one-line reason, naming the transaction. */
  static final class Rejected extends RuntimeException {
    Rejected(String why) { super(why, null, false, false); }
  }

  /**
   * Session order: within each process, a transaction invoked earlier (its completion when it
   * has no invocation) must have pred[a] &lt; succ[b] for each later one b. Checks the txns given
   * (those the certificate holds); the first violation, or null.
   */
  String sessionViolation(int[] txns, int[] pred, int[] succ, String rule) {
    Integer[] ts = new Integer[txns.length];
    for (int i = 0; i < txns.length; i++) ts[i] = txns[i];
    java.util.Arrays.sort(ts, java.util.Comparator.comparingLong((Integer t) -> when(t)).thenComparingInt(t -> t));
    HashMap<Integer, Integer> maxPred = new HashMap<>(); // session -> the one of largest pred so far
    for (int b : ts) {
      int s = h.session(b);
      Integer a = maxPred.get(s);
      if (a != null && pred[a] > succ[b]) {
        return name(b) + " follows " + name(a) + " in process " + isocheck.history.Edn.str(h.process(b)) + ", but " + rule;
      }
      if (a == null || pred[b] > pred[a]) maxPred.put(s, b);
    }
    return null;
  }

  /** When t was invoked (its completion when it has no invocation): session order's key. */
  long when(int t) { return h.invokeOrdinal(t) >= 0 ? h.invokeOrdinal(t) : h.completeOrdinal(t); }

  /**
   * Realtime order: for each a that completed (ok) before b was invoked, pred[a] &lt; succ[b].
   * One sweep over the history's invocations and completions, keeping the completed
   * transaction of largest pred. The first violation, or null.
   */
  String realtimeViolation(int[] txns, int[] pred, int[] succ, String rule) {
    int m = txns.length;
    long[] ev = new long[2 * m];
    int k = 0;
    for (int t : txns) {
      // (ordinal, kind): a completion is 1, an invocation 0; ordinals are distinct op positions.
      if (h.isOk(t) && h.completeOrdinal(t) >= 0) ev[k++] = h.completeOrdinal(t) * 2 + 1;
      if (h.invokeOrdinal(t) >= 0) ev[k++] = h.invokeOrdinal(t) * 2;
    }
    // Sort the events with their transactions: pack (ordinal*2+kind) and look the txn up.
    HashMap<Long, Integer> owner = new HashMap<>();
    for (int t : txns) {
      if (h.isOk(t) && h.completeOrdinal(t) >= 0) owner.put(h.completeOrdinal(t) * 2 + 1, t);
      if (h.invokeOrdinal(t) >= 0) owner.put(h.invokeOrdinal(t) * 2, t);
    }
    long[] sorted = java.util.Arrays.copyOf(ev, k);
    java.util.Arrays.sort(sorted);
    int best = -1;
    for (long e : sorted) {
      int t = owner.get(e);
      if ((e & 1) == 1) {
        if (best < 0 || pred[t] > pred[best]) best = t;
      } else if (best >= 0 && pred[best] > succ[t]) {
        return name(best) + " completed before " + name(t) + " was invoked, but " + rule;
      }
    }
    return null;
  }
}
