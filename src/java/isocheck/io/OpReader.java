package isocheck.io;

import isocheck.history.HistoryException;
import isocheck.history.Kw;
import isocheck.history.OpRecord;
import isocheck.history.OpSink;
import java.io.InputStream;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * What the EDN and JSON readers share beyond the byte buffer: the sink and the record they fill,
 * the scalar result of reading one value, the scratch for a list value, and turning a parsed
 * [f k v] triple into a micro-op of the record. Each reader keeps its own grammar.
 */
abstract class OpReader extends TextSource {
  /** Results of {@link #readItem}: an integer in {@link #lv}, or any other value in {@link #ov}. */
  static final int LONG = 0, OBJ = 1;

  final OpSink sink;
  final OpRecord r = new OpRecord();
  long lv;
  Object ov;

  /** Scratch for the list value of the micro-op being read (committed once the triple is complete). */
  private long[] el = new long[64];
  private Object[] eo = new Object[64];
  private int ne;

  OpReader(InputStream in, OpSink sink, int maxToken) {
    super(in, maxToken);
    this.sink = sink;
  }

  /** Reads the value starting at pos (first byte c): LONG with lv, or OBJ with ov. */
  abstract int readItem(int c) throws java.io.IOException;

  /** How this format spells op field f in messages (":type", "\"type\""). */
  abstract String fieldName(int f);

  /** The value starting at pos (first byte c), boxed. */
  final Object item(int c) throws java.io.IOException {
    return readItem(c) == LONG ? (Object) lv : ov;
  }

  /** Starts collecting a list value. */
  final void clearElems() { ne = 0; }

  /** Reads the value starting at pos (first byte c) as the next element of the list value. */
  final void pushElem(int c) throws java.io.IOException {
    if (ne == el.length) {
      el = Arrays.copyOf(el, ne * 2);
      eo = Arrays.copyOf(eo, ne * 2);
    }
    if (readItem(c) == LONG) {
      el[ne] = lv;
      eo[ne++] = null;
    } else {
      eo[ne++] = ov == null ? OpRecord.NIL_KEY : ov;
    }
  }

  /** The collected list value, boxed (for messages and malformed micro-ops). */
  final List<Object> elems() {
    ArrayList<Object> l = new ArrayList<>(ne);
    for (int j = 0; j < ne; j++) l.add(eo[j] == null ? (Object) el[j] : eo[j] == OpRecord.NIL_KEY ? null : eo[j]);
    return l;
  }

  /**
   * Adds the micro-op [f k v] to the record: the key as a long (kt LONG) or object, the value by
   * its tag (V_LIST: the collected elements).
   */
  final void addMop(Object f, int kt, long kl, Object ko, byte vt, long vl, Object vo) {
    byte kind = f == Kw.R ? OpRecord.READ : f == Kw.APPEND ? OpRecord.APPEND : f == Kw.W ? OpRecord.WRITE
        : OpRecord.kindOf(f);
    r.beginMop(kind, f);
    if (kt == LONG) r.setKey(kl);
    else r.setKey(ko);
    switch (vt) {
      case OpRecord.V_LONG: r.setValue(vl); break;
      case OpRecord.V_OBJ: r.setValueObj(vo); break;
      case OpRecord.V_LIST: {
        r.beginList();
        for (int j = 0; j < ne; j++) {
          Object o = eo[j];
          if (o == null) r.addElem(el[j]);
          else r.addElem(o == OpRecord.NIL_KEY ? null : o);
        }
        break;
      }
      default: r.setValueNil();
    }
  }

  /** An integer op field (:index, :time); nil is absent. */
  final long readLongField(int c, int field) throws java.io.IOException {
    long l = line, cc = col(pos);
    if (readItem(c) == LONG) return lv;
    if (ov == null) return OpRecord.ABSENT;
    String want = ov instanceof BigInteger ? "an integer that fits in 64 bits" : "an integer";
    throw errAt(l, cc, "expected " + want + " for " + fieldName(field) + ", found " + shorten(ov));
  }

  /** The content of a string literal with escapes, buf[from..to), that starts at line l, column cc. */
  final String unescape(int from, int to, long l, long cc) {
    StringBuilder out = scratch();
    int run = from;
    for (int i = from; i < to; i++) {
      if (buf[i] != '\\') continue;
      try {
        appendUtf8(out, run, i, i);
      } catch (HistoryException e) {
        throw errAt(l, cc, "invalid UTF-8 in the string starting here");
      }
      byte e = buf[++i];
      switch (e) {
        case 'n': out.append('\n'); break;
        case 't': out.append('\t'); break;
        case 'r': out.append('\r'); break;
        case 'b': out.append('\b'); break;
        case 'f': out.append('\f'); break;
        case '"': out.append('"'); break;
        case '\\': out.append('\\'); break;
        case 'u': {
          int v = hex4(i + 1, to);
          if (v < 0) throw errAt(l, cc, "invalid \\u escape in the string starting here; expected 4 hex digits");
          out.append((char) v);
          i += 4;
          break;
        }
        default: {
          int next = formatEscape(e, i, to, out, l, cc);
          if (next >= 0) {
            i = next;
            break;
          }
          String shown = e >= 0x21 && e < 0x7f ? String.valueOf((char) e) : String.format("(byte 0x%02x)", e & 0xff);
          throw errAt(l, cc, "invalid escape \\" + shown + " in the string starting here; expected one of "
              + escapes());
        }
      }
      run = i + 1;
    }
    try {
      appendUtf8(out, run, to, to);
    } catch (HistoryException e) {
      throw errAt(l, cc, "invalid UTF-8 in the string starting here");
    }
    return out.toString();
  }
  /**
   * An escape only this format has, the byte after the backslash being e at i: appends it and
   * returns the index of its last byte, or -1 when e is no escape here.
   */
  abstract int formatEscape(byte e, int i, int to, StringBuilder out, long l, long cc);

  /** The escapes this format allows, for messages. */
  abstract String escapes();
}
