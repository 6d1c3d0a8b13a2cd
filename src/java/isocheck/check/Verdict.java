package isocheck.check;

import java.util.List;

/** The verdict on one level: holds, violated (with the anomaly types that show it), or unknown (with the reason). */
public final class Verdict {
  public enum Value { TRUE, FALSE, UNKNOWN }

  public final Value value;
  /** Why the answer is unknown (null otherwise). */
  public final String reason;
  /** Anomaly types found that rule this level out. */
  public final List<String> anomalyTypes;
  /**
   * When the level holds: the order that shows it, the result's {@code :certificates}
   * (serializable and snapshot-isolation levels), or null when none was kept.
   */
  public Witness witness;
  /**
   * When the level is violated and its counterexamples rest on write orders the search chose: a
   * proof that every version order closes a cycle the level forbids (the result's
   * {@code :refutations}, isocheck.check.si.ConstraintProof), or null.
   */
  public java.util.Map<String, Object> refutation;

  public Verdict(Value value, String reason, List<String> anomalyTypes) {
    this.value = value;
    this.reason = reason;
    this.anomalyTypes = anomalyTypes;
  }

  @Override public String toString() { return value + (reason == null ? "" : " (" + reason + ")") + anomalyTypes; }
}
