package isocheck.sim;

import static isocheck.sim.Levels.*;

import java.util.Set;

/**
 * The simulated stores and the levels each guarantees. The exact semantics live in
 * {@link Engine}; in short:
 *
 * <ul>
 * <li>{@link #STRICT_SERIALIZABLE}: every transaction runs atomically at one instant between its
 *     invocation and its completion (its completion step). All ten levels hold.
 * <li>{@link #SERIALIZABLE}: read-write transactions run atomically at the head of the serial
 *     order (at their completion step); a read-only transaction reads a consistent prefix of that
 *     order that may be stale, but never older than what its session already wrote or observed.
 *     That is strong-session serializability, not strict serializability: realtime may be
 *     violated, process order never is.
 * <li>{@link #SNAPSHOT_ISOLATION}: the snapshot is the latest committed state when the
 *     transaction takes its first step; reads see the snapshot plus the transaction's own writes;
 *     writes are buffered and installed at commit, first committer wins (a write to a key some
 *     other transaction committed after our snapshot aborts us with {@code :fail}). Strong SI (so
 *     strong-session SI, SI, TCC, RA, RC, CI) but not serializable: write skew happens.
 * <li>{@link #READ_COMMITTED}: every read sees the latest committed state at the step it runs, plus
 *     the transaction's own buffered writes; writes are installed atomically at commit and never
 *     checked for conflicts, so lost updates and non-repeatable reads happen. Writes take long
 *     write locks (as lock-based read committed does, Adya's PL-2), so a transaction that reads a
 *     key after appending to it sees the state its appends will be installed on; a deadlock aborts
 *     the transaction that would close the cycle. Guarantees {@code rc} only (Plume's read
 *     committed, which includes monotonic atomic view); not cut isolation.
 * </ul>
 */
public enum Store {
  STRICT_SERIALIZABLE(Levels.of(Levels.ALL.toArray(new String[0]))),
  SERIALIZABLE(Levels.of(STRONG_SESSION_SERIALIZABLE, Levels.SERIALIZABLE,
      STRONG_SESSION_SNAPSHOT_ISOLATION, Levels.SNAPSHOT_ISOLATION, TCC, RA, RC, CI)),
  SNAPSHOT_ISOLATION(Levels.of(STRONG_SNAPSHOT_ISOLATION, STRONG_SESSION_SNAPSHOT_ISOLATION,
      Levels.SNAPSHOT_ISOLATION, TCC, RA, RC, CI)),
  READ_COMMITTED(Levels.of(RC));

  private final Set<String> guarantees;

  Store(Set<String> guarantees) { this.guarantees = guarantees; }

  /** The levels every history of this store satisfies when no bug acted. */
  public Set<String> guarantees() { return guarantees; }
}
