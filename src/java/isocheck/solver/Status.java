package isocheck.solver;

/**
 * The answer of {@link Solver#solve}: SAT (a model exists; read it with
 * {@link Solver#modelValue}), UNSAT (no model under the given assumptions; see
 * {@link Solver#core}), or UNKNOWN (the conflict or time budget ran out, or the call was
 * interrupted: nothing is known).
 */
public enum Status {
  SAT,
  UNSAT,
  UNKNOWN
}
