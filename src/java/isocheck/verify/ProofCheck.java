package isocheck.verify;

import isocheck.history.History;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Checks a level's {@code :refutations} proof (doc/reports.md): that every version order of an
 * rw-register history closes a cycle the level forbids. Its own code: the graph of the facts, the
 * orders' edges and the search for cycles are written here again, sharing nothing with the
 * check's proof search.
 *
 * <p>Nodes: the committed transactions (:ok, or not :fail with a write an :ok transaction read)
 * and one per key for its initial version. Facts: t → r when :ok r read a value t wrote (wr);
 * w → r when r read w's last write of a key before writing the key itself (ww); r → s when r read
 * a version (w's last write, or the initial value) that such a read-modify-write s overwrote, and
 * r → every committed writer of a key whose initial value r read (rw; a read-modify-write of the
 * initial value excepted from reaching itself); each process's order and the realtime order at the
 * levels that have them. An order "a's write of key x before b's", both committed writers of x:
 * a → b (ww) and r → b (rw) for each :ok r that read a's last write of x before writing x itself.
 * Assuming the level held, the database's version order would make this graph acyclic (each
 * edge is one of Adya's, or a path of them): so an order whose reverse closes a cycle is the
 * database's (a derivation), and a split whose two orders each close one, possibly after
 * derivations of their own, cannot be resolved: the level is violated.
 *
 * <p>Shapes: serializability and repeatable read (rw-register has no predicates), any cycle;
 * snapshot isolation, a cycle of Viper's begin/commit graph (EuroSys'23, Def. 2): an
 * anti-dependency goes from a begin to a commit, every other step from a commit to a begin
 * (GSI's realtime order: commit to commit), and each transaction's begin precedes its commit.
 */
final class ProofCheck {
  private final Facts f;
  private final History h;
  private final CycleCheck.Evidence ev;
  private final boolean serial, session, realtime, toCommit;
  private final int n;
  /** Base adjacency: per node, {to, kind}; kind 0 enters at the begin, 1 is an anti-dependency (to the commit), 2 GSI's realtime. */
  private final List<List<int[]>> adj = new ArrayList<>();
  /** Per node, the edges of the orders assumed, stacked: {to, kind}. */
  private final List<List<int[]>> assumed = new ArrayList<>();
  private final ArrayList<Integer> stack = new ArrayList<>();
  private int[] rtTxn;
  private long[] rtInvoke;
  int derivations, splits, leaves;

  ProofCheck(Facts f, CycleCheck.Evidence ev, boolean serial, boolean session, boolean realtime, boolean toCommit) {
    this.f = f;
    this.h = f.h;
    this.ev = ev;
    this.serial = serial;
    this.session = session;
    this.realtime = realtime;
    this.toCommit = toCommit;
    this.n = f.n;
    for (int i = 0; i < n + h.keyCount(); i++) {
      adj.add(new ArrayList<>());
      assumed.add(new ArrayList<>());
    }
    facts();
  }

  private boolean[] committed;

  /** The mop of t's last write of x, or -1. */
  private int last(int t, int x) {
    int w = -1;
    for (int p = h.mopStart(t); p < h.mopEnd(t); p++) if (f.isWrite(p) && h.mopKey(p) == x) w = p;
    return w;
  }

  private boolean wroteBefore(int t, int x, int m) {
    for (int p = h.mopStart(t); p < m; p++) if (f.isWrite(p) && h.mopKey(p) == x) return true;
    return false;
  }

  /** For read m of an :ok transaction, before any write of its own to the key: whose last write it read (-1: the initial value, -2: neither). */
  private int version(int m) {
    int x = h.mopKey(m), v = h.mopVal(m);
    if (v == History.NIL) return -1;
    int wm = h.writerMop(x, v);
    if (wm < 0) return -2;
    int w = h.mopTxn(wm);
    return w != h.mopTxn(m) && committed[w] && last(w, x) == wm ? w : -2;
  }

  private void facts() {
    committed = new boolean[n];
    for (int t = 0; t < n; t++) committed[t] = ev.committed(t);
    // Read-modify-writes per (key, version's writer; -1 initial) and readers of each version.
    java.util.HashMap<Long, List<Integer>> rmw = new java.util.HashMap<>();
    java.util.HashMap<Long, List<Integer>> readers = new java.util.HashMap<>();
    for (int r = 0; r < n; r++) {
      if (!h.isOk(r)) continue;
      for (int m = h.mopStart(r); m < h.mopEnd(r); m++) {
        if (!f.isRead(m)) continue;
        int x = h.mopKey(m);
        if (h.mopVal(m) != History.NIL) {
          int wm = h.writerMop(x, h.mopVal(m));
          if (wm >= 0 && h.mopTxn(wm) != r && committed[h.mopTxn(wm)]) adj.get(h.mopTxn(wm)).add(new int[] {r, 0});
        }
        if (wroteBefore(r, x, m)) continue;
        int w = version(m);
        if (w == -2) continue;
        long key = ((long) x << 32) ^ (w & 0xffffffffL);
        readers.computeIfAbsent(key, k -> new ArrayList<>()).add(r);
        if (last(r, x) > m) rmw.computeIfAbsent(key, k -> new ArrayList<>()).add(r);
      }
    }
    this.readersOf = readers;
    for (Map.Entry<Long, List<Integer>> e : readers.entrySet()) {
      int x = (int) (e.getKey() >> 32), w = (int) (long) e.getKey();
      List<Integer> succ = rmw.getOrDefault(e.getKey(), List.of());
      if (w >= 0) for (int s : succ) adj.get(w).add(new int[] {s, 0});
      for (int r : e.getValue()) {
        for (int s : succ) if (s != r) adj.get(r).add(new int[] {s, 1});
        if (w == -1) adj.get(r).add(new int[] {n + x, 1}); // on to the writers that read no initial value
      }
    }
    for (int x = 0; x < h.keyCount(); x++) {
      List<Integer> succ = rmw.getOrDefault(((long) x << 32) ^ 0xffffffffL, List.of());
      for (int t = 0; t < n; t++) if (committed[t] && last(t, x) >= 0 && !succ.contains(t)) adj.get(n + x).add(new int[] {t, -1});
    }
    if (session) {
      Integer[] ts = new Integer[n];
      for (int t = 0; t < n; t++) ts[t] = t;
      Arrays.sort(ts, (a, b) -> h.session(a) != h.session(b) ? Integer.compare(h.session(a), h.session(b))
          : f.when(a) != f.when(b) ? Long.compare(f.when(a), f.when(b)) : Integer.compare(a, b));
      int prev = -1;
      for (int t : ts) {
        if (!committed[t]) continue;
        if (prev >= 0 && h.session(prev) == h.session(t)) adj.get(prev).add(new int[] {t, 0});
        prev = t;
      }
    }
    if (realtime) {
      List<Integer> ts = new ArrayList<>();
      for (int t = 0; t < n; t++) if (committed[t] && h.invokeOrdinal(t) >= 0) ts.add(t);
      ts.sort((a, b) -> Long.compare(h.invokeOrdinal(a), h.invokeOrdinal(b)));
      rtTxn = ts.stream().mapToInt(Integer::intValue).toArray();
      rtInvoke = new long[rtTxn.length];
      for (int i = 0; i < rtTxn.length; i++) rtInvoke[i] = h.invokeOrdinal(rtTxn[i]);
    }
  }

  private java.util.HashMap<Long, List<Integer>> readersOf;

  /** An order of the proof, resolved: {x, a, b}; Unproven when it does not name two committed writers of one key. */
  private int[] order(Object o) {
    if (!(o instanceof Map)) throw new CycleCheck.Unproven("an order of the proof is not a map");
    Map<?, ?> m = (Map<?, ?>) o;
    int a, b;
    try {
      a = f.txn(m.get("before"));
      b = f.txn(m.get("after"));
    } catch (Facts.Rejected e) {
      throw new CycleCheck.Unproven(e.getMessage());
    }
    String key = String.valueOf(m.get("key"));
    for (int p = h.mopStart(a); p < h.mopEnd(a); p++) {
      if (!f.isWrite(p) || !FactCheck.sameKey(f.key(h.mopKey(p)), key)) continue;
      int x = h.mopKey(p);
      if (a == b || last(b, x) < 0) break;
      if (!committed[a] || !committed[b]) {
        throw new CycleCheck.Unproven((committed[a] ? f.name(b) : f.name(a)) + " may not have committed, so its write of key " + f.key(x) + " has no place in the version order");
      }
      return new int[] {x, a, b};
    }
    throw new CycleCheck.Unproven("the proof orders " + f.name(a) + "'s and " + f.name(b) + "'s writes of key " + key + ", which they do not both write");
  }

  private List<Integer> readersOf(int x, int a) {
    return readersOf.getOrDefault(((long) x << 32) ^ (a & 0xffffffffL), List.of());
  }

  private void assume(int[] o) {
    push(o[1], o[2], 0);
    for (int r : readersOf(o[0], o[1])) if (r != o[2]) push(r, o[2], 1);
  }

  private void push(int u, int v, int kind) {
    assumed.get(u).add(new int[] {v, kind});
    stack.add(u);
  }

  private void undo(int size) {
    while (stack.size() > size) {
      List<int[]> l = assumed.get(stack.remove(stack.size() - 1));
      l.remove(l.size() - 1);
    }
  }

  /**
   * Whether order o (a's write before b's) closes a cycle with the facts and the orders assumed.
   * Its edges all enter b: a → b at b's begin, so b's begin must reach a; a reader's → b at b's
   * commit, so b's commit must reach that reader's begin (serializable: b reaches either).
   */
  private boolean closes(int[] o) {
    int x = o[0], a = o[1], b = o[2];
    boolean[] readerOfA = new boolean[n];
    for (int r : readersOf(x, a)) if (r != b) readerOfA[r] = true;
    if (serial) return reach(b, false, a, readerOfA);
    return reach(b, false, a, new boolean[n]) || reach(b, true, -1, readerOfA);
  }

  /** Search from (src, at its commit?) for a (either end) or a marked reader's begin. */
  private boolean reach(int src, boolean atCommit, int a, boolean[] readerBegin) {
    int nodes = n + h.keyCount();
    boolean[][] seen = {new boolean[nodes], new boolean[nodes]};
    java.util.ArrayDeque<int[]> todo = new java.util.ArrayDeque<>();
    int c0 = serial ? 0 : atCommit ? 1 : 0;
    seen[c0][src] = true;
    todo.add(new int[] {src, c0});
    int rtLow = rtTxn == null ? 0 : rtTxn.length;
    while (!todo.isEmpty()) {
      int[] s = todo.poll();
      int u = s[0], c = s[1];
      List<List<int[]>> both = List.of(adj.get(u), assumed.get(u));
      for (List<int[]> es : both) {
        for (int[] e : es) {
          int v = e[0];
          int cv;
          if (serial) cv = 0;
          else if (e[1] == 1) {
            if (c == 1) continue; // an anti-dependency leaves a begin, and this is a commit
            cv = 1;
          } else cv = e[1] == -1 ? c : e[1] == 2 ? 1 : 0;
          if (v == a || v < n && readerBegin[v] && cv == 0) return true;
          if (!seen[cv][v]) {
            seen[cv][v] = true;
            todo.add(new int[] {v, cv});
          }
        }
      }
      if (realtime && u < n && h.isOk(u) && h.completeOrdinal(u) >= 0) {
        long done = h.completeOrdinal(u);
        int cv = !serial && toCommit ? 1 : 0;
        int i = rtLow;
        while (i > 0 && rtInvoke[i - 1] > done) {
          i--;
          int v = rtTxn[i];
          if (v == a || readerBegin[v] && cv == 0) return true;
          if (!seen[cv][v]) {
            seen[cv][v] = true;
            todo.add(new int[] {v, cv});
          }
        }
        rtLow = Math.min(rtLow, i);
      }
    }
    return false;
  }

  /** Checks a proof node: its derivations in turn, then its split's two branches. Unproven when one does not hold. */
  void check(Object node, int depth) {
    if (depth > 64) throw new CycleCheck.Unproven("the proof is more than 64 splits deep");
    if (!(node instanceof Map)) throw new CycleCheck.Unproven("a node of the proof is not a map");
    Map<?, ?> m = (Map<?, ?>) node;
    int mark = stack.size();
    try {
      Object ds = m.get("derive");
      if (ds != null && !(ds instanceof List)) throw new CycleCheck.Unproven("its :derive is not a list");
      if (ds != null) {
        for (Object d : (List<?>) ds) {
          int[] o = order(d);
          if (!closes(new int[] {o[0], o[2], o[1]})) {
            throw new CycleCheck.Unproven("the derivation " + words(o) + " does not hold: the reverse order closes no cycle");
          }
          assume(o);
          derivations++;
        }
      }
      if (m.get("split") == null && m.get("cycle-through") != null) {
        int t;
        try {
          t = f.txn(m.get("cycle-through"));
        } catch (Facts.Rejected e) {
          throw new CycleCheck.Unproven(e.getMessage());
        }
        if (!committed[t]) throw new CycleCheck.Unproven(f.name(t) + " may not have committed");
        boolean[] self = new boolean[n];
        self[t] = true;
        boolean cyc = serial ? reach(t, false, t, new boolean[n]) : reach(t, false, -1, self) || reach(t, true, t, new boolean[n]);
        if (!cyc) throw new CycleCheck.Unproven("no cycle through " + f.name(t) + " of the facts and the orders derived");
        leaves++;
        return;
      }
      int[] s = order(m.get("split"));
      splits++;
      int[][] sides = {s, {s[0], s[2], s[1]}};
      String[] branch = {"then", "else"};
      for (int i = 0; i < 2; i++) {
        Object child = m.get(branch[i]);
        if (child == null) {
          if (!closes(sides[i])) throw new CycleCheck.Unproven("the order " + words(sides[i]) + " closes no cycle");
          leaves++;
        } else {
          int mk = stack.size();
          assume(sides[i]);
          try {
            check(child, depth + 1);
          } finally {
            undo(mk);
          }
        }
      }
    } finally {
      undo(mark);
    }
  }

  private String words(int[] o) {
    return f.name(o[1]) + "'s write of key " + f.key(o[0]) + " before " + f.name(o[2]) + "'s";
  }
}
