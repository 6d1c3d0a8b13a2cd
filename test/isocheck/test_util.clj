(ns isocheck.test-util
  "Small builders for literal histories, so tests read like the papers'
  figures: (h (ok 0 [[:append :x 1]]) (ok 1 [[:r :x [1]]]))."
  (:require [isocheck.core :as iso]))

(defn op [type process mops] {:type type, :process process, :f :txn, :value mops})
(defn invoke [p mops] (op :invoke p mops))
(defn ok [p mops] (op :ok p mops))
(defn fail [p mops] (op :fail p mops))
(defn info [p mops] (op :info p mops))

(defn h
  "A history from ops, numbering :index by position."
  [& ops]
  (vec (map-indexed (fn [i o] (assoc o :index i)) ops)))

(def strong-levels
  "The serializable and snapshot-isolation levels (the weak ones have their own tests)."
  [:strict-serializable :strong-session-serializable :serializable
   :strong-snapshot-isolation :strong-session-snapshot-isolation
   :snapshot-isolation])

(defn check
  "Checks history with the given levels (default: the six strong levels)."
  ([hist] (check hist strong-levels))
  ([hist levels] (iso/check (iso/checker {:levels levels}) hist)))

(defn verdict [r level] (get-in r [:levels level :valid?]))

(defn types [r] (set (:anomaly-types r)))

(defn cx-indices
  "The :index of every op in the smallest counterexample of type t."
  [r t]
  (let [c (get-in r [:counterexamples t])]
    (set (map :index (concat (:cycle c) (:ops c) (keep c [:op :writer]))))))
