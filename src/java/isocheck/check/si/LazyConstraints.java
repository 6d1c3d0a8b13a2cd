package isocheck.check.si;

import isocheck.graph.BcGraph;
import isocheck.graph.Edge;
import isocheck.history.History;
import isocheck.order.RegisterAnalysis;

/**
 * The write-order constraints of an rw-register {@link Polygraph}, generated lazily, per writer
 * pair, when a candidate order makes them matter: counterexample-guided refinement of PolySI's
 * generalized polygraph (PVLDB'23, Def. 9), in the way lazy clause generation adds a theory's
 * clauses only once a model breaks them (Ohrimenko, Stuckey &amp; Codish, "Propagation via lazy
 * clause generation", Constraints 14(3), 2009, §3).
 *
 * <p>A key written by w transactions gives w(w−1)/2 writer pairs, each a constraint; keys
 * written thousands of times without rotation (two keys, 12,000 blind writers: 119 million
 * constraints) do not fit in memory, and most pairs never matter: in any order of the
 * transactions, a key's version order is its writers' order, and that order is consistent with
 * every pair's constraint as soon as it is with the pairs of writers that follow each other in
 * it (below). So the search starts from the known edges and no constraint, and repeats:
 * <ol>
 * <li>decide the level on the known edges and the constraints generated so far (the whole
 *     {@link PolygraphSearch}: pruning, time order, solver). Those constraints are a subset of
 *     the polygraph's: a violation of the subset is one of the whole (its cycles stand in every
 *     graph the whole allows), so a refutation ends the search;
 * <li>when the level holds there, take the order that shows it ({@link isocheck.check.Witness}),
 *     and on each key, the writers in that order; each two that follow each other, a then b,
 *     must have a's write before b's (WW) and every reader of a's version (but b) before b's
 *     write (RW). {@link #violations} lists the pairs whose edges the order breaks;
 * <li>none: the order satisfies every constraint of the whole polygraph, the level holds, and
 *     the order is its witness; else those pairs' constraints are added, and the search repeats.
 * </ol>
 * Why consecutive pairs suffice: let a key's writers be w1, …, wm in the order. For i &lt; j,
 * the constraint of (wi, wj) asks, in the order's choice, wi → wj and r → wj for each reader r of
 * wi's version. wi → wi+1 → … → wj follow the order (serializability: one node per
 * transaction; snapshot isolation, Viper's begin/commit graph: C(wi) → B(wi+1) → C(wi+1) → … →
 * B(wj), begin before commit), and r → wi+1 (B(r) → C(wi+1)) with wi+1 → wj gives r before wj.
 * Each round adds pairs the subset lacked (a pair already constrained is ordered one way by the
 * model, with its edges), so the search ends: at worst with every pair.
 *
 * <p>Memory is linear in the history for the writer lists and known edges, and in the pairs
 * generated, which on histories whose keys are written many times are about as many as the
 * writes themselves.
 */
final class LazyConstraints {
  private final Polygraph.Builder b;
  /** The known edges alone (no constraint), with their reasons and the lost updates, shared by every round's polygraph. */
  final Polygraph known;
  /** Per committed transaction, the keys it writes and its position among each key's writers ({@code Builder#writtenKeys}). */
  private final int[] txnKeyStart, txnKeyList, txnKeyPos;
  /** The pairs generated so far, {@code a << 32 | b} with a &lt; b, sorted. */
  private long[] pairs = new long[0];
  /**
   * How many writers on each side of a broken pair, in a key's order, are paired with each other
   * too (-Disocheck.lazy.window=N).
   */
  static final int WINDOW = Integer.getInteger("isocheck.lazy.window", 0);

  /** Rounds so far (polygraphs built). */
  int rounds;

  /**
   * The known edges of the rw-register polygraph (with the writer orders realtime fixes when
   * {@code byRealtime}), without session or realtime order, and what generating constraints
   * needs; keys marked in {@code ordered} (may be null) have none.
   */
  LazyConstraints(History h, RegisterAnalysis ra, boolean[] ordered, boolean byRealtime) {
    b = new Polygraph.Builder(h, ra);
    b.knownOnly = true;
    b.byRealtime = byRealtime;
    known = Polygraph.of(b, ordered);
    int[][] tk = b.writtenKeys();
    txnKeyStart = tk[0];
    txnKeyList = tk[1];
    txnKeyPos = tk[2];
  }

