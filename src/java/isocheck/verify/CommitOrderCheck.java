package isocheck.verify;

import isocheck.history.History;
import java.util.ArrayList;
import java.util.List;

/**
 * Checks a commit order, the certificate of the weak levels read committed (RC), read atomic (RA)
 * and transactional causal consistency (TCC), as Plume defines them (Liu et al., OOPSLA'24,
 * Defs 3–6, after Biswas and Enea, OOPSLA'19, §3): a level holds iff some total order CM of the
 * committed transactions extends session order and reads-from and satisfies the level's axiom.
 * The rules, each checked on the history alone:
 *
 * <ol>
 * <li>The order names each transaction at most once; every transaction that completed :ok is in
 *     it, none that failed (:fail) is; an :info transaction may be (it committed) or not.
 * <li>Session order: within each process, transactions appear in the order the process invoked
 *     them.
 * <li>Every read of an :ok transaction t3 is one the history explains, and it reads from a
 *     transaction t1 that comes before t3 (reads-from is in the order), or from t⊥, the initial
 *     state:
 *     <ul>
 *     <li>rw-register: a read of a key t3 wrote before returns t3's last write there (no axiom
 *         applies to it); any other read returns nil (t⊥) or the last write to the key of a
 *         transaction t1 ≠ t3 in the order (not an intermediate value, not an aborted one).
 *     <li>list-append: the list ends with exactly t3's own appends to the key so far; the rest
 *         is the appends to the key of the first j writers of the key in the order, each
 *         writer's appends whole and in program order (so CM extends the version order the
 *         lists show). t1 is the j-th writer (t⊥ when j = 0); the writers before it are
 *         observed by t3 in this read. Such a read is an external read even after t3's own
 *         appends: it shows which version of others' writes t3 saw.
 *     </ul>
 * <li>The level's axiom: for each external read of key x in t3 from t1 and each t2 ∉ {t1, t3} in
 *     the order that writes x, if
 *     <ul>
 *     <li>RC (monotonic atomic view): t3 observed t2 (read from it, or saw its append in a list)
 *         in a read of another key before this read;
 *     <li>RA: t2 precedes t3 in its process, or t3 observed t2 in any read;
 *     <li>TCC: t2 precedes t3 causally, (session order ∪ observed)⁺;
 *     </ul>
 *     then t2 comes before t1 in the order (impossible when t1 = t⊥).
 * </ol>
 *
 * <p>Each premise puts t2 before t3 in the order (rules 2 and 3), so only the writers of x
 * between t1 and t3 are tried. TCC's premise is a backward search from t3 over session and
 * observation steps that stays after the earliest such writer: a causal path from t2 to t3
 * passes only through transactions between them in the order.
 */
final class CommitOrderCheck {
  private CommitOrderCheck() {}

  static final int BOT = -1;

  /** What was checked: the transactions in the order, and the external reads. */
  static final class Counts {
    int txns, reads;
  }

