package isocheck.io;

import isocheck.history.Kw;
import isocheck.history.OpRecord;
import isocheck.history.OpSink;
import isocheck.history.OpType;
import java.io.Closeable;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.zip.GZIPOutputStream;

/**
 * A Jepsen {@code history.edn} being written: an {@link OpSink} that prints each op as one map
 * per line, {@code {:index 0, :time 123, :type :invoke, :process 0, :f :txn, :value [[:append 1 2] [:r 3 nil]]}},
 * leaving out fields the record does not have; the op's other keys ({@link OpRecord#addExtra})
 * come before {@code :value}. What {@link EdnReader} reads back is the same
 * record, with two normalisations: a {@code :type}, {@code :f} or micro-op kind given as a
 * string is written as a keyword, and an object the writer does not know is written by its
 * {@code toString()} when that is a single token (as for Clojure keywords and ratios) and as a
 * string otherwise.
 *
 * <p>Formatting is by hand into a byte buffer (no String.format, no per-op allocation for
 * integers and ASCII keywords), fast enough to write millions of ops per second.
 * {@link #end()} flushes; a writer made by {@link #open} also closes its file.
 */
public final class EdnWriter implements OpSink, Closeable {
  private static final byte[] INDEX = b("{:index "), TIME = b(":time "), TYPE = b(":type "),
      PROCESS = b(":process "), F = b(":f "), VALUE = b(":value "), SEP = b(", "), NIL = b("nil"),
      TRUE = b("true"), FALSE = b("false");
  private static final byte[][] TYPES = {b(":invoke"), b(":ok"), b(":fail"), b(":info")};
  private static final byte[] KIND_R = b(":r"), KIND_APPEND = b(":append"), KIND_W = b(":w");
  private static final byte[] MIN_LONG = b(Long.toString(Long.MIN_VALUE));

  private final OutputStream out;
  private final boolean owned;
  private final byte[] buf = new byte[1 << 16];
  private int n;

  /** A writer onto {@code out}; {@link #end()} flushes it but leaves it open. */
  public EdnWriter(OutputStream out) {
    this(out, false);
  }

  private EdnWriter(OutputStream out, boolean owned) {
    this.out = out;
    this.owned = owned;
  }

  /** A writer onto a new file at {@code path} (gzip-compressed if it ends in .gz); {@link #end()} closes it. */
  public static EdnWriter open(Path path) throws IOException {
    OutputStream o = Files.newOutputStream(path);
    String name = path.getFileName() == null ? "" : path.getFileName().toString().toLowerCase(Locale.ROOT);
    if (name.endsWith(".gz")) o = new GZIPOutputStream(o, 1 << 16);
    return new EdnWriter(o, true);
  }

  @Override
  public void op(OpRecord r) {
    boolean more = false;
    if (r.index != OpRecord.ABSENT) {
      raw(INDEX);
      lng(r.index);
      more = true;
    } else put('{');
    if (r.time != OpRecord.ABSENT) {
      if (more) raw(SEP);
      raw(TIME);
      lng(r.time);
      more = true;
    }
    if (r.type >= 0 || r.typeRaw != null) {
      if (more) raw(SEP);
      raw(TYPE);
      if (r.type >= OpType.INVOKE && r.type <= OpType.INFO) raw(TYPES[r.type]);
      else keywordish(r.typeRaw);
      more = true;
    }
    if (r.hasProcess) {
      if (more) raw(SEP);
      raw(PROCESS);
      obj(r.process);
      more = true;
    }
    if (r.f != null) {
      if (more) raw(SEP);
      raw(F);
      keywordish(r.f);
      more = true;
    }
    for (int i = 0, x = r.extraCount(); i < x; i++) {
      // The op's keys of the user's own (a database's transaction id, say), as they were read.
      if (more) raw(SEP);
      obj(r.extraKey(i));
      put(' ');
      obj(r.extraValue(i));
      more = true;
    }
    if (r.valueShape != OpRecord.VALUE_ABSENT) {
      if (more) raw(SEP);
      raw(VALUE);
      if (r.valueShape == OpRecord.VALUE_TXN) mops(r);
      else obj(r.valueRaw);
    }
    put('}');
    put('\n');
  }

