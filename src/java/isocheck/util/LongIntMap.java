package isocheck.util;

import java.util.Arrays;

/**
 * Open-addressing hash map from long to non-negative int, with no boxing. Used to intern
 * keys and values and to index writes by (key, value). {@link #get} answers -1 when absent.
 */
public final class LongIntMap {
  private long[] keys;
  private int[] vals; // -1 = empty slot
  private int size, mask;

  public LongIntMap() { this(16); }

  public LongIntMap(int expected) {
    int cap = Integer.highestOneBit(Math.max(4, expected * 2 - 1)) << 1;
    keys = new long[cap];
    vals = new int[cap];
    Arrays.fill(vals, -1);
    mask = cap - 1;
  }

  private static int hash(long k) {
    k ^= k >>> 33;
    k *= 0xff51afd7ed558ccdL;
    k ^= k >>> 33;
    return (int) k;
  }

  public int size() { return size; }

  public int get(long k) {
    int i = hash(k) & mask;
    while (true) {
      int v = vals[i];
      if (v < 0) return -1;
      if (keys[i] == k) return v;
      i = (i + 1) & mask;
    }
  }

  /** Puts k -> v (v >= 0); returns the previous value or -1. */
  public int put(long k, int v) {
    if (v < 0) throw new IllegalArgumentException("negative value");
    int i = hash(k) & mask;
    while (true) {
      int old = vals[i];
      if (old < 0) {
        keys[i] = k;
        vals[i] = v;
        if (++size * 2 > mask) grow();
        return -1;
      }
      if (keys[i] == k) {
        vals[i] = v;
        return old;
      }
      i = (i + 1) & mask;
    }
  }

  /** Returns the value for k, inserting {@code v} first when absent. */
  public int putIfAbsent(long k, int v) {
    int i = hash(k) & mask;
    while (true) {
      int old = vals[i];
      if (old < 0) {
        keys[i] = k;
        vals[i] = v;
        if (++size * 2 > mask) grow();
        return v;
      }
      if (keys[i] == k) return old;
      i = (i + 1) & mask;
    }
  }

  /** The number of slots, for iterating with {@link #slotValue} and {@link #setSlotValue}. */
  public int slots() { return vals.length; }

  /** The key in slot i (meaningful when {@link #slotValue} is not -1). */
  public long slotKey(int i) { return keys[i]; }

  /** The value in slot i, or -1 when the slot is empty. */
  public int slotValue(int i) { return vals[i]; }

  /** Replaces the value in the (occupied) slot i by v (v >= 0). */
  public void setSlotValue(int i, int v) {
    if (v < 0 || vals[i] < 0) throw new IllegalArgumentException("empty slot or negative value");
    vals[i] = v;
  }

  /** Makes room for {@code n} entries without rehashing on the way. */
  public void ensureCapacity(int n) {
    // Grown once to the size needed, not doubled (and rehashed) step by step.
    int cap = keys.length;
    while ((long) n * 2 > cap - 1) cap *= 2;
    if (cap > keys.length) resize(cap);
  }

  private void grow() { resize(keys.length * 2); }

  private void resize(int cap) {
    long[] ok = keys;
    int[] ov = vals;
    keys = new long[cap];
    vals = new int[cap];
    Arrays.fill(vals, -1);
    mask = keys.length - 1;
    size = 0;
    for (int i = 0; i < ok.length; i++) if (ov[i] >= 0) put(ok[i], ov[i]);
  }
}
