package isocheck.io;

import isocheck.history.HistoryException;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigInteger;

/**
 * A small pull parser for JSON documents of a known shape (dbcop's histories), over the same
 * window as the history readers: the caller walks the structure it expects, and every error
 * names the line, the column and where in the document it is ({@link #context}). Strict RFC
 * 8259: no comments, no trailing commas; integers are longs, {@link BigInteger}s beyond.
 */
abstract class JsonPull extends TextSource {
  JsonPull(InputStream in) { super(in, MAX_TOKEN); }

  /** Where in the document the parser is, for messages ("data[2][0].events[3]"), or "". */
  abstract String context();

  /** Skips whitespace; returns the next byte (not consumed) or -1 at the end. */
  final int ws() throws IOException { return skipWhitespace(); }

  final HistoryException error(String msg) { return errorAt(line, col(pos), msg); }

  /** An error at line l, column c (where a value started). */
  final HistoryException errorAt(long l, long c, String msg) {
    String ctx = context();
    return new HistoryException("line " + l + ", column " + c + (ctx.isEmpty() ? "" : " (" + ctx + ")") + ": " + msg);
  }

  /** What starts at pos, for "found ..." messages. */
  final String found() throws IOException {
    int c = ws();
    if (c < 0) return "the end of the input";
    if (c == '"') {
      // The string as written, up to 40 bytes, without reading past it (pos stays put).
      int e = pos + 1;
      boolean closed = false;
      while (e - pos < 40) {
        int j = need(e);
        if (j < 0) break;
        e = j;
        if (buf[e] == '"' && buf[e - 1] != '\\') {
          e++;
          closed = true;
          break;
        }
        if (buf[e] == '\n') break;
        e++;
      }
      String text;
      try {
        text = utf8(pos, e, pos);
      } catch (HistoryException cut) {
        text = new String(buf, pos, e - pos, java.nio.charset.StandardCharsets.UTF_8);
      }
      return text + (closed ? "" : "...");
    }
    if (c >= 0x21 && c < 0x7f) {
      int e = pos;
      while (e - pos < 24) {
        int j = need(e);
        if (j < 0) break;
        e = j;
        byte b = buf[e];
        if (b == ',' || b == ']' || b == '}' || b == '[' || b == '{' || b <= ' ') break;
        e++;
      }
      if (e == pos) return "'" + (char) c + "'";
      return new String(buf, pos, e - pos, java.nio.charset.StandardCharsets.ISO_8859_1);
    }
    return String.format("byte 0x%02x", c);
  }

  /** Consumes c (after whitespace), or fails saying what was expected. */
  final void expect(char c, String what) throws IOException {
    if (ws() != c) throw error("expected " + what + ", found " + found());
    pos++;
  }

  /** After a first element or member: true at a ',' (consumed), false at the closing bracket (consumed). */
  final boolean more(char close, String what) throws IOException {
    int c = step(close);
    if (c < 0) throw error("expected ',' or '" + close + "' in " + what + ", found " + found());
    return c == 1;
  }

  /** 1 at a ',' and 0 at the closing bracket (either consumed), -1 at anything else (not consumed). */
  private int step(char close) throws IOException {
    int c = ws();
    if (c != ',' && c != close) return -1;
    pos++;
    return c == ',' ? 1 : 0;
  }

  /**
   * {@link #more(char, String)} in {@code prefix + n} (such as "session 7"), the words built only
   * for the message: a reader that asks after every element does not build a string each time.
   */
  final boolean more(char close, String prefix, long n) throws IOException {
    int c = step(close);
    if (c < 0) throw error("expected ',' or '" + close + "' in " + prefix + n + ", found " + found());
    return c == 1;
  }

  /** At '[' or '{' (consumed by the caller): true when the array or object is empty (its closing bracket consumed). */
  final boolean empty(char close) throws IOException {
    if (ws() == close) {
      pos++;
      return true;
    }
    return false;
  }

  /** A string literal's content (at '"', after whitespace). */
  final String string() throws IOException {
    if (ws() != '"') throw error("expected a string, found " + found());
    int s = pos + 1, i = s;
    boolean esc = false;
    for (;;) {
      int j = need(i);
      if (j < 0) throw error("unterminated string");
      s -= i - j;
      i = j;
      byte b = buf[i];
      if (b == '"') break;
      if (b == '\\') {
        esc = true;
        i++;
        int k = need(i);
        if (k < 0) throw error("unterminated string");
        s -= i - k;
        i = k;
      } else if ((b & 0xff) < 0x20) {
        throw error("a raw control character in a string; JSON strings write them as \\u escapes");
      }
      i++;
    }
    String out = esc ? unescape(s, i) : utf8(s, i, s);
    pos = i + 1;
    return out;
  }

  /** The names {@link #oneOf} looks for, as bytes. */
  static byte[][] names(String... names) {
    byte[][] b = new byte[names.length][];
    for (int i = 0; i < names.length; i++) b[i] = names[i].getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    return b;
  }

  /**
   * When the next value (after whitespace) is a string literal spelling one of {@code names}
   * exactly (no escapes), consumes it and returns its index; else returns -1 and consumes
   * nothing ({@link #string} then reads it). Member names and tags, without a String each.
   */
  final int oneOf(byte[][] names) throws IOException {
    if (ws() != '"') return -1;
    for (int n = 0; n < names.length; n++) {
      byte[] w = names[n];
      if (need(pos + 1 + w.length) < 0) continue;
      int p = pos + 1;
      int k = 0;
      while (k < w.length && buf[p + k] == w[k]) k++;
      if (k == w.length && buf[p + k] == '"') {
        pos = p + k + 1;
        return n;
      }
    }
    return -1;
  }

