package isocheck.io;

import isocheck.history.Edn;
import isocheck.history.HistoryException;
import isocheck.history.Kw;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A window of bytes over a history file or stream, with the position bookkeeping the readers
 * need for their error messages: the current line (1-based) and where it starts, and the
 * position of the op being read. The unread part of the window, {@code buf[pos..lim)}, always
 * starts at {@code pos}, so a token that begins at {@code pos} stays contiguous however many
 * times the window is refilled: {@link #fill} slides it down (or doubles the buffer) and
 * reports by how much, so scanners can adjust their cursor.
 *
 * <p>Columns in messages count bytes from the start of the line, which equals characters for
 * ASCII text. Strings are decoded strictly as UTF-8: malformed bytes are an error, not U+FFFD.
 */
abstract class TextSource {
  private static final int BUFFER = 1 << 20;
  /**
   * The longest token (string, number, symbol, keyword) read by default: 64 MiB. The window
   * grows to hold the token being read, so this also bounds the window; a longer token is bad
   * input, reported at its start, rather than an array that cannot grow (a Java array stops
   * at 2 GiB: doubling a 1 GiB window overflows).
   */
  public static final int MAX_TOKEN = 64 << 20;
  /**
   * The longest number literal: 100 characters, far beyond any integer or float a database
   * returns (2^64 has 20 digits). Longer ones are rejected before parsing them, which for an
   * integer costs time quadratic in its digits (a million digits: over a minute).
   */
  public static final int MAX_NUMBER = 100;

  private final InputStream in;
  private final int maxToken;
  byte[] buf;
  int pos, lim;
  private boolean eof;
  /** Absolute offset of buf[0] in the input. */
  long base;
  /** Line of the byte at pos (1-based) and absolute offset where that line starts. */
  long line = 1, lineStart;

  /** Ops read so far; the ordinal of the op being read. */
  long ordinal;
  /** Whether an op is being read (messages then name it). */
  boolean inOp;

  private final CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder()
      .onMalformedInput(CodingErrorAction.REPORT)
      .onUnmappableCharacter(CodingErrorAction.REPORT);
  private final StringBuilder sb = new StringBuilder();

  /** @param maxToken the longest token accepted, in bytes (at least 64; {@link #MAX_TOKEN} by default) */
  TextSource(InputStream in, int maxToken) {
    if (maxToken < 64) throw new IllegalArgumentException("maxToken must be at least 64, not " + maxToken);
    this.in = in;
    this.maxToken = maxToken;
    buf = new byte[Math.min(BUFFER, maxToken)];
  }

  /**
   * Makes more input available after lim, keeping buf[pos..lim). Returns how far the window
   * slid down (subtract it from any index into buf), or -1 at the end of the input.
   */
  final int fill() throws IOException {
    if (eof) return -1;
    int shift = 0;
    if (pos > 0) {
      shift = pos;
      System.arraycopy(buf, pos, buf, 0, lim - pos);
      lim -= pos;
      base += pos;
      pos = 0;
    } else if (lim == buf.length) {
      if (buf.length >= maxToken) throw tooLong();
      buf = Arrays.copyOf(buf, (int) Math.min((long) buf.length * 2, maxToken));
    }
    int n;
    try {
      do n = in.read(buf, lim, buf.length - lim); while (n == 0);
    } catch (GzipInput.Damaged e) {
      throw damaged(e);
    }
    if (n < 0) {
      eof = true;
      return shift == 0 ? -1 : shift;
    }
    lim += n;
    return shift;
  }

  /** Makes buf[i] available, refilling if needed; returns i as adjusted by the refill, or -1 at the end of the input. */
  final int need(int i) throws IOException {
    while (i >= lim) {
      int s = fill();
      if (s < 0) return -1;
      i -= s;
    }
    return i;
  }

  /** Skips a UTF-8 byte order mark at the very start of the input. */
  final void skipBom() throws IOException {
    int i = need(pos + 2);
    if (i >= 0 && (buf[pos] & 0xff) == 0xEF && (buf[pos + 1] & 0xff) == 0xBB && (buf[pos + 2] & 0xff) == 0xBF) {
      pos += 3;
      lineStart = base + pos;
    }
  }

  /** Records that the byte at buf[i] is a newline. */
  /**
   * Skips spaces, tabs and line ends (counting lines); returns the next byte (not consumed) or -1
   * at the end of the input.
   */
  final int skipWhitespace() throws IOException {
    // Within the buffer, a plain loop (a call to need() per byte cost as much as the rest of
    // reading dbcop JSON's spaces).
    byte[] b = buf;
    int p = pos;
    for (int l = lim; p < l; p++) {
      byte c = b[p];
      if (c == ' ' || c == '\t' || c == '\r') continue;
      if (c == '\n') {
        newline(p);
        continue;
      }
      pos = p;
      return c & 0xff;
    }
    pos = p;
    for (;;) {
      int i = need(pos);
      if (i < 0) return -1;
      pos = i;
      byte c = buf[pos];
      if (c == '\n') {
        newline(pos);
        pos++;
      } else if (c == ' ' || c == '\t' || c == '\r') {
        pos++;
      } else {
        return c & 0xff;
      }
    }
  }

  final void newline(int i) {
    line++;
    lineStart = base + i + 1;
  }

  final long col(int i) { return base + i - lineStart + 1; }

  // ------------------------------------------------------------------ errors

  /** The window is full with one token that goes on. */
  private HistoryException tooLong() {
    return err(pos, "a token (string, number, symbol or keyword) longer than " + human(maxToken)
        + " starts here; isocheck reads tokens of up to " + human(maxToken));
  }

  private static String human(long bytes) {
    if (bytes % (1 << 20) == 0) return (bytes >> 20) + " MiB";
    if (bytes % (1 << 10) == 0) return (bytes >> 10) + " KiB";
    return bytes + " bytes";
  }

  /** Damaged compressed input, said with where the text read so far ends. */
  private HistoryException damaged(GzipInput.Damaged e) {
    String what = e.truncated ? "truncated gzip data (the file is incomplete)" : "corrupt gzip data (" + e.getMessage() + ")";
    if (inOp) {
      return new HistoryException(ordinal, what + ": the input breaks off inside op " + ordinal + " (line " + line
          + ")" + (ordinal == 0 ? "" : ", after " + ordinal + " complete op" + (ordinal == 1 ? "" : "s")));
    }
    return new HistoryException(ordinal == 0 ? what + ": the input breaks off before the first op"
        : what + ": the input breaks off after op " + (ordinal - 1) + " (at line " + line + ")");
  }

  /** A number literal of more than {@link #MAX_NUMBER} characters, buf[from..to), is rejected at its start. */
  final void checkNumberLength(int from, int to) {
    if (to - from > MAX_NUMBER) {
      throw err(from, "a number literal of " + (to - from) + " characters; isocheck reads numbers of up to "
          + MAX_NUMBER + " characters");
    }
  }

  /** An error at buf[i]. */
  final HistoryException err(int i, String msg) { return errAt(line, col(i), msg); }

  final HistoryException errAt(long ln, long col, String msg) {
    String where = "line " + ln + ", column " + col;
    return inOp ? new HistoryException(ordinal, "op " + ordinal + " (" + where + "): " + msg)
        : new HistoryException(where + ": " + msg);
  }

  /** "line 3, column 7" or "column 7" when on the current line. */
  final String at(long ln, long col) { return ln == line ? "column " + col : "line " + ln + ", column " + col; }

  /** A short description of what starts at buf[i], for "found ..." messages. */
  final String describe(int i) throws IOException {
    i = need(i);
    if (i < 0) return "the end of the input";
    int c = buf[i] & 0xff;
    if (c == '\n') return "a line break";
    if (c >= 0x21 && c < 0x7f) return "'" + (char) c + "'";
    return String.format("byte 0x%02x", c);
  }

  static String shorten(Object o) {
    String s = Edn.str(o);
    return s.length() <= 60 ? s : s.substring(0, 57) + "...";
  }

  // ------------------------------------------------------------------ decoding

  /** Decodes buf[from..to) as strict UTF-8. */
  /** The string content buf[from..to) of a string literal that starts at line l, column cc. */
  final String utf8Str(int from, int to, long l, long cc) {
    try {
      return utf8(from, to, from);
    } catch (HistoryException e) {
      throw errAt(l, cc, "invalid UTF-8 in the string starting here");
    }
  }

  final String utf8(int from, int to, int errAt) {
    boolean ascii = true;
    for (int i = from; i < to; i++) if (buf[i] < 0) { ascii = false; break; }
    if (ascii) return new String(buf, from, to - from, StandardCharsets.ISO_8859_1);
    try {
      return utf8.decode(ByteBuffer.wrap(buf, from, to - from)).toString();
    } catch (CharacterCodingException e) {
      throw err(errAt, "invalid UTF-8 text");
    }
  }

  /** Appends buf[from..to), strict UTF-8, to sb. */
  final void appendUtf8(StringBuilder out, int from, int to, int errAt) {
    if (from == to) return;
    boolean ascii = true;
    for (int i = from; i < to; i++) if (buf[i] < 0) { ascii = false; break; }
    if (ascii) {
      for (int i = from; i < to; i++) out.append((char) buf[i]);
      return;
    }
    try {
      CharBuffer cb = utf8.decode(ByteBuffer.wrap(buf, from, to - from));
      out.append(cb);
    } catch (CharacterCodingException e) {
      throw err(errAt, "invalid UTF-8 text in string");
    }
  }

  final StringBuilder scratch() {
    sb.setLength(0);
    return sb;
  }

  static int hex(byte b) {
    if (b >= '0' && b <= '9') return b - '0';
    if (b >= 'a' && b <= 'f') return b - 'a' + 10;
    if (b >= 'A' && b <= 'F') return b - 'A' + 10;
    return -1;
  }

  /** The 4 hex digits at buf[i..i+4) as a char, or -1. */
  final int hex4(int i, int to) {
    if (i + 4 > to) return -1;
    int v = 0;
    for (int k = 0; k < 4; k++) {
      int h = hex(buf[i + k]);
      if (h < 0) return -1;
      v = v << 4 | h;
    }
    return v;
  }

  /** Parses buf[from..to) (ASCII digits, optional sign) as a long; caller guarantees 1..18 digits. */
  final long smallLong(int from, int to) {
    boolean neg = buf[from] == '-';
    if (neg || buf[from] == '+') from++;
    long v = 0;
    for (int i = from; i < to; i++) v = v * 10 + (buf[i] - '0');
    return neg ? -v : v;
  }

  // ------------------------------------------------------------------ keywords

  private static final int KW_SLOTS = 1024;
  private final byte[][] kwKey = new byte[KW_SLOTS][];
  private final Kw[] kwVal = new Kw[KW_SLOTS];
  private int kwCount;

  {
    for (Kw k : new Kw[] {Kw.INVOKE, Kw.OK, Kw.FAIL, Kw.INFO, Kw.TXN, Kw.R, Kw.APPEND, Kw.W}) {
      byte[] name = k.name().getBytes(StandardCharsets.US_ASCII);
      int slot = kwSlot(name, 0, name.length);
      kwKey[slot] = name;
      kwVal[slot] = k;
      kwCount++;
    }
  }

  /** The keyword spelled by buf[from..to), shared for names seen before (no allocation). */
  final Kw keyword(int from, int to) {
    int len = to - from;
    Kw common = common(from, len);
    if (common != null) return common;
    if (len > 48) return new Kw(utf8(from, to, from - 1));
    int slot = kwSlot(buf, from, to);
    if (kwKey[slot] != null) return kwVal[slot];
    Kw kw = new Kw(utf8(from, to, from - 1));
    if (kwCount < KW_SLOTS / 2) {
      kwKey[slot] = Arrays.copyOfRange(buf, from, to);
      kwVal[slot] = kw;
      kwCount++;
    }
    return kw;
  }

  /** The keywords every history is full of, recognised without hashing. */
  private Kw common(int s, int len) {
    byte[] b = buf;
    switch (len) {
      case 1: return b[s] == 'r' ? Kw.R : b[s] == 'w' ? Kw.W : null;
      case 2: return b[s] == 'o' && b[s + 1] == 'k' ? Kw.OK : null;
      case 3: return b[s] == 't' && b[s + 1] == 'x' && b[s + 2] == 'n' ? Kw.TXN : null;
      case 4:
        if (b[s] == 'f' && b[s + 1] == 'a' && b[s + 2] == 'i' && b[s + 3] == 'l') return Kw.FAIL;
        return b[s] == 'i' && b[s + 1] == 'n' && b[s + 2] == 'f' && b[s + 3] == 'o' ? Kw.INFO : null;
      case 6:
        if (b[s] == 'a' && b[s + 1] == 'p' && b[s + 2] == 'p' && b[s + 3] == 'e' && b[s + 4] == 'n' && b[s + 5] == 'd') {
          return Kw.APPEND;
        }
        return b[s] == 'i' && b[s + 1] == 'n' && b[s + 2] == 'v' && b[s + 3] == 'o' && b[s + 4] == 'k'
            && b[s + 5] == 'e' ? Kw.INVOKE : null;
      default: return null;
    }
  }

  /** The slot holding a[from..to) in the keyword table, or the empty slot where it belongs. */
  private int kwSlot(byte[] a, int from, int to) {
    int h = 0;
    for (int i = from; i < to; i++) h = 31 * h + a[i];
    h ^= h >>> 15;
    int len = to - from;
    for (int slot = h & (KW_SLOTS - 1);; slot = (slot + 1) & (KW_SLOTS - 1)) {
      byte[] k = kwKey[slot];
      if (k == null) return slot;
      if (k.length == len) {
        // A plain loop: names are short, and Arrays.equals' setup costs more than the compare.
        int j = 0;
        while (j < len && k[j] == a[from + j]) j++;
        if (j == len) return slot;
      }
    }
  }

}
