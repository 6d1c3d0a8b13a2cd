package isocheck.io;

import isocheck.history.HistoryException;
import isocheck.history.Kw;
import isocheck.history.OpRecord;
import isocheck.history.OpSink;
import isocheck.history.OpType;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigInteger;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * A JSON history (as elle-cli reads and Jepsen exports them) read as a stream of ops into an
 * {@link OpSink}: either one JSON array of op objects, or op objects one after another (JSON
 * Lines: one per line; any whitespace may separate them). The op fields are
 * {@code "type" "f" "process" "value" "index" "time"}, e.g.
 * <pre>{"type":"ok","f":"txn","process":0,"value":[["append",1,2],["r",1,[1,2]]],"index":3,"time":5}</pre>
 * Keys may also be spelled with a leading colon ({@code ":type"}); any other key is kept with
 * its value ({@link OpRecord#addExtra}, the key as a {@link Kw}) for reports to show.
 *
 * <p>JSON has no keywords, so the string values of {@code "type"}, {@code "f"} and of a
 * micro-op's kind become {@link Kw}s, a leading colon dropped ({@code ":append"} and
 * {@code "append"} are both {@code :append}). Every other string stays a {@link String}.
 * Integers are {@code long}s on the primitive paths ({@link BigInteger} beyond a long), other
 * numbers {@link Double}; arrays are {@link List}s, objects {@link Map}s. The {@code "value"}
 * is read as in {@link EdnReader}: an array with an array among its elements (or none at all)
 * becomes micro-ops, each 3-element array one micro-op and anything else a malformed one; any
 * other value is kept as {@code valueRaw}.
 *
 * <p>The grammar is strict RFC 8259 (no comments, no trailing commas, no raw control
 * characters in strings). Errors are {@link HistoryException}s naming the op, line and
 * column (1-based, counting bytes) and what was expected, as {@link EdnReader}'s do.
 */
public final class JsonReader extends OpReader {
  private static final boolean[] DELIM = new boolean[256];
  static {
    for (char c : " \t\n\r,:[]{}\"".toCharArray()) DELIM[c] = true;
  }
  /** Returned by {@link #first}/{@link #next} when the array closed. */
  private static final int CLOSED = -2;
  private static final int F_TYPE = 0, F_F = 1, F_PROCESS = 2, F_VALUE = 3, F_INDEX = 4, F_TIME = 5;
  private static final String[] FIELD = {"\"type\"", "\"f\"", "\"process\"", "\"value\"", "\"index\"", "\"time\""};
  private static final byte[][] NAMES = {b("type"), b("f"), b("process"), b("value"), b("index"), b("time")};

  private boolean strEscaped;

  @Override
  String fieldName(int f) { return FIELD[f]; }

  private JsonReader(InputStream in, OpSink sink, int maxToken) {
    super(in, sink, maxToken);
  }

  /** Reads the JSON history at {@code path} (decompressed if gzipped) into {@code sink}. */
  public static void read(Path path, OpSink sink) throws IOException {
    try (InputStream in = Formats.open(path)) {
      read(in, sink);
    }
  }

  /** Reads a JSON history from {@code in} (not closed) into {@code sink}, then calls {@code sink.end()}. */
  public static void read(InputStream in, OpSink sink) throws IOException {
    read(in, sink, MAX_TOKEN);
  }

  /** As {@link #read(InputStream, OpSink)}, accepting tokens of up to {@code maxToken} bytes (tests lower it). */
  public static void read(InputStream in, OpSink sink, int maxToken) throws IOException {
    new JsonReader(in, sink, maxToken).run();
  }

  private void run() throws IOException {
    try {
      skipBom();
      int c = ws();
      if (c == '[') {
        long ol = line, oc = col(pos);
        pos++;
        for (c = first(ol, oc, "the history"); c != CLOSED; c = next(ol, oc, "the history")) topOp(c);
        c = ws();
        if (c >= 0) throw err(pos, "expected the end of the input after the history's closing ], found " + found(c));
      } else {
        while (c >= 0) {
          topOp(c);
          c = ws();
        }
      }
    } catch (StackOverflowError e) {
      throw err(Math.min(pos, lim), "values nested too deeply");
    }
    sink.end();
  }

  private void topOp(int c) throws IOException {
    if (c == '{') { readOp(); return; }
    long l = line, cc = col(pos);
    throw errAt(l, cc, "expected an op object such as {\"type\": \"invoke\", \"f\": \"txn\", ...}, found " + found(c));
  }

  private String found(int c) throws IOException {
    if (c < 0) return "the end of the input";
    if (c == ']' || c == '}' || c == ',' || c == ':') return "'" + (char) c + "'";
    return shorten(item(c));
  }

  // ------------------------------------------------------------------ ops

  private void readOp() throws IOException {
    long ol = line, oc = col(pos);
    inOp = true;
    r.reset(ordinal);
    r.line = ol;
    pos++;
    int seen = 0;
    int c = ws();
    if (c == '}') pos++;
    else {
      for (;;) {
        if (c != '"') {
          if (c < 0) throw err(pos, "unexpected end of input; expected } to close the op object at " + at(ol, oc));
          throw err(pos, "expected a string key in the op object at " + at(ol, oc) + ", found " + found(c));
        }
        long kl = line, kc = col(pos);
        int field = readKey();
        c = ws();
        if (c != ':') throw err(pos, "expected ':' after the key, found " + found(c));
        pos++;
        c = ws();
        if (c < 0) throw err(pos, "unexpected end of input; expected a value");
        if (field < 0) r.addExtra(otherKey, item(c)); // kept for reports: a database's transaction id, say
        else {
          if ((seen & 1 << field) != 0) throw errAt(kl, kc, "duplicate key " + FIELD[field] + " in the op object");
          seen |= 1 << field;
          switch (field) {
            case F_TYPE: {
              Object t = c == '"' ? readKw() : item(c);
              r.typeRaw = t;
              r.type = t == Kw.INVOKE ? 0 : t == Kw.OK ? 1 : t == Kw.FAIL ? 2 : t == Kw.INFO ? 3 : OpType.parse(t);
              break;
            }
            case F_F: r.f = c == '"' ? readKw() : item(c); break;
            case F_PROCESS: r.process = item(c); r.hasProcess = true; break;
            case F_INDEX: r.index = readLongField(c, field); break;
            case F_TIME: r.time = readLongField(c, field); break;
            default:
              if (c == '[') readTxn();
              else {
                r.valueShape = OpRecord.VALUE_OTHER;
                r.valueRaw = item(c);
              }
          }
        }
        c = ws();
        if (c == '}') { pos++; break; }
        if (c != ',') {
          if (c < 0) throw err(pos, "unexpected end of input; expected } to close the op object at " + at(ol, oc));
          throw err(pos, "expected ',' or '}' in the op object at " + at(ol, oc) + ", found " + found(c));
        }
        pos++;
        c = ws();
      }
    }
    sink.op(r);
    ordinal++;
    inOp = false;
  }

  /** The key read last by {@link #readKey} when it names no op field, as a keyword (":" dropped). */
  private Kw otherKey;

  /** At the '"' of a key: returns the F_ constant, or -1 with the key in {@link #otherKey}; pos after the string. */
  private int readKey() throws IOException {
    long l = line, cc = col(pos);
    int end = scanString(l, cc);
    int s = pos + 1;
    if (strEscaped) {
      String k = unescape(s, end, l, cc);
      otherKey = new Kw(k.startsWith(":") ? k.substring(1) : k);
      pos = end + 1;
      return -1;
    }
    if (s < end && buf[s] == ':') s++;
    int f;
    switch (end - s) {
      case 1: f = buf[s] == 'f' ? F_F : -1; break;
      case 4: f = eq(s, NAMES[F_TYPE]) ? F_TYPE : eq(s, NAMES[F_TIME]) ? F_TIME : -1; break;
      case 5: f = eq(s, NAMES[F_VALUE]) ? F_VALUE : eq(s, NAMES[F_INDEX]) ? F_INDEX : -1; break;
      case 7: f = eq(s, NAMES[F_PROCESS]) ? F_PROCESS : -1; break;
      default: f = -1;
    }
    if (f < 0) {
      try {
        otherKey = keyword(s, end);
      } catch (HistoryException e) {
        throw errAt(l, cc, "invalid UTF-8 in the string starting here");
      }
    }
    pos = end + 1;
    return f;
  }

  /** At the '[' of a "value": micro-ops, or an ordinary value when no element is an array (see EdnReader). */
  private void readTxn() throws IOException {
    long ol = line, oc = col(pos);
    int firstByte = peekAfter(pos + 1);
    if (firstByte != '[' && firstByte != ']') {
      EdnReader.settle(r, readArray(), true);
      return;
    }
    pos++;
    r.valueShape = OpRecord.VALUE_TXN;
    for (int c = first(ol, oc, "the \"value\""); c != CLOSED; c = next(ol, oc, "the \"value\"")) {
      if (c == '[') readMop();
      else r.addMalformed(item(c));
    }
  }

  private int peekAfter(int i) throws IOException {
    for (;;) {
      i = need(i);
      if (i < 0) return -1;
      byte b = buf[i];
      if (b == ' ' || b == '\t' || b == '\r' || b == '\n') i++;
      else return b;
    }
  }

  private void readMop() throws IOException {
    long ol = line, oc = col(pos);
    pos++;
    String what = "the micro-op";
    int c = first(ol, oc, what);
    if (c == CLOSED) { r.addMalformed(new ArrayList<>()); return; }
    Object f = c == '"' ? readKw() : item(c);
    c = next(ol, oc, what);
    if (c == CLOSED) { r.addMalformed(new ArrayList<>(Arrays.asList(f))); return; }
    int kt = readItem(c);
    long kl = lv;
    Object ko = ov;
    c = next(ol, oc, what);
    if (c == CLOSED) {
      r.addMalformed(new ArrayList<>(Arrays.asList(f, kt == LONG ? (Object) kl : ko)));
      return;
    }
    byte vt;
    long vl = 0;
    Object vo = null;
    if (c == '[') {
      readElems();
      vt = OpRecord.V_LIST;
    } else if (readItem(c) == LONG) {
      vt = OpRecord.V_LONG;
      vl = lv;
    } else {
      vo = ov;
      vt = vo == null ? OpRecord.V_NIL : OpRecord.V_OBJ;
    }
    c = next(ol, oc, what);
    if (c != CLOSED) {
      ArrayList<Object> got = new ArrayList<>(Arrays.asList(f, kt == LONG ? (Object) kl : ko,
          vt == OpRecord.V_LONG ? (Object) vl : vt == OpRecord.V_LIST ? elems() : vo));
      for (; c != CLOSED; c = next(ol, oc, what)) got.add(item(c));
      r.addMalformed(got);
      return;
    }
    addMop(f, kt, kl, ko, vt, vl, vo);
  }

  private void readElems() throws IOException {
    long ol = line, oc = col(pos);
    pos++;
    clearElems();
    for (int c = first(ol, oc, "the list"); c != CLOSED; c = next(ol, oc, "the list")) {
      pushElem(c);
    }
  }

  // ------------------------------------------------------------------ structure

  private int ws() throws IOException {
    for (;;) {
      while (pos >= lim) if (fill() < 0) return -1;
      int c = buf[pos];
      if (c > ' ') return c;
      switch (c) {
        case ' ': case '\t': case '\r': pos++; break;
        case '\n': newline(pos); pos++; break;
        default: return c & 0xff;
      }
    }
  }

  /** Just after the '[' of the array opened at (ol, oc): its first element's byte, or CLOSED. */
  private int first(long ol, long oc, String what) throws IOException {
    int c = ws();
    if (c == ']') { pos++; return CLOSED; }
    if (c < 0) throw unclosed(ol, oc, what);
    if (c == ',' || c == '}' || c == ':') throw err(pos, "expected a value or ] in " + what + " opened at " + at(ol, oc) + ", found " + (char) c);
    return c;
  }

  /** After an element of the array opened at (ol, oc): the next element's byte, or CLOSED. */
  private int next(long ol, long oc, String what) throws IOException {
    int c = ws();
    if (c == ']') { pos++; return CLOSED; }
    if (c == ',') {
      pos++;
      c = ws();
      if (c < 0) throw unclosed(ol, oc, what);
      if (c == ']' || c == ',' || c == '}' || c == ':') throw err(pos, "expected a value after ',' in " + what + ", found " + (char) c);
      return c;
    }
    if (c < 0) throw unclosed(ol, oc, what);
    throw err(pos, "expected ',' or ] in " + what + " opened by [ at " + at(ol, oc) + ", found " + found(c));
  }

  private HistoryException unclosed(long ol, long oc, String what) {
    return err(pos, "unexpected end of input; expected ] to close " + what + " opened by [ at " + at(ol, oc));
  }

  // ------------------------------------------------------------------ values

  @Override
  int readItem(int c) throws IOException {
    if ((c >= '0' && c <= '9') || c == '-') return readNumber();
    switch (c) {
      case '"': ov = readString(); return OBJ;
      case '[': ov = readArray(); return OBJ;
      case '{': ov = readObject(); return OBJ;
      case 't': case 'f': case 'n': return readLiteral();
      default:
        throw err(pos, "expected a JSON value (string, number, array, object, true, false or null), found " + describe(pos));
    }
  }

  private void skipValue(int c) throws IOException {
    switch (c) {
      case '"': {
        long l = line, cc = col(pos);
        int end = scanString(l, cc);
        if (strEscaped) unescape(pos + 1, end, l, cc);
        pos = end + 1;
        return;
      }
      case '[': {
        long ol = line, oc = col(pos);
        pos++;
        for (int e = first(ol, oc, "the array"); e != CLOSED; e = next(ol, oc, "the array")) skipValue(e);
        return;
      }
      case '{': readObjectOrSkip(false); return;
      default: readItem(c);
    }
  }

  private List<Object> readArray() throws IOException {
    long ol = line, oc = col(pos);
    pos++;
    ArrayList<Object> out = new ArrayList<>();
    for (int c = first(ol, oc, "the array"); c != CLOSED; c = next(ol, oc, "the array")) out.add(item(c));
    return out;
  }

  private Map<Object, Object> readObject() throws IOException {
    return readObjectOrSkip(true);
  }

  private Map<Object, Object> readObjectOrSkip(boolean keep) throws IOException {
    long ol = line, oc = col(pos);
    pos++;
    LinkedHashMap<Object, Object> out = keep ? new LinkedHashMap<>() : null;
    int c = ws();
    if (c == '}') { pos++; return out; }
    for (;;) {
      if (c != '"') throw err(pos, "expected a string key in the object at " + at(ol, oc) + ", found " + found(c));
      long kl = line, kc = col(pos);
      String k = readString();
      c = ws();
      if (c != ':') throw err(pos, "expected ':' after the key " + shorten(k) + ", found " + found(c));
      pos++;
      c = ws();
      if (c < 0) throw err(pos, "unexpected end of input; expected a value");
      if (keep) {
        if (out.containsKey(k)) throw errAt(kl, kc, "duplicate key " + shorten(k) + " in an object");
        out.put(k, item(c));
      } else skipValue(c);
      c = ws();
      if (c == '}') { pos++; return out; }
      if (c != ',') {
        if (c < 0) throw err(pos, "unexpected end of input; expected } to close the object at " + at(ol, oc));
        throw err(pos, "expected ',' or '}' in the object at " + at(ol, oc) + ", found " + found(c));
      }
      pos++;
      c = ws();
    }
  }

  private int tokenEnd(int from) throws IOException {
    int i = from;
    for (;;) {
      while (i < lim) {
        if (DELIM[buf[i] & 0xff]) return i;
        i++;
      }
      int s = fill();
      if (s < 0) return i;
      i -= s;
    }
  }

  private int readLiteral() throws IOException {
    int end = tokenEnd(pos + 1);
    // true, false and null without a string made for each (a read of the initial value is a
    // null in every other micro-op of some histories: 9 MB of garbage at 10^5 transactions).
    int n = end - pos;
    if (n == 4 && buf[pos] == 'n' && buf[pos + 1] == 'u' && buf[pos + 2] == 'l' && buf[pos + 3] == 'l') {
      pos = end;
      ov = null;
      return OBJ;
    }
    if (n == 4 && buf[pos] == 't' && buf[pos + 1] == 'r' && buf[pos + 2] == 'u' && buf[pos + 3] == 'e') {
      pos = end;
      ov = Boolean.TRUE;
      return OBJ;
    }
    long l = line, cc = col(pos);
    String tok = utf8(pos, end, pos);
    pos = end;
    switch (tok) {
      case "true": ov = Boolean.TRUE; return OBJ;
      case "false": ov = Boolean.FALSE; return OBJ;
      case "null": ov = null; return OBJ;
      default: throw errAt(l, cc, "expected a JSON value, found " + tok);
    }
  }

  private static final Pattern NUMBER = Pattern.compile("-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][-+]?[0-9]+)?");

  private int readNumber() throws IOException {
    int i = pos;
    boolean neg = buf[i] == '-';
    if (neg) i++;
    int ds = i;
    long v = 0;
    while (i < lim) {
      int d = buf[i] - '0';
      if (d < 0 || d > 9) break;
      v = v * 10 + d;
      i++;
    }
    int nd = i - ds;
    if (i < lim && DELIM[buf[i] & 0xff] && nd > 0 && nd <= 18 && (nd == 1 || buf[ds] != '0')) {
      lv = neg ? -v : v;
      pos = i;
      return LONG;
    }
    int end = tokenEnd(pos + 1);
    checkNumberLength(pos, end);
    long l = line, cc = col(pos);
    String tok = utf8(pos, end, pos);
    pos = end;
    if (!NUMBER.matcher(tok).matches()) throw errAt(l, cc, "invalid number " + tok);
    if (tok.indexOf('.') < 0 && tok.indexOf('e') < 0 && tok.indexOf('E') < 0) {
      BigInteger bi = new BigInteger(tok);
      if (bi.bitLength() < 64) {
        lv = bi.longValue();
        return LONG;
      }
      ov = bi;
      return OBJ;
    }
    ov = Double.parseDouble(tok);
    return OBJ;
  }

  // ------------------------------------------------------------------ strings

  private int scanString(long l, long cc) throws IOException {
    int i = pos + 1;
    boolean esc = false;
    strEscaped = false;
    for (;;) {
      while (i < lim) {
        byte b = buf[i];
        if (b >= 0 && b < 0x20) {
          if (b == '\n') throw errAt(l, cc, "unterminated string; expected a closing \" before the end of the line");
          throw errAt(l, cc, "the string starting here contains a raw control character (byte 0x"
              + Integer.toHexString(b) + "); JSON requires an escape such as \\t");
        }
        if (esc) esc = false;
        else if (b == '"') return i;
        else if (b == '\\') { esc = true; strEscaped = true; }
        i++;
      }
      int s = fill();
      if (s < 0) throw errAt(l, cc, "unterminated string; expected a closing \" before the end of the input");
      i -= s;
    }
  }

  private String readString() throws IOException {
    long l = line, cc = col(pos);
    int end = scanString(l, cc);
    String s = strEscaped ? unescape(pos + 1, end, l, cc) : utf8Str(pos + 1, end, l, cc);
    pos = end + 1;
    return s;
  }

  /** A string that names a keyword ("append" or ":append"), as a {@link Kw}. */
  private Kw readKw() throws IOException {
    long l = line, cc = col(pos);
    int end = scanString(l, cc);
    Kw k;
    if (strEscaped) {
      String s = unescape(pos + 1, end, l, cc);
      k = new Kw(s.startsWith(":") ? s.substring(1) : s);
    } else {
      int s = pos + 1;
      if (s < end && buf[s] == ':') s++;
      try {
        k = keyword(s, end);
      } catch (HistoryException e) {
        throw errAt(l, cc, "invalid UTF-8 in the string starting here");
      }
    }
    pos = end + 1;
    return k;
  }

  @Override
  int formatEscape(byte e, int i, int to, StringBuilder out, long l, long cc) {
    if (e != '/') return -1;
    out.append('/');
    return i;
  }

  @Override
  String escapes() { return "\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX"; }


  private boolean eq(int from, byte[] lit) {
    for (int k = 0; k < lit.length; k++) if (buf[from + k] != lit[k]) return false;
    return true;
  }

  private static byte[] b(String s) { return s.getBytes(java.nio.charset.StandardCharsets.US_ASCII); }
}
