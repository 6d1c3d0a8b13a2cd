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
 * and, for cycles, one arrow per step, labelled with its type and key; anti-dependencies dashed,
 * hypothetical steps dotted.
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
      sb.append("  ").append(h.name(t)).append(" [label=\"").append(esc(label(h, t, a))).append("\"];\n");
    }
    Cycle c = a.cycle;
    if (c != null) {
      @SuppressWarnings("unchecked")
      List<Map<String, Object>> steps = (List<Map<String, Object>>) a.data.get("steps");
      for (int i = 0; i < c.length(); i++) {
        int x = c.nodes[i], y = c.nodes[(i + 1) % c.length()];
        int l = c.labels[i];
        Map<String, Object> st = steps != null && i < steps.size() ? steps.get(i) : Map.of();
        String lab = Edge.name(l) + (st.containsKey("key") ? " " + isocheck.history.Edn.str(st.get("key")) : "");
        boolean hyp = Boolean.TRUE.equals(st.get("hypothetical"));
        sb.append("  ").append(h.name(x)).append(" -> ").append(h.name(y)).append(" [label=\"").append(esc(lab))
            .append("\", color=\"").append(color(l)).append("\"")
            .append(hyp ? ", style=dotted" : l == Edge.RW ? ", style=dashed" : "").append("];\n");
      }
    } else if (a.data.get("arrows") instanceof List) {
      // Weak-isolation patterns (Plume Fig. 3): reads-from, session and causal steps solid, forced commit order dashed.
      for (Object o : (List<?>) a.data.get("arrows")) {
        Map<?, ?> ar = (Map<?, ?>) o;
        String lab = String.valueOf(ar.get("label"));
        boolean cm = lab.startsWith("cm");
        sb.append("  \"").append(esc(String.valueOf(ar.get("from")))).append("\" -> \"").append(esc(String.valueOf(ar.get("to"))))
            .append("\" [label=\"").append(esc(lab)).append("\", color=\"")
            .append(cm ? "#c62828" : lab.startsWith("so") ? color(Edge.SO) : lab.startsWith("ww") ? color(Edge.WW) : color(Edge.WR))
            .append("\"").append(cm ? ", style=dashed" : "").append("];\n");
      }
    } else if (a.txns.length == 2 && a.data.containsKey("writer")) {
      sb.append("  ").append(h.name(a.txns[1])).append(" -> ").append(h.name(a.txns[0]))
          .append(" [label=\"read by\", color=\"#cc0000\"];\n");
    }
    return sb.append("}\n").toString();
  }

  private static String color(int l) {
    switch (l) {
      case Edge.WW: return "#1f4e9c";
      case Edge.WR: return "#2e7d32";
      case Edge.RW: return "#c62828";
      case Edge.SO: return "#6a1b9a";
      case Edge.RT: return "#ef6c00";
      default: return "#000000";
    }
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
