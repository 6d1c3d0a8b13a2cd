(ns isocheck.register-test
  "rw-register histories: pre-checks are decided, cycles of observed
  dependencies are violations, and the version order is searched
  (isocheck.check.si): decided where pruning and a topological choice settle
  it, else :unknown with a reason (never true by guesswork)."
  (:require [clojure.test :refer [deftest is testing]]
            [clojure.string :as str]
            [isocheck.core :as iso]
            [isocheck.test-util :refer [h ok fail info invoke check verdict types
                                        cx-indices strong-levels]]))

(deftest valid-register-history-holds
  (let [r (check (h (ok 0 [[:w :x 1]])
                    (ok 1 [[:r :x 1] [:w :y 2]])
                    (ok 0 [[:r :y 2] [:r :x 1]])))]
    (is (= true (:valid? r)))
    (doseq [[l v] (:levels r)]
      (is (= true (:valid? v)) (str l)))
    (is (= :wr (get-in r [:stats :workload])))))

(deftest register-g1a
  (let [r (check (h (fail 0 [[:w :x 1]])
                    (ok 1 [[:r :x 1]])))]
    (is (= #{:G1a} (types r)))
    (is (= #{0 1} (cx-indices r :G1a)))
    (is (= false (:valid? r)))))

(deftest long-transactions-are-pre-checked-as-short-ones
  ;; A transaction of up to 48 micro-ops finds a key's earlier (or later) micro-op by scanning
  ;; its own; a longer one through a per-key array. Padded with writes of other keys past that,
  ;; the same transaction must give the same anomalies: an internal read (x: 2 after its own
  ;; write of 1), a future read (y), an intermediate read of z (G1b, its final write is 2), and
  ;; a read of x after a read of x that disagrees with it.
  (doseq [pad [0 10 47 48 60 200]]
    (let [ws (for [i (range pad)] [:w (keyword (str "p" i)) i])
          r (check (h (ok 0 (concat ws [[:w :x 1] [:r :x 2] [:r :y 5] [:w :y 5] [:w :z 1] [:w :z 2]]))
                      (ok 1 [[:r :z 1] [:r :w nil] [:r :w 3]])
                      (ok 2 [[:w :w 3]])))
          a (:anomalies r)]
      (is (= #{:internal :future-read :G1b} (types r)) (str pad " " (pr-str (types r))))
      (is (= 2 (count (:internal a))) (str pad " " (pr-str (:internal a))))
      (is (= [[:r :y 5]] (map :mop (:future-read a))) (str pad))
      (is (= #{[:r :x 2] [:r :w 3]} (set (map :mop (:internal a)))) (str pad)))))

(deftest register-g1b
  (let [r (check (h (ok 0 [[:w :x 1] [:w :x 2]])
                    (ok 1 [[:r :x 1]])))]
    (is (= #{:G1b} (types r)))
    (is (= false (verdict r :snapshot-isolation)))))

(deftest register-garbage
  (let [r (check (h (ok 0 [[:w :x 1]])
                    (ok 1 [[:r :x 5]])))]
    (is (= #{:garbage-read} (types r)))))

(deftest register-internal
  (let [r (check (h (ok 0 [[:w :x 1] [:r :x 2]])
                    (ok 1 [[:w :x 2]])))]
    (is (contains? (types r) :internal))
    (is (= 1 (get-in r [:counterexamples :internal :expected])))))

(deftest register-future-read
  (let [r (check (h (ok 0 [[:r :x 1] [:w :x 1]])))]
    (is (= #{:future-read} (types r)))))

(deftest register-wr-cycle-is-a-violation
  (let [r (check (h (ok 0 [[:w :x 1] [:r :y 1]])
                    (ok 1 [[:w :y 1] [:r :x 1]])))]
    (is (= #{:G1c} (types r)))
    (is (= #{0 1} (cx-indices r :G1c)))
    (is (= false (:valid? r)))
    (is (every? false? (map :valid? (vals (:levels r)))))))

(deftest register-wr-process-cycle
  ;; T0 reads what T1 (later on the same process) writes.
  (let [r (check (h (ok 0 [[:r :x 1]])
                    (ok 0 [[:w :x 1]])))]
    (is (= #{:G1c-process} (types r)))
    (is (= false (verdict r :strong-session-serializable)))
    (is (= true (verdict r :serializable)) "without process order, T1 then T0 explains it")))

(deftest register-info-write-read-is-committed
  (let [r (check (h (info 0 [[:w :x 1] [:r :y 1]])
                    (ok 1 [[:w :y 1] [:r :x 1]])))]
    ;; T0's reads are unknown, so no cycle; its write was read, so it committed.
    (is (= true (:valid? r)))
    (is (= 2 (get-in r [:stats :committed])))))

;; ------------------------------------------------------------------ the version-order search

(defn- verdicts [r] (into {} (map (fn [[l v]] [l (:valid? v)])) (:levels r)))

(def ser-fail-si-hold
  {:strict-serializable false, :strong-session-serializable false, :serializable false,
   :strong-snapshot-isolation true, :strong-session-snapshot-isolation true, :snapshot-isolation true})

(def all-fail (zipmap [:strict-serializable :strong-session-serializable :serializable
                       :strong-snapshot-isolation :strong-session-snapshot-isolation :snapshot-isolation]
                      (repeat false)))

(deftest write-skew-holds-si-fails-ser
  ;; Both read x and y as the initial state; one writes x, the other y (Fekete et al.'s write skew).
  (let [r (check (h (invoke 0 [[:r :x nil] [:r :y nil] [:w :x 1]])
                    (invoke 1 [[:r :x nil] [:r :y nil] [:w :y 1]])
                    (ok 0 [[:r :x nil] [:r :y nil] [:w :x 1]])
                    (ok 1 [[:r :x nil] [:r :y nil] [:w :y 1]])))]
    (is (= ser-fail-si-hold (verdicts r)))
    (is (contains? (types r) :G2-item))
    (is (str/includes? (get-in r [:counterexamples :G2-item :explanation]) "the initial value"))))

(deftest long-fork-fails-si
  ;; PolySI Fig. 1's long fork: two readers see two independent writes in opposite orders.
  (let [r (check (h (invoke 0 [[:w :x 1]]) (invoke 1 [[:w :y 1]])
                    (invoke 2 [[:r :x nil] [:r :y nil]]) (invoke 3 [[:r :x nil] [:r :y nil]])
                    (ok 0 [[:w :x 1]]) (ok 1 [[:w :y 1]])
                    (ok 2 [[:r :x 1] [:r :y nil]]) (ok 3 [[:r :x nil] [:r :y 1]])))]
    (is (= all-fail (verdicts r)))
    (is (= #{:G-nonadjacent-item} (types r)))))

(deftest lost-update-fails-si
  ;; PolySI Fig. 1's lost update: two read-modify-writes of one version.
  (let [hist (h (invoke 0 [[:r :x nil] [:w :x 1]]) (invoke 1 [[:r :x nil] [:w :x 2]])
                (ok 0 [[:r :x nil] [:w :x 1]]) (ok 1 [[:r :x nil] [:w :x 2]]))
        r    (check hist)]
    (is (= all-fail (verdicts r)))
    ;; Both are read-modify-writes, so the mini-transaction checker decides it: the lost update
    ;; (MTC's Divergence check) and, for the serializable levels, the cycle of two
    ;; anti-dependencies it makes (mt_test); the general search stops at the lost update.
    (is (= #{:lost-update :G2-item} (types r)))
    (is (= #{:lost-update} (types (iso/check (iso/checker {:levels strong-levels, :mt? false}) hist))))
    (testing "each level alone, the known edges checked before the writer pairs: still the lost update"
      (doseq [l strong-levels]
        (is (= #{:lost-update} (types (iso/check (iso/checker {:levels [l], :mt? false}) hist))) (str l))))
    (is (str/includes? (get-in r [:counterexamples :lost-update :explanation]) "both read key :x = nil"))))

(deftest initial-state-precedes-everything
  ;; si-solver.md pitfall 1: a process writes x, then reads the initial value of x. Without
  ;; process order another transaction order explains it; with it, ⊥ must come first and
  ;; the read is stale.
  (let [r (check (h (ok 0 [[:w :x 1]]) (ok 0 [[:r :x nil]])))]
    (is (= {:strict-serializable false, :strong-session-serializable false, :serializable true
            :strong-snapshot-isolation false, :strong-session-snapshot-isolation false, :snapshot-isolation true}
           (verdicts r)))
    (is (contains? (types r) :G-single-item-process))))

(deftest both-orders-of-a-pair-close-a-cycle
  ;; T0 and T1 both write x and y, blindly; T2 reads T0's x and T1's y. Whichever write came
  ;; first, T2 saw a state no serial (or snapshot) order gives.
  (let [r (check (h (ok 0 [[:w :x 1] [:w :y 1]]) (ok 1 [[:w :x 2] [:w :y 2]]) (ok 2 [[:r :x 1] [:r :y 2]])))
        ex (get-in r [:counterexamples :G-single-item :explanation])]
    (is (= all-fail (verdicts r)))
    (is (str/includes? ex "Either order closes a cycle") ex)
    (is (str/includes? ex "(the order considered)") ex)
    (is (= 2 (count (get-in r [:counterexamples :G-single-item :unordered]))))))

(deftest realtime-makes-a-stale-read-visible
  ;; T0 completes a write of x before T1 is invoked, and T1 reads the initial value: only the
  ;; realtime levels forbid it.
  (let [r (check (h (invoke 0 [[:w :x 1]]) (ok 0 [[:w :x 1]])
                    (invoke 1 [[:r :x nil]]) (ok 1 [[:r :x nil]])))]
    (is (= {:strict-serializable false, :strong-session-serializable true, :serializable true
            :strong-snapshot-isolation false, :strong-session-snapshot-isolation true, :snapshot-isolation true}
           (verdicts r)))))

(deftest realtime-fixes-the-order-of-blind-writes
  ;; A writes x = 1 and completes before C is invoked; C blindly writes x = 2. No read shows the
  ;; order of the two writes, but every execution with realtime order has A's first, so B, which
  ;; read A's x, anti-depends on C, and C read y before B wrote it: write skew, which only the
  ;; realtime serializable level forbids (without realtime, C's write may have come first).
  (let [r (check (h (invoke 0 [[:w :x 1]]) (ok 0 [[:w :x 1]])
                    (invoke 1 [[:r :x nil] [:w :y 1]])
                    (invoke 2 [[:r :y nil] [:w :x 2]])
                    (ok 1 [[:r :x 1] [:w :y 1]])
                    (ok 2 [[:r :y nil] [:w :x 2]])))
        ex (get-in r [:counterexamples :G2-item-realtime :explanation])
        st (get-in r [:stats :search :strict-serializable])]
    (is (= {:strict-serializable false, :strong-session-serializable true, :serializable true
            :strong-snapshot-isolation true, :strong-session-snapshot-isolation true, :snapshot-isolation true}
           (verdicts r)))
    (is (= #{:G2-item-realtime} (types r)))
    (is (str/includes? (str ex) "T1 completed before T5 was invoked, so its write came first") ex)
    (testing "the pair realtime orders is known edges, not a constraint"
      (is (= 0 (:constraints st)) (pr-str st))
      (is (= 2 (:realtime-edges st)) (pr-str st))
      (is (= :known-graph (:decided-by st)) (pr-str st)))))

(deftest info-writes-read-are-committed-unread-ones-dropped
  (testing "an :info write someone read committed, and must be ordered"
    (let [r (check (h (info 0 [[:w :x 1]]) (ok 1 [[:r :x 1] [:w :x 2]]) (ok 2 [[:r :x 2]])))]
      (is (every? true? (vals (verdicts r))))))
  (testing "an :info write nobody read may never have committed: reading the initial value is fine"
    (let [r (check (h (info 0 [[:w :x 1]]) (ok 1 [[:r :x nil]])))]
      (is (every? true? (vals (verdicts r)))))))

(deftest serializable-store-histories-hold
  ;; The version-order search settles every level on histories of a strictly serializable
  ;; simulated store (pruning, then the order of the history's own completions).
  (doseq [seed (range 20)]
    (let [sh (isocheck.sim.Simulator/history
               (-> (isocheck.sim.SimConfig/builder) (.seed (long seed)) (.store isocheck.sim.Store/STRICT_SERIALIZABLE)
                   (.workload isocheck.history.History$Workload/REGISTER) (.txns 300) (.sessions 5) (.keys 10)
                   (.opsPerTxn 1 4) .build))
          [_ r] (isocheck.core/check-history {:levels isocheck.test-util/strong-levels} (.history sh))]
      (is (every? true? (vals (verdicts r))) (str "seed " seed " " (verdicts r))))))

(deftest a-cycle-of-known-edges-needs-no-writer-pairs
  ;; Write skew on the initial values: T0 read x = nil and wrote y, T1 read y = nil and wrote x,
  ;; so each anti-depends on the other whatever the version order (reads of nil come first).
  ;; Many blind writers of z make the writer pairs too many for the heap allowed here; the
  ;; known edges alone show the cycle, so serializability is violated, not unknown.
  (let [hist (apply h (ok 0 [[:r :x nil] [:w :y 1]]) (ok 1 [[:r :y nil] [:w :x 1]])
                    (for [i (range 30)] (ok (+ 2 (mod i 5)) [[:w :z i] [:r :x nil]])))]
    (System/setProperty "isocheck.search.max-edges" "10")
    (try
      (let [r (check hist [:serializable :snapshot-isolation])
            st (get-in r [:stats :search :serializable])]
        (is (= {:serializable false, :snapshot-isolation true} (verdicts r)) (pr-str (:levels r)))
        (is (= :known-graph (:decided-by st)) (pr-str st))
        (is (contains? st :known-only-ms) (pr-str st))
        (is (contains? (types r) :G2-item) (pr-str (types r))))
      (finally (System/clearProperty "isocheck.search.max-edges")))
    (testing "without the cap the full search agrees"
      (is (= {:serializable false, :snapshot-isolation true} (verdicts (check hist [:serializable :snapshot-isolation])))))))

;; When a stronger level's witness schedule fails, the plain level's known graph is checked
;; before the stronger one's polygraph: a cycle there rules out the plain level and every level
;; implying it, which then carry its counterexample instead of searching polygraphs of their own.
(deftest the-plain-levels-known-graph-refutes-the-stronger-levels-first
  (let [hist (apply h (ok 0 [[:r :x nil] [:w :y 1]]) (ok 1 [[:r :y nil] [:w :x 1]])
                    (for [i (range 30)] (ok (+ 2 (mod i 5)) [[:w :z i] [:r :x nil]])))
        ser [:strict-serializable :strong-session-serializable :serializable]
        r (check hist (conj ser :strong-snapshot-isolation))]
    (is (= {:strict-serializable false, :strong-session-serializable false, :serializable false,
            :strong-snapshot-isolation true}
           (verdicts r)) (pr-str (:levels r)))
    (let [st (get-in r [:stats :search :strict-serializable])]
      (is (= :weaker-level (:decided-by st)) (pr-str st))
      (is (= :serializable (:weaker-level st)) (pr-str st))
      (is (contains? st :witness-ms) (pr-str st))
      (is (not (contains? st :polygraph-ms)) (pr-str st)))
    (testing "the levels its counterexample (G2-item) rules out are not searched again"
      (is (nil? (get-in r [:stats :search :strong-session-serializable])))
      (is (nil? (get-in r [:stats :search :serializable]))))
    (is (= #{:G2-item} (types r)) (pr-str (types r)))
    (testing "asked alone, the stronger level carries the plain level's counterexample"
      (let [r1 (check hist [:strict-serializable])]
        (is (= {:strict-serializable false} (verdicts r1)))
        (is (= :weaker-level (get-in r1 [:stats :search :strict-serializable :decided-by])))
        (is (= #{:G2-item} (types r1)) (pr-str (types r1)))))))

;; T0 wrote x before T1 was invoked, and T1 read nil: strict serializability's schedule fails, so
;; its polygraph is built on another thread while the weaker levels' schedules are tried
;; (strong-session serializability holds). Its size is reported as the search would: twelve
;; overlapping writers of z make pairs that a cap of 10 edges does not allow, so :unknown with
;; the reason; without the cap, the polygraph built ahead decides.
(deftest a-polygraph-built-ahead-is-used-and-its-failure-reported
  (let [zs (range 12)
        hist (apply h (concat [(invoke 0 [[:w :x 1]]) (ok 0 [[:w :x 1]])]
                              (for [i zs] (invoke (+ 10 i) [[:w :z i]]))
                              (for [i zs] (ok (+ 10 i) [[:w :z i]]))
                              [(invoke 1 [[:r :x nil]]) (ok 1 [[:r :x nil]])]))
        levels [:strict-serializable :strong-session-serializable]]
    (System/setProperty "isocheck.search.max-edges" "10")
    (try
      ;; (Too large to build, on the thread ahead or here: the constraints are generated
      ;; lazily instead, isocheck.check.si.LazyConstraints, and decide as the whole would.)
      (let [r (check hist levels)
            v (get-in r [:levels :strict-serializable])
            st (get-in r [:stats :search :strict-serializable])]
        (is (= false (:valid? v)) (pr-str v))
        (is (= [:G-single-item-realtime] (:anomaly-types v)) (pr-str v))
        (is (pos? (:side-edges st 0)) (pr-str st))
        (is (contains? st :lazy-pairs) (pr-str st))
        (is (= true (verdict r :strong-session-serializable))))
      (finally (System/clearProperty "isocheck.search.max-edges")))
    (let [r (check hist (conj levels :strong-snapshot-isolation))
          st (get-in r [:stats :search :strict-serializable])]
      (is (= {:strict-serializable false, :strong-session-serializable true, :strong-snapshot-isolation false}
             (verdicts r)) (pr-str (:levels r)))
      (is (= true (:built-ahead st)) (pr-str st))
      (is (contains? (types r) :G-single-item-realtime) (pr-str (types r)))
      (testing "strict serializability's counterexample rules out strong SI, which is not searched again"
        (is (nil? (get-in r [:stats :search :strong-snapshot-isolation])) (pr-str (get-in r [:stats :search])))
        (is (= [:G-single-item-realtime] (get-in r [:levels :strong-snapshot-isolation :anomaly-types])))))))

(deftest indeterminate-writers-make-the-known-edges-go-first-for-realtime-levels
  ;; Twelve :info writers of z, each read (so committed), overlap every writer of z invoked after
  ;; them: the realtime polygraph keeps those pairs. Capped below what they need, the stale read
  ;; of x (T1 completed its write before T2 was invoked, T2 read nil) is still found among the
  ;; known edges alone, for strict serializability and strong SI.
  (let [infos (for [i (range 12)] [(invoke (+ 10 i) [[:w :z i]]) (info (+ 10 i) [[:w :z i]])])
        reads (for [i (range 12)] (ok (+ 30 i) [[:r :z i]]))
        ;; (A blind :ok writer of z too: else the mini-transaction checker's chains of the
        ;; :info writers are searched instead, isocheck.check.mt.)
        hist (apply h (concat (apply concat infos)
                              [(invoke 0 [[:w :x 1]]) (ok 0 [[:w :x 1]]) (invoke 1 [[:r :x nil]]) (ok 1 [[:r :x nil]])
                               (invoke 2 [[:w :z 99]]) (ok 2 [[:w :z 99]])]
                              reads))]
    (System/setProperty "isocheck.search.max-edges" "10")
    (try
      (let [r (check hist [:strict-serializable :strong-snapshot-isolation :serializable])
            st (get-in r [:stats :search :strict-serializable])]
        (is (= {:strict-serializable false, :strong-snapshot-isolation false, :serializable true} (verdicts r))
            (pr-str (:levels r)))
        (is (= :known-graph (:decided-by st)) (pr-str st))
        (is (contains? st :known-only-ms) (pr-str st)))
      (finally (System/clearProperty "isocheck.search.max-edges")))))

(deftest the-time-limit-holds-between-the-search-stages
  ;; A search whose limit has passed stops at the next stage boundary (before the polygraph,
  ;; before and after pruning, while the solver is set up) with the level :unknown and the
  ;; stage named, rather than running each stage to its end (a Plume-shaped 10^5 history with a
  ;; 2 s limit took 10 s). Two blind writers of x whose order no read shows, the witness
  ;; schedule off: only the polygraph search could decide, and a limit of 0 ms has passed
  ;; before it starts.
  (let [hist (isocheck.jepsen/->history (h (ok 0 [[:w :x 1]]) (ok 1 [[:w :x 2]]) (ok 2 [[:r :x 1] [:w :y 1]])
                                           (ok 3 [[:r :y 1] [:r :x 2]])))
        opts (fn [ms] (let [o (doto (isocheck.check.CheckOptions.)
                                (.levels [(isocheck.check.Level/parse "serializable")]))]
                        (set! (.timeLimitMs o) (long ms))
                        (set! (.searchWitness o) false)
                        o))
        r (isocheck.check.Checker/check hist (opts 0))
        v (get (.levels r) (isocheck.check.Level/parse "serializable"))
        st (get (get (.stats r) "search") "serializable")]
    (is (= "UNKNOWN" (str (.value v))))
    (is (re-find #"the time limit passed while searching the version order of rw-register writes for serializable \(before its polygraph was built\)" (str (.reason v))) (.reason v))
    (is (= true (get st "time-limit-passed")) (pr-str st))
    (testing "with time, the same history is decided"
      (let [r (isocheck.check.Checker/check hist (opts 60000))]
        (is (#{"TRUE" "FALSE"} (str (.value (get (.levels r) (isocheck.check.Level/parse "serializable"))))))))))
