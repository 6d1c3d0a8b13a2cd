package isocheck.io;

import isocheck.history.Edn;
import isocheck.history.History;
import isocheck.history.HistoryException;
import isocheck.history.OpRecord;
import isocheck.history.OpSink;
import isocheck.history.OpType;
import isocheck.util.IntList;
import isocheck.util.LongIntMap;
import isocheck.util.LongList;
import java.io.BufferedOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;

/**
 * Cobra's client logs (Tan et al., OSDI'20: {@code CobraVerifier}'s
 * {@code ExtractClientLogFromStream}, with its default {@code TIME_ORDER_ON=false}; PolySI's
 * {@code CobraHistoryLoader} reads the same): a directory of {@code *.log} files, one per
 * session (client), each a sequence of big-endian records
 * <pre>
 * 'S' txnId                        a transaction starts
 * 'W' writeId key value            it writes (writeId unique in the history)
 * 'R' writerTxnId writeId key value  it reads the write writeId of transaction writerTxnId
 * 'C' txnId                        it committed
 * </pre>
 * (a one-byte tag, then 8-byte integers). A Cobra client logs committed transactions only.
 *
 * <p>The mapping, exactly:
 * <ul>
 * <li>A log file {@code NAME.log} is the session {@code :process NAME} (a number when NAME is
 *     one). Sessions come in that order (numbers first), their transactions in log order, each
 *     one completion op: {@code :ok}; a transaction a log leaves open at its end (the client
 *     stopped before logging its commit) is {@code :info}, indeterminate. No times are read:
 *     no realtime order.
 * <li>Cobra names a write by its write id, not by the value (it logs a hash of the value): so
 *     the value isocheck sees is the write id. {@code W} is {@code [:w key writeId]},
 *     {@code R} is {@code [:r key writeId]}; the logged values are not used.
 * <li>A read of Cobra's initial transaction (writer 0xbebeebee or 0xdeadbeef with write id
 *     0xbebeebee or 0xdeadbeef) is {@code [:r key nil]}. A read naming the write of another
 *     transaction than the one that logged it is refused; a read of a write no log has is kept
 *     (it reads a value no committed transaction wrote). Garbage-collection reads (write ids
 *     0x23332333 and 0x66666666, from Cobra's online mode) are refused.
 * <li>VeriStrong's dialect (its {@code fig5/tpcc-1k} and {@code tpcc-10k} histories) logs every
 *     write with the universal write id 0xabddefee, and every read of another transaction's
 *     write with 0xabddefee as both the writer's transaction id and the write id: a write is
 *     then named by its key and logged value, as VeriStrong reads them. So with that id,
 *     {@code W} is {@code [:w key value]} and {@code R} is {@code [:r key value]}, the logged
 *     value. A history mixing such records with write ids of the plain dialect (whose values
 *     would be write ids, not comparable with logged values) is refused, naming the first of
 *     each.
 * </ul>
 * Refused with the file and the byte: a record Cobra does not write, a record cut short, a
 * transaction started inside another, a commit of another transaction, a transaction id
 * started twice, operations outside a transaction.
 */
public final class CobraLog {
  private CobraLog() {}

  static final long INIT_TXN = 0xbebeebeeL, INIT_WRITE = 0xbebeebeeL, NULL_TXN = 0xdeadbeefL,
      GC_TRUE = 0x23332333L, GC_FALSE = 0x66666666L,
      /** VeriStrong's universal write (and writer transaction) id: the write is named by its value. */
      UNIVERSAL = 0xabddefeeL;

  /** Whether a history starts like this format: an 'S' record followed by another record. */
  static boolean sniff(byte[] head, int n) {
    if (n < 9 || head[0] != 'S') return false;
    return n == 9 || head[9] == 'W' || head[9] == 'R' || head[9] == 'C' || head[9] == 'S';
  }

