package isocheck.io;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.util.zip.GZIPInputStream;
import java.util.zip.ZipException;

/**
 * gzip decompression whose failures say what they are: the JDK's "Unexpected end of ZLIB input
 * stream" becomes {@link Damaged} with {@code truncated} set, its ZipExceptions ("invalid
 * distance too far back", "Corrupt GZIP trailer") {@link Damaged} with the JDK's reason. The
 * reader that catches it adds where the text read so far ends (after which op).
 *
 * <p>A failure is sticky: every later read throws it again, so that a failure met while the
 * format is sniffed from the first bytes ({@link Formats}) is met again, and reported with its
 * position, by the reader. The gzip header is read at the first read, not on construction,
 * for the same reason.
 */
final class GzipInput extends InputStream {
  /** Compressed input that is cut short ({@link #truncated}) or corrupt. */
  static final class Damaged extends IOException {
    final boolean truncated;

    Damaged(boolean truncated, String reason) {
      super(reason, null);
      this.truncated = truncated;
    }
  }

  private final InputStream raw;
  private GZIPInputStream gz;
  private Damaged failed;
  /** Told the bytes of text read so far, after each read (null: no one asks). */
  java.util.function.LongConsumer textRead;
  private long out;

  GzipInput(InputStream raw) { this.raw = raw; }

  @Override
  public int read(byte[] b, int off, int len) throws IOException {
    if (failed != null) throw failed;
    try {
      if (gz == null) gz = new GZIPInputStream(raw, EstimatingSink.GZIP_INPUT);
      int n = gz.read(b, off, len);
      if (n > 0 && textRead != null) textRead.accept(out += n);
      return n;
    } catch (EOFException e) {
      throw failed = new Damaged(true, "the compressed data ends early");
    } catch (ZipException e) {
      String m = e.getMessage();
      throw failed = new Damaged(false, m == null || m.isEmpty() ? "invalid compressed data" : m);
    }
  }

  @Override
  public int read() throws IOException {
    byte[] one = new byte[1];
    int n;
    do n = read(one, 0, 1); while (n == 0);
    return n < 0 ? -1 : one[0] & 0xff;
  }

  @Override
  public void close() throws IOException {
    if (gz != null) gz.close();
    else raw.close();
  }
}
