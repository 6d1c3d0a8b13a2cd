package isocheck.cli;

import isocheck.history.History;
import isocheck.history.HistoryException;
import isocheck.history.OpRecord;
import isocheck.history.OpSink;
import isocheck.io.CobraLog;
import isocheck.io.DbcopBincode;
import isocheck.io.DbcopJson;
import isocheck.io.EdnWriter;
import isocheck.io.ElleCli;
import isocheck.io.Formats;
import isocheck.io.Formats.Format;
import isocheck.io.PlumeText;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.zip.GZIPOutputStream;

/**
 * {@code isocheck convert --to FORMAT [--input-format NAME] [--f NAME] [--workload append|wr] [--lossy] IN OUT}:
 * a history from one format into another. To EDN or JSON (elle-cli's) the ops are copied one
 * by one, as read (invocations, times and other ops included). To another tool's format the
 * history is built first (validated as for a check) and written whole: those formats hold
 * committed and aborted register transactions per session, and the writer refuses, naming the
 * transaction, what the format cannot say; and they keep no invocations or times, so a history
 * with either is refused unless {@code --lossy} ({@link Realtime}). OUT is never IN, nor a hard
 * or symbolic link to it ({@link #sameFile}). OUT is written whole or not at all (a temporary
 * file, then renamed); {@code -} is standard input or output; OUT ending in {@code .gz} is
 * compressed; Cobra's OUT is a directory. Exit status 0, or 3 with one line on standard error.
 */
final class Convert {
  private Convert() {}

