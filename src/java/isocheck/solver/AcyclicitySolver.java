package isocheck.solver;

import java.util.ArrayList;
import java.util.List;

/**
 * SAT modulo graph acyclicity: a {@link CdclSolver} whose models must also make a graph
 * acyclic. The graph has nodes 0..n-1, a set of known edges that are always present, and
 * edges bound to literals: an edge bound to literal ℓ is present exactly when ℓ is true. This
 * is the constraint problem of a generalized polygraph (PolySI, Huang et al., PVLDB 2023,
 * Def. 9–12; Viper's BC-polygraph, Zhang et al., EuroSys 2023, §4), solved the way VeriStrong
 * (Cai et al., PVLDB 2026, §6) solves it: one CDCL(T) solver, one theory (see
 * {@link AcyclicityTheory}).
 *
 * <p>Encoding a PolySI constraint ⟨either, or⟩, each side a set of edges, of which exactly one
 * side must be in the graph:
 *
 * <pre>
 *   AcyclicitySolver s = new AcyclicitySolver(nTxns);
 *   for (known edge a→b) s.addKnownEdge(a, b);          // SO, WR, pruned WW/RW …
 *   int x = s.newVar();                                // x: "either", ¬x: "or"
 *   for (edge a→b in either) s.addEdge(x, a, b);
 *   for (edge a→b in or)     s.addEdge(-x, a, b);
 *   switch (s.solve()) {
 *     case SAT:   s.modelValue(x), s.modelEdges(), s.topologicalOrder()   // a compatible graph
 *     case UNSAT: s.refutation()   // forced sides, each with the cycle that forces it, then
 *                                  // a final cycle of known and forced edges
 *   }
 * </pre>
 *
 * One variable per constraint suffices: acyclicity is monotone, so "at least one side" would
 * do, and with x/¬x exactly one side is chosen, as Def. 12's compatible graphs require. Sides
 * may also be separate variables with clauses (Viper's XOR), and any clauses may be added.
 *
 * <p>To name the culprits of an UNSAT answer, give each constraint a selector literal s and
 * bind the sides to x ∧ s … or add the constraint's clauses under s, then
 * {@code solve(s1, s2, …)}: {@link #core()} is the subset of selectors that is already
 * unsatisfiable. Known edges never appear in a core; to question one, bind it to a selector
 * literal instead.
 *
 * <p>Options: {@link #setTopologicalPolarity} (default on: decisions follow the current
 * topological order, VeriStrong §6.3 Alg. 3) and {@link #setTheoryPropagation} (default on).
 * Edges and clauses may be added between calls to {@link #solve}.
 */
public final class AcyclicitySolver extends CdclSolver {
  private final AcyclicityTheory th;

  public AcyclicitySolver(int nodes) {
    this(new AcyclicityTheory(nodes));
  }

  private AcyclicitySolver(AcyclicityTheory th) {
    super(th);
    this.th = th;
    th.attach(this);
  }

  /** The number of nodes. */
  public int nodes() { return th.g.nodes(); }

  /** Adds a node; returns its id (the previous {@link #nodes()}). */
  public int addNode() { return th.addNode(); }

  /**
   * An edge that is always present. Returns false when it closes a cycle with known edges and
   * edges already forced (the solver is then UNSAT for good, see {@link #refutation()}).
   */
  public boolean addKnownEdge(int from, int to) {
    checkNode(from);
    checkNode(to);
    if (!okay()) return false;
    return th.addKnown(from, to);
  }

  /** Puts edge from→to in the graph whenever {@code lit} (DIMACS) is true. */
  public boolean addEdge(int lit, int from, int to) {
    checkNode(from);
    checkNode(to);
    if (lit == 0 || Math.abs(lit) > nVars()) throw new IllegalArgumentException("no variable " + Math.abs(lit));
    if (!okay()) return false;
    return th.bind(internal(lit), from, to);
  }

  /** A fresh variable whose truth puts edge from→to in the graph. */
  public int edgeVar(int from, int to) {
    int v = newVar();
    addEdge(v, from, to);
    return v;
  }

  private void checkNode(int v) {
    if (v < 0 || v >= th.g.nodes()) throw new IllegalArgumentException("no node " + v);
  }

