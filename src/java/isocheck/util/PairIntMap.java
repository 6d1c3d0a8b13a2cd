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

  /**
   * Set by {@link #denseOfFirst}: (a, b)'s value + 1 at a * cols + b (0: absent), for a < rows and
   * b < cols; null for a hash map.
   */
  private int[] dense;
  private int rows, cols;

  /**
   * Set by {@link #byValueOfFirst}: b's value + 1 at b (0: absent), the pair's a being aOf[value];
   * null otherwise.
   */
  private int[] byB, aOf;

  public int get(int a, int b) {
    if (byB != null) {
      int v = b >= 0 && b < byB.length ? byB[b] - 1 : -1;
      return v >= 0 && aOf[v] == a ? v : -1;
    }
    if (dense != null) return a >= 0 && a < rows && b >= 0 && b < cols ? dense[a * cols + b] - 1 : -1;
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
    if (dense != null || byB != null) throw new UnsupportedOperationException("a dense map is read-only");
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
   * Whether {@link #denseOfFirst} suits this many pairs with a in [0, rows) and b in [0, cols):
   * the table (4 bytes a cell) is then no larger than a hash map of them would be (12 bytes a
   * slot, at least 1/0.7 slots a pair), give or take 2^16 cells. Jepsen's list-append and
   * rw-register histories are such: each key's values are 1, 2, 3, ... (a key's values interned
   * among the first few dozen ids), and keys are retired after a few dozen writes.
   */
  public static boolean denseSuits(long pairs, long rows, long cols) {
    long cells = rows * cols;
    return rows > 0 && cols > 0 && cells <= Integer.MAX_VALUE - 8 && cells <= 4 * pairs + (1 << 16);
  }

  /**
   * {@link #ofFirst} as a dense table of rows x cols cells (read-only: {@link #get} only), in
   * one pass in order of i: for a history whose pairs fill such a table ({@link #denseSuits}),
   * several times faster to make than the hash map (its stores fall in a table no larger than
   * the pairs, where the hash map's spread over one larger), and as fast to read.
   */
  public static PairIntMap denseOfFirst(int rows, int cols, int n, byte[] sel, byte skip, int[] a, int[] b, int[] first) {
    PairIntMap map = new PairIntMap(1);
    int[] d = new int[Math.max(1, rows * cols)];
    int dup = -1, size = 0;
    for (int i = 0; i < n; i++) {
      if (sel[i] == skip) continue;
      int at = a[i] * cols + b[i];
      if (d[at] == 0) {
        d[at] = i + 1;
        size++;
      } else if (dup < 0) {
        dup = i;
      }
    }
    map.dense = d;
    map.rows = rows;
    map.cols = cols;
    map.size = size;
    first[0] = dup;
    return map;
  }

  /**
   * {@link #ofFirst} as a table of cols cells indexed by b alone (read-only), for pairs whose b
   * are unique across a (Cobra's write ids as values: no b in two pairs of different a), with b
   * in [0, cols): (a, b) is found at b, and its a checked against a[i]. One pass in order of i,
   * 4 bytes a cell; returns null (make the hash map instead) as soon as a b comes with a second
   * a. The array a is kept, not copied: it must not change while the map is used.
   */
  public static PairIntMap byValueOfFirst(int cols, int n, byte[] sel, byte skip, int[] a, int[] b, int[] first) {
    int[] t = new int[Math.max(1, cols)];
    int dup = -1, size = 0;
    for (int i = 0; i < n; i++) {
      if (sel[i] == skip) continue;
      int at = b[i], j = t[at] - 1;
      if (j < 0) {
        t[at] = i + 1;
        size++;
      } else if (a[j] != a[i]) {
        return null;
      } else if (dup < 0) {
        dup = i;
      }
    }
    PairIntMap map = new PairIntMap(1);
    map.byB = t;
    map.aOf = a;
    map.size = size;
    first[0] = dup;
    return map;
  }

  /**
   * A map of the pairs (a[i], b[i]) to i, for each i < n with {@code sel[i] != skip}: where a
   * pair comes more than once, to its first i. Made in one go, laid out for the caches: the
   * pairs are first sorted by the part of the table their slot falls in (parts of about 96 KB,
   * which the caches hold), then inserted part after part, each part's slots read in order
   * first, so that an insert finds its slot's cache line already there rather than waiting for
   * it in memory (a large history's table is far larger than the caches). 12 bytes a pair
   * while it runs. From 2^16 pairs, on two threads when there are two cores: each sorts half
   * the pairs and inserts into half the parts; a pair whose probe would cross into the other
   * half's parts is inserted after both are done.
   *
   * @param pairs how many i < n {@code sel} selects
   * @param first set to the first i (in order of i) whose pair an earlier i has, or -1
   */
  public static PairIntMap ofFirst(int pairs, int n, byte[] sel, byte skip, int[] a, int[] b, int[] first) {
    PairIntMap map = new PairIntMap(pairs);
    Build x = new Build(map, n, sel, skip, a, b);
    boolean two = pairs >= 1 << 16 && x.parts >= 2 && Runtime.getRuntime().availableProcessors() > 1;
    int half = two ? n / 2 : n, halfParts = two ? x.parts / 2 : x.parts;
    int[] countA = new int[x.parts], countB = new int[x.parts];
    x.both(two, () -> x.count(0, half, countA), () -> x.count(half, n, countB));
    // Part p holds the first half's pairs, then the second's: in order of i within a part.
    int[] atA = new int[x.parts], atB = new int[x.parts];
    int[] end = new int[x.parts];
    for (int p = 0, at = 0; p < x.parts; p++) {
      atA[p] = at;
      at += countA[p];
      atB[p] = at;
      at += countB[p];
      end[p] = at;
    }
    x.sorted = new int[3 * pairs];
    x.both(two, () -> x.scatter(0, half, atA), () -> x.scatter(half, n, atB));
    IntList overA = new IntList(16), overB = new IntList(16);
    int[] dupA = {-1}, dupB = {-1};
    int boundary = halfParts << x.shift;
    x.both(two, () -> x.insert(0, halfParts, end, two ? boundary : -1, overA, dupA),
        () -> x.insert(halfParts, x.parts, end, 0, overB, dupB));
    int dup = min(dupA[0], dupB[0]);
    // The pairs kept from crossing, in order of i within each half (a pair's copies all cross
    // or none does: the first one's place is on the others' way).
    for (IntList over : new IntList[] {overA, overB}) {
      for (int k = 0; k < over.size(); k++) {
        int j = over.get(k), v = x.sorted[j + 2];
        if (map.putIfAbsent(x.sorted[j], x.sorted[j + 1], v) != v) dup = min(dup, v);
      }
    }
    // (putIfAbsent counted the crossing pairs; too few to grow the table.)
    map.size += x.inserted[0] + x.inserted[1];
    map.touched = x.touched[0] + x.touched[1];
    first[0] = dup;
    return map;
  }

  private static int min(int x, int y) { return x < 0 ? y : y < 0 ? x : Math.min(x, y); }

  /** The state of one {@link #ofFirst}. */
  private static final class Build {
    final PairIntMap map;
    final int n, mask, shift, parts;
    final byte[] sel;
    final byte skip;
    final int[] a, b;
    int[] sorted;
    final int[] inserted = new int[2], touched = new int[2];

    Build(PairIntMap map, int n, byte[] sel, byte skip, int[] a, int[] b) {
      this.map = map;
      this.n = n;
      this.sel = sel;
      this.skip = skip;
      this.a = a;
      this.b = b;
      mask = map.mask;
      int cap = mask + 1;
      // Parts of 8,192 slots (96 KB), at most 2^16 of them.
      int bits = Math.max(0, Math.min(16, Integer.numberOfTrailingZeros(cap) - 13));
      shift = Integer.numberOfTrailingZeros(cap) - bits;
      parts = 1 << bits;
    }

    /** Runs first here and second on another thread, when two; else both here, in order. */
    void both(boolean two, Runnable first, Runnable second) {
      if (!two) {
        first.run();
        second.run();
        return;
      }
      Throwable[] failed = {null};
      Thread t = new Thread(() -> {
        try {
          second.run();
        } catch (Throwable e) {
          failed[0] = e;
        }
      }, "isocheck-index");
      t.setDaemon(true);
      t.start();
      try {
        first.run();
      } finally {
        Threads.join(t);
      }
      if (failed[0] instanceof RuntimeException r) throw r;
      if (failed[0] instanceof Error e) throw e;
    }

    void count(int from, int to, int[] count) {
      for (int i = from; i < to; i++) if (sel[i] != skip) count[slot(a[i], b[i], mask) >>> shift]++;
    }

    /** Each pair of i in [from, to) with its i, at its part's next place in at. */
    void scatter(int from, int to, int[] at) {
      int[] out = sorted;
      for (int i = from; i < to; i++) {
        if (sel[i] == skip) continue;
        int ai = a[i], bi = b[i], j = 3 * at[slot(ai, bi, mask) >>> shift]++;
        out[j] = ai;
        out[j + 1] = bi;
        out[j + 2] = i;
      }
    }

    /**
     * Inserts the pairs of parts [from, to) (ending at end[p]); a probe reaching slot {@code stop}
     * (the next half's first, or the table's end wrapping to 0: -1, never) leaves its pair to
     * {@code over}. The first i of a pair met again goes to dup[0] (the least).
     */
    void insert(int from, int to, int[] end, int stop, IntList over, int[] dup) {
      int[] s = map.slots, in = sorted;
      int partInts = 3 << shift, t = 0, d = -1, placed = 0, m = mask;
      for (int p = from, j = from == 0 ? 0 : 3 * end[from - 1]; p < to; p++) {
        // The part's slots, read in order (the processor streams them in), then its pairs.
        for (int x = p * partInts, e = x + partInts; x < e; x += 16) t += s[x];
        for (int e = 3 * end[p]; j < e; j += 3) {
          int ai = in[j], bi = in[j + 1], v = in[j + 2], a1 = ai + 1, k = slot(ai, bi, m);
          while (true) {
            int x = s[3 * k];
            if (x == 0) {
              s[3 * k] = a1;
              s[3 * k + 1] = bi;
              s[3 * k + 2] = v;
              placed++;
              break;
            }
            if (x == a1 && s[3 * k + 1] == bi) {
              // A pair's copies share their first slot, so their part: in order of i, the
              // one already there came first.
              if (d < 0 || v < d) d = v;
              break;
            }
            k = (k + 1) & m;
            if (k == stop) {
              over.add(j);
              break;
            }
          }
        }
      }
      dup[0] = d;
      inserted[from == 0 ? 0 : 1] = placed;
      touched[from == 0 ? 0 : 1] = t;
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
