package isocheck.cli;

import isocheck.check.CheckOptions;
import isocheck.check.Checker;
import isocheck.check.Level;
import isocheck.check.Result;
import isocheck.check.Verdict;
import isocheck.history.History;
import isocheck.history.HistoryException;
import isocheck.io.Formats;
import isocheck.report.Json;
import isocheck.report.ReportFiles;
import isocheck.util.Progress;
import isocheck.util.ProgressMeter;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The command line, {@code isocheck check …} and {@code isocheck demo …}, in Java: checking a
 * file loads no Clojure, so a small history checks in a fraction of a second. {@code demo} runs
 * the Clojure namespace {@code isocheck.demo}, loaded only then. A directory argument is a Jepsen
 * store, test or run ({@link Inputs}); with several histories a summary line per history and a
 * tally follow the results. A run of a store or test without a history (it crashed, or is still
 * running) is skipped: listed as unfinished, not checked, and no error. A check past 2 s prints
 * progress lines on standard error ({@link isocheck.util.ProgressMeter}) unless {@code --quiet}.
 *
 * <p>Exit status (a public contract): 0 every requested level holds; 1 some level is violated;
 * 2 some level is unknown and none is violated; 3 bad usage or unreadable input. With several
 * histories: 1 when any is violated (an unreadable or unknown neighbour never hides a violation:
 * a script testing for 1 sees it), else 3 when any input could not be read, else 2 when any
 * level is unknown, else 0; skipped unfinished runs count for nothing. Bad usage is 3 before
 * anything is checked. Running out of memory while reading a file is 3 (the input is too large
 * to read with this heap); while checking, 2 (no verdict). Every error is one line on standard
 * error, {@code isocheck: FILE: what went wrong}, never a stack trace (set ISOCHECK_TRACE=1 to
 * see one when reporting a bug). A report that cannot be written under {@code --out} gets its
 * own line naming the directory, and leaves the verdict and the exit status as they are: the
 * status is about the history.
 */
public final class Main {
  private Main() {}

  public static final int HOLDS = 0, VIOLATED = 1, UNKNOWN = 2, BAD = 3;
  /** A run of a store or test skipped for want of a history: a summary line, not an exit status. */
  static final int UNFINISHED = 4;

