package isocheck.graph;

/**
 * Strongly connected components by Tarjan's algorithm, iteratively (no recursion, so a chain of
 * a million transactions cannot overflow the stack), over the edges whose mask intersects a
 * filter. Components are numbered in reverse topological order, as Tarjan finds them. A
 * component is a cycle ("nontrivial") when it has two or more nodes, or one node with a
 * self-loop that passes the filter.
 */
public final class Scc {
  public final int count;
  /** Component of each node. */
  public final int[] comp;
  /** Per component: size, and whether it is nontrivial. */
  public final int[] size;
  public final boolean[] cyclic;
  public final int cyclicCount;

  private Scc(int count, int[] comp, int[] size, boolean[] cyclic, int cyclicCount) {
    this.count = count;
    this.comp = comp;
    this.size = size;
    this.cyclic = cyclic;
    this.cyclicCount = cyclicCount;
  }

  public boolean hasCycle() { return cyclicCount > 0; }

  public static Scc of(Digraph g, int filter) { return of(g, filter, null); }

  /**
   * The components of g's filtered edges within groups: with {@code group} (per node, or null
   * for the whole graph), a node of group -1 is a component of its own, acyclic, and only edges
   * between nodes of one group are followed. For the components of a subgraph of a graph whose
   * components are known (a weaker family's edges, {@link isocheck.check.CycleReporter.ByFamily}),
   * with each node's group its component there when that one is cyclic, else -1: a cycle of the
   * subgraph lies within one cyclic component of the graph, so the result is the subgraph's
   * components, found by exploring only those (on a 10^6-transaction list-append history whose
   * cycles are few and short, a few thousand nodes instead of the whole graph). Components are
   * then numbered in Tarjan's order within the groups, not in reverse topological order of the
   * whole graph. The caller answers for the premise: a group -1 node has no self-loop and lies on
   * no cycle of the filtered edges.
   */
  public static Scc of(Digraph g, int filter, int[] group) { return search(g, filter, group, null); }

