package isocheck.check.si;

import isocheck.graph.Edge;
import isocheck.history.History;
import isocheck.history.Kw;
import isocheck.history.OpRecord;
import isocheck.order.RegisterAnalysis;
import isocheck.report.Anomaly;
import isocheck.report.Steps;
import java.util.HashSet;

/**
 * Explains the steps of a polygraph's cycle (PolySI §5.3: counterexamples in base steps): a
 * reads-from step as the workload's analysis does, and each write-write or anti-dependency step
 * by why it holds: a read-modify-write, a read of the initial state, a read of a version another
 * transaction read and overwrote (rw-register), an order the list-append translator fixed (by
 * its analysis), an order pruning or the solver forced (the other one closes a cycle), or the
 * order under consideration when both orders of a pair close one.
 */
final class PolygraphExplainer implements Steps.DataExplainer {
  private final Polygraph p;
  private final History h;
  /** The workload's explanations of the edges it fixed. */
  private final Steps.DataExplainer data;
  /** rw-register only (null for list-append): which version each read saw. */
  private final RegisterAnalysis ra;
  /** The pruning whose decided sides count as forced (null: none). */
  private Pruning pruning;
  /** Sides the solver derived, as 2c + s. */
  private final HashSet<Long> solverForced = new HashSet<>();
  /** The side under consideration, as 2c + s (-1: none). */
  private long considered = -1;
  /** Whether the constraints are numbered in (first, second) order (binary search), else scanned. */
  private Boolean sortedPairs;

  // Only the few steps of a counterexample are explained, so each is looked up when asked for,
  // by scanning the known edges and finding the constraints of its pair, rather than indexing
  // millions of edges in maps up front (which took most of a 10^6-transaction check).

  PolygraphExplainer(Polygraph p, Steps.DataExplainer data, RegisterAnalysis ra) {
    this.p = p;
    this.h = p.h;
    this.data = data;
    this.ra = ra;
  }

  /** Marks the decided sides of a pruning as forced. */
  void forced(Pruning pr) { pruning = pr; }

  /** Marks side s of constraint c as forced (the solver derived it). */
  void forced(int c, int s) { solverForced.add(2L * c + s); }

  /** The side of a constraint under consideration (c &lt; 0: none). */
  void considering(int c, int s) { considered = c < 0 ? -1 : 2L * c + s; }

  @Override
  public Steps.Step explain(int a, int b, int type) {
    if (type == Edge.WR) return data.explain(a, b, type);
    // Known edges with a reason of their own (rw-register); the workload's analysis explains the
    // others, and Steps process and realtime order.
    for (int i = 0; i < p.knownWhy.size(); i++) {
      if (p.known.src(i) != a || p.known.dst(i) != b || p.known.type(i) != type) continue;
      int why = p.knownWhy.get(i);
      if (why != Polygraph.TRANSLATED && why != Polygraph.ORDER) return knownStep(a, b, type, p.knownKey.get(i), why);
    }
    if (considered >= 0) {
      int e = edgeOf((int) (considered >> 1), (int) (considered & 1), a, b, type);
      if (e >= 0) return sideStep(a, b, type, p.sideKey[e], " (the order considered)");
    }
    // The side "w before b" that holds this step: w = a for a write-write step; for an
    // anti-dependency a → b, w wrote a version a read.
    if (type == Edge.WW) {
      Steps.Step st = forcedStep(a, b, a, b, type);
      if (st != null) return st;
    } else if (ra != null) {
      for (int m = h.mopStart(a); m < h.mopEnd(a); m++) {
        if (h.mopKind(m) != OpRecord.READ || !ra.external[m] || h.mopVal(m) == History.NIL) continue;
        int w = h.writerMop(h.mopKey(m), h.mopVal(m));
        if (w < 0 || h.mopTxn(w) == b) continue;
        Steps.Step st = forcedStep(h.mopTxn(w), b, a, b, type);
        if (st != null) return st;
      }
    }
    return data.explain(a, b, type);
  }

  /** The step a → b of the side "w before x", when that side is forced and holds it. */
  private Steps.Step forcedStep(int w, int x, int a, int b, int type) {
    int c = constraintOf(Math.min(w, x), Math.max(w, x));
    if (c < 0) return null;
    int s = p.first[c] == w ? 0 : 1;
    boolean forced = (pruning != null && pruning.choice[c] == s) || solverForced.contains(2L * c + s);
    if (!forced) return null;
    int e = edgeOf(c, s, a, b, type);
    return e < 0 ? null : sideStep(a, b, type, p.sideKey[e], " (forced: the other order of these two writers closes a cycle)");
  }

  /** The index of edge a → b of the given type in side s of constraint c, or -1. */
  private int edgeOf(int c, int s, int a, int b, int type) {
    for (int e = p.sideFrom(c, s); e < p.sideTo(c, s); e++) {
      if (p.sideSrc[e] == a && p.sideDst[e] == b && p.sideType[e] == type) return e;
    }
    return -1;
  }