  public static final String USAGE =
      "usage: isocheck check [--workload append|wr] [--levels L1,L2,...] [--format text|edn|json]\n"
    + "                      [--max-anomalies N] [--clocks vector|tree] [--first] [--time-limit S]\n"
    + "                      [--counterexample-time-limit S] [--f NAME] [--input-format NAME]\n"
    + "                      [--out DIR | --out-beside] [--quiet] [--no-certificates] FILE|DIR...\n"
    + "       isocheck convert --to FORMAT [--input-format NAME] [--f NAME] [--workload append|wr] [--lossy] IN OUT\n"
    + "       isocheck demo [--seed N] [--txns N]\n"
    + "       isocheck verify HISTORY RESULT\n"
    + "       isocheck --help (or -h, help): this text, exit status 0\n"
    + "\n"
    + "Levels (default: all): strict-serializable, strong-session-serializable, serializable,\n"
    + "strong-snapshot-isolation, strong-session-snapshot-isolation, gsi, snapshot-isolation\n"
    + "(aliases: sser, ser, si, strong-session-si, strong-si); Elle's repeatable-read,\n"
    + "read-committed, read-uncommitted (Adya's PL-2.99, PL-2, PL-1; aliases pl-2.99, pl-2, pl-1);\n"
    + "weak levels (Plume): tcc, ra, rc, ci (aliases: causal, read-atomic, cut-isolation).\n"
    + "--levels linearizable, alone: histories of single-key reads, writes and compare-and-sets\n"
    + "(Jepsen's :read/:write/:cas register ops, or [:r k v] [:w k v] [:cas k old new] micro-ops).\n"
    + "--clocks picks vector (default) or tree clocks for the weak levels' causal order;\n"
    + "--first stops at the first weak anomaly per level instead of finding them all.\n"
    + "--max-anomalies N keeps N instances per anomaly type (default 16; all are counted);\n"
    + "0 keeps none and skips the search for counterexamples: the result has the types and their\n"
    + "counts only (each cyclic component counted once).\n"
    + "--counterexample-time-limit S bounds the search for the smallest counterexamples (default: a\n"
    + "quarter of the check's time before it, at least 0.1 s); past it each cyclic component gets\n"
    + "the first cycle found, and the report says so. Verdicts never depend on it.\n"
    + "--time-limit S bounds the search of the serializable, snapshot-isolation and gsi levels (and\n"
    + "repeatable-read on rw-register): the version order of rw-register writes, the order of\n"
    + "list-append's never-read appends; per file (default 60 s); past it a level still open is unknown.\n"
    + "--out DIR writes report.html, report.txt, result.edn, result.json and the pictures into\n"
    + "DIR (several files: DIR/<test>/<time>/ for Jepsen's store/<test>/<time>/history.edn,\n"
    + "else DIR/<file name>/), replacing the report files an earlier run left there.\n"
    + "--out-beside writes each report beside its history instead: a Jepsen run's into\n"
    + "store/<test>/<time>/isocheck/, another file's (a.edn) into a.isocheck/ next to it.\n"
    + "--f NAME: the :f of transaction ops (default txn); ops with another :f are skipped.\n"
    + "--quiet: no progress lines on standard error (past 2 s, a check prints one about every second).\n"
    + "FILE: Jepsen history.edn or JSON (optionally .gz); - reads standard input.\n"
    + "DIR: Jepsen's store/, a test's store/<test>/ or a run's store/<test>/<time>/ (or store/latest):\n"
    + "the history.edn of each run in it, tests and runs by name, symlinks (latest) skipped;\n"
    + "a run without history.edn (crashed, or still running) is skipped, listed as unfinished.\n"
    + "Several histories: a summary line each, then a tally (edn/json: on standard error).\n"
    + "Other tools' histories are read too, told apart by their content: Plume/PolySI text, dbcop\n"
    + "JSON and bincode, Cobra logs (a directory); --input-format NAME names the format instead:\n"
    + "edn, json, elle-cli (ops without :f are transactions), plume, dbcop, dbcop-bincode, cobra.\n"
    + "convert writes IN as FORMAT into OUT: edn, json (elle-cli's), plume, dbcop, dbcop-bincode\n"
    + "or cobra (OUT a directory); it refuses, naming the transaction, what FORMAT cannot hold,\n"
    + "and an OUT that is IN (or a link to it). plume, dbcop and cobra keep no invocations or :time,\n"
    + "so no realtime order: convert refuses a history that has them unless --lossy drops them.\n"
    + "--no-certificates: the result map carries no :certificates (the orders that show the\n"
    + "serializable, SI and weak levels hold; they cost most on list-append: 60 ms of 0.5 s at 10^6).\n"
    + "verify checks the certificates of RESULT (a result.edn or result.json check wrote, or -)\n"
    + "against HISTORY: a line per level, certified or not, and each violated level refuted by a\n"
    + "cycle the history shows or not certified; exit status 0 when every certificate checks, 1\n"
    + "when one does not, 3 for unreadable input.\n"
    + "Exit status: 0 all levels hold, 1 some level violated, 2 some unknown and none\n"
    + "violated (or no transactions to check, or out of memory while checking), 3 bad usage\n"
    + "or unreadable input (or out of memory while reading). Several histories: 1 if any is\n"
    + "violated (whatever else could not be read), else 3 if any input is unreadable, else 2\n"
    + "if any level is unknown, else 0; skipped unfinished runs do not count.\n";

  /** Whether main was entered (not an in-process run), and when (for [:stats :ms :start]). */
  private static volatile boolean fromMain;
  private static volatile long enteredNanos;

