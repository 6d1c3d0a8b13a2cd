(ns isocheck.oracle-test
  "Cross-checks isocheck's verdicts on list-append histories against an
  independent brute-force oracle (isocheck.oracle.Oracle, test/java): for
  thousands of random tiny histories (isocheck.oracle.HistoryGen), every one
  of the six levels must get the same answer from both. The oracle searches
  for an execution (begin/commit events) directly; it shares no code with the
  checker.

  Knobs (environment): ORACLE_N histories (default 10000), ORACLE_SEED first
  seed (default 0). A failing history is reproduced by
  (isocheck.oracle.HistoryGen/generate seed); `shrink` minimises it.

  Bugs in isocheck found this way are pinned, minimal, in
  isocheck.oracle-known-bugs-test."
  (:require [clojure.pprint :as pp]
            [clojure.set]
            [clojure.string :as str]
            [clojure.test :refer [deftest is testing]]
            [isocheck.core :as ic]
            [isocheck.jepsen :as j])
  (:import (isocheck.check Result)
           (isocheck.oracle HistoryGen HistoryGen$Gen Oracle Oracle$Answer
                            Oracle$Level)))

(def levels
  [:strict-serializable :strong-session-serializable :serializable
   :strong-snapshot-isolation :strong-session-snapshot-isolation
   :snapshot-isolation])

(defn- env-long [k default]
  (if-let [s (System/getenv k)] (Long/parseLong (str/trim s)) default))

;; ------------------------------------------------------------------ the two sides

(defn oracle
  "The oracle's answers: {level {:valid? bool, :witness \"...\"}}."
  [history]
  (let [o (Oracle/fromJepsen history)]
    (into {}
          (for [l levels]
            (let [^Oracle$Answer a (.check o (Oracle$Level/of (name l)))]
              [l {:valid? (.valid a), :witness (.witness a)}])))))

(defn isocheck
  "isocheck's result map for the six levels."
  [history]
  (ic/check (ic/checker {:levels levels}) history))

(defn isocheck-text
  "isocheck's human-readable report (verdicts, anomalies, explanations)."
  [history]
  (let [[^Result r _] (ic/check-history {:levels levels} (j/->history history))]
    (.text r)))

(defn- disagreeing-levels
  "Levels where isocheck gives a definite answer different from the oracle's."
  [history]
  (let [o (oracle history)
        m (isocheck history)]
    (vec (for [l levels
               :let [iv (get-in m [:levels l :valid?])]
               :when (and (boolean? iv) (not= iv (get-in o [l :valid?])))]
           l))))

;; ------------------------------------------------------------------ shrinking

(defn- txn-groups
  "Ops grouped into transactions: vectors of op positions (invoke + completion)."
  [history]
  (let [pending (volatile! {})
        groups  (volatile! [])]
    (doseq [[i op] (map-indexed vector history)]
      (let [p (:process op)]
        (if (= :invoke (:type op))
          (vswap! pending assoc p [i])
          (do (vswap! groups conj (conj (get @pending p []) i))
              (vswap! pending dissoc p)))))
    (into @groups (vals @pending))))

(defn- without-txn [history group]
  (let [drop? (set group)]
    (vec (keep-indexed (fn [i op] (when-not (drop? i) op)) history))))

