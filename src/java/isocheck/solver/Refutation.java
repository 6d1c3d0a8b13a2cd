package isocheck.solver;

import java.util.Collections;
import java.util.List;

/**
 * Why an {@link AcyclicitySolver} is unsatisfiable without assumptions: the literals that hold
 * at the root (decision level 0), each derived from earlier ones by a clause or by a cycle, and
 * finally a conflict. It is the trail of the root level, restricted to what the final conflict
 * needs (the implication graph of MiniSat §4.3, read at level 0).
 *
 * <p>A {@link Reason#CYCLE} step says: literal {@code lit} is forced, because the edge its
 * negation would add closes {@code cycle} with edges that are known or already forced. The
 * final step ({@code lit == 0}) is either a clause all of whose literals are false or a cycle
 * made only of known and forced edges: a cycle present in every graph the constraints allow.
 *
 * <p>A {@link Reason#LEARNT} step rests on a clause learnt during search; its own derivation is
 * not kept (it may need case splits). {@link #selfContained} tells whether any occurs. Learnt
 * clauses are sound consequences, so the refutation is valid either way, but for an
 * explanation in terms of the caller's constraints only self-contained ones read fully.
 */
public final class Refutation {
  public enum Reason {
    /** A clause the caller added (for a unit clause, {@code clause} is that literal). */
    CLAUSE,
    /** A clause learnt during search. */
    LEARNT,
    /** The acyclicity theory: {@code cycle} is the cycle that rules out the opposite. */
    CYCLE
  }

  /** One derived literal (DIMACS), or the final conflict when {@code lit == 0}. */
  public static final class Step {
    public final int lit;
    public final Reason reason;
    /** The clause used, DIMACS literals; for CYCLE, the clause the cycle stands for. */
    public final int[] clause;
    /** For CYCLE, the cycle; otherwise null. */
    public final EdgeCycle cycle;

    Step(int lit, Reason reason, int[] clause, EdgeCycle cycle) {
      this.lit = lit;
      this.reason = reason;
      this.clause = clause;
      this.cycle = cycle;
    }

    @Override
    public String toString() {
      String what = lit == 0 ? "conflict" : Integer.toString(lit);
      return what + " by " + reason + " " + java.util.Arrays.toString(clause) + (cycle == null ? "" : " cycle " + cycle);
    }
  }

  public final List<Step> steps;

  Refutation(List<Step> steps) { this.steps = Collections.unmodifiableList(steps); }

  /** The final conflict (the last step). */
  public Step conflict() { return steps.get(steps.size() - 1); }

  /** The final conflict's cycle when the theory raised it, else null. */
  public EdgeCycle finalCycle() { return conflict().cycle; }

  /** Whether no step rests on a learnt clause. */
  public boolean selfContained() {
    for (Step s : steps) if (s.reason == Reason.LEARNT) return false;
    return true;
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder();
    for (Step s : steps) sb.append(s).append('\n');
    return sb.toString();
  }
}
