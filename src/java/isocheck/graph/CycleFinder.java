package isocheck.graph;

import java.util.Arrays;

/**
 * Finds short cycles of a given kind inside one strongly connected component, by breadth-first
 * search over (node, small state) pairs: the state counts anti-dependency (RW) steps, remembers
 * whether the last step was RW, and whether a required edge type was used. This is how each
 * anomaly type gets its own counterexample (Elle's approach of searching per anomaly), e.g.
 * exactly one RW for G-single, at least two and none adjacent for G-nonadjacent.
 *
 * <p>A step between two nodes joined by several edge types takes the strongest allowed label
 * ({@link Edge#label}): a dependency always serves a cycle at least as well as an
 * anti-dependency does, so this never hides a violation.
 *
 * <p>Each search starts from edges of a chosen kind and keeps the shortest cycle found within a
 * budget of visited states; the budget bounds the work on huge components, where any cycle is
 * still found by {@link #anyCycle}.
 */
public final class CycleFinder {
  public enum Rw { NONE, EXACTLY_ONE, NONADJACENT, AT_LEAST_ONE }

  /** What to look for. */
  public static final class Spec {
    final int allowed, required, startKinds;
    final boolean needWr;
    final Rw rw;
    /**
     * GSI's begin/commit graph seen from transactions ({@link BcGraph#of(Digraph, int, boolean)}):
     * a realtime step, like an anti-dependency, enters its target at the commit, so neither may be
     * followed by an anti-dependency (which leaves from the begin).
     */
    final boolean commitRealtime;

    /**
     * @param allowed    edge types the cycle may use
     * @param required   the cycle must use at least one step labelled with one of these (0: none)
     * @param needWr     the cycle must use a WR step
     * @param rw         the anti-dependency rule
     * @param startKinds labels of the edges to start from (rare kinds make the search cheap)
     */
    public Spec(int allowed, int required, boolean needWr, Rw rw, int startKinds) {
      this(allowed, required, needWr, rw, startKinds, false);
    }

    /** As above; commitRealtime: realtime steps enter at the commit (GSI). */
    public Spec(int allowed, int required, boolean needWr, Rw rw, int startKinds, boolean commitRealtime) {
      this.allowed = rw == Rw.NONE ? allowed & ~Edge.RW : allowed;
      this.required = required;
      this.needWr = needWr;
      this.rw = rw;
      this.startKinds = startKinds;
      this.commitRealtime = commitRealtime;
    }
  }

  private final Digraph g;
  private final int[] member;
  private final int stamp;
  private final int[] local;
  private final int[] nodes;
  private long budget;
  /** System.nanoTime() past which the searches stop (as when the budget is spent). */
  private long deadline = Long.MAX_VALUE;

  /** Stops the searches at this System.nanoTime(), as if the budget were spent then. */
  public CycleFinder deadline(long t) {
    deadline = t;
    return this;
  }

  /**
   * @param member  member[v] == stamp marks the component's nodes
   * @param nodes   the component's nodes
   * @param budget  visited states allowed over all searches of this finder
   */
  public CycleFinder(Digraph g, int[] member, int stamp, int[] nodes, int[] localScratch, long budget) {
    this.g = g;
    this.member = member;
    this.stamp = stamp;
    this.nodes = nodes;
    this.local = localScratch;
    this.budget = budget;
    for (int i = 0; i < nodes.length; i++) local[nodes[i]] = i;
  }

  public boolean exhausted() { return budget <= 0; }

