package isocheck.util;


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
  /**
   * Slot i's entry at 3i: a + 1 (0: the slot is empty), b, the value. One array, so that a
   * look-up or an insert of a new pair touches one cache line (two arrays, pairs and values,
   * cost two misses on a large table), and no wider than the two were (12 bytes a slot).
   */
  private int[] slots;
  private int size, mask;

  public PairIntMap(int expected) {
    int cap = Integer.highestOneBit(Math.max(8, expected * 3 / 2)) << 1;
    slots = new int[3 * cap];
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
    int[] s = slots;
    int a1 = a + 1, i = slot(a, b, mask);
    while (true) {
      int x = s[3 * i];
      if (x == a1 && s[3 * i + 1] == b) return s[3 * i + 2];
      if (x == 0) return -1;
      i = (i + 1) & mask;
    }
  }

  /**
   * Reads (a, b)'s first slot and returns what it holds, which means nothing: a caller about to
   * insert many pairs touches their slots first, in a loop of independent loads that the
   * processor overlaps, so that the inserts find their cache lines there rather than waiting for
   * each in turn (the table of a large history is far larger than the caches).
   */
  public int touch(int a, int b) { return slots[3 * slot(a, b, mask)]; }

  /** Returns the value for (a, b), inserting v first when absent. */
  public int putIfAbsent(int a, int b, int v) {
    int[] s = slots;
    int a1 = a + 1, i = slot(a, b, mask);
    while (true) {
      int x = s[3 * i];
      if (x == 0) {
        s[3 * i] = a1;
        s[3 * i + 1] = b;
        s[3 * i + 2] = v;
        if (++size > (long) mask * 7 / 10) grow();
        return v;
      }
      if (x == a1 && s[3 * i + 1] == b) return s[3 * i + 2];
      i = (i + 1) & mask;
    }
  }

  /** Makes room for n entries without rehashing on the way. */
  public void ensureCapacity(int n) {
    while (n > (long) mask * 7 / 10) grow();
  }

  private void grow() {
    int[] old = slots;
    slots = new int[2 * old.length];
    mask = 2 * mask + 1;
    size = 0;
    for (int i = 0; i < old.length; i += 3) {
      if (old[i] != 0) putIfAbsent(old[i] - 1, old[i + 1], old[i + 2]);
    }
  }
}