  static int run(List<String> args, PrintStream out, PrintStream err) throws CheckArgs.UsageException {
    Format to = null, from = null;
    String txnF = "txn";
    boolean lossy = false;
    History.Workload workload = null;
    List<String> files = new ArrayList<>();
    for (int i = 0; i < args.size(); i++) {
      String a = args.get(i);
      switch (a) {
        case "--to": to = format(value(args, ++i, a), "--to"); break;
        case "--input-format": from = format(value(args, ++i, a), "--input-format"); break;
        case "--f": txnF = CheckArgs.txnF(value(args, ++i, a)); break;
        case "--workload": case "-w": workload = CheckArgs.workload(value(args, ++i, a)); break;
        case "--lossy": lossy = true; break;
        case "--help": case "-h":
          out.print(Main.USAGE);
          return Main.HOLDS;
        default:
          if (a.startsWith("-") && !a.equals("-")) throw new CheckArgs.UsageException("unknown option " + a);
          files.add(a);
      }
    }
    if (to == null) throw new CheckArgs.UsageException("convert needs --to FORMAT (" + Format.names() + ")");
    if (to == Format.ELLE_CLI) to = Format.JSON;
    if (files.size() != 2) throw new CheckArgs.UsageException("convert takes IN and OUT (- for standard input or output), not " + files.size() + " file" + (files.size() == 1 ? "" : "s"));
    String in = files.get(0), dest = files.get(1);
    final Format src = from;
    final String f = txnF;
    if (to == Format.COBRA && dest.equals("-")) throw new CheckArgs.UsageException("convert --to cobra writes a directory of logs, not standard output");
    Path outPath;
    try {
      outPath = dest.equals("-") ? null : Path.of(dest);
    } catch (InvalidPathException e) {
      throw new CheckArgs.UsageException(dest + ": not a valid path");
    }
    String same = sameFile(in, outPath);
    if (same != null) {
      err.println("isocheck: " + dest + ": " + same + "; convert writes a new file and leaves IN as it is: give another OUT");
      return Main.BAD;
    }
    try {
      String summary;
      if (to == Format.EDN || to == Format.JSON) {
        long[] ops = new long[1];
        Format target = to;
        summary = write(outPath, out, o -> {
          OpSink w = target == Format.EDN ? new EdnWriter(o) : new ElleCli.Writer(o);
          Formats.read(in, src, f, new OpSink() {
            @Override public void op(OpRecord r) {
              ops[0]++;
              w.op(r);
            }

            @Override public void end() { w.end(); }
          });
          return ops[0] + (ops[0] == 1 ? " op" : " ops");
        });
      } else {
        History h = Formats.readHistory(in, workload, txnF, from);
        if (h.nTxns == 0 && h.opsSeen > 0) throw new HistoryException("nothing to convert: " + h.noTxnReason);
        Realtime rt = Realtime.of(h);
        if (rt.invocations + rt.times > 0 && !lossy) throw new HistoryException(rt.refusal(h, to));
        List<String> notes = new ArrayList<>();
        if (h.opsSkipped > 0) {
          notes.add(h.opsSkipped + (h.opsSkipped == 1 ? " op" : " ops") + " with another :f than :"
              + txnF + (h.nonClientOps > 0 ? " or another process than a client's" : "") + " left out");
        }
        if (rt.invocations + rt.times > 0) notes.add("--lossy: " + rt.counts() + " dropped");
        String counts = h.nTxns + (h.nTxns == 1 ? " transaction" : " transactions") + " in " + h.sessionCount()
            + (h.sessionCount() == 1 ? " session" : " sessions")
            + (notes.isEmpty() ? "" : " (" + String.join("; ", notes) + ")");
        if (to == Format.COBRA) {
          CobraLog.write(h, outPath);
          summary = counts;
        } else {
          Format target = to;
          summary = write(outPath, out, o -> {
            switch (target) {
              case PLUME: PlumeText.write(h, o); break;
              case DBCOP: DbcopJson.write(h, o); break;
              default: DbcopBincode.write(h, o);
            }
            return counts;
          });
        }
      }
      if (outPath != null) {
        out.println("converted " + in + (from != null ? " (" + from.description + ")" : "") + " to " + dest + " ("
            + to.description + "): " + summary);
      }
      return Main.HOLDS;
    } catch (HistoryException e) {
      err.println("isocheck: " + in + ": " + e.getMessage());
    } catch (Target e) {
      err.println("isocheck: " + dest + ": " + e.getMessage());
    } catch (NoSuchFileException e) {
      err.println("isocheck: " + (dest.equals(e.getFile()) ? dest : in) + ": no such file or directory");
    } catch (AccessDeniedException e) {
      err.println("isocheck: " + e.getFile() + ": permission denied");
    } catch (FileSystemException e) {
      err.println("isocheck: " + e.getFile() + ": " + (e.getReason() != null ? e.getReason() : "cannot be read or written"));
    } catch (UncheckedIOException e) {
      err.println("isocheck: " + dest + ": cannot be written: " + e.getCause().getMessage());
    } catch (IOException e) {
      err.println("isocheck: " + in + ": " + e.getMessage());
    } catch (OutOfMemoryError e) {
      err.println("isocheck: " + in + ": out of memory while converting it; " + Heap.raise(Heap.max() * 2));
    }
    return Main.BAD;
  }

  /**
   * What a tool's format (Plume/PolySI text, dbcop, Cobra) cannot hold of a Jepsen history: the
   * transactions' invocations and :time values. Those formats keep each session's transactions
   * in order and nothing of when they ran, so the realtime order between sessions is lost, and
   * strict serializability (or strong snapshot isolation) checked on the converted history can
   * hold where the original violates it. convert refuses unless --lossy says to drop them.
   */
  static final class Realtime {
    long invocations, times;
    /** The transaction with the earliest invocation (or time), and that op's ordinal; -1 when none. */
    int first = -1;
    long firstOrdinal = Long.MAX_VALUE;

    static Realtime of(History h) {
      Realtime r = new Realtime();
      for (int t = 0; t < h.nTxns; t++) {
        long inv = h.invokeOrdinal(t);
        if (inv >= 0) r.invocations++;
        boolean timed = false;
        if (h.invokeTime(t) != isocheck.history.OpRecord.ABSENT) { r.times++; timed = true; }
        if (h.completeTime(t) != isocheck.history.OpRecord.ABSENT) { r.times++; timed = true; }
        long at = inv >= 0 ? inv : timed ? h.completeOrdinal(t) : -1;
        if (at >= 0 && at < r.firstOrdinal) {
          r.firstOrdinal = at;
          r.first = t;
        }
      }
      return r;
    }

