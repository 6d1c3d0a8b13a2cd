(ns jepsen.tests.cycle.wr
  "Test twin of Jepsen 0.3's jepsen.tests.cycle.wr (jepsen-io/jepsen,
  jepsen/src/jepsen/tests/cycle/wr.clj), which hands rw-register tests to
  Elle. A STAND-IN THAT CHECKS NOTHING: Elle is not on this classpath.

  Modelled: the shape, as the list-append twin's. `checker` returns a
  jepsen.checker/Checker whose result is always {:valid? true, :stand-in
  \"...\"}, so it composes with others."
  (:refer-clojure :exclude [test])
  (:require [jepsen.checker :as checker]))

(defn checker
  "A checker that checks nothing and says valid, standing in for Elle's."
  ([] (checker {}))
  ([_opts]
   (reify checker/Checker
     (check [_ _ _ _]
       {:valid?   true
        :stand-in "Elle is not on this classpath; this twin checks nothing"}))))
