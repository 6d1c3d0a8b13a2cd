package isocheck.oracle;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A brute-force reference for the seven serializable and snapshot-isolation levels isocheck
 * decides on list-append histories (Elle's read uncommitted, read committed and repeatable read:
 * {@link AdyaOracle}).
 *
 * <p>It is deliberately independent of isocheck's checker: no dependency graphs, no version
 * orders, no cycle search. It looks for an <em>execution</em> directly:
 *
 * <ul>
 * <li>The committed transactions are the :ok ones, plus any subset of the indeterminate ones
 *     (:info, or invoked and never completed); every subset is tried. :fail transactions never
 *     commit.
 * <li>An execution is a sequence of begin (B) and commit (C) events, one of each per committed
 *     transaction, B before C. The state of key k at a point is the concatenation, in commit
 *     order, of the appends to k of the transactions committed before that point.
 * <li>Each read of an :ok transaction must return the state of its key at the transaction's B,
 *     followed by the transaction's own earlier appends to that key. Reads of other transactions
 *     are unknown and ignored.
 * <li>Serializable: each C immediately follows its B. Snapshot isolation: two transactions that
 *     append to a common key never overlap.
 * <li>Strong-session variants: T before S on one process (history position) gives C_T before
 *     B_S. Strict serializable / strong SI: additionally, T completed :ok before S was invoked
 *     gives C_T before B_S.
 * <li>GSI (generalized snapshot isolation, Elnikety, Pedone, Zwaenepoel, SRDS'05: read rule D1,
 *     commit rule D2): snapshot
 *     isolation whose snapshot may be older than the transaction's start, any one committed
 *     before it: B is the snapshot, with no bound from realtime, and the commit happens inside
 *     the transaction's invoke/complete interval, so T completed :ok before S was invoked gives
 *     C_T before C_S. That is all realtime can say: events ordered so are placed at real times
 *     inside their intervals (in order, each at the earliest time its interval and the previous
 *     event allow), because a commit order that never puts C_S before C_T when T's interval
 *     precedes S's is a linear extension of the interval order.
 * </ul>
 *
 * <p>The search is a depth-first enumeration of event sequences with memoised dead states (the
 * begun set, the committed set and the state of every key determine the future) and two pruning
 * rules: reads and overlaps are checked when a transaction begins, and a transaction with no
 * appends commits as soon as it may: right after it begins, except under GSI while a transaction
 * that must commit before it has not (its commit changes no state and only enables others).
 */
public final class Oracle {

  /** The seven levels, with the kind (serializable or SI) and the extra orders they carry. */
  public enum Level {
    STRICT_SERIALIZABLE("strict-serializable", true, true, true, false),
    STRONG_SESSION_SERIALIZABLE("strong-session-serializable", true, true, false, false),
    SERIALIZABLE("serializable", true, false, false, false),
    STRONG_SNAPSHOT_ISOLATION("strong-snapshot-isolation", false, true, true, false),
    STRONG_SESSION_SNAPSHOT_ISOLATION("strong-session-snapshot-isolation", false, true, false, false),
    GSI("gsi", false, false, false, true),
    SNAPSHOT_ISOLATION("snapshot-isolation", false, false, false, false);

    public final String id;
    /** serial: B and C adjacent; session, realtime: C before B; commitRealtime: realtime as C before C (GSI). */
    public final boolean serial, session, realtime, commitRealtime;

    Level(String id, boolean serial, boolean session, boolean realtime, boolean commitRealtime) {
      this.id = id;
      this.serial = serial;
      this.session = session;
      this.realtime = realtime;
      this.commitRealtime = commitRealtime;
    }

    public static Level of(String id) {
      for (Level l : values()) if (l.id.equals(id)) return l;
      throw new IllegalArgumentException("unknown level " + id);
    }
  }

  public static final int OK = Jepsen.OK, FAIL = Jepsen.FAIL, INFO = Jepsen.INFO;

