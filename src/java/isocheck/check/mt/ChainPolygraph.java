package isocheck.check.mt;

import isocheck.check.si.Polygraph;
import isocheck.graph.Edge;
import isocheck.graph.EdgeList;
import isocheck.history.History;
import isocheck.util.IntList;
import java.util.HashMap;

/**
 * The version-order search space of an MT history whose chains of read-modify-writes do not fix
 * every key's order: a polygraph (PolySI Def. 9) whose constraints order <em>chains</em>, not
 * writers. In every execution a serializable or SI level allows, a key's chain of
 * read-modify-writes is contiguous in its version order (a write between T and the RMW T'
 * that read T would make T' anti-depend on it while following it: a cycle under SER, a
 * WW;RW step under SI), and the chain from the initial state comes first. So per unordered
 * key only the order of its other chains is open: with m of them, m(m-1)/2 constraints, where
 * the polygraph of writers has w(w-1)/2 for w writers (a chain per {@code :info}
 * transaction someone read: a handful, against thousands of writers on a hot key).
 *
 * <p>Known edges: every WR, WW and RW edge of {@link MtAnalysis} (the chains), and for each
 * unordered key the initial chain's last version before every other chain's first write (WW,
 * and RW from its readers). The side "A before B" of a constraint is the WW edge from A's last
 * write to B's first and the RW edges from the readers of A's last version to B's first.
 * Used only when the unordered keys' chain roots are {@code :info} transactions someone read or
 * reads the pre-checks flagged, never blind writes (a history with those is not MT-shaped: the
 * general polygraph of writers decides it).
 */
final class ChainPolygraph {
  private ChainPolygraph() {}

  /** Whether the unordered keys' chains are all rooted in {@code :info} or flagged reads (no blind write). */
  static boolean applies(MtAnalysis mt) {
    for (int x = 0; x < mt.slotKey.length; x++) {
      if (!mt.ordered[mt.slotKey[x]] && mt.slotWhy[x] == MtAnalysis.BLIND) return false;
    }
    return true;
  }

  static Polygraph build(MtAnalysis mt) {
    History h = mt.h;
    int nKeys = mt.nKeys;
    EdgeList known = new EdgeList(mt.edges().size() + 16);
    IntList knownKey = new IntList(mt.edges().size() + 16), knownWhy = new IntList(mt.edges().size() + 16);
    // The analysis' edges with their reasons (WR: reads-from; WW: read-modify-write; RW: a read
    // of the initial state or of a version another transaction read and overwrote).
    for (int i = 0; i < mt.edges().size(); i++) {
      int a = mt.edges().src(i), b = mt.edges().dst(i), t = mt.edges().type(i);
      known.add(a, b, t);
      int[] kw = reason(mt, a, b, t);
      knownKey.add(kw[0]);
      knownWhy.add(kw[1]);
    }
    // Readers of each version of the unordered keys: by slot, and of ⊥ by key.
    HashMap<Integer, IntList> readersOfSlot = new HashMap<>();
    IntList[] readersOfBot = new IntList[nKeys];
    for (int m = 0; m < h.mopCount(); m++) {
      if (!mt.ra.external[m]) continue;
      int k = h.mopKey(m);
      if (mt.ordered[k]) continue;
      int v = mt.version(m);
      if (v == MtAnalysis.NONE) continue;
      int r = h.mopTxn(m);
      if (v == MtAnalysis.BOT) {
        if (readersOfBot[k] == null) readersOfBot[k] = new IntList(4);
        readersOfBot[k].add(r);
      } else {
        readersOfSlot.computeIfAbsent(mt.slotOf(v, k), z -> new IntList(4)).add(r);
      }
    }
    // Per unordered key: its chains (root slot, last slot); the initial chain's last slot (-1: ⊥ itself).
    IntList first = new IntList(), second = new IntList(), start = new IntList();
    IntList src = new IntList(), dst = new IntList(), type = new IntList(), key = new IntList();
    IntList[] heads = new IntList[nKeys], tails = new IntList[nKeys];
    for (int x = 0; x < mt.slotKey.length; x++) {
      int k = mt.slotKey[x];
      if (mt.ordered[k] || mt.slotParent[x] != MtAnalysis.NONE) continue;
      if (heads[k] == null) {
        heads[k] = new IntList(4);
        tails[k] = new IntList(4);
      }
      heads[k].add(x);
      tails[k].add(last(mt, x));
    }
    for (int k = 0; k < nKeys; k++) {
      if (heads[k] == null) continue;
      int initTail = mt.botChildren[k] == 0 ? -1 : last(mt, mt.botChild1[k]);
      IntList initReaders = initTail < 0 ? readersOfBot[k] : readersOfSlot.get(initTail);
      for (int i = 0; i < heads[k].size(); i++) {
        int head = mt.slotTxn[heads[k].get(i)];
        if (initTail >= 0) {
          known.add(mt.slotTxn[initTail], head, Edge.WW);
          knownKey.add(k);
          knownWhy.add(Polygraph.INITIAL_CHAIN);
        }
        if (initReaders != null) {
          for (int j = 0; j < initReaders.size(); j++) {
            int r = initReaders.get(j);
            if (r == head) continue;
            known.add(r, head, Edge.RW);
            knownKey.add(k);
            knownWhy.add(initTail < 0 ? Polygraph.INITIAL_READ : Polygraph.INITIAL_CHAIN);
          }
        }
      }
      // A constraint per pair of the other chains.
      for (int i = 0; i < heads[k].size(); i++) {
        for (int j = i + 1; j < heads[k].size(); j++) {
          int a = i, b = j;
          if (mt.slotTxn[heads[k].get(a)] > mt.slotTxn[heads[k].get(b)]) {
            a = j;
            b = i;
          }
          first.add(mt.slotTxn[heads[k].get(a)]);
          second.add(mt.slotTxn[heads[k].get(b)]);
          start.add(src.size());
          side(mt, k, tails[k].get(a), heads[k].get(b), readersOfSlot, src, dst, type, key);
          start.add(src.size());
          side(mt, k, tails[k].get(b), heads[k].get(a), readersOfSlot, src, dst, type, key);
        }
      }
    }
    start.add(src.size());
    return Polygraph.of(h, mt.committed, known, knownKey, knownWhy, first.toArray(), second.toArray(), start.toArray(),
        src.toArray(), dst.toArray(), type.toArray(), key.toArray());
  }

