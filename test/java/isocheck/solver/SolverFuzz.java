package isocheck.solver;

import isocheck.solver.BruteForce.GraphInstance;
import isocheck.util.IntList;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

/**
 * Randomised cross-checks of the solver package against {@link BruteForce}, run from
 * {@code isocheck.solver-test}. Each method runs many instances from a seed and returns a
 * {@link Report}: how many instances, how many SAT/UNSAT, and the first disagreement (with
 * the seed that reproduces it) if any.
 */
public final class SolverFuzz {
  private SolverFuzz() {}

  /** The outcome of one fuzz run. */
  public static final class Report {
    public int instances, sat, unsat, unknown, failures, selfContained;
    public String firstFailure;

    void fail(String msg) {
      failures++;
      if (firstFailure == null) firstFailure = msg;
    }

    void count(Status st) {
      instances++;
      if (st == Status.SAT) sat++;
      else if (st == Status.UNSAT) unsat++;
      else unknown++;
    }

    @Override
    public String toString() {
      return instances + " instances (" + sat + " SAT, " + unsat + " UNSAT, " + unknown + " UNKNOWN), "
          + failures + " failures" + (firstFailure == null ? "" : "; first: " + firstFailure);
    }
  }

  // ================================================================== generators

  /** Random k-CNF: m clauses of k distinct variables over 1..n, random signs. */
  public static int[][] randomCnf(Random r, int n, int m, int k) {
    int[][] cs = new int[m][];
    for (int i = 0; i < m; i++) {
      int kk = Math.min(k, n);
      int[] c = new int[kk];
      for (int j = 0; j < kk; j++) {
        int v;
        do {
          v = 1 + r.nextInt(n);
        } while (contains(c, j, v));
        c[j] = r.nextBoolean() ? v : -v;
      }
      cs[i] = c;
    }
    return cs;
  }

  private static boolean contains(int[] c, int len, int v) {
    for (int i = 0; i < len; i++) if (Math.abs(c[i]) == v) return true;
    return false;
  }

  /** PHP(p, h): p pigeons into h holes, no two in one hole. Var (i, j) = i·h + j + 1. */
  public static int[][] pigeonhole(int p, int h) {
    List<int[]> cs = new ArrayList<>();
    for (int i = 0; i < p; i++) {
      int[] c = new int[h];
      for (int j = 0; j < h; j++) c[j] = i * h + j + 1;
      cs.add(c);
    }
    for (int j = 0; j < h; j++) {
      for (int i = 0; i < p; i++) {
        for (int k = i + 1; k < p; k++) cs.add(new int[] {-(i * h + j + 1), -(k * h + j + 1)});
      }
    }
    return cs.toArray(new int[0][]);
  }

  /** x1 ⊕ … ⊕ xn = parity, via prefix variables y_i = x1 ⊕ … ⊕ xi (2n-1 variables). */
  public static int[][] parity(int n, boolean parity) {
    List<int[]> cs = new ArrayList<>();
    int prev = 1; // y1 = x1
    for (int i = 2; i <= n; i++) {
      int y = n + i - 1; // y_i
      // y = prev ⊕ x_i
      cs.add(new int[] {-y, prev, i});
      cs.add(new int[] {-y, -prev, -i});
      cs.add(new int[] {y, -prev, i});
      cs.add(new int[] {y, prev, -i});
      prev = y;
    }
    cs.add(new int[] {parity ? prev : -prev});
    return cs.toArray(new int[0][]);
  }

  /** Graph k-colouring of a random graph: var (v, c) = v·k + c + 1. */
  public static int[][] coloring(Random r, int nodes, double p, int k) {
    List<int[]> cs = new ArrayList<>();
    for (int v = 0; v < nodes; v++) {
      int[] c = new int[k];
      for (int j = 0; j < k; j++) c[j] = v * k + j + 1;
      cs.add(c);
      for (int a = 0; a < k; a++) for (int b = a + 1; b < k; b++) cs.add(new int[] {-(v * k + a + 1), -(v * k + b + 1)});
    }
    for (int u = 0; u < nodes; u++) {
      for (int v = u + 1; v < nodes; v++) {
        if (r.nextDouble() < p) {
          for (int j = 0; j < k; j++) cs.add(new int[] {-(u * k + j + 1), -(v * k + j + 1)});
        }
      }
    }
    return cs.toArray(new int[0][]);
  }

