package isocheck.cli;

import isocheck.check.CheckOptions;
import isocheck.check.Level;
import isocheck.history.History;
import isocheck.io.Formats;
import java.util.ArrayList;
import java.util.List;

/** The arguments of {@code isocheck check}, parsed and validated before any file is read. */
final class CheckArgs {
  /** The levels checked when --levels is not given: every level, in declaration order (strongest first per family). */
  static final List<Level> DEFAULT_LEVELS = List.of(Level.values());

  /** Bad usage: exit status 3 with this message and the usage text. */
  static final class UsageException extends Exception {
    UsageException(String message) { super(message, null, false, false); }
  }

  String format = "text";
  History.Workload workload;
  /** The format of the input files, or null to tell it from their content. */
  Formats.Format inputFormat;
  /** The :f of transaction ops, without the colon. */
  String txnF = "txn";
  List<Level> levels = DEFAULT_LEVELS;
  /** --levels linearizable: single-key register / compare-and-set histories (isocheck.check.lin). */
  boolean linearizable;
  /** Instances kept per anomaly type; 0 keeps none (counts only). */
  int maxAnomalies = 16;
  String clocks = "vector";
  boolean first;
  /** --no-certificates: the result carries no :certificates. */
  boolean noCertificates;
  String out;
  /** --out-beside: each report in a directory beside its history (a Jepsen run's own directory). */
  boolean outBeside;
  /** --quiet: no progress lines on standard error. */
  boolean quiet;
  /** Seconds for the version-order search of rw-register histories (per file). */
  double timeLimit = 60;
  /** --counterexample-time-limit: seconds for the search of the smallest counterexamples; -1: automatic. */
  double counterexampleTimeLimit = -1;
  boolean help;
  final List<String> files = new ArrayList<>();

  static CheckArgs parse(List<String> args) throws UsageException {
    CheckArgs a = new CheckArgs();
    for (int i = 0; i < args.size(); i++) {
      String arg = args.get(i);
      switch (arg) {
        case "--workload": case "-w": a.workload = workload(value(args, ++i, arg)); break;
        case "--levels": case "-l": {
          String spec = value(args, ++i, arg);
          a.linearizable = linearizable(spec);
          if (!a.linearizable) a.levels = levels(spec);
          break;
        }
        case "--format": case "-f": {
          String f = value(args, ++i, arg);
          if (!f.equals("text") && !f.equals("edn") && !f.equals("json")) {
            throw new UsageException("--format must be text, edn or json, not " + f);
          }
          a.format = f;
          break;
        }
        case "--out": a.out = value(args, ++i, arg); break;
        case "--out-beside": a.outBeside = true; break;
        case "--quiet": case "-q": a.quiet = true; break;
        case "--input-format": a.inputFormat = inputFormat(value(args, ++i, arg)); break;
        case "--f": a.txnF = txnF(value(args, ++i, arg)); break;
        case "--clocks": {
          String c = value(args, ++i, arg);
          if (!c.equals("vector") && !c.equals("tree")) throw new UsageException("--clocks must be vector or tree, not " + c);
          a.clocks = c;
          break;
        }
        case "--first": a.first = true; break;
        case "--no-certificates": a.noCertificates = true; break;
        case "--max-anomalies": a.maxAnomalies = maxAnomalies(value(args, ++i, arg)); break;
        case "--time-limit": a.timeLimit = timeLimit(value(args, ++i, arg)); break;
        case "--counterexample-time-limit": a.counterexampleTimeLimit = counterexampleTimeLimit(value(args, ++i, arg)); break;
        case "--help": case "-h": a.help = true; break;
        default:
          if (arg.startsWith("-") && !arg.equals("-")) throw new UsageException("unknown option " + arg);
          a.files.add(arg);
      }
    }
    if (!a.help && a.files.isEmpty()) throw new UsageException("check needs at least one FILE (or - for standard input)");
    if (a.out != null && a.out.isEmpty()) throw new UsageException("--out needs a directory");
    if (a.out != null && a.outBeside) throw new UsageException("--out DIR and --out-beside exclude each other: give one");
    if (a.outBeside && a.files.contains("-")) {
      throw new UsageException("--out-beside writes each report beside its history, and standard input has no directory; use --out DIR");
    }
    return a;
  }

