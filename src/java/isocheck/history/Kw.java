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

  // Spelled out rather than the record's: those link an invokedynamic call site on first use
  // (java.lang.runtime.ObjectMethods), which the class data cannot hold, and which costs a
  // small history's check several ms of interpreted method-handle building. The same values.
  @Override public boolean equals(Object o) {
    return this == o || (o instanceof Kw other && java.util.Objects.equals(name, other.name));
  }

  @Override public int hashCode() { return java.util.Objects.hashCode(name); }

  /** The name of a keyword-like object: our Kw, a Clojure keyword (":foo"), or a plain string. */
  public static String nameOf(Object o) {
    if (o instanceof Kw k) return k.name;
    if (o == null) return null;
    if (o instanceof String s) return s.startsWith(":") ? s.substring(1) : s;
    // Another keyword-like object (a Clojure keyword, interned): its name from a small cache by
    // identity, since readers ask for the names of the same few (:ok, :txn, :r, :append) on every op.
    int h = System.identityHashCode(o) & (CACHE.length - 1);
    Named c = CACHE[h];
    if (c != null && c.o == o) return c.name;
    String s = o.toString();
    String n = s.startsWith(":") ? s.substring(1) : s;
    // Keywords only (immutable, interned); racy but safe: a Named is immutable, a stale slot only misses.
    if (isInterned(o)) CACHE[h] = new Named(o, n);
    return n;
  }

  /**
   * Whether o is a Clojure keyword: immutable and interned (one object per name), so that
   * what its name says can be remembered by its identity.
   */
  static boolean isInterned(Object o) {
    return o != null && o.getClass().getName().equals("clojure.lang.Keyword");
  }

  private record Named(Object o, String name) {}

  private static final Named[] CACHE = new Named[64];
}
