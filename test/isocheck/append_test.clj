(ns isocheck.append-test
  "Known-answer tests for list-append histories: one tiny literal history per
  anomaly, asserting the anomaly type, the transactions of the counterexample,
  and the verdict of every level."
  (:require [clojure.test :refer [deftest is testing]]
            [clojure.string :as str]
            [isocheck.core :as iso]
            [isocheck.test-util :refer [h ok fail info invoke check verdict types
                                        cx-indices]]))

(def ser-levels [:strict-serializable :strong-session-serializable :serializable])
(def si-levels [:strong-snapshot-isolation :strong-session-snapshot-isolation
                :snapshot-isolation])
(def all-levels (into ser-levels si-levels))

(defn- verdicts [r] (into {} (map (fn [l] [l (verdict r l)]) all-levels)))

(defn- all= [v] (zipmap all-levels (repeat v)))

(deftest serial-history-holds
  (let [r (check (h (ok 0 [[:append :x 1] [:r :y nil]])
                    (ok 1 [[:r :x [1]] [:append :y 1]])
                    (ok 0 [[:r :x [1]] [:r :y [1]] [:append :x 2]])
                    (ok 1 [[:r :x [1 2]]])))]
    (is (= true (:valid? r)))
    (is (= (all= true) (verdicts r)))
    (is (empty? (:anomaly-types r)))
    (is (= 4 (get-in r [:stats :txns])))))

