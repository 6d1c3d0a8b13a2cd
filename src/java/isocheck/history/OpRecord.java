package isocheck.history;

import java.util.Arrays;
import java.util.List;

/**
 * One Jepsen op as a producer (EDN/JSON reader, Clojure converter, simulator) hands it to an
 * {@link OpSink}: a mutable, reusable record with primitive fast paths, so that reading a
 * million-op file allocates almost nothing per op. Integer keys and values stay as longs; any
 * other key or value (string, keyword, ...) is carried as an Object and compared by equals.
 *
 * <p>A producer calls {@link #reset}, sets the op fields, adds micro-ops, and passes the record
 * to {@link OpSink#op}. Producers report syntax only; what the op means (unknown micro-op kinds,
 * missing fields, non-list reads) is judged by the consumer, which names the op in its error.
 */
public final class OpRecord {
  public static final long ABSENT = Long.MIN_VALUE;

  /** Micro-op kinds. MALFORMED: not a [f k v] triple. */
  public static final byte READ = 0, APPEND = 1, WRITE = 2, UNKNOWN = 3, MALFORMED = 4;
  /** Value tags. */
  public static final byte V_NIL = 0, V_LONG = 1, V_OBJ = 2, V_LIST = 3;
  /** Shapes of :value. */
  public static final int VALUE_ABSENT = 0, VALUE_TXN = 1, VALUE_OTHER = 2;

  /** Position of the op in the history (0-based), set by the producer. */
  public long ordinal;
  /** Source line (1-based) for file input, or -1. */
  public long line = -1;
  /** The :index field, or ABSENT. */
  public long index = ABSENT;
  /** The :time field (nanoseconds), or ABSENT. */
  public long time = ABSENT;
  /** {@link OpType}, or -1 when :type is missing or not one of invoke/ok/fail/info. */
  public int type = -1;
  /** The raw :type value, for messages (null when missing). */
  public Object typeRaw;
  /** The :process value; meaningful only when {@link #hasProcess}. */
  public Object process;
  public boolean hasProcess;
  /** The :f value (null when missing). */
  public Object f;
  /** One of VALUE_ABSENT, VALUE_TXN, VALUE_OTHER. */
  public int valueShape = VALUE_ABSENT;
  /** For VALUE_OTHER, the raw value (or its rendering), for messages. */
  public Object valueRaw;
  /**
   * Where another tool's format put this op, for messages ("txn 7, session 1, line 12"), or null.
   * When set, {@link #where} names the op by it instead of its line and :index.
   */
  public String origin;
  /**
   * Where another tool's format put this op, computed only when a message needs it: a reader
   * sets this and {@link #originArg} instead of {@link #origin}, so that a million ops do not
   * each build a string no message will show. {@link #originText()} resolves either.
   */
  public Origin originFn;
  /**
   * What {@link #originFn} describes the op by, besides its {@link #process}: two numbers the
   * reader kept with the op (say, a transaction's id and its line), so that nothing of the
   * reader's need stay for a message made later, on another thread.
   */
  public long originArg, originArg2;

  /** Describes where an op of a reader's came from, for messages, from what it kept with the op. */
  public interface Origin {
    String of(long arg, long arg2, Object process);
  }

  /** {@link #origin}, or what {@link #originFn} says, or null. */
  public String originText() {
    if (origin == null && originFn != null) origin = originFn.of(originArg, originArg2, process);
    return origin;
  }

  /** Whether the op has an {@link #origin} (set or to compute). */
  public boolean hasOrigin() { return origin != null || originFn != null; }

  private int n;
  private byte[] kind = new byte[8];
  private Object[] fRaw = new Object[8];
  private long[] keyL = new long[8];
  private Object[] keyO = new Object[8];
  private byte[] vtag = new byte[8];
  private long[] valL = new long[8];
  private Object[] valO = new Object[8];
  private int[] listStart = new int[8], listLen = new int[8];
  private int nElems;
  private long[] elemL = new long[32];
  private Object[] elemO = new Object[32];
  private boolean anyElemObj;
  /** The op's other keys and their values (a database's transaction id, a node), alternating; nExtra pairs. */
  private int nExtra;
  private Object[] extra = new Object[4];