  /**
   * Tarjan's search, iteratively. With {@code visited} (an array of g.n, for {@link #firstCyclic}):
   * over every edge of g as packed, each node's edges sorted when the search first reaches it, and
   * stopped at the first nontrivial component (returned: the components numbered up to it, the
   * others' nodes -1; {@code visited[v]} ≥ 0 for the nodes reached), or null when there is none.
   */
  private static Scc search(Digraph g, int filter, int[] group, int[] visited) {
    final int n = g.n;
    final int[] start = g.start, target = g.target;
    final byte[] mask = g.mask;
    final boolean first = visited != null;
    int[] index = first ? visited : new int[n];
    int[] low = new int[n];
    int[] comp = new int[n];
    java.util.Arrays.fill(index, -1);
    if (first) java.util.Arrays.fill(comp, -1);
    int[] stack = new int[n];
    boolean[] onStack = new boolean[n];
    int sp = 0;
    int[] callNode = new int[n];
    int[] callEdge = new int[n];
    int cp;
    int next = 0, count = 0;
    int[] sizes = new int[16];
    long[] buf = first ? new long[16] : null;
    for (int root = 0; root < n; root++) {
      if (index[root] >= 0) continue;
      if (group != null && group[root] < 0) {
        index[root] = next++;
        comp[root] = count;
        if (count == sizes.length) sizes = java.util.Arrays.copyOf(sizes, count * 2);
        sizes[count++] = 1;
        continue;
      }
      cp = 0;
      callNode[0] = root;
      callEdge[0] = start[root];
      index[root] = low[root] = next++;
      if (first) buf = sortEdges(start, target, mask, root, buf);
      stack[sp++] = root;
      onStack[root] = true;
      while (cp >= 0) {
        int v = callNode[cp];
        int e = callEdge[cp];
        int end = start[v + 1];
        boolean descended = false;
        while (e < end) {
          int w = target[e];
          if ((mask[e] & filter) == 0 || (group != null && group[w] != group[v])) { e++; continue; }
          if (index[w] < 0) {
            callEdge[cp] = e + 1;
            index[w] = low[w] = next++;
            if (first) buf = sortEdges(start, target, mask, w, buf);
            stack[sp++] = w;
            onStack[w] = true;
            cp++;
            callNode[cp] = w;
            callEdge[cp] = start[w];
            descended = true;
            break;
          } else if (onStack[w]) {
            if (index[w] < low[v]) low[v] = index[w];
          }
          e++;
        }
        if (descended) continue;
        if (low[v] == index[v]) {
          int s = 0;
          int w;
          do {
            w = stack[--sp];
            onStack[w] = false;
            comp[w] = count;
            s++;
          } while (w != v);
          if (count == sizes.length) sizes = java.util.Arrays.copyOf(sizes, count * 2);
          sizes[count++] = s;
          if (first && (s > 1 || selfLoop(g, v, filter))) {
            boolean[] cyc = new boolean[count];
            cyc[count - 1] = true;
            return new Scc(count, comp, java.util.Arrays.copyOf(sizes, count), cyc, 1);
          }
        }
        cp--;
        if (cp >= 0) {
          int u = callNode[cp];
          if (low[v] < low[u]) low[u] = low[v];
        }
      }
    }
    if (first) return null;
    int[] size = java.util.Arrays.copyOf(sizes, count);
    boolean[] cyclic = new boolean[count];
    int cc = 0;
    for (int c = 0; c < count; c++) if (size[c] > 1) cyclic[c] = true;
    for (int v = 0; v < n; v++) {
      if (size[comp[v]] == 1 && (group == null || group[v] >= 0) && selfLoop(g, v, filter)) cyclic[comp[v]] = true;
    }
    for (int c = 0; c < count; c++) if (cyclic[c]) cc++;
    return new Scc(count, comp, size, cyclic, cc);
  }

  /** Whether v has a self-loop whose types meet filter. */
  private static boolean selfLoop(Digraph g, int v, int filter) {
    for (int e = g.start[v]; e < g.start[v + 1]; e++) if (g.target[e] == v && (g.mask[e] & filter) != 0) return true;
    return false;
  }

  /**
   * What {@link #firstCyclic} finds: the components numbered up to the first nontrivial one, as
   * {@link #of}(g.ordered(), ~0) numbers them ({@code comp} -1 for the nodes not yet in one), and
   * the out-edges of the nodes the search visited, ordered and merged as {@link Digraph#ordered}
   * has them (the other nodes' none).
   */
  public record FirstCyclic(Scc scc, Digraph visited) {}

  /**
   * The first nontrivial component (over every edge) that {@link #of}(g.ordered(), ~0) would
   * number, found on g as {@link Digraph#unordered} packed it, or null when there is none: the
   * same depth-first search, each node's edges sorted (in place, within its own slots: g stays a
   * valid unordered graph) when the search first reaches it, stopped when that component is
   * complete. A parallel edge changes nothing in the search (its second copy meets a node already
   * reached, whose lowlink it already passed on). On a Jepsen-shaped history's known graph with a
   * cycle, the search has reached about a seventh of the nodes by then (at 10^6 transactions,
   * 213,509 of 1,545,681): the rest are neither sorted nor searched.
   */
  public static FirstCyclic firstCyclic(Digraph g) {
    if (g.isOrdered()) throw new IllegalArgumentException("firstCyclic is for an unordered graph");
    // (Over every edge, as of(g.ordered(), ~0): an edge of no type is none.)
    int[] index = new int[g.n];
    Scc s = search(g, ~0, null, index);
    return s == null ? null : new FirstCyclic(s, visited(g, index));
  }

