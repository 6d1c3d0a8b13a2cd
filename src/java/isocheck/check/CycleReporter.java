package isocheck.check;

import isocheck.graph.BcGraph;
import isocheck.graph.Cycle;
import isocheck.graph.CycleFinder;
import isocheck.graph.Digraph;
import isocheck.graph.Edge;
import isocheck.graph.Scc;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Counterexamples from cyclic components (Adya's DSG cycles, typed as Elle types them): in each
 * cyclic component of a level's graph, smallest first and up to {@link CheckOptions#maxComponents},
 * the shortest cycle of each anomaly type the level forbids (G0, G1c, G-single, G-nonadjacent and,
 * for serializability, G2-item); when the typed searches find none within their budget, some cycle
 * of the component. Cycles are handed to a {@link Sink} over transactions (relays dropped, a
 * begin/commit cycle folded onto its transactions), which names and keeps them: the general
 * checker by Elle's names, the mini-transaction checker by MTC's Table I as well.
 */
public final class CycleReporter {
  /** Receives each cycle found, over transactions, with the family whose orders it was found in. */
  public interface Sink {
    void add(Cycle transactionCycle, Level.Family f);
  }

  private final int n;
  private final CheckOptions o;
  private final Sink sink;
  private final int[] member, local;
  private int stamp;
  /** Whether some component got only its first cycle found, being past the first maxComponents. */
  public boolean truncated;
  /**
   * Whether some typed search stopped at its bound (the time bound, a component's state budget,
   * or more than maxComponents components): the counterexamples kept are the smallest found
   * within it, not necessarily the smallest.
   */
  public boolean bounded;
  /** When the check began (System.nanoTime()): the automatic time bound is a share of the time since. */
  private long checkStart = System.nanoTime();
  /** System.nanoTime() past which no typed search starts or goes on; set by the first {@link #report}. */
  private long deadline;
  private boolean started;
  /** The time the typed searches took, ns. */
  public long searchNs;

  /** For a transaction graph of graphNodes nodes (nTxns transactions, then realtime relays). */
  public CycleReporter(int nTxns, int graphNodes, CheckOptions o, Sink sink) {
    this.n = nTxns;
    this.o = o;
    this.sink = sink;
    this.member = new int[graphNodes];
    this.local = new int[graphNodes];
  }

  /** When the check began (System.nanoTime()), for the automatic time bound ({@link CheckOptions#counterexampleMs}). */
  public CycleReporter checkStarted(long t) {
    checkStart = t;
    return this;
  }

  /** The time bound, fixed when the first typed search begins: the option's, or a share of the check's time so far. */
  private void start() {
    if (started) return;
    started = true;
    long now = System.nanoTime();
    long ms = o.counterexampleMs >= 0 ? o.counterexampleMs
        : Math.max(CheckOptions.MIN_COUNTEREXAMPLE_MS, (long) ((now - checkStart) / 1e6 * CheckOptions.AUTO_COUNTEREXAMPLE_SHARE));
    deadline = ms >= Long.MAX_VALUE / 2_000_000L ? Long.MAX_VALUE : now + ms * 1_000_000L;
  }

  /**
   * What the result says of its counterexamples ({@code :counterexample-search}): "skipped"
   * (types and counts only), "bounded" (the smallest found within the bound) or "smallest".
   */
  public String searchKind() { return o.skipCounterexamples() ? "skipped" : bounded ? "bounded" : "smallest"; }

  /** The edges of a serializability graph of family f: the data dependencies and f's orders. */
  public static int serFilter(Level.Family f) { return Edge.DATA | f.bits; }

  /**
   * Per family PLAIN..top: serializability's components ({@code ser}, acyclic or not) and, when
   * {@code withSi}, snapshot isolation's ({@code si}). Strongest family first: when its graph is
   * acyclic so are the weaker ones, whose components are then not computed (null); an acyclic
   * serializability graph makes the SI one acyclic too. A weaker family's components, and a
   * family's SI ones, are searched only within the cyclic components already found
   * ({@link Scc#of(Digraph, int, int[])}): {@code serOf} and {@code siOf} get those groups (null:
   * the whole graph; for SI, over transactions, to lift to the begin/commit graph).
   */
  public static final class ByFamily {
    public final Scc[] ser = new Scc[3], si = new Scc[3];
    public final boolean[] serAcyclic = new boolean[3], siAcyclic = new boolean[3];

    public ByFamily(int top, boolean withSi, java.util.function.BiFunction<Level.Family, int[], Scc> serOf,
                    java.util.function.BiFunction<Level.Family, int[], Scc> siOf) {
      for (int fi = top; fi >= 0; fi--) {
        Level.Family f = Level.Family.values()[fi];
        if (fi < top && serAcyclic[fi + 1]) serAcyclic[fi] = true;
        else {
          // Within the stronger family's cyclic components: its edges include these.
          ser[fi] = serOf.apply(f, fi < top ? ser[fi + 1].cyclicGroups() : null);
          serAcyclic[fi] = !ser[fi].hasCycle();
        }
        if (!withSi) continue;
        if (serAcyclic[fi] || (fi < top && siAcyclic[fi + 1])) siAcyclic[fi] = true;
        else {
          // Within this family's cyclic serializability components (over transactions; the
          // caller lifts them to begin and commit nodes, BcGraph.lift).
          si[fi] = siOf.apply(f, ser[fi].cyclicGroups());
          siAcyclic[fi] = !si[fi].hasCycle();
        }
      }
    }
  }

  /** The edges of a snapshot-isolation begin/commit graph of family f. */
  public static int siFilter(Level.Family f) { return Edge.WW | Edge.WR | Edge.RW | Edge.INTRA | f.bits; }

  /** The typed searches, in the order of their names' severity; g2 adds G2-item (serializability). */
  static List<CycleFinder.Spec> specs(Level.Family f, boolean g2) {
    int nb = f.newBits(), fb = f.bits;
    boolean crt = f == Level.Family.COMMIT_REALTIME;
    List<CycleFinder.Spec> l = new ArrayList<>();
    l.add(new CycleFinder.Spec(Edge.WW | fb, nb, false, CycleFinder.Rw.NONE, nb != 0 ? nb : Edge.WW, crt));
    l.add(new CycleFinder.Spec(Edge.WW | Edge.WR | fb, nb, true, CycleFinder.Rw.NONE, nb != 0 ? nb : Edge.WR, crt));
    l.add(new CycleFinder.Spec(Edge.DATA | fb, nb, false, CycleFinder.Rw.EXACTLY_ONE, nb != 0 ? nb : Edge.RW, crt));
    l.add(new CycleFinder.Spec(Edge.DATA | fb, nb, false, CycleFinder.Rw.NONADJACENT, Edge.RW, crt));
    if (g2) l.add(new CycleFinder.Spec(Edge.DATA | fb, nb, false, CycleFinder.Rw.AT_LEAST_ONE, Edge.RW, crt));
    return l;
  }

  /**
   * The anomaly name of a cycle found with family f's orders: its shape (Cycle#anomalyType), with
   * GSI's realtime steps (commit → commit) named -realtime-commit.
   */
  public static String typeName(Cycle c, Level.Family f) {
    String t = c.anomalyType();
    if (f != Level.Family.COMMIT_REALTIME || Level.Family.ofType(t) != Level.Family.REALTIME) return t;
    return Level.Family.baseOf(t) + Level.Family.COMMIT_REALTIME.suffix;
  }

  /** A cycle's nodes and labels from its smallest node on: the same for every rotation of it. */
  public static String canonical(Cycle c) {
    int k = c.nodes.length, at = 0;
    for (int i = 1; i < k; i++) if (c.nodes[i] < c.nodes[at]) at = i;
    StringBuilder sb = new StringBuilder();
    for (int j = 0; j < k; j++) {
      int i = (at + j) % k;
      sb.append(c.nodes[i]).append(':').append(c.labels[i]).append(' ');
    }
    return sb.toString();
  }

  /**
   * The typed cycles of each cyclic component of scc, searched in the transaction graph over. bcg
   * is the begin/commit graph scc is of (null: scc is of over), and bcFilter its level's edges,
   * for a component whose typed searches find nothing.
   */
  public void report(Scc scc, Digraph over, Level.Family f, boolean g2, Digraph bcg, int bcFilter) {
    List<int[]> comps = scc.cyclicComponents(bcg == null ? over.n : bcg.n, bcg != null, n, member.length);
    int searched = 0;
    o.progress.stage("counterexamples" + (f == Level.Family.PLAIN ? "" : " with "
        + f.name().toLowerCase(java.util.Locale.ROOT) + " order"), comps.size(), "cyclic components");
    boolean skip = o.skipCounterexamples();
    if (!skip) start();
    for (int[] nodes : comps) {
      // Past maxComponents components, each still gets its first cycle found (so every cyclic
      // component is counted), without the typed searches.
      boolean beyond = searched++ >= o.maxComponents;
      if (beyond) truncated = true;
      o.progress.done(searched - 1);
      stamp++;
      for (int v : nodes) member[v] = stamp;
      // Past the time bound (or counting only), the component's first cycle found, below: linear
      // in its size, where the typed searches may take millions of states each.
      boolean typed = !skip && !beyond && System.nanoTime() <= deadline;
      if (!typed && !skip) bounded = true;
      if (typed && searchComponent(over, nodes, f, g2)) continue;
      int t = firstTxn(nodes);
      if (bcg != null) {
        int cb = scc.comp[BcGraph.begin(t)], cc = scc.comp[BcGraph.commit(t)];
        // (From a node of the component, its members by their component number: linear in the
        // component, not in the graph, as thousands of components past the bound need.)
        int from = scc.cyclic[cb] ? BcGraph.begin(t) : BcGraph.commit(t);
        Cycle cy = CycleFinder.anyCycle(bcg, scc.comp, scc.comp[from], from, bcFilter);
        if (cy != null) sink.add(BcGraph.toTxnCycle(cy, n).withoutRelays(n), f);
      } else {
        Cycle c = CycleFinder.anyCycle(over, member, stamp, t, serFilter(f) & (g2 ? ~0 : ~Edge.RW));
        if (c != null) sink.add(c.withoutRelays(n), f);
      }
    }
  }

  private int firstTxn(int[] nodes) {
    for (int v : nodes) if (v < n) return v;
    return nodes[0];
  }

  private boolean searchComponent(Digraph over, int[] nodes, Level.Family f, boolean g2) {
    long t0 = System.nanoTime();
    CycleFinder cf = new CycleFinder(over, member, stamp, nodes, local, o.searchBudget).deadline(deadline);
    Set<String> found = new HashSet<>();
    for (CycleFinder.Spec spec : specs(f, g2)) {
      Cycle c = cf.exhausted() ? null : cf.find(spec);
      if (c == null) continue;
      // A breadth-first search over (node, state) may close a walk that repeats a node: report
      // its simple cycles instead, each under its own name.
      for (Cycle sc : c.withoutRelays(n).simpleCycles()) {
        if (found.add(typeName(sc, f))) sink.add(sc, f);
      }
    }
    if (cf.exhausted()) bounded = true;
    searchNs += System.nanoTime() - t0;
    return !found.isEmpty();
  }

  /** Some cycle of the first cyclic component of (gr, filter), for family f. */
  public void witness(Scc scc, Digraph gr, int filter, boolean isBc, Level.Family f) {
    for (int c = 0; c < scc.count; c++) {
      if (scc.cyclic[c]) {
        witnessIn(scc, gr, filter, c, isBc, f);
        return;
      }
    }
  }

  /** Some cycle of component c of (gr, filter), over transactions. */
  public void witnessIn(Scc scc, Digraph gr, int filter, int c, boolean isBc, Level.Family f) {
    Cycle cy = CycleFinder.anyCycleIn(gr, scc, c, filter);
    if (cy == null) return;
    sink.add(isBc ? BcGraph.toTxnCycle(cy, n).withoutRelays(n) : cy.withoutRelays(n), f);
  }
}
