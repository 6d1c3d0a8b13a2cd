package isocheck.report;

import isocheck.graph.Cycle;
import isocheck.graph.Edge;
import isocheck.history.History;
import isocheck.history.Kw;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Turns a dependency cycle into an {@link Anomaly}: data (Elle's :cycle and :steps) and an explanation. */
public final class CycleReport {
  private CycleReport() {}

  public static String describe(String type) {
    String suffix = type.endsWith("-realtime-commit") ? "-realtime-commit" : type.endsWith("-realtime") ? "-realtime"
        : type.endsWith("-process") ? "-process" : "";
    String base = type.substring(0, type.length() - suffix.length());
    String d;
    switch (base) {
      case "G0": d = "a cycle of write dependencies only (write cycle)"; break;
      case "G1c": d = "a cycle of write and read dependencies (circular information flow)"; break;
      case "G-single-item": d = "a cycle with exactly one anti-dependency (read skew)"; break;
      case "G-nonadjacent-item": d = "a cycle with several anti-dependencies, no two adjacent (as in a long fork)"; break;
      case "G2-item": d = "a cycle with adjacent anti-dependencies (write skew): serializability forbids it; snapshot isolation "
          + "allows it when no two concurrent transactions of the cycle wrote the same key"; break;
      case "G-SI": d = "a cycle of write and read dependencies through write orders that no read shows but every "
          + "other order rules out (the opposite order closes a cycle of its own), so snapshot isolation and every "
          + "level implying it fail; read committed, which rules out no write order, does not"; break;
      default: d = "a dependency cycle";
    }
    if (suffix.equals("-process")) d += ", which needs process (session) order";
    if (suffix.equals("-realtime")) d += ", which needs realtime order";
    if (suffix.equals("-realtime-commit")) d += ", which needs realtime order between commits (GSI: a transaction that "
        + "completed before another was invoked committed first)";
    return d;
  }

  /** As {@link #of(History, Steps, Cycle, boolean[], String, Map)} with at most one hypothetical step (-1: none). */
  public static Anomaly of(History h, Steps steps, Cycle c0, int hypothetical, String note, Map<String, Object> extra) {
    boolean[] hyp = new boolean[c0.length()];
    if (hypothetical >= 0) hyp[hypothetical] = true;
    return of(h, steps, c0, hyp, note, extra);
  }

  /**
   * @param c0          a cycle over transactions (relays already folded)
   * @param hyp         per step: true when it is not an observed dependency but an order of
   *                    never-read appends under consideration
   * @param note        a sentence to prepend (may be null)
   */
  public static Anomaly of(History h, Steps steps, Cycle c0, boolean[] hyp0, String note, Map<String, Object> extra) {
    return of(h, steps, c0, hyp0, note, extra, null);
  }

  /**
   * As above, named type instead of the cycle's own type when type is not null (a cycle whose
   * steps include orders a search inferred under one level's rules proves less than its shape).
   */
  public static Anomaly of(History h, Steps steps, Cycle c0, boolean[] hyp0, String note, Map<String, Object> extra,
                           String named) {
    // Start at the lowest-numbered transaction, so the same cycle always reads the same way.
    int k = c0.length(), r = 0;
    for (int i = 1; i < k; i++) if (h.displayIndex(c0.nodes[i]) < h.displayIndex(c0.nodes[r])) r = i;
    int[] ns = new int[k], ls = new int[k];
    for (int i = 0; i < k; i++) {
      ns[i] = c0.nodes[(i + r) % k];
      ls[i] = c0.labels[(i + r) % k];
    }
    Cycle c = new Cycle(ns, ls);
    boolean[] hyp = new boolean[k];
    for (int i = 0; i < k; i++) hyp[i] = hyp0[(i + r) % k];
    String type = named != null ? named : c.anomalyType();
    List<Object> ops = new ArrayList<>();
    List<Object> stepData = new ArrayList<>();
    StringBuilder sb = new StringBuilder();
    if (note != null) sb.append(note).append('\n');
    String names = names(h, c.nodes);
    sb.append(names).append(k == 1 ? " forms " : " form ").append(type).append(": ").append(describe(type, commonWrite(h, c))).append(".\n");
    for (int i = 0; i < k; i++) {
      int a = c.nodes[i], b = c.nodes[(i + 1) % k];
      Steps.Step s = steps.explain(a, b, c.labels[i]);
      Map<String, Object> d = new java.util.LinkedHashMap<>(s.data());
      if (hyp[i]) d.put("hypothetical", true);
      stepData.add(d);
      ops.add(Data.op(h, a));
      sb.append("  ").append(h.name(a)).append(" < ").append(h.name(b)).append(" (").append(Edge.name(c.labels[i]))
          .append(hyp[i] ? ", an order of never-read appends, not observed" : "").append("): ")
          .append(hyp[i] ? h.name(a) + "'s append comes before " + h.name(b) + "'s in the order considered" : s.text())
          .append(".\n");
    }
    ops.add(Data.op(h, c.nodes[0]));
    StringBuilder chain = new StringBuilder();
    for (int i = 0; i <= k; i++) chain.append(i > 0 ? " < " : "").append(h.name(c.nodes[i % k]));
    sb.append("So ").append(chain).append(": no order of these transactions explains what they observed.");
    Map<String, Object> data = Anomaly.map("type", new Kw(type), "cycle", ops, "steps", stepData);
    if (extra != null) data.putAll(extra);
    int[] txns = c.nodes.clone();
    return new Anomaly(type, txns, data, sb.toString(), c);
  }

  /**
   * As {@link #describe(String)}, for a cycle whose transactions both wrote key (a rendered key,
   * or null): two transactions that each read what the other overwrote ran concurrently, and
   * when both wrote one key, snapshot isolation forbids that too (a lost update).
   */
  public static String describe(String type, String key) {
    if (key == null || !type.startsWith("G2-item")) return describe(type);
    return "a cycle with adjacent anti-dependencies: serializability forbids it, and since both transactions wrote key "
        + key + " without seeing each other's write, snapshot isolation forbids it too (a lost update)"
        + describe(type).substring(describe("G2-item").length());
  }

  /** For a cycle of two transactions linked both ways by anti-dependencies: a key both wrote, rendered; else null. */
  static String commonWrite(History h, Cycle c) {
    if (c.length() != 2 || c.labels[0] != Edge.RW || c.labels[1] != Edge.RW) return null;
    int a = c.nodes[0], b = c.nodes[1];
    for (int x = h.mopStart(a); x < h.mopEnd(a); x++) {
      if (h.mopKind(x) == isocheck.history.OpRecord.READ) continue;
      for (int y = h.mopStart(b); y < h.mopEnd(b); y++) {
        if (h.mopKind(y) != isocheck.history.OpRecord.READ && h.mopKey(y) == h.mopKey(x)) return h.keyStr(h.mopKey(x));
      }
    }
    return null;
  }

  static String names(History h, int[] ts) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < ts.length; i++) {
      if (i > 0) sb.append(i == ts.length - 1 ? " and " : ", ");
      sb.append(h.name(ts[i]));
    }
    return sb.toString();
  }
}
