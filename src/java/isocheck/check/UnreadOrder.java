package isocheck.check;

import isocheck.graph.BcGraph;
import isocheck.graph.Cycle;
import isocheck.graph.Digraph;
import isocheck.graph.Edge;
import isocheck.graph.EdgeList;
import isocheck.graph.Scc;
import java.util.ArrayDeque;
import java.util.Arrays;

/**
 * Snapshot isolation's last open question on list-append histories: appends that no read
 * observed. Each follows every observed version of its key, but the order among several such
 * appends to one key is unknown, and snapshot isolation forbids two committed writers of a key
 * from being concurrent (first committer wins): one must commit before the other begins. (Under
 * serializability the question does not arise: a topological order of the acyclic graph orders
 * them.) We look for a witness order on the begin/commit graph ({@link BcGraph}):
 *
 * <ol>
 * <li>Topologically sort the graph, emitting commit nodes as early as possible, and chain each
 *     key's unread writers by commit position (C(u1) → B(u2) → C(u2) → B(u3) …). Acyclic: SI holds.
 * <li>Otherwise, for each chain edge on a cycle, test both orders of that pair against the known
 *     graph (PolySI's pruning rule, §4.1): if an order closes a cycle, the other is forced; if both
 *     do, SI is violated, and the two cycles are the counterexample. Repeat with forced edges.
 * <li>If no pair is forced, branch on one (a backtracking search). A branch is refuted when a
 *     pair in it has both orders cyclic or its forced orders close a cycle; when every branch is
 *     refuted, no order exists and SI is violated. If the search reaches its limit first, the
 *     answer is unknown (with the reason), never a guess.
 * </ol>
 * The caller skips all this when serializability holds with the same orders: a topological
 * order of the serializability graph then orders the appends for snapshot isolation too.
 */
final class UnreadOrder {
  enum Status { HOLDS, VIOLATED, UNKNOWN }

  static final class Outcome {
    Status status;
    String reason;
    int a = -1, b = -1, key = -1;
    /** BC cycles: with a before b, and with b before a (each ends with the hypothetical edge). */
    Cycle first, second;
    /** When the forced orders alone close a cycle (no single pair to blame): that cycle. */
    Cycle forcedCycle;
    int forced;
  }

  private UnreadOrder() {}

  static Outcome resolve(Digraph bc, int filter, int nTxns, int[][] unread, long budget) {
    return resolve(bc, filter, nTxns, unread, budget, null);
  }

  /**
   * @param hint per txn, a position to try first as the order of each key's never-read appends
   *             (completion order: writers of a key under SI usually commit in the order they
   *             complete); null to skip the hint
   */
  static Outcome resolve(Digraph bc, int filter, int nTxns, int[][] unread, long budget, long[] hint) {
    Outcome out = new Outcome();
    boolean[] isUnread = new boolean[nTxns];
    int multi = 0;
    for (int[] u : unread) {
      if (u == null || u.length < 2) continue;
      multi++;
      for (int t : u) isUnread[t] = true;
    }
    if (multi == 0) {
      out.status = Status.HOLDS;
      return out;
    }
    if (hint != null) {
      if (!Scc.of(union(bc, chain(unread, t -> hint[t])), filter).hasCycle()) {
        out.status = Status.HOLDS;
        return out;
      }
    }
    long[] left = {budget};
    int[] nodes = {0};
    Branch root = search(bc, filter, nTxns, unread, isUnread, new EdgeList(), left, nodes, 0);
    out.forced = root.forced;
    switch (root.status) {
      case HOLDS:
        out.status = Status.HOLDS;
        break;
      case VIOLATED:
        out.status = Status.VIOLATED;
        out.a = root.a;
        out.b = root.b;
        out.first = root.first;
        out.second = root.second;
        if (root.first == null) out.forcedCycle = root.cycle;
        break;
      default:
        out.status = Status.UNKNOWN;
        out.reason = left[0] <= 0 ? "the search for an order of never-read appends ran out of budget"
            : "the search for an order of never-read appends reached its limit of " + MAX_NODES + " branches";
    }
    return out;
  }

  private static final int MAX_NODES = 4096, MAX_DEPTH = 256;

  /** What one branch of the search found: HOLDS, VIOLATED (every order here closes a cycle), or UNKNOWN (limit). */
  private static final class Branch {
    Status status;
    /** VIOLATED: a cycle that refutes this branch (BC nodes; the orders assumed or forced here included). */
    Cycle cycle;
    /** VIOLATED on a pair (both orders cyclic, directly or after branching): the pair and its two cycles. */
    int a = -1, b = -1;
    Cycle first, second;
    int forced;

    static Branch of(Status s) {
      Branch r = new Branch();
      r.status = s;
      return r;
    }
  }

