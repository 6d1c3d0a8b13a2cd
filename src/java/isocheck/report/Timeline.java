package isocheck.report;

import isocheck.history.Edn;
import isocheck.history.History;
import isocheck.history.OpRecord;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;

/**
 * A counterexample's transactions on a timeline, as inline SVG for report.html: one lane per
 * process, each transaction a bar from its invocation to its completion labelled with its name
 * and micro-ops, and the counterexample's arrows ({@link Dot#arrows}) drawn across the lanes in
 * their {@link EdgeKind}'s colour, so that realtime and process order can be seen. Lanes follow the
 * order in which the counterexample names its transactions (a cycle's), so most steps join
 * neighbouring lanes.
 *
 * <p>Invocations and completions are placed by the ops' :time when every one involved has one,
 * else by their op's :index (their position in the history when ops have none); the axis keeps their order, not their distances (one
 * column per distinct instant), so that a millisecond's transactions among minutes stay apart.
 * A transaction that never completed runs to the right edge, open; one with no invocation in the
 * history (a completion-only history) is a short mark at its completion.
 */
final class Timeline {
  private Timeline() {}

  static final int LANE_H = 64, LABEL_W = 104, TOP = 8, AXIS_H = 34, BAR_H = 14, MIN_COL = 64, MAX_COL = 170;
  /** The width of a character of the bars' 11 px monospace labels. */
  static final double CHAR_W = 6.7;

  /**
   * Whether the timeline places events by the ops' :time: when every invocation and completion
   * of txns has one, and they tell apart as many instants as their positions in the history do
   * (a history whose ops all carry the same :time is placed by position).
   */
  static boolean byTime(History h, int[] txns) {
    TreeSet<Long> times = new TreeSet<>(), positions = new TreeSet<>();
    for (int t : txns) {
      if (h.invokeOrdinal(t) >= 0) {
        if (h.invokeTime(t) == OpRecord.ABSENT) return false;
        times.add(h.invokeTime(t));
        positions.add(h.invokeOrdinal(t));
      }
      if (h.completeOrdinal(t) >= 0) {
        if (h.completeTime(t) == OpRecord.ABSENT) return false;
        times.add(h.completeTime(t));
        positions.add(h.completeOrdinal(t));
      }
    }
    return txns.length > 0 && times.size() == positions.size();
  }

