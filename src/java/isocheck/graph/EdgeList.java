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

  /**
   * A list of exactly {@code size} edges, each to be set once by {@link #set} (in parallel, by
   * disjoint ranges of indices: no growth, nothing shared but the arrays).
   */
  public static EdgeList ofSize(int size) {
    EdgeList es = new EdgeList(size);
    es.n = size;
    return es;
  }

  /** Sets edge i (of a list made by {@link #ofSize}). */
  public void set(int i, int from, int to, int t) {
    src[i] = from;
    dst[i] = to;
    type[i] = (byte) t;
  }

  public int size() { return n; }
  public int src(int i) { return src[i]; }
  public int dst(int i) { return dst[i]; }
  public int type(int i) { return type[i]; }
}
