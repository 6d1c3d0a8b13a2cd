package isocheck.history;

import isocheck.util.IntList;
import isocheck.util.LongList;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;

/**
 * Where a {@link HistoryBuilder} that spills keeps its columns out of the heap: one file (or
 * channel), written in chunks as the columns fill, read back once when the history is built.
 * Each column is a {@link Chunks}: the positions and lengths of its chunks in the file (12 bytes
 * a chunk, a few kilobytes over a 10^7-transaction run). The list pool, written in place as well
 * as appended to, is a {@link Pool} of fixed-size pages, a few of them in the heap.
 *
 * <p>The file is made in the directory given, and unlinked at once where the system allows it
 * (it then disappears with the process, whatever happens); otherwise it is deleted when closed,
 * or at exit. An I/O failure is an {@link UncheckedIOException} whose message says what failed
 * and where: the builder is then of no use (the caller reads the ops again).
 */
final class Spill implements AutoCloseable {
  private final FileChannel ch;
  /** The file, while it is still in its directory (null once unlinked, or for a channel given). */
  private Path path;
  private final String where;
  private long end;
  private final ByteBuffer buf;
  private boolean closed;

  private Spill(FileChannel ch, Path path, String where, int bufBytes) {
    this.ch = ch;
    this.path = path;
    this.where = where;
    this.buf = ByteBuffer.allocateDirect(bufBytes).order(ByteOrder.nativeOrder());
  }

  /** A spill file in dir (made if missing), unlinked at once where the system allows it. */
  static Spill inDirectory(Path dir, int bufBytes) {
    Path f = null;
    try {
      Files.createDirectories(dir);
      f = Files.createTempFile(dir, "isocheck-history-", ".spill");
      FileChannel ch = FileChannel.open(f, StandardOpenOption.READ, StandardOpenOption.WRITE);
      Path kept = f;
      try {
        Files.delete(f); // POSIX: the open channel keeps the data; nothing is left behind
        kept = null;
      } catch (IOException e) {
        f.toFile().deleteOnExit();
      }
      return new Spill(ch, kept, f.toString(), bufBytes);
    } catch (IOException e) {
      if (f != null) f.toFile().delete();
      throw failure("could not make a spill file in " + dir, e);
    }
  }

  /** Spills to a channel opened for reading and writing (closed by {@link #close}). */
  static Spill onChannel(FileChannel ch, int bufBytes) {
    return new Spill(ch, null, "the channel given", bufBytes);
  }

  private static UncheckedIOException failure(String what, IOException e) {
    return new UncheckedIOException("isocheck: " + what + " (spilling the history being built): " + e, e);
  }

  /** Bytes written to the file so far. */
  long bytes() { return end; }

  /** The spill file while it is still in its directory (the system could not unlink it open), else null. */
  Path path() { return path; }

  /** The chunks of one column in the file. */
  static final class Chunks {
    private final LongList pos = new LongList(16);
    private final IntList count = new IntList(16);
    private long total;

    /** Elements written. */
    long total() { return total; }
  }

  private void writeBuf(Chunks c, int n) {
    buf.flip();
    c.pos.add(end);
    c.count.add(n);
    c.total += n;
    try {
      while (buf.hasRemaining()) end += ch.write(buf, end);
    } catch (IOException e) {
      throw failure("could not write to " + where, e);
    }
  }

  private int room(int width) { return buf.capacity() / width; }

  void write(Chunks c, byte[] a, int from, int n) {
    check();
    for (int k; n > 0; from += k, n -= k) {
      k = Math.min(n, room(1));
      buf.clear();
      buf.put(a, from, k);
      writeBuf(c, k);
    }
  }

  void write(Chunks c, int[] a, int from, int n) {
    check();
    for (int k; n > 0; from += k, n -= k) {
      k = Math.min(n, room(4));
      buf.clear();
      buf.asIntBuffer().put(a, from, k);
      buf.position(4 * k);
      writeBuf(c, k);
    }
  }

  void write(Chunks c, long[] a, int from, int n) {
    check();
    for (int k; n > 0; from += k, n -= k) {
      k = Math.min(n, room(8));
      buf.clear();
      buf.asLongBuffer().put(a, from, k);
      buf.position(8 * k);
      writeBuf(c, k);
    }
  }

  private void readAt(long pos, int bytes) {
    buf.clear();
    buf.limit(bytes);
    try {
      while (buf.hasRemaining()) {
        int r = ch.read(buf, pos + buf.position());
        if (r < 0) throw new IOException("the file ends early, at " + (pos + buf.position()));
      }
    } catch (IOException e) {
      throw failure("could not read back " + where, e);
    }
    buf.flip();
  }

  /** Column c's elements, then tail[0, tailN), in an array of at least cap elements. */
  byte[] readBytes(Chunks c, byte[] tail, int tailN, int cap) {
    check();
    byte[] a = new byte[Math.max(cap, Math.toIntExact(c.total + tailN))];
    int at = 0;
    for (int i = 0; i < c.pos.size(); i++) {
      int n = c.count.get(i);
      readAt(c.pos.get(i), n);
      buf.get(a, at, n);
      at += n;
    }
    System.arraycopy(tail, 0, a, at, tailN);
    return a;
  }

  int[] readInts(Chunks c, int[] tail, int tailN, int cap) {
    check();
    int[] a = new int[Math.max(cap, Math.toIntExact(c.total + tailN))];
    int at = 0;
    for (int i = 0; i < c.pos.size(); i++) {
      int n = c.count.get(i);
      readAt(c.pos.get(i), 4 * n);
      buf.asIntBuffer().get(a, at, n);
      at += n;
    }
    System.arraycopy(tail, 0, a, at, tailN);
    return a;
  }