  /**
   * One node of the search: with the orders assumed so far, try the greedy order; on a cycle,
   * force what single pairs imply (PolySI's pruning); a pair with both orders cyclic, or forced
   * orders that close a cycle, refute the branch; if nothing is implied, branch on a pair.
   */
  private static Branch search(Digraph bc, int filter, int nTxns, int[][] unread, boolean[] isUnread,
                               EdgeList assumed, long[] left, int[] nodes, int depth) {
    if (++nodes[0] > MAX_NODES || depth > MAX_DEPTH) return Branch.of(Status.UNKNOWN);
    EdgeList forced = copy(assumed);
    java.util.HashSet<Long> decided = new java.util.HashSet<>();
    for (int i = 0; i < forced.size(); i++) decided.add(pairKey(forced.src(i) >> 1, forced.dst(i) >> 1));
    while (true) {
      if (left[0] <= 0) return Branch.of(Status.UNKNOWN);
      Digraph base = forced.size() == 0 ? bc : union(bc, forced);
      int[] posC = topo(base, filter, nTxns, isUnread);
      if (posC == null) {
        Branch r = Branch.of(Status.VIOLATED);
        r.cycle = someCycle(base, filter);
        r.forced = forced.size();
        return r;
      }
      EdgeList chain = chain(unread, t -> posC[t]);
      Digraph aug = union(base, chain);
      Scc scc = Scc.of(aug, filter);
      left[0] -= aug.n + (long) aug.edgeCount(); // one graph build and SCC pass
      if (!scc.hasCycle()) {
        Branch r = Branch.of(Status.HOLDS);
        r.forced = forced.size();
        return r;
      }
      boolean progress = false;
      int branchA = -1, branchB = -1;
      for (int i = 0; i < chain.size(); i++) {
        int ca = chain.src(i), bb = chain.dst(i);
        if (scc.comp[ca] != scc.comp[bb] || !scc.cyclic[scc.comp[ca]]) continue;
        int a = ca >> 1, b = bb >> 1;
        if (decided.contains(pairKey(a, b)) || decided.contains(pairKey(b, a))) continue;
        int[] pAB = path(base, filter, BcGraph.begin(b), BcGraph.commit(a), left); // a first closes a cycle
        if (left[0] <= 0) return Branch.of(Status.UNKNOWN);
        int[] pBA = path(base, filter, BcGraph.begin(a), BcGraph.commit(b), left); // b first closes a cycle
        if (left[0] <= 0) return Branch.of(Status.UNKNOWN);
        if (pAB != null && pBA != null) {
          Branch r = Branch.of(Status.VIOLATED);
          r.a = a;
          r.b = b;
          r.first = closed(base, pAB, filter);
          r.second = closed(base, pBA, filter);
          r.cycle = r.first;
          r.forced = forced.size();
          return r;
        }
        if (pAB != null) {
          forced.add(BcGraph.commit(b), BcGraph.begin(a), Edge.WW);
          decided.add(pairKey(b, a));
          progress = true;
        } else if (pBA != null) {
          forced.add(BcGraph.commit(a), BcGraph.begin(b), Edge.WW);
          decided.add(pairKey(a, b));
          progress = true;
        } else if (branchA < 0) {
          branchA = a;
          branchB = b;
        }
      }
      if (progress) continue;
      if (branchA < 0) return Branch.of(Status.UNKNOWN); // every pair on the cycle decided: not expected
      EdgeList f1 = copy(forced);
      f1.add(BcGraph.commit(branchA), BcGraph.begin(branchB), Edge.WW);
      Branch r1 = search(bc, filter, nTxns, unread, isUnread, f1, left, nodes, depth + 1);
      if (r1.status != Status.VIOLATED) return r1;
      EdgeList f2 = copy(forced);
      f2.add(BcGraph.commit(branchB), BcGraph.begin(branchA), Edge.WW);
      Branch r2 = search(bc, filter, nTxns, unread, isUnread, f2, left, nodes, depth + 1);
      if (r2.status != Status.VIOLATED) return r2;
      Branch r = Branch.of(Status.VIOLATED);
      r.a = branchA;
      r.b = branchB;
      r.first = r1.cycle;
      r.second = r2.cycle;
      r.cycle = r1.cycle;
      r.forced = forced.size();
      return r;
    }
  }

  private static Cycle someCycle(Digraph g, int filter) {
    Scc scc = Scc.of(g, filter);
    for (int c = 0; c < scc.count; c++) if (scc.cyclic[c]) return isocheck.graph.CycleFinder.anyCycleIn(g, scc, c, filter);
    return null;
  }


  private static long pairKey(int a, int b) { return ((long) a << 32) | (b & 0xffffffffL); }

  private static EdgeList copy(EdgeList e) {
    EdgeList c = new EdgeList();
    for (int i = 0; i < e.size(); i++) c.add(e.src(i), e.dst(i), e.type(i));
    return c;
  }

