package isocheck.report;

import isocheck.history.Kw;
import isocheck.history.Sym;
import java.util.Collection;
import java.util.Map;

/**
 * Writes result data as JSON: maps become objects (keys as their names: {@code :valid?} →
 * "valid?"), keywords become strings without the colon, sets and lists become arrays, and any
 * other object its string.
 */
public final class Json {
  private Json() {}

  public static String write(Object o) {
    StringBuilder sb = new StringBuilder();
    write(sb, o);
    return sb.toString();
  }

  public static void write(StringBuilder sb, Object o) {
    if (o == null) sb.append("null");
    else if (o instanceof Boolean || o instanceof Long || o instanceof Integer || o instanceof Short || o instanceof Byte) sb.append(o);
    else if (o instanceof Double d) sb.append(d.isNaN() || d.isInfinite() ? "null" : d.toString());
    else if (o instanceof Float f) sb.append(f.isNaN() || f.isInfinite() ? "null" : f.toString());
    else if (o instanceof Number n) sb.append(n.toString().replaceAll("[NM]$", ""));
    else if (o instanceof Map<?, ?> m) {
      sb.append('{');
      boolean first = true;
      for (Map.Entry<?, ?> e : m.entrySet()) {
        if (!first) sb.append(',');
        first = false;
        string(sb, keyName(e.getKey()));
        sb.append(':');
        write(sb, e.getValue());
      }
      sb.append('}');
    } else if (o instanceof Collection<?> c) {
      sb.append('[');
      boolean first = true;
      for (Object x : c) {
        if (!first) sb.append(',');
        first = false;
        write(sb, x);
      }
      sb.append(']');
    } else if (o instanceof Kw k) string(sb, k.name());
    else if (o instanceof Sym s) string(sb, s.name());
    else {
      String s = o.toString();
      // Clojure keywords print as :name; give their name, like Kw.
      string(sb, o.getClass().getName().equals("clojure.lang.Keyword") && s.startsWith(":") ? s.substring(1) : s);
    }
  }

  private static String keyName(Object k) {
    if (k instanceof Kw kw) return kw.name();
    if (k instanceof String s) return s;
    String s = String.valueOf(k);
    return s.startsWith(":") ? s.substring(1) : s;
  }

  public static void string(StringBuilder sb, String s) {
    sb.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"': sb.append("\\\""); break;
        case '\\': sb.append("\\\\"); break;
        case '\n': sb.append("\\n"); break;
        case '\r': sb.append("\\r"); break;
        case '\t': sb.append("\\t"); break;
        default:
          if (c < 0x20) sb.append(String.format("\\u%04x", (int) c));
          else sb.append(c);
      }
    }
    sb.append('"');
  }
}
