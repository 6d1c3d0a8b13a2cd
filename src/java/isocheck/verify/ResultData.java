package isocheck.verify;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the result file isocheck wrote (result.edn or result.json) into plain Java values: maps
 * (keys by name: {@code :valid?} and {@code "valid?"} are both "valid?"), lists (vectors, lists
 * and sets), Strings (strings, and keywords and symbols by name), Longs, Doubles, Booleans and
 * null. Tags ({@code #inst}) are dropped, their values kept. Enough of EDN and JSON for the
 * result map and no more; its own code, sharing none with the search.
 */
final class ResultData {
  private final String s;
  private int i;

  private ResultData(String s) { this.s = s; }

  /** The value the text holds; an IllegalArgumentException, with the offset, when it is not one. */
  static Object parse(String text) {
    ResultData r = new ResultData(text);
    r.space();
    if (r.i >= r.s.length()) throw new IllegalArgumentException("the result file is empty");
    Object v = r.value();
    r.space();
    if (r.i < r.s.length()) throw r.bad("more after the result map");
    return v;
  }

  private IllegalArgumentException bad(String what) {
    return new IllegalArgumentException(what + " at character " + i + " of the result file");
  }

  private void space() {
    while (i < s.length()) {
      char c = s.charAt(i);
      if (c == ';') {
        while (i < s.length() && s.charAt(i) != '\n') i++;
      } else if (Character.isWhitespace(c) || c == ',') {
        i++;
      } else {
        return;
      }
    }
  }

  private Object value() {
    space();
    if (i >= s.length()) throw bad("unexpected end");
    char c = s.charAt(i);
    switch (c) {
      case '{': i++; return map('}');
      case '[': i++; return list(']');
      case '(': i++; return list(')');
      case '"': return string();
      case '#':
        if (i + 1 < s.length() && s.charAt(i + 1) == '{') { i += 2; return list('}'); }
        i++;
        token(); // a tag: its value follows
        return value();
      default: {
        String t = token();
        if (t.isEmpty()) throw bad("unexpected '" + c + "'");
        return atom(t);
      }
    }
  }

  private Map<String, Object> map(char close) {
    LinkedHashMap<String, Object> m = new LinkedHashMap<>();
    while (true) {
      space();
      if (i >= s.length()) throw bad("a map not closed");
      if (s.charAt(i) == close) { i++; return m; }
      boolean quoted = s.charAt(i) == '"';
      Object k = value();
      // JSON's colon: right after a quoted key, or standing alone.
      if (quoted && i < s.length() && s.charAt(i) == ':') i++;
      space();
      if (i < s.length() && s.charAt(i) == ':' && (i + 1 >= s.length() || !isTokenChar(s.charAt(i + 1)))) i++;
      m.put(String.valueOf(k), value());
    }
  }

  private List<Object> list(char close) {
    ArrayList<Object> l = new ArrayList<>();
    while (true) {
      space();
      if (i >= s.length()) throw bad("a list not closed");
      if (s.charAt(i) == close) { i++; return l; }
      l.add(value());
    }
  }

  private String string() {
    StringBuilder b = new StringBuilder();
    i++;
    while (i < s.length()) {
      char c = s.charAt(i++);
      if (c == '"') return b.toString();
      if (c != '\\') { b.append(c); continue; }
      if (i >= s.length()) break;
      char e = s.charAt(i++);
      switch (e) {
        case 'n': b.append('\n'); break;
        case 't': b.append('\t'); break;
        case 'r': b.append('\r'); break;
        case 'b': b.append('\b'); break;
        case 'f': b.append('\f'); break;
        case 'u':
          if (i + 4 > s.length()) throw bad("a bad \\u escape");
          b.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
          i += 4;
          break;
        default: b.append(e);
      }
    }
    throw bad("a string not closed");
  }

  private static boolean isTokenChar(char c) {
    return !(Character.isWhitespace(c) || c == ',' || c == '{' || c == '}' || c == '[' || c == ']' || c == '(' || c == ')'
        || c == '"' || c == ';');
  }

  private String token() {
    int from = i;
    while (i < s.length() && isTokenChar(s.charAt(i))) i++;
    return s.substring(from, i);
  }

  private Object atom(String t) {
    if (t.equals("nil") || t.equals("null")) return null;
    if (t.equals("true")) return Boolean.TRUE;
    if (t.equals("false")) return Boolean.FALSE;
    if (t.startsWith(":")) return t.substring(1);
    char c = t.charAt(0);
    if (Character.isDigit(c) || ((c == '-' || c == '+') && t.length() > 1 && Character.isDigit(t.charAt(1)))) {
      String n = t.endsWith("N") || t.endsWith("M") ? t.substring(0, t.length() - 1) : t;
      try {
        return Long.parseLong(n);
      } catch (NumberFormatException e) {
        try {
          return Double.parseDouble(n);
        } catch (NumberFormatException e2) {
          throw bad("a bad number " + t);
        }
      }
    }
    return t; // a symbol
  }
}