  /**
   * Where the first topological order places each node among those the known edges leave
   * ready (smaller first, ties by node id; each rank below 2^31), or null for node id alone;
   * before the first {@link #solve}. With the topological polarity the decisions follow that
   * order: a caller whose node ids do not follow the history's time (a file listed session by
   * session) gives an estimate of it.
   */
  public void setNodeRanks(long[] rank) {
    if (rank != null && rank.length != th.g.nodes()) throw new IllegalArgumentException("a rank per node");
    th.rank = rank;
  }

  /** Decisions take their polarity from the topological order (true) or the saved phase. */
  public void setTopologicalPolarity(boolean on) { th.topoPolarity = on; }

  /**
   * With the topological polarity: whether a variable one of whose literals keeps the order
   * (every edge forward) is set aside rather than decided, until nothing contested is left
   * (default off; see CdclSolver's lazy decisions). On SolverBench's polygraphs, whose node
   * ids are shuffled, 10 to over 80 times faster (32,000 transactions: 0.76 s against over
   * 60); on the checker's, whose ids follow completion order, up to 10 times slower (Viper's
   * BlindW-RW at 10^4, the solver alone: 3,861 conflicts and 2.3 s against 7 and 0.19 s): the
   * settled constraints' edges, decided first, are what steers the contested ones there.
   */
  public void setLazyDecisions(boolean on) { th.lazy = on; }

  /** Whether literals whose edge would close a cycle are set false eagerly (theory propagation). */
  public void setTheoryPropagation(boolean on) { th.propagateEdges = on; }

  /**
   * After SAT: the nodes in a topological order of the known edges plus the edges of the true
   * literals.
   */
  public int[] topologicalOrder() {
    if (th.modelOrder() == null || !lastWasSat()) throw new IllegalStateException("no model");
    return th.modelOrder().clone();
  }

  /** After SAT: the bound edges present in the model, flattened {@code [from0, to0, from1, to1, …]}. */
  public int[] modelEdges() {
    if (th.modelEdges() == null || !lastWasSat()) throw new IllegalStateException("no model");
    return th.modelEdges().clone();
  }

  private boolean lastWasSat() { return hasModel(); }

  /** The cycle of the most recent theory conflict (at any decision level), or null. */
  public EdgeCycle lastCycle() { return th.lastCycle(); }

  /**
   * After UNSAT without assumptions (or once {@link #okay()} is false): the derivation of the
   * root conflict, see {@link Refutation}. Null while the solver may still be satisfiable.
   */
  public Refutation refutation() {
    List<RawStep> raw = rootDerivation();
    if (raw == null) return null;
    List<Refutation.Step> steps = new ArrayList<>();
    for (int i = 0; i < raw.size(); i++) {
      RawStep r = raw.get(i);
      boolean last = i == raw.size() - 1;
      int[] clause = new int[r.clause.length];
      for (int j = 0; j < clause.length; j++) clause[j] = external(r.clause[j]);
      Refutation.Reason reason;
      EdgeCycle cycle = null;
      switch (r.kind) {
        case THEORY:
          reason = Refutation.Reason.CYCLE;
          cycle = last ? th.lastCycle() : th.cycleFor(r.lit);
          break;
        case LEARNT:
          reason = Refutation.Reason.LEARNT;
          break;
        default:
          reason = Refutation.Reason.CLAUSE;
      }
      steps.add(new Refutation.Step(last ? 0 : external(r.lit), reason, clause, cycle));
    }
    return new Refutation(steps);
  }

  /**
   * A cycle formed by the known edges and the edges bound to {@code lits} (DIMACS), or null
   * when they are acyclic. Independent of any solve: it is meant for explaining an UNSAT
   * answer by cases, e.g. for each choice of sides of the constraints in a core, the cycle
   * that choice closes.
   */
  public EdgeCycle cycleUnder(int... lits) {
    boolean[] on = new boolean[2 * nVars() + 2];
    for (int l : lits) {
      if (l == 0 || Math.abs(l) > nVars()) throw new IllegalArgumentException("no variable " + Math.abs(l));
      on[internal(l)] = true;
    }
    return th.cycleUnder(on);
  }

  /** The number of (literal, edge) bindings. */
  public int boundEdges() { return th.bindings(); }

  @Override
  long edgeInsertions() { return th.g.insertions(); }

  @Override
  long reorders() { return th.g.reorders(); }
}
