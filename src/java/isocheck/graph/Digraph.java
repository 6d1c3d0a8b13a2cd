package isocheck.graph;

import java.util.Arrays;

/**
 * A compact directed graph in CSR form: for node v, its out-edges are positions
 * {@code [start(v), start(v+1))} of the target and mask arrays, sorted by target, one entry per
 * target with the union of the edge types. Self-loops are kept (a transaction that depends on
 * itself is a one-node cycle).
 */
public final class Digraph {
  public final int n;
  final int[] start;
  final int[] target;
  final byte[] mask;

  Digraph(int n, int[] start, int[] target, byte[] mask) {
    this.n = n;
    this.start = start;
    this.target = target;
    this.mask = mask;
  }

  public int start(int v) { return start[v]; }
  public int end(int v) { return start[v + 1]; }
  public int target(int e) { return target[e]; }
  public int mask(int e) { return mask[e]; }
  public int edgeCount() { return target.length; }

  /** The union of edge types from a to b, or 0 when there is no edge. */
  public int maskOf(int a, int b) {
    int lo = start[a], hi = start[a + 1] - 1;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      int t = target[mid];
      if (t < b) lo = mid + 1;
      else if (t > b) hi = mid - 1;
      else return mask[mid];
    }
    return 0;
  }

  /**
   * Packs an edge list over nodes 0..n-1, merging parallel edges. On every core
   * ({@link isocheck.util.Ranges}), from a million edges on: each range of edges is counted and
   * scattered into its own slots of each node's adjacency (after the ranges before it, so the
   * order is the sequential one), and each range of nodes sorts and merges its adjacencies in
   * place, the ranges then moved together. The graph is the same for any split.
   */
  public static Digraph of(int n, EdgeList es) {
    int m = es.n;
    isocheck.util.Ranges er = m >= PARALLEL_EDGES ? new isocheck.util.Ranges(m) : null;
    if (er == null || er.count == 1) return sequential(n, es);
    int parts = er.count;
    // Per range of edges: its count per source node.
    int[][] cnt = new int[parts][];
    er.forEach(c -> {
      int[] k = new int[n];
      for (int i = er.from(c), e = er.to(c); i < e; i++) k[es.src[i]]++;
      cnt[c] = k;
    });
    int[] count = new int[n + 1];
    for (int v = 0; v < n; v++) {
      int sum = count[v];
      for (int c = 0; c < parts; c++) {
        int k = cnt[c][v];
        cnt[c][v] = sum; // (now: where range c's edges of v start)
        sum += k;
      }
      count[v + 1] = sum;
    }
    int[] tgt = new int[m];
    byte[] msk = new byte[m];
    er.forEach(c -> {
      int[] pos = cnt[c];
      for (int i = er.from(c), e = er.to(c); i < e; i++) {
        int p = pos[es.src[i]]++;
        tgt[p] = es.dst[i];
        msk[p] = es.type[i];
      }
    });
    // Per range of nodes: sort and merge in place, within the range's own slots.
    isocheck.util.Ranges nr = new isocheck.util.Ranges(n);
    int[] start = new int[n + 1];
    int[] end = new int[nr.count];
    nr.forEach(c -> end[c] = compact(count, tgt, msk, start, nr.from(c), nr.to(c), count[nr.from(c)]));
    // Move the ranges' compacted slots together.
    int w = end[0];
    for (int c = 1; c < nr.count; c++) {
      int from = nr.from(c), base = count[from], len = end[c] - base, shift = base - w;
      if (shift > 0) {
        System.arraycopy(tgt, base, tgt, w, len);
        System.arraycopy(msk, base, msk, w, len);
        for (int v = from, to = nr.to(c); v < to; v++) start[v] -= shift;
      }
      w += len;
    }
    start[n] = w;
    return new Digraph(n, start, w == m ? tgt : Arrays.copyOf(tgt, w), w == m ? msk : Arrays.copyOf(msk, w));
  }

  /** Edges from which {@link #of} packs on every core. */
  static final int PARALLEL_EDGES = 1 << 20;

  private static Digraph sequential(int n, EdgeList es) {
    int m = es.n;
    int[] count = new int[n + 1];
    for (int i = 0; i < m; i++) count[es.src[i] + 1]++;
    for (int v = 0; v < n; v++) count[v + 1] += count[v];
    int[] pos = Arrays.copyOf(count, n);
    int[] tgt = new int[m];
    byte[] msk = new byte[m];
    for (int i = 0; i < m; i++) {
      int p = pos[es.src[i]]++;
      tgt[p] = es.dst[i];
      msk[p] = es.type[i];
    }
    int[] start = new int[n + 1];
    int w = compact(count, tgt, msk, start, 0, n, 0);
    start[n] = w;
    return new Digraph(n, start, w == m ? tgt : Arrays.copyOf(tgt, w), w == m ? msk : Arrays.copyOf(msk, w));
  }

  /**
   * Sorts each adjacency of nodes [from, to) (slots count[v]..count[v+1]) by target and merges
   * duplicates, compacting from slot w on (w ≤ count[from]); sets start[v]; returns the end.
   */
  private static int compact(int[] count, int[] tgt, byte[] msk, int[] start, int from, int to, int w) {
    long[] buf = new long[16];
    for (int v = from; v < to; v++) {
      int a = count[v], b = count[v + 1];
      start[v] = w;
      int len = b - a;
      if (len == 0) continue;
      if (len == 1) {
        tgt[w] = tgt[a];
        msk[w] = msk[a];
        w++;
        continue;
      }
      if (buf.length < len) buf = new long[Math.max(len, buf.length * 2)];
      for (int i = 0; i < len; i++) buf[i] = ((long) tgt[a + i] << 8) | (msk[a + i] & 0xff);
      Arrays.sort(buf, 0, len);
      int lastT = -1;
      for (int i = 0; i < len; i++) {
        int t = (int) (buf[i] >>> 8);
        byte mk = (byte) buf[i];
        if (t == lastT) msk[w - 1] |= mk;
        else {
          tgt[w] = t;
          msk[w] = mk;
          w++;
          lastT = t;
        }
      }
    }
    return w;
  }
}