(defn- without-mop [history group mi]
  (let [change? (set group)]
    (vec (map-indexed (fn [i op]
                        (if (change? i)
                          (update op :value #(vec (concat (subvec % 0 mi) (subvec % (inc mi)))))
                          op))
                      history))))

(defn- candidates [history]
  (let [gs (txn-groups history)]
    (concat (for [g gs] (without-txn history g))
            (for [g gs
                  :let [n (count (:value (history (first g))))]
                  :when (> n 1)
                  mi (range n)]
              (without-mop history g mi)))))

(defn shrink-by
  "A locally minimal history, smaller than `history`, that still satisfies
  `bad?` (greedy: drop whole transactions or single micro-ops while it does)."
  [history bad?]
  (let [bad? (fn [h] (try (bad? h) (catch Throwable _ false)))]
    (loop [h history]
      (if-let [smaller (first (filter bad? (candidates h)))]
        (recur smaller)
        h))))

(defn shrink
  "A smaller history on which isocheck and the oracle still disagree on `level`."
  [history level]
  (shrink-by history #(some #{level} (disagreeing-levels %))))

(defn- describe-disagreement [seed how history l o m]
  (let [small (shrink history l)]
    (with-out-str
      (println "==== DISAGREEMENT on" l "seed" seed "(" how ")")
      (println "oracle:  " (get-in o [l :valid?]) (some->> (get-in o [l :witness]) (str "witness ")))
      (println "isocheck:" (get-in m [:levels l]))
      (println "history:")
      (pp/pprint history)
      (println "shrunk history (still disagrees on" l "):")
      (pp/pprint small)
      (let [so (oracle small)]
        (println "oracle on shrunk:" (into (sorted-map) (map (fn [[k v]] [k (:valid? v)])) so))
        (println "oracle witnesses:" (into (sorted-map) (map (fn [[k v]] [k (:witness v)])) so)))
      (println "isocheck on shrunk:")
      (println (isocheck-text small)))))

;; ------------------------------------------------------------------ random histories

(defn check-one
  "Generates the history for a seed (with gen, HistoryGen/generate by default) and compares
  the two sides on it."
  ([seed] (check-one seed #(HistoryGen/generate %)))
  ([seed gen]
  (let [^HistoryGen$Gen g (gen seed)
        history (vec (.ops g))
        o (oracle history)
        m (try (isocheck history) (catch Throwable e e))]
    (if (instance? Throwable m)
      {:seed seed, :oracle o, :error m}
      {:seed seed
       :oracle o
       :unknown (vec (for [l levels
                           :when (= :unknown (get-in m [:levels l :valid?]))]
                       [l (get-in o [l :valid?]) (get-in m [:levels l :reason])]))
       :searched (vec (for [[l st] (get-in m [:stats :search])
                            :when (and (pos? (:constraints st 0)) (#{:time-order :pruning :solver} (:decided-by st)))]
                        [l (:decided-by st) (get-in m [:levels l :valid?])]))
       :disagree (vec (for [l levels
                            :let [iv (get-in m [:levels l :valid?])]
                            :when (and (not= :unknown iv) (not= iv (get-in o [l :valid?])))]
                        {:seed seed, :how (.how g), :level l, :history history,
                         :oracle o, :isocheck m}))}))))

(defn run-random
  "Checks n random histories from seed0 (in parallel chunks; gen as in check-one); returns
  the tallies, unknowns and disagreements."
  [seed0 n & [gen]]
  (let [rs (apply concat (pmap #(mapv (fn [seed] (if gen (check-one seed gen) (check-one seed))) %)
                               (partition-all 200 (range seed0 (+ seed0 n)))))]
    {:signatures (frequencies (for [r rs] (mapv #(get-in r [:oracle % :valid?]) levels)))
     :tally      (reduce (fn [t r] (reduce (fn [t l] (update-in t [l (get-in r [:oracle l :valid?])] inc))
                                           t levels))
                         (into {} (for [l levels] [l {true 0, false 0}]))
                         rs)
     :unknown    (reduce (fn [u r] (reduce (fn [u [l ov reason]] (update u l (fnil conj []) [(:seed r) ov reason]))
                                           u (:unknown r)))
                         {} rs)
     :reasonless (vec (for [r rs, [l _ reason] (:unknown r) :when (str/blank? reason)] [(:seed r) l]))
     :searched   (frequencies (mapcat :searched rs))
     :disagree   (vec (mapcat :disagree rs))
     :errors     (vec (for [r rs :when (:error r)] [(:seed r) (:error r)]))}))

(defn- signature-str [sig]
  (apply str (map #(if % "1" "0") sig)))

(defn- report! [n ms {:keys [tally unknown disagree errors signatures]}]
  (println (format "\noracle cross-check: %d random histories in %.1f s" n (/ ms 1000.0)))
  (println "oracle verdicts per level (true / false):")
  (doseq [l levels]
    (println (format "  %-36s %5d / %5d   isocheck :unknown %d"
                     (name l) (get-in tally [l true]) (get-in tally [l false])
                     (count (get unknown l)))))
  (println "oracle verdict combinations (1 = holds; order: strict-ser, strong-session-ser, ser,"
           "strong-si, strong-session-si, si):")
  (doseq [[sig c] (sort-by (comp - val) signatures)]
    (println (format "  %s %6d" (signature-str sig) c)))
  (doseq [[l us] unknown]
    (println "  isocheck :unknown on" l (count us) "times; oracle said"
             (frequencies (map second us)) "; reasons" (frequencies (map #(nth % 2) us))))
  (println "disagreements:" (count disagree)
           (frequencies (map :level disagree)))
  (when (seq errors) (println "isocheck threw on seeds" (mapv first errors))))

(deftest random-histories-agree-with-oracle
  (let [n    (env-long "ORACLE_N" 10000)
        seed (env-long "ORACLE_SEED" 0)
        t0   (System/nanoTime)
        res  (run-random seed n)
        ms   (/ (- (System/nanoTime) t0) 1e6)
        {:keys [tally reasonless disagree errors signatures]} res
        count-where (fn [pred] (reduce + (for [[sig c] signatures :when (pred (zipmap levels sig))] c)))]
    (report! n ms res)
    ;; A few disagreeing histories (smallest first), each shrunk and explained
    ;; on its first disagreeing level.
    (doseq [{:keys [seed how level history oracle isocheck]}
            (->> disagree (group-by :seed) vals (map first)
                 (sort-by (comp count :history)) (take 4))]
      (println (describe-disagreement seed how history level oracle isocheck)))
    (testing "isocheck never throws on a well-formed history"
      (is (empty? errors) (pr-str (mapv (fn [[s e]] [s (str e)]) errors))))
    (testing ":unknown always comes with a reason"
      (is (empty? reasonless) (pr-str reasonless)))
    (testing "isocheck agrees with the oracle on every level of every history"
      (is (zero? (count disagree))
          (str (count disagree) " disagreements; first seeds and levels "
               (pr-str (mapv (juxt :seed :level) (take 20 disagree))))))
    (testing "the generated histories are not vacuous: each level both holds and fails often"
      (doseq [l levels]
        (is (> (get-in tally [l true]) (quot n 10)) (str l " rarely holds"))
        (is (> (get-in tally [l false]) (quot n 10)) (str l " rarely fails")))
      (is (> (count-where #(and (:snapshot-isolation %) (not (:serializable %)))) (quot n 50))
          "few histories separate snapshot isolation from serializability")
      (is (> (count-where #(and (:serializable %) (not (:strong-session-serializable %)))) (quot n 50))
          "few histories separate the session levels from the plain ones")
      (is (> (count-where #(and (:strong-session-serializable %) (not (:strict-serializable %)))) (quot n 50))
          "few histories separate the realtime levels from the session ones"))))

(deftest never-read-appends-agree-with-oracle
  ;; Histories with a key no read names, so several never-read appends per key (HistoryGen
  ;; with sink): the order among them is what the polygraph engine decides (AppendSearch).
  (let [n    (env-long "ORACLE_UNREAD_N" 3000)
        seed (env-long "ORACLE_SEED" 0)
        t0   (System/nanoTime)
        res  (run-random seed n #(HistoryGen/generate % 6 true))
        {:keys [unknown disagree errors searched]} res
        by   (fn [pred] (reduce + (for [[[_ how v] c] searched :when (pred how v)] c)))]
    (report! n (/ (- (System/nanoTime) t0) 1e6) res)
    (println "levels the engine decided with orders open (level, how, verdict):" (into (sorted-map) searched))
    (doseq [{:keys [seed how level history oracle isocheck]}
            (->> disagree (group-by :seed) vals (map first) (sort-by (comp count :history)) (take 4))]
      (println (describe-disagreement seed how history level oracle isocheck)))
    (is (empty? errors) (pr-str (mapv (fn [[s e]] [s (str e)]) errors)))
    (is (empty? unknown) (pr-str unknown))
    (is (zero? (count disagree))
        (str (count disagree) " disagreements; first seeds and levels " (pr-str (mapv (juxt :seed :level) (take 20 disagree)))))
    (testing "not vacuous: the engine decides many levels with open orders, both ways"
      (is (> (by (fn [_ v] (true? v))) (quot n 40)))
      (is (> (by (fn [_ v] (false? v))) (quot n 40)))
      (is (pos? (by (fn [how _] (= how :time-order)))))
      (is (pos? (by (fn [how _] (= how :pruning))))))))

;; ------------------------------------------------------------------ hand-written histories

(defn- txn
  "Invoke and completion ops for one transaction. mops are the completed
  micro-ops; the invocation gets them with reads blanked."
  [process type mops]
  [{:type :invoke, :process process, :f :txn,
    :value (mapv (fn [[f k v]] (if (= f :r) [f k nil] [f k v])) mops)}
   {:type type, :process process, :f :txn,
    :value (if (= type :ok)
             mops
             (mapv (fn [[f k v]] (if (= f :r) [f k nil] [f k v])) mops))}])

(defn- inv [process mops] (first (txn process :ok mops)))
(defn- ok [process mops] {:type :ok, :process process, :f :txn, :value mops})

(defn- verdicts [history]
  (into {} (map (fn [[l v]] [l (:valid? v)])) (oracle history)))

(def ser-all (zipmap levels (repeat true)))
(def none (zipmap levels (repeat false)))

(def literal-histories
  "[name history expected-oracle-verdicts]"
  [["write skew: SI yes, serializable no"
    [(inv 0 [[:r :x nil] [:r :y nil] [:append :x 1]])
     (inv 1 [[:r :x nil] [:r :y nil] [:append :y 2]])
     (ok 0 [[:r :x []] [:r :y []] [:append :x 1]])
     (ok 1 [[:r :x []] [:r :y []] [:append :y 2]])]
    {:strict-serializable false, :strong-session-serializable false, :serializable false,
     :strong-snapshot-isolation true, :strong-session-snapshot-isolation true,
     :snapshot-isolation true}]

   ["long fork: neither SI nor serializable"
    (vec (concat (txn 0 :ok [[:append :x 1]])
                 (txn 1 :ok [[:append :y 2]])
                 [(inv 2 [[:r :x nil] [:r :y nil]])
                  (inv 3 [[:r :x nil] [:r :y nil]])
                  (ok 2 [[:r :x [1]] [:r :y []]])
                  (ok 3 [[:r :x []] [:r :y [2]]])]))
    ;; realtime: T2 and T3 began after both writers completed, so even
    ;; without the fork the strict levels fail; the plain ones fail by the fork.
    none]

   ["long fork, concurrent with the writers"
    [(inv 0 [[:append :x 1]]) (inv 1 [[:append :y 2]])
     (inv 2 [[:r :x nil] [:r :y nil]]) (inv 3 [[:r :x nil] [:r :y nil]])
     (ok 0 [[:append :x 1]]) (ok 1 [[:append :y 2]])
     (ok 2 [[:r :x [1]] [:r :y []]]) (ok 3 [[:r :x []] [:r :y [2]]])]
    none]

   ["lost update: two read-modify-writes from the same version"
    [(inv 0 [[:r :x nil] [:append :x 1]])
     (inv 1 [[:r :x nil] [:append :x 2]])
     (ok 0 [[:r :x []] [:append :x 1]])
     (ok 1 [[:r :x []] [:append :x 2]])
     (inv 0 [[:r :x nil]])
     (ok 0 [[:r :x [1 2]]])]
    none]

   ["stale read: serializable yes, strict no"
    (vec (concat (txn 0 :ok [[:append :x 1]])
                 (txn 1 :ok [[:r :x []]])))
    {:strict-serializable false, :strong-session-serializable true, :serializable true,
     :strong-snapshot-isolation false, :strong-session-snapshot-isolation true,
     :snapshot-isolation true}]

   ["stale read in one session: strong-session levels no"
    (vec (concat (txn 0 :ok [[:append :x 1]])
                 (txn 0 :ok [[:r :x []]])))
    {:strict-serializable false, :strong-session-serializable false, :serializable true,
     :strong-snapshot-isolation false, :strong-session-snapshot-isolation false,
     :snapshot-isolation true}]

   ["an :info append that was read: it committed, all levels hold"
    (vec (concat (txn 0 :info [[:append :x 1]])
                 (txn 1 :ok [[:r :x [1]]])))
    ser-all]

   ["an :info append read before its invocation: only the realtime levels fail"
    (vec (concat (txn 1 :ok [[:r :x [1]]])
                 (txn 0 :info [[:append :x 1]])))
    ;; The read completed before the append was invoked, but without realtime
    ;; order nothing forbids committing the append first.
    {:strict-serializable false, :strong-session-serializable true, :serializable true,
     :strong-snapshot-isolation false, :strong-session-snapshot-isolation true,
     :snapshot-isolation true}]

   ["an :info append nobody read may have failed"
    (vec (concat (txn 0 :info [[:append :x 1]])
                 (txn 1 :ok [[:r :x []]])))
    ser-all]

   ["a :fail append that was read (aborted read): no level holds"
    (vec (concat (txn 0 :fail [[:append :x 1]])
                 (txn 1 :ok [[:r :x [1]]])))
    none]

   ["a never-completed append that was read: all levels hold"
    [(inv 0 [[:append :x 1]])
     (inv 1 [[:r :x nil]])
     (ok 1 [[:r :x [1]]])]
    ser-all]

   ["internal read: own appends follow the snapshot"
    (txn 0 :ok [[:append :x 1] [:r :x [1]] [:append :x 2] [:r :x [1 2]]])
    ser-all]

   ["internal read that misses its own append: no level holds"
    (txn 0 :ok [[:append :x 1] [:r :x []]])
    none]

   ["intermediate read: no level holds"
    (vec (concat (txn 0 :ok [[:append :x 1] [:append :x 2]])
                 (txn 1 :ok [[:r :x [1]]])))
    none]

   ["completion-only: no realtime order, so a stale read is strict-serializable"
    [(ok 0 [[:append :x 1]])
     (ok 1 [[:r :x []]])]
    ser-all]])

(deftest literal-histories-oracle
  (doseq [[nm history expected] literal-histories]
    (testing nm
      (is (= expected (verdicts history))
          (str nm ": oracle says " (verdicts history))))))

(deftest literal-histories-isocheck
  (doseq [[nm history expected] literal-histories]
    (testing nm
      (let [m   (isocheck history)
            got (into {} (for [l levels] [l (get-in m [:levels l :valid?])]))]
        (is (= expected got)
            (str nm ": isocheck says " got "\n" (isocheck-text history)))))))

;; ------------------------------------------------------------------ checking the oracle itself

(defn- naive-verdicts
  "The six verdicts by plain enumeration: every committed subset, every
  sequence of begin/commit events whose reads match (cut as soon as a begin's
  reads fail), each judged against every level's rules at the end. No
  memoisation, no shortcuts for read-only transactions. Only for histories
  with at most 4 possibly-committed transactions."
  [history]
  (let [o      (Oracle/fromJepsen history)
        txns   (vec (.txns o))
        n      (count txns)
        status (mapv #(.status ^isocheck.oracle.Oracle$Txn %) txns)
        must   (set (filter #(= Oracle/OK (status %)) (range n)))
        maybe  (filter #(= Oracle/INFO (status %)) (range n))
        mops   (mapv (fn [^isocheck.oracle.Oracle$Txn x]
                       (mapv vector (.isAppend x) (.key x) (.val x) (.read x)))
                     txns)
        wkeys  (mapv (fn [ms] (set (keep (fn [[a k]] (when a k)) ms))) mops)
        proc   (mapv #(.process ^isocheck.oracle.Oracle$Txn %) txns)
        pos    (mapv (fn [^isocheck.oracle.Oracle$Txn x] (if (>= (.inv x) 0) (.inv x) (.comp x))) txns)
        rt     (fn [a b] (let [^isocheck.oracle.Oracle$Txn x (txns a) ^isocheck.oracle.Oracle$Txn y (txns b)]
                           (and (= Oracle/OK (.status x)) (>= (.comp x) 0) (>= (.inv y) 0) (< (.comp x) (.inv y)))))
        reads-ok? (fn [t state]
                    (or (not= Oracle/OK (status t))
                        (loop [ms (mops t), own {}]
                          (if-let [[a k v r] (first ms)]
                            (if a
                              (recur (rest ms) (update own k (fnil conj []) v))
                              (and (= (vec r) (into (get state k []) (get own k [])))
                                   (recur (rest ms) own)))
                            true))))
        commit (fn [state t]
                 (reduce (fn [s [a k v]] (if a (update s k (fnil conj []) v) s)) state (mops t)))
        judge (fn [events committed]
                (let [idx (into {} (map-indexed (fn [i e] [e i]) events))
                      b #(idx [:b %]) c #(idx [:c %])
                      cs       (vec committed)
                      pairs    (for [x cs y cs :when (not= x y)] [x y])
                      serial   (every? #(= (inc (b %)) (c %)) cs)
                      disjoint (every? (fn [[x y]] (or (empty? (clojure.set/intersection (wkeys x) (wkeys y)))
                                                       (< (c x) (b y)) (< (c y) (b x))))
                                       pairs)
                      session  (every? (fn [[x y]] (or (not= (proc x) (proc y)) (> (pos x) (pos y)) (< (c x) (b y))))
                                       pairs)
                      realtime (every? (fn [[x y]] (or (not (rt x y)) (< (c x) (b y)))) pairs)]
                  (cond-> #{}
                    (and serial realtime session) (conj :strict-serializable)
                    (and serial session) (conj :strong-session-serializable)
                    serial (conj :serializable)
                    (and disjoint realtime session) (conj :strong-snapshot-isolation)
                    (and disjoint session) (conj :strong-session-snapshot-isolation)
                    disjoint (conj :snapshot-isolation))))
        ;; All levels satisfied by some completion of this prefix.
        walk (fn walk [committed todo open state events]
               (if (and (empty? todo) (empty? open))
                 (judge events committed)
                 (reduce into #{}
                         (concat (for [t todo :when (reads-ok? t state)]
                                   (walk committed (disj todo t) (conj open t) state (conj events [:b t])))
                                 (for [t open]
                                   (walk committed todo (disj open t) (commit state t) (conj events [:c t])))))))
        subsets (reduce (fn [ss t] (concat ss (map #(conj % t) ss))) [#{}] maybe)
        holds (reduce (fn [acc sub]
                        (let [committed (into must sub)]
                          (into acc (walk committed committed #{} {} []))))
                      #{} subsets)]
    (into {} (for [l levels] [l (contains? holds l)]))))

(deftest oracle-agrees-with-naive-enumeration
  (let [hs (->> (range 0 20000)
                (map #(vec (.ops (HistoryGen/generate %))))
                (filter (fn [h] (let [o (Oracle/fromJepsen h)]
                                  (<= (count (remove #(= Oracle/FAIL (.status ^isocheck.oracle.Oracle$Txn %)) (.txns o))) 4))))
                (take 600))]
    (is (= 600 (count hs)))
    (doseq [h hs]
      (let [fast (into {} (map (fn [[l v]] [l (:valid? v)])) (oracle h))
            slow (naive-verdicts h)]
        (is (= slow fast) (pr-str h))))))
