package isocheck.report;

import isocheck.graph.Cycle;
import isocheck.graph.Edge;
import isocheck.history.History;
import isocheck.history.OpType;
import java.util.List;
import java.util.Map;

/**
 * Graphviz pictures of counterexamples: one box per transaction (name, process, status, the op's
 * keys of the user's own, micro-ops)
 * and its {@link #arrows}, each labelled with its kind and key and drawn in its kind's colour and
 * style ({@link EdgeKind}); hypothetical steps dotted.
 */
public final class Dot {
  private Dot() {}

  /** The picture of a, its transactions left to right. */
  public static String of(History h, Anomaly a) { return of(h, a, false); }

  /**
   * The picture of a, its transactions left to right, or top to bottom when {@code vertical}
   * (for a long cycle, which side by side would be too wide to read on a page).
   */
  public static String of(History h, Anomaly a, boolean vertical) {
    StringBuilder sb = new StringBuilder();
    sb.append("digraph \"").append(esc(a.type)).append("\" {\n");
    sb.append("  graph [rankdir=").append(vertical ? "TB" : "LR").append(", fontname=\"Helvetica\", label=\"").append(esc(a.type))
        .append("\", labelloc=t];\n");
    sb.append("  node [shape=box, style=rounded, fontname=\"Courier\", fontsize=10];\n");
    sb.append("  edge [fontname=\"Helvetica\", fontsize=10];\n");
    java.util.LinkedHashSet<Integer> ts = new java.util.LinkedHashSet<>();
    for (int t : a.txns) ts.add(t);
    for (int t : ts) {
      sb.append("  ").append(node(h.name(t))).append(" [label=\"").append(esc(label(h, t, a))).append("\"];\n");
    }
    for (Arrow ar : arrows(h, a)) {
      sb.append("  ").append(node(ar.from)).append(" -> ").append(node(ar.to)).append(" [label=\"").append(esc(ar.label))
          .append("\", ").append(ar.kind != null ? ar.kind.dotAttrs(ar.hypothetical) : "color=\"#000000\"").append("];\n");
    }
    return sb.append("}\n").toString();
  }

  /** A node's id in DOT: a transaction's name (T12, the same node as its box's) or another ("init"), quoted. */
  private static String node(String name) { return "\"" + esc(name) + "\""; }

  /**
   * One arrow of a counterexample's picture: from and to name its ends (a transaction's name,
   * T12, or another node such as "init"); fromTxn and toTxn are the transactions (-1 for another
   * node); kind is null for an arrow of no {@link EdgeKind}.
   */
  public static final class Arrow {
    public final String from, to, label;
    public final int fromTxn, toTxn;
    public final EdgeKind kind;
    public final boolean hypothetical;

    Arrow(String from, String to, int fromTxn, int toTxn, EdgeKind kind, String label, boolean hypothetical) {
      this.from = from;
      this.to = to;
      this.fromTxn = fromTxn;
      this.toTxn = toTxn;
      this.kind = kind;
      this.label = label;
      this.hypothetical = hypothetical;
    }
  }

  /**
   * The arrows of a's pictures: for a cycle one per step, labelled with its kind and key; for a
   * weak-isolation or MTC pattern the arrows its data lists; for a read of a failed or
   * intermediate write, the write → read step.
   */
  public static List<Arrow> arrows(History h, Anomaly a) {
    List<Arrow> out = new java.util.ArrayList<>();
    Cycle c = a.cycle;
    if (c != null) {
      @SuppressWarnings("unchecked")
      List<Map<String, Object>> steps = (List<Map<String, Object>>) a.data.get("steps");
      for (int i = 0; i < c.length(); i++) {
        int x = c.nodes[i], y = c.nodes[(i + 1) % c.length()];
        int l = c.labels[i];
        Map<String, Object> st = steps != null && i < steps.size() ? steps.get(i) : Map.of();
        String lab = Edge.name(l) + (st.containsKey("key") ? " " + isocheck.history.Edn.str(st.get("key")) : "");
        out.add(new Arrow(h.name(x), h.name(y), x, y, EdgeKind.of(l), lab, Boolean.TRUE.equals(st.get("hypothetical"))));
      }
    } else if (a.data.get("arrows") instanceof List) {
      Map<String, Integer> byName = new java.util.HashMap<>();
      for (int t : a.txns) byName.put(h.name(t), t);
      for (Object o : (List<?>) a.data.get("arrows")) {
        Map<?, ?> ar = (Map<?, ?>) o;
        String from = String.valueOf(ar.get("from")), to = String.valueOf(ar.get("to")), lab = String.valueOf(ar.get("label"));
        out.add(new Arrow(from, to, byName.getOrDefault(from, -1), byName.getOrDefault(to, -1), EdgeKind.ofLabel(lab), lab, false));
      }
    } else if (a.txns.length == 2 && a.data.containsKey("writer")) {
      Object mop = a.data.get("mop");
      String key = mop instanceof List && ((List<?>) mop).size() > 1 ? " " + isocheck.history.Edn.str(((List<?>) mop).get(1)) : "";
      out.add(new Arrow(h.name(a.txns[1]), h.name(a.txns[0]), a.txns[1], a.txns[0], EdgeKind.WR, "wr" + key, false));
    }
    return out;
  }

  static String label(History h, int t) { return label(h, t, null); }

  /**
   * A transaction's box: its name (T and its op's :index), process and status, the keys of the
   * user's own its op carried, and its first ten micro-ops (long lists around a's position).
   */
  static String label(History h, int t, Anomaly a) {
    StringBuilder sb = new StringBuilder();
    sb.append(h.name(t)).append("  process ").append(isocheck.history.Edn.str(h.process(t))).append("  ")
        .append(h.completeOrdinal(t) >= 0 ? OpType.name(h.status(t)) : "pending").append('\n');
    String extras = Data.extrasStr(h, t);
    if (!extras.isEmpty()) sb.append(extras).append('\n');
    int shown = 0;
    for (int m = h.mopStart(t); m < h.mopEnd(t); m++) {
      if (shown == 10) {
        sb.append("… ").append(h.mopEnd(t) - m).append(" more\n");
        break;
      }
      int focus = Data.focus(h, a, m);
      String s = h.mopStr(m, focus);
      int max = focus >= 0 ? 140 : 60;
      if (s.length() > max) s = s.substring(0, max - 3) + "...]";
      sb.append(s).append('\n');
      shown++;
    }
    return sb.toString();
  }

  private static String esc(String s) {
    return s.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\l");
  }
}