  private static String value(List<String> args, int i, String option) throws UsageException {
    if (i >= args.size()) throw new UsageException(option + " needs a value");
    return args.get(i);
  }

  static Formats.Format inputFormat(String name) throws UsageException {
    Formats.Format f = Formats.Format.parse(name);
    if (f == null) throw new UsageException("unknown --input-format " + name + "; known: " + Formats.Format.names());
    return f;
  }

  static History.Workload workload(String w) throws UsageException {
    switch (w.startsWith(":") ? w.substring(1) : w) {
      case "append": case "list-append": return History.Workload.APPEND;
      case "wr": case "rw-register": case "register": return History.Workload.REGISTER;
      default: throw new UsageException("Unknown workload " + w + "; expected append or wr");
    }
  }

  /** An op :f name: a keyword's name, a leading ':' allowed (--f tx, --f :tx). */
  static String txnF(String f) throws UsageException {
    String n = f.startsWith(":") ? f.substring(1) : f;
    if (n.isEmpty() || !n.chars().allMatch(c -> c > ' ' && c != 0x7f && c != ',' && c != '"')) {
      throw new UsageException("--f takes the name of the :f of transaction ops, such as txn, not \"" + f + "\"");
    }
    return n;
  }

  /** Whether --levels asks for linearizability, which is checked alone. */
  static boolean linearizable(String spec) throws UsageException {
    boolean lin = false, other = false;
    for (String part : spec.split(",")) {
      String name = part.trim();
      if (name.startsWith(":")) name = name.substring(1);
      if (name.isEmpty()) continue;
      if (name.equals("linearizable") || name.equals("lin")) lin = true;
      else other = true;
    }
    if (lin && other) {
      throw new UsageException("linearizable is checked alone (on histories of single-key reads, writes and compare-and-sets), "
          + "not with transactional levels");
    }
    return lin;
  }

  static List<Level> levels(String spec) throws UsageException {
    List<Level> ls = new ArrayList<>();
    for (String part : spec.split(",")) {
      String name = part.trim();
      if (name.isEmpty()) continue;
      Level l = Level.parse(name);
      if (l == null) {
        throw new UsageException("Unknown isolation level :" + name + "; known: " + Level.knownNames());
      }
      ls.add(l);
    }
    if (ls.isEmpty()) throw new UsageException("--levels must name at least one level");
    return ls;
  }

  static int maxAnomalies(String s) throws UsageException {
    long n;
    try {
      n = Long.parseLong(s.trim());
    } catch (NumberFormatException e) {
      throw new UsageException("--max-anomalies takes a number, not " + s);
    }
    if (n < 0) throw new UsageException("--max-anomalies must be 0 (counts only) or more, not " + s);
    return (int) Math.min(n, Integer.MAX_VALUE);
  }

  static double timeLimit(String s) throws UsageException {
    return seconds("--time-limit", s, false);
  }

  static double counterexampleTimeLimit(String s) throws UsageException {
    return seconds("--counterexample-time-limit", s, true);
  }

  /** A flag's value in seconds: finite, positive (or 0 too, when zeroOk). */
  private static double seconds(String flag, String s, boolean zeroOk) throws UsageException {
    double t;
    try {
      t = Double.parseDouble(s.trim());
    } catch (NumberFormatException e) {
      throw new UsageException(flag + " takes seconds, not " + s);
    }
    if (!(zeroOk ? t >= 0 : t > 0) || Double.isInfinite(t)) {
      throw new UsageException(flag + (zeroOk ? " must be a number of seconds, 0 or more, not " : " must be a positive number of seconds, not ") + s);
    }
    return t;
  }

  /** The core's options. With --max-anomalies 0 the core keeps one instance per type, which is then dropped. */
  CheckOptions options() {
    CheckOptions o = new CheckOptions().levels(levels);
    o.maxAnomaliesPerType = Math.max(1, maxAnomalies);
    // (Counting only: no typed counterexample search, CheckOptions#countsOnly.)
    o.countsOnly = maxAnomalies == 0;
    o.weak.clocks = clocks;
    o.weak.stopAtFirst = first;
    o.timeLimitMs = (long) Math.ceil(timeLimit * 1000);
    if (counterexampleTimeLimit >= 0) o.counterexampleMs = (long) Math.ceil(counterexampleTimeLimit * 1000);
    o.certificates = !noCertificates;
    return o;
  }
}
