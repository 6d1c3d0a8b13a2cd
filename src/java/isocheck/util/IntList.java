package isocheck.util;

import java.util.Arrays;

/** A growable int array. */
public final class IntList {
  private int[] a;
  private int n;

  public IntList() { this(8); }
  public IntList(int cap) { a = new int[Math.max(1, cap)]; }

  public void add(int x) {
    if (n == a.length) a = Arrays.copyOf(a, a.length * 2);
    a[n++] = x;
  }

  /** Appends every element of o. */
  public void addAll(IntList o) {
    ensureCapacity(n + o.n);
    System.arraycopy(o.a, 0, a, n, o.n);
    n += o.n;
  }

  public int get(int i) { return a[i]; }
  public void set(int i, int x) { a[i] = x; }
  public int size() { return n; }
  public boolean isEmpty() { return n == 0; }
  public void clear() { n = 0; }
  public int last() { return a[n - 1]; }
  public int pop() { return a[--n]; }
  public void truncate(int size) { n = size; }
  public int[] toArray() { return Arrays.copyOf(a, n); }
  /** A list of the first n elements of a (which it then owns). */
  public static IntList of(int[] a, int n) {
    if (n > a.length) throw new IllegalArgumentException("size " + n + " over the array's " + a.length);
    IntList l = new IntList(1);
    l.a = a.length == 0 ? new int[1] : a;
    l.n = n;
    return l;
  }

  /** Replaces each element x by map[x], dropping those mapped below 0; the rest keep their order. */
  public void keepMapped(int[] map) {
    int j = 0;
    for (int i = 0; i < n; i++) {
      int y = map[a[i]];
      if (y >= 0) a[j++] = y;
    }
    n = j;
  }

  /** The backing array; valid up to {@link #size()}. */
  public int[] raw() { return a; }

  /**
   * The last index i with get(i) ≤ x, in a list of increasing values (0 when there is none, or
   * when the list is empty): by bisection.
   */
  public int lastAtMost(int x) { return lastAtMost(a, n, x); }

  /** {@link #lastAtMost(int)} over the first n values of a. */
  public static int lastAtMost(int[] a, int n, int x) {
    int lo = 0, hi = n - 1;
    while (lo < hi) {
      int mid = (lo + hi + 1) >>> 1;
      if (a[mid] <= x) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** Grows the backing array to hold at least {@code cap} elements. */
  public void ensureCapacity(int cap) {
    if (cap > a.length) a = Arrays.copyOf(a, cap);
  }

  /** The elements, without copying when the backing array is exactly full. */
  public int[] trimmed() { return n == a.length ? a : Arrays.copyOf(a, n); }

  /** The backing array when at most a quarter of it is spare (the caller tracks the size), else a trimmed copy. */
  public int[] compact() { return (long) a.length * 4 <= (long) n * 5 ? a : Arrays.copyOf(a, n); }
}
