(ns isocheck.weak-test
  "Weak isolation (Plume, OOPSLA'24): one literal history per TAP (Fig. 3,
  built from the definitions in seeds-weak §3.4/§5.4), asserting exactly which
  TAP is reported and which of :rc :ra :tcc :ci fail; the paper's worked
  examples; the pitfalls the papers and their tools fell into; and property
  tests on the simulated stores."
  (:require [clojure.string :as str]
            [clojure.test :refer [deftest is testing]]
            [isocheck.core :as iso]
            [isocheck.jepsen :as j]
            [isocheck.test-util :as tu :refer [h ok fail info invoke]])
  (:import (isocheck.check Checker CheckOptions Level Verdict$Value)
           (isocheck.history History$Workload)
           (isocheck.sim Bug SimConfig SimConfig$KeyDist Simulator Store)))

(def weak [:rc :ra :tcc :ci])

(defn check
  ([hist] (check hist {}))
  ([hist opts] (iso/check (iso/checker (merge {:levels weak} opts)) hist)))

(defn verdicts [r] (into {} (map (fn [[l v]] [l (:valid? v)])) (:levels r)))

(defn types [r] (set (:anomaly-types r)))

(defn fails
  "The levels that fail, as a set."
  [r]
  (set (keep (fn [[l v]] (when (false? v) l)) (verdicts r))))

;; The same history in Plume's text notation: each txn is [process mops].
(defn hist [& txns] (apply h (map (fn [[p mops]] (ok p mops)) txns)))

