package isocheck.sim;

import java.util.ArrayDeque;

/**
 * A client session (a Jepsen worker thread): one transaction at a time, run under process
 * {@link #process}, which is retired and replaced by process + concurrency after an
 * {@code :info}, as Jepsen does.
 *
 * <p>{@link #floor} over-approximates the session's causal past as a commit-order prefix: the
 * highest commit seq the session wrote or read at. Stale reads (the serializable store's
 * read-only transactions, bug scenarios) never read below it, which keeps process order.
 */
final class Session {
  final int idx;
  long process;
  Long processObj;
  int floor;
  final Txn txn;
  boolean inFlight, blocked, crashed;
  /** The bug scenario holding this session; it runs only the transactions queued for it. */
  BugScenario reservedBy;
  final ArrayDeque<Shape> queue = new ArrayDeque<>(2);
  int readyPos = -1;

  Session(int idx) {
    this.idx = idx;
    this.process = idx;
    this.processObj = (long) idx;
    this.txn = new Txn(this);
  }

  boolean idleAndFree() { return !inFlight && !crashed && reservedBy == null; }
}