  // ================================================================== pure SAT

  static Status solveFresh(CdclSolver s, int n, int[][] cs, int... assumptions) {
    while (s.nVars() < n) s.newVar();
    for (int[] c : cs) s.addClause(c);
    return s.solve(assumptions);
  }

  static String checkModel(Solver s, int[][] cs) {
    for (int[] c : cs) {
      boolean sat = false;
      for (int l : c) sat |= s.modelValue(l);
      if (!sat) return "model falsifies clause " + Arrays.toString(c);
    }
    return null;
  }

  /** Compares the solver's answer (and model) with the enumerator's on one formula. */
  static void compare(Report rep, String what, int n, int[][] cs, int... assumptions) {
    CdclSolver s = new CdclSolver();
    Status st = solveFresh(s, n, cs, assumptions);
    rep.count(st);
    boolean truth = BruteForce.solve(n, cs, assumptions) >= 0;
    if (st == Status.UNKNOWN) {
      rep.fail(what + ": UNKNOWN without a budget");
      return;
    }
    if ((st == Status.SAT) != truth) {
      rep.fail(what + ": solver " + st + ", enumeration " + (truth ? "SAT" : "UNSAT"));
      return;
    }
    if (st == Status.SAT) {
      String bad = checkModel(s, cs);
      if (bad == null) for (int a : assumptions) if (!s.modelValue(a)) bad = "model violates assumption " + a;
      if (bad != null) rep.fail(what + ": " + bad);
    } else {
      String bad = checkCore(s.core(), n, cs, assumptions);
      if (bad != null) rep.fail(what + ": " + bad);
    }
  }

  /** The core must be a subset of the assumptions that is UNSAT with the clauses. */
  static String checkCore(int[] core, int n, int[][] cs, int[] assumptions) {
    Set<Integer> as = new HashSet<>();
    for (int a : assumptions) as.add(a);
    for (int l : core) if (!as.contains(l)) return "core " + Arrays.toString(core) + " is not within the assumptions";
    if (BruteForce.solve(n, cs, core) >= 0) return "core " + Arrays.toString(core) + " is satisfiable";
    return null;
  }

  /**
   * Random 3-CNF near the phase transition (clause/variable ratio 3.8–4.8) with 3..maxVars
   * variables, plus random 2-CNF and mixed-width formulas.
   */
  public static Report randomCnf(long seed, int count, int maxVars) {
    Report rep = new Report();
    for (int i = 0; i < count; i++) {
      Random r = new Random(seed + i);
      int n = 3 + r.nextInt(maxVars - 2);
      int[][] cs;
      int shape = r.nextInt(10);
      if (shape < 8) cs = randomCnf(r, n, (int) Math.round(n * (3.8 + r.nextDouble())), 3);
      else if (shape == 8) cs = randomCnf(r, n, (int) Math.round(n * (0.7 + 0.6 * r.nextDouble())), 2);
      else {
        int[][] a = randomCnf(r, n, n, 2), b = randomCnf(r, n, 2 * n, 3), c = randomCnf(r, n, n / 2 + 1, 5);
        cs = concat(concat(a, b), c);
      }
      compare(rep, "seed " + (seed + i), n, cs);
    }
    return rep;
  }

