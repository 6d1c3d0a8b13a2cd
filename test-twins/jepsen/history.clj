(ns jepsen.history
  "Test twin of Jepsen 0.3's jepsen.history (jepsen-io/jepsen,
  jepsen/src/jepsen/history.clj, which comes from the jepsen.history library).

  Modelled: the operation record, `Op`, with the same six fields in the same
  order (index time type process f value), so `jepsen.history.Op` records,
  their `#jepsen.history.Op{...}` printed form and `map->Op` look as they do in
  Jepsen; `op?`, `op` and the small type predicates the checker twin uses.

  Simplified: no dense, folded, lazily-indexed history collections; a twin
  history is a plain vector of Op records in index order.")

(defrecord Op [index time type process f value])

(defn op?
  "Is x a jepsen.history.Op?"
  [x]
  (instance? Op x))

(defn op
  "x as an Op: an Op is returned as it is, a map becomes an Op with the same
  keys (those other than the six fields ride along)."
  [x]
  (if (op? x) x (map->Op x)))

(defn invoke?     "Is this an invocation?"        [o] (= :invoke (:type o)))
(defn ok?         "Did this op complete :ok?"     [o] (= :ok (:type o)))
(defn fail?       "Did this op complete :fail?"   [o] (= :fail (:type o)))
(defn info?       "Did this op complete :info?"   [o] (= :info (:type o)))
(defn client-op?  "Is this a client's op (an integer :process, not the nemesis)?"
  [o]
  (integer? (:process o)))