  /** Checks the order (display indices) for level rc, ra or tcc; the counts, or Rejected. */
  static Counts check(Facts f, List<?> order, String level) {
    History h = f.h;
    int n = f.n;
    int[] txns = new int[order.size()], pos = new int[n];
    java.util.Arrays.fill(pos, -1);
    for (int i = 0; i < txns.length; i++) {
      int t = f.txn(order.get(i));
      if (pos[t] >= 0) throw new Facts.Rejected(f.name(t) + " is in the commit order twice");
      if (f.failed(t)) throw new Facts.Rejected(f.name(t) + " is in the commit order, but it failed (:fail)");
      pos[t] = i;
      txns[i] = t;
    }
    for (int t = 0; t < n; t++) {
      if (f.ok(t) && pos[t] < 0) throw new Facts.Rejected(f.name(t) + " completed :ok but is not in the commit order");
    }
    String v = f.sessionViolation(txns, pos, pos, "the commit order puts it first");
    if (v != null) throw new Facts.Rejected(v);

    // Per key, the writers in the order; list-append: their appends, concatenated.
    int keys = h.keyCount();
    List<List<Integer>> writers = new ArrayList<>(), appends = new ArrayList<>(), appender = new ArrayList<>();
    for (int k = 0; k < keys; k++) {
      writers.add(new ArrayList<>());
      appends.add(f.append ? new ArrayList<>() : null);
      appender.add(f.append ? new ArrayList<>() : null);
    }
    for (int t : txns) {
      for (int m = h.mopStart(t); m < h.mopEnd(t); m++) {
        if (!f.isWrite(m)) continue;
        int k = h.mopKey(m);
        List<Integer> w = writers.get(k);
        if (w.isEmpty() || w.get(w.size() - 1) != t) w.add(t);
        if (f.append) {
          appends.get(k).add(h.mopVal(m));
          appender.get(k).add(t);
        }
      }
    }
    // Rule 3: every read's source, and t3's observations (writer, read mop, key) for rule 4.
    Reads r = new Reads(h);
    for (int t3 : txns) {
      r.begin(t3);
      if (f.ok(t3)) {
        for (int m = h.mopStart(t3); m < h.mopEnd(t3); m++) {
          if (f.isRead(m)) read(f, r, t3, m, pos, appends.get(h.mopKey(m)), appender.get(h.mopKey(m)));
        }
      }
      r.end();
    }
    // Rule 4, reader by reader.
    Counts c = new Counts();
    c.txns = txns.length;
    int[] seen = new int[n];
    java.util.Arrays.fill(seen, -1);
    for (int t3 : txns) {
      int a = r.start[t3], b = r.end[t3];
      int lowest = Integer.MAX_VALUE; // the earliest writer the axiom may be asked about
      for (int i = a; i < b; i++) {
        if (r.key[i] < 0) continue; // a visibility entry, not a read
        c.reads++;
        int t1 = r.writer[i];
        List<Integer> w = writers.get(r.key[i]);
        int j = firstAfter(w, pos, t1 == BOT ? -1 : pos[t1]);
        if (j < w.size() && pos[w.get(j)] < pos[t3]) lowest = Math.min(lowest, pos[w.get(j)]);
      }
      if (lowest == Integer.MAX_VALUE) continue;
      if (level.equals("tcc")) causalPast(f, r, t3, pos, lowest, seen);
      for (int i = a; i < b; i++) {
        if (r.key[i] < 0) continue;
        int x = r.key[i], t1 = r.writer[i];
        List<Integer> w = writers.get(x);
        for (int j = firstAfter(w, pos, t1 == BOT ? -1 : pos[t1]); j < w.size() && pos[w.get(j)] < pos[t3]; j++) {
          int t2 = w.get(j);
          String why = premise(f, r, level, t2, t3, i, seen);
          if (why == null) continue;
          throw new Facts.Rejected(f.name(t3) + " read key " + f.key(x) + " from " + (t1 == BOT ? "the initial state" : f.name(t1))
              + ", but " + f.name(t2) + ", which also writes it and " + why + ", "
              + (t1 == BOT ? "is in the commit order (" + level + " needs it before the initial state)"
                  : "comes after " + f.name(t1) + " in the commit order (" + level + " needs it before)"));
        }
      }
    }
    return c;
  }

