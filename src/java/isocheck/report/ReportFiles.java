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
    StringBuilder html = new StringBuilder();
    html.append("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">")
        .append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>isocheck report</title><style>")
        .append("body{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}")
        .append("table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px 10px;text-align:left;vertical-align:top}")
        .append(".ok{color:#2e7d32}.bad{color:#c62828;font-weight:bold}.unk{color:#ef6c00}")
        // Nothing pushes the page sideways: long lines and tokens wrap.
        .append("pre{background:#f6f6f6;padding:10px;overflow-x:auto;white-space:pre-wrap;overflow-wrap:anywhere}")
        .append("code{overflow-wrap:anywhere}")
        .append(".txns{margin:0.5em 0 1em}.txns td{font-family:monospace;font-size:90%;overflow-wrap:anywhere}")
        .append(".txns .name{white-space:nowrap;font-weight:bold}.txns .mops div{padding-left:1em;text-indent:-1em}")
        // A wide cycle scales down to the page; it can still be scrolled at full size.
        .append(".pic{overflow-x:auto}.pic svg{max-width:100%;height:auto}")
        .append("</style></head><body>\n<h1>isocheck report</h1>\n");
    if (source != null) html.append("<p>input: <code>").append(esc(source)).append("</code></p>\n");
    Verdict.Value v = r.valid();
    html.append("<p>valid? <span class=\"").append(cls(v)).append("\">").append(word(v)).append("</span> &mdash; ")
        .append(esc(String.valueOf(r.stats.get("txns")))).append(" transactions</p>\n<table class=\"levels\"><tr><th>level</th><th>verdict</th><th>anomalies / reason</th></tr>\n");
    for (Map.Entry<Level, Verdict> e : r.levels.entrySet()) {
      Verdict lv = e.getValue();
      html.append("<tr><td>").append(esc(e.getKey().id)).append("</td><td class=\"").append(cls(lv.value)).append("\">")
          .append(word(lv.value)).append("</td><td>")
          .append(esc(lv.reason != null ? lv.reason : String.join(", ", lv.anomalyTypes))).append("</td></tr>\n");
    }
    html.append("</table>\n");
    List<String> relevant = r.relevantTypes();
    if (!relevant.isEmpty()) {
      html.append("<p>Transactions are named by the <code>:index</code> of their op in the history: T12 is the one whose ")
          .append("completion has <code>:index 12</code> (whose invocation, if it never completed)")
          .append(r.history.indexUsable ? "" : "; an op without an <code>:index</code> by its position in the history, from 0")
          .append(".</p>\n");
    }
    for (String type : relevant) {
      List<Anomaly> inst = r.anomalies.get(type);
      html.append("<section class=\"anomaly\" id=\"").append(esc(type)).append("\">\n<h2>").append(esc(type)).append("</h2>\n");
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
      String file = type.replaceAll("[^A-Za-z0-9._-]", "_");
      Files.writeString(dir.resolve(file + ".dot"), dot, StandardCharsets.UTF_8);
      if (svg != null) Files.writeString(dir.resolve(file + ".svg"), svg, StandardCharsets.UTF_8);
      long n = r.anomalies.count(type);
      html.append("<p>").append(n).append(n == 1 ? " instance" : " instances")
          .append(n > 1 ? "; the smallest:" : ":").append("</p>\n");
      txns(html, r.history, a);
      html.append("<pre class=\"explanation\">").append(esc(a.explanation)).append("</pre>\n");
      if (svg != null) {
        int at = svg.indexOf("<svg");
        html.append("<div class=\"pic\">").append(at >= 0 ? svg.substring(at) : svg).append("</div>\n");
      } else {
        html.append("<pre class=\"pic\">").append(esc(dot)).append("</pre>\n");
      }
      html.append("</section>\n");
    }
    List<String> others = new java.util.ArrayList<>();
    for (String t : new TreeSet<>(r.anomalies.types())) if (!relevant.contains(t)) others.add(t + " (" + r.anomalies.count(t) + ")");
    if (!others.isEmpty()) {
      html.append("<p>Also found, bearing on no level asked for: ").append(esc(String.join(", ", others))).append("</p>\n");
    }
    html.append("<h2>stats</h2><pre>").append(esc(isocheck.history.Edn.str(r.stats))).append("</pre>\n</body></html>\n");
    Files.writeString(dir.resolve("report.html"), html.toString(), StandardCharsets.UTF_8);
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
  private static void txns(StringBuilder html, History h, Anomaly a) {
    java.util.LinkedHashSet<Integer> ts = new java.util.LinkedHashSet<>();
    for (int t : a.txns) ts.add(t);
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
