package isocheck.io;

import isocheck.history.History;
import isocheck.history.HistoryException;
import isocheck.history.OpRecord;
import isocheck.history.OpSink;
import isocheck.history.OpType;
import isocheck.util.LongIntMap;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Plume's and PolySI's text histories (Liu et al., OOPSLA'24, and PolySI, PVLDB'23: their
 * artifacts' {@code TEXT} loaders): one operation per line, {@code r(key,value,session,txn)} or
 * {@code w(key,value,session,txn)}, integers 0 or more, the transaction id global. Plume marks
 * an aborted operation with txn {@code -1}; PolySI has no aborts. Value 0 is every key's
 * initial value: PolySI adds an initial transaction writing 0 to every key, Plume treats a read
 * of 0 as a read of the initial value.
 *
 * <p>The mapping, exactly:
 * <ul>
 * <li>A transaction is every line with its txn id, in order, wherever the lines are; it belongs
 *     to the session of its lines (one session, or the file is refused). Transactions come in
 *     order of first appearance, each one {@code :ok} completion op of {@code :process} its
 *     session: the format records no times, so there is no realtime order.
 * <li>{@code r(k,0,..)} is {@code [:r k nil]}, a read of the initial value; {@code r(k,v,..)}
 *     is {@code [:r k v]}, {@code w(k,v,..)} is {@code [:w k v]}.
 * <li>Lines with txn {@code -1} are aborted operations: a run of consecutive such lines of one
 *     session is one {@code :fail} transaction (the format cannot tell two aborted transactions
 *     of a session written one after the other apart; only their writes bear on any level).
 * <li>A transaction that writes and only writes 0 (an explicit initial transaction, as in
 *     Plume's and C4's tests) is the initial state, which isocheck has implicitly: it is left
 *     out. Any other write of 0 cannot be told from the initial value and is refused.
 * </ul>
 * Blank lines are skipped; anything else is refused with its line and column. Values must be
 * unique per key among committed writes, as both tools assume (the history builder refuses
 * duplicates). An aborted write of a value a committed transaction also writes (a retried
 * transaction) is kept apart, as Plume keeps its aborted writes: its value becomes
 * {@code "V/aborted"}, so a read of V reads the committed write, as in Plume.
 */
public final class PlumeText {
  private PlumeText() {}

  /** Reads a Plume/PolySI text history from {@code in} (not closed) into {@code sink}, then ends it. */
  public static void read(InputStream in, OpSink sink) throws IOException {
    new Reader(in).run(sink);
  }

  /** Whether a history starts like this format: its first non-blank bytes, from head[i], are {@code r(} or {@code w(}. */
  static boolean sniff(byte[] head, int n, int i) {
    while (i < n && (head[i] == ' ' || head[i] == '\t' || head[i] == '\r' || head[i] == '\n')) i++;
    return i + 1 < n && (head[i] == 'r' || head[i] == 'w') && head[i + 1] == '(';
  }

  private static final class Reader extends TextSource {
    private final TxnBuffer b = new TxnBuffer();
    /** Plume txn id -> buffer transaction, for the ids {@link #byId} does not cover. */
    private final LongIntMap ids = new LongIntMap(1024);
    /** The buffer's column of each transaction's Plume id (-1 for aborted); its session is the buffer's ({@link #sessionOf}). */
    private final int plumeId;
    private int lastAborted = -1;
    private long lastAbortedSession;
    private boolean lastWasAborted;

    Reader(InputStream in) {
      super(in, MAX_TOKEN);
      plumeId = b.longColumn();
      b.estimateWith(this::scale);
    }

    /** Until the estimate: the lines read (before the current one), and the digits of their txn ids (-1 not counted). */
    private long linesSeen, idDigits, maxId = -1;
    private boolean estimated;

    /**
     * How many times the transactions so far the file holds: its lines spend the same bytes on
     * an op but for the txn id, which gains digits through the file (Plume's and PolySI's ids
     * are 0, 1, 2, ... in order), so that the first megabytes hold more ops per byte than the
     * rest (scaling by bytes alone, 10^6 Plume-shaped transactions were estimated at 1,097,000,
     * the builder's arrays 10% over; 10^5 at 103,600). With ids in order (the largest under
     * twice the transactions), the count N of transactions whose lines, each the bytes of the
     * first ones but for the id's digits, fill the file: 999,400 and 98,960 for 998,867 and
     * 98,908; 2% over that. Else the bytes alone.
     */
    private double scale(long bytes, long size) {
      estimated = true;
      long k = b.txnCount();
      double plain = (double) size / bytes * 1.05;
      if (linesSeen == 0 || k == 0 || maxId < 0 || maxId >= 2 * k + 16 || idDigits >= bytes) return plain;
      double m = (double) linesSeen / k, perOp = (double) (bytes - idDigits) / linesSeen;
      long lo = k, hi = Math.max(k, size);
      while (lo < hi) {
        long mid = lo + (hi - lo) / 2;
        if (m * (mid * perOp + digitSum(mid)) < size) lo = mid + 1;
        else hi = mid;
      }
      return Math.min(plain, lo * 1.02 / k);
    }

    /** The digits of 0, 1, ..., n - 1. */
    static long digitSum(long n) {
      long s = 0, lo = 0, hi = 10;
      for (int d = 1; lo < n; d++, lo = hi, hi = hi > Long.MAX_VALUE / 10 ? Long.MAX_VALUE : hi * 10) {
        s += d * (Math.min(n, hi) - lo);
      }
      return s;
    }

    private static int digits(long x) {
      int d = 1;
      while (x >= 10) {
        x /= 10;
        d++;
      }
      return d;
    }

    /** The transaction of the last line read, or -1. */
    private int current = -1;

    void run(OpSink sink) throws IOException {
      StreamingSink st = StreamingSink.of(sink);
      if (st != null) {
        st.used = true;
        b.stream(sink, origin, this::zeroRefusal);
        seen = new long[16];
      }
      skipBom();
      while (skipWhitespace() >= 0) line();
      finish(sink);
    }

    /**
     * Parses the operation starting at pos, up to the end of its line: a well-formed line
     * whose end is in the buffer in one pass over its bytes ({@link #fastLine}), any other
     * (an error, a long number, a line across the buffer's end) by {@link #slowLine}.
     */
    private void line() throws IOException {
      if (!fastLine()) slowLine();
    }

    /**
     * One pass over {@code r(k,v,s,t)} or {@code w(k,v,s,t)} (t possibly -1), each number of
     * at most 18 digits, then spaces, tabs or CRs and the newline, all within the buffer:
     * adds the op, leaves pos at the newline and returns true. Returns false, having changed
     * nothing, at anything else; {@link #slowLine} then reads the line (and words any error).
     */
    private boolean fastLine() {
      byte[] bb = buf;
      int l = lim, p = pos;
      if (l - p < 11) return false;
      byte k = bb[p];
      if ((k != 'r' && k != 'w') || bb[p + 1] != '(') return false;
      p += 2;
      long[] v = fields;
      for (int f = 0; f < 4; f++) {
        boolean neg = false;
        if (f == 3 && p < l && bb[p] == '-') {
          neg = true;
          p++;
        }
        int d = p;
        long x = 0;
        int c;
        while (p < l && (c = bb[p] - '0') >= 0 && c <= 9) {
          x = x * 10 + c;
          p++;
        }
        if (p == d || p - d > 18 || p >= l) return false;
        if (neg) {
          if (x != 1) return false;
          x = -1;
        }
        v[f] = x;
        if (bb[p] != (f < 3 ? ',' : ')')) return false;
        p++;
      }
      while (p < l && (bb[p] == ' ' || bb[p] == '\t' || bb[p] == '\r')) p++;
      if (p >= l || bb[p] != '\n') return false;
      add(k == 'r' ? OpRecord.READ : OpRecord.WRITE, v[0], v[1], v[2], v[3]);
      pos = p;
      return true;
    }

    /** Parses the operation starting at pos, up to the end of its line, refilling as needed. */
    private void slowLine() throws IOException {
      // The line's end: within the buffer in a plain loop (a call to need() per byte cost a
      // fifth of reading the file), then past it refilling.
      int e = pos;
      byte[] bb = buf;
      for (int l = lim; e < l && bb[e] != '\n';) e++;
      if (e >= lim) {
        for (;;) {
          int j = need(e);
          if (j < 0) { e = lim; break; }
          e = j;
          if (buf[e] == '\n') break;
          e++;
        }
      }
      int end = e;
      while (end > pos && (buf[end - 1] == ' ' || buf[end - 1] == '\t' || buf[end - 1] == '\r')) end--;
      int p = pos;
      byte k = buf[p];
      if (k != 'r' && k != 'w') throw bad(p, end, "r or w");
      p++;
      p = expect(p, end, '(', k == 'r' ? "'(' after r" : "'(' after w");
      long[] v = fields;
      for (int f = 0; f < 4; f++) {
        int s = p;
        boolean neg = f == 3 && p < end && buf[p] == '-';
        if (neg) p++;
        int d = p;
        while (p < end && buf[p] >= '0' && buf[p] <= '9') p++;
        if (p == d) throw bad(p, end, "a digit (the " + FIELD[f] + ")");
        if (p - d > 19 || (p - d == 19 && compare(d, "9223372036854775807") > 0)) {
          throw errAt(line, col(s), "the " + FIELD[f] + " " + new String(buf, s, p - s, StandardCharsets.ISO_8859_1)
              + " does not fit in a 64-bit integer, in " + shown(pos, end));
        }
        long x = 0;
        for (int q = d; q < p; q++) x = x * 10 + (buf[q] - '0');
        if (neg && x != 1) {
          throw errAt(line, col(s), "txn -" + x + " in " + shown(pos, end)
              + "; a transaction id is 0 or more, or -1 for an aborted operation");
        }
        v[f] = neg ? -1 : x;
        p = expect(p, end, f < 3 ? ',' : ')', AFTER[f]);
      }
      if (p != end) {
        throw errAt(line, col(p), "unexpected " + (buf[p] == ' ' || buf[p] == '\t' ? "a space" : describe(p))
            + " after the operation " + shown(pos, p));
      }
      add(k == 'r' ? OpRecord.READ : OpRecord.WRITE, v[0], v[1], v[2], v[3]);
      pos = e;
    }

    /** The line's key, value, session and txn (one array for every line). */
    private final long[] fields = new long[4];

    private static final String[] FIELD = {"key", "value", "session", "txn"};
    /** What must follow each field (constants: a message is built only when one is wrong). */
    private static final String[] AFTER = {"',' after the key", "',' after the value", "',' after the session", "')' after the txn"};

    private int compare(int from, String max) {
      for (int i = 0; i < max.length(); i++) {
        int c = Integer.compare(buf[from + i], max.charAt(i));
        if (c != 0) return c;
      }
      return 0;
    }

    private int expect(int p, int end, char c, String what) {
      if (p >= end || buf[p] != c) throw bad(p, end, what);
      return p + 1;
    }

    private HistoryException bad(int p, int end, String expected) {
      String found = p >= end ? "the end of the line" : "'" + (char) (buf[p] & 0xff) + "'";
      if (p < end && (buf[p] < 0x21 || buf[p] >= 0x7f)) found = String.format("byte 0x%02x", buf[p] & 0xff);
      return errAt(line, col(p), "expected " + expected + ", found " + found + " in " + shown(pos, end)
          + "; a line of Plume's or PolySI's text is r(key,value,session,txn) or w(key,value,session,txn), integers 0 or more (txn -1: an aborted operation)");
    }

    /** The line's text, buf[from..to), shortened, for messages. */
    private String shown(int from, int to) {
      String s = new String(buf, from, Math.min(to - from, 80), StandardCharsets.UTF_8);
      return to - from > 80 ? s + "..." : s;
    }

    private void add(byte kind, long key, long value, long session, long txn) {
      int t;
      if (txn < 0) {
        if (lastWasAborted && lastAbortedSession == session) t = lastAborted;
        else {
          t = newTxn(session, -1, OpType.FAIL);
          lastAborted = t;
          lastAbortedSession = session;
        }
        lastWasAborted = true;
      } else {
        lastWasAborted = false;
        // A transaction's lines come together: the last line's txn id is looked up once.
        t = txn == lastId ? lastIdTxn : txnOf(txn);
        if (t < 0) {
          t = newTxn(session, txn, OpType.OK);
          putTxn(txn, t);
        } else if (sessionOf(t) != session) {
          throw new HistoryException("line " + line + ": txn " + txn + " is in session " + session + " here, but in session "
              + sessionOf(t) + " at line " + b.txnTag(t) + "; a transaction belongs to one session");
        } else if (t != current && b.streaming()) {
          throw new TxnBuffer.NotStreamable("txn " + txn + " goes on at line " + line + ", after other transactions' lines");
        }
      }
      if (txn >= 0) {
        lastId = txn;
        lastIdTxn = t;
      }
      // A line of another transaction: the one before is complete (its lines come together).
      if (t != current && b.streaming()) b.flushBefore(t, base + pos);
      if (!estimated) {
        linesSeen++;
        if (txn >= 0) {
          idDigits += digits(txn);
          if (txn > maxId) maxId = txn;
        }
      }
      current = t;
      b.op(t, kind, key, null, value, null, kind == OpRecord.READ && value == 0, line);
    }

    /**
     * Txn ids below its length -> buffer transaction (-1: none), the rest in {@link #ids}:
     * Plume's and PolySI's ids are 0, 1, 2, ... in order, which a table indexed by id finds
     * without the cache misses of hashing them (a seventh of the reader's time at 10^5
     * transactions). It grows to cover an id only while that stays under 4 ids per
     * transaction read (plus 4096), so sparse ids cost no more memory than the map.
     */
    private int[] byId = filled(new int[1024]);

    private static int[] filled(int[] a) {
      java.util.Arrays.fill(a, -1);
      return a;
    }

    private int txnOf(long txn) {
      if (seen != null) return seenBefore(txn);
      return txn < byId.length ? byId[(int) txn] : ids.get(txn);
    }

    private void putTxn(long txn, int t) {
      if (seen != null) {
        see(txn, t);
        return;
      }
      if (txn >= byId.length && txn < 4L * b.txnCount() + 4096) {
        int n = byId.length;
        while (n <= txn) n *= 2;
        int[] a = filled(new int[n]);
        System.arraycopy(byId, 0, a, 0, byId.length);
        // Ids the map holds that the table now covers: looked up there from now on.
        for (int i = 0; i < ids.slots(); i++) {
          int v = ids.slotValue(i);
          if (v >= 0 && ids.slotKey(i) >= byId.length && ids.slotKey(i) < n) a[(int) ids.slotKey(i)] = v;
        }
        byId = a;
      }
      if (txn < byId.length) byId[(int) txn] = t;
      else ids.put(txn, t);
    }

    /**
     * While streaming (else null): the txn ids seen, a bit each below its length (grown as
     * {@link #byId} is), the others in {@link #ids}. Streaming, a transaction's lines come
     * together, so an id seen before and not the last line's is a transaction already handed
     * on: its lines are apart, and the file is read whole ({@link TxnBuffer.NotStreamable}),
     * which finds it by {@link #byId}. A bit rather than an int an id: at 10^6 transactions,
     * 128 KB where the table took 4 MB (and 8 MB of the load's garbage as it grew).
     */
    private long[] seen;

    /** While streaming: -1 for an id not seen; else the file is not streamable. */
    private int seenBefore(long txn) {
      boolean was = txn < (long) seen.length << 6 ? (seen[(int) (txn >>> 6)] & 1L << txn) != 0 : ids.get(txn) >= 0;
      if (was) throw new TxnBuffer.NotStreamable("txn " + txn + " goes on at line " + line + ", after other transactions' lines");
      return -1;
    }

    private void see(long txn, int t) {
      long bits = (long) seen.length << 6;
      if (txn >= bits && txn < 4L * b.txnCount() + 4096) {
        long n = bits;
        while (n <= txn) n *= 2;
        long[] a = java.util.Arrays.copyOf(seen, (int) (n >>> 6));
        for (int i = 0; i < ids.slots(); i++) {
          long k = ids.slotKey(i);
          if (ids.slotValue(i) >= 0 && k >= bits && k < n) a[(int) (k >>> 6)] |= 1L << k;
        }
        seen = a;
        bits = n;
      }
      if (txn < bits) seen[(int) (txn >>> 6)] |= 1L << txn;
      else ids.put(txn, t);
    }

    /** The txn id of the last line that had one (-1: none yet), and its transaction. */
    private long lastId = -1;
    private int lastIdTxn;

    private int newTxn(long session, long id, int status) {
      int t = b.txn(session, status, line);
      b.setLong(plumeId, t, id);
      return t;
    }

    /** Transaction t's session: the buffer keeps it (a Long), so the reader does not keep it again. */
    private long sessionOf(int t) { return (Long) b.session(t); }

    private void finish(OpSink sink) {
      if (b.streaming()) {
        b.finishStream();
        return;
      }
      b.seal();
      b.dropInitialZeros(this::zeroRefusal);
      b.renameAbortedDuplicates();
      b.emit(sink, origin);
    }

    /** Where transaction t came from, for messages. */
    private final TxnBuffer.Origin origin = new TxnBuffer.Origin() {
      @Override public long arg(int t) { return b.longAt(plumeId, t); }

      @Override public String of(Object session, long id, long line) {
        return (id < 0 ? "aborted operations (txn -1)" : "txn " + id) + " of session " + session + ", line " + line;
      }
    };

    /** Why op i, a write of 0 in a transaction that does more, is refused. */
    private String zeroRefusal(int i) {
      return "line " + b.opTag(i) + ": w(" + b.keyLong(i) + ",0," + sessionOf(b.opTxn(i)) + ","
          + b.longAt(plumeId, b.opTxn(i)) + ") writes 0, every key's initial value in this format, in a transaction that does more"
          + " than write 0s";
    }
  }

  /**
   * Writes h as Plume/PolySI text: its transactions in history order, committed ones numbered
   * 0, 1, 2, ..., aborted ones txn -1, sessions the processes when they are all integers 0 or
   * more (else 0, 1, 2, ... in order of first appearance), a read of the initial value as value
   * 0. Refused: list-append histories, indeterminate transactions, keys and values that are not
   * integers 0 or more, and any write or read of the value 0 (it would read back as the initial
   * value). A transaction without micro-ops has no line and is not written.
   */
  public static void write(History h, OutputStream out) throws IOException {
    PeerWriter w = new PeerWriter(h, "Plume/PolySI text");
    OutputStream o = new BufferedOutputStream(out, 1 << 16);
    StringBuilder sb = new StringBuilder(64);
    long next = 0;
    for (int t = 0; t < h.nTxns; t++) {
      w.determinate(t);
      long id = h.status(t) == OpType.OK ? next++ : -1;
      long session = w.sessionNumber[h.session(t)];
      for (int m = h.mopStart(t); m < h.mopEnd(t); m++) {
        boolean read = h.mopKind(m) == OpRecord.READ;
        long key = w.nonNegative(t, m, h.key(h.mopKey(m)), "key");
        long value = 0;
        if (!read || !w.readsNil(m)) {
          value = w.nonNegative(t, m, read ? w.value(m) : w.abortedAsWritten(t, m), "value");
          if (value == 0) {
            throw w.cannot(t, "micro-op " + h.mopStr(m) + (read ? " reads" : " writes")
                + " 0, which in this format is every key's initial value");
          }
        }
        sb.setLength(0);
        sb.append(read ? "r(" : "w(").append(key).append(',').append(value).append(',').append(session).append(',')
            .append(id).append(")\n");
        o.write(sb.toString().getBytes(StandardCharsets.US_ASCII));
      }
    }
    o.flush();
  }
}
