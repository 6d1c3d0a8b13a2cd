package isocheck.history;

import isocheck.util.LongIntMap;

/**
 * A Jepsen transactional history, ready to check: transactions with their micro-ops in
 * program order, sessions, invocation/completion positions, and keys and values interned to
 * ints. Built by {@link HistoryBuilder}; immutable afterwards.
 *
 * <p>Transactions are numbered 0..n-1 in completion order (those never completed come last).
 * A transaction's status is {@link OpType#OK} (committed), {@link OpType#FAIL} (aborted: its
 * writes must never be observed) or {@link OpType#INFO} (indeterminate, including invocations
 * that never completed: it may have committed at any time after its invocation, and its reads
 * are unknown). The initial transaction ⊥ is implicit: it wrote the initial state (nil, the
 * empty list) of every key and precedes every transaction.
 *
 * <p>Micro-op encoding: kind ({@link OpRecord#READ}, {@link OpRecord#APPEND},
 * {@link OpRecord#WRITE}), key id, and value: for appends and writes a value id; for list reads
 * (list-append) an offset into {@link #listPool} with {@code mopLen} elements; for register
 * reads a value id, or {@link #NIL} for the initial value.
 */
public final class History {
  public enum Workload {
    APPEND("append"), REGISTER("wr");
    public final String cliName;
    Workload(String n) { cliName = n; }
  }

  public static final int NIL = -1;

  public final Workload workload;
  /**
   * The keys by id, as the values are kept ({@link #valueInts}): integers in chunks, boxed only
   * when asked for ({@link #key}); where keyObjs (null when none) holds an object, that object
   * instead (NULL_VALUE: null). Boxed when built, 10^6 Plume-shaped transactions' 2 million
   * keys were 40 MB of Longs and their array, made in the young generation as the load ended
   * and copied by its one collection.
   */
  private final int[][] keyInts;
  private final long[][] keyLongs;
  private final Object[] keyObjs;
  private final int nKeys;
  /**
   * The values by id: an integer in chunks of 2^VALUE_CHUNK_BITS, ints when every one fits
   * (valueInts, else valueLongs), boxed only when asked for ({@link #value}); where valueObjs
   * (null when none) holds an object, that object instead (NULL_VALUE: null).
   */
  private final int[][] valueInts;
  private final long[][] valueLongs;
  private final Object[] valueObjs;
  private final int nValues;
  static final int VALUE_CHUNK_BITS = 16;

  public final int nTxns;
  final byte[] status;
  final int[] session;
  final Object[] sessionProcess;
  final long[] invokeOrd, completeOrd, invokeTime, completeTime;
  private final IndexColumn invokeIndex, completeIndex;

  final int[] mopStart;
  final byte[] mopKind;
  final int[] mopKey, mopVal, mopLen, mopTxn;
  final int[] listPool;
  /** (key id, value id) -> mop that appended/wrote it. */
  final isocheck.util.PairIntMap writerIndex;
  /** Whether every op carried an :index and the indices strictly increase (then names use them). */
  public final boolean indexUsable;
  /**
   * Ops seen in all; ops skipped because their :f was not :txn (nemesis and the like) or their
   * :process not a client's; of the latter, :txn ops whose :process was not an integer.
   */
  public final long opsSeen, opsSkipped, nonClientOps;
  /**
   * Why there is nothing to check, when there are no transactions (null otherwise): no ops at
   * all, or none with the transactions' :f, with the first op skipped. Every level is then
   * unknown with this reason: an empty or wrong file is not a pass.
   */
  public final String noTxnReason;
  /** Transactions whose ops carried keys of their own (increasing), and those keys and values, alternating. */
  private final int[] extraTxn;
  private final Object[][] extras;

