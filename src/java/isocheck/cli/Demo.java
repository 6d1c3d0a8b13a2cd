package isocheck.cli;

import clojure.java.api.Clojure;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code isocheck demo [--seed N] [--txns N]}: runs the Clojure namespace {@code isocheck.demo}.
 * A class of its own so that checking never loads Clojure: only this class refers to it. The
 * arguments are checked here, before Clojure loads, so that a bad one is a usage error (exit
 * 3, one line) rather than the demo's internal error.
 */
final class Demo {
  private Demo() {}

  static int run(List<String> args, PrintStream out) throws CheckArgs.UsageException {
    List<String> pass = new ArrayList<>();
    for (int i = 0; i < args.size(); i++) {
      String a = args.get(i);
      switch (a) {
        case "--help": case "-h":
          out.print(Main.USAGE);
          return Main.HOLDS;
        case "--seed": {
          String v = value(args, ++i, a);
          try {
            Long.parseLong(v);
          } catch (NumberFormatException e) {
            throw new CheckArgs.UsageException("--seed takes a whole number, not " + v);
          }
          pass.add(a);
          pass.add(v);
          break;
        }
        case "--txns": {
          String v = value(args, ++i, a);
          long n;
          try {
            n = Long.parseLong(v);
          } catch (NumberFormatException e) {
            throw new CheckArgs.UsageException("--txns takes a number of transactions per history, 1 or more, not " + v);
          }
          // No transactions: no history has anything to check, every verdict is unknown, and
          // the demo's table would mark each as contradicting the store.
          if (n < 1) throw new CheckArgs.UsageException("--txns must be 1 or more (transactions per simulated history), not " + v);
          pass.add(a);
          pass.add(v);
          break;
        }
        default:
          throw new CheckArgs.UsageException(a.startsWith("-") ? "unknown option " + a + " for demo (it takes --seed N and --txns N)"
              : "demo takes no files, only --seed N and --txns N, not " + a);
      }
    }
    Clojure.var("clojure.core", "require").invoke(Clojure.read("isocheck.demo"));
    Object status = Clojure.var("isocheck.demo", "-main").invoke(List.copyOf(pass));
    Clojure.var("clojure.core", "flush").invoke();
    return status instanceof Number n ? n.intValue() : 0;
  }

  private static String value(List<String> args, int i, String option) throws CheckArgs.UsageException {
    if (i >= args.size()) throw new CheckArgs.UsageException(option + " needs a value");
    return args.get(i);
  }
}
