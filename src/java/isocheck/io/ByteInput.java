package isocheck.io;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;

/**
 * Fixed-width binary fields read from a stream, with the offset of the next byte kept for
 * messages: the little-endian integers of Rust's bincode (dbcop) and the big-endian ones of
 * Java's DataOutputStream (Cobra's logs). The end of the input inside a field is an
 * {@link EOFException}; the reader that catches it says what was being read and where.
 */
final class ByteInput {
  private final InputStream in;
  private final byte[] buf = new byte[1 << 16];
  private int pos, lim;
  /** Offset, in the input, of buf[0]. */
  private long base;

  ByteInput(InputStream in) { this.in = in; }

  /** The offset of the next byte to read. */
  long offset() { return base + pos; }

  /** Whether the input has no more bytes. */
  boolean atEnd() throws IOException { return !available(1); }

  private boolean available(int n) throws IOException {
    while (lim - pos < n) {
      if (pos > 0) {
        System.arraycopy(buf, pos, buf, 0, lim - pos);
        lim -= pos;
        base += pos;
        pos = 0;
      }
      int k;
      do k = in.read(buf, lim, buf.length - lim); while (k == 0);
      if (k < 0) return false;
      lim += k;
    }
    return true;
  }

  int u8() throws IOException {
    if (!available(1)) throw new EOFException();
    return buf[pos++] & 0xff;
  }

  long longLE() throws IOException {
    if (!available(8)) throw new EOFException();
    long v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | (buf[pos + i] & 0xffL);
    pos += 8;
    return v;
  }

  long longBE() throws IOException {
    if (!available(8)) throw new EOFException();
    long v = 0;
    for (int i = 0; i < 8; i++) v = v << 8 | (buf[pos + i] & 0xffL);
    pos += 8;
    return v;
  }

  /** n bytes (n at most 64 KiB), or EOFException. */
  byte[] bytes(int n) throws IOException {
    byte[] out = new byte[n];
    int done = 0;
    while (done < n) {
      int k = Math.min(n - done, buf.length / 2);
      if (!available(k)) throw new EOFException();
      System.arraycopy(buf, pos, out, done, k);
      pos += k;
      done += k;
    }
    return out;
  }

  /** Skips n bytes, or EOFException. */
  void skip(long n) throws IOException {
    while (n > 0) {
      int k = (int) Math.min(n, buf.length / 2);
      if (!available(k)) throw new EOFException();
      pos += k;
      n -= k;
    }
  }
}
