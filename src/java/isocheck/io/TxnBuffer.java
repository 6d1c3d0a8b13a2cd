package isocheck.io;

import isocheck.history.Kw;
import isocheck.history.OpRecord;
import isocheck.history.OpSink;
import isocheck.history.OpType;
import isocheck.util.LongList;
import java.util.ArrayList;

/**
 * The transactions of a history in another tool's format (Plume/PolySI text, dbcop, Cobra),
 * collected whole before they are handed on as Jepsen ops. Those formats group a history by
 * session or by transaction id, may spread a transaction's operations over the file, and give
 * some values a meaning only the whole file settles (dbcop's version 0, Cobra's write ids), so
 * a reader fills this buffer, settles what it must, and then {@link #emit}s.
 *
 * <p>Each transaction becomes one completion op and no invocation: {@code :type} {@code :ok},
 * {@code :fail} or {@code :info}, {@code :f :txn}, {@code :process} its session, {@code :index}
 * its position among the ops emitted, and its micro-ops {@code [:r k v]} / {@code [:w k v]} in
 * the format's order ({@code [:r k nil]} for a read of the initial value). Without invocations
 * there is no realtime order: these formats record none. Keys and values are longs on the
 * primitive path, any other object (a {@link java.math.BigInteger} beyond a long, a string)
 * otherwise.
 */
final class TxnBuffer {
  /** How a reader describes where a transaction came from (its ops' {@link OpRecord#origin}). */
  interface Origin {
    /**
     * What of transaction t, not yet handed on, the description needs besides its session and
     * its position ({@link #txnTag}): kept with its op ({@link OpRecord#originArg}).
     */
    long arg(int t);

    /** Where a transaction came from, for messages: from its session, its {@link #arg} and its position. */
    String of(Object session, long arg, long tag);
  }

  private static final byte KEY_OBJ = 1, VAL_OBJ = 2, VAL_NIL = 4;

  /**
   * The transactions' columns, in pages of {@link #PAGE} transactions: session, status,
   * dropped, position, and the reader's own ({@link #longColumn}, {@link #intColumn}). An op
   * handed on carries what its messages need ({@link OpRecord#originArg}, {@link
   * OpRecord#originArg2}, its process), so the buffer lets go of a page once every transaction
   * in it is handed on ({@link #flushBefore}, {@link #emit}), and while streaming takes it for
   * the next page. (Columns of every transaction, kept because a message made later on the
   * history builder's thread might name any, were 22 MB at 10^6 Plume-shaped transactions, all
   * of it live when the load's one young collection came; pages of them let go, 22 MB of the
   * young generation's garbage.)
   */
  private static final int PAGE_SHIFT = 12, PAGE = 1 << PAGE_SHIFT, PAGE_MASK = PAGE - 1;
  private Page[] pages = new Page[16];
  /** While streaming: the page last let go, for the next page. */
  private Page sparePage;
  private int nTxns;
  /** How many long and int columns the reader asked for ({@link #longColumn}, {@link #intColumn}). */
  private int longColumns, intColumns;
  /** How the transactions are described, once {@link #stream} or {@link #emit} is called, and as an op's {@link OpRecord#originFn}. */
  private Origin origin;
  private OpRecord.Origin where;

  private static final class Page {
    final Object[] session = new Object[PAGE];
    final byte[] status = new byte[PAGE], dropped = new byte[PAGE];
    final long[] tag = new long[PAGE];
    final long[][] longs;
    final int[][] ints;

    Page(int longColumns, int intColumns) {
      longs = new long[longColumns][PAGE];
      ints = new int[intColumns][PAGE];
    }

    /** Taken for other transactions: what is not written for every transaction cleared. */
    Page clear() {
      java.util.Arrays.fill(dropped, (byte) 0);
      for (long[] c : longs) java.util.Arrays.fill(c, 0);
      for (int[] c : ints) java.util.Arrays.fill(c, 0);
      return this;
    }
  }

