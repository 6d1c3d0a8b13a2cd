package isocheck.history;

/**
 * A keyword (EDN {@code :foo}) as seen by the Java core, which knows no Clojure types.
 * The EDN reader produces these; the Clojure layer turns them into clojure.lang.Keyword
 * and back. {@link #toString()} prints the EDN form, like Clojure's keywords do.
 */
public record Kw(String name) {
  public static final Kw OK = new Kw("ok"), FAIL = new Kw("fail"), INFO = new Kw("info"),
      INVOKE = new Kw("invoke"), TXN = new Kw("txn"), R = new Kw("r"), APPEND = new Kw("append"),
      W = new Kw("w");

  @Override public String toString() { return ":" + name; }

  /** The name of a keyword-like object: our Kw, a Clojure keyword (":foo"), or a plain string. */
  public static String nameOf(Object o) {
    if (o instanceof Kw k) return k.name;
    if (o == null) return null;
    String s = o.toString();
    return s.startsWith(":") ? s.substring(1) : s;
  }
}
