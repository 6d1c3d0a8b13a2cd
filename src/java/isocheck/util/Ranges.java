package isocheck.util;

import java.util.function.IntConsumer;
import java.util.stream.IntStream;

/**
 * Contiguous ranges of [0, size), one per core, for the scans that run in parallel. Each range
 * writes only its own items (or its own result lists), and results are joined in range order,
 * so the output is the same, in the same order, whatever the number of ranges. The system
 * property {@code isocheck.weak.cores} overrides the core count (tests compare splits with it;
 * the weak levels used it first, and now the rw-register pre-checks too).
 */
public final class Ranges {
  public final int count;
  private final long size;

  public Ranges(int size) {
    int p = cores();
    this.count = p == 1 || size < 4 * p ? 1 : p;
    this.size = size;
  }

  public int from(int c) { return (int) (size * c / count); }

  public int to(int c) { return (int) (size * (c + 1) / count); }

  /** Runs body(c) for every range c, in parallel when there are several. */
  public void forEach(IntConsumer body) {
    if (count == 1) body.accept(0);
    else IntStream.range(0, count).parallel().forEach(body);
  }

  /** Adds off to start[i] for every item i of range c (per-range offsets made global when joining). */
  public void shift(int[] start, int c, int off) {
    for (int i = from(c), e = to(c); i < e; i++) start[i] += off;
  }

  /**
   * Joins the ranges' result columns into {@code into}, in range order (column i of range c goes
   * after column i of the ranges before it), making room first. With {@code start} (per-item
   * offsets into column 0, such as rfStart), adds to each range's items the size column 0 had
   * before that range was appended. Frees the parts.
   */
  public void join(IntList[] into, IntList[][] parts, int[] start) {
    // Column by column, each range's part of a column freed once copied: the parts and one
    // joined column at a time, not every joined column beside every part (list-append over 3
    // keys at 20,000 transactions, reads of thousands of elements: out of a 6 GB heap here).
    for (int i = 0; i < into.length; i++) {
      int total = into[i].size();
      for (IntList[] part : parts) total += part[i].size();
      into[i].ensureCapacity(total);
      for (int c = 0; c < parts.length; c++) {
        if (i == 0 && start != null) shift(start, c, into[0].size());
        into[i].addAll(parts[c][i]);
        parts[c][i] = null;
      }
    }
    java.util.Arrays.fill(parts, null);
  }

  public static int cores() {
    return Math.max(1, Math.min(8, Integer.getInteger("isocheck.weak.cores", Runtime.getRuntime().availableProcessors())));
  }
}
