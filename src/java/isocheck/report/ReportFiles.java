package isocheck.report;

import isocheck.check.Level;
import isocheck.check.Result;
import isocheck.check.Verdict;
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
    html.append("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>isocheck report</title><style>")
        .append("body{font-family:sans-serif;max-width:1100px;margin:2em auto;color:#222}")
        .append("table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px 10px;text-align:left}")
        .append(".ok{color:#2e7d32}.bad{color:#c62828;font-weight:bold}.unk{color:#ef6c00}")
        .append("pre{background:#f6f6f6;padding:10px;overflow-x:auto;white-space:pre-wrap}")
        // A wide cycle scales down to the page; it can still be scrolled at full size.
        .append(".pic{overflow-x:auto}.pic svg{max-width:100%;height:auto}")
        .append("</style></head><body>\n<h1>isocheck report</h1>\n");
    if (source != null) html.append("<p>input: <code>").append(esc(source)).append("</code></p>\n");
    Verdict.Value v = r.valid();
    html.append("<p>valid? <span class=\"").append(cls(v)).append("\">").append(word(v)).append("</span> &mdash; ")
        .append(esc(String.valueOf(r.stats.get("txns")))).append(" transactions</p>\n<table><tr><th>level</th><th>verdict</th><th>anomalies / reason</th></tr>\n");
    for (Map.Entry<Level, Verdict> e : r.levels.entrySet()) {
      Verdict lv = e.getValue();
      html.append("<tr><td>").append(esc(e.getKey().id)).append("</td><td class=\"").append(cls(lv.value)).append("\">")
          .append(word(lv.value)).append("</td><td>")
          .append(esc(lv.reason != null ? lv.reason : String.join(", ", lv.anomalyTypes))).append("</td></tr>\n");
    }
    html.append("</table>\n");
    List<String> relevant = r.relevantTypes();
    for (String type : relevant) {
      List<Anomaly> inst = r.anomalies.get(type);
      if (inst.isEmpty()) {
        html.append("<h2>").append(esc(type)).append("</h2>\n<p>").append(r.anomalies.count(type)).append(" counted</p>\n");
        continue;
      }
      Anomaly a = inst.get(0);
      String dot = Dot.of(r.history, a);
      String file = type.replaceAll("[^A-Za-z0-9._-]", "_");
      Files.writeString(dir.resolve(file + ".dot"), dot, StandardCharsets.UTF_8);
      String svg = Graphviz.svg(dot);
      if (svg != null) Files.writeString(dir.resolve(file + ".svg"), svg, StandardCharsets.UTF_8);
      long n = r.anomalies.count(type);
      html.append("<h2>").append(esc(type)).append("</h2>\n<p>").append(n).append(n == 1 ? " instance" : " instances")
          .append(n > 1 ? "; the smallest:" : ":").append("</p>\n<pre>").append(esc(a.explanation)).append("</pre>\n");
      if (svg != null) {
        int at = svg.indexOf("<svg");
        html.append("<div class=\"pic\">").append(at >= 0 ? svg.substring(at) : svg).append("</div>\n");
      } else {
        html.append("<pre>").append(esc(dot)).append("</pre>\n");
      }
    }
    List<String> others = new java.util.ArrayList<>();
    for (String t : new TreeSet<>(r.anomalies.types())) if (!relevant.contains(t)) others.add(t + " (" + r.anomalies.count(t) + ")");
    if (!others.isEmpty()) {
      html.append("<p>Also found, bearing on no level asked for: ").append(esc(String.join(", ", others))).append("</p>\n");
    }
    html.append("<h2>stats</h2><pre>").append(esc(isocheck.history.Edn.str(r.stats))).append("</pre>\n</body></html>\n");
    Files.writeString(dir.resolve("report.html"), html.toString(), StandardCharsets.UTF_8);
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