  /** The name {@link #member} read when it returned -1. */
  String otherName;

  /**
   * A string (a member name, a tag) that is one of {@code names}: its index, or -1 for another
   * string, then in {@link #otherName}. The common spelling is matched in place
   * ({@link #oneOf}); an escaped one is decoded and compared.
   */
  final int member(byte[][] names) throws IOException {
    int m = oneOf(names);
    if (m >= 0) return m;
    String k = string();
    for (int i = 0; i < names.length; i++) {
      if (k.equals(new String(names[i], java.nio.charset.StandardCharsets.US_ASCII))) return i;
    }
    otherName = k;
    return -1;
  }

  private String unescape(int from, int to) {
    StringBuilder sb = scratch();
    int run = from;
    for (int i = from; i < to; i++) {
      if (buf[i] != '\\') continue;
      appendUtf8(sb, run, i, i);
      byte e = buf[++i];
      switch (e) {
        case 'n': sb.append('\n'); break;
        case 't': sb.append('\t'); break;
        case 'r': sb.append('\r'); break;
        case 'b': sb.append('\b'); break;
        case 'f': sb.append('\f'); break;
        case '/': sb.append('/'); break;
        case '"': sb.append('"'); break;
        case '\\': sb.append('\\'); break;
        case 'u': {
          int v = hex4(i + 1, to);
          if (v < 0) throw error("invalid \\u escape in a string; expected 4 hex digits");
          sb.append((char) v);
          i += 4;
          break;
        }
        default: throw error("invalid escape \\" + (char) (e & 0xff) + " in a string");
      }
      run = i + 1;
    }
    appendUtf8(sb, run, to, to);
    return sb.toString();
  }

  /** Result of {@link #number}: the value as a long, when it fits. */
  long lv;
  /** Result of {@link #number}: the value beyond a long, else null. */
  BigInteger big;

  /** Whether the next value (after whitespace) is a number. */
  final boolean atNumber() throws IOException {
    int c = ws();
    return c == '-' || (c >= '0' && c <= '9');
  }

  /** Where the literal {@link #scanNumber} read ends in {@link #buf}. */
  private int numberEnd;

  /**
   * Reads the characters a JSON number may hold from pos on, refusing an absurdly long one: its
   * start in {@link #buf} (the buffer may have moved), its end in {@link #numberEnd}; pos stays.
   */
  private int scanNumber() throws IOException {
    int s = pos, i = s;
    for (;;) {
      int j = need(i);
      if (j < 0) break;
      s -= i - j;
      i = j;
      byte b = buf[i];
      if (!(b == '-' || b == '+' || b == '.' || b == 'e' || b == 'E' || (b >= '0' && b <= '9'))) break;
      i++;
      if (i - s > MAX_NUMBER) checkNumberLength(s, i);
    }
    numberEnd = i;
    return s;
  }

  /**
   * An integer literal: into {@link #lv}, or {@link #big} beyond a long. Fractions and exponents
   * are refused. Checked and parsed from the bytes (no String, no regex): a history holds millions.
   */
  final void number(String what) throws IOException {
    if (!atNumber()) throw error("expected " + what + ", found " + found());
    int s = scanNumber(), i = numberEnd;
    int d = buf[s] == '-' ? s + 1 : s;
    boolean ok = d < i && (buf[d] != '0' || d + 1 == i);
    for (int k = d; ok && k < i; k++) ok = buf[k] >= '0' && buf[k] <= '9';
    if (!ok) {
      throw error("expected " + what + " (an integer), found " + new String(buf, s, i - s, java.nio.charset.StandardCharsets.ISO_8859_1));
    }
    pos = i;
    big = null;
    if (i - s <= 18) lv = smallLong(s, i);
    else {
      BigInteger b = new BigInteger(new String(buf, s, i - s, java.nio.charset.StandardCharsets.ISO_8859_1));
      if (b.bitLength() < 64) lv = b.longValue();
      else big = b;
    }
  }

  /** true, false or null (at the literal, after whitespace): 1, 0 or -1; anything else is null (-2). */
  private static final String[] LITERALS = {"true", "false", "null"};

  final int literal() throws IOException {
    int c = ws();
    String[] words = LITERALS;
    for (int w = 0; w < 3; w++) {
      if (c != words[w].charAt(0)) continue;
      String word = words[w];
      int i = need(pos + word.length() - 1);
      if (i < 0) break;
      pos = i - (word.length() - 1);
      boolean same = true;
      for (int k = 0; k < word.length(); k++) if (buf[pos + k] != word.charAt(k)) same = false;
      int after = need(pos + word.length());
      if (after >= 0) pos = after - word.length();
      boolean ends = after < 0 || !Character.isLetterOrDigit(buf[after]);
      if (same && ends) {
        pos += word.length();
        return w == 0 ? 1 : w == 1 ? 0 : -1;
      }
    }
    return -2;
  }

  /** Skips any one value. */
  final void skipValue() throws IOException {
    int c = ws();
    if (c == '"') { string(); return; }
    if (c == '[' || c == '{') {
      char close = c == '[' ? ']' : '}';
      pos++;
      if (empty(close)) return;
      do {
        if (close == '}') {
          string();
          expect(':', "':' after the key");
        }
        skipValue();
      } while (more(close, c == '[' ? "an array" : "an object"));
      return;
    }
    if (atNumber()) {
      scanNumber();
      pos = numberEnd;
      return;
    }
    if (literal() != -2) return;
    throw error("expected a JSON value, found " + found());
  }
}
