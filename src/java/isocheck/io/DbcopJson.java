package isocheck.io;

import isocheck.history.Edn;
import isocheck.history.History;
import isocheck.history.OpRecord;
import isocheck.history.OpSink;
import isocheck.history.OpType;
import isocheck.report.Json;
import isocheck.util.IntList;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.HashSet;

/**
 * dbcop's JSON histories (Biswas and Enea, OOPSLA'19; the current {@code rnbguy/dbcop}, its
 * {@code docs/history-format.md}): either the file {@code dbcop generate} writes,
 * <pre>{"params": {...}, "info": "...", "start": "...", "end": "...", "data": [session, ...]}</pre>
 * or the bare array of sessions. A session is an array of transactions
 * {@code {"events": [event, ...], "committed": true}}; an event is
 * {@code {"Write": {"variable": 1, "version": 2}}}, {@code {"Read": {"variable": 1, "version": 2}}}
 * ({@code "version": null}: the variable read uninitialised), or the compact
 * {@code ["w", 1, 2]} / {@code ["r", 1, null]}. Variables are integers (or strings: dbcop's
 * library is generic in them, its command line reads integers), versions integers 0 or more.
 *
 * <p>The mapping, exactly as dbcop reads it:
 * <ul>
 * <li>Session i (counting from 0 in the array) is {@code :process} i + 1: dbcop numbers
 *     sessions from 1, keeping 0 for its initial transaction. Transactions come session by
 *     session, each one completion op: {@code :ok} when {@code committed}, else {@code :fail}.
 *     The format records no times: there is no realtime order.
 * <li>{@code Write} is {@code [:w variable version]}; {@code Read} is {@code [:r variable
 *     version]}, or {@code [:r variable nil]} (the initial value) when the version is null,
 *     or when it is 0 and no transaction (committed or not) writes version 0 of that variable:
 *     dbcop reads such a version 0 as the initial value too.
 * <li>Other members ({@code params}, {@code info}, the times) are read past: the history is
 *     {@code data}.
 * </ul>
 * Versions must be unique per variable, as dbcop requires (the history builder refuses
 * duplicates). Errors name the line, the column and the place in the document
 * ({@code data[1][0].events[2]}).
 */
public final class DbcopJson {
  private DbcopJson() {}

  /** The members of dbcop's history object; a JSON object whose first member is one of these is dbcop's. */
  static final String[] MEMBERS = {"params", "info", "start", "end", "data"};

  /** Reads a dbcop JSON history from {@code in} (not closed) into {@code sink}, then ends it. */
  public static void read(InputStream in, OpSink sink) throws IOException {
    new Reader(in).run(sink);
  }

  /**
   * A set of variables: integers without boxing (a history's reads of the initial value name
   * most of its keys: 10^5 transactions of Plume's shape, about 10^5 boxed keys in a hash set),
   * any other object by equals.
   */
  private static final class KeySet {
    private final isocheck.util.LongIntMap longs = new isocheck.util.LongIntMap(1024);
    private HashSet<Object> objs;

    /** The variable keyL, or keyO when not null. */
    boolean contains(long keyL, Object keyO) {
      if (keyO instanceof Long l) return longs.get(l) >= 0;
      return keyO == null ? longs.get(keyL) >= 0 : objs != null && objs.contains(keyO);
    }

    void add(long keyL, Object keyO) {
      if (keyO instanceof Long l) longs.put(l, 0);
      else if (keyO == null) longs.put(keyL, 0);
      else (objs == null ? objs = new HashSet<>() : objs).add(keyO);
    }
  }

  private static final class Reader extends JsonPull {
    private final TxnBuffer b = new TxnBuffer();
    /** The buffer's column of each transaction's index in its session (the session is the buffer's, + 1). */
    private final int txnIndex;
    /** Reads of version 0, settled once every write is known. */
    private final IntList zeroReads = new IntList();
    private final KeySet zeroWritten = new KeySet();
    private String root = "";
    private int session = -1, txn = -1, event = -1;

    Reader(InputStream in) {
      super(in);
      txnIndex = b.intColumn();
    }

    @Override
    String context() {
      if (session < 0) return "";
      StringBuilder sb = new StringBuilder(root).append('[').append(session).append(']');
      if (txn >= 0) sb.append('[').append(txn).append(']');
      if (event >= 0) sb.append(".events[").append(event).append(']');
      return sb.toString();
    }