  /**
   * Transaction t's page. While streaming, a transaction already handed on may have none:
   * a reader that asks about one has found the file not streamable in order (a transaction
   * id again, out of place), and reading it whole says what is wrong with it.
   */
  private Page page(int t) {
    Page p = pages[t >>> PAGE_SHIFT];
    if (p == null) throw new NotStreamable("transaction " + t + " is asked about after it was handed on");
    return p;
  }

  /** Lets go of page p, whose transactions are all handed on (while streaming, keeps it for the next page). */
  private void dropPage(int p) {
    if (stream != null) sparePage = pages[p];
    pages[p] = null;
  }

  /** A column of one long per transaction for the reader (0 until set); call before the first transaction. */
  int longColumn() { return longColumns++; }

  /** A column of one int per transaction for the reader (0 until set); call before the first transaction. */
  int intColumn() { return intColumns++; }

  void setLong(int column, int t, long v) { page(t).longs[column][t & PAGE_MASK] = v; }
  void setInt(int column, int t, int v) { page(t).ints[column][t & PAGE_MASK] = v; }
  long longAt(int column, int t) { return page(t).longs[column][t & PAGE_MASK]; }
  int intAt(int column, int t) { return page(t).ints[column][t & PAGE_MASK]; }

  /** Pages of transactions held (for tests: streaming lets go of those handed on). */
  int pagesHeld() {
    int n = 0;
    for (Page p : pages) if (p != null) n++;
    return n;
  }

  private void describeWith(Origin o) {
    origin = o;
    where = (arg, tag, session) -> o.of(session, arg, tag);
  }

  /**
   * The ops, column by column, in chunks of {@link #CHUNK}: a column grows by a chunk, never by
   * copying itself (a history of 2*10^7 micro-ops kept a third of its doubled arrays spare, and
   * the copies' garbage besides), and {@link #emit} drops each chunk once all its ops are handed
   * on, so that the buffer shrinks as the history builder grows.
   */
  private static final int SHIFT = 16, CHUNK = 1 << SHIFT, MASK = CHUNK - 1;
  private int[][] opTxn = new int[16][];
  private byte[][] opKind = new byte[16][], opFlags = new byte[16][];
  private long[][] opKey = new long[16][], opVal = new long[16][], opTag = new long[16][];
  private int nOps;
  private final ArrayList<Object> objs = new ArrayList<>();

  /** After {@link #seal}: the ops of transaction t are order[start[t] .. start[t + 1]). */
  private int[] start, order;

  /** Starts a transaction of {@code session} with status {@link OpType#OK}, FAIL or INFO; returns its number. */
  int txn(Object session, int status, long tag) {
    int t = nTxns++;
    if (stream != null) txnOpStart.add(nOps);
    int p = t >>> PAGE_SHIFT, j = t & PAGE_MASK;
    if (j == 0) {
      if (p == pages.length) pages = java.util.Arrays.copyOf(pages, 2 * p);
      pages[p] = sparePage != null ? sparePage.clear() : new Page(longColumns, intColumns);
      sparePage = null;
    }
    Page g = pages[p];
    g.session[j] = session;
    g.status[j] = (byte) status;
    g.tag[j] = tag;
    return t;
  }

  int txnCount() { return nTxns; }
  Object session(int t) { return page(t).session[t & PAGE_MASK]; }
  int status(int t) { return page(t).status[t & PAGE_MASK]; }
  void setStatus(int t, int s) { page(t).status[t & PAGE_MASK] = (byte) s; }
  long txnTag(int t) { return page(t).tag[t & PAGE_MASK]; }
  private boolean dropped(int t) { return page(t).dropped[t & PAGE_MASK] != 0; }
  /** Leaves transaction t out of what {@link #emit} hands on. */
  void drop(int t) { page(t).dropped[t & PAGE_MASK] = 1; }

