package isocheck.verify;

import java.util.List;

/**
 * Checks a start/commit order, the certificate of snapshot isolation, strong-session SI, strong
 * SI and GSI: a sequence in which each transaction appears twice, first for its start, then for
 * its commit. The rules, each checked on the history alone (Cerone et al., CONCUR'15, §4:
 * snapshot isolation as PREFIX, EXT, NOCONFLICT over an execution; the begin/commit form of
 * Adya's start-ordered serialization graph, and of PolySI, PVLDB'23, §2):
 *
 * <ol>
 * <li>Each transaction appears exactly twice or not at all; every transaction that completed
 *     :ok appears, none that failed (:fail) does.
 * <li>Snapshot reads (EXT, INT): every read of an :ok transaction returns the state made by the
 *     transactions committed before its start, with its own writes before the read on top
 *     ({@link Store}).
 * <li>No write conflict (NOCONFLICT, first committer wins): two transactions that write a
 *     common key do not overlap: one commits before the other starts. (Checking each writer
 *     against the key's previous committer suffices: an overlap with an earlier committer is
 *     an overlap with the last one.)
 * <li>Strong-session SI: within each process, a transaction commits before the next starts.
 * <li>Strong SI: a transaction that completed before another was invoked commits before it
 *     starts. GSI (generalized SI, Elnikety et al.): it commits before the other commits (the
 *     other's snapshot may be older).
 * </ol>
 */
final class SnapshotCheck {
  private SnapshotCheck() {}

  /** Checks the events (display indices) for a level; the number of transactions, or Rejected. */
  static int check(Facts f, List<?> events, boolean session, boolean realtime, boolean realtimeToCommit) {
    int[] start = new int[f.n], commit = new int[f.n];
    java.util.Arrays.fill(start, -1);
    java.util.Arrays.fill(commit, -1);
    int[] ev = new int[events.size()];
    int count = 0;
    for (int i = 0; i < ev.length; i++) {
      int t = f.txn(events.get(i));
      ev[i] = t;
      if (start[t] < 0) {
        if (f.failed(t)) throw new Facts.Rejected(f.name(t) + " is in the start/commit order, but it failed (:fail)");
        start[t] = i;
        count++;
      } else if (commit[t] < 0) {
        commit[t] = i;
      } else {
        throw new Facts.Rejected(f.name(t) + " is in the start/commit order more than twice");
      }
    }
    int[] txns = new int[count];
    for (int t = 0, j = 0; t < f.n; t++) {
      if (f.ok(t) && start[t] < 0) throw new Facts.Rejected(f.name(t) + " completed :ok but is not in the start/commit order");
      if (start[t] >= 0 && commit[t] < 0) throw new Facts.Rejected(f.name(t) + " starts in the start/commit order but never commits");
      if (start[t] >= 0) txns[j++] = t;
    }
    if (session) {
      String v = f.sessionViolation(txns, commit, start, "the certificate starts it before the other commits");
      if (v != null) throw new Facts.Rejected(v);
    }
    if (realtime) {
      String v = realtimeToCommit ? f.realtimeViolation(txns, commit, commit, "the certificate commits the later one first")
          : f.realtimeViolation(txns, commit, start, "the certificate starts the later one before the earlier commits");
      if (v != null) throw new Facts.Rejected(v);
    }
    Store s = new Store(f);
    int[] lastCommit = new int[f.h.keyCount()], lastWriter = new int[f.h.keyCount()];
    java.util.Arrays.fill(lastCommit, -1);
    for (int i = 0; i < ev.length; i++) {
      int t = ev[i];
      if (start[t] == i) {
        s.checkReads(t, "committed before its start");
        continue;
      }
      for (int k : s.keysWritten(t)) {
        if (lastCommit[k] > start[t]) {
          throw new Facts.Rejected(f.name(t) + " and " + f.name(lastWriter[k]) + " both write key " + f.key(k) + " and overlap: "
              + f.name(lastWriter[k]) + " commits after " + f.name(t) + " starts and before it commits");
        }
        lastCommit[k] = i;
        lastWriter[k] = t;
      }
      s.apply(t);
    }
    return count;
  }
}
