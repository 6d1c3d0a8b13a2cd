package isocheck.util;

import java.util.Arrays;

/** A growable long array. */
public final class LongList {
  private long[] a;
  private int n;

  public LongList() { this(8); }
  public LongList(int cap) { a = new long[Math.max(1, cap)]; }

  public void add(long x) {
    if (n == a.length) a = Arrays.copyOf(a, a.length * 2);
    a[n++] = x;
  }

  public long get(int i) { return a[i]; }
  public void set(int i, long x) { a[i] = x; }
  public int size() { return n; }
  public void clear() { n = 0; }
  /** A list of the first n elements of a (which it then owns). */
  public static LongList of(long[] a, int n) {
    if (n > a.length) throw new IllegalArgumentException("size " + n + " over the array's " + a.length);
    LongList l = new LongList(1);
    l.a = a.length == 0 ? new long[1] : a;
    l.n = n;
    return l;
  }

  /** The backing array; valid up to {@link #size()}. */
  public long[] raw() { return a; }
  public long[] toArray() { return Arrays.copyOf(a, n); }

  /** Grows the backing array to hold at least {@code cap} elements. */
  public void ensureCapacity(int cap) {
    if (cap > a.length) a = Arrays.copyOf(a, cap);
  }

  /** The elements, without copying when the backing array is exactly full. */
  public long[] trimmed() { return n == a.length ? a : Arrays.copyOf(a, n); }

  /** The backing array when at most a quarter of it is spare (the caller tracks the size), else a trimmed copy. */
  public long[] compact() { return (long) a.length * 4 <= (long) n * 5 ? a : Arrays.copyOf(a, n); }
}
