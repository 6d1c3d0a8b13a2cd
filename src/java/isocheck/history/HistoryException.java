package isocheck.history;

/**
 * Bad input: a history we cannot check. The message is one line that names the op
 * (its position in the history, its :index and, for files, its line) and what was
 * expected. Never a wrong verdict: callers turn this into exit status 3 or an error map.
 */
public final class HistoryException extends RuntimeException {
  /** Position of the offending op in the history (0-based), or -1 when not about one op. */
  public final long ordinal;

  /** The message is kept to one line: control characters in it (quoted input, say) become \\uXXXX. */
  public HistoryException(long ordinal, String message) {
    super(oneLine(message));
    this.ordinal = ordinal;
  }

  /** {@code s} with every control character (and line or paragraph separator) written as \\uXXXX. */
  public static String oneLine(String s) {
    int i = 0, n = s.length();
    while (i < n && !control(s.charAt(i))) i++;
    if (i == n) return s;
    StringBuilder sb = new StringBuilder(n + 16).append(s, 0, i);
    for (; i < n; i++) {
      char c = s.charAt(i);
      if (control(c)) sb.append(String.format("\\u%04x", (int) c));
      else sb.append(c);
    }
    return sb.toString();
  }

  private static boolean control(char c) {
    return c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == 0x2028 || c == 0x2029;
  }

  public HistoryException(String message) { this(-1, message); }
}
