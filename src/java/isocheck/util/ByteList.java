package isocheck.util;

import java.util.Arrays;

/** A growable byte array. */
public final class ByteList {
  private byte[] a = new byte[16];
  private int n;

  public void add(byte x) {
    if (n == a.length) a = Arrays.copyOf(a, a.length * 2);
    a[n++] = x;
  }

  public byte get(int i) { return a[i]; }
  public void set(int i, byte x) { a[i] = x; }
  public int size() { return n; }
  public void clear() { n = 0; }
  public byte[] toArray() { return Arrays.copyOf(a, n); }
  /** A list of the first n elements of a (which it then owns). */
  public static ByteList of(byte[] a, int n) {
    if (n > a.length) throw new IllegalArgumentException("size " + n + " over the array's " + a.length);
    ByteList l = new ByteList();
    l.a = a.length == 0 ? new byte[1] : a;
    l.n = n;
    return l;
  }

  /** The backing array; valid up to {@link #size()}. */
  public byte[] raw() { return a; }

  /** Grows the backing array to hold at least {@code cap} elements. */
  public void ensureCapacity(int cap) {
    if (cap > a.length) a = Arrays.copyOf(a, cap);
  }

  /** The elements, without copying when the backing array is exactly full. */
  public byte[] trimmed() { return n == a.length ? a : Arrays.copyOf(a, n); }

  /** The backing array when at most a quarter of it is spare (the caller tracks the size), else a trimmed copy. */
  public byte[] compact() { return (long) a.length * 4 <= (long) n * 5 ? a : Arrays.copyOf(a, n); }
}
