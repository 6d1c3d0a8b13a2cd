package isocheck.cli;

import clojure.java.api.Clojure;
import java.util.List;

/**
 * {@code isocheck demo}: runs the Clojure namespace {@code isocheck.demo}. A class of its own so
 * that checking never loads Clojure: only this class refers to it.
 */
final class Demo {
  private Demo() {}

  static int run(List<String> args) {
    Clojure.var("clojure.core", "require").invoke(Clojure.read("isocheck.demo"));
    Object status = Clojure.var("isocheck.demo", "-main").invoke(List.copyOf(args));
    Clojure.var("clojure.core", "flush").invoke();
    return status instanceof Number n ? n.intValue() : 0;
  }
}