    /** While streaming: variables a read of version 0 was handed on for as the initial value. */
    private KeySet zeroAsInitial;

    void run(OpSink sink) throws IOException {
      StreamingSink st = StreamingSink.of(sink);
      if (st != null) {
        st.used = true;
        b.stream(sink, origin, null);
        zeroAsInitial = new KeySet();
      }
      skipBom();
      int c = ws();
      if (c == '[') {
        sessions();
      } else if (c == '{') {
        pos++;
        boolean data = false;
        if (!empty('}')) {
          do {
            String k = string();
            expect(':', "':' after \"" + k + "\"");
            if (k.equals("data")) {
              if (data) throw error("a second \"data\" member");
              root = "data";
              sessions();
              data = true;
              session = -1;
            } else {
              skipValue();
            }
          } while (more('}', "the history object"));
        }
        if (!data) throw error("the history object has no \"data\" member (the array of sessions)");
      } else {
        throw error("expected a dbcop history: an array of sessions, or an object with \"data\", found " + found());
      }
      session = -1;
      if (ws() >= 0) throw error("expected the end of the input after the history, found " + found());
      if (b.streaming()) {
        b.finishStream();
        return;
      }
      for (int k = 0; k < zeroReads.size(); k++) {
        int i = zeroReads.get(k);
        if (!zeroWritten.contains(b.keyLong(i), b.keyIsLong(i) ? null : b.key(i))) b.setNil(i);
      }
      b.emit(sink, origin);
    }

    /** Where transaction t came from, for messages. */
    private final TxnBuffer.Origin origin = new TxnBuffer.Origin() {
      @Override public long arg(int t) { return b.intAt(txnIndex, t); }

      /** The session as the file numbers it: the buffer's, less one. */
      @Override public String of(Object session, long index, long at) {
        return root + "[" + ((Long) session - 1) + "][" + index + "], line " + at;
      }
    };

    private void sessions() throws IOException {
      expect('[', "'[' opening the array of sessions");
      if (empty(']')) return;
      for (session = 0;; session++) {
        txn = -1;
        expect('[', "'[' opening session " + session + " (an array of transactions)");
        if (!empty(']')) {
          for (txn = 0;; txn++) {
            transaction();
            if (b.streaming()) b.flushBefore(b.txnCount(), base + pos);
            if (!more(']', "session ", session)) break;
          }
        }
        txn = -1;
        if (!more(']', "the array of sessions")) break;
      }
    }

    private static final byte[][] TXN_MEMBERS = names("events", "committed");
    private static final byte[][] COMPACT_TAGS = names("r", "w");
    private static final byte[][] TAGS = names("Read", "Write");
    private static final String[] TAG = {"Read", "Write"};
    private static final String[] TAG_COLON = {"':' after \"Read\"", "':' after \"Write\""};
    private static final String[] TAG_OPEN = {"'{' opening the Read's {\"variable\": ..., \"version\": ...}",
        "'{' opening the Write's {\"variable\": ..., \"version\": ...}"};
    private static final String[] TAG_IN = {"the Read", "the Write"};
    private static final String[] COMPACT_CLOSE = {"']' closing the event [\"r\", variable, version]",
        "']' closing the event [\"w\", variable, version]"};
    private static final byte[][] EVENT_MEMBERS = names("variable", "version");

    private void transaction() throws IOException {
      expect('{', "'{' opening a transaction {\"events\": [...], \"committed\": true}");
      int t = b.txn((long) session + 1, OpType.OK, line);
      b.setInt(txnIndex, t, txn);
      boolean events = false;
      int committed = -2;
      if (!empty('}')) {
        do {
          int m = member(TXN_MEMBERS);
          if (m == 0) {
            expect(':', "':' after \"events\"");
            if (events) throw error("a second \"events\" member");
            events(t);
            events = true;
          } else if (m == 1) {
            expect(':', "':' after \"committed\"");
            committed = literal();
            if (committed < 0) throw error("expected true or false for \"committed\", found " + found());
          } else {
            expect(':', "':' after \"" + otherName + "\"");
            skipValue();
          }
        } while (more('}', "the transaction"));
      }
      if (!events) throw error("the transaction has no \"events\"");
      if (committed < 0) throw error("the transaction has no \"committed\" (true or false)");
      if (committed == 0) b.setStatus(t, OpType.FAIL);
    }

