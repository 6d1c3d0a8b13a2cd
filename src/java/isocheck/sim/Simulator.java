package isocheck.sim;

import isocheck.history.History;
import isocheck.history.HistoryBuilder;
import isocheck.history.OpSink;
import java.util.List;

/**
 * A simulated transactional key-value store with known guarantees, driven by a Jepsen-style
 * workload, emitting Jepsen histories: ground truth for the checkers.
 *
 * <pre>
 * SimConfig c = SimConfig.builder().seed(1).store(Store.SNAPSHOT_ISOLATION).bug(Bug.LOST_UPDATE).build();
 * SimHistory h = Simulator.history(c);        // h.history() to check, h.result().mustViolate() ...
 * SimResult r = Simulator.run(c, op -&gt; {});  // stream only, e.g. for benchmarks
 *
 * // a client's transactions instead (e.g. a Jepsen-style generator's): main phase, then final reads
 * SimHistory d = Simulator.driveHistory(c, List.of(mainTxns, finalReads));
 * </pre>
 *
 * <p>Every transaction is an {@code :invoke} op (reads carry nil) followed later by its
 * completion on the same process: {@code :ok} with the reads filled in, or {@code :fail} /
 * {@code :info} repeating the invocation's micro-ops; {@code :index} is the op's position and
 * {@code :time} increasing fake nanoseconds. The stores are described in {@link Store}, the
 * interleaving in {@link Engine}, the bugs in {@link Bug} and {@link BugScenario}. The run is a
 * pure function of the configuration.
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
public final class Simulator {
  private Simulator() {}

  /** Streams the history of one run to sink (ending with {@link OpSink#end()}) and says what it must satisfy. */
  public static SimResult run(SimConfig config, OpSink sink) {
    return new Engine(config, sink).run();
  }

  /** Runs and builds the history in memory (for tests and demos; use {@link #run} for large runs). */
  public static SimHistory history(SimConfig config) {
    HistoryBuilder b = new HistoryBuilder();
    SimResult r = run(config, b);
    return new SimHistory(b.build(), r);
  }

  /**
   * Runs the store on a client's transactions instead of the simulator's own workload, as
   * Jepsen's interpreter runs a generator: {@code config.sessions} client threads, each taking the
   * next transaction whenever it is free, phase after phase (a phase starts once the previous
   * one's transactions have all completed, like {@code gen/phases}). Each transaction is a list of
   * micro-ops {@code [f k v]}: {@code [:r k nil]} and {@code [:append k v]} when
   * {@code config.workload} is list-append, {@code [:r k nil]} and {@code [:w k v]} when it is
   * rw-register, with integer keys (non-negative) and values (unique per key); see
   * {@link ClientTxns}. From the configuration this uses the seed, workload, store, sessions,
   * fail, info and pending rates, and the bug; the workload options (txns, ops per transaction,
   * keys, ...) are the client's business. Bug scenarios act during the first phase only, adding
   * transactions of their own that read the client's keys and write only keys of their own
   * (negative ids). The history streams to sink; the result says what it must satisfy and
   * violate, exactly as for {@link #run}.
   *
   * @throws IllegalArgumentException naming the phase, transaction and micro-op, on a
   *     transaction that is not of this form
   */
  public static SimResult drive(SimConfig config, List<? extends Iterable<? extends List<?>>> phases, OpSink sink) {
    return new Engine(config, sink, new ClientTxns(phases, config.workload == History.Workload.APPEND)).run();
  }

  /** {@link #drive} with the history built in memory. */
  public static SimHistory driveHistory(SimConfig config, List<? extends Iterable<? extends List<?>>> phases) {
    HistoryBuilder b = new HistoryBuilder(config.workload);
    SimResult r = drive(config, phases, b);
    return new SimHistory(b.build(), r);
  }
}
