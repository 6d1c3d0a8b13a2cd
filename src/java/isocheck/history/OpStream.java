package isocheck.history;

import java.util.Arrays;

/**
 * Records in a row, as {@link OpRecord#writeTo} writes them and {@link OpRecord#readFrom} reads
 * them back in the same order: their numbers in one array, their objects (keywords, processes,
 * values that are not integers) in another. A reader hands ops to a consumer on another thread
 * this way, in batches, each written and read sequentially.
 */
public final class OpStream {
  long[] longs;
  Object[] objs;
  int nLongs, nObjs, readLongs, readObjs;

  public OpStream(int longs, int objs) {
    this.longs = new long[Math.max(16, longs)];
    this.objs = new Object[Math.max(16, objs)];
  }

  /** Longs written so far. */
  public int size() { return nLongs; }

  /** Whether records remain to be read. */
  public boolean hasMore() { return readLongs < nLongs; }

  /** Reads the stream again from its first record. */
  public void rewind() { readLongs = readObjs = 0; }

  /** Empties the stream for writing again (dropping its objects). */
  public void clear() {
    Arrays.fill(objs, 0, nObjs, null);
    nLongs = nObjs = readLongs = readObjs = 0;
  }

  void ensure(int moreLongs, int moreObjs) {
    if (nLongs + moreLongs > longs.length) longs = Arrays.copyOf(longs, Math.max(longs.length * 2, nLongs + moreLongs));
    if (nObjs + moreObjs > objs.length) objs = Arrays.copyOf(objs, Math.max(objs.length * 2, nObjs + moreObjs));
  }
}
