package isocheck.solver;

import java.util.ArrayDeque;

/**
 * Independent references for the solver tests: satisfiability by enumerating every assignment
 * (≤ 20 variables), and graph acyclicity by Kahn's algorithm. Shares no code with the solver.
 */
public final class BruteForce {
  private BruteForce() {}

  /** Clauses as bit masks over variables 1..n (bit v-1): positive and negative occurrences. */
  static long[][] masks(int[][] clauses) {
    long[] pos = new long[clauses.length], neg = new long[clauses.length];
    for (int i = 0; i < clauses.length; i++) {
      for (int l : clauses[i]) {
        if (l > 0) pos[i] |= 1L << (l - 1);
        else neg[i] |= 1L << (-l - 1);
      }
    }
    return new long[][] {pos, neg};
  }

  /** Whether assignment a (bit v-1 = value of v) satisfies every clause. */
  static boolean satisfies(long a, long[] pos, long[] neg) {
    for (int i = 0; i < pos.length; i++) {
      if ((a & pos[i]) == 0 && (~a & neg[i]) == 0) return false;
    }
    return true;
  }

  /** A satisfying assignment as a bit mask, or -1. Fixed literals are forced. */
  public static long solve(int n, int[][] clauses, int... fixed) {
    if (n > 24) throw new IllegalArgumentException("too many variables to enumerate: " + n);
    long[][] m = masks(clauses);
    long must1 = 0, must0 = 0;
    for (int l : fixed) {
      if (l > 0) must1 |= 1L << (l - 1);
      else must0 |= 1L << (-l - 1);
    }
    if ((must1 & must0) != 0) return -1;
    for (long a = 0; a < (1L << n); a++) {
      if ((a & must1) != must1 || (a & must0) != 0) continue;
      if (satisfies(a, m[0], m[1])) return a;
    }
    return -1;
  }

  /** Whether the literal list is true under mask a. */
  static boolean litTrue(long a, int l) {
    boolean v = (a >>> (Math.abs(l) - 1) & 1) == 1;
    return l > 0 ? v : !v;
  }

  /** Whether the graph (edges as pairs from[i] → to[i], only those with use[i]) is acyclic. */
  public static boolean acyclic(int nodes, int[] from, int[] to, boolean[] use) {
    int[] indeg = new int[nodes];
    int m = from.length;
    for (int i = 0; i < m; i++) if (use == null || use[i]) indeg[to[i]]++;
    ArrayDeque<Integer> q = new ArrayDeque<>();
    for (int v = 0; v < nodes; v++) if (indeg[v] == 0) q.add(v);
    int done = 0;
    while (!q.isEmpty()) {
      int v = q.poll();
      done++;
      for (int i = 0; i < m; i++) {
        if ((use == null || use[i]) && from[i] == v && --indeg[to[i]] == 0) q.add(to[i]);
      }
    }
    return done == nodes;
  }

  /**
   * A graph instance: known edges, bound edges (literal, from, to) and clauses over n variables.
   * Returns a satisfying assignment mask making known ∪ bound-true edges acyclic, or -1.
   */
  public static long solveGraph(GraphInstance g, int... fixed) {
    long[][] m = masks(g.clauses);
    long must1 = 0, must0 = 0;
    for (int l : fixed) {
      if (l > 0) must1 |= 1L << (l - 1);
      else must0 |= 1L << (-l - 1);
    }
    if ((must1 & must0) != 0) return -1;
    int k = g.knownFrom.length, b = g.bLit.length;
    int[] from = new int[k + b], to = new int[k + b];
    boolean[] use = new boolean[k + b];
    for (int i = 0; i < k; i++) {
      from[i] = g.knownFrom[i];
      to[i] = g.knownTo[i];
      use[i] = true;
    }
    for (int i = 0; i < b; i++) {
      from[k + i] = g.bFrom[i];
      to[k + i] = g.bTo[i];
    }
    for (long a = 0; a < (1L << g.nVars); a++) {
      if ((a & must1) != must1 || (a & must0) != 0) continue;
      if (!satisfies(a, m[0], m[1])) continue;
      for (int i = 0; i < b; i++) use[k + i] = litTrue(a, g.bLit[i]);
      if (acyclic(g.nodes, from, to, use)) return a;
    }
    return -1;
  }

  /** A small SAT-modulo-acyclicity instance, as plain arrays. */
  public static final class GraphInstance {
    public final int nodes, nVars;
    public final int[] knownFrom, knownTo;
    public final int[] bLit, bFrom, bTo;
    public final int[][] clauses;

    public GraphInstance(int nodes, int nVars, int[] knownFrom, int[] knownTo, int[] bLit, int[] bFrom,
                         int[] bTo, int[][] clauses) {
      this.nodes = nodes;
      this.nVars = nVars;
      this.knownFrom = knownFrom;
      this.knownTo = knownTo;
      this.bLit = bLit;
      this.bFrom = bFrom;
      this.bTo = bTo;
      this.clauses = clauses;
    }

    /** Loads the instance into a fresh solver (variables 1..nVars in order). */
    public AcyclicitySolver load() {
      AcyclicitySolver s = new AcyclicitySolver(nodes);
      for (int v = 0; v < nVars; v++) s.newVar();
      for (int i = 0; i < knownFrom.length; i++) s.addKnownEdge(knownFrom[i], knownTo[i]);
      for (int i = 0; i < bLit.length; i++) s.addEdge(bLit[i], bFrom[i], bTo[i]);
      for (int[] c : clauses) s.addClause(c);
      return s;
    }

    @Override
    public String toString() {
      StringBuilder sb = new StringBuilder("nodes " + nodes + ", vars " + nVars + "\nknown:");
      for (int i = 0; i < knownFrom.length; i++) sb.append(' ').append(knownFrom[i]).append("->").append(knownTo[i]);
      sb.append("\nbound:");
      for (int i = 0; i < bLit.length; i++) sb.append(' ').append(bLit[i]).append(':').append(bFrom[i]).append("->").append(bTo[i]);
      sb.append("\nclauses:");
      for (int[] c : clauses) sb.append(' ').append(java.util.Arrays.toString(c));
      return sb.toString();
    }
  }
}
