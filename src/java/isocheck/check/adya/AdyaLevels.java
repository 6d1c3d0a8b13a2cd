package isocheck.check.adya;

import isocheck.check.Level;
import isocheck.graph.Digraph;
import isocheck.graph.Edge;
import isocheck.graph.EdgeList;
import isocheck.history.History;
import isocheck.order.ListAppendAnalysis;

/**
 * Elle's {@code :read-uncommitted}, {@code :read-committed} and {@code :repeatable-read}: Adya's
 * PL-1, PL-2 and PL-2.99 (Adya, "Weak Consistency", MIT 1999, §3–4), with the anomalies Elle's
 * model graph adds to them (elle.consistency-model: incompatible-order and dirty-update imply G1a,
 * future-read G1c; lost-update G2-item; duplicate-elements is PL-1's). No session or realtime
 * order: these are the plain levels.
 *
 * <h2>Definition</h2>
 *
 * An execution of a history picks the committed transactions (the :ok ones, the :info ones whose
 * writes some read observed, as everywhere in isocheck, and any others) and, per key, a version
 * order of their writes (each transaction's last write of the key; the initial state first). Like
 * Elle, only <em>external</em> reads name versions: a transaction's first access of a key, when it
 * is a read (list-append: its first read of the key, less its own appends at the end). The
 * direct serialization graph has WW (a version, then a later one), WR (a version, then a read of
 * it) and RW (a read of a version, then a later version's writer) edges. Then
 *
 * <ul>
 * <li>read uncommitted: some execution has no G0 (a cycle of WW edges), and no read holds an
 *     element twice;
 * <li>read committed: also no G1a (a read of a :fail transaction's write, or of garbage, a value
 *     no one wrote: isocheck's choice, Elle has no name for it), G1b (a read of a write its
 *     transaction overwrote), future read, incompatible order, dirty update, and no G1c (a cycle of
 *     WW and WR edges);
 * <li>repeatable read: also no cycle with an RW edge (G-single-item, G-nonadjacent-item,
 *     G2-item), so no cycle at all, and no lost update. With no predicates, every anti-dependency
 *     is an item anti-dependency: the graph condition is serializability's, and what differs is
 *     only what Elle's serializable adds to PL-3, the :internal anomaly (a read that disagrees with
 *     the transaction's own earlier reads and writes), which no Elle level below serializable and
 *     snapshot isolation forbids.
 * </ul>
 *
 * <h2>rw-register: the version order is not observed</h2>
 *
 * <p><b>Lemma.</b> For any edge set E ⊇ WW that the version orders determine, some version orders
 * make E acyclic iff some total order π of the committed transactions, inducing every key's
 * version order, has every edge of E forward. (⇐ is plain. ⇒: take π a topological order of the
 * acyclic E; WW relates every pair of writers of a key, so π induces the same version orders and
 * E is unchanged.)
 *
 * <ul>
 * <li><b>Read uncommitted always holds</b> (no register history holds an element twice): any π
 *     gives WW ⊆ π. Its only cycle is made of version orders, which registers never show.
 * <li><b>Read committed holds iff no G1a, G1b, future or garbage read, and WR is acyclic.</b>
 *     WR is fixed by the reads; with π a topological order of WR, WW ∪ WR ⊆ π. In particular a
 *     read-modify-write (T read x from U, then wrote x) fixes no order here beyond U → T, which
 *     its WR edge already gives: the write-write orders the serializable and SI searches infer
 *     from such chains, and their lost-update pre-check, are theirs, not read committed's.
 * <li><b>Repeatable read</b> is serializability's version-order search (the polygraph, pruning,
 *     the solver: {@link isocheck.check.si.RegisterSearch}) over the same graph, its lost
 *     updates included (two read-modify-writes of one version close a cycle with an
 *     anti-dependency in either order); only the pre-checks that rule it out differ.
 * </ul>
 *
 * <h2>list-append: the version order is read off the lists</h2>
 *
 * The version order of a key is its longest read (every read a prefix of it, else
 * incompatible-order), and an append no read shows follows every one shown. Only the order among
 * several never-read appends of one key is open, and for these three levels it never matters:
 * whichever order a topological order of the known graph gives them adds only WW edges forward in
 * it. So each level is the acyclicity of its edge types in the known graph ({@link #filter}).
 * Read uncommitted allows incompatible reads (Elle: they imply G1a, not G0), so its write orders
 * are those of every read: {@link #writeOrders} adds what the reads that are not prefixes of the
 * longest show.
 */
public final class AdyaLevels {
  private AdyaLevels() {}

  /** The edge types whose cycles the level forbids, in the graph over transactions. */
  public static int filter(Level l) {
    switch (l) {
      case REPEATABLE_READ: return Edge.DATA;
      case READ_COMMITTED: return Edge.WW | Edge.WR;
      case READ_UNCOMMITTED: return Edge.WW;
      default: throw new IllegalArgumentException(l.id + " is not one of Elle's PL-1, PL-2, PL-2.99");
    }
  }

  /**
   * Read uncommitted's write orders on a list-append history: g itself when every read is a
   * prefix of its key's longest one; else a graph with g's WW edges and those the other reads
   * show (consecutive committed writers of their elements, a transaction's own appends out of
   * program order as a self-loop, and each key's never-read appends after the read's last
   * committed writer). Same nodes as g.
   */
  public static Digraph writeOrders(ListAppendAnalysis la, Digraph g) {
    History h = la.h;
    EdgeList extra = null;
    int[] pool = h.listPool();
    for (int m = 0; m < h.mopCount(); m++) {
      if (!la.incompatible[m]) continue;
      if (extra == null) extra = new EdgeList();
      int k = h.mopKey(m), off = h.mopVal(m), len = h.mopLen(m);
      int last = -1;
      java.util.HashMap<Integer, Integer> lastMopOf = new java.util.HashMap<>();
      java.util.HashSet<Integer> seen = new java.util.HashSet<>();
      for (int p = 0; p < len; p++) {
        int v = pool[off + p];
        if (!seen.add(v)) continue; // an element read twice is one version (duplicate-elements)
        int w = h.writerMop(k, v);
        if (w < 0) continue;
        int t = h.mopTxn(w);
        if (!la.committed[t]) continue;
        if (last >= 0 && last != t) extra.add(last, t, Edge.WW);
        Integer before = lastMopOf.get(t);
        if (before != null && w < before) extra.add(t, t, Edge.WW);
        else lastMopOf.put(t, w);
        last = t;
      }
      int[] un = la.unread[k];
      if (un != null && last >= 0) for (int u : un) if (u != last) extra.add(last, u, Edge.WW);
    }
    if (extra == null) return g;
    EdgeList all = new EdgeList(g.edgeCount() + extra.size());
    for (int a = 0; a < g.n; a++) {
      for (int e = g.start(a); e < g.end(a); e++) if ((g.mask(e) & Edge.WW) != 0) all.add(a, g.target(e), Edge.WW);
    }
    for (int i = 0; i < extra.size(); i++) all.add(extra.src(i), extra.dst(i), Edge.WW);
    return Digraph.of(g.n, all);
  }
}
