package isocheck.oracle;

import isocheck.oracle.Oracle.Level;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A brute-force reference for the seven serializable and snapshot-isolation levels on rw-register
 * histories ([:w k v], [:r k v], nil = the initial value): the register sibling of {@link Oracle}
 * (Elle's read uncommitted, read committed and repeatable read: {@link AdyaOracle}).
 *
 * <p>Like {@code Oracle} it shares nothing with isocheck's checker: no dependency graphs, no
 * version orders, no cycle search, no pre-checks. It looks for an <em>execution</em> directly:
 *
 * <ul>
 * <li>The committed transactions are the :ok ones, plus any subset of the indeterminate ones
 *     (:info, or invoked and never completed); every subset is tried. :fail transactions never
 *     commit. An :info write that some read returned is therefore committed in any execution
 *     found, because no other write can produce that value.
 * <li>An execution is a sequence of begin (B) and commit (C) events, one of each per committed
 *     transaction, B before C. The initial state holds nil for every key and precedes every
 *     event. The state of key k at a point is the value of the last write to k (a transaction's
 *     last write of k) of the last transaction committed before that point that writes k; nil
 *     when there is none.
 * <li>Each read of an :ok transaction must return its own latest write of the key when it has
 *     written the key earlier in the transaction, and otherwise the state of the key at the
 *     transaction's B. Reads of other transactions are unknown and ignored.
 * <li>Serializable: each C immediately follows its B. Snapshot isolation: two transactions that
 *     write a common key never overlap (neither begins between the other's B and C).
 * <li>Strong-session variants: T before S on one process (history position) gives C_T before
 *     B_S. Strict serializable / strong SI: additionally, T completed :ok before S was invoked
 *     gives C_T before B_S. Both apply between committed transactions only.
 * <li>GSI: realtime order binds commits only: T completed :ok before S was invoked gives C_T
 *     before C_S (the snapshot B may be any earlier one; {@link Oracle} says why nothing else
 *     follows from realtime).
 * </ul>
 *
 * <p>The search is a depth-first enumeration of event sequences with memoised dead states: the
 * begun set, the committed set and, per key, which transaction wrote its current value
 * determine every continuation. Two rules cut it down without losing executions: a
 * transaction's reads and overlaps are checked when it begins (they depend on nothing later),
 * and a transaction that writes nothing commits as soon as it may, right after it begins unless
 * GSI makes it wait for another's commit (its commit changes no state and only enables others). {@code isocheck.register-oracle-test} checks these rules
 * against a plain enumeration.
 *
 * <p>Values are compared as values, so a history that writes one value twice is still judged
 * literally (a read matches whichever write is current).
 */
public final class RegisterOracle {

  public static final int OK = Jepsen.OK, FAIL = Jepsen.FAIL, INFO = Jepsen.INFO;

  /** A read's value: the initial value, and "not known" (reads of non-:ok transactions). */
  public static final int NIL = -1, UNKNOWN = -2;

  /** One transaction of the history. */
  public static final class Txn {
    /** Position of the transaction in the history (order of first appearance). */
    public int id;
    public Object process;
    public int status;
    /** Positions (0-based op ordinals) of invocation and completion; -1 when absent. */
    public long inv = -1, comp = -1;
    /** The :index of the completion, else of the invocation, else the position: for names. */
    public long name = -1;
    /** Micro-ops: kind (true = write), key id, value id (reads: NIL for nil, UNKNOWN if unknown). */
    public final List<Boolean> isWrite = new ArrayList<>();
    public final List<Integer> key = new ArrayList<>();
    public final List<Integer> val = new ArrayList<>();

    long pos() { return inv >= 0 ? inv : comp; }
  }

  public final List<Txn> txns = new ArrayList<>();
  private final HashMap<Object, Integer> keyIds = new HashMap<>();
  private final HashMap<Object, Integer> valIds = new HashMap<>();
  private final List<Object> keyNames = new ArrayList<>();
  private final List<Object> valNames = new ArrayList<>();

  private RegisterOracle() {}

  private static Object norm(Object o) {
    if (o instanceof Integer || o instanceof Short || o instanceof Byte) return ((Number) o).longValue();
    return o;
  }

  private int keyId(Object k) {
    return keyIds.computeIfAbsent(norm(k), x -> { keyNames.add(x); return keyNames.size() - 1; });
  }

  private int valId(Object v) {
    return valIds.computeIfAbsent(norm(v), x -> { valNames.add(x); return valNames.size() - 1; });
  }

  // ------------------------------------------------------------------ parsing Jepsen ops

  /**
   * Reads a Jepsen rw-register history: op maps with :type, :process, :f :txn and :value (a list
   * of [:w k v] / [:r k v] micro-ops). Ops whose :f is not :txn are skipped; invocations pair
   * with the next completion of their process.
   *
   * @throws IllegalArgumentException for a micro-op other than :r or :w, a write of nil, or a
   *     read returning a list (a list-append history)
   */
  public static RegisterOracle fromJepsen(List<?> ops) {
    RegisterOracle o = new RegisterOracle();
    for (Jepsen.Pair p : Jepsen.transactions(ops)) {
      Txn t = new Txn();
      t.id = o.txns.size();
      t.process = p.process;
      t.status = p.status;
      t.inv = p.inv;
      t.comp = p.comp;
      t.name = p.name;
      boolean readsKnown = p.status == OK && p.comp >= 0;
      for (Object m : p.mops()) {
        List<?> mop = (List<?>) m;
        String f = Jepsen.name(mop.get(0));
        Object v = mop.size() > 2 ? mop.get(2) : null;
        t.key.add(o.keyId(mop.get(1)));
        if ("w".equals(f)) {
          if (v == null) throw new IllegalArgumentException("a write of nil: " + mop);
          t.isWrite.add(true);
          t.val.add(o.valId(v));
        } else if ("r".equals(f)) {
          if (v instanceof List<?>) throw new IllegalArgumentException("a list read in a register history: " + mop);
          t.isWrite.add(false);
          t.val.add(!readsKnown ? UNKNOWN : v == null ? NIL : o.valId(v));
        } else throw new IllegalArgumentException("unknown micro-op " + mop);
      }
      o.txns.add(t);
    }
    return o;
  }

  // ------------------------------------------------------------------ the search

  /** The result of one level: whether some execution exists, and one such execution. */
  public static final class Answer {
    public final boolean valid;
    /** The execution found (events in order), or, when none exists, what was searched. */
    public final String witness;
    Answer(boolean valid, String witness) { this.valid = valid; this.witness = witness; }
    @Override public String toString() { return valid + ": " + witness; }
  }

  /** States explored by the last check (all committed sets): for measurements. */
  public long explored;

  public Answer check(Level l) {
    int n = txns.size();
    if (n > 30) throw new IllegalArgumentException("the oracle is for tiny histories");
    int must = 0, maybe = 0;
    for (int t = 0; t < n; t++) {
      int st = txns.get(t).status;
      if (st == OK) must |= 1 << t;
      else if (st == INFO) maybe |= 1 << t;
    }
    explored = 0;
    int sets = 0;
    // Every subset of the indeterminate transactions, largest first.
    int sub = maybe;
    while (true) {
      int committed = must | sub;
      sets++;
      Search s = new Search(l, committed);
      String w = s.run();
      explored += s.dead.size();
      if (w != null) {
        StringBuilder sb = new StringBuilder(w);
        if (sub != maybe) {
          sb.append("; not committed:");
          for (int t = 0; t < n; t++) if ((maybe & ~sub & (1 << t)) != 0) sb.append(' ').append(txnName(t));
        }
        return new Answer(true, sb.toString());
      }
      if (sub == 0) break;
      sub = (sub - 1) & maybe;
    }
    return new Answer(false, "no execution for any of " + sets + " committed set" + (sets == 1 ? "" : "s")
        + " (" + explored + " dead states)");
  }

  public Map<Level, Answer> checkAll() {
    LinkedHashMap<Level, Answer> m = new LinkedHashMap<>();
    for (Level l : Level.values()) m.put(l, check(l));
    return m;
  }

  /** Name of transaction t in witnesses: T and the :index of its completion (else invocation). */
  public String txnName(int t) {
    return "T" + txns.get(t).name;
  }

  /** The number of distinct keys. */
  public int keyCount() { return keyNames.size(); }

  private final class Search {
    final Level level;
    final int committed, n, nk;
    /** Per txn: the committed txns whose commit must precede its begin, and its commit (GSI). */
    final int[] pred, predC;
    /** Per txn: the set of keys it writes (bitmask over key ids). */
    final long[] writes;
    /** Per txn and key: the value of its last write of the key, or -3 when it does not write it. */
    final int[][] last;
    final HashSet<String> dead = new HashSet<>();
    final ArrayList<String> trail = new ArrayList<>();

    Search(Level level, int committed) {
      this.level = level;
      this.committed = committed;
      this.n = txns.size();
      this.nk = keyNames.size();
      if (nk > 64) throw new IllegalArgumentException("too many keys");
      pred = new int[n];
      predC = new int[n];
      writes = new long[n];
      last = new int[n][nk];
      for (int t = 0; t < n; t++) {
        Txn x = txns.get(t);
        java.util.Arrays.fill(last[t], -3);
        for (int i = 0; i < x.key.size(); i++) {
          if (!x.isWrite.get(i)) continue;
          writes[t] |= 1L << x.key.get(i);
          last[t][x.key.get(i)] = x.val.get(i);
        }
      }
      for (int s = 0; s < n; s++) {
        if ((committed & (1 << s)) == 0) continue;
        Txn S = txns.get(s);
        for (int t = 0; t < n; t++) {
          if (t == s || (committed & (1 << t)) == 0) continue;
          Txn T = txns.get(t);
          boolean before = false;
          if ((level.session || level.realtime) && T.process.equals(S.process) && T.pos() < S.pos()) before = true;
          if (level.realtime && T.status == OK && T.comp >= 0 && S.inv >= 0 && T.comp < S.inv) before = true;
          if (before) pred[s] |= 1 << t;
          if (level.commitRealtime && T.status == OK && T.comp >= 0 && S.inv >= 0 && T.comp < S.inv) predC[s] |= 1 << t;
        }
      }
    }

    /** A witness execution, or null when none exists. */
    String run() {
      int[] writer = new int[nk]; // per key: the txn whose write is current, -1 = initial
      java.util.Arrays.fill(writer, -1);
      return dfs(0, 0, writer) ? String.join(" ", trail) : null;
    }

    boolean dfs(int begun, int done, int[] writer) {
      if (done == committed) return true;
      String memo = memoKey(begun, done, writer);
      if (dead.contains(memo)) return false;
      int open = begun & ~done;
      for (int t = 0; t < n; t++) {
        int bit = 1 << t;
        if ((committed & bit) == 0 || (begun & bit) != 0) continue;
        if ((pred[t] & ~done) != 0) continue;
        if (level.serial && open != 0) continue;
        if (!level.serial && writes[t] != 0) {
          boolean clash = false;
          for (int u = 0; u < n; u++) if ((open & (1 << u)) != 0 && (writes[u] & writes[t]) != 0) clash = true;
          if (clash) continue;
        }
        if (!readsMatch(t, writer)) continue;
        if (level.serial || (writes[t] == 0 && (predC[t] & ~done) == 0)) {
          trail.add(txnName(t));
          if (dfs(begun | bit, done | bit, apply(t, writer))) return true;
        } else {
          trail.add("B" + txnName(t).substring(1));
          if (dfs(begun | bit, done, writer)) return true;
        }
        trail.remove(trail.size() - 1);
      }
      for (int t = 0; t < n; t++) {
        int bit = 1 << t;
        if ((open & bit) == 0 || (predC[t] & ~done) != 0) continue;
        trail.add("C" + txnName(t).substring(1));
        if (dfs(begun, done | bit, apply(t, writer))) return true;
        trail.remove(trail.size() - 1);
      }
      dead.add(memo);
      return false;
    }

    /** Whether t's known reads agree with beginning on this state. */
    boolean readsMatch(int t, int[] writer) {
      Txn x = txns.get(t);
      if (x.status != OK) return true;
      int[] own = new int[nk];
      java.util.Arrays.fill(own, -3); // -3: not written by t yet
      for (int i = 0; i < x.key.size(); i++) {
        int k = x.key.get(i), v = x.val.get(i);
        if (x.isWrite.get(i)) { own[k] = v; continue; }
        if (v == UNKNOWN) continue;
        int current = own[k] != -3 ? own[k] : writer[k] < 0 ? NIL : last[writer[k]][k];
        if (current != v) return false;
      }
      return true;
    }

    int[] apply(int t, int[] writer) {
      if (writes[t] == 0) return writer;
      int[] w = writer.clone();
      for (int k = 0; k < nk; k++) if ((writes[t] & (1L << k)) != 0) w[k] = t;
      return w;
    }

    String memoKey(int begun, int done, int[] writer) {
      char[] c = new char[4 + nk];
      c[0] = (char) begun;
      c[1] = (char) (begun >>> 16);
      c[2] = (char) done;
      c[3] = (char) (done >>> 16);
      for (int k = 0; k < nk; k++) c[4 + k] = (char) (writer[k] + 1);
      return new String(c);
    }
  }
}
