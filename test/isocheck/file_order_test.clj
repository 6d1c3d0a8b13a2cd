(ns isocheck.file-order-test
  "The order a file lists transactions in (issue 29): Jepsen interleaves them as they
  completed, dbcop, Cobra and Plume text list them session by session. The same transactions,
  listed either way (or sessions in another order, or interleaved at random), are the same
  history: every serializable and SI level's verdict must be the same, by the search with its
  shortcuts, by the solver alone, and by the constraints generated lazily. Without invocations
  the search's first order comes from isocheck.check.si.TimeEstimate, which must not depend on
  the listing either."
  (:require [clojure.test :refer [deftest is testing]]
            [isocheck.test-util :as tu]
            [isocheck.jepsen :as j])
  (:import (isocheck.check Checker CheckOptions Level Result)
           (isocheck.history History History$Workload OpRecord)
           (isocheck.order RegisterAnalysis)
           (isocheck.sim Bug SimConfig SimConfig$KeyDist Simulator Store)))

(def ^:private levels
  (mapv #(Level/parse %) ["strict-serializable" "strong-session-serializable" "serializable" "strong-snapshot-isolation"
                          "strong-session-snapshot-isolation" "gsi" "snapshot-isolation"]))

(defn- simulated
  "An rw-register history of the simulated store (bug at rate 0.1, or none): zipf keys rotated
  after 32 writes, 1 to 4 micro-ops a transaction, 5% :info."
  ^History [store bug seed txns]
  (.history (Simulator/history
              (cond-> (-> (SimConfig/builder) (.seed (long seed)) (.store store) (.workload History$Workload/REGISTER)
                          (.txns (int txns)) (.sessions 6) (.keys 12) (.keyDist SimConfig$KeyDist/ZIPF)
                          (.opsPerTxn 1 4) (.maxWritesPerKey 32) (.infoRate 0.05) (.failRate 0.0))
                bug (-> (.bug bug) (.bugRate 0.1))
                true .build))))

(defn- completions
  "h's transactions as completion ops alone (no invocation, :index or :time: no realtime
  information), in h's order; :fail ones left out."
  [^History h]
  (vec (for [t (range (.nTxns h))
             :when (not= "FAIL" (str (.status h t)))]
         {:type (if (.isOk h t) :ok :info) :f :txn :process (.process h t)
          :value (vec (for [m (range (.mopStart h t) (.mopEnd h t))]
                        [(if (= OpRecord/WRITE (.mopKind h m)) :w :r) (.key h (.mopKey h m)) (.value h (.mopVal h m))]))})))

(defn- listings
  "The same ops listed four ways, each keeping every process's ops in their order: as given
  (interleaved), session by session, sessions in reverse order, and interleaved at random."
  [ops seed]
  (let [by-process (group-by :process ops)
        procs (sort (keys by-process))
        rnd (java.util.Random. (long seed))
        shuffled (loop [queues (mapv #(get by-process %) procs) out []]
                   (let [live (vec (keep-indexed (fn [i q] (when (seq q) i)) queues))]
                     (if (empty? live)
                       out
                       (let [i (live (.nextInt rnd (count live)))]
                         (recur (update queues i rest) (conj out (first (queues i))))))))]
    {:interleaved ops
     :session-ordered (vec (mapcat by-process procs))
     :sessions-reversed (vec (mapcat by-process (reverse procs)))
     :random-interleaving shuffled}))

(defn- verdicts [^History h shortcuts?]
  (let [o (doto (CheckOptions.) (.levels levels))]
    (set! (.searchShortcuts o) (boolean shortcuts?))
    (tu/verdict-strings (Checker/check h o))))

(defn- lazily [f]
  (System/setProperty "isocheck.search.max-edges" "0")
  (try (f) (finally (System/clearProperty "isocheck.search.max-edges"))))

(deftest the-verdicts-do-not-depend-on-the-order-a-file-lists-transactions-in
  (let [checked (atom 0)
        held (atom 0)]
    (doseq [store [Store/SERIALIZABLE Store/SNAPSHOT_ISOLATION Store/READ_COMMITTED Store/STRICT_SERIALIZABLE]
            bug (cons nil (seq (Bug/values)))
            :when (or (nil? bug) (.contains (.stores ^Bug bug) store))
            seed (range 2)
            :let [ops (completions (simulated store bug seed 240))
                  hs (into {} (for [[k v] (listings ops seed)] [k (j/->history v)]))
                  base (verdicts (:interleaved hs) true)
                  what (str store " " bug " seed " seed)]]
      (swap! checked inc)
      (swap! held + (count (filter #(= "TRUE" (val %)) base)))
      (doseq [[k h] hs]
        (is (= base (verdicts h true)) (str what ", " (name k)))
        (when (#{:session-ordered :random-interleaving} k)
          (is (= base (verdicts h false)) (str what ", " (name k) ", the solver alone"))
          (is (= base (lazily #(verdicts h true))) (str what ", " (name k) ", lazily")))))
    (is (< 20 @checked))
    (is (pos? @held) "some level holds somewhere")))

(def ^:private estimate-of
  (doto (.getDeclaredMethod (Class/forName "isocheck.check.si.TimeEstimate") "of"
                            (into-array Class [History RegisterAnalysis (Class/forName "[Z") (Class/forName "[I") Boolean/TYPE]))
    (.setAccessible true)))

(defn- estimate
  "{[process place-in-session] estimated place} of h's committed transactions, or nil."
  [^History h]
  (let [ra (RegisterAnalysis. h 0)
        ^doubles e (.invoke ^java.lang.reflect.Method estimate-of nil
                            (object-array [h ra (.committed ra) (.versions ra) true]))]
    (when e
      (let [seen (java.util.HashMap.)]
        (into {} (for [t (range (.nTxns h))
                       :let [p (.process h t) i (.getOrDefault seen p 0)]
                       :when (do (.put seen p (inc i)) (aget ^booleans (.committed ra) t))]
                   [[p i] (aget e t)]))))))

(deftest the-estimated-time-does-not-depend-on-the-listing
  (doseq [store [Store/SERIALIZABLE Store/SNAPSHOT_ISOLATION]
          seed (range 3)
          :let [ops (completions (simulated store nil seed 400))
                ls (listings ops seed)
                base (estimate (j/->history (:interleaved ls)))]]
    (testing (str store " seed " seed)
      (is (some? base) "a valid history's known edges are acyclic")
      (is (= (count base) (count (set (vals base)))) "one place per transaction")
      (doseq [[k v] ls]
        (is (= base (estimate (j/->history v))) (name k))))))

(deftest a-cycle-of-known-edges-gives-no-estimate
  ;; T1 reads T2's write and T2 reads T1's, each in its own session: reads-from closes a cycle.
  (let [h (j/->history (tu/h (tu/invoke 0 [[:r :x nil] [:w :y 1]]) (tu/invoke 1 [[:r :y nil] [:w :x 1]])
                             (tu/ok 0 [[:r :x 1] [:w :y 1]]) (tu/ok 1 [[:r :y 1] [:w :x 1]])))]
    (is (nil? (estimate h)))))
