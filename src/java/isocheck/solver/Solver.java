package isocheck.solver;

/**
 * A propositional solver with an incremental interface, in the style of MiniSat (Eén &amp;
 * Sörensson, "An Extensible SAT-solver", SAT 2003, §2 "The interface"). This is the seam the
 * checker talks to: the CDCL(T) engine of this package ({@link CdclSolver}, and
 * {@link AcyclicitySolver} with the graph theory) implements it, and a test-only back end may
 * sit behind it too.
 *
 * <p>Literals are DIMACS-style ints: variables are 1, 2, 3, …; {@code v} is the positive
 * literal of variable {@code v} and {@code -v} its negation. Clauses and variables may be
 * added between calls to {@link #solve}; learnt clauses are kept across calls.
 *
 * <pre>
 *   Solver s = new CdclSolver();
 *   int a = s.newVar(), b = s.newVar();
 *   s.addClause(a, b);  s.addClause(-a, b);
 *   s.solve()           // SAT, s.modelValue(b) == true
 *   s.solve(-b)         // UNSAT under the assumption ¬b; s.core() == {-b}
 *   s.solve()           // SAT again: assumptions do not stay
 * </pre>
 */
public interface Solver {
  /** A fresh variable; variables are numbered 1, 2, 3, … in creation order. */
  int newVar();

  /** The number of variables created. */
  int nVars();

  /**
   * Adds the clause l1 ∨ l2 ∨ …. Returns false when the solver is already known to be
   * unsatisfiable (without assumptions); every later {@link #solve} answers UNSAT.
   */
  boolean addClause(int... lits);

  /**
   * Decides the clauses (and the theory, if any) under the assumed literals, which hold for
   * this call only. UNKNOWN when a budget ran out.
   */
  Status solve(int... assumptions);

  /** After SAT: whether literal {@code lit} is true in the model. */
  boolean modelValue(int lit);

  /**
   * After UNSAT: a subset of the assumptions that is already unsatisfiable with the clauses
   * (MiniSat's analyzeFinal), as the assumed literals; empty when the clauses alone are
   * unsatisfiable.
   */
  int[] core();

  /** Counters since the solver was created. */
  SolverStats stats();

  /** Stop each {@link #solve} after this many conflicts (UNKNOWN); negative: no limit. */
  void setConflictBudget(long conflicts);

  /** Stop each {@link #solve} after this many milliseconds (UNKNOWN); negative: no limit. */
  void setTimeBudget(long millis);

  /** Asks a running {@link #solve} (from another thread) to stop and answer UNKNOWN. */
  void interrupt();
}
