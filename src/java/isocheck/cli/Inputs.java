package isocheck.cli;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The histories the arguments of {@code check} name: a file as given, and a directory of
 * Jepsen's store expanded to the histories of its runs.
 *
 * <p>Jepsen (jepsen.store) keeps each run in {@code store/<test>/<time>/}, where it writes
 * {@code history.edn} (one op per line) and {@code history.txt} once the run's history is
 * complete, beside {@code test.jepsen} (its binary format, which we do not read), {@code
 * results.edn} and {@code jepsen.log}; and it points the symlinks {@code store/latest},
 * {@code store/current} and {@code store/<test>/latest} at a run. A directory argument is, in
 * this order of tests:
 * <ul>
 *   <li>a run, when it holds one of those files: its {@code history.edn} (else {@code
 *       history.edn.gz}); a run without either is an input that cannot be read, with the
 *       reason;
 *   <li>a test, when some subdirectory is a run: each such subdirectory, by name (Jepsen's
 *       time-stamped names sort oldest first);
 *   <li>a store, when some subdirectory of a subdirectory is a run: each test, by name, and
 *       each of its runs, by name;
 *   <li>else an input that cannot be read: no Jepsen run in it.
 * </ul>
 * Within a test or a store, a run that is <em>unfinished</em> (no {@code history.edn}, and
 * neither {@code history.txt} nor {@code results.edn}, which Jepsen writes only once the history
 * is complete: the run crashed, was stopped, or is still running; every real store has some) is
 * an input {@link Input#unfinished skipped}, with what it holds: it is listed, not checked, and
 * is no error. A test or store in which every run is unfinished is an input that cannot be read
 * (nothing to check), naming them; so is a run named itself that has no history, whatever the
 * reason. Within a test or a store, subdirectories that are symlinks ({@code latest}, {@code
 * current}) are skipped, and so is a run whose history (its real path) an earlier argument
 * already named: a run is checked once however many directories reach it. A file argument is
 * always checked as given, even twice.
 */
final class Inputs {
  private Inputs() {}

  /** One history to check: its path as shown, or a reason it cannot be checked, or is skipped. */
  static final class Input {
    /** The path shown (and read, when error and unfinished are null); "-" is standard input. */
    final String file;
    /** What the report directory is named after: the history's path, or where it would be. */
    final String path;
    /** Why it cannot be checked (a directory with no history), or null. */
    final String error;
    /**
     * Why this run of a test or store is skipped, not checked (no history yet: it crashed or is
     * still running), or null.
     */
    final String unfinished;

    Input(String file, String path, String error) { this(file, path, error, null); }

    private Input(String file, String path, String error, String unfinished) {
      this.file = file;
      this.path = path;
      this.error = error;
      this.unfinished = unfinished;
    }

    @Override public String toString() {
      return error != null ? file + " (" + error + ")" : unfinished != null ? file + " (unfinished: " + unfinished + ")" : file;
    }
  }

  /** The runs one directory argument reached, counted though an earlier argument named them. */
  private static final class Found {
    int runs;
    /** Those without a history, not even history.txt or results.edn. */
    final List<Path> unfinished = new ArrayList<>();
  }

  /** Files Jepsen writes into a run's directory; any of them makes a directory a run. */
  static final List<String> RUN_FILES = List.of("history.edn", "history.edn.gz", "history.txt", "test.jepsen",
      "test.fressian", "results.edn", "jepsen.log");

  /** The inputs the arguments name, in the order above. */
  static List<Input> expand(List<String> args) { return expand(args, null); }

  /**
   * As {@link #expand(List)}, where a directory that holds no Jepsen run but is another tool's
   * history (Cobra's logs, dbcop's history.bincode), or any directory when {@code named} is a
   * format read from a directory, is one history, read whole.
   */
  static List<Input> expand(List<String> args, isocheck.io.Formats.Format named) {
    List<Input> out = new ArrayList<>();
    Set<Path> seen = new HashSet<>();
    for (String arg : args) {
      Path p;
      try {
        p = arg.equals("-") ? null : Path.of(arg);
      } catch (InvalidPathException e) {
        p = null;
      }
      boolean whole = named == isocheck.io.Formats.Format.COBRA || named == isocheck.io.Formats.Format.DBCOP_BINCODE;
      if (p == null || !Files.isDirectory(p) || whole) {
        out.add(new Input(arg, arg, null));
        if (p != null) seen.add(real(p));
        continue;
      }
      int before = out.size();
      Found found = new Found();
      try {
        directory(p, out, seen, found);
      } catch (IOException e) {
        out.subList(before, out.size()).clear();
        out.add(new Input(arg, arg, "cannot list it: " + reason(e)));
        continue;
      }
      boolean any = found.runs > 0;
      if (any && found.unfinished.size() == found.runs && !isRun(p)) {
        // A test or store whose every run is unfinished: one error for the argument, not a
        // skipped line per run and nothing checked.
        out.subList(before, out.size()).clear();
        out.add(new Input(arg, arg, nothingToCheck(found.unfinished)));
      } else if (!any && isocheck.io.Formats.isHistoryDirectory(p)) {
        out.add(new Input(arg, arg, null));
        seen.add(real(p));
      } else if (!any) {
        out.add(new Input(arg, arg, "a directory with no Jepsen run in it: no history.edn in it, in its subdirectories "
            + "(a test's runs) or in theirs (a store's tests), and no other tool's history (Cobra's logs, dbcop's "
            + "history.bincode)"));
      }
    }
    return out;
  }

  /** Adds the runs of directory d (a run, a test or a store) and counts them in found. */
  private static void directory(Path d, List<Input> out, Set<Path> seen, Found found) throws IOException {
    if (isRun(d)) {
      run(d, true, out, seen, found);
      return;
    }
    List<Path> kids = subdirectories(d);
    for (Path k : kids) {
      if (isRun(k)) run(k, false, out, seen, found);
    }
    if (found.runs > 0) return;
    for (Path k : kids) {
      for (Path r : subdirectories(k)) {
        if (isRun(r)) run(r, false, out, seen, found);
      }
    }
  }

  /** Run d's history; or, without one, why not: d skipped when unfinished and not named itself. */
  private static void run(Path d, boolean named, List<Input> out, Set<Path> seen, Found found) {
    found.runs++;
    Path h = d.resolve("history.edn");
    if (!Files.isRegularFile(h) && Files.isRegularFile(d.resolve("history.edn.gz"))) h = d.resolve("history.edn.gz");
    if (Files.isRegularFile(h)) {
      if (seen.add(real(h))) out.add(new Input(h.toString(), h.toString(), null));
      return;
    }
    // Jepsen writes history.edn and history.txt once the run's history is complete, results.edn
    // after the checker, test.jepsen as the run goes: a run that crashed or was stopped before its
    // history was complete, or is still running, has neither of the first three.
    boolean txt = Files.exists(d.resolve("history.txt")), results = Files.exists(d.resolve("results.edn"));
    boolean unfinished = !txt && !results;
    if (unfinished) found.unfinished.add(d);
    if (!seen.add(real(d))) return;
    String holds = "(it holds " + String.join(", ", runFiles(d)) + ")";
    String why;
    if (unfinished && !named) {
      out.add(new Input(d.toString(), h.toString(), null,
          "no history.edn: stopped before its history was written, or still running " + holds));
      return;
    } else if (unfinished) {
      why = "no history.edn in this Jepsen run " + holds + ": it stopped before its history was written, or is still "
          + "running, so there is nothing to check"
          + (Files.exists(d.resolve("test.jepsen")) ? " (isocheck does not read test.jepsen, Jepsen's binary format)"
              : Files.exists(d.resolve("test.fressian")) ? " (isocheck does not read test.fressian, Jepsen's binary format)" : "")
          + "; a test or store directory skips such runs";
    } else if (txt) {
      why = "no history.edn in this Jepsen run, only history.txt, whose text loses the values' types; isocheck reads history.edn";
    } else {
      why = "no history.edn in this Jepsen run " + holds + ", though results.edn says it finished (was history.edn removed?)";
    }
    out.add(new Input(d.toString(), h.toString(), why));
  }

  /** The error of a test or store argument whose every run is unfinished. */
  private static String nothingToCheck(List<Path> runs) {
    StringBuilder sb = new StringBuilder("nothing to check: no run in it has a history.edn; its ").append(runs.size())
        .append(runs.size() == 1 ? " run is" : " runs are")
        .append(" unfinished (stopped before the history was written, or still running): ");
    int shown = Math.min(runs.size(), 3);
    for (int i = 0; i < shown; i++) sb.append(i == 0 ? "" : ", ").append(runs.get(i));
    if (runs.size() > shown) sb.append(", and ").append(runs.size() - shown).append(" more");
    return sb.toString();
  }

  /** The files of RUN_FILES that run directory d holds, by name. */
  private static List<String> runFiles(Path d) {
    List<String> r = new ArrayList<>();
    for (String f : RUN_FILES) if (Files.exists(d.resolve(f))) r.add(f);
    r.sort(null);
    return r;
  }

  static boolean isRun(Path d) {
    for (String f : RUN_FILES) if (Files.exists(d.resolve(f))) return true;
    return false;
  }

  /** d's subdirectories that are not symlinks, by name. */
  private static List<Path> subdirectories(Path d) throws IOException {
    List<Path> r = new ArrayList<>();
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(d)) {
      for (Path p : ds) if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) r.add(p);
    }
    r.sort((x, y) -> x.getFileName().toString().compareTo(y.getFileName().toString()));
    return r;
  }

  private static Path real(Path p) {
    try {
      return p.toRealPath();
    } catch (IOException | RuntimeException e) {
      return p.toAbsolutePath().normalize();
    }
  }

  private static String reason(IOException e) {
    if (e instanceof AccessDeniedException) return "permission denied";
    if (e instanceof FileSystemException && ((FileSystemException) e).getReason() != null) {
      String r = ((FileSystemException) e).getReason();
      return r.isEmpty() ? r : Character.toLowerCase(r.charAt(0)) + r.substring(1);
    }
    return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
  }
}
