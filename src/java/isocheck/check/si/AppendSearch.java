package isocheck.check.si;

import isocheck.check.Level;
import isocheck.check.Verdict;
import isocheck.graph.Digraph;
import isocheck.graph.Edge;
import isocheck.graph.EdgeList;
import isocheck.history.History;
import isocheck.history.Kw;
import isocheck.order.ListAppendAnalysis;
import isocheck.order.ListAppendExplainer;
import isocheck.util.IntList;
import isocheck.util.PairIntMap;
import java.util.Map;

/**
 * The serializable, snapshot-isolation and GSI levels of a list-append history, where the translator
 * ({@link ListAppendAnalysis}) read the version order off the lists and left open only the order
 * of appends no read observed: each follows every observed version of its key, but among several
 * such appends to one key the order is unknown. The {@link PolygraphSearch} engine decides it on
 * this generalized polygraph (PolySI, PVLDB'23, Def. 9):
 *
 * <ul>
 * <li><b>Known edges</b>: what the translator fixed, its WW, WR and RW edges (including, for each
 *     never-read append u of key x, the WW edge from x's last observed writer to u and the RW edge
 *     from every reader of x's last observed version to u), plus process and realtime order as
 *     the level carries them (GSI: realtime order, laid out commit → commit by {@link LevelGraph}).
 * <li><b>Constraints</b>: one per pair of transactions with never-read appends to a common key,
 *     coalesced across keys (an execution orders the pair the same way on every key they share,
 *     else it has a write cycle, G0, which every level here forbids). A side carries its WW edge
 *     per shared key and nothing else: no read observed either append, so no anti-dependency
 *     depends on their order (a reader of the last observed version anti-depends on both either
 *     way, and that edge is known).
 * </ul>
 *
 * Where no key has two never-read appends the polygraph has no constraint: the translator fixed
 * every order, and the verdict is the known graph's. Under serializability a topological order
 * of an acyclic known graph orders every pair (each side is one forward WW edge), so with the
 * shortcuts on, a serializable level whose known graph the caller found acyclic holds without a
 * search; snapshot isolation and GSI, on the begin/commit graph, need the search (two writers of
 * a key must not overlap). Elle's read committed and read uncommitted never need these orders,
 * nor repeatable read beyond serializability's known graph (isocheck.check.adya.AdyaLevels).
 */
public final class AppendSearch extends PolygraphSearch {
  private final ListAppendAnalysis la;
  private final Digraph g;
  /** Per kind (0 SER, 1 SI) and family: what the caller's cycle search found of the known graph (null: not told). */
  private final Boolean[][] acyclic = new Boolean[2][Level.Family.values().length];
  private int pairs = -1;

  /**
   * @param g the translator's graph over transactions and realtime relays (WW, WR, RW, and the
   *          process and realtime edges of the strongest family to decide)
   */
  public AppendSearch(History h, ListAppendAnalysis la, Digraph g, boolean shortcuts) {
    super(h, shortcuts);
    this.la = la;
    this.g = g;
  }

  /** Tells the search whether the known graph of level l is acyclic, as the caller's own cycle search found. */
  public void knownAcyclic(Level l, boolean isAcyclic) {
    acyclic[l.kind == Level.Kind.SER ? 0 : 1][l.family.ordinal()] = isAcyclic;
  }

  /** The number of constraints: pairs of transactions with never-read appends to a common key. */
  public int constraints() {
    if (pairs < 0) {
      PairIntMap seen = new PairIntMap(64);
      for (int[] u : la.unread) {
        if (u == null || u.length < 2) continue;
        for (int i = 0; i < u.length; i++) {
          for (int j = i + 1; j < u.length; j++) seen.putIfAbsent(Math.min(u[i], u[j]), Math.max(u[i], u[j]), 0);
        }
      }
      pairs = seen.size();
    }
    return pairs;
  }

  @Override
  Outcome early(Level l, Map<String, Object> st) {
    Boolean ac = acyclic[l.kind == Level.Kind.SER ? 0 : 1][l.family.ordinal()];
    if (!shortcuts || ac == null || !ac) return null;
    int nc = constraints();
    st.put("constraints", (long) nc);
    if (nc == 0) {
      st.put("decided-by", new Kw("translator"));
      return witnessed(l, new Outcome(Verdict.Value.TRUE, null, java.util.List.of(), st));
    }
    if (l.kind == Level.Kind.SER) {
      st.put("decided-by", new Kw("topological-order"));
      return witnessed(l, new Outcome(Verdict.Value.TRUE, null, java.util.List.of(), st));
    }
    return null;
  }

  @Override
  Polygraph build(Level.Family f) { return polygraph(h, la, g, f); }

