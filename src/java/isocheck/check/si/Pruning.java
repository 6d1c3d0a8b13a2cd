package isocheck.check.si;

import isocheck.clock.ChainClocks;
import isocheck.graph.Digraph;
import isocheck.graph.EdgeList;
import isocheck.graph.Scc;
import java.util.ArrayDeque;
import java.util.Arrays;

/**
 * Pruning to a fixpoint (PolySI §4.3, Algorithm 1 lines 10–34; VeriStrong's "1-width cycles"):
 * with reachability over the known graph, a constraint side that has an edge u → v with v ⇝ u
 * (reflexively) would close a cycle, so it is discarded and the other side becomes known; both
 * sides discarded is a violation. Rounds repeat until one decides nothing, or too little to pay
 * for itself (the solver decides the rest: pruning only shrinks its problem). Reachability is
 * recomputed per round and may be stale within one, which is sound: the known graph only grows.
 *
 * <p>Reachability is answered by {@link ChainClocks} built over a topological order of the known
 * graph (chain-compressed, vector-clock style: memory grows with the graph's width, not with
 * n²), so it scales to the 10^5–10^6 transactions of a Jepsen run. A cycle in the known graph
 * itself is a violation too.
 *
 * <p>Every decision keeps its witness, the edge that closed a cycle: a violation is explained by
 * the cycles of both sides, and a known graph made cyclic by forced sides by its cycle.
 */
final class Pruning {
  enum Status { DECIDED, OPEN, VIOLATED }

  final LevelGraph g;
  /** Per constraint: the side known to hold (0 or 1), or -1 while open. */
  final int[] choice;
  /** Per constraint: the side edge (index) that ruled the other side out, or -1. */
  final int[] witness;
  Status status = Status.OPEN;
  /** When violated by a constraint: it, and for each side the side edge that closes a cycle. */
  int badConstraint = -1, badEdge0 = -1, badEdge1 = -1;
  /** The graph and components of the last round (for witnesses). */
  Digraph last;
  Scc lastScc;
  int rounds, decided;
  /** Whether pruning stopped because the known graph was too wide for its reachability clocks. */
  boolean tooWide;
  /** Told the constraints decided so far (the stage is the caller's). */
  isocheck.util.Progress progress = isocheck.util.Progress.NONE;

  Pruning(LevelGraph g) {
    this.g = g;
    int nc = g.p.constraints();
    choice = new int[nc];
    witness = new int[nc];
    Arrays.fill(choice, -1);
    Arrays.fill(witness, -1);
  }

  /** Only checks the known graph for a cycle, deciding no constraint (the solver then decides them all). */
  Pruning checkOnly() {
    if (last == null) last = unordered != null ? unordered.ordered() : graph();
    unordered = null;
    rounds = 1;
    lastScc = Scc.of(last, ~0);
    status = lastScc.hasCycle() ? Status.VIOLATED : choice.length == 0 ? Status.DECIDED : Status.OPEN;
    return this;
  }

  /**
   * As {@link #checkOnly} (the same status, and when violated the same counterexample), on the
   * graph as packed: Kahn's algorithm says whether it is acyclic ({@link Digraph#acyclic}), and
   * only a cyclic one is searched, for its first nontrivial component ({@link #firstCycle}).
   */
  Pruning checkPacked() {
    build();
    if (unordered == null) return checkOnly();
    if (!unordered.acyclic(~0)) return firstCycle();
    rounds = 1;
    status = choice.length == 0 ? Status.DECIDED : Status.OPEN;
    return this;
  }

  /**
   * As {@link #checkOnly}, when the caller's time order of {@link #build}'s graph failed, so that
   * it has a cycle: only the first nontrivial component the component search would number
   * ({@link Scc#firstCyclic}), with {@link #last} the out-edges of the nodes that search visited,
   * which is all the counterexample reads of them (the first cyclic component and a cycle in it,
   * the same as from the whole graph ordered). On the serializable store's Jepsen-shaped history
   * at 10^6, strict serializability's known cycle: about a seventh of the graph sorted and
   * searched instead of all of it.
   */
  Pruning firstCycle() {
    Scc.FirstCyclic f = unordered != null ? Scc.firstCyclic(unordered) : null;
    if (f == null) return checkOnly(); // (no cycle after all: the whole graph, as before)
    unordered = null;
    last = f.visited();
    lastScc = f.scc();
    rounds = 1;
    status = Status.VIOLATED;
    return this;
  }

