package isocheck.sim;

import isocheck.history.OpRecord;
import java.util.Arrays;

/**
 * The transaction a session has in flight: its micro-ops (fixed at invocation, as Jepsen's
 * invocation lists them), what its reads returned, and the store's bookkeeping (snapshot,
 * locks). One instance per session, reused for each of the session's transactions.
 *
 * <p>A read's result is kept as a prefix length of the key's versions ({@link KeyState}); own
 * earlier appends are added on top when the completion is emitted. Register reads also keep the
 * value (a read after an own write returns that write, with {@code rLen = -1}).
 */
final class Txn {
  final Session session;
  int n;
  byte[] kind = new byte[8];
  KeyState[] key = new KeyState[8];
  long[] val = new long[8];
  int[] rLen = new int[8];
  long[] rVal = new long[8];
  boolean[] rHas = new boolean[8];

  /** Non-null when the simulator shaped this transaction for a bug scenario. */
  Shape shape;
  /** The bug scenario that waits for this transaction, if any. */
  BugScenario scen;
  int role;

  int step;
  int snapshot;
  boolean hasWrites;

  KeyState waitingOn;
  KeyState[] locks = new KeyState[4];
  int nLocks;

  Txn(Session session) { this.session = session; }

  void reset() {
    Arrays.fill(key, 0, n, null);
    n = 0;
    shape = null;
    scen = null;
    role = 0;
    step = 0;
    snapshot = 0;
    hasWrites = false;
    waitingOn = null;
    nLocks = 0;
  }

  void add(byte k, KeyState ks) {
    if (n == kind.length) {
      int c = n * 2;
      kind = Arrays.copyOf(kind, c);
      key = Arrays.copyOf(key, c);
      val = Arrays.copyOf(val, c);
      rLen = Arrays.copyOf(rLen, c);
      rVal = Arrays.copyOf(rVal, c);
      rHas = Arrays.copyOf(rHas, c);
    }
    kind[n] = k;
    key[n] = ks;
    val[n] = 0;
    rLen[n] = 0;
    rHas[n] = false;
    if (k != OpRecord.READ) hasWrites = true;
    n++;
  }

  void addLock(KeyState k) {
    if (nLocks == locks.length) locks = Arrays.copyOf(locks, nLocks * 2);
    locks[nLocks++] = k;
  }

  /** Index of the first micro-op on key k. */
  int firstOn(KeyState k) {
    for (int i = 0; i < n; i++) if (key[i] == k) return i;
    return -1;
  }

  /** Index of the first write (append) on key k, or -1. */
  int firstWriteOn(KeyState k) {
    for (int i = 0; i < n; i++) if (key[i] == k && kind[i] != OpRecord.READ) return i;
    return -1;
  }

  /** Whether micro-op i is this transaction's first write to its key. */
  boolean isFirstWrite(int i) {
    for (int j = 0; j < i; j++) if (key[j] == key[i] && kind[j] != OpRecord.READ) return false;
    return kind[i] != OpRecord.READ;
  }
}