  /**
   * o, with its witness: serializability, a topological order of the known graph (the never-read
   * appends of a key in any order, as no read observed them); snapshot isolation without
   * constraints, a topological order of its begin/commit layout.
   */
  private Outcome witnessed(Level l, Outcome o) {
    if (!witnesses) return o;
    if (l.kind == Level.Kind.SER) {
      int[] order = isocheck.check.Witness.topological(g, Edge.DATA | l.family.bits);
      if (order != null) o.witness = new isocheck.check.Witness(false, order, la.committed);
      return o;
    }
    LevelGraph lg = new LevelGraph(polygraph(l.family), true, l.family == Level.Family.COMMIT_REALTIME);
    int[] order = witnessOrder(lg, new int[0]);
    if (order != null) o.witness = new isocheck.check.Witness(true, order, la.committed);
    return o;
  }

  /**
   * The polygraph of a list-append history for the levels of family f: the known edges of g that
   * f carries, and one constraint per pair of never-read appenders of a common key.
   *
   * @param g the translator's graph (see the constructor); it must carry f's orders
   */
  public static Polygraph polygraph(History h, ListAppendAnalysis la, Digraph g, Level.Family f) {
    // Constraints: number the pairs and count their keys, then fill flat arrays.
    long sideEdges = 0;
    for (int[] u : la.unread) if (u != null && u.length >= 2) sideEdges += (long) u.length * (u.length - 1);
    if (sideEdges > Polygraph.maxSideEdges()) throw new Polygraph.TooLarge(sideEdges);
    PairIntMap pairs = new PairIntMap(64);
    IntList first = new IntList(), second = new IntList(), count = new IntList();
    for (int[] u : la.unread) {
      if (u == null || u.length < 2) continue;
      for (int i = 0; i < u.length; i++) {
        for (int j = i + 1; j < u.length; j++) {
          int a = Math.min(u[i], u[j]), b = Math.max(u[i], u[j]);
          int c = pairs.get(a, b);
          if (c < 0) {
            c = first.size();
            pairs.putIfAbsent(a, b, c);
            first.add(a);
            second.add(b);
            count.add(0);
          }
          count.set(c, count.get(c) + 1);
        }
      }
    }
    int nc = first.size();
    int[] start = new int[2 * nc + 1];
    for (int c = 0; c < nc; c++) {
      start[2 * c + 1] = start[2 * c] + count.get(c);
      start[2 * c + 2] = start[2 * c + 1] + count.get(c);
    }
    int total = start[2 * nc];
    int[] src = new int[total], dst = new int[total], type = new int[total], key = new int[total];
    int[] fill = java.util.Arrays.copyOf(start, 2 * nc);
    for (int k = 0; k < la.unread.length; k++) {
      int[] u = la.unread[k];
      if (u == null || u.length < 2) continue;
      for (int i = 0; i < u.length; i++) {
        for (int j = i + 1; j < u.length; j++) {
          int a = Math.min(u[i], u[j]), b = Math.max(u[i], u[j]), c = pairs.get(a, b);
          int o0 = fill[2 * c]++, o1 = fill[2 * c + 1]++;
          src[o0] = a; dst[o0] = b; type[o0] = Edge.WW; key[o0] = k;
          src[o1] = b; dst[o1] = a; type[o1] = Edge.WW; key[o1] = k;
        }
      }
    }
    // Known edges: the translator's graph, restricted to f's orders, one edge per type. The
    // translator's analysis explains them (no reasons of their own).
    int filter = Edge.DATA | f.bits, size = 0;
    for (int e = 0; e < g.edgeCount(); e++) size += Integer.bitCount(g.mask(e) & filter);
    EdgeList known = new EdgeList(size);
    for (int v = 0; v < g.n; v++) {
      for (int e = g.start(v); e < g.end(v); e++) {
        int m = g.mask(e) & filter;
        while (m != 0) {
          int bit = Integer.lowestOneBit(m);
          m &= m - 1;
          known.add(v, g.target(e), bit);
        }
      }
    }
    return new Polygraph(h, g.n, la.committed, known, new IntList(1), new IntList(1), first.toArray(), second.toArray(), start,
        src, dst, type, key);
  }

  @Override
  PolygraphExplainer explainer(Polygraph p) { return new PolygraphExplainer(p, new ListAppendExplainer(la), null); }

  @Override
  boolean markConsidered() { return true; }

  @Override
  boolean refuteAsPair() { return true; }

  @Override
  String subject() { return "the order of never-read appends"; }

  @Override
  String orderNoun() { return "the never-read appends"; }

  @Override
  String constraintNoun() { return "pairs of never-read appenders of a common key"; }

  @Override
  String pairNote(Level l, int a, int b, java.util.Set<String> keys, String named) {
    String together = " (together, " + named + ": " + isocheck.report.CycleReport.describe(named) + ").";
    String rule = l.kind == Level.Kind.SI
        ? "Snapshot isolation lets one writer of a key commit only before the other begins, and either order closes a cycle" + together
        : "Serializability puts one before the other, and either order closes a cycle" + together;
    return h.name(a) + " and " + h.name(b) + " both appended to " + (keys.size() == 1 ? "key " : "keys ") + String.join(", ", keys)
        + " and both committed, but no read observed either append, so which came first is unknown. " + rule
        + " If " + h.name(a) + "'s append came first:";
  }
}
