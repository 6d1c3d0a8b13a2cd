package isocheck.check.lin;

import isocheck.history.Edn;
import isocheck.history.HistoryException;
import isocheck.history.Kw;
import isocheck.history.OpRecord;
import isocheck.history.OpSink;
import isocheck.history.OpType;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;

/**
 * A history of single-key register operations, for linearizability: reads, writes and
 * compare-and-sets (lightweight transactions, MTC §II-F), each on one key, with the positions of
 * its invocation and completion in the history (realtime order comes from them, as for the
 * transactional levels).
 *
 * <p>Two input forms, as {@link OpRecord}s from any reader:
 * <ul>
 * <li>transaction ops ({@code :f :txn}, or the {@code :f} given) of one micro-op each:
 *     {@code [:r k v]}, {@code [:w k v]}, {@code [:cas k old new]};
 * <li>Jepsen's register ops: {@code {:f :read, :value v}}, {@code {:f :write, :value v}},
 *     {@code {:f :cas, :value [old new]}}, on one register, or on many with
 *     {@code jepsen.independent}'s tuples: {@code :value [k v]}, {@code [k [old new]]}.
 * </ul>
 * Other {@code :f} (nemesis ops) are skipped and counted. {@code :ok} took effect; {@code :fail}
 * did not (a compare-and-set whose compare failed, in Jepsen's clients); {@code :info} or no
 * completion may have taken effect at any time after the invocation, its read unknown. A read's
 * value is its completion's; a write's and a compare-and-set's come from the invocation.
 */
public final class CasHistory {
  public static final byte READ = 0, WRITE = 1, CAS = 2;

  /** Ops in completion order (those never completed last). */
  public final int n;
  final byte[] kind, status;
  final int[] key;
  /** Read value, written value, or compare-and-set's old value; and its new value (CAS). */
  final Object[] v1, v2;
  final long[] invokeOrd, completeOrd, invokeIndex, completeIndex;
  final Object[] process;
  final Object[] keys;
  /** Whether the ops were Jepsen register ops (:read/:write/:cas) rather than micro-ops. */
  final boolean registerOps;
  public final long opsSeen, opsSkipped;
  final boolean indexUsable;

  private CasHistory(Builder b) {
    n = b.kind.size();
    kind = b.kind.toArray();
    status = b.status.toArray();
    key = b.key.toArray();
    v1 = b.v1.toArray();
    v2 = b.v2.toArray();
    invokeOrd = b.invOrd.toArray();
    completeOrd = b.compOrd.toArray();
    invokeIndex = b.invIdx.toArray();
    completeIndex = b.compIdx.toArray();
    process = b.proc.toArray();
    keys = b.keys.toArray();
    registerOps = b.sawRegisterOps;
    opsSeen = b.seen;
    opsSkipped = b.skipped;
    indexUsable = b.indexUsable;
  }

  public int keyCount() { return keys.length; }

  /** The number users see for op i: the :index of its completion (else invocation), or its position. */
  long displayIndex(int i) {
    if (indexUsable) return completeOrd[i] >= 0 ? completeIndex[i] : invokeIndex[i];
    return completeOrd[i] >= 0 ? completeOrd[i] : invokeOrd[i];
  }

  String name(int i) { return "op " + displayIndex(i); }

  String keyStr(int k) { return keys[k] == NO_KEY ? "the register" : "key " + Edn.str(keys[k]); }

  /** The op as written: [:cas k 1 2], or {:f :cas, :value [1 2]}. */
  String opStr(int i) {
    Object k = keys[key[i]];
    if (!registerOps) {
      String f = kind[i] == READ ? ":r" : kind[i] == WRITE ? ":w" : ":cas";
      return "[" + f + " " + Edn.str(k) + " " + Edn.str(v1[i]) + (kind[i] == CAS ? " " + Edn.str(v2[i]) : "") + "]";
    }
    String f = kind[i] == READ ? ":read" : kind[i] == WRITE ? ":write" : ":cas";
    Object v = kind[i] == CAS ? java.util.Arrays.asList(v1[i], v2[i]) : v1[i];
    if (k != NO_KEY) v = java.util.Arrays.asList(k, v);
    return "{:f " + f + ", :value " + Edn.str(v) + "}";
  }

  /** Op i as data: {:index :type :process :f :value}. */
  java.util.Map<String, Object> opData(int i) {
    java.util.LinkedHashMap<String, Object> m = new java.util.LinkedHashMap<>();
    m.put("index", displayIndex(i));
    m.put("type", new Kw(completeOrd[i] >= 0 ? OpType.name(status[i]) : "invoke"));
    m.put("process", process[i]);
    Object k = keys[key[i]];
    if (!registerOps) {
      m.put("f", Kw.TXN);
      List<Object> mop = new ArrayList<>(java.util.Arrays.asList(new Kw(kind[i] == READ ? "r" : kind[i] == WRITE ? "w" : "cas"), k, v1[i]));
      if (kind[i] == CAS) mop.add(v2[i]);
      List<Object> value = new ArrayList<>();
      value.add(mop);
      m.put("value", value);
    } else {
      m.put("f", new Kw(kind[i] == READ ? "read" : kind[i] == WRITE ? "write" : "cas"));
      Object v = kind[i] == CAS ? new ArrayList<>(java.util.Arrays.asList(v1[i], v2[i])) : v1[i];
      m.put("value", k == NO_KEY ? v : new ArrayList<>(java.util.Arrays.asList(k, v)));
    }
    return m;
  }

