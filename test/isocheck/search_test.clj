(ns isocheck.search-test
  "The version-order search of rw-register histories (isocheck.check.si):
  pruning and the time-ordered choice are shortcuts in front of the CDCL(T)
  solver, so the solver alone must reach the same verdict on every history
  (pruning that discards a feasible side, VeriStrong's early bug, would show
  here as a disagreement). The brute-force oracle comparison is in
  register-oracle-test."
  (:require [isocheck.test-util :as tu]
            [clojure.test :refer [deftest is testing]]
            [clojure.walk :as walk]
            [isocheck.jepsen :as j]
            [isocheck.register-oracle-test :as rot])
  (:import (isocheck.check CheckOptions Checker Level Result Verdict)
           (isocheck.check.si Polygraph)
           (isocheck.io Formats)
           (isocheck.graph EdgeList OrderEdges)
           (isocheck.order RegisterAnalysis)
           (isocheck.history History History$Workload)
           (isocheck.sim Bug SimConfig SimConfig$KeyDist Simulator Store)))

(def levels (mapv #(Level/parse (name %)) rot/levels))

(defn- verdicts
  "{level-id verdict-string} and the search statistics, with or without the shortcuts."
  [^History h shortcuts?]
  (let [o (doto (CheckOptions.) (.levels levels))]
    (set! (.searchShortcuts o) (boolean shortcuts?))
    (let [^Result r (Checker/check h o)]
      [(tu/verdict-strings r)
       (get (.stats r) "search")
       r])))

(defn- simulated
  "An rw-register history of the simulated store, with bug (or none) at rate 0.1, zipf keys,
  1 to max-ops micro-ops a transaction and 5% :info."
  ^History [store bug seed txns sessions keys max-ops]
  (.history (Simulator/history
              (cond-> (-> (SimConfig/builder) (.seed (long seed)) (.store store)
                          (.workload History$Workload/REGISTER) (.txns (int txns)) (.sessions (int sessions)) (.keys (int keys))
                          (.keyDist SimConfig$KeyDist/ZIPF) (.opsPerTxn 1 (int max-ops)) (.infoRate 0.05))
                bug (-> (.bug bug) (.bugRate 0.1))
                true .build))))

(defn- decided-by [stats]
  (set (keep (fn [[_ m]] (some-> (get m "decided-by") str)) stats)))

(deftest the-solver-alone-agrees-with-the-shortcuts
  (testing "generated tiny histories"
    (doseq [seed (range 1500)]
      (let [h (j/->history (rot/generate seed) :wr)
            [a] (verdicts h true)
            [b] (verdicts h false)]
        (is (= a b) (str "seed " seed)))))
  (testing "simulated stores, every bug, with crashes; the solver and the shortcuts both get used"
    (let [used (atom #{})
          timed (atom 0)]
      (doseq [store [Store/STRICT_SERIALIZABLE Store/SNAPSHOT_ISOLATION Store/READ_COMMITTED]
              bug (cons nil (seq (Bug/values)))
              :when (or (nil? bug) (.contains (.stores ^Bug bug) store))
              seed (range 2)]
        (let [h (simulated store bug seed 150 5 8 4)
              [a sa ^Result ra] (verdicts h true)
              [b sb] (verdicts h false)]
          (swap! used into (decided-by sa))
          (swap! timed + (reduce + 0 (keep #(get (val %) "realtime-edges") sa)))
          (swap! used into (map #(str "solver-alone " %) (decided-by sb)))
          (is (= a b) (str store " " bug " seed " seed))
          (is (not-any? #{"UNKNOWN"} (vals a)) (str store " " bug " seed " seed ": " a))
          (testing "a violation the solver found is a cycle explained step by step"
            (doseq [[_ m] sa
                    :when (= ":solver" (str (get m "decided-by")))]
              (doseq [[t as] (.counts (.anomalies ra))]
                (is (pos? as) t)))))) 
      (is (contains? @used ":time-order"))
      (is (contains? @used "solver-alone :solver"))
      (testing "a stronger level refuted by the plain level's known graph (its witness failed first)"
        (is (contains? @used ":weaker-level")))
      (testing "the realtime levels' writer orders fixed by realtime (the solver alone has none: it must agree)"
        (is (pos? @timed))))))

(deftest the-time-orders-fixed-sides-and-the-solver-agree-with-the-solver-alone
  ;; When the time order leaves a cycle, the solver first decides only the contested
  ;; constraints, both of whose sides go back in that order, the others fixed to a side that
  ;; goes forward (PolygraphSearch.Pinned); a cycle then makes the constraints near it
  ;; contested too, and after that the solver decides them all, with lazy decisions (settled
  ;; constraints set aside until the contested ones are decided). Its verdicts must be the
  ;; solver alone's (every variable decided, none set aside): with pruning off (a test-only
  ;; switch) it meets every open constraint.
  (System/setProperty "isocheck.search.prune" "false")
  (try
    (let [;; Each simulated history's verdicts with the shortcuts, compared with the solver
          ;; alone's; the search statistics of its levels, for the caller to count.
          compared (fn [stores]
                     (for [store stores
                           bug (cons nil (seq (Bug/values)))
                           :when (or (nil? bug) (.contains (.stores ^Bug bug) store))
                           seed (range 3)
                           :let [h (simulated store bug seed 300 6 12 5)
                                 [a sa] (verdicts h true)
                                 [b] (verdicts h false)
                                 _ (is (= a b) (str store " " bug " seed " seed))]
                           [_ m] sa]
                       m))
          pinned (atom {})]
      (doseq [m (compared [Store/SERIALIZABLE Store/SNAPSHOT_ISOLATION Store/READ_COMMITTED])
              :let [ps (get m "pinned-solve")]
              :when ps]
        (swap! pinned update (if (get m "solver") :then-the-solver :holds) (fnil inc 0))
        (when-not (get m "solver")
          (is (= ":solver" (str (get m "decided-by"))))
          (is (< (get ps "contested") (get ps "open")))))
      (is (pos? (:then-the-solver @pinned 0)) (str "some fixed choices left a cycle, and the solver decided: " (pr-str @pinned)))
      (testing "one round first and no full solver's turn: the rounds after it (or the solver after them) decide the same"
        (System/setProperty "isocheck.search.pinned-rounds" "1")
        (System/setProperty "isocheck.search.full-turn" "false")
        (try
          (is (pos? (count (filter #(> (get (get % "pinned-solve") "rounds" 0) 1)
                                   (doall (compared [Store/SERIALIZABLE Store/SNAPSHOT_ISOLATION])))))
              "some level took rounds after the first turn")
          (finally
            (System/clearProperty "isocheck.search.pinned-rounds")
            (System/clearProperty "isocheck.search.full-turn"))))
      (testing "the rounds alone, freeing fixed sides only by the contested constraints' own solve
               (refuted: the level is; else the fixed sides in their model's cycles): they decide
               every level as the solver alone does"
        (doseq [[k v] {"isocheck.search.pinned-rounds" "100000" "isocheck.search.full-turn" "false"
                       "isocheck.search.near-freeing" "false"}]
          (System/setProperty k v))
        (try
          (let [ms (doall (compared [Store/SERIALIZABLE Store/SNAPSHOT_ISOLATION Store/READ_COMMITTED]))
                pss (keep #(get % "pinned-solve") ms)]
            (is (some #(get % "refuted-by-contested") pss) "some level refuted by the contested constraints alone")
            (is (some #(pos? (get % "freed-by-components" 0)) pss) "some fixed sides freed by a model's components")
            (is (every? #(nil? (get % "solver")) (filter #(and (get % "pinned-solve") (not (get (get % "pinned-solve") "refuted-by-contested"))) ms))
                "no solver over every open constraint: the rounds decided"))
          (finally
            (doseq [k ["isocheck.search.pinned-rounds" "isocheck.search.full-turn" "isocheck.search.near-freeing"]]
              (System/clearProperty k))))))
    (testing "a level that holds where the time order's choice has a cycle: T0 and T1 wrote x, T2
             read T0's x and T1's y, so T1's x came first; the time order puts T0's first. z's two
             writers, read by no one, are fixed in the time order's direction, the x pair is
             contested, and the solver orders it alone"
      (let [txn (fn [i p value] [{:index (* 2 i), :type :invoke, :process p, :f :txn, :value value}
                                 {:index (inc (* 2 i)), :type :ok, :process p, :f :txn, :value value}])
            h (j/->history (vec (concat (txn 0 0 [[:w :x 1]])
                                        (txn 1 1 [[:w :x 2] [:w :y 1]])
                                        (txn 2 2 [[:r :x 1] [:r :y 1]])
                                        (txn 3 3 [[:w :z 1]])
                                        (txn 4 4 [[:w :z 2]])))
                           :wr)
            run (fn [shortcuts]
                  (let [o (doto (CheckOptions.) (.levels [Level/SERIALIZABLE]))]
                    (set! (.searchShortcuts o) (boolean shortcuts))
                    (set! (.searchWitness o) false)
                    (let [^Result r (Checker/check h o)]
                      ;; (serializability holds through strong-session serializability, searched here)
                      (let [m (get (get (.stats r) "search") "serializable")]
                        [(str (.value ^Verdict (get (.levels r) Level/SERIALIZABLE))) (or (get m "implied-by-search") m)]))))
            [v m] (run true)
            [v-alone] (run false)]
        (is (= "TRUE" v v-alone))
        (is (= ":solver" (str (get m "decided-by"))) (pr-str m))
        (is (nil? (get m "solver")) "the solver over every open constraint did not run")
        (is (= {"open" 2, "contested" 1, "rounds" 1} (select-keys (into {} (get m "pinned-solve")) ["open" "contested" "rounds"]))
            (pr-str m))))
    (finally (System/clearProperty "isocheck.search.prune"))))

(deftest rounds-whose-cycles-free-nothing-contest-the-fixed-sides-in-a-model-of-the-contested-ones
  ;; A pinned round's refutation may rest on fixed sides its recorded cycles do not show
  ;; (learnt clauses keep no derivation); the rounds then stopped, and the full solver met every
  ;; open constraint. Now the contested constraints are solved alone: refuted, the level is;
  ;; else their model with the fixed sides has cycles, and the fixed sides inside them are
  ;; contested next. Both histories below come from the differential fuzz's configurations.
  (let [history (fn [seed store txns ops read-fraction blind? keys key-dist fail info]
                  (.history (Simulator/history
                              (cond-> (-> (SimConfig/builder) (.seed (long seed)) (.store store)
                                          (.workload History$Workload/REGISTER) (.txns (int txns)) (.sessions 30)
                                          (.opsPerTxn 1 (int ops)) (.readFraction (double read-fraction)) (.blind (boolean blind?))
                                          (.keys (int keys)) (.maxWritesPerKey 32) (.failRate (double fail)) (.infoRate (double info)))
                                (= key-dist :zipf) (.zipf 1.0)
                                true .build))))
        check (fn [h level shortcuts?]
                (let [o (doto (CheckOptions.) (.levels [level]))]
                  (set! (.searchShortcuts o) (boolean shortcuts?))
                  (let [^Result r (Checker/check h o)
                        m (get (get (.stats r) "search") (.id ^Level level))]
                    [(str (.value ^Verdict (get (.levels r) level))) (or (get m "implied-by-search") m)])))]
    (testing "a serializable store (3,000 transactions, 10% :info): snapshot isolation holds, as the
             store guarantees and the solver alone finds; the rounds freed sides by components.
             (Seed 207 did, until the time order placed the read-only transactions' begins as
             early as their reads allow: one round decides it now.)"
      (let [h (history 237 Store/SERIALIZABLE 3000 6 0.412356525276521 true 20 :zipf 0.0 0.1)
            [v m] (check h Level/SNAPSHOT_ISOLATION true)
            [v-alone] (check h Level/SNAPSHOT_ISOLATION false)]
        (is (= "TRUE" v v-alone))
        (is (pos? (get (get m "pinned-solve") "freed-by-components" 0)) (pr-str m))))
    (testing "an SI store (10^4 transactions, 200 keys rotated after 32 writes): serializability's
             102,589 open constraints left the full solver unknown at the default time limit; the
             rounds decide it"
      (let [h (history 90087 Store/SNAPSHOT_ISOLATION 10000 5 0.4426959591725064 false 200 :uniform 0.05 0.01)
            [v m] (check h Level/SERIALIZABLE true)]
        (is (= "TRUE" v) (pr-str m))
        (is (nil? (get m "solver")) "no solver over every open constraint")
        (testing "(with transactions at their completions in the time order, some sides freed by components)"
          (System/setProperty "isocheck.search.readers-first" "false")
          (let [[v m] (try (check h Level/SERIALIZABLE true) (finally (System/clearProperty "isocheck.search.readers-first")))]
            (is (= "TRUE" v) (pr-str m))
            (is (pos? (get (get m "pinned-solve") "freed-by-components" 0)) (pr-str m))
            (is (nil? (get m "solver")) "no solver over every open constraint")))))))

(deftest solver-counterexamples-name-the-forced-orders
  ;; Search the generator for a history whose violation only the solver finds (pruning leaves
  ;; constraints open), and read its counterexample.
  (let [found (first (for [seed (range 20000)
                           :let [h (j/->history (rot/generate seed) :wr)
                                 [v st r] (verdicts h true)]
                           [l m] st
                           :when (and (= ":solver" (str (get m "decided-by"))) (= "FALSE" (v l)))]
                       [seed l r]))]
    (is found "some generated history is decided false by the solver")
    (when-let [[seed l ^Result r] found]
      (let [text (.text r)]
        (is (re-find #"No order of the writes leaves the graph acyclic" text) (str "seed " seed " " l))
        (is (re-find #"So T\d+ < " text) (str "seed " seed))))))

(deftest the-time-limit-makes-a-level-unknown-not-a-guess
  ;; A 3,000-transaction history on a snapshot-isolation store with the solver alone and a
  ;; 1 ms limit: what is still open when the limit passes is :unknown, with the reason.
  (let [h (.history (Simulator/history
                      (-> (SimConfig/builder) (.seed 5) (.store Store/SNAPSHOT_ISOLATION)
                          (.workload History$Workload/REGISTER) (.txns 3000) (.sessions 10) (.keys 300)
                          (.keyDist SimConfig$KeyDist/UNIFORM) (.opsPerTxn 4 8) .build)))
        o (doto (CheckOptions.) (.levels [(Level/parse "si")]))]
    (set! (.searchShortcuts o) false)
    (set! (.timeLimitMs o) 1)
    (let [^Result r (Checker/check h o)
          ^Verdict v (get (.levels r) (Level/parse "si"))]
      (is (= "UNKNOWN" (str (.value v))))
      (is (re-find #"time limit" (str (.reason v))) (str (.reason v)))))
  (is (thrown-with-msg? IllegalArgumentException #":time-limit must be a positive number"
                        (isocheck.core/checker {:time-limit 0}))))

(deftest the-history-schedule-witness-agrees-with-the-search
  ;; Before any polygraph, the history's own schedule can show a level holds: first a greedy
  ;; pass in completion order (SI: over begins and commits) that picks the version order as it
  ;; goes and is then checked edge by edge, else Kahn's order by time over reads-from and the
  ;; level's orders, the version order it gives, then one acyclicity test; when it cannot, the search decides. So with the witness off the verdicts must be
  ;; the same on every history, and the witness must settle both kinds of level on correct
  ;; stores (a witness that claimed too much would show here and in register-oracle-test).
  (let [used (atom {})
        run (fn [^History h witness? & [only]]
              (let [o (doto (CheckOptions.) (.levels (if only [(Level/parse only)] levels)))]
                (set! (.searchWitness o) (boolean witness?))
                (let [^Result r (Checker/check h o)]
                  [(tu/verdict-strings r)
                   (get (.stats r) "search")])))]
    (doseq [seed (range 600)]
      (let [h (j/->history (rot/generate seed) :wr)]
        (is (= (first (run h true)) (first (run h false))) (str "seed " seed))))
    (doseq [store [Store/STRICT_SERIALIZABLE Store/SERIALIZABLE Store/SNAPSHOT_ISOLATION Store/READ_COMMITTED]
            bug (cons nil (seq (Bug/values)))
            :when (or (nil? bug) (.contains (.stores ^Bug bug) store))
            seed (range 3)]
      (let [h (simulated store bug seed 300 6 12 5)
            [a] (run h true)
            [b] (run h false)]
        (is (= a b) (str store " " bug " seed " seed))
        ;; The witness is tried while no polygraph exists: each kind of level alone, so each gets it.
        (doseq [l ["strict-serializable" "strong-session-serializable" "serializable"
                   "strong-snapshot-isolation" "snapshot-isolation" "gsi"]]
          (let [[a1 sa] (run h true l)]
            (is (= (get a l) (get a1 l)) (str l " alone, " store " " bug " seed " seed))
            (doseq [[l m] sa :when (= ":witness" (str (get m "decided-by")))]
              (is (= "TRUE" (get a1 l)) (str l " witnessed but not true"))
              (swap! used update l (fnil inc 0))
              (swap! used update (str (get m "witness")) (fnil inc 0)))))))
    ;; On these hot keys (12, zipf) most schedules by completion order miss the commit order;
    ;; at scale it settles the correct stores' levels (lein bench cli).
    (is (<= 2 (get @used "strict-serializable" 0)) (pr-str @used))
    (is (<= 5 (get @used "strong-snapshot-isolation" 0)) (pr-str @used))
    (is (<= 3 (+ (get @used "serializable" 0) (get @used "strong-session-serializable" 0))) (pr-str @used))
    (is (<= 2 (+ (get @used "snapshot-isolation" 0) (get @used "gsi" 0))) (pr-str @used))
    (is (<= 5 (get @used ":greedy" 0)) (pr-str @used))
    (testing "Kahn's schedule, with the greedy pass off (a test-only switch): the same verdicts"
      (System/setProperty "isocheck.witness.greedy" "false")
      (try
        (let [kahn (atom 0)]
          (doseq [store [Store/STRICT_SERIALIZABLE Store/SERIALIZABLE Store/SNAPSHOT_ISOLATION]
                  seed (range 3)]
            (let [h (simulated store nil seed 300 6 12 5)
                  [b] (run h false)]
              (doseq [l ["strong-session-serializable" "serializable" "snapshot-isolation"]]
                (let [[a1 sa] (run h true l)]
                  (is (= (get b l) (get a1 l)) (str l " alone, Kahn's schedule, " store " seed " seed))
                  (doseq [[_ m] sa :when (= ":schedule" (str (get m "witness")))] (swap! kahn inc))))))
          (is (<= 5 @kahn) (str @kahn " levels settled by Kahn's schedule")))
        (finally (System/clearProperty "isocheck.witness.greedy"))))))

(deftest a-weaker-levels-witness-tried-for-a-stronger-one-skips-kahns-schedule
  ;; When strict serializability's schedule fails, strong-session serializability's is tried
  ;; on the way (PolygraphSearch.viaWeaker), before the plain level's known graph: its greedy
  ;; passes only, not Kahn's schedule (at 10^6 on an SI store, 0.3 s that the known graph then
  ;; made useless). Decided alone, the level still gets Kahn's schedule. With the greedy pass
  ;; off (a test-only switch) that leaves Kahn's schedule alone to tell them apart; the
  ;; verdicts are the same either way.
  (System/setProperty "isocheck.witness.greedy" "false")
  (try
    (let [seen (atom {:alone 0 :probed 0})
          sss "strong-session-serializable"
          run (fn [^History hh levels]
                (let [^Result r (Checker/check hh (doto (CheckOptions.) (.levels (mapv #(Level/parse %) levels))))]
                  [(tu/verdict-strings r) (into {} (get (.stats r) "search"))]))]
      (doseq [store [Store/SERIALIZABLE Store/SNAPSHOT_ISOLATION]
              seed (range 4)]
        (let [hh (simulated store nil seed 300 6 12 5)
              [va sa] (run hh [sss])
              [vb sb] (run hh ["strict-serializable" sss])
              by (fn [st] (str (get (get st sss) "witness")))]
          (is (= (get va sss) (get vb sss)) (str store " seed " seed))
          (when (= ":schedule" (by sa))
            (swap! seen update :alone inc)
            ;; (strict serializability's own schedule failed, so the other was probed)
            (when (contains? (get sb "strict-serializable") "witness-ms")
              (swap! seen update :probed inc)
              (is (not= ":schedule" (by sb)) (str store " seed " seed " " (pr-str (get sb sss))))))))
      (is (pos? (:probed @seen)) (pr-str @seen)))
    (finally (System/clearProperty "isocheck.witness.greedy"))))

(deftest the-si-greedy-pass-waits-for-the-readers-of-the-version-a-commit-overwrites
  ;; T1 read x = 1 (T0's) and overwrote it; T2, invoked before T1 and completed after it, read
  ;; x = 1 too, so under SI T2 began before T1 committed. The greedy pass counted T1's own read
  ;; out twice (when T1 began, and again at its commit), placed T1's commit before T2's begin,
  ;; and that order failed its check: Kahn's schedule witnessed the level instead. (y, written
  ;; blind twice, keeps the history off the mini-transaction path.)
  (let [r (tu/check (tu/h (tu/invoke 0 [[:w :x 1] [:w :y 1]]) (tu/ok 0 [[:w :x 1] [:w :y 1]])
                          (tu/invoke 2 [[:r :x nil]])
                          (tu/invoke 1 [[:r :x nil] [:w :x 2]]) (tu/ok 1 [[:r :x 1] [:w :x 2]])
                          (tu/ok 2 [[:r :x 1]])
                          (tu/invoke 3 [[:w :y 2]]) (tu/ok 3 [[:w :y 2]]))
                    [:strong-session-snapshot-isolation])]
    (is (true? (tu/verdict r :strong-session-snapshot-isolation)))
    (is (= {:decided-by :witness :witness :greedy}
           (select-keys (get-in r [:stats :search :strong-session-snapshot-isolation]) [:decided-by :witness]))
        (pr-str (get-in r [:stats :search])))))

(deftest splitting-the-pre-checks-across-cores-changes-nothing
  ;; The rw-register pre-checks (final writes, external reads, each read's writer, the versions
  ;; the search counts) run a range of transactions per core and join the ranges in order: the
  ;; verdicts, anomaly counts and reported counterexamples must not depend on the split.
  (let [run (fn [^History hh cores]
              (System/setProperty "isocheck.weak.cores" (str cores))
              (try
                (dissoc (j/->clj (.toData (Checker/check hh (tu/unbounded (CheckOptions.))))) :stats)
                (finally (System/clearProperty "isocheck.weak.cores"))))
        seen (atom #{})]
    (doseq [[store bugs] [[Store/STRICT_SERIALIZABLE [nil Bug/ABORTED_READ Bug/INTERMEDIATE_READ Bug/STALE_REALTIME_READ]]
                          [Store/SNAPSHOT_ISOLATION [Bug/LOST_UPDATE Bug/FRACTURED_READ Bug/ABORTED_READ]]]
            bug bugs
            seed (range 3)]
      (let [hh (simulated store bug seed 300 6 12 5)
            one (run hh 1)]
        (swap! seen into (:anomaly-types one))
        (is (= one (run hh 2)) (str store " " bug " seed " seed))
        (is (= one (run hh 3)) (str store " " bug " seed " seed))))
    (testing "the pre-checks' anomalies are among those compared"
      (is (every? @seen [:G1a :G1b]) (pr-str @seen)))))

;; The witness-ahead tests below check a history with a test-only switch on and off and compare.
(defn- checked-with-switch
  "Checks hh at levels (counterexamples unbounded) with the system property prop \"false\" unless
  on?: [the result map but :stats, its search statistics without times and :witness-ahead, the
  search statistics]."
  [prop ^History hh on? levels]
  (when-not on? (System/setProperty prop "false"))
  (try
    (let [d (j/->clj (.toData (Checker/check hh (tu/unbounded (doto (CheckOptions.) (.levels levels))))))
          st (get-in d [:stats :search])]
      [(dissoc d :stats)
       (walk/postwalk #(if (map? %) (into {} (remove (fn [[k _]] (re-find #"-ms$|^:witness-ahead$" (str k))) %)) %) st)
       st])
    (finally (System/clearProperty prop))))

(defn- same-with-and-without
  "Asserts that (run hh true levels) and (run hh false levels) give the same result and search
  statistics, and the run without nothing done ahead; returns what the run with did ahead."
  [run hh levels what]
  (let [[r1 s1 a1] (run hh true levels)
        [r0 s0 a0] (run hh false levels)]
    (is (= r1 r0) what)
    (is (= s1 s0) what)
    (is (empty? a0) what)
    a1))

(deftest the-first-levels-witness-runs-ahead-with-the-same-outcome
  ;; The witness schedule of the level searched first starts on a thread of its own once the
  ;; pre-checks are done, beside the chains and the observed graph. Its answer must be the one
  ;; the search would have got in place (-Disocheck.witness.ahead=false, a test-only switch):
  ;; the same result, counterexamples and statistics but for the new :witness-ahead and the
  ;; times. When the mini-transaction checker decides instead, the schedule is stopped and its
  ;; thread gone before the check returns.
  (let [run (fn [hh ahead? levels]
              (let [[r s st] (checked-with-switch "isocheck.witness.ahead" hh ahead? levels)]
                [r s (into {} (concat (for [[l m] st :when (:witness-ahead m)] [(name l) true])
                                      (for [[_ m] st :when (get-in m [:implied-by-search :witness-ahead])]
                                        [(name (:implied-by m)) true])))]))
        ahead (atom {})]
    (doseq [[store bugs] [[Store/STRICT_SERIALIZABLE [nil Bug/STALE_REALTIME_READ]]
                          [Store/SERIALIZABLE [nil Bug/ABORTED_READ]]
                          [Store/SNAPSHOT_ISOLATION [nil Bug/LOST_UPDATE]]]
            bug bugs
            seed (range 3)
            lv [levels [(Level/parse "serializable")] [(Level/parse "gsi") (Level/parse "snapshot-isolation")]]]
      (doseq [[l _] (same-with-and-without run (simulated store bug seed 300 6 12 5) lv (str store " " bug " seed " seed " " lv))]
        (swap! ahead update l (fnil inc 0))))
    (testing "the first level searched is the one run ahead: a plain level's strong-session counterpart, which decides it"
      (is (pos? (get @ahead "strict-serializable" 0)) (pr-str @ahead))
      (is (pos? (get @ahead "strong-session-serializable" 0)) (pr-str @ahead))
      (is (pos? (get @ahead "gsi" 0)) (pr-str @ahead))
      (is (= #{"strict-serializable" "strong-session-serializable" "gsi"} (set (keys @ahead))) (pr-str @ahead))))
  (testing "the mini-transaction checker decides: the schedule started ahead is stopped, its thread gone"
    (let [hh (j/->history (tu/h (tu/ok 0 [[:r :x nil] [:w :x 1]]) (tu/ok 1 [[:r :x 1] [:w :x 2]])
                                (tu/ok 0 [[:r :x 2] [:r :y nil] [:w :y 1]]))
                          :wr)
          ^Result r (Checker/check hh (doto (CheckOptions.) (.levels [(Level/parse "strict-serializable")
                                                                       (Level/parse "serializable")])))]
      (is (= ":fast" (str (get-in (into {} (.stats r)) ["mt" "path"]))) (pr-str (.stats r)))
      (is (= {"strict-serializable" "TRUE", "serializable" "TRUE"} (tu/verdict-strings r)))
      (is (nil? (get (.stats r) "search")))
      (is (not-any? #(= "isocheck-witness" (.getName ^Thread %)) (.keySet (Thread/getAllStackTraces)))))))

;; When the schedule run ahead was strong-session serializability's and it failed, the same
;; thread goes on to strong-session SI's schedule (snapshot isolation's, the next level the
;; search decides), beside the serializable level's search. Its answer must be the one the
;; search would have got in place (-Disocheck.witness.ahead-next=false, a test-only switch):
;; the same result, certificates, counterexamples and statistics but for :witness-ahead and
;; the times; and no thread outlives the check.
(deftest the-next-levels-witness-runs-ahead-with-the-same-outcome
  (let [run (fn [hh next? levels]
              (let [[r s st] (checked-with-switch "isocheck.witness.ahead-next" hh next? levels)]
                [r s (set (for [[l m] st
                                :when (and (#{:snapshot-isolation :strong-session-snapshot-isolation} l)
                                           (or (:witness-ahead m) (get-in m [:implied-by-search :witness-ahead])))]
                            (name l)))]))
        ahead (atom {})
        ser (Level/parse "serializable")]
    (doseq [[store bugs] [[Store/SERIALIZABLE [nil Bug/ABORTED_READ]]
                          [Store/SNAPSHOT_ISOLATION [nil Bug/LOST_UPDATE Bug/LONG_FORK]]]
            bug bugs
            seed (range 3)
            lv [[ser (Level/parse "snapshot-isolation")]
                [ser (Level/parse "strong-session-snapshot-isolation")]
                [(Level/parse "strong-session-serializable") ser (Level/parse "snapshot-isolation")]]]
      (doseq [l (same-with-and-without run (simulated store bug seed 300 6 12 5) lv (str store " " bug " seed " seed " " lv))]
        (swap! ahead update l (fnil inc 0))))
    (testing "the SI levels' schedules were taken from the thread run ahead"
      (is (pos? (get @ahead "snapshot-isolation" 0)) (pr-str @ahead))
      (is (pos? (get @ahead "strong-session-snapshot-isolation" 0)) (pr-str @ahead)))
    (testing "no witness thread outlives its check"
      (is (not-any? #(= "isocheck-witness" (.getName ^Thread %)) (.keySet (Thread/getAllStackTraces)))))))

;; And when a plain serializable level (serializability, repeatable read) is requested with
;; certificates, the witness thread then builds the facts of its refutation
;; (isocheck.check.si.ConstraintProof/prepare), which the check's refutation takes when the
;; level is violated. The result must be the one built in place
;; (-Disocheck.witness.proof-ahead=false, a test-only switch): the same :refutations, verdicts
;; and statistics but for :refutation-facts-ahead and the times.
(deftest a-refutations-facts-built-ahead-give-the-same-proof
  (let [strip (fn [m] (walk/postwalk #(if (map? %) (into {} (remove (fn [[k _]] (re-find #"-ms$|^:witness-ahead$|^:ms$" (str k))) %)) %)
                                     m))
        run (fn [^History hh ahead? levels]
              (when-not ahead? (System/setProperty "isocheck.witness.proof-ahead" "false"))
              (try
                (let [d (j/->clj (.toData (Checker/check hh (tu/unbounded (doto (CheckOptions.) (.levels levels))))))]
                  [(dissoc d :stats) (strip (dissoc (:stats d) :refutation-facts-ahead)) (get-in d [:stats :refutation-facts-ahead])])
                (finally (System/clearProperty "isocheck.witness.proof-ahead"))))
        taken (atom 0)
        proofs (atom 0)]
    (doseq [[store bugs] [[Store/SERIALIZABLE [nil Bug/ABORTED_READ]]
                          [Store/SNAPSHOT_ISOLATION [nil Bug/LOST_UPDATE Bug/LONG_FORK]]]
            bug bugs
            seed (range 3)
            lv [[(Level/parse "serializable") (Level/parse "snapshot-isolation")]
                [(Level/parse "repeatable-read") (Level/parse "snapshot-isolation")]
                [(Level/parse "serializable")]]]
      (let [hh (simulated store bug seed 300 6 12 5)
            [r1 s1 t1] (run hh true lv)
            [r0 s0 t0] (run hh false lv)]
        (is (= r1 r0) (str store " " bug " seed " seed " " lv))
        (is (= s1 s0) (str store " " bug " seed " seed " " lv))
        (is (nil? t0))
        (when t1 (swap! taken inc))
        (when (seq (:refutations r1)) (swap! proofs inc))))
    (testing "proofs took facts built ahead"
      (is (pos? @taken) (str @taken " of " @proofs))
      (is (pos? @proofs)))
    (testing "no witness thread outlives its check"
      (is (not-any? #(= "isocheck-witness" (.getName ^Thread %)) (.keySet (Thread/getAllStackTraces)))))))

(deftest a-failed-realtime-schedules-thread-builds-its-polygraph
  ;; On a large history (from 300,000 transactions; here every size, a test-only switch), when
  ;; the realtime level's schedule run ahead fails, its thread goes on to that level's polygraph
  ;; (:built-after-witness), which the search takes as the one it would have built ahead. The
  ;; result, counterexamples and statistics are those of the search doing it all in place
  ;; (-Disocheck.witness.ahead=false), but for that flag, :witness-ahead and the times.
  (let [strip (fn [m] (walk/postwalk #(if (map? %) (into {} (remove (fn [[k _]] (re-find #"-ms$|^:witness-ahead$|^:built-after-witness$" (str k))) %)) %)
                                     m))
        after (atom {})
        run (fn [^History hh ahead?]
              (if ahead?
                (System/setProperty "isocheck.witness.polygraph-from" "0")
                (System/setProperty "isocheck.witness.ahead" "false"))
              (try
                (let [d (j/->clj (.toData (Checker/check hh (tu/unbounded (CheckOptions.)))))
                      st (get-in d [:stats :search])]
                  (doseq [[l m] st :when (:built-after-witness m)] (swap! after update (name l) (fnil inc 0)))
                  [(dissoc d :stats) (strip st)])
                (finally (System/clearProperty "isocheck.witness.polygraph-from")
                         (System/clearProperty "isocheck.witness.ahead"))))]
    (doseq [[store bugs] [[Store/STRICT_SERIALIZABLE [nil Bug/STALE_REALTIME_READ]]
                          [Store/SERIALIZABLE [nil Bug/ABORTED_READ]]
                          [Store/SNAPSHOT_ISOLATION [nil Bug/LOST_UPDATE]]]
            bug bugs
            seed (range 3)]
      (let [hh (simulated store bug seed 300 6 12 5)
            [r1 s1] (run hh true)
            [r0 s0] (run hh false)]
        (is (= r1 r0) (str store " " bug " seed " seed))
        (is (= s1 s0) (str store " " bug " seed " seed))))
    (testing "the polygraph built after the failed schedule was the one searched"
      (is (pos? (get @after "strict-serializable" 0)) (pr-str @after)))
    (testing "no thread outlives its check"
      (is (not-any? #(#{"isocheck-witness" "isocheck-polygraph"} (.getName ^Thread %)) (.keySet (Thread/getAllStackTraces)))))))

;; A Jepsen-shaped rw-register history: 10 processes, 4 micro-ops, 1,000 zipf keys rotating
;; after 32 writes, 1% :info (lein bench search's shape), with bug at rate 0.002.
(defn- jepsen-shaped ^History [store bug seed txns]
  (.history (Simulator/history
              (cond-> (-> (SimConfig/builder) (.seed (long seed)) (.store store) (.workload History$Workload/REGISTER)
                          (.txns (int txns)) (.sessions 10) (.keys 1000) (.keyDist SimConfig$KeyDist/ZIPF) (.opsPerTxn 4 4)
                          (.readFraction 0.5) (.maxWritesPerKey 32) (.infoRate 0.01))
                bug (-> (.bug bug) (.bugRate 0.002))
                true .build))))

(deftest gsi-searched-beside-strict-serializability-changes-nothing
  ;; From 300,000 transactions (here every size, a test-only switch), GSI is searched on a
  ;; thread of its own once strict serializability's search has the polygraph they share. It is
  ;; used when GSI is asked for (:decided-beside), stopped when strong SI, which implies it, is
  ;; asked for first (then GSI, if still needed, is searched in place). Either way the result,
  ;; counterexamples and statistics are those of every level decided in place
  ;; (-Disocheck.search.beside=false), but for that flag and the times.
  (let [strip (fn [m] (walk/postwalk #(if (map? %) (into {} (remove (fn [[k _]] (re-find #"-ms$|^:decided-beside$" (str k))) %)) %) m))
        beside (atom {})
        all (doto (CheckOptions.) (.levels (vec (Level/values))))
        run (fn [^History hh beside?]
              (System/setProperty (if beside? "isocheck.search.beside-from" "isocheck.search.beside") (if beside? "0" "false"))
              (try
                (let [res (Checker/check hh all)
                      d (j/->clj (.toData res))
                      st (get-in d [:stats :search])
                      v (isocheck.verify.Verify/verify hh (isocheck.cli.EdnPrinter/str (.toData res)))]
                  (doseq [[l m] st :when (:decided-beside m)]
                    (swap! beside update l (fnil conj #{}) (:decided-by m)))
                  [(dissoc d :stats) (strip st) (.status v) (vec (.lines v))])
                (finally (System/clearProperty "isocheck.search.beside-from")
                         (System/clearProperty "isocheck.search.beside"))))
        hs (concat (for [seed (range 3)
                         [store bug] [[Store/STRICT_SERIALIZABLE Bug/STALE_REALTIME_READ] [Store/SERIALIZABLE nil]
                                      [Store/SNAPSHOT_ISOLATION nil]]]
                     [(str store " " bug " Jepsen-shaped, seed " seed) (jepsen-shaped store bug seed 3000)])
                   (for [seed (range 3)
                         [store bug] [[Store/STRICT_SERIALIZABLE Bug/STALE_REALTIME_READ] [Store/SNAPSHOT_ISOLATION nil]]]
                     [(str store " " bug " seed " seed) (simulated store bug seed 300 6 12 5)]))
        searched-after (atom 0)]
    (doseq [[label hh] hs]
      (let [[r1 s1 v1 lines1] (run hh true)
            [r0 s0 v0 lines0] (run hh false)]
        (is (= 0 v1 v0) (str label ": every certificate checks, decided beside or in place\n" lines1 "\n" lines0))
        (is (= (dissoc r1 :certificates) (dissoc r0 :certificates)) label)
        ;; (Both certify the same levels; the witnesses may differ, each one checked by verify_test.)
        (is (= (keys (:certificates r1)) (keys (:certificates r0))) (str label ": the same levels certified"))
        (is (= s1 s0) label)
        ;; strict serializability searched, strong SI asked for after it: the thread was stopped.
        (when (and (contains? s0 :strong-snapshot-isolation) (= :known-graph (get-in s0 [:strict-serializable :decided-by])))
          (swap! searched-after inc))))
    (testing "GSI was decided beside, by the time-ordered choice"
      (is (= {:gsi #{:time-order}} @beside)))
    (testing "and stopped where strong SI was asked for first"
      (is (pos? @searched-after)))
    (testing "no thread outlives its check"
      (is (not-any? #(= "isocheck-beside" (.getName ^Thread %)) (.keySet (Thread/getAllStackTraces)))))))

(deftest snapshot-isolations-time-order-puts-writers-begins-after-the-writers-before-them
  ;; In the time-ordered try, a writer's begin is ranked after the commits of the writers of its
  ;; keys that the try puts first: two writers of a key cannot overlap, so placed before them
  ;; (GSI's begins went as early as they could), the choice's write-write edges went backward
  ;; and its check searched nearly the whole graph. On the Jepsen-shaped histories of the
  ;; serializable store and of the strictly serializable one with stale reads, GSI is decided by
  ;; the time-ordered choice with no edge against the order (the witness schedule off: it
  ;; settles GSI on some of them).
  (let [o (doto (CheckOptions.) (.levels [Level/GSI]))
        _ (set! (.searchWitness o) false)]
    (doseq [[store bug] [[Store/SERIALIZABLE nil] [Store/STRICT_SERIALIZABLE Bug/STALE_REALTIME_READ]]
            seed (range 3)]
      (let [r (Checker/check (jepsen-shaped store bug seed 3000) o)
            st (get-in (j/->clj (.toData r)) [:stats :search :gsi])]
        (is (= "TRUE" (str (.value ^Verdict (get (.levels r) Level/GSI)))) (str store " seed " seed))
        (is (= :time-order (:decided-by st)) (pr-str st))
        (is (pos? (:open st)) (pr-str st))
        (is (= 0 (:backward-edges st)) (pr-str st))
        (is (= 0 (:backward-nodes st)) (pr-str st))))))

(deftest polygraphs-take-the-orders-the-observed-graph-added
  ;; The session and realtime order edges the check's observed graph appended are the ones a
  ;; polygraph would compute: taken from there (OrderEdges, Polygraph.orders), its known edges
  ;; with the orders are the same, edge for edge; for other committed transactions they are
  ;; ignored.
  (doseq [[store bug] [[Store/SERIALIZABLE nil] [Store/SNAPSHOT_ISOLATION nil]]
          seed (range 2)]
    (let [h (jepsen-shaped store bug seed 2000)
          ra (RegisterAnalysis. h 1)
          edges (fn [^Polygraph p] (let [k (.known p)] (vec (for [i (range (.size k))] [(.src k i) (.dst k i) (.type k i)]))))
          own (Polygraph/of h ra nil true)
          given (.orders (Polygraph/of h ra nil true)
                         (OrderEdges/append h (.committed ra) (EdgeList.) true true))
          other (.orders (Polygraph/of h ra nil true)
                         (OrderEdges/append h (boolean-array (alength (.committed ra))) (EdgeList.) true true))]
      (doseq [[s r] [[true true] [false true]]]
        (let [e (edges (.withOrders own s r))]
          (is (< 1000 (count e)))
          (is (= e (edges (.withOrders given s r))) (str store " seed " seed))
          (is (= e (edges (.withOrders other s r))) (str store " seed " seed)))))))

(deftest statistics-keep-their-key-order-from-one-jvm-to-the-next
  ;; A level implied by a stronger one says :decided-by, then :implied-by; the MT pre-pass's
  ;; times :pre-checks, then :chains. (Built with Map.of, their order changed with each JVM's
  ;; hash salt: the same history printed its result differently from run to run.)
  (let [r (Checker/check (jepsen-shaped Store/SNAPSHOT_ISOLATION nil 0 3000) (doto (CheckOptions.) (.levels (vec (Level/values)))))
        search (get (.stats r) "search")
        implied (for [[_ m] search :when (= ":implied" (str (get m "decided-by")))] (take 2 (keys m)))]
    (is (seq implied) (pr-str search))
    (is (every? #(= ["decided-by" "implied-by"] %) implied) (pr-str implied))
    (is (= ["pre-checks" "chains"] (keys (get-in (into {} (.stats r)) ["mt" "ms"]))))))

(deftest a-second-greedy-pass-keeps-each-keys-writers-in-line
  ;; The first greedy pass stalls where a writer that waited for readers is overtaken on another
  ;; key it writes by a later writer, whose readers then depend on it. The second pass places
  ;; each key's writers in the order they were first tried. W (x, y) waits for R, which read the
  ;; x it overwrites and completes last; W' (y) overtakes it on y; R2 read W's x and W''s y, so
  ;; W needs R2 placed first, and R2 needs W. In line, W' waits for W, and all are placed.
  (let [r (tu/check (tu/h (tu/invoke 0 [[:w :x 1]]) (tu/ok 0 [[:w :x 1]])
                          (tu/invoke 1 [[:w :x 2] [:w :y 2]]) (tu/invoke 2 [[:w :y 3]])
                          (tu/invoke 3 [[:r :x nil] [:w :z 1]]) (tu/invoke 4 [[:r :x nil] [:r :y nil]])
                          (tu/ok 1 [[:w :x 2] [:w :y 2]]) (tu/ok 2 [[:w :y 3]])
                          (tu/ok 4 [[:r :x 2] [:r :y 3]]) (tu/ok 3 [[:r :x 1] [:w :z 1]]))
                    [:strong-session-serializable])]
    (is (true? (tu/verdict r :strong-session-serializable)))
    (is (= {:decided-by :witness :witness :greedy :greedy-passes 2}
           (select-keys (get-in r [:stats :search :strong-session-serializable]) [:decided-by :witness :greedy-passes]))
        (pr-str (get-in r [:stats :search]))))
  ;; On a serializable (not strict) store's Jepsen-shaped histories the first pass used to stall
  ;; that way, the readers it waited for being read-only transactions served a stale snapshot:
  ;; now tried as soon as the writers they read are placed, they no longer hold a writer back,
  ;; and the first pass settles strong-session serializability. The search (witness off) must
  ;; agree.
  (let [first-pass (atom 0)]
    (doseq [seed (range 3)]
      (let [h (.history (Simulator/history
                          (-> (SimConfig/builder) (.seed (long seed)) (.store Store/SERIALIZABLE)
                              (.workload History$Workload/REGISTER) (.txns 1000) (.sessions 10) (.keys 1000)
                              (.keyDist SimConfig$KeyDist/ZIPF) (.opsPerTxn 4 4) (.readFraction 0.5)
                              (.maxWritesPerKey 32) (.failRate 0.0) (.infoRate 0.01) .build)))
            run (fn [witness?]
                  (let [o (doto (CheckOptions.) (.levels [(Level/parse "strong-session-serializable")]))]
                    (set! (.searchWitness o) (boolean witness?))
                    (let [^Result r (Checker/check h o)]
                      [(tu/verdict-strings r) (get-in (into {} (.stats r)) ["search" "strong-session-serializable"])])))
            [a st] (run true)
            [b] (run false)]
        (is (= a b) (str "seed " seed))
        (when (and (= ":witness" (str (get st "decided-by"))) (= 1 (get st "greedy-passes")))
          (swap! first-pass inc))))
    (is (= 3 @first-pass) (str @first-pass " of 3 settled by the first pass"))))

(deftest a-stale-read-stores-jepsen-run-places-its-read-only-transactions-early
  ;; A real Jepsen run (test/resources/corpus/jepsen-real): 4,236 rw-register transactions over
  ;; 168 keys, each written about 20 times blind, against a store that serves read-only
  ;; transactions a stale snapshot, process order violated too. Serializability holds; strict
  ;; and strong-session serializability do not. Placed at their completions, after the writers
  ;; that overwrote what they read, the read-only transactions stalled the greedy passes, and the
  ;; time order's fixed sides closed cycles one pinned round at a time: serializable alone took
  ;; 140 rounds (13,751 contested constraints), snapshot isolation 52. Placed as early as their
  ;; reads allow, the first greedy pass witnesses serializability, and with the witness off the
  ;; time order leaves a few contested constraints that one round decides.
  (let [h (Formats/readHistory "test/resources/corpus/jepsen-real/rj-wr-stale-read/history.edn.gz" nil)
        run (fn [levels & {:keys [witness? shortcuts?] :or {witness? true shortcuts? true}}]
              (let [o (doto (CheckOptions.) (.levels (mapv #(Level/parse (name %)) levels)))]
                (set! (.searchWitness o) (boolean witness?))
                (set! (.searchShortcuts o) (boolean shortcuts?))
                (let [^Result r (Checker/check h o)]
                  [(tu/verdict-strings r) (get-in (j/->clj (.toData r)) [:stats :search])])))]
    (is (= 4236 (.nTxns h)))
    (testing "every level: serializability holds, by the first greedy pass"
      (let [[v st] (run (map #(keyword (.id ^Level %)) (Level/values)))]
        (is (= {"strict-serializable" "FALSE", "strong-session-serializable" "FALSE", "serializable" "TRUE",
                "strong-snapshot-isolation" "FALSE", "strong-session-snapshot-isolation" "FALSE", "gsi" "TRUE",
                "snapshot-isolation" "TRUE", "repeatable-read" "TRUE"}
               (select-keys v ["strict-serializable" "strong-session-serializable" "serializable" "strong-snapshot-isolation"
                               "strong-session-snapshot-isolation" "gsi" "snapshot-isolation" "repeatable-read"])))
        (is (= {:decided-by :witness, :witness :greedy, :greedy-passes 1}
               (select-keys (:serializable st) [:decided-by :witness :greedy-passes]))
            (pr-str (:serializable st)))))
    (testing "the witness off: the time order's fixed sides, one round, a handful contested"
      (doseq [[l readers-first?] [[:serializable false] [:snapshot-isolation true]]]
        (let [[v st] (do (when-not readers-first? (System/setProperty "isocheck.search.readers-first" "false"))
                         (try (run [l] :witness? false) (finally (System/clearProperty "isocheck.search.readers-first"))))
              m (get st l)
              ps (:pinned-solve m)]
          (is (= "TRUE" (get v (name l))))
          (is (= :solver (:decided-by m)) (pr-str m))
          (is (nil? (:solver m)) "no solver over every open constraint")
          (is (= 1 (:rounds ps)) (pr-str ps))
          (is (< (:contested ps) 100) (pr-str ps)))))
    (testing "the witness off, serializability: each transaction that read a version another
             writer overwrote before it completed goes before that writer in the time order
             (RegisterSearch#readersFirst), whose choice then decides at once"
      (let [[v st] (run [:serializable] :witness? false)
            m (:serializable st)]
        (is (= "TRUE" (get v "serializable")))
        (is (= :time-order (:decided-by m)) (pr-str m))))
    (testing "the solver alone agrees"
      (is (= "TRUE" (get (first (run [:serializable] :shortcuts? false)) "serializable"))))))

(deftest a-polygraph-built-in-parts-is-the-same-polygraph
  ;; Polygraph's constraints are counted in a first pass and filled in a second, which takes the
  ;; later writers the first found (realtime's tests and the sorts not done twice) up to a cap,
  ;; and past it finds them again: the polygraph must be the same either way, with and without
  ;; the writer orders realtime fixes.
  (let [arrays (fn [^Polygraph p]
                 (mapv vec [(.first p) (.second p) (.sideStart p) (.sideSrc p) (.sideDst p) (.sideType p) (.sideKey p)]))
        built (fn [h ra by-realtime cap]
                (if cap (System/setProperty "isocheck.polygraph.max-kept" (str cap)) (System/clearProperty "isocheck.polygraph.max-kept"))
                (try (arrays (Polygraph/of h ra nil (boolean by-realtime)))
                     (finally (System/clearProperty "isocheck.polygraph.max-kept"))))]
    (doseq [[store bug] [[Store/SERIALIZABLE nil] [Store/SNAPSHOT_ISOLATION nil] [Store/STRICT_SERIALIZABLE Bug/STALE_REALTIME_READ]]
            seed (range 2)
            by-realtime [true false]]
      (let [h (jepsen-shaped store bug seed 1500)
            ra (RegisterAnalysis. h 1)
            kept (built h ra by-realtime nil)]
        (is (< 50 (count (first kept))) (str store " seed " seed ": constraints to compare"))
        (doseq [cap [0 1 100]]
          (is (= kept (built h ra by-realtime cap)) (str store " seed " seed " realtime " by-realtime " cap " cap)))
        ;; Its first steps taken ahead (Polygraph/prepare, while the chains are built), then the
        ;; rest: the same polygraph, known edges and reasons included; once.
        (let [prepared (Polygraph/prepare h ra (boolean by-realtime))
              ^Polygraph p (.of prepared nil)
              ^Polygraph q (Polygraph/of h ra nil (boolean by-realtime))
              known (fn [^Polygraph p] (let [k (.known p)]
                                         [(vec (for [i (range (.size k))] [(.src k i) (.dst k i) (.type k i)]))
                                          (vec (.toArray (.knownKey p))) (vec (.toArray (.knownWhy p)))]))]
          (is (= kept (arrays p)))
          (is (= (known q) (known p)))
          (is (= (.realtimeEdges q) (.realtimeEdges p)))
          (is (thrown? IllegalStateException (.of prepared nil)))
          ;; Given up when asked (the check closing the thread that would wait for the chains).
          (is (nil? (Polygraph/prepare h ra (boolean by-realtime) (reify java.util.function.BooleanSupplier (getAsBoolean [_] true)))))
          (is (= kept (arrays (.of (Polygraph/prepare h ra (boolean by-realtime) (reify java.util.function.BooleanSupplier (getAsBoolean [_] false))) nil)))))))))

;; ---------------------------------------------------------------- counterexamples prove what they are shown for

(defn- branches
  "A counterexample's cycles: the cycle, and for a pair of writers both of whose orders close
  one, the alternative."
  [cx]
  (cons cx (when-let [alt (:alternative cx)] [alt])))

(defn- adjacent-rw?
  "Independently of the checker's own naming: whether two anti-dependency steps of a cycle are
  adjacent (cyclically), a shape snapshot isolation allows."
  [cx]
  (let [ts (mapv #(name (:type %)) (:steps cx))
        k (count ts)]
    (boolean (some (fn [i] (and (= "rw" (ts i)) (= "rw" (ts (mod (inc i) k))))) (range k)))))

(defn- si-non-proofs
  "The counterexamples a result shows for a snapshot-isolation level (every kept instance of
  every type its verdict names) one branch of which is a cycle SI allows."
  [r]
  (for [[l v] (:levels r)
        :when (and (false? (:valid? v)) (re-find #"snapshot-isolation|gsi" (name l)))
        t (:anomaly-types v)
        cx (get-in r [:anomalies t])
        b (branches cx)
        :when (adjacent-rw? b)]
    [l t (:explanation cx)]))

(deftest a-counterexample-shown-for-snapshot-isolation-is-a-cycle-it-forbids-in-every-branch
  ;; Issue 26: T0 and T1 both wrote x. If T0's came first, T2 (read T0's x, T1's y) closes a
  ;; cycle with one anti-dependency; if T1's came first, T3 (read T1's x, wrote the z T0 read
  ;; as nil) closes a write skew, which SI allows: SI forces T1's first, and holds on these
  ;; four. T4..T7 violate SI (both orders of T4's and T5's w close a cycle with one
  ;; anti-dependency). Serializability's counterexample, the first pair, was named
  ;; G-single-item (SI violated elsewhere) and shown as SI's.
  (let [hist (tu/h (tu/invoke 0 [[:r :z nil] [:w :x 1]]) (tu/ok 0 [[:r :z nil] [:w :x 1]])
                   (tu/invoke 1 [[:w :x 2] [:w :y 2]]) (tu/ok 1 [[:w :x 2] [:w :y 2]])
                   (tu/invoke 2 [[:r :x nil] [:r :y nil]]) (tu/ok 2 [[:r :x 1] [:r :y 2]])
                   (tu/invoke 3 [[:r :x nil] [:w :z 3]]) (tu/ok 3 [[:r :x 2] [:w :z 3]])
                   (tu/invoke 4 [[:w :w 1] [:w :v 1]]) (tu/ok 4 [[:w :w 1] [:w :v 1]])
                   (tu/invoke 5 [[:w :w 2] [:w :u 2]]) (tu/ok 5 [[:w :w 2] [:w :u 2]])
                   (tu/invoke 6 [[:r :w nil] [:r :u nil]]) (tu/ok 6 [[:r :w 1] [:r :u 2]])
                   (tu/invoke 7 [[:r :w nil] [:r :v nil]]) (tu/ok 7 [[:r :w 2] [:r :v 1]]))
        r (tu/check hist [:serializable :snapshot-isolation])]
    (is (false? (tu/verdict r :serializable)))
    (is (false? (tu/verdict r :snapshot-isolation)))
    (is (= [] (vec (si-non-proofs r))) (:explanation (get-in r [:counterexamples :G-single-item])))
    (testing "SI's counterexample is the second pair, both of whose orders close a cycle SI forbids"
      (let [cx (get-in r [:counterexamples (first (get-in r [:levels :snapshot-isolation :anomaly-types]))])]
        (is (= #{9 11 13 15} (set (map :index (concat (:cycle cx) (:cycle (:alternative cx))))))
            (:explanation cx))))
    (testing "the first four alone: SI holds, and serializability's pair is named G2-item, which SI allows"
      (let [r1 (tu/check (subvec hist 0 8) [:serializable :snapshot-isolation])]
        (is (false? (tu/verdict r1 :serializable)))
        (is (true? (tu/verdict r1 :snapshot-isolation)))
        (is (= #{:G2-item} (tu/types r1)))))
    (testing "serializability asked alone: its pair proves serializability alone, so G2-item"
      (is (= #{:G2-item} (tu/types (tu/check hist [:serializable])))))))

(deftest every-counterexample-shown-for-an-si-level-on-simulated-histories-is-a-cycle-si-forbids
  ;; For every SI level a simulated rw-register history violates, every branch of every
  ;; counterexample shown for it has no two adjacent anti-dependencies (checked from its steps,
  ;; not from the checker's names).
  (let [seen (atom 0)]
    (doseq [store [Store/SERIALIZABLE Store/SNAPSHOT_ISOLATION Store/READ_COMMITTED]
            bug (cons nil (seq (Bug/values)))
            :when (or (nil? bug) (.contains (.stores ^Bug bug) store))
            seed (range 3)
            :let [h (simulated store bug seed 200 5 10 4)
                  r (j/->clj (.toData (Checker/check h (doto (CheckOptions.)
                                                          (.levels (mapv #(Level/parse %) ["serializable" "strong-session-serializable"
                                                                                           "snapshot-isolation" "strong-session-snapshot-isolation"]))))))]]
      (when (false? (tu/verdict r :snapshot-isolation)) (swap! seen inc))
      (is (= [] (vec (si-non-proofs r))) (str store " " bug " seed " seed)))
    (is (pos? @seen) "some simulated history violates snapshot isolation")))

;; ---------------------------------------------------------------- the counterexample search's bound

(defn- sim-history ^History [store bug workload seed txns]
  (.history (Simulator/history
              (cond-> (-> (SimConfig/builder) (.seed (long seed)) (.store store) (.workload workload)
                          (.txns (int txns)) (.sessions 10) (.keys 40) (.keyDist SimConfig$KeyDist/ZIPF)
                          (.opsPerTxn 4 4) (.readFraction 0.5) (.maxWritesPerKey 32))
                bug (-> (.bug bug) (.bugRate 0.02))
                true .build))))

(defn- checked [^History h opts]
  (second (isocheck.core/check-history (merge {:levels [:strict-serializable :serializable :strong-snapshot-isolation
                                                        :snapshot-isolation :repeatable-read :read-committed]}
                                              opts)
                                       h)))

(deftest the-counterexample-search-is-bounded-and-skipped-with-max-anomalies-0-verdicts-unchanged
  (let [hs (for [[store bug] [[Store/SNAPSHOT_ISOLATION nil] [Store/STRICT_SERIALIZABLE Bug/STALE_REALTIME_READ]
                              [Store/SNAPSHOT_ISOLATION Bug/LONG_FORK]]
                 wl [History$Workload/APPEND History$Workload/REGISTER]
                 seed (range 2)]
             [(str store " " bug " " wl " " seed) (sim-history store bug wl seed 2000)])
        kinds (atom {})]
    (doseq [[label h] hs
            :let [full (checked h {:counterexample-time-limit 600})
                  tiny (checked h {:counterexample-time-limit 0})
                  none (checked h {:max-anomalies 0})
                  auto (checked h {})]]
      (swap! kinds update (:counterexample-search tiny) (fnil inc 0))
      (testing label
        (is (= (:levels full) (:levels auto)) "the automatic bound changes no verdict")
        (is (= (map (comp :valid? val) (:levels full)) (map (comp :valid? val) (:levels tiny))
               (map (comp :valid? val) (:levels none)))
            "a bound of 0, or counting only, changes no verdict")
        (is (= :skipped (:counterexample-search none)))
        (is (= {} (:counterexamples none)))
        (is (#{:smallest :bounded} (:counterexample-search full)))
        (when (false? (:valid? full))
          (is (seq (:anomaly-counts none)) "counting only still counts")
          (is (every? pos? (vals (:anomaly-counts none))))
          (testing "the anomalies no cycle search finds (pre-checks: lost updates, aborted reads) are counted the same"
            (let [pre #{:lost-update :G1a :G1b :internal :incompatible-order :dirty-update :duplicate-elements}]
              (is (= (select-keys (:anomaly-counts full) pre) (select-keys (:anomaly-counts none) pre)))))
          (when (= :bounded (:counterexample-search tiny))
            (testing "every violated level still names an anomaly type that rules it out"
              (doseq [[l v] (:levels tiny) :when (false? (:valid? v))]
                (is (seq (:anomaly-types v)) (str l))))))))
    (is (pos? (get @kinds :bounded 0)) (str "a bound of 0 stopped some typed search: " @kinds))))

(deftest the-text-says-when-the-counterexample-shown-is-the-smallest-found-within-the-bound
  (let [h (sim-history Store/SNAPSHOT_ISOLATION nil History$Workload/APPEND 1 2000)
        o (fn [ms] (doto (CheckOptions.) (.levels (mapv #(Level/parse %) ["serializable" "snapshot-isolation"]))
                     (-> .counterexampleMs (set! (long ms)))))
        bounded (Checker/check h (o 0))
        full (Checker/check h (o 600000))]
    (is (= "bounded" (.counterexampleSearch bounded)))
    (is (re-find #"the smallest found within the time bound is shown" (.text bounded)))
    (is (= "smallest" (.counterexampleSearch full)))
    (is (not (re-find #"within the time bound" (.text full))))
    (is (re-find #"the smallest is shown" (.text full)))))

(deftest every-cyclic-component-is-counted-past-max-components
  ;; Past CheckOptions#maxComponents a component gets no typed search, but its first cycle
  ;; found still counts it: counting only, a cap of 1 counts what no cap counts.
  (let [h (sim-history Store/STRICT_SERIALIZABLE Bug/STALE_REALTIME_READ History$Workload/APPEND 0 2000)
        counts (fn [cap]
                 (let [o (doto (isocheck.check.CheckOptions.)
                           (.levels [isocheck.check.Level/STRICT_SERIALIZABLE])
                           (-> .countsOnly (set! true))
                           (-> .maxComponents (set! (int cap))))
                       r (isocheck.check.Checker/check h o)]
                   (into {} (for [t (.types (.anomalies r))] [t (.count (.anomalies r) t)]))))
        all (counts 1000000)]
    (is (< 1 (reduce + (vals all))) "the history has several cyclic components")
    (is (= all (counts 1)) "a cap of one component counts them all the same")))

(deftest an-si-history-without-invocations-is-decided-by-the-witness-schedule
  ;; Without invocations (completions only, as other tools and filtered files give them), a
  ;; begin is ranked just after its session predecessor's completion: the schedule then
  ;; witnesses SI as with invocations, where ranking it at its commit sent SI to pruning and the
  ;; solver (lein bench order: 1.8 s against 0.25 s at 10^5).
  (let [dir (java.nio.file.Files/createTempDirectory "iso-noinv" (make-array java.nio.file.attribute.FileAttribute 0))
        f (.resolve dir "h.edn")
        cfg (-> (SimConfig/builder) (.seed 3) (.store Store/SNAPSHOT_ISOLATION) (.workload History$Workload/REGISTER)
                (.txns 20000) (.sessions 10) (.keys 1000) (.keyDist SimConfig$KeyDist/ZIPF) (.opsPerTxn 4 4)
                (.readFraction 0.5) (.maxWritesPerKey 32) (.infoRate 0.01) .build)
        w (isocheck.io.EdnWriter/open f)
        _ (try (Simulator/run cfg w) (finally (.close w)))
        stripped (str (.resolve dir "completions.edn"))
        _ (spit stripped (->> (clojure.string/split-lines (slurp (str f)))
                              (remove #(clojure.string/includes? % ":type :invoke"))
                              (map #(-> % (clojure.string/replace #":index \d+, " "") (clojure.string/replace #":time \d+, " "")))
                              (clojure.string/join "\n")))
        r (isocheck.core/check-file (isocheck.core/checker {:levels [:snapshot-isolation :serializable]}) stripped)
        by (fn [l] (or (get-in r [:stats :search l :implied-by-search :decided-by])
                       (get-in r [:stats :search l :decided-by])))]
    (is (true? (get-in r [:levels :snapshot-isolation :valid?])))
    (is (false? (get-in r [:levels :serializable :valid?])))
    (is (= :witness (by :snapshot-isolation)) (pr-str (get-in r [:stats :search])))))

(defn- completions-only
  "h's transactions as completions alone, in their order (no invocation: no realtime
  information), ok and info alike, each with its process."
  ^History [^History h]
  (j/->history
    (vec (for [t (range (.nTxns h))
               :when (not= "FAIL" (str (.status h t)))]
           {:type (if (.isOk h t) :ok :info) :f :txn :process (.process h t)
            :value (vec (for [m (range (.mopStart h t) (.mopEnd h t))]
                          (if (= isocheck.history.OpRecord/WRITE (.mopKind h m))
                            [:w (.key h (.mopKey h m)) (.value h (.mopVal h m))]
                            [:r (.key h (.mopKey h m)) (.value h (.mopVal h m))])))}))))

(deftest without-realtime-information-the-realtime-levels-are-their-counterparts
  ;; A history of completions alone has no realtime order: strict serializability and strong SI
  ;; are their strong-session counterparts and GSI is SI, edge for edge, and are decided as
  ;; those (:decided-by :same-without-realtime). Their verdicts must be those of their own
  ;; searches (the shortcut off).
  (let [same (atom 0)]
    (doseq [store [Store/SERIALIZABLE Store/SNAPSHOT_ISOLATION Store/READ_COMMITTED Store/STRICT_SERIALIZABLE]
            bug (cons nil (seq (Bug/values)))
            :when (or (nil? bug) (.contains (.stores ^Bug bug) store))
            seed (range 2)
            :let [h (completions-only (simulated store bug seed 200 5 10 4))
                  [a sa] (verdicts h true)
                  [b] (do (System/setProperty "isocheck.search.same-without-realtime" "false")
                          (try (verdicts h true) (finally (System/clearProperty "isocheck.search.same-without-realtime"))))]]
      (is (= a b) (str store " " bug " seed " seed))
      (swap! same + (count (filter #(= ":same-without-realtime" (str (get (val %) "decided-by"))) sa))))
    (is (pos? @same) "some realtime level was decided as its counterpart")))

(deftest pruning-rounds-on-the-last-rounds-graph-decide-what-rounds-rebuilt-whole-do
  ;; Pruning's rounds after the first search the last round's graph with only the decided sides'
  ;; edges its reachability did not imply (Pruning.run), not the known graph rebuilt with every
  ;; decided side (-Disocheck.prune.incremental=false, the way before): the same reachability,
  ;; so each round must decide the same constraints, and the counterexamples (built from the
  ;; full graph) must be the same, on simulated stores x bugs.
  (let [outcome (fn [^History h incremental?]
                  (if incremental?
                    (System/clearProperty "isocheck.prune.incremental")
                    (System/setProperty "isocheck.prune.incremental" "false"))
                  (try
                    (let [^Result r (Checker/check h (doto (CheckOptions.) (.levels levels)))]
                      [(tu/verdict-strings r)
                       (into {} (for [t (.types (.anomalies r))]
                                  [t [(.count (.anomalies r) t)
                                      (mapv (fn [^isocheck.report.Anomaly a] [(vec (.txns a)) (.explanation a)]) (.get (.anomalies r) t))]]))
                       (into {} (for [[l m] (get (.stats r) "search")]
                                  [l (select-keys m ["decided-by" "pruning-rounds" "pruning-round-decided" "pruned" "open"
                                                     "constraints"])]))])
                    (finally (System/clearProperty "isocheck.prune.incremental"))))
        multi (atom 0)]
    (doseq [store [Store/SERIALIZABLE Store/SNAPSHOT_ISOLATION Store/READ_COMMITTED]
            bug (cons nil (seq (Bug/values)))
            :when (or (nil? bug) (.contains (.stores ^Bug bug) store))
            seed (range 3)]
      (let [h (simulated store bug seed 300 6 12 5)
            [va aa sa :as a] (outcome h true)
            b (outcome h false)]
        (swap! multi + (count (filter #(>= (get (val %) "pruning-rounds" 0) 2) sa)))
        (is (= a b) (str store " " bug " seed " seed))))
    (is (pos? @multi) "some level took two pruning rounds or more")))

(defn- with-switch
  "(f) with the search's switch prop on (cleared) or off (-Dprop=false); cleared after."
  [prop on? f]
  (if on? (System/clearProperty prop) (System/setProperty prop "false"))
  (try (f) (finally (System/clearProperty prop))))

(defn- switch-keeps-verdicts
  "Over stores x bugs x seeds, the verdicts of every level on (prep h), h simulated, must be
  the same with the switch prop on and off; returns how many levels' time orders went back
  fewer times with it on."
  [prop stores seeds prep]
  (let [fewer (atom 0)]
    (doseq [store stores
            bug (cons nil (seq (Bug/values)))
            :when (or (nil? bug) (.contains (.stores ^Bug bug) store))
            seed (range seeds)]
      (let [h (prep (simulated store bug seed 300 6 12 5))
            [a sa] (with-switch prop true #(verdicts h true))
            [b sb] (with-switch prop false #(verdicts h true))]
        (is (= a b) (str store " " bug " seed " seed))
        (doseq [[l m] sa
                :let [k (get m "backward-edges") k0 (get (get sb l) "backward-edges")]
                :when (and k k0 (< k k0))]
          (swap! fewer inc))))
    @fewer))

(deftest readers-first-in-the-time-order-decides-what-completion-order-does
  ;; Serializability's time order puts a transaction before the next writer of a version it
  ;; read when that writer completed first (RegisterSearch#readersFirst): only the search's path
  ;; changes, so the verdicts must be those with transactions at their completion
  ;; (-Disocheck.search.readers-first=false), on simulated stores x bugs, every level.
  (is (pos? (switch-keeps-verdicts "isocheck.search.readers-first"
                                    [Store/SERIALIZABLE Store/SNAPSHOT_ISOLATION Store/READ_COMMITTED Store/STRICT_SERIALIZABLE]
                                    3 identity))
      "some time order went back fewer times with readers first")
  (testing "a stale read (known answer): T2 read T0's x, overwritten by T1, which completed
           first; T2 goes before T1 in the time order, and every chosen side goes forward"
    (let [op (fn [i typ p value] {:index i, :type typ, :process p, :f :txn, :value value})
          h (j/->history [(op 0 :invoke 0 [[:w :x 1]]) (op 1 :ok 0 [[:w :x 1]])
                          (op 2 :invoke 2 [[:r :x nil] [:w :y 1]])
                          (op 3 :invoke 1 [[:w :x 2]]) (op 4 :ok 1 [[:w :x 2]])
                          (op 5 :ok 2 [[:r :x 1] [:w :y 1]])]
                         :wr)
          run (fn [on?]
                (with-switch "isocheck.search.readers-first" on?
                  #(let [o (doto (CheckOptions.) (.levels [Level/SERIALIZABLE]))]
                     (set! (.searchWitness o) false)
                     (let [^Result r (Checker/check h o)
                           m (get (get (.stats r) "search") "serializable")]
                       [(str (.value ^Verdict (get (.levels r) Level/SERIALIZABLE))) (or (get m "implied-by-search") m)]))))
          [v m] (run true)
          [v0 m0] (run false)]
      (is (= "TRUE" v v0))
      (is (= ":time-order" (str (get m "decided-by"))))
      (is (= 0 (get m "backward-edges")))
      (is (= 1 (get m0 "backward-edges"))))))

(deftest the-time-estimate-in-the-time-order-decides-what-the-files-order-does
  ;; Without invocations the time order ranks transactions by TimeEstimate, not by the file's
  ;; order (PolygraphSearch#timeOrder, RegisterSearch#nodeRanks): only the search's path
  ;; changes, so the verdicts must be those with the file's order
  ;; (-Disocheck.search.estimate=false), on simulated stores x bugs written session by session,
  ;; as Plume text lists them, every level.
  (let [by-session (fn [^History h]
                     (let [ops (vec (for [t (range (.nTxns h))
                                          :when (not= "FAIL" (str (.status h t)))]
                                      {:type (if (.isOk h t) :ok :info) :f :txn :process (.process h t)
                                       :value (vec (for [m (range (.mopStart h t) (.mopEnd h t))]
                                                     [(if (= isocheck.history.OpRecord/WRITE (.mopKind h m)) :w :r)
                                                      (.key h (.mopKey h m)) (.value h (.mopVal h m))]))}))]
                       (j/->history (vec (sort-by :process ops)))))
        fewer (switch-keeps-verdicts "isocheck.search.estimate"
                                     [Store/SERIALIZABLE Store/SNAPSHOT_ISOLATION Store/READ_COMMITTED] 2 by-session)]
    (is (pos? fewer) "some time order went back fewer times by the estimate")))