  /**
   * The SVG of a's timeline (no XML prolog), at most about widthPx wide unless it has many events;
   * id, unique in the page, prefixes its arrowheads' ids.
   */
  static String svg(History h, Anomaly a, List<Dot.Arrow> arrows, int widthPx, String id) {
    LinkedHashSet<Integer> set = new LinkedHashSet<>();
    for (int t : a.txns) if (t >= 0) set.add(t);
    int[] ts = set.stream().mapToInt(Integer::intValue).toArray();
    boolean time = byTime(h, ts);
    int n = ts.length;
    long[] start = new long[n], end = new long[n];
    boolean[] open = new boolean[n];
    TreeSet<Long> events = new TreeSet<>();
    for (int i = 0; i < n; i++) {
      int t = ts[i];
      boolean done = h.completeOrdinal(t) >= 0, invoked = h.invokeOrdinal(t) >= 0;
      long inv = invoked ? (time ? h.invokeTime(t) : position(h, t, true)) : Long.MIN_VALUE;
      long cmp = done ? (time ? h.completeTime(t) : position(h, t, false)) : Long.MIN_VALUE;
      start[i] = invoked ? inv : cmp;
      end[i] = done ? cmp : inv;
      open[i] = !done;
      events.add(start[i]);
      events.add(end[i]);
    }
    Long[] ev = events.toArray(new Long[0]);
    int cols = ev.length + (anyOpen(open) ? 1 : 0);
    double col = Math.max(MIN_COL, Math.min(MAX_COL, (widthPx - LABEL_W - 24) / (double) Math.max(1, cols)));
    double width = LABEL_W + 12 + col * cols + 12;

    // Lanes: processes in the order the counterexample names its transactions (a cycle's order),
    // so that most steps go between neighbouring lanes.
    LinkedHashMap<Object, Integer> lanes = new LinkedHashMap<>();
    int[] lane = new int[n];
    for (int i = 0; i < n; i++) {
      Object p = h.process(ts[i]);
      Integer l = lanes.get(p);
      if (l == null) lanes.put(p, l = lanes.size());
      lane[i] = l;
    }
    double height = TOP + lanes.size() * LANE_H + AXIS_H;
    double[] x0 = new double[n], x1 = new double[n], yBar = new double[n];
    for (int i = 0; i < n; i++) {
      x0[i] = x(ev, start[i], col);
      x1[i] = open[i] ? LABEL_W + 12 + col * cols : x(ev, end[i], col);
      if (x1[i] - x0[i] < 8) {
        double mid = (x0[i] + x1[i]) / 2;
        x0[i] = mid - 4;
        x1[i] = mid + 4;
      }
      yBar[i] = TOP + lane[i] * LANE_H + 26;
    }

    StringBuilder sb = new StringBuilder();
    sb.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"timeline\" width=\"%.0f\" height=\"%.0f\" "
        + "viewBox=\"0 0 %.0f %.0f\" data-by=\"%s\">\n", width, height, width, height, time ? "time" : "position"));
    sb.append("<defs>");
    for (EdgeKind k : EdgeKind.values()) marker(sb, id, k.label, k.color);
    marker(sb, id, "other", "#000000");
    sb.append("</defs>\n");
    // Lanes.
    for (Map.Entry<Object, Integer> e : lanes.entrySet()) {
      double y = TOP + e.getValue() * LANE_H;
      String p = Edn.str(e.getKey());
      sb.append("<g class=\"lane\" data-process=\"").append(ReportFiles.esc(p)).append("\">");
      sb.append(String.format(Locale.ROOT, "<rect x=\"0\" y=\"%.1f\" width=\"%.0f\" height=\"%d\" fill=\"%s\"/>", y, width, LANE_H,
          e.getValue() % 2 == 0 ? "#f7f7f7" : "#ffffff"));
      sb.append(String.format(Locale.ROOT, "<text x=\"6\" y=\"%.1f\" class=\"lane-label\">process %s</text>", y + 30,
          ReportFiles.esc(fit(p, (LABEL_W - 60) / 6))));
      sb.append("</g>\n");
    }
    // Axis: a tick per instant, its time (seconds from the first) or its position in the history.
    double axisY = TOP + lanes.size() * LANE_H;
    sb.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"#999\"/>", LABEL_W, axisY + 4, width - 6,
        axisY + 4));
    sb.append(String.format(Locale.ROOT, "<text x=\"6\" y=\"%.1f\" class=\"axis\">%s</text>", axisY + 18,
        time ? "time (s)" : h.indexUsable ? "op :index" : "position"));
    double lastLabel = -1e9;
    int decimals = 3;
    if (time) {
      // Enough decimals that instants apart are labelled apart (to the microsecond).
      while (decimals < 6 && !distinct(ev, decimals)) decimals++;
    }
    for (long v : ev) {
      double x = x(ev, v, col);
      sb.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#999\"/>", x, axisY, x, axisY + 8));
      String lab = time ? String.format(Locale.ROOT, "+%." + decimals + "f", (v - ev[0]) / 1e9) : String.valueOf(v);
      if (x - lastLabel >= lab.length() * 6.2 + 8) {
        sb.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\" class=\"axis\" text-anchor=\"middle\">%s</text>", x, axisY + 20, lab));
        lastLabel = x;
      }
    }
    sb.append('\n');
    // Bars, each labelled up to where the next bar of its lane starts; drawn over the arrows'
    // lines, under their labels.
    StringBuilder bars = new StringBuilder(), lines = new StringBuilder(), heads = new StringBuilder(), labels = new StringBuilder();
    for (int i = 0; i < n; i++) {
      int t = ts[i];
      double room = width - 6 - x0[i];
      for (int j = 0; j < n; j++) if (j != i && lane[j] == lane[i] && x0[j] > x0[i]) room = Math.min(room, x0[j] - x0[i] - 6);
      String full = h.name(t) + " " + h.txnStr(t);
      String shown = fit(full, (int) Math.max(h.name(t).length(), room / CHAR_W));
      String status = h.completeOrdinal(t) >= 0 ? isocheck.history.OpType.name(h.status(t)) : "pending";
      String fill = status.equals("ok") ? "#90a4ae" : status.equals("fail") ? "#ef9a9a" : "#ffe082";
      bars.append("<g class=\"txn\" data-txn=\"").append(h.name(t)).append("\"><title>").append(ReportFiles.esc(h.name(t) + " (process "
          + Edn.str(h.process(t)) + ", " + status + ", " + span(h, t, time) + ") " + fit(h.txnStr(t), 400))).append("</title>");
      bars.append(String.format(Locale.ROOT, "<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" rx=\"3\" fill=\"%s\"%s/>",
          x0[i], yBar[i] - BAR_H / 2.0, x1[i] - x0[i], BAR_H, fill, open[i] ? " stroke=\"#555\" stroke-dasharray=\"3 2\"" : ""));
      bars.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\" class=\"bar-label\">", x0[i], yBar[i] - BAR_H / 2.0 - 4))
          .append("<tspan font-weight=\"bold\">").append(ReportFiles.esc(h.name(t))).append("</tspan>")
          .append(ReportFiles.esc(shown.substring(Math.min(shown.length(), h.name(t).length())))).append("</text></g>\n");
    }
    // Arrows: process and realtime order from the end of the first to the start of the second;
    // dependencies from bar to bar. Parallel arrows between the same lanes bend apart.
    Map<Integer, Integer> idx = new LinkedHashMap<>();
    for (int i = 0; i < n; i++) idx.put(ts[i], i);
    Map<String, Integer> seen = new LinkedHashMap<>();
    for (Dot.Arrow ar : arrows) {
      Integer fi = idx.get(ar.fromTxn), ti = idx.get(ar.toTxn);
      if (fi == null || ti == null) continue;
      boolean seq = ar.kind == EdgeKind.PROCESS || ar.kind == EdgeKind.REALTIME;
      String pairKey = Math.min(lane[fi], lane[ti]) + "/" + Math.max(lane[fi], lane[ti]);
      int k = seen.merge(pairKey, 1, Integer::sum) - 1;
      // Where the arrow leaves and arrives: one bar after the other, from the end of the first to
      // the start of the second (or, running backwards in time, from the start of the first to
      // the end of the second); bars that overlap, straight across their overlap.
      double lo = Math.max(x0[fi], x0[ti]), hi = Math.min(x1[fi], x1[ti]), ax, bx, bend = 0;
      String anchor = "middle";
      if (seq || x1[fi] <= x0[ti]) {
        ax = x1[fi];
        bx = x0[ti];
        bend = 12 + 16 * k;
      } else if (x1[ti] <= x0[fi]) {
        ax = x0[fi];
        bx = x1[ti];
        bend = 12 + 16 * k;
      } else {
        double off = (k % 2 == 0 ? 1 : -1) * 14 * ((k + 1) / 2);
        ax = bx = Math.max(lo + 2, Math.min(hi - 2, (lo + hi) / 2 + off));
        // Straight down or up: the label beside the line, away from its neighbour's.
        anchor = off >= 0 ? "start" : "end";
      }
      double ay, by, cx, cy;
      if (lane[fi] == lane[ti]) {
        // Within a lane: an arc below the bars (their labels are above).
        ay = yBar[fi] + BAR_H / 2.0;
        by = yBar[ti] + BAR_H / 2.0;
        cx = (ax + bx) / 2;
        cy = Math.max(ay, by) + 20 + 6 * k;
      } else {
        boolean down = lane[ti] > lane[fi];
        ay = yBar[fi] + (down ? BAR_H / 2.0 : -BAR_H / 2.0);
        by = yBar[ti] + (down ? -BAR_H / 2.0 : BAR_H / 2.0);
        // Bent to the arrow's right: two arrows between the same ends in opposite directions part.
        double dx = bx - ax, dy = by - ay, len = Math.max(1, Math.hypot(dx, dy));
        cx = (ax + bx) / 2 - dy / len * bend;
        cy = (ay + by) / 2 + dx / len * bend;
      }
      EdgeKind kind = ar.kind;
      String color = kind != null ? kind.color : "#000000";
      String dash = kind != null ? kind.dashArray(ar.hypothetical) : null;
      // The label at the curve's midpoint (a quadratic Bézier's point at t = 1/2).
      double mx = (ax + 2 * cx + bx) / 4 + (anchor.equals("start") ? 4 : anchor.equals("end") ? -4 : 0), my = (ay + 2 * cy + by) / 4;
      String k0 = kind != null ? kind.label : "other";
      lines.append("<g class=\"edge\" data-kind=\"").append(k0).append("\" data-from=\"")
          .append(ReportFiles.esc(ar.from)).append("\" data-to=\"").append(ReportFiles.esc(ar.to)).append("\"><title>")
          .append(ReportFiles.esc(ar.from + " " + ar.label + " → " + ar.to + (ar.hypothetical ? " (hypothetical)" : ""))).append("</title>");
      lines.append(String.format(Locale.ROOT, "<path d=\"M%.1f,%.1f Q%.1f,%.1f %.1f,%.1f\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.6\"%s/>",
          ax, ay, cx, cy, bx, by, color, dash != null ? " stroke-dasharray=\"" + dash + "\"" : ""));
      lines.append("</g>\n");
      // The head over the bars' labels: the curve's last stretch (from t = 0.85), with the arrowhead.
      double u = 0.85, hx = (1 - u) * (1 - u) * ax + 2 * (1 - u) * u * cx + u * u * bx, hy = (1 - u) * (1 - u) * ay + 2 * (1 - u) * u * cy + u * u * by;
      double qx = (1 - u) * cx + u * bx, qy = (1 - u) * cy + u * by;
      heads.append(String.format(Locale.ROOT, "<path class=\"edge-head\" d=\"M%.1f,%.1f Q%.1f,%.1f %.1f,%.1f\" fill=\"none\" stroke=\"%s\" "
          + "stroke-width=\"1.6\" marker-end=\"url(#%s-arrow-%s)\"/>\n", hx, hy, qx, qy, bx, by, color, id, k0));
      labels.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\" class=\"edge-label\" fill=\"%s\" text-anchor=\"%s\">%s</text>\n",
          mx, my + 4, color, anchor, ReportFiles.esc(fit(ar.label, 24))));
    }
    sb.append(lines).append(bars).append(heads).append(labels);
    return sb.append("</svg>").toString();
  }

  /**
   * Where t's invocation (or completion) is in the history: its op's :index when every op has one
   * (they then increase), else its position (from 0).
   */
  static long position(History h, int t, boolean invocation) {
    if (h.indexUsable) {
      long i = invocation ? h.invokeIndex(t) : h.completeIndex(t);
      if (i != OpRecord.ABSENT) return i;
    }
    return invocation ? h.invokeOrdinal(t) : h.completeOrdinal(t);
  }

  /** Whether the instants, as seconds from the first with that many decimals, all differ. */
  private static boolean distinct(Long[] ev, int decimals) {
    String prev = null;
    for (long v : ev) {
      String s = String.format(Locale.ROOT, "%." + decimals + "f", (v - ev[0]) / 1e9);
      if (s.equals(prev)) return false;
      prev = s;
    }
    return true;
  }

  private static boolean anyOpen(boolean[] open) {
    for (boolean o : open) if (o) return true;
    return false;
  }

  /** The x of an instant: the middle of its column. */
  private static double x(Long[] ev, long v, double col) {
    int i = Arrays.binarySearch(ev, v);
    return LABEL_W + 12 + col * (i + 0.5);
  }

  private static void marker(StringBuilder sb, String prefix, String id, String color) {
    sb.append("<marker id=\"").append(prefix).append("-arrow-").append(id).append("\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" ")
        .append("orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"").append(color).append("\"/></marker>");
  }

  /** s cut to at most max characters, ending in "…" when cut. */
  static String fit(String s, int max) {
    if (s.length() <= max) return s;
    return max <= 1 ? "…" : s.substring(0, max - 1) + "…";
  }

  /** When t ran, as the tooltip says it: ":time 1.234 s → 1.240 s" or "ops 12 → 15". */
  private static String span(History h, int t, boolean time) {
    boolean inv = h.invokeOrdinal(t) >= 0, done = h.completeOrdinal(t) >= 0;
    if (time) {
      return (inv ? String.format(Locale.ROOT, "invoked at %.3f s", h.invokeTime(t) / 1e9) : "no invocation")
          + (done ? String.format(Locale.ROOT, ", completed at %.3f s", h.completeTime(t) / 1e9) : ", never completed");
    }
    String at = h.indexUsable ? " at :index " : " at position ";
    return (inv ? "invoked" + at + position(h, t, true) : "no invocation")
        + (done ? ", completed" + at + position(h, t, false) : ", never completed");
  }
}