  /** The shortest cycle matching spec found within the budget, or null. */
  public Cycle find(Spec spec) {
    int rwDim = spec.rw == Rw.NONE ? 1 : spec.rw == Rw.NONADJACENT ? 3 : 2;
    int lastDim = spec.rw == Rw.NONADJACENT || spec.commitRealtime ? 2 : 1;
    int wrDim = spec.needWr ? 2 : 1;
    int reqDim = spec.required != 0 ? 2 : 1;
    int k = rwDim * lastDim * wrDim * reqDim;
    int s = nodes.length;
    long total = (long) s * k;
    if (total > Integer.MAX_VALUE / 2) return null;
    int[] seen = new int[(int) total];
    int[] parent = new int[(int) total];
    byte[] via = new byte[(int) total];
    int[] queue = new int[(int) Math.min(total, 1 << 20)];
    int round = 0;
    Cycle best = null;
    int minLen = spec.rw == Rw.NONADJACENT ? 4 : spec.rw == Rw.NONE && !spec.needWr && spec.required == 0 ? 1 : 2;

    for (int a : nodes) {
      if (best != null && best.length() <= minLen) break;
      if (budget <= 0) break;
      for (int e = g.start[a]; e < g.start[a + 1]; e++) {
        int b = g.target[e];
        if (member[b] != stamp) continue;
        int lab = Edge.label(g.mask[e] & spec.allowed);
        if (lab == 0 || (lab & spec.startKinds) == 0) continue;
        round++;
        int st0 = step(spec, 0, 0, 0, 0, lab, rwDim, lastDim, wrDim, reqDim);
        if (st0 < 0) continue;
        if (b == a) {
          if (goal(spec, st0, lab, lab, rwDim, lastDim, wrDim, reqDim)) {
            Cycle c = new Cycle(new int[] {a}, new int[] {lab});
            if (best == null || c.length() < best.length()) best = c;
          }
          continue;
        }
        Cycle c = bfs(spec, a, b, lab, st0, k, rwDim, lastDim, wrDim, reqDim, seen, parent, via, queue, round,
            best == null ? Integer.MAX_VALUE : best.length());
        if (c != null && (best == null || c.length() < best.length())) best = c;
        if (best != null && best.length() <= minLen) break;
        if (budget <= 0) break;
      }
    }
    return best;
  }

  // State layout: ((rw * lastDim + last) * wrDim + wr) * reqDim + req
  private static int enc(int rw, int last, int wr, int req, int lastDim, int wrDim, int reqDim) {
    return ((rw * lastDim + last) * wrDim + wr) * reqDim + req;
  }

  /** The state after taking an edge labelled lab from (rw, last, wr, req); -1 if forbidden. */
  private static int step(Spec spec, int rw, int last, int wr, int req, int lab, int rwDim, int lastDim, int wrDim,
                          int reqDim) {
    boolean isRw = lab == Edge.RW;
    if (isRw && spec.commitRealtime && last == 1) return -1;
    if (isRw) {
      switch (spec.rw) {
        case NONE: return -1;
        case EXACTLY_ONE: if (rw >= 1) return -1; rw = 1; break;
        case NONADJACENT: if (last == 1) return -1; rw = Math.min(2, rw + 1); break;
        case AT_LEAST_ONE: rw = 1; break;
        default: break;
      }
    }
    int nl = lastDim == 2 && (isRw || (spec.commitRealtime && lab == Edge.RT)) ? 1 : 0;
    int nw = wrDim == 2 && (wr == 1 || lab == Edge.WR) ? 1 : 0;
    int nr = reqDim == 2 && (req == 1 || (lab & spec.required) != 0) ? 1 : 0;
    return enc(rw, nl, nw, nr, lastDim, wrDim, reqDim);
  }

  private static boolean goal(Spec spec, int st, int firstLab, int lastLab, int rwDim, int lastDim, int wrDim,
                              int reqDim) {
    int req = st % reqDim;
    st /= reqDim;
    int wr = st % wrDim;
    st /= wrDim;
    st /= lastDim;
    int rw = st;
    if (reqDim == 2 && req == 0) return false;
    if (wrDim == 2 && wr == 0) return false;
    if (spec.commitRealtime && firstLab == Edge.RW && (lastLab == Edge.RW || lastLab == Edge.RT)) return false;
    switch (spec.rw) {
      case EXACTLY_ONE: return rw == 1;
      case AT_LEAST_ONE: return rw == 1;
      case NONADJACENT: return rw == 2 && !(firstLab == Edge.RW && lastLab == Edge.RW);
      default: return true;
    }
  }

