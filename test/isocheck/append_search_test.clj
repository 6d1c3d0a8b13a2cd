(ns isocheck.append-search-test
  "The order of never-read appends on list-append histories. The translator
  (isocheck.order.ListAppendAnalysis) reads the version order off the lists
  and leaves open only the order among appends to one key that no read
  observed; the polygraph engine (isocheck.check.si.AppendSearch: known graph,
  time order, pruning, CDCL(T) solver) decides it. Where the translator fixed
  every order the engine has nothing to decide; the shortcuts (time order,
  pruning) and the solver alone reach the same verdicts; the literal patterns
  below pin the counterexamples. The brute-force oracle comparison on
  histories with several never-read appends per key is in oracle-test."
  (:require [clojure.java.io :as io]
            [clojure.string :as str]
            [clojure.test :refer [deftest is testing]]
            [clojure.walk :as walk]
            [isocheck.core :as iso]
            [isocheck.jepsen :as j]
            [isocheck.oracle-test :as ot]
            [isocheck.test-util :as tu :refer [h ok check verdict types cx-indices]])
  (:import (isocheck.check CheckOptions Checker Level Result Verdict)
           (isocheck.history History History$Workload)
           (isocheck.io Formats)
           (isocheck.order ListAppendAnalysis)
           (isocheck.oracle HistoryGen)
           (isocheck.sim Bug SimConfig SimConfig$KeyDist Simulator Store)))

