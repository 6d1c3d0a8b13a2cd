package isocheck.history;

/**
 * Where producers of Jepsen ops send them, one record at a time, in history order.
 * Implementations must copy what they keep: the record is reused for the next op.
 */
public interface OpSink {
  /** Consumes one op. May throw {@link HistoryException} naming the op. */
  void op(OpRecord r);

  /** Called once after the last op. */
  default void end() {}

  /**
   * From a producer that knows them, or can estimate them (another tool's format, read whole
   * first, or a few megabytes into it): how many transactions, micro-ops, writes and elements
   * of list reads the whole history has, so that a consumer can size its arrays once. Before
   * the first op or later. A hint: nothing depends on it but memory.
   */
  default void sizeHint(long txns, long mops, long writes, long elems) {}
}
