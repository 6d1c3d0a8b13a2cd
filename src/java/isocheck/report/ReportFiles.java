package isocheck.report;

import isocheck.check.Level;
import isocheck.check.Result;
import isocheck.check.Verdict;
import isocheck.history.History;
import isocheck.history.OpType;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Writes a check's report into a directory: report.txt (the text report), result.json,
 * one DOT file per anomaly type's smallest counterexample ({@code <type>.dot}, plus
 * {@code <type>.svg} when graphviz is installed), and report.html, a self-contained page with
 * the verdicts, the explanations and the pictures. (The Clojure layer adds result.edn.)
 */
public final class ReportFiles {
  private ReportFiles() {}

  public static void write(Path dir, Result r) throws IOException { write(dir, r, null); }

  /**
   * Writes the report of r into dir; source names the history checked (a file, or "standard
   * input"), shown at the top of report.txt and report.html, or null.
   */
  public static void write(Path dir, Result r, String source) throws IOException {
    Files.createDirectories(dir);
    Files.writeString(dir.resolve("report.txt"), (source == null ? "" : "input: " + source + "\n") + r.text(),
        StandardCharsets.UTF_8);
    Files.writeString(dir.resolve("result.json"), Json.write(r.toData()) + "\n", StandardCharsets.UTF_8);
    List<String> relevant = r.relevantTypes();
    // One section per fact: a Plume pattern that is one of Elle's anomalies is named in the latter's.
    List<String> shown = r.shownTypes();
    Map<String, String> same = r.sameAs();
    Verdict.Value v = r.valid();
    String heading = heading(source);
    StringBuilder html = new StringBuilder();
    html.append("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">")
        .append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>")
        .append(esc((heading != null ? heading + " \u2014 " : "") + "isocheck report: " + word(v))).append("</title><style>")
        .append("body{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}")
        .append("h1{font-size:1.6em;margin-bottom:0.2em}h1 .what{color:#666;font-weight:normal}")
        .append("table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px 10px;text-align:left;vertical-align:top}")
        .append(".ok{color:#2e7d32}.bad{color:#c62828;font-weight:bold}.unk{color:#ef6c00}")
        .append("a{color:#1f4e9c}table.levels a{white-space:nowrap}")
        .append("nav.toc{background:#f3f5f9;border:1px solid #dde3ee;padding:6px 10px;margin:1em 0;line-height:1.8}")
        .append("nav.toc a{white-space:nowrap;margin-right:0.3em}nav.toc .n{color:#666;font-size:85%}")
        .append(".sec-head{display:flex;align-items:baseline;gap:1em;border-top:1px solid #ddd;margin-top:1.6em}")
        .append(".sec-head h2{margin:0.5em 0}.sec-head a.back{font-size:85%;margin-left:auto}")
        // Nothing pushes the page sideways: long lines and tokens wrap.
        .append("pre{background:#f6f6f6;padding:10px;overflow-x:auto;white-space:pre-wrap;overflow-wrap:anywhere}")
        .append("code{overflow-wrap:anywhere}")
        .append(".txns{margin:0.5em 0 1em}.txns td{font-family:monospace;font-size:90%;overflow-wrap:anywhere}")
        .append(".txns .name{white-space:nowrap;font-weight:bold}.txns .mops div{padding-left:1em;text-indent:-1em}")
        // A wide cycle scales down to the page; it can still be scrolled at full size.
        .append(".pic{overflow-x:auto}.pic svg{max-width:100%;height:auto}")
        .append(".tl{overflow-x:auto;margin:0.5em 0}.tl svg{max-width:100%;height:auto;display:block}")
        .append("svg.timeline text{font-size:11px}svg.timeline .bar-label{font-family:monospace;paint-order:stroke;stroke:#fff;stroke-width:3px;stroke-linejoin:round}")
        .append("svg.timeline .lane-label,svg.timeline .axis{font-family:sans-serif;fill:#555}")
        .append("svg.timeline .edge-label{font-family:sans-serif;font-weight:bold;paint-order:stroke;stroke:#fff;stroke-width:3px}")
        .append(".caption{color:#555;font-size:90%;margin:0.3em 0}")
        .append("table.legend td{border:none;padding:2px 8px;vertical-align:middle}table.legend .kind{font-family:monospace;font-weight:bold}")
        .append("table.stats td.v{text-align:right;font-variant-numeric:tabular-nums}")
        .append("</style></head><body>\n<h1 id=\"top\"><span class=\"what\">isocheck report")
        .append(heading != null ? ":</span> " + esc(heading) : "</span>").append("</h1>\n");
    if (source != null) html.append("<p>input: <code>").append(esc(source)).append("</code></p>\n");
    // Contents: every section, the anomalies with their counts.
    html.append("<nav class=\"toc\"><b>Contents:</b> <a href=\"#verdicts\">verdicts</a>");
    if (!relevant.isEmpty()) html.append(" &middot; <a href=\"#legend\">legend</a>");
    for (String type : shown) {
      html.append(" &middot; <a href=\"#").append(anchor(type)).append("\">").append(esc(type)).append("</a>&nbsp;<span class=\"n\">(")
          .append(String.format("%,d", r.anomalies.count(type))).append(")</span>");
    }
    html.append(" &middot; <a href=\"#stats\">stats</a></nav>\n");
    html.append("<section id=\"verdicts\">\n<p>valid? <span class=\"").append(cls(v)).append("\">").append(word(v)).append("</span> &mdash; ")
        .append(esc(String.valueOf(r.stats.get("txns")))).append(" transactions</p>\n<table class=\"levels\"><tr><th>level</th><th>verdict</th><th>anomalies / reason</th></tr>\n");
    for (Map.Entry<Level, Verdict> e : r.levels.entrySet()) {
      Verdict lv = e.getValue();
      html.append("<tr><td>").append(esc(e.getKey().id)).append("</td><td class=\"").append(cls(lv.value)).append("\">")
          .append(word(lv.value)).append("</td><td>");
      if (lv.reason != null) {
        html.append(esc(lv.reason));
      } else {
        boolean first = true;
        for (String t : lv.anomalyTypes) {
          if (!first) html.append(", ");
          first = false;
          String at = same.getOrDefault(t, t);
          if (relevant.contains(t)) {
            html.append("<a href=\"#").append(anchor(at)).append("\">").append(esc(at.equals(t) ? t : at + " as " + t)).append("</a>");
          }
          else html.append(esc(t));
        }
      }
      html.append("</td></tr>\n");
    }
    html.append("</table>\n</section>\n");
    if (!relevant.isEmpty()) {
      html.append("<p>Transactions are named by the <code>:index</code> of their op in the history: T12 is the one whose ")
          .append("completion has <code>:index 12</code> (whose invocation, if it never completed)")
          .append(r.history.indexUsable ? "" : "; an op without an <code>:index</code> by its position in the history, from 0")
          .append(".</p>\n");
      legend(html);
    }
    for (String type : shown) {
      List<Anomaly> inst = r.anomalies.get(type);
      html.append("<section class=\"anomaly\" id=\"").append(anchor(type)).append("\">\n<div class=\"sec-head\"><h2>").append(esc(type))
          .append(esc(r.alsoNames(type))).append("</h2><a class=\"back\" href=\"#top\">&uarr; contents</a></div>\n");
      if (inst.isEmpty()) {
        html.append("<p>").append(r.anomalies.count(type)).append(" counted</p>\n</section>\n");
        continue;
      }
      Anomaly a = inst.get(0);
      String dot = Dot.of(r.history, a);
      String svg = Graphviz.svg(dot);
      if (svg != null && widthPx(svg) > PAGE_PX) {
        // Too wide to read once scaled to the page (a long cycle side by side): top to bottom if narrower.
        String tall = Dot.of(r.history, a, true), tallSvg = Graphviz.svg(tall);
        if (tallSvg != null && widthPx(tallSvg) < widthPx(svg)) {
          dot = tall;
          svg = tallSvg;
        }
      }
      String file = anchor(type);
      Files.writeString(dir.resolve(file + ".dot"), dot, StandardCharsets.UTF_8);
      if (svg != null) Files.writeString(dir.resolve(file + ".svg"), svg, StandardCharsets.UTF_8);
      long n = r.anomalies.count(type);
      html.append("<p>").append(n).append(n == 1 ? " instance" : " instances")
          .append(n > 1 ? ("bounded".equals(r.counterexampleSearch) ? "; the smallest found within the time bound:" : "; the smallest:") : ":")
          .append("</p>\n");
      txns(html, r.history, a, r.listed(a));
      html.append("<pre class=\"explanation\">").append(esc(a.explanation)).append("</pre>\n");
      int[] ts = a.txns;
      boolean byTime = Timeline.byTime(r.history, ts);
      html.append("<div class=\"tl\">").append(Timeline.svg(r.history, a, Dot.arrows(r.history, a), PAGE_PX, "tl-" + anchor(type))).append("</div>\n")
          .append("<p class=\"caption\">Timeline: a lane per process, a bar per transaction from its invocation to its completion, ")
          .append(byTime ? "placed by the ops' <code>:time</code>" : r.history.indexUsable ? "placed by the ops' <code>:index</code>"
              : "placed by the ops' positions in the history")
          .append(" (in order, not to scale); the arrows are the counterexample's steps.</p>\n");
      if (svg != null) {
        int at = svg.indexOf("<svg");
        html.append("<div class=\"pic\">").append(at >= 0 ? svg.substring(at) : svg).append("</div>\n");
      } else {
        html.append("<pre class=\"pic\">").append(esc(dot)).append("</pre>\n");
      }
      html.append("</section>\n");
    }
    List<String> others = new java.util.ArrayList<>();
    for (String t : AnomalyOrder.sorted(r.anomalies.types())) if (!relevant.contains(t)) others.add(t + " (" + r.anomalies.count(t) + ")");
    if (!others.isEmpty()) {
      html.append("<p>Also found, bearing on no level asked for: ").append(esc(String.join(", ", others))).append("</p>\n");
    }
    stats(html, r.stats);
    html.append("</body></html>\n");
    Files.writeString(dir.resolve("report.html"), html.toString(), StandardCharsets.UTF_8);
  }

  /** A type's anchor in report.html and its pictures' file name: the type, other characters than [A-Za-z0-9._-] as _. */
  static String anchor(String type) { return type.replaceAll("[^A-Za-z0-9._-]", "_"); }

  private static final java.util.regex.Pattern JEPSEN_TIME =
      java.util.regex.Pattern.compile("[0-9]{8}T[0-9]{6}(\\.[0-9]+)?(Z|[+-][0-9]{2}:?[0-9]{2})?|latest|current");

  /**
   * What report.html's title and heading name: the history's file name, with its Jepsen test's
   * name and time when it lies in a Jepsen store (store/TEST/TIME/history.edn); a label that is
   * not a file (standard input, a Jepsen test's name) as it is; null without a source.
   */
  static String heading(String source) {
    if (source == null || source.isEmpty()) return null;
    if (source.equals("-") || source.equals("standard input") || source.startsWith("Jepsen test ")) return source;
    Path p;
    try {
      p = java.nio.file.Paths.get(source);
    } catch (java.nio.file.InvalidPathException e) {
      return source;
    }
    if (p.getFileName() == null) return source;
    String name = p.getFileName().toString();
    Path time = p.getParent(), test = time == null ? null : time.getParent();
    if (test != null && test.getFileName() != null && JEPSEN_TIME.matcher(time.getFileName().toString()).matches()) {
      return name + " of Jepsen test " + test.getFileName() + ", " + time.getFileName();
    }
    return name;
  }

  /** The legend of the pictures and timelines: every kind of arrow with its colour and line, and the bars' colours. */
  private static void legend(StringBuilder html) {
    html.append("<section id=\"legend\">\n<div class=\"sec-head\"><h2>Legend</h2><a class=\"back\" href=\"#top\">&uarr; contents</a></div>\n")
        .append("<p class=\"caption\">An arrow from T1 to T2 says T1 comes before T2 in the way its kind names; ")
        .append("every picture and timeline draws each kind in one colour:</p>\n<table class=\"legend\">\n");
    for (EdgeKind k : EdgeKind.values()) {
      String dash = k.dashArray(false);
      html.append("<tr class=\"edge-kind\" data-kind=\"").append(k.label).append("\" data-color=\"").append(k.color).append("\"><td>")
          .append("<svg width=\"54\" height=\"12\" viewBox=\"0 0 54 12\"><line x1=\"2\" y1=\"6\" x2=\"44\" y2=\"6\" stroke=\"")
          .append(k.color).append("\" stroke-width=\"2\"").append(dash != null ? " stroke-dasharray=\"" + dash + "\"" : "")
          .append("/><path d=\"M44,1 L53,6 L44,11 z\" fill=\"").append(k.color).append("\"/></svg></td><td class=\"kind\" style=\"color:")
          .append(k.color).append("\">").append(k.label).append(k == EdgeKind.PROCESS ? " (so)" : "").append("</td><td>").append(esc(k.meaning)).append("</td></tr>\n");
    }
    html.append("<tr><td><svg width=\"54\" height=\"12\" viewBox=\"0 0 54 12\"><line x1=\"2\" y1=\"6\" x2=\"52\" y2=\"6\" ")
        .append("stroke=\"#555\" stroke-width=\"2\" stroke-dasharray=\"2 3\"/></svg></td><td class=\"kind\">dotted</td>")
        .append("<td>a hypothetical step: an order the search assumed to close the cycle</td></tr>\n")
        .append("<tr><td><svg width=\"54\" height=\"12\" viewBox=\"0 0 54 12\"><rect x=\"1\" y=\"1\" width=\"16\" height=\"10\" rx=\"2\" ")
        .append("fill=\"#90a4ae\"/><rect x=\"19\" y=\"1\" width=\"16\" height=\"10\" rx=\"2\" fill=\"#ef9a9a\"/><rect x=\"37\" y=\"1\" ")
        .append("width=\"16\" height=\"10\" rx=\"2\" fill=\"#ffe082\"/></svg></td><td class=\"kind\">bars</td>")
        .append("<td>timeline bars: committed (<code>:ok</code>), aborted (<code>:fail</code>), indeterminate (<code>:info</code>, ")
        .append("or never completed: open-ended)</td></tr>\n</table>\n</section>\n");
  }

  /** The stats: the key figures as a table, then every figure as EDN, folded. */
  private static void stats(StringBuilder html, Map<String, Object> st) {
    html.append("<section id=\"stats\">\n<div class=\"sec-head\"><h2>Stats</h2><a class=\"back\" href=\"#top\">&uarr; contents</a></div>\n")
        .append("<table class=\"stats\">\n");
    statRow(html, "transactions", st.get("txns"), parts(st, "ok", "fail", "info"));
    statRow(html, "ops read", st.get("ops"), parts(st, "skipped-ops", "skipped-non-client-ops"));
    statRow(html, "processes (sessions)", st.get("sessions"), null);
    statRow(html, "keys", st.get("keys"), null);
    statRow(html, "dependency edges", st.get("edges"), null);
    Object ms = st.get("ms");
    if (ms instanceof Map) {
      Map<?, ?> m = (Map<?, ?>) ms;
      statRow(html, "time to check (ms)", m.get("total"), m.containsKey("load") ? "of which loading " + m.get("load") + " ms" : null);
    }
    Object wl = st.get("workload");
    if (wl != null) html.append("<tr><td>workload</td><td class=\"v\">").append(esc(isocheck.history.Edn.str(wl))).append("</td><td></td></tr>\n");
    html.append("</table>\n<details><summary>all stats (EDN, as in result.edn)</summary><pre>")
        .append(esc(isocheck.history.Edn.str(st))).append("</pre></details>\n</section>\n");
  }

  private static String parts(Map<String, Object> st, String... keys) {
    List<String> l = new java.util.ArrayList<>();
    for (String k : keys) if (st.get(k) instanceof Number) l.add(k + " " + num(st.get(k)));
    return l.isEmpty() ? null : String.join(", ", l);
  }

  private static void statRow(StringBuilder html, String what, Object v, String detail) {
    if (v == null) return;
    html.append("<tr><td>").append(esc(what)).append("</td><td class=\"v\">").append(esc(num(v))).append("</td><td>")
        .append(detail == null ? "" : esc(detail)).append("</td></tr>\n");
  }

  private static String num(Object v) {
    return v instanceof Long || v instanceof Integer ? String.format("%,d", ((Number) v).longValue()) : String.valueOf(v);
  }

  /** The width of the page's content (body max-width), in CSS pixels. */
  static final int PAGE_PX = 1100;

  private static final java.util.regex.Pattern SVG_WIDTH = java.util.regex.Pattern.compile("<svg[^>]*?\\swidth=\"([0-9.]+)pt\"");

  /** An SVG's natural width in CSS pixels (Graphviz gives points), or 0 when it does not say. */
  static double widthPx(String svg) {
    java.util.regex.Matcher m = SVG_WIDTH.matcher(svg);
    return m.find() ? Double.parseDouble(m.group(1)) * 4 / 3 : 0;
  }

  /** Micro-ops shown per transaction in the HTML table; the rest are counted. */
  static final int MOPS_SHOWN = 24;

  /**
   * The transactions of a counterexample as a table: each named by its op's :index (T12), with
   * its process, its type, the keys of the user's own its op carried (a column only when some
   * op has any) and its micro-ops, long list reads abbreviated around the element the
   * explanation is about.
   */
  /** The table of the transactions a counterexample lists: its own, then those its explanation names. */
  private static void txns(StringBuilder html, History h, Anomaly a, List<Integer> listed) {
    java.util.LinkedHashSet<Integer> ts = new java.util.LinkedHashSet<>(listed);
    boolean extras = false;
    for (int t : ts) extras |= h.extras(t).length > 0;
    html.append("<table class=\"txns\"><tr><th>transaction</th><th>process</th><th>type</th>")
        .append(extras ? "<th>other keys of its op</th>" : "").append("<th>micro-ops</th></tr>\n");
    for (int t : ts) {
      html.append("<tr><td class=\"name\">").append(esc(h.name(t))).append("</td><td>")
          .append(esc(isocheck.history.Edn.str(h.process(t)))).append("</td><td>")
          .append(h.completeOrdinal(t) >= 0 ? OpType.name(h.status(t)) : "pending").append("</td>");
      if (extras) html.append("<td class=\"extras\">").append(esc(Data.extrasStr(h, t))).append("</td>");
      html.append("<td class=\"mops\">");
      int end = h.mopEnd(t), stop = Math.min(end, h.mopStart(t) + MOPS_SHOWN);
      for (int m = h.mopStart(t); m < stop; m++) {
        html.append("<div>").append(esc(h.mopStr(m, Data.focus(h, a, m)))).append("</div>");
      }
      if (stop < end) html.append("<div>… ").append(end - stop).append(" more micro-ops</div>");
      html.append("</td></tr>\n");
    }
    html.append("</table>\n");
  }

  private static String cls(Verdict.Value v) {
    return v == Verdict.Value.TRUE ? "ok" : v == Verdict.Value.FALSE ? "bad" : "unk";
  }

  private static String word(Verdict.Value v) {
    return v == Verdict.Value.TRUE ? "holds" : v == Verdict.Value.FALSE ? "violated" : "unknown";
  }

  static String esc(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
  }
}
