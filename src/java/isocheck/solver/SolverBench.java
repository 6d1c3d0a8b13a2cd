package isocheck.solver;

import isocheck.util.IntList;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Solve time of the {@link AcyclicitySolver} on polygraph-shaped instances, as a program (not a
 * test): decision polarity from the topological order versus the saved phase, and theory
 * propagation on versus off.
 *
 * <p>An instance is the generalized polygraph (PolySI Def. 9) of a serializable rw-register
 * history, before any pruning except the trivial one (two writers in one session are ordered
 * by it): n transactions spread at random over k sessions, executed one after another in a
 * hidden serial order; half read-only, half write-only (Viper's BlindW-RW), 8 distinct keys
 * each, uniform over the key space; a read returns the key's latest write, or the initial
 * state's. Known edges: T⊥ → each session's first transaction, session order, write-read,
 * and reader-of-T⊥ → every writer of the key. One variable per unordered pair of writers of a
 * common key (coalesced over keys, as PolySI's artifact does): x puts "a before b" (WW a→b and
 * RW r→b for each reader r of a's version), ¬x the opposite. Node ids are a random permutation
 * of the serial order, so the initial topological order does not give the answer away
 * ({@code --id-window 1} numbers them in serial order instead, and {@code --id-window W}
 * shuffles serial positions within windows of W, as Jepsen's completion order nearly follows
 * the serial order: the initial order, Kahn's smallest id first, is then close to it). The
 * history is serializable, so the instance is SAT by construction; with {@code stale > 0}, that
 * many reads return the version before the one they should (a stale read), which usually makes
 * the history unserializable; seeds where that shows in the known edges alone are skipped.
 *
 * <p>Usage: {@code lein javac && java -Xmx3g -cp target/classes isocheck.solver.SolverBench
 * [--runs R] [--budget SECONDS] [--sessions K] [--stale S] [--id-window W] [--configs C,...]
 * TXNS:KEYS ...}
 * where the configurations are topo+prop, topo, phase+prop, phase, and lazy+prop (topo+prop
 * with lazy decisions, AcyclicitySolver#setLazyDecisions; not run unless named) (default sizes
 * 500:500 1000:1000 2000:1000 4000:2000 8000:2000, 3 runs with seeds 1..R, medians, 60 s
 * budget per solve; an UNKNOWN counts as the budget).
 */
public final class SolverBench {
  private SolverBench() {}

  /**
   * How node ids relate to the serial order (--id-window W): 0, ids are a random permutation;
   * 1, ids are serial positions (the best case); W &gt; 1, serial positions shuffled within
   * windows of W, like completion order under concurrency.
   */
  static int idWindow = 0;

  /** A generated polygraph. */
  public static final class Instance {
    public final int nodes;
    public final IntList knownFrom = new IntList(), knownTo = new IntList();
    /** Per constraint: the "either" edges and the "or" edges, flattened pairs. */
    public final List<int[]> either = new ArrayList<>(), or = new ArrayList<>();

    Instance(int nodes) { this.nodes = nodes; }

    public int constraints() { return either.size(); }

    /** Loads it into a fresh solver: one variable per constraint. */
    public AcyclicitySolver load() {
      AcyclicitySolver s = new AcyclicitySolver(nodes);
      for (int i = 0; i < knownFrom.size(); i++) s.addKnownEdge(knownFrom.get(i), knownTo.get(i));
      for (int c = 0; c < either.size(); c++) {
        int x = s.newVar();
        int[] a = either.get(c), b = or.get(c);
        for (int i = 0; i < a.length; i += 2) s.addEdge(x, a[i], a[i + 1]);
        for (int i = 0; i < b.length; i += 2) s.addEdge(-x, b[i], b[i + 1]);
      }
      return s;
    }
  }

  /**
   * See the class comment. With stale reads, seeds whose known edges alone are cyclic (the
   * stale read contradicts session or write-read order directly, no search needed) are skipped:
   * the next seed (+1000) is tried, so that the solver has work to do.
   */
  public static Instance generate(long seed, int txns, int sessions, int keys, int stale) {
    for (int tries = 0; ; tries++) {
      Instance g = generateOnce(seed + 1000L * tries, txns, sessions, keys, stale);
      if (stale == 0 || tries == 50 || knownAcyclic(g)) return g;
    }
  }

  static boolean knownAcyclic(Instance g) {
    AcyclicitySolver s = new AcyclicitySolver(g.nodes);
    for (int i = 0; i < g.knownFrom.size(); i++) s.addKnownEdge(g.knownFrom.get(i), g.knownTo.get(i));
    return s.solve() == Status.SAT;
  }

  private static Instance generateOnce(long seed, int txns, int sessions, int keys, int stale) {
    SplittableRandom r = new SplittableRandom(seed);
    int n = txns + 1; // node 0 is the initial transaction T⊥
    int[] id = new int[n]; // serial position -> node id (T⊥ stays 0)
    for (int i = 0; i < n; i++) id[i] = i;
    for (int i = n - 1; i > 1 && idWindow != 1; i--) {
      // Fisher–Yates, within windows of idWindow positions when idWindow > 1
      int lo = idWindow > 1 ? Math.max(1, i - i % idWindow) : 1;
      int j = lo + r.nextInt(i - lo + 1);
      int t = id[i];
      id[i] = id[j];
      id[j] = t;
    }
    Instance g = new Instance(n);
    int[] session = new int[n];
    int[] lastInSession = new int[sessions];
    Arrays.fill(lastInSession, -1);
    int[] latest = new int[keys]; // latest writer per key (node id); 0 = T⊥
    // Per key: writers in serial order; per (key, writer) the readers of that version.
    List<IntList> writers = new ArrayList<>();
    for (int x = 0; x < keys; x++) writers.add(new IntList());
    Map<Long, IntList> readers = new HashMap<>();
    List<int[]> reads = new ArrayList<>(); // {reader, key, writer}
    for (int p = 1; p < n; p++) {
      int t = id[p];
      int s = r.nextInt(sessions);
      session[t] = s;
      if (lastInSession[s] < 0) {
        g.knownFrom.add(0);
        g.knownTo.add(t);
      } else {
        g.knownFrom.add(lastInSession[s]);
        g.knownTo.add(t);
      }
      lastInSession[s] = t;
      boolean writes = r.nextBoolean();
      int[] ks = distinctKeys(r, keys, Math.min(8, keys));
      for (int x : ks) {
        if (writes) {
          latest[x] = t;
          writers.get(x).add(t);
        } else {
          reads.add(new int[] {t, x, latest[x]});
        }
      }
    }
    // Stale reads: read the version before the right one (when there is one).
    for (int i = 0; i < stale && !reads.isEmpty(); i++) {
      int[] rd = reads.get(r.nextInt(reads.size()));
      IntList ws = writers.get(rd[1]);
      int k = -1;
      for (int j = 0; j < ws.size(); j++) if (ws.get(j) == rd[2]) k = j;
      if (k > 0) rd[2] = ws.get(k - 1);
      else if (k == 0) rd[2] = 0;
    }
    for (int[] rd : reads) {
      int t = rd[0], x = rd[1], w = rd[2];
      if (w != 0) {
        g.knownFrom.add(w);
        g.knownTo.add(t);
      }
      readers.computeIfAbsent(((long) x << 32) | w, z -> new IntList()).add(t);
    }
    // Readers of T⊥'s version precede every writer of the key.
    for (int x = 0; x < keys; x++) {
      IntList rs = readers.get((long) x << 32);
      if (rs == null) continue;
      IntList ws = writers.get(x);
      for (int i = 0; i < rs.size(); i++) {
        for (int j = 0; j < ws.size(); j++) {
          if (rs.get(i) != ws.get(j)) {
            g.knownFrom.add(rs.get(i));
            g.knownTo.add(ws.get(j));
          }
        }
      }
    }
    // One constraint per unordered writer pair, sides coalesced over the keys they share.
    Map<Long, Integer> pairIndex = new HashMap<>();
    List<IntList> eitherL = new ArrayList<>(), orL = new ArrayList<>();
    int[] sessionPos = new int[n];
    int[] count = new int[sessions];
    for (int p = 1; p < n; p++) sessionPos[id[p]] = count[session[id[p]]]++;
    for (int x = 0; x < keys; x++) {
      IntList ws = writers.get(x);
      for (int i = 0; i < ws.size(); i++) {
        for (int j = i + 1; j < ws.size(); j++) {
          int a = Math.min(ws.get(i), ws.get(j)), b = Math.max(ws.get(i), ws.get(j));
          long key = ((long) a << 32) | b;
          Integer c = pairIndex.get(key);
          if (c == null) {
            c = eitherL.size();
            pairIndex.put(key, c);
            eitherL.add(new IntList());
            orL.add(new IntList());
          }
          // either: a before b (WW a→b, RW readers-of-a → b); or: the reverse.
          side(eitherL.get(c), a, b, readers.get(((long) x << 32) | a));
          side(orL.get(c), b, a, readers.get(((long) x << 32) | b));
        }
      }
    }
    for (int c = 0; c < eitherL.size(); c++) {
      int[] e = dedupe(eitherL.get(c)), o = dedupe(orL.get(c));
      int a = e[0], b = e[1];
      if (session[a] == session[b]) {
        // Trivial pruning: session order decides the pair; its side becomes known.
        int[] known = sessionPos[a] < sessionPos[b] ? e : o;
        for (int i = 0; i < known.length; i += 2) {
          g.knownFrom.add(known[i]);
          g.knownTo.add(known[i + 1]);
        }
      } else {
        g.either.add(e);
        g.or.add(o);
      }
    }
    return g;
  }

  private static void side(IntList s, int first, int second, IntList readersOfFirst) {
    s.add(first);
    s.add(second);
    if (readersOfFirst == null) return;
    for (int i = 0; i < readersOfFirst.size(); i++) {
      int rd = readersOfFirst.get(i);
      if (rd != second) {
        s.add(rd);
        s.add(second);
      }
    }
  }

  /** The pairs of s without repeats, the first pair (the WW edge) first. */
  private static int[] dedupe(IntList s) {
    java.util.LinkedHashSet<Long> seen = new java.util.LinkedHashSet<>();
    for (int i = 0; i < s.size(); i += 2) seen.add(((long) s.get(i) << 32) | s.get(i + 1));
    int[] out = new int[seen.size() * 2];
    int k = 0;
    for (long e : seen) {
      out[k++] = (int) (e >>> 32);
      out[k++] = (int) e;
    }
    return out;
  }

  private static int[] distinctKeys(SplittableRandom r, int keys, int k) {
    int[] ks = new int[k];
    for (int i = 0; i < k; i++) {
      int x;
      boolean dup;
      do {
        x = r.nextInt(keys);
        dup = false;
        for (int j = 0; j < i; j++) dup |= ks[j] == x;
      } while (dup);
      ks[i] = x;
    }
    return ks;
  }

  /** One measured solve. */
  static final class Run {
    Status status;
    double seconds;
    long conflicts, decisions, theoryConflicts, theoryPropagations, reorders;
  }

  static Run run(Instance g, boolean topo, boolean prop, long budgetMs) { return run(g, topo, prop, false, budgetMs); }

  static Run run(Instance g, boolean topo, boolean prop, boolean lazy, long budgetMs) {
    AcyclicitySolver s = g.load();
    s.setTopologicalPolarity(topo);
    s.setTheoryPropagation(prop);
    s.setLazyDecisions(lazy);
    s.setTimeBudget(budgetMs);
    long t0 = System.nanoTime();
    Run r = new Run();
    r.status = s.solve();
    r.seconds = (System.nanoTime() - t0) / 1e9;
    if (r.status == Status.UNKNOWN) r.seconds = budgetMs / 1000.0;
    SolverStats st = s.stats();
    r.conflicts = st.conflicts;
    r.decisions = st.decisions;
    r.theoryConflicts = st.theoryConflicts;
    r.theoryPropagations = st.theoryPropagations;
    r.reorders = st.reorders;
    return r;
  }

  private static double median(double[] a) {
    double[] b = a.clone();
    Arrays.sort(b);
    return b.length % 2 == 1 ? b[b.length / 2] : (b[b.length / 2 - 1] + b[b.length / 2]) / 2;
  }

  public static void main(String[] args) {
    int runs = 3, sessions = 20, stale = 0;
    long budgetMs = 60_000;
    List<int[]> sizes = new ArrayList<>();
    String[] names = {"topo+prop", "topo", "phase+prop", "phase", "lazy+prop"};
    boolean[] on = {true, true, true, true, false};
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--runs": runs = Integer.parseInt(args[++i]); break;
        case "--budget": budgetMs = (long) (Double.parseDouble(args[++i]) * 1000); break;
        case "--sessions": sessions = Integer.parseInt(args[++i]); break;
        case "--stale": stale = Integer.parseInt(args[++i]); break;
        case "--id-window": idWindow = Integer.parseInt(args[++i]); break;
        case "--configs":
          Arrays.fill(on, false);
          for (String c : args[++i].split(",")) on[Arrays.asList(names).indexOf(c)] = true;
          break;
        default:
          String[] p = args[i].split(":");
          sizes.add(new int[] {Integer.parseInt(p[0]), Integer.parseInt(p[1])});
      }
    }
    if (sizes.isEmpty()) {
      for (int[] sz : new int[][] {{500, 500}, {1000, 1000}, {2000, 1000}, {4000, 2000}, {8000, 2000}}) sizes.add(sz);
    }
    System.out.printf("sessions %d, stale reads %d, id window %d, %d runs per row (seeds 1..%d), medians; budget %.0f s%n",
        sessions, stale, idWindow, runs, runs, budgetMs / 1000.0);
    System.out.printf("%6s %6s %9s %9s | %-11s %8s %9s %9s %9s %8s %s%n", "txns", "keys", "constr", "edges",
        "config", "time s", "conflicts", "decisions", "th.confl", "th.prop", "answers");
    // Warm the JIT once on a small instance.
    run(generate(99, 300, sessions, 300, stale), true, true, budgetMs);
    for (int[] sz : sizes) {
      Instance[] gs = new Instance[runs];
      long constraints = 0, edges = 0;
      for (int k = 0; k < runs; k++) {
        gs[k] = generate(k + 1, sz[0], sessions, sz[1], stale);
        constraints += gs[k].constraints();
        for (int c = 0; c < gs[k].constraints(); c++) edges += (gs[k].either.get(c).length + gs[k].or.get(c).length) / 2;
      }
      for (int cfg = 0; cfg < names.length; cfg++) {
        if (!on[cfg]) continue;
        double[] t = new double[runs], cf = new double[runs], dc = new double[runs], tc = new double[runs], tp = new double[runs];
        StringBuilder ans = new StringBuilder();
        for (int k = 0; k < runs; k++) {
          Run r = cfg == 4 ? run(gs[k], true, true, true, budgetMs) : run(gs[k], cfg < 2, cfg % 2 == 0, budgetMs);
          t[k] = r.seconds;
          cf[k] = r.conflicts;
          dc[k] = r.decisions;
          tc[k] = r.theoryConflicts;
          tp[k] = r.theoryPropagations;
          ans.append(r.status == Status.SAT ? 'S' : r.status == Status.UNSAT ? 'U' : '?');
        }
        System.out.printf("%6d %6d %9d %9d | %-11s %8.3f %9.0f %9.0f %9.0f %8.0f %s%n", sz[0], sz[1], constraints / runs,
            edges / runs, names[cfg], median(t), median(cf), median(dc), median(tc), median(tp), ans);
      }
    }
  }
}
