package isocheck.history;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Renders values in EDN syntax for messages and explanations ([:append 3 5], "a", nil). */
public final class Edn {
  private Edn() {}

  public static String str(Object o) {
    StringBuilder sb = new StringBuilder();
    render(sb, o);
    return sb.toString();
  }

  public static void render(StringBuilder sb, Object o) {
    if (o == null) sb.append("nil");
    else if (o instanceof String s) quote(sb, s);
    else if (o instanceof Character c) character(sb, c);
    else if (o instanceof Map<?, ?> m) {
      sb.append('{');
      boolean first = true;
      for (Map.Entry<?, ?> e : m.entrySet()) {
        if (!first) sb.append(", ");
        first = false;
        // Result data uses String keys for what the Clojure layer turns into keywords.
        if (e.getKey() instanceof String k && !k.isEmpty() && k.indexOf(' ') < 0) sb.append(':').append(k);
        else render(sb, e.getKey());
        sb.append(' ');
        render(sb, e.getValue());
      }
      sb.append('}');
    } else if (o instanceof Set<?> s) {
      sb.append("#{");
      seq(sb, s);
      sb.append('}');
    } else if (o instanceof List<?> l) {
      sb.append('[');
      seq(sb, l);
      sb.append(']');
    } else if (o instanceof Collection<?> c) {
      sb.append('(');
      seq(sb, c);
      sb.append(')');
    } else if (o instanceof long[] a) {
      sb.append('[');
      for (int i = 0; i < a.length; i++) {
        if (i > 0) sb.append(' ');
        sb.append(a[i]);
      }
      sb.append(']');
    } else sb.append(o);
  }

  private static void seq(StringBuilder sb, Collection<?> c) {
    boolean first = true;
    for (Object x : c) {
      if (!first) sb.append(' ');
      first = false;
      render(sb, x);
    }
  }

  /** C0 and C1 control characters, DEL, and the line and paragraph separators: never written raw. */
  public static boolean control(char c) {
    return c < 0x20 || (c >= 0x7f && c < 0xa0) || c == '\u2028' || c == '\u2029';
  }

  public static void quote(StringBuilder sb, String s) {
    sb.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"': sb.append("\\\""); break;
        case '\\': sb.append("\\\\"); break;
        case '\n': sb.append("\\n"); break;
        case '\t': sb.append("\\t"); break;
        case '\r': sb.append("\\r"); break;
        default:
          if (control(c)) sb.append(String.format(java.util.Locale.ROOT, "\\u%04x", (int) c));
          else sb.append(c);
      }
    }
    sb.append('"');
  }

  /** A character literal: \\a, \\newline, \\space, \\tab; other control characters as \\uXXXX, never raw. */
  private static void character(StringBuilder sb, char c) {
    sb.append('\\');
    switch (c) {
      case '\n': sb.append("newline"); break;
      case ' ': sb.append("space"); break;
      case '\t': sb.append("tab"); break;
      case '\r': sb.append("return"); break;
      default:
        if (c < 0x20 || c == 0x7f) sb.append(String.format("u%04x", (int) c));
        else sb.append(c);
    }
  }
}
