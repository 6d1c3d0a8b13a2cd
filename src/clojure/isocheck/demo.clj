(ns isocheck.demo
  "`lein run demo`: histories from the built-in simulated database (a correct
  snapshot-isolation store, the same store with injected bugs, and a strictly
  serializable store with a stale-read bug), list-append, rw-register and
  mini-transactions (isocheck.workload/mt, checked in linear time by
  isocheck.check.mt), each checked at every level, one table per workload;
  then the smallest counterexample of each bug, explained."
  (:require [clojure.string :as str]
            [isocheck.workload :as workload])
  (:import (isocheck.check Checker CheckOptions Level Result Verdict Verdict$Value)
           (isocheck.history History$Workload)
           (isocheck.sim Bug SimConfig SimConfig$KeyDist SimHistory SimResult Simulator Store)))

(set! *warn-on-reflection* true)

(def ^:private levels
  [["sser" "strict-serializable"]
   ["ss-ser" "strong-session-serializable"]
   ["ser" "serializable"]
   ["strong-si" "strong-snapshot-isolation"]
   ["ss-si" "strong-session-snapshot-isolation"]
   ["gsi" "gsi"]
   ["si" "snapshot-isolation"]
   ["pl-2.99" "repeatable-read"]
   ["pl-2" "read-committed"]
   ["pl-1" "read-uncommitted"]
   ["tcc" "tcc"]
   ["ra" "ra"]
   ["rc" "rc"]
   ["ci" "ci"]])

(def ^:private append-scenarios
  [["SI store, correct" Store/SNAPSHOT_ISOLATION nil]
   ["SI store + lost update" Store/SNAPSHOT_ISOLATION Bug/LOST_UPDATE]
   ["SI store + long fork" Store/SNAPSHOT_ISOLATION Bug/LONG_FORK]
   ["SI store + aborted read" Store/SNAPSHOT_ISOLATION Bug/ABORTED_READ]
   ["SI store + causality violation" Store/SNAPSHOT_ISOLATION Bug/CAUSALITY_VIOLATION]
   ["SI store + fractured read" Store/SNAPSHOT_ISOLATION Bug/FRACTURED_READ]
   ["RC store, correct" Store/READ_COMMITTED nil]
   ["SSER store, correct" Store/STRICT_SERIALIZABLE nil]
   ["SSER store + stale read" Store/STRICT_SERIALIZABLE Bug/STALE_REALTIME_READ]])

;; rw-register: the version order is not in the history, so the serializable and SI
;; levels are decided by the version-order search (polygraph, pruning, solver). Fewer
;; keys and longer transactions than the list-append rows, so that a long fork's
;; versions are ordered by read-modify-writes often enough for the bug to fire.
(def ^:private register-scenarios
  [["SI store, correct" Store/SNAPSHOT_ISOLATION nil]
   ["SER store, correct" Store/SERIALIZABLE nil]
   ["SI store + lost update" Store/SNAPSHOT_ISOLATION Bug/LOST_UPDATE]
   ["SI store + long fork" Store/SNAPSHOT_ISOLATION Bug/LONG_FORK]
   ["SI store + causality violation" Store/SNAPSHOT_ISOLATION Bug/CAUSALITY_VIOLATION]
   ["SSER store + stale read" Store/STRICT_SERIALIZABLE Bug/STALE_REALTIME_READ]])

;; Mini-transactions (MTC): the workload's own generator drives the store; the
;; read-modify-writes fix every key's version order, so the serializable and SI
;; levels are decided in linear time (the general search only orders the chains
;; an :info write someone read leaves open).
(def ^:private mt-scenarios
  ;; The rw-register rows, and a fractured read before the stale one.
  (let [[before after] (split-at 5 register-scenarios)]
    (vec (concat before [["SI store + fractured read" Store/SNAPSHOT_ISOLATION Bug/FRACTURED_READ]] after))))

(def ^:private workloads
  {:append   {:workload History$Workload/APPEND, :keys 100, :ops [1 4], :bug-rate 0.05
              :title "list-append histories", :scenarios append-scenarios}
   :register {:workload History$Workload/REGISTER, :keys 20, :ops [2 6], :bug-rate 0.2
              :title "rw-register histories", :scenarios register-scenarios}
   :mt       {:workload History$Workload/REGISTER, :keys 20, :ops [1 4], :bug-rate 0.2, :mt? true
              :title "mini-transaction histories", :scenarios mt-scenarios}})

(defn- simulate ^SimHistory [{:keys [workload keys ops bug-rate]} store bug seed txns]
  (Simulator/history
    (cond-> (-> (SimConfig/builder)
                (.seed (long seed))
                (.store store)
                (.workload workload)
                (.txns (int txns))
                (.sessions 10)
                (.keys (int keys))
                (.keyDist SimConfig$KeyDist/ZIPF)
                (.opsPerTxn (int (first ops)) (int (second ops))))
      bug (-> (.bug bug) (.bugRate (double bug-rate)))
      true .build)))

