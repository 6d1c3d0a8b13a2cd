package isocheck.util;

import java.util.Arrays;

/**
 * Open-addressing map from a pair of non-negative ints (a, b) to a non-negative int, laid out
 * for locality: the slot is a hash of a and b / 64, plus b mod 64, so the entries of one a with
 * small, dense b (a key's appended values: Jepsen appends 1, 2, 3... to each key) sit in
 * neighbouring slots.
 * Inserting a key's appends in history order and reading a key's version order then touch a few
 * cache lines instead of one per element. Load factor up to 0.7 (linear probing, well-mixed
 * starting slots). {@link #get} answers -1 when absent.
 */
public final class PairIntMap {
  private long[] keys;
  private int[] vals; // -1 = empty
  private int size, mask;

  public PairIntMap(int expected) {
    int cap = Integer.highestOneBit(Math.max(8, expected * 3 / 2)) << 1;
    keys = new long[cap];
    vals = new int[cap];
    Arrays.fill(vals, -1);
    mask = cap - 1;
  }

  /**
   * A hash of a and b's block of 64, plus b's place in it: neighbouring b of one a share cache
   * lines, but a long dense run of b (a key written 10^4 times, as a mini-transaction workload's
   * fixed keys are) is spread in blocks rather than laid out as one run, which runs of other
   * keys would collide with and linear probing would walk end to end.
   */
  private static int slot(int a, int b, int mask) {
    int h = a * 0x9E3779B9 + (b >>> 6) * 0x7FEB352D;
    h ^= h >>> 15;
    h *= 0x85EBCA6B;
    h ^= h >>> 13;
    return (h + (b & 63)) & mask;
  }

  public int size() { return size; }

  public int get(int a, int b) {
    long k = ((long) a << 32) | (b & 0xffffffffL);
    int i = slot(a, b, mask);
    while (true) {
      int v = vals[i];
      if (v < 0) return -1;
      if (keys[i] == k) return v;
      i = (i + 1) & mask;
    }
  }

  /** Returns the value for (a, b), inserting v first when absent. */
  public int putIfAbsent(int a, int b, int v) {
    long k = ((long) a << 32) | (b & 0xffffffffL);
    int i = slot(a, b, mask);
    while (true) {
      int old = vals[i];
      if (old < 0) {
        keys[i] = k;
        vals[i] = v;
        if (++size > (long) mask * 7 / 10) grow();
        return v;
      }
      if (keys[i] == k) return old;
      i = (i + 1) & mask;
    }
  }

  /** Makes room for n entries without rehashing on the way. */
  public void ensureCapacity(int n) {
    while (n > (long) mask * 7 / 10) grow();
  }

  private void grow() {
    long[] ok = keys;
    int[] ov = vals;
    keys = new long[ok.length * 2];
    vals = new int[ov.length * 2];
    Arrays.fill(vals, -1);
    mask = keys.length - 1;
    size = 0;
    for (int i = 0; i < ok.length; i++) {
      if (ov[i] >= 0) putIfAbsent((int) (ok[i] >>> 32), (int) ok[i], ov[i]);
    }
  }
}
