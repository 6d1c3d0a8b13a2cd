package isocheck.history;

/** Jepsen op types, as small ints for dense arrays. */
public final class OpType {
  private OpType() {}
  public static final int INVOKE = 0, OK = 1, FAIL = 2, INFO = 3;

  /** Parses :invoke/:ok/:fail/:info (keyword or string); -1 if it is none of them. */
  public static int parse(Object o) {
    String n = Kw.nameOf(o);
    if (n == null) return -1;
    switch (n) {
      case "invoke": return INVOKE;
      case "ok": return OK;
      case "fail": return FAIL;
      case "info": return INFO;
      default: return -1;
    }
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
