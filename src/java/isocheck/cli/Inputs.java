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
 * Within a test or a store, subdirectories that are symlinks ({@code latest}, {@code current})
 * are skipped, and so is a run whose history (its real path) an earlier argument already named:
 * a run is checked once however many directories reach it. A file argument is always checked
 * as given, even twice.
 */
final class Inputs {
  private Inputs() {}

  /** One history to check: its path as shown, or a reason it cannot be checked. */
  static final class Input {
    /** The path shown (and read, when error is null); "-" is standard input. */
    final String file;
    /** What the report directory is named after: the history's path, or where it would be. */
    final String path;
    /** Why it cannot be checked (a directory with no history), or null. */
    final String error;

    Input(String file, String path, String error) {
      this.file = file;
      this.path = path;
      this.error = error;
    }

    @Override public String toString() { return error == null ? file : file + " (" + error + ")"; }
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
      boolean any;
      try {
        any = directory(p, out, seen);
      } catch (IOException e) {
        out.subList(before, out.size()).clear();
        out.add(new Input(arg, arg, "cannot list it: " + reason(e)));
        continue;
      }
      if (!any && isocheck.io.Formats.isHistoryDirectory(p)) {
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

  /** Adds the runs of directory d (a run, a test or a store); false when it holds none. */
  private static boolean directory(Path d, List<Input> out, Set<Path> seen) throws IOException {
    if (isRun(d)) {
      run(d, out, seen);
      return true;
    }
    List<Path> kids = subdirectories(d);
    boolean any = false;
    for (Path k : kids) {
      if (isRun(k)) {
        run(k, out, seen);
        any = true;
      }
    }
    if (any) return true;
    for (Path k : kids) {
      for (Path r : subdirectories(k)) {
        if (isRun(r)) {
          run(r, out, seen);
          any = true;
        }
      }
    }
    return any;
  }

  private static void run(Path d, List<Input> out, Set<Path> seen) {
    Path h = d.resolve("history.edn");
    if (!Files.isRegularFile(h) && Files.isRegularFile(d.resolve("history.edn.gz"))) h = d.resolve("history.edn.gz");
    if (Files.isRegularFile(h)) {
      if (seen.add(real(h))) out.add(new Input(h.toString(), h.toString(), null));
      return;
    }
    if (!seen.add(real(d))) return;
    // Jepsen writes history.edn (and history.txt) once the run's history is complete, test.jepsen
    // as the run goes: a run stopped before then, or still running, has no history.edn.
    String why;
    if (Files.exists(d.resolve("test.jepsen")) || Files.exists(d.resolve("test.fressian"))) {
      why = "no history.edn in this Jepsen run, only " + (Files.exists(d.resolve("test.jepsen")) ? "test.jepsen" : "test.fressian")
          + ", Jepsen's binary format, which isocheck does not read (was the run stopped before its history was complete?)";
    } else if (Files.exists(d.resolve("history.txt"))) {
      why = "no history.edn in this Jepsen run, only history.txt, whose text loses the values' types; isocheck reads history.edn";
    } else {
      why = "no history.edn in this Jepsen run (was it stopped before its history was complete?)";
    }
    out.add(new Input(d.toString(), h.toString(), why));
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
