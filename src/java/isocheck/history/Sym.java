package isocheck.history;

/** An EDN symbol (e.g. the {@code ...} that marks an unknown prefix in an expected list). */
public record Sym(String name) {
  @Override public String toString() { return name; }
}
