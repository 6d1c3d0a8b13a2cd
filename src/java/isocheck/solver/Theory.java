package isocheck.solver;

import isocheck.util.IntList;

/**
 * The theory half of CDCL(T) (Nieuwenhuis, Oliveras &amp; Tinelli, "Solving SAT and SAT Modulo
 * Theories", JACM 53(6), 2006, §3: DPLL(T) with an incremental, backtrackable theory solver).
 * The {@link CdclSolver} calls it after unit propagation reaches a fixpoint; it reads the new
 * trail literals, may set literals it implies ({@link CdclSolver#imply}) and may report a
 * conflict. Literals here are the solver's internal ones ({@code 2·var + sign}).
 */
interface Theory {
  /**
   * Takes in the trail literals it has not seen yet. On a conflict, fills {@code conflict}
   * with literals that are all false now (their disjunction is a valid clause: the negation of
   * a set of true literals the theory refutes) and returns false.
   */
  boolean propagate(IntList conflict);

  /** The solver undid its trail down to {@code trailSize} literals. */
  void backtrack(int trailSize);

  /**
   * The reason of a literal the theory implied: the implied literal first, then literals that
   * were false before it was implied.
   */
  int[] explain(int lit);

  /** The literal to decide for variable v, or 0 to let the solver choose (saved phase). */
  int decide(int var);

  /**
   * A literal of v that the theory's current state already satisfies, so that v need not be
   * decided until the end (the solver then decides it so, if the theory still says it), or 0.
   */
  default int settled(int var) { return 0; }

  /** The solver found a model and is about to undo its trail. */
  void onModel();

  /** Variable v was created. */
  void newVar(int var);
}
