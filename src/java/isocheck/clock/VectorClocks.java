package isocheck.clock;

/** TEMPORARY stub (replaced by the clock branch). */
public final class VectorClocks implements Clocks {
  final int k; final int[] v;
  public VectorClocks(int nodes, int sessions) { k = sessions; v = new int[nodes * sessions]; }
  public void start(int t, int s, int index) { java.util.Arrays.fill(v, t * k, t * k + k, 0); v[t * k + s] = index; }
  public void join(int t, int p) { for (int i = 0; i < k; i++) v[t * k + i] = Math.max(v[t * k + i], v[p * k + i]); }
  public int get(int t, int s) { return v[t * k + s]; }
  public void raise(int t, int s, int value) { v[t * k + s] = Math.max(v[t * k + s], value); }
  public void copy(int t, int from) { System.arraycopy(v, from * k, v, t * k, k); }
  public int sessions() { return k; }
  public long bytes() { return 4L * v.length; }
  public String name() { return "vector"; }
}