  History(Workload workload, int[][] keyInts, long[][] keyLongs, Object[] keyObjs, int nKeys, int[][] valueInts, long[][] valueLongs, Object[] valueObjs, int nValues, int nTxns, byte[] status, int[] session,
          Object[] sessionProcess, long[] invokeOrd, long[] completeOrd, IndexColumn invokeIndex,
          IndexColumn completeIndex, long[] invokeTime, long[] completeTime, int[] mopStart, byte[] mopKind,
          int[] mopKey, int[] mopVal, int[] mopLen, int[] mopTxn, int[] listPool, isocheck.util.PairIntMap writerIndex,
          boolean indexUsable, long opsSeen, long opsSkipped, long nonClientOps, String noTxnReason, int[] extraTxn, Object[][] extras) {
    this.workload = workload;
    this.keyInts = keyInts;
    this.keyLongs = keyLongs;
    this.keyObjs = keyObjs;
    this.nKeys = nKeys;
    this.valueInts = valueInts;
    this.valueLongs = valueLongs;
    this.valueObjs = valueObjs;
    this.nValues = nValues;
    this.nTxns = nTxns;
    this.status = status;
    this.session = session;
    this.sessionProcess = sessionProcess;
    this.invokeOrd = invokeOrd;
    this.completeOrd = completeOrd;
    this.invokeIndex = invokeIndex;
    this.completeIndex = completeIndex;
    this.invokeTime = invokeTime;
    this.completeTime = completeTime;
    this.mopStart = mopStart;
    this.mopKind = mopKind;
    this.mopKey = mopKey;
    this.mopVal = mopVal;
    this.mopLen = mopLen;
    this.mopTxn = mopTxn;
    this.listPool = listPool;
    this.writerIndex = writerIndex;
    this.indexUsable = indexUsable;
    this.opsSeen = opsSeen;
    this.opsSkipped = opsSkipped;
    this.nonClientOps = nonClientOps;
    this.noTxnReason = nTxns == 0 ? noTxnReason : null;
    this.extraTxn = extraTxn;
    this.extras = extras;
  }

  // ------------------------------------------------------------------ transactions

  public int status(int t) { return status[t]; }
  public boolean isOk(int t) { return status[t] == OpType.OK; }
  public int session(int t) { return session[t]; }
  public int sessionCount() { return sessionProcess.length; }
  public Object process(int t) { return sessionProcess[session[t]]; }
  /** Position of the invocation in the history, or -1 when the history had none. */
  public long invokeOrdinal(int t) { return invokeOrd[t]; }
  /** Position of the completion in the history, or -1 when it never completed. */
  public long completeOrdinal(int t) { return completeOrd[t]; }
  public long invokeIndex(int t) { return invokeIndex.get(t, invokeOrd[t]); }
  public long completeIndex(int t) { return completeIndex.get(t, completeOrd[t]); }
  public long invokeTime(int t) { return invokeTime[t]; }
  public long completeTime(int t) { return completeTime[t]; }

  /**
   * The number users see for transaction t, and that names it (T12): the :index of its completion
   * op, or of its invocation when it never completed, as the op maps in results show it; the op's
   * position in the history (0-based, as Jepsen numbers ops) when that op has no :index.
   */
  public long displayIndex(int t) {
    boolean done = completeOrd[t] >= 0;
    long i = done ? completeIndex(t) : invokeIndex(t);
    return i != OpRecord.ABSENT ? i : done ? completeOrd[t] : invokeOrd[t];
  }

  /** "T12": the name explanations use for transaction t. */
  public String name(int t) { return "T" + displayIndex(t); }

  /**
   * The keys transaction t's ops carried beyond :index :time :type :process :f :value (a
   * database's transaction id, say), alternating with their values, in the order the op had them
   * (its invocation's first, a key both carry with the completion's value); an empty array when
   * there are none. Kept only for the transactions that have any.
   */
  public Object[] extras(int t) {
    int i = java.util.Arrays.binarySearch(extraTxn, t);
    return i >= 0 ? extras[i] : NO_EXTRAS;
  }

  private static final Object[] NO_EXTRAS = new Object[0];

  // ------------------------------------------------------------------ micro-ops

