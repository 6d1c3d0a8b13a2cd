package isocheck.sim;

import java.util.Set;

/**
 * What a simulation run produced, besides its ops: the levels the history must satisfy and
 * those it must violate, with the counts behind them.
 *
 * <p>{@link #mustSatisfy} is what the store guarantees when the bug never acted, and otherwise
 * only the part of it the bug keeps. {@link #mustViolate} is the bug's broken levels when it
 * fired at least once (a firing is counted only when the deviation is observable in the
 * history: the transactions that witness it completed {@code :ok}), else empty. Levels in
 * neither set are not determined by the run.
 */
public final class SimResult {
  public final SimConfig config;
  public final Set<String> mustSatisfy;
  public final Set<String> mustViolate;
  /** Deviations from the store's semantics that the history makes observable. */
  public final int bugFirings;
  /** Deviations that happened at all (a firing whose witnesses crashed or failed counts here only). */
  public final int bugActions;
  /** Transactions invoked; of them completed :ok, :fail, :info, and left pending at the end. */
  public final int txns, ok, fail, info, pending;
  /** Ops emitted (invocations plus completions). */
  public final long ops;
  /** Distinct keys used. */
  public final long keysUsed;
  public final String description;

  SimResult(SimConfig config, Set<String> mustSatisfy, Set<String> mustViolate, int bugFirings,
            int bugActions, int txns, int ok, int fail, int info, int pending, long ops, long keysUsed) {
    this.config = config;
    this.mustSatisfy = mustSatisfy;
    this.mustViolate = mustViolate;
    this.bugFirings = bugFirings;
    this.bugActions = bugActions;
    this.txns = txns;
    this.ok = ok;
    this.fail = fail;
    this.info = info;
    this.pending = pending;
    this.ops = ops;
    this.keysUsed = keysUsed;
    StringBuilder sb = new StringBuilder();
    sb.append(config.store).append(" store, ")
        .append(config.workload == isocheck.history.History.Workload.APPEND ? "list-append" : "rw-register")
        .append(", ").append(config.sessions).append(" sessions, seed ").append(config.seed).append(": ")
        .append(txns).append(" txns (").append(ok).append(" ok, ").append(fail).append(" fail, ")
        .append(info).append(" info, ").append(pending).append(" pending), ").append(keysUsed).append(" keys");
    if (config.bug != null) {
      sb.append("; bug ").append(config.bug).append(" fired ").append(bugFirings)
          .append(bugFirings == 1 ? " time" : " times");
      if (bugActions != bugFirings) sb.append(" (acted ").append(bugActions).append(")");
    }
    sb.append("; must satisfy ").append(mustSatisfy).append(", must violate ").append(mustViolate);
    description = sb.toString();
  }

  @Override public String toString() { return description; }
}
