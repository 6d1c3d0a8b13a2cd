(ns isocheck.mt-test
  "Mini-transactions (MTC, isocheck.check.mt): the linear-time checker of
  MTC Algorithm 1 on rw-register histories whose read-modify-writes fix each
  key's version order.

  - One literal MT history per anomaly of MTC Table I (Fig. 5 a-n), each
    decided on the fast path, named (:mtc) and with the verdicts its shape
    implies; Fig. 3's divergence (SER sees the two-RW cycle, SI reports the
    lost update through the Divergence check).
  - Detection: which histories and keys take the fast path and why
    ([:stats :mt]); :info transactions; keys left to the general search.
  - Cross-checks: on random small MT histories the fast path agrees with the
    general search (:mt? false) and with the brute-force register oracle
    (isocheck.oracle.RegisterOracle), at every level."
  (:require [clojure.string :as str]
            [clojure.test :refer [deftest is testing]]
            [isocheck.core :as iso]
            [isocheck.register-oracle-test :as ro]
            [isocheck.workload :as workload]
            [isocheck.test-util :refer [h ok fail info invoke check verdict types strong-levels]]))

(defn- verdicts [r] (into {} (map (fn [[l v]] [l (:valid? v)])) (:levels r)))

(def ^:private all-fail (zipmap strong-levels (repeat false)))
(def ^:private all-hold (zipmap strong-levels (repeat true)))
(def ^:private ser-fail-si-hold
  {:strict-serializable false, :strong-session-serializable false, :serializable false,
   :strong-snapshot-isolation true, :strong-session-snapshot-isolation true, :snapshot-isolation true})
(def ^:private session-fail
  {:strict-serializable false, :strong-session-serializable false, :serializable true,
   :strong-snapshot-isolation false, :strong-session-snapshot-isolation false, :snapshot-isolation true})

(defn- path [r] (get-in r [:stats :mt :path]))

(defn- general
  "The general search's result on the same history (the MT checker off)."
  [hist]
  (iso/check (iso/checker {:levels strong-levels, :mt? false}) hist))

(defn- table-i
  "Checks a literal MT history: on the fast path, the anomaly type t named
  mtc-name, the verdicts expected, and the same verdicts from the general
  search."
  [hist t mtc-name expected]
  (let [r (check hist)
        c (get-in r [:counterexamples t])]
    (is (= :fast (path r)) (str (get-in r [:stats :mt])))
    (is (contains? (types r) t) (str (types r)))
    (is (= mtc-name (:mtc c)))
    (is (str/includes? (:explanation c) (str "(" mtc-name " in MTC")) (:explanation c))
    (is (not (str/includes? (:explanation c) "Table I")) "the paper's name in parentheses, not its table")
    (is (string? (:dot c)))
    (is (= expected (verdicts r)))
    (is (= expected (verdicts (general hist))) "the general search agrees")
    r))

;; ------------------------------------------------------------------ Table I, Fig. 5 (a)-(n)

(deftest a-thin-air-read
  (table-i (h (ok 0 [[:r :x 5]])) :garbage-read "ThinAirRead" all-fail))

(deftest b-aborted-read
  (table-i (h (fail 0 [[:r :x nil] [:w :x 1]]) (ok 1 [[:r :x 1]])) :G1a "AbortedRead" all-fail))

(deftest c-future-read
  (table-i (h (ok 0 [[:r :x 1] [:w :x 1]])) :future-read "FutureRead" all-fail))

(deftest d-not-my-last-write
  (table-i (h (ok 0 [[:r :x nil] [:w :x 1] [:w :x 2] [:r :x 1]])) :internal "NotMyLastWrite" all-fail))

(deftest e-not-my-own-write
  (table-i (h (ok 0 [[:r :x nil] [:w :x 1] [:r :x nil]])) :internal "NotMyOwnWrite" all-fail))

(deftest f-intermediate-read
  (table-i (h (ok 0 [[:r :x nil] [:w :x 1] [:w :x 2]]) (ok 1 [[:r :x 1]])) :G1b "IntermediateRead" all-fail))