  /**
   * Adds an op to transaction t: kind {@link OpRecord#READ} or {@link OpRecord#WRITE}; the key is
   * {@code keyObj} when not null, else {@code key}; the value {@code valObj} when not null, else
   * {@code val}, or nil (a read of the initial value) when {@code nil}. Returns the op's number.
   */
  int op(int t, byte kind, long key, Object keyObj, long val, Object valObj, boolean nil, long tag) {
    int i = nOps;
    // A Long is kept as a long: one key or value, one representation (renameAbortedDuplicates compares them).
    if (keyObj instanceof Long l) {
      key = l;
      keyObj = null;
    }
    if (valObj instanceof Long l) {
      val = l;
      valObj = null;
    }
    int c = i >>> SHIFT, j = i & MASK;
    if (j == 0) newChunk(c);
    else if (j == opTxn[c].length) growChunk(c);
    nOps++;
    opTxn[c][j] = t;
    opKind[c][j] = kind;
    byte f = 0;
    if (keyObj != null) {
      f |= KEY_OBJ;
      key = objs.size();
      objs.add(keyObj);
    }
    if (nil) f |= VAL_NIL;
    else if (valObj != null) {
      f |= VAL_OBJ;
      val = objs.size();
      objs.add(valObj);
    }
    opFlags[c][j] = f;
    opKey[c][j] = key;
    opVal[c][j] = val;
    opTag[c][j] = tag;
    return i;
  }

  private void newChunk(int c) {
    if (c == opTxn.length) {
      int n = c * 2;
      opTxn = java.util.Arrays.copyOf(opTxn, n);
      opKind = java.util.Arrays.copyOf(opKind, n);
      opFlags = java.util.Arrays.copyOf(opFlags, n);
      opKey = java.util.Arrays.copyOf(opKey, n);
      opVal = java.util.Arrays.copyOf(opVal, n);
      opTag = java.util.Arrays.copyOf(opTag, n);
    }
    if (spareTxn != null) {
      // Every column of an op is written when it is added: a spare chunk needs no clearing.
      opTxn[c] = spareTxn;
      opKind[c] = spareKind;
      opFlags[c] = spareFlags;
      opKey[c] = spareKey;
      opVal[c] = spareVal;
      opTag[c] = spareTag;
      spareTxn = null;
      spareKind = spareFlags = null;
      spareKey = spareVal = spareTag = null;
      return;
    }
    // The first chunk small, grown as needed: a streamed file's ops are numbered from 0 again
    // once handed on (restart), so its transactions, a few dozen ops each, use the first
    // chunk's first slots alone (a full chunk, zeroed, was 2 MB of the load's peak).
    int n = c == 0 ? FIRST : CHUNK;
    opTxn[c] = new int[n];
    opKind[c] = new byte[n];
    opFlags[c] = new byte[n];
    opKey[c] = new long[n];
    opVal[c] = new long[n];
    opTag[c] = new long[n];
  }

  private static final int FIRST = 1 << 10;

  /** Chunk c, full to its length (less than a chunk's), four times as long (at most a chunk). */
  private void growChunk(int c) {
    int n = Math.min(CHUNK, 4 * opTxn[c].length);
    opTxn[c] = java.util.Arrays.copyOf(opTxn[c], n);
    opKind[c] = java.util.Arrays.copyOf(opKind[c], n);
    opFlags[c] = java.util.Arrays.copyOf(opFlags[c], n);
    opKey[c] = java.util.Arrays.copyOf(opKey[c], n);
    opVal[c] = java.util.Arrays.copyOf(opVal[c], n);
    opTag[c] = java.util.Arrays.copyOf(opTag[c], n);
  }

  /**
   * While streaming: the arrays of a chunk let go, for the next chunk to reuse. A streamed file
   * holds a chunk or two at a time, and reusing them spares the collector a chunk's garbage
   * (2 MB) every 65,536 ops: 10^5 Plume-shaped transactions made 60 MB of it, which the
   * young generation grew to hold (peak RSS 251 MB, against 195 MB for the same history's EDN).
   */
  private int[] spareTxn;
  private byte[] spareKind, spareFlags;
  private long[] spareKey, spareVal, spareTag;

  private byte flags(int i) { return opFlags[i >>> SHIFT][i & MASK]; }
  private void setFlags(int i, int f) { opFlags[i >>> SHIFT][i & MASK] = (byte) f; }