    private void events(int t) throws IOException {
      expect('[', "'[' opening the events");
      if (empty(']')) return;
      for (event = 0;; event++) {
        event(t);
        if (!more(']', "the events")) break;
      }
      event = -1;
    }

    /** The event's variable and version, as {@link #unsigned} leaves them: a long, else an object (null: none). */
    private long keyL, verL;
    private Object keyO, verO;
    private boolean hasKey, hasVersion;

    private void event(int t) throws IOException {
      int c = ws();
      long l = line;
      boolean write;
      hasKey = false;
      hasVersion = false;
      if (c == '[') {
        pos++;
        int tag = member(COMPACT_TAGS);
        if (tag < 0) throw error("expected \"r\" or \"w\" first in a compact event, found \"" + otherName + "\"");
        write = tag == 1;
        expect(',', "',' after the event's kind");
        variable();
        expect(',', "',' after the variable");
        version(write);
        expect(']', COMPACT_CLOSE[tag]);
      } else if (c == '{' && taggedAsWritten()) {
        write = fastWrite;
      } else if (c == '{') {
        pos++;
        int tag = member(TAGS);
        if (tag < 0) throw error("expected \"Read\" or \"Write\", found \"" + otherName + "\"");
        write = tag == 1;
        expect(':', TAG_COLON[tag]);
        expect('{', TAG_OPEN[tag]);
        if (!empty('}')) {
          do {
            int m = member(EVENT_MEMBERS);
            if (m == 0) {
              expect(':', "':' after \"variable\"");
              variable();
            } else if (m == 1) {
              expect(':', "':' after \"version\"");
              version(write);
            } else {
              expect(':', "':' after \"" + otherName + "\"");
              skipValue();
            }
          } while (more('}', TAG_IN[tag]));
        }
        if (!hasKey) throw error("the " + TAG[tag] + " has no \"variable\"");
        if (write && !hasVersion) throw error("the Write has no \"version\"");
        expect('}', "'}' closing the event (one of Read or Write)");
      } else {
        throw error("expected an event, {\"Read\": {...}}, {\"Write\": {...}}, [\"r\", ...] or [\"w\", ...], found " + found());
      }
      boolean nil = !hasVersion || (verO == null && verL == NIL);
      boolean zero = !nil && verO == null && verL == 0;
      if (zero && zeroAsInitial != null) {
        // Streaming: a read of version 0 goes on as the initial value unless a write of it was
        // seen; a write of it seen after such a read is what the whole-file reading settles.
        if (write && zeroAsInitial.contains(keyL, keyO)) {
          throw new TxnBuffer.NotStreamable("version 0 of " + (keyO != null ? keyO : (Object) keyL) + " is written after a read of it");
        }
        if (!write && !zeroWritten.contains(keyL, keyO)) {
          zeroAsInitial.add(keyL, keyO);
          nil = true;
        }
      }
      int i = b.op(t, write ? OpRecord.WRITE : OpRecord.READ, keyL, keyO, nil ? 0 : verL, nil ? null : verO, nil, l);
      if (zero) {
        if (write) zeroWritten.add(keyL, keyO);
        else if (zeroAsInitial == null) zeroReads.add(i);
      }
    }

    /** Whether {@link #taggedAsWritten} read a Write. */
    private boolean fastWrite;