  /**
   * As {@link #checkOnly}, when the caller has found a topological order of the known graph
   * ({@link #last}, built first): acyclic, so no component search.
   */
  Pruning acyclic() {
    rounds = 1;
    status = choice.length == 0 ? Status.DECIDED : Status.OPEN;
    return this;
  }

  /**
   * Builds the known graph with the decided sides, deciding nothing: unordered
   * ({@link Digraph#unordered}, {@link #known}), which is all the time order and the check of the
   * choice that follows it need; {@link #checkOnly} orders it if they fail. (Sorting and merging
   * the adjacencies was two thirds of the graph's cost.)
   */
  Pruning build() {
    unordered = decided == 0 ? Digraph.unordered(g.nodes, g.known) : null;
    if (unordered == null) last = graph();
    return this;
  }

  /** {@link #build}'s graph, unordered until {@link #checkOnly}; not for searches that follow edge order. */
  private Digraph unordered;

  /** The known graph, for passes whose outcome does not depend on edge order: {@link #build}'s, or the last round's. */
  Digraph known() { return last != null ? last : unordered; }

  /**
   * A round that decides fewer than this fraction of the constraints still open ends pruning:
   * each round costs a pass over the whole graph, and a chain of orders each forced by the one
   * before (pair i+1 only once pair i is known) would take one round per pair, quadratic in all,
   * where the solver's propagation follows the chain in one pass. (At 1/64, on the Jepsen-shaped
   * history of a serializable store, a fourth round decided under 1% of what was open and cost
   * about what the solver then took for all of it: 1/8 saves that round, 20% of the check.)
   */
  static final int MIN_YIELD = 8;

