package isocheck.graph;

import java.util.Arrays;

/** Edges as they are discovered (duplicates allowed), before they are packed into a {@link Digraph}. */
public final class EdgeList {
  int[] src, dst;
  byte[] type;
  int n;

  public EdgeList() { this(1024); }

  /** An edge list with room for about {@code capacity} edges before it grows. */
  public EdgeList(int capacity) {
    int c = Math.max(16, capacity);
    src = new int[c];
    dst = new int[c];
    type = new byte[c];
  }

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
