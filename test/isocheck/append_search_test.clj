(ns isocheck.append-search-test
  "The order of never-read appends on list-append histories, decided by the
  polygraph engine (isocheck.check.si.AppendSearch)."
  (:require [clojure.java.io :as io]
            [clojure.test :refer [deftest is testing]]
            [isocheck.jepsen :as j])
  (:import (isocheck.check CheckOptions Checker Level Result Verdict)
           (isocheck.history History History$Workload)
           (isocheck.io Formats)
           (isocheck.oracle HistoryGen)
           (isocheck.sim Bug SimConfig SimConfig$KeyDist Simulator Store)))

(def levels (mapv #(Level/parse %) ["strict-serializable" "strong-session-serializable" "serializable"
                                    "strong-snapshot-isolation" "strong-session-snapshot-isolation"
                                    "snapshot-isolation"]))

(defn check
  "[verdicts {level-id value-string}, search stats, result] with the given options."
  [^History h & {:keys [legacy shortcuts] :or {shortcuts true}}]
  (let [o (doto (CheckOptions.) (.levels levels))]
    (set! (.legacyUnreadOrder o) (boolean legacy))
    (set! (.searchShortcuts o) (boolean shortcuts))
    (let [^Result r (Checker/check h o)]
      [(into {} (for [[l v] (.levels r)] [(str l) (str (.value ^Verdict v))]))
       (get (.stats r) "search")
       r])))

(defn sim-history ^History [store bug seed txns sessions keys ops]
  (.history (Simulator/history
              (cond-> (-> (SimConfig/builder) (.seed (long seed)) (.store store)
                          (.workload History$Workload/APPEND) (.txns (int txns)) (.sessions (int sessions))
                          (.keys (int keys)) (.keyDist SimConfig$KeyDist/ZIPF) (.opsPerTxn 1 (int ops))
                          (.infoRate 0.05))
                bug (-> (.bug bug) (.bugRate 0.1))
                true .build))))

(defn sim-histories
  "Simulated list-append histories: every store, every bug it admits, a few sizes."
  []
  (for [store (Store/values)
        bug (cons nil (seq (Bug/values)))
        :when (or (nil? bug) (.contains (.stores ^Bug bug) store))
        [seed txns sessions keys ops] [[1 60 3 4 3] [2 300 6 10 4] [3 1200 10 40 4]]]
    [(str store " " bug " seed " seed) (sim-history store bug seed txns sessions keys ops)]))

(defn generated-histories
  "The oracle's tiny histories, plain and with a key no read names (several never-read appends)."
  [n]
  (concat (for [seed (range n)] [(str "gen " seed) (j/->history (vec (.ops (HistoryGen/generate seed))))])
          (for [seed (range n)] [(str "gen-sink " seed) (j/->history (vec (.ops (HistoryGen/generate seed 6 true))))])
          (for [seed (range (quot n 4))] [(str "gen-sink-9 " seed) (j/->history (vec (.ops (HistoryGen/generate seed 9 true))))])))

(deftest the-engine-agrees-with-the-old-backtracking-search
  ;; Before UnreadOrder (the budgeted backtracking search) goes: on every history where it
  ;; answers, the engine gives the same verdict on every level.
  (let [unknown (atom 0)
        searched (atom 0)]
    (doseq [[nm h] (concat (generated-histories 4000) (sim-histories))]
      (let [[a sa] (check h)
            [b] (check h :legacy true)]
        (when (some #(pos? (or (get % "constraints") 0)) (vals sa)) (swap! searched inc))
        (if (some #{"UNKNOWN"} (vals b))
          (swap! unknown inc)
          (is (= b a) nm))))
    (is (zero? @unknown))
    (is (> @searched 1000) "many histories leave some order open")))
