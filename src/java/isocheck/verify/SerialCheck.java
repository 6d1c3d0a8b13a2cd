package isocheck.verify;

import java.util.List;

/**
 * Checks a serial order, the certificate of serializability, strong-session serializability and
 * strict serializability. The rules, each checked on the history alone:
 *
 * <ol>
 * <li>The order names each transaction at most once; every transaction that completed :ok is in
 *     it, none that failed (:fail) is; an :info transaction may be (it committed) or not.
 * <li>Replayed one after another from the initial state (nil registers, empty lists), every
 *     read of an :ok transaction returns what {@link Store} says: the last write before it, or
 *     its own (Papadimitriou's serial schedules; Adya's PL-3 as a serial history; Cerone et al.,
 *     CONCUR'15, SER: a total commit order in which every transaction sees all before it).
 * <li>Strong-session serializability: within each process, transactions appear in the order the
 *     process invoked them (Daudjee and Salem's strong session serializability).
 * <li>Strict serializability: a transaction that completed before another was invoked comes
 *     first (Herlihy and Wing's realtime order, Papadimitriou's strict serializability).
 * </ol>
 */
final class SerialCheck {
  private SerialCheck() {}

  /** Checks the order (display indices) for a level with session and/or realtime order; the number of transactions, or Rejected. */
  static int check(Facts f, List<?> order, boolean session, boolean realtime) {
    int m = order.size();
    int[] txns = new int[m], pos = new int[f.n];
    java.util.Arrays.fill(pos, -1);
    for (int i = 0; i < m; i++) {
      int t = f.txn(order.get(i));
      if (pos[t] >= 0) throw new Facts.Rejected(f.name(t) + " is in the serial order twice");
      if (f.failed(t)) throw new Facts.Rejected(f.name(t) + " is in the serial order, but it failed (:fail)");
      pos[t] = i;
      txns[i] = t;
    }
    for (int t = 0; t < f.n; t++) {
      if (f.ok(t) && pos[t] < 0) throw new Facts.Rejected(f.name(t) + " completed :ok but is not in the serial order");
    }
    if (session) {
      String v = f.sessionViolation(txns, pos, pos, "the serial order puts it first");
      if (v != null) throw new Facts.Rejected(v);
    }
    if (realtime) {
      String v = f.realtimeViolation(txns, pos, pos, "the serial order puts the later one first");
      if (v != null) throw new Facts.Rejected(v);
    }
    Store s = new Store(f);
    for (int t : txns) {
      s.checkReads(t, "before it");
      s.apply(t);
    }
    return m;
  }
}
