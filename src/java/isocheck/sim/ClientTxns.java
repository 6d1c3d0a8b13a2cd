package isocheck.sim;

import isocheck.history.Edn;
import isocheck.history.OpRecord;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;

/**
 * Transactions supplied from outside the simulator, as a Jepsen generator hands invocations to
 * client threads: the {@link Engine} takes the next one whenever a free session invokes, instead
 * of drawing its own ({@link SimConfig}'s workload options are then unused).
 *
 * <p>The transactions come in phases, run one after another like Jepsen's {@code gen/phases}: a
 * phase starts once every transaction of the previous one has completed (e.g. the main workload,
 * then the final reads). Each transaction is a list of micro-ops {@code [f k v]}: reads
 * {@code [:r k nil]}, and appends {@code [:append k v]} (list-append) or writes {@code [:w k v]}
 * (rw-register), with {@code f} a keyword (any object whose name is {@code r}, {@code append} or
 * {@code w}), {@code k} a non-negative integer and {@code v} an integer unique per key. Anything
 * else is rejected with an {@link IllegalArgumentException} naming the phase, the transaction and
 * the micro-op.
 *
 * <p>Keys are the client's own. The transactions the bug scenarios add ({@link BugScenario}) read
 * client keys but write only keys of their own, numbered -1, -2, ..., so values stay unique per
 * key whatever the client writes. Unlike the simulator's own workload, this keeps every key it
 * has seen (and every value written, to reject a repeated one): it is meant for test-sized runs.
 */
final class ClientTxns {
  private final List<? extends Iterable<? extends List<?>>> phases;
  private final boolean lists;
  private int phase = -1;
  private Iterator<? extends List<?>> it;
  /** Transactions taken from the current phase. */
  private long taken;
  private final HashMap<Long, KeyState> keys = new HashMap<>();
  private final HashMap<Long, HashSet<Long>> written = new HashMap<>();
  private long ownKeys;

  ClientTxns(List<? extends Iterable<? extends List<?>>> phases, boolean lists) {
    if (phases == null) throw new IllegalArgumentException("phases must not be null");
    for (Object p : phases) if (p == null) throw new IllegalArgumentException("a phase must not be null");
    this.phases = phases;
    this.lists = lists;
  }

  /** Whether the current phase has another transaction. */
  boolean hasNext() { return it != null && it.hasNext(); }

  /** Moves to the next phase; false when there is none. */
  boolean nextPhase() {
    if (phase + 1 >= phases.size()) return false;
    phase++;
    it = phases.get(phase).iterator();
    taken = 0;
    return true;
  }

  int phase() { return phase; }

  boolean lastPhase() { return phase == phases.size() - 1; }

  /** A key no client uses: the scenarios' own, negative ids. */
  KeyState ownKey() { return new KeyState(-(++ownKeys), -1); }

  /** Distinct keys used, the client's and the scenarios'. */
  long keysUsed() { return keys.size() + ownKeys; }

  /** Fills t (just reset) with the next transaction of the current phase, values included. */
  void fill(Txn t) {
    List<?> txn = it.next();
    long no = taken++;
    if (txn == null) throw bad(no, "is nil, not a list of micro-ops");
    int i = 0;
    for (Object o : txn) {
      if (!(o instanceof List<?> mop) || mop.size() != 3) {
        throw bad(no, "micro-op " + i + " " + Edn.str(o) + " is not a triple [f k v]");
      }
      byte kind = OpRecord.kindOf(mop.get(0));
      byte w = lists ? OpRecord.APPEND : OpRecord.WRITE;
      if (kind != OpRecord.READ && kind != w) {
        throw bad(no, "micro-op " + i + " " + Edn.str(mop) + " is neither a read [:r k nil] nor "
            + (lists ? "an append [:append k v]" : "a write [:w k v]")
            + (kind == OpRecord.APPEND || kind == OpRecord.WRITE ? " (one run is one workload)" : ""));
      }
      Long k = integer(mop.get(1));
      if (k == null || k < 0) {
        throw bad(no, "micro-op " + i + " " + Edn.str(mop) + ": the key must be a non-negative integer");
      }
      KeyState ks = keys.computeIfAbsent(k, id -> new KeyState(id, -1));
      Object v = mop.get(2);
      if (kind == OpRecord.READ) {
        if (v != null) throw bad(no, "micro-op " + i + " " + Edn.str(mop) + ": a read to invoke carries nil");
        t.add(kind, ks);
      } else {
        Long val = integer(v);
        if (val == null) throw bad(no, "micro-op " + i + " " + Edn.str(mop) + ": the value must be an integer");
        if (!written.computeIfAbsent(k, x -> new HashSet<>()).add(val)) {
          throw bad(no, "micro-op " + i + " " + Edn.str(mop) + ": value " + val + " was already written to key "
              + k + "; values must be unique per key");
        }
        t.add(kind, ks);
        t.val[t.n - 1] = val;
      }
      i++;
    }
  }

  private IllegalArgumentException bad(long no, String what) {
    return new IllegalArgumentException("phase " + phase + ", transaction " + no + ": " + what);
  }

  private static Long integer(Object o) {
    if (o instanceof Long l) return l;
    if (o instanceof Integer || o instanceof Short || o instanceof Byte) return ((Number) o).longValue();
    return null;
  }
}
