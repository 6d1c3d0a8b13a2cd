package isocheck.cli;

import isocheck.history.Kw;
import isocheck.history.Sym;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * Prints result data ({@link isocheck.check.Result#toData()}) as EDN, reading back as the same
 * Clojure value the Clojure layer's {@code (isocheck.jepsen/->clj data)} builds, so
 * {@code --format edn} and {@code result.edn} need no Clojure at run time.
 *
 * <p>The conversion is {@code ->clj}'s: a map's String keys become keywords (other keys are
 * converted like values); {@link Kw} is a keyword; {@link Sym} and the EDN reader's symbols are
 * symbols; lists are vectors, sets are sets, other collections are lists. User values from
 * histories print as Clojure prints them: {@code nil}, booleans, integers, {@code 12N} for a
 * BigInteger, {@code 1.5M} for a BigDecimal, doubles ({@code ##Inf}, {@code ##NaN}), strings
 * and characters escaped, {@code #uuid "…"}. Maps print in their own order with
 * {@code ", "} between entries, as {@code pr-str} does.
 *
 * <p>Where Clojure's printer would write something its reader cannot read back, this one
 * writes the nearest readable form: a map key that is a String but not a valid keyword name
 * stays a string, an {@link java.time.Instant} is an {@code #inst}, primitive arrays are
 * vectors, and any other object is the string of its {@code toString()}. Map entries (and
 * set elements) that print alike are printed once, the last value winning, as Clojure's
 * {@code assoc} would keep them.
 */
public final class EdnPrinter {
  private EdnPrinter() {}

  /** The EDN text of a result-data value. */
  public static String str(Object o) {
    StringBuilder sb = new StringBuilder(256);
    print(sb, o);
    return sb.toString();
  }

  public static void print(StringBuilder sb, Object o) {
    if (o == null) sb.append("nil");
    else if (o instanceof String s) string(sb, s);
    else if (o instanceof Boolean || o instanceof Long || o instanceof Integer || o instanceof Short
        || o instanceof Byte) sb.append(o);
    else if (o instanceof Kw k) sb.append(':').append(k.name());
    else if (o instanceof Map<?, ?> m) map(sb, m);
    else if (o instanceof List<?> l) seq(sb, '[', l, ']');
    else if (o instanceof Set<?> s) set(sb, s);
    else if (o instanceof Collection<?> c) seq(sb, '(', c, ')');
    else if (o instanceof Double d) dbl(sb, d);
    else if (o instanceof Float f) dbl(sb, f.doubleValue());
    else if (o instanceof BigInteger b) sb.append(b).append('N');
    else if (o instanceof BigDecimal b) sb.append(b).append('M');
    else if (o instanceof Character c) chr(sb, c);
    else if (o instanceof Sym s) sb.append(s.name());
    else if (o instanceof isocheck.io.EdnReader.Symbol s) sb.append(s.name());
    else if (o instanceof UUID u) sb.append("#uuid \"").append(u).append('"');
    else if (o instanceof java.time.Instant t) sb.append("#inst \"").append(t).append('"');
    else if (o instanceof long[] a) {
      sb.append('[');
      for (int i = 0; i < a.length; i++) sb.append(i == 0 ? "" : " ").append(a[i]);
      sb.append(']');
    } else if (o instanceof int[] a) {
      sb.append('[');
      for (int i = 0; i < a.length; i++) sb.append(i == 0 ? "" : " ").append(a[i]);
      sb.append(']');
    } else if (o instanceof Number n) sb.append(n);
    else string(sb, o.toString());
  }

  private static void map(StringBuilder sb, Map<?, ?> m) {
    int start = sb.length();
    HashSet<String> keys = new HashSet<>();
    sb.append('{');
    boolean first = true;
    for (Map.Entry<?, ?> e : m.entrySet()) {
      if (!first) sb.append(", ");
      first = false;
      int keyAt = sb.length();
      key(sb, e.getKey());
      if (!keys.add(sb.substring(keyAt))) {
        sb.setLength(start);
        mapMerging(sb, m);
        return;
      }
      sb.append(' ');
      print(sb, e.getValue());
    }
    sb.append('}');
  }

  /**
   * A map whose keys print alike (a String key "a" and a keyword :a): one entry per printed key,
   * at the first one's position with the last one's value, as Clojure's assoc keeps them.
   */
  private static void mapMerging(StringBuilder sb, Map<?, ?> m) {
    LinkedHashMap<String, String> entries = new LinkedHashMap<>();
    for (Map.Entry<?, ?> e : m.entrySet()) {
      StringBuilder k = new StringBuilder();
      key(k, e.getKey());
      entries.put(k.toString(), str(e.getValue()));
    }
    sb.append('{');
    boolean first = true;
    for (Map.Entry<String, String> e : entries.entrySet()) {
      if (!first) sb.append(", ");
      first = false;
      sb.append(e.getKey()).append(' ').append(e.getValue());
    }
    sb.append('}');
  }

  private static void key(StringBuilder sb, Object k) {
    if (k instanceof String s && keywordName(s)) sb.append(':').append(s);
    else print(sb, k);
  }

  /** Whether ":" + s reads back as the keyword named s. */
  static boolean keywordName(String s) {
    if (s.isEmpty()) return false;
    char c0 = s.charAt(0);
    if (c0 == ':' || c0 == '/' && s.length() > 1) return false;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c <= ' ' || c == ',' || c == '"' || c == ';' || c == '\\' || c == '@' || c == '^' || c == '`'
          || c == '~' || c == '(' || c == ')' || c == '[' || c == ']' || c == '{' || c == '}') return false;
    }
    return !s.endsWith("/") || s.equals("/");
  }

  private static void seq(StringBuilder sb, char open, Collection<?> c, char close) {
    sb.append(open);
    boolean first = true;
    for (Object x : c) {
      if (!first) sb.append(' ');
      first = false;
      print(sb, x);
    }
    sb.append(close);
  }

  private static void set(StringBuilder sb, Set<?> s) {
    LinkedHashSet<String> seen = new LinkedHashSet<>();
    for (Object x : s) seen.add(str(x));
    sb.append("#{");
    boolean first = true;
    for (String x : seen) {
      if (!first) sb.append(' ');
      first = false;
      sb.append(x);
    }
    sb.append('}');
  }

  private static void dbl(StringBuilder sb, double d) {
    if (Double.isNaN(d)) sb.append("##NaN");
    else if (d == Double.POSITIVE_INFINITY) sb.append("##Inf");
    else if (d == Double.NEGATIVE_INFINITY) sb.append("##-Inf");
    else sb.append(d);
  }

  private static void chr(StringBuilder sb, char c) {
    sb.append('\\');
    switch (c) {
      case '\n': sb.append("newline"); break;
      case '\t': sb.append("tab"); break;
      case ' ': sb.append("space"); break;
      case '\b': sb.append("backspace"); break;
      case '\f': sb.append("formfeed"); break;
      case '\r': sb.append("return"); break;
      default:
        if (c < 0x20 || c == 0x7f || Character.isSurrogate(c)) {
          sb.setLength(sb.length() - 1);
          unicode(sb, c);
        } else sb.append(c);
    }
  }

  /** A string literal, escaped as Clojure's printer escapes it (and control characters as \\uXXXX). */
  public static void string(StringBuilder sb, String s) {
    sb.append('"');
    for (int i = 0, n = s.length(); i < n; i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"': sb.append("\\\""); break;
        case '\\': sb.append("\\\\"); break;
        case '\n': sb.append("\\n"); break;
        case '\t': sb.append("\\t"); break;
        case '\r': sb.append("\\r"); break;
        case '\f': sb.append("\\f"); break;
        case '\b': sb.append("\\b"); break;
        default:
          if (c < 0x20 || c == 0x7f) unicode(sb, c);
          else sb.append(c);
      }
    }
    sb.append('"');
  }

  private static void unicode(StringBuilder sb, char c) {
    sb.append("\\u");
    String h = Integer.toHexString(c);
    for (int i = h.length(); i < 4; i++) sb.append('0');
    sb.append(h);
  }
}
