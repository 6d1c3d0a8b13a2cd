package isocheck.io;

import isocheck.history.Kw;
import isocheck.history.OpRecord;
import isocheck.history.OpSink;
import isocheck.history.OpType;
import isocheck.util.ByteList;
import isocheck.util.IntList;
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
  /** What {@link #emit} says about where a transaction came from (its {@link OpRecord#origin}). */
  interface Origin {
    String of(int txn);
  }

  private static final byte KEY_OBJ = 1, VAL_OBJ = 2, VAL_NIL = 4;

  private final ArrayList<Object> session = new ArrayList<>();
  private final ByteList status = new ByteList();
  private final ByteList dropped = new ByteList();
  /** A position per transaction (line, byte offset, id), for its reader's messages. */
  private final LongList txnTag = new LongList();

  private final IntList opTxn = new IntList(1024);
  private final ByteList opKind = new ByteList();
  private final ByteList opFlags = new ByteList();
  private final LongList opKey = new LongList(1024), opVal = new LongList(1024), opTag = new LongList(1024);
  private final ArrayList<Object> objs = new ArrayList<>();

  /** After {@link #seal}: the ops of transaction t are order[start[t] .. start[t + 1]). */
  private int[] start, order;

  /** Starts a transaction of {@code session} with status {@link OpType#OK}, FAIL or INFO; returns its number. */
  int txn(Object session, int status, long tag) {
    int t = this.session.size();
    this.session.add(session);
    this.status.add((byte) status);
    dropped.add((byte) 0);
    txnTag.add(tag);
    return t;
  }

  int txnCount() { return session.size(); }
  Object session(int t) { return session.get(t); }
  int status(int t) { return status.get(t); }
  void setStatus(int t, int s) { status.set(t, (byte) s); }
  long txnTag(int t) { return txnTag.get(t); }
  /** Leaves transaction t out of what {@link #emit} hands on. */
  void drop(int t) { dropped.set(t, (byte) 1); }

  /**
   * Adds an op to transaction t: kind {@link OpRecord#READ} or {@link OpRecord#WRITE}; the key is
   * {@code keyObj} when not null, else {@code key}; the value {@code valObj} when not null, else
   * {@code val}, or nil (a read of the initial value) when {@code nil}. Returns the op's number.
   */
  int op(int t, byte kind, long key, Object keyObj, long val, Object valObj, boolean nil, long tag) {
    int i = opKind.size();
    // A Long is kept as a long: one key or value, one representation (renameAbortedDuplicates compares them).
    if (keyObj instanceof Long l) {
      key = l;
      keyObj = null;
    }
    if (valObj instanceof Long l) {
      val = l;
      valObj = null;
    }
    opTxn.add(t);
    opKind.add(kind);
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
    opFlags.add(f);
    opKey.add(key);
    opVal.add(val);
    opTag.add(tag);
    return i;
  }

  int opCount() { return opKind.size(); }
  int opTxn(int i) { return opTxn.get(i); }
  byte kind(int i) { return opKind.get(i); }
  long opTag(int i) { return opTag.get(i); }
  boolean keyIsLong(int i) { return (opFlags.get(i) & KEY_OBJ) == 0; }
  long keyLong(int i) { return opKey.get(i); }
  Object key(int i) { return keyIsLong(i) ? (Object) opKey.get(i) : objs.get((int) opKey.get(i)); }
  boolean isNil(int i) { return (opFlags.get(i) & VAL_NIL) != 0; }
  boolean valueIsLong(int i) { return (opFlags.get(i) & (VAL_OBJ | VAL_NIL)) == 0; }
  long valueLong(int i) { return opVal.get(i); }
  Object value(int i) { return isNil(i) ? null : valueIsLong(i) ? (Object) opVal.get(i) : objs.get((int) opVal.get(i)); }
  /** Makes op i a read of the initial value. */
  void setNil(int i) { opFlags.set(i, (byte) (opFlags.get(i) | VAL_NIL)); }
  /** Replaces op i's value by the long v. */
  void setValue(int i, long v) {
    opFlags.set(i, (byte) (opFlags.get(i) & ~(VAL_OBJ | VAL_NIL)));
    opVal.set(i, v);
  }

  /** Groups the ops by transaction, keeping their order; then {@link #first}/{@link #end}/{@link #at} walk them. */
  void seal() {
    int n = session.size(), m = opKind.size();
    start = new int[n + 1];
    for (int i = 0; i < m; i++) start[opTxn.get(i) + 1]++;
    for (int t = 0; t < n; t++) start[t + 1] += start[t];
    int[] next = java.util.Arrays.copyOf(start, n);
    order = new int[m];
    for (int i = 0; i < m; i++) order[next[opTxn.get(i)]++] = i;
  }

  /** After {@link #seal}: the ops of t are at(first(t)) .. at(end(t) - 1). */
  int first(int t) { return start[t]; }
  int end(int t) { return start[t + 1]; }
  int at(int j) { return order[j]; }

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
    int n = opKind.size();
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
      if (kind(i) != OpRecord.WRITE || status(opTxn(i)) == OpType.FAIL || dropped.get(opTxn(i)) != 0) continue;
      if (keyIsLong(i) && valueIsLong(i)) {
        if (abortedLongs.contains(keyLong(i), valueLong(i))) taken.add(java.util.List.of(key(i), value(i)));
      } else {
        // An object value (a string) may also be a name given below: keep them all.
        taken.add(java.util.List.of(key(i), value(i)));
      }
    }
    int renamed = 0;
    for (int t = 0; t < session.size(); t++) {
      if (status(t) != OpType.FAIL || dropped.get(t) != 0) continue;
      for (int j = first(t); j < end(t); j++) {
        int i = at(j);
        if (kind(i) != OpRecord.WRITE) continue;
        Object v = value(i);
        if (taken.add(java.util.List.of(key(i), v))) continue;
        String name = v + "/aborted";
        for (int k = 2; !taken.add(java.util.List.of(key(i), name)); k++) name = v + "/aborted-" + k;
        opFlags.set(i, (byte) ((opFlags.get(i) & ~VAL_NIL) | VAL_OBJ));
        opVal.set(i, objs.size());
        objs.add(name);
        renamed++;
      }
    }
    return renamed;
  }

  private boolean abortedWrite(int i) {
    return kind(i) == OpRecord.WRITE && status(opTxn(i)) == OpType.FAIL && dropped.get(opTxn(i)) == 0;
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

  /** Hands the transactions not dropped, in order, to {@code sink} as completion ops, then ends it. */
  void emit(OpSink sink, Origin origin) {
    if (start == null) seal();
    OpRecord r = new OpRecord();
    OpRecord.Origin where = t -> origin.of((int) t);
    long ordinal = 0;
    for (int t = 0; t < session.size(); t++) {
      if (dropped.get(t) != 0) continue;
      r.reset(ordinal);
      r.index = ordinal;
      r.type = status.get(t);
      r.typeRaw = r.type == OpType.OK ? Kw.OK : r.type == OpType.FAIL ? Kw.FAIL : Kw.INFO;
      r.process = session.get(t);
      r.hasProcess = true;
      r.f = Kw.TXN;
      r.valueShape = OpRecord.VALUE_TXN;
      r.originFn = where;
      r.originArg = t;
      for (int j = first(t); j < end(t); j++) {
        int i = at(j);
        byte k = kind(i);
        r.beginMop(k, k == OpRecord.READ ? Kw.R : Kw.W);
        if (keyIsLong(i)) r.setKey(keyLong(i));
        else r.setKey(key(i));
        if (isNil(i)) r.setValueNil();
        else if (valueIsLong(i)) r.setValue(valueLong(i));
        else r.setValueObj(value(i));
      }
      sink.op(r);
      ordinal++;
    }
    sink.end();
  }
}