  long[] readLongs(Chunks c, long[] tail, int tailN, int cap) {
    check();
    long[] a = new long[Math.max(cap, Math.toIntExact(c.total + tailN))];
    int at = 0;
    for (int i = 0; i < c.pos.size(); i++) {
      int n = c.count.get(i);
      readAt(c.pos.get(i), 8 * n);
      buf.asLongBuffer().get(a, at, n);
      at += n;
    }
    System.arraycopy(tail, 0, a, at, tailN);
    return a;
  }

  private void check() {
    if (closed) throw new IllegalStateException("the spill file is closed");
  }

  /** Closes the channel (which frees the file's space) and deletes the file if it is still there. */
  @Override
  public void close() {
    if (closed) return;
    closed = true;
    try {
      ch.close();
    } catch (IOException ignored) {
      // nothing more to do: the data is no longer needed
    }
    if (path != null) {
      try {
        Files.deleteIfExists(path);
        path = null;
      } catch (IOException ignored) {
        // deleteOnExit was asked when it was made
      }
    }
  }

  /**
   * A growable int array in fixed-size pages, at most {@code resident} of them in the heap (the
   * last one always among them), the others in the spill file: what a key's list reads share
   * ({@link HistoryBuilder}'s placeList) is appended at the end and written in place, anywhere.
   * A page leaving the heap is written to its own place in the file (given at its first
   * eviction); one needed again is read back from it.
   */
  final class Pool {
    private final int shift, pageSize, mask;
    /** Per page: its array while in the heap, else null. */
    private int[][] page = new int[16][];
    /** Per page: its place in the file (-1: never written there). */
    private long[] filePos = new long[16];
    /** The pages in the heap, in a ring; the next one to leave is at hand. */
    private final int[] ring;
    private int inRing, hand;
    private int size;

    Pool(int pageInts, int resident) {
      int s = 31 - Integer.numberOfLeadingZeros(Math.max(2, pageInts));
      shift = s;
      pageSize = 1 << s;
      mask = pageSize - 1;
      ring = new int[Math.max(2, resident)];
      Arrays.fill(filePos, -1);
    }

    int size() { return size; }

    private int[] page(int p) {
      int[] a = page[p];
      if (a != null) return a;
      if (inRing == ring.length) evict();
      a = new int[pageSize];
      if (filePos[p] >= 0) {
        check();
        readAt(filePos[p], 4 * pageSize);
        buf.asIntBuffer().get(a, 0, pageSize);
      }
      page[p] = a;
      ring[inRing++] = p;
      return a;
    }

    /** Writes one page of the ring (not the last page) to the file and drops it from the heap. */
    private void evict() {
      int last = (size - 1) >> shift;
      int i = hand % inRing;
      if (ring[i] == last) i = (i + 1) % inRing;
      hand = i + 1;
      int p = ring[i];
      int[] a = page[p];
      check();
      buf.clear();
      buf.asIntBuffer().put(a, 0, pageSize);
      buf.position(4 * pageSize);
      buf.flip();
      if (filePos[p] < 0) {
        filePos[p] = end;
        end += 4L * pageSize;
      }
      try {
        long at = filePos[p];
        while (buf.hasRemaining()) at += ch.write(buf, at);
      } catch (IOException e) {
        throw failure("could not write to " + where, e);
      }
      page[p] = null;
      ring[i] = ring[--inRing];
    }

    /** Grows the pool by n elements (zero where never written). */
    void grow(int n) {
      long to = (long) size + n;
      if (to > Integer.MAX_VALUE - 8) throw new IllegalStateException("list pool over 2^31 elements");
      int pages = (int) ((to + pageSize - 1) >> shift);
      if (pages > page.length) {
        int old = page.length, cap = Math.max(pages, 2 * old);
        page = Arrays.copyOf(page, cap);
        filePos = Arrays.copyOf(filePos, cap);
        Arrays.fill(filePos, old, cap, -1);
      }
      size = (int) to;
    }

    /** Writes e[from, from + n) at off. */
    void put(int off, int[] e, int from, int n) {
      while (n > 0) {
        int[] a = page(off >> shift);
        int o = off & mask, k = Math.min(n, pageSize - o);
        System.arraycopy(e, from, a, o, k);
        off += k;
        from += k;
        n -= k;
      }
    }

    /** Whether [off, off + n) holds e[0, n). */
    boolean same(int off, int[] e, int n) {
      int from = 0;
      while (n > 0) {
        int[] a = page(off >> shift);
        int o = off & mask, k = Math.min(n, pageSize - o);
        if (Arrays.mismatch(a, o, o + k, e, from, from + k) >= 0) return false;
        off += k;
        from += k;
        n -= k;
      }
      return true;
    }

    /** The whole pool, in one array; the pages are then no longer needed. */
    int[] readAll() {
      int[] all = new int[Math.max(1, size)];
      int pages = (size + pageSize - 1) >> shift;
      for (int p = 0; p < pages; p++) {
        int from = p << shift, n = Math.min(pageSize, size - from);
        if (page[p] != null) {
          System.arraycopy(page[p], 0, all, from, n);
        } else if (filePos[p] >= 0) {
          check();
          readAt(filePos[p], 4 * n);
          buf.asIntBuffer().get(all, from, n);
        }
      }
      page = new int[0][];
      return all;
    }
  }
}
