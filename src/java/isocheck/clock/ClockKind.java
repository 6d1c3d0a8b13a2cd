package isocheck.clock;

/**
 * Picks a {@link Clocks} implementation by name ("vector" or "tree"), and holds the argument
 * checks both implementations share.
 */
public final class ClockKind {
  private ClockKind() {}

  /** The most elements the JVM allocates in one array (a few below Integer.MAX_VALUE). */
  static final int MAX_ENTRIES = Integer.MAX_VALUE - 8;

  /** The valid names for {@link #ofKind}. */
  public static final String[] NAMES = {"vector", "tree"};

  /** Empty clocks of the named kind for nodes × sessions: {@link VectorClocks} or {@link TreeClocks}. */
  public static Clocks ofKind(String kind, int nodes, int sessions) {
    if ("vector".equals(kind)) return new VectorClocks(nodes, sessions);
    if ("tree".equals(kind)) return new TreeClocks(nodes, sessions);
    throw new IllegalArgumentException("unknown clock kind " + (kind == null ? "null" : "\"" + kind + "\"")
        + "; valid kinds: " + String.join(", ", NAMES));
  }

  /**
   * nodes × sessions × width (ints an entry) as an array length; says which numbers are too large
   * when it cannot be one.
   */
  static int entries(String kind, int nodes, int sessions, int width) {
    if (nodes < 0 || sessions < 0) {
      throw new IllegalArgumentException(kind + " clocks: nodes (" + nodes + ") and sessions ("
          + sessions + ") must not be negative");
    }
    long e = (long) nodes * sessions;
    if (e * width > MAX_ENTRIES) {
      throw new IllegalArgumentException(kind + " clocks: " + nodes + " nodes × " + sessions
          + " sessions = " + e + " entries" + (width > 1 ? " of " + width + " ints" : "")
          + ", more than one Java int array holds (" + MAX_ENTRIES + ")");
    }
    return (int) (e * width);
  }

  /** Rejects a session outside 0..k-1 or a position below 1 in start(t, s, index). */
  static void checkStart(int t, int s, int index, int k) {
    if (s < 0 || s >= k) {
      throw new IllegalArgumentException("start(" + t + ", " + s + ", " + index + "): session " + s
          + " outside 0.." + (k - 1));
    }
    if (index < 1) {
      throw new IllegalArgumentException("start(" + t + ", " + s + ", " + index + "): position "
          + index + " < 1 (positions are 1-based)");
    }
  }
}