  /** The key of ops on a single register (no jepsen.independent tuples). */
  static final Object NO_KEY = new Object() {
    @Override public String toString() { return "register"; }
  };

  /** Builds a CasHistory from ops in history order. */
  public static final class Builder implements OpSink {
    private final String txnF;
    private final isocheck.util.ByteList kind = new isocheck.util.ByteList(), status = new isocheck.util.ByteList();
    private final isocheck.util.IntList key = new isocheck.util.IntList(1024);
    private final List<Object> v1 = new ArrayList<>(), v2 = new ArrayList<>(), proc = new ArrayList<>();
    private final isocheck.util.LongList invOrd = new isocheck.util.LongList(1024), compOrd = new isocheck.util.LongList(1024),
        invIdx = new isocheck.util.LongList(1024), compIdx = new isocheck.util.LongList(1024);
    private final HashMap<Object, Integer> keyIds = new HashMap<>();
    private final List<Object> keys = new ArrayList<>();
    /** Per process: its pending invocation {kind, key, v1, v2, ordinal, index}, and where it was. */
    private final HashMap<Object, Object[]> pending = new HashMap<>();
    private boolean sawRegisterOps, sawTxnOps, indexUsable = true;
    private long seen, skipped, lastIndex = OpRecord.ABSENT;
    private CasHistory built;

    /** @param txnF the :f of transaction ops (null: txn). */
    public Builder(String txnF) {
      String f = txnF == null ? "txn" : txnF.startsWith(":") ? txnF.substring(1) : txnF;
      this.txnF = f;
    }

    @Override
    public void op(OpRecord r) {
      seen++;
      if (r.index == OpRecord.ABSENT) indexUsable = false;
      else if (lastIndex != OpRecord.ABSENT && r.index <= lastIndex) indexUsable = false;
      else lastIndex = r.index;
      String f = Kw.nameOf(r.f);
      boolean txn = txnF.equals(f);
      boolean reg = "read".equals(f) || "write".equals(f) || "cas".equals(f);
      if (!txn && !reg) {
        skipped++;
        return;
      }
      if (r.type < 0) throw new HistoryException(r.ordinal, r.where() + ": :type is " + Edn.str(r.typeRaw) + "; expected :invoke, :ok, :fail or :info");
      if (!r.hasProcess || r.process == null) throw new HistoryException(r.ordinal, r.where() + ": missing :process");
      if (txn) sawTxnOps = true;
      else sawRegisterOps = true;
      if (sawTxnOps && sawRegisterOps) {
        throw new HistoryException(r.ordinal, r.where() + ": mixes Jepsen register ops (:read, :write, :cas) with "
            + "transaction ops; a linearizability history has one kind");
      }
      Object[] op = txn ? fromMop(r) : fromRegisterOp(r, f);
      Object proc = r.process;
      if (r.type == OpType.INVOKE) {
        Object[] p = pending.get(proc);
        if (p != null) {
          throw new HistoryException(r.ordinal, r.where() + ": process " + Edn.str(proc) + " invoked a new op while its op "
              + p[4] + " had not completed; a Jepsen process runs one op at a time");
        }
        Object[] q = java.util.Arrays.copyOf(op, 7);
        q[4] = r.ordinal;
        q[5] = r.index;
        q[6] = proc;
        pending.put(proc, q);
        return;
      }
      Object[] inv = pending.remove(proc);
      if (inv != null && ((Byte) inv[0]) != (byte) op[0]) {
        throw new HistoryException(r.ordinal, r.where() + ": completes op " + inv[4] + " of process " + Edn.str(proc)
            + ", but it is another kind of operation");
      }
      // A read's value is its completion's; a write's and a compare-and-set's, the invocation's.
      Object[] src = inv == null || (byte) op[0] == READ ? op : inv;
      if (inv != null && (byte) op[0] != READ && !(java.util.Objects.equals(inv[1], op[1]))) {
        throw new HistoryException(r.ordinal, r.where() + ": completes op " + inv[4] + " of process " + Edn.str(proc)
            + " on another key");
      }
      add((byte) src[0], (Integer) src[1], (byte) op[0] == READ && r.type != OpType.OK ? null : src[2], src[3],
          (byte) r.type, proc, inv == null ? -1 : (Long) inv[4], inv == null ? OpRecord.ABSENT : (Long) inv[5], r.ordinal, r.index);
    }