(defn- simulate-mt
  "The MT workload's invocations (20 keys, zipfian) and final reads, run by the store."
  ^SimHistory [{:keys [keys bug-rate]} store bug seed txns]
  (let [w (workload/mt {:seed seed :key-count keys :key-dist :zipfian :levels [:serializable]})]
    (Simulator/driveHistory
      (cond-> (-> (SimConfig/builder)
                  (.seed (long seed))
                  (.store store)
                  (.workload History$Workload/REGISTER)
                  (.sessions 10))
        bug (-> (.bug bug) (.bugRate (double bug-rate)))
        true .build)
      [(map :value (take txns (:generator w))) (map :value (:final-generator w))])))

(defn- check ^Result [^SimHistory sh]
  (Checker/check (.history sh)
                 (.levels (CheckOptions.) (mapv #(Level/parse (second %)) levels))))

(defn- cell [^Result r id expected-ok? expected-bad?]
  (let [^Verdict v (get (.levels r) (Level/parse id))
        word (condp = (.value v)
               Verdict$Value/TRUE "holds"
               Verdict$Value/FALSE "VIOLATED"
               "unknown")
        surprise (or (and expected-ok? (not= Verdict$Value/TRUE (.value v)))
                     (and expected-bad? (not= Verdict$Value/FALSE (.value v))))]
    (str word (when surprise "!"))))

(defn- pad [s n] (let [s (str s)] (str s (apply str (repeat (max 0 (- n (count s))) " ")))))

(defn- table
  "Simulates and checks one workload's scenarios, prints their table; returns
  [rows surprises]."
  [wl seed txns]
  (let [{:keys [title keys ops scenarios] :as w} (workloads wl)
        rows (vec (for [[label store bug] scenarios]
                    (let [sh (if (:mt? w) (simulate-mt w store bug seed txns) (simulate w store bug seed txns))]
                      {:label label, :bug bug, :sh sh, :r (check sh)})))
        width 32
        surprises (atom 0)]
    (println (str title " from the simulated store (seed " seed ", " txns " transactions each, 10 sessions, "
                  keys " keys, zipf, " (first ops) "-" (second ops) " micro-ops"
                  (when (:mt? w) "; MTC's shapes, from isocheck.workload/mt; path: how the serializable and SI levels were decided")
                  ")\n"))
    (println (str (pad "history" width)
                  (apply str (map #(pad (first %) 10) levels))
                  "anomalies found"))
    (doseq [{:keys [label ^SimHistory sh ^Result r bug]} rows]
      (let [^SimResult res (.result sh)
            cells (for [[_ id] levels]
                    (cell r id (contains? (.mustSatisfy res) id) (contains? (.mustViolate res) id)))]
        (swap! surprises + (count (filter #(str/ends-with? % "!") cells)))
        (println (str (pad label width)
                      (apply str (map #(pad % 10) cells))
                      (when (:mt? w) (str "path " (get (get (.stats r) "mt") "path") ": "))
                      (str/join ", " (for [[t n] (.counts (.anomalies r))] (str t " ×" n)))
                      (when (and bug (zero? (.bugFirings res))) "  (bug did not fire)")))))
    (println)
    [rows @surprises]))

(defn- explain-bugs
  "The smallest counterexample of each injected bug."
  [title rows]
  (doseq [{:keys [label ^Result r bug]} rows
          :when bug
          :let [types (.types (.anomalies r))
                ;; The most telling anomaly: the one that rules out the most levels,
                ;; a pre-check before a cycle.
                t (first (sort-by (fn [^String t]
                                    [(- (count (Level/violatedBy t)))
                                     (if (re-find #"^G(0|1c|-|2)" t) 1 0)
                                     t])
                                  types))]
          :when t]
    (let [a (first (.get (.anomalies r) t))]
      (println (str "== " title ", " label ": " t " (" (.count (.anomalies r) t) " found), the smallest:"))
      (println (str/join "\n" (map #(str "  " %) (str/split-lines (.-explanation ^isocheck.report.Anomaly a)))))
      (println))))

(defn -main [args]
  (let [opts (apply hash-map (map #(if (str/starts-with? % "--") (keyword (subs % 2)) %) args))
        seed (Long/parseLong (get opts :seed "42"))
        txns (Long/parseLong (get opts :txns "3000"))
        _ (println "isocheck demo\n")
        [arows asur] (table :append seed txns)
        [rrows rsur] (table :register seed txns)
        [mrows msur] (table :mt seed txns)
        surprises (+ asur rsur msur)]
    (println (str "holds / VIOLATED: isocheck's verdict; a '!' would mark a verdict that contradicts "
                  "what the simulated store guarantees\nor what its injected bug breaks ("
                  surprises " such).\n"))
    (explain-bugs "list-append" arows)
    (explain-bugs "rw-register" rrows)
    (explain-bugs "mini-transactions" mrows)
    (println "Check your own histories: bin/isocheck check store/<test>/<time>/history.edn")
    (if (zero? surprises) 0 1)))
