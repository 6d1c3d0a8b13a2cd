package isocheck.sim;

import isocheck.history.OpRecord;

/**
 * A transaction the simulator shapes for a bug scenario: its micro-ops, and for some reads a
 * fixed result (a prefix of the key's versions, or for register a literal value) that the store
 * returns instead of what its semantics would. Shaped transactions always commit unless the
 * store itself aborts them (a first-committer-wins conflict or a deadlock).
 */
final class Shape {
  static final int NORMAL = -1;

  final byte[] kind;
  final KeyState[] key;
  /** Per micro-op: NORMAL, or the fixed prefix length the read returns. */
  final int[] fix;
  /** Per micro-op: for register, a literal value to return instead (fixLit true). */
  final long[] lit;
  final boolean[] isLit;
  /** The commit seq the fixed reads stand for; the session's floor rises to it. */
  int viewSeq;
  BugScenario scen;
  int role;

  Shape(int n) {
    kind = new byte[n];
    key = new KeyState[n];
    fix = new int[n];
    lit = new long[n];
    isLit = new boolean[n];
    java.util.Arrays.fill(fix, NORMAL);
  }

  boolean fixed(int i) { return fix[i] != NORMAL || isLit[i]; }

  Shape read(int i, KeyState k) { kind[i] = OpRecord.READ; key[i] = k; return this; }

  Shape readFixed(int i, KeyState k, int prefix) { read(i, k); fix[i] = prefix; return this; }

  Shape readLiteral(int i, KeyState k, long v) { read(i, k); isLit[i] = true; lit[i] = v; return this; }

  Shape write(int i, KeyState k, byte kind) { this.kind[i] = kind; key[i] = k; return this; }

  Shape view(int seq) { viewSeq = seq; return this; }
}
