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

  /** Appends o's edges, in order. */
  public void addAll(EdgeList o) {
    if (n + o.n > src.length) {
      int c = Math.max(n + o.n, n * 2);
      src = Arrays.copyOf(src, c);
      dst = Arrays.copyOf(dst, c);
      type = Arrays.copyOf(type, c);
    }
    System.arraycopy(o.src, 0, src, n, o.n);
    System.arraycopy(o.dst, 0, dst, n, o.n);
    System.arraycopy(o.type, 0, type, n, o.n);
    n += o.n;
  }

  public int size() { return n; }
  public int src(int i) { return src[i]; }
  public int dst(int i) { return dst[i]; }
  public int type(int i) { return type[i]; }
}
