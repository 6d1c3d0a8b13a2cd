(ns isocheck.online-test
  "Online checking (isocheck.online, isocheck.online.OnlineChecker): tiny
  literal histories, one per pattern, each saying when its violation became
  certain; the online verdicts against the offline ones on the simulated
  stores and bugs, over seeds; and the generator wrapper driven by the twin of
  Jepsen's interpreter (client threads, :info renumbering, the nemesis)."
  (:require [clojure.test :refer [deftest is testing]]
            [isocheck.core :as isocheck]
            [isocheck.online :as online]
            [isocheck.test-util :as tu]
            [isocheck.workload :as workload]
            [jepsen.checker]
            [jepsen.client]
            [jepsen.generator :as gen]
            [jepsen.generator.interpreter :as interpreter]
            [jepsen.nemesis])
  (:import (isocheck.check Checker CheckOptions Level Verdict Verdict$Value)
           (isocheck.history History$Workload HistoryBuilder OpRecord OpSink)
           (isocheck.online OnlineChecker)
           (isocheck.sim Bug SimConfig Simulator Store)))

(defn- history
  "Op maps from [process type value] triples, :index in order."
  [& ops]
  (vec (map-indexed (fn [i [p t v]] {:index i, :time (* 1000 i), :process p, :type t, :f :txn, :value v}) ops)))

(defn- online-check
  "The :online map for ops, checked online at levels."
  [levels ops]
  (let [o (online/online {:levels levels, :log? false})]
    (doseq [op ops] (online/ingest! o op))
    (online/result o)))

(defn- valid [m l] (get-in m [:levels l :valid?]))

(defn- offline-valid
  "The offline verdict (true/false/:unknown) of level l on ops."
  [ops l]
  (get-in (isocheck/check (isocheck/checker {:levels [l]}) ops) [:levels l :valid?]))

;; ---------------------------------------------------------------------------
;; Patterns

(def write-skew
  (history [0 :invoke [[:r :x nil] [:r :y nil] [:append :x 1]]]
           [1 :invoke [[:r :x nil] [:r :y nil] [:append :y 1]]]
           [0 :ok     [[:r :x []] [:r :y []] [:append :x 1]]]
           [1 :ok     [[:r :x []] [:r :y []] [:append :y 1]]]
           [2 :invoke [[:r :x nil] [:r :y nil]]]
           [2 :ok     [[:r :x [1]] [:r :y [1]]]]))

(deftest write-skew-violates-serializability-not-si
  (let [m (online-check [:serializable :snapshot-isolation] write-skew)]
    (is (false? (valid m :serializable)))
    (is (true? (valid m :snapshot-isolation)))
    (is (= :G2-item (get-in m [:levels :serializable :first :anomaly])))
    (testing "certain at the second commit (index 3): each committed append follows the empty
             list the other read, though no read shows it yet; not before"
      (is (= 3 (get-in m [:levels :serializable :first :certain-at-index])))
      (is (false? (offline-valid (subvec write-skew 0 4) :serializable)))
      (is (true? (valid (online-check [:serializable] (subvec write-skew 0 3)) :serializable))
          "while T2 has not completed, it may never commit"))
    (is (= [false true] [(offline-valid write-skew :serializable) (offline-valid write-skew :snapshot-isolation)]))))

(def lost-update
  (history [0 :invoke [[:r :x nil] [:append :x 1]]]
           [1 :invoke [[:r :x nil] [:append :x 2]]]
           [0 :ok     [[:r :x []] [:append :x 1]]]
           [1 :ok     [[:r :x []] [:append :x 2]]]
           [2 :invoke [[:r :x nil]]]
           [2 :ok     [[:r :x [1 2]]]]))

(deftest lost-update-violates-si
  (let [m (online-check [:serializable :snapshot-isolation] lost-update)]
    (is (false? (valid m :snapshot-isolation)))
    (is (false? (valid m :serializable)))
    (is (= 5 (get-in m [:levels :snapshot-isolation :first :certain-at-index])))
    (is (false? (offline-valid lost-update :snapshot-isolation)))))

(defn- read-through
  "T1 appends x (completing as t1-type); T2 reads it and appends y; T3 reads T2's y but an x
  without T1's append: T1 -wr-> T2 -wr-> T3 -rw-> T1."
  [t1-type]
  (history [0 :invoke [[:append :x 1]]]
           [0 t1-type [[:append :x 1]]]
           [1 :invoke [[:r :x nil] [:append :y 1]]]
           [1 :ok     [[:r :x [1]] [:append :y 1]]]
           [2 :invoke [[:r :y nil] [:r :x nil]]]
           [2 :ok     [[:r :y [1]] [:r :x []]]]))

(def info-then-read
  ;; T1's append is indeterminate; T2's read shows it committed.
  (read-through :info))