  /** One transaction of the history, in the oracle's own representation. */
  public static final class Txn {
    /** Position of the transaction in the history (order of first appearance, for naming). */
    public int id;
    public Object process;
    public int status;
    /** Positions (0-based op ordinals) of invocation and completion; -1 when absent. */
    public long inv = -1, comp = -1;
    /** The :index of the completion, else of the invocation, else the position: for names only. */
    public long name = -1;
    /** Micro-ops: kind (true = append), key id, appended value id or read list (value ids). */
    public final List<Boolean> isAppend = new ArrayList<>();
    public final List<Integer> key = new ArrayList<>();
    public final List<Integer> val = new ArrayList<>();
    public final List<int[]> read = new ArrayList<>();

    long pos() { return inv >= 0 ? inv : comp; }
  }

  public final List<Txn> txns = new ArrayList<>();
  private final HashMap<Object, Integer> keyIds = new HashMap<>();
  private final HashMap<Object, Integer> valIds = new HashMap<>();
  private final List<Object> keyNames = new ArrayList<>();
  private final List<Object> valNames = new ArrayList<>();

  private int keyId(Object k) {
    return keyIds.computeIfAbsent(k, x -> { keyNames.add(x); return keyNames.size() - 1; });
  }

  private int valId(Object v) {
    return valIds.computeIfAbsent(v, x -> { valNames.add(x); return valNames.size() - 1; });
  }

  // ------------------------------------------------------------------ parsing Jepsen ops

  /**
   * Reads a Jepsen history: a list of op maps with :type, :process, :f :txn and :value (a list
   * of [f k v] micro-ops). Ops whose :f is not :txn are skipped. Invocations are paired with the
   * next completion of their process; an invocation never completed is indeterminate, and a
   * completion with no invocation stands alone.
   */
  public static Oracle fromJepsen(List<?> ops) {
    Oracle o = new Oracle();
    for (Jepsen.Pair p : Jepsen.transactions(ops)) {
      Txn t = new Txn();
      t.id = o.txns.size();
      t.process = p.process;
      t.status = p.status;
      t.inv = p.inv;
      t.comp = p.comp;
      t.name = p.name;
      o.fill(t, p.mops(), p.status == OK && p.comp >= 0);
      o.txns.add(t);
    }
    return o;
  }

  /** (Re)fills a txn's micro-ops from an op's :value; reads are kept only when known. */
  private void fill(Txn t, List<?> mops, boolean readsKnown) {
    t.isAppend.clear();
    t.key.clear();
    t.val.clear();
    t.read.clear();
    for (Object m : mops) {
      List<?> mop = (List<?>) m;
      String f = Jepsen.name(mop.get(0));
      int k = keyId(mop.get(1));
      Object v = mop.get(2);
      t.key.add(k);
      if ("append".equals(f)) {
        t.isAppend.add(true);
        t.val.add(valId(v));
        t.read.add(null);
      } else if ("r".equals(f)) {
        t.isAppend.add(false);
        t.val.add(-1);
        if (!readsKnown) t.read.add(null);
        else if (v == null) t.read.add(new int[0]);
        else if (v instanceof List<?> l) {
          int[] a = new int[l.size()];
          for (int j = 0; j < a.length; j++) a[j] = valId(l.get(j));
          t.read.add(a);
        } else t.read.add(new int[] {-2}); // a scalar: matches no list (ids are >= 0)
      } else throw new IllegalArgumentException("unknown micro-op " + mop);
    }
  }

  // ------------------------------------------------------------------ the search

  /** The result of one level: whether some execution exists, and one such execution. */
  public static final class Answer {
    public final boolean valid;
    public final String witness;
    Answer(boolean valid, String witness) { this.valid = valid; this.witness = witness; }
    @Override public String toString() { return valid + (witness == null ? "" : " via " + witness); }
  }

  public Answer check(Level l) {
    int n = txns.size();
    if (n > 30) throw new IllegalArgumentException("the oracle is for tiny histories");
    int nk = keyNames.size();
    int must = 0, maybe = 0;
    for (int t = 0; t < n; t++) {
      int st = txns.get(t).status;
      if (st == OK) must |= 1 << t;
      else if (st == INFO) maybe |= 1 << t;
    }
    // Every subset of the indeterminate transactions, as the committed set's optional part.
    int sub = maybe;
    while (true) {
      int committed = must | sub;
      String w = new Search(l, committed, nk).run();
      if (w != null) return new Answer(true, w);
      if (sub == 0) break;
      sub = (sub - 1) & maybe;
    }
    return new Answer(false, null);
  }

