package isocheck.io;

import isocheck.history.History;
import isocheck.history.HistoryException;
import isocheck.history.OpRecord;
import isocheck.history.OpSink;
import isocheck.history.OpType;
import java.io.BufferedOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.math.BigInteger;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;

/**
 * dbcop's {@code history.bincode} of the version PolySI and VeriStrong read (Biswas and Enea's
 * original dbcop, OOPSLA'19; PolySI's {@code DBCopHistoryLoader}, VeriStrong's
 * {@code parse_dbcop_history}): Rust's bincode 1 with its default layout, every integer a
 * little-endian u64, a bool one byte (0 or 1), a string or sequence its u64 length then its
 * contents:
 * <pre>
 * id, n_node, n_variable, n_transaction, n_event      (u64 each: informational)
 * info, start, end                                    (strings)
 * sessions: [ [ { events: [ {write: bool, variable: u64, value: u64, success: bool} ], success: bool } ] ]
 * </pre>
 *
 * <p>The mapping, exactly:
 * <ul>
 * <li>Session i (counting from 0) is {@code :process} i + 1, as dbcop numbers them.
 *     Transactions come session by session, one completion op each: {@code :ok} when it
 *     succeeded, else {@code :fail} (PolySI and VeriStrong drop failed transactions, losing
 *     what a read of their writes means; isocheck keeps them as aborted). No times: no
 *     realtime order.
 * <li>A read that did not succeed returned nothing, and is left out (as PolySI, VeriStrong and
 *     AWDIT do). A write that did not succeed is an aborted write (as AWDIT reads it, and as
 *     dbcop refuses a read of it): in a failed transaction it stays there; in one that
 *     succeeded it goes into a {@code :fail} transaction of its own, next in the session.
 * <li>Value 0 is every variable's initial value (both tools add an initial transaction
 *     writing 0): a read of 0 is {@code [:r k nil]}. A transaction that writes and only writes
 *     0 is that initial transaction, left out; any other write of 0 is refused.
 * <li>Variables and values are u64: those from 2^63 up are exact integers beyond a long.
 * <li>Values must be unique per variable among the writes of transactions that succeeded. An
 *     aborted write of a value such a write also has (a retried transaction) is kept apart,
 *     as PolySI and VeriStrong (which drop it) and AWDIT (which keeps aborted writes apart)
 *     do: its value becomes {@code "V/aborted"}, so a read of V reads the committed write.
 * </ul>
 * A file cut short or not of this layout is refused with the byte offset and the place
 * ({@code data[2][5].events[3]}) where it stopped making sense.
 */
public final class DbcopBincode {
  private DbcopBincode() {}

  private static final BigInteger TWO_64 = BigInteger.ONE.shiftLeft(64);
  /** Longest header string read: dbcop's are a line of info and two timestamps. */
  private static final long MAX_STRING = 1 << 20;

  /** Reads a dbcop bincode history from {@code in} (not closed) into {@code sink}, then ends it. */
  public static void read(InputStream in, OpSink sink) throws IOException {
    new Reader(in).run(sink);
  }

  /**
   * Whether a history starts like this format: a header of five u64 counts below 2^40, an info
   * string of text, and a start time (a string of 10 to 64 bytes starting with a digit, as
   * chrono writes dates). A text history's first bytes are printable ASCII, never the zero
   * bytes a small little-endian count has; a file of zero bytes has no start time.
   */
  static boolean sniff(byte[] head, int n) {
    if (n < 48) return false;
    for (int f = 0; f < 5; f++) {
      long v = le(head, f * 8);
      if (v < 0 || v >= 1L << 40) return false;
    }
    long len = le(head, 40);
    if (len < 0 || 48 + len + 9 > n) return false;
    for (int i = 48; i < 48 + len; i++) {
      int c = head[i] & 0xff;
      if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') return false;
    }
    int at = 48 + (int) len;
    long start = le(head, at);
    return start >= 10 && start <= 64 && head[at + 8] >= '0' && head[at + 8] <= '9';
  }

  private static long le(byte[] b, int at) {
    long v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | (b[at + i] & 0xffL);
    return v;
  }

  private static final class Reader {
    private final ByteInput in;
    private final TxnBuffer b = new TxnBuffer();
    /** The buffer's column of each transaction's index in its session (the session is the buffer's, + 1). */
    private final int txnIndex;
    private int session = -1, txn = -1, event = -1;
    private long complete;

    Reader(InputStream in) {
      this.in = new ByteInput(in);
      txnIndex = b.intColumn();
      b.estimateWith(TxnBuffer.FIXED_SIZE_RECORDS);
    }