  /** Side "the chain ending at slot tail before the chain starting at slot head". */
  private static void side(MtAnalysis mt, int k, int tail, int head, HashMap<Integer, IntList> readersOfSlot, IntList src,
                           IntList dst, IntList type, IntList key) {
    int a = mt.slotTxn[tail], b = mt.slotTxn[head];
    src.add(a);
    dst.add(b);
    type.add(Edge.WW);
    key.add(k);
    IntList rs = readersOfSlot.get(tail);
    if (rs == null) return;
    for (int j = 0; j < rs.size(); j++) {
      int r = rs.get(j);
      if (r == b) continue;
      src.add(r);
      dst.add(b);
      type.add(Edge.RW);
      key.add(k);
    }
  }

  /** The last slot of the chain through slot x (no divergence: one RMW child at most). */
  private static int last(MtAnalysis mt, int x) {
    while (mt.nChildren[x] > 0) x = mt.child1[x];
    return x;
  }

  /** {key, reason} of an analysis edge, for explanations. */
  private static int[] reason(MtAnalysis mt, int a, int b, int t) {
    History h = mt.h;
    if (t == Edge.WW) {
      for (int x = mt.slotStart[b]; x < mt.slotStart[b + 1]; x++) {
        if (mt.slotParent[x] == a) return new int[] {mt.slotKey[x], Polygraph.READ_MODIFY_WRITE};
        if (mt.slotParent[x] == MtAnalysis.NONE && mt.botTail[mt.slotKey[x]] == a) return new int[] {mt.slotKey[x], Polygraph.INITIAL_CHAIN};
      }
      return new int[] {-1, Polygraph.ORDER};
    }
    if (t == Edge.WR) {
      for (int m = h.mopStart(b); m < h.mopEnd(b); m++) {
        if (mt.ra.external[m] && mt.version(m) == a) return new int[] {h.mopKey(m), Polygraph.READS_FROM};
      }
      return new int[] {-1, Polygraph.ORDER};
    }
    for (int m = h.mopStart(a); m < h.mopEnd(a); m++) {
      if (!mt.ra.external[m]) continue;
      int v = mt.version(m), k = h.mopKey(m);
      if (v == MtAnalysis.NONE) continue;
      int x = mt.slotOf(b, k);
      if (x < 0) continue;
      if (mt.slotParent[x] == v) return new int[] {k, v == MtAnalysis.BOT ? Polygraph.INITIAL_READ : Polygraph.OVERWRITTEN_READ};
      if (v == MtAnalysis.BOT) return new int[] {k, Polygraph.INITIAL_READ};
      if (mt.slotParent[x] == MtAnalysis.NONE && mt.botTail[k] == v) return new int[] {k, Polygraph.INITIAL_CHAIN};
    }
    return new int[] {-1, Polygraph.ORDER};
  }
}
