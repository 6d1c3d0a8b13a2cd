package isocheck.history;

/**
 * Bad input: a history we cannot check. The message is one line that names the op
 * (its position in the history, its :index and, for files, its line) and what was
 * expected. Never a wrong verdict: callers turn this into exit status 3 or an error map.
 */
public final class HistoryException extends RuntimeException {
  /** Position of the offending op in the history (0-based), or -1 when not about one op. */
  public final long ordinal;

  public HistoryException(long ordinal, String message) {
    super(message);
    this.ordinal = ordinal;
  }

  public HistoryException(String message) { this(-1, message); }
}
