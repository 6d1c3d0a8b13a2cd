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
 * <li>If no pair is forced, branch on one (a bounded backtracking search); if the bound is
 *     reached, the answer is unknown (with the reason), never a guess.
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
    int forced;
  }

  private UnreadOrder() {}

  static Outcome resolve(Digraph bc, int filter, int nTxns, int[][] unread, long budget) {
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
    long[] left = {budget};
    int[] nodes = {0};
    search(bc, filter, nTxns, unread, isUnread, new EdgeList(), left, nodes, out, 0);
    if (out.status == null) {
      out.status = Status.UNKNOWN;
      out.reason = left[0] <= 0 ? "the search for an order of never-read appends ran out of budget"
          : "no order of the never-read appends was found within the search limit";
    }
    return out;
  }

  private static final int MAX_NODES = 64, MAX_DEPTH = 16;

  /**
   * One node of the search: with the forced orders so far, try the greedy order; on a cycle, force
   * what pairs imply; if nothing is implied, branch on one pair. Sets out.status when decided.
   */
  private static void search(Digraph bc, int filter, int nTxns, int[][] unread, boolean[] isUnread, EdgeList forced,
                             long[] left, int[] nodes, Outcome out, int depth) {
    if (++nodes[0] > MAX_NODES || depth > MAX_DEPTH) return;
    forced = copy(forced);
    while (true) {
      if (left[0] <= 0) return;
      Digraph base = forced.size() == 0 ? bc : union(bc, forced, null);
      int[] posC = topo(base, filter, nTxns, isUnread);
      if (posC == null) return; // these forced orders close a cycle: this branch is dead
      EdgeList chain = new EdgeList();
      for (int[] u : unread) {
        if (u == null || u.length < 2) continue;
        Integer[] us = new Integer[u.length];
        for (int i = 0; i < u.length; i++) us[i] = u[i];
        Arrays.sort(us, (x, y) -> Integer.compare(posC[x], posC[y]));
        for (int i = 0; i + 1 < us.length; i++) chain.add(BcGraph.commit(us[i]), BcGraph.begin(us[i + 1]), Edge.WW);
      }
      Digraph aug = union(base, chain, null);
      Scc scc = Scc.of(aug, filter);
      left[0] -= aug.n;
      if (!scc.hasCycle()) {
        out.status = Status.HOLDS;
        out.forced = forced.size();
        return;
      }
      boolean progress = false;
      int branchA = -1, branchB = -1;
      for (int i = 0; i < chain.size(); i++) {
        int ca = chain.src(i), bb = chain.dst(i);
        if (scc.comp[ca] != scc.comp[bb] || !scc.cyclic[scc.comp[ca]]) continue;
        int a = ca >> 1, b = bb >> 1;
        int[] pAB = path(base, filter, BcGraph.begin(b), BcGraph.commit(a), left); // a first closes a cycle
        if (left[0] <= 0) return;
        int[] pBA = path(base, filter, BcGraph.begin(a), BcGraph.commit(b), left); // b first closes a cycle
        if (left[0] <= 0) return;
        if (pAB != null && pBA != null) {
          if (depth == 0) {
            out.status = Status.VIOLATED;
            out.a = a;
            out.b = b;
            out.first = closed(base, pAB, filter);
            out.second = closed(base, pBA, filter);
          }
          return; // deeper, this only kills the branch
        }
        if (pAB != null) {
          forced.add(BcGraph.commit(b), BcGraph.begin(a), Edge.WW);
          progress = true;
        } else if (pBA != null) {
          forced.add(BcGraph.commit(a), BcGraph.begin(b), Edge.WW);
          progress = true;
        } else if (branchA < 0) {
          branchA = a;
          branchB = b;
        }
      }
      if (progress) continue;
      if (branchA < 0) return;
      // Branch on the first undecided pair on a cycle: a before b, then b before a.
      EdgeList f1 = copy(forced);
      f1.add(BcGraph.commit(branchA), BcGraph.begin(branchB), Edge.WW);
      search(bc, filter, nTxns, unread, isUnread, f1, left, nodes, out, depth + 1);
      if (out.status != null) return;
      EdgeList f2 = copy(forced);
      f2.add(BcGraph.commit(branchB), BcGraph.begin(branchA), Edge.WW);
      search(bc, filter, nTxns, unread, isUnread, f2, left, nodes, out, depth + 1);
      return;
    }
  }

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

  static Digraph union(Digraph g, EdgeList extra, int[] unused) {
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