  int opCount() { return nOps; }
  int opTxn(int i) { return opTxn[i >>> SHIFT][i & MASK]; }
  byte kind(int i) { return opKind[i >>> SHIFT][i & MASK]; }
  long opTag(int i) { return opTag[i >>> SHIFT][i & MASK]; }
  boolean keyIsLong(int i) { return (flags(i) & KEY_OBJ) == 0; }
  long keyLong(int i) { return opKey[i >>> SHIFT][i & MASK]; }
  Object key(int i) { return keyIsLong(i) ? (Object) keyLong(i) : objs.get((int) keyLong(i)); }
  boolean isNil(int i) { return (flags(i) & VAL_NIL) != 0; }
  boolean valueIsLong(int i) { return (flags(i) & (VAL_OBJ | VAL_NIL)) == 0; }
  long valueLong(int i) { return opVal[i >>> SHIFT][i & MASK]; }
  Object value(int i) { return isNil(i) ? null : valueIsLong(i) ? (Object) valueLong(i) : objs.get((int) valueLong(i)); }
  /** Makes op i a read of the initial value. */
  void setNil(int i) { setFlags(i, flags(i) | VAL_NIL); }
  /** Replaces op i's value by the long v. */
  void setValue(int i, long v) {
    setFlags(i, flags(i) & ~(VAL_OBJ | VAL_NIL));
    opVal[i >>> SHIFT][i & MASK] = v;
  }

  /** Groups the ops by transaction, keeping their order; then {@link #first}/{@link #end}/{@link #at} walk them. */
  void seal() {
    int n = nTxns, m = nOps;
    start = new int[n + 1];
    boolean grouped = true;
    int last = 0;
    for (int i = 0; i < m; i++) {
      int t = opTxn(i);
      start[t + 1]++;
      if (t < last) grouped = false;
      last = t;
    }
    for (int t = 0; t < n; t++) start[t + 1] += start[t];
    // Each transaction's ops together, in transaction order (every format but a Plume file
    // whose transactions interleave): the ops are in order already.
    if (grouped) {
      order = null;
      return;
    }
    int[] next = java.util.Arrays.copyOf(start, n);
    order = new int[m];
    for (int i = 0; i < m; i++) order[next[opTxn(i)]++] = i;
  }

  /** After {@link #seal}: the ops of t are at(first(t)) .. at(end(t) - 1). */
  int first(int t) { return start[t]; }
  int end(int t) { return start[t + 1]; }
  int at(int j) { return order == null ? j : order[j]; }

  /** Whether transaction t writes and only writes, every value the long 0 (the initial transaction of formats where 0 is the initial value). */
  boolean writesOnlyZeros(int t) {
    if (first(t) == end(t)) return false;
    for (int j = first(t); j < end(t); j++) {
      int i = at(j);
      if (kind(i) != OpRecord.WRITE || !valueIsLong(i) || valueLong(i) != 0) return false;
    }
    return true;
  }

  /**
   * For formats where 0 is every key's initial value: drops each transaction that writes nothing
   * but 0s (the initial transaction), and refuses any other write of 0, which could not be told
   * from the initial value, with the message {@code refusal} gives for that op.
   */
  void dropInitialZeros(java.util.function.IntFunction<String> refusal) {
    for (int t = 0; t < txnCount(); t++) {
      if (writesOnlyZeros(t)) {
        drop(t);
        continue;
      }
      for (int j = first(t); j < end(t); j++) {
        int i = at(j);
        if (kind(i) == OpRecord.WRITE && valueIsLong(i) && valueLong(i) == 0) {
          throw new isocheck.history.HistoryException(refusal.apply(i) + "; isocheck takes a transaction of nothing but"
              + " writes of 0 for the initial state (and leaves it out), and cannot tell any other write of 0 from the"
              + " initial value");
        }
      }
    }
  }