  public void reset(long ordinal) {
    resetOp(ordinal);
    if (n > 0) {
      Arrays.fill(fRaw, 0, n, null);
      Arrays.fill(keyO, 0, n, null);
      Arrays.fill(valO, 0, n, null);
    }
    n = 0;
  }

  /** As {@link #reset}, but the micro-ops' objects are left for the caller to overwrite or clear. */
  private void resetOp(long ordinal) {
    this.ordinal = ordinal;
    line = -1;
    index = ABSENT;
    time = ABSENT;
    type = -1;
    typeRaw = null;
    process = null;
    hasProcess = false;
    f = null;
    valueShape = VALUE_ABSENT;
    valueRaw = null;
    origin = null;
    originFn = null;
    if (anyElemObj) {
      Arrays.fill(elemO, 0, nElems, null);
      anyElemObj = false;
    }
    if (nExtra > 0) {
      Arrays.fill(extra, 0, 2 * nExtra, null);
      nExtra = 0;
    }
    nElems = 0;
  }

  /**
   * The keyword objects last seen naming each kind: a Clojure caller passes the same interned
   * :r, :append and :w on every micro-op, so an identity test answers before any name is looked
   * up or compared. Racy but safe: each slot only ever holds an immutable object of its kind (a
   * stale or lost write only misses).
   */
  private static Object readF = Kw.R, appendF = Kw.APPEND, writeF = Kw.W;

  public static byte kindOf(Object f) {
    if (f == readF) return READ;
    if (f == appendF) return APPEND;
    if (f == writeF) return WRITE;
    String s = Kw.nameOf(f);
    if (s == null) return UNKNOWN;
    byte k;
    switch (s) {
      case "r": k = READ; break;
      case "append": k = APPEND; break;
      case "w": k = WRITE; break;
      default: return UNKNOWN;
    }
    if (Kw.isInterned(f)) {
      if (k == READ) readF = f;
      else if (k == APPEND) appendF = f;
      else writeF = f;
    }
    return k;
  }

  // ---------------------------------------------------------------- producing

  /** Starts a micro-op; returns its position. Set its key and value next. */
  public int beginMop(byte k, Object f) {
    if (n == kind.length) grow();
    int i = n++;
    kind[i] = k;
    fRaw[i] = f;
    keyO[i] = null;
    keyL[i] = 0;
    vtag[i] = V_NIL;
    valO[i] = null;
    return i;
  }

  /** A micro-op that is not a [f k v] triple; {@code raw} is kept for the error message. */
  public void addMalformed(Object raw) {
    int i = beginMop(MALFORMED, null);
    valO[i] = raw;
  }

  public void setKey(long k) { keyL[n - 1] = k; keyO[n - 1] = null; }

  public void setKey(Object k) {
    Long l = asLong(k);
    if (l != null) setKey(l.longValue());
    else keyO[n - 1] = k == null ? NIL_KEY : k;
  }

  public void setValueNil() { vtag[n - 1] = V_NIL; }
  public void setValue(long v) { vtag[n - 1] = V_LONG; valL[n - 1] = v; }

  /** Sets a scalar value (or nil). Lists must use beginList/addElem. */
  public void setValueObj(Object v) {
    if (v == null) { setValueNil(); return; }
    Long l = asLong(v);
    if (l != null) setValue(l.longValue());
    else { vtag[n - 1] = V_OBJ; valO[n - 1] = v; }
  }

  public void beginList() {
    vtag[n - 1] = V_LIST;
    listStart[n - 1] = nElems;
    listLen[n - 1] = 0;
  }

  public void addElem(long v) {
    if (nElems == elemL.length) growElems();
    elemL[nElems] = v;
    elemO[nElems] = null;
    nElems++;
    listLen[n - 1]++;
  }

  public void addElem(Object v) {
    Long l = asLong(v);
    if (l != null) { addElem(l.longValue()); return; }
    if (nElems == elemL.length) growElems();
    elemO[nElems] = v == null ? NIL_KEY : v;
    anyElemObj = true;
    nElems++;
    listLen[n - 1]++;
  }

