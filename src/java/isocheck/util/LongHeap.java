package isocheck.util;

import java.util.Arrays;

/**
 * A binary min-heap of longs that grows as needed. Callers pack what they order by into the
 * high bits and an id into the low ones (rank << 32 | node), so the smallest pops first with
 * ties broken by id: Kahn's algorithm taking the ready node of least (rank, node).
 */
public final class LongHeap {
  private long[] a;
  private int size;

  public LongHeap(int capacity) { a = new long[Math.max(16, capacity)]; }

  public int size() { return size; }

  /** Empties the heap (its storage kept). */
  public void clear() { size = 0; }

  public void push(long x) {
    if (size == a.length) a = Arrays.copyOf(a, size * 2);
    int i = size++;
    while (i > 0) {
      int p = (i - 1) >>> 1;
      if (a[p] <= x) break;
      a[i] = a[p];
      i = p;
    }
    a[i] = x;
  }

  /** The least element, left in place (the heap is not empty). */
  public long peek() { return a[0]; }

  /** Removes and returns the least element (the heap is not empty). */
  public long pop() {
    long top = a[0], x = a[--size];
    int i = 0;
    while (true) {
      int c = 2 * i + 1;
      if (c >= size) break;
      if (c + 1 < size && a[c + 1] < a[c]) c++;
      if (a[c] >= x) break;
      a[i] = a[c];
      i = c;
    }
    a[i] = x;
    return top;
  }
}