  /** The pairs constrained so far. */
  int pairs() { return pairs.length; }

  /** The side edges the whole polygraph would have: a key written by w transactions gives each pair two WW edges, each reader an RW edge per other writer. */
  long wholeSideEdges() {
    long edges = 0;
    for (int k = 0; k < b.nKeys; k++) {
      long w = b.writers(k), rd = b.rStart[k + 1] - b.rStart[k];
      if (w > 1 && b.constrained(k)) edges += w * (w - 1) + rd * (w - 1);
    }
    return edges;
  }

  /**
   * The polygraph of the known edges and the constraints of the pairs generated so far (without
   * session or realtime order: {@link Polygraph#withOrders}). Constraint numbering follows the
   * pairs, in (a, b) order; a pair sharing several keys is one constraint, as in the whole one.
   */
  Polygraph polygraph() {
    rounds++;
    int nc = pairs.length;
    int[] first = new int[nc], second = new int[nc], start = new int[2 * nc + 1];
    long total = 0;
    for (int c = 0; c < nc; c++) {
      int a = (int) (pairs[c] >>> 32), bb = (int) pairs[c];
      for (int i = txnKeyStart[a]; i < txnKeyStart[a + 1]; i++) {
        int k = txnKeyList[i], pb = slotOf(k, bb);
        if (pb < 0) continue;
        total += b.sideSize(k, txnKeyPos[i], bb) + b.sideSize(k, pb, a);
      }
    }
    if (total > Integer.MAX_VALUE - 16) throw new Polygraph.TooLarge(total);
    int[] src = new int[(int) total], dst = new int[(int) total], type = new int[(int) total], key = new int[(int) total];
    int o = 0;
    for (int c = 0; c < nc; c++) {
      int a = (int) (pairs[c] >>> 32), bb = (int) pairs[c];
      first[c] = a;
      second[c] = bb;
      start[2 * c] = o;
      for (int i = txnKeyStart[a]; i < txnKeyStart[a + 1]; i++) {
        int k = txnKeyList[i];
        if (slotOf(k, bb) >= 0) o = b.side(src, dst, type, key, o, k, txnKeyPos[i], a, bb);
      }
      start[2 * c + 1] = o;
      for (int i = txnKeyStart[a]; i < txnKeyStart[a + 1]; i++) {
        int k = txnKeyList[i], pb = slotOf(k, bb);
        if (pb >= 0) o = b.side(src, dst, type, key, o, k, pb, bb, a);
      }
    }
    start[2 * nc] = o;
    Polygraph p = new Polygraph(known.h, known.nTxns, known.committed, known.known, known.knownKey, known.knownWhy, first, second,
        start, src, dst, type, key);
    p.lostUpdates.addAll(known.lostUpdates);
    p.fixedByRealtime = known.fixedByRealtime;
    p.realtimeEdges = known.realtimeEdges;
    return p;
  }

  /** Writer t's position among key k's writers, or -1 when it is not one (or k has no constraints). */
  private int slotOf(int k, int t) {
    if (!b.constrained(k)) return -1;
    int pos = b.position(k, t);
    return b.wStart[k] + pos < b.wStart[k + 1] && b.wTxn[b.wStart[k] + pos] == t ? pos : -1;
  }