  /** The *.log files of a directory, in session order. */
  static List<Path> logs(Path dir) throws IOException {
    List<Path> out = new ArrayList<>();
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "*.log")) {
      for (Path p : ds) if (Files.isRegularFile(p)) out.add(p);
    }
    out.sort((a, c) -> compareSessions(process(a), process(c)));
    return out;
  }

  private static int compareSessions(Object a, Object b) {
    if (a instanceof Long x && b instanceof Long y) return Long.compare(x, y);
    if (a instanceof Long) return -1;
    if (b instanceof Long) return 1;
    return a.toString().compareTo(b.toString());
  }

  /** The bytes of a directory's logs (its history), or -1 (not a directory, or a gzipped log). */
  static long logBytes(Path dir) {
    try {
      long n = 0;
      for (Path p : logs(dir)) {
        if (Formats.gzippedFile(p)) return -1;
        n += Files.size(p);
      }
      return n;
    } catch (IOException e) {
      return -1;
    }
  }

  /** The session a log file is: its name without .log, as a number when it is one. */
  static Object process(Path p) {
    String name = p.getFileName().toString();
    String s = name.toLowerCase(Locale.ROOT).endsWith(".log") ? name.substring(0, name.length() - 4) : name;
    if (s.matches("[0-9]{1,18}")) return Long.parseLong(s);
    return s;
  }

  /** Reads a Cobra history: a directory of logs, or one log file (one session), into {@code sink}, then ends it. */
  public static void read(Path path, OpSink sink) throws IOException {
    Reader r = new Reader(sink);
    if (Files.isDirectory(path)) {
      List<Path> logs = logs(path);
      if (logs.isEmpty()) {
        throw new HistoryException("no .log files in " + path + "; a Cobra history is a directory of client logs"
            + " (and a dbcop one a directory holding history.bincode)");
      }
      for (Path p : logs) {
        try (InputStream in = Formats.open(p)) {
          r.log(in, p.getFileName().toString(), process(p));
        }
      }
    } else {
      try (InputStream in = Formats.open(path)) {
        r.log(in, path.getFileName().toString(), process(path));
      }
    }
    r.finish(sink);
  }

  /** Reads one Cobra log (one session, named {@code name}) from {@code in} (not closed) into {@code sink}, then ends it. */
  public static void read(InputStream in, String name, OpSink sink) throws IOException {
    Reader r = new Reader(sink);
    r.log(in, name, name.equals("-") ? (Object) 0L : process(Path.of(name)));
    r.finish(sink);
  }

  private static final class Reader {
    private final TxnBuffer b = new TxnBuffer();
    /** Cobra transaction id -> transaction (+ 1; 0: not seen), for ids started twice. */
    private IdTable txnOf;
    private final LongList cobraId = new LongList(1024);
    /** Per log in {@link #files}: its first transaction (the logs are read one after another). */
    private final IntList fileFirstTxn = new IntList();
    private final List<String> files = new ArrayList<>();
    /** Reads of other transactions' writes, checked once every log is read: op, writer txn id. */
    private IntList reads = new IntList();
    private LongList readWriter = new LongList();
    /** Write id -> write op (the first, when a write id repeats on another key). */
    private LongIntMap writeOp = new LongIntMap(1024);
    /** Where the first record of each dialect is (file and byte), or null: universal ids, plain write ids. */
    private String firstUniversal, firstPlain;

    private String file;
    private ByteInput in;
    /**
     * While streaming: whether each read of another transaction's write names its write id's
     * first writer ({@link WriterCheck}); null when not streaming.
     */
    private WriterCheck check;
    /** One buffer for every log's bytes in turn. */
    private final byte[] buf = new byte[1 << 16];
    /** The bytes of the logs read before this one. */
    private long logsBefore;

    /** Streams into sink when it lets readers stream ({@link StreamingSink}): each transaction as it commits. */
    Reader(OpSink sink) {
      b.perTxn(cobraId);
      b.estimateWith(TxnBuffer.FIXED_SIZE_RECORDS);
      StreamingSink st = StreamingSink.of(sink);
      long bytes = st == null ? -1 : st.size;
      // An 'S' and a 'C' record take 18 bytes, a 'W' 25: at most that many of each.
      txnOf = new IdTable(bytes < 0 ? 1L << 22 : 2 * (bytes / 18) + (1 << 16));
      b.onEstimate(txnOf::expect);
      if (st != null) {
        st.used = true;
        b.stream(sink, origin, null);
        check = new WriterCheck(bytes, cobraId);
      }
    }

    /** Where transaction t came from, for messages. */
    private final TxnBuffer.Origin origin = new TxnBuffer.Origin() {
      @Override public long arg(int t) { return t; }

      @Override public String of(Object session, long t, long at) {
        return "txn " + hex(cobraId.get((int) t)) + " of " + files.get(fileOf((int) t)) + ", byte " + at;
      }
    };

    /** The log transaction t is in: the last whose first transaction is t or before. */
    private int fileOf(int t) { return fileFirstTxn.lastAtMost(t); }

    private HistoryException bad(long at, String msg) {
      return new HistoryException(file + ", byte " + at + ": " + msg);
    }

    /** A 'W' record's fields after its tag, and an 'R' record's, in their order. */
    private static final String[] W_FIELDS = {"write id", "key", "value"},
        R_FIELDS = {"writer's transaction id", "write id", "key", "value"};
    /** The record's fields, as {@link #fields} read them. */
    private final long[] rec = new long[4];

    /**
     * Reads a record's fields (named by what) into rec: decoded in place when the buffer holds
     * them all (a record's longs, 3 million at 10^5 transactions, were each two calls through
     * field(), which C1 does not inline), else one by one, naming the one the log ends inside.
     */
    private void fields(String[] what, long recordAt, char tag) throws IOException {
      int n = what.length;
      if (in.buffered() >= 8 * n) {
        byte[] bb = in.buffer();
        int p = in.position();
        for (int i = 0; i < n; i++) rec[i] = ByteInput.be(bb, p + 8 * i);
        in.skip(8 * n);
      } else {
        for (int i = 0; i < n; i++) rec[i] = field(what[i], recordAt, tag);
      }
    }

    private long field(String what, long recordAt, char tag) throws IOException {
      try {
        return in.longBE();
      } catch (EOFException e) {
        throw bad(in.offset(), "the log ends inside the '" + tag + "' record at byte " + recordAt + " (its " + what
            + "): the file is incomplete");
      }
    }

    void log(InputStream raw, String name, Object process) throws IOException {
      file = name;
      files.add(name);
      fileFirstTxn.add(b.txnCount());
      in = new ByteInput(raw, buf);
      int cur = -1;
      long curAt = 0;
      try {
        while (!in.atEnd()) {
          long at = in.offset();
          int tag = in.u8();
          switch (tag) {
            case 'S': {
              long id = field("transaction id", at, 'S');
              if (cur >= 0) {
                throw bad(at, "transaction " + hex(id) + " starts while transaction " + hex(cobraId.get(cur))
                    + " (started at byte " + curAt + ") has not committed; a Cobra log holds one transaction at a time");
              }
              int seen = txnOf.get(id) - 1;
              if (seen >= 0) {
                throw bad(at, "transaction " + hex(id) + " starts again; it started at byte " + b.txnTag(seen) + " of "
                    + files.get(fileOf(seen)));
              }
              cur = b.txn(process, OpType.INFO, at);
              txnOf.put(id, cur + 1);
              cobraId.add(id);
              curAt = at;
              break;
            }
            case 'C': {
              long id = field("transaction id", at, 'C');
              if (cur < 0) throw bad(at, "a commit of transaction " + hex(id) + " outside any transaction");
              if (id != cobraId.get(cur)) {
                throw bad(at, "a commit of transaction " + hex(id) + " inside transaction " + hex(cobraId.get(cur))
                    + " (started at byte " + curAt + ")");
              }
              b.setStatus(cur, OpType.OK);
              cur = -1;
              if (b.streaming()) b.flushBefore(b.txnCount(), logsBefore + in.offset());
              break;
            }
            case 'W': {
              fields(W_FIELDS, at, 'W');
              long wid = rec[0], key = rec[1], value = rec[2];
              if (cur < 0) throw bad(at, "a write outside any transaction");
              if (wid == UNIVERSAL) {
                universal(at);
                b.op(cur, OpRecord.WRITE, key, null, value, null, false, at);
                break;
              }
              if (firstPlain == null || firstUniversal != null) plain(at, false, wid, 0);
              int i = b.op(cur, OpRecord.WRITE, key, null, wid, null, false, at);
              if (check != null) {
                check.write(wid, cur);
              } else if (writeOp.get(wid) < 0) {
                writeOp.put(wid, i);
              }
              break;
            }
            case 'R': {
              fields(R_FIELDS, at, 'R');
              long writer = rec[0], wid = rec[1], key = rec[2], value = rec[3];
              if (cur < 0) throw bad(at, "a read outside any transaction");
              if (writer == UNIVERSAL && wid == UNIVERSAL) {
                universal(at);
                b.op(cur, OpRecord.READ, key, null, value, null, false, at);
                break;
              }
              boolean init = writer == INIT_TXN || writer == NULL_TXN;
              if (init && wid != INIT_WRITE && wid != NULL_TXN) {
                throw bad(at, "a read of write id " + hex(wid) + " of Cobra's initial transaction"
                    + (wid == GC_TRUE || wid == GC_FALSE ? " (a garbage-collection read of Cobra's online mode)" : "")
                    + ", which isocheck cannot map");
              }
              if (!init && (firstPlain == null || firstUniversal != null)) plain(at, true, wid, writer);
              int i = b.op(cur, OpRecord.READ, key, null, wid, null, init, at);
              if (!init) {
                if (check != null) {
                  check.read(wid, writer);
                } else {
                  reads.add(i);
                  readWriter.add(writer);
                }
              }
              break;
            }
            default:
              throw bad(at, String.format("0x%02x%s is not a Cobra log record (S, W, R or C)%s", tag,
                  tag >= 0x21 && tag < 0x7f ? " ('" + (char) tag + "')" : "",
                  tag == 'A' ? "; Cobra's clients log no aborts" : "; isocheck reads logs written without timestamps (TIME_ORDER_ON=false, Cobra's default)"));
          }
        }
      } catch (GzipInput.Damaged e) {
        throw bad(in.offset(), (e.truncated ? "truncated gzip data (the file is incomplete)" : "corrupt gzip data (" + e.getMessage() + ")"));
      }
      logsBefore += in.offset();
      if (b.streaming()) b.flushBefore(b.txnCount(), logsBefore);
    }

    /** A record of VeriStrong's universal-id dialect at byte at of the current file. */
    private void universal(long at) {
      if (firstUniversal == null) firstUniversal = file + ", byte " + at;
      if (firstPlain != null) mixed();
    }

    /**
     * A record of the plain dialect (a write id naming one write): a write with write id wid,
     * or a read of write id wid of transaction writer. Said in words only the
     * first time (a message may need it), not for every record.
     */
    private void plain(long at, boolean read, long wid, long writer) {
      if (firstPlain == null) {
        String what = !read ? "a write with write id " + hex(wid) : "a read of write id " + hex(wid) + " of transaction " + hex(writer);
        firstPlain = file + ", byte " + at + " (" + what + ")";
      }
      if (firstUniversal != null) mixed();
    }

    private void mixed() {
      throw new HistoryException("the logs mix VeriStrong's universal write id 0xabddefee (first at " + firstUniversal
          + "), which names a write by its value, with write ids naming writes (first at " + firstPlain
          + "); isocheck reads a history written in one of the two");
    }

    void finish(OpSink sink) {
      // Every log read, nothing but the messages needs the tables by id any more: let go
      // of them before the last transactions are handed on, for the builder's thread builds
      // the history while this one waits (live, they were copied by the collection that
      // came then: 47 MB at 10^6 Plume-shaped transactions).
      txnOf = null;
      b.onEstimate(null);
      if (b.streaming()) {
        check.finish();
        check = null;
        b.finishStream();
        return;
      }
      for (int k = 0; k < reads.size(); k++) {
        int i = reads.get(k);
        int w = writeOp.get(b.valueLong(i));
        if (w < 0) continue;
        int wt = b.opTxn(w);
        long writer = readWriter.get(k);
        if (cobraId.get(wt) != writer) {
          int rt = b.opTxn(i);
          throw new HistoryException(files.get(fileOf(rt)) + ", byte " + b.opTag(i) + ": transaction " + hex(cobraId.get(rt))
              + " reads write id " + hex(b.valueLong(i)) + " as transaction " + hex(writer) + "'s, but transaction "
              + hex(cobraId.get(wt)) + " wrote it (" + files.get(fileOf(wt)) + ", byte " + b.opTag(w) + ")");
        }
      }
      reads = null;
      readWriter = null;
      writeOp = null;
      b.emit(sink, origin);
    }
  }

  static String hex(long v) { return "0x" + Long.toHexString(v); }

  /**
   * Ints (0: none) indexed by a long in [0, limit), in pages of 16,384 allocated as
   * first written: 4 bytes a slot, one load a look-up. For ids that Cobra's clients (and
   * isocheck's writer) number 1, 2, 3, ...: a million write ids take 4 MB, where a hash map
   * took 24 (and a cache miss a look-up, which the slots of ids written in order avoid).
   */
  static final class Pages {
    private static final int BITS = 14, SIZE = 1 << BITS, MASK = SIZE - 1;
    private final int[][] pages;
    private final long limit;

    Pages(long limit) {
      this.limit = Math.max(SIZE, Math.min(limit, 1L << 31));
      pages = new int[(int) ((this.limit + MASK) >>> BITS)][];
    }

    boolean covers(long id) { return id >= 0 && id < limit; }

    /** The ids covered: [0, limit). */
    long limit() { return limit; }

    /** The int at id (covered), or 0. */
    int get(long id) {
      int[] p = pages[(int) (id >>> BITS)];
      return p == null ? 0 : p[(int) id & MASK];
    }

    /** Sets the int at id (covered) to v. */
    void set(long id, int v) {
      int k = (int) (id >>> BITS);
      int[] p = pages[k];
      if (p == null) p = pages[k] = new int[SIZE];
      p[(int) id & MASK] = v;
    }
  }

  /**
   * Cobra transaction ids to positive ints (0: none): those {@link Pages} covers in pages,
   * any other in a hash map.
   */
  static final class IdTable {
    private final Pages dense;
    private LongIntMap far;

    IdTable(long limit) { dense = new Pages(limit); }

    int get(long id) {
      if (dense.covers(id)) return dense.get(id);
      return far == null ? 0 : Math.max(0, far.get(id));
    }

    void put(long id, int v) {
      if (dense.covers(id)) {
        dense.set(id, v);
      } else {
        if (far == null) far = new LongIntMap(1024);
        far.put(id, v);
      }
    }

    /** About n ids to expect: the hash map sized for them when ids go there (not only a few strays). */
    void expect(int n) {
      if (far != null && far.size() >= 256) far.ensureCapacity(n);
    }
  }

  /**
   * While streaming, whether each read of another transaction's write names its write id's
   * first writer (in log order), with little memory and few cache misses. A write id that
   * {@link Pages} covers (Cobra's clients number them 1, 2, 3, ...) has a slot of 4 bytes: its
   * first writer's Cobra id (+ 1) when that fits in 30 bits, else its transaction (- 1 - t);
   * before any write of it, the writer its first read names (+ 1, with {@link #CLAIM}), which
   * later reads and its first write are checked against. Reads are checked 256 at a time, their
   * slots touched first in a tight loop (a read's write is anywhere in the slots, larger than
   * L2). A read naming a writer whose id needs 30 bits or more, before its write, is kept as 6
   * bytes (its write id's place in its range of 65,536 and the writer, or an index into the
   * wide ones) and checked once every log is read, range by range. Any other write id, and its
   * reads, go to {@link ReadCheck}. A read naming another writer (or two reads naming two
   * writers of a write id not yet written) throws {@link TxnBuffer.NotStreamable}: the logs are
   * then read again whole, which names the first read naming another writer, if any. At 10^5
   * Plume-shaped transactions (a million writes, 800,000 reads of them), 4 MB of slots; every
   * read kept until the end (as 6 bytes) took 4.8 MB more and 2.4 MB of peak RSS, half of
   * them read before their writes' logs.
   */
  static final class WriterCheck {
    private static final int RANGE_BITS = 16, BLOCK_BITS = 10, BLOCK = 1 << BLOCK_BITS;
    /** In a slot, with the writer's Cobra id + 1 below: no write yet, reads naming that writer. */
    private static final int CLAIM = 1 << 30;
    /** Reads kept until checked together: their write ids and the writers they name. */
    private static final int PENDING = 256;
    private final long[] pendingWid = new long[PENDING], pendingWriter = new long[PENDING];
    private int pending;
    /** The sum of the slots {@link #drain} touched first (meaning nothing: kept so the loads stay). */
    long touched;
    private final Pages first;
    /** The Cobra id of each transaction. */
    private final LongList cobraId;
    private final long bytes;
    private ReadCheck far;
    /**
     * Per range of write ids: its reads, in blocks never copied, each the write id's place in
     * the range (16 bits) and the writer it names (or, with the top bit set, its index among the
     * wide ones), and how many.
     */
    private short[][][] readAt;
    private int[][][] readWriter;
    private int[] count;
    /** The writers read that do not fit in 31 bits. */
    private final LongList wide = new LongList(16);

    /** For logs of {@code bytes} bytes (-1: unknown), the Cobra id of each transaction in cobraId. */
    WriterCheck(long bytes, LongList cobraId) {
      this.bytes = bytes;
      this.cobraId = cobraId;
      // A 'W' record takes 25 bytes: write ids numbered from 1 stay below twice what they could hold.
      first = new Pages(bytes < 0 ? 1L << 24 : 2 * (bytes / 25) + (1 << 16));
      int ranges = (int) ((first.limit() + (1 << RANGE_BITS) - 1) >>> RANGE_BITS);
      readAt = new short[ranges][][];
      readWriter = new int[ranges][][];
      count = new int[ranges];
    }

    /** A write of write id wid by transaction txn. */
    void write(long wid, int txn) {
      if (first.covers(wid)) {
        int f = first.get(wid);
        if (f == 0 || (f & CLAIM) != 0) {
          long id = cobraId.get(txn);
          // Reads before it named a writer: it must be this one.
          if (f != 0 && id != (f & ~CLAIM) - 1) throw bad(wid);
          first.set(wid, id >= 0 && id < CLAIM - 1 ? (int) id + 1 : -1 - txn);
        }
      } else {
        far().write(wid, cobraId.get(txn));
      }
    }

    /** A read of write id wid naming transaction writer (a Cobra id). */
    void read(long wid, long writer) {
      if (!first.covers(wid)) {
        far().read(wid, writer);
        return;
      }
      pendingWid[pending] = wid;
      pendingWriter[pending] = writer;
      if (++pending == PENDING) drain();
    }

    /**
     * The reads waiting, checked: their slots first touched in a tight loop of independent
     * loads, which the processor overlaps (a read's write is anywhere in the 4 MB of slots, one
     * wait for memory each when checked one by one: the reader's thread 10% slower).
     */
    private void drain() {
      int n = pending;
      long touched = 0;
      for (int i = 0; i < n; i++) touched += first.get(pendingWid[i]);
      this.touched += touched;
      for (int i = 0; i < n; i++) check(pendingWid[i], pendingWriter[i]);
      pending = 0;
    }

    /** A read of write id wid (covered) naming transaction writer (a Cobra id). */
    private void check(long wid, long writer) {
      int f = first.get(wid);
      if (f != 0) {
        // Its first writer known (a write before it in log order), or named by an earlier read
        // (none yet): checked now, not kept. Two reads naming different writers of a write id
        // not yet written throw too, though no write may come: the whole read then decides.
        if (writer != (f > 0 ? (f & ~CLAIM) - 1 : cobraId.get(-1 - f))) throw bad(wid);
        return;
      }
      if (writer >= 0 && writer < CLAIM - 1) {
        // The first read of a write id not yet written: the writer it names kept in the slot.
        first.set(wid, CLAIM | (int) writer + 1);
        return;
      }
      int w;
      if (writer >= 0 && writer < Integer.MAX_VALUE) {
        w = (int) writer;
      } else {
        w = 0x80000000 | wide.size();
        wide.add(writer);
      }
      int r = (int) (wid >>> RANGE_BITS), n = count[r], j = n & (BLOCK - 1);
      short[][] at = readAt[r];
      int[][] wr = readWriter[r];
      if (j == 0) {
        int k = n >>> BLOCK_BITS;
        if (at == null) {
          at = readAt[r] = new short[4][];
          wr = readWriter[r] = new int[4][];
        } else if (k == at.length) {
          at = readAt[r] = java.util.Arrays.copyOf(at, 2 * k);
          wr = readWriter[r] = java.util.Arrays.copyOf(wr, 2 * k);
        }
        at[k] = new short[BLOCK];
        wr[k] = new int[BLOCK];
      }
      at[n >>> BLOCK_BITS][j] = (short) wid;
      wr[n >>> BLOCK_BITS][j] = w;
      count[r] = n + 1;
    }

    /** Every log read: every read kept, range by range, and {@link ReadCheck}'s. */
    void finish() {
      drain();
      for (int r = 0; r < count.length; r++) {
        short[][] at = readAt[r];
        int[][] wr = readWriter[r];
        for (int i = 0, n = count[r]; i < n; i++) {
          long wid = (long) r << RANGE_BITS | (at[i >>> BLOCK_BITS][i & (BLOCK - 1)] & 0xffff);
          int f = first.get(wid);
          if (f == 0 || (f & CLAIM) != 0) continue;
          long writer = f > 0 ? f - 1 : cobraId.get(-1 - f);
          int w = wr[i >>> BLOCK_BITS][i & (BLOCK - 1)];
          if (writer != (w >= 0 ? w : wide.get(w & 0x7fffffff))) throw bad(wid);
        }
        readAt[r] = null;
        readWriter[r] = null;
      }
      if (far != null && !far.allMatch()) throw bad(far.badWid);
    }

    private ReadCheck far() { return far == null ? far = new ReadCheck(bytes) : far; }

    private static TxnBuffer.NotStreamable bad(long wid) {
      return new TxnBuffer.NotStreamable("write id " + hex(wid) + " read as another transaction's");
    }
  }

  /**
   * {@link WriterCheck}'s for write ids beyond its slots (any 64-bit write id): whether each
   * read names the writer of its write id's first write (in log
   * order), as a partitioned hash join once every log is read: no look-up while reading (a
   * table of a million write ids is far larger than the caches, and each look-up or insert
   * waited for memory, half the reader's time at 10^5 Plume-shaped transactions). Each write
   * and each read is appended, as it comes, to one of at most 64 partitions by its write id's
   * hash (few enough that every partition's end stays in the cache), in blocks of 128 pairs
   * that are never copied; at the end each partition is scattered, in order, into parts of
   * about 4,096 writes by more of the hash, and each part joined in a table that fits in L2.
   * (Two growing lists, scattered whole at the end, allocated 90 MB at 10^5 transactions for
   * 32 MB of pairs; all 1,024 partitions as they come made the reader's thread half as slow
   * again, each append a cache miss.)
   */
  static final class ReadCheck {
    /** Longs per block: 128 pairs (the write id's hash, then the writer's Cobra transaction id). */
    private static final int BLOCK_BITS = 8, BLOCK = 1 << BLOCK_BITS;
    /** Write ids per part joined in one table. */
    private static final int PART_BITS = 12;
    private final int bits;
    /** Per partition: its blocks of writes and of reads, and how many longs each holds. */
    private final long[][][] wBlocks, rBlocks;
    private final int[] wLen, rLen;
    /** Per partition: its last block of writes and of reads. */
    private final long[][] wTail, rTail;
    /** The write id of a read {@link #allMatch} found naming another writer. */
    long badWid;

    /** For logs of {@code bytes} bytes in all (-1: unknown): at most one partition per 4,096 writes they could hold. */
    ReadCheck(long bytes) {
      long most = bytes < 0 ? 1L << 20 : bytes / 25;
      int b = 0;
      while (b < 6 && (most >> (b + PART_BITS)) > 0) b++;
      bits = b;
      wBlocks = new long[1 << b][][];
      rBlocks = new long[1 << b][][];
      wLen = new int[1 << b];
      rLen = new int[1 << b];
      wTail = new long[1 << b][];
      rTail = new long[1 << b][];
    }

    private int part(long h) { return bits == 0 ? 0 : (int) (h >>> (64 - bits)); }

    // A write id is kept as its hash (a bijection: equal hashes, equal ids), hashed once: its
    // partition, its part and its slot are the hash's top, next and low bits.

    void write(long wid, long txn) { append(wBlocks, wTail, wLen, hash(wid), txn); }

    void read(long wid, long writer) { append(rBlocks, rTail, rLen, hash(wid), writer); }

    /** Appends the pair (h, x) to h's partition of blocks (tails and lengths in longs beside). */
    private void append(long[][][] blocks, long[][] tail, int[] len, long h, long x) {
      int p = part(h), n = len[p], j = n & (BLOCK - 1);
      long[] t = j == 0 ? block(blocks, tail, p, n) : tail[p];
      t[j] = h;
      t[j + 1] = x;
      len[p] = n + 2;
    }

    /** A new block for partition p, whose blocks hold n longs: added to its blocks, and its tail. */
    private static long[] block(long[][][] blocks, long[][] tail, int p, int n) {
      int k = n >>> BLOCK_BITS;
      long[][] bl = blocks[p];
      if (bl == null) bl = blocks[p] = new long[4][];
      else if (k == bl.length) bl = blocks[p] = java.util.Arrays.copyOf(bl, 2 * k);
      return tail[p] = bl[k] = new long[BLOCK];
    }

    private static long hash(long k) {
      k ^= k >>> 33;
      k *= 0xff51afd7ed558ccdL;
      k ^= k >>> 33;
      k *= 0xc4ceb9fe1a85ec53L;
      k ^= k >>> 33;
      return k;
    }

    /** The write id whose {@link #hash} is h (the inverse of each step, in reverse order). */
    static long unhash(long h) {
      h ^= h >>> 33;
      h *= 0x9cb4b2f8129337dbL;
      h ^= h >>> 33;
      h *= 0x4f74430c22a54005L;
      h ^= h >>> 33;
      return h;
    }

    /** The join's table, reused from part to part: write ids and writers, and which part each slot is of. */
    private long[] slots = new long[0];
    private int[] stamp = new int[0];
    private int stampNow;
    /** A partition scattered into parts: its writes and its reads. */
    private long[] pw = new long[0], pr = new long[0];

    /**
     * Whether every read names its write id's first writer (when one is not, the logs are
     * read again whole, which names the first such read).
     */
    boolean allMatch() {
      for (int p = 0; p < wLen.length; p++) {
        int nw = wLen[p] / 2, nr = rLen[p] / 2;
        if (nw == 0 || nr == 0) continue;
        // Parts of this partition: the hash's next bits, about 4,096 writes each.
        int sub = 0;
        while (sub < 16 && (nw >> (sub + PART_BITS)) > 0) sub++;
        int parts = 1 << sub;
        int[] wStart = new int[parts + 1], rStart = new int[parts + 1];
        long[][] wb = wBlocks[p], rb = rBlocks[p];
        for (int i = 0; i < nw; i++) wStart[subPart(at(wb, 2 * i), sub) + 1]++;
        for (int i = 0; i < nr; i++) rStart[subPart(at(rb, 2 * i), sub) + 1]++;
        int most = 0;
        for (int q = 0; q < parts; q++) {
          most = Math.max(most, wStart[q + 1]);
          wStart[q + 1] += wStart[q];
          rStart[q + 1] += rStart[q];
        }
        if (pw.length < 2 * nw) pw = new long[2 * nw];
        if (pr.length < 2 * nr) pr = new long[2 * nr];
        scatter(wb, nw, sub, wStart.clone(), pw);
        scatter(rb, nr, sub, rStart.clone(), pr);
        for (int q = 0; q < parts; q++) {
          if (!join(wStart[q], wStart[q + 1], rStart[q], rStart[q + 1], most)) return false;
        }
      }
      return true;
    }

    /** Which of a partition's 2^sub parts the write id of hash h is in: the hash's bits after the partition's. */
    private int subPart(long h, int sub) { return sub == 0 ? 0 : (int) ((h << bits) >>> (64 - sub)); }

    private static long at(long[][] blocks, int i) { return blocks[i >>> BLOCK_BITS][i & (BLOCK - 1)]; }

    /** Copies the n pairs of blocks into out, part by part (next: each part's next pair), in order within a part. */
    private void scatter(long[][] blocks, int n, int sub, int[] next, long[] out) {
      for (int i = 0; i < n; i++) {
        long wid = at(blocks, 2 * i);
        int j = next[subPart(wid, sub)]++;
        out[2 * j] = wid;
        out[2 * j + 1] = at(blocks, 2 * i + 1);
      }
    }

    /**
     * Joins the writes {@link #pw}[w0..w1) and the reads {@link #pr}[r0..r1) (pairs) in a
     * table for at least {@code most} writes: whether every read names the writer of its
     * write id's first write among them.
     */
    private boolean join(int w0, int w1, int r0, int r1, int most) {
      if (w0 == w1 || r0 == r1) return true;
      int cap = Integer.highestOneBit(Math.max(4, 2 * most - 1)) << 1;
      if (stamp.length < cap) {
        slots = new long[2 * cap];
        stamp = new int[cap];
        stampNow = 0;
      }
      int mask = stamp.length - 1, s = ++stampNow;
      long[] w = pw, r = pr, sl = slots;
      int[] st = stamp;
      for (int i = w0; i < w1; i++) {
        long wid = w[2 * i];
        for (int k = (int) wid & mask;; k = (k + 1) & mask) {
          if (st[k] != s) {
            st[k] = s;
            sl[2 * k] = wid;
            sl[2 * k + 1] = w[2 * i + 1];
            break;
          }
          if (sl[2 * k] == wid) break;
        }
      }
      for (int i = r0; i < r1; i++) {
        long wid = r[2 * i];
        for (int k = (int) wid & mask;; k = (k + 1) & mask) {
          if (st[k] != s) break;
          if (sl[2 * k] == wid) {
            if (sl[2 * k + 1] != r[2 * i + 1]) {
              badWid = unhash(wid);
              return false;
            }
            break;
          }
        }
      }
      return true;
    }
  }

  /**
   * Writes h as Cobra logs into {@code dir} (created if missing; refused if it already holds
   * .log files): one file per process, {@code P.log} for a process P that is an integer 0 or
   * more or a plain name, else {@code session-I.log}; transactions numbered 1, 2, 3, ... in
   * history order; each write a new write id (1, 2, 3, ...), its value field the value when it
   * is an integer; a read of the initial value names Cobra's initial transaction; a read of a
   * value no transaction wrote names transaction 0 (none) and a write id of its own. An
   * indeterminate transaction is written without its commit, only as the last of its session.
   * Refused: list-append histories, aborted transactions (Cobra's logs hold none), keys that
   * are not 64-bit integers.
   */
  public static void write(History h, Path dir) throws IOException {
    PeerWriter w = new PeerWriter(h, "Cobra logs");
    int[][] sessions = w.bySession();
    for (int t = 0; t < h.nTxns; t++) {
      if (h.status(t) == OpType.FAIL) {
        throw w.cannot(t, "it aborted, and a Cobra client logs committed transactions only");
      }
    }
    for (int[] ts : sessions) {
      for (int k = 0; k < ts.length - 1; k++) {
        if (h.status(ts[k]) == OpType.INFO) {
          throw w.cannot(ts[k], "it is indeterminate and not the last transaction of its process, and a Cobra log can"
              + " leave only its last transaction without a commit");
        }
      }
    }
    String[] names = new String[sessions.length];
    HashSet<String> used = new HashSet<>();
    for (int s = 0; s < sessions.length; s++) {
      Object p = h.process(sessions[s][0]);
      String n = p instanceof Long l && l >= 0 ? l.toString()
          : p instanceof String str && str.matches("[A-Za-z0-9_][A-Za-z0-9_.-]*") && !str.matches("[0-9]{1,18}") ? str
          : "session-" + s;
      if (!used.add(n)) {
        n = "session-" + s;
        if (!used.add(n)) throw new HistoryException("cannot name the Cobra log of process " + Edn.str(p) + ": " + n + ".log is taken");
      }
      names[s] = n + ".log";
    }
    // Write ids, per (key, value) written; the txn id of each transaction; every key checked
    // before anything is written.
    HashMap<List<Object>, long[]> writes = new HashMap<>();
    long[] txnId = new long[h.nTxns];
    long nextWid = 1;
    for (int t = 0; t < h.nTxns; t++) {
      txnId[t] = t + 1;
      for (int m = h.mopStart(t); m < h.mopEnd(t); m++) {
        w.integer(t, m, h.key(h.mopKey(m)), "key", java.math.BigInteger.valueOf(Long.MIN_VALUE),
            java.math.BigInteger.valueOf(Long.MAX_VALUE), "64-bit integers");
        if (h.mopKind(m) == OpRecord.WRITE) writes.put(List.of(h.key(h.mopKey(m)), w.value(m)), new long[] {nextWid++, t + 1});
      }
    }
    Files.createDirectories(dir);
    if (!logs(dir).isEmpty()) {
      throw new java.nio.file.FileAlreadyExistsException(dir.toString(), null,
          "already holds .log files; a Cobra history is every .log file of a directory, so write it into a new or empty one");
    }
    for (int s = 0; s < sessions.length; s++) {
      try (OutputStream raw = Files.newOutputStream(dir.resolve(names[s]));
           java.io.DataOutputStream o = new java.io.DataOutputStream(new BufferedOutputStream(raw, 1 << 16))) {
        for (int t : sessions[s]) {
          o.writeByte('S');
          o.writeLong(txnId[t]);
          for (int m = h.mopStart(t); m < h.mopEnd(t); m++) {
            long key = ((Number) h.key(h.mopKey(m))).longValue();
            if (h.mopKind(m) == OpRecord.WRITE) {
              long[] wid = writes.get(List.of(h.key(h.mopKey(m)), w.value(m)));
              o.writeByte('W');
              o.writeLong(wid[0]);
              o.writeLong(key);
              o.writeLong(w.value(m) instanceof Long l ? l : 0);
            } else if (w.readsNil(m)) {
              o.writeByte('R');
              o.writeLong(INIT_TXN);
              o.writeLong(INIT_WRITE);
              o.writeLong(key);
              o.writeLong(0);
            } else {
              List<Object> kv = List.of(h.key(h.mopKey(m)), w.value(m));
              long[] wid = writes.get(kv);
              if (wid == null) {
                wid = new long[] {nextWid++, 0};
                writes.put(kv, wid);
              }
              o.writeByte('R');
              o.writeLong(wid[1]);
              o.writeLong(wid[0]);
              o.writeLong(key);
              o.writeLong(w.value(m) instanceof Long l ? l : 0);
            }
          }
          if (h.status(t) == OpType.OK) {
            o.writeByte('C');
            o.writeLong(txnId[t]);
          }
        }
      }
    }
  }
}
