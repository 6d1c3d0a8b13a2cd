package isocheck.cli;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;

/**
 * Where each file's report goes under {@code --out DIR}, and the clean-up of a report directory
 * before it is written again.
 *
 * <p>One file: {@code DIR} itself. Several: one directory each, named by the part of the
 * file's path that tells it apart from the others. Jepsen keeps a run's history in
 * {@code store/<test>/<time>/history.edn}; for {@code store/*}{@code /*}{@code /history.edn}
 * the reports go to {@code DIR/<test>/<time>/}. Files with different names in one directory
 * keep their name without its extension ({@code DIR/a/}, {@code DIR/b/}), and standard input is
 * {@code DIR/stdin/}. A name that would still repeat (the same file given twice) gets
 * {@code -2}, {@code -3}, … appended. Control characters in the names (a newline) become
 * {@code _} ({@link #safe}).
 */
final class ReportDirs {
  private ReportDirs() {}

  /** The names of the files a report consists of; *.dot and *.svg are the pictures. */
  static final List<String> REPORT_FILES = List.of("report.html", "report.txt", "result.edn", "result.json");

  /** One report directory per file, in the files' order. */
  static List<Path> of(Path out, List<String> files) {
    List<Path> dirs = new ArrayList<>();
    if (files.size() == 1) {
      dirs.add(out);
      return dirs;
    }
    int n = files.size();
    List<List<String>> parents = new ArrayList<>();
    List<String> bases = new ArrayList<>();
    for (String f : files) {
      if (f.equals("-")) {
        parents.add(null);
        bases.add("stdin");
        continue;
      }
      Path p = Path.of(f).toAbsolutePath().normalize();
      List<String> ps = new ArrayList<>();
      Path parent = p.getParent();
      if (parent != null) for (Path part : parent) ps.add(safe(part.toString()));
      parents.add(ps);
      bases.add(p.getFileName() == null ? "history" : safe(stripExtension(p.getFileName().toString())));
    }
    // The directories every file shares.
    int common = Integer.MAX_VALUE;
    List<String> first = null;
    for (List<String> ps : parents) {
      if (ps == null) continue;
      if (first == null) {
        first = ps;
        common = ps.size();
        continue;
      }
      int c = 0;
      while (c < common && c < ps.size() && ps.get(c).equals(first.get(c))) c++;
      common = c;
    }
    List<String> rel = new ArrayList<>();
    boolean sameBase = true, distinctDirs = true;
    HashSet<String> seenDirs = new HashSet<>();
    for (int i = 0; i < n; i++) {
      List<String> ps = parents.get(i);
      String dir = ps == null ? "" : String.join("/", ps.subList(Math.min(common, ps.size()), ps.size()));
      rel.add(dir);
      if (ps == null || !bases.get(i).equals(bases.get(0))) sameBase = false;
      if (dir.isEmpty() || !seenDirs.add(dir)) distinctDirs = false;
    }
    HashSet<String> used = new HashSet<>();
    for (int i = 0; i < n; i++) {
      String name = sameBase && distinctDirs ? rel.get(i)
          : rel.get(i).isEmpty() ? bases.get(i) : rel.get(i) + "/" + bases.get(i);
      String unique = name;
      for (int k = 2; !used.add(unique); k++) unique = name + "-" + k;
      dirs.add(out.resolve(unique));
    }
    return dirs;
  }

  /**
   * Under {@code --out-beside}: the directory beside each history, {@code <dir>/isocheck/} for a
   * file named {@code history.edn} (so a Jepsen run's report goes into the run's own directory,
   * where isocheck's Jepsen checker writes it), else {@code <dir>/<name>.isocheck/} ({@code
   * a.edn}: {@code a.isocheck/}); a directory that would repeat gets {@code -2}, {@code -3}, ….
   */
  static List<Path> beside(List<String> files) {
    List<Path> dirs = new ArrayList<>();
    HashSet<Path> used = new HashSet<>();
    for (String f : files) {
      Path p = Path.of(f);
      Path parent = p.getParent() == null ? Path.of("") : p.getParent();
      String base = p.getFileName() == null ? "history" : safe(stripExtension(p.getFileName().toString()));
      String name = base.equals("history") ? "isocheck" : base + ".isocheck";
      Path d = parent.resolve(name);
      for (int k = 2; !used.add(d.toAbsolutePath().normalize()); k++) d = parent.resolve(name + "-" + k);
      dirs.add(d);
    }
    return dirs;
  }

  /**
   * A name made safe for a directory of reports: each control character (a newline, a tab, DEL,
   * …; {@link Main#control}) becomes {@code _}, so a history named {@code "a\nb.edn"} reports into
   * {@code a_b/} (or {@code a_b.isocheck/}), a name that shell loops and other tools read as one.
   * Names that then repeat get {@code -2}, {@code -3}, … as any other.
   */
  static String safe(String name) {
    StringBuilder sb = null;
    for (int i = 0; i < name.length(); i++) {
      if (Main.control(name.charAt(i))) {
        if (sb == null) sb = new StringBuilder(name);
        sb.setCharAt(i, '_');
      }
    }
    return sb == null ? name : sb.toString();
  }

  /** A history file's name without .edn, .json, .jsonl or .ndjson (and .gz). */
  static String stripExtension(String name) {
    String n = name;
    String lower = n.toLowerCase(Locale.ROOT);
    if (lower.endsWith(".gz")) {
      n = n.substring(0, n.length() - 3);
      lower = lower.substring(0, lower.length() - 3);
    }
    for (String ext : new String[] {".edn", ".json", ".jsonl", ".ndjson"}) {
      if (lower.endsWith(ext) && n.length() > ext.length()) return n.substring(0, n.length() - ext.length());
    }
    return n.isEmpty() ? "history" : n;
  }

  /**
   * Removes what an earlier report left in dir, so no picture of another run stays next to
   * this one's verdict: report.html, report.txt, result.edn, result.json, *.dot and *.svg, and
   * only when dir holds one of the first four (it is then a report directory of ours).
   * Subdirectories and other files are left alone. Returns the number of files removed.
   */
  static int clean(Path dir) throws IOException {
    if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) return 0;
    boolean ours = false;
    for (String f : REPORT_FILES) ours |= Files.isRegularFile(dir.resolve(f), LinkOption.NOFOLLOW_LINKS);
    if (!ours) return 0;
    int removed = 0;
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
      for (Path p : ds) {
        String name = p.getFileName().toString();
        boolean report = REPORT_FILES.contains(name) || name.endsWith(".dot") || name.endsWith(".svg");
        if (report && Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) {
          Files.delete(p);
          removed++;
        }
      }
    }
    return removed;
  }
}