  /**
   * Renames the value of each aborted write (a write of a {@code :fail} transaction) that a
   * transaction not aborted also writes to that key, or that an earlier aborted write already
   * wrote, to the string {@code "V/aborted"} ({@code "V/aborted-2"}, ... for more): for formats
   * whose tools match a read against the committed writes first and keep aborted writes apart
   * (Plume, AWDIT), so that such a read reads the committed write, as there, and values stay
   * unique per key. Call after {@link #seal}; returns how many were renamed.
   */
  int renameAbortedDuplicates() {
    int n = nOps;
    // Only the aborted writes' pairs can need a new name, and only a committed write of one of
    // them (or of a name given, a string) can take it: so the committed writes are looked up
    // among the aborted ones (a few, usually) rather than each boxed into a set of their own.
    java.util.HashSet<java.util.List<Object>> aborted = new java.util.HashSet<>();
    LongPairs abortedLongs = new LongPairs();
    for (int i = 0; i < n; i++) {
      if (abortedWrite(i)) {
        if (keyIsLong(i) && valueIsLong(i)) abortedLongs.add(keyLong(i), valueLong(i));
        else aborted.add(java.util.List.of(key(i), value(i)));
      }
    }
    if (aborted.isEmpty() && abortedLongs.size() == 0) return 0;
    java.util.HashSet<java.util.List<Object>> taken = new java.util.HashSet<>();
    for (int i = 0; i < n; i++) {
      if (kind(i) != OpRecord.WRITE || status(opTxn(i)) == OpType.FAIL || dropped(opTxn(i))) continue;
      if (keyIsLong(i) && valueIsLong(i)) {
        if (abortedLongs.contains(keyLong(i), valueLong(i))) taken.add(java.util.List.of(key(i), value(i)));
      } else {
        // An object value (a string) may also be a name given below: keep them all.
        taken.add(java.util.List.of(key(i), value(i)));
      }
    }
    int renamed = 0;
    for (int t = 0; t < nTxns; t++) {
      if (status(t) != OpType.FAIL || dropped(t)) continue;
      for (int j = first(t); j < end(t); j++) {
        int i = at(j);
        if (kind(i) != OpRecord.WRITE) continue;
        Object v = value(i);
        if (taken.add(java.util.List.of(key(i), v))) continue;
        String name = v + "/aborted";
        for (int k = 2; !taken.add(java.util.List.of(key(i), name)); k++) name = v + "/aborted-" + k;
        setFlags(i, (flags(i) & ~VAL_NIL) | VAL_OBJ);
        opVal[i >>> SHIFT][i & MASK] = objs.size();
        objs.add(name);
        renamed++;
      }
    }
    return renamed;
  }

  private boolean abortedWrite(int i) {
    return kind(i) == OpRecord.WRITE && status(opTxn(i)) == OpType.FAIL && !dropped(opTxn(i));
  }

  /** A set of pairs of longs (open addressing). */
  private static final class LongPairs {
    private long[] a = new long[32], b = new long[32];
    private boolean[] used = new boolean[32];
    private int size;

    int size() { return size; }

    private int slot(long x, long y) {
      long h = x * 0x9E3779B97F4A7C15L + y * 0xC2B2AE3D27D4EB4FL;
      h ^= h >>> 29;
      int mask = a.length - 1;
      int i = (int) h & mask;
      while (used[i] && (a[i] != x || b[i] != y)) i = (i + 1) & mask;
      return i;
    }

    boolean contains(long x, long y) { return used[slot(x, y)]; }

    void add(long x, long y) {
      int i = slot(x, y);
      if (used[i]) return;
      used[i] = true;
      a[i] = x;
      b[i] = y;
      if (++size * 2 > a.length) {
        long[] oa = a, ob = b;
        boolean[] ou = used;
        a = new long[oa.length * 2];
        b = new long[oa.length * 2];
        used = new boolean[oa.length * 2];
        size = 0;
        for (int k = 0; k < oa.length; k++) if (ou[k]) add(oa[k], ob[k]);
      }
    }
  }