  static int[][] concat(int[][] a, int[][] b) {
    int[][] c = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, c, a.length, b.length);
    return c;
  }

  /**
   * Structured formulas: PHP(n+1, n) for n = 1..4 (≤ 20 variables, enumerated) and 5..7 (known
   * UNSAT), PHP(n, n) (SAT), parity chains of both parities, random 3-colourings.
   */
  public static Report structured(long seed) {
    Report rep = new Report();
    for (int h = 1; h <= 4; h++) {
      compare(rep, "PHP(" + (h + 1) + "," + h + ")", (h + 1) * h, pigeonhole(h + 1, h));
      compare(rep, "PHP(" + h + "," + h + ")", h * h, pigeonhole(h, h));
    }
    for (int h = 5; h <= 7; h++) {
      CdclSolver s = new CdclSolver();
      Status st = solveFresh(s, (h + 1) * h, pigeonhole(h + 1, h));
      rep.count(st);
      if (st != Status.UNSAT) rep.fail("PHP(" + (h + 1) + "," + h + "): " + st);
      CdclSolver t = new CdclSolver();
      int[][] cs = pigeonhole(h, h);
      Status st2 = solveFresh(t, h * h, cs);
      rep.count(st2);
      if (st2 != Status.SAT || checkModel(t, cs) != null) rep.fail("PHP(" + h + "," + h + "): " + st2);
    }
    for (int n = 1; n <= 10; n++) {
      for (boolean p : new boolean[] {false, true}) {
        compare(rep, "parity " + n + " " + p, Math.max(1, 2 * n - 1), parity(n, p));
        // The same chain with its first variable assumed both ways.
        compare(rep, "parity " + n + " " + p + " assuming x1", Math.max(1, 2 * n - 1), parity(n, p), 1);
        compare(rep, "parity " + n + " " + p + " assuming -x1", Math.max(1, 2 * n - 1), parity(n, p), -1);
      }
    }
    Random r = new Random(seed);
    for (int i = 0; i < 200; i++) {
      int nodes = 3 + r.nextInt(4);
      compare(rep, "3-colouring " + i, nodes * 3, coloring(r, nodes, 0.3 + 0.6 * r.nextDouble(), 3));
    }
    return rep;
  }

  /**
   * One solver per formula, asked repeatedly: under random assumptions (checked against the
   * enumerator, UNSAT answers' cores checked to be UNSAT subsets), then without assumptions
   * (an UNSAT under assumptions must not stick), while more clauses arrive between calls.
   */
  public static Report assumptions(long seed, int count, int maxVars) {
    Report rep = new Report();
    for (int i = 0; i < count; i++) {
      Random r = new Random(seed + i);
      int n = 4 + r.nextInt(maxVars - 3);
      int[][] all = randomCnf(r, n, (int) Math.round(n * (3.0 + 1.5 * r.nextDouble())), 3);
      CdclSolver s = new CdclSolver();
      for (int v = 0; v < n; v++) s.newVar();
      int added = 0;
      int rounds = 4 + r.nextInt(4);
      for (int round = 0; round < rounds; round++) {
        int upto = round == rounds - 1 ? all.length : Math.min(all.length, added + 1 + r.nextInt(Math.max(1, all.length / 2)));
        for (; added < upto; added++) s.addClause(all[added]);
        int[][] cs = Arrays.copyOf(all, added);
        int k = r.nextInt(5);
        int[] as = new int[k];
        for (int j = 0; j < k; j++) as[j] = (1 + r.nextInt(n)) * (r.nextBoolean() ? 1 : -1);
        String what = "seed " + (seed + i) + " round " + round;
        for (int pass = 0; pass < 2; pass++) {
          int[] a = pass == 0 ? as : new int[0];
          Status st = s.solve(a);
          rep.count(st);
          boolean truth = BruteForce.solve(n, cs, a) >= 0;
          if (st == Status.UNKNOWN || (st == Status.SAT) != truth) {
            rep.fail(what + (pass == 0 ? " assuming " + Arrays.toString(a) : " without assumptions") + ": solver " + st + ", enumeration " + (truth ? "SAT" : "UNSAT"));
            continue;
          }
          String bad = null;
          if (st == Status.SAT) {
            bad = checkModel(s, cs);
            for (int l : a) if (bad == null && !s.modelValue(l)) bad = "model violates assumption " + l;
          } else {
            bad = checkCore(s.core(), n, cs, a);
          }
          if (bad != null) rep.fail(what + ": " + bad);
        }
      }
    }
    return rep;
  }

  /**
   * Budgets: PHP(11,10) (far beyond a few hundred conflicts) must come back UNKNOWN under a
   * conflict budget and under a time budget, and the solver must stay usable: under an
   * assumption that empties a pigeon's row it answers UNSAT with that core.
   */
  public static Report budgets() {
    Report rep = new Report();
    int p = 11, h = 10;
    int[] noHole = new int[h];
    for (int j = 0; j < h; j++) noHole[j] = -(j + 1);
    for (int mode = 0; mode < 2; mode++) {
      CdclSolver s = new CdclSolver();
      if (mode == 0) s.setConflictBudget(300);
      else s.setTimeBudget(200);
      long t0 = System.nanoTime();
      Status st = solveFresh(s, p * h, pigeonhole(p, h));
      long ms = (System.nanoTime() - t0) / 1_000_000;
      rep.count(st);
      if (st != Status.UNKNOWN) rep.fail("budget " + mode + ": " + st);
      if (ms > 5000) rep.fail("budget " + mode + ": took " + ms + " ms");
      if (mode == 0 && s.stats().conflicts > 301) rep.fail("conflict budget overrun: " + s.stats().conflicts);
      Status st2 = s.solve(noHole);
      rep.count(st2);
      if (st2 != Status.UNSAT) rep.fail("after UNKNOWN, assuming pigeon 1 has no hole: " + st2);
      else if (s.core().length == 0) rep.fail("after UNKNOWN: empty core");
    }
    return rep;
  }

  // ================================================================== the acyclicity theory

  /**
   * A random small instance. Shapes: PolySI constraints with one variable per constraint
   * (x: either side, ¬x: or side), with two variables and exactly-one clauses (Viper's XOR),
   * and free-form edge variables with random clauses and literals bound to several edges.
   */
  public static GraphInstance randomGraph(Random r, int maxNodes, int maxVars) {
    int nodes = 2 + r.nextInt(maxNodes - 1);
    int nk = r.nextInt(nodes + 2);
    IntList kf = new IntList(), kt = new IntList();
    boolean allowKnownCycle = r.nextInt(20) == 0;
    int[] rank = shuffled(r, nodes); // a hidden order that known edges mostly follow
    for (int i = 0; i < nk; i++) {
      int a = r.nextInt(nodes), b = r.nextInt(nodes);
      if (a == b) continue;
      if (!allowKnownCycle && rank[a] > rank[b]) {
        int t = a;
        a = b;
        b = t;
      }
      kf.add(a);
      kt.add(b);
    }
    IntList bl = new IntList(), bf = new IntList(), bt = new IntList();
    List<int[]> cs = new ArrayList<>();
    int shape = r.nextInt(3);
    int nVars = 0;
    if (shape == 0 || shape == 1) {
      int m = 1 + r.nextInt(shape == 0 ? maxVars : maxVars / 2);
      for (int c = 0; c < m; c++) {
        int x = ++nVars;
        int y = shape == 0 ? -x : ++nVars;
        int a = r.nextInt(nodes), b = r.nextInt(nodes);
        if (a == b) b = (a + 1) % nodes;
        // PolySI shape: either = {a→b} ∪ {r→b : r reads a}, or = {b→a} ∪ {r'→a : r' reads b}
        bl.add(x); bf.add(a); bt.add(b);
        bl.add(y); bf.add(b); bt.add(a);
        int extra = r.nextInt(3);
        for (int e = 0; e < extra; e++) { bl.add(x); bf.add(r.nextInt(nodes)); bt.add(b); }
        extra = r.nextInt(3);
        for (int e = 0; e < extra; e++) { bl.add(y); bf.add(r.nextInt(nodes)); bt.add(a); }
        if (shape == 1) {
          cs.add(new int[] {x, y});
          if (r.nextInt(4) != 0) cs.add(new int[] {-x, -y});
        }
      }
    } else {
      nVars = 1 + r.nextInt(maxVars);
      int nb = nVars + r.nextInt(nVars + 1);
      for (int i = 0; i < nb; i++) {
        int v = 1 + r.nextInt(nVars);
        bl.add(r.nextInt(4) == 0 ? -v : v);
        int a = r.nextInt(nodes), b = r.nextInt(nodes);
        if (a == b && r.nextInt(4) != 0) b = (a + 1) % nodes; // self-loops are rare but possible
        bf.add(a);
        bt.add(b);
      }
      int nc = r.nextInt(nVars + 2);
      for (int[] c : randomCnf(r, nVars, nc, 1 + r.nextInt(3))) cs.add(c);
    }
    return new GraphInstance(nodes, nVars, kf.toArray(), kt.toArray(), bl.toArray(), bf.toArray(), bt.toArray(),
        cs.toArray(new int[0][]));
  }

  static int[] shuffled(Random r, int n) {
    int[] a = new int[n];
    for (int i = 0; i < n; i++) a[i] = i;
    for (int i = n - 1; i > 0; i--) {
      int j = r.nextInt(i + 1);
      int t = a[i];
      a[i] = a[j];
      a[j] = t;
    }
    return a;
  }

  /** Checks a SAT answer: clauses, assumptions, acyclicity, the order and the edge list. */
  static String checkGraphModel(AcyclicitySolver s, GraphInstance g, int[] assumptions) {
    String bad = checkModel(s, g.clauses);
    if (bad != null) return bad;
    for (int a : assumptions) if (!s.modelValue(a)) return "model violates assumption " + a;
    int[] order = s.topologicalOrder();
    int[] pos = new int[g.nodes];
    Arrays.fill(pos, -1);
    if (order.length != g.nodes) return "order has " + order.length + " nodes";
    for (int p = 0; p < order.length; p++) {
      if (pos[order[p]] >= 0) return "order repeats node " + order[p];
      pos[order[p]] = p;
    }
    for (int i = 0; i < g.knownFrom.length; i++) {
      if (pos[g.knownFrom[i]] >= pos[g.knownTo[i]]) return "order contradicts known edge " + g.knownFrom[i] + "->" + g.knownTo[i];
    }
    List<Long> expect = new ArrayList<>();
    for (int i = 0; i < g.bLit.length; i++) {
      if (!s.modelValue(g.bLit[i])) continue;
      if (pos[g.bFrom[i]] >= pos[g.bTo[i]]) return "order contradicts chosen edge " + g.bFrom[i] + "->" + g.bTo[i];
      expect.add(((long) g.bFrom[i] << 32) | g.bTo[i]);
    }
    int[] me = s.modelEdges();
    List<Long> got = new ArrayList<>();
    for (int i = 0; i < me.length; i += 2) got.add(((long) me[i] << 32) | me[i + 1]);
    java.util.Collections.sort(expect);
    java.util.Collections.sort(got);
    if (!expect.equals(got)) return "modelEdges " + Arrays.toString(me) + " is not the chosen edges";
    return null;
  }

  /**
   * Checks a refutation step by step: each derived literal follows from an instance clause, a
   * cycle of instance edges, or (unchecked) a learnt clause, given the literals derived before;
   * the final step is a clause all false or a cycle of known and derived edges.
   */
  static String checkRefutation(Refutation ref, GraphInstance g, Report rep) {
    if (ref == null) return "UNSAT without a refutation";
    Set<String> clauses = new HashSet<>();
    for (int[] c : g.clauses) clauses.add(key(c));
    Set<Integer> derived = new HashSet<>();
    boolean self = true;
    for (int i = 0; i < ref.steps.size(); i++) {
      Refutation.Step st = ref.steps.get(i);
      boolean last = i == ref.steps.size() - 1;
      if (last != (st.lit == 0)) return "step " + i + " misplaced final conflict";
      switch (st.reason) {
        case LEARNT:
          self = false;
          if (!last && !containsLit(st.clause, st.lit)) return "learnt step " + i + " does not contain its literal";
          break;
        case CLAUSE:
          if (!clauses.contains(key(st.clause)) && !(st.clause.length == 1 && isSelfLoopUnit(g, st.clause[0])))
            return "step " + i + " uses clause " + Arrays.toString(st.clause) + " that the instance lacks";
          for (int l : st.clause) {
            if (l == st.lit) continue;
            if (!derived.contains(-l)) return "step " + i + ": literal " + l + " of its clause is not yet false";
          }
          if (!last && !containsLit(st.clause, st.lit)) return "step " + i + " clause lacks its literal";
          break;
        case CYCLE:
          EdgeCycle c = st.cycle;
          if (c == null) return "step " + i + " has no cycle";
          for (int j = 0; j < c.length(); j++) {
            int l = c.lits[j], a = c.from(j), b = c.to(j);
            if (l == 0) {
              if (!hasKnown(g, a, b)) return "step " + i + ": " + a + "->" + b + " is not a known edge";
            } else {
              if (!hasBinding(g, l, a, b)) return "step " + i + ": " + a + "->" + b + " is not bound to " + l;
              boolean refuted = !last && j == 0 && l == -st.lit;
              if (!refuted && !derived.contains(l)) return "step " + i + ": edge literal " + l + " not derived (cycle " + c + ")";
            }
          }
          if (!last && c.lits[0] != -st.lit) return "step " + i + ": cycle does not start with the refuted edge";
          break;
        default:
          return "unknown reason";
      }
      if (!last) derived.add(st.lit);
    }
    if (self) rep.selfContained++;
    return null;
  }

  private static boolean isSelfLoopUnit(GraphInstance g, int l) {
    for (int i = 0; i < g.bLit.length; i++) if (g.bLit[i] == -l && g.bFrom[i] == g.bTo[i]) return true;
    return false;
  }

  private static boolean containsLit(int[] c, int l) {
    for (int x : c) if (x == l) return true;
    return false;
  }

  private static String key(int[] c) {
    int[] s = Arrays.stream(c).distinct().sorted().toArray();
    return Arrays.toString(s);
  }

  private static boolean hasKnown(GraphInstance g, int a, int b) {
    for (int i = 0; i < g.knownFrom.length; i++) if (g.knownFrom[i] == a && g.knownTo[i] == b) return true;
    return false;
  }

  private static boolean hasBinding(GraphInstance g, int l, int a, int b) {
    for (int i = 0; i < g.bLit.length; i++) if (g.bLit[i] == l && g.bFrom[i] == a && g.bTo[i] == b) return true;
    return false;
  }

  /**
   * Random graph instances against brute force over all assignments, with each of the four
   * option settings (polarity from the order or saved phase; theory propagation on or off),
   * and lazy decisions on or off.
   * UNSAT answers must come with a refutation that checks.
   */
  public static Report graphs(long seed, int count, int maxNodes, int maxVars) {
    Report rep = new Report();
    for (int i = 0; i < count; i++) {
      Random r = new Random(seed + i);
      GraphInstance g = randomGraph(r, maxNodes, maxVars);
      boolean truth = BruteForce.solveGraph(g) >= 0;
      int opt = i & 3;
      // Lazy decisions (with the topological polarity) on for half the seeds, by the seed.
      boolean lazy = (((seed + i) >> 2) & 1) == 0;
      AcyclicitySolver s = g.load();
      s.setTopologicalPolarity((opt & 1) == 0);
      s.setTheoryPropagation((opt & 2) == 0);
      s.setLazyDecisions(lazy);
      Status st = s.solve();
      rep.count(st);
      String what = "seed " + (seed + i) + " options " + opt + (lazy ? "" : " eager");
      if (st == Status.UNKNOWN || (st == Status.SAT) != truth) {
        rep.fail(what + ": solver " + st + ", brute force " + (truth ? "SAT" : "UNSAT") + "\n" + g);
        continue;
      }
      String bad = st == Status.SAT ? checkGraphModel(s, g, new int[0]) : checkRefutation(s.refutation(), g, rep);
      if (bad != null) rep.fail(what + ": " + bad + "\n" + g);
    }
    return rep;
  }

  /**
   * One graph solver per instance asked repeatedly under random assumptions and without,
   * while constraints (bindings and clauses) arrive between the calls.
   */
  public static Report graphIncremental(long seed, int count, int maxNodes, int maxVars) {
    Report rep = new Report();
    for (int i = 0; i < count; i++) {
      Random r = new Random(seed + i);
      GraphInstance full = randomGraph(r, maxNodes, maxVars);
      AcyclicitySolver s = new AcyclicitySolver(full.nodes);
      for (int v = 0; v < full.nVars; v++) s.newVar();
      int kk = 0, bb = 0, cc = 0;
      int rounds = 3 + r.nextInt(3);
      for (int round = 0; round < rounds; round++) {
        boolean lastRound = round == rounds - 1;
        int k2 = lastRound ? full.knownFrom.length : Math.min(full.knownFrom.length, kk + r.nextInt(3));
        int b2 = lastRound ? full.bLit.length : Math.min(full.bLit.length, bb + r.nextInt(4));
        int c2 = lastRound ? full.clauses.length : Math.min(full.clauses.length, cc + r.nextInt(3));
        for (; kk < k2; kk++) s.addKnownEdge(full.knownFrom[kk], full.knownTo[kk]);
        for (; bb < b2; bb++) s.addEdge(full.bLit[bb], full.bFrom[bb], full.bTo[bb]);
        for (; cc < c2; cc++) s.addClause(full.clauses[cc]);
        GraphInstance g = new GraphInstance(full.nodes, full.nVars, Arrays.copyOf(full.knownFrom, kk),
            Arrays.copyOf(full.knownTo, kk), Arrays.copyOf(full.bLit, bb), Arrays.copyOf(full.bFrom, bb),
            Arrays.copyOf(full.bTo, bb), Arrays.copyOf(full.clauses, cc));
        int k = r.nextInt(4);
        int[] as = new int[k];
        for (int j = 0; j < k; j++) as[j] = (1 + r.nextInt(full.nVars)) * (r.nextBoolean() ? 1 : -1);
        for (int pass = 0; pass < 2; pass++) {
          int[] a = pass == 0 ? as : new int[0];
          Status st = s.solve(a);
          rep.count(st);
          boolean truth = BruteForce.solveGraph(g, a) >= 0;
          String what = "seed " + (seed + i) + " round " + round + (pass == 0 ? " assuming " + Arrays.toString(a) : "");
          if (st == Status.UNKNOWN || (st == Status.SAT) != truth) {
            rep.fail(what + ": solver " + st + ", brute force " + (truth ? "SAT" : "UNSAT") + "\n" + g);
            continue;
          }
          String bad = null;
          if (st == Status.SAT) bad = checkGraphModel(s, g, a);
          else {
            int[] core = s.core();
            Set<Integer> in = new HashSet<>();
            for (int l : a) in.add(l);
            for (int l : core) if (!in.contains(l)) bad = "core " + Arrays.toString(core) + " not within assumptions";
            if (bad == null && BruteForce.solveGraph(g, core) >= 0) bad = "core " + Arrays.toString(core) + " is satisfiable";
            if (bad == null && core.length == 0) bad = checkRefutation(s.refutation(), g, rep);
          }
          if (bad != null) rep.fail(what + ": " + bad + "\n" + g);
        }
      }
    }
    return rep;
  }

  // ================================================================== Pearce–Kelly alone

  /**
   * Random insertions and LIFO removals on a {@link TopologicalOrder} against a plain edge list:
   * an insertion must be refused exactly when the target already reaches the source; the order
   * must stay topological; {@link TopologicalOrder#path} must find a least-cost path over the
   * edges below the limit whenever one exists.
   */
  public static Report topologicalOrder(long seed, int count, int maxNodes, int ops) {
    Report rep = new Report();
    for (int i = 0; i < count; i++) {
      Random r = new Random(seed + i);
      int n = 2 + r.nextInt(maxNodes - 1);
      TopologicalOrder t = new TopologicalOrder(n);
      IntList ef = new IntList(), et = new IntList(), ec = new IntList();
      rep.instances++;
      String what = "seed " + (seed + i);
      for (int op = 0; op < ops && rep.failures == 0; op++) {
        int kind = r.nextInt(10);
        if (kind == 0 && ef.size() > 0) {
          int keep = r.nextInt(ef.size() + 1);
          t.truncate(keep);
          ef.truncate(keep);
          et.truncate(keep);
          ec.truncate(keep);
        } else if (kind == 1 && r.nextInt(10) == 0) {
          t.addNode();
          n++;
        } else {
          int a = r.nextInt(n), b = r.nextInt(n), cost = r.nextInt(2);
          boolean closes = a == b || refCost(n, ef, et, ec, ef.size(), b, a) >= 0;
          int e = t.add(a, b, 1000 + op, cost);
          if (closes != (e < 0)) {
            rep.fail(what + " op " + op + ": add " + a + "->" + b + " returned " + e + " but closes=" + closes);
            break;
          }
          if (e >= 0) {
            if (e != ef.size()) rep.fail(what + ": edge id " + e + ", expected " + ef.size());
            ef.add(a);
            et.add(b);
            ec.add(cost);
          }
        }
        if (t.edgeCount() != ef.size()) rep.fail(what + ": edge count " + t.edgeCount() + " vs " + ef.size());
        if (!t.consistent()) rep.fail(what + " op " + op + ": order not topological");
        // Paths between random pairs, under a random limit.
        for (int q = 0; q < 2; q++) {
          int src = r.nextInt(n), dst = r.nextInt(n), limit = r.nextInt(ef.size() + 1);
          int want = refCost(n, ef, et, ec, limit, src, dst);
          IntList p = new IntList();
          int got = t.path(src, dst, limit, p);
          if (got != want) {
            rep.fail(what + " op " + op + ": path " + src + "=>" + dst + " limit " + limit + " cost " + got + ", expected " + want);
            break;
          }
          if (got >= 0) {
            int at = src, sum = 0;
            for (int j = 0; j < p.size(); j++) {
              int e = p.get(j);
              if (e >= limit || ef.get(e) != at) {
                rep.fail(what + ": path edge " + e + " does not continue from " + at);
                break;
              }
              sum += ec.get(e);
              at = et.get(e);
            }
            if (at != dst || sum != got) rep.fail(what + ": path ends at " + at + " with cost " + sum);
          }
        }
      }
    }
    return rep;
  }

  /** Least cost src ⇝ dst over edges with id &lt; limit (Bellman–Ford), or -1. */
  static int refCost(int n, IntList ef, IntList et, IntList ec, int limit, int src, int dst) {
    int[] d = new int[n];
    Arrays.fill(d, Integer.MAX_VALUE);
    d[src] = 0;
    for (int round = 0; round < n; round++) {
      boolean changed = false;
      for (int e = 0; e < limit; e++) {
        int a = ef.get(e), b = et.get(e);
        if (d[a] != Integer.MAX_VALUE && d[a] + ec.get(e) < d[b]) {
          d[b] = d[a] + ec.get(e);
          changed = true;
        }
      }
      if (!changed) break;
    }
    return d[dst] == Integer.MAX_VALUE ? -1 : d[dst];
  }
}
