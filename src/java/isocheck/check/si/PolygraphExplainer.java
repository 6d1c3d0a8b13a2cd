package isocheck.check.si;

import isocheck.graph.Edge;
import isocheck.history.History;
import isocheck.history.Kw;
import isocheck.history.OpRecord;
import isocheck.order.RegisterAnalysis;
import isocheck.report.Anomaly;
import isocheck.report.Steps;
import java.util.HashMap;

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
  /** (from, to, type) → known edge index. */
  private final HashMap<Long, Integer> known = new HashMap<>();
  /** (from, to, type) → side edge index, for decided sides (forced) and the side considered. */
  private final HashMap<Long, Integer> forced = new HashMap<>(), considered = new HashMap<>();

  PolygraphExplainer(Polygraph p, Steps.DataExplainer data, RegisterAnalysis ra) {
    this.p = p;
    this.h = p.h;
    this.data = data;
    this.ra = ra;
    // Known edges with a reason of their own (rw-register); the workload's analysis explains the
    // others, and Steps process and realtime order.
    for (int i = 0; i < p.knownWhy.size(); i++) {
      int why = p.knownWhy.get(i);
      if (why != Polygraph.TRANSLATED && why != Polygraph.ORDER) known.putIfAbsent(key(p.known.src(i), p.known.dst(i), p.known.type(i)), i);
    }
  }

  private static long key(int a, int b, int type) { return ((long) a << 36) | ((long) b << 8) | type; }

  /** Marks the decided sides of a pruning as forced. */
  void forced(Pruning pr) {
    for (int c = 0; c < pr.choice.length; c++) {
      if (pr.choice[c] < 0) continue;
      for (int e = p.sideFrom(c, pr.choice[c]); e < p.sideTo(c, pr.choice[c]); e++) forced.putIfAbsent(key(p.sideSrc[e], p.sideDst[e], p.sideType[e]), e);
    }
  }

  /** Marks side s of constraint c as forced (the solver derived it). */
  void forced(int c, int s) {
    for (int e = p.sideFrom(c, s); e < p.sideTo(c, s); e++) forced.putIfAbsent(key(p.sideSrc[e], p.sideDst[e], p.sideType[e]), e);
  }

  /** The side of a constraint under consideration (null side: none). */
  void considering(int c, int s) {
    considered.clear();
    if (c < 0) return;
    for (int e = p.sideFrom(c, s); e < p.sideTo(c, s); e++) considered.putIfAbsent(key(p.sideSrc[e], p.sideDst[e], p.sideType[e]), e);
  }

  @Override
  public Steps.Step explain(int a, int b, int type) {
    if (type == Edge.WR) return data.explain(a, b, type);
    Integer k = known.get(key(a, b, type));
    if (k != null) return knownStep(a, b, type, p.knownKey.get(k), p.knownWhy.get(k));
    Integer e = considered.get(key(a, b, type));
    if (e != null) return sideStep(a, b, type, p.sideKey[e], " (the order considered)");
    e = forced.get(key(a, b, type));
    if (e != null) return sideStep(a, b, type, p.sideKey[e], " (forced: the other order of these two writers closes a cycle)");
    return data.explain(a, b, type);
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