  /** Generic path (Clojure converter, tests): f, key and value as objects; lists become list values. */
  public void addMop(Object f, Object key, Object value) {
    beginMop(kindOf(f), f);
    setKey(key);
    if (value instanceof List<?> l) {
      beginList();
      // A read's list: integers (the usual) straight into the array, room made once; the
      // length set at the end, not per element.
      int m = l.size(), p = nElems;
      while (elemL.length < p + m) growElems();
      long[] el = elemL;
      int i = 0;
      for (Object e : l) {
        if (i == m) break;  // a list that grew meanwhile: as many as it said it had
        if (e instanceof Long x) {
          el[p + i] = x;
          if (anyElemObj) elemO[p + i] = null;
        } else {
          Long x = asLong(e);
          if (x != null) {
            el[p + i] = x;
            if (anyElemObj) elemO[p + i] = null;
          } else {
            elemO[p + i] = e == null ? NIL_KEY : e;
            anyElemObj = true;
          }
        }
        i++;
      }
      nElems = p + i;
      listLen[n - 1] = i;
    } else setValueObj(value);
  }

  /**
   * Keeps one of the op's other keys (anything beyond :index :time :type :process :f :value,
   * such as a database's transaction id) with its value, for reports to show beside the
   * transaction. Producers pass keys as the user wrote them (a keyword, or a JSON string).
   */
  public void addExtra(Object key, Object value) {
    if (2 * nExtra == extra.length) extra = Arrays.copyOf(extra, extra.length * 2);
    extra[2 * nExtra] = key;
    extra[2 * nExtra + 1] = value;
    nExtra++;
  }

  public int extraCount() { return nExtra; }
  public Object extraKey(int i) { return extra[2 * i]; }
  public Object extraValue(int i) { return extra[2 * i + 1]; }

  /** Marker for a nil key or list element (distinct from "long"). */
  public static final Object NIL_KEY = new Object() {
    @Override public String toString() { return "nil"; }
  };

  static Long asLong(Object o) {
    if (o instanceof Long l) return l;
    if (o instanceof Integer || o instanceof Short || o instanceof Byte) return ((Number) o).longValue();
    return null;
  }

  private void grow() {
    int c = kind.length * 2;
    kind = Arrays.copyOf(kind, c);
    fRaw = Arrays.copyOf(fRaw, c);
    keyL = Arrays.copyOf(keyL, c);
    keyO = Arrays.copyOf(keyO, c);
    vtag = Arrays.copyOf(vtag, c);
    valL = Arrays.copyOf(valL, c);
    valO = Arrays.copyOf(valO, c);
    listStart = Arrays.copyOf(listStart, c);
    listLen = Arrays.copyOf(listLen, c);
  }

  private void growElems() {
    elemL = Arrays.copyOf(elemL, elemL.length * 2);
    elemO = Arrays.copyOf(elemO, elemO.length * 2);
  }

  /** Makes this record a copy of {@code o} (for handing records between threads). */
  public void copyFrom(OpRecord o) {
    reset(o.ordinal);
    line = o.line;
    index = o.index;
    time = o.time;
    type = o.type;
    typeRaw = o.typeRaw;
    process = o.process;
    hasProcess = o.hasProcess;
    f = o.f;
    valueShape = o.valueShape;
    valueRaw = o.valueRaw;
    origin = o.origin;
    originFn = o.originFn;
    originArg = o.originArg;
    originArg2 = o.originArg2;
    int m = o.n;
    while (kind.length < m) grow();
    System.arraycopy(o.kind, 0, kind, 0, m);
    System.arraycopy(o.fRaw, 0, fRaw, 0, m);
    System.arraycopy(o.keyL, 0, keyL, 0, m);
    System.arraycopy(o.keyO, 0, keyO, 0, m);
    System.arraycopy(o.vtag, 0, vtag, 0, m);
    System.arraycopy(o.valL, 0, valL, 0, m);
    System.arraycopy(o.valO, 0, valO, 0, m);
    System.arraycopy(o.listStart, 0, listStart, 0, m);
    System.arraycopy(o.listLen, 0, listLen, 0, m);
    n = m;
    int e = o.nElems;
    while (elemL.length < e) growElems();
    System.arraycopy(o.elemL, 0, elemL, 0, e);
    if (o.anyElemObj) {
      System.arraycopy(o.elemO, 0, elemO, 0, e);
      anyElemObj = true;
    }
    nElems = e;
    for (int i = 0; i < o.nExtra; i++) addExtra(o.extra[2 * i], o.extra[2 * i + 1]);
  }

