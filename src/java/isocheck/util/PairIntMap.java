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
  /** What {@link #ofFirst} read streaming the table in (kept, so that the reads are not dropped). */
  int touched;

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

  /**
   * A map of the pairs (a[i], b[i]) to i, for each i < n with {@code sel[i] != skip}: where a
   * pair comes more than once, to its first i. Made in one go, laid out for the caches: the
   * pairs are first sorted by the part of the table their slot falls in (parts of about 96 KB,
   * which the caches hold), then inserted part after part, so that an insert finds its slot's
   * cache line already there rather than waiting for it in memory (a large history's table is
   * far larger than the caches). 12 bytes a pair while it runs.
   *
   * @param pairs how many i < n {@code sel} selects
   * @param first set to the first i (in order of i) whose pair an earlier i has, or -1
   */
  public static PairIntMap ofFirst(int pairs, int n, byte[] sel, byte skip, int[] a, int[] b, int[] first) {
    PairIntMap map = new PairIntMap(pairs);
    int mask = map.mask, cap = mask + 1;
    // Parts of 8,192 slots (96 KB), at most 2^16 of them.
    int bits = Math.max(0, Math.min(16, Integer.numberOfTrailingZeros(cap) - 13));
    int shift = Integer.numberOfTrailingZeros(cap) - bits;
    int[] start = new int[(1 << bits) + 1];
    for (int i = 0; i < n; i++) if (sel[i] != skip) start[(slot(a[i], b[i], mask) >>> shift) + 1]++;
    for (int p = 0; p < 1 << bits; p++) start[p + 1] += start[p];
    // Each pair with its i, by part, in order of i within a part (start[p] ends up at part
    // p's end).
    int[] sorted = new int[3 * pairs];
    for (int i = 0; i < n; i++) {
      if (sel[i] == skip) continue;
      int ai = a[i], bi = b[i], at = 3 * start[slot(ai, bi, mask) >>> shift]++;
      sorted[at] = ai;
      sorted[at + 1] = bi;
      sorted[at + 2] = i;
    }
    int dup = -1, touched = 0, partInts = 3 << shift;
    int[] s = map.slots;
    for (int p = 0, j = 0; p < 1 << bits; p++) {
      // The part's slots, read in order (the processor streams them in), then its pairs.
      for (int x = p * partInts, end = x + partInts; x < end; x += 16) touched += s[x];
      for (int end = 3 * start[p]; j < end; j += 3) {
        int ai = sorted[j], bi = sorted[j + 1], v = sorted[j + 2], a1 = ai + 1, k = slot(ai, bi, mask);
        while (true) {
          int x = s[3 * k];
          if (x == 0) {
            s[3 * k] = a1;
            s[3 * k + 1] = bi;
            s[3 * k + 2] = v;
            break;
          }
          if (x == a1 && s[3 * k + 1] == bi) {
            // A pair's copies share their first slot, so their part: in order of i, the one
            // already there came first.
            if (dup < 0 || v < dup) dup = v;
            break;
          }
          k = (k + 1) & mask;
        }
      }
    }
    map.size = pairs;
    map.touched = touched;
    first[0] = dup;
    return map;
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