  private Cycle bfs(Spec spec, int a, int b, int firstLab, int st0, int k, int rwDim, int lastDim, int wrDim,
                    int reqDim, int[] seen, int[] parent, byte[] via, int[] queue, int round, int bound) {
    int head = 0, tail = 0;
    int s0 = local[b] * k + st0;
    seen[s0] = round;
    parent[s0] = -1;
    via[s0] = (byte) firstLab;
    queue[tail++] = s0;
    int levelEnd = tail, level = 1; // edges used so far, counting the first
    if (level + 1 >= bound) return null;
    while (head < tail) {
      if (head == levelEnd) {
        level++;
        levelEnd = tail;
        if (level + 1 >= bound) return null; // cannot beat the best known
      }
      int cur = queue[head++];
      if (--budget <= 0) return null;
      if ((budget & 1023) == 0 && System.nanoTime() > deadline) {
        budget = 0;
        return null;
      }
      int v = nodes[cur / k];
      int[] f = decode(cur % k, lastDim, wrDim, reqDim);
      for (int e = g.start[v]; e < g.start[v + 1]; e++) {
        int w = g.target[e];
        if (member[w] != stamp) continue;
        int lab = Edge.label(g.mask[e] & spec.allowed);
        if (lab == 0) continue;
        int ns = step(spec, f[0], f[1], f[2], f[3], lab, rwDim, lastDim, wrDim, reqDim);
        if (ns < 0) continue;
        if (w == a) {
          if (goal(spec, ns, firstLab, lab, rwDim, lastDim, wrDim, reqDim)) {
            return build(a, cur, k, lab, parent, via);
          }
          continue; // never pass through the start node
        }
        int idx = local[w] * k + ns;
        if (seen[idx] == round) continue;
        seen[idx] = round;
        parent[idx] = cur;
        via[idx] = (byte) lab;
        if (tail == queue.length) {
          if (queue.length >= seen.length) return null;
          queue = Arrays.copyOf(queue, Math.min(seen.length, queue.length * 2));
        }
        queue[tail++] = idx;
      }
    }
    return null;
  }

  private static int[] decode(int st, int lastDim, int wrDim, int reqDim) {
    int req = st % reqDim;
    st /= reqDim;
    int wr = st % wrDim;
    st /= wrDim;
    int last = st % lastDim;
    st /= lastDim;
    return new int[] {st, last, wr, req};
  }

  private Cycle build(int a, int cur, int k, int lastLab, int[] parent, byte[] via) {
    int len = 0;
    for (int c = cur; c >= 0; c = parent[c]) len++;
    int[] ns = new int[len + 1];
    int[] ls = new int[len + 1];
    ns[0] = a;
    int i = len;
    ls[len] = lastLab;
    for (int c = cur; c >= 0; c = parent[c]) {
      ns[i] = nodes[c / k];
      ls[i - 1] = via[c];
      i--;
    }
    return new Cycle(ns, ls);
  }

  /** Some cycle of component c of scc (computed over the same filter), or null if it has none. */
  public static Cycle anyCycleIn(Digraph g, Scc scc, int c, int filter) {
    int[] mem = new int[g.n];
    int from = -1;
    for (int v = 0; v < g.n; v++) {
      if (scc.comp[v] == c) {
        mem[v] = 1;
        if (from < 0) from = v;
      }
    }
    return from < 0 ? null : anyCycle(g, mem, 1, from, filter);
  }

  /**
   * Some cycle through the component over edges in filter, found by a breadth-first search from
   * one of its nodes back to itself: always succeeds on a nontrivial component of that filter.
   */
  public static Cycle anyCycle(Digraph g, int[] member, int stamp, int from, int filter) {
    // Self-loop?
    for (int e = g.start[from]; e < g.start[from + 1]; e++) {
      if (g.target[e] == from && (g.mask[e] & filter) != 0) {
        return new Cycle(new int[] {from}, new int[] {Edge.label(g.mask[e] & filter)});
      }
    }
    java.util.HashMap<Integer, Integer> parent = new java.util.HashMap<>();
    java.util.HashMap<Integer, Integer> lab = new java.util.HashMap<>();
    java.util.ArrayDeque<Integer> q = new java.util.ArrayDeque<>();
    q.add(from);
    parent.put(from, -1);
    while (!q.isEmpty()) {
      int v = q.poll();
      for (int e = g.start[v]; e < g.start[v + 1]; e++) {
        int w = g.target[e];
        if (member[w] != stamp || (g.mask[e] & filter) == 0) continue;
        int l = Edge.label(g.mask[e] & filter);
        if (w == from) {
          java.util.ArrayList<Integer> ns = new java.util.ArrayList<>();
          java.util.ArrayList<Integer> ls = new java.util.ArrayList<>();
          for (int c = v; c != -1; c = parent.get(c)) ns.add(c);
          java.util.Collections.reverse(ns);
          for (int i = 1; i < ns.size(); i++) ls.add(lab.get(ns.get(i)));
          ls.add(l);
          return new Cycle(ns.stream().mapToInt(Integer::intValue).toArray(),
              ls.stream().mapToInt(Integer::intValue).toArray());
        }
        if (!parent.containsKey(w)) {
          parent.put(w, v);
          lab.put(w, l);
          q.add(w);
        }
      }
    }
    return null;
  }
}