  public static void main(String[] args) {
    enteredNanos = System.nanoTime();
    fromMain = true;
    Thread.setDefaultUncaughtExceptionHandler(lastResort());
    PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), false, StandardCharsets.UTF_8);
    PrintStream err = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.err), true, StandardCharsets.UTF_8);
    int status;
    try {
      status = run(args, out, err);
    } catch (Throwable e) {
      status = BAD;
      internal(err, null, e);
    }
    out.flush();
    err.flush();
    System.exit(status);
  }

  /**
   * Worker threads report through the main thread; this is the last resort. A class rather than
   * a lambda: the training run behind the class data (isocheck.cli.Train) never enters main, so
   * a lambda here would be spun at every start.
   */
  static Thread.UncaughtExceptionHandler lastResort() { return new LastResort(); }

  private static final class LastResort implements Thread.UncaughtExceptionHandler {
    @Override public void uncaughtException(Thread t, Throwable e) {
      System.err.println("isocheck: internal error in thread " + t.getName() + ": " + oneLine(e));
    }
  }

  /**
   * Runs the command line with the given arguments, writing to out and err; returns the exit
   * status. Never throws and never exits the JVM (tests call it in-process).
   */
  public static int run(String[] args, PrintStream out, PrintStream err) {
    try {
      String cmd = args.length == 0 ? null : args[0];
      List<String> rest = args.length == 0 ? List.of() : Arrays.asList(args).subList(1, args.length);
      if (cmd == null) throw new CheckArgs.UsageException("no command");
      switch (cmd) {
        case "check": return check(CheckArgs.parse(rest), out, err);
        case "convert": return Convert.run(rest, out, err);
        case "demo": return Demo.run(rest, out);
        case "verify": return isocheck.verify.Verify.run(rest, out, err);
        case "--help": case "-h": case "help":
          out.print(USAGE);
          out.flush();
          return HOLDS;
        default: throw new CheckArgs.UsageException("unknown command " + cmd + " (the commands are check, convert, demo and verify)");
      }
    } catch (CheckArgs.UsageException e) {
      // No command at all: the usage is what was asked for. Else the one line that says what
      // is wrong, and where the usage is, rather than 40 lines of usage that scroll it away.
      err.println("isocheck: " + e.getMessage());
      if (args.length == 0) err.print(USAGE);
      else err.println("isocheck: " + hint(args[0]));
      err.flush();
      return BAD;
    } catch (Throwable e) {
      internal(err, null, e);
      return BAD;
    } finally {
      out.flush();
    }
  }

  /** The line after a usage error: the command that prints the usage. */
  static String hint(String cmd) {
    boolean known = cmd.equals("check") || cmd.equals("convert") || cmd.equals("demo");
    return "see 'isocheck " + (known ? cmd + " " : "") + "--help' for the usage";
  }

  static int check(CheckArgs a, PrintStream out, PrintStream err) throws CheckArgs.UsageException {
    if (a.help) {
      out.print(USAGE);
      return HOLDS;
    }
    List<Inputs.Input> inputs = Inputs.expand(a.files, a.inputFormat);
    List<String> paths = new ArrayList<>();
    for (Inputs.Input in : inputs) paths.add(in.path);
    List<Path> dirs = null;
    try {
      if (a.out != null) dirs = ReportDirs.of(Path.of(a.out), paths);
      else if (a.outBeside) dirs = ReportDirs.beside(paths);
    } catch (InvalidPathException e) {
      throw new CheckArgs.UsageException((a.out != null ? "--out " + a.out : "--out-beside") + ": not a valid path");
    }
    boolean many = inputs.size() > 1;
    List<FileCheck> done = new ArrayList<>();
    for (int i = 0; i < inputs.size(); i++) {
      FileCheck fc = new FileCheck(a, inputs.get(i), dirs == null ? null : dirs.get(i), many, out, err);
      fc.status = fc.run();
      done.add(fc);
      out.flush();
    }
    boolean violated = false, unknown = false, bad = false;
    for (FileCheck fc : done) {
      if (fc.status == BAD) bad = true;
      else if (fc.status == VIOLATED) violated = true;
      else if (fc.status == UNKNOWN) unknown = true;
    }
    if (many) {
      // Text: after the reports, on standard output. edn/json: on standard error, so standard
      // output keeps one result map per line; --quiet drops it there (the maps say it all).
      boolean text = a.format.equals("text");
      if (text || !a.quiet) {
        PrintStream s = text ? out : err;
        s.print(summary(done));
        s.flush();
      }
    }
    // A violation first: a script testing for 1 must not miss one because a neighbour could not
    // be read. Unfinished runs count for nothing.
    return violated ? VIOLATED : bad ? BAD : unknown ? UNKNOWN : HOLDS;
  }

  /**
   * The summary of several histories: a line per history, in the order checked, then the tally
   * of the histories, and of the runs skipped when there were any.
   * <pre>
   * == summary
   * holds      store/a/20240101T000000.000Z/history.edn  412 txns, 0.3 s
   * violated   store/a/20240102T000000.000Z/history.edn  2000 txns, 1.2 s  strict-serializable, serializable: G2-item; unknown: tcc
   * unfinished store/a/20240103T000000.000Z  no history.edn: stopped before its history was written, or still running (it holds jepsen.log, test.jepsen)
   * unreadable store/b/20240101T000000.000Z/history.edn  line 3, column 7: ...
   * 3 files: 1 hold, 1 violated, 0 unknown, 1 unreadable; 1 unfinished run skipped
   * </pre>
   */
  static String summary(List<FileCheck> done) {
    StringBuilder sb = new StringBuilder("== summary\n");
    int[] n = new int[UNFINISHED + 1];
    for (FileCheck fc : done) {
      n[fc.status]++;
      sb.append(fc.summaryLine()).append('\n');
    }
    int files = done.size() - n[UNFINISHED];
    sb.append(files).append(files == 1 ? " file: " : " files: ").append(n[HOLDS]).append(" hold, ")
        .append(n[VIOLATED]).append(" violated, ").append(n[UNKNOWN]).append(" unknown, ").append(n[BAD]).append(" unreadable");
    if (n[UNFINISHED] > 0) sb.append("; ").append(n[UNFINISHED]).append(n[UNFINISHED] == 1 ? " unfinished run" : " unfinished runs").append(" skipped");
    return sb.append('\n').toString();
  }

  /** One history: read, check, print, write the report. */
  static final class FileCheck {
    final CheckArgs a;
    final Inputs.Input input;
    final String file;
    /** The file as lines show it: quoted and escaped when its name holds a newline or another control character. */
    final String shown;
    final Path dir;
    final boolean many;
    final PrintStream out, err;
    int status;
    /** For the summary: the result (null when there is none), the transactions, the time, or why it failed. */
    Result result;
    long txns = -1, nanos = -1;
    String failure;

    FileCheck(CheckArgs a, Inputs.Input input, Path dir, boolean many, PrintStream out, PrintStream err) {
      this.a = a;
      this.input = input;
      this.file = input.file;
      this.shown = shown(input.file);
      this.dir = dir;
      this.many = many;
      this.out = out;
      this.err = err;
    }

    int run() {
      if (input.error != null) return failed(BAD, input.error);
      if (input.unfinished != null) return skipped();
      if (a.linearizable) return runLinearizable();
      ProgressMeter meter = a.quiet ? null : new ProgressMeter("isocheck: " + shown + ": ", err::println);
      try {
        return run(meter == null ? Progress.NONE : meter);
      } finally {
        if (meter != null) meter.close();
      }
    }

    /** "violated   FILE  2000 txns, 1.2 s  serializable, strict-serializable: G2-item; unknown: tcc". */
    String summaryLine() {
      String word = status == HOLDS ? "holds" : status == VIOLATED ? "violated" : status == UNKNOWN ? "unknown"
          : status == UNFINISHED ? "unfinished" : "unreadable";
      StringBuilder sb = new StringBuilder(word);
      while (sb.length() < 10) sb.append(' ');
      sb.append(' ').append(shown).append("  ");
      if (result == null) return sb.append(failure == null ? "" : failure).toString();
      sb.append(isocheck.report.StatsLine.count(txns, "txn")).append(", ").append(String.format(java.util.Locale.ROOT, "%.1f s", nanos / 1e9));
      // Violated levels grouped by the anomaly types that rule them out, in the levels' order.
      LinkedHashMap<List<String>, List<String>> byTypes = new LinkedHashMap<>();
      List<String> unknownLevels = new ArrayList<>();
      for (Map.Entry<Level, isocheck.check.Verdict> e : result.levels.entrySet()) {
        isocheck.check.Verdict v = e.getValue();
        if (v.value == Verdict.Value.FALSE) byTypes.computeIfAbsent(v.anomalyTypes, k -> new ArrayList<>()).add(e.getKey().id);
        else if (v.value == Verdict.Value.UNKNOWN) unknownLevels.add(e.getKey().id);
      }
      List<String> parts = new ArrayList<>();
      for (Map.Entry<List<String>, List<String>> e : byTypes.entrySet()) {
        parts.add(String.join(", ", e.getValue()) + (e.getKey().isEmpty() ? "" : ": " + String.join(", ", e.getKey())));
      }
      if (!unknownLevels.isEmpty()) parts.add("unknown: " + String.join(", ", unknownLevels));
      if (!parts.isEmpty()) sb.append("  ").append(String.join("; ", parts));
      return sb.toString();
    }

    private int run(Progress progress) {
      long t0 = System.nanoTime();
      long bytes = Heap.inputBytes(file);
      History h;
      try {
        h = Formats.readHistory(file, a.workload, a.txnF, a.inputFormat, progress);
      } catch (HistoryException e) {
        return failed(BAD, e.getMessage());
      } catch (NoSuchFileException e) {
        return failed(BAD, "no such file");
      } catch (AccessDeniedException e) {
        return failed(BAD, "permission denied");
      } catch (FileSystemException e) {
        return failed(BAD, e.getReason() != null ? lower(e.getReason()) : String.valueOf(e.getMessage()));
      } catch (IOException e) {
        return failed(BAD, e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage());
      } catch (OutOfMemoryError e) {
        long need = Heap.toRead(bytes < 0 ? Heap.max() : bytes);
        need = Math.max(need, Heap.max() + Heap.max() / 2);
        return failed(BAD, "out of memory while reading it: the heap is " + Heap.human(Heap.max())
            + (bytes >= 0 ? ", and a " + Heap.human(bytes) + " history needs about " + Heap.human(need) : "")
            + "; " + Heap.raise(need));
      } catch (StackOverflowError e) {
        return failed(BAD, "cannot read it: values nested too deeply");
      } catch (Throwable e) {
        trace(e);
        return failed(BAD, "cannot read it: internal error: " + oneLine(e));
      }
      long loadMs = (System.nanoTime() - t0) / 1_000_000L;

      Result r;
      String printed;
      long nTxns = h.nTxns, nMops = h.mopCount();
      try {
        CheckOptions o = a.options();
        o.progress = progress;
        r = Checker.check(h, o);
        nanos = System.nanoTime() - t0;
        @SuppressWarnings("unchecked")
        Map<String, Object> ms = (Map<String, Object>) r.stats.computeIfAbsent("ms", k -> new LinkedHashMap<String, Object>());
        ms.put("load", loadMs);
        if (fromMain) {
          long start = startMs();
          if (start >= 0) ms.put("start", start);
        }
        printed = print(r);
      } catch (OutOfMemoryError e) {
        h = null;
        long need = Math.max(Heap.toCheck(nTxns, nMops, bytes), Heap.max() + Heap.max() / 2);
        return failed(UNKNOWN, "out of memory while checking " + nTxns + " transactions, so no verdict: the heap is "
            + Heap.human(Heap.max()) + ", about " + Heap.human(need) + " is needed; " + Heap.raise(need));
      } catch (StackOverflowError e) {
        trace(e);
        return failed(UNKNOWN, "no verdict: the check ran out of stack; run java with -Xss64m");
      } catch (Throwable e) {
        trace(e);
        return failed(UNKNOWN, "no verdict: internal error: " + oneLine(e));
      }
      result = r;
      txns = nTxns;
      out.print(printed);
      out.flush();
      if (dir != null) {
        progress.stage("writing the report");
        writeReport(r);
      }
      Verdict.Value v = r.valid();
      return v == Verdict.Value.TRUE ? HOLDS : v == Verdict.Value.FALSE ? VIOLATED : UNKNOWN;
    }

    /**
     * --levels linearizable: reads the file as single-key register ops (isocheck.check.lin),
     * prints the result, writes result.edn, result.json, report.txt and a picture per anomaly
     * type into the report directory.
     */
    private int runLinearizable() {
      long t0 = System.nanoTime();
      isocheck.check.lin.CasHistory ch;
      try {
        isocheck.check.lin.CasHistory.Builder b = new isocheck.check.lin.CasHistory.Builder(a.txnF);
        Formats.read(file, b);
        ch = b.build();
      } catch (HistoryException e) {
        return failed(BAD, e.getMessage());
      } catch (NoSuchFileException e) {
        return failed(BAD, "no such file");
      } catch (IOException e) {
        return failed(BAD, e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage());
      } catch (OutOfMemoryError e) {
        return failed(BAD, "out of memory while reading it; " + Heap.raise(Heap.max() * 2));
      } catch (Throwable e) {
        trace(e);
        return failed(BAD, "cannot read it: internal error: " + oneLine(e));
      }
      long loadMs = (System.nanoTime() - t0) / 1_000_000L;
      if (ch.n == 0) {
        return failed(UNKNOWN, "no read, write or compare-and-set ops, so nothing to check (" + ch.opsSkipped + " ops skipped)");
      }
      isocheck.check.lin.Linearizability.Result r;
      try {
        r = isocheck.check.lin.Linearizability.check(ch, Math.max(1, a.maxAnomalies));
      } catch (OutOfMemoryError e) {
        return failed(UNKNOWN, "out of memory while checking, so no verdict; " + Heap.raise(Heap.max() * 2));
      } catch (Throwable e) {
        trace(e);
        return failed(UNKNOWN, "no verdict: internal error: " + oneLine(e));
      }
      @SuppressWarnings("unchecked")
      Map<String, Object> ms = (Map<String, Object>) r.stats.get("ms");
      ms.put("load", loadMs);
      Map<String, Object> d = r.toData();
      switch (a.format) {
        case "edn": out.println(EdnPrinter.str(d)); break;
        case "json": out.println(Json.write(d)); break;
        default: out.print((many ? "== " + shown + "\n" : "") + r.text() + "\n");
      }
      out.flush();
      if (dir != null) {
        try {
          Files.createDirectories(dir);
          ReportDirs.clean(dir);
          Files.writeString(dir.resolve("result.edn"), EdnPrinter.str(d) + "\n", StandardCharsets.UTF_8);
          Files.writeString(dir.resolve("result.json"), Json.write(d) + "\n", StandardCharsets.UTF_8);
          Files.writeString(dir.resolve("report.txt"), r.text(), StandardCharsets.UTF_8);
          for (String t : r.anomalies.types()) {
            List<isocheck.report.Anomaly> l = r.anomalies.get(t);
            if (!l.isEmpty()) Files.writeString(dir.resolve(t + ".dot"), r.dot(l.get(0)), StandardCharsets.UTF_8);
          }
          String line = "report: " + dir.resolve("report.txt");
          if (a.format.equals("text")) out.println(line);
          else err.println("isocheck: " + shown + ": " + line);
        } catch (IOException | RuntimeException e) {
          outError(dir.toString(), "cannot be written: " + oneLine(e));
        }
      }
      return r.valid == Verdict.Value.TRUE ? HOLDS : r.valid == Verdict.Value.FALSE ? VIOLATED : UNKNOWN;
    }

    /** What stdout gets for this file, newline included. */
    private String print(Result r) {
      switch (a.format) {
        case "edn": return EdnPrinter.str(printedData(r)) + "\n";
        case "json": return Json.write(printedData(r)) + "\n";
        default: {
          String text = a.maxAnomalies == 0 ? countsOnlyText(r) : r.text();
          return (many ? "== " + shown + "\n" : "") + text + "\n";
        }
      }
    }

    private Map<String, Object> data;

    /** What --format edn|json prints: the result map, and with several histories, :file last. */
    private Map<String, Object> printedData(Result r) {
      if (!many) return data(r);
      LinkedHashMap<String, Object> m = new LinkedHashMap<>(data(r));
      m.put("file", file);
      return m;
    }

    /** The result map (made once); with --max-anomalies 0, its instances and counterexamples removed. */
    private Map<String, Object> data(Result r) {
      if (data != null) return data;
      Map<String, Object> d = data = r.toData();
      if (a.maxAnomalies == 0) {
        @SuppressWarnings("unchecked")
        Map<Object, Object> an = (Map<Object, Object>) d.get("anomalies");
        if (an != null) for (Map.Entry<Object, Object> e : an.entrySet()) e.setValue(new ArrayList<>());
        d.put("counterexamples", new LinkedHashMap<>());
      }
      return d;
    }

    /** The text report without instances: the verdicts, the anomaly types with their counts, the stats. */
    private String countsOnlyText(Result r) { return r.text(true); }

    private void writeReport(Result r) {
      String where = dir.toString();
      try {
        if (Files.exists(dir) && !Files.isDirectory(dir)) throw new FileAlreadyExistsException(where);
        Files.createDirectories(dir);
        ReportDirs.clean(dir);
        ReportFiles.write(dir, r, file.equals("-") ? "standard input" : file);
        String edn = EdnPrinter.str(data(r));
        Files.writeString(dir.resolve("result.edn"), edn, StandardCharsets.UTF_8);
        if (a.maxAnomalies == 0) Files.writeString(dir.resolve("result.json"), Json.write(data(r)) + "\n", StandardCharsets.UTF_8);
      } catch (FileAlreadyExistsException | NotDirectoryException e) {
        outError(where, "exists and is not a directory");
        return;
      } catch (AccessDeniedException e) {
        outError(where, "permission denied" + (e.getFile() != null && !e.getFile().equals(where) ? " (" + e.getFile() + ")" : ""));
        return;
      } catch (NoSuchFileException e) {
        outError(where, "cannot be created: no such file or directory" + (e.getFile() != null && !e.getFile().equals(where) ? " (" + e.getFile() + ")" : ""));
        return;
      } catch (FileSystemException e) {
        outError(where, (e.getReason() != null ? lower(e.getReason()) : "cannot be written")
            + (e.getFile() != null && !e.getFile().equals(where) ? " (" + e.getFile() + ")" : ""));
        return;
      } catch (IOException | RuntimeException e) {
        trace(e);
        outError(where, "cannot be written: " + oneLine(e));
        return;
      } catch (OutOfMemoryError e) {
        outError(where, "out of memory while writing the report; " + Heap.raise(Heap.max() * 2));
        return;
      }
      String line = "report: " + dir.resolve("report.html");
      if (a.format.equals("text")) out.println(line);
      else err.println("isocheck: " + shown + ": " + line);
    }

    private void outError(String where, String what) {
      err.println("isocheck: --out " + where + ": " + what + "; the report for " + shown + " was not written");
    }

    /**
     * A run of a store or test with no history yet: no error line (the summary lists it), and
     * with edn/json its map on standard output as for every input, :unfinished where an
     * unreadable one has :error.
     */
    private int skipped() {
      failure = input.unfinished;
      printNoResult("unfinished", failure);
      return UNFINISHED;
    }

    private int failed(int status, String message) {
      failure = message;
      err.println("isocheck: " + shown + ": " + message);
      printNoResult("error", message);
      return status;
    }

    /** With edn/json, the map of an input with no result: {:valid? :unknown, key why, :file FILE}. */
    private void printNoResult(String key, String why) {
      if (a.format.equals("edn") || a.format.equals("json")) {
        LinkedHashMap<String, Object> m = new LinkedHashMap<>();
        m.put("valid?", new isocheck.history.Kw("unknown"));
        m.put(key, why);
        m.put("file", file);
        out.println(a.format.equals("edn") ? EdnPrinter.str(m) : Json.write(m));
      }
    }
  }

  /**
   * A file name as one line shows it: as given, unless it holds a control character (a newline
   * would split the summary's one line per history in two); then in double quotes, with
   * {@code \n}, {@code \t}, {@code \r}, {@code \\}, {@code \"} and {@code \}{@code uXXXX} escapes,
   * as EDN and JSON write strings.
   */
  static String shown(String name) {
    boolean plain = true;
    for (int i = 0; i < name.length() && plain; i++) plain = !control(name.charAt(i));
    if (plain) return name;
    StringBuilder sb = new StringBuilder(name.length() + 8);
    isocheck.history.Edn.quote(sb, name);
    return sb.toString();
  }

  /** C0 and C1 control characters, DEL, and the line and paragraph separators ({@link isocheck.history.Edn#control}). */
  static boolean control(char c) {
    return isocheck.history.Edn.control(c);
  }

  private static String lower(String reason) {
    return reason.isEmpty() ? reason : Character.toLowerCase(reason.charAt(0)) + reason.substring(1);
  }

  /**
   * Milliseconds from the process's start (the launcher's: it execs java) to main, from Linux's
   * /proc (process start in clock ticks since boot, and the uptime now, both at 10 ms
   * resolution); -1 elsewhere.
   */
  private static long startMs() {
    try {
      String stat = Files.readString(Path.of("/proc/self/stat"));
      String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      double started = Long.parseLong(f[19]) / 100.0;  // field 22: starttime, in ticks of 1/100 s
      String up = Files.readString(Path.of("/proc/uptime"));
      double now = Double.parseDouble(up.substring(0, up.indexOf(' ')));
      double sinceMain = (System.nanoTime() - enteredNanos) / 1e9;
      return Math.max(0, Math.round((now - sinceMain - started) * 1000));
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  static String oneLine(Throwable e) {
    String m = e.getMessage();
    String s = e.getClass().getName() + (m == null ? "" : ": " + m);
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl);
  }

  private static void internal(PrintStream err, String file, Throwable e) {
    trace(e);
    err.println("isocheck: " + (file == null ? "" : file + ": ") + "internal error: " + oneLine(e));
  }

  /** With ISOCHECK_TRACE=1, the stack trace too (for bug reports). */
  private static void trace(Throwable e) {
    if ("1".equals(System.getenv("ISOCHECK_TRACE"))) e.printStackTrace();
  }
}