    /**
     * At '{', an event as dbcop and isocheck write it, {"Write": {"variable": 1, "version": 2}}
     * or a Read (its version possibly null), spaces or none between the tokens, the whole
     * event within the buffer, on one line, integers of at most 18 digits: read in one scan of
     * the bytes (a history holds millions; the general parser, a call per token, took most of
     * the time of loading dbcop JSON), with the general reading's result. Anything else (other
     * members or their order, escapes, larger numbers, an error) reads nothing and returns
     * false, for the general reading to read (and name what is wrong).
     */
    private boolean taggedAsWritten() {
      byte[] b = buf;
      int p = pos + 1, end = lim;
      // At most 4 spaces between tokens: the event takes at most 130 bytes, and every look
      // reads at most 20 past it, all within the buffer.
      if (end - p < 192) return false;
      p = spaces(b, p);
      boolean w;
      if (at(b, p, WRITE_TAG)) {
        w = true;
        p += WRITE_TAG.length;
      } else if (at(b, p, READ_TAG)) {
        w = false;
        p += READ_TAG.length;
      } else {
        return false;
      }
      p = spaces(b, p);
      if (b[p] != ':') return false;
      p = spaces(b, p + 1);
      if (b[p] != '{') return false;
      p = spaces(b, p + 1);
      if (!at(b, p, VARIABLE)) return false;
      p = spaces(b, p + VARIABLE.length);
      if (b[p] != ':') return false;
      p = spaces(b, p + 1);
      int q = digits(b, p);
      if (q < 0) return false;
      long key = fastLong;
      p = spaces(b, q);
      if (b[p] != ',') return false;
      p = spaces(b, p + 1);
      if (!at(b, p, VERSION)) return false;
      p = spaces(b, p + VERSION.length);
      if (b[p] != ':') return false;
      p = spaces(b, p + 1);
      long ver;
      if (!w && at(b, p, NULL)) {
        ver = NIL;
        p += NULL.length;
        // null followed by a letter or digit is not the literal.
        if (Character.isLetterOrDigit(b[p])) return false;
      } else {
        q = digits(b, p);
        if (q < 0) return false;
        ver = fastLong;
        p = q;
      }
      p = spaces(b, p);
      if (b[p] != '}') return false;
      p = spaces(b, p + 1);
      if (b[p] != '}') return false;
      pos = p + 1;
      fastWrite = w;
      hasKey = true;
      keyL = key;
      keyO = null;
      hasVersion = true;
      verL = ver;
      verO = null;
      return true;
    }

    private static final byte[] WRITE_TAG = quoted("Write"), READ_TAG = quoted("Read");
    private static final byte[] VARIABLE = quoted("variable"), VERSION = quoted("version"),
        NULL = "null".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    private static byte[] quoted(String s) { return ("\"" + s + "\"").getBytes(java.nio.charset.StandardCharsets.US_ASCII); }

    /** Past the spaces at p, at most 4 (more leave p at a space, which nothing matches). */
    private static int spaces(byte[] b, int p) {
      for (int k = 0; k < 4 && b[p] == ' '; k++) p++;
      return p;
    }

    private static boolean at(byte[] b, int p, byte[] w) {
      for (int k = 0; k < w.length; k++) if (b[p + k] != w[k]) return false;
      return true;
    }

    /** The number {@link #digits} read. */
    private long fastLong;

    /** An unsigned integer of 1 to 18 digits, no leading 0, at p: into fastLong; returns where it ends, or -1. */
    private int digits(byte[] b, int p) {
      int q = p;
      long v = 0;
      while (q - p < 19) {
        int d = b[q] - '0';
        if (d < 0 || d > 9) break;
        v = v * 10 + d;
        q++;
      }
      int n = q - p;
      if (n == 0 || n > 18 || (n > 1 && b[p] == '0')) return -1;
      byte after = b[q];
      if (after != ' ' && after != ',' && after != '}') return -1;
      fastLong = v;
      return q;
    }

    /** verL for a read of null (versions are unsigned, so never this). */
    private static final long NIL = -1;

    private void variable() throws IOException {
      hasKey = true;
      if (ws() == '"') {
        keyO = string();
        keyL = 0;
        return;
      }
      unsigned("variable", "a variable");
      keyO = big;
      keyL = big == null ? lv : 0;
    }

    /** A version (null when a read's is; a write's cannot be). */
    private void version(boolean write) throws IOException {
      hasVersion = true;
      if (!write && literal() == -1) {
        verO = null;
        verL = NIL;
        return;
      }
      unsigned("version", write ? "a version" : "a version or null");
      verO = big;
      verL = big == null ? lv : 0;
    }

    /** A u64: into {@link #lv}, or {@link #big} from 2^63 up. */
    private void unsigned(String what, String expected) throws IOException {
      ws();
      long l = line, c = col(pos);
      number(expected);
      if (big != null ? big.signum() < 0 : lv < 0) {
        throw errorAt(l, c, "the " + what + " " + (big != null ? big : lv) + " is negative; dbcop's " + what + "s are unsigned");
      }
      if (big != null && big.bitLength() > 64) throw errorAt(l, c, "the " + what + " " + big + " does not fit in 64 bits");
    }
  }

