package isocheck.graph;

import java.util.Arrays;

/** Edges as they are discovered (duplicates allowed), before they are packed into a {@link Digraph}. */
public final class EdgeList {
  int[] src = new int[1024], dst = new int[1024];
  byte[] type = new byte[1024];
  int n;

  public void add(int from, int to, int t) {
    if (n == src.length) {
      int c = n * 2;
      src = Arrays.copyOf(src, c);
      dst = Arrays.copyOf(dst, c);
      type = Arrays.copyOf(type, c);
    }
    src[n] = from;
    dst[n] = to;
    type[n] = (byte) t;
    n++;
  }

  public int size() { return n; }
  public int src(int i) { return src[i]; }
  public int dst(int i) { return dst[i]; }
  public int type(int i) { return type[i]; }
}