  /** The closed BC cycle: the path, then the hypothetical edge from its last node back to its first. */
  private static Cycle closed(Digraph g, int[] p, int filter) {
    int k = p.length;
    int[] labels = new int[k];
    for (int i = 0; i + 1 < k; i++) labels[i] = Edge.label(g.maskOf(p[i], p[i + 1]) & filter);
    labels[k - 1] = Edge.WW;
    return new Cycle(p, labels);
  }

  /**
   * Each key's never-read writers in the order of {@code rank}, as chain edges C(u1) → B(u2),
   * C(u2) → B(u3), …: one commits before the next begins.
   */
  private static EdgeList chain(int[][] unread, java.util.function.IntToLongFunction rank) {
    EdgeList chain = new EdgeList();
    for (int[] u : unread) {
      if (u == null || u.length < 2) continue;
      Integer[] us = new Integer[u.length];
      for (int i = 0; i < u.length; i++) us[i] = u[i];
      Arrays.sort(us, (x, y) -> Long.compare(rank.applyAsLong(x), rank.applyAsLong(y)));
      for (int i = 0; i + 1 < us.length; i++) chain.add(BcGraph.commit(us[i]), BcGraph.begin(us[i + 1]), Edge.WW);
    }
    return chain;
  }

  static Digraph union(Digraph g, EdgeList extra) {
    EdgeList es = new EdgeList();
    for (int v = 0; v < g.n; v++) for (int e = g.start(v); e < g.end(v); e++) es.add(v, g.target(e), g.mask(e));
    for (int i = 0; i < extra.size(); i++) es.add(extra.src(i), extra.dst(i), extra.type(i));
    return Digraph.of(g.n, es);
  }

  /**
   * Kahn's algorithm that keeps transactions short: commit nodes as soon as they are ready, then
   * relays and other begin nodes, and the begin nodes of never-read writers only when nothing else
   * is ready. Returns the position of each txn's commit, or null if the graph is cyclic.
   */
  private static int[] topo(Digraph g, int filter, int nTxns, boolean[] isUnread) {
    int n = g.n;
    int[] indeg = new int[n];
    for (int v = 0; v < n; v++) {
      for (int e = g.start(v); e < g.end(v); e++) if ((g.mask(e) & filter) != 0) indeg[g.target(e)]++;
    }
    ArrayDeque<Integer> commits = new ArrayDeque<>(), others = new ArrayDeque<>(), late = new ArrayDeque<>();
    for (int v = 0; v < n; v++) if (indeg[v] == 0) queue(v, nTxns, isUnread, commits, others, late);
    int[] posC = new int[nTxns];
    int seen = 0;
    while (!commits.isEmpty() || !others.isEmpty() || !late.isEmpty()) {
      int v = !commits.isEmpty() ? commits.poll() : !others.isEmpty() ? others.poll() : late.poll();
      if (v < 2 * nTxns && (v & 1) == 1) posC[v >> 1] = seen;
      seen++;
      for (int e = g.start(v); e < g.end(v); e++) {
        if ((g.mask(e) & filter) == 0) continue;
        int w = g.target(e);
        if (--indeg[w] == 0) queue(w, nTxns, isUnread, commits, others, late);
      }
    }
    return seen == n ? posC : null;
  }

  private static void queue(int v, int nTxns, boolean[] isUnread, ArrayDeque<Integer> commits,
                            ArrayDeque<Integer> others, ArrayDeque<Integer> late) {
    if (v < 2 * nTxns && (v & 1) == 1) commits.add(v);
    else if (v < 2 * nTxns && isUnread[v >> 1]) late.add(v);
    else others.add(v);
  }

  /** A shortest path from s to t over filtered edges, as nodes; null if none. Charges visits to left[0]. */
  static int[] path(Digraph g, int filter, int s, int t, long[] left) {
    int n = g.n;
    int[] parent = new int[n];
    Arrays.fill(parent, -2);
    int[] q = new int[n];
    int head = 0, tail = 0;
    q[tail++] = s;
    parent[s] = -1;
    while (head < tail) {
      int v = q[head++];
      if (--left[0] <= 0) return null;
      if (v == t) break;
      for (int e = g.start(v); e < g.end(v); e++) {
        if ((g.mask(e) & filter) == 0) continue;
        int w = g.target(e);
        if (parent[w] != -2) continue;
        parent[w] = v;
        q[tail++] = w;
      }
    }
    if (parent[t] == -2) return null;
    int len = 0;
    for (int v = t; v != -1; v = parent[v]) len++;
    int[] p = new int[len];
    for (int v = t, i = len - 1; v != -1; v = parent[v], i--) p[i] = v;
    return p;
  }
}
