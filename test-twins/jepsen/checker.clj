(ns jepsen.checker
  "Test twin of Jepsen 0.3's jepsen.checker (jepsen-io/jepsen,
  jepsen/src/jepsen/checker.clj).

  Modelled: the `Checker` protocol (the one isocheck extends softly at load
  time), `valid-priorities` and `merge-valid` (false beats :unknown beats
  true), `noop`, `check-safe` (an Exception becomes {:valid? :unknown, :error
  <its stack trace>}), `compose` (each checker through check-safe, in
  parallel with pmap, :valid? merged), `concurrency-limit` (a fair
  semaphore), `unbridled-optimism`, and `stats` (ok/fail/info counts of the
  client ops' completions, overall and by :f; valid when every :f has an :ok).

  Simplified: no Knossos, perf plots, timelines or set checkers; `stats`
  reduces a plain sequence where Jepsen folds with tesser; check-safe does
  not log the exception."
  (:require [clojure.stacktrace :as trace]
            [jepsen.history :as h])
  (:import (java.util.concurrent Semaphore)))

(def valid-priorities
  "How much each :valid? value weighs when results are merged: the heaviest
  wins."
  {true 0, :unknown 0.5, false 1})

(defn merge-valid
  "The weightiest of several :valid? values (true for none); throws on a value
  that is not a known :valid?."
  [valids]
  (reduce (fn [a b]
            (let [weight #(or (valid-priorities %)
                              (throw (IllegalArgumentException.
                                       (str (pr-str %) " is not a known valid? value"))))]
              (if (< (weight a) (weight b)) b a)))
          true
          valids))

(defprotocol Checker
  (check [checker test history opts]
    "Verify the history is correct. Returns a map like {:valid? true}."))

(defn noop
  "A checker that checks nothing and returns nil."
  []
  (reify Checker
    (check [_ _ _ _])))

(defn check-safe
  "check, with an Exception turned into {:valid? :unknown, :error \"...\"}."
  ([checker test history]
   (check-safe checker test history {}))
  ([checker test history opts]
   (try (check checker test history opts)
        (catch Exception e
          {:valid? :unknown
           :error  (with-out-str (trace/print-cause-trace e))}))))

(defn compose
  "A checker running every checker of a map of names to checkers (in
  parallel), returning their results under their names and the merged
  :valid?."
  [checker-map]
  (reify Checker
    (check [_ test history opts]
      (let [results (into {} (pmap (fn [[k c]] [k (check-safe c test history opts)])
                                   checker-map))]
        (assoc results :valid? (merge-valid (map :valid? (vals results))))))))

(defn concurrency-limit
  "Wraps a checker so that at most `limit` of its checks run at once."
  [limit checker]
  (let [sem (Semaphore. limit true)]
    (reify Checker
      (check [_ test history opts]
        (.acquire sem)
        (try (check checker test history opts)
             (finally (.release sem)))))))

(defn unbridled-optimism
  "A checker that always says valid."
  []
  (reify Checker
    (check [_ _ _ _] {:valid? true})))

(defn- tally
  "Counts of :ok, :info and :fail completions (any other :type throws, as
  Jepsen's fold does); valid when at least one is :ok."
  [ops]
  (let [{:keys [ok info fail]}
        (reduce (fn [m o]
                  (case (:type o)
                    :ok   (update m :ok inc)
                    :info (update m :info inc)
                    :fail (update m :fail inc)))
                {:ok 0, :info 0, :fail 0}
                ops)]
    {:valid?     (pos? ok)
     :count      (+ ok fail info)
     :ok-count   ok
     :fail-count fail
     :info-count info}))

(defn stats
  "A checker of success and failure rates of client operations, overall and
  by :f. Valid when every :f has at least one :ok completion."
  []
  (reify Checker
    (check [_ test history opts]
      (let [ops  (->> history (remove h/invoke?) (filter h/client-op?))
            by-f (into (sorted-map)
                       (map (fn [[f fops]] [f (tally fops)]))
                       (group-by :f ops))]
        (assoc (tally ops)
               :by-f   by-f
               :valid? (merge-valid (map :valid? (vals by-f))))))))