  /**
   * An order of g's nodes that satisfies every constraint, found from {@code nodes} (a round's
   * witness, which satisfies the constraints generated so far) by keeping its version orders
   * (each key's writers in the order of their writes there) and moving the rest: a topological
   * order of g's known edges with, on each key, WW from each writer to the next and RW from each
   * reader of its version (but the next) to the next, the nodes taken in their order in
   * {@code nodes} when several are ready (Kahn's algorithm). Those edges are every constraint's
   * side for those version orders (the class comment), so when they are acyclic the order is a
   * witness of the whole polygraph. Null when they close a cycle: the version orders themselves
   * must change ({@link #refine}).
   */
  int[] repair(LevelGraph g, int[] nodes) {
    boolean si = g.si;
    int nodeCount = g.nodes;
    int[] pos = new int[nodeCount];
    java.util.Arrays.fill(pos, Integer.MAX_VALUE);
    for (int i = 0; i < nodes.length; i++) if (nodes[i] < nodeCount) pos[nodes[i]] = i;
    isocheck.graph.EdgeList es = new isocheck.graph.EdgeList(1024);
    for (int k = 0; k < b.nKeys; k++) {
      int m = writersInOrder(k, pos, si);
      for (int i = 0; i + 1 < m; i++) {
        int sa = (int) slots[i], sb = (int) slots[i + 1], a = b.wTxn[sa], c = b.wTxn[sb];
        es.add(g.from(a, Edge.WW), g.to(c, Edge.WW), Edge.WW);
        for (int x = b.verLo[sa]; x < b.verHi[sa]; x++) {
          int r = b.rTxn[x];
          if (r != c) es.add(g.from(r, Edge.RW), g.to(c, Edge.RW), Edge.RW);
        }
      }
    }
    isocheck.graph.EdgeList kn = g.known;
    int[] indeg = new int[nodeCount], start = new int[nodeCount + 1];
    for (int i = 0; i < kn.size(); i++) {
      indeg[kn.dst(i)]++;
      start[kn.src(i) + 1]++;
    }
    for (int i = 0; i < es.size(); i++) {
      indeg[es.dst(i)]++;
      start[es.src(i) + 1]++;
    }
    for (int v = 0; v < nodeCount; v++) start[v + 1] += start[v];
    int[] fill = java.util.Arrays.copyOf(start, nodeCount), to = new int[start[nodeCount]];
    for (int i = 0; i < kn.size(); i++) to[fill[kn.src(i)]++] = kn.dst(i);
    for (int i = 0; i < es.size(); i++) to[fill[es.src(i)]++] = es.dst(i);
    // Ready nodes by their place in nodes (then id): a heap of (pos << 32 | node).
    isocheck.util.LongHeap ready = new isocheck.util.LongHeap(1024);
    for (int v = 0; v < nodeCount; v++) if (indeg[v] == 0) ready.push(((long) pos[v] << 32) | v);
    int[] order = new int[nodeCount];
    int done = 0;
    while (ready.size() > 0) {
      int v = (int) ready.pop();
      order[done++] = v;
      for (int i = start[v]; i < start[v + 1]; i++) if (--indeg[to[i]] == 0) ready.push(((long) pos[to[i]] << 32) | to[i]);
    }
    return done == nodeCount ? order : null;
  }