(deftest g0-write-cycle
  ;; T0 and T1 append to x and y in opposite orders.
  (let [r (check (h (ok 0 [[:append :x 1] [:append :y 1]])
                    (ok 1 [[:append :x 2] [:append :y 2]])
                    (ok 2 [[:r :x [1 2]] [:r :y [2 1]]])))]
    (is (contains? (types r) :G0))
    (is (= #{0 1} (cx-indices r :G0)))
    (is (= (all= false) (verdicts r)))
    ;; A G0 rules out Elle's read uncommitted (PL-1), the weakest level here. Plume's RC was
    ;; not checked, and a list-append G0's write-write steps come from the serializable/SI
    ;; reading of lists, so :not does not claim it (consistency-test) ...
    (is (= #{:read-uncommitted} (:not r)))
    (is (every? (set (:also-not r)) [:snapshot-isolation :read-committed :repeatable-read]))
    ;; ... but here the orders are read from other transactions' lists, so Plume's read
    ;; committed fails when it is checked: a cycle of version orders.
    (is (false? (get-in (iso/check (iso/checker {:levels [:rc]}) (h (ok 0 [[:append :x 1] [:append :y 1]])
                                                                   (ok 1 [[:append :x 2] [:append :y 2]])
                                                                   (ok 2 [[:r :x [1 2]] [:r :y [2 1]]])))
                        [:levels :rc :valid?])))
    (is (str/includes? (get-in r [:counterexamples :G0 :explanation])
                       "T0 appended 1 to key :x before T1 appended 2"))))

(deftest g1c-circular-information-flow
  (let [r (check (h (ok 0 [[:append :x 1] [:r :y [1]]])
                    (ok 1 [[:append :y 1] [:r :x [1]]])))]
    (is (= #{:G1c} (types r)))
    (is (= #{0 1} (cx-indices r :G1c)))
    (is (= (all= false) (verdicts r)))))

(deftest g-single-read-skew
  ;; T1 reads x before T0 and y after it.
  (let [r (check (h (ok 0 [[:append :x 1] [:append :y 1]])
                    (ok 1 [[:r :x []] [:r :y [1]]])
                    (ok 2 [[:r :x [1]]])))]
    (is (= #{:G-single-item} (types r)))
    (is (= #{0 1} (cx-indices r :G-single-item)))
    (is (= (all= false) (verdicts r)))
    (is (str/includes? (get-in r [:counterexamples :G-single-item :explanation])
                       "T1 read key :x as [], which does not include T0's append of 1"))))

(deftest g-nonadjacent-long-fork
  ;; Two independent writers; two readers see them in opposite orders.
  (let [r (check (h (ok 0 [[:append :x 1]])
                    (ok 1 [[:append :y 1]])
                    (ok 2 [[:r :x [1]] [:r :y []]])
                    (ok 3 [[:r :x []] [:r :y [1]]])))]
    (is (= #{:G-nonadjacent-item} (types r)))
    (is (= #{0 1 2 3} (cx-indices r :G-nonadjacent-item)))
    (is (= (all= false) (verdicts r)))
    (is (= 2 (count (filter #(= :rw (:type %))
                            (get-in r [:counterexamples :G-nonadjacent-item :steps])))))))

(deftest g2-write-skew-is-si-but-not-ser
  (let [r (check (h (ok 0 [[:r :x []] [:append :y 1]])
                    (ok 1 [[:r :y []] [:append :x 1]])
                    (ok 2 [[:r :x [1]] [:r :y [1]]])))]
    (is (= #{:G2-item} (types r)))
    (is (= #{0 1} (cx-indices r :G2-item)))
    (is (= (merge (all= true) (zipmap ser-levels (repeat false))) (verdicts r)))
    ;; Repeatable read (PL-2.99) is the weakest level a G2-item rules out.
    (is (= #{:repeatable-read} (:not r)))
    (is (contains? (set (:also-not r)) :serializable))))

(deftest lost-update-observed
  (let [r (check (h (ok 0 [[:append :x 1]])
                    (ok 1 [[:r :x [1]] [:append :x 2]])
                    (ok 2 [[:r :x [1]] [:append :x 3]])
                    (ok 3 [[:r :x [1 2 3]]])))]
    (is (= #{:lost-update :G-single-item} (types r)))
    (is (= #{1 2} (cx-indices r :lost-update)))
    (is (= (all= false) (verdicts r)))))

(deftest lost-update-never-read
  ;; Neither update is ever read: only the lost-update check can catch SI.
  (let [r (check (h (ok 0 [[:r :x []] [:append :x 1]])
                    (ok 1 [[:r :x []] [:append :x 2]])))]
    (is (contains? (types r) :lost-update))
    (is (= #{0 1} (cx-indices r :lost-update)))
    (is (= (all= false) (verdicts r)))))

(deftest never-read-appends-that-cannot-be-ordered
  ;; A write skew (T0 and T1 each miss the other's write) where both also
  ;; append to :k, and nobody reads :k. SI allows the write skew, but not two
  ;; concurrent writers of :k: whichever append came first closes a cycle.
  (let [r (check (h (ok 0 [[:r :a []] [:append :b 1] [:append :k 1]])
                    (ok 1 [[:r :b []] [:append :a 1] [:append :k 2]])))]
    (is (= (all= false) (verdicts r)))
    (is (contains? (types r) :G-single-item))
    (let [c (get-in r [:counterexamples :G-single-item])]
      (is (= #{0 1} (cx-indices r :G-single-item)))
      (is (some :hypothetical (:steps c)))
      (is (str/includes? (:explanation c) "no read observed either append")))))

(deftest never-read-appends-that-can-be-ordered
  (let [r (check (h (ok 0 [[:append :k 1] [:r :a []]])
                    (ok 1 [[:append :k 2] [:r :a []]])
                    (ok 2 [[:append :k 3]])))]
    (is (= (all= true) (verdicts r)))
    (is (= 1 (get-in r [:stats :keys-with-unordered-unread-appends])))))

(deftest process-order-variants
  ;; T1 follows T0 on process 0 but misses T0's append.
  (let [r (check (h (ok 0 [[:append :x 1]])
                    (ok 0 [[:r :x []]])
                    (ok 1 [[:r :x [1]]])))]
    (is (= #{:G-single-item-process} (types r)))
    (is (= {:strict-serializable false, :strong-session-serializable false,
            :serializable true, :strong-snapshot-isolation false,
            :strong-session-snapshot-isolation false, :snapshot-isolation true}
           (verdicts r)))
    (is (= #{:strong-session-snapshot-isolation} (:not r)))))

(deftest realtime-variants
  ;; T1 starts after T0 completed, yet misses T0's append: a stale read.
  (let [r (check (h (invoke 0 [[:append :x 1]])
                    (ok 0 [[:append :x 1]])
                    (invoke 1 [[:r :x nil]])
                    (ok 1 [[:r :x []]])
                    (invoke 2 [[:r :x nil]])
                    (ok 2 [[:r :x [1]]])))]
    (is (= #{:G-single-item-realtime} (types r)))
    (is (= #{1 3} (cx-indices r :G-single-item-realtime)))
    (is (= {:strict-serializable false, :strong-session-serializable true,
            :serializable true, :strong-snapshot-isolation false,
            :strong-session-snapshot-isolation true, :snapshot-isolation true}
           (verdicts r)))
    (is (str/includes? (get-in r [:counterexamples :G-single-item-realtime :explanation])
                       "T1 completed (op 1) before T3 was invoked (op 2)"))))

(deftest concurrent-ops-have-no-realtime-order
  ;; Same reads, but T1 was invoked before T0 completed: no violation.
  (let [r (check (h (invoke 0 [[:append :x 1]])
                    (invoke 1 [[:r :x nil]])
                    (ok 0 [[:append :x 1]])
                    (ok 1 [[:r :x []]])))]
    (is (= (all= true) (verdicts r)))))

(deftest g1c-process
  ;; T0 reads what T1, later on the same process, appends.
  (let [r (check (h (ok 0 [[:r :x [1]]])
                    (ok 0 [[:append :x 1]])))]
    (is (= #{:G1c-process} (types r)))
    (is (= false (verdict r :strong-session-serializable)))
    (is (= true (verdict r :serializable)))))

;; ---------------------------------------------------------------- pre-checks

(deftest internal-read-misses-own-append
  (let [r (check (h (ok 0 [[:append :x 1] [:r :x []]])))]
    (is (= #{:internal} (types r)))
    (is (= #{0} (cx-indices r :internal)))
    (is (= ['... 1] (get-in r [:counterexamples :internal :expected])))
    (is (= (all= false) (verdicts r)))))

(deftest internal-non-repeatable-read
  (let [r (check (h (ok 1 [[:append :x 2]])
                    (ok 0 [[:r :x []] [:r :x [2]]])))]
    (is (contains? (types r) :internal))
    (is (= [] (get-in r [:counterexamples :internal :expected])))))

(deftest future-read
  (let [r (check (h (ok 0 [[:r :x [1]] [:append :x 1]])))]
    (is (contains? (types r) :future-read))
    (is (= 1 (get-in r [:counterexamples :future-read :element])))
    (is (= (all= false) (verdicts r)))))

(deftest duplicate-elements
  (let [r (check (h (ok 0 [[:append :x 1]])
                    (ok 1 [[:r :x [1 1]]])))]
    (is (contains? (types r) :duplicate-elements))
    (is (= {1 2} (get-in r [:counterexamples :duplicate-elements :duplicates])))
    (is (= #{1} (cx-indices r :duplicate-elements)))))

(deftest g1a-aborted-read
  (let [r (check (h (fail 0 [[:append :x 1]])
                    (ok 1 [[:r :x [1]]])))]
    (is (= #{:G1a} (types r)))
    (is (= #{0 1} (cx-indices r :G1a)))
    (is (= (all= false) (verdicts r)))))

(deftest g1b-intermediate-read
  (let [r (check (h (ok 0 [[:append :x 1] [:append :x 2]])
                    (ok 1 [[:r :x [1]]])))]
    (is (contains? (types r) :G1b))
    (is (= #{0 1} (cx-indices r :G1b)))
    (is (= 1 (get-in r [:counterexamples :G1b :element])))))

(deftest dirty-update
  (let [r (check (h (fail 0 [[:append :x 1]])
                    (ok 1 [[:append :x 2]])
                    (ok 2 [[:r :x [1 2]]])))]
    (is (= #{:dirty-update :G1a} (types r)))
    (is (= #{0 1} (cx-indices r :dirty-update)))))

(deftest garbage-read
  (let [r (check (h (ok 0 [[:append :x 1]])
                    (ok 1 [[:r :x [1 9]]])))]
    (is (= #{:garbage-read} (types r)))
    (is (= 9 (get-in r [:counterexamples :garbage-read :element])))
    (is (= (all= false) (verdicts r)))))

(deftest incompatible-order
  (let [r (check (h (ok 0 [[:append :x 1]])
                    (ok 1 [[:append :x 2]])
                    (ok 2 [[:r :x [1 2]]])
                    (ok 3 [[:r :x [2 1]]])))]
    (is (contains? (types r) :incompatible-order))
    (is (= #{2 3} (cx-indices r :incompatible-order)))
    (is (= (all= false) (verdicts r)))))

;; ---------------------------------------------------------------- completion semantics

(deftest info-write-that-was-read-is-committed
  ;; T0 is indeterminate, but T1 read its append: it committed, and it takes
  ;; part in cycles (here with T2's append, read in the opposite order).
  (let [r (check (h (info 0 [[:append :x 1] [:append :y 1]])
                    (ok 1 [[:append :x 2] [:append :y 2]])
                    (ok 2 [[:r :x [1 2]] [:r :y [2 1]]])))]
    (is (= #{:G0} (types r)))
    (is (= #{0 1} (cx-indices r :G0)))))

(deftest info-write-never-read-may-have-aborted
  (let [r (check (h (info 0 [[:append :x 1]])
                    (ok 1 [[:r :x []]])
                    (ok 1 [[:r :x []]])))]
    (is (= (all= true) (verdicts r)))
    (is (= 1 (get-in r [:stats :info])))
    (is (= 2 (get-in r [:stats :committed])))))

(deftest info-reads-are-unknown
  ;; An :info op's reads tell us nothing, so a nonsense read there is no anomaly.
  (let [r (check (h (ok 0 [[:append :x 1]])
                    (info 1 [[:r :x [7 7 7]]])))]
    (is (= (all= true) (verdicts r)))))

(deftest failed-writes-are-never-visible
  (let [r (check (h (fail 0 [[:append :x 1]])
                    (ok 1 [[:r :x []]])))]
    (is (= (all= true) (verdicts r)))))

(deftest pending-invocation-is-indeterminate
  ;; Invoked, never completed, yet read: it committed.
  (let [r (check (h (invoke 0 [[:append :x 1]])
                    (invoke 1 [[:r :x nil]])
                    (ok 1 [[:r :x [1]]])))]
    (is (= (all= true) (verdicts r)))
    (is (= 1 (get-in r [:stats :info])))
    (is (= 2 (get-in r [:stats :committed])))))

(deftest nemesis-ops-are-skipped
  (let [r (check (h {:type :info, :f :start-partition, :process :nemesis,
                     :value [:isolated {"n1" #{"n2"}}]}
                    (ok 0 [[:append :x 1]])
                    (ok 1 [[:r :x [1]]])))]
    (is (= true (:valid? r)))
    (is (= 1 (get-in r [:stats :skipped-ops])))))

;; ---------------------------------------------------------------- on every core

(deftest splitting-the-analysis-across-cores-changes-nothing
  ;; The list-append analysis runs its passes on a range of transactions, keys or micro-ops per
  ;; core and joins them in order: with every pre-check anomaly several times over (each round
  ;; on keys of its own, between consistent transactions), and instances capped at 2 a type,
  ;; the verdicts, counts and kept counterexamples must not depend on the split.
  (let [round (fn [r]
                (let [k #(keyword (str (name %) r))
                      p (* 10 r)]
                  [(ok p [[:append (k :a) 1] [:r (k :a) []]])                       ; internal
                   (ok (+ p 1) [[:r (k :b) [1]] [:append (k :b) 1]])                 ; future-read
                   (ok p [[:append (k :c) 1]]) (ok (+ p 2) [[:r (k :c) [1 1]]])      ; duplicate-elements
                   (fail p [[:append (k :d) 1]]) (ok (+ p 3) [[:r (k :d) [1]]])      ; G1a
                   (ok p [[:append (k :e) 1] [:append (k :e) 2]]) (ok (+ p 4) [[:r (k :e) [1]]]) ; G1b
                   (fail p [[:append (k :f) 1]]) (ok (+ p 5) [[:append (k :f) 2]])
                   (ok (+ p 6) [[:r (k :f) [1 2]]])                                  ; dirty-update
                   (ok p [[:append (k :g) 1]]) (ok (+ p 7) [[:r (k :g) [1 9]]])      ; garbage-read
                   (ok p [[:append (k :h) 1]]) (ok (+ p 1) [[:append (k :h) 2]])
                   (ok (+ p 2) [[:r (k :h) [1 2]]]) (ok (+ p 3) [[:r (k :h) [2 1]]]) ; incompatible-order
                   (ok p [[:append (k :i) 1]]) (ok (+ p 1) [[:r (k :i) [1]] [:append (k :i) 2]])
                   (ok (+ p 2) [[:r (k :i) [1]] [:append (k :i) 3]]) (ok (+ p 3) [[:r (k :i) [1 2 3]]]) ; lost-update
                   (ok (+ p 8) [[:append (k :j) 1] [:r (k :y) []]])
                   (ok (+ p 9) [[:append (k :y) 1] [:r (k :j) []]])                  ; G2-item
                   (ok (+ p 4) [[:r (k :j) [1]] [:r (k :y) [1]] [:append (k :z) 1]])]))
        hist (apply h (mapcat round (range 6)))
        run (fn [cores]
              (System/setProperty "isocheck.weak.cores" (str cores))
              (try
                (dissoc (iso/check (iso/checker {:max-anomalies 2, :counterexample-time-limit 3600}) hist) :stats)
                (finally (System/clearProperty "isocheck.weak.cores"))))
        one (run 1)]
    (is (every? (set (:anomaly-types one))
                [:internal :future-read :duplicate-elements :G1a :G1b :dirty-update :garbage-read
                 :incompatible-order :lost-update])
        (pr-str (:anomaly-types one)))
    (is (= one (run 2)))
    (is (= one (run 3)))))