    private String place(String field) {
      StringBuilder sb = new StringBuilder();
      if (session >= 0) {
        sb.append("data[").append(session).append(']');
        if (txn >= 0) sb.append('[').append(txn).append(']');
        if (event >= 0) sb.append(".events[").append(event).append(']');
        sb.append(' ');
      }
      return sb.append(field).toString();
    }

    private HistoryException bad(long at, String msg) {
      return new HistoryException("byte " + at + ": " + msg + "; not a dbcop bincode history (PolySI's and VeriStrong's layout)");
    }

    private long u64(String field) throws IOException {
      try {
        return in.longLE();
      } catch (EOFException e) {
        throw truncated(field);
      }
    }

    private boolean bool(String field) throws IOException {
      long at = in.offset();
      int v;
      try {
        v = in.u8();
      } catch (EOFException e) {
        throw truncated(field);
      }
      if (v > 1) throw bad(at, String.format("0x%02x where %s, a bool (0 or 1), belongs", v, place(field)));
      return v == 1;
    }

    private long length(String field) throws IOException {
      long at = in.offset();
      long n = u64(field);
      if (n < 0) throw bad(at, "the length of " + place(field) + " is " + Long.toUnsignedString(n));
      return n;
    }

    private HistoryException truncated(String field) {
      return new HistoryException("truncated dbcop bincode (the file is incomplete): it ends at byte " + in.offset()
          + ", inside " + place(field) + ", after " + complete + " complete transaction" + (complete == 1 ? "" : "s"));
    }

    private String string(String field) throws IOException {
      long at = in.offset();
      long n = length(field + "'s length");
      if (n > MAX_STRING) throw bad(at, "the header string " + field + " would be " + n + " bytes long");
      byte[] s;
      try {
        s = in.bytes((int) n);
      } catch (EOFException e) {
        throw truncated(field);
      }
      try {
        return StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(s)).toString();
      } catch (CharacterCodingException e) {
        throw bad(at + 8, "the header string " + field + " is not UTF-8");
      }
    }

    private static Object unsigned(long v) {
      return v >= 0 ? (Object) v : BigInteger.valueOf(v).add(TWO_64);
    }

    void run(OpSink sink) throws IOException {
      StreamingSink st = StreamingSink.of(sink);
      if (st != null) {
        st.used = true;
        b.stream(sink, origin, this::zeroRefusal);
      }
      try {
        for (String f : new String[] {"id", "n_node", "n_variable", "n_transaction", "n_event"}) u64(f);
        for (String f : new String[] {"info", "start", "end"}) string(f);
        long sessions = length("the number of sessions");
        for (session = 0; session < sessions; session++) {
          long txns = length("the number of transactions");
          for (txn = 0; txn < txns; txn++) {
            transaction();
            if (b.streaming()) b.flushBefore(b.txnCount(), in.offset());
          }
          txn = -1;
        }
        session = -1;
        if (!in.atEnd()) throw bad(in.offset(), "bytes after the last session");
      } catch (GzipInput.Damaged e) {
        throw new HistoryException((e.truncated ? "truncated gzip data (the file is incomplete)" : "corrupt gzip data (" + e.getMessage() + ")")
            + ": the input breaks off at byte " + in.offset() + (session < 0 ? " (in the header)" : ", inside " + place("").trim())
            + ", after " + complete + " complete transaction" + (complete == 1 ? "" : "s"));
      }
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
      @Override public long arg(int t) { return b.intAt(txnIndex, t); }

      /** The session as the file numbers it: the buffer's, less one. */
      @Override public String of(Object session, long index, long at) {
        return "data[" + ((Long) session - 1) + "][" + index + "], byte " + at;
      }
    };

    /** Why op i, a write of 0 in a transaction that does more, is refused. */
    private String zeroRefusal(int i) {
      return "byte " + b.opTag(i) + ": data[" + ((Long) b.session(b.opTxn(i)) - 1) + "][" + b.intAt(txnIndex, b.opTxn(i))
          + "] writes 0 to variable " + b.key(i) + ", and 0 is every variable's initial value in this format";
    }