  /**
   * Appends this record to {@code out}, to be read back in order by {@link #readFrom}: records
   * cross threads as one sequential stream, while the producer's record and the consumer's stay
   * in their own cores' caches (swapping whole records made each side touch the other's).
   */
  public void writeTo(OpStream out) {
    out.ensure(9 + 3 * n + nElems, 5 + 3 * n + (anyElemObj ? nElems : 0) + 2 * nExtra);
    long[] l = out.longs;
    Object[] o = out.objs;
    int p = out.nLongs, q = out.nObjs;
    l[p++] = ordinal;
    l[p++] = line;
    l[p++] = index;
    l[p++] = time;
    l[p++] = ((long) type << 32) | ((long) valueShape << 2) | (hasProcess ? 1 : 0) | (anyElemObj ? 2 : 0);
    l[p++] = ((long) n << 32) | nElems;
    l[p++] = nExtra;
    l[p++] = originArg;
    l[p++] = originArg2;
    o[q++] = typeRaw;
    o[q++] = process;
    o[q++] = f;
    o[q++] = valueRaw;
    o[q++] = origin != null ? origin : originFn;
    for (int i = 0; i < n; i++) {
      l[p++] = (kind[i] & 0xffL) | (vtag[i] & 0xffL) << 8 | (vtag[i] == V_LIST ? (long) listLen[i] << 32 : 0);
      l[p++] = keyL[i];
      l[p++] = valL[i];
      o[q++] = fRaw[i];
      o[q++] = keyO[i];
      o[q++] = valO[i];
    }
    System.arraycopy(elemL, 0, l, p, nElems);
    p += nElems;
    if (anyElemObj) {
      System.arraycopy(elemO, 0, o, q, nElems);
      q += nElems;
    }
    System.arraycopy(extra, 0, o, q, 2 * nExtra);
    q += 2 * nExtra;
    out.nLongs = p;
    out.nObjs = q;
  }

  /** Makes this record the next one {@link #writeTo} wrote to {@code in}, advancing past it. */
  public void readFrom(OpStream in) {
    long[] l = in.longs;
    Object[] o = in.objs;
    int p = in.readLongs, q = in.readObjs;
    // The micro-ops' objects below are overwritten, those past them cleared: not all cleared
    // first, then written (a third of the record's cost, 20 micro-ops an op).
    int before = n;
    resetOp(l[p++]);
    line = l[p++];
    index = l[p++];
    time = l[p++];
    long flags = l[p++];
    type = (int) (flags >> 32);
    valueShape = (int) (flags >>> 2) & 0x3fffffff;
    hasProcess = (flags & 1) != 0;
    boolean objElems = (flags & 2) != 0;
    long sizes = l[p++];
    int m = (int) (sizes >>> 32), e = (int) sizes, x = (int) l[p++];
    originArg = l[p++];
    originArg2 = l[p++];
    typeRaw = o[q++];
    process = o[q++];
    f = o[q++];
    valueRaw = o[q++];
    Object from = o[q++];
    if (from instanceof String str) origin = str;
    else originFn = (Origin) from;
    while (kind.length < m) grow();
    while (elemL.length < e) growElems();
    int start = 0;
    for (int i = 0; i < m; i++) {
      long k = l[p++];
      kind[i] = (byte) k;
      vtag[i] = (byte) (k >>> 8);
      if (vtag[i] == V_LIST) {
        listStart[i] = start;
        listLen[i] = (int) (k >>> 32);
        start += listLen[i];
      }
      keyL[i] = l[p++];
      valL[i] = l[p++];
      fRaw[i] = o[q++];
      keyO[i] = o[q++];
      valO[i] = o[q++];
    }
    if (before > m) {
      Arrays.fill(fRaw, m, before, null);
      Arrays.fill(keyO, m, before, null);
      Arrays.fill(valO, m, before, null);
    }
    n = m;
    System.arraycopy(l, p, elemL, 0, e);
    p += e;
    if (objElems) {
      System.arraycopy(o, q, elemO, 0, e);
      q += e;
      anyElemObj = true;
    }
    nElems = e;
    if (extra.length < 2 * x) extra = new Object[2 * x];
    System.arraycopy(o, q, extra, 0, 2 * x);
    q += 2 * x;
    nExtra = x;
    in.readLongs = p;
    in.readObjs = q;
  }

