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

  /** Packs an edge list over nodes 0..n-1, merging parallel edges. */
  public static Digraph of(int n, EdgeList es) {
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
    // Sort each adjacency by target and merge duplicates, compacting in place.
    int[] start = new int[n + 1];
    int w = 0;
    long[] buf = new long[16];
    for (int v = 0; v < n; v++) {
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
    start[n] = w;
    return new Digraph(n, start, w == m ? tgt : Arrays.copyOf(tgt, w), w == m ? msk : Arrays.copyOf(msk, w));
  }
}