  /**
   * The writer pairs whose constraint the order {@code nodes} breaks (the level graph's nodes, as
   * a {@link isocheck.check.Witness} holds them: transactions, or for snapshot isolation begin
   * 2t and commit 2t + 1; relays and other nodes ignored), added to the pairs generated; returns
   * the new ones. On each key, its writers by the order's position of their write (the
   * transaction, or its commit), each two that follow each other checked as the class comment
   * says.
   */
  long[] refine(int[] nodes, boolean si) {
    int n = known.nTxns;
    int[] pos = new int[si ? 2 * n : n];
    java.util.Arrays.fill(pos, -1);
    for (int i = 0; i < nodes.length; i++) if (nodes[i] < pos.length) pos[nodes[i]] = i;
    long[] found = new long[16];
    int nf = 0;
    for (int k = 0; k < b.nKeys; k++) {
      int m = writersInOrder(k, pos, si);
      for (int i = 0; i + 1 < m; i++) {
        int sa = (int) slots[i], sb = (int) slots[i + 1], a = b.wTxn[sa], c = b.wTxn[sb];
        // WW a → c: C(a) → B(c) under snapshot isolation.
        boolean broken = si && pos[BcGraph.commit(a)] > pos[BcGraph.begin(c)];
        // RW r → c for each reader r ≠ c of a's version: B(r) → C(c) under snapshot isolation.
        int to = pos[si ? BcGraph.commit(c) : c];
        for (int x = b.verLo[sa]; x < b.verHi[sa] && !broken; x++) {
          int r = b.rTxn[x];
          if (r != c) broken = pos[si ? BcGraph.begin(r) : r] > to;
        }
        if (!broken) continue;
        // The pair, and the pairs among the writers around it (WINDOW on each side): the next
        // model moves a or c, or the readers between, and would otherwise break a neighbour's
        // pair next round.
        int lo = Math.max(0, i - WINDOW), hi = Math.min(m - 1, i + 1 + WINDOW);
        for (int u = lo; u <= hi; u++) {
          for (int v = u + 1; v <= hi; v++) {
            int p = b.wTxn[(int) slots[u]], q = b.wTxn[(int) slots[v]];
            if (nf == found.length) found = java.util.Arrays.copyOf(found, 2 * nf);
            found[nf++] = p < q ? ((long) p << 32) | q : ((long) q << 32) | p;
          }
        }
      }
    }
    java.util.Arrays.sort(found, 0, nf);
    // Merge into the pairs generated, without duplicates; the new ones returned.
    long[] merged = new long[pairs.length + nf], fresh = new long[nf];
    int i = 0, j = 0, o = 0, f = 0;
    while (i < pairs.length || j < nf) {
      long x;
      if (j >= nf || (i < pairs.length && pairs[i] <= found[j])) {
        x = pairs[i++];
      } else {
        x = found[j++];
        if ((o > 0 && merged[o - 1] == x) || (i < pairs.length && pairs[i] == x)) continue;
        fresh[f++] = x;
      }
      if (o > 0 && merged[o - 1] == x) continue;
      merged[o++] = x;
    }
    pairs = java.util.Arrays.copyOf(merged, o);
    return java.util.Arrays.copyOf(fresh, f);
  }

  /** {@link #writersInOrder}'s: (position &lt;&lt; 32 | writer slot) in [0, m). */
  private long[] slots = new long[16];

  /**
   * Key k's writer slots (of wTxn) in {@link #slots}[0, m), by the position in {@code pos} of
   * their write (the transaction, or under snapshot isolation its commit); returns m, 0 for a
   * key with fewer than two writers or without constraints.
   */
  private int writersInOrder(int k, int[] pos, boolean si) {
    int w0 = b.wStart[k], w1 = b.wStart[k + 1];
    if (w1 - w0 < 2 || !b.constrained(k)) return 0;
    if (slots.length < w1 - w0) slots = new long[Math.max(w1 - w0, 2 * slots.length)];
    int m = 0;
    for (int s = w0; s < w1; s++) {
      int t = b.wTxn[s], at = pos[si ? BcGraph.commit(t) : t];
      if (at < 0) throw new IllegalStateException("the order leaves out writer " + known.h.name(t));
      slots[m++] = ((long) at << 32) | s;
    }
    java.util.Arrays.sort(slots, 0, m);
    return m;
  }

  /**
   * Pair (a, b)'s constraint as a variable of solver s over level graph g: true puts side "a
   * first" (on each key both write, WW a → b and RW from each reader of a's version but b to b),
   * false side "b first".
   */
  void bind(isocheck.solver.AcyclicitySolver s, LevelGraph g, int a, int c) {
    int x = s.newVar();
    for (int side = 0; side < 2; side++) {
      int lit = side == 0 ? x : -x, p = side == 0 ? a : c, q = side == 0 ? c : a;
      for (int i = txnKeyStart[p]; i < txnKeyStart[p + 1]; i++) {
        int k = txnKeyList[i];
        if (slotOf(k, q) < 0) continue;
        int sp = b.wStart[k] + txnKeyPos[i];
        s.addEdge(lit, g.from(p, Edge.WW), g.to(q, Edge.WW));
        for (int r = b.verLo[sp]; r < b.verHi[sp]; r++) {
          int rd = b.rTxn[r];
          if (rd != q) s.addEdge(lit, g.from(rd, Edge.RW), g.to(q, Edge.RW));
        }
      }
    }
  }
}