  // ---------------------------------------------------------------- consuming

  public int mopCount() { return n; }
  public byte kind(int i) { return kind[i]; }
  public Object fRaw(int i) { return fRaw[i]; }
  public boolean keyIsLong(int i) { return keyO[i] == null; }
  public long keyLong(int i) { return keyL[i]; }
  /** The key as an object (Long for integer keys, null for a nil key). */
  public Object key(int i) { Object o = keyO[i]; return o == null ? (Object) keyL[i] : o == NIL_KEY ? null : o; }
  public byte valueTag(int i) { return vtag[i]; }
  public long valueLong(int i) { return valL[i]; }
  public Object valueObj(int i) { return valO[i]; }
  public int listLen(int i) { return listLen[i]; }
  /** Whether any list element of this op is not an integer (else every {@link #elemIsLong} is true). */
  public boolean hasObjectElems() { return anyElemObj; }
  public boolean elemIsLong(int i, int j) { return elemO[listStart[i] + j] == null; }
  public long elemLong(int i, int j) { return elemL[listStart[i] + j]; }
  /** The j-th list element of micro-op i as an object. */
  public Object elem(int i, int j) {
    Object o = elemO[listStart[i] + j];
    return o == null ? (Object) elemL[listStart[i] + j] : o == NIL_KEY ? null : o;
  }

  /** The value of micro-op i as an object (Long, Object, List, or null). */
  public Object value(int i) {
    switch (vtag[i]) {
      case V_LONG: return valL[i];
      case V_OBJ: return valO[i];
      case V_LIST: {
        Object[] a = new Object[listLen[i]];
        for (int j = 0; j < a.length; j++) a[j] = elem(i, j);
        return Arrays.asList(a);
      }
      default: return null;
    }
  }

  /** List elements shown by {@link #renderMop}: half at each end. */
  private static final int SHOWN = 16;

  /** EDN rendering of micro-op i, e.g. [:append 3 5], for messages; a list of more than 16 elements abbreviated. */
  public String renderMop(int i) {
    if (kind[i] == MALFORMED) return Edn.str(valO[i]);
    StringBuilder sb = new StringBuilder("[");
    Object fo = fRaw[i];
    sb.append(fo instanceof String s ? ":" + s : String.valueOf(fo)).append(' ');
    Edn.render(sb, key(i));
    sb.append(' ');
    int len = vtag[i] == V_LIST ? listLen[i] : 0;
    if (len <= SHOWN) Edn.render(sb, value(i));
    else {
      // A long list read is abbreviated (messages stay short), keeping both ends.
      sb.append('[');
      for (int j = 0; j < len; j++) {
        if (j == SHOWN / 2) {
          sb.append("... (").append(len - SHOWN).append(" more) ");
          j = len - SHOWN / 2;
        }
        Edn.render(sb, elem(i, j));
        if (j < len - 1) sb.append(' ');
      }
      sb.append(']');
    }
    return sb.append(']').toString();
  }

  /** "op 12 (line 13, :index 12)"-style locator for messages; "op 12 (txn 7, session 1, line 12)" with an {@link #origin}. */
  public String where() {
    StringBuilder sb = new StringBuilder("op ").append(ordinal);
    if (originText() != null) return sb.append(" (").append(origin).append(')').toString();
    boolean paren = line >= 0 || index != ABSENT;
    if (paren) {
      sb.append(" (");
      if (line >= 0) sb.append("line ").append(line);
      if (index != ABSENT) sb.append(line >= 0 ? ", " : "").append(":index ").append(index);
      sb.append(')');
    }
    return sb.toString();
  }
}