  /**
   * Hands the transactions not dropped, in order, to {@code sink} as completion ops, then ends
   * it. The last thing done with the buffer: it lets go of its ops as they are handed on.
   */
  void emit(OpSink sink, Origin origin) {
    if (start == null) seal();
    describeWith(origin);
    OpRecord r = new OpRecord();
    long ordinal = 0;
    // Ops handed on (or dropped) per chunk: a chunk whose ops are all done is let go.
    int[] done = new int[(nOps + MASK) >>> SHIFT];
    long txns = 0, mops = 0, writes = 0;
    for (int t = 0; t < nTxns; t++) {
      if (dropped(t)) continue;
      txns++;
      mops += end(t) - first(t);
      for (int j = first(t); j < end(t); j++) if (kind(at(j)) == OpRecord.WRITE) writes++;
    }
    sink.sizeHint(txns, mops, writes, 0);
    for (int t = 0; t < nTxns; t++) {
      if (!dropped(t)) {
        fill(r, t, ordinal++, first(t), end(t), order);
        sink.op(r);
      }
      for (int j = first(t); j < end(t); j++) release(done, at(j));
      if ((t & PAGE_MASK) == PAGE_MASK) dropPage(t >>> PAGE_SHIFT);
    }
    sink.end();
  }

  /** Makes r transaction t's completion op, the ordinal-th handed on, its ops order[from..to) (or from..to). */
  private void fill(OpRecord r, int t, long ordinal, int from, int to, int[] order) {
    Page g = page(t);
    int j0 = t & PAGE_MASK;
    r.reset(ordinal);
    r.index = ordinal;
    r.type = g.status[j0];
    r.typeRaw = r.type == OpType.OK ? Kw.OK : r.type == OpType.FAIL ? Kw.FAIL : Kw.INFO;
    r.process = g.session[j0];
    r.hasProcess = true;
    r.f = Kw.TXN;
    r.valueShape = OpRecord.VALUE_TXN;
    r.originFn = where;
    r.originArg = origin.arg(t);
    r.originArg2 = g.tag[j0];
    for (int j = from; j < to; j++) {
      int i = order == null ? j : order[j];
      byte k = kind(i);
      r.beginMop(k, k == OpRecord.READ ? Kw.R : Kw.W);
      if (keyIsLong(i)) r.setKey(keyLong(i));
      else r.setKey(key(i));
      if (isNil(i)) r.setValueNil();
      else if (valueIsLong(i)) r.setValue(valueLong(i));
      else r.setValueObj(value(i));
    }
  }

  // ------------------------------------------------------------------ streaming

  /**
   * Thrown by a reader streaming its transactions ({@link #stream}) when the file turns out to
   * need the whole-file reading after all (a transaction's operations apart, a read settled by
   * a later write): the caller reads it again, whole.
   */
  static final class NotStreamable extends RuntimeException {
    NotStreamable(String why) { super(why, null, false, false); }
  }

  /** While streaming: where the transactions go, and how they are described. */
  private OpSink stream;
  private java.util.function.IntFunction<String> zeroRefusal;
  private final OpRecord streamRec = new OpRecord();
  /**
   * While streaming: each transaction's first op (its ops are together: the reader sees to it),
   * from transaction {@link #txnOpBase} on: those before are handed on, and let go of when
   * {@link #restart} numbers the ops from 0 again (a column of every transaction was 4 MB of the
   * load's peak at 10^6).
   */
  private final isocheck.util.IntList txnOpStart = new isocheck.util.IntList(1024);
  private int txnOpBase;
  /** While streaming: the first transaction not yet handed on, the ops before it let go, and the ordinal next. */
  private int nextOut, opsOut;
  private long ordinalOut;
  /** While streaming: micro-ops and writes handed on; the input's size in bytes (-1: unknown), and whether the sink was told what to expect. */
  private long mopsOut, writesOut, streamSize = -1;
  private boolean estimated;

  /**
   * Hands each transaction on as soon as the reader says it is complete ({@link #flushBefore}),
   * rather than after the whole file: for a reader whose transactions' operations come
   * together, whose file needs nothing settled by a later part of it. The reader throws
   * {@link NotStreamable} when the file turns out otherwise. {@code zeroRefusal}, when not
   * null, does {@link #dropInitialZeros} transaction by transaction. Aborted writes are not
   * renamed ({@link #renameAbortedDuplicates}): a history that needs it fails to build (a value
   * written twice), and is read whole. Call before the first transaction.
   */
  void stream(OpSink sink, Origin origin, java.util.function.IntFunction<String> zeroRefusal) {
    StreamingSink st = StreamingSink.of(sink);
    if (st != null) streamSize = st.size;
    this.stream = sink;
    describeWith(origin);
    this.zeroRefusal = zeroRefusal;
  }