    String counts() {
      List<String> parts = new ArrayList<>();
      if (invocations > 0) parts.add(invocations + (invocations == 1 ? " invocation" : " invocations"));
      if (times > 0) parts.add(times + (times == 1 ? " :time value" : " :time values"));
      return String.join(" and ", parts);
    }

    String refusal(History h, Format to) {
      String op;
      if (first < 0) {
        op = "";
      } else {
        boolean inv = h.invokeOrdinal(first) >= 0;
        long index = inv ? h.invokeIndex(first) : h.completeIndex(first);
        long time = inv ? h.invokeTime(first) : h.completeTime(first);
        op = " (the first: op " + firstOrdinal + (index != isocheck.history.OpRecord.ABSENT ? ", :index " + index : "")
            + ", " + (inv ? "the invocation of " : "") + h.name(first) + " of process " + isocheck.history.Edn.str(h.process(first))
            + (time != isocheck.history.OpRecord.ABSENT ? " at :time " + time : "") + ")";
      }
      return "converting to " + to.description + " would drop " + counts() + op + ": " + to.description
          + " keeps each session's transactions in order, not when they ran, so strict serializability checked on the"
          + " result could hold where this history violates it; convert --lossy drops them";
    }
  }

  /**
   * Why OUT would overwrite IN (the same path, or a hard or symbolic link to it), or null. A
   * history is never converted over itself: a mistake would lose it.
   */
  static String sameFile(String in, Path out) {
    if (out == null || in.equals("-")) return null;
    try {
      Path i = Path.of(in);
      if (!Files.exists(out) || !Files.exists(i)) return null;
      if (!Files.isSameFile(i, out)) return null;
      if (i.toAbsolutePath().normalize().equals(out.toAbsolutePath().normalize())) return "is IN itself";
      return Files.isSymbolicLink(out) ? "is a symbolic link to IN (" + in + ")"
          : Files.isSymbolicLink(i) ? "is what IN (" + in + ") links to"
          : "is IN (" + in + ") under another name (a hard link)";
    } catch (IOException | InvalidPathException | SecurityException e) {
      return null;
    }
  }

  /** A failure writing OUT (rather than reading IN). */
  private static final class Target extends IOException {
    Target(String m) { super(m); }
  }

  private interface Body {
    String write(OutputStream o) throws IOException;
  }

  /** Writes OUT through a temporary file beside it, renamed into place once complete; stdout when path is null. */
  private static String write(Path path, PrintStream stdout, Body body) throws IOException {
    if (path == null) {
      OutputStream o = new BufferedOutputStream(stdout, 1 << 16);
      String s = body.write(o);
      o.flush();
      return s;
    }
    if (Files.isDirectory(path)) throw new Target("is a directory");
    Path dir = path.toAbsolutePath().getParent();
    if (dir != null && !Files.isDirectory(dir)) throw new Target("cannot be written: " + dir + " is not a directory");
    Path tmp = path.resolveSibling("." + path.getFileName() + ".isocheck-" + ProcessHandle.current().pid() + ".tmp");
    boolean done = false;
    try {
      String s;
      try (OutputStream raw = Files.newOutputStream(tmp);
           OutputStream o = path.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".gz")
               ? new GZIPOutputStream(raw, 1 << 16) : new BufferedOutputStream(raw, 1 << 16)) {
        s = body.write(o);
      }
      try {
        Files.move(tmp, path, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(tmp, path, StandardCopyOption.REPLACE_EXISTING);
      }
      done = true;
      return s;
    } finally {
      if (!done) Files.deleteIfExists(tmp);
    }
  }

  private static Format format(String name, String option) throws CheckArgs.UsageException {
    Format f = Format.parse(name);
    if (f == null) throw new CheckArgs.UsageException("unknown format " + name + " for " + option + "; known: " + Format.names());
    return f;
  }

  private static String value(List<String> args, int i, String option) throws CheckArgs.UsageException {
    if (i >= args.size()) throw new CheckArgs.UsageException(option + " needs a value");
    return args.get(i);
  }
}
