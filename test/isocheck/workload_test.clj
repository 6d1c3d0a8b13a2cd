(ns isocheck.workload-test
  "isocheck.workload: the generators' invocations are well-formed and keep
  the promises Jepsen's workloads make (values unique per key, keys rotating
  after :max-writes-per-key writes, transaction lengths and key distribution
  as configured, final reads of every key written); Elle's model names map to
  isocheck's levels or fail at construction; and the simulated store, driven
  by a workload's invocations, yields histories that pass what the store
  guarantees and fail what an injected bug breaks, through the workload's own
  checker and through the Jepsen checker protocol (the test-only twin in
  test-twins/jepsen/checker.clj), composed as Jepsen composes checkers."
  (:require [clojure.string :as str]
            [clojure.test :refer [deftest is testing]]
            [jepsen.checker :as checker]
            [jepsen.client]
            [jepsen.generator]
            [jepsen.generator.interpreter]
            [jepsen.nemesis]
            [jepsen.util]
            [isocheck.core :as isocheck]
            [isocheck.workload :as workload]))

(set! *warn-on-reflection* true)

(defn- mops [ops] (for [op ops, m (:value op)] m))

(defn- writes
  "[k v] of every write micro-op, in generation order."
  [ops]
  (for [[f k v] (mops ops) :when (not= f :r)] [k v]))

(defn- message [f]
  (try (f) nil (catch IllegalArgumentException e (.getMessage e))))

;; ---------------------------------------------------------------------------
;; The generator