(deftest g-non-repeatable-reads
  (table-i (h (ok 0 [[:r :x nil] [:w :x 1]]) (ok 1 [[:r :x nil] [:r :x 1]])) :internal "NonRepeatableReads" all-fail))

(deftest h-session-guarantee-violation
  ;; T1 follows T0 on process 0 but reads the value T0 overwrote.
  (table-i (h (ok 0 [[:r :x nil] [:w :x 1]]) (ok 0 [[:r :x nil]]))
           :G-single-item-process "SessionGuaranteeViolation" session-fail))

(deftest i-non-monotonic-read
  ;; T2 reads y from T1, then x from T0, which T1 had overwritten: the newer value first.
  (let [r (table-i (h (ok 0 [[:r :x nil] [:w :x 1]])
                      (ok 1 [[:r :x 1] [:w :x 2] [:r :y nil] [:w :y 1]])
                      (ok 2 [[:r :y 1] [:r :x 1]]))
                   :G-single-item "NonMonotonicRead" all-fail)]
    (is (= #{1 2} (set (map :index (get-in r [:counterexamples :G-single-item :cycle])))))))

(deftest j-fractured-read
  ;; T0 updates x and y; T1 reads the old y, then T0's x.
  (table-i (h (ok 0 [[:r :x nil] [:r :y nil] [:w :x 1] [:w :y 1]]) (ok 1 [[:r :y nil] [:r :x 1]]))
           :G-single-item "FracturedRead" all-fail))

(deftest k-causality-violation
  ;; T2 sees T1's y but not T0's x, which T1 saw.
  (table-i (h (ok 0 [[:r :x nil] [:w :x 1]])
              (ok 1 [[:r :x 1] [:r :y nil] [:w :y 1]])
              (ok 2 [[:r :y 1] [:r :x nil]]))
           :G-single-item "CausalityViolation" all-fail))

(deftest l-long-fork
  (let [r (table-i (h (ok 0 [[:r :x nil] [:w :x 1]]) (ok 1 [[:r :y nil] [:w :y 1]])
                      (ok 2 [[:r :x 1] [:r :y nil]]) (ok 3 [[:r :x nil] [:r :y 1]]))
                   :G-nonadjacent-item "LongFork" all-fail)]
    (is (= 4 (count (get-in r [:counterexamples :G-nonadjacent-item :steps]))))))

(deftest m-lost-update
  (let [r (table-i (h (ok 0 [[:r :x nil] [:w :x 1]]) (ok 1 [[:r :x nil] [:w :x 2]]))
                   :lost-update "LostUpdate" all-fail)]
    (is (str/includes? (get-in r [:counterexamples :lost-update :explanation]) "a lost update (LostUpdate in MTC"))))

(deftest n-write-skew
  (let [r (table-i (h (ok 0 [[:r :x nil] [:r :y nil] [:w :x 1]]) (ok 1 [[:r :x nil] [:r :y nil] [:w :y 1]]))
                   :G2-item "WriteSkew" ser-fail-si-hold)]
    (is (= #{:G2-item} (types r)))))

(deftest fig-3-divergence
  ;; MTC Fig. 3 / Example 3: T2 and T3 both read T1's x and write it. The serializable levels
  ;; see the cycle T2 -rw-> T3 -rw-> T2; snapshot isolation allows two adjacent anti-dependencies,
  ;; so only the Divergence check (CheckSI line 2) rules it out.
  (let [r (check (h (ok 0 [[:r :x nil] [:w :x 1]]) (ok 1 [[:r :x 1] [:w :x 2]]) (ok 2 [[:r :x 1] [:w :x 3]])))]
    (is (= all-fail (verdicts r)))
    (is (= :fast (path r)))
    (is (= 1 (get-in r [:stats :mt :divergences])))
    (doseq [l [:serializable :strong-session-serializable :strict-serializable]]
      ;; in the severity order (isocheck.report.AnomalyOrder): a lost update before G2-item
      (is (= [:lost-update :G2-item] (get-in r [:levels l :anomaly-types])) (str l)))
    (doseq [l [:snapshot-isolation :strong-session-snapshot-isolation :strong-snapshot-isolation]]
      (is (= [:lost-update] (get-in r [:levels l :anomaly-types])) (str l " is violated by the divergence alone")))
    (let [c (get-in r [:counterexamples :G2-item])]
      (is (= [:rw :rw] (map :type (:steps c))))
      (is (= "LostUpdate" (:mtc c)) "the two-RW cycle of a divergence is the lost update, not a write skew"))
    (is (= #{1 2 0} (set (map :index (concat (get-in r [:counterexamples :lost-update :ops])
                                             [(get-in r [:counterexamples :lost-update :writer])])))))))

;; ------------------------------------------------------------------ what the fast path decides

(deftest read-modify-write-chains-hold
  ;; Each RMW reads the previous one's write: no transaction anti-depends on itself.
  (let [r (check (h (ok 0 [[:r :x nil] [:w :x 1]]) (ok 1 [[:r :x 1] [:r :y nil] [:w :x 2] [:w :y 1]])
                    (ok 2 [[:r :x 2] [:w :x 3]]) (ok 0 [[:r :y 1] [:r :x 3]])))]
    (is (= all-hold (verdicts r)))
    (is (= :fast (path r)))
    (is (= 4 (get-in r [:stats :mt :rmw-writes])))))

(deftest realtime-through-relays
  ;; T0 completes its RMW before T1 is invoked; T1 reads the initial value: only the realtime
  ;; levels forbid it.
  (let [r (check (h (invoke 0 [[:r :x nil] [:w :x 1]]) (ok 0 [[:r :x nil] [:w :x 1]])
                    (invoke 1 [[:r :x nil]]) (ok 1 [[:r :x nil]])))]
    (is (= :fast (path r)))
    (is (= {:strict-serializable false, :strong-session-serializable true, :serializable true
            :strong-snapshot-isolation false, :strong-session-snapshot-isolation true, :snapshot-isolation true}
           (verdicts r)))
    (is (= #{:G-single-item-realtime} (types r)))
    (is (nil? (get-in r [:counterexamples :G-single-item-realtime :mtc])) "Table I has no realtime anomaly")))

(deftest keys-written-once-are-ordered
  ;; A blind write is fine when it is its key's only chain: the initial state, then it.
  (let [r (check (h (ok 0 [[:w :x 1]]) (ok 1 [[:r :x 1] [:w :x 2]]) (ok 2 [[:r :x nil]])))]
    (is (= :fast (path r)))
    (is (= 1 (get-in r [:stats :mt :blind-writes])))
    (is (= all-hold (verdicts r)))))

(deftest info-transactions
  (testing "an :info read-modify-write nobody read is left out"
    (let [r (check (h (ok 0 [[:r :x nil] [:w :x 1]]) (info 1 [[:r :x nil] [:w :x 2]]) (ok 2 [[:r :x 1] [:w :x 3]])))]
      (is (= :fast (path r)))
      (is (= 1 (get-in r [:stats :mt :info-dropped])))
      (is (= all-hold (verdicts r)))))
  (testing "an :info write someone read committed; alone, it starts its key's order"
    (let [r (check (h (info 0 [[:r :x nil] [:w :x 1]]) (ok 1 [[:r :x 1] [:w :x 2]]) (ok 2 [[:r :x 2]])))]
      (is (= :fast (path r)))
      (is (= 1 (get-in r [:stats :mt :info-writes-read])))
      (is (= all-hold (verdicts r)))))
  (testing "one :info write read after a chain from the initial state: it can only follow that chain"
    ;; T0 and T1 read-modify-write x from nil; :info T2 wrote x = 9, which T3 read. T2's unknown
    ;; read can only have been T1's write.
    (let [hist (h (ok 0 [[:r :x nil] [:w :x 1]]) (ok 1 [[:r :x 1] [:w :x 2]])
                  (info 2 [[:r :x nil] [:w :x 9]]) (ok 3 [[:r :x 9] [:w :x 10]]) (ok 4 [[:r :x 2]]))
          r    (check hist)]
      (is (= :fast (path r)))
      (is (= all-hold (verdicts r)))
      (testing "so a reader of T1's write on T3's process, after T3, read a stale value"
        (let [r (check (conj (vec (butlast hist)) (ok 3 [[:r :x 2]])))]
          (is (= session-fail (verdicts r)))
          (is (str/includes? (get-in r [:counterexamples :G-single-item-process :explanation])
                             "the last of the read-modify-writes that follow the initial value"))))))
  (testing "two :info writes read: the order of their chains is open, and the general search decides it"
    ;; T2 and T4 are :info, each read by a read-modify-write. Their unknown reads may be T1's write
    ;; and T3's (or T1's and T5's): no false positive; the search orders the chains, and says so.
    (let [hist (h (ok 0 [[:r :x nil] [:w :x 1]]) (ok 1 [[:r :x 1] [:w :x 2]])
                  (info 2 [[:r :x nil] [:w :x 9]]) (ok 3 [[:r :x 9] [:w :x 10]])
                  (info 4 [[:r :x nil] [:w :x 20]]) (ok 5 [[:r :x 20] [:w :x 21]]))
          r    (check hist)]
      (is (= :chains (path r)))
      (is (str/includes? (get-in r [:stats :mt :reason]) "T2 is :info") (get-in r [:stats :mt :reason]))
      (is (str/includes? (get-in r [:stats :mt :reason]) "chains of read-modify-writes"))
      (is (= 1 (get-in r [:stats :mt :unordered-keys])))
      (is (= 1 (get-in r [:stats :mt :chain-constraints])) "one pair of chains, where the writers make 10 pairs")
      (is (= all-hold (verdicts r)))
      (is (= all-hold (verdicts (general hist))))))
  (testing "a lost update is found whatever the :info transactions did"
    (let [r (check (h (info 0 [[:r :x nil] [:w :x 9]]) (ok 1 [[:r :x 9] [:w :x 1]]) (ok 2 [[:r :x 9] [:w :x 2]])))]
      (is (= :fast (path r)))
      (is (= all-fail (verdicts r)))
      (is (contains? (types r) :lost-update)))))

(deftest unordered-keys-go-to-the-general-search
  ;; Two blind writers of y: their order is not in the history. x's chain is known; the search
  ;; gets constraints for y only.
  (let [hist (h (ok 0 [[:r :x nil] [:w :x 1] [:r :y nil] [:w :y 1]]) (ok 1 [[:r :x 1] [:w :x 2]])
                (ok 2 [[:w :y 2]]) (ok 3 [[:w :y 3]]) (ok 4 [[:r :y 3] [:r :x 2]]))
        ;; The history's own schedule would show every level at once: without it, the polygraph.
        r    (iso/check (iso/checker {:levels strong-levels, :witness? false}) hist)]
    (is (= :general (path r)))
    (is (str/includes? (get-in r [:stats :mt :reason]) "key :y") (get-in r [:stats :mt :reason]))
    (is (str/includes? (get-in r [:stats :mt :reason]) "without reading it first"))
    (is (= 1 (get-in r [:stats :mt :ordered-keys])))
    (is (= all-hold (verdicts r)))
    ;; (No invocations: strict serializability is searched as strong-session serializability,
    ;; :decided-by :same-without-realtime.)
    (is (= 3 (get-in r [:stats :search :strict-serializable :same-as-search :constraints])) "y's three writers: three pairs, none on x")
    (is (= :witness (get-in (check hist) [:stats :search :strict-serializable :decided-by])))
    (is (= 4 (get-in (iso/check (iso/checker {:levels strong-levels, :mt? false, :witness? false}) hist)
                     [:stats :search :strict-serializable :same-as-search :constraints]))
        "without the MT checker, x's writers are a constraint too"))
  (testing "a pre-check anomaly violating every level asked for settles it on the fast path anyway"
    (let [r (check (h (ok 0 [[:w :y 1]]) (ok 1 [[:w :y 2]]) (ok 2 [[:r :x 7]])))]
      (is (= :fast (path r)))
      (is (str/includes? (get-in r [:stats :mt :reason]) "pre-check anomalies"))
      (is (= all-fail (verdicts r))))))

(deftest long-transactions-make-the-same-chains-as-short-ones
  ;; A transaction of up to 48 micro-ops finds each key's first write, final write and first
  ;; access by scanning itself; a longer one through per-key arrays. Padded past that with
  ;; read-modify-writes of keys of its own, the chains of x (a read-modify-write, a write after
  ;; a read of another value, a second write of a key) and y (two blind writers) must be the
  ;; same: the same counts, the same unordered key, the same verdicts and counterexamples.
  (let [run (fn [pad]
              (let [rmw (fn [k0] (vec (mapcat (fn [i] [[:r (+ k0 i) nil] [:w (+ k0 i) 1]]) (range pad))))
                    r (check (h (ok 0 (into (rmw 100) [[:r :x nil] [:w :x 1] [:w :x 2] [:w :y 1]]))
                                (ok 1 (into (rmw 1000) [[:r :y nil] [:r :x 2] [:w :y 2] [:w :x 3] [:r :x 3]]))
                                (ok 2 [[:w :y 3]])
                                (ok 3 [[:r :x 3] [:r :y 3]])))]
                [(select-keys (get-in r [:stats :mt]) [:rmw-writes :blind-writes :unordered-keys :path])
                 (verdicts r) (types r)]))
        [mt0 v0 t0] (run 0)]
    (is (= {:rmw-writes 3, :blind-writes 2, :unordered-keys 1, :path :general} mt0) (pr-str mt0))
    (doseq [pad [10 21 22 23 30 100]]
      (let [[mt v t] (run pad)]
        (is (= (update mt0 :rmw-writes + (* 2 pad)) mt) (str pad))
        (is (= v0 v) (str pad))
        (is (= t0 t) (str pad))))))

(deftest mt-off-and-other-levels
  (let [hist (h (ok 0 [[:r :x nil] [:w :x 1]]) (ok 1 [[:r :x 1] [:w :x 2]]))]
    (is (nil? (get-in (general hist) [:stats :mt])) ":mt? false skips it")
    (is (= :fast (path (check hist [:serializable :tcc]))) "weak levels are decided alongside")
    (is (= true (verdict (check hist [:serializable :tcc]) :tcc)))))

;; ------------------------------------------------------------------ random MT histories

(def ^:private shapes
  "MT shapes (Def. 8) over keys a and b: reads [:r k], writes [:w k] after a read of k."
  [[[:r :a]] [[:r :a] [:r :b]] [[:r :a] [:r :a]] [[:r :a] [:w :a]] [[:r :a] [:r :b] [:w :a]]
   [[:r :a] [:r :b] [:w :a] [:w :b]] [[:r :a] [:r :b] [:w :b] [:w :a]] [[:r :a] [:w :a] [:r :a]]
   [[:r :a] [:w :a] [:r :b] [:w :b]] [[:r :a] [:w :a] [:w :a] [:r :a]]])

(defn random-mt-history
  "A small random MT history for a seed: 2-6 transactions over 2-3 keys on 3
  processes, each an MT shape; values unique per key; each external read
  returns nil or a value another transaction writes (rarely one nobody
  writes), each read after the transaction's own write its latest write
  (rarely not); :ok, :fail or :info, invocations and completions
  interleaved at random."
  [seed]
  (let [rnd   (java.util.Random. seed)
        pick  (fn [xs] (nth xs (.nextInt rnd (count xs))))
        ks    (vec (take (+ 2 (.nextInt rnd 2)) [:x :y :z]))
        n     (+ 2 (.nextInt rnd 5))
        ctr   (atom {})
        txns  (vec (for [_ (range n)]
                     (let [a (pick ks), b (pick (vec (remove #{a} ks)))]
                       (mapv (fn [[f k]]
                               (let [k (if (= k :a) a b)]
                                 (if (= f :w) [:w k (get (swap! ctr update k (fnil inc 0)) k)] [:r k nil])))
                             (pick shapes)))))
        writes (fn [i k] (for [[j t] (map-indexed vector txns) :when (not= i j)
                               [f k' v] t :when (and (= f :w) (= k k'))] v))
        reads (vec (for [[i t] (map-indexed vector txns)]
                     (loop [mops t, out [], own {}]
                       (if-let [[f k v] (first mops)]
                         (if (= f :w)
                           (recur (rest mops) (conj out [f k v]) (assoc own k v))
                           (let [seen? (contains? own k)
                                 v (cond (< (.nextDouble rnd) 0.05) 99
                                         (and seen? (< (.nextDouble rnd) 0.9)) (own k)
                                         :else (let [c (cons nil (writes i k))] (pick (vec c))))]
                             (recur (rest mops) (conj out [:r k v]) (assoc own k v))))
                         out))))
        status (vec (for [_ (range n)] (let [u (.nextDouble rnd)] (cond (< u 0.75) :ok (< u 0.85) :fail :else :info))))
        procs (loop [i 0, live [0 1 2], next-p 3, out []]
                (if (= i n) out
                    (let [slot (.nextInt rnd 3), p (live slot)]
                      (if (= :info (status i))
                        (recur (inc i) (assoc live slot next-p) (inc next-p) (conj out p))
                        (recur (inc i) live next-p (conj out p))))))
        queues (atom (reduce (fn [m i] (update m (procs i) (fnil conj []) i)) (sorted-map) (range n)))
        events (loop [out [], open {}]
                 (let [ready (vec (concat (keys open) (remove #(contains? open %) (keys @queues))))]
                   (if (empty? ready) out
                       (let [p (pick ready)]
                         (if-let [i (open p)]
                           (recur (conj out {:type (status i), :process p, :f :txn
                                             :value (if (= :ok (status i)) (reads i) (txns i))})
                                  (dissoc open p))
                           (let [i (first (@queues p))]
                             (swap! queues (fn [q] (let [r (subvec (q p) 1)] (if (empty? r) (dissoc q p) (assoc q p r)))))
                             (recur (conj out {:type :invoke, :process p, :f :txn, :value (txns i)})
                                    (assoc open p i))))))))]
    (vec (map-indexed (fn [i o] (assoc o :index i)) events))))

(deftest fast-path-agrees-with-the-general-search-and-the-oracle
  (let [n     (or (some-> (System/getenv "MT_ORACLE_N") Long/parseLong) 2000)
        stats (atom {})]
    (doseq [seed (range n)]
      (let [hist (random-mt-history seed)
            fast (iso/check (iso/checker {:levels strong-levels, :workload :wr}) hist)
            gen  (iso/check (iso/checker {:levels strong-levels, :workload :wr, :mt? false}) hist)
            orc  (ro/verdicts hist)]
        (swap! stats update (path fast) (fnil inc 0))
        (doseq [l strong-levels] (swap! stats update-in [:verdicts l (verdict fast l)] (fnil inc 0)))
        (when (= :fast (path fast))
          (is (= (select-keys orc strong-levels) (verdicts fast)) (str "seed " seed ": oracle vs fast path\n" (pr-str hist))))
        ;; Every level the oracle decides (gsi and Elle's too) at once: the MT checker decides
        ;; the six, the general path the rest, given what the MT checker found.
        (let [mixed (iso/check (iso/checker {:levels (vec (keys orc)), :workload :wr}) hist)]
          (is (= orc (verdicts mixed)) (str "seed " seed ": oracle vs the MT checker with the general path\n" (pr-str hist))))
        (doseq [l strong-levels
                :let [a (verdict fast l), b (verdict gen l)]
                :when (and (boolean? a) (boolean? b))]
          (is (= a b) (str "seed " seed " " l ": fast path " a ", general search " b "\n" (pr-str hist))))
        (doseq [l strong-levels :let [a (verdict fast l)] :when (boolean? a)]
          (is (= (orc l) a) (str "seed " seed " " l ": oracle " (orc l) ", isocheck " a "\n" (pr-str hist))))))
    (println (format "random MT histories: %d; decided on the fast path %d, by the search over chains %d, by the general search %d"
                     n (get @stats :fast 0) (get @stats :chains 0) (get @stats :general 0)))
    (doseq [l strong-levels]
      (println (format "  %-36s holds %5d  fails %5d" (name l) (get-in @stats [:verdicts l true] 0) (get-in @stats [:verdicts l false] 0))))
    (is (> (get @stats :fast 0) (* 0.8 n)) "most random MT histories take the fast path")))

;; ------------------------------------------------------------------ the simulated stores, driven by the MT workload

(def ^:private sim-runs
  "[store bug] pairs: every store, and every bug the MT workload can run into."
  [[:strict-serializable nil] [:serializable nil] [:snapshot-isolation nil] [:read-committed nil]
   [:snapshot-isolation :lost-update] [:snapshot-isolation :long-fork] [:snapshot-isolation :causality-violation]
   [:snapshot-isolation :fractured-read] [:snapshot-isolation :aborted-read] [:snapshot-isolation :intermediate-read]
   [:strict-serializable :stale-realtime-read] [:serializable :aborted-read] [:read-committed :intermediate-read]])

(deftest simulated-mt-histories-fast-path-agrees-with-the-general-search
  ;; Many seeds, every store and injected bug, with :fail and :info: the MT checker (fast path,
  ;; or the search over chains when :info writes leave a key's order open) and the general
  ;; search (:mt? false) agree at every level both decide; and both keep what the store
  ;; guarantees and catch what the bug breaks.
  (let [seeds (or (some-> (System/getenv "MT_SIM_SEEDS") Long/parseLong) 6)
        paths (atom {})]
    (doseq [seed (range seeds)
            [store bug] sim-runs]
      (let [w    (workload/mt {:seed seed :key-count (+ 4 (mod seed 5)) :levels strong-levels
                               :key-dist ([:exponential :uniform :zipfian :hotspot] (mod seed 4))})
            s    (workload/simulate w {:txns 400 :store store :bug bug :seed seed :bug-rate 0.2 :info-rate 0.03})
            fast (iso/check (:checker w) (:history s))
            gen  (general (:history s))
            what (str "seed " seed ", " (:description s))]
        (swap! paths update (path fast) (fnil inc 0))
        (doseq [l strong-levels
                :let [a (verdict fast l), b (verdict gen l)]]
          (is (boolean? a) (str what " " l ": " (get-in fast [:levels l]) " " (get-in fast [:stats :mt])))
          (when (and (boolean? a) (boolean? b))
            (is (= a b) (str what " " l ": MT checker " a ", general search " b))))
        (doseq [l (:must-satisfy s) :when (some #{l} strong-levels)]
          (is (true? (verdict fast l)) (str what ": " l " should hold")))
        (when (pos? (:bug-firings s))
          (doseq [l (:must-violate s) :when (some #{l} strong-levels)]
            (is (false? (verdict fast l)) (str what ": " l " should be violated"))))))
    (println "simulated MT histories by path:" @paths)
    (is (pos? (get @paths :fast 0)))))

(deftest splitting-across-cores-changes-nothing
  ;; The MT checker's write slots (counted and filled a range of transactions per core) and
  ;; their parent versions (a range of slots per core) are joined in order: the result must not
  ;; depend on the number of cores, on MT histories of every store and bug.
  (let [run (fn [hist cores]
              (System/setProperty "isocheck.weak.cores" (str cores))
              (try (dissoc (iso/check (iso/checker {:counterexample-time-limit 3600}) hist) :stats)
                   (finally (System/clearProperty "isocheck.weak.cores"))))
        paths (atom #{})]
    (doseq [seed (range 2)
            [store bug] sim-runs]
      (let [w (workload/mt {:seed seed :key-count 6 :levels strong-levels})
            s (workload/simulate w {:txns 300 :store store :bug bug :seed seed :bug-rate 0.2 :info-rate 0.03})
            one (run (:history s) 1)]
        (swap! paths conj (path (iso/check (iso/checker {}) (:history s))))
        (is (= one (run (:history s) 2)) (str "seed " seed ", " (:description s)))
        (is (= one (run (:history s) 3)) (str "seed " seed ", " (:description s)))))
    (is (contains? @paths :fast) (pr-str @paths))))