  public Map<Level, Answer> checkAll() {
    LinkedHashMap<Level, Answer> m = new LinkedHashMap<>();
    for (Level l : Level.values()) m.put(l, check(l));
    return m;
  }

  /** Name of transaction t for witnesses: T followed by the :index (else position) of its completion, else invocation. */
  public String txnName(int t) {
    return "T" + txns.get(t).name;
  }

  private final class Search {
    final Level level;
    final int committed, nk, n;
    /** Per txn: the committed txns whose commit must precede its begin, and its commit (GSI). */
    final int[] pred, predC;
    /** Per txn: the set of keys it appends to (bitmask over key ids). */
    final long[] writes;
    final HashSet<String> dead = new HashSet<>();
    final ArrayList<String> trail = new ArrayList<>();

    Search(Level level, int committed, int nk) {
      this.level = level;
      this.committed = committed;
      this.nk = nk;
      this.n = txns.size();
      if (nk > 64) throw new IllegalArgumentException("too many keys");
      pred = new int[n];
      predC = new int[n];
      writes = new long[n];
      for (int t = 0; t < n; t++) {
        Txn x = txns.get(t);
        for (int i = 0; i < x.key.size(); i++) if (x.isAppend.get(i)) writes[t] |= 1L << x.key.get(i);
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
      int[][] state = new int[nk][];
      for (int k = 0; k < nk; k++) state[k] = new int[0];
      return dfs(0, 0, state) ? String.join(" ", trail) : null;
    }

    boolean dfs(int begun, int done, int[][] state) {
      if (done == committed) return true;
      String memo = memoKey(begun, done, state);
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
        if (!readsMatch(t, state)) continue;
        if (level.serial || (writes[t] == 0 && (predC[t] & ~done) == 0)) {
          trail.add(txnName(t));
          if (dfs(begun | bit, done | bit, apply(t, state))) return true;
        } else {
          trail.add("B" + txnName(t).substring(1));
          if (dfs(begun | bit, done, state)) return true;
        }
        trail.remove(trail.size() - 1);
      }
      for (int t = 0; t < n; t++) {
        int bit = 1 << t;
        if ((open & bit) == 0 || (predC[t] & ~done) != 0) continue;
        trail.add("C" + txnName(t).substring(1));
        if (dfs(begun, done | bit, apply(t, state))) return true;
        trail.remove(trail.size() - 1);
      }
      dead.add(memo);
      return false;
    }

    /** Whether t's known reads agree with beginning on this state. */
    boolean readsMatch(int t, int[][] state) {
      Txn x = txns.get(t);
      if (x.status != OK) return true;
      int[] own = new int[nk];
      int[][] ownVals = new int[nk][x.key.size()];
      for (int i = 0; i < x.key.size(); i++) {
        int k = x.key.get(i);
        if (x.isAppend.get(i)) {
          ownVals[k][own[k]++] = x.val.get(i);
          continue;
        }
        int[] r = x.read.get(i);
        int[] s = state[k];
        if (r.length != s.length + own[k]) return false;
        for (int j = 0; j < s.length; j++) if (r[j] != s[j]) return false;
        for (int j = 0; j < own[k]; j++) if (r[s.length + j] != ownVals[k][j]) return false;
      }
      return true;
    }

    int[][] apply(int t, int[][] state) {
      if (writes[t] == 0) return state;
      int[][] s = state.clone();
      Txn x = txns.get(t);
      for (int i = 0; i < x.key.size(); i++) {
        if (!x.isAppend.get(i)) continue;
        int k = x.key.get(i);
        int[] a = Arrays.copyOf(s[k], s[k].length + 1);
        a[a.length - 1] = x.val.get(i);
        s[k] = a;
      }
      return s;
    }

    String memoKey(int begun, int done, int[][] state) {
      StringBuilder sb = new StringBuilder().append(begun).append('/').append(done);
      for (int[] s : state) sb.append('|').append(Arrays.toString(s));
      return sb.toString();
    }
  }
}
