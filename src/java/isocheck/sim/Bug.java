package isocheck.sim;

import static isocheck.sim.Levels.*;

import java.util.EnumSet;
import java.util.Set;

/**
 * Bugs the simulator can inject into a store. Each is a deviation from the store's semantics
 * that, once it "fires" (the deviation happened and the transactions that make it observable
 * completed {@code :ok}), violates exactly the levels in {@link #breaks()} and keeps those in
 * {@link #keeps()} (intersected with what the store guarantees). The anomaly names are those of
 * Cerone et al. and Biswas–Enea (long fork, causality violation, fractured read, lost update) and
 * Adya (G1a aborted read, G1b intermediate read), as tabulated in MTC Table I.
 */
public enum Bug {
  /** SI skips first-committer-wins for a transaction that read a key, stale, and then wrote it
   *  after another transaction read the same version and wrote it too. */
  LOST_UPDATE(EnumSet.of(Store.SNAPSHOT_ISOLATION), SER_AND_SI, Levels.of(TCC, RA, RC, CI)),
  /** Two concurrent, independent commits c1 (writes x) and c2 (writes y); one reader sees c1 but
   *  not c2, another sees c2 but not c1. */
  LONG_FORK(EnumSet.of(Store.SNAPSHOT_ISOLATION), SER_AND_SI, Levels.of(TCC, RA, RC, CI)),
  /** T1 writes x; T2 reads x from T1 and writes y; T3 reads y from T2 but x from before T1. */
  CAUSALITY_VIOLATION(EnumSet.of(Store.SNAPSHOT_ISOLATION), Levels.union(SER_AND_SI, Levels.of(TCC)),
      Levels.of(RA, RC, CI)),
  /** A reader sees one key of a committed multi-key transaction but not another key it wrote. */
  FRACTURED_READ(EnumSet.of(Store.SNAPSHOT_ISOLATION), Levels.union(SER_AND_SI, Levels.of(TCC, RA)),
      Levels.of(RC, CI)),
  /** A write of a transaction reported {@code :fail} becomes visible (Adya G1a). Cut isolation
   *  (Plume Def. 3) only forbids non-repeatable reads, so it survives. */
  ABORTED_READ(EnumSet.allOf(Store.class), Levels.minus(Levels.of(ALL.toArray(new String[0])), Levels.of(CI)), Levels.of(CI)),
  /** A transaction writes a key twice and a reader sees the state after the first write only (G1b);
   *  like an aborted read, it does not break cut isolation. */
  INTERMEDIATE_READ(EnumSet.allOf(Store.class), Levels.minus(Levels.of(ALL.toArray(new String[0])), Levels.of(CI)), Levels.of(CI)),
  /** A strictly serializable store lets a read-only transaction read a consistent prefix older than
   *  a commit that completed before the reader was invoked (never older than its session's past). */
  STALE_REALTIME_READ(EnumSet.of(Store.STRICT_SERIALIZABLE),
      Levels.of(STRICT_SERIALIZABLE, STRONG_SNAPSHOT_ISOLATION),
      Levels.minus(Levels.of(ALL.toArray(new String[0])), Levels.of(STRICT_SERIALIZABLE, STRONG_SNAPSHOT_ISOLATION)));

  private final Set<Store> stores;
  private final Set<String> breaks, keeps;

  Bug(Set<Store> stores, Set<String> breaks, Set<String> keeps) {
    this.stores = stores;
    this.breaks = breaks;
    this.keeps = keeps;
  }

  /** The stores this bug can be attached to. */
  public Set<Store> stores() { return EnumSet.copyOf(stores); }
  /** Levels every history violates once the bug fired. */
  public Set<String> breaks() { return breaks; }
  /** Levels the bug never breaks (still subject to what the store guarantees). */
  public Set<String> keeps() { return keeps; }
}
