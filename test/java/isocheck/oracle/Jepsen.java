package isocheck.oracle;

import clojure.lang.IPersistentMap;
import clojure.lang.Keyword;
import clojure.lang.Named;
import clojure.lang.PersistentArrayMap;
import clojure.lang.PersistentVector;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Jepsen op maps as the oracles read them and the generators write them: the keywords, and the
 * pairing of invocations with completions into transactions. (Test code only; the checker has
 * its own reader.)
 */
final class Jepsen {
  private Jepsen() {}

  static final Keyword TYPE = Keyword.intern("type"), PROCESS = Keyword.intern("process"),
      F = Keyword.intern("f"), VALUE = Keyword.intern("value"), INDEX = Keyword.intern("index"),
      TXN = Keyword.intern("txn"), INVOKE = Keyword.intern("invoke"), OK_K = Keyword.intern("ok"),
      FAIL_K = Keyword.intern("fail"), INFO_K = Keyword.intern("info"), R = Keyword.intern("r"),
      W = Keyword.intern("w"), APPEND = Keyword.intern("append");

  /** Transaction statuses; INFO also for an invocation never completed. */
  static final int OK = 1, FAIL = 2, INFO = 3;

  /** A keyword's or symbol's name, else the string form (null stays null). */
  static String name(Object o) {
    if (o instanceof Named nm) return nm.getName();
    return o == null ? null : o.toString();
  }

  /** One transaction: an invocation and its completion, either of which may be missing. */
  static final class Pair {
    Object process;
    int status;
    /** Positions (0-based, over all ops) of the invocation and completion; -1 when absent. */
    long inv = -1, comp = -1;
    /** The :index of the completion, else of the invocation, else its position: for names. */
    long name = -1;
    /** The :value of the invocation and of the completion (null when absent). */
    List<?> invoked, completed;

    /** The micro-ops to read: the completion's when it has any, else the invocation's. */
    List<?> mops() {
      List<?> m = completed != null ? completed : invoked;
      return m == null ? List.of() : m;
    }
  }

  /**
   * The :txn ops of a history paired into transactions, in order of first appearance: an
   * invocation pairs with the next completion of its process; an invocation never completed is
   * INFO; a completion with no invocation stands alone. Ops whose :f is not :txn are skipped.
   *
   * @throws IllegalArgumentException for an unknown :type, a :value that is not a list, or a
   *     process invoking while its previous invocation is pending
   */
  static List<Pair> transactions(List<?> ops) {
    HashMap<Object, Pair> pending = new HashMap<>();
    List<Pair> out = new ArrayList<>();
    long ord = -1;
    for (Object x : ops) {
      ord++;
      if (!(x instanceof Map<?, ?> op)) throw new IllegalArgumentException("op " + ord + " is not a map");
      if (!"txn".equals(name(op.get(F)))) continue;
      String type = name(op.get(TYPE));
      Object proc = op.get(PROCESS);
      if (proc instanceof Integer i) proc = i.longValue();
      Object value = op.get(VALUE);
      if (value != null && !(value instanceof List<?>)) throw new IllegalArgumentException("op " + ord + ": :value is not a list");
      long name = op.get(INDEX) instanceof Number n ? n.longValue() : ord;
      if ("invoke".equals(type)) {
        if (pending.containsKey(proc)) throw new IllegalArgumentException("op " + ord + ": process " + proc + " busy");
        Pair p = new Pair();
        p.process = proc;
        p.status = INFO; // until completed
        p.inv = ord;
        p.name = name;
        p.invoked = (List<?>) value;
        pending.put(proc, p);
        out.add(p);
        continue;
      }
      int st = "ok".equals(type) ? OK : "fail".equals(type) ? FAIL : "info".equals(type) ? INFO : -1;
      if (st < 0) throw new IllegalArgumentException("op " + ord + ": bad :type " + type);
      Pair p = pending.remove(proc);
      if (p == null) {
        p = new Pair();
        p.process = proc;
        out.add(p);
      }
      p.status = st;
      p.comp = ord;
      p.name = name;
      p.completed = (List<?>) value;
    }
    return out;
  }

  /** A :txn op map. */
  static IPersistentMap op(long index, Keyword type, Object process, List<Object> mops) {
    return PersistentArrayMap.createAsIfByAssoc(new Object[] {
        INDEX, index, TYPE, type, PROCESS, process, F, TXN, VALUE, PersistentVector.create(mops)});
  }
}