  public int mopStart(int t) { return mopStart[t]; }
  public int mopEnd(int t) { return mopStart[t + 1]; }
  public int mopCount() { return mopKind.length; }
  public byte mopKind(int m) { return mopKind[m]; }
  public int mopKey(int m) { return mopKey[m]; }
  /** Value id (appends, writes, register reads; NIL for a nil read) or list offset (list reads). */
  public int mopVal(int m) { return mopVal[m]; }
  /** Length of a list read; -1 for other micro-ops. */
  public int mopLen(int m) { return mopLen[m]; }
  public int mopTxn(int m) { return mopTxn[m]; }

  /** Whether transaction t's micro-ops are all reads (it writes and appends nothing). */
  public boolean readOnly(int t) {
    for (int m = mopStart[t]; m < mopStart[t + 1]; m++) if (mopKind[m] != OpRecord.READ) return false;
    return true;
  }
  public int listElem(int m, int j) { return listPool[mopVal[m] + j]; }
  public int[] listPool() { return listPool; }

  /** The mop that appended (or wrote) value v to key k, or -1 if none did. */
  public int writerMop(int k, int v) { return writerIndex.get(k, v); }

  // ------------------------------------------------------------------ keys and values

  public int keyCount() { return nKeys; }
  public int valueCount() { return nValues; }
  public Object key(int k) {
    if (k < 0 || k >= nKeys) throw new IndexOutOfBoundsException("key " + k + " of " + nKeys);
    Object o = keyObjs == null || k >= keyObjs.length ? null : keyObjs[k];
    if (o != null) return o == NULL_VALUE ? null : o;
    int c = k >>> VALUE_CHUNK_BITS, i = k & ((1 << VALUE_CHUNK_BITS) - 1);
    return keyInts != null ? (long) keyInts[c][i] : keyLongs[c][i];
  }
  public Object value(int v) {
    if (v == NIL) return null;
    Object o = valueObjs == null || v >= valueObjs.length ? null : valueObjs[v];
    return o == null ? (Object) valueLong(v) : o == NULL_VALUE ? null : o;
  }

  /** Whether value v (not {@link #NIL}) is an integer (a long), which {@link #valueLong} gives without boxing it. */
  public boolean valueIsLong(int v) {
    if (v < 0 || v >= nValues) throw new IndexOutOfBoundsException("value " + v + " of " + nValues);
    return valueObjs == null || v >= valueObjs.length || valueObjs[v] == null;
  }

  /** Value v, an integer ({@link #valueIsLong}). */
  public long valueLong(int v) {
    if (v < 0 || v >= nValues) throw new IndexOutOfBoundsException("value " + v + " of " + nValues);
    int c = v >>> VALUE_CHUNK_BITS, i = v & ((1 << VALUE_CHUNK_BITS) - 1);
    return valueInts != null ? valueInts[c][i] : valueLongs[c][i];
  }

  /** Whether value v (not {@link #NIL}) is an integer: a long, or a Long or Integer object. */
  public boolean valueIsInteger(int v) {
    if (valueIsLong(v)) return true;
    Object o = value(v);
    return o instanceof Long || o instanceof Integer;
  }

  /** Value v as a long, when {@link #valueIsInteger}: without boxing a long. */
  public long valueAsLong(int v) { return valueIsLong(v) ? valueLong(v) : ((Number) value(v)).longValue(); }

  /** Stands for a null value among the objects. */
  static final Object NULL_VALUE = HistoryBuilder.nullValue();
  public String keyStr(int k) { return Edn.str(key(k)); }
  public String valueStr(int v) { return Edn.str(value(v)); }

  /** Lists longer than this are shown abbreviated in explanations: {@link #listStr(int, int)}. */
  public static final int LIST_SHOWN = 24;

  /** A list read's elements, rendered: [1 2 3]; a long one abbreviated around its last element. */
  public String listStr(int m) { return listStr(m, mopLen[m] - 1); }

  /**
   * A list read's elements, rendered: [1 2 3]. A list longer than {@link #LIST_SHOWN} shows its
   * first three elements, a window of five either side of position {@code focus} (0-based) and
   * its last two, each gap replaced by the count of what it elides: [1 2 3 …24,992 more… 24996
   * 24997 …]. Explanations focus on the element they talk about (where two reads differ, the
   * element read twice, the aborted one), so a 50,000-element read stays one short line.
   */
  public String listStr(int m, int focus) { return listStr(m, mopLen[m], focus); }

