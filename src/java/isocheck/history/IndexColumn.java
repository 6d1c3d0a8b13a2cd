package isocheck.history;

import isocheck.util.LongList;

/**
 * The :index of one of each transaction's ops (its invocation's, or its completion's), kept as a
 * rule while one holds: every :index absent, or every :index the op's position in the history
 * (what Jepsen's histories and the online checker's do). Only a history breaking both keeps a
 * long per transaction, from the first that breaks it (those before follow the rule that held,
 * filled in when frozen). Filled by {@link HistoryBuilder} in transaction order; read-only once
 * its {@link History} is built.
 */
final class IndexColumn {
  /** Whether every index so far was absent; whether each was its op's position (absent where no op). */
  private boolean absent = true, same = true;
  /** Where the explicit indices begin (-1: none), and whether the rule before was "absent". */
  private int from = -1;
  private boolean prefixAbsent;
  /**
   * The indices from {@link #from} on, those the builder has not spilled (it takes them away
   * in chunks: {@link #explicit}, {@link #restore}).
   */
  private LongList explicit;
  private long[] frozen;
  private int n;

  private static long derived(long ord) { return ord >= 0 ? ord : OpRecord.ABSENT; }

  /** Adds the next transaction's index; ord is its op's position (-1: the op is absent). */
  void add(long index, long ord) {
    if (explicit == null) {
      long d = derived(ord);
      boolean wasAbsent = absent;
      if (index != OpRecord.ABSENT) absent = false;
      if (index != d) same = false;
      if (absent || same) {
        n++;
        return;
      }
      explicit = new LongList(1024);
      from = n;
      prefixAbsent = wasAbsent;
    }
    explicit.add(index);
    n++;
  }

  /** The explicit indices not yet taken away (null while the rule holds). */
  LongList explicit() { return explicit; }

  /** Puts back every explicit index, those taken away included (the builder's spill read back). */
  void restore(long[] all, int count) {
    explicit = new LongList(Math.max(1, count));
    for (int i = 0; i < count; i++) explicit.add(all[i]);
  }

  void ensureCapacity(int txns) { if (explicit != null) explicit.ensureCapacity(txns - from); }

  /** Ends the filling, given the ops' positions: what {@link #get} reads from then on. */
  IndexColumn freeze(long[] ords) {
    if (explicit != null) {
      long[] f = new long[n];
      for (int i = 0; i < from; i++) f[i] = prefixAbsent ? OpRecord.ABSENT : derived(ords[i]);
      System.arraycopy(explicit.raw(), 0, f, from, n - from);
      frozen = f;
    }
    explicit = null;
    return this;
  }

  /** Transaction t's index, given its op's position ord (-1: absent). */
  long get(int t, long ord) {
    return frozen != null ? frozen[t] : absent ? OpRecord.ABSENT : derived(ord);
  }
}
