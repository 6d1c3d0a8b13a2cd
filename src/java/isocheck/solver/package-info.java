/**
 * SAT modulo graph acyclicity: the search behind the rw-register SI and SER levels, where the
 * version order is unknown (DESIGN.md decision 5; PolySI, PVLDB 2023; Viper, EuroSys 2023;
 * VeriStrong, PVLDB 2026).
 *
 * <h2>Classes</h2>
 *
 * <ul>
 * <li>{@link isocheck.solver.Solver}: the interface (MiniSat's): {@code newVar},
 *     {@code addClause}, {@code solve(assumptions…)} → {@link isocheck.solver.Status}
 *     SAT/UNSAT/UNKNOWN, {@code modelValue}, {@code core}, {@code stats}, budgets.
 *     DIMACS literals: variable v is {@code v}, its negation {@code -v}.
 * <li>{@link isocheck.solver.CdclSolver}: the CDCL engine (MiniSat-style, with a theory hook).
 * <li>{@link isocheck.solver.AcyclicitySolver}: CDCL plus the acyclicity theory. Nodes 0..n-1;
 *     {@code addKnownEdge(a, b)}; {@code addEdge(lit, a, b)} binds an edge to a literal (a
 *     literal may carry a set of edges, an edge may be bound to several literals, and negative
 *     literals may carry edges too); {@code edgeVar(a, b)}. After SAT:
 *     {@code modelEdges()}, {@code topologicalOrder()}. After UNSAT: {@code refutation()},
 *     {@code core()}, {@code lastCycle()}, and {@code cycleUnder(lits…)} for case analysis.
 * <li>{@link isocheck.solver.TopologicalOrder}: Pearce–Kelly's incremental topological order
 *     with LIFO edge removal and least-cost path search; usable on its own.
 * <li>{@link isocheck.solver.EdgeCycle}, {@link isocheck.solver.Refutation}: explanations.
 * <li>{@link isocheck.solver.SolverBench}: the benchmark program.
 * </ul>
 *
 * <h2>Encoding a generalized polygraph (PolySI Def. 9)</h2>
 *
 * One variable per constraint ⟨either, or⟩: bind every edge of {@code either} to x and every
 * edge of {@code or} to ¬x. SER uses transaction nodes (WW and RW edges on the sides); the SI
 * family uses Viper's begin/commit nodes ({@code isocheck.graph.BcGraph}: dependency edges
 * C(a)→B(b), anti-dependencies B(r)→C(w), known B(t)→C(t)), so the theory stays plain
 * acyclicity. Known edges: session order (session levels), write-read, realtime (strict
 * levels), T⊥ first, and every side that pruning decided.
 *
 * <h2>Explaining UNSAT</h2>
 *
 * <ol>
 * <li>{@code refutation()}: the root-level derivation. Each forced side comes with the cycle
 *     its opposite would close; the last step is a cycle made of known and forced edges, i.e.
 *     a cycle present in every compatible graph, when the search reached one. Steps marked
 *     {@code LEARNT} rest on a clause learnt by case analysis
 *     ({@link isocheck.solver.Refutation#selfContained()} is then false).
 * <li>When a refutation is not self-contained: give each constraint a selector (see
 *     {@link isocheck.solver.AcyclicitySolver}), solve under all selectors, and read
 *     {@code core()}: the constraints that are already contradictory. Then, for each choice of
 *     sides of those few constraints, {@code cycleUnder(sides…)} gives the cycle that choice
 *     closes: an explanation by cases.
 * </ol>
 *
 * <h2>Budgets</h2>
 *
 * {@code setConflictBudget}, {@code setTimeBudget}, {@code interrupt}: {@code solve} then
 * answers UNKNOWN (a verdict of {@code :unknown} with the reason) and the solver stays usable.
 */
package isocheck.solver;