  boolean streaming() { return stream != null; }

  /**
   * While streaming: transactions before t are complete; hands them on. {@code bytes}: how
   * much of the input is read (-1: not said). A few megabytes in, the sink is told how many
   * transactions, micro-ops and writes to expect, from those so far and the input's size (the
   * other tools' formats spend about the same bytes on every operation), so that the history
   * builder sizes its arrays about once rather than doubling them up to twice what they hold.
   */
  void flushBefore(int t, long bytes) {
    flushBefore(t);
    if (!estimated && bytes >= ESTIMATE_AFTER && streamSize >= 4 * ESTIMATE_AFTER && ordinalOut > 0) {
      estimated = true;
      double f = scale != null ? scale.applyAsDouble(bytes, streamSize) : (double) streamSize / bytes * 1.05;
      stream.sizeHint((long) (ordinalOut * f) + 16, (long) (mopsOut * f) + 64, (long) (writesOut * f) + 64, 0);
      // A reader's own columns of every transaction ({@link #perTxn}) sized once too: doubled
      // up to the end, their copies were 5-9 MB of the load's garbage at 10^5 transactions.
      int txns = (int) Math.min(Integer.MAX_VALUE / 2, (long) (nTxns * f) + 16);
      for (isocheck.util.IntList l : perTxnInts) l.ensureCapacity(txns);
      for (LongList l : perTxnLongs) l.ensureCapacity(txns);
      if (onEstimate != null) onEstimate.accept(txns);
    }
  }

  /** A reader's own per-transaction columns ({@link #perTxn}), sized with the buffer's when streaming. */
  private isocheck.util.IntList[] perTxnInts = {};
  private LongList[] perTxnLongs = {};

  /**
   * Registers a reader's columns of one entry per transaction, so that streaming sizes them
   * with the buffer's own once it knows about how many transactions to expect, rather than
   * doubling them.
   */
  void perTxn(isocheck.util.IntList... lists) { perTxnInts = lists; }

  /** {@link #perTxn(isocheck.util.IntList...)} for columns of longs. */
  void perTxn(LongList... lists) { perTxnLongs = lists; }

  private java.util.function.IntConsumer onEstimate;

  /** Told, when streaming, about how many transactions to expect, once (for a reader's tables by transaction). */
  void onEstimate(java.util.function.IntConsumer f) { onEstimate = f; }

  private static final long ESTIMATE_AFTER = 4 << 20;

  /**
   * What the counts so far are multiplied by for the estimate, from the bytes read and the
   * input's size; null: the size over the bytes read, with a margin of 5% so that the arrays are
   * not grown at the end.
   */
  private Scale scale;

  /** A reader's own estimate: the factor the counts so far scale by, given the bytes read and the input's size. */
  interface Scale {
    double applyAsDouble(long bytes, long size);
  }

  /**
   * A reader's own estimate ({@link Scale}) instead of the size over the bytes read: for a format
   * whose first megabytes spend fewer bytes on an op than the rest (Plume text: its txn ids
   * gain digits through the file).
   */
  void estimateWith(Scale s) { scale = s; }

  /**
   * For a binary format whose records take the same bytes all through the file (dbcop bincode,
   * Cobra's logs): the size over the bytes read with a margin of 2% (of 10^6 Plume-shaped
   * transactions, their first 4 MB gave the micro-ops to within 0.1% in both; with 5% the
   * builder's columns were 9 MB more than EDN's, all of it touched).
   */
  static final Scale FIXED_SIZE_RECORDS = (bytes, size) -> (double) size / bytes * 1.02;

