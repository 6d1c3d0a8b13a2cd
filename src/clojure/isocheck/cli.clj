(ns isocheck.cli
  "Command line: check saved Jepsen histories, run the demo.

      bin/isocheck check [--workload append|wr] [--levels L1,L2,...]
                         [--format text|edn|json] [--max-anomalies N]
                         [--clocks vector|tree] [--first] [--time-limit S]
                         [--f NAME] [--input-format NAME] [--out DIR | --out-beside] [--quiet]
                         FILE|DIR...
      bin/isocheck convert --to FORMAT [--input-format NAME] [--f NAME]
                           [--workload append|wr] [--lossy] IN OUT
      bin/isocheck demo [--seed N] [--txns N]

  (or `lein run check ...`, or `java -jar target/uberjar/isocheck-*-standalone.jar
  check ...`). The command line is Java, `isocheck.cli.Main`, so that checking a
  file loads no Clojure; this namespace only delegates to it, for `lein run`.
  `(isocheck.cli.Main/run (into-array String args) out err)` runs it in-process
  and returns the exit status: 0 every requested level holds; 1 some level is
  violated; 2 some level is unknown and none is violated (a history with no
  transactions to check included); 3 bad usage or unreadable input. With
  several histories: 1 if any is violated, else 3 if any input is unreadable,
  else 2 if any level is unknown, else 0. A DIR is a Jepsen store, test or run
  directory: the history.edn of each of its runs, a store's or test's runs
  without one (crashed, or still running) skipped and listed as unfinished."
  (:import (isocheck.cli Main)))

(set! *warn-on-reflection* true)

(def usage
  "The usage text `check --help` prints."
  Main/USAGE)

(defn -main
  "Runs the command line and exits with its status."
  [& args]
  (Main/main (into-array String args)))
