package isocheck.solver;

import java.util.LinkedHashMap;
import java.util.Map;

/** A snapshot of a solver's counters, cumulative over all its {@code solve} calls. */
public final class SolverStats {
  public final long solves;
  public final long decisions;
  /** Literals taken off the trail by unit propagation (MiniSat's count). */
  public final long propagations;
  public final long conflicts;
  /** Learnt clauses created (kept or later deleted). */
  public final long learnts;
  /** Learnt clauses deleted by reductions. */
  public final long deleted;
  public final long restarts;
  public final long reductions;
  /** Conflicts raised by the theory (a cycle), a subset of {@link #conflicts}. */
  public final long theoryConflicts;
  /** Literals the theory set false because their edge would close a cycle. */
  public final long theoryPropagations;
  /** Edges inserted into the incremental order, and how many of those needed a reorder. */
  public final long edgeInsertions;
  public final long reorders;
  /** Wall time spent in {@code solve}, nanoseconds. */
  public final long solveNanos;

  public SolverStats(long solves, long decisions, long propagations, long conflicts, long learnts,
                     long deleted, long restarts, long reductions, long theoryConflicts,
                     long theoryPropagations, long edgeInsertions, long reorders, long solveNanos) {
    this.solves = solves;
    this.decisions = decisions;
    this.propagations = propagations;
    this.conflicts = conflicts;
    this.learnts = learnts;
    this.deleted = deleted;
    this.restarts = restarts;
    this.reductions = reductions;
    this.theoryConflicts = theoryConflicts;
    this.theoryPropagations = theoryPropagations;
    this.edgeInsertions = edgeInsertions;
    this.reorders = reorders;
    this.solveNanos = solveNanos;
  }

  /** The counters by name (keys as in {@link #toString}), for the Clojure side. */
  public Map<String, Long> toMap() {
    Map<String, Long> m = new LinkedHashMap<>();
    m.put("solves", solves);
    m.put("decisions", decisions);
    m.put("propagations", propagations);
    m.put("conflicts", conflicts);
    m.put("learnts", learnts);
    m.put("deleted", deleted);
    m.put("restarts", restarts);
    m.put("reductions", reductions);
    m.put("theory-conflicts", theoryConflicts);
    m.put("theory-propagations", theoryPropagations);
    m.put("edge-insertions", edgeInsertions);
    m.put("reorders", reorders);
    m.put("solve-ms", solveNanos / 1_000_000);
    return m;
  }

  @Override
  public String toString() { return toMap().toString(); }
}
