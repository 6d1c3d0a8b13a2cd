package isocheck.check.weak;

import isocheck.graph.Digraph;
import isocheck.graph.Edge;
import isocheck.graph.EdgeList;
import isocheck.graph.Scc;
import isocheck.util.IntList;
import java.util.Arrays;

/**
 * The commit-order edges each level's axiom forces, and the level's commit-order graph
 * (Plume §3.1 Defs 4–6, §4.1 BuildCM; seeds-weak §3.7). With t3 reading x from t1 and t2 ≠ t1
 * writing x, t3 ∉ {t1, t2}, the axiom forces t2 →CM t1 when
 * <ul>
 * <li>RC (MonoAtomicView): t3 observed t2 by a read of another key y before the read of x;
 * <li>RA (ReadAtomic): t2 precedes t3 in its session (any earlier transaction, not only the
 *     adjacent one: pitfall 2), or t3 observed t2;
 * <li>TCC (Causal): t2 →CO t3.
 * </ul>
 * "Observed" is reads-from, and for lists also seeing t2's append inside a longer list (its
 * visibility). A level holds iff CO ∪ its forced edges (∪ the list version order) is acyclic;
 * each level builds its own edges (pitfall 1: filtering TCC's edges by label is unsound for RC
 * and RA). With t1 = t⊥ (a read of the initial value) a forced edge is a contradiction at once.
 *
 * <p>Costs, in the spirit of AWDIT (Møldrup &amp; Pavlogiannis, PLDI'25): an edge t2 → t1 is kept
 * only when CO does not already imply it (t2 →CO t1, an O(1) clock test). For TCC, only the last
 * writer of x in each session that t3 knows of matters (the earlier ones precede it in session
 * order): one pass per session walks t3's session in order while a table "last writer of x in
 * session s up to t3's clock entry" advances monotonically, so the work is O(n·k) plus O(k) per
 * read, for n transactions and k sessions. RA's session case uses the same table for t3's own
 * session only. RA's and RC's observed cases pair each read with the writers t3 observed.
 */
final class CommitOrder {
  static final int SO_VIA = -2, CO_VIA = -1;
  /** Table entries kept at once by the session pass (keys × sessions); more keys are done in chunks. */
  static int tableLimit = 1 << 25;

  final WeakHistory wh;
  final CausalOrder co;

  /** Forced edges of one level: t2 (src) → t1 (dst), the read of x (index into the read facts), and how t2 precedes t3. */
  static final class Forced {
    final IntList src = new IntList(), dst = new IntList(), rf = new IntList(), via = new IntList();
    /** Reads of the initial value contradicted at once: read-fact index, t2, via. */
    final IntList botRf = new IntList(), botT2 = new IntList(), botVia = new IntList();

    void add(int t2, int t1, int rfi, int v) {
      if (t1 == WeakHistory.BOT) {
        botRf.add(rfi);
        botT2.add(t2);
        botVia.add(v);
      } else {
        src.add(t2);
        dst.add(t1);
        rf.add(rfi);
        via.add(v);
      }
    }

    int size() { return src.size(); }
  }

  /** Per reader, the writers it observed: [obsStart[t], obsStart[t+1]) of writer, read mop, key, in program order. */
  final int[] obsStart, obsWriter, obsMop, obsKey;

  CommitOrder(WeakHistory wh, CausalOrder co) {
    this.wh = wh;
    this.co = co;
    int n = wh.n;
    obsStart = new int[n + 1];
    IntList ow = new IntList(wh.rfFrom.length + wh.visFrom.length), om = new IntList(wh.rfFrom.length + wh.visFrom.length),
        ok = new IntList(wh.rfFrom.length + wh.visFrom.length);
    for (int t = 0; t < n; t++) {
      obsStart[t] = ow.size();
      int i = wh.rfStart[t], ie = wh.rfStart[t + 1], j = wh.visStart[t], je = wh.visStart[t + 1];
      while (i < ie || j < je) {
        boolean takeRf = j >= je || (i < ie && wh.rfMop[i] <= wh.visMop[j]);
        if (takeRf) {
          if (wh.rfFrom[i] != WeakHistory.BOT) {
            ow.add(wh.rfFrom[i]);
            om.add(wh.rfMop[i]);
            ok.add(wh.rfKey[i]);
          }
          i++;
        } else {
          ow.add(wh.visFrom[j]);
          om.add(wh.visMop[j]);
          ok.add(wh.visKey[j]);
          j++;
        }
      }
    }
    obsStart[n] = ow.size();
    obsWriter = ow.trimmed();
    obsMop = om.trimmed();
    obsKey = ok.trimmed();
  }

  /** Whether the edge t2 → t1 is implied by CO already (so need not be kept). */
  private boolean implied(int t2, int t1) {
    return t1 != WeakHistory.BOT && co.reaches(t2, t1);
  }

  // ------------------------------------------------------------------ observed cases (RC, RA)

  /** MonoAtomicView edges: t2 observed by a read of y ≠ x before the read of x from t1. */
  Forced monoAtomicView() {
    Forced f = new Forced();
    int[] stamp = new int[wh.n];
    Arrays.fill(stamp, -1);
    for (int t3 = 0; t3 < wh.n; t3++) {
      int os = obsStart[t3], oe = obsStart[t3 + 1];
      if (os == oe) continue;
      for (int i = wh.rfStart[t3]; i < wh.rfStart[t3 + 1]; i++) {
        int x = wh.rfKey[i], t1 = wh.rfFrom[i], mx = wh.rfMop[i];
        for (int j = os; j < oe && obsMop[j] < mx; j++) {
          int t2 = obsWriter[j];
          if (t2 == t1 || obsKey[j] == x || stamp[t2] == i) continue;
          if (!wh.writes(t2, x)) continue;
          stamp[t2] = i;
          if (!implied(t2, t1)) f.add(t2, t1, i, obsMop[j]);
        }
      }
    }
    return f;
  }