  /**
   * Runs rounds until one decides nothing (or fewer than 1/{@link #MIN_YIELD} of the constraints
   * still open), a violation shows, or the deadline (System.nanoTime) passes.
   *
   * <p>Incremental across rounds: each round's graph is the last round's with only those edges
   * of the sides it decided that its reachability did not already imply (u → v where u ⇝ v
   * adds neither a path nor a cycle), not the known graph rebuilt with every decided side. Those
   * are most of them: a side is decided because its other side closes a cycle, so it mostly
   * goes the way the graph already does. (On lein bench prune's proxy of VeriStrong's
   * yuga-G2-b, strong-session SI: the second round's graph has 0.2 million edges, where the
   * graph rebuilt whole had 5.0 million, 4.8 million of them implied, each packed, sorted,
   * searched and clocked every round.) The graph a round searches is then reduced, with
   * the same reachability and cycles as the full one; {@link #full} builds the full one (the
   * same rounds' sides), with its components, when a counterexample or a solver's refutation
   * needs its edges.
   */
  Pruning run(long deadline) {
    int nc = g.p.constraints();
    boolean stop = false;
    if (roundOf == null) roundOf = new int[nc];
    // The known graph and the sides decided so far that were not implied when decided.
    EdgeList reduced = null;
    Digraph d = null;
    Reach r = null;
    // (Tests compare it with the graph rebuilt whole each round, -Disocheck.prune.incremental=false.)
    boolean incremental = !"false".equals(System.getProperty("isocheck.prune.incremental"));
    while (true) {
      long t0 = System.nanoTime();
      if (d == null || !incremental) d = graph();
      else {
        if (reduced == null) {
          reduced = new EdgeList(g.known.size() + 1024);
          reduced.addAll(g.known);
          for (int c = 0; c < nc; c++) {
            if (choice[c] < 0 || roundOf[c] != 0) continue; // (decided before run)
            for (int e = g.p.sideFrom(c, choice[c]); e < g.p.sideTo(c, choice[c]); e++) reduced.add(g.sideSrc[e], g.sideDst[e], g.p.sideType[e]);
          }
        }
        for (int c = 0; c < nc; c++) {
          if (roundOf[c] != rounds) continue;
          int s = choice[c];
          for (int e = g.p.sideFrom(c, s); e < g.p.sideTo(c, s); e++) {
            int u = g.sideSrc[e], v = g.sideDst[e];
            if (!r.reaches(u, v)) reduced.add(u, v, g.p.sideType[e]);
          }
        }
        r = null;
        d = Digraph.of(g.nodes, reduced);
      }
      Scc scc = Scc.of(d, ~0);
      setLast(d, scc, incremental ? rounds : 0);
      if (scc.hasCycle()) {
        status = Status.VIOLATED;
        return this;
      }
      if (stop) {
        // The last round's orders are in the graph, which is still acyclic: the solver goes on
        // (or, every constraint decided, the level holds).
        status = decided == nc ? Status.DECIDED : Status.OPEN;
        return this;
      }
      rounds++;
      try {
        r = new Reach(d, scc);
      } catch (isocheck.clock.ChainClocks.TooWide e) {
        // Too wide for chain clocks within a budget linear in the graph (a plain level's known
        // graph, without session order, can be): pruning only shrinks the solver's problem, so
        // the solver decides what is open.
        tooWide = true;
        rounds--;
        status = Status.OPEN;
        return this;
      }
      long t1 = System.nanoTime();
      int before = decided;
      for (int c = 0; c < nc; c++) {
        if (choice[c] >= 0) continue;
        int e0 = closing(r, c, 0), e1 = closing(r, c, 1);
        if (e0 >= 0 && e1 >= 0) {
          status = Status.VIOLATED;
          badConstraint = c;
          badEdge0 = e0;
          badEdge1 = e1;
          return this;
        }
        if (e0 >= 0 || e1 >= 0) {
          choice[c] = e0 >= 0 ? 1 : 0;
          witness[c] = e0 >= 0 ? e0 : e1;
          roundOf[c] = rounds;
          decided++;
        }
        if ((c & 4095) == 4095) {
          progress.done(decided);
          if (System.nanoTime() > deadline) {
            // (A round at 10^6 constraints takes seconds: the limit holds within it; what it
            // decided so far stands, each side ruled out by a cycle.)
            status = Status.OPEN;
            return this;
          }
        }
      }
      progress.done(decided);
      long t2 = System.nanoTime();
      roundStats.add(new long[] {(t1 - t0) / 1_000_000L, (t2 - t1) / 1_000_000L, d.edgeCount(), decided - before});
      if (DEBUG) System.err.printf("prune round %d: graph, components, clocks %d ms (%,d edges, %d chains), sides %d ms: +%,d -> %,d of %,d%n", rounds, (t1 - t0) / 1_000_000L, d.edgeCount(), r.cc.chains(), (t2 - t1) / 1_000_000L, decided - before, decided, nc);
      if (decided == nc) {
        // Every constraint decided: the final graph must still be checked for a cycle.
        stop = true;
        continue;
      }
      if (decided == before || System.nanoTime() > deadline) {
        status = Status.OPEN;
        return this;
      }
      stop = (long) (decided - before) * MIN_YIELD < nc - before;
    }
  }

  private static final boolean DEBUG = Boolean.getBoolean("isocheck.prune.debug");

  /** Per round: ms building its graph, components and clocks; ms testing the sides; its graph's edges; constraints it decided. */
  final java.util.List<long[]> roundStats = new java.util.ArrayList<>();

  /**
   * Per constraint: the round {@link #run} decided it in (1 on), 0 if it did not. Null until
   * {@link #run}.
   */
  private int[] roundOf;
  /** Whether {@link #last} is a round's reduced graph (see {@link #run}), and of which rounds' sides. */
  private boolean reducedLast;
  private int lastRounds;

  private void setLast(Digraph d, Scc scc, int upToRound) {
    last = d;
    lastScc = scc;
    reducedLast = roundOf != null && upToRound > 0;
    lastRounds = upToRound;
  }

  /**
   * The known graph with the sides decided in the rounds {@link #last} covers, every edge of
   * each (for labels, paths and cycles: {@link #last} may be reduced to the same reachability),
   * and its components ({@link #lastScc}).
   */
  Digraph full() {
    if (reducedLast) {
      last = graph(lastRounds);
      lastScc = Scc.of(last, ~0);
      reducedLast = false;
    }
    return last;
  }

  /** {@link #full}'s components. */
  Scc fullScc() {
    full();
    return lastScc;
  }

  /** The first edge of constraint c's side s that closes a cycle with the graph, or -1. */
  private int closing(Reach r, int c, int s) {
    for (int e = g.p.sideFrom(c, s); e < g.p.sideTo(c, s); e++) {
      if (r.reaches(g.sideDst[e], g.sideSrc[e])) return e;
    }
    return -1;
  }

