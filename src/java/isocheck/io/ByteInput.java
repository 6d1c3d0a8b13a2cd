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
  private final byte[] buf;
  private int pos, lim;
  /** Offset, in the input, of buf[0]. */
  private long base;

  ByteInput(InputStream in) { this(in, new byte[1 << 16]); }

  /** Reading in, into buf (of 64 KiB or more; a reader of many files in turn gives each the same). */
  ByteInput(InputStream in, byte[] buf) {
    this.in = in;
    this.buf = buf;
  }

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
    if (pos >= lim && !available(1)) throw new EOFException();
    return buf[pos++] & 0xff;
  }

  // The longs unrolled, without a call when the buffer holds them: millions are read, and C1
  // (the launcher's compiler below 512 MB) neither unrolls the loop nor inlines the call.

  long longLE() throws IOException {
    if (lim - pos < 8 && !available(8)) throw new EOFException();
    byte[] b = buf;
    int p = pos;
    pos = p + 8;
    return (b[p] & 0xffL) | (b[p + 1] & 0xffL) << 8 | (b[p + 2] & 0xffL) << 16 | (b[p + 3] & 0xffL) << 24
        | (b[p + 4] & 0xffL) << 32 | (b[p + 5] & 0xffL) << 40 | (b[p + 6] & 0xffL) << 48 | (long) b[p + 7] << 56;
  }

  /** The bytes buffered from {@link #position} on, which {@link #buffer} holds: as many can be read without a refill. */
  int buffered() { return lim - pos; }

  /** The buffer (valid from {@link #position} for {@link #buffered} bytes). */
  byte[] buffer() { return buf; }

  /** The index in {@link #buffer} of the next byte to read. */
  int position() { return pos; }

  /** Skips n bytes already {@link #buffered}. */
  void skip(int n) { pos += n; }

  /** The big-endian long at b[p..p+8). */
  static long be(byte[] b, int p) {
    return (long) b[p] << 56 | (b[p + 1] & 0xffL) << 48 | (b[p + 2] & 0xffL) << 40 | (b[p + 3] & 0xffL) << 32
        | (b[p + 4] & 0xffL) << 24 | (b[p + 5] & 0xffL) << 16 | (b[p + 6] & 0xffL) << 8 | (b[p + 7] & 0xffL);
  }

  long longBE() throws IOException {
    if (lim - pos < 8 && !available(8)) throw new EOFException();
    byte[] b = buf;
    int p = pos;
    pos = p + 8;
    return (long) b[p] << 56 | (b[p + 1] & 0xffL) << 48 | (b[p + 2] & 0xffL) << 40 | (b[p + 3] & 0xffL) << 32
        | (b[p + 4] & 0xffL) << 24 | (b[p + 5] & 0xffL) << 16 | (b[p + 6] & 0xffL) << 8 | (b[p + 7] & 0xffL);
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
