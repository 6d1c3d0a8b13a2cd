(ns jepsen.tests.cycle.wr
  "Test twin of Jepsen 0.3's jepsen.tests.cycle.wr (jepsen-io/jepsen,
  jepsen/src/jepsen/tests/cycle/wr.clj), which hands rw-register tests to
  Elle. A STAND-IN THAT CHECKS NOTHING: Elle is not on this classpath.

  Modelled: the shape. `checker` returns a jepsen.checker/Checker whose
  result is always {:valid? true, :stand-in \"...\"}, so it composes with
  others: the list-append twin's stand-in, which this one shares."
  (:refer-clojure :exclude [test])
  (:require [jepsen.tests.cycle.append :as append]))

(defn checker
  "A checker that checks nothing and says valid, standing in for Elle's."
  ([] (checker {}))
  ([opts] (append/checker opts)))
