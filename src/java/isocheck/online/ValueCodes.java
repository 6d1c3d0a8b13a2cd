package isocheck.online;

import isocheck.history.Edn;
import isocheck.history.OpRecord;
import java.util.HashMap;

/**
 * Values as longs, for the online checkers' primitive tables: integers stand for themselves, any
 * other value is interned to a code counting up from just above {@code Long.MIN_VALUE} (which
 * stays free for a checker's own use, such as the nil of a register never written), and a code
 * turns back into the value's text for messages. One per checker; not thread-safe.
 */
final class ValueCodes {
  private final HashMap<Object, Long> codes = new HashMap<>();
  private final HashMap<Long, Object> values = new HashMap<>();

  /** v's code: an integer as itself, anything else interned. */
  long code(Object v) {
    if (v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte) return ((Number) v).longValue();
    return intern(v);
  }

  /** v's interned code, whatever its type. */
  long intern(Object v) {
    Long c = codes.get(v);
    if (c == null) {
      c = Long.MIN_VALUE + 1 + codes.size();
      codes.put(v, c);
      values.put(c, v);
    }
    return c;
  }

  /** The code of micro-op i's value (an append's or a write's). */
  long append(OpRecord r, int i) {
    return r.valueTag(i) == OpRecord.V_LONG ? r.valueLong(i) : code(r.value(i));
  }

  /** The code of element j of micro-op i's list read. */
  long elem(OpRecord r, int i, int j) {
    return r.elemIsLong(i, j) ? r.elemLong(i, j) : code(r.elem(i, j));
  }

  /** The value a code stands for, as EDN text. */
  String str(long code) {
    Object o = values.get(code);
    return o != null ? Edn.str(o) : Long.toString(code);
  }
}
