package isocheck.sim;

/**
 * One key of the simulated store: its committed versions in commit order, each with the commit
 * sequence number of the transaction that installed it. For list-append the versions are the
 * list's elements (the list at commit seq s is the prefix of elements with seq ≤ s); for
 * rw-register they are the values written, one per committing writer, and the value at seq s
 * is the last version with seq ≤ s. Either way a read at any snapshot is a prefix length, and
 * since versions are only ever added at the end, a prefix taken once stays valid.
 *
 * <p>Per version we also keep two facts the bug scenarios need to make an anomaly provable
 * from the history alone: {@link #F_OK} (its writer was reported {@code :ok}) and
 * {@link #F_RMW} (its writer read this key before writing it and saw exactly the previous
 * version, which pins the version order in rw-register histories).
 */
final class KeyState {
  static final byte F_OK = 1, F_RMW = 2;

  final long id;
  /** Pool slot this key occupies, or -1 once retired (or for keys made outside the pool). */
  int slot;
  /** Next value to hand out, and how many were handed out (aborted writes included). */
  long nextValue = 1;
  int writes;

  int len;
  long[] vals = new long[4];
  int[] seqs = new int[4];
  byte[] flags = new byte[4];

  /** READ_COMMITTED's long write lock: the holding transaction, and how many wait for it. */
  Txn lockOwner;
  int waiters;

  KeyState(long id, int slot) {
    this.id = id;
    this.slot = slot;
  }

  /** Commit seq of the last version, 0 when none. */
  int lastSeq() { return len == 0 ? 0 : seqs[len - 1]; }

  /** Number of versions with seq ≤ maxSeq. */
  int prefixLen(int maxSeq) {
    int i = len;
    while (i > 0 && seqs[i - 1] > maxSeq) i--;
    return i;
  }

  void add(long v, int seq, byte f) {
    if (len == vals.length) {
      int c = len * 2;
      vals = java.util.Arrays.copyOf(vals, c);
      seqs = java.util.Arrays.copyOf(seqs, c);
      flags = java.util.Arrays.copyOf(flags, c);
    }
    vals[len] = v;
    seqs[len] = seq;
    flags[len] = f;
    len++;
  }

  boolean has(int i, byte f) { return (flags[i] & f) == f; }
}