  /** The index of the first writer in w (in the order) whose position exceeds p. */
  private static int firstAfter(List<Integer> w, int[] pos, int p) {
    int lo = 0, hi = w.size();
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (pos[w.get(mid)] <= p) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Why t2 must precede the writer t3's read i read from, at this level, or null when nothing forces it. */
  private static String premise(Facts f, Reads r, String level, int t2, int t3, int i, int[] seen) {
    if (level.equals("tcc")) return seen[t2] == t3 ? "precedes it causally" : null;
    if (level.equals("ra") && f.h.session(t2) == f.h.session(t3)) {
      // t2 is before t3 in the order, which extends session order: so before it in its process.
      return "precedes it in process " + isocheck.history.Edn.str(f.h.process(t3));
    }
    for (int j = r.start[t3]; j < r.end[t3]; j++) {
      if (r.writer[j] != t2) continue;
      if (level.equals("ra")) return "was observed by it";
      int y = r.key[j] < 0 ? ~r.key[j] : r.key[j];
      if (y != r.key[i] && r.mop[j] < r.mop[i]) return "was observed by it in an earlier read of key " + f.key(y);
    }
    return null;
  }

  /** Marks seen[u] = t3 for every transaction u at position ≥ lowest that precedes t3 causally. */
  private static void causalPast(Facts f, Reads r, int t3, int[] pos, int lowest, int[] seen) {
    ArrayList<Integer> stack = new ArrayList<>();
    stack.add(t3);
    while (!stack.isEmpty()) {
      int u = stack.remove(stack.size() - 1);
      // u's predecessors: its session predecessor in the order, and the writers it observed.
      int p = r.sessionPred[u];
      if (p >= 0 && pos[p] >= lowest && seen[p] != t3) {
        seen[p] = t3;
        stack.add(p);
      }
      for (int j = r.start[u]; j < r.end[u]; j++) {
        int w = r.writer[j];
        if (w != BOT && pos[w] >= lowest && seen[w] != t3) {
          seen[w] = t3;
          stack.add(w);
        }
      }
    }
  }

  /**
   * Rule 3 for read m of t3: its source and observations, added to r; Rejected when the history
   * and the order do not explain it.
   */
  private static void read(Facts f, Reads r, int t3, int m, int[] pos, List<Integer> seq, List<Integer> seqTxn) {
    History h = f.h;
    int x = h.mopKey(m);
    String what = f.name(t3) + " read key " + f.key(x);
    if (!f.append) {
      int own = -1;
      for (int p = h.mopStart(t3); p < m; p++) if (f.isWrite(p) && h.mopKey(p) == x) own = p;
      int got = h.mopVal(m);
      if (own >= 0) {
        if (got != h.mopVal(own)) {
          throw new Facts.Rejected(what + " as " + shown(f, got) + " after writing " + f.value(h.mopVal(own)) + " there itself");
        }
        return; // an internal read
      }
      if (got == History.NIL) {
        r.add(BOT, m, x);
        return;
      }
      int w = h.writerMop(x, got);
      if (w < 0) throw new Facts.Rejected(what + " as " + f.value(got) + ", which no transaction writes");
      int t1 = h.mopTxn(w);
      if (t1 == t3) throw new Facts.Rejected(what + " as " + f.value(got) + ", which it writes itself only later");
      checkSource(f, t1, t3, pos, what + " as " + f.value(got));
      for (int p = w + 1; p < h.mopEnd(t1); p++) {
        if (f.isWrite(p) && h.mopKey(p) == x) {
          throw new Facts.Rejected(what + " as " + f.value(got) + ", which " + f.name(t1) + " overwrites later (an intermediate value)");
        }
      }
      r.add(t1, m, x);
      return;
    }
    List<Integer> own = new ArrayList<>();
    for (int p = h.mopStart(t3); p < m; p++) if (f.isWrite(p) && h.mopKey(p) == x) own.add(h.mopVal(p));
    int len = Math.max(h.mopLen(m), 0), foreign = len - own.size();
    for (int j = 0; j < own.size(); j++) {
      if (foreign < 0 || h.listElem(m, foreign + j) != own.get(j)) {
        throw new Facts.Rejected(what + " as a list of " + len + " elements that does not end with its own " + own.size()
            + " append(s) to it so far");
      }
    }
    for (int j = 0; j < foreign; j++) {
      int got = h.listElem(m, j);
      if (j < seq.size() && got == seq.get(j)) continue;
      throw new Facts.Rejected(what + " as a list whose element " + j + " is " + f.value(got) + ", but the appends to it in the"
          + " commit order give " + (j < seq.size() ? f.value(seq.get(j)) + " (appended by " + f.name(seqTxn.get(j)) + ")" : "nothing")
          + " there");
    }
    if (foreign > 0 && foreign < seq.size() && seqTxn.get(foreign) == seqTxn.get(foreign - 1)) {
      throw new Facts.Rejected(what + " as a list that shows part of " + f.name(seqTxn.get(foreign - 1)) + "'s appends to it"
          + " (an intermediate value)");
    }
    int t1 = foreign == 0 ? BOT : seqTxn.get(foreign - 1);
    if (t1 == t3) throw new Facts.Rejected(what + " as a list that shows its own appends before it made them");
    if (t1 != BOT) checkSource(f, t1, t3, pos, what + " as a list ending with " + f.value(h.listElem(m, foreign - 1)));
    r.add(t1, m, x);
    for (int j = 0; j < foreign; j++) {
      int w = seqTxn.get(j);
      if (w != t1 && (j == 0 || seqTxn.get(j - 1) != w)) r.observe(w, m, x);
    }
  }

  private static void checkSource(Facts f, int t1, int t3, int[] pos, String what) {
    if (pos[t1] < 0) {
      throw new Facts.Rejected(what + ", written by " + f.name(t1) + ", which " + (f.failed(t1) ? "failed (:fail)" : "is not in the commit order"));
    }
    if (pos[t1] > pos[t3]) throw new Facts.Rejected(what + ", written by " + f.name(t1) + ", which the commit order puts after it");
  }

  private static String shown(Facts f, int v) { return v == History.NIL ? "nil" : f.value(v); }

  /**
   * Per reader, in program order: its external reads (writer read from, mop, key) and the other
   * writers each list read showed (key stored as ~key), at [start[t], end[t]); and each
   * transaction's predecessor in its process among those in the order.
   */
  private static final class Reads {
    final int[] start, end, sessionPred;
    int[] writer = new int[64], mop = new int[64], key = new int[64];
    int size;
    private final java.util.HashMap<Integer, Integer> lastInSession = new java.util.HashMap<>();
    private final History h;
    private int current;

    Reads(History h) {
      this.h = h;
      start = new int[h.nTxns];
      end = new int[h.nTxns];
      sessionPred = new int[h.nTxns];
      java.util.Arrays.fill(sessionPred, -1);
    }

    /** The next transaction in the order. */
    void begin(int t) {
      current = t;
      start[t] = size;
      Integer p = lastInSession.put(h.session(t), t);
      if (p != null) sessionPred[t] = p;
    }

    void end() { end[current] = size; }

    void add(int from, int m, int x) { push(from, m, x); }

    void observe(int from, int m, int x) { push(from, m, ~x); }

    private void push(int from, int m, int k) {
      if (size == writer.length) {
        writer = java.util.Arrays.copyOf(writer, 2 * size);
        mop = java.util.Arrays.copyOf(mop, 2 * size);
        key = java.util.Arrays.copyOf(key, 2 * size);
      }
      writer[size] = from;
      mop[size] = m;
      key[size++] = k;
    }
  }
}
