package isocheck.verify;

import isocheck.history.History;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;

/**
 * Checks a refutation of a weak level (Plume's RC, RA, TCC; Liu et al., OOPSLA'24, Defs 3–6,
 * after Biswas and Enea, OOPSLA'19): among the transactions a counterexample names, the commit
 * order the level needs is cyclic. Every commit order of a level extends session order and
 * reads-from (so (session order ∪ observed)⁺), starts with the initial state, keeps the order of
 * a list's appends that its longest read shows and puts a writer of the key whose append a read
 * does not show after every writer it shows (a list read is its key's first appends in the
 * commit order), and, for each read of key x in t3 from t1 and
 * each other committed writer t2 of x that t3 "sees" by the level's premise (RC: t3 observed t2
 * in an earlier read of another key; RA: t2 precedes t3 in its process or t3 observed it; TCC:
 * t2 precedes t3 causally, over the whole history), puts t2 before t1 (Plume's forced CM
 * edges: impossible when t1 is the initial state). verify re-derives each of these orders among
 * the counterexample's committed transactions from the history alone, with its own code (the
 * reads as {@link CommitOrderCheck} reads them), and looks for a cycle: one means no commit
 * order satisfies the level.
 */
final class WeakCycleCheck {
  private WeakCycleCheck() {}

  /** One external read of an :ok transaction: its mop, key, source (a txn, or -1 for the initial state) and the writers it shows. */
  private static final class Read {
    final int mop, key, src;
    final int[] observed;

    Read(int mop, int key, int src, int[] observed) {
      this.mop = mop;
      this.key = key;
      this.src = src;
      this.observed = observed;
    }
  }

  /** The external reads of t (none unless :ok); reads the level's rules cannot explain are left out. */
  private static List<Read> reads(Facts f, int t) {
    History h = f.h;
    List<Read> rs = new ArrayList<>();
    if (!h.isOk(t)) return rs;
    for (int m = h.mopStart(t); m < h.mopEnd(t); m++) {
      if (!f.isRead(m)) continue;
      int x = h.mopKey(m);
      if (!f.append) {
        boolean own = false;
        for (int p = h.mopStart(t); p < m; p++) own |= f.isWrite(p) && h.mopKey(p) == x;
        if (own) continue;
        int v = h.mopVal(m);
        if (v == History.NIL) {
          rs.add(new Read(m, x, -1, new int[0]));
          continue;
        }
        int w = h.writerMop(x, v);
        if (w < 0 || h.mopTxn(w) == t) continue;
        rs.add(new Read(m, x, h.mopTxn(w), new int[] {h.mopTxn(w)}));
        continue;
      }
      int fl = FactCheck.foreign(f, m);
      if (fl < 0) continue;
      int[] obs = new int[fl];
      boolean ok = true;
      for (int j = 0; j < fl && ok; j++) {
        int w = h.writerMop(x, h.listElem(m, j));
        ok = w >= 0 && h.mopTxn(w) != t;
        if (ok) obs[j] = h.mopTxn(w);
      }
      if (ok) rs.add(new Read(m, x, fl == 0 ? -1 : obs[fl - 1], obs));
    }
    return rs;
  }

  private static boolean observes(Read r, int t) {
    for (int o : r.observed) if (o == t) return true;
    return false;
  }

  private static boolean writes(Facts f, int t, int x) {
    for (int p = f.h.mopStart(t); p < f.h.mopEnd(t); p++) if (f.isWrite(p) && f.h.mopKey(p) == x) return true;
    return false;
  }