    private void add(byte k, int keyId, Object a, Object b, byte st, Object proc, long io, long ii, long co, long ci) {
      kind.add(k);
      key.add(keyId);
      v1.add(a);
      v2.add(b);
      status.add(st);
      this.proc.add(proc);
      invOrd.add(io);
      invIdx.add(ii);
      compOrd.add(co);
      compIdx.add(ci);
    }

    private int keyId(Object k) {
      Integer id = keyIds.get(k);
      if (id == null) {
        id = keys.size();
        keyIds.put(k, id);
        keys.add(k);
      }
      return id;
    }

    /** {kind, keyId, v1, v2} of a transaction op of one micro-op. */
    private Object[] fromMop(OpRecord r) {
      if (r.valueShape != OpRecord.VALUE_TXN || r.mopCount() != 1) {
        throw new HistoryException(r.ordinal, r.where() + ": " + (r.valueShape == OpRecord.VALUE_TXN ? "has " + r.mopCount()
            + " micro-ops" : ":value is " + (r.valueShape == OpRecord.VALUE_ABSENT ? "missing" : Edn.str(r.valueRaw)))
            + "; a linearizability history has one micro-op per op: [[:r k v]], [[:w k v]] or [[:cas k old new]]");
      }
      byte kd = r.kind(0);
      if (kd == OpRecord.READ) return new Object[] {READ, keyId(r.key(0)), r.value(0), null};
      if (kd == OpRecord.WRITE) return new Object[] {WRITE, keyId(r.key(0)), value(r, r.value(0), "written value"), null};
      if (kd == OpRecord.MALFORMED && r.valueObj(0) instanceof List<?> l && l.size() == 4 && "cas".equals(Kw.nameOf(l.get(0)))) {
        return new Object[] {CAS, keyId(l.get(1)), old(r, l.get(2)),
            value(r, l.get(3), "compare-and-set's new value")};
      }
      Object shown = kd == OpRecord.MALFORMED ? r.valueObj(0) : java.util.Arrays.asList(r.fRaw(0), r.key(0), r.value(0));
      throw new HistoryException(r.ordinal, r.where() + ": micro-op " + Edn.str(shown)
          + " is not [:r k v], [:w k v] or [:cas k old new]");
    }

    /** {kind, keyId, v1, v2} of a Jepsen register op, single or with jepsen.independent's [k v] tuples. */
    private Object[] fromRegisterOp(OpRecord r, String f) {
      Object v = r.valueShape == OpRecord.VALUE_OTHER ? r.valueRaw : r.valueShape == OpRecord.VALUE_ABSENT ? null : txnAsValue(r);
      byte kd = f.equals("read") ? READ : f.equals("write") ? WRITE : CAS;
      Object k = NO_KEY;
      if (kd == CAS) {
        if (v instanceof List<?> l && l.size() == 2 && l.get(1) instanceof List<?> on && on.size() == 2) {
          k = l.get(0);
          v = on;
        }
        if (!(v instanceof List<?> on) || on.size() != 2) {
          throw new HistoryException(r.ordinal, r.where() + ": a :cas op's :value is " + Edn.str(v)
              + "; expected [old new], or [k [old new]] with jepsen.independent");
        }
        return new Object[] {CAS, keyId(k), old(r, on.get(0)), value(r, on.get(1), "compare-and-set's new value")};
      }
      if (v instanceof List<?> l && l.size() == 2) {
        k = l.get(0);
        v = l.get(1);
      }
      if (kd == WRITE) v = value(r, v, "written value");
      return new Object[] {kd, keyId(k), v, null};
    }

    /** A [k v] tuple read as micro-ops by the reader (a vector value): back to a value. */
    private static Object txnAsValue(OpRecord r) {
      List<Object> l = new ArrayList<>();
      for (int i = 0; i < r.mopCount(); i++) l.add(r.kind(i) == OpRecord.MALFORMED ? r.valueObj(i) : java.util.Arrays.asList(r.fRaw(i), r.key(i), r.value(i)));
      return l;
    }

    /** A compare-and-set's old value: a single value, or nil (the initial value). */
    private static Object old(OpRecord r, Object v) { return v == null ? null : value(r, v, "compare-and-set's old value"); }

    private static Object value(OpRecord r, Object v, String what) {
      if (v == null || v instanceof java.util.Collection || v instanceof java.util.Map) {
        throw new HistoryException(r.ordinal, r.where() + ": the " + what + " is " + Edn.str(v)
            + "; expected a single value (an integer, string, keyword, ...)");
      }
      return v;
    }

    @Override
    public void end() { build(); }

    /** Finishes the history: invocations never completed are indeterminate. */
    public CasHistory build() {
      if (built != null) return built;
      List<Object[]> rest = new ArrayList<>(pending.values());
      rest.sort((a, b) -> Long.compare((Long) a[4], (Long) b[4]));
      for (Object[] p : rest) {
        add((byte) p[0], (Integer) p[1], (byte) p[0] == READ ? null : p[2], p[3], (byte) OpType.INFO, p[6], (Long) p[4], (Long) p[5], -1, OpRecord.ABSENT);
      }
      pending.clear();
      built = new CasHistory(this);
      return built;
    }
  }
}