  /** The known graph with every decided side. */
  Digraph graph() { return graph(Integer.MAX_VALUE); }

  /** The known graph with the sides decided before {@link #run} or in its rounds up to this one. */
  private Digraph graph(int upToRound) {
    if (decided == 0) return Digraph.of(g.nodes, g.known);
    EdgeList es = new EdgeList(g.known.size() + 1024);
    for (int i = 0; i < g.known.size(); i++) es.add(g.known.src(i), g.known.dst(i), g.known.type(i));
    for (int c = 0; c < choice.length; c++) {
      if (choice[c] < 0 || (roundOf != null && roundOf[c] > upToRound)) continue;
      for (int e = g.p.sideFrom(c, choice[c]); e < g.p.sideTo(c, choice[c]); e++) es.add(g.sideSrc[e], g.sideDst[e], g.p.sideType[e]);
    }
    return Digraph.of(g.nodes, es);
  }

  /** A shortest path from a to b in d (node list, a first), or null. */
  static int[] path(Digraph d, int a, int b) {
    int[] prev = new int[d.n];
    Arrays.fill(prev, -2);
    ArrayDeque<Integer> q = new ArrayDeque<>();
    prev[a] = -1;
    q.add(a);
    while (!q.isEmpty()) {
      int v = q.poll();
      if (v == b) break;
      for (int e = d.start(v); e < d.end(v); e++) {
        int w = d.target(e);
        if (prev[w] != -2) continue;
        prev[w] = v;
        q.add(w);
      }
    }
    if (prev[b] == -2) return null;
    int len = 0;
    for (int v = b; v != -1; v = prev[v]) len++;
    int[] p = new int[len];
    for (int v = b, i = len - 1; v != -1; v = prev[v], i--) p[i] = v;
    return p;
  }

  /**
   * Reflexive reachability of an acyclic graph: chain clocks built in a topological order (Tarjan
   * numbers the components of the successor graph sinks first, so decreasing numbers are one).
   */
  static final class Reach {
    final ChainClocks cc;

    Reach(Digraph d, Scc scc) {
      int n = d.n;
      int[] order = new int[n];
      int[] cnt = new int[scc.count + 1];
      for (int v = 0; v < n; v++) cnt[scc.count - scc.comp[v]]++;
      for (int i = 0; i < scc.count; i++) cnt[i + 1] += cnt[i];
      for (int v = 0; v < n; v++) order[cnt[scc.count - 1 - scc.comp[v]]++] = v;
      // Predecessors, CSR.
      int[] ps = new int[n + 1];
      for (int v = 0; v < n; v++) for (int e = d.start(v); e < d.end(v); e++) ps[d.target(e) + 1]++;
      for (int v = 0; v < n; v++) ps[v + 1] += ps[v];
      int[] pred = new int[ps[n]], fill = Arrays.copyOf(ps, n);
      for (int v = 0; v < n; v++) for (int e = d.start(v); e < d.end(v); e++) pred[fill[d.target(e)]++] = v;
      cc = new ChainClocks(n, budget(n));
      for (int v : order) {
        int p0 = ps[v] < ps[v + 1] ? pred[ps[v]] : -1;
        cc.open(v, p0);
        for (int i = ps[v] + 1; i < ps[v + 1]; i++) if (!cc.knows(v, pred[i])) cc.join(v, pred[i]);
        if (d.end(v) == d.start(v)) cc.skip(v);
        else cc.place(v, p0, true);
      }
    }

    /** Whether a reaches b (a == b counts). */
    boolean reaches(int a, int b) {
      if (a == b) return true;
      int c = cc.chain(a);
      return c >= 0 && cc.get(b, c) >= cc.index(a);
    }

    /**
     * Ints the clocks may take: two blocks a node on average (and at most a sixth of the free
     * heap). A wider graph makes every node copy many blocks, and a round then costs more than
     * the solver takes to decide what pruning would.
     */
    private static long budget(int n) {
      Runtime rt = Runtime.getRuntime();
      long free = (rt.maxMemory() - (rt.totalMemory() - rt.freeMemory())) / 6;
      return Math.max(1 << 20, Math.min(free, 8L * ChainClocks.blockSize() * n + (1 << 20)));
    }
  }
}
