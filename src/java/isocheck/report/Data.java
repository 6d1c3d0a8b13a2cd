package isocheck.report;

import isocheck.history.History;
import isocheck.history.Kw;
import isocheck.history.OpRecord;
import isocheck.history.OpType;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns parts of a history back into plain data for result maps: ops as Jepsen-shaped maps
 * ({:index :type :process :f :value :time}, plus any keys of the user's own the op carried, such
 * as a database's transaction id), micro-ops as [f k v] vectors. Keywords are
 * {@link Kw}; the Clojure layer converts them.
 */
public final class Data {
  private Data() {}

  /** Transaction t as the op a user would find in the history (its completion, else its invocation). */
  public static Map<Object, Object> op(History h, int t) {
    Map<Object, Object> m = opWithoutValue(h, t, true);
    m.put("value", txn(h, t));
    return m;
  }

  /**
   * Transaction t's op as EDN for a reader: a long list read abbreviated ({@link
   * History#listStr(int, int)}), around the anomaly's position when it reads the anomaly's key
   * (data "key" and "position", 1-based), else around its last element.
   */
  public static String opStr(History h, int t, Anomaly a) {
    String head = isocheck.history.Edn.str(opWithoutValue(h, t, false));
    StringBuilder sb = new StringBuilder(head.substring(0, head.length() - 1));
    String extras = extrasStr(h, t);
    if (!extras.isEmpty()) sb.append(", ").append(extras);
    sb.append(", :value [");
    for (int m = h.mopStart(t); m < h.mopEnd(t); m++) {
      if (m > h.mopStart(t)) sb.append(' ');
      sb.append(h.mopStr(m, focus(h, a, m)));
    }
    return sb.append("]}").toString();
  }

  /** The 0-based position an anomaly is about in micro-op m's list, or -1. */
  public static int focus(History h, Anomaly a, int m) {
    if (a == null || !(a.data.get("position") instanceof Long) || !a.data.containsKey("key")) return -1;
    Object k = a.data.get("key");
    if (k == null ? h.key(h.mopKey(m)) != null : !k.equals(h.key(h.mopKey(m)))) return -1;
    return (int) ((Long) a.data.get("position") - 1);
  }

  private static Map<Object, Object> opWithoutValue(History h, int t, boolean extras) {
    LinkedHashMap<Object, Object> m = new LinkedHashMap<>();
    boolean completed = h.completeOrdinal(t) >= 0;
    long idx = completed ? h.completeIndex(t) : h.invokeIndex(t);
    m.put("index", idx != OpRecord.ABSENT ? idx : h.displayIndex(t));
    long time = completed ? h.completeTime(t) : h.invokeTime(t);
    if (time != OpRecord.ABSENT) m.put("time", time);
    m.put("type", new Kw(completed ? OpType.name(h.status(t)) : "invoke"));
    m.put("process", h.process(t));
    m.put("f", Kw.TXN);
    Object[] x = extras ? h.extras(t) : NONE;
    for (int i = 0; i < x.length; i += 2) {
      Object k = extraKey(x[i]);
      if (!m.containsKey(k)) m.put(k, x[i + 1]);
    }
    return m;
  }

  private static final Object[] NONE = {};

  /** A key of the user's own as result data: a keyword by its name (as ours are), anything else as it is. */
  private static Object extraKey(Object k) {
    if (k instanceof Kw kw) return kw.name();
    return k != null && k.getClass().getName().equals("clojure.lang.Keyword") ? k.toString().substring(1) : k;
  }

  /**
   * The keys transaction t's ops carried of the user's own, rendered as EDN for a reader
   * ({@code :txn-id 812, :node "n3"}), long values shortened; "" when there are none.
   */
  public static String extrasStr(History h, int t) {
    Object[] x = h.extras(t);
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < x.length; i += 2) {
      if (i > 0) sb.append(", ");
      String k = isocheck.history.Edn.str(x[i]), v = isocheck.history.Edn.str(x[i + 1]);
      sb.append(k).append(' ').append(v.length() <= 80 ? v : v.substring(0, 76) + " ...");
    }
    return sb.toString();
  }

  public static List<Object> txn(History h, int t) {
    ArrayList<Object> l = new ArrayList<>();
    for (int m = h.mopStart(t); m < h.mopEnd(t); m++) l.add(mop(h, m));
    return l;
  }

  public static List<Object> mop(History h, int m) {
    ArrayList<Object> l = new ArrayList<>(3);
    byte k = h.mopKind(m);
    l.add(k == OpRecord.APPEND ? Kw.APPEND : k == OpRecord.WRITE ? Kw.W : Kw.R);
    l.add(h.key(h.mopKey(m)));
    if (k == OpRecord.READ && h.workload == History.Workload.APPEND) {
      l.add(h.isOk(h.mopTxn(m)) && !h.recordedNil(m) ? list(h, m, h.mopLen(m)) : null);
    } else {
      l.add(h.value(h.mopVal(m)));
    }
    return l;
  }

  /** The first len elements of list read m, as values. */
  public static List<Object> list(History h, int m, int len) {
    ArrayList<Object> l = new ArrayList<>(len);
    for (int j = 0; j < len; j++) l.add(h.value(h.listElem(m, j)));
    return l;
  }

  public static List<Object> ops(History h, int... ts) {
    ArrayList<Object> l = new ArrayList<>();
    for (int t : ts) l.add(op(h, t));
    return l;
  }
}
