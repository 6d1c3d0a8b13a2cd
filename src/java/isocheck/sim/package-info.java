/**
 * Simulated transactional key-value stores with known guarantees, emitting Jepsen histories:
 * the ground truth the checkers are tested and benchmarked against (DESIGN.md, "Ground truth").
 *
 * <pre>
 * SimConfig c = SimConfig.builder().seed(1).txns(10_000).store(Store.SNAPSHOT_ISOLATION)
 *     .bug(Bug.FRACTURED_READ).build();
 * SimHistory h = Simulator.history(c);   // a built History and a SimResult
 * h.result().mustSatisfy();              // [rc, ci]
 * h.result().mustViolate();              // [strict-serializable, ..., tcc, ra] if the bug fired
 * Simulator.run(c, sink);                // stream the ops instead (benchmarks: 10^6 txns in about a second)
 * </pre>
 *
 * <p>The pieces: {@link isocheck.sim.SimConfig} (workload, store, bug, seed), {@link
 * isocheck.sim.Store} (what each store does and guarantees), {@link isocheck.sim.Bug} (what each
 * injected bug breaks and keeps), {@link isocheck.sim.Simulator} (entry points) and {@link
 * isocheck.sim.SimResult}. Internally {@code Engine} interleaves sessions and implements the
 * stores, {@code BugScenario} the bugs, {@code KeyState} a key's committed versions.
 *
 * <p>Conventions the level claims rely on, all shared with the checkers (DESIGN.md):
 * <ul>
 * <li>{@code :fail} never committed, {@code :info} and pending maybe committed; an {@code :info}
 *     process is retired. A transaction commits, if at all, between its invocation and its
 *     completion.
 * <li>A list read returns the whole list at one version; its reads-from is the writer of its last
 *     element; a read after the reader's own appends shows the state they are installed on.
 * <li>Level names carry their orders (see {@link isocheck.sim.Levels}). An aborted or
 *     intermediate read is taken to violate every level, cut isolation included (a history with
 *     G1a or G1b is rejected before any level is checked). In Plume's axioms alone CI only
 *     forbids non-repeatable reads; a checker that follows them literally would accept such
 *     histories at CI.
 * <li>A firing counts only when the history alone proves the violation: for rw-register, where
 *     the version order is hidden, the scenarios use writers that read the previous version
 *     (reads-from then orders the two) or keys with no earlier version.
 * </ul>
 */
package isocheck.sim;
