package isocheck.graph;

/**
 * The begin/commit split of a dependency graph used to decide snapshot isolation (Viper Def. 2;
 * equivalently PolySI's induced graph Dep ∪ Dep;RW without its quadratic composition): each
 * transaction t becomes B(t) = 2t and C(t) = 2t+1 with B(t) → C(t); a dependency T → S (WW, WR,
 * SO, RT) becomes C(T) → B(S); an anti-dependency T → S becomes B(T) → C(S). A path that enters
 * a transaction through an anti-dependency arrives at its commit node and can only leave through
 * a dependency, so two adjacent anti-dependencies are never traversable, and the cycles of this
 * graph are exactly the dependency cycles without two adjacent RW edges: the SI violations.
 * Realtime relay nodes (ids ≥ nTxns in the txn graph) map to single nodes 2·nTxns + r.
 *
 * <p>Generalized snapshot isolation (Elnikety, Pedone, Zwaenepoel, SRDS'05: read rule D1, commit
 * rule D2; Viper §5, "GSI") may read any earlier snapshot, so realtime order constrains only
 * commits: with {@code rtToCommit} a realtime step a → b becomes C(a) → C(b) (through the
 * relays), never C(a) → B(b). This graph, for some version order, is acyclic exactly when an
 * execution exists in the sense of the brute-force oracles (test/java/isocheck/oracle: a sequence
 * of begin and commit events, each read returning the state its transaction's begin saw, two
 * writers of a key never overlapping, and C(a) before C(b) whenever a completed before b was
 * invoked). If the graph is acyclic, a topological order of its nodes is such an execution:
 * B(t) precedes C(t); a read's writer committed before the reader began (WR: C(w) → B(r)) and
 * the next version's writer after it (RW: B(r) → C(w')), so the begin sees that version; two
 * writers of a key are ordered commit before begin (WW: C(a) → B(b)), so they do not overlap;
 * and realtime edges put the commits in order. Conversely, given such an execution, order each
 * key's versions by commit: every edge then goes forward in the event sequence (WR and RW by
 * what the reads returned, WW by non-overlap, realtime by the constraint), so the sequence is a
 * topological order and the graph is acyclic. Strong SI's C(a) → B(b) is the same argument with
 * the begin constrained instead.
 */
public final class BcGraph {
  private BcGraph() {}

  public static int begin(int t) { return 2 * t; }
  public static int commit(int t) { return 2 * t + 1; }

  public static Digraph of(Digraph g, int nTxns) { return of(g, nTxns, false); }

  /** The begin/commit graph; realtime edges enter commit nodes when rtToCommit (GSI). */
  public static Digraph of(Digraph g, int nTxns, boolean rtToCommit) { return of(g, nTxns, rtToCommit, null); }

  /**
   * The begin/commit graph, with {@code txnGroups} (per node of g, or null) only the edges between
   * nodes of one group ≥ 0: all that {@link Scc#of(Digraph, int, int[])} with the lifted groups
   * ({@link #lift}) follows, built for the few nodes of a serializability graph's cyclic
   * components instead of every edge of the history (the nodes keep their numbers).
   */
  public static Digraph of(Digraph g, int nTxns, boolean rtToCommit, int[] txnGroups) {
    int nRelay = g.n - nTxns;
    int n = 2 * nTxns + nRelay;
    EdgeList es = new EdgeList();
    for (int t = 0; t < nTxns; t++) if (txnGroups == null || txnGroups[t] >= 0) es.add(begin(t), commit(t), Edge.INTRA);
    for (int a = 0; a < g.n; a++) {
      if (txnGroups != null && txnGroups[a] < 0) continue;
      for (int e = g.start(a); e < g.end(a); e++) {
        int b = g.target(e), m = g.mask(e);
        if (txnGroups != null && txnGroups[b] != txnGroups[a]) continue;
        int dep = m & Edge.DEP;
        int from = a < nTxns ? commit(a) : 2 * nTxns + (a - nTxns);
        if (rtToCommit && (dep & Edge.RT) != 0) {
          es.add(from, b < nTxns ? commit(b) : 2 * nTxns + (b - nTxns), Edge.RT);
          dep &= ~Edge.RT;
        }
        if (dep != 0) es.add(from, b < nTxns ? begin(b) : 2 * nTxns + (b - nTxns), dep);
        if ((m & Edge.RW) != 0 && a < nTxns && b < nTxns) es.add(begin(a), commit(b), Edge.RW);
      }
    }
    return Digraph.of(n, es);
  }

  /**
   * Groups of the transaction graph (per node: transactions, then relays) lifted to the
   * begin/commit graph of n nodes: each node gets its owner's ({@link Scc#of(Digraph, int, int[])}).
   * A cycle of the begin/commit graph maps to a closed walk over its owners along the same
   * dependencies, so with a serializability graph's cyclic components as groups (whose edges
   * include the SI graph's, less begin → commit), it lies within one of them.
   */
  public static int[] lift(int[] txnGroups, int nTxns, int n) {
    int[] g = new int[n];
    for (int v = 0; v < n; v++) g[v] = txnGroups[owner(v, nTxns)];
    return g;
  }

  /** The txn (or relay, as nTxns + r) a BC node belongs to. */
  public static int owner(int v, int nTxns) { return v < 2 * nTxns ? v >> 1 : nTxns + (v - 2 * nTxns); }

  /** Maps a BC cycle back to a cycle over transactions (and relays), dropping begin→commit steps. */
  public static Cycle toTxnCycle(Cycle c, int nTxns) {
    int k = c.nodes.length;
    // Start at a node that begins a step between two owners.
    java.util.ArrayList<Integer> ns = new java.util.ArrayList<>(), ls = new java.util.ArrayList<>();
    int start = 0;
    for (int i = 0; i < k; i++) if (c.labels[i] != Edge.INTRA) { start = i; break; }
    for (int j = 0; j < k; j++) {
      int i = (start + j) % k;
      if (c.labels[i] == Edge.INTRA) continue;
      ns.add(owner(c.nodes[i], nTxns));
      ls.add(c.labels[i]);
    }
    return new Cycle(ns.stream().mapToInt(Integer::intValue).toArray(), ls.stream().mapToInt(Integer::intValue).toArray());
  }
}
