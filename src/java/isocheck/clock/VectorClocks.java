package isocheck.clock;

import java.util.Arrays;

/**
 * Flat vector clocks (C4 §4.2, Plume §4.2 "Vec[t]"): node t's clock is the k entries
 * {@code v[t·k .. t·k+k-1]} of one int array, entry s the highest position of session s that
 * reaches t. {@link #join} is the pointwise max, Θ(k). No allocation after construction.
 *
 * <p>Unlike {@link TreeClocks}, the entries are plain numbers with no claim about what each one
 * implies, so the build order is free and the checker may also {@link #raise} and {@link #copy}
 * entries directly, as it does when it collapses a strongly connected component of CO (every
 * member then gets the component's join).
 */
public final class VectorClocks implements Clocks {
  private final int n, k;
  private final int[] v;

  public VectorClocks(int nodes, int sessions) {
    this.n = nodes;
    this.k = sessions;
    this.v = new int[ClockKind.entries("vector", nodes, sessions, 1)];
  }

  @Override public void start(int t, int s, int index) {
    ClockKind.checkStart(t, s, index, k);
    int o = t * k;
    Arrays.fill(v, o, o + k, 0);
    v[o + s] = index;
  }

  @Override public void join(int t, int p) {
    int o = t * k, q = p * k;
    for (int s = 0; s < k; s++) {
      int x = v[q + s];
      if (x > v[o + s]) v[o + s] = x;
    }
  }

  /** Entry s of t := max(entry, value). */
  public void raise(int t, int s, int value) {
    int i = t * k + s;
    if (value > v[i]) v[i] = value;
  }

  /** t's clock := from's clock. */
  public void copy(int t, int from) {
    System.arraycopy(v, from * k, v, t * k, k);
  }

  @Override public int get(int t, int s) { return v[t * k + s]; }

  @Override public int sessions() { return k; }

  /** Number of nodes (clocks). */
  public int nodes() { return n; }

  @Override public long bytes() { return 4L * v.length; }

  @Override public String name() { return "vector"; }
}