(def levels (mapv #(Level/parse (name %)) ot/levels))

(defn- run
  "[verdicts {level-id value-string}, search stats {level-id stats}] with or without the shortcuts."
  [^History hist shortcuts?]
  (let [o (doto (CheckOptions.) (.levels levels))]
    (set! (.searchShortcuts o) (boolean shortcuts?))
    (let [^Result r (Checker/check hist o)]
      [(tu/verdict-strings r)
       (into {} (get (.stats r) "search"))])))

(defn- open-pairs
  "The pairs of committed transactions with never-read appends to a common key, counted
  here from the translator's per-key lists (not by the engine)."
  [^History hist]
  (let [la (ListAppendAnalysis. hist 1)]
    (count (set (for [^ints u (.unread la)
                      :when (and u (>= (alength u) 2))
                      a u, b u :when (< a b)]
                  [a b])))))

(defn- sim-history ^History [store bug seed txns sessions keys ops]
  (.history (Simulator/history
              (cond-> (-> (SimConfig/builder) (.seed (long seed)) (.store store)
                          (.workload History$Workload/APPEND) (.txns (int txns)) (.sessions (int sessions))
                          (.keys (int keys)) (.keyDist SimConfig$KeyDist/ZIPF) (.opsPerTxn 1 (int ops))
                          (.infoRate 0.05))
                bug (-> (.bug bug) (.bugRate 0.1))
                true .build))))

(defn- histories
  "[name history]: simulated stores (every bug each admits, three sizes), the corpus's
  list-append files, and the oracle's tiny generated histories (plain, and with a key no read
  names, which gives several never-read appends per key)."
  []
  (concat
    (for [store (Store/values)
          bug (cons nil (seq (Bug/values)))
          :when (or (nil? bug) (.contains (.stores ^Bug bug) store))
          [seed txns sessions keys ops] [[1 60 3 4 3] [2 300 6 10 4] [3 1200 10 40 4]]]
      [(str store " " bug " seed " seed) (sim-history store bug seed txns sessions keys ops)])
    (for [^java.io.File f (file-seq (io/file "test/resources/corpus"))
          :when (str/ends-with? (.getName f) ".edn")
          :let [hist (Formats/readHistory (str f) nil)]
          :when (= History$Workload/APPEND (.workload hist))]
      [(str f) hist])
    (for [seed (range 1500)] [(str "gen " seed) (j/->history (vec (.ops (HistoryGen/generate seed))))])
    (for [seed (range 1500)] [(str "gen-sink " seed) (j/->history (vec (.ops (HistoryGen/generate seed 6 true))))])))

(def ^:private runs
  "Per history: name, open pairs, and the checks with and without the shortcuts."
  (delay (vec (for [[nm hist] (histories)]
                {:name nm, :pairs (open-pairs hist), :fast (run hist true), :alone (run hist false)}))))

(deftest where-the-translator-fixed-every-order-nothing-is-left-to-decide
  ;; Without the shortcuts every level the translator did not already rule out (nor a stronger
  ;; level settle) builds its polygraph, so [:stats :search level :constraints] is the engine's
  ;; own count.
  (let [rs @runs
        fixed (filter #(zero? (:pairs %)) rs)
        open (filter #(pos? (:pairs %)) rs)
        ;; (Not a level implied by another, nor one decided as its counterpart: these
        ;; histories have no invocations, so no realtime order, PolygraphSearch#sameWithoutRealtime.)
        searched (fn [r] (remove #(#{":implied" ":same-without-realtime"} (str (get (val %) "decided-by"))) (second (:alone r))))]
    (testing "not vacuous: both kinds, each with levels the engine decided"
      (is (> (count (filter #(seq (searched %)) fixed)) 500))
      (is (> (count (filter #(seq (searched %)) open)) 500))
      (is (some #(str/starts-with? (:name %) "test/resources") fixed) "a corpus file"))
    (testing "no key with two never-read appends: 0 constraints on every level searched"
      (doseq [r fixed, [l m] (searched r)]
        (is (= 0 (get m "constraints")) (str (:name r) " " l))
        (is (= ":known-graph" (str (get m "decided-by"))) (str (:name r) " " l)))
      (doseq [r fixed, [l m] (second (:fast r)) :when (contains? m "constraints")]
        (is (= 0 (get m "constraints")) (str (:name r) " " l))))
    (testing "otherwise one constraint per pair of never-read appenders of a common key"
      (doseq [r open, [l m] (searched r)]
        (is (= (:pairs r) (get m "constraints")) (str (:name r) " " l))))))

(deftest the-solver-alone-agrees-with-the-shortcuts
  (let [rs @runs
        by (frequencies (for [r rs, [_ m] (second (:fast r)) :when (pos? (get m "constraints" 0))]
                          (str (get m "decided-by"))))]
    (doseq [r rs]
      (is (= (first (:fast r)) (first (:alone r))) (:name r))
      (is (not-any? #{"UNKNOWN"} (vals (first (:fast r)))) (:name r)))
    (testing "each path decides some levels with open orders"
      (doseq [k [":topological-order" ":time-order" ":pruning"]]
        (is (pos? (get by k 0)) (str k " " by))))))

(deftest the-first-level-decided-ahead-changes-nothing
  ;; The first level the search decides is decided on a thread of its own beside the
  ;; counterexamples of the cyclic families (Checker: search.decideAhead). The result, the
  ;; counterexamples and the statistics must be those of deciding it in place
  ;; (-Disocheck.search.ahead=false, a test-only switch), but for :decided-ahead and the times;
  ;; and no thread of it outlives the check.
  (let [strip (fn [m] (walk/postwalk #(if (map? %) (into {} (remove (fn [[k _]] (re-find #"-ms$|^:decided-ahead$" (str k))) %)) %)
                                     m))
        ahead (atom {})
        run (fn [^History hist ahead?]
              (when-not ahead? (System/setProperty "isocheck.search.ahead" "false"))
              (try
                (let [d (j/->clj (.toData (Checker/check hist (tu/unbounded (doto (CheckOptions.) (.levels levels))))))
                      st (get-in d [:stats :search])]
                  (doseq [[l m] st :when (:decided-ahead m)] (swap! ahead update (name l) (fnil inc 0)))
                  [(dissoc d :stats) (strip st)])
                (finally (System/clearProperty "isocheck.search.ahead"))))]
    (doseq [store (Store/values)
            bug (cons nil (seq (Bug/values)))
            :when (or (nil? bug) (.contains (.stores ^Bug bug) store))
            [seed txns sessions keys ops] [[2 300 6 10 4] [3 1200 10 40 4]]]
      (let [hist (sim-history store bug seed txns sessions keys ops)
            [r1 s1] (run hist true)
            [r0 s0] (run hist false)]
        (is (= r1 r0) (str store " " bug " seed " seed))
        (is (= s1 s0) (str store " " bug " seed " seed))))
    (testing "levels were decided ahead, among them ones the counterexamples ran beside"
      (is (pos? (get @ahead "strict-serializable" 0)) (pr-str @ahead))
      (is (pos? (get @ahead "strong-snapshot-isolation" 0)) (pr-str @ahead)))
    (testing "no search thread outlives its check"
      (is (not-any? #(= "isocheck-search" (.getName ^Thread %)) (.keySet (Thread/getAllStackTraces)))))))

;; ------------------------------------------------------------------ literal patterns

(defn- search-stats
  "The search statistics of level l in result r; for a realtime level decided as its
  counterpart (no invocations: no realtime order), the counterpart's."
  [r l]
  (let [m (get-in r [:stats :search l])]
    (if (= :same-without-realtime (:decided-by m)) (:same-as-search m) m)))

(deftest two-never-read-appends-that-snapshot-isolation-can-order
  ;; T0 and T1 write-skew on a and b (serializability fails), and T0 and T2 both append
  ;; to k, which nobody reads. Snapshot isolation needs one of them to commit before the
  ;; other begins: T0 then T2 works.
  (let [hist (h (ok 0 [[:r :a []] [:append :b 1] [:append :k 1]])
                (ok 1 [[:r :b []] [:append :a 1]])
                (ok 2 [[:append :k 2]]))
        r (check hist ot/levels)]
    (is (= {:strict-serializable false, :strong-session-serializable false, :serializable false,
            :strong-snapshot-isolation true, :strong-session-snapshot-isolation true, :gsi true, :snapshot-isolation true,
            :repeatable-read false, :read-committed true, :read-uncommitted true}
           (into {} (for [l ot/levels] [l (verdict r l)]))))
    (is (= (into {} (for [[l v] (ot/oracle hist)] [l (:valid? v)]))
           (into {} (for [l ot/levels] [l (verdict r l)]))))
    (let [m (search-stats r :strong-snapshot-isolation)]
      (is (= 1 (:constraints m)))
      (is (contains? #{:time-order :pruning :solver} (:decided-by m)) (pr-str m)))
    (is (= :implied (get-in r [:stats :search :snapshot-isolation :decided-by])))))

(deftest two-never-read-appends-that-no-order-fits
  ;; A write skew (T0 and T1 each miss the other's write) where both also append to k, and
  ;; nobody reads k. Whichever append came first, that writer committed before the other
  ;; began, and the other's missed write closes a cycle.
  (let [r (check (h (ok 0 [[:r :a []] [:append :b 1] [:append :k 1]])
                    (ok 1 [[:r :b []] [:append :a 1] [:append :k 2]])))
        c (get-in r [:counterexamples :G-single-item])]
    (is (false? (verdict r :snapshot-isolation)))
    (is (= #{0 1} (cx-indices r :G-single-item)))
    (is (= :pruning (get-in r [:stats :search :snapshot-isolation :decided-by])))
    (testing "both orders, each a cycle explained step by step"
      (is (str/includes? (:explanation c) "no read observed either append"))
      (is (str/includes? (:explanation c) "If T0's append came first:"))
      (is (str/includes? (:explanation c) "If T1's came first instead:"))
      (is (= 2 (count (re-seq #"So T\d+ < T\d+ < T\d+" (:explanation c)))))
      (is (some :hypothetical (:steps c)))
      (is (some :hypothetical (:steps (:alternative c))))
      (is (= #{0 1} (set (map :index (:unordered c))))))))

(def ^:private four-way
  "T0 and T1 append to X, T2 and T3 to Y; nobody reads X or Y. Each of T0, T1 missed the
  appends of T2 and T3 (to y1, y2) and each of T2, T3 missed those of T0 and T1 (x1, x2): all
  four overlap, so neither pair of writers can be ordered. No single order is refuted by the
  known graph alone (pruning decides nothing): the solver refutes them."
  (h (ok 1 [[:r :y1 []] [:r :y2 []] [:append :X 10] [:append :x1 11]])
     (ok 2 [[:r :y1 []] [:r :y2 []] [:append :X 20] [:append :x2 21]])
     (ok 3 [[:r :x1 []] [:r :x2 []] [:append :Y 30] [:append :y1 31]])
     (ok 4 [[:r :x1 []] [:r :x2 []] [:append :Y 40] [:append :y2 41]])))

(deftest never-read-appends-refuted-by-the-solver
  (let [r (check four-way ot/levels)
        m (search-stats r :strong-snapshot-isolation)]
    (is (= (into {} (for [[l v] (ot/oracle four-way)] [l (:valid? v)]))
           (into {} (for [l ot/levels] [l (verdict r l)]))))
    (is (false? (verdict r :snapshot-isolation)))
    (is (= 2 (:constraints m)))
    (is (= 0 (:pruned m)))
    (is (= :solver (:decided-by m)))
    (testing "the refutation reads as a pair of writers whose two orders each close a cycle"
      (let [[t c] (first (filter #(get-in (val %) [:alternative]) (:counterexamples r)))]
        (is (some? c) (pr-str (keys (:counterexamples r))))
        (is (str/includes? (:explanation c) "both appended to key"))
        (is (str/includes? (:explanation c) "came first instead:"))
        ;; Either pair may be the one refuted (the history is symmetric in them).
        (is (contains? #{#{0 1} #{2 3}} (set (map :index (:unordered c)))))))))

(defn- chain
  "m pairs (u_i, v_i) of never-read appenders of key K_i: u_0 missed v_0's append (so v_0 did
  not commit before u_0 began: u_0 first), u_(i+1) missed u_i's, v_i missed v_(i+1)'s. So u_i
  first forces u_(i+1) first: each order is forced by the one before. A write skew on S1, S2
  breaks serializability, so snapshot isolation needs a search. v_i complete before u_i, so
  the history's own time suggests the wrong order everywhere."
  [m]
  (let [kw (fn [& xs] (keyword (apply str xs)))
        u (fn [i] (ok (* 2 i) (vec (concat (if (zero? i) [[:r :A []]] [[:r (kw "U" (dec i)) []]])
                                           [[:append (kw "K" i) (+ 100 (* 10 i))] [:append (kw "U" i) (+ 101 (* 10 i))]]))))
        v (fn [i] (ok (inc (* 2 i)) (vec (concat (when (< i (dec m)) [[:r (kw "V" (inc i)) []]])
                                                 [[:append (kw "K" i) (+ 102 (* 10 i))]]
                                                 (when (zero? i) [[:append :A 5]])
                                                 [[:append (kw "V" i) (+ 103 (* 10 i))]]))))]
    (apply h (concat [(ok 900 [[:r :S1 []] [:append :S2 1]]) (ok 901 [[:r :S2 []] [:append :S1 1]])]
                     (mapcat (fn [i] [(v i) (u i)]) (range m))))))

(deftest a-chain-of-forced-orders-the-old-budgeted-search-left-unknown
  ;; The backtracking search this engine replaced (UnreadOrder, with its default budget of
  ;; 2*10^8 steps) forced one pair per pass over the graph and answered :unknown at 8,000
  ;; pairs (after 20 s). The solver follows the chain by propagation.
  (testing "the shape, small, against the oracle"
    (let [hist (chain 5)
          r (check hist ot/levels)]
      (is (= (into {} (for [[l v] (ot/oracle hist)] [l (:valid? v)]))
             (into {} (for [l ot/levels] [l (verdict r l)]))))
      (is (true? (verdict r :snapshot-isolation)))))
  (testing "8,000 chained pairs"
    (let [r (check (chain 8000) [:snapshot-isolation])
          m0 (get-in r [:stats :search :snapshot-isolation])
          ;; Decided through strong-session SI (which implies it) when that holds: its search.
          m (if (= :implied (:decided-by m0)) (:implied-by-search m0) m0)]
      (is (true? (verdict r :snapshot-isolation)))
      (is (= 8000 (:constraints m)))
      (is (= :solver (:decided-by m)) (pr-str m)))))