  private void mops(OpRecord r) {
    put('[');
    for (int i = 0, n = r.mopCount(); i < n; i++) {
      if (i > 0) put(' ');
      byte k = r.kind(i);
      if (k == OpRecord.MALFORMED) {
        obj(r.valueObj(i));
        continue;
      }
      put('[');
      Object f = r.fRaw(i);
      if (f != null) keywordish(f);
      else raw(k == OpRecord.READ ? KIND_R : k == OpRecord.APPEND ? KIND_APPEND : KIND_W);
      put(' ');
      if (r.keyIsLong(i)) lng(r.keyLong(i));
      else obj(r.key(i));
      put(' ');
      switch (r.valueTag(i)) {
        case OpRecord.V_LONG: lng(r.valueLong(i)); break;
        case OpRecord.V_OBJ: obj(r.valueObj(i)); break;
        case OpRecord.V_LIST: {
          put('[');
          for (int j = 0, len = r.listLen(i); j < len; j++) {
            if (j > 0) put(' ');
            if (r.elemIsLong(i, j)) lng(r.elemLong(i, j));
            else obj(r.elem(i, j));
          }
          put(']');
          break;
        }
        default: raw(NIL);
      }
      put(']');
    }
    put(']');
  }

  /** Flushes; closes the file if this writer opened it. */
  @Override
  public void end() {
    try {
      flush();
      if (owned) out.close();
      else out.flush();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() throws IOException {
    flush();
    if (owned) out.close();
    else out.flush();
  }

  // ------------------------------------------------------------------ printing

  private void flush() throws IOException {
    if (n > 0) {
      out.write(buf, 0, n);
      n = 0;
    }
  }

  private void room(int k) {
    if (n + k > buf.length) {
      try {
        flush();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  private void put(char c) {
    if (n == buf.length) room(1);
    buf[n++] = (byte) c;
  }

  private void raw(byte[] s) {
    if (s.length > buf.length) {
      for (byte x : s) put((char) (x & 0xff));
      return;
    }
    room(s.length);
    System.arraycopy(s, 0, buf, n, s.length);
    n += s.length;
  }

  private void lng(long v) {
    if (v == Long.MIN_VALUE) {
      raw(MIN_LONG);
      return;
    }
    room(20);
    if (v < 0) {
      buf[n++] = '-';
      v = -v;
    }
    if (v < 10) {
      buf[n++] = (byte) ('0' + v);
      return;
    }
    int end = n + digits(v);
    for (int i = end - 1; i >= n; i--) {
      buf[i] = (byte) ('0' + v % 10);
      v /= 10;
    }
    n = end;
  }

  private static int digits(long v) {
    int d = 1;
    for (long p = 10; d < 19 && v >= p; p *= 10) d++;
    return d;
  }

  /** A :type, :f or micro-op kind: keywords as they are, strings as keywords. */
  private void keywordish(Object o) {
    if (o instanceof String s) {
      put(':');
      text(s);
    } else obj(o);
  }

  /** Characters of s as UTF-8, unescaped (for names known to be plain). */
  private void text(String s) {
    for (int i = 0, len = s.length(); i < len; i++) {
      char c = s.charAt(i);
      if (c < 0x80) put(c);
      else {
        raw(s.substring(i).getBytes(StandardCharsets.UTF_8));
        return;
      }
    }
  }

  private void obj(Object o) {
    if (o == null) raw(NIL);
    else if (o instanceof Long || o instanceof Integer || o instanceof Short || o instanceof Byte) {
      lng(((Number) o).longValue());
    } else if (o instanceof Kw k) {
      put(':');
      text(k.name());
    } else if (o instanceof String s) str(s);
    else if (o instanceof Boolean bo) raw(bo ? TRUE : FALSE);
    else if (o instanceof Double || o instanceof Float) dbl(((Number) o).doubleValue());
    else if (o instanceof BigInteger bi) {
      text(bi.toString());
      put('N');
    } else if (o instanceof BigDecimal bd) {
      text(bd.toString());
      put('M');
    } else if (o instanceof Character c) chr(c);
    else if (o instanceof Map<?, ?> m) {
      put('{');
      boolean first = true;
      for (Map.Entry<?, ?> e : m.entrySet()) {
        if (!first) raw(SEP);
        first = false;
        obj(e.getKey());
        put(' ');
        obj(e.getValue());
      }
      put('}');
    } else if (o instanceof Set<?> s) {
      put('#');
      put('{');
      seq(s);
      put('}');
    } else if (o instanceof List<?> l) {
      put('[');
      seq(l);
      put(']');
    } else if (o instanceof Collection<?> c) {
      put('(');
      seq(c);
      put(')');
    } else if (o instanceof Object[] a) {
      put('[');
      seq(List.of(a));
      put(']');
    } else if (o instanceof UUID u) {
      text("#uuid ");
      str(u.toString());
    } else if (o instanceof Instant t) {
      text("#inst ");
      str(t.toString());
    } else if (o == OpRecord.NIL_KEY) raw(NIL);
    else {
      String s = o.toString();
      if (isToken(s)) text(s);
      else str(s);
    }
  }

  private void seq(Collection<?> c) {
    boolean first = true;
    for (Object x : c) {
      if (!first) put(' ');
      first = false;
      obj(x);
    }
  }

  private void dbl(double d) {
    if (Double.isNaN(d)) text("##NaN");
    else if (Double.isInfinite(d)) text(d > 0 ? "##Inf" : "##-Inf");
    else text(Double.toString(d));
  }

  private void chr(char c) {
    put('\\');
    switch (c) {
      case '\n': text("newline"); return;
      case ' ': text("space"); return;
      case '\t': text("tab"); return;
      case '\r': text("return"); return;
      case '\b': text("backspace"); return;
      case '\f': text("formfeed"); return;
      default:
    }
    if (c < 0x20 || Character.isSurrogate(c) || c == 0x7f) uescape(c);
    else text(String.valueOf(c));
  }

  private void str(String s) {
    put('"');
    for (int i = 0, len = s.length(); i < len; i++) {
      char c = s.charAt(i);
      if (c >= 0x20 && c < 0x80) {
        if (c == '"' || c == '\\') put('\\');
        put(c);
      } else if (c < 0x20) {
        switch (c) {
          case '\n': put('\\'); put('n'); break;
          case '\t': put('\\'); put('t'); break;
          case '\r': put('\\'); put('r'); break;
          case '\b': put('\\'); put('b'); break;
          case '\f': put('\\'); put('f'); break;
          default: uescape(c);
        }
      } else if (Character.isHighSurrogate(c) && i + 1 < len && Character.isLowSurrogate(s.charAt(i + 1))) {
        raw(s.substring(i, i + 2).getBytes(StandardCharsets.UTF_8));
        i++;
      } else if (Character.isSurrogate(c)) {
        uescape(c);
      } else {
        room(3);
        if (c < 0x800) {
          buf[n++] = (byte) (0xC0 | c >> 6);
        } else {
          buf[n++] = (byte) (0xE0 | c >> 12);
          buf[n++] = (byte) (0x80 | (c >> 6 & 0x3F));
        }
        buf[n++] = (byte) (0x80 | (c & 0x3F));
      }
    }
    put('"');
  }

  private static final byte[] HEX = b("0123456789abcdef");

  private void uescape(char c) {
    room(6);
    buf[n++] = '\\';
    buf[n++] = 'u';
    for (int s = 12; s >= 0; s -= 4) buf[n++] = HEX[c >> s & 0xF];
  }

  /** Whether s reads back as one EDN token (no delimiters, not empty). */
  private static boolean isToken(String s) {
    if (s.isEmpty()) return false;
    char c0 = s.charAt(0);
    if (c0 == '#' || c0 == '\\' || c0 == '"' || c0 == ';' || c0 == '^') return false;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c <= ' ' || c == ',' || "()[]{}\";^\\".indexOf(c) >= 0) return false;
    }
    return true;
  }

  private static byte[] b(String s) { return s.getBytes(StandardCharsets.US_ASCII); }
}
