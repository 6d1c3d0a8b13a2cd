package isocheck.history;

import isocheck.util.LongList;

/**
 * The :index of one of each transaction's ops (its invocation's, or its completion's), kept as a
 * rule while one holds: every :index absent, or every :index the op's position in the history
 * (what Jepsen's histories and the online checker's do). Only a history breaking both keeps a
 * long per transaction. Filled by {@link HistoryBuilder} in transaction order; read-only once
 * its {@link History} is built.
 */
final class IndexColumn {
  /** The positions of the ops this column's indices belong to (-1: the op is absent). */
  private final LongList ords;
  /** Whether every index so far was absent; whether each was its op's position (absent where no op). */
  private boolean absent = true, same = true;
  private LongList explicit;
  private long[] frozen;
  private int n;

  IndexColumn(LongList ords) { this.ords = ords; }

  private static long derived(long ord) { return ord >= 0 ? ord : OpRecord.ABSENT; }

  /** Adds the next transaction's index; its op's position is already in ords. */
  void add(long index) {
    if (explicit == null) {
      long d = derived(ords.get(n));
      boolean wasAbsent = absent;
      if (index != OpRecord.ABSENT) absent = false;
      if (index != d) same = false;
      if (absent || same) {
        n++;
        return;
      }
      explicit = new LongList(Math.max(1024, 2 * n));
      for (int i = 0; i < n; i++) explicit.add(wasAbsent ? OpRecord.ABSENT : derived(ords.get(i)));
    }
    explicit.add(index);
    n++;
  }

  void ensureCapacity(int txns) { if (explicit != null) explicit.ensureCapacity(txns); }

  /** Ends the filling: what {@link #get} reads from then on. */
  IndexColumn freeze() {
    if (explicit != null) frozen = explicit.compact();
    explicit = null;
    return this;
  }

  /** Transaction t's index, given its op's position ord (-1: absent). */
  long get(int t, long ord) {
    return frozen != null ? frozen[t] : absent ? OpRecord.ABSENT : derived(ord);
  }
}
