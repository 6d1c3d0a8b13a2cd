package isocheck.history;

/** An EDN symbol (e.g. the {@code ...} that marks an unknown prefix in an expected list). */
public record Sym(String name) {
  @Override public String toString() { return name; }

  // Spelled out rather than the record's: those link an invokedynamic call site on first use
  // (java.lang.runtime.ObjectMethods), which the class data cannot hold, and which costs a
  // small history's check several ms of interpreted method-handle building. The same values.
  @Override public boolean equals(Object o) {
    return this == o || (o instanceof Sym other && java.util.Objects.equals(name, other.name));
  }

  @Override public int hashCode() { return java.util.Objects.hashCode(name); }
}