  /**
   * Checks that the commit-order facts of level (rc, ra or tcc) among ts close a cycle; the cycle
   * in words, or Unproven.
   */
  static String check(Facts f, CycleCheck.Evidence ev, List<Integer> given, String level) {
    History h = f.h;
    List<Integer> ts = new ArrayList<>();
    for (int t : given) if (ev.committed(t)) ts.add(t);
    int k = ts.size(), nodes = k + 1; // node 0: the initial state
    String[][] why = new String[nodes][nodes];
    HashMap<Integer, Integer> node = new HashMap<>();
    for (int i = 0; i < k; i++) node.put(ts.get(i), i + 1);
    for (int i = 1; i < nodes; i++) why[0][i] = "the initial state precedes every transaction";
    List<List<Read>> reads = new ArrayList<>();
    for (int t : ts) reads.add(reads(f, t));
    for (int i = 0; i < k; i++) {
      int a = ts.get(i);
      for (int j = 0; j < k; j++) {
        int b = ts.get(j);
        if (a == b) continue;
        if (h.session(a) == h.session(b) && f.when(a) < f.when(b)) {
          set(why, i + 1, j + 1, f.name(b) + " follows " + f.name(a) + " in process " + isocheck.history.Edn.str(h.process(a)));
        }
        for (Read r : reads.get(j)) {
          if (observes(r, a)) set(why, i + 1, j + 1, f.name(b) + "'s read of key " + f.key(r.key) + " shows " + f.name(a) + "'s write");
        }
        if (f.append && why[i + 1][j + 1] == null) {
          String o = ev.longestOrder(a, b);
          if (o != null) set(why, i + 1, j + 1, o);
        }
      }
    }
    // List-append: a read's list is the appends of its key's first writers in the commit order,
    // so a writer of the key whose append it does not show comes after every one it shows.
    for (int j = 0; f.append && j < k; j++) {
      int t3 = ts.get(j);
      for (Read r : reads.get(j)) {
        for (int i = 0; i < k; i++) {
          int b = ts.get(i);
          if (b == t3 || observes(r, b) || !writes(f, b, r.key)) continue;
          for (int s : r.observed) {
            Integer from = node.get(s);
            if (from == null) continue;
            set(why, from, i + 1, f.name(t3) + "'s read of key " + f.key(r.key) + " shows " + f.name(s) + "'s append and not "
                + f.name(b) + "'s, which comes later (a list holds its key's first appends in the commit order)");
          }
        }
      }
    }
    // The level's forced orders: t2 before the writer t1 that t3 read from.
    for (int j = 0; j < k; j++) {
      int t3 = ts.get(j);
      boolean[] past = null;
      for (Read r : reads.get(j)) {
        int to = r.src < 0 ? 0 : node.getOrDefault(r.src, -1);
        if (to < 0) continue;
        for (int i = 0; i < k; i++) {
          int t2 = ts.get(i);
          if (t2 == t3 || t2 == r.src || !writes(f, t2, r.key) || why[i + 1][to] != null) continue;
          String premise = null;
          if (level.equals("ra") && h.session(t2) == h.session(t3) && f.when(t2) < f.when(t3)) {
            premise = "follows it in process " + isocheck.history.Edn.str(h.process(t3));
          }
          for (Read o : reads.get(j)) {
            if (premise != null || !observes(o, t2)) continue;
            if (level.equals("ra") || level.equals("tcc")) premise = "observed it";
            else if (o.key != r.key && o.mop < r.mop) premise = "observed it in an earlier read of key " + f.key(o.key);
          }
          if (premise == null && level.equals("tcc")) {
            if (past == null) past = causalPast(f, ev, t3);
            if (past[t2]) premise = "follows it causally";
          }
          if (premise == null) continue;
          set(why, i + 1, to, f.name(t2) + " before " + (r.src < 0 ? "the initial state" : f.name(r.src)) + ": " + f.name(t3)
              + " read key " + f.key(r.key) + " from " + (r.src < 0 ? "the initial state" : f.name(r.src)) + ", " + f.name(t2)
              + " writes it too and " + f.name(t3) + " " + premise);
        }
      }
    }
    int[] cycle = cycle(why);
    if (cycle == null) {
      throw new CycleCheck.Unproven("the history forces no cycle of " + level + "'s commit order among " + names(f, ts));
    }
    StringBuilder b = new StringBuilder("no commit order satisfies " + level + ": ");
    for (int i = 0; i < cycle.length; i++) b.append(i == 0 ? "" : " → ").append(cycle[i] == 0 ? "the initial state" : f.name(ts.get(cycle[i] - 1)));
    b.append(" → ").append(cycle[0] == 0 ? "the initial state" : f.name(ts.get(cycle[0] - 1))).append(" (");
    for (int i = 0; i < cycle.length; i++) {
      b.append(i == 0 ? "" : "; ").append(why[cycle[i]][cycle[(i + 1) % cycle.length]]);
    }
    return b.append(')').toString();
  }

  private static void set(String[][] why, int a, int b, String reason) {
    if (why[a][b] == null) why[a][b] = reason;
  }

  private static String names(Facts f, List<Integer> ts) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < ts.size(); i++) b.append(i == 0 ? "" : ", ").append(f.name(ts.get(i)));
    return ts.isEmpty() ? "no committed transaction" : b.toString();
  }

  /** A shortest cycle of the graph (why[a][b] != null: an edge), as its nodes; null when acyclic. */
  private static int[] cycle(String[][] why) {
    int n = why.length;
    int[] best = null;
    for (int s = 0; s < n; s++) {
      int[] prev = new int[n];
      Arrays.fill(prev, -2);
      ArrayList<Integer> queue = new ArrayList<>();
      queue.add(s);
      prev[s] = -1;
      for (int qi = 0; qi < queue.size(); qi++) {
        int u = queue.get(qi);
        for (int v = 0; v < n; v++) {
          if (why[u][v] == null) continue;
          if (v == s) {
            ArrayList<Integer> path = new ArrayList<>();
            for (int x = u; x != -1; x = prev[x]) path.add(0, x);
            if (best == null || path.size() < best.length) best = path.stream().mapToInt(Integer::intValue).toArray();
            qi = queue.size();
            break;
          }
          if (prev[v] != -2) continue;
          prev[v] = u;
          queue.add(v);
        }
      }
    }
    return best;
  }

  /** The transactions that precede t3 causally: backward over session order and the writers reads show, over the whole history. */
  private static boolean[] causalPast(Facts f, CycleCheck.Evidence ev, int t3) {
    History h = f.h;
    int[] pred = ev.sessionPred();
    boolean[] seen = new boolean[f.n];
    ArrayList<Integer> stack = new ArrayList<>();
    stack.add(t3);
    while (!stack.isEmpty()) {
      int u = stack.remove(stack.size() - 1);
      int p = pred[u];
      if (p >= 0 && !seen[p]) {
        seen[p] = true;
        stack.add(p);
      }
      for (Read r : reads(f, u)) {
        for (int w : r.observed) {
          if (!seen[w]) {
            seen[w] = true;
            stack.add(w);
          }
        }
      }
    }
    return seen;
  }

  /** Each transaction's predecessor in its process (-1 for the first). */
  static int[] sessionPred(Facts f) {
    Integer[] ts = new Integer[f.n];
    for (int t = 0; t < f.n; t++) ts[t] = t;
    Arrays.sort(ts, java.util.Comparator.comparingLong((Integer t) -> f.when(t)).thenComparingInt(t -> t));
    int[] pred = new int[f.n];
    HashMap<Integer, Integer> last = new HashMap<>();
    for (int t : ts) {
      Integer p = last.put(f.h.session(t), t);
      pred[t] = p == null ? -1 : p;
    }
    return pred;
  }
}