    private void transaction() throws IOException {
      long at = in.offset();
      long events = length("the number of events");
      // The events are kept until the transaction's own success flag says where its failed writes go.
      int nev = 0;
      for (event = 0; event < events; event++) {
        long eat = in.offset();
        boolean write = bool("write");
        long variable = u64("variable");
        long value = u64("value");
        boolean success = bool("success");
        if (!success && !write) continue;
        if (5 * nev + 5 > ev.length) ev = java.util.Arrays.copyOf(ev, ev.length * 2);
        int q = 5 * nev++;
        ev[q] = write ? 1 : 0;
        ev[q + 1] = variable;
        ev[q + 2] = value;
        ev[q + 3] = success ? 1 : 0;
        ev[q + 4] = eat;
      }
      event = -1;
      boolean ok = bool("success");
      int t = b.txn((long) session + 1, ok ? OpType.OK : OpType.FAIL, at);
      b.setInt(txnIndex, t, txn);
      // The transaction's ops, then (an aborted transaction of their own, next in the session) its
      // writes that did not succeed, if it did: each transaction's ops together.
      long[] e = ev;
      int failedWrites = -1;
      for (int pass = 0; pass < 2; pass++) {
        for (int k = 0; k < nev; k++) {
          int q = 5 * k;
          boolean aborted = ok && e[q + 3] == 0;
          if (aborted != (pass == 1)) continue;
          int into = t;
          if (aborted) {
            // A write that did not succeed, in a transaction that did: an aborted write, in an
            // aborted transaction of its own, next in the session.
            if (failedWrites < 0) {
              failedWrites = b.txn((long) session + 1, OpType.FAIL, e[q + 4]);
              b.setInt(txnIndex, failedWrites, txn);
            }
            into = failedWrites;
          }
          long variable = e[q + 1], value = e[q + 2];
          Object ko = variable < 0 ? unsigned(variable) : null, vo = value < 0 ? unsigned(value) : null;
          b.op(into, e[q] == 1 ? OpRecord.WRITE : OpRecord.READ, variable, ko, value, vo, e[q] == 0 && value == 0, e[q + 4]);
        }
      }
      complete++;
    }

    /** The transaction's events, 5 longs each: write (1 or 0), variable, value, success (1 or 0), byte offset. */
    private long[] ev = new long[5 * 64];
  }

  /**
   * Writes h as dbcop bincode: the header counted from h ({@code id} 0, {@code n_event} the
   * most events of a transaction), {@code info} "converted by isocheck", {@code start} and
   * {@code end} the epoch; one session per process, in order of first appearance, its
   * transactions in history order, an aborted one not successful; every event successful, a
   * read of the initial value as value 0. Refused: list-append histories, indeterminate
   * transactions, keys and values that are not integers from 0 to 2^64 - 1, and any write or
   * read of the value 0 (it would read back as the initial value).
   */
  public static void write(History h, OutputStream out) throws IOException {
    PeerWriter w = new PeerWriter(h, "dbcop bincode");
    int[][] sessions = w.bySession();
    int maxEvents = 0;
    HashSet<Object> keys = new HashSet<>();
    for (int t = 0; t < h.nTxns; t++) {
      w.determinate(t);
      maxEvents = Math.max(maxEvents, h.mopEnd(t) - h.mopStart(t));
      for (int m = h.mopStart(t); m < h.mopEnd(t); m++) keys.add(h.key(h.mopKey(m)));
    }
    Out o = new Out(new BufferedOutputStream(out, 1 << 16));
    o.u64(0);
    o.u64(sessions.length);
    o.u64(keys.size());
    o.u64(h.nTxns);
    o.u64(maxEvents);
    o.str("converted by isocheck");
    o.str("1970-01-01T00:00:00+00:00");
    o.str("1970-01-01T00:00:00+00:00");
    o.u64(sessions.length);
    for (int[] ts : sessions) {
      o.u64(ts.length);
      for (int t : ts) {
        o.u64(h.mopEnd(t) - h.mopStart(t));
        for (int m = h.mopStart(t); m < h.mopEnd(t); m++) {
          boolean read = h.mopKind(m) == OpRecord.READ;
          BigInteger k = w.integer(t, m, h.key(h.mopKey(m)), "key", BigInteger.ZERO, PeerWriter.U64_MAX,
              "integers from 0 to 2^64 - 1");
          BigInteger v = BigInteger.ZERO;
          if (!read || !w.readsNil(m)) {
            v = w.integer(t, m, read ? w.value(m) : w.abortedAsWritten(t, m), "value", BigInteger.ZERO, PeerWriter.U64_MAX,
                "integers from 0 to 2^64 - 1");
            if (v.signum() == 0) {
              throw w.cannot(t, "micro-op " + h.mopStr(m) + (read ? " reads" : " writes")
                  + " 0, which in this format is every variable's initial value");
            }
          }
          o.u8(read ? 0 : 1);
          o.u64(k.longValue());
          o.u64(v.longValue());
          o.u8(1);
        }
        o.u8(h.status(t) == OpType.OK ? 1 : 0);
      }
    }
    o.out.flush();
  }

  private static final class Out {
    final OutputStream out;
    private final byte[] b = new byte[8];

    Out(OutputStream out) { this.out = out; }

    void u8(int v) throws IOException { out.write(v); }

    void u64(long v) throws IOException {
      for (int i = 0; i < 8; i++) b[i] = (byte) (v >>> (8 * i));
      out.write(b);
    }

    void str(String s) throws IOException {
      byte[] u = s.getBytes(StandardCharsets.UTF_8);
      u64(u.length);
      out.write(u);
    }
  }
}
