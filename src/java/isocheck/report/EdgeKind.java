package isocheck.report;

import isocheck.graph.Edge;

/**
 * The kinds of arrow the report's pictures draw (the Graphviz pictures, the timelines and the
 * legend of report.html), each with its one colour and line style: every picture draws a kind
 * the same way, and the legend says so.
 */
public enum EdgeKind {
  WR("wr", "#2e7d32", false, "write → read: the second read a value the first wrote"),
  WW("ww", "#1f4e9c", false, "write → write: the second's write of a key came after the first's"),
  RW("rw", "#c62828", true, "read → write (anti-dependency): the second overwrote the version the first read"),
  PROCESS("process", "#6a1b9a", false, "process (session) order: the same process ran the first, then the second"),
  REALTIME("realtime", "#ef6c00", false, "realtime: the first completed before the second was invoked"),
  CM("cm", "#00838f", true, "commit order a weak level forces: the first must commit before the second"),
  INTRA("intra", "#757575", false, "a transaction's begin before its commit (snapshot isolation's split graph)");

  /** The name pictures label arrows with (then the key, if any). */
  public final String label;
  /** The colour, #rrggbb. */
  public final String color;
  /** Drawn dashed (anti-dependencies and forced commit order); the others solid. */
  public final boolean dashed;
  public final String meaning;

  EdgeKind(String label, String color, boolean dashed, String meaning) {
    this.label = label;
    this.color = color;
    this.dashed = dashed;
    this.meaning = meaning;
  }

  /** The kind of a cycle step labelled with an {@link Edge} type, or null for an unknown one. */
  public static EdgeKind of(int edgeType) {
    switch (edgeType) {
      case Edge.WR: return WR;
      case Edge.WW: return WW;
      case Edge.RW: return RW;
      case Edge.SO: return PROCESS;
      case Edge.RT: return REALTIME;
      case Edge.CM: return CM;
      case Edge.INTRA: return INTRA;
      default: return null;
    }
  }

  /**
   * The kind an arrow's label names by its first word ("rw :x", "so", "cm", "realtime"), or null
   * when it names none.
   */
  public static EdgeKind ofLabel(String label) {
    String w = label.trim().split("\\s+", 2)[0];
    if (w.equals("so")) return PROCESS;
    for (EdgeKind k : values()) if (k.label.equals(w)) return k;
    return null;
  }

  /** An SVG stroke-dasharray for the kind, hypothetical steps dotted; null for a solid line. */
  public String dashArray(boolean hypothetical) {
    return hypothetical ? "2 3" : dashed ? "6 4" : null;
  }

  /** Graphviz edge attributes: colour, and style when not solid. */
  public String dotAttrs(boolean hypothetical) {
    return "color=\"" + color + "\", fontcolor=\"" + color + "\"" + (hypothetical ? ", style=dotted" : dashed ? ", style=dashed" : "");
  }
}