  /** ReadAtomic's observed case: t2 observed anywhere in t3 (any key). */
  private void observedAnywhere(Forced f) {
    int[] stamp = new int[wh.n];
    Arrays.fill(stamp, -1);
    for (int t3 = 0; t3 < wh.n; t3++) {
      int os = obsStart[t3], oe = obsStart[t3 + 1];
      if (os == oe) continue;
      for (int i = wh.rfStart[t3]; i < wh.rfStart[t3 + 1]; i++) {
        int x = wh.rfKey[i], t1 = wh.rfFrom[i];
        for (int j = os; j < oe; j++) {
          int t2 = obsWriter[j];
          if (t2 == t1 || stamp[t2] == i) continue;
          stamp[t2] = i;
          if (!wh.writes(t2, x)) continue;
          if (!implied(t2, t1)) f.add(t2, t1, i, obsMop[j]);
        }
      }
    }
  }

  /** ReadAtomic edges: session predecessors and observed writers. */
  Forced readAtomic() {
    Forced f = new Forced();
    sessionPass(null, f);
    observedAnywhere(f);
    return f;
  }

  /** Causal edges: every writer of x causally before t3 (the last one per session suffices). */
  Forced causal() {
    Forced f = new Forced();
    sessionPass(f, null);
    return f;
  }

  // ------------------------------------------------------------------ the session pass

  /**
   * For each session s3, walks its transactions in order; lastW[x][s] is the last writer of x
   * among the first c transactions of session s, where c is t3's clock entry for s (for s3:
   * t3's position − 1). Clock entries only grow along a session, so each session's pointer only
   * advances. {@code tcc} gets every session's last writer, {@code so} only s3's.
   */
  private void sessionPass(Forced tcc, Forced so) {
    int k = Math.max(1, wh.k), nKeys = wh.h.keyCount();
    if (nKeys == 0) return;
    int chunk = (int) Math.max(1, Math.min(nKeys, tableLimit / k));
    int[] table = new int[chunk * k];
    Arrays.fill(table, -1);
    int[] ptr = new int[k];
    IntList touched = new IntList();
    for (int x0 = 0; x0 < nKeys; x0 += chunk) {
      int x1 = Math.min(nKeys, x0 + chunk);
      for (int s3 = 0; s3 < wh.k; s3++) {
        int[] txns = wh.sessionTxns[s3];
        Arrays.fill(ptr, 0);
        for (int t3 : txns) {
          if (tcc != null) {
            for (int s = 0; s < wh.k; s++) {
              int c = s == s3 ? wh.pos[t3] - 1 : Math.min(co.clocks.get(t3, s), wh.sessionTxns[s].length);
              if (ptr[s] < c) ptr[s] = absorb(s, ptr[s], c, table, x0, x1, k, touched);
            }
          } else if (ptr[s3] < wh.pos[t3] - 1) {
            ptr[s3] = absorb(s3, ptr[s3], wh.pos[t3] - 1, table, x0, x1, k, touched);
          }
          for (int i = wh.rfStart[t3]; i < wh.rfStart[t3 + 1]; i++) {
            int x = wh.rfKey[i];
            if (x < x0 || x >= x1) continue;
            int t1 = wh.rfFrom[i], base = (x - x0) * k;
            if (tcc != null) {
              for (int s = 0; s < wh.k; s++) {
                int w = table[base + s];
                if (w < 0 || w == t1) continue;
                if (t1 != WeakHistory.BOT && co.clocks.get(t1, s) >= wh.pos[w]) continue; // w →CO t1
                tcc.add(w, t1, i, s == s3 ? SO_VIA : CO_VIA);
              }
            } else {
              int w = table[base + s3];
              if (w < 0 || w == t1) continue;
              if (!implied(w, t1)) so.add(w, t1, i, SO_VIA);
            }
          }
        }
        for (int i = 0; i < touched.size(); i++) table[touched.get(i)] = -1;
        touched.clear();
      }
    }
  }

  /** Records session s's transactions [from, to) as the last writers of their keys in [x0, x1). */
  private int absorb(int s, int from, int to, int[] table, int x0, int x1, int k, IntList touched) {
    int[] txns = wh.sessionTxns[s];
    for (int p = from; p < to; p++) {
      int u = txns[p];
      for (int i = wh.wkStart[u]; i < wh.wkStart[u + 1]; i++) {
        int x = wh.wkKey[i];
        if (x < x0 || x >= x1) continue;
        int slot = (x - x0) * k + s;
        if (table[slot] < 0) touched.add(slot);
        table[slot] = u;
      }
    }
    return to;
  }

  // ------------------------------------------------------------------ the level's graph

  /** CO ∪ list version order ∪ the level's forced edges, masks SO, WR, WW and {@link Edge#CM}. */
  Digraph graph(Forced f) {
    EdgeList es = new EdgeList(co.succ.edgeCount() + wh.wwSrc.size() + f.size());
    Digraph s = co.succ;
    for (int v = 0; v < s.n; v++) for (int e = s.start(v); e < s.end(v); e++) es.add(v, s.target(e), s.mask(e));
    for (int i = 0; i < wh.wwSrc.size(); i++) es.add(wh.wwSrc.get(i), wh.wwDst.get(i), Edge.WW);
    for (int i = 0; i < f.size(); i++) es.add(f.src.get(i), f.dst.get(i), Edge.CM);
    return Digraph.of(wh.n, es);
  }

  static Scc scc(Digraph g) { return Scc.of(g, Edge.SO | Edge.WR | Edge.WW | Edge.CM); }
}
