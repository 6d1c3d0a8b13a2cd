package isocheck.history;

/** Jepsen op types, as small ints for dense arrays. */
public final class OpType {
  private OpType() {}
  public static final int INVOKE = 0, OK = 1, FAIL = 2, INFO = 3;

  /** Parses :invoke/:ok/:fail/:info (keyword or string); -1 if it is none of them. */
  /**
   * The keyword objects last seen naming each type, indexed by it: a Clojure caller passes the
   * same interned :invoke, :ok, ... on every op, so an identity test answers before any name is
   * looked up. Racy but safe: a slot only ever holds an immutable object of its type.
   */
  private static final Object[] SEEN = {Kw.INVOKE, Kw.OK, Kw.FAIL, Kw.INFO};

  public static int parse(Object o) {
    Object[] seen = SEEN;
    for (int t = 0; t < seen.length; t++) if (seen[t] == o) return t;
    String n = Kw.nameOf(o);
    if (n == null) return -1;
    int t;
    switch (n) {
      case "invoke": t = INVOKE; break;
      case "ok": t = OK; break;
      case "fail": t = FAIL; break;
      case "info": t = INFO; break;
      default: return -1;
    }
    if (Kw.isInterned(o)) seen[t] = o;
    return t;
  }

  public static String name(int t) {
    switch (t) {
      case INVOKE: return "invoke";
      case OK: return "ok";
      case FAIL: return "fail";
      case INFO: return "info";
      default: return "?";
    }
  }
}
