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
 * <li>If neither makes progress, the answer is unknown (with the reason), never a guess.
 * </ol>
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
    int multi = 0;
    for (int[] u : unread) if (u != null && u.length >= 2) multi++;
    if (multi == 0) {
      out.status = Status.HOLDS;
      return out;
    }
    EdgeList forced = new EdgeList();
    long[] left = {budget};
    for (int iter = 0; iter < 1000; iter++) {
      Digraph base = forced.size() == 0 ? bc : union(bc, forced, null);
      int[] posC = topo(base, filter, nTxns);
      if (posC == null) {
        // Forced orders closed a cycle: each was necessary, so no order works. Rare; report as unknown
        // unless a pair witness appears below.
        out.status = Status.UNKNOWN;
        out.reason = "forced orders of never-read appends closed a cycle";
        return out;
      }
      EdgeList chain = new EdgeList();
      for (int k = 0; k < unread.length; k++) {
        int[] u = unread[k];
        if (u == null || u.length < 2) continue;
        Integer[] us = new Integer[u.length];
        for (int i = 0; i < u.length; i++) us[i] = u[i];
        Arrays.sort(us, (x, y) -> Integer.compare(posC[x], posC[y]));
        for (int i = 0; i + 1 < us.length; i++) chain.add(BcGraph.commit(us[i]), BcGraph.begin(us[i + 1]), Edge.WW);
      }
      Digraph aug = union(base, chain, null);
      Scc scc = Scc.of(aug, filter);
      if (!scc.hasCycle()) {
        out.status = Status.HOLDS;
        out.forced = forced.size();
        return out;
      }
      boolean progress = false;
      for (int i = 0; i < chain.size(); i++) {
        int ca = chain.src(i), bb = chain.dst(i);
        if (scc.comp[ca] != scc.comp[bb] || !scc.cyclic[scc.comp[ca]]) continue;
        int a = ca >> 1, b = bb >> 1;
        int[] pAB = path(base, filter, BcGraph.begin(b), BcGraph.commit(a), left); // a first closes a cycle
        if (left[0] <= 0) break;
        int[] pBA = path(base, filter, BcGraph.begin(a), BcGraph.commit(b), left); // b first closes a cycle
        if (left[0] <= 0) break;
        if (pAB != null && pBA != null) {
          out.status = Status.VIOLATED;
          out.a = a;
          out.b = b;
          out.first = closed(base, pAB, filter);
          out.second = closed(base, pBA, filter);
          return out;
        }
        if (pAB != null) {
          forced.add(BcGraph.commit(b), BcGraph.begin(a), Edge.WW);
          progress = true;
        } else if (pBA != null) {
          forced.add(BcGraph.commit(a), BcGraph.begin(b), Edge.WW);
          progress = true;
        }
      }
      if (left[0] <= 0) {
        out.status = Status.UNKNOWN;
        out.reason = "the search for an order of never-read appends ran out of budget";
        return out;
      }
      if (!progress) {
        out.status = Status.UNKNOWN;
        out.reason = "no order of the never-read appends was found, and no single pair is forced either way";
        return out;
      }
    }
    out.status = Status.UNKNOWN;
    out.reason = "too many rounds ordering never-read appends";
    return out;
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

  /** Kahn's algorithm emitting commit nodes first; the position of each txn's commit, or null if cyclic. */
  private static int[] topo(Digraph g, int filter, int nTxns) {
    int n = g.n;
    int[] indeg = new int[n];
    for (int v = 0; v < n; v++) {
      for (int e = g.start(v); e < g.end(v); e++) if ((g.mask(e) & filter) != 0) indeg[g.target(e)]++;
    }
    ArrayDeque<Integer> commits = new ArrayDeque<>(), others = new ArrayDeque<>();
    for (int v = 0; v < n; v++) if (indeg[v] == 0) ((v < 2 * nTxns && (v & 1) == 1) ? commits : others).add(v);
    int[] posC = new int[nTxns];
    int seen = 0;
    while (!commits.isEmpty() || !others.isEmpty()) {
      int v = !commits.isEmpty() ? commits.poll() : others.poll();
      if (v < 2 * nTxns && (v & 1) == 1) posC[v >> 1] = seen;
      seen++;
      for (int e = g.start(v); e < g.end(v); e++) {
        if ((g.mask(e) & filter) == 0) continue;
        int w = g.target(e);
        if (--indeg[w] == 0) ((w < 2 * nTxns && (w & 1) == 1) ? commits : others).add(w);
      }
    }
    return seen == n ? posC : null;
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