  /**
   * Writes h as dbcop JSON, the file {@code dbcop generate} writes: {@code params} counted from
   * h (informational), {@code info} "converted by isocheck", {@code start} and {@code end} the
   * epoch (the history has no times dbcop reads), and {@code data}: one session per process, in
   * order of first appearance, its transactions in history order, {@code committed} false for
   * an aborted one; events in the tagged form, a read of the initial value with version null.
   * Refused: list-append histories, indeterminate transactions, keys that are neither strings
   * nor integers from 0 to 2^64 - 1, values that are not such integers, and a read of value 0 when no transaction writes 0 to that key
   * (dbcop would read it as the initial value).
   */
  public static void write(History h, OutputStream out) throws IOException {
    PeerWriter w = new PeerWriter(h, "dbcop JSON");
    HashMap<Object, Boolean> zero = w.keysWrittenZero();
    int[][] sessions = w.bySession();
    int maxEvents = 0;
    HashSet<Object> keys = new HashSet<>();
    for (int t = 0; t < h.nTxns; t++) {
      w.determinate(t);
      int n = h.mopEnd(t) - h.mopStart(t);
      maxEvents = Math.max(maxEvents, n);
      for (int m = h.mopStart(t); m < h.mopEnd(t); m++) keys.add(h.key(h.mopKey(m)));
    }
    StringBuilder sb = new StringBuilder(1 << 12);
    OutputStream o = new BufferedOutputStream(out, 1 << 16);
    sb.append("{\"params\": {\"id\": 0, \"n_node\": ").append(sessions.length).append(", \"n_variable\": ").append(keys.size())
        .append(", \"n_transaction\": ").append(h.nTxns).append(", \"n_event\": ").append(maxEvents).append("},\n")
        .append(" \"info\": \"converted by isocheck\",\n")
        .append(" \"start\": \"1970-01-01T00:00:00+00:00\",\n")
        .append(" \"end\": \"1970-01-01T00:00:00+00:00\",\n")
        .append(" \"data\": [");
    for (int s = 0; s < sessions.length; s++) {
      sb.append(s == 0 ? "\n  [" : ",\n  [");
      int[] ts = sessions[s];
      for (int k = 0; k < ts.length; k++) {
        int t = ts[k];
        sb.append(k == 0 ? "\n   " : ",\n   ").append("{\"events\": [");
        for (int m = h.mopStart(t); m < h.mopEnd(t); m++) {
          boolean read = h.mopKind(m) == OpRecord.READ;
          Object key = h.key(h.mopKey(m));
          if (m > h.mopStart(t)) sb.append(", ");
          sb.append(read ? "{\"Read\": {\"variable\": " : "{\"Write\": {\"variable\": ");
          if (key instanceof String str) Json.string(sb, str);
          else sb.append(w.integer(t, m, key, "key", BigInteger.ZERO, PeerWriter.U64_MAX, "strings or integers from 0 to 2^64 - 1"));
          sb.append(", \"version\": ");
          if (read && w.readsNil(m)) sb.append("null");
          else {
            BigInteger vb = w.integer(t, m, w.value(m), "value", BigInteger.ZERO, PeerWriter.U64_MAX,
                "integers from 0 to 2^64 - 1");
            if (read && vb.signum() == 0 && !zero.containsKey(key)) {
              throw w.cannot(t, "micro-op " + h.mopStr(m) + " reads 0, which no transaction writes to " + Edn.str(key)
                  + ", and dbcop reads such a version 0 as the initial value");
            }
            sb.append(vb);
          }
          sb.append("}}");
        }
        sb.append("], \"committed\": ").append(h.status(t) == OpType.OK).append('}');
        if (sb.length() > 1 << 16) {
          o.write(sb.toString().getBytes(StandardCharsets.UTF_8));
          sb.setLength(0);
        }
      }
      sb.append(ts.length == 0 ? "]" : "\n  ]");
    }
    sb.append(sessions.length == 0 ? "]}\n" : "\n ]}\n");
    o.write(sb.toString().getBytes(StandardCharsets.UTF_8));
    o.flush();
  }

  /** Whether the first member name of the object starting at head[i] ('{') is one of dbcop's. */
  static boolean sniffObject(byte[] head, int n, int i) {
    i++;
    while (i < n && (head[i] == ' ' || head[i] == '\n' || head[i] == '\r' || head[i] == '\t')) i++;
    if (i >= n || head[i] != '"') return false;
    int s = ++i;
    while (i < n && head[i] != '"') i++;
    if (i >= n) return false;
    String k = new String(head, s, i - s, StandardCharsets.ISO_8859_1);
    for (String m : MEMBERS) if (m.equals(k)) return true;
    return false;
  }
}
