package isocheck.io;

import isocheck.history.Edn;
import isocheck.history.History;
import isocheck.history.HistoryException;
import isocheck.history.OpRecord;
import isocheck.history.OpType;
import java.math.BigInteger;
import java.util.HashMap;

/**
 * What the writers of other tools' formats (Plume/PolySI text, dbcop, Cobra) share: those
 * formats hold read/write-register histories of committed and aborted transactions grouped by
 * session, with integer keys and values, so a history they cannot hold is refused with a
 * message naming the transaction and what the format lacks, never written approximately.
 */
final class PeerWriter {
  static final BigInteger U64_MAX = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);

  final History h;
  final String format;
  /** Session numbers the format writes, per session of h: the processes when they are all integers 0 or more, else 0, 1, 2, ... */
  final long[] sessionNumber;

  PeerWriter(History h, String format) {
    this.h = h;
    this.format = format;
    if (h.workload == History.Workload.APPEND && !appendFree(h)) {
      throw new HistoryException(format + " holds read/write-register histories ([:r k v] and [:w k v]); this one is list-append");
    }
    int n = h.sessionCount();
    sessionNumber = new long[n];
    boolean ints = true;
    Object[] procs = new Object[n];
    for (int t = 0; t < h.nTxns; t++) procs[h.session(t)] = h.process(t);
    for (int s = 0; s < n; s++) {
      if (!(procs[s] instanceof Long l) || l < 0) ints = false;
    }
    for (int s = 0; s < n; s++) sessionNumber[s] = ints ? (Long) procs[s] : s;
  }

  /** A "list-append" history with no append and only empty reads is a register history whose reads all saw the initial value. */
  private static boolean appendFree(History h) {
    for (int m = 0; m < h.mopCount(); m++) {
      if (h.mopKind(m) == OpRecord.APPEND) return false;
      if (h.mopKind(m) == OpRecord.READ && h.mopLen(m) > 0) return false;
    }
    return true;
  }

  /** Whether a read micro-op saw the initial value (nil, or the empty list of an append-free history). */
  boolean readsNil(int m) {
    return h.workload == History.Workload.APPEND ? h.mopLen(m) <= 0 : h.mopVal(m) == History.NIL;
  }

  /** The value a micro-op wrote or read (not nil). */
  Object value(int m) { return h.value(h.mopVal(m)); }

  private static final java.util.regex.Pattern ABORTED = java.util.regex.Pattern.compile("([0-9]{1,20})/aborted(-[0-9]+)?");

  /**
   * The value a micro-op of transaction t wrote, with the renaming of {@link TxnBuffer#renameAbortedDuplicates}
   * undone for an aborted transaction ("5/aborted" is 5 again): formats that keep aborted writes
   * apart hold it as it was.
   */
  Object abortedAsWritten(int t, int m) {
    Object v = value(m);
    if (h.status(t) == OpType.FAIL && v instanceof String str) {
      java.util.regex.Matcher mt = ABORTED.matcher(str);
      if (mt.matches()) {
        BigInteger b = new BigInteger(mt.group(1));
        return b.bitLength() < 64 ? (Object) b.longValue() : b;
      }
    }
    return v;
  }

  HistoryException cannot(int t, String why) {
    return new HistoryException("cannot write " + h.name(t) + " (process " + Edn.str(h.process(t)) + ") as " + format + ": " + why);
  }

  /** Refuses an indeterminate transaction, which these formats cannot say. */
  void determinate(int t) {
    if (h.status(t) == OpType.INFO) {
      throw cannot(t, "it is indeterminate (:info, or its invocation never completed), and " + format
          + " records committed and aborted transactions only");
    }
  }

  /** o as an integer from min up to max (both inclusive), or a refusal saying what {@code what}s are ({@code allowed}: "integers from 0 up"). */
  BigInteger integer(int t, int m, Object o, String what, BigInteger min, BigInteger max, String allowed) {
    BigInteger b = o instanceof Long l ? BigInteger.valueOf(l) : o instanceof BigInteger bi ? bi : null;
    if (b == null || b.compareTo(min) < 0 || b.compareTo(max) > 0) {
      throw cannot(t, "micro-op " + h.mopStr(m) + " has the " + what + " " + Edn.str(o) + ", and " + what + "s in " + format
          + " are " + allowed);
    }
    return b;
  }

  /** o as a long from 0 up, or a refusal. */
  long nonNegative(int t, int m, Object o, String what) {
    return integer(t, m, o, what, BigInteger.ZERO, BigInteger.valueOf(Long.MAX_VALUE), "integers from 0 up").longValue();
  }

  /** The transactions of each session, in history order, sessions in order of first appearance. */
  int[][] bySession() {
    int n = h.sessionCount();
    int[] count = new int[n];
    for (int t = 0; t < h.nTxns; t++) count[h.session(t)]++;
    int[][] out = new int[n][];
    for (int s = 0; s < n; s++) out[s] = new int[count[s]];
    int[] fill = new int[n];
    for (int t = 0; t < h.nTxns; t++) out[h.session(t)][fill[h.session(t)]++] = t;
    return out;
  }

  /** Keys written 0 by some transaction (formats whose reads of 0 would otherwise be the initial value). */
  HashMap<Object, Boolean> keysWrittenZero() {
    HashMap<Object, Boolean> z = new HashMap<>();
    for (int m = 0; m < h.mopCount(); m++) {
      if (h.mopKind(m) == OpRecord.WRITE && Long.valueOf(0).equals(value(m))) z.put(h.key(h.mopKey(m)), true);
    }
    return z;
  }
}