(deftest invocations-are-well-formed
  (doseq [[make write-f] [[workload/append :append] [workload/wr :w]]
          opts [{} {:key-dist :uniform} {:key-count 7 :min-txn-length 2 :max-txn-length 6}]]
    (let [ops (take 2000 (:generator (make (assoc opts :seed 11))))]
      (testing (str write-f " " opts)
        (is (every? #(= [:f :type :value] (sort (keys %))) ops))
        (is (every? #(and (= :invoke (:type %)) (= :txn (:f %)) (vector? (:value %))) ops))
        (is (every? (fn [m]
                      (and (vector? m) (= 3 (count m))
                           (let [[f k v] m]
                             (and (nat-int? k)
                                  (case f
                                    :r (nil? v)
                                    (and (= f write-f) (pos-int? v)))))))
                    (mops ops)))
        (testing "reads and writes both occur"
          (is (= #{:r write-f} (set (map first (mops ops))))))))))

(deftest txn-lengths-stay-within-bounds
  (let [ops (take 3000 (:generator (workload/append {:seed 2 :min-txn-length 2 :max-txn-length 5})))
        ns  (map (comp count :value) ops)]
    (is (every? #(<= 2 % 5) ns))
    (is (= #{2 3 4 5} (set ns)) "every length in the range occurs"))
  (testing "Elle's defaults: 1 to 2 micro-ops"
    (is (= #{1 2} (set (map (comp count :value) (take 1000 (:generator (workload/wr {:seed 2})))))))))

(deftest values-are-unique-per-key-and-count-up
  (doseq [make [workload/append workload/wr]]
    (let [ws (writes (take 5000 (:generator (make {:seed 4 :key-count 5 :max-writes-per-key 20}))))]
      (is (= (count ws) (count (distinct ws))) "no [k v] written twice")
      (testing "each key's values are 1, 2, 3, ... in generation order"
        (doseq [[k vs] (group-by first ws)]
          (is (= (range 1 (inc (count vs))) (map second vs)) (str "key " k)))))))

(deftest keys-rotate-after-max-writes-per-key
  (let [kc  4
        mx  5
        ops (take 4000 (:generator (workload/append {:seed 9 :key-count kc :max-writes-per-key mx})))
        ws  (writes ops)
        per (frequencies (map first ws))]
    (is (every? #(<= % mx) (vals per)) "no key gets more than :max-writes-per-key writes")
    (is (< 100 (count per)) "keys rotate: far more keys than :key-count were written")
    (is (<= (count (filter #(< % mx) (vals per))) kc)
        "only the keys still active at the end have fewer than :max-writes-per-key writes")
    (testing "a new key joins only when an active one has had all its writes"
      (loop [ops ops, seen #{}, full #{}, counts {}]
        (when-let [op (first ops)]
          (let [[seen full counts]
                (reduce (fn [[seen full counts] [f k]]
                          (let [counts' (if (= f :r) counts (update counts k (fnil inc 0)))]
                            (when (and (>= k kc) (not (seen k)))
                              (let [joined (count (filter #(>= % kc) (conj seen k)))]
                                (is (<= joined (count full))
                                    (str "key " k " is the " joined "th to join, with " (count full) " retired"))))
                            [(conj seen k)
                             (if (= mx (counts' k)) (conj full k) full)
                             counts']))
                        [seen full counts]
                        (:value op))]
            (recur (rest ops) seen full counts)))))
    (testing "keys are numbered 0, 1, 2, ...: every key below the highest was active"
      (let [ks (set (map second (mops ops)))]
        (is (= (set (range (inc (apply max ks)))) ks))))))

(defn- shares
  "Share of micro-ops on each key."
  [ops]
  (let [ks (map second (mops ops))
        n  (double (count ks))]
    (into (sorted-map) (map (fn [[k c]] [k (/ c n)])) (frequencies ks))))

(deftest key-distribution-as-configured
  ;; No rotation (a huge :max-writes-per-key), so key i stays in active slot i.
  ;; Fixed seeds: the bounds are 5-10 standard deviations wide and cannot flake.
  (testing "exponential, base 2: slot i has weight 2^i"
    (let [s (shares (take 20000 (:generator (workload/wr {:seed 1 :key-count 6 :max-writes-per-key 1000000}))))]
      (is (= (range 6) (keys s)))
      (doseq [i (range 6)]
        (is (< (Math/abs (- (double (s i)) (/ (Math/pow 2 i) 63.0))) 0.02) (str "key " i ": " (s i))))))
  (testing "exponential, base 3"
    (let [s (shares (take 20000 (:generator (workload/append {:seed 2 :key-count 4 :key-dist-base 3
                                                              :max-writes-per-key 1000000}))))]
      (doseq [i (range 4)]
        (is (< (Math/abs (- (double (s i)) (/ (Math/pow 3 i) 40.0))) 0.02) (str "key " i ": " (s i))))))
  (testing "uniform"
    (let [s (shares (take 20000 (:generator (workload/append {:seed 3 :key-dist :uniform :key-count 5
                                                              :max-writes-per-key 1000000}))))]
      (is (= (range 5) (keys s)))
      (doseq [i (range 5)]
        (is (< (Math/abs (- (double (s i)) 0.2)) 0.02) (str "key " i ": " (s i))))))
  (testing "Elle's default key counts: 10 exponential, 3 uniform"
    (is (= 10 (count (shares (take 3000 (:generator (workload/append {:seed 4 :max-writes-per-key 1000000})))))))
    (is (= 3 (count (shares (take 3000 (:generator (workload/append {:seed 4 :key-dist :uniform
                                                                     :max-writes-per-key 1000000})))))))))

(deftest same-seed-same-invocations
  (let [a (take 500 (:generator (workload/append {:seed 42})))]
    (is (= a (take 500 (:generator (workload/append {:seed 42})))))
    (is (not= a (take 500 (:generator (workload/append {:seed 43})))))
    (is (not= (take 50 (:generator (workload/append))) (take 50 (:generator (workload/append))))
        "without :seed, a fresh one per call")))

(deftest final-generator-reads-every-written-key
  (doseq [make [workload/append workload/wr]]
    (let [w     (make {:seed 5 :key-count 6 :max-writes-per-key 8 :max-txn-length 4})
          main  (doall (take 1500 (:generator w)))
          final (vec (:final-generator w))
          read  (map second (mops final))]
      (is (every? (fn [op] (every? (fn [[f _ v]] (and (= :r f) (nil? v))) (:value op))) final)
          "final transactions only read")
      (is (every? #(<= 1 (count (:value %)) 6) final) ":final-txn-length defaults to :key-count")
      (is (= (count read) (count (distinct read))) "each key read once")
      (is (every? (set read) (map first (writes main))) "every written key is read")
      (is (< 100 (count (set read))))))
  (testing "realized from several threads, it still covers every key any of them saw"
    (let [w    (workload/append {:seed 6 :key-count 3 :max-writes-per-key 4 :final-txn-length 5})
          seen (->> [700 1400 300 1000]
                    (mapv (fn [n] (future (doall (take n (:generator w))))))
                    (mapcat deref))
          read (set (map second (mops (:final-generator w))))]
      (is (every? #(<= (count (:value %)) 5) (:final-generator w)))
      (is (every? read (map first (writes seen)))))))

;; ---------------------------------------------------------------------------
;; Options and consistency models

(deftest consistency-models-in-elle-names
  (is (= [:strict-serializable] (workload/levels {})) "Elle's default")
  (is (= [:serializable :snapshot-isolation :strict-serializable :tcc :ra]
         (workload/levels {:consistency-models [:serializable :PL-SI :strong-serializable
                                                :causal-cerone :read-atomic]})))
  (is (= [:strong-session-snapshot-isolation :rc :ci]
         (workload/levels {:consistency-models [:strong-session-snapshot-isolation :rc :ci]})))
  (is (= [:repeatable-read :read-committed :read-uncommitted :gsi]
         (workload/levels {:consistency-models [:repeatable-read :PL-2 :read-uncommitted :PL-1 :PL-2.99 :gsi]}))
      "Elle's Adya models are isocheck's Elle levels (:read-committed is PL-2, not Plume's :rc)")
  (is (= [:tcc] (workload/levels {:consistency-models [:serializable] :levels [:tcc]}))
      ":levels, isocheck's own option, takes precedence")
  (testing "the checker carries them, and the workload"
    (is (= {:levels [:snapshot-isolation] :workload :append :max-anomalies 3}
           (:opts (:checker (workload/append {:consistency-models [:snapshot-isolation]
                                              :max-anomalies 3 :key-count 4}))))))
  (testing "a model isocheck does not decide fails at construction"
    (is (re-find #"does not decide the consistency model :cursor-stability; it decides .*:repeatable-read.*:serializable"
                 (message #(workload/append {:consistency-models [:serializable :cursor-stability]}))))
    (is (re-find #"does not decide the consistency model :update-serializable"
                 (message #(workload/wr {:consistency-models [:update-serializable]}))))
    (is (re-find #":causal-cerone" (message #(workload/append {:consistency-models [:causal]}))))
    (is (re-find #"non-empty" (message #(workload/append {:consistency-models []}))))
    (is (re-find #"Unknown isolation level :nope" (message #(workload/append {:levels [:nope]}))))))

(deftest bad-options-are-one-line-errors
  (doseq [[opts re] [[{:key-count 0} #":key-count must be a positive integer, not 0"]
                     [{:min-txn-length 3 :max-txn-length 2} #":max-txn-length \(2\) must be at least :min-txn-length \(3\)"]
                     [{:max-writes-per-key -1} #":max-writes-per-key must be a positive integer"]
                     [{:key-dist :zipf} #":key-dist must be :exponential or :uniform, not :zipf"]
                     [{:key-dist-base 1} #":key-dist-base must be a number greater than 1"]
                     [{:seed "x"} #":seed must be an integer"]
                     [{:clocks :sundial} #":clocks must be :vector or :tree"]]]
    (let [m (message #(workload/append opts))]
      (is (and m (re-find re m)) (str opts " -> " m))
      (is (not (re-find #"\n" (str m)))))))

;; ---------------------------------------------------------------------------
;; The simulated store, driven by a workload

(defn- verdicts [r] (into {} (map (fn [[l v]] [l (:valid? v)])) (:levels r)))

(def ^:private all-levels
  [:strict-serializable :strong-session-serializable :serializable :strong-snapshot-isolation
   :strong-session-snapshot-isolation :snapshot-isolation :tcc :ra :rc :ci])

(defn- run-checked
  "Simulates workload w with sim opts and checks every level; returns
  [simulation verdicts]."
  [w opts]
  (let [s (workload/simulate w opts)]
    [s (verdicts (isocheck/check (isocheck/checker {:levels all-levels}) (:history s)))]))

(deftest simulated-history-is-a-jepsen-history
  (let [w  (workload/append {:seed 1 :key-count 5 :max-txn-length 4})
        s  (workload/simulate w {:txns 400 :concurrency 5 :seed 2})
        h  (:history s)
        ns (count (filter #(= :invoke (:type %)) h))]
    (is (= (range (count h)) (map :index h)))
    (is (apply < (map :time h)))
    (is (every? #(#{:invoke :ok :fail :info} (:type %)) h))
    (testing "the main phase's 400 invocations are the generator's, in order"
      (is (= (map :value (take 400 (:generator w)))
             (map :value (take 400 (filter #(= :invoke (:type %)) h))))))
    (testing "each invocation completes on its process (none pending), :ok filling in the reads"
      (loop [ops h, open {}]
        (if-let [{:keys [type process value] :as op} (first ops)]
          (if (= :invoke type)
            (do (is (not (contains? open process)) (str "process " process " invoked twice"))
                (recur (rest ops) (assoc open process op)))
            (let [inv (open process)]
              (is inv (str "completion without invocation: " op))
              (is (= (map (juxt first second) (:value inv)) (map (juxt first second) value)))
              (when (= :ok type)
                (is (every? (fn [[f _ v]] (or (not= :r f) (nil? v) (vector? v))) value)))
              (recur (rest ops) (dissoc open process))))
          (is (empty? open)))))
    (testing "the final reads start once every main transaction has completed (gen/phases)"
      (let [first-final (nth (filter #(= :invoke (:type %)) h) 400)
            completions (->> h (remove #(= :invoke (:type %))) (take 400))]
        (is (every? #(< (:index %) (:index first-final)) completions))
        (is (= (- ns 400) (count (:final-generator w))))))
    (is (= #{:strong-snapshot-isolation :strong-session-snapshot-isolation :snapshot-isolation
             :tcc :ra :rc :ci}
           (:must-satisfy s)))
    (is (= s (workload/simulate w {:txns 400 :concurrency 5 :seed 2})) "a seed gives one history")
    (testing ":pending leaves that many invocations without completion; :final? false, no final reads"
      (let [h (:history (workload/simulate w {:txns 300 :seed 2 :pending 2 :final? false}))
            completed (frequencies (map :type h))]
        (is (= 300 (:invoke completed)))
        (is (= 298 (+ (:ok completed 0) (:fail completed 0) (:info completed 0))))))))

(deftest simulated-stores-pass-their-levels
  (doseq [make [workload/append workload/wr]
          [store must] [[:snapshot-isolation [:snapshot-isolation :strong-snapshot-isolation :tcc]]
                        [:serializable [:serializable :strong-session-serializable :tcc]]
                        [:strict-serializable all-levels]]
          seed [1 2]]
    (let [w      (make {:seed seed :key-count 6 :max-txn-length 4 :max-writes-per-key 16})
          [s v]  (run-checked w {:txns 500 :store store :seed seed})]
      (testing (str (:description s))
        (is (every? (:must-satisfy s) must))
        (doseq [l (:must-satisfy s)]
          (is (true? (v l)) (str l " should hold")))
        (when (= store :snapshot-isolation)
          (is (false? (v :serializable)) "write skew: SI's histories are not all serializable"))))))

(deftest injected-bugs-are-caught
  (doseq [[make store bug] [[workload/append :snapshot-isolation :lost-update]
                            [workload/wr :snapshot-isolation :lost-update]
                            [workload/append :snapshot-isolation :long-fork]
                            [workload/append :snapshot-isolation :causality-violation]
                            [workload/append :snapshot-isolation :fractured-read]
                            [workload/wr :snapshot-isolation :aborted-read]
                            [workload/append :strict-serializable :stale-realtime-read]]]
    (let [w     (make {:seed 3 :key-count 8 :max-txn-length 4 :max-writes-per-key 16})
          [s v] (run-checked w {:txns 600 :store store :bug bug :seed 5 :bug-rate 0.2})]
      (testing (:description s)
        (is (pos? (:bug-firings s)))
        (is (seq (:must-violate s)))
        (doseq [l (:must-violate s)] (is (false? (v l)) (str l " should be violated")))
        (doseq [l (:must-satisfy s)] (is (true? (v l)) (str l " should hold")))
        (testing "the bug's own writes use keys of their own, never the workload's"
          (let [ks (set (map first (writes (take 600 (:generator w)))))]
            (is (= [] (remove #(or (ks %) (neg? %))
                              (for [op (:history s) [f k] (:value op) :when (not= f :r)] k))))))))))

(deftest the-workload-checker-through-the-jepsen-protocol
  (let [w   (workload/append {:seed 7 :key-count 6 :max-txn-length 4
                              :consistency-models [:snapshot-isolation]})
        si  (:history (workload/simulate w {:txns 400 :seed 1}))
        lu  (:history (workload/simulate w {:txns 400 :seed 1 :bug :lost-update}))
        other (reify checker/Checker (check [_ _ h _] {:valid? true, :count (count h)}))]
    (is (satisfies? checker/Checker (:checker w)))
    (is (= {:snapshot-isolation {:valid? true}} (:levels (checker/check (:checker w) {} si {}))))
    (let [r (checker/check (:checker w) {:name "lost update"} lu {})]
      (is (false? (:valid? r)))
      ;; Repeatable read (PL-2.99), which a lost update or an anti-dependency cycle rules out
      ;; too, and snapshot isolation are incomparable: both are weakest.
      (is (= #{:snapshot-isolation :repeatable-read} (:not r)))
      (is (some #{:lost-update :G-single-item :G-nonadjacent-item} (:anomaly-types r))))
    (testing "composed with another checker"
      (let [c (checker/compose {:elle other, :isocheck (:checker w)})]
        (is (true? (:valid? (checker/check c {} si {}))))
        (let [r (checker/check c {} lu {})]
          (is (false? (:valid? r)))
          (is (= (count lu) (get-in r [:elle :count])))
          (is (false? (get-in r [:isocheck :valid?]))))))))

(deftest simulate-rejects-what-the-store-cannot-run
  (let [gen (fn [& txns] {:generator (map (fn [t] {:type :invoke, :f :txn, :value t}) txns)})]
    (is (re-find #"phase 0, transaction 1: micro-op 0 \[:foo 1 2\] is neither a read \[:r k nil\] nor an append \[:append k v\]"
                 (message #(workload/simulate (gen [[:append 1 1]] [[:foo 1 2]]) {:txns 2}))))
    (is (re-find #"phase 0, transaction 1: micro-op 0 \[:append 1 1\]: value 1 was already written to key 1"
                 (message #(workload/simulate (gen [[:append 1 1]] [[:append 1 1]]) {:txns 2}))))
    (is (re-find #"micro-op 1 \[:r :x nil\]: the key must be a non-negative integer"
                 (message #(workload/simulate (gen [[:append 1 1] [:r :x nil]]) {:txns 1}))))
    (is (re-find #"micro-op 0 \[:r 1 \[\]\]: a read to invoke carries nil"
                 (message #(workload/simulate (gen [[:r 1 []]]) {:txns 1}))))
    (is (re-find #"micro-op 1 \[:w 2 3\] is neither a read \[:r k nil\] nor an append"
                 (message #(workload/simulate (gen [[:append 1 1] [:w 2 3]]) {:txns 1}))))
    (is (re-find #":generator op 0 \{:type :invoke, :f :read\} is not a transaction invocation"
                 (message #(workload/simulate {:generator [{:type :invoke, :f :read}]} {:txns 1}))))
    (is (re-find #":store must be one of .*:snapshot-isolation.*, not :mvcc"
                 (message #(workload/simulate (gen [[:r 1 nil]]) {:txns 1 :store :mvcc}))))
    (is (re-find #":bug must be one of .*:long-fork.*, not :gremlins"
                 (message #(workload/simulate (gen [[:r 1 nil]]) {:txns 1 :bug :gremlins}))))
    (is (re-find #"bug LONG_FORK applies to \[SNAPSHOT_ISOLATION\], not to SERIALIZABLE"
                 (message #(workload/simulate (gen [[:r 1 nil]]) {:txns 1 :store :serializable :bug :long-fork}))))))

;; ---------------------------------------------------------------------------
;; Mini-transactions

(defn- mt?
  "Whether a transaction is a mini-transaction (MTC Def. 8): one or two reads,
  at most two writes, each write after a read of its key."
  [txn]
  (let [reads (filter #(= :r (first %)) txn)
        writes (filter #(= :w (first %)) txn)]
    (and (<= 1 (count reads) 2) (<= (count writes) 2)
         (every? (fn [[i [f k]]] (or (not= f :w) (some (fn [[f' k']] (and (= f' :r) (= k k'))) (take i txn))))
                 (map-indexed vector txn)))))

(deftest mt-invocations-are-mini-transactions
  (doseq [opts [{} {:key-dist :uniform} {:key-dist :zipfian :key-count 50} {:key-dist :hotspot :key-count 20}
                {:key-count 2}]]
    (let [ops (take 5000 (:generator (workload/mt (assoc opts :seed 11))))]
      (testing (str opts)
        (is (every? #(and (= :invoke (:type %)) (= :txn (:f %)) (vector? (:value %))) ops))
        (is (every? (comp mt? :value) ops))
        (is (every? (fn [[f k v]] (and (nat-int? k) (if (= f :r) (nil? v) (and (= f :w) (pos-int? v))))) (mops ops)))
        (testing "every shape occurs, the two-key ones on two keys"
          (let [shape (fn [txn]
                        (let [ks (distinct (map second txn)), x (first ks)]
                          (mapv (fn [[f k]] [f (if (= k x) :x :y)]) txn)))]
            (is (= (set (vals workload/mt-shapes)) (set (map (comp shape :value) ops))))))
        (let [ws (writes ops)]
          (is (= (count ws) (count (distinct ws))) "values unique per key"))))))

(deftest mt-values-count-up-per-key
  (let [ws (writes (take 5000 (:generator (workload/mt {:seed 3 :key-count 4}))))]
    (doseq [[k kvs] (group-by first ws)]
      (is (= (range 1 (inc (count kvs))) (map second kvs)) (str "key " k)))))

(deftest mt-shape-mix-and-key-distributions
  (testing "only the shapes asked for, in their proportions"
    (let [ops (take 4000 (:generator (workload/mt {:seed 5 :shapes {:rw 3, :rrw 1}})))
          n (count (filter #(= 2 (count (:value %))) ops))]
      (is (every? #(#{2 3} (count (:value %))) ops))
      (is (< 0.72 (/ n 4000.0) 0.78) (str n " of 4000 are :rw"))))
  (let [share (fn [opts]
                (let [ops (take 20000 (:generator (workload/mt (assoc opts :seed 6 :shapes {:r 1}))))
                      fr (frequencies (map (comp second first :value) ops))]
                  (fn [k] (/ (get fr k 0) 20000.0))))]
    (testing "uniform"
      (let [s (share {:key-dist :uniform :key-count 5})]
        (doseq [i (range 5)] (is (< (Math/abs (- (s i) 0.2)) 0.02) (str i)))))
    (testing "exponential, base 2"
      (let [s (share {:key-dist :exponential :key-count 6})]
        (doseq [i (range 6)] (is (< (Math/abs (- (s i) (/ (Math/pow 2 i) 63.0))) 0.02) (str i)))))
    (testing "zipfian: P(i) ~ 1/(i+1)"
      (let [s (share {:key-dist :zipfian :key-count 10}), z (reduce + (map #(/ 1.0 (inc %)) (range 10)))]
        (doseq [i (range 10)] (is (< (Math/abs (- (s i) (/ 1.0 (inc i) z))) 0.02) (str i)))))
    (testing "hotspot: 80% of accesses on the first 20% of the keys, uniformly"
      (let [s (share {:key-dist :hotspot :key-count 10})]
        (is (< (Math/abs (- (+ (s 0) (s 1)) 0.8)) 0.02))
        (doseq [i (range 2 10)] (is (< (Math/abs (- (s i) 0.025)) 0.01) (str i)))))))

(deftest mt-final-reads-and-seed
  (let [w (workload/mt {:seed 9 :key-count 5})]
    (is (= [[[:r 0 nil] [:r 1 nil]] [[:r 2 nil] [:r 3 nil]] [[:r 4 nil]]] (map :value (:final-generator w)))
        "every key, two per (mini-)transaction")
    (is (= (take 300 (:generator w)) (take 300 (:generator (workload/mt {:seed 9 :key-count 5})))))
    (is (not= (take 300 (:generator w)) (take 300 (:generator (workload/mt {:seed 10 :key-count 5})))))))

(deftest mt-bad-options
  (is (re-find #":key-dist must be :uniform, :zipfian, :hotspot or :exponential, not :gauss"
               (message #(workload/mt {:key-dist :gauss}))))
  (is (re-find #":shapes must map shapes \(:r :rr :rrw :rrww :rw :rwr :rwrw :rwwr :rx\)"
               (message #(workload/mt {:shapes {:rwx 1}}))))
  (is (re-find #":shapes must map" (message #(workload/mt {:shapes {:rw 0}}))))
  (is (re-find #":key-count 1 leaves only the one-key shapes" (message #(workload/mt {:key-count 1 :shapes {:rrw 1}}))))
  (is (re-find #":hotspot-keys must be in \(0, 1\)" (message #(workload/mt {:key-dist :hotspot :hotspot-keys 2}))))
  (is (re-find #":key-count must be a positive integer" (message #(workload/mt {:key-count 0}))))
  (is (re-find #"does not decide the consistency model :cursor-stability"
               (message #(workload/mt {:consistency-models [:cursor-stability]})))))

;; ---------------------------------------------------------------------------
;; Inside Jepsen: the generators under the twin of Jepsen's interpreter
;; (test-twins/, modelled on Jepsen 0.3's jepsen.generator.interpreter)

(defn- run-under-jepsen
  "Runs generator under the interpreter twin: 3 clients and the nemesis
  thread, client completing every op as (complete op). Returns the history."
  [generator complete]
  (let [c (reify jepsen.client/Client
            (open! [this _ _] this)
            (setup! [_ _])
            (teardown! [_ _])
            (close! [_ _])
            (invoke! [_ _ op] (complete op)))]
    (:history (jepsen.generator.interpreter/run!
                {:concurrency 3, :nodes ["n1"], :client c, :nemesis jepsen.nemesis/noop
                 :generator generator}))))

(defn- read-all [op]
  (assoc op :type :ok, :value (mapv (fn [[f k v]] [f k (if (= f :r) [] v)]) (:value op))))

(deftest the-generators-hand-transactions-to-clients-only
  (let [w (workload/append {:seed 3, :key-count 4, :max-writes-per-key 3})
        h (run-under-jepsen (jepsen.generator/phases (jepsen.generator/limit 300 (:generator w))
                                                     (:final-generator w))
                            read-all)
        txns (filter #(= :txn (:f %)) h)
        written (set (for [op txns, [f k] (:value op) :when (= f :append)] k))
        finals (filter :final-read? txns)]
    (is (= 300 (count (filter #(and (= :invoke (:type %)) (not (:final-read? %))) txns))))
    (is (every? #(integer? (:process %)) txns)
        "no transaction on the nemesis thread, though neither generator is wrapped in gen/clients")
    (is (< 20 (count written)) "keys rotated")
    (is (= (set (range (inc (apply max written))))
           (set (for [op finals :when (= :ok (:type op)), [_ k] (:value op)] k)))
        "the final reads read keys 0 to the highest key handed out")
    (testing "the same invocations as the sequence, in the same order"
      (is (= (map :value (take 300 (:generator w)))
             (map :value (filter #(and (= :invoke (:type %)) (not (:final-read? %))) txns)))))))

(deftest printing-the-test-map-changes-nothing
  ;; jepsen.core/run! logs the test map before the first op, *print-length* 8 for :generator.
  (let [w (workload/append {:seed 5, :key-count 3, :max-writes-per-key 2})
        printed (binding [*print-length* 8]
                  (jepsen.util/test->str {:generator (jepsen.generator/phases (:generator w) (:final-generator w))
                                          :final-generator (:final-generator w)}))]
    (is (str/includes? printed "#isocheck.workload/generator"))
    (is (str/includes? printed "#isocheck.workload/final-reads"))
    (is (= "#isocheck.workload/generator {:transactions :list-append, :seed 5}" (pr-str (:generator w))))
    (let [h (run-under-jepsen (jepsen.generator/phases (jepsen.generator/limit 100 (:generator w))
                                                       (:final-generator w))
                              read-all)
          written (set (for [op h :when (= :txn (:f op)), [f k] (:value op) :when (= f :append)] k))
          read (set (for [op h :when (and (:final-read? op) (= :ok (:type op))), [_ k] (:value op)] k))]
      (is (< 10 (count written)))
      (is (every? read written) (str "missing " (sort (remove read written)))))))

(deftest final-reads-that-fail-are-asked-again
  (let [w (workload/append {:seed 8, :key-count 3, :max-writes-per-key 2, :final-txn-length 2})
        tries (atom {})
        flaky (fn [op]
                (if-not (:final-read? op)
                  (read-all op)
                  (let [ks (mapv second (:value op))
                        n (get (swap! tries update ks (fnil inc 0)) ks)]
                    ;; The first attempt fails, the second is indeterminate, the third reads.
                    (case (long n) 1 (assoc op :type :fail) 2 (assoc op :type :info) (read-all op)))))
        h (run-under-jepsen (jepsen.generator/phases (jepsen.generator/limit 60 (:generator w)) (:final-generator w))
                            flaky)
        hi (apply max (for [op h :when (= :txn (:f op)), [f k] (:value op) :when (= f :append)] k))
        read (set (for [op h :when (and (:final-read? op) (= :ok (:type op))), [_ k] (:value op)] k))]
    (is (= (set (range (inc hi))) read) "every key read in the end")
    (is (every? #(= 3 %) (vals @tries)) "each read asked three times: failed, indeterminate, read")
    (testing "a read that never succeeds is asked final-read-attempts times, then given up"
      (let [tries (atom {})
            h (run-under-jepsen (jepsen.generator/phases (jepsen.generator/limit 60 (:generator w)) (:final-generator w))
                                (fn [op] (if (:final-read? op)
                                           (do (swap! tries update (mapv second (:value op)) (fnil inc 0))
                                               (assoc op :type :fail))
                                           (read-all op))))]
        (is (seq @tries))
        (is (every? #(= workload/final-read-attempts %) (vals @tries)) (pr-str @tries))))))