  /**
   * {@link #listStr(int, int)} of the first {@code len} elements of list read m (the state a
   * transaction read before its own appends, say).
   */
  public String listStr(int m, int len, int focus) {
    if (len == 0 && recordedNil(m)) return "nil";
    int off = mopVal[m];
    StringBuilder sb = new StringBuilder("[");
    if (len <= LIST_SHOWN) {
      for (int j = 0; j < len; j++) {
        if (j > 0) sb.append(' ');
        Edn.render(sb, value(listPool[off + j]));
      }
      return sb.append(']').toString();
    }
    int f = Math.max(0, Math.min(len - 1, focus));
    int a = Math.max(0, f - 5), b = Math.min(len - 1, f + 5);
    int next = 0; // the first position not yet rendered or elided
    int[][] ranges = {{0, Math.min(2, len - 1)}, {a, b}, {Math.max(0, len - 2), len - 1}};
    for (int[] r : ranges) {
      int from = Math.max(r[0], next), to = r[1];
      if (from > to) continue;
      if (from > next) gap(sb, from - next);
      for (int j = from; j <= to; j++) {
        if (sb.length() > 1 && sb.charAt(sb.length() - 1) != ' ') sb.append(' ');
        Edn.render(sb, value(listPool[off + j]));
      }
      next = to + 1;
    }
    if (next < len) gap(sb, len - next);
    return sb.append(']').toString();
  }

  private static void gap(StringBuilder sb, int n) {
    if (sb.length() > 1) sb.append(' ');
    sb.append(String.format("…%,d more…", n)).append(' ');
  }

  /**
   * List reads of completed transactions recorded as nil (a read of a key never appended to, as
   * some clients return it): checked as the empty list, shown as nil, as recorded. Null if none.
   */
  java.util.BitSet nilReads;

  /** Whether list read m was recorded as nil (checked as the empty list). */
  public boolean recordedNil(int m) { return nilReads != null && nilReads.get(m); }

  /** The micro-op rendered as EDN: [:append 3 5], [:r 3 [1 2]], [:w 3 5], [:r 3 nil]; a long list read abbreviated. */
  public String mopStr(int m) { return mopStr(m, -1); }

  /** {@link #mopStr(int)}, a long list read abbreviated around position focus (-1: its last element). */
  public String mopStr(int m, int focus) {
    StringBuilder sb = new StringBuilder();
    switch (mopKind[m]) {
      case OpRecord.APPEND: sb.append("[:append "); break;
      case OpRecord.WRITE: sb.append("[:w "); break;
      default: sb.append("[:r ");
    }
    Edn.render(sb, key(mopKey[m]));
    sb.append(' ');
    if (mopKind[m] == OpRecord.READ && workload == Workload.APPEND) {
      // A read the user wrote as nil stays nil (mopLen -1), though the checks read it as [].
      sb.append(status[mopTxn[m]] == OpType.OK && mopLen[m] >= 0 ? listStr(m, focus < 0 ? mopLen[m] - 1 : focus) : "nil");
    } else {
      Edn.render(sb, value(mopVal[m]));
    }
    return sb.append(']').toString();
  }

  /** The transaction's micro-ops rendered: [[:append 3 5] [:r 4 [1 2]]]. */
  public String txnStr(int t) {
    StringBuilder sb = new StringBuilder("[");
    for (int m = mopStart[t]; m < mopStart[t + 1]; m++) {
      if (m > mopStart[t]) sb.append(' ');
      sb.append(mopStr(m));
    }
    return sb.append(']').toString();
  }

  /** Number of transactions with each status: [ok, fail, info]. */
  public int[] statusCounts() {
    int[] c = new int[3];
    for (int t = 0; t < nTxns; t++) c[status[t] - 1]++;
    return c;
  }
}
