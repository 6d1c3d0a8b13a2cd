package isocheck.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * How much heap a history needs, and what to tell the user when it did not fit.
 *
 * <p>The estimates are measured, not derived: loading keeps the history's ops in int arrays and
 * interned keys and values (about 3 bytes of heap per byte of a Jepsen EDN file while the file
 * is read, the reader's buffers and the builder's growing arrays included); checking adds the
 * graphs and, for the weak levels, causal clocks (about 1 GB per 10^6 list-append transactions
 * of 4 micro-ops, 2.5 GB per 10^6 rw-register transactions of 20). bin/isocheck sizes the heap
 * with the same rule of thumb before starting the JVM.
 */
final class Heap {
  private Heap() {}

  /** Set by bin/isocheck, so advice names ISOCHECK_HEAP rather than java's -Xmx. */
  static boolean launched() { return System.getProperty("isocheck.launcher") != null; }

  static long max() { return Runtime.getRuntime().maxMemory(); }

  /**
   * The uncompressed size of a history file (gzip's trailer for .gz), or -1 when unknown:
   * standard input, and any file that is not a regular one (a pipe, /dev/stdin, a FIFO, bash's
   * {@code <(...)}), which must not be opened here: its bytes can be read once only, by the
   * reader (opening a FIFO a second time waits for a writer that is gone).
   */
  static long inputBytes(String file) {
    if (file.equals("-")) return -1;
    try {
      Path p = Path.of(file);
      if (!Files.isRegularFile(p)) return -1;
      long size = Files.size(p);
      boolean gz;
      try (InputStream in = Files.newInputStream(p)) {
        gz = in.read() == 0x1f && in.read() == 0x8b;
      }
      if (!gz || size < 18) return size;
      // gzip's last four bytes: the uncompressed size modulo 2^32 (little-endian).
      try (RandomAccessFile raf = new RandomAccessFile(p.toFile(), "r")) {
        raf.seek(size - 4);
        long isize = (raf.read() & 0xffL) | (raf.read() & 0xffL) << 8 | (raf.read() & 0xffL) << 16 | (raf.read() & 0xffL) << 24;
        // Below 2^32 the trailer is exact; beyond, assume the usual 8:1 ratio of a history.
        return Math.max(isize, size * 8 > 1L << 32 ? size * 8 : isize);
      }
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  /** Heap that reading a history of that many (uncompressed) bytes takes. */
  static long toRead(long bytes) { return (64L << 20) + 3 * Math.max(0, bytes); }

  /** Heap that checking takes, from the loaded history: both families of levels, all of it. */
  static long toCheck(long txns, long mops, long bytes) {
    long byHistory = (64L << 20) + 120L * mops + 600L * txns;
    return Math.max(byHistory, bytes < 0 ? 0 : 4 * bytes);
  }

  /** "350 MB", "2.4 GB". */
  static String human(long bytes) {
    if (bytes < 1L << 30) return (bytes + (1L << 19)) / (1L << 20) + " MB";
    long tenths = (bytes * 10 + (1L << 29)) / (1L << 30);
    return tenths / 10 + "." + tenths % 10 + " GB";
  }

  /** A -Xmx value of at least bytes: whole gigabytes from 1 GB up, else a multiple of 256 MB. */
  static String xmx(long bytes) {
    if (bytes > 768L << 20) return ((bytes + (1L << 30) - 1) >> 30) + "g";
    return (((bytes + (256L << 20) - 1) >> 28) << 8) + "m";
  }

  /** How to raise the heap to at least bytes: the launcher's variable, or java's flag. */
  static String raise(long bytes) {
    String v = xmx(bytes);
    return launched() ? "run with ISOCHECK_HEAP=" + v : "run java with -Xmx" + v;
  }
}