(defmacro tap-case
  "A literal history that must show exactly `tap` and fail exactly `failing`."
  [name doc tap failing & txns]
  `(deftest ~name
     (let [r# (check (hist ~@txns))]
       (is (= #{~tap} (types r#)) ~doc)
       (is (= ~failing (fails r#)) ~doc)
       (is (str/includes? (get-in r# [:counterexamples ~tap :dot]) "digraph"))
       (is (not (str/blank? (get-in r# [:counterexamples ~tap :explanation])))))))

;; ------------------------------------------------------------------ the 14 TAPs (Plume Fig. 3)

(tap-case a-thin-air-read "r(1,1) with no writer: no history (Plume Def. 2), so not even CI" :ThinAirRead #{:rc :ra :tcc :ci}
  [0 [[:r 1 1] [:r 2 1]]])

(deftest b-aborted-read
  (let [r (check (h (fail 0 [[:w 1 1] [:w 2 1]]) (ok 1 [[:r 1 1]])))]
    (is (= #{:AbortedRead} (types r)))
    (is (= #{:rc :ra :tcc} (fails r)))))

(tap-case c-future-read "reads its own later write" :FutureRead #{:rc :ra :tcc}
  [0 [[:r 1 1] [:w 1 1]]])

(tap-case d-not-my-own-write "own write, then another's value" :NotMyOwnWrite #{:rc :ra :tcc}
  [0 [[:w 1 1]]] [1 [[:w 1 2] [:r 1 1]]])

(tap-case e-not-my-last-write "reads its first own write after its second" :NotMyLastWrite #{:rc :ra :tcc}
  [0 [[:w 1 1] [:w 1 2] [:r 1 1]]])

(tap-case f-intermediate-read "reads a value its writer overwrote" :IntermediateRead #{:rc :ra :tcc}
  [0 [[:w 1 1] [:w 1 2]]] [1 [[:r 1 1]]])

(deftest long-transactions-show-the-same-taps-as-short-ones
  ;; A transaction of up to 48 micro-ops finds its own earlier write of a key by scanning
  ;; itself; a longer one through a per-key array. Padded past that with writes of other keys,
  ;; the same transactions must show the same TAPs (d, e, c), once each, and a read of its own
  ;; write after a read of it none.
  (doseq [pad [0 20 47 48 60 200]]
    (let [ws (fn [k0] (vec (for [i (range pad)] [:w (+ k0 i) 1])))
          r (check (hist [0 [[:w 1 1]]]
                         [1 (into (ws 100) [[:w 1 2] [:r 1 1]])]
                         [2 (into (ws 1000) [[:w 2 1] [:w 2 2] [:r 2 1] [:r 3 7] [:w 3 7] [:w 4 1] [:r 4 1] [:r 4 1]])]))
          taps (:anomalies r)]
      (is (= #{:NotMyOwnWrite :NotMyLastWrite :FutureRead} (types r)) (str pad " " (pr-str (types r))))
      (is (= #{:rc :ra :tcc} (fails r)) (str pad))
      (doseq [t [:NotMyOwnWrite :NotMyLastWrite :FutureRead]]
        (is (= 1 (count (get taps t))) (str pad " " t " " (pr-str (get taps t))))))))

(tap-case g-cyclic-co "session order and reads-from form a cycle" :CyclicCO #{:rc :ra :tcc}
  [0 [[:r 1 1] [:w 2 1]]] [1 [[:r 2 1]]] [1 [[:w 1 1]]])

(deftest g-cyclic-co-names-each-read
  ;; Each reads-from step names the read that made it, and a register's write is a write.
  (doseq [[wl hh] [[:wr (hist [0 [[:r 1 1] [:w 2 1]]] [1 [[:r 2 1]]] [1 [[:w 1 1]]])]
                   [:append (hist [0 [[:append 1 1] [:r 2 [2]]]] [1 [[:append 2 2] [:r 1 [1]]]])]]]
    (let [ex (get-in (check hh) [:counterexamples :CyclicCO :explanation])]
      (is (not (str/includes? ex "?")) ex)
      (is (str/includes? ex (if (= wl :wr) "read [:r 2 1] from" "read [:r 1 [1]] from")) ex)
      (when (= wl :wr) (is (not (str/includes? ex "append")) ex)))))

(tap-case h-non-mono-read-co "reads y from t2, then x from t1, with t1 -so-> t2 both writing x"
  :NonMonoReadCO #{:rc :ra :tcc}
  [0 [[:w 1 1]]] [0 [[:w 1 2] [:w 2 1]]] [1 [[:r 2 1] [:r 1 1]]])

(tap-case i-non-mono-read-cm "two readers force opposite commit orders, each by MonoAtomicView"
  :NonMonoReadCM #{:rc :ra :tcc}
  [0 [[:w :x 1] [:w :z 1]]] [1 [[:w :x 2] [:w :y 2]]] [2 [[:r :y 2] [:r :x 1]]] [3 [[:r :z 1] [:r :x 2]]])

(deftest i-and-l-together
  ;; When t1 and t2 both write both keys, each reader also forces a
  ;; ReadAtomic-only edge (its later read's writer before its earlier one's),
  ;; so FracturedReadCM is present too; finding all anomalies reports both.
  (let [r (check (hist [0 [[:w 1 1] [:w 2 1]]] [1 [[:w 1 2] [:w 2 2]]] [2 [[:r 2 2] [:r 1 1]]] [3 [[:r 2 1] [:r 1 2]]]))]
    (is (= #{:NonMonoReadCM :FracturedReadCM} (types r)))
    (is (= #{:rc :ra :tcc} (fails r)))))

(tap-case j-non-repeatable-read "one key read from two other transactions" :NonRepeatableRead #{:ra :tcc :ci}
  [0 [[:w 1 1]]] [1 [[:w 1 2]]] [2 [[:r 1 1] [:r 1 2]]])

(tap-case k-fractured-read-co "C4's h: reads x from t1 after t1 -co-> t2, having read y from t2 first"
  :FracturedReadCO #{:ra :tcc}
  [0 [[:w 1 2]]] [1 [[:r 1 2]]] [1 [[:w 1 1] [:w 2 1]]] [2 [[:r 1 2] [:r 2 1]]])

(tap-case l-fractured-read-cm "C4's 'tap-i': RC-valid (its cycle needs a ReadAtomic edge), RA-invalid"
  :FracturedReadCM #{:ra :tcc}
  [0 [[:w 1 1] [:w 2 1]]] [1 [[:w 1 2] [:w 2 2]]] [2 [[:r 1 1] [:r 2 2]]])

(tap-case m-co-conflict-cm "C4's k: t1 -co-> t2 -co-> t3, t3 reads x from t1" :COConflictCM #{:tcc}
  [0 [[:w 1 2]]] [1 [[:r 1 2]]] [1 [[:w 1 1] [:w 2 1]]] [2 [[:r 2 1]]] [2 [[:r 1 2]]])

(tap-case n-conflict-cm "t1 -cm-> t2 -co-> t3 without a causal chain" :ConflictCM #{:tcc}
  [0 [[:w 1 1] [:w 2 1]]] [1 [[:r 2 1] [:r 1 2]]] [2 [[:w 1 2] [:w 3 1]]] [3 [[:r 3 1]]] [3 [[:r 1 1]]])

;; ------------------------------------------------------------------ pitfalls and the paper's examples

(deftest per-level-commit-order-c4-tap-i
  ;; Pitfall 1: with TCC's forced edges filtered by label, this single reader
  ;; is labelled NonMonoReadCM (an RC TAP) and RC is wrongly rejected. Its
  ;; cycle needs one MonoAtomicView edge and one ReadAtomic-only edge.
  (let [r (check (hist [0 [[:w 1 1] [:w 2 1]]] [1 [[:w 1 2] [:w 2 2]]] [2 [[:r 1 1] [:r 2 2]]]))]
    (is (true? (get-in r [:levels :rc :valid?])))
    (is (false? (get-in r [:levels :ra :valid?])))
    (is (not (contains? (types r) :NonMonoReadCM)))))

(deftest fractured-read-session-case-not-adjacent
  ;; Pitfall 2: t2 is two transactions back in t3's session, not the adjacent
  ;; one. Plume's artifact only follows a direct SO edge and misses RA here.
  (let [r (check (hist [0 [[:w 1 1]]]
                       [1 [[:r 1 1] [:w 1 2]]]
                       [1 [[:w 9 9]]]
                       [1 [[:r 1 1]]]))]
    (is (= #{:ra :tcc} (fails r)))
    (is (= #{:FracturedReadCO} (types r)))
    (is (= [0 1 3] (sort (map :index (get-in r [:counterexamples :FracturedReadCO :ops]))))
        "t1, t2 and t3; not the transaction between t2 and t3")))

(deftest non-monotonic-read-of-a-non-initial-value
  ;; Pitfall 3: Plume's RC mode skips the commit-order phase, so it only finds
  ;; non-monotonic reads of initial values. Here t1 wrote x = 1, not ⊥.
  (let [r (check (hist [0 [[:w :x 1]]]
                       [1 [[:r :x 1] [:w :x 2] [:w :y 2]]]
                       [2 [[:r :y 2] [:r :x 1]]]))]
    (is (contains? (fails r) :rc))
    (is (contains? (types r) :NonMonoReadCO))))

(deftest non-monotonic-read-of-the-initial-value
  (let [r (check (hist [0 [[:w :x 1] [:w :y 1]]] [1 [[:r :y 1] [:r :x nil]]]))]
    (is (= #{:rc :ra :tcc} (fails r)))
    (is (= #{:NonMonoReadCO} (types r)))
    (is (str/includes? (get-in r [:counterexamples :NonMonoReadCO :explanation]) "initial state"))))

(deftest causal-order-is-frozen-before-commit-order
  ;; Pitfall 4: T2 and T3 are concurrent (no causal path), but forced edges
  ;; put T2 before T3 in commit order. Deriving TCC's premise "t2 -co-> t3"
  ;; from commit order instead of the frozen causal clocks would force T2
  ;; before T1 here and report a cycle that does not exist.
  (let [r (check (hist [0 [[:w :x 1]]]             ; T1
                       [1 [[:w :x 2] [:w :y 2]]]   ; T2
                       [2 [[:r :y 2] [:r :z nil]]] ; observes T2
                       [3 [[:w :z 3]]]             ; T3, concurrent with T2
                       [4 [[:r :x 1]]]))]          ; reads x from T1
    (is (= #{} (fails r)) (str (:anomaly-types r)))))

(deftest plume-figure-4-two-taps-in-one-history
  ;; Fig. 4: t4 -wr(y)-> t3 and t2 -wr(x)-> t3 with t2, t4 both writing x
  ;; (ReadAtomic: t4 before t2); t2 -so-> t3 -wr(z)-> t5 and t4 -wr(x)-> t5
  ;; (Causal: t2 before t4): TAP-n; and t4 -wr(x)-> t1 -so-> t2, t2 -wr(y)-> t5
  ;; gives TAP-k.
  (let [r (check (hist [0 [[:r :x 4]]]                      ; t1
                       [0 [[:w :x 2] [:w :y 2]]]            ; t2
                       [0 [[:r :y 4] [:r :x 2] [:w :z 3]]]  ; t3
                       [1 [[:w :x 4] [:w :y 4]]]            ; t4
                       [2 [[:r :z 3] [:r :x 4] [:r :y 2]]]))] ; t5
    (is (contains? (fails r) :tcc))
    (is (contains? (fails r) :ra))))

(deftest plume-figure-5-a-long-causal-chain
  ;; Fig. 5's shape: session 1 holds t1..t100, session 2 holds t101, t102, and t102 -wr-> t3.
  ;; So t101 -co-> t100 through 98 session edges (Plume's example of early-stopping vector
  ;; updates; our clocks are built once, in topological order). t101 read z from t1 and wrote
  ;; z again: if t100 still reads t1's z, TCC forces t101 before t1 in commit order, against
  ;; causal order; RA and RC hold, as t100 neither observed t101 nor follows it in session order.
  (let [fig5 (fn [z100]
               (apply hist (concat [[0 [[:w :z 1]]]                      ; t1
                                    [1 [[:r :z 1] [:w :z 2]]]            ; t101
                                    [1 [[:w :x 1]]]                      ; t102
                                    [0 [[:r :q nil]]]                    ; t2
                                    [0 [[:r :x 1]]]]                     ; t3
                                   (for [i (range 4 100)] [0 [[:w (keyword (str "k" i)) i]]])
                                   [[0 [[:r :z z100]]]])))]              ; t100
    (is (= #{} (fails (check (fig5 2)))))
    (let [r (check (fig5 1))]
      (is (= #{:tcc} (fails r)))
      (is (= #{:COConflictCM} (types r))))))

(deftest list-append-reads-from-last-element-and-sees-the-rest
  ;; Pitfall 11: t3 sees t1's append to x only inside a longer list (its last
  ;; element is t2's), and reads y without t1's write. Reading y first is a
  ;; fractured read (RA fails, RC holds); reading y after x is a non-monotonic
  ;; read (RC fails too). Last-element-only reads-from misses both.
  (let [r (check (h (ok 0 [[:append :x 1] [:append :y 1]])
                    (ok 1 [[:append :x 2]])
                    (ok 2 [[:r :y nil] [:r :x [1 2]]])))]
    (is (= #{:ra :tcc} (fails r)))
    (is (= #{:FracturedReadCO} (types r))))
  (let [r (check (h (ok 0 [[:append :x 1] [:append :y 1]])
                    (ok 1 [[:append :x 2]])
                    (ok 2 [[:r :x [1 2]] [:r :y nil]])))]
    (is (= #{:rc :ra :tcc} (fails r)))
    (is (= #{:NonMonoReadCO} (types r)))))

(deftest list-version-order-against-causal-order
  ;; Pitfall 12: a cycle made only of version order and causal order; the
  ;; artifact labels nothing and accepts. T1 reads y from T0, so T0 -co-> T1;
  ;; T2 reads x = [1]: T1's append, without T0's, which no read shows and so
  ;; must come after T1's. No forced edge is involved.
  (let [r (check (h (ok 0 [[:append :y 1] [:append :x 2]])   ; T0
                    (ok 1 [[:r :y [1]] [:append :x 1]])       ; T1
                    (ok 2 [[:r :x [1]]])))]                    ; T2
    (is (= #{:rc :ra :tcc} (fails r)))
    (is (= #{:CyclicVersionOrder} (types r)))))

(deftest list-session-misses-its-own-earlier-append
  ;; A committed append missing from a later read of the same session: under
  ;; list semantics it must come after the version read, contradicting RA.
  (let [r (check (h (ok 0 [[:append 1 1]]) (ok 1 [[:append 1 2]]) (ok 0 [[:r 1 [2]]]) (ok 1 [[:r 1 [2 1]]])))]
    (is (= #{:ra :tcc} (fails r)))))

(deftest list-intermediate-block
  ;; pitfall 14: a middle element followed by its own transaction's next
  ;; append is fine; a list ending in a non-final append is TAP f.
  (is (= #{} (fails (check (h (ok 0 [[:append :x 1] [:append :x 2]]) (ok 1 [[:r :x [1 2]]]))))))
  (let [r (check (h (ok 0 [[:append :x 1] [:append :x 2]]) (ok 1 [[:r :x [1]]])))]
    (is (= #{:IntermediateRead} (types r)))))

(deftest info-transaction-read-is-committed
  ;; Pitfall 9: the artifact drops :info, so reading its write is thin air.
  (let [r (check (h (invoke 0 [[:w :x 1]]) (info 0 [[:w :x 1]]) (ok 1 [[:r :x 1]])))]
    (is (= #{} (fails r)))))

(deftest tap-j-needs-two-other-transactions
  ;; Pitfall 15: own write then a foreign read is d, not j.
  (let [r (check (hist [0 [[:w 1 2]]] [1 [[:w 1 1] [:r 1 1] [:r 1 2]]]))]
    (is (= #{:NotMyOwnWrite} (types r)))
    (is (true? (get-in r [:levels :ci :valid?])))))

(deftest plume-list-tap-corpus
  ;; Plume's own 14 list-append TAP histories. Under list semantics two of
  ;; them show a different (still correct) pattern: tap-j's second read comes
  ;; after the reader's own append, so it is NotMyOwnWrite (pitfall 15); in
  ;; tap-l, each list misses the other transaction's append, so each key's
  ;; order contradicts the other's and RC already fails; tap-n's reads of key 1
  ;; ([2] and [1]) are not prefixes of one order.
  (let [expect {"a" :ThinAirRead "b" :AbortedRead "c" :FutureRead "d" :NotMyOwnWrite
                "e" :NotMyLastWrite "f" :IntermediateRead "g" :CyclicCO "h" :NonMonoReadCO
                "i" :NonMonoReadCM "j" :NotMyOwnWrite "k" :FracturedReadCO "l" :NonMonoReadCM
                "m" :COConflictCM "n" :incompatible-order}]
    (doseq [[t tap] expect]
      (let [[_ m] (iso/check-history {:levels weak}
                                     (isocheck.io.Formats/readHistory
                                       (str "test/resources/corpus/plume-taps/tap-" t ".edn") nil))]
        (is (contains? (set (:anomaly-types m)) tap) (str t " " (:anomaly-types m)))
        (is (false? (get-in m [:levels :tcc :valid?])) t)))))

;; The remaining pitfalls of seeds-weak §9 that a history can show.

(deftest a-reads-from-fact-implied-by-causal-order-still-counts
  ;; Pitfall 5: C4 keeps a WR edge only when reachability does not already imply it. T3's read
  ;; of x from T1 is implied (T1 -wr-> T2 -so-> T3), but it is the read that T2's later write
  ;; of x contradicts: dropping the fact would miss the fractured read.
  (let [r (check (hist [0 [[:w :x 1]]]              ; T1
                       [1 [[:r :x 1] [:w :x 2]]]    ; T2
                       [1 [[:r :x 1]]]))]           ; T3, after T2 in its session
    (is (= #{:ra :tcc} (fails r)))
    (is (= #{:FracturedReadCO} (types r)))))

(deftest initial-state-is-nil-not-zero
  ;; Pitfalls 6-7: positions start at 1 (0 is "knows nothing"), and t⊥ is explicit: a written 0
  ;; is an ordinary value (Plume's artifact took 0 for the initial state).
  (is (= #{} (fails (check (hist [0 [[:w :x 0]]] [1 [[:r :x 0]]] [2 [[:r :x nil]]])))))
  (let [r (check (hist [0 [[:w :x 0]]] [0 [[:r :x nil]]]))]
    (is (= #{:ra :tcc} (fails r)) "the session's own earlier write of 0 is not the initial state")))

(deftest values-are-unique-per-key-not-globally
  ;; Pitfall 8: Elle's values are unique per key; the same value on two keys is two writes. The
  ;; same value written twice to one key makes reads-from ambiguous: a clear error, no verdict.
  (is (= #{} (fails (check (hist [0 [[:w :x 1] [:w :y 1]]] [1 [[:r :x 1] [:r :y 1]]])))))
  (let [r (check (hist [0 [[:w :x 1]]] [1 [[:w :x 1]]] [2 [[:r :x 1]]]))]
    (is (= :unknown (:valid? r)))
    (is (re-find #"op \d" (str (:error r))) (str (:error r)))))

(deftest failed-transactions-reads-are-ignored
  ;; Pitfall 10: only a :fail transaction's writes matter (as aborted writes); its reads, even
  ;; of values nobody wrote, say nothing.
  (is (= #{} (fails (check (h (ok 0 [[:w :x 1]]) (fail 1 [[:r :x 7] [:r :y 3] [:w :y 4]]) (ok 2 [[:r :x 1] [:r :y nil]])))))))

(deftest list-sanity-checks-the-papers-omit
  ;; Pitfall 13: what Elle flags in lists and the papers do not mention.
  (testing "duplicate elements"
    (is (= #{:duplicate-elements} (types (check (h (ok 0 [[:append :x 1]]) (ok 1 [[:r :x [1 1]]])))))))
  (testing "an element nobody appended"
    (is (= #{:ThinAirRead} (types (check (h (ok 0 [[:append :x 1]]) (ok 1 [[:r :x [1 5]]])))))))
  (testing "reads that are not prefixes of one order"
    (is (= #{:incompatible-order}
           (types (check (h (ok 0 [[:append :x 1]]) (ok 1 [[:append :x 2]]) (ok 2 [[:r :x [1 2]]]) (ok 3 [[:r :x [2 1]]])))))))
  (testing "a transaction's appends reordered in a read"
    (is (contains? (fails (check (h (ok 0 [[:append :x 1] [:append :x 2]]) (ok 1 [[:r :x [2 1]]])))) :rc)))
  (testing "a read that does not end with the reader's own appends"
    (is (= #{:NotMyOwnWrite} (types (check (h (ok 0 [[:append :x 1] [:r :x []]]))))))))

(deftest a-key-with-many-appends-resolves-every-element
  ;; A read's elements are resolved among its key's appends, starting after the previous
  ;; element's and trying a few; past those, by the (key, value) index. Twenty appends to one
  ;; key, read in and out of the order they were made, far from the previous element.
  (let [appends (for [v (range 1 21)] (ok (mod v 5) [[:append :x v]]))
        run (fn [& reads] (check (apply h (concat appends (map-indexed (fn [i l] (ok (+ 10 i) [[:r :x l]])) reads)))))]
    (is (= #{} (fails (run (vec (range 1 21)) (vec (range 1 11)) [1 2]))))
    (is (= #{:incompatible-order} (types (run (vec (range 1 21)) (conj (vec (range 1 10)) 11 10)))))
    (is (= #{:incompatible-order} (types (run (vec (range 1 21)) (vec (range 20 0 -1))))))
    (is (= #{:incompatible-order} (types (run (vec (range 1 21)) [20 1]))))
    (is (= #{:ThinAirRead} (types (run (vec (range 1 21)) [1 2 3 4 5 99]))))
    (is (= #{:duplicate-elements} (types (run (vec (range 1 21)) [1 2 3 4 5 6 7 8 9 10 11 12 3])))))
  (testing "the incompatible read names the first element that differs"
    (let [r (check (apply h (concat (for [v (range 1 21)] (ok (mod v 5) [[:append :x v]]))
                                    [(ok 10 [[:r :x (vec (range 1 21))]]) (ok 11 [[:r :x [1 2 3 4 5 6 7 8 9 10 11 12 20]]])])))]
      (is (= #{:incompatible-order} (types r)))
      (is (str/includes? (str (get-in r [:counterexamples :incompatible-order :explanation])) "differ at position 13")))))

(deftest one-label-per-triangle
  ;; Pitfall 16: h ⊂ k ⊂ ... overlap. Here t3 observed t2 by a read of y before reading x from
  ;; t1 (h's premise) and t2 also precedes t3 in its session (k's premise): one instance, the
  ;; most specific label, h.
  (let [r (check (hist [1 [[:w :x 1] [:w :z 1]]]              ; t1
                       [0 [[:r :z 1] [:w :x 2] [:w :y 2]]]    ; t2, reads z from t1
                       [0 [[:r :y 2] [:r :x 1]]]))]           ; t3, after t2 in session 0
    (is (= #{:rc :ra :tcc} (fails r)))
    (is (= {:NonMonoReadCO 1} (:anomaly-counts r)))))

(deftest a-read-that-completes-before-its-writer
  ;; Pitfall 19: Jepsen records completions, so a reader can complete before the writer it read
  ;; from (the writer's acknowledgement was late). Id order is then not causal; the checker
  ;; takes the strongly-connected-components path and still decides correctly.
  (let [ops (fn [& xs] (vec (map-indexed (fn [i o] (assoc o :index i)) xs)))
        ok-late (ops (invoke 0 [[:w :x 1] [:w :y 1]]) (invoke 1 [[:r :x nil]]) (ok 1 [[:r :x 1]])
                     (ok 0 [[:w :x 1] [:w :y 1]]) (invoke 1 [[:r :y nil]]) (ok 1 [[:r :y 1]]))
        bad-late (ops (invoke 0 [[:w :x 1] [:w :y 1]]) (invoke 1 [[:r :x nil]]) (ok 1 [[:r :x 1]])
                      (ok 0 [[:w :x 1] [:w :y 1]]) (invoke 1 [[:r :y nil]]) (ok 1 [[:r :y nil]]))
        good (check ok-late), bad (check bad-late)]
    (is (= #{} (fails good)))
    (is (= :scc (get-in good [:stats :weak :co-order])))
    ;; Process 1 read x = 1, then y as initial, though the write of y came with x = 1: the write
    ;; is causally before the second read (through the first), which TCC forbids; RA holds, as
    ;; the second read neither observed that writer nor follows it in session order (TAP m).
    (is (= #{:tcc} (fails bad)))
    (is (= #{:COConflictCM} (types bad)))))

;; ------------------------------------------------------------------ windows of backward edges

(deftest only-the-windows-of-backward-edges-are-searched
  ;; A read that completed before its writer did puts a backward edge in id order; the cycles of
  ;; CO and of CO ∪ version order can only lie in the windows such edges span, so the SCC pass
  ;; packs the edges inside them alone: here one window of two transactions, the rest of the
  ;; history (forward edges only) is never built into a graph.
  (let [ops (fn [& xs] (vec (map-indexed (fn [i o] (assoc o :index i)) xs)))
        late (fn [last-read]
               (ops (invoke 0 [[:append :x 1] [:append :y 1]]) (invoke 1 [[:r :x nil]]) (ok 1 [[:r :x [1]]])
                    (ok 0 [[:append :x 1] [:append :y 1]])
                    (invoke 2 [[:append :z 1]]) (ok 2 [[:append :z 1]])
                    (invoke 3 [[:r :z nil]]) (ok 3 [[:r :z [1]]])
                    (invoke 1 [[:r :y nil]]) (ok 1 [[:r :y last-read]])))
        good (check (late [1]))
        bad (check (late []))]
    (is (= #{} (fails good)))
    (is (= :scc (get-in good [:stats :weak :co-order])))
    (is (= :version-order (get-in good [:stats :weak :tcc :decided-by])))
    (is (= 1 (get-in good [:stats :weak :tcc :windows])))
    (is (= 2 (get-in good [:stats :weak :tcc :window-transactions])))
    ;; Process 1 read x = [1], then y as empty though the append of y came with x: TCC fails (the
    ;; cycle closes through the window, by the forced edge), RA holds.
    (is (= #{:tcc} (fails bad)))
    (is (= #{:COConflictCM} (types bad)))))

;; ------------------------------------------------------------------ modes and clocks

(deftest stop-at-first-reports-less-and-agrees
  (let [hh (hist [0 [[:w 1 1] [:w 2 1]]] [1 [[:w 1 2] [:w 2 2]]] [2 [[:r 2 2] [:r 1 1]]] [3 [[:r 2 1] [:r 1 2]]])
        all (check hh)
        one (check hh {:stop-at-first? true})]
    (is (= (verdicts all) (verdicts one)))
    (is (<= (reduce + (vals (:anomaly-counts one))) (reduce + (vals (:anomaly-counts all)))))
    (is (<= (reduce + (vals (:anomaly-counts one))) 3) "at most one instance per level with a graph")))

(deftest tree-and-vector-clocks-agree
  (doseq [seed (range 40)]
    (let [sh (Simulator/history (-> (SimConfig/builder) (.seed (long seed)) (.store Store/SNAPSHOT_ISOLATION)
                                    (.workload (if (even? seed) History$Workload/APPEND History$Workload/REGISTER))
                                    (.txns 300) (.sessions (int (+ 2 (mod seed 9)))) (.keys 20) (.opsPerTxn 1 4)
                                    (.bug Bug/CAUSALITY_VIOLATION) (.bugRate 0.05) .build))
          run (fn [c] (let [o (doto (CheckOptions.) (.levels (mapv #(Level/parse (name %)) weak)))]
                        (set! (.clocks (.weak o)) c)
                        (let [r (Checker/check (.history sh) o)]
                          [(tu/verdict-strings r)
                           (into {} (.counts (.anomalies r)))])))]
      (is (= (run "vector") (run "tree")) (str "seed " seed)))))

(defn- crashing
  "A simulated history shaped like a Jepsen run under a nemesis: 10 worker threads, a fraction
  `info` of transactions ending :info (each retiring its process, the thread continuing as a new
  one), few keys so that causal order is dense."
  [store bug seed info & {:keys [txns] :or {txns 1500}}]
  (Simulator/history (cond-> (-> (SimConfig/builder) (.seed (long seed)) (.store store)
                                 (.workload (if (even? seed) History$Workload/APPEND History$Workload/REGISTER))
                                 (.txns (int txns)) (.sessions 10) (.keys 40) (.opsPerTxn 1 5)
                                 (.failRate 0.02) (.infoRate (double info)))
                       bug (-> (.bug bug) (.bugRate 0.02))
                       true .build)))

(defn- weak-run
  "Verdicts and anomaly counts (and weak stats) with chains merged across sessions or not."
  [^isocheck.history.History hh merge?]
  (let [o (doto (CheckOptions.) (.levels (mapv #(Level/parse (name %)) weak)))]
    (set! (.mergeChains (.weak o)) (boolean merge?))
    (let [r (Checker/check hh o)]
      [(tu/verdict-strings r)
       (into {} (.counts (.anomalies r)))
       (get (.stats r) "weak")])))

(deftest crashed-processes-chains-agree-with-one-chain-per-session
  ;; Jepsen's shape under faults (1% and 30% :info, a new process after each): clocks over merged
  ;; chains and over one chain per session must give the same verdicts and anomalies, a correct
  ;; store must pass every weak level, and each injected bug must be caught when it fired.
  (let [merged-fewer (atom 0), fired-count (atom {})]
    (doseq [info [0.01 0.3]
            [store bug failing] [[Store/SNAPSHOT_ISOLATION nil #{}]
                                 [Store/SNAPSHOT_ISOLATION Bug/CAUSALITY_VIOLATION #{"tcc"}]
                                 [Store/SNAPSHOT_ISOLATION Bug/FRACTURED_READ #{"tcc" "ra"}]]
            seed (range 6)]
      (let [sh (crashing store bug seed info)
            hh (.history sh)
            [v c stats :as merged] (weak-run hh true)
            [v1 c1 stats1] (weak-run hh false)
            fired (and bug (pos? (.bugFirings (.result sh))))
            what (str info " " bug " seed " seed)]
        (is (= [v c] [v1 c1]) what)
        (when (< (get stats "chains") (get stats1 "chains")) (swap! merged-fewer inc))
        (when fired (swap! fired-count update [info bug] (fnil inc 0)))
        (if fired
          (doseq [l failing] (is (= "FALSE" (v l)) what))
          (is (every? #{"TRUE"} (vals v)) what))))
    (is (< 20 @merged-fewer) "merging chains takes fewer chains than sessions")
    (doseq [info [0.01 0.3], bug [Bug/CAUSALITY_VIOLATION Bug/FRACTURED_READ]]
      (is (<= 4 (get @fired-count [info bug] 0)) (str bug " fired in most runs at " info)))))

(defn- run-weak
  "Verdicts, anomaly counts and weak stats of a History, with the id-order
  shortcut on or off."
  [^isocheck.history.History hh id-order?]
  (let [o (doto (CheckOptions.) (.levels (mapv #(Level/parse (name %)) weak)))]
    (set! (.idOrder (.weak o)) (boolean id-order?))
    (let [r (Checker/check hh o)]
      {:verdicts (tu/verdict-strings r)
       :counts   (into {} (.counts (.anomalies r)))
       :stats    (get (.stats r) "weak")})))

(deftest id-order-shortcut-agrees-with-scc
  ;; When transaction ids are a topological order of a level's graph we skip building it; the
  ;; SCC pass must give the same verdicts and anomalies on every history, and both paths must
  ;; occur (oracle-generator histories often read from later ids; simulated ones rarely).
  (let [hs (concat (for [seed (range 600)]
                     (j/->history (vec (.ops ^isocheck.oracle.HistoryGen$Gen (isocheck.oracle.WeakHistoryGen/generate seed))) nil))
                   (for [seed (range 60)
                         :let [bug (nth [nil Bug/CAUSALITY_VIOLATION Bug/FRACTURED_READ Bug/LOST_UPDATE] (mod seed 4))]]
                     (.history (Simulator/history
                                 (cond-> (-> (SimConfig/builder) (.seed (long seed)) (.store Store/SNAPSHOT_ISOLATION)
                                             (.workload (if (even? seed) History$Workload/APPEND History$Workload/REGISTER))
                                             (.txns 300) (.sessions 5) (.keys 20) (.opsPerTxn 1 4))
                                   bug (-> (.bug bug) (.bugRate 0.05))
                                   true .build)))))
        paths (atom {})]
    (doseq [[i hh] (map-indexed vector hs)]
      (let [fast (run-weak hh true), slow (run-weak hh false)]
        (is (= (dissoc fast :stats) (dissoc slow :stats)) (str "history " i))
        (swap! paths update (str (get (:stats fast) "co-order")) (fnil inc 0))
        (doseq [[_ m] (:stats fast) :when (and (instance? java.util.Map m) (get m "decided-by"))]
          (swap! paths update (str "level " (get m "decided-by")) (fnil inc 0)))))
    (is (< 50 (get @paths ":id-order" 0)) (pr-str @paths))
    (is (< 50 (get @paths ":scc" 0)) (pr-str @paths))
    (is (< 50 (get @paths "level :id-order" 0)) (pr-str @paths))
    (is (< 50 (get @paths "level :scc" 0)) (pr-str @paths))))

(deftest list-version-order-shortcut-agrees-with-forced-edges
  ;; On list-append, TCC holds without its forced edges when no read knows causally a writer
  ;; ranked after the one it read (and CO with the version order is acyclic). Turned off, the
  ;; forced edges decide: verdicts and anomalies must agree on every history, and both outcomes
  ;; of the shortcut must occur (taken, and sent to the forced edges, which find the cycle: a
  ;; known later writer t2 closes t1 →WW* t2 →CM t1).
  (let [hs (concat (for [seed (range 800)
                         :let [g ^isocheck.oracle.HistoryGen$Gen (isocheck.oracle.WeakHistoryGen/generate seed)
                               hh (j/->history (vec (.ops g)) nil)]
                         :when (= History$Workload/APPEND (.workload hh))]
                     hh)
                   (for [seed (range 80)
                         :let [bug (nth [nil Bug/CAUSALITY_VIOLATION Bug/FRACTURED_READ Bug/LOST_UPDATE] (mod seed 4))]]
                     (.history (Simulator/history
                                 (cond-> (-> (SimConfig/builder) (.seed (long seed)) (.store Store/SNAPSHOT_ISOLATION)
                                             (.workload History$Workload/APPEND)
                                             (.txns 300) (.sessions 5) (.keys 20) (.opsPerTxn 1 4)
                                             (.infoRate (if (odd? seed) 0.1 0.0)))
                                   bug (-> (.bug bug) (.bugRate 0.05))
                                   true .build)))))
        run (fn [hh shortcut? & [levels]]
              (let [o (doto (CheckOptions.) (.levels (mapv #(Level/parse (name %)) (or levels weak))))]
                (set! (.versionOrder (.weak o)) (boolean shortcut?))
                (let [r (Checker/check hh o)]
                  {:verdicts (tu/verdict-strings r)
                   :counts   (into {} (.counts (.anomalies r)))
                   :tcc      (str (get-in (into {} (.stats r)) ["weak" "tcc" "decided-by"]))})))
        taken (atom {})]
    (is (< 300 (count hs)))
    (doseq [[i hh] (map-indexed vector hs)]
      (let [fast (run hh true), slow (run hh false)]
        (is (= (dissoc fast :tcc) (dissoc slow :tcc)) (str "history " i))
        (is (not= ":version-order" (:tcc slow)))
        (swap! taken update [(:tcc fast) (get-in fast [:verdicts "tcc"])] (fnil inc 0))
        ;; RA or RC asked alone: TCC by the version order implies them.
        (when (zero? (mod i 3))
          (let [l (nth [:ra :rc] (mod i 2))]
            (is (= (:verdicts (run hh true [l])) (:verdicts (run hh false [l])) {(name l) (get-in fast [:verdicts (name l)])})
                (str "history " i " " l))))))
    (is (< 50 (get @taken [":version-order" "TRUE"] 0)) (pr-str @taken))
    (is (< 20 (get @taken [":scc" "FALSE"] 0)) (pr-str @taken))))

(deftest certificates-from-the-windows-of-backward-edges-verify
  ;; When TCC on list-append holds by the version order and id order is not a topological order
  ;; of CO ∪ version order, the certificate is id order with each window of backward edges in a
  ;; topological order of its own edges (no graph of the whole history). isocheck.verify, which
  ;; shares no code with the checker, must certify it for every level that holds, on both paths.
  (let [hs (for [seed (range 600)
                 :let [hh (j/->history (vec (.ops ^isocheck.oracle.HistoryGen$Gen (isocheck.oracle.WeakHistoryGen/generate seed))) nil)]
                 :when (= History$Workload/APPEND (.workload hh))]
             hh)
        windowed (atom 0)]
    (is (< 200 (count hs)))
    (doseq [[i hh] (map-indexed vector hs)
            id-order? [true false]]
      (let [o (doto (CheckOptions.) (.levels (mapv #(Level/parse (name %)) weak)))
            _ (set! (.idOrder (.weak o)) (boolean id-order?))
            r (Checker/check hh o)
            m (j/->clj (.toData r))
            out (isocheck.verify.Verify/verify hh (binding [*print-length* nil, *print-level* nil] (pr-str m)))
            tcc (get-in (into {} (.stats r)) ["weak" "tcc"])]
        (when (and tcc (= ":version-order" (str (get tcc "decided-by"))) (pos? (long (or (get tcc "windows") 0))))
          (swap! windowed inc))
        (is (= 0 (.status out)) (str "history " i " " id-order? ": " (str/join "\n" (.lines out))))
        (doseq [[l v] (:levels m)
                :when (and (true? (:valid? v)) (get-in m [:certificates l]))]
          (is (some #(and (.startsWith ^String % (str (name l) " ")) (str/includes? % " certified (")) (.lines out))
              (str "history " i " " id-order? " " l ": " (str/join "\n" (.lines out)))))))
    (is (< 20 @windowed) (str @windowed " histories certified from windows"))))

(deftest splitting-across-cores-changes-nothing
  ;; The scans run one range of readers per core and join the ranges in reader order: the
  ;; verdicts, anomaly counts and reported counterexamples must not depend on the split.
  (let [hs (concat (for [seed (range 200)]
                     (j/->history (vec (.ops ^isocheck.oracle.HistoryGen$Gen (isocheck.oracle.WeakHistoryGen/generate seed))) nil))
                   (for [seed (range 24)
                         :let [bug (nth [Bug/CAUSALITY_VIOLATION Bug/FRACTURED_READ Bug/LOST_UPDATE] (mod seed 3))]]
                     (.history (Simulator/history
                                 (-> (SimConfig/builder) (.seed (long seed)) (.store Store/SNAPSHOT_ISOLATION)
                                     (.workload (if (even? seed) History$Workload/APPEND History$Workload/REGISTER))
                                     (.txns 400) (.sessions 6) (.keys 30) (.opsPerTxn 1 5) (.bug bug) (.bugRate 0.05)
                                     .build)))))
        run (fn [hh cores]
              (System/setProperty "isocheck.weak.cores" (str cores))
              (try
                (let [o (doto (CheckOptions.) (.levels (mapv #(Level/parse (name %)) weak)))
                      m (isocheck.jepsen/->clj (.toData (Checker/check hh o)))]
                  (dissoc m :stats))
                (finally (System/clearProperty "isocheck.weak.cores"))))]
    (doseq [[i hh] (map-indexed vector hs)]
      (let [one (run hh 1)]
        (is (= one (run hh 3)) (str "history " i))
        (is (= one (run hh 2)) (str "history " i))))))

;; Jepsen starts a new process after every crash. Clocks indexed by process would need
;; transactions × processes entries; ours are indexed by chains of causal order.
(deftest one-process-per-transaction-is-decided
  ;; 50,000 transactions, each from its own process (as after many crashes): 2.5e9 entries by
  ;; process, more than one Java array holds. Nothing reads these writes, so causal order has
  ;; no edge and needs no chain at all.
  (let [n 50000
        r (check (vec (mapcat (fn [i] [{:index (* 2 i), :type :invoke, :process i, :f :txn, :value [[:w i i]]}
                                       {:index (inc (* 2 i)), :type :ok, :process i, :f :txn, :value [[:w i i]]}])
                              (range n))))]
    (doseq [l [:ci :rc :ra :tcc]] (is (true? (get-in r [:levels l :valid?])) (str l)))
    (is (= 0 (get-in r [:stats :weak :chains])))
    (is (= n (get-in r [:stats :weak :sessions])))))

(defn- crash-chain
  "A session of n transactions broken by crashes every `every` transactions, Jepsen style (the
  thread continues as process + 1000), each transaction reading the key its predecessor wrote and
  writing its own: one causal chain across 1 + n/every processes."
  [n every]
  (vec (mapcat (fn [i]
                 (let [p (+ 0 (* 1000 (quot i every)))
                       v (cond-> [[:w i i]] (pos? i) (->> (into [[:r (dec i) (dec i)]])))
                       crash? (= (dec every) (mod i every))]
                   [{:index (* 2 i) :type :invoke :process p :f :txn :value v}
                    {:index (inc (* 2 i)) :type (if crash? :info :ok) :process p :f :txn :value v}]))
               (range n))))

(deftest crashed-processes-continue-one-chain
  ;; Each crashed (:info) transaction was read by the next process's first transaction, so it
  ;; committed, and the whole run is one chain of causal order: 1 chain for 100 processes.
  (let [r (check (crash-chain 500 5))]
    (doseq [l [:rc :ra :tcc]] (is (true? (get-in r [:levels l :valid?])) (str l)))
    (is (= 100 (get-in r [:stats :weak :sessions])))
    (is (= 1 (get-in r [:stats :weak :chains]))))
  ;; A stale read 300 transactions down the chain, across 60 processes: the reader sees txn 400
  ;; (which causally follows txn 100) but reads key 100 as txn 0 wrote it, not txn 100. TCC must
  ;; see it; RA must not (the reader observed txn 100 only through causality).
  (let [h (crash-chain 500 5)
        h (-> h
              (assoc-in [0 :value] [[:w 0 0] [:w 100 -1]])
              (assoc-in [1 :value] [[:w 0 0] [:w 100 -1]])
              (into [{:index 1000 :type :invoke :process 5000 :f :txn :value [[:r 400 nil] [:r 100 nil]]}
                     {:index 1001 :type :ok :process 5000 :f :txn :value [[:r 400 400] [:r 100 -1]]}]))
        r (check h)]
    (is (false? (get-in r [:levels :tcc :valid?])))
    (is (true? (get-in r [:levels :ra :valid?])))
    (is (= #{:COConflictCM} (types r)))))

(deftest causal-order-too-wide-for-the-heap-is-unknown-not-a-crash
  ;; 2,000 unrelated writers, each read by one later transaction: causal order is 2,000 wide, so
  ;; its clocks need about 2,000²/2 entries. Under a budget of 100,000 entries the graph levels
  ;; answer :unknown with the reason; CI, which needs no clocks, is decided.
  (let [n 2000
        h (vec (concat (mapcat (fn [i] [{:index (* 2 i), :type :invoke, :process i, :f :txn, :value [[:w i i]]}
                                        {:index (inc (* 2 i)), :type :ok, :process i, :f :txn, :value [[:w i i]]}])
                               (range n))
                       (mapcat (fn [i] [{:index (+ (* 2 n) (* 2 i)), :type :invoke, :process (+ n i), :f :txn, :value [[:r i nil]]}
                                        {:index (+ (* 2 n) (* 2 i) 1), :type :ok, :process (+ n i), :f :txn, :value [[:r i i]]}])
                               (range n))))
        r (try (System/setProperty "isocheck.weak.clock-entries" "100000")
               (check h)
               (finally (System/clearProperty "isocheck.weak.clock-entries")))]
    (is (true? (get-in r [:levels :ci :valid?])))
    (doseq [l [:rc :ra :tcc]]
      (is (= :unknown (get-in r [:levels l :valid?])) (str l))
      (is (str/includes? (str (get-in r [:levels l :reason])) "too wide") (str l))
      (is (str/includes? (str (get-in r [:levels l :reason])) "raise -Xmx") (str l)))
    (is (= :unknown (:valid? r)))
    (testing "with the default budget it is decided"
      (is (true? (get-in (check h) [:levels :tcc :valid?]))))))

(deftest clocks-option-is-validated
  (is (thrown? IllegalArgumentException (iso/checker {:levels [:tcc] :clocks :sundial}))))

;; ------------------------------------------------------------------ simulated stores

(defn- sim [store bug seed & {:keys [workload txns sessions keys] :or {workload History$Workload/REGISTER txns 400 sessions 5 keys 10}}]
  (Simulator/history (cond-> (-> (SimConfig/builder) (.seed (long seed)) (.store store) (.workload workload)
                                 (.txns (int txns)) (.sessions (int sessions)) (.keys (int keys)) (.opsPerTxn 2 6))
                       bug (-> (.bug bug) (.bugRate 0.1))
                       true .build)))

(defn- weak-verdicts [sh]
  (let [r (Checker/check (.history sh) (.levels (CheckOptions.) (mapv #(Level/parse (name %)) weak)))]
    [r (into {} (map (fn [[l v]] [(keyword (str l)) (.value ^isocheck.check.Verdict v)])) (.levels r))]))

(deftest rc-store-passes-rc-and-its-fractured-reads-fail-ra
  (let [runs (for [seed (range 30)
                   wl [History$Workload/REGISTER History$Workload/APPEND]]
               (weak-verdicts (sim Store/READ_COMMITTED nil seed :workload wl)))
        ra-fails (filter (fn [[_ v]] (= Verdict$Value/FALSE (:ra v))) runs)]
    (is (every? (fn [[_ v]] (= Verdict$Value/TRUE (:rc v))) runs))
    (is (< 10 (count ra-fails)) "an RC store under concurrency produces fractured reads")
    (doseq [[r _] ra-fails]
      (is (every? #{"FracturedReadCO" "FracturedReadCM" "NonRepeatableRead" "COConflictCM" "ConflictCM"}
                  (.types (.anomalies ^isocheck.check.Result r)))
          "RA-only patterns, never an RC one"))))

(deftest causality-violation-fails-tcc-passes-ra
  (let [fired (atom 0)]
    (doseq [seed (range 30)]
      (let [sh (sim Store/SNAPSHOT_ISOLATION Bug/CAUSALITY_VIOLATION seed)
            [_ v] (weak-verdicts sh)]
        (is (= Verdict$Value/TRUE (:ra v)) (str seed))
        (when (pos? (.bugFirings (.result sh)))
          (swap! fired inc)
          (is (= Verdict$Value/FALSE (:tcc v)) (str seed)))))
    (is (< 5 @fired))))

(deftest lost-update-and-long-fork-pass-tcc
  (doseq [bug [Bug/LOST_UPDATE Bug/LONG_FORK]
          seed (range 20)
          wl [History$Workload/REGISTER History$Workload/APPEND]]
    (let [sh (sim Store/SNAPSHOT_ISOLATION bug seed :workload wl)
          [_ v] (weak-verdicts sh)]
      (is (= Verdict$Value/TRUE (:tcc v)) (str bug " " seed)))))

(deftest weak-levels-implied-by-a-strong-level-agree-with-the-weak-checker
  ;; When a level keeping session order holds (strict or strong-session serializable, strong or
  ;; strong-session SI), the weak levels are not checked: they hold. With that off the weak
  ;; checker must agree, verdicts and anomalies, on every history; and the shortcut must be taken.
  (let [all (mapv #(Level/parse (name %)) [:strict-serializable :strong-session-serializable :serializable
                                          :strong-snapshot-isolation :strong-session-snapshot-isolation
                                          :snapshot-isolation :tcc :ra :rc :ci])
        run (fn [hh implied?]
              (let [o (doto (CheckOptions.) (.levels all))]
                (set! (.weakImplied o) (boolean implied?))
                (let [r (Checker/check hh o)]
                  {:verdicts (tu/verdict-strings r)
                   :counts   (into {} (.counts (.anomalies r)))
                   :implied  (some-> (get-in (into {} (.stats r)) ["weak" "implied-by"]) str)})))
        hs (concat (for [seed (range 300)]
                     (j/->history (vec (.ops ^isocheck.oracle.HistoryGen$Gen (isocheck.oracle.WeakHistoryGen/generate seed))) nil))
                   (for [seed (range 48)
                         :let [store (nth [Store/STRICT_SERIALIZABLE Store/SERIALIZABLE Store/SNAPSHOT_ISOLATION Store/READ_COMMITTED] (mod seed 4))]]
                     (.history (Simulator/history
                                 (-> (SimConfig/builder) (.seed (long seed)) (.store store)
                                     (.workload (if (even? (quot seed 4)) History$Workload/APPEND History$Workload/REGISTER))
                                     (.txns 300) (.sessions 5) (.keys 30) (.opsPerTxn 1 4) (.infoRate 0.05)
                                     .build)))))
        implied (atom {})]
    (doseq [[i hh] (map-indexed vector hs)]
      (let [on (run hh true), off (run hh false)]
        (is (= (dissoc on :implied) (dissoc off :implied)) (str "history " i))
        (when-let [by (:implied on)]
          (is (every? #{"TRUE"} (map (:verdicts off) ["tcc" "ra" "rc" "ci"])) (str "history " i " implied by " by))
          (swap! implied update by (fnil inc 0)))))
    (is (< 20 (reduce + (vals @implied))) (pr-str @implied))))
