package isocheck.clock;

import java.util.SplittableRandom;

/**
 * Build time and memory of {@link VectorClocks} and {@link TreeClocks}, as a program (not a test):
 * for each session count, one random DAG of n nodes, built by both kinds in the same order, then
 * 10^7 random {@link Clocks#reaches} queries.
 *
 * <p>The DAG: nodes are processed in id order, each in a uniformly random session (so sessions
 * interleave); each node joins its SO predecessor, then 0..2·cross cross-edge sources (cross on
 * average), half from the previous 1000 nodes (causal chains through recent work), half from
 * anywhere before it.
 *
 * <p>Usage: {@code java -Xmx4g -cp target/classes isocheck.clock.ClockBench [nodes] [cross]
 * [sessions...]} after {@code lein javac} (defaults: 1000000 nodes, 1 cross edge, 25 and 100
 * sessions). Tree clocks take 16 bytes an entry: 1.6 GB at 10^6 × 100.
 */
public final class ClockBench {
  private ClockBench() {}

  public static void main(String[] args) {
    int n = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
    int cross = args.length > 1 ? Integer.parseInt(args[1]) : 1;
    int[] ks = {25, 100};
    if (args.length > 2) {
      ks = new int[args.length - 2];
      for (int i = 2; i < args.length; i++) ks[i - 2] = Integer.parseInt(args[i]);
    }
    for (int k : ks) {
      Dag g = new Dag(n, k, cross, new SplittableRandom(42 + k));
      System.out.printf("%,d nodes, %d sessions, %,d joins (%,d cross)%n", n, k, g.start[n], g.start[n] - g.soJoins);
      for (String kind : ClockKind.NAMES) {
        for (int run = 0; run < 2; run++) {
          Clocks c = ClockKind.ofKind(kind, n, k);
          long t0 = System.nanoTime();
          g.build(c);
          double build = (System.nanoTime() - t0) / 1e9;
          t0 = System.nanoTime();
          long hits = g.query(c, 10_000_000, new SplittableRandom(7));
          double query = (System.nanoTime() - t0) / 1e9;
          String extra = c instanceof TreeClocks
              ? String.format(", per node %.1f entries examined, %.1f walked", ((TreeClocks) c).examined() / (double) n,
                  ((TreeClocks) c).walked() / (double) n)
              : "";
          System.out.printf("  %-6s run %d: build %.2f s, 10^7 reaches %.2f s (%,d true), %,d MB%s%n",
              kind, run + 1, build, query, hits, c.bytes() >> 20, extra);
          c = null;
          System.gc();
        }
      }
    }
  }

  /** A random DAG in processing order: node t's session, position and predecessors (SO first). */
  private static final class Dag {
    final int n;
    final int[] session, index, start, pred;
    int soJoins;

    Dag(int n, int k, int cross, SplittableRandom rnd) {
      this.n = n;
      session = new int[n];
      index = new int[n];
      start = new int[n + 1];
      int[] last = new int[k], len = new int[k];
      java.util.Arrays.fill(last, -1);
      int[] ps = new int[n * (1 + 2 * cross) + 1];
      int m = 0;
      for (int t = 0; t < n; t++) {
        int s = rnd.nextInt(k);
        session[t] = s;
        index[t] = ++len[s];
        start[t] = m;
        if (last[s] >= 0) {
          ps[m++] = last[s];
          soJoins++;
        }
        last[s] = t;
        int c = t == 0 ? 0 : rnd.nextInt(2 * cross + 1);
        for (int j = 0; j < c; j++) {
          ps[m++] = rnd.nextBoolean() ? Math.max(0, t - 1 - rnd.nextInt(1000)) : rnd.nextInt(t);
        }
      }
      start[n] = m;
      pred = java.util.Arrays.copyOf(ps, m);
    }

    void build(Clocks c) {
      for (int t = 0; t < n; t++) {
        c.start(t, session[t], index[t]);
        for (int e = start[t]; e < start[t + 1]; e++) c.join(t, pred[e]);
      }
    }

    long query(Clocks c, int queries, SplittableRandom rnd) {
      long hits = 0;
      for (int i = 0; i < queries; i++) {
        int a = rnd.nextInt(n), b = rnd.nextInt(n);
        if (c.reaches(session[a], index[a], b)) hits++;
      }
      return hits;
    }
  }
}
