(ns jepsen.tests.cycle.append
  "Test twin of Jepsen 0.3's jepsen.tests.cycle.append (jepsen-io/jepsen,
  jepsen/src/jepsen/tests/cycle/append.clj), which hands list-append tests
  to Elle. A STAND-IN THAT CHECKS NOTHING: Elle is not on this classpath.

  Modelled: the shape. `checker` returns a jepsen.checker/Checker, so it
  composes with others, whose result is always {:valid? true, :stand-in
  \"...\"}; `gen` returns an infinite lazy sequence of list-append
  transactions ({:type :invoke, :f :txn, :value [[:append k v] [:r k nil]]},
  every append to a key a new value); `test` returns {:generator ..,
  :checker ..}.

  Simplified: everything Elle does. The generator's keys, lengths and
  distribution are not Elle's, and its options are ignored but :key-count."
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

(defn gen
  "Infinite list-append transactions over (:key-count opts 3) keys: each
  appends i to key (mod i key-count), then reads that key."
  [opts]
  (let [n (:key-count opts 3)]
    (map (fn [i] {:type :invoke, :f :txn, :value [[:append (mod i n) i] [:r (mod i n) nil]]})
         (range))))

(defn test
  "{:generator (gen opts), :checker (checker opts)}."
  [opts]
  {:generator (gen opts)
   :checker   (checker opts)})