(deftest an-info-transaction-enters-once-read
  (let [m (online-check [:serializable :snapshot-isolation] info-then-read)]
    (is (false? (valid m :serializable)))
    (is (false? (valid m :snapshot-isolation)))
    (is (= :G-single-item (get-in m [:levels :serializable :first :anomaly])))
    (is (= 5 (get-in m [:levels :serializable :first :certain-at-index])))
    (is (false? (offline-valid info-then-read :serializable))))
  (testing "an :info append later read is no violation: it committed"
    (let [ops (history [0 :invoke [[:append :x 1]]]
                       [0 :info   [[:append :x 1]]]
                       [1 :invoke [[:r :x nil]]]
                       [1 :ok     [[:r :x [1]]]])
          m (online-check online/online-levels ops)]
      (is (every? true? (map #(valid m %) online/online-levels)) (pr-str m))
      (is (empty? (:violations m)))))
  (testing "an :info append never read is in no cycle: it may not have committed"
    (let [ops (history [0 :invoke [[:append :x 1] [:append :y 1]]]
                       [0 :info   [[:append :x 1] [:append :y 1]]]
                       [1 :invoke [[:r :x nil] [:r :y nil]]]
                       [1 :ok     [[:r :x []] [:r :y []]]]
                       [2 :invoke [[:append :x 2]]]
                       [2 :ok     [[:append :x 2]]])]
      (is (empty? (:violations (online-check online/online-levels ops)))))))

(deftest an-aborted-read-is-certain-when-the-writer-fails
  (let [ops (history [0 :invoke [[:append :x 1]]]
                     [1 :invoke [[:r :x nil]]]
                     [1 :ok     [[:r :x [1]]]]
                     [0 :fail   [[:append :x 1]]])
        m (online-check [:serializable] ops)]
    (is (= :G1a (get-in m [:levels :serializable :first :anomaly])))
    (is (= 3 (get-in m [:levels :serializable :first :certain-at-index])) "at the failure, not at the read")
    (is (false? (offline-valid ops :serializable))))
  (testing "the writer failed first: certain at the read"
    (let [ops (history [0 :invoke [[:append :x 1]]]
                       [0 :fail   [[:append :x 1]]]
                       [1 :invoke [[:r :x nil]]]
                       [1 :ok     [[:r :x [1]]]])]
      (is (= 3 (get-in (online-check [:serializable] ops) [:levels :serializable :first :certain-at-index]))))))

(def stale-read
  (history [0 :invoke [[:append :x 1]]]
           [0 :ok     [[:append :x 1]]]
           [1 :invoke [[:r :x nil]]]
           [1 :ok     [[:r :x []]]]))

(deftest a-stale-read-violates-the-realtime-levels-only
  ;; GSI may read any snapshot committed before the transaction began: a stale read is allowed.
  (let [m (online-check online/online-levels stale-read)]
    (is (= {:strict-serializable false, :strong-session-serializable true, :serializable true
            :strong-snapshot-isolation false, :strong-session-snapshot-isolation true, :gsi true
            :snapshot-isolation true}
           (into {} (map (fn [l] [l (valid m l)])) online/online-levels)))
    (is (= :G-single-item-realtime (get-in m [:levels :strict-serializable :first :anomaly])))
    (is (= 3 (get-in m [:levels :strict-serializable :first :certain-at-index])))
    (is (= (into {} (map (fn [l] [l (valid m l)])) online/online-levels)
           (into {} (map (fn [l] [l (offline-valid stale-read l)])) online/online-levels)))))

(deftest gsi-orders-commits-in-realtime
  ;; T1 completed before T2 was invoked, yet a read shows T2's append before T1's.
  (let [ops (history [0 :invoke [[:append :x 1]]]
                     [0 :ok     [[:append :x 1]]]
                     [1 :invoke [[:append :x 2]]]
                     [1 :ok     [[:append :x 2]]]
                     [2 :invoke [[:r :x nil]]]
                     [2 :ok     [[:r :x [2 1]]]])
        m (online-check [:gsi :snapshot-isolation] ops)]
    (is (false? (valid m :gsi)))
    (is (true? (valid m :snapshot-isolation)))
    (is (= :G0-realtime-commit (get-in m [:levels :gsi :first :anomaly])))
    (is (= [false true] [(offline-valid ops :gsi) (offline-valid ops :snapshot-isolation)]))))

(deftest a-session-reading-its-past-violates-the-session-levels
  (let [ops (history [0 :invoke [[:append :x 1]]]
                     [0 :ok     [[:append :x 1]]]
                     [0 :invoke [[:r :x nil]]]
                     [0 :ok     [[:r :x []]]])
        m (online-check [:strong-session-serializable :serializable :strong-session-snapshot-isolation] ops)]
    (is (= [false true false] (mapv #(valid m %) [:strong-session-serializable :serializable :strong-session-snapshot-isolation])))
    (is (= :G-single-item-process (get-in m [:levels :strong-session-serializable :first :anomaly])))))

(deftest incompatible-orders-and-internal-reads
  (let [ops (history [0 :invoke [[:append :x 1]]]
                     [1 :invoke [[:append :x 2]]]
                     [0 :ok     [[:append :x 1]]]
                     [1 :ok     [[:append :x 2]]]
                     [2 :invoke [[:r :x nil]]]
                     [2 :ok     [[:r :x [1 2]]]]
                     [3 :invoke [[:r :x nil]]]
                     [3 :ok     [[:r :x [2 1]]]])
        m (online-check [:serializable] ops)]
    (is (= :incompatible-order (get-in m [:levels :serializable :first :anomaly])))
    (is (= 7 (get-in m [:levels :serializable :first :certain-at-index]))))
  (let [ops (history [0 :invoke [[:append :x 1]]]
                     [0 :ok     [[:append :x 1]]]
                     [1 :invoke [[:r :x nil] [:r :x nil]]]
                     [1 :ok     [[:r :x []] [:r :x [1]]]])]
    (is (= :internal (get-in (online-check [:serializable] ops) [:levels :serializable :first :anomaly])))))

(deftest what-the-online-checker-does-not-decide-is-left-to-the-final-check
  (let [o (online/online {:levels [:serializable :tcc :ci :read-committed :ra], :log? false})]
    (is (= [:serializable :tcc :ra] (:levels-checked (online/result o))))))

;; ---------------------------------------------------------------------------
;; The weak levels (RC, RA, TCC)

(def ^:private weak [:rc :ra :tcc])

(defn- weak-verdicts [m] (into {} (map (fn [l] [l (valid m l)])) weak))

(defn- offline-weak [ops] (into {} (map (fn [l] [l (offline-valid ops l)])) weak))

(deftest a-fractured-read-violates-read-atomic
  (testing "x from T1, then y from before T1: RC's MonoAtomicView forbids it too"
    (let [ops (history [0 :invoke [[:append :x 1] [:append :y 1]]]
                       [0 :ok     [[:append :x 1] [:append :y 1]]]
                       [1 :invoke [[:r :x nil] [:r :y nil]]]
                       [1 :ok     [[:r :x [1]] [:r :y []]]])
          m (online-check weak ops)]
      (is (= {:rc false, :ra false, :tcc false} (weak-verdicts m)))
      (is (= :NonMonoReadCM (get-in m [:levels :rc :first :anomaly])))
      (is (= 3 (get-in m [:levels :rc :first :certain-at-index])))
      (is (= (weak-verdicts m) (offline-weak ops)))))
  (testing "y from before T1, then x from T1: RC allows it, RA does not"
    (let [ops (history [0 :invoke [[:append :x 1] [:append :y 1]]]
                       [0 :ok     [[:append :x 1] [:append :y 1]]]
                       [1 :invoke [[:r :y nil] [:r :x nil]]]
                       [1 :ok     [[:r :y []] [:r :x [1]]]])
          m (online-check weak ops)]
      (is (= {:rc true, :ra false, :tcc false} (weak-verdicts m)))
      (is (= :FracturedReadCM (get-in m [:levels :ra :first :anomaly])))
      (is (= (weak-verdicts m) (offline-weak ops))))))

(deftest a-session-reading-its-past-violates-read-atomic
  (let [ops (history [0 :invoke [[:append :x 1]]]
                     [0 :ok     [[:append :x 1]]]
                     [0 :invoke [[:r :x nil]]]
                     [0 :ok     [[:r :x []]]])
        m (online-check weak ops)]
    (is (= {:rc true, :ra false, :tcc false} (weak-verdicts m)))
    (is (= (weak-verdicts m) (offline-weak ops)))))

(def causality-violation
  ;; T2 read T1's x and appended y; T3 read T2's y but x from before T1.
  (read-through :ok))

(deftest a-causality-violation-violates-tcc-only
  (let [m (online-check weak causality-violation)]
    (is (= {:rc true, :ra true, :tcc false} (weak-verdicts m)))
    (is (= :ConflictCM (get-in m [:levels :tcc :first :anomaly])))
    (is (= 5 (get-in m [:levels :tcc :first :certain-at-index])))
    (is (= (weak-verdicts m) (offline-weak causality-violation)))))

(deftest a-writer-read-in-flight-delays-the-causal-verdict-until-it-completes
  ;; T1 is read (its x shown) while in flight; only its completion shows it read T0's z,
  ;; which puts T0 in T3's causal past, though T3 read z from before T0.
  (let [ops (history [0 :invoke [[:append :z 1]]]
                     [0 :ok     [[:append :z 1]]]
                     [1 :invoke [[:r :z nil] [:append :x 1]]]
                     [2 :invoke [[:r :x nil] [:append :y 1]]]
                     [2 :ok     [[:r :x [1]] [:append :y 1]]]
                     [3 :invoke [[:r :y nil] [:r :z nil]]]
                     [3 :ok     [[:r :y [1]] [:r :z []]]]
                     [1 :ok     [[:r :z [1]] [:append :x 1]]])
        m (online-check weak ops)]
    (is (= {:rc true, :ra true, :tcc false} (weak-verdicts m)))
    (is (= 7 (get-in m [:levels :tcc :first :certain-at-index])) "at T1's completion, not at T3's")
    (is (= (weak-verdicts m) (offline-weak ops)))
    (testing "had T1 read z empty, no violation"
      (let [ops' (assoc-in ops [7 :value 0] [:r :z []])
            m'   (online-check weak ops')]
        (is (= {:rc true, :ra true, :tcc true} (weak-verdicts m')))
        (is (= (weak-verdicts m') (offline-weak ops')))))
    (testing "T1 completing :info: its reads are unknown, no violation"
      (let [ops' (assoc-in ops [7 :type] :info)]
        (is (= {:rc true, :ra true, :tcc true} (weak-verdicts (online-check weak ops'))))
        (is (= {:rc true, :ra true, :tcc true} (offline-weak ops')))))))

(deftest weak-intra-transaction-patterns
  (testing "an aborted read: certain at the failure"
    (let [ops (history [0 :invoke [[:append :x 1]]]
                       [1 :invoke [[:r :x nil]]]
                       [1 :ok     [[:r :x [1]]]]
                       [0 :fail   [[:append :x 1]]])
          m (online-check weak ops)]
      (is (= {:rc false, :ra false, :tcc false} (weak-verdicts m)))
      (is (= 3 (get-in m [:levels :rc :first :certain-at-index])))
      (is (= (weak-verdicts m) (offline-weak ops)))))
  (testing "a non-repeatable read violates RA and TCC, not RC"
    (let [ops (history [0 :invoke [[:append :x 1]]]
                       [1 :invoke [[:r :x nil] [:r :x nil]]]
                       [0 :ok     [[:append :x 1]]]
                       [1 :ok     [[:r :x []] [:r :x [1]]]])
          m (online-check weak ops)]
      (is (= {:rc true, :ra false, :tcc false} (weak-verdicts m)))
      (is (= (weak-verdicts m) (offline-weak ops)))))
  (testing "an intermediate read"
    (let [ops (history [0 :invoke [[:append :x 1] [:append :x 2]]]
                       [0 :ok     [[:append :x 1] [:append :x 2]]]
                       [1 :invoke [[:r :x nil]]]
                       [1 :ok     [[:r :x [1]]]])
          m (online-check weak ops)]
      (is (= {:rc false, :ra false, :tcc false} (weak-verdicts m)))
      (is (= :IntermediateRead (get-in m [:levels :rc :first :anomaly])))
      (is (= (weak-verdicts m) (offline-weak ops)))))
  (testing "a cycle of causal order"
    (let [ops (history [0 :invoke [[:r :y nil] [:append :x 1]]]
                       [1 :invoke [[:r :x nil] [:append :y 1]]]
                       [0 :ok     [[:r :y [1]] [:append :x 1]]]
                       [1 :ok     [[:r :x [1]] [:append :y 1]]])
          m (online-check weak ops)]
      (is (= {:rc false, :ra false, :tcc false} (weak-verdicts m)))
      (is (= :CyclicCO (get-in m [:levels :rc :first :anomaly])))
      (is (= 3 (get-in m [:levels :rc :first :certain-at-index])))
      (is (= (weak-verdicts m) (offline-weak ops)))))
  (testing "a long fork is allowed by all three"
    (let [ops (history [0 :invoke [[:append :x 1]]]
                       [1 :invoke [[:append :y 1]]]
                       [0 :ok     [[:append :x 1]]]
                       [1 :ok     [[:append :y 1]]]
                       [2 :invoke [[:r :x nil] [:r :y nil]]]
                       [3 :invoke [[:r :x nil] [:r :y nil]]]
                       [2 :ok     [[:r :x [1]] [:r :y []]]]
                       [3 :ok     [[:r :x []] [:r :y [1]]]])
          m (online-check weak ops)]
      (is (= {:rc true, :ra true, :tcc true} (weak-verdicts m)))
      (is (= (weak-verdicts m) (offline-weak ops))))))

;; ---------------------------------------------------------------------------
;; Online = offline on the simulated stores

(def ^:private levels (mapv #(Level/parse (name %)) online/online-levels))

(defn- sim-config
  "The simulator's config for one history of workload wl."
  ^SimConfig [wl {:keys [seed store bug txns sessions keys ops info-rate max-writes]}]
  (cond-> (-> (SimConfig/builder) (.seed (long seed)) (.store store) (.workload wl)
              (.txns (int txns)) (.sessions (int sessions)) (.keys (int keys)) (.opsPerTxn 1 (int ops))
              (.infoRate (double info-rate)))
    max-writes (.maxWritesPerKey (int max-writes))
    bug (-> (.bug bug) (.bugRate 0.1))
    true .build))

(def ^:private store-bugs
  "Each simulated store with no bug and with each bug it can have."
  (for [store [Store/STRICT_SERIALIZABLE Store/SERIALIZABLE Store/SNAPSHOT_ISOLATION Store/READ_COMMITTED]
        bug (cons nil (Bug/values))
        :when (or (nil? bug) (contains? (.stores ^Bug bug) store))]
    [store bug]))

(defn- online-violated
  "level id -> whether the online checker found a violation of it."
  [^OnlineChecker oc ls]
  (into {} (map (fn [^Level l] [(.id l) (contains? (.firstViolations oc) l)])) ls))

(defn- offline-violated
  "level id -> whether the offline check found it violated."
  [^isocheck.check.Result r]
  (into {} (map (fn [[^Level l ^Verdict v]] [(.id l) (= Verdict$Value/FALSE (.value v))])) (.levels r)))

(defn- first-event
  "The event at which oc's first violation of l became certain, or nil."
  [^OnlineChecker c ^Level l]
  (when-let [^isocheck.online.Violation v (get (.firstViolations c) l)] (.event v)))

(defn- sim-compare
  "[online offline] verdicts (level id -> violated?) on one simulated history."
  [opts]
  (let [cfg (sim-config History$Workload/APPEND opts)
        b   (HistoryBuilder. History$Workload/APPEND)
        oc  (OnlineChecker. levels "txn" 4 nil)
        ;; Each level alone (its own graph, built from the first edge) and SER+SI (the SI graph
        ;; covered by the serializable one): each level's first violation at the same event as
        ;; with all seven (where one graph covers the six others until it has a cycle).
        alone (into {} (map (fn [^Level l] [l (OnlineChecker. [l] "txn" 4 nil)])) levels)
        pair  (OnlineChecker. [(Level/parse "serializable") (Level/parse "snapshot-isolation")] "txn" 4 nil)
        ocs (list* oc pair (vals alone))
        _   (Simulator/run cfg (reify OpSink (op [_ r] (.op b r) (doseq [^OnlineChecker c ocs] (.op c r))) (end [_])))
        r   (Checker/check (.build b) (.levels (CheckOptions.) levels))]
    (doseq [^Level l levels]
      (is (= (first-event oc l) (first-event (alone l) l))
          (str (.id l) ": first violation at a different event with all seven levels than alone")))
    (doseq [^Level l (.levels pair)]
      (is (= (first-event oc l) (first-event pair l)) (str (.id l) ": first violation with SER+SI differs")))
    [(online-violated oc levels) (offline-violated r)]))

(deftest online-verdicts-equal-offline-ones-on-the-simulated-stores
  (let [results (for [i (range 24)
                      [store bug] store-bugs]
                  (let [cfg {:seed (+ 7000 i), :store store, :bug bug
                             :txns (nth [40 150 600] (mod i 3)), :sessions (nth [2 3 5 10] (mod (quot i 3) 4))
                             :keys (nth [3 10 40] (mod i 3)), :ops (nth [2 4 6] (mod (quot i 2) 3))
                             :info-rate (nth [0.01 0.1] (mod i 2))}
                        [on off] (sim-compare cfg)]
                    [cfg on off]))
        violated (count (filter (fn [[_ _ off]] (some true? (vals off))) results))]
    (is (< 50 violated) "bugs fired, and the stores' weaker levels failed, in many histories")
    (doseq [[cfg on off] results]
      (doseq [[l v] on :when v]
        (is (true? (off l)) (str "online found a violation of " l " offline did not: " cfg)))
      (is (= off on) (str "online and offline differ: " cfg)))))

;; The strong levels' graphs sharing one edge store (OnlineChecker.shareGraphs, LevelGraphs: the
;; default) or each its own TopologicalOrder: the same result map, every violation kept (the cap
;; above the counts) with its counterexample word for word, counts, first violations and stats
;; (edges per level), over stores x bugs x seeds, level sets where covered graphs are built late
;; or never, with and without a window collecting often.

(deftest shared-graphs-find-what-separate-graphs-find
  (let [sets  [levels
               [(Level/parse "serializable") (Level/parse "snapshot-isolation")]
               (mapv #(Level/parse %) ["strong-snapshot-isolation" "gsi" "strong-session-snapshot-isolation" "snapshot-isolation"])
               (mapv #(Level/parse %) ["strict-serializable" "gsi"])]
        runs  (for [i (range 36)
                    :let [[store bug] (nth (vec store-bugs) (mod (* 7 i) (count store-bugs)))
                          window (when (odd? i) (nth [4 8] (mod (quot i 2) 2)))
                          cfg {:seed (+ 9300 i), :store store, :bug bug, :txns (nth [150 600 2000] (mod i 3))
                               :sessions (nth [3 5 10] (mod (quot i 3) 3)), :keys (nth [10 40] (mod i 2)), :ops 4
                               :info-rate 0.05, :max-writes window}
                          lvs (nth sets (mod i (count sets)))
                          mk  (fn [share?] (doto (OnlineChecker. lvs "txn" 100000 nil (int (or window 0)))
                                             (.shareGraphs share?)
                                             (.gcThreshold (if window 64 4096))))
                          sep (mk false)
                          sh  (mk true)
                          _   (Simulator/run (sim-config History$Workload/APPEND cfg)
                                             (reify OpSink
                                               (op [_ r] (.op sep r) (.op sh r))
                                               (end [_] (.end sep) (.end sh))))]]
                [cfg sep sh])
        data  (fn [^OnlineChecker oc] (isocheck.jepsen/->clj (.toData oc)))]
    (is (< 12 (count (filter (fn [[_ ^OnlineChecker sep]] (seq (.firstViolations sep))) runs))) "violations in many histories")
    (is (< 8 (count (filter (fn [[_ ^OnlineChecker sep]] (< 1 (count (.firstViolations sep)))) runs)))
        "several levels violated in many (covered graphs built)")
    (is (< 4 (count (filter (fn [[cfg ^OnlineChecker sep]] (and (:max-writes cfg) (pos? (get-in (data sep) [:stats :window :dropped-txns])))) runs)))
        "the window dropped transactions")
    (doseq [[cfg ^OnlineChecker sep ^OnlineChecker sh] runs]
      (is (and (.sharesGraphs sh) (not (.sharesGraphs sep))))
      (is (= (data sep) (data sh)) (str "shared and separate graphs differ: " cfg)))))

;; ---------------------------------------------------------------------------
;; Online = offline for the weak levels, on the simulated stores

(def ^:private weak-levels (mapv #(Level/parse (name %)) weak))

(defn- sim-compare-weak
  "[online offline] verdicts (level id -> violated?) of RC, RA and TCC on one simulated
  history; each level checked alone online must find its first violation at the same event."
  [opts]
  (let [cfg (sim-config History$Workload/APPEND opts)
        b   (HistoryBuilder. History$Workload/APPEND)
        oc  (OnlineChecker. (into levels weak-levels) "txn" 4 nil)
        alone (into {} (map (fn [^Level l] [l (OnlineChecker. [l] "txn" 4 nil)])) weak-levels)
        ocs (cons oc (vals alone))
        _   (Simulator/run cfg (reify OpSink
                                 (op [_ r] (.op b r) (doseq [^OnlineChecker c ocs] (.op c r)))
                                 (end [_] (doseq [^OnlineChecker c ocs] (.end c)))))
        r   (Checker/check (.build b) (.levels (CheckOptions.) weak-levels))]
    (doseq [^Level l weak-levels]
      (is (= (first-event oc l) (first-event (alone l) l))
          (str (.id l) ": first violation at a different event with every level than alone")))
    [(online-violated oc weak-levels) (offline-violated r)]))

(deftest online-weak-verdicts-equal-offline-ones-on-the-simulated-stores
  (let [results (for [i (range 24)
                      [store bug] store-bugs]
                  (let [cfg {:seed (+ 8000 i), :store store, :bug bug
                             :txns (nth [40 150 600] (mod i 3)), :sessions (nth [2 3 5 10] (mod (quot i 3) 4))
                             :keys (nth [3 10 40] (mod i 3)), :ops (nth [2 4 6] (mod (quot i 2) 3))
                             :info-rate (nth [0.01 0.1] (mod i 2))}
                        [on off] (sim-compare-weak cfg)]
                    [cfg on off]))]
    (doseq [l ["rc" "ra" "tcc"]]
      (is (< 10 (count (filter (fn [[_ _ off]] (off l)) results))) (str l " violated offline in many histories"))
      (is (< 10 (count (remove (fn [[_ _ off]] (off l)) results))) (str l " valid offline in many histories")))
    (doseq [[cfg on off] results]
      (doseq [[l v] on :when v]
        (is (true? (off l)) (str "online found a violation of " l " offline did not: " cfg)))
      (is (= off on) (str "online and offline differ: " cfg)))))

;; The weak levels on a thread of their own (OnlineChecker.parallel, isocheck.online.Relay, what
;; the hook runs): what one thread finds, verdicts, first violations (at the same events), counts,
;; stats and completeness alike, with and without a window. The violations kept past each level's
;; first may differ in order only, and in which are kept once an anomaly type passes the cap.

(deftest the-weak-levels-on-their-own-thread-find-what-one-thread-finds
  (let [lvs    (into [(Level/parse "serializable") (Level/parse "snapshot-isolation")] weak-levels)
        plain  (fn [^OnlineChecker oc] (dissoc (isocheck.jepsen/->clj (.toData oc)) :violations))
        kept   (fn [^OnlineChecker oc] (set (map #(dissoc (isocheck.jepsen/->clj (.toData ^isocheck.online.Violation %)) :explanation)
                                                 (.violations oc))))
        runs   (for [i (range 16)
                     :let [[store bug] (nth (vec store-bugs) (mod (* 5 i) (count store-bugs)))
                           window (when (odd? i) 4)
                           cfg {:seed (+ 9100 i), :store store, :bug bug, :txns (nth [150 600 1500] (mod i 3))
                                :sessions (nth [3 5 10] (mod i 3)), :keys (nth [10 40] (mod i 2)), :ops 4
                                :info-rate 0.05, :max-writes window}
                           lvs (if (zero? (mod i 4)) weak-levels lvs) ; the weak levels alone, or beside SER+SI
                           one (OnlineChecker. lvs "txn" 4 nil (int (or window 0)))
                           two (doto (OnlineChecker. lvs "txn" 4 nil (int (or window 0))) (.parallel true))
                           _   (when window (doseq [^OnlineChecker c [one two]] (.gcThreshold c 64)))
                           _   (is (.isParallel two))
                           _   (Simulator/run (sim-config History$Workload/APPEND cfg)
                                              (reify OpSink
                                                (op [_ r] (.op one r) (.op two r))
                                                (end [_] (.end one) (.end two))))]]
                 [cfg one two])]
    (is (< 4 (count (filter (fn [[_ ^OnlineChecker one]] (some #(#{"rc" "ra" "tcc"} (.id ^Level %)) (keys (.firstViolations one)))) runs)))
        "weak levels violated in several histories")
    (is (< 2 (count (filter (fn [[cfg ^OnlineChecker one]] (and (:max-writes cfg) (pos? (get-in (plain one) [:stats :window :dropped-txns])))) runs)))
        "the window dropped transactions")
    (doseq [[cfg ^OnlineChecker one ^OnlineChecker two] runs]
      (is (not (.isParallel two)) "end ends the weak levels' thread")
      (is (= (plain one) (plain two)) (str "verdicts, first violations, counts or stats differ: " cfg))
      (when (every? #(<= % 4) (vals (.counts one)))
        (is (= (kept one) (kept two)) (str "violations differ: " cfg))))))

;; Writers read while in flight: the simulator's completions delayed, each up to its process's
;; next op (the weak levels' verdicts do not depend on the interleaving, only on each process's
;; order), so that reads show appends whose transactions have not completed yet and TCC's clocks
;; wait for them.

(defn- delayed-completions
  "ops (maps) with each completion moved later, uniformly up to its process's next op."
  [ops seed]
  (let [rng  (java.util.Random. seed)
        n    (count ops)
        next (loop [i (dec n), seen {}, out (transient (vec (repeat n n)))]
               (if (neg? i)
                 (persistent! out)
                 (let [p (:process (nth ops i))]
                   (recur (dec i) (assoc seen p i) (assoc! out i (get seen p n))))))
        keyed (map-indexed (fn [i op]
                             [(if (= :invoke (:type op)) (double i) (+ i (* (.nextDouble rng) (- (nth next i) i 0.5))))
                              i op])
                           ops)]
    (vec (map-indexed (fn [i [_ _ op]] (assoc op :index i)) (sort-by (juxt first second) keyed)))))

(defn- weak-in-flight-config
  "History i of the weak levels' in-flight sweeps: a serializable, snapshot-isolation or
  read-committed store by i, a causality or fractured-read bug where the store allows it, sizes
  by i; keys retired after max-writes writes when given."
  ^SimConfig [workload seed i max-writes]
  (let [store ([Store/SERIALIZABLE Store/SNAPSHOT_ISOLATION Store/READ_COMMITTED] (mod i 3))
        bug   ([nil Bug/CAUSALITY_VIOLATION Bug/FRACTURED_READ nil] (mod (quot i 3) 4))]
    (sim-config workload {:seed seed, :store store, :bug (when (and bug (contains? (.stores ^Bug bug) store)) bug)
                          :txns (nth [60 300] (mod i 2)), :sessions (nth [3 6 12] (mod i 3))
                          :keys (nth [3 8 20] (mod (quot i 2) 3)), :ops 4, :info-rate 0.05, :max-writes max-writes})))

(deftest online-weak-verdicts-equal-offline-ones-with-writers-read-in-flight
  (let [recorded @(requiring-resolve 'isocheck.bench/recorded)
        op-maps  @(requiring-resolve 'isocheck.bench/op-maps)
        results (for [i (range 40)
                      :let [cfg   (weak-in-flight-config History$Workload/APPEND (+ 500 i) i nil)
                            ops   (delayed-completions (op-maps (recorded cfg)) i)
                            o     (online/online {:levels weak, :log? false})
                            _     (doseq [op ops] (online/ingest! o op))
                            m     (online/result o)
                            ;; and with the window (the simulator retires keys after 32 appends)
                            w     (online/online {:levels weak, :log? false, :max-writes-per-key 32, :collect-at 8})
                            _     (doseq [op ops] (online/ingest! w op))
                            wm    (online/result w)]]
                  {:i i, :on (weak-verdicts m), :off (offline-weak ops)
                   :win (weak-verdicts wm), :complete? (:complete? wm)
                   :dropped (get-in wm [:stats :weak :dropped-txns])
                   :waited (get-in m [:stats :weak :clocks-waited])})]
    (is (< 20 (count (filter #(pos? (:waited %)) results))) "clocks waited for writers in flight in most histories")
    (is (< 5 (count (filter #(false? (:tcc (:off %))) results))) "TCC violated offline in some")
    (is (< 30 (count (filter #(pos? (:dropped %)) results))) "the window dropped transactions in most histories")
    (is (< 20 (count (filter :complete? results))) "and most never needed one")
    (doseq [{:keys [i on off win complete?]} results]
      (is (= off on) (str "online and offline differ, history " i))
      (doseq [[l v] win :when (false? v)]
        (is (false? (off l)) (str "the window reported a violation of " l " offline did not, history " i)))
      (when complete?
        (is (= off win) (str "complete, yet the window's verdicts differ from the offline ones, history " i))))))

;; ---------------------------------------------------------------------------
;; The wrapper under the twin of Jepsen's interpreter

(defn- client
  "A Jepsen client whose invoke! is (apply-op op) under one lock."
  [apply-op]
  (let [lock (Object.)]
    (reify jepsen.client/Client
      (open! [this _ _] this)
      (setup! [_ _])
      (teardown! [_ _])
      (close! [_ _])
      (invoke! [_ _ op] (locking lock (apply-op op))))))

(defn- store-client
  "A list-append client over one in-memory store, applying each transaction
  at once under a lock (strictly serializable), except: with probability
  :info a transaction completes :info, applied or not (a coin flip); with
  :fail-applied, it is applied yet reported :fail (an aborted read when
  read); with :stale, a read-only transaction reads the state some commits
  old."
  [{:keys [info fail-applied stale seed] :or {info 0.0, fail-applied 0.0, stale 0.0, seed 1}}]
  (let [rng   (java.util.Random. seed)
        state (atom [{}])] ; every state so far, newest last
    (client
      (fn [op]
        (let [states @state
              cur    (peek states)
              ro?    (every? #(= :r (first %)) (:value op))
              view   (if (and ro? (< (.nextDouble rng) stale))
                       (nth states (max 0 (- (count states) 1 (inc (.nextInt rng 5)))))
                       cur)
              [st' vs] (reduce (fn [[st acc] [f k v]]
                                 (if (= f :r)
                                   [st (conj acc [f k (get (if ro? view st) k [])])]
                                   [(update st k (fnil conj []) v) (conj acc [f k v])]))
                               [cur []] (:value op))
              u (.nextDouble rng)]
          (cond
            (< u info)
            (do (when (.nextBoolean rng) (swap! state conj st'))
                (assoc op :type :info))

            (< u (+ info fail-applied))
            (do (when-not ro? (swap! state conj st'))
                (assoc op :type :fail))

            :else
            (do (when-not ro? (swap! state conj st'))
                (assoc op :type :ok, :value vs))))))))

(defn- run-watched
  "Runs n transactions of isocheck's list-append workload and its final reads
  against client, watched online, with a nemesis; returns [test history]."
  [client n opts]
  (let [w    (workload/append {:seed 11, :key-count 5, :max-writes-per-key 8})
        test {:name "online-test", :start-time (str (java.util.UUID/randomUUID)), :concurrency 4
              :nodes ["n1"], :client client, :nemesis jepsen.nemesis/noop
              :generator (online/watch
                           (gen/phases
                             (gen/nemesis (gen/limit 20 (gen/stagger 0.001 (gen/repeat {:type :info, :f :noop})))
                                          (gen/limit n (:generator w)))
                             (:final-generator w))
                           opts)}]
    [(dissoc test :generator) (:history (interpreter/run! test)) w]))

(deftest the-wrapper-watches-a-run-under-the-interpreter
  (testing "a correct store: no violation online, the same verdicts offline"
    (let [[test h w] (run-watched (store-client {:info 0.05, :seed 3}) 400 {:log? false})
          m (jepsen.checker/check (isocheck/checker {:counterexample-time-limit 3600 :levels online/online-levels}) test h {})
          on (:online m)]
      (is (some #(= :info (:type %)) h) ":info completions happened")
      (is (some #(and (integer? (:process %)) (>= (:process %) 4)) h) ":info renumbered processes")
      (is (some #(= :nemesis (:process %)) h) "the nemesis ran")
      (is (true? (:valid? m)) (pr-str (:anomaly-types m)))
      (is (some? on) "the final checker found the online result")
      (is (empty? (:violations on)))
      (is (true? (:agrees-with-offline? on)))
      (is (= (count (filter #(= :txn (:f %)) h)) (get-in on [:stats :events])) "every transaction event reached it")))
  (testing "a store with stale reads and applied-but-failed appends: found online, certain at a completion"
    (let [[test h] (run-watched (store-client {:info 0.05, :fail-applied 0.03, :stale 0.2, :seed 4}) 400 {:log? false})
          m  (jepsen.checker/check (isocheck/checker {:counterexample-time-limit 3600 :levels online/online-levels}) test h {})
          on (:online m)
          by-index (into {} (map (juxt :index identity)) h)]
      (is (seq (:violations on)))
      (is (true? (:agrees-with-offline? on)))
      (doseq [l online/online-levels]
        (when (false? (get-in on [:levels l :valid?]))
          (is (false? (get-in m [:levels l :valid?])) (str l " violated online, not offline"))))
      (doseq [v (:violations on)]
        (is (#{:ok :fail :info} (:type (by-index (:certain-at-index v))))
            "certain at a completion")
        (is (number? (:latency-ms v))))))
  (testing "the weak levels beside the strong ones: the same verdicts as the final check"
    (let [levels (into online/online-levels weak)
          [test h] (run-watched (store-client {:info 0.05, :fail-applied 0.01, :stale 0.2, :seed 8}) 600
                                {:log? false, :levels levels})
          m  (jepsen.checker/check (isocheck/checker {:counterexample-time-limit 3600 :levels levels}) test h {})
          on (:online m)]
      (is (= levels (:levels-checked on)))
      (is (true? (:agrees-with-offline? on)))
      (is (some false? (map #(get-in on [:levels % :valid?]) weak)) "stale reads broke a weak level")
      (doseq [l levels]
        (is (= (get-in m [:levels l :valid?]) (get-in on [:levels l :valid?])) (str l)))))
  (testing "with :max-writes-per-key, the window drops what retired; the final check agrees"
    (let [[test h] (run-watched (store-client {:info 0.05, :stale 0.1, :seed 6}) 1500 {:log? false, :max-writes-per-key 8, :collect-at 64})
          m  (jepsen.checker/check (isocheck/checker {:counterexample-time-limit 3600 :levels online/online-levels}) test h {})
          on (:online m)]
      (is (pos? (get-in on [:stats :window :dropped-txns])) (pr-str (:stats on)))
      (is (true? (:agrees-with-offline? on)))
      (is (boolean? (:complete? on)))
      (when (:complete? on)
        (doseq [l online/online-levels]
          (is (= (get-in m [:levels l :valid?]) (get-in on [:levels l :valid?])) (str l))))))
  (testing ":abort-on-violation? stops the run at the first violation"
    (let [[_ h] (run-watched (store-client {:fail-applied 0.2, :seed 5}) 100000
                             {:log? false, :abort-on-violation? true, :levels [:serializable]})]
      (is (< (count (filter #(= :invoke (:type %)) h)) 20000) "stopped long before 100,000 transactions"))))

;; ---------------------------------------------------------------------------
;; The window: memory bounded by key retirement

(defn- sim-window
  "Checks one simulated history (keys retiring after max-writes appends) offline, online
  without a window, and online with one collected every `every` transactions: {:off :full
  :win (level id -> violated?) :complete? :dropped n}."
  [{:keys [max-writes every lvs keys-kept] :or {lvs levels} :as opts}]
  (let [cfg (sim-config History$Workload/APPEND opts)
        b    (HistoryBuilder. History$Workload/APPEND)
        full (OnlineChecker. lvs "txn" 4 nil)
        win  (doto (OnlineChecker. lvs "txn" 4 nil (int max-writes)) (.gcThreshold (int every)))
        _    (when keys-kept (.retiredKeysKept win (int keys-kept)))
        _    (Simulator/run cfg (reify OpSink (op [_ r] (.op b r) (.op full r) (.op win r)) (end [_] (.end full) (.end win))))
        r    (Checker/check (.build b) (.levels (CheckOptions.) lvs))
        st   (fn [^OnlineChecker oc] (into {} (.stats oc)))]
    {:off (offline-violated r)
     :full (online-violated full lvs), :win (online-violated win lvs), :complete? (.complete win)
     :dropped (+ (get-in (st win) ["window" "dropped-txns"]) (get (into {} (get (st win) "weak")) "dropped-txns" 0))}))

(defn- window-agrees
  "Whatever the window reports, the full online check and the offline one report too;
  complete, it reports the same."
  [results]
  (doseq [{:keys [off full win complete? cfg]} results]
    (doseq [[l v] win :when v]
      (is (true? (off l)) (str "the window reported a violation of " l " offline did not: " cfg))
      (is (true? (full l)) (str "the window reported a violation of " l " the full online check did not: " cfg)))
    (when complete?
      (is (= full win) (str "complete, yet the window's verdicts differ from the full online ones: " cfg))
      (is (= off win) (str "complete, yet the window's verdicts differ from the offline ones: " cfg)))))

(deftest the-window-keeps-the-verdicts
  (let [results (for [i (range 16)
                      [store bug] store-bugs]
                  (let [cfg {:seed (+ 9100 i), :store store, :bug bug, :txns (nth [300 1500] (mod i 2))
                             :sessions (nth [3 5 10] (mod i 3)), :keys (nth [4 10 30] (mod (quot i 2) 3))
                             :ops (nth [2 4] (mod (quot i 3) 2)), :info-rate (nth [0.0 0.02] (mod (quot i 4) 2))
                             :max-writes (nth [4 8 16] (mod i 3)), :every (nth [8 32] (mod (quot i 5) 2))}]
                    (assoc (sim-window cfg) :cfg cfg)))
        complete (filter :complete? results)]
    (is (< 100 (count (filter #(pos? (:dropped %)) results))) "the window dropped transactions in most histories")
    (is (< (* 0.5 (count results)) (count complete)) "most histories never needed a dropped transaction")
    (is (< 20 (count (filter #(some true? (vals (:off %))) complete))) "violated histories among the complete ones")
    (window-agrees results)))

(defn- jepsen-shaped
  "10 sessions, 100 keys, each retiring after 32 appends, 5% :fail, 1% :info, n transactions."
  ^SimConfig [n]
  (-> (SimConfig/builder) (.seed 5) (.store Store/STRICT_SERIALIZABLE) (.workload History$Workload/APPEND)
      (.txns (int n)) (.sessions 10) (.keys 100) (.opsPerTxn 4 4) (.readFraction 0.5)
      (.maxWritesPerKey 32) (.failRate 0.05) (.infoRate 0.01) .build))

(defn- windowed-runs
  "The stats under stats-key of lvs checked with a window (keys retiring after 32 appends) on
  the Jepsen-shaped run of 2·10^4 and of 2·10^5 transactions, each asserted complete and
  without violations."
  [lvs stats-key]
  (for [n [20000 200000]]
    (let [oc (doto (OnlineChecker. lvs "txn" 4 nil 32) (.gcThreshold 1024))]
      (Simulator/run (jepsen-shaped n) oc)
      (is (.complete oc) (str n " transactions"))
      (is (empty? (.violations oc)) (str n " transactions"))
      (into {} (get (into {} (.stats oc)) stats-key)))))

(defn- every-transaction-held-without-a-window [lvs]
  (testing "without a window, every transaction is held"
    (let [oc (OnlineChecker. lvs "txn" 4 nil)]
      (Simulator/run (-> (SimConfig/builder) (.seed 5) (.store Store/STRICT_SERIALIZABLE) (.workload History$Workload/APPEND)
                         (.txns 20000) (.sessions 10) (.keys 100) (.maxWritesPerKey 32) .build)
                     oc)
      (is (= 20000 (.liveTxns oc))))))

(deftest the-window-bounds-the-transactions-held
  ;; 10 sessions, 100 keys, each retiring after 32 appends, 5% :fail, 1% :info: the
  ;; transactions held stay below a bound that does not grow with the run's length.
  (let [[small large] (windowed-runs levels "window")]
    (doseq [m [small large]]
      (is (< (m "peak-live-txns") 2500) (str "held at most the window: " (pr-str m))))
    (is (< 195000 (large "dropped-txns")) (pr-str large))
    (is (< (large "peak-live-txns") (+ 500 (small "peak-live-txns"))) "ten times the run, about the same window")
    (every-transaction-held-without-a-window levels)))

;; The weak levels' window (WeakOnline's class comment: P1-P5)

(deftest the-weak-window-keeps-the-verdicts
  ;; RC, RA and TCC with the window, beside SER+SI with the oldest retired keys forgotten at
  ;; once: whatever the window reports the full online check and the offline one report too;
  ;; complete, it reports the same.
  (let [lvs     (into weak-levels (map #(Level/parse %)) ["serializable" "snapshot-isolation" "strong-session-serializable"])
        results (for [i (range 16)
                      [store bug] store-bugs]
                  (let [cfg {:seed (+ 9300 i), :store store, :bug bug, :txns (nth [300 1500] (mod i 2))
                             :sessions (nth [3 5 10] (mod i 3)), :keys (nth [4 10 30] (mod (quot i 2) 3))
                             :ops (nth [2 4] (mod (quot i 3) 2)), :info-rate (nth [0.0 0.02] (mod (quot i 4) 2))
                             :max-writes (nth [4 8 16] (mod i 3)), :every (nth [8 32] (mod (quot i 5) 2))
                             :lvs lvs, :keys-kept (nth [0 8192] (mod (quot i 7) 2))}]
                    (assoc (sim-window cfg) :cfg (dissoc cfg :lvs))))
        complete (filter :complete? results)]
    (is (< 100 (count (filter #(pos? (:dropped %)) results))) "the window dropped transactions in most histories")
    (is (< (* 0.5 (count results)) (count complete)) "most histories never needed a dropped transaction")
    (is (every? :complete? (filter #(and (nil? (get-in % [:cfg :bug])) (= Store/STRICT_SERIALIZABLE (get-in % [:cfg :store]))) results))
        "the bug-free strict-serializable store's histories never did (a serializable store may read stale versions, older than the window)")
    (doseq [l ["rc" "ra" "tcc"]]
      (is (< 10 (count (filter #(get-in % [:off l]) complete))) (str l " violated in many complete histories"))
      (is (< 10 (count (remove #(get-in % [:off l]) complete))) (str l " valid in many complete histories")))
    (window-agrees results)))

(deftest the-weak-window-bounds-what-it-holds
  ;; The Jepsen-shaped run of the-window-bounds-the-transactions-held, checked at RC, RA and
  ;; TCC: transactions, TCC's chains and sessions held stay about the same over ten times the run.
  (let [[small large] (windowed-runs weak-levels "weak")]
    (doseq [m [small large]]
      (is (< (m "peak-held-txns") 4000) (str "held at most the window: " (pr-str m))))
    (is (< 190000 (large "dropped-txns")) (pr-str large))
    (is (< (large "peak-held-txns") (* 1.5 (small "peak-held-txns"))) (str "ten times the run, about the same window: " (pr-str small large)))
    (is (< (large "chains") 100) (str "TCC's live chains stay few: " (pr-str large)))
    (is (< (large "sessions") 100) (str "ended sessions are forgotten (2,000 processes ran): " (pr-str large)))
    (every-transaction-held-without-a-window weak-levels)))

(defn- fed
  "oc after ops, fed to it directly."
  ^OnlineChecker [^OnlineChecker oc ops]
  (let [r (OpRecord.)]
    (doseq [[i op] (map-indexed vector ops)] (.op oc (isocheck.jepsen/fill! r i op)))
    oc))

(defn- weak-window
  "RC, RA and TCC with a window (keys retiring after max-writes appends, collected at every
  completion) fed ops directly, then ended."
  ^OnlineChecker [max-writes ops]
  (doto (fed (doto (OnlineChecker. weak-levels "txn" 4 nil (int max-writes)) (.gcThreshold 1)) ops)
    (.end)))

(deftest a-read-needing-what-the-weak-window-dropped
  (let [dropped (fn [^OnlineChecker oc] (get (into {} (get (into {} (.stats oc)) "weak")) "dropped-txns"))
        ;; T0 appends 1 to :x; T1 (process 1) reads it; T1's process then reads :x again.
        run     (history [0 :invoke [[:append :x 1]]]
                         [0 :ok     [[:append :x 1]]]
                         [1 :invoke [[:r :x nil]]]
                         [1 :ok     [[:r :x [1]]]])
        again   (fn [v] (into run (history [1 :invoke [[:r :x nil]]] [1 :ok [[:r :x v]]])))
        ops     (fn [v] (mapv #(assoc %2 :index %1) (range) (again v)))]
    (testing "a retired key (one write), its writer dropped: a read of it needs it, so incomplete, and no guess"
      (let [oc (weak-window 1 (again []))]
        (is (pos? (dropped oc)))
        (is (not (.complete oc)))
        (is (empty? (.violations oc)) "not reported: the window cannot tell")
        (is (false? (offline-valid (ops []) :tcc)) "a causality violation the final check finds")
        (is (false? (valid (online-check [:tcc] (ops [])) :tcc)) "and the online check without a window")))
    (testing "an open key (three writes) keeps its order, its dropped writers a prefix: a read ending inside it is incomplete"
      (let [oc (weak-window 3 (again []))]
        (is (pos? (dropped oc)))
        (is (not (.complete oc)))
        (is (empty? (.violations oc)))))
    (testing "a read showing the whole dropped prefix and more needs nothing dropped"
      (let [more (into run (history [2 :invoke [[:append :x 2]]] [2 :ok [[:append :x 2]]]
                                    [1 :invoke [[:r :x nil]]] [1 :ok [[:r :x [1 2]]]]))
            oc   (weak-window 3 more)]
        (is (pos? (dropped oc)))
        (is (.complete oc))
        (is (empty? (.violations oc)))))
    (testing "a read contradicting the kept order is still certain"
      (let [h  (into run (history [2 :invoke [[:append :x 2]]] [2 :ok [[:append :x 2]]]
                                  [1 :invoke [[:r :x nil]]] [1 :ok [[:r :x [2 1]]]]))
            oc (weak-window 3 h)]
        (is (pos? (dropped oc)))
        (is (= ["incompatible-order"] (distinct (map #(.anomaly ^isocheck.online.Violation %) (.violations oc)))))))
    (testing "without a window, nothing is dropped"
      (let [oc (weak-window 0 (again []))]
        (is (.complete oc))
        (is (= ["ConflictCM"] (map #(.anomaly ^isocheck.online.Violation %) (.violations oc))))))))

(defn- window-check
  "An OnlineChecker with a window (keys retiring after max-writes appends, collected at every
  completion) fed ops directly."
  ^OnlineChecker [levels max-writes ops]
  (fed (doto (OnlineChecker. (mapv #(Level/parse (name %)) levels) "txn" 4 nil (int max-writes)) (.gcThreshold 1)) ops))

;; What the strong levels' window forgets: old retired keys and ended processes.

(deftest what-the-window-forgets
  (let [stat (fn [^OnlineChecker oc k] (get (into {} (get (into {} (.stats oc)) "window")) k))]
    (testing "a retired key forgotten (none kept): even the same order again needs it, so incomplete"
      (let [h  (history [0 :invoke [[:append :x 1]]] [0 :ok [[:append :x 1]]]
                        [1 :invoke [[:r :x nil]]] [1 :ok [[:r :x [1]]]]
                        [2 :invoke [[:r :x nil]]] [2 :ok [[:r :x [1]]]])
            kept (fn [n] (fed (doto (OnlineChecker. [(Level/parse "serializable")] "txn" 4 nil 1) (.gcThreshold 1) (.retiredKeysKept (int n))) h))]
        (let [oc (kept 0)]
          (is (pos? (stat oc "forgotten-keys")))
          (is (not (.complete oc)))
          (is (re-find #"forgotten" (str (get (into {} (.toData oc)) "incomplete-because")))))
        (let [oc (kept 8192)]
          (is (zero? (stat oc "forgotten-keys")))
          (is (.complete oc) "kept packed, the same order needs nothing dropped"))))
    (testing "an ended process forgotten: an op of it again needs its session, for the session levels"
      (let [h   (history [0 :invoke [[:append :x 1]]] [0 :info [[:append :x 1]]]
                         [1 :invoke [[:r :x nil]]] [1 :ok [[:r :x [1]]]]
                         [0 :invoke [[:r :y nil]]] [0 :ok [[:r :y []]]])
            run (fn [levels] (window-check levels 2 h))]
        (let [oc (run [:strong-session-serializable])]
          (is (pos? (stat oc "dropped-txns")))
          (is (not (.complete oc)))
          (is (re-find #"process 0" (str (get (into {} (.toData oc)) "incomplete-because")))))
        (is (.complete (run [:serializable])) "process order does not matter to serializability")))))

(deftest a-final-read-of-a-retired-key
  (let [run   (history [0 :invoke [[:append :x 1]]]
                       [0 :ok     [[:append :x 1]]]
                       [1 :invoke [[:r :x nil]]]
                       [1 :ok     [[:r :x [1]]]])
        final (fn [v] (into run (history [2 :invoke [[:r :x nil]]] [2 :ok [[:r :x v]]])))
        win   (fn [v] (window-check [:strict-serializable :serializable] 1 (final v)))
        dropped (fn [^OnlineChecker oc] (get (into {} (get (into {} (.stats oc)) "window")) "dropped-txns"))]
    (testing "the same order again: nothing needed of the dropped writers"
      (let [oc (win [1])]
        (is (pos? (dropped oc)) "the writer and the reader of :x were dropped")
        (is (.complete oc))
        (is (empty? (.violations oc)))))
    (testing "a stale final read needs the dropped writer: incomplete, and no guess"
      (let [ops (mapv #(assoc %2 :index %1) (range) (final []))
            oc  (win [])]
        (is (pos? (dropped oc)))
        (is (not (.complete oc)))
        (is (empty? (.violations oc)) "not reported: the window cannot tell")
        (is (false? (offline-valid ops :strict-serializable)) "a violation the final check finds")
        (is (false? (valid (online-check [:strict-serializable] ops) :strict-serializable)) "and the online check without a window")))
    (testing "a read that contradicts the packed order is still certain"
      (let [oc (win [2])]
        (is (= ["incompatible-order"] (map #(.anomaly ^isocheck.online.Violation %) (.violations oc))))))
    (testing "without a window, nothing is dropped"
      (let [oc (window-check [:serializable] 0 (final []))]
        (is (.complete oc))
        (is (= 3 (.liveTxns oc)))))))

;; ---------------------------------------------------------------------------
;; rw-register: only what no version order can explain (isocheck.online.RegisterOnline)

(def ^:private all-online (into online/online-levels weak))

(deftest rw-register-a-write-read-cycle-is-certain
  (let [ops (history [0 :invoke [[:r :x nil] [:w :y 1]]]
                     [1 :invoke [[:r :y nil] [:w :x 1]]]
                     [0 :ok     [[:r :x 1] [:w :y 1]]]
                     [1 :ok     [[:r :y 1] [:w :x 1]]])
        m (online-check all-online ops)]
    (is (= :rw-register (:workload m)))
    (is (false? (:complete? m)) "the rest of the verdict is the final check's")
    (doseq [l all-online]
      (is (false? (valid m l)) (str l))
      (is (= (if (contains? (set weak) l) :exact :certain-facts) (get-in m [:levels l :online-scope])) (str l))
      (is (false? (offline-valid ops l)) (str l " offline")))
    (is (= :G1c (get-in m [:levels :serializable :first :anomaly])))
    (is (= 3 (get-in m [:levels :serializable :first :certain-at-index])) "at the second reader's :ok")))

(deftest rw-register-a-session-write-read-cycle-violates-the-session-levels-only
  ;; T0 reads x = 1, written later in its session by T2: a cycle of process and wr order only.
  (let [ops (history [0 :invoke [[:r :x nil]]]
                     [0 :ok     [[:r :x 1]]]
                     [0 :invoke [[:w :x 1]]]
                     [0 :ok     [[:w :x 1]]])
        m (online-check all-online ops)]
    (is (true? (valid m :serializable)))
    (is (true? (valid m :snapshot-isolation)))
    (doseq [l [:strong-session-serializable :strong-session-snapshot-isolation :strict-serializable
               :strong-snapshot-isolation :gsi :rc :ra :tcc]]
      (is (false? (valid m l)) (str l))
      (is (false? (offline-valid ops l)) (str l " offline")))
    (is (= :G1c-process (get-in m [:levels :strong-session-serializable :first :anomaly])))
    (is (= :CyclicCO (get-in m [:levels :ra :first :anomaly])) "the weak levels name it as Plume does")
    (is (= :G1c-realtime-commit (get-in m [:levels :gsi :first :anomaly])) "T0 completed before T2 was invoked")
    (is (= 2 (get-in m [:levels :ra :first :certain-at-index]))
        "at the writer's invocation, which names it: it fails (an aborted read) or commits (a cycle)")))

(deftest rw-register-write-skew-is-left-to-the-final-check
  (let [ops (history [0 :invoke [[:r :x nil] [:r :y nil] [:w :x 1]]]
                     [1 :invoke [[:r :x nil] [:r :y nil] [:w :y 1]]]
                     [0 :ok     [[:r :x nil] [:r :y nil] [:w :x 1]]]
                     [1 :ok     [[:r :x nil] [:r :y nil] [:w :y 1]]])
        m (online-check all-online ops)]
    (is (every? #(true? (valid m %)) all-online) "no version order is forced by facts")
    (is (false? (:complete? m)))
    (is (false? (offline-valid ops :serializable)) "the final check's search finds it")
    (is (true? (offline-valid ops :snapshot-isolation)))))

(deftest rw-register-pre-checks
  (testing "G1a, certain at the writer's failure"
    (let [ops (history [0 :invoke [[:w :x 1]]]
                       [1 :invoke [[:r :x nil]]]
                       [1 :ok     [[:r :x 1]]]
                       [0 :fail   [[:w :x 1]]])
          m (online-check all-online ops)]
      (is (= :G1a (get-in m [:levels :serializable :first :anomaly])))
      (is (= 3 (get-in m [:levels :tcc :first :certain-at-index])))
      (is (false? (offline-valid ops :rc)))))
  (testing "G1b"
    (let [ops (history [0 :invoke [[:w :x 1] [:w :x 2]]]
                       [0 :ok     [[:w :x 1] [:w :x 2]]]
                       [1 :invoke [[:r :x nil]]]
                       [1 :ok     [[:r :x 1]]])
          m (online-check all-online ops)]
      (is (= :G1b (get-in m [:levels :rc :first :anomaly])))
      (is (false? (offline-valid ops :rc)))))
  (testing "internal, future read"
    (let [ops (history [0 :invoke [[:w :x 1] [:r :x nil]]]
                       [0 :ok     [[:w :x 1] [:r :x 2]]]
                       [1 :invoke [[:r :y nil] [:w :y 5]]]
                       [1 :ok     [[:r :y 5] [:w :y 5]]])
          m (online-check [:serializable] ops)]
      (is (= {:internal 1, :future-read 1} (:anomaly-counts m)))
      (is (false? (offline-valid ops :serializable)))))
  (testing "a value nobody wrote: certain only at the end"
    (let [ops (history [0 :invoke [[:r :x nil]]]
                       [0 :ok     [[:r :x 7]]])
          m (online-check all-online ops)]
      (is (= :garbage-read (get-in m [:levels :serializable :first :anomaly])))
      (is (false? (offline-valid ops :serializable))))))

(deftest rw-register-an-info-writer-read-later-is-committed-not-aborted
  (let [ops (history [0 :invoke [[:w :x 1]]]
                     [0 :info   [[:w :x 1]]]
                     [1 :invoke [[:r :x nil]]]
                     [1 :ok     [[:r :x 1]]]
                     [2 :invoke [[:r :x nil] [:w :y 1]]]
                     [2 :ok     [[:r :x 1] [:w :y 1]]])
        m (online-check all-online ops)]
    (is (empty? (:violations m)) (pr-str (:violations m)))
    (is (every? #(true? (offline-valid ops %)) [:serializable :tcc])))
  (testing "a reader that read an :info writer's value before that writer's session went on"
    (let [ops (history [0 :invoke [[:w :x 1]]]
                       [1 :invoke [[:r :x nil]]]
                       [1 :ok     [[:r :x 1]]]
                       [0 :info   [[:w :x 1]]]
                       [3 :invoke [[:w :x 2]]]
                       [3 :ok     [[:w :x 2]]])
          m (online-check all-online ops)]
      (is (empty? (:violations m)) (pr-str (:violations m))))))

(defn- sim-compare-register
  "[online offline anomaly-counts scopes] verdicts (level id -> violated?) on one simulated
  rw-register history; offline nil where the final check could not decide; scopes: level id ->
  its :online-scope name."
  [opts]
  (let [cfg (sim-config History$Workload/REGISTER opts)
        ls  (into levels weak-levels)
        b   (HistoryBuilder. History$Workload/REGISTER)
        oc  (OnlineChecker. ls "txn" 4 nil (int (or (:max-writes opts) 0)))
        _   (Simulator/run cfg (reify OpSink (op [_ r] (.op b r) (.op oc r)) (end [_] (.end oc))))
        r   (Checker/check (.build b) (.levels (CheckOptions.) ls))]
    [(online-violated oc ls)
     (into {} (map (fn [[^Level l ^Verdict v]] [(.id l) (condp = (.value v) Verdict$Value/FALSE true Verdict$Value/TRUE false nil)])) (.levels r))
     (into {} (.counts oc))
     (into {} (map (fn [[l v]] [l (.name ^isocheck.history.Kw (get v "online-scope"))])) (get (.toData oc) "levels"))
     (into {} (get (into {} (.stats oc)) "register"))]))

(deftest rw-register-online-violations-are-found-offline-on-the-simulated-stores
  (let [results (for [i (range 12)
                      [store bug] store-bugs]
                  (let [cfg {:seed (+ 9000 i), :store store, :bug bug
                             :txns (nth [40 150 400] (mod i 3)), :sessions (nth [2 3 5 10] (mod (quot i 3) 4))
                             :keys (nth [3 10 40] (mod i 3)), :ops (nth [2 4 6] (mod (quot i 2) 3))
                             :info-rate (nth [0.01 0.1] (mod i 2))}
                        [on off counts] (sim-compare-register cfg)]
                    [cfg on off counts]))
        found (frequencies (mapcat (fn [[_ _ _ c]] (keys c)) results))
        online-found (count (filter (fn [[_ on _]] (some true? (vals on))) results))
        offline-found (count (filter (fn [[_ _ off]] (some true? (vals off))) results))]
    (is (< 20 online-found) "the online checker found violations in many histories")
    (is (< online-found offline-found) "and the final check more (what needs the version order)")
    ;; The simulated stores never close a write-read cycle: the literal tests above cover those.
    (doseq [a ["G1a" "G1b" "FracturedReadCM"]]
      (is (pos? (get found a 0)) (str a " found online in some history: " found)))
    (doseq [[cfg on off] results]
      (doseq [[l v] on :when v]
        (is (true? (off l)) (str "online found a violation of " l " offline did not: " cfg))))))

(deftest rw-register-online-weak-verdicts-equal-offline-ones-on-the-simulated-stores
  ;; RC, RA and TCC are exact online on rw-register (Plume's Theorems 3-5: the commit order their
  ;; axioms force is all there is to them): where the scope says :exact, online = offline. Half
  ;; the histories retire keys after a few writes (the simulator's :max-writes-per-key, told to the
  ;; checker), so that TCC's clocks recycle chains.
  (let [results (for [i (range 16)
                      [store bug] store-bugs]
                  (let [cfg {:seed (+ 9500 i), :store store, :bug bug
                             :txns (nth [40 150 400] (mod i 3)), :sessions (nth [2 3 5 10] (mod (quot i 3) 4))
                             :keys (nth [3 10 40] (mod i 3)), :ops (nth [2 4 6] (mod (quot i 2) 3))
                             :info-rate (nth [0.01 0.1 0.2] (mod i 3))
                             :max-writes (nth [nil 4 nil 8] (mod i 4))}
                        [on off counts scopes st] (sim-compare-register cfg)]
                    [cfg (select-keys on ["rc" "ra" "tcc"]) (select-keys off ["rc" "ra" "tcc"]) counts scopes st]))
        found (frequencies (mapcat (fn [[_ _ _ c]] (keys c)) results))
        some-stat (fn [k] (count (filter (fn [r] (pos? (get (nth r 5) k 0))) results)))]
    (is (< 10 (some-stat "retracted")) "chain tails retracted in many histories")
    (is (< 5 (some-stat "chains-recycled")) "chains recycled in some")
    (doseq [l ["rc" "ra" "tcc"]]
      (is (< 10 (count (filter (fn [[_ _ off]] (true? (off l))) results))) (str l " violated offline in many histories"))
      (is (< 10 (count (filter (fn [[_ _ off]] (false? (off l))) results))) (str l " valid offline in many histories")))
    (is (< (* 0.9 (count results)) (count (filter (fn [[_ _ _ _ sc]] (= "exact" (sc "tcc"))) results)))
        "exact in nearly every simulated history")
    (is (pos? (get found "ConflictCM" 0)) (str "a cycle through a causal edge found online in some history: " found))
    (doseq [[cfg on off _ scopes] results]
      (doseq [[l v] on :when v]
        (is (true? (off l)) (str "online found a violation of " l " offline did not: " cfg)))
      (doseq [l ["rc" "ra" "tcc"] :when (= "exact" (scopes l))]
        (is (= (off l) (on l)) (str l ": exact online, yet online and offline differ: " cfg))))))

(deftest rw-register-online-weak-verdicts-equal-offline-ones-with-writers-read-in-flight
  ;; As for list-append above: completions delayed up to each process's next op, so that reads
  ;; show writes of transactions still in flight and TCC's clocks wait for their completion.
  (let [recorded @(requiring-resolve 'isocheck.bench/recorded)
        op-maps  @(requiring-resolve 'isocheck.bench/op-maps)
        results (for [i (range 30)
                      :let [cfg   (weak-in-flight-config History$Workload/REGISTER (+ 700 i) i 6)
                            ops   (delayed-completions (op-maps (recorded cfg)) i)
                            o     (online/online {:levels weak, :log? false, :max-writes-per-key 6})
                            _     (doseq [op ops] (online/ingest! o op))
                            m     (online/result o)]]
                  {:i i, :on (weak-verdicts m), :off (offline-weak ops), :scope (get-in m [:levels :tcc :online-scope])
                   :waited (get-in m [:stats :register :clocks-waited])})]
    (is (< 10 (count (filter #(pos? (:waited %)) results))) "clocks waited for writers in flight in many histories")
    (is (< 5 (count (filter #(false? (:tcc (:off %))) results))) "TCC violated offline in some")
    (is (< 5 (count (filter #(true? (:tcc (:off %))) results))) "and valid in some")
    (is (< 25 (count (filter #(= :exact (:scope %)) results))) "exact in nearly all")
    (doseq [{:keys [i on off scope]} results]
      (doseq [[l v] on :when (false? v)]
        (is (false? (off l)) (str "online found a violation of " l " offline did not, history " i)))
      (when (= :exact scope)
        (is (= off on) (str "exact, yet online and offline differ, history " i))))))

(deftest rw-register-a-causality-violation-violates-tcc-only
  (testing "a writer of x in the reader's causal past, not one it observed: TCC forces it before the writer read"
    ;; T0 writes x; T1 reads it and overwrites x, and writes z; T2 reads z from T1 and writes y;
    ;; T3 reads y from T2 and x from T0. T1 →CO T3 (through T2), so T1 precedes T0 in commit
    ;; order; T0 →WR T1: a cycle. T3 observed only T2, which does not write x: RA holds.
    (let [ops (history [0 :invoke [[:w :x 1]]]
                       [0 :ok     [[:w :x 1]]]
                       [1 :invoke [[:r :x nil] [:w :x 2] [:w :z 1]]]
                       [1 :ok     [[:r :x 1] [:w :x 2] [:w :z 1]]]
                       [2 :invoke [[:r :z nil] [:w :y 1]]]
                       [2 :ok     [[:r :z 1] [:w :y 1]]]
                       [3 :invoke [[:r :y nil] [:r :x nil]]]
                       [3 :ok     [[:r :y 1] [:r :x 1]]])
          m (online-check all-online ops)]
      (doseq [l [:rc :ra]]
        (is (true? (valid m l)) (str l))
        (is (true? (offline-valid ops l)) (str l " offline")))
      (is (false? (valid m :tcc)))
      (is (false? (offline-valid ops :tcc)))
      (is (= :ConflictCM (get-in m [:levels :tcc :first :anomaly])))
      (is (= 7 (get-in m [:levels :tcc :first :certain-at-index])) "at the reader's :ok")
      (is (= #{:wr :cm} (set (get-in m [:levels :tcc :first :steps]))))
      (is (= :exact (get-in m [:levels :tcc :online-scope])))))
  (testing "a read of the initial state by one that causally follows a writer"
    (let [ops (history [0 :invoke [[:w :x 1]]]
                       [0 :ok     [[:w :x 1]]]
                       [1 :invoke [[:r :x nil] [:w :y 1]]]
                       [1 :ok     [[:r :x 1] [:w :y 1]]]
                       [2 :invoke [[:r :y nil] [:r :x nil]]]
                       [2 :ok     [[:r :y 1] [:r :x nil]]])
          m (online-check weak ops)]
      (is (true? (valid m :ra)))
      (is (true? (offline-valid ops :ra)))
      (is (= :COConflictCM (get-in m [:levels :tcc :first :anomaly])))
      (is (false? (offline-valid ops :tcc)))
      (is (true? (:complete? m)) "only the weak levels, all exact: the online verdicts are the final ones")))
  (testing "the causal past through a writer read in flight waits for its completion"
    ;; T1 is read (by T2) before it completes; only T1's :ok shows it read x from T0.
    (let [ops (history [0 :invoke [[:w :x 1]]]
                       [0 :ok     [[:w :x 1]]]
                       [1 :invoke [[:r :x nil] [:w :x 2] [:w :z 1]]]
                       [2 :invoke [[:r :z nil] [:w :y 1]]]
                       [2 :ok     [[:r :z 1] [:w :y 1]]]
                       [3 :invoke [[:r :y nil] [:r :x nil]]]
                       [3 :ok     [[:r :y 1] [:r :x 1]]]
                       [1 :ok     [[:r :x 1] [:w :x 2] [:w :z 1]]])
          m (online-check weak ops)]
      (is (false? (valid m :tcc)))
      (is (false? (offline-valid ops :tcc)))
      (is (= 7 (get-in m [:levels :tcc :first :certain-at-index])) "certain at the writer's :ok"))))

(deftest rw-register-the-weak-levels-say-when-they-are-not-exact
  (doseq [[label ops why] [["a read completed before its writer was invoked"
                            (history [1 :invoke [[:r :x nil] [:w :y 1]]]
                                     [1 :ok     [[:r :x 1] [:w :y 1]]]
                                     [0 :invoke [[:r :y nil] [:w :x 1]]]
                                     [0 :ok     [[:r :y nil] [:w :x 1]]])
                            "before its writer"]
                           ["a process reused after an :info transaction a read showed committed"
                            (history [0 :invoke [[:w :x 1]]]
                                     [0 :info   [[:w :x 1]]]
                                     [1 :invoke [[:r :x nil]]]
                                     [1 :ok     [[:r :x 1]]]
                                     [0 :invoke [[:r :x nil]]]
                                     [0 :ok     [[:r :x nil]]])
                            "process went on"]]]
    (testing label
      (let [m (online-check weak ops)]
        (is (false? (:complete? m)))
        (is (re-find (re-pattern why) (:incomplete-because m)) (:incomplete-because m))
        (doseq [l weak]
          (is (= :certain-facts (get-in m [:levels l :online-scope])) (str l))
          (when (false? (valid m l)) (is (false? (offline-valid ops l)) (str l " violated online, not offline"))))))))

(deftest rw-register-an-info-writer-never-gives-a-false-causal-report
  ;; T1 (:info) writes x and y; its reads are unknown. Shown committed by T2's read of y (after
  ;; its :info completion: its process retired), it is in T2's causal past: T1 precedes T0, which
  ;; T2 read x from -- no cycle, since T1's read of x is unknown. The same with T1 read while in
  ;; flight. T3 reads x from T1 and writes z; T4 reads z from T3 and x = nil: T1 is in its causal
  ;; past (not observed: read atomic holds), a violation of TCC certain at T4's :ok.
  (doseq [[label ops] {"read after its :info"
                       (history [0 :invoke [[:w :x 1]]]
                                [0 :ok     [[:w :x 1]]]
                                [1 :invoke [[:r :x nil] [:w :x 2] [:w :y 2]]]
                                [1 :info   [[:r :x nil] [:w :x 2] [:w :y 2]]]
                                [2 :invoke [[:r :y nil] [:r :x nil]]]
                                [2 :ok     [[:r :y 2] [:r :x 1]]]
                                [3 :invoke [[:r :x nil] [:w :z 3]]]
                                [3 :ok     [[:r :x 2] [:w :z 3]]]
                                [4 :invoke [[:r :z nil] [:r :x nil]]]
                                [4 :ok     [[:r :z 3] [:r :x nil]]])
                       "read in flight"
                       (history [0 :invoke [[:w :x 1]]]
                                [0 :ok     [[:w :x 1]]]
                                [1 :invoke [[:r :x nil] [:w :x 2] [:w :y 2]]]
                                [2 :invoke [[:r :y nil] [:r :x nil]]]
                                [2 :ok     [[:r :y 2] [:r :x 1]]]
                                [3 :invoke [[:r :x nil] [:w :z 3]]]
                                [3 :ok     [[:r :x 2] [:w :z 3]]]
                                [1 :info   [[:r :x nil] [:w :x 2] [:w :y 2]]]
                                [4 :invoke [[:r :z nil] [:r :x nil]]]
                                [4 :ok     [[:r :z 3] [:r :x nil]]])}]
    (testing label
      (let [m (online-check weak (pop (pop ops)))]
        (is (empty? (:violations m)) (pr-str (:violations m)))
        (is (true? (offline-valid (pop (pop ops)) :tcc))))
      (let [m (online-check weak ops)]
        (is (= :COConflictCM (get-in m [:levels :tcc :first :anomaly])))
        (is (true? (valid m :ra)))
        (is (= 9 (get-in m [:levels :tcc :first :certain-at-index])))
        (is (= (weak-verdicts m) (offline-weak ops)))
        (is (= :exact (get-in m [:levels :tcc :online-scope])))))))

;; ---------------------------------------------------------------------------
;; The final check's History, built during the run (online/prebuilt-history)

(defn- strip [m] (dissoc m :online :stats :report-dir))

(deftest the-final-check-uses-the-history-built-during-the-run
  (let [[test h] (run-watched (store-client {:info 0.05, :seed 5}) 300 {:log? false})
        checker (isocheck/checker {:counterexample-time-limit 3600 :levels (into online/online-levels weak)})
        m (jepsen.checker/check checker test h {})
        ;; The same ops checked by a final check no watch watched: read again.
        again (jepsen.checker/check checker (assoc test :name "not watched") h {})]
    (is (true? (get-in m [:online :history-prebuilt?])))
    (is (nil? (:online again)))
    (is (= (strip again) (strip m)) "the verdicts and anomalies are those of reading the ops again")
    (is (= (strip again) (strip (jepsen.checker/check checker test h {}))) "a second final check of the same ops: the same")
    (testing "ops that are not the very events the watch saw are read again"
      (let [copies (mapv #(into {} %) h)]
        (is (nil? (online/prebuilt-history test copies nil nil)))
        (is (nil? (online/prebuilt-history test (pop h) nil nil)))
        (is (= (strip again) (strip (jepsen.checker/check checker test copies {}))))))
    (testing "a final check that forces the workload reads the ops again"
      (is (nil? (online/prebuilt-history test h :append nil)))))
  (testing "with a violation found"
    (let [[test h] (run-watched (store-client {:info 0.05, :seed 3, :stale 0.2}) 300 {:log? false})
          checker (isocheck/checker {:counterexample-time-limit 3600 :levels online/online-levels})
          m (jepsen.checker/check checker test h {})]
      (is (true? (get-in m [:online :history-prebuilt?])))
      (is (= (strip (jepsen.checker/check checker (assoc test :name "not watched") h {})) (strip m)))))
  (testing ":build-history? false: nothing built, the ops read at the end"
    (let [[test h] (run-watched (store-client {:info 0.05, :seed 3}) 100 {:log? false, :build-history? false})]
      (is (nil? (online/prebuilt-history test h nil nil)))
      (is (false? (get-in (jepsen.checker/check (isocheck/checker {}) test h {}) [:online :history-prebuilt?]))))))

(deftest rw-register-the-commit-order-the-reads-force
  (testing "a fractured read of the initial state: read atomic, not read committed"
    (let [ops (history [0 :invoke [[:w :x 1] [:w :y 1]]]
                       [0 :ok     [[:w :x 1] [:w :y 1]]]
                       [1 :invoke [[:r :y nil] [:r :x nil]]]
                       [1 :ok     [[:r :y nil] [:r :x 1]]])
          m (online-check all-online ops)]
      (is (true? (valid m :rc)))
      (is (true? (offline-valid ops :rc)))
      (doseq [l [:ra :tcc]]
        (is (false? (valid m l)) (str l))
        (is (false? (offline-valid ops l)) (str l " offline")))
      (is (= :FracturedReadCM (get-in m [:levels :ra :first :anomaly])))
      (is (= 3 (get-in m [:levels :ra :first :certain-at-index])))))
  (testing "the same reads the other way round: read committed too (y read from T0 first)"
    (let [ops (history [0 :invoke [[:w :x 1] [:w :y 1]]]
                       [0 :ok     [[:w :x 1] [:w :y 1]]]
                       [1 :invoke [[:r :x nil] [:r :y nil]]]
                       [1 :ok     [[:r :x 1] [:r :y nil]]])
          m (online-check all-online ops)]
      (is (= :NonMonoReadCM (get-in m [:levels :rc :first :anomaly])))
      (is (false? (offline-valid ops :rc)))))
  (testing "a forced edge closing a cycle: T2 reads x from T0 though it saw T1, which read T0's x and overwrote it"
    (let [ops (history [0 :invoke [[:w :x 1]]]
                       [0 :ok     [[:w :x 1]]]
                       [1 :invoke [[:r :x nil] [:w :x 2] [:w :y 2]]]
                       [1 :ok     [[:r :x 1] [:w :x 2] [:w :y 2]]]
                       [2 :invoke [[:r :x nil] [:r :y nil]]]
                       [2 :ok     [[:r :x 1] [:r :y 2]]])
          m (online-check all-online ops)]
      (is (true? (valid m :rc)))
      (is (true? (offline-valid ops :rc)))
      (is (= :FracturedReadCM (get-in m [:levels :tcc :first :anomaly])))
      (is (= #{:wr :cm} (set (get-in m [:levels :ra :first :steps]))))
      (is (false? (offline-valid ops :ra)))))
  (testing "a session's own earlier write: read atomic"
    (let [ops (history [0 :invoke [[:w :x 1]]]
                       [0 :ok     [[:w :x 1]]]
                       [1 :invoke [[:r :x nil] [:w :x 2]]]
                       [1 :ok     [[:r :x 1] [:w :x 2]]]
                       [1 :invoke [[:r :x nil]]]
                       [1 :ok     [[:r :x 1]]])
          m (online-check all-online ops)]
      (is (false? (valid m :ra)))
      (is (true? (valid m :rc)))
      (is (false? (offline-valid ops :ra)))
      (is (true? (offline-valid ops :rc))))))

(defn- register-client
  "An rw-register client over one in-memory map, each transaction applied at
  once under a lock (strictly serializable); with probability :info it
  completes :info, applied or not (a coin flip)."
  [{:keys [info seed] :or {info 0.0, seed 1}}]
  (let [rng (java.util.Random. seed), state (atom {})]
    (client
      (fn [op]
        (let [[st' vs] (reduce (fn [[st acc] [f k v]]
                                 (if (= f :r) [st (conj acc [f k (get st k)])] [(assoc st k v) (conj acc [f k v])]))
                               [@state []] (:value op))]
          (if (< (.nextDouble rng) info)
            (do (when (.nextBoolean rng) (reset! state st')) (assoc op :type :info))
            (do (reset! state st') (assoc op :type :ok, :value vs))))))))

(deftest the-wrapper-watches-an-rw-register-run
  (let [w    (workload/wr {:seed 11, :key-count 5, :max-writes-per-key 8})
        test {:name "online-wr-test", :start-time (str (java.util.UUID/randomUUID)), :concurrency 4
              :nodes ["n1"], :client (register-client {:info 0.05, :seed 3}), :nemesis jepsen.nemesis/noop
              :generator (online/watch (gen/phases (gen/clients (gen/limit 300 (:generator w))) (:final-generator w))
                                       {:log? false, :levels all-online})}
        h    (:history (interpreter/run! test))
        test (dissoc test :generator)
        checker (isocheck/checker {:counterexample-time-limit 3600 :levels all-online})
        m    (jepsen.checker/check checker test h {})
        on   (:online m)]
    (is (some #(= :info (:type %)) h) ":info completions happened")
    (is (= :rw-register (:workload on)))
    (is (false? (:complete? on)))
    (is (empty? (:violations on)) "a strictly serializable store: nothing online")
    (is (every? #(true? (get-in m [:levels % :valid?])) all-online) "nor at the end")
    (is (pos? (get-in on [:stats :register :wr-edges])) "its reads were followed")
    (is (true? (:history-prebuilt? on)))
    (is (= (strip (jepsen.checker/check checker (assoc test :name "not watched") h {})) (strip m)))))

;; ---------------------------------------------------------------------------
;; The final check on the History built during the run = reading the ops again,
;; on the simulated stores and bugs

(defn- record->op
  "A Jepsen op map from a simulator's record, as the interpreter hands it to a generator."
  [^OpRecord r]
  {:index (.index r), :time (.time r), :type (keyword (isocheck.history.Kw/nameOf (.typeRaw r)))
   :process (.process r), :f :txn
   :value (mapv (fn [i] (let [i (int i), v (.value r i)]
                          [(keyword (isocheck.history.Kw/nameOf (.fRaw r i))) (.key r i)
                           (if (instance? java.util.List v) (vec v) v)]))
                (range (.mopCount r)))})

(defn- sim-ops
  "The op maps of one simulated list-append history."
  [opts]
  (let [ops (java.util.ArrayList.)]
    (Simulator/run (sim-config History$Workload/APPEND opts)
                   (reify OpSink (op [_ r] (.add ops (record->op r))) (end [_])))
    (vec ops)))

(deftest the-final-check-on-the-history-built-online-equals-reading-the-ops
  (let [checker (isocheck/checker {:counterexample-time-limit 3600 :levels (into online/online-levels weak)})
        runs (for [i (range 3)
                   [store bug] store-bugs]
               (let [cfg {:seed (+ 9100 i), :store store, :bug bug, :txns (nth [150 400 800] i)
                          :sessions (nth [3 5 10] i), :keys (nth [5 20 40] i), :ops 4, :info-rate 0.05
                          :max-writes (when (= i 2) 16)}
                     [m again] (tu/watched-final-check checker (sim-ops cfg) (cond-> {} (= i 2) (assoc :max-writes-per-key 16)))]
                 [cfg m again]))]
    (is (< 10 (count (filter (fn [[_ m]] (false? (:valid? m))) runs))) "bugs fired")
    (doseq [[cfg m again] runs]
      (is (true? (get-in m [:online :history-prebuilt?])) (str "the History built online was used: " cfg))
      (is (true? (get-in m [:online :agrees-with-offline?])) (str cfg))
      (is (= (strip again) (strip m)) (str "the final check differs from reading the ops: " cfg)))))

;; ---------------------------------------------------------------------------
;; The History builder's compact columns (list reads sharing a key's segment, :index as a rule)

(defn- build
  "A History of op maps, each list read copied apart (share? false) or sharing its key's segment."
  [ops share?]
  (let [b (.shareLists (HistoryBuilder. nil "txn") (boolean share?))
        r (OpRecord.)]
    (dorun (map-indexed (fn [i op] (.op b (isocheck.jepsen/fill! r i op))) ops))
    (.build b)))

;; Compared results search counterexamples without the automatic time bound (a share of the
;; check's time, floor 100 ms): on a loaded machine that bound stops one run's search and not
;; the other's, and the two maps differ in their counterexamples, not their verdicts.
(def ^:private unbounded {:counterexample-time-limit 3600})

(defn- check-data [h]
  (dissoc (second (isocheck/check-history (assoc unbounded :levels (into online/online-levels weak)) h)) :stats))

(defn- with-cores [n f]
  (let [old (System/getProperty "isocheck.weak.cores")]
    (System/setProperty "isocheck.weak.cores" (str n))
    (try (f) (finally (if old (System/setProperty "isocheck.weak.cores" old) (System/clearProperty "isocheck.weak.cores"))))))

(deftest shared-list-segments-are-what-the-reads-read
  (testing "literal reads of one key: prefixes, extensions, an extension past the room, a disagreeing shorter and longer read, nil"
    (let [ops (history [0 :invoke [[:append :x 1] [:append :x 2]]]
                       [0 :ok     [[:append :x 1] [:append :x 2]]]
                       [1 :invoke [[:r :x nil]]] [1 :ok [[:r :x [1 2]]]]
                       [1 :invoke [[:r :x nil]]] [1 :ok [[:r :x [1]]]]
                       [1 :invoke [[:r :x nil] [:r :y nil]]] [1 :ok [[:r :x [1 2 3 4 5]] [:r :y nil]]]
                       [1 :invoke [[:r :x nil]]] [1 :ok [[:r :x [1 2 3 4 5 6 7 8 9 10 11 12]]]]
                       [1 :invoke [[:r :x nil]]] [1 :ok [[:r :x [1 9]]]]
                       [1 :invoke [[:r :x nil]]] [1 :ok [[:r :x [1 2 3 4 5 6 7 8 9 10 11 12 13 14]]]]
                       [1 :invoke [[:r :x nil]]] [1 :ok [[:r :x [1 2 3 7 7 7 7 7 7 7 7 7 7 7 7 7]]]]
                       [1 :invoke [[:r :x nil]]] [1 :ok [[:r :x [1 2 3 4 5 6 7 8 9 10 11 12 13 14 15]]]]
                       [1 :invoke [[:r :x nil]]] [1 :ok [[:r :x []]]])
          shared (build ops true), apart (build ops false)]
      (is (= (mapv #(.txnStr shared (int %)) (range (.nTxns shared)))
             (mapv #(.txnStr apart (int %)) (range (.nTxns apart)))
             ["[[:append :x 1] [:append :x 2]]" "[[:r :x [1 2]]]" "[[:r :x [1]]]" "[[:r :x [1 2 3 4 5]] [:r :y nil]]"
              "[[:r :x [1 2 3 4 5 6 7 8 9 10 11 12]]]" "[[:r :x [1 9]]]" "[[:r :x [1 2 3 4 5 6 7 8 9 10 11 12 13 14]]]"
              "[[:r :x [1 2 3 7 7 7 7 7 7 7 7 7 7 7 7 7]]]" "[[:r :x [1 2 3 4 5 6 7 8 9 10 11 12 13 14 15]]]" "[[:r :x []]]"]))
      (let [offsets (fn [^isocheck.history.History h]
                      (for [m (range (.mopCount h)) :when (and (= OpRecord/READ (.mopKind h (int m))) (pos? (.mopLen h (int m))))]
                        (.mopVal h (int m))))]
        (is (= 8 (count (offsets apart)) (count (distinct (offsets apart)))))
        ;; [1 2] [1] [1..5] share one segment (room for 8); [1..12] and [1..14] the next (room for
        ;; 24); [1 9] apart; [1 2 3 7 ...], longer and disagreeing, becomes the key's; [1..15] apart
        (is (= 5 (count (distinct (offsets shared)))) "the reads shared segments"))
      (is (= (check-data apart) (check-data shared)))))
  (testing "on the simulated stores and bugs: every read the same, the same result map"
    (doseq [i (range 2)
            [store bug] store-bugs]
      (let [cfg {:seed (+ 9300 i), :store store, :bug bug, :txns 500, :sessions 6, :keys (nth [4 30] i), :ops 5
                 :info-rate 0.05, :max-writes (when (= i 1) 12)}
            ops (sim-ops cfg)
            shared (build ops true), apart (build ops false)]
        (is (= (mapv #(.txnStr apart (int %)) (range (.nTxns apart)))
               (mapv #(.txnStr shared (int %)) (range (.nTxns shared)))) (str cfg))
        (is (= (check-data apart) (check-data shared)) (str cfg))
        ;; The list-append analysis's passes split over ranges (unread appends per range of
        ;; transactions, reads bucketed per range of micro-ops): the same result on 1 or 3.
        (is (= (check-data shared) (with-cores 1 #(check-data shared)) (with-cores 3 #(check-data shared))) (str cfg))))))


(deftest the-index-kept-as-a-rule
  (let [idx (fn [ops] (let [h (build ops true)]
                        (mapv (fn [t] [(.invokeIndex h (int t)) (.completeIndex h (int t)) (.displayIndex h (int t))]) (range (.nTxns h)))))
        ops [{:process 0 :type :invoke :f :txn :value [[:append :x 1]]}
             {:process 1 :type :invoke :f :txn :value [[:r :x nil]]}
             {:process 0 :type :ok :f :txn :value [[:append :x 1]]}
             {:process 1 :type :ok :f :txn :value [[:r :x [1]]]}
             {:process 2 :type :invoke :f :txn :value [[:r :x nil]]}]
        absent OpRecord/ABSENT]
    (is (= [[absent absent 2] [absent absent 3] [absent absent 4]] (idx ops)) "no :index: absent; named by position")
    (is (= [[0 2 2] [1 3 3] [4 absent 4]] (idx (vec (map-indexed #(assoc %2 :index %1) ops)))) "the positions")
    (is (= [[10 30 30] [20 31 31] [40 absent 40]] (idx (mapv #(assoc %1 :index %2) ops [10 20 30 31 40]))) "other numbers, kept")
    (is (= [[0 2 2] [1 3 3] [7 absent 7]] (idx (mapv #(assoc %1 :index %2) ops [0 1 2 3 7]))) "the rule broken at the last op")
    (is (= [[absent 2 2] [absent 3 3] [absent absent 4]] (idx (mapv #(cond-> %1 %2 (assoc :index %2)) ops [nil nil 2 3 nil])))
        "some ops without an :index")))

;; online/result converts the violations kept itself (->clj-violation, not toData and ->clj): the
;; same maps, with :latency-ms, as converting each Violation's toData; the rest as toData's.

(deftest the-result-map-is-the-checker-data
  (doseq [[i store bug levels] [[0 Store/SNAPSHOT_ISOLATION Bug/LONG_FORK online/online-levels]
                                [1 Store/SERIALIZABLE nil online/online-levels]
                                [2 Store/READ_COMMITTED nil (into online/online-levels weak)]]]
    (let [ops (sim-ops {:seed (+ 9500 i), :store store, :bug bug, :txns 800, :sessions 5, :keys 20, :ops 4, :info-rate 0.05})
          o   (online/online {:levels levels, :log? false, :max-anomalies 1000})
          _   (doseq [op ops] (online/ingest! o op))
          m   (online/result o)
          ^OnlineChecker c (:checker o)
          conv (fn [^isocheck.online.Violation v] (isocheck.jepsen/->clj (.toData v)))]
      (is (< 5 (count (:violations m))) "violations kept")
      (is (= (mapv conv (.violations c)) (mapv #(dissoc % :latency-ms) (:violations m))))
      (is (every? #(number? (:latency-ms %)) (:violations m)))
      (is (boolean (some :steps (:violations m))) "cycles, with steps")
      (when (= 2 i) (is (boolean (some #(not (:steps %)) (:violations m))) "pre-check anomalies, without"))
      (is (= (update (isocheck.jepsen/->clj (.toData c)) :levels
                     (fn [ls] (into {} (map (fn [[l v]] [l (dissoc v :first)])) ls)))
             (-> m (update :levels (fn [ls] (into {} (map (fn [[l v]] [l (dissoc v :first)])) ls)))
                 (update :violations (partial mapv #(dissoc % :latency-ms))))))
      (doseq [[^Level l v] (.firstViolations c)]
        (is (= (conv v) (dissoc (get-in m [:levels (keyword (.id l)) :first]) :latency-ms)))))))