  /** While streaming: transactions before t are complete; hands them on. */
  void flushBefore(int t) {
    while (nextOut < t) {
      int u = nextOut++;
      int from = txnOpStart.get(u - txnOpBase), to = u + 1 - txnOpBase < txnOpStart.size() ? txnOpStart.get(u + 1 - txnOpBase) : nOps;
      if (!(zeroRefusal != null && dropZeros(u, from, to))) {
        // Before the first op: start small, rather than at a guess from the file's size made
        // for Jepsen's EDN; a few megabytes in, the estimate (above) sizes the arrays.
        if (ordinalOut == 0 && streamSize >= 4 * ESTIMATE_AFTER) stream.sizeHint(1 << 10, 1 << 14, 1 << 13, 0);
        fill(streamRec, u, ordinalOut++, from, to, null);
        mopsOut += to - from;
        for (int i = from; i < to; i++) if (kind(i) == OpRecord.WRITE) writesOut++;
        stream.op(streamRec);
      }
      opsOut = to;
      // A page whose transactions are all handed on: let go, for the next.
      if ((u & PAGE_MASK) == PAGE_MASK) dropPage(u >>> PAGE_SHIFT);
      // Let go of the chunks wholly before the ops still to hand on.
      for (int c = (opsOut >>> SHIFT) - 1; c >= 0 && opTxn[c] != null; c--) dropChunk(c);
    }
    if (opsOut == nOps && nOps > 0) restart();
  }

  /**
   * While streaming, every op handed on: numbers the ops from 0 again, so that the next ones
   * go into the chunk just used (its spare) rather than into new chunks. Op numbers only name
   * ops until they are handed on (the readers' messages name ops before that); a transaction
   * begun but with no op yet starts at 0. Streaming thus holds one chunk (of a transaction's
   * ops, usually a few dozen) where it allocated a chunk of 2 MB every 65,536 ops it could
   * not reuse (7 of them at 10^5 Plume-shaped transactions: 13 MB of the load's peak).
   */
  private void restart() {
    for (int c = (nOps - 1) >>> SHIFT; c >= 0 && opTxn[c] != null; c--) dropChunk(c);
    // The transactions begun with no op yet (start 0 now) are all that is left of the column.
    int left = txnOpStart.size() - (nextOut - txnOpBase);
    txnOpStart.clear();
    for (int u = 0; u < left; u++) txnOpStart.add(0);
    txnOpBase = nextOut;
    nOps = 0;
    opsOut = 0;
  }

  /** While streaming: every transaction is complete; hands the rest on and ends the sink. */
  void finishStream() {
    flushBefore(txnCount());
    stream.end();
  }

  /** {@link #dropInitialZeros} for transaction t, ops from..to: whether it is dropped. */
  private boolean dropZeros(int t, int from, int to) {
    boolean onlyZeros = from < to;
    for (int i = from; i < to && onlyZeros; i++) {
      if (kind(i) != OpRecord.WRITE || !valueIsLong(i) || valueLong(i) != 0) onlyZeros = false;
    }
    if (onlyZeros) {
      drop(t);
      return true;
    }
    for (int i = from; i < to; i++) {
      if (kind(i) == OpRecord.WRITE && valueIsLong(i) && valueLong(i) == 0) {
        throw new isocheck.history.HistoryException(zeroRefusal.apply(i) + "; isocheck takes a transaction of nothing but"
            + " writes of 0 for the initial state (and leaves it out), and cannot tell any other write of 0 from the"
            + " initial value");
      }
    }
    return false;
  }

  /** Counts op i as handed on; drops its chunk once every op in it is. The buffer is spent then. */
  private void release(int[] done, int i) {
    int c = i >>> SHIFT;
    int size = Math.min(CHUNK, nOps - (c << SHIFT));
    if (++done[c] == size) dropChunk(c);
  }

  /** Lets go of chunk c's arrays (while streaming, keeps one chunk's for the next chunk). */
  private void dropChunk(int c) {
    if (stream != null && spareTxn == null && opTxn[c] != null) {
      spareTxn = opTxn[c];
      spareKind = opKind[c];
      spareFlags = opFlags[c];
      spareKey = opKey[c];
      spareVal = opVal[c];
      spareTag = opTag[c];
    }
    opTxn[c] = null;
    opKind[c] = null;
    opFlags[c] = null;
    opKey[c] = null;
    opVal[c] = null;
    opTag[c] = null;
  }
}
