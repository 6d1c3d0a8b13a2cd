package isocheck.io;

import isocheck.history.HistoryException;
import isocheck.history.Kw;
import isocheck.history.OpRecord;
import isocheck.history.OpSink;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Jepsen {@code history.edn} file read as a stream of ops into an {@link OpSink}, one
 * {@link OpRecord} per op map, without building the maps. The file is either op maps one
 * after another (normally one per line; any whitespace, commas or nothing may separate them)
 * or a single top-level vector or list of op maps. An op map may carry a record tag, as
 * {@code #jepsen.history.Op{...}} does.
 *
 * <p>{@code :type :f :process :value :index :time} fill the record's fields; any other keyword
 * key is kept with its value ({@link OpRecord#addExtra}) for reports to show beside the
 * transaction (a database's transaction id, say); keys of other kinds are skipped, their values
 * still checked for syntax. A vector or list
 * {@code :value} with a vector or list among its elements (or none at all) becomes micro-ops
 * ({@link OpRecord#VALUE_TXN}): each 3-element vector {@code [f k v]} one micro-op, integers on
 * the primitive paths, a vector or list {@code v} a list read; any other element is kept whole
 * as a malformed micro-op for the consumer to reject. Any other {@code :value}, such as a
 * nemesis's {@code :primaries} or {@code [:isolated {"n2" #{"n1"}}]}, is
 * {@link OpRecord#VALUE_OTHER} with the value itself as {@code valueRaw} ({@code nil}
 * included); a missing one is {@link OpRecord#VALUE_ABSENT}.
 *
 * <p>Values are read as: nil {@code null}; booleans {@link Boolean}; integers {@code long}
 * (boxed only where an Object is needed), beyond a long a {@link BigInteger}; the {@code N}
 * suffix does not change the type (1N is the long 1, as Clojure's {@code =} sees it); hex,
 * octal and radix integers as Clojure reads them; floats {@link Double}, with {@code M}
 * {@link BigDecimal}; ratios as the nearest {@link Double} (an integral ratio such as 4/2 as
 * the integer); strings {@link String}; characters {@link Character}; keywords {@link Kw}
 * (namespaced ones keep their namespace in the name: {@code :a/b} is {@code Kw("a/b")});
 * symbols {@link Symbol}; vectors and lists {@link List}; maps {@link Map}; sets {@link Set};
 * {@code #inst} {@link java.time.Instant}; {@code #uuid} {@link UUID}; any other tagged value
 * its inner value. {@code #_} discards the next form, {@code ;} starts a comment, and
 * metadata ({@code ^:foo}, {@code ^{...}}) is read and dropped.
 *
 * <p>Syntax errors are {@link HistoryException}s whose message is one line:
 * {@code op 12 (line 13, column 40): unterminated string}. The op's ordinal is its position
 * among all ops in the file (0-based); {@code line} on the record is the line its map starts on.
 * Lines are 1-based; columns are 1-based and count bytes (characters, for ASCII text). A
 * UTF-8 byte order mark and CRLF line ends are accepted.
 */
public final class EdnReader extends OpReader {
  /** An EDN symbol, such as {@code foo} or {@code jepsen.history/op}; prints as itself. */
  public record Symbol(String name) {
    @Override public String toString() { return name; }

    // Spelled out rather than the record's: those link an invokedynamic call site on first use
    // (java.lang.runtime.ObjectMethods), which the class data cannot hold, and which costs a
    // small history's check several ms of interpreted method-handle building. The same values.
    @Override public boolean equals(Object o) {
      return this == o || (o instanceof Symbol other && java.util.Objects.equals(name, other.name));
    }

    @Override public int hashCode() { return java.util.Objects.hashCode(name); }
  }

  private static final boolean[] DELIM = new boolean[256];
  static {
    for (char c : " \t\n\r\f,()[]{}\";^\\".toCharArray()) DELIM[c] = true;
    DELIM[0x0B] = true;
    for (int c = 0x1C; c <= 0x1F; c++) DELIM[c] = true;
  }
  /** Per byte: 1 ends a token (a delimiter), 2 may not appear in one (a control character), 0 continues it. */
  private static final byte[] TOKEN_END = new byte[256];
  static {
    for (int c = 0; c < 256; c++) TOKEN_END[c] = DELIM[c] ? (byte) 1 : c < 0x20 || c == 0x7f ? (byte) 2 : 0;
  }

  private static final int F_TYPE = 0, F_F = 1, F_PROCESS = 2, F_VALUE = 3, F_INDEX = 4, F_TIME = 5;
  private static final String[] FIELD = {":type", ":f", ":process", ":value", ":index", ":time"};
  private static final byte[] TYPE = b("type"), TIME = b("time"), VALUE = b("value"), INDEX = b("index"),
      PROCESS = b("process");



  private EdnReader(InputStream in, OpSink sink, int maxToken) {
    super(in, sink, maxToken);
  }

  @Override
  String fieldName(int f) { return FIELD[f]; }

  // ------------------------------------------------------------------ entry points

  /** Reads the EDN history at {@code path} (decompressed if gzipped) into {@code sink}. */
  public static void read(Path path, OpSink sink) throws IOException {
    try (InputStream in = Formats.open(path)) {
      read(in, sink);
    }
  }

  /** Reads an EDN history from {@code in} (not closed) into {@code sink}, then calls {@code sink.end()}. */
  public static void read(InputStream in, OpSink sink) throws IOException {
    read(in, sink, MAX_TOKEN);
  }

  /** As {@link #read(InputStream, OpSink)}, accepting tokens of up to {@code maxToken} bytes (tests lower it). */
  public static void read(InputStream in, OpSink sink, int maxToken) throws IOException {
    new EdnReader(in, sink, maxToken).run();
  }

  private void run() throws IOException {
    try {
      skipBom();
      int c = skipWs();
      if (c == '[' || c == '(') {
        long ol = line, oc = col(pos);
        int closer = c == '[' ? ']' : ')';
        pos++;
        for (;;) {
          c = skipWs();
          if (c == closer) { pos++; break; }
          if (c < 0 || isCloser(c)) throw unclosed(c, closer, ol, oc, "the history");
          topOp(c);
        }
        c = skipWs();
        if (c >= 0) {
          throw err(pos, "expected the end of the input after the history's closing "
              + (char) closer + ", found " + found(c));
        }
      } else {
        while (c >= 0) {
          topOp(c);
          c = skipWs();
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
    if (c == '#') {
      int i = need(pos + 1);
      if (i >= 0 && isAlpha(buf[i])) {
        String tag = readTag();
        c = skipWs();
        if (c == '{') { readOp(); return; }
        throw errAt(l, cc, "expected an op map after the tag #" + tag + ", found " + found(c));
      }
    }
    throw errAt(l, cc, "expected an op map such as {:type :invoke, :f :txn, ...}, found " + found(c));
  }

  /** Describes the value starting at pos (reading it) for an error message. */
  private String found(int c) throws IOException {
    if (c < 0) return "the end of the input";
    if (isCloser(c)) return "an unmatched " + (char) c;
    Object v = readItem(c) == LONG ? (Object) lv : ov;
    return shorten(v);
  }

  // ------------------------------------------------------------------ ops

  private void readOp() throws IOException {
    long ol = line, oc = col(pos);
    inOp = true;
    r.reset(ordinal);
    r.line = ol;
    pos++;
    int seen = 0;
    strField = -1;
    for (;;) {
      int c = skipWs();
      if (c == '}') { pos++; break; }
      if (c < 0 || isCloser(c)) throw unclosed(c, '}', ol, oc, "the op map");
      long kl = line, kc = col(pos);
      int field = -1;
      otherKey = null;
      if (c == ':') field = readOpKey();
      else if (c == '"') {
        int sf = stringKey();
        if (sf >= 0 && strField < 0) {
          strField = sf;
          strLine = kl;
          strCol = kc;
        }
      } else skipValue(c);
      c = skipWs();
      if (c < 0 || isCloser(c)) {
        throw err(pos, "expected a value for " + (field >= 0 ? FIELD[field] : "the key at " + at(kl, kc))
            + ", found " + (c == '}' ? "the end of the op map" : found(c)));
      }
      if (field < 0) {
        // A keyword key of the user's own (a database's transaction id, say): kept for reports.
        if (otherKey != null) r.addExtra(otherKey, item(c));
        else skipValue(c);
        continue;
      }
      if ((seen & 1 << field) != 0) throw errAt(kl, kc, "duplicate key " + FIELD[field] + " in the op map");
      seen |= 1 << field;
      switch (field) {
        case F_TYPE: {
          Object t = item(c);
          r.typeRaw = t;
          r.type = t == Kw.INVOKE ? 0 : t == Kw.OK ? 1 : t == Kw.FAIL ? 2 : t == Kw.INFO ? 3
              : isocheck.history.OpType.parse(t);
          break;
        }
        case F_F: r.f = item(c); break;
        case F_PROCESS: r.process = item(c); r.hasProcess = true; break;
        case F_INDEX: r.index = readLongField(c, field); break;
        case F_TIME: r.time = readLongField(c, field); break;
        default: readValueField(c);
      }
    }
    if (strField >= 0 && (seen & 1 << strField) == 0) {
      throw errAt(strLine, strCol, "the key \"" + FIELD[strField].substring(1) + "\" is a string; EDN op maps have keyword keys such as "
          + FIELD[strField]);
    }
    sink.op(r);
    ordinal++;
    inOp = false;
  }

  /** The first string key of the op map being read that names an op field ("type", "f", ...), or -1; and where it is. */
  private int strField;
  private long strLine, strCol;

  /**
   * At '"' of a key in an op map: the F_ constant of the op field the string spells, or -1. Such
   * a key is an error unless the map has the keyword key too: an op of string keys would be
   * skipped for want of :f, and a history of them pass unchecked.
   */
  private int stringKey() throws IOException {
    String k = readString();
    String name = k.startsWith(":") ? k.substring(1) : k;
    for (int f = 0; f < FIELD.length; f++) if (FIELD[f].substring(1).equals(name)) return f;
    return -1;
  }

  /** The keyword key read last by {@link #readOpKey} when it names no op field. */
  private Kw otherKey;

  /** At ':' of a key in an op map: returns the F_ constant, or -1 with the keyword in {@link #otherKey}. */
  private int readOpKey() throws IOException {
    int end = tokenEnd(pos + 1);
    int s = pos + 1, len = end - s;
    int f = -1;
    switch (len) {
      case 1: if (buf[s] == 'f') f = F_F; break;
      case 4: f = eq(s, TYPE) ? F_TYPE : eq(s, TIME) ? F_TIME : -1; break;
      case 5: f = eq(s, VALUE) ? F_VALUE : eq(s, INDEX) ? F_INDEX : -1; break;
      case 7: if (eq(s, PROCESS)) f = F_PROCESS; break;
      default:
    }
    if (f < 0) otherKey = readKeyword();
    else pos = end;
    return f;
  }

  private void readValueField(int c) throws IOException {
    while (c == '#') {
      int i = need(pos + 1);
      if (i < 0 || !isAlpha(buf[i])) break;
      long l = line, cc = col(pos);
      String tag = readTag();
      int v = skipWs();
      if (v < 0 || isCloser(v)) throw errAt(l, cc, "expected a value after the tag #" + tag + ", found " + found(v));
      if (tag.equals("inst") || tag.equals("uuid")) {
        r.valueShape = OpRecord.VALUE_OTHER;
        r.valueRaw = tagged(tag, readItem(v) == LONG ? (Object) lv : ov, l, cc);
        return;
      }
      c = v;
    }
    if (c == '[' || c == '(') {
      readTxn();
      return;
    }
    r.valueShape = OpRecord.VALUE_OTHER;
    r.valueRaw = item(c);
  }

  /**
   * At '[' or '(' of a :value. When its first element is a vector or list (the usual case),
   * streams its elements into micro-ops; otherwise reads it whole and lets {@link #settle} decide.
   */
  private void readTxn() throws IOException {
    long ol = line, oc = col(pos);
    int closer = buf[pos] == '[' ? ']' : ')';
    int first = peekAfter(pos + 1);
    if (first != '[' && first != '(' && first != closer) {
      settle(r, readList(), false);
      return;
    }
    pos++;
    r.valueShape = OpRecord.VALUE_TXN;
    for (;;) {
      int c = skipWs();
      if (c == closer) { pos++; return; }
      if (c == '[' || c == '(') readMop();
      else if (c < 0 || isCloser(c)) throw unclosed(c, closer, ol, oc, "the :value");
      else r.addMalformed(item(c));
    }
  }

  /** The first significant byte at or after buf[i] without consuming anything but whitespace. */
  private int peekAfter(int i) throws IOException {
    for (;;) {
      i = need(i);
      if (i < 0) return -1;
      byte b = buf[i];
      if (b == ' ' || b == ',' || b == '\t' || b == '\r' || b == '\n') i++;
      else return b;
    }
  }

  /**
   * A vector :value read whole: micro-ops if any element is a vector or list (the others then
   * malformed micro-ops), otherwise an ordinary value such as a nemesis's [:isolated {...}].
   * With {@code stringKinds} (JSON), a micro-op kind given as a string becomes a keyword.
   */
  static void settle(OpRecord r, List<Object> value, boolean stringKinds) {
    boolean txn = value.isEmpty();
    for (Object e : value) if (e instanceof List) { txn = true; break; }
    if (!txn) {
      r.valueShape = OpRecord.VALUE_OTHER;
      r.valueRaw = value;
      return;
    }
    r.valueShape = OpRecord.VALUE_TXN;
    for (Object e : value) {
      if (e instanceof List<?> m && m.size() == 3) {
        Object f = m.get(0);
        if (stringKinds && f instanceof String k) f = new Kw(k.startsWith(":") ? k.substring(1) : k);
        r.addMop(f, m.get(1), m.get(2));
      }
      else r.addMalformed(e);
    }
  }

  /** At '[' or '(' of one micro-op. */
  private void readMop() throws IOException {
    long ol = line, oc = col(pos);
    int closer = buf[pos] == '[' ? ']' : ')';
    pos++;
    int c = skipWs();
    if (c == closer || c < 0 || isCloser(c)) { malformed(c, closer, ol, oc); return; }
    Object f = item(c);
    c = skipWs();
    if (c == closer || c < 0 || isCloser(c)) { malformed(c, closer, ol, oc, f); return; }
    int kt = readItem(c);
    long kl = lv;
    Object ko = ov;
    c = skipWs();
    if (c == closer || c < 0 || isCloser(c)) {
      malformed(c, closer, ol, oc, f, kt == LONG ? (Object) kl : ko);
      return;
    }
    byte vt;
    long vl = 0;
    Object vo = null;
    if (c == '[' || c == '(') {
      readElems();
      vt = OpRecord.V_LIST;
    } else if (readItem(c) == LONG) {
      vt = OpRecord.V_LONG;
      vl = lv;
    } else {
      vo = ov;
      vt = vo == null ? OpRecord.V_NIL : OpRecord.V_OBJ;
    }
    c = skipWs();
    if (c != closer) {
      malformed(c, closer, ol, oc, f, kt == LONG ? (Object) kl : ko,
          vt == OpRecord.V_LONG ? (Object) vl : vt == OpRecord.V_LIST ? elems() : vo);
      return;
    }
    pos++;
    addMop(f, kt, kl, ko, vt, vl, vo);
  }

  /** Finishes a micro-op that is not a triple: reads the rest and keeps it whole. */
  private void malformed(int c, int closer, long ol, long oc, Object... soFar) throws IOException {
    ArrayList<Object> got = new ArrayList<>(Arrays.asList(soFar));
    for (;;) {
      if (c == closer) { pos++; break; }
      if (c < 0 || isCloser(c)) throw unclosed(c, closer, ol, oc, "the micro-op");
      got.add(item(c));
      c = skipWs();
    }
    r.addMalformed(got);
  }

  /** At '[' or '(' of a micro-op's list value: elements into el/eo. */
  private void readElems() throws IOException {
    long ol = line, oc = col(pos);
    int closer = buf[pos] == '[' ? ']' : ')';
    pos++;
    clearElems();
    for (;;) {
      int c = skipWs();
      if (c == closer) { pos++; return; }
      if (c < 0 || isCloser(c)) throw unclosed(c, closer, ol, oc, "the list");
      pushElem(c);
    }
  }

  // ------------------------------------------------------------------ whitespace

  /**
   * Skips whitespace, commas, comments, discarded forms ({@code #_}) and metadata; returns the
   * next byte (pos at it) or -1 at the end of the input.
   */
  private int skipWs() throws IOException {
    for (;;) {
      while (pos >= lim) if (fill() < 0) return -1;
      byte b = buf[pos];
      if (b == ' ' || b == ',') {
        pos++;
        continue;
      }
      if (b > ' ' && b != ';' && b != '#' && b != '^') return b;
      int c = b & 0xff;
      switch (c) {
        case ' ': case ',': case '\t': case '\r': case '\f': case 0x0B: case 0x1C: case 0x1D: case 0x1E: case 0x1F:
          pos++;
          break;
        case '\n':
          newline(pos);
          pos++;
          break;
        case ';':
          skipComment();
          break;
        case '#': {
          int i = need(pos + 1);
          if (i < 0 || buf[i] != '_') return c;
          long l = line, cc = col(pos);
          pos = i + 1;
          int v = skipWs();
          if (v < 0 || isCloser(v)) throw errAt(l, cc, "expected a form to discard after #_, found " + found(v));
          skipValue(v);
          break;
        }
        case '^': {
          long l = line, cc = col(pos);
          pos++;
          int v = skipWs();
          if (v < 0 || isCloser(v)) throw errAt(l, cc, "expected metadata after ^, found " + found(v));
          skipValue(v);
          v = skipWs();
          if (v < 0 || isCloser(v)) throw errAt(l, cc, "expected a form after the metadata at ^, found " + found(v));
          return v;
        }
        default:
          return c;
      }
    }
  }

  private void skipComment() throws IOException {
    for (;;) {
      while (pos < lim) {
        if (buf[pos] == '\n') return;
        pos++;
      }
      if (fill() < 0) return;
    }
  }

  /**
   * The end of the token whose bytes continue at buf[from] (refilling; the token stays at pos).
   * A control character inside a token is an error: it would end up raw in names and messages.
   */
  private int tokenEnd(int from) throws IOException {
    int i = from;
    for (;;) {
      while (i < lim) {
        byte k = TOKEN_END[buf[i] & 0xff];
        if (k != 0) {
          if (k == 1) return i;
          throw err(i, "unexpected " + describe(i) + " inside a symbol, keyword or number; control characters may appear only inside strings");
        }
        i++;
      }
      int s = fill();
      if (s < 0) return i;
      i -= s;
    }
  }

  // ------------------------------------------------------------------ values

  /** Reads the value starting at pos (first byte c): LONG with lv, or OBJ with ov. */
  @Override
  int readItem(int c) throws IOException {
    if (c >= '0' && c <= '9') return readNumber();
    switch (c) {
      case ':': ov = readKeyword(); return OBJ;
      case '"': ov = readString(); return OBJ;
      case '[': case '(': ov = readList(); return OBJ;
      case '{': ov = readMap(); return OBJ;
      case '#': return readDispatch();
      case '\\': ov = readChar(); return OBJ;
      case '-': case '+': {
        int i = need(pos + 1);
        if (i >= 0 && buf[i] >= '0' && buf[i] <= '9') return readNumber();
        return readSymbol();
      }
      case ')': case ']': case '}': throw err(pos, "unexpected " + (char) c + " (no bracket open)");
      default:
        if (c < 0x20 || c == 0x7f) throw err(pos, "unexpected " + describe(pos) + "; control characters may appear only inside strings");
        return readSymbol();
    }
  }

  /** Like readItem, materialising nothing but what cannot be scanned cheaply. */
  private void skipValue(int c) throws IOException {
    switch (c) {
      case '"': skipString(); return;
      case '[': case '(': case '{': skipColl(false); return;
      case '#': {
        int i = need(pos + 1);
        if (i >= 0 && buf[i] == '{') { pos = i; skipColl(true); return; }
        if (i >= 0 && isAlpha(buf[i])) {
          long l = line, cc = col(pos);
          String tag = readTag();
          int v = skipWs();
          if (v < 0 || isCloser(v)) throw errAt(l, cc, "expected a value after the tag #" + tag + ", found " + found(v));
          skipValue(v);
          return;
        }
        readDispatch();
        return;
      }
      default: readItem(c);
    }
  }

  /** At '[', '(' or '{' (of a map, or of a set when {@code set}): skips the collection. */
  private void skipColl(boolean set) throws IOException {
    long ol = line, oc = col(pos) - (set ? 1 : 0);
    int open = buf[pos];
    int closer = open == '[' ? ']' : open == '(' ? ')' : '}';
    String what = set ? "the set" : "the " + collName(open);
    pos++;
    int n = 0;
    for (;;) {
      int c = skipWs();
      if (c == closer) break;
      if (c < 0 || isCloser(c)) throw unclosed(c, closer, ol, oc, what);
      skipValue(c);
      n++;
    }
    if (open == '{' && !set && (n & 1) != 0) {
      throw err(pos, "expected a value for the last key of the map at " + at(ol, oc) + ", found the end of the map");
    }
    pos++;
  }

  private static String collName(int open) {
    return open == '[' ? "vector" : open == '(' ? "list" : "map";
  }

  private int readNumber() throws IOException {
    int i = pos;
    byte s = buf[i];
    if (s == '-' || s == '+') i++;
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
      lv = s == '-' ? -v : v;
      pos = i;
      return LONG;
    }
    return readNumberSlow();
  }

  private static final Pattern INT = Pattern.compile(
      "([-+]?)(?:(0)|([1-9][0-9]*)|0[xX]([0-9A-Fa-f]+)|0([0-7]+)|([1-9][0-9]?)[rR]([0-9A-Za-z]+))N?");
  private static final Pattern FLOAT = Pattern.compile("[-+]?[0-9]+(\\.[0-9]*)?([eE][-+]?[0-9]+)?M?");
  private static final Pattern RATIO = Pattern.compile("([-+]?[0-9]+)/([0-9]+)");

  private int readNumberSlow() throws IOException {
    int end = tokenEnd(pos + 1);
    checkNumberLength(pos, end);
    long l = line, cc = col(pos);
    String tok = utf8(pos, end, pos);
    pos = end;
    Matcher m = INT.matcher(tok);
    if (m.matches()) {
      BigInteger bi;
      if (m.group(2) != null) bi = BigInteger.ZERO;
      else if (m.group(3) != null) bi = new BigInteger(m.group(3));
      else if (m.group(4) != null) bi = new BigInteger(m.group(4), 16);
      else if (m.group(5) != null) bi = new BigInteger(m.group(5), 8);
      else {
        int radix = Integer.parseInt(m.group(6));
        if (radix < 2 || radix > 36) throw errAt(l, cc, "invalid number " + tok + ": radix must be 2 to 36");
        try {
          bi = new BigInteger(m.group(7), radix);
        } catch (NumberFormatException e) {
          throw errAt(l, cc, "invalid number " + tok);
        }
      }
      if (m.group(1).equals("-")) bi = bi.negate();
      return integer(bi);
    }
    m = FLOAT.matcher(tok);
    if (m.matches()) {
      if (tok.endsWith("M")) ov = new BigDecimal(tok.substring(0, tok.length() - 1));
      else ov = Double.parseDouble(tok);
      return OBJ;
    }
    m = RATIO.matcher(tok);
    if (m.matches()) {
      BigInteger num = new BigInteger(m.group(1)), den = new BigInteger(m.group(2));
      if (den.signum() == 0) throw errAt(l, cc, "invalid number " + tok + ": zero denominator");
      BigInteger[] qr = num.divideAndRemainder(den);
      if (qr[1].signum() == 0) return integer(qr[0]);
      ov = new BigDecimal(num).divide(new BigDecimal(den), MathContext.DECIMAL128).doubleValue();
      return OBJ;
    }
    throw errAt(l, cc, "invalid number " + tok);
  }

  private int integer(BigInteger bi) {
    if (bi.bitLength() < 64) {
      lv = bi.longValue();
      return LONG;
    }
    ov = bi;
    return OBJ;
  }

  private Kw readKeyword() throws IOException {
    int end = tokenEnd(pos + 1);
    int s = pos + 1;
    if (end == s) throw err(pos, "expected a keyword name after ':'");
    if (buf[s] == ':') throw err(pos, "auto-resolved keywords (::name) are not EDN");
    Kw k = keyword(s, end);
    pos = end;
    return k;
  }

  private int readSymbol() throws IOException {
    int end = tokenEnd(pos + 1);
    int s = pos, len = end - s;
    pos = end;
    if (len == 3 && buf[s] == 'n' && buf[s + 1] == 'i' && buf[s + 2] == 'l') ov = null;
    else if (len == 4 && eq(s, TRUE)) ov = Boolean.TRUE;
    else if (len == 5 && eq(s, FALSE)) ov = Boolean.FALSE;
    else ov = new Symbol(utf8(s, end, s));
    return OBJ;
  }

  private static final byte[] TRUE = b("true"), FALSE = b("false");

  /** At '#' (not '#_'): sets, symbolic values and tagged values. */
  private int readDispatch() throws IOException {
    long l = line, cc = col(pos);
    int i = need(pos + 1);
    if (i < 0) throw errAt(l, cc, "expected a dispatch character after #, found the end of the input");
    byte d = buf[i];
    if (d == '{') {
      pos = i;
      ov = readSet();
      return OBJ;
    }
    if (d == '#') {
      int end = tokenEnd(i + 1);
      String sym = utf8(i + 1, end, i);
      pos = end;
      switch (sym) {
        case "Inf": ov = Double.POSITIVE_INFINITY; return OBJ;
        case "-Inf": ov = Double.NEGATIVE_INFINITY; return OBJ;
        case "NaN": ov = Double.NaN; return OBJ;
        default: throw errAt(l, cc, "unknown symbolic value ##" + sym + "; expected ##Inf, ##-Inf or ##NaN");
      }
    }
    if (isAlpha(d)) {
      String tag = readTag();
      int v = skipWs();
      if (v < 0 || isCloser(v)) throw errAt(l, cc, "expected a value after the tag #" + tag + ", found " + found(v));
      Object inner = readItem(v) == LONG ? (Object) lv : ov;
      Object t = tagged(tag, inner, l, cc);
      if (t instanceof Long x) {
        lv = x;
        return LONG;
      }
      ov = t;
      return OBJ;
    }
    if (d == ':') throw errAt(l, cc, "namespaced maps (#:ns{...}) are not supported in histories");
    throw errAt(l, cc, "unexpected #" + describe(i) + "; expected #{ (a set), #_ (discard) or a tag such as #inst");
  }

  /** At '#' followed by a letter: returns the tag's name, pos after it. */
  private String readTag() throws IOException {
    int end = tokenEnd(pos + 2);
    String tag = utf8(pos + 1, end, pos);
    pos = end;
    return tag;
  }

  private Object tagged(String tag, Object inner, long l, long cc) {
    if (tag.equals("inst") && inner instanceof String s) {
      try {
        return OffsetDateTime.parse(s).toInstant();
      } catch (RuntimeException e) {
        throw errAt(l, cc, "invalid #inst " + shorten(s) + "; expected an RFC 3339 timestamp");
      }
    }
    if (tag.equals("uuid") && inner instanceof String s) {
      try {
        return UUID.fromString(s);
      } catch (RuntimeException e) {
        throw errAt(l, cc, "invalid #uuid " + shorten(s));
      }
    }
    return inner;
  }

  private List<Object> readList() throws IOException {
    long ol = line, oc = col(pos);
    int closer = buf[pos] == '[' ? ']' : ')';
    pos++;
    ArrayList<Object> out = new ArrayList<>();
    for (;;) {
      int c = skipWs();
      if (c == closer) { pos++; return out; }
      if (c < 0 || isCloser(c)) throw unclosed(c, closer, ol, oc, closer == ']' ? "the vector" : "the list");
      out.add(item(c));
    }
  }

  private Map<Object, Object> readMap() throws IOException {
    long ol = line, oc = col(pos);
    pos++;
    LinkedHashMap<Object, Object> out = new LinkedHashMap<>();
    for (;;) {
      int c = skipWs();
      if (c == '}') { pos++; return out; }
      if (c < 0 || isCloser(c)) throw unclosed(c, '}', ol, oc, "the map");
      long kl = line, kc = col(pos);
      Object k = item(c);
      c = skipWs();
      if (c < 0 || isCloser(c)) {
        throw err(pos, "expected a value for the key " + shorten(k) + " of the map at " + at(ol, oc)
            + ", found " + (c == '}' ? "the end of the map" : found(c)));
      }
      if (out.containsKey(k)) throw errAt(kl, kc, "duplicate key " + shorten(k) + " in a map");
      out.put(k, item(c));
    }
  }

  private Set<Object> readSet() throws IOException {
    long ol = line, oc = col(pos) - 1;
    pos++;
    LinkedHashSet<Object> out = new LinkedHashSet<>();
    for (;;) {
      int c = skipWs();
      if (c == '}') { pos++; return out; }
      if (c < 0 || isCloser(c)) throw unclosed(c, '}', ol, oc, "the set");
      long kl = line, kc = col(pos);
      Object e = item(c);
      if (!out.add(e)) throw errAt(kl, kc, "duplicate element " + shorten(e) + " in a set");
    }
  }

  private Character readChar() throws IOException {
    long l = line, cc = col(pos);
    int i = need(pos + 1);
    if (i < 0) throw errAt(l, cc, "expected a character after \\, found the end of the input");
    if (buf[i] == '\n') newline(i);
    int end = tokenEnd(i + 1);
    String tok = utf8(pos + 1, end, pos);
    pos = end;
    if (tok.length() == 1) return tok.charAt(0);
    switch (tok) {
      case "newline": return '\n';
      case "space": return ' ';
      case "tab": return '\t';
      case "return": return '\r';
      case "backspace": return '\b';
      case "formfeed": return '\f';
      default:
    }
    if (tok.length() == 5 && tok.charAt(0) == 'u') {
      try {
        return (char) Integer.parseInt(tok.substring(1), 16);
      } catch (NumberFormatException e) {
        // fall through to the error
      }
    }
    if (tok.length() >= 2 && tok.length() <= 4 && tok.charAt(0) == 'o') {
      try {
        int v = Integer.parseInt(tok.substring(1), 8);
        if (v <= 0377) return (char) v;
      } catch (NumberFormatException e) {
        // fall through
      }
    }
    throw errAt(l, cc, "unsupported character \\" + tok
        + "; expected a single character, \\newline, \\space, \\tab, \\return, \\uXXXX or the like");
  }

  // ------------------------------------------------------------------ strings

  /** Scans the string at pos; returns the index of its closing quote. Sets strEscaped. */
  private int scanString(long l, long cc) throws IOException {
    int i = pos + 1;
    boolean esc = false;
    strEscaped = false;
    for (;;) {
      while (i < lim) {
        byte b = buf[i];
        if (esc) esc = false;
        else if (b == '"') return i;
        else if (b == '\\') { esc = true; strEscaped = true; }
        if (b == '\n') newline(i);
        i++;
      }
      int s = fill();
      if (s < 0) throw errAt(l, cc, "unterminated string; expected a closing \" before the end of the input");
      i -= s;
    }
  }

  private boolean strEscaped;

  private String readString() throws IOException {
    long l = line, cc = col(pos);
    int end = scanString(l, cc);
    String s = strEscaped ? unescape(pos + 1, end, l, cc) : utf8Str(pos + 1, end, l, cc);
    pos = end + 1;
    return s;
  }

  private void skipString() throws IOException {
    long l = line, cc = col(pos);
    int end = scanString(l, cc);
    if (strEscaped) unescape(pos + 1, end, l, cc);
    pos = end + 1;
  }

  @Override
  int formatEscape(byte e, int i, int to, StringBuilder out, long l, long cc) {
    if (e >= '0' && e <= '7') {
      int v = 0, k = 0;
      while (k < 3 && i + k < to && buf[i + k] >= '0' && buf[i + k] <= '7') v = v * 8 + (buf[i + k++] - '0');
      if (v > 0377) throw errAt(l, cc, "octal escape out of range in the string starting here");
      out.append((char) v);
      i += k - 1;
      return i;
    }
    return -1;
  }

  @Override
  String escapes() { return "\\\" \\\\ \\n \\t \\r \\b \\f \\uXXXX"; }


  // ------------------------------------------------------------------ helpers

  private static boolean isCloser(int c) { return c == ']' || c == ')' || c == '}'; }

  private static boolean isAlpha(byte b) { return (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z'); }

  private boolean eq(int from, byte[] lit) {
    for (int k = 0; k < lit.length; k++) if (buf[from + k] != lit[k]) return false;
    return true;
  }

  private static byte[] b(String s) { return s.getBytes(java.nio.charset.StandardCharsets.US_ASCII); }

  /** An unclosed or mismatched bracket: c is what was found instead of the closer. */
  private HistoryException unclosed(int c, int closer, long ol, long oc, String what) throws IOException {
    String open = closer == ']' ? "[" : closer == ')' ? "(" : "{";
    if (c < 0) {
      return err(pos, "unexpected end of input; expected " + (char) closer + " to close " + what + " opened by "
          + open + " at " + at(ol, oc));
    }
    return err(pos, "expected " + (char) closer + " to close " + what + " opened by " + open + " at "
        + at(ol, oc) + ", found " + (char) c);
  }
}