  /** Sorts node v's edges in place by (target, type), as Digraph's ordering does before merging. */
  private static long[] sortEdges(int[] start, int[] target, byte[] mask, int v, long[] buf) {
    int a = start[v], len = start[v + 1] - a;
    if (len < 2) return buf;
    if (buf.length < len) buf = new long[Math.max(len, 2 * buf.length)];
    for (int i = 0; i < len; i++) buf[i] = ((long) target[a + i] << 8) | (mask[a + i] & 0xff);
    java.util.Arrays.sort(buf, 0, len);
    for (int i = 0; i < len; i++) {
      target[a + i] = (int) (buf[i] >>> 8);
      mask[a + i] = (byte) buf[i];
    }
    return buf;
  }

  /** The out-edges of the visited nodes (index ≥ 0; their edges sorted), parallel ones merged; the others' none. */
  private static Digraph visited(Digraph g, int[] index) {
    int n = g.n;
    int[] st = new int[n + 1];
    int m = 0;
    for (int v = 0; v < n; v++) {
      st[v] = m;
      if (index[v] < 0) continue;
      for (int e = g.start[v], last = -1; e < g.start[v + 1]; e++) {
        if (g.target[e] != last) m++;
        last = g.target[e];
      }
    }
    st[n] = m;
    int[] tgt = new int[m];
    byte[] msk = new byte[m];
    for (int v = 0, w = 0; v < n; v++) {
      if (index[v] < 0) continue;
      for (int e = g.start[v], last = -1; e < g.start[v + 1]; e++) {
        int t = g.target[e];
        if (t == last) msk[w - 1] |= g.mask[e];
        else {
          tgt[w] = t;
          msk[w++] = g.mask[e];
          last = t;
        }
      }
    }
    return Digraph.packed(n, st, tgt, msk);
  }

  /**
   * Per node: its component when that one is cyclic, else -1: the groups within which a subgraph's
   * components lie ({@link #of(Digraph, int, int[])}).
   */
  public int[] cyclicGroups() {
    int[] g = new int[comp.length];
    for (int v = 0; v < comp.length; v++) g[v] = cyclic[comp[v]] ? comp[v] : -1;
    return g;
  }

  /**
   * The cyclic components of this decomposition of a graph of n nodes, each as its nodes in the
   * transaction graph (of transactionGraphNodes nodes: transactions, then realtime relays),
   * smallest first (they make the clearest counterexamples), then earliest first. For a begin/commit graph (bc, over
   * nTxns transactions), a component's transactions are the owners of its begin and commit nodes.
   */
  public java.util.List<int[]> cyclicComponents(int n, boolean bc, int nTxns, int transactionGraphNodes) {
    int[] cnt = new int[count + 1];
    for (int v = 0; v < n; v++) if (cyclic[comp[v]]) cnt[comp[v] + 1]++;
    for (int c = 0; c < count; c++) cnt[c + 1] += cnt[c];
    int[] at = java.util.Arrays.copyOf(cnt, count);
    int[] byComp = new int[cnt[count]];
    for (int v = 0; v < n; v++) if (cyclic[comp[v]]) byComp[at[comp[v]]++] = v;
    java.util.List<int[]> out = new java.util.ArrayList<>();
    int[] seen = new int[transactionGraphNodes];
    for (int c = 0; c < count; c++) {
      if (!cyclic[c]) continue;
      int[] ns = new int[cnt[c + 1] - cnt[c]];
      int k = 0;
      for (int i = cnt[c]; i < cnt[c + 1]; i++) {
        int v = bc ? BcGraph.owner(byComp[i], nTxns) : byComp[i];
        if (seen[v] == c + 1) continue;
        seen[v] = c + 1;
        ns[k++] = v;
      }
      out.add(java.util.Arrays.copyOf(ns, k));
    }
    // (Ties by their first transaction: the same order however the components are numbered.)
    out.sort((x, y) -> x.length != y.length ? Integer.compare(x.length, y.length)
        : x.length == 0 ? 0 : Integer.compare(x[0], y[0]));
    return out;
  }
}