  /** The constraint of writers a &lt; b, or -1. */
  private int constraintOf(int a, int b) {
    int n = p.constraints();
    if (sortedPairs == null) {
      boolean sorted = true;
      for (int c = 1; c < n && sorted; c++) {
        sorted = p.first[c - 1] < p.first[c] || (p.first[c - 1] == p.first[c] && p.second[c - 1] < p.second[c]);
      }
      sortedPairs = sorted;
    }
    if (!sortedPairs) {
      for (int c = 0; c < n; c++) if (p.first[c] == a && p.second[c] == b) return c;
      return -1;
    }
    int lo = 0, hi = n;
    long key = ((long) a << 32) | b;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      long k = ((long) p.first[mid] << 32) | p.second[mid];
      if (k < key) lo = mid + 1;
      else hi = mid;
    }
    return lo < n && p.first[lo] == a && p.second[lo] == b ? lo : -1;
  }

  private Steps.Step knownStep(int a, int b, int type, int k, int why) {
    switch (why) {
      case Polygraph.READ_MODIFY_WRITE:
        return step(type, k, h.name(b) + " read key " + h.keyStr(k) + " = " + value(a, k) + ", " + h.name(a)
            + "'s write, and then wrote it (" + value(b, k) + "), so " + h.name(a) + "'s write came first");
      case Polygraph.INITIAL_READ:
        return step(type, k, h.name(a) + " read key " + h.keyStr(k) + " = nil, the initial value, so it read before "
            + h.name(b) + "'s write of " + value(b, k));
      case Polygraph.OVERWRITTEN_READ: {
        int w = versionRead(a, k);
        return step(type, k, h.name(a) + " read key " + h.keyStr(k) + " = " + value(w, k) + (w >= 0 ? ", " + h.name(w) + "'s write" : "")
            + ", which " + h.name(b) + " read too and then overwrote (" + value(b, k) + ")");
      }
      case Polygraph.REALTIME_ORDER: {
        if (type == Edge.WW) {
          return step(type, k, h.name(a) + " completed before " + h.name(b) + " was invoked, so its write of key " + h.keyStr(k)
              + " (" + value(a, k) + ") came before " + h.name(b) + "'s (" + value(b, k) + ")");
        }
        int w = versionRead(a, k);
        String ws = w >= 0 ? h.name(w) : "the initial value";
        return step(type, k, h.name(a) + " read key " + h.keyStr(k) + " = " + value(w, k) + (w >= 0 ? ", " + ws + "'s write" : "")
            + ", and " + h.name(b) + " overwrote it (" + value(b, k) + "): " + ws + " completed before " + h.name(b)
            + " was invoked, so its write came first");
      }
      case Polygraph.INITIAL_CHAIN: {
        String after = h.name(b) + "'s write of key " + h.keyStr(k) + " (" + value(b, k) + ") is not one of the read-modify-writes "
            + "that follow the initial value, which come first, so it comes after their last";
        if (type == Edge.WW) return step(type, k, h.name(a) + "'s write (" + value(a, k) + ") is that last one; " + after);
        int w = versionRead(a, k);
        return step(type, k, h.name(a) + " read key " + h.keyStr(k) + " = " + value(w, k) + (w >= 0 ? ", " + h.name(w) + "'s write" : "")
            + ", the last of them; " + after);
      }
      default:
        return null;
    }
  }

  private Steps.Step sideStep(int a, int b, int type, int k, String qualifier) {
    if (type == Edge.WW && h.workload == History.Workload.APPEND) {
      return step(type, k, h.name(a) + "'s append to key " + h.keyStr(k) + " (" + value(a, k) + ") comes before " + h.name(b)
          + "'s (" + value(b, k) + "), neither ever read" + qualifier);
    }
    if (type == Edge.WW) {
      return step(type, k, h.name(a) + "'s write of key " + h.keyStr(k) + " (" + value(a, k) + ") comes before " + h.name(b)
          + "'s (" + value(b, k) + ")" + qualifier);
    }
    int w = versionRead(a, k);
    return step(type, k, h.name(a) + " read key " + h.keyStr(k) + " = " + value(w, k) + (w >= 0 ? ", " + h.name(w) + "'s write" : "")
        + ", and " + h.name(b) + "'s write of it (" + value(b, k) + ") comes after that one" + qualifier);
  }

  private Steps.Step step(int type, int k, String text) {
    return new Steps.Step(Anomaly.map("type", new Kw(Edge.name(type)), "key", h.key(k)), text);
  }

  /** The writer of the version of key k transaction r read first (or BOT, -1). */
  private int versionRead(int r, int k) {
    for (int m = h.mopStart(r); m < h.mopEnd(r); m++) {
      if (h.mopKind(m) != OpRecord.READ || h.mopKey(m) != k || !ra.external[m]) continue;
      int v = h.mopVal(m);
      if (v == History.NIL) return Polygraph.BOT;
      int w = h.writerMop(k, v);
      return w < 0 ? Polygraph.BOT : h.mopTxn(w);
    }
    return Polygraph.BOT;
  }

  /** Transaction t's last write (or append) of key k, rendered (nil for the initial state). */
  private String value(int t, int k) {
    if (t < 0) return "nil";
    for (int m = h.mopEnd(t) - 1; m >= h.mopStart(t); m--) {
      if ((h.mopKind(m) == OpRecord.WRITE || h.mopKind(m) == OpRecord.APPEND) && h.mopKey(m) == k) return h.valueStr(h.mopVal(m));
    }
    return "?";
  }
}
