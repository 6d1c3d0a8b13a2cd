(ns isocheck.sim-test
  "Tests of the simulated stores (isocheck.sim) against oracles written here, independently of
  the simulator: the histories are replayed in commit order (completion order of the committed
  transactions) and every read is located in that replay. Each store's guarantee then becomes a
  condition on where reads may be located; each injected bug must leave the pattern it stands for
  in the history whenever the simulator says it fired, and never otherwise."
  (:require [clojure.set :as set]
            [clojure.test :refer [deftest is testing]])
  (:import [isocheck.sim SimConfig SimConfig$Builder SimConfig$KeyDist SimResult SimHistory Simulator
            Store Bug Levels]
           [isocheck.history History History$Workload Kw OpRecord OpSink]))

(set! *warn-on-reflection* true)

;; ---------------------------------------------------------------------------------------------
;; Running the simulator

(def stores {:sser Store/STRICT_SERIALIZABLE, :ser Store/SERIALIZABLE,
             :si Store/SNAPSHOT_ISOLATION, :rc Store/READ_COMMITTED})

(def bugs {:lost-update Bug/LOST_UPDATE, :long-fork Bug/LONG_FORK,
           :causality Bug/CAUSALITY_VIOLATION, :fractured Bug/FRACTURED_READ,
           :aborted-read Bug/ABORTED_READ, :intermediate-read Bug/INTERMEDIATE_READ,
           :stale-realtime Bug/STALE_REALTIME_READ})

(defn config
  "A SimConfig from a map; unspecified options keep the simulator's defaults."
  ^SimConfig [{:keys [seed store bug bug-rate workload txns sessions ops reads keys dist
                      max-writes fail info pending]}]
  (let [^SimConfig$Builder b (SimConfig/builder)]
    (when seed (.seed b (long seed)))
    (when store (.store b ^Store (stores store)))
    (when bug (.bug b ^Bug (bugs bug)))
    (when bug-rate (.bugRate b (double bug-rate)))
    (when (= workload :register) (.workload b History$Workload/REGISTER))
    (when txns (.txns b (int txns)))
    (when sessions (.sessions b (int sessions)))
    (when ops (.opsPerTxn b (int (first ops)) (int (second ops))))
    (when reads (.readFraction b (double reads)))
    (when keys (.keys b (int keys)))
    (when dist (.keyDist b (case dist :zipf SimConfig$KeyDist/ZIPF :hotspot SimConfig$KeyDist/HOTSPOT
                             SimConfig$KeyDist/UNIFORM)))
    (when max-writes (.maxWritesPerKey b (int max-writes)))
    (when fail (.failRate b (double fail)))
    (when info (.infoRate b (double info)))
    (when pending (.pendingAtEnd b (int pending)))
    (.build b)))

(def ^:private type-kw [:invoke :ok :fail :info])

(defn- mop [^OpRecord r i]
  (let [i (int i)
        k (.keyLong r i)]
    (case (long (.kind r i))
      0 [:r k (case (long (.valueTag r i))
                0 nil
                1 (.valueLong r i)
                3 (mapv #(.elemLong r i (int %)) (range (.listLen r i))))]
      1 [:append k (.valueLong r i)]
      2 [:w k (.valueLong r i)])))

(defn- op-map [^OpRecord r]
  {:index (.index r), :time (.time r), :type (type-kw (.type r)), :process (.process r),
   :f (keyword (Kw/nameOf (.f r))), :value (mapv #(mop r %) (range (.mopCount r)))})

(defn run-sim
  "Runs the simulator, collecting its ops as Jepsen-shaped maps: {:result SimResult, :ops [...]}."
  [opts]
  (let [acc (java.util.ArrayList.)
        sink (reify OpSink (op [_ r] (.add acc (op-map r))))
        res (Simulator/run (config opts) sink)]
    {:result res, :ops (vec acc), :workload (or (:workload opts) :append)}))

;; ---------------------------------------------------------------------------------------------
;; Transactions and the commit-order replay (the oracle)

(defn pair-txns
  "Pairs invocations with completions per process. Each txn: :id, :process, :type (:ok, :fail,
  :info, or :pending), :inv and :comp (op indices; :comp nil when pending), :value (the
  completion's micro-ops, or the invocation's when pending)."
  [ops]
  (let [[out pending]
        (reduce (fn [[out pending] op]
                  (if (= :invoke (:type op))
                    [out (assoc pending (:process op) op)]
                    (let [inv (pending (:process op))]
                      [(conj out {:id (count out), :process (:process op), :type (:type op),
                                  :inv (:index inv), :comp (:index op), :value (:value op),
                                  :inv-value (:value inv)})
                       (dissoc pending (:process op))])))
                [[] {}] ops)]
    (into out (map-indexed (fn [i inv] {:id (+ (count out) i), :process (:process inv), :type :pending,
                                        :inv (:index inv), :comp nil, :value (:value inv)})
                           (sort-by :index (vals pending))))))

(defn- writes [t] (filter #(#{:append :w} (first %)) (:value t)))

(defn- observed
  "Every [k v] some :ok read shows (list elements, or register values)."
  [txns lists?]
  (set (for [t txns :when (= :ok (:type t))
             [f k v] (:value t) :when (= f :r)
             e (if lists? v (when (some? v) [v]))]
         [k e])))

(declare locate-reads)

(defn replay
  "Replays the committed transactions in completion order. Committed: :ok txns with writes, plus
  any other txn whose written values some :ok read shows. Returns the txns, the commit order,
  per-key entries [{:c commit-index :state s :writer id}] (entry 0 is the initial state), and a
  function from an op index to the number of commits completed before it."
  [{:keys [ops workload]}]
  (let [lists? (= workload :append)
        txns (pair-txns ops)
        seen (observed txns lists?)
        committed (->> txns
                       (filter (fn [t] (and (seq (writes t))
                                            (or (= :ok (:type t))
                                                (some (fn [[_ k v]] (seen [k v])) (writes t))))))
                       (sort-by #(or (:comp %) Long/MAX_VALUE))
                       vec)
        entries (reduce
                 (fn [es [c t]]
                   (reduce (fn [es [k mops]]
                             (let [cur (peek (get es k [{:c 0 :state (if lists? [] nil) :writer nil}]))
                                   st (if lists? (into (:state cur) (map #(nth % 2) mops))
                                          (nth (last mops) 2))]
                               (update es k (fnil conj [{:c 0 :state (if lists? [] nil) :writer nil}])
                                       {:c c :state st :writer (:id t)})))
                           es (group-by second (writes t))))
                 {} (map vector (range 1 (inc (count committed))) committed))
        entry-index (into {} (for [[k es] entries [j e] (map-indexed vector es)] [[k (:state e)] j]))
        comp-idx (long-array (map :comp committed))
        before (fn [op-index]
                 (let [i (java.util.Arrays/binarySearch comp-idx (long op-index))]
                   (if (neg? i) (- (inc i)) i)))]
    (let [rp {:lists? lists?, :txns txns, :committed committed, :entries entries,
              :commit-of (into {} (map-indexed (fn [i t] [(:id t) (inc i)]) committed))
              :entry-index entry-index, :before before
              :writer-entry (into {} (for [[k es] entries [j e] (map-indexed vector es) :when (:writer e)]
                                       [[k (:writer e)] j]))}]
      (assoc rp :reads (into {} (for [t txns :when (= :ok (:type t))] [(:id t) (locate-reads rp t)]))))))

(defn locate-reads
  "The reads of :ok txn t located in the replay, in program order: {:k :j :lo :hi}, with :j the
  entry the read's external part matches (nil: no committed state ever looked like that) and
  [:lo :hi] the commit indices at which that state was current; internal reads (a register read
  after an own write) are {:k :internal true :ok? bool}. A list read that ends with the reader's
  own appends must show the state those appends were installed on, else :own-mismatch."
  [{:keys [lists? entries entry-index writer-entry]} t]
  (loop [mops (:value t), i 0, out []]
    (if-let [[f k v] (first mops)]
      (if (not= f :r)
        (recur (rest mops) (inc i) out)
        (let [own (for [[f2 k2 v2] (take i (:value t)) :when (and (= k2 k) (not= f2 :r))] v2)
              r (if lists?
                  (let [obs (or v [])
                        n (- (count obs) (count own))
                        ext (when (and (>= n 0) (= (seq own) (seq (subvec obs n)))) (subvec obs 0 n))]
                    (if ext
                      (let [j (if (empty? ext) 0 (entry-index [k ext]))
                            mine (when (seq own) (writer-entry [k (:id t)]))]
                        (if (and mine (not= j (dec mine)))
                          {:k k :j nil :own-mismatch true}
                          {:k k :j j :ext ext}))
                      {:k k :j nil :internal-mismatch true}))
                  (if (seq own)
                    {:k k :internal true :ok? (= v (last own))}
                    {:k k :j (if (nil? v) 0 (entry-index [k v]))}))
              es (get entries k)
              r (if-let [j (:j r)]
                  (assoc r :lo (if (zero? j) 0 (:c (nth es j)))
                         :hi (if (< (inc j) (count es)) (dec (:c (nth es (inc j)))) Long/MAX_VALUE))
                  r)]
          (recur (rest mops) (inc i) (conj out r))))
      out)))

(defn reads-of "t's located reads (see locate-reads)." [rp t] (get (:reads rp) (:id t)))

(defn- external [reads] (remove :internal reads))

(defn- intersect [reads]
  (reduce (fn [[lo hi] r] [(max lo (:lo r)) (min hi (:hi r))]) [0 Long/MAX_VALUE] reads))

(defn- read-problems
  "Reads of t no committed state explains (thin air, aborted-only values, intermediate states,
  own writes missing)."
  [reads]
  (filter (fn [r] (if (:internal r) (not (:ok? r)) (nil? (:j r)))) reads))

;; ---------------------------------------------------------------------------------------------
;; Store oracles: each returns the :ok txns that break the store's guarantee, with a reason

(defn- ok-txns [rp] (filter #(= :ok (:type %)) (:txns rp)))

(defn sser-violations
  "Strict serializability, as the store implements it: every :ok txn's reads are the state just
  before its completion (plus its own writes)."
  [rp]
  (for [t (ok-txns rp)
        :let [reads (reads-of rp t), now ((:before rp) (:comp t))
              [lo hi] (intersect (external reads))]
        :when (or (seq (read-problems reads)) (not (<= lo now hi)))]
    {:txn t :reason (if (seq (read-problems reads)) :bad-read :not-now)}))

(defn ser-violations
  "Strong-session serializability, as the store implements it: read-write txns read the state just
  before their completion; read-only ones a consistent state, no older than what their process
  already wrote or read, and not from the future."
  [rp]
  (second
   (reduce (fn [[floors out] t]
             (let [reads (reads-of rp t), now ((:before rp) (:comp t))
                   [lo hi] (intersect (external reads))
                   p (:process t), floor (get floors p 0)
                   rw? (seq (writes t))]
               (cond
                 (seq (read-problems reads)) [floors (conj out {:txn t :reason :bad-read})]
                 rw? (if (<= lo now hi)
                       [(assoc floors p ((:commit-of rp) (:id t))) out]
                       [floors (conj out {:txn t :reason :not-now})])
                 (<= (max lo floor) (min hi now)) [(assoc floors p (max lo floor)) out]
                 :else [floors (conj out {:txn t :reason (if (< hi floor) :older-than-session :future)})])))
           [{} []] (ok-txns rp))))

(defn si-violations
  "Strong snapshot isolation, as the store implements it: each :ok txn reads one committed
  snapshot taken between its invocation and its completion (plus its own writes), and no other
  committed txn wrote a key it writes between that snapshot and its commit (first committer wins)."
  [rp]
  (let [{:keys [before entries commit-of]} rp]
    (for [t (ok-txns rp)
          :let [reads (reads-of rp t)
                [lo hi] (intersect (external reads))
                inv (before (:inv t)), now (before (:comp t))
                s (min hi now)
                c (commit-of (:id t))
                reason (cond
                         (seq (read-problems reads)) :bad-read
                         (> lo hi) :no-snapshot
                         (> (max lo inv) (min hi now)) :stale
                         (and c (some (fn [[_ k]] (some #(< s (:c %) c) (get entries k))) (writes t))) :fcw)]
          :when reason]
      {:txn t :reason reason})))

(defn rc-violations
  "Read committed, as the store implements it: each read of an :ok txn sees a committed state
  current at some moment between the txn's invocation and completion, those moments not going
  backwards in program order (plus its own writes)."
  [rp]
  (for [t (ok-txns rp)
        :let [reads (reads-of rp t)
              inv ((:before rp) (:inv t)), now ((:before rp) (:comp t))
              reason (if (seq (read-problems reads))
                       :bad-read
                       (loop [cur inv, rs (external reads)]
                         (when-let [r (first rs)]
                           (if (<= (max cur (:lo r)) (min now (:hi r)))
                             (recur (max cur (:lo r)) (rest rs))
                             :not-current))))]
        :when reason]
    {:txn t :reason reason}))

(declare entry-of-writer located)

(defn mav-violations
  "Monotonic atomic view, state-based: the external reads of an :ok txn, in program order, are
  located at commit points that never go backwards (no realtime bound; staleness is allowed).
  With the replay's commit order as the commit order this is what Plume's RC adds to reading
  committed data."
  [rp]
  (for [t (ok-txns rp)
        :let [reads (reads-of rp t)]
        :when (or (seq (read-problems reads))
                  (loop [cur (num 0), rs (external reads)]
                    (when-let [r (first rs)]
                      (if (<= (max cur (:lo r)) (:hi r)) (recur (max cur (:lo r)) (rest rs)) true))))]
    t))

(defn ci-violations
  "Cut isolation: an :ok txn read a key twice (neither after writing it) and saw two versions."
  [rp]
  (for [t (ok-txns rp)
        :let [rs (external (reads-of rp t))]
        :when (some (fn [[_ g]] (> (count (set (map :j g))) 1)) (group-by :k rs))]
    t))

(defn session-regressions
  "An :ok txn reads key k at a version older than one its process wrote (:wrote; read atomicity
  forbids it through session order) or read before (:read; causal consistency forbids it)."
  [rp]
  (let [by-id (into {} (map (juxt :id identity) (:txns rp)))
        loc (located rp)]
    (second
     (reduce (fn [[seen out] t]
               (let [p (:process t)
                     m (get loc (:id t))
                     bad (for [[k r] m
                               :let [[j how] (get-in seen [p k])]
                               :when (and j (< (:j r) j))]
                           {:txn t :k k :kind how})
                     seen (reduce (fn [sn [k r]]
                                    (update-in sn [p k] (fn [[j how]] (if (and j (>= j (:j r))) [j how] [(:j r) :read]))))
                                  seen m)
                     seen (reduce (fn [sn k]
                                    (if-let [e (entry-of-writer rp k (:id t))]
                                      (assoc-in sn [p k] [e :wrote])
                                      sn))
                                  seen (distinct (map second (writes t))))]
                 [seen (into out bad)]))
             [{} []]
             (sort-by :comp (ok-txns rp))))))

;; ---------------------------------------------------------------------------------------------
;; Bug patterns, read off the history

(defn- located
  "For each :ok txn, its external reads by key (the first one of each key): {id {k read}}."
  [rp]
  (into {} (for [t (ok-txns rp)]
             [(:id t) (reduce (fn [m r] (if (or (:internal r) (nil? (:j r)) (m (:k r))) m (assoc m (:k r) r)))
                              {} (reads-of rp t))])))

(defn- writer-of [rp k j] (:writer (nth (get (:entries rp) k) j)))

(defn- entry-of-writer
  "The entry index at which txn id's write to k was installed."
  [rp k id]
  ((:writer-entry rp) [k id]))

(defn aborted-reads
  "[reader value] pairs: an :ok read shows a value that only a :fail txn wrote."
  [rp]
  (let [failed (set (for [t (:txns rp) :when (= :fail (:type t)) [_ k v] (writes t)] [k v]))]
    (for [t (ok-txns rp), [f k v] (:value t) :when (= f :r)
          e (if (:lists? rp) v (when (some? v) [v]))
          :when (failed [k e])]
      [t e])))

(defn intermediate-reads
  "An :ok read of another txn's non-final write to a key: the read's last element (list) or value
  (register) is a write its writer followed with another write to the same key."
  [rp]
  (let [non-final (into {} (for [t (:txns rp)
                                 [k ws] (group-by second (writes t))
                                 [_ _ v] (butlast ws)]
                             [[k v] (:id t)]))]
    (for [t (ok-txns rp), [f k v] (:value t) :when (= f :r)
          :let [e (if (:lists? rp) (peek (or v [])) v)
                w (non-final [k e])]
          :when (and w (not= w (:id t)))]
      [t k e])))

(defn lost-updates
  "Versions [k j] that two or more committed :ok txns read (before writing k) and then wrote, each
  with the ids of those txns: all but one of them lost an update."
  [rp]
  (let [loc (located rp)
        first-index (fn [mops k write?]
                      (first (keep-indexed (fn [i [f k2]] (when (and (= k2 k) (= write? (not= f :r))) i)) mops)))]
    (->> (for [t (ok-txns rp)
               [k r] (get loc (:id t))
               :let [ri (first-index (:value t) k false), wi (first-index (:value t) k true)]
               :when (and wi (< ri wi))]
           [[k (:j r)] (:id t)])
         (group-by first)
         (keep (fn [[kj ps]] (when (> (count ps) 1) [kj (map second ps)]))))))

(defn long-forks
  "Pairs of :ok readers that both read x and y and saw them in incompatible orders: one saw a
  later version of x and an earlier one of y than the other."
  [rp]
  (let [loc (located rp)
        by-pair (group-by first
                          (for [[id m] loc, x (keys m), y (keys m) :when (< x y)]
                            [[x y] [(get-in m [x :j]) (get-in m [y :j])]]))]
    (for [[[x y] vs] by-pair
          [ax ay] (map second vs), [bx by] (map second vs)
          :when (and (> ax bx) (< ay by))]
      [x y])))

(defn causality-violations
  "T3 reads y from T2, T2 read x from T1, and T3 reads a version of x older than T1's."
  [rp]
  (let [loc (located rp)]
    (for [[t3 m3] loc, [y ry] m3 :when (pos? (:j ry))
          :let [t2 (writer-of rp y (:j ry))]
          [x rx] (get loc t2) :when (and (not= x y) (pos? (:j rx)))
          :let [r3x (get m3 x)]
          :when (and r3x (< (:j r3x) (:j rx)))]
      [t3 t2 x y])))

(defn fractured-reads
  "R reads x from C (C wrote x's version R saw), C also wrote y, and R saw a version of y older than C's."
  [rp]
  (let [loc (located rp)]
    (for [[r m] loc, [x rx] m :when (pos? (:j rx))
          :let [c (writer-of rp x (:j rx))]
          [y ry] m :when (not= x y)
          :let [cy (entry-of-writer rp y c)]
          :when (and cy (< (:j ry) cy))]
      [r c x y])))

(defn stale-realtime-reads
  "An :ok read-only txn read a version of k older than one whose writer completed before the
  reader was invoked."
  [rp]
  (let [loc (located rp)
        by-id (into {} (map (juxt :id identity) (:txns rp)))]
    (for [[id m] loc :let [t (by-id id)] :when (empty? (writes t))
          [k r] m
          :let [es (get (:entries rp) k), nxt (inc (:j r))]
          :when (and (< nxt (count es))
                     (< (:comp (by-id (:writer (nth es nxt)))) (:inv t)))]
      [t k])))

;; ---------------------------------------------------------------------------------------------
;; Tests: shape of the histories

(defn- all-combos []
  (concat (for [s (keys stores)] [s nil])
          (for [[bk ^Bug b] bugs, [sk s] stores :when (.contains (.stores b) s)] [sk bk])))

(deftest determinism
  (doseq [[store bug] [[:sser nil] [:si :long-fork] [:rc :aborted-read] [:ser nil]]
          workload [:append :register]]
    (let [opts {:seed 11 :store store :bug bug :workload workload :txns 500}
          a (run-sim opts), b (run-sim opts), c (run-sim (assoc opts :seed 12))]
      (is (= (:ops a) (:ops b)) (str "same seed, same history: " opts))
      (is (= (str (:result a)) (str (:result b))))
      (is (not= (:ops a) (:ops c)) "another seed, another history"))))

(deftest histories-build
  (doseq [[store bug] (all-combos), workload [:append :register]]
    (let [c (config {:seed 3 :store store :bug bug :workload workload :txns 800})
          ^SimHistory sh (Simulator/history c)
          ^History h (.history sh)
          ^SimResult r (.result sh)
          [ok fail info] (seq (.statusCounts h))]
      (testing (str store " " bug " " workload)
        (is (= (.txns r) (.nTxns h) 800))
        (is (= [(.ok r) (.fail r) (+ (.info r) (.pending r))] [ok fail info]))
        (is (= (.opsSeen h) (.ops r)))
        (is (zero? (.opsSkipped h)) "every op is a txn op")
        (is (= (if (= workload :append) History$Workload/APPEND History$Workload/REGISTER) (.workload h)))
        (is (= 2 (.pending r)))))))

(deftest jepsen-shape
  (doseq [[store bug] [[:sser nil] [:si nil] [:rc nil] [:si :lost-update] [:ser :intermediate-read]]
          workload [:append :register]]
    (let [{:keys [ops result]} (run-sim {:seed 5 :store store :bug bug :workload workload :txns 800 :info 0.05})
          txns (pair-txns ops)
          procs (group-by :process txns)]
      (testing (str store " " bug " " workload)
        (is (= (range (count ops)) (map :index ops)) ":index is the op's position")
        (is (apply < (map :time ops)) ":time strictly increases")
        (is (every? #(= :txn (:f %)) ops))
        (is (every? (fn [t] (or (= :pending (:type t))
                                (= (map (fn [[f k v]] [f k (when (not= f :r) v)]) (:value t))
                                   (map (fn [[f k v]] [f k (when (not= f :r) v)]) (:inv-value t)))))
                    txns)
            "completions repeat their invocation's micro-ops")
        (is (every? (fn [t] (or (= :ok (:type t)) (every? (fn [[f _ v]] (or (not= f :r) (nil? v))) (:value t))))
                    txns)
            "only :ok completions carry read values")
        (is (every? (fn [[f _ v]] (or (not= f :r) (nil? v))) (mapcat :value (filter #(= :invoke (:type %)) ops)))
            "invocations carry nil reads")
        (is (every? (fn [[_ ts]] (every? #(not= :info (:type %)) (butlast (sort-by :inv ts)))) procs)
            "a process that got :info never runs again")
        (is (= (.info ^SimResult result) (count (filter #(= :info (:type %)) txns))))
        (let [ws (for [t txns, [_ k v] (writes t)] [k v])]
          (is (= (count ws) (count (set ws))) "values are unique per key"))
        (is (<= (count (filter #(= :pending (:type %)) txns)) 2))))))

(deftest key-rotation
  (let [{:keys [ops]} (run-sim {:seed 2 :store :si :txns 3000 :keys 20 :max-writes 8 :reads 0.3})
        per-key (frequencies (for [t (pair-txns ops), [_ k] (writes t)] k))]
    (is (> (count per-key) 20) "keys were retired and replaced")
    (is (<= (apply max (vals per-key)) (+ 8 (* 10 4))) "no key grows far past maxWritesPerKey")
    (is (>= (count (filter #(>= % 8) (vals per-key))) 10) "retired keys had their full share"))
  (let [{:keys [ops]} (run-sim {:seed 2 :store :si :txns 1000 :keys 20 :max-writes 0})]
    (is (= 20 (count (set (for [t (pair-txns ops), [_ k] (:value t)] k)))) "0 never rotates")))

(deftest key-distributions
  (doseq [dist [:uniform :zipf :hotspot]]
    (let [{:keys [ops]} (run-sim {:seed 9 :txns 3000 :keys 100 :max-writes 0 :dist dist})
          freq (frequencies (for [t (pair-txns ops), [_ k] (:value t)] k))
          top (reduce + (take 20 (sort > (vals freq))))
          total (reduce + (vals freq))
          share (/ (double top) total)]
      (testing (name dist)
        (case dist
          :uniform (is (< share 0.3))
          :hotspot (is (< 0.7 share 0.9))
          :zipf (is (< 0.6 share 0.8)))))))

;; ---------------------------------------------------------------------------------------------
;; Tests: each store keeps its guarantee

(def ^:private workloads [:append :register])

(defn- clean [store seed workload & {:as more}]
  (replay (run-sim (merge {:seed seed :store store :workload workload :txns 1500 :info 0.03} more))))

(deftest strict-serializable-store
  (doseq [w workloads, seed [1 2]]
    (let [rp (clean :sser seed w :dist :zipf :keys 50)]
      (is (empty? (sser-violations rp)) (str w " seed " seed))
      (is (empty? (aborted-reads rp)))
      (is (empty? (stale-realtime-reads rp))))))

(deftest serializable-store
  (doseq [w workloads, seed [1 2]]
    (let [rp (clean :ser seed w :dist :zipf :keys 50 :reads 0.7)]
      (is (empty? (ser-violations rp)) (str w " seed " seed))
      (is (seq (sser-violations rp)) "read-only txns do read stale prefixes: not strict")
      (is (every? #(= :not-now (:reason %)) (sser-violations rp)))
      (is (every? #(empty? (writes (:txn %))) (sser-violations rp)) "only read-only txns are stale"))))

(deftest snapshot-isolation-store
  (doseq [w workloads, seed [1 2]]
    (let [rp (clean :si seed w :dist :zipf :keys 30)]
      (is (empty? (si-violations rp)) (str w " seed " seed))
      (is (empty? (lost-updates rp)))
      (is (empty? (long-forks rp)))
      (is (empty? (causality-violations rp)))
      (is (empty? (fractured-reads rp)))
      (is (empty? (session-regressions rp))))))

(deftest snapshot-isolation-reads-are-not-at-commit
  (let [rp (clean :si 4 :register :keys 4 :ops [2 4] :reads 0.5)
        ser (ser-violations rp)]
    (is (empty? (si-violations rp)))
    (is (seq (filter #(= :not-now (:reason %)) ser))
        "some read-write txn commits on a snapshot that is no longer current: SI, not serializable")))

(deftest read-committed-store
  (doseq [w workloads, seed [1 2]]
    (let [rp (clean :rc seed w :dist :zipf :keys 30)]
      (is (empty? (rc-violations rp)) (str w " seed " seed))
      (is (empty? (mav-violations rp)))
      (is (empty? (aborted-reads rp)))
      (is (empty? (intermediate-reads rp)))))
  (testing "read committed is weaker than SI: lost updates, reads of moving state"
    (let [rp (clean :rc 3 :append :keys 5 :ops [2 6])]
      (is (empty? (rc-violations rp)))
      (is (seq (lost-updates rp)))
      (is (seq (ci-violations rp)) "non-repeatable reads: read committed does not give cut isolation")
      (is (seq (filter #(#{:no-snapshot} (:reason %)) (si-violations rp)))))))

;; ---------------------------------------------------------------------------------------------
;; Tests: each bug fires, and its firing is in the history

(defn- bug-run [store bug workload seed & {:as more}]
  (let [sim (run-sim (merge {:seed seed :store store :bug bug :workload workload :txns 1000} more))]
    [(:result sim) (replay sim)]))

(defn- levels [s] (set s))

(deftest aborted-read
  (doseq [store (keys stores), w workloads]
    (let [[^SimResult r rp] (bug-run store :aborted-read w 1)]
      (testing (str store " " w)
        (is (pos? (.bugFirings r)))
        (is (>= (count (set (map first (aborted-reads rp)))) (.bugFirings r))
            "each firing leaves an :ok read of a :fail txn's write")
        ;; Cut isolation (Plume Def. 3) forbids only non-repeatable reads.
        (is (= (disj (set (Levels/ALL)) "ci") (levels (.mustViolate r))))
        (is (every? #{"ci"} (.mustSatisfy r)))))))

(deftest intermediate-read
  (doseq [store (keys stores), w workloads]
    (let [[^SimResult r rp] (bug-run store :intermediate-read w 1)]
      (testing (str store " " w)
        (is (pos? (.bugFirings r)))
        (is (>= (count (intermediate-reads rp)) (.bugFirings r)))
        (is (= (disj (set (Levels/ALL)) "ci") (levels (.mustViolate r))))))))

(deftest lost-update
  (doseq [w workloads, [seed more] [[1 {}] [2 {:keys 3 :dist :uniform}]]]
    (let [[^SimResult r rp] (apply bug-run :si :lost-update w seed (mapcat identity more))
          v (si-violations rp)]
      (testing (str w " seed " seed)
        (is (pos? (.bugFirings r)))
        (is (>= (reduce + (map (fn [[_ ts]] (dec (count ts))) (lost-updates rp))) (.bugFirings r)))
        (is (seq v))
        (is (every? #(= :fcw (:reason %)) v) "only first-committer-wins is skipped; snapshots stay exact")
        (is (empty? (causality-violations rp)))
        (is (empty? (fractured-reads rp)))
        (is (empty? (session-regressions rp)))
        (is (empty? (mav-violations rp)))
        (is (empty? (ci-violations rp)))
        (is (<= (.bugFirings r) (count v) (.bugActions r)))
        (is (= #{"tcc" "ra" "rc" "ci"} (levels (.mustSatisfy r))))
        (is (contains? (levels (.mustViolate r)) "snapshot-isolation"))))))

(deftest long-fork
  (doseq [w workloads, seed [1 2]]
    (let [[^SimResult r rp] (bug-run :si :long-fork w seed)
          v (si-violations rp)]
      (testing (str w " seed " seed)
        (is (pos? (.bugFirings r)))
        (is (>= (count (long-forks rp)) (.bugFirings r)))
        (is (every? #(#{:no-snapshot :stale} (:reason %)) v) "only the forked readers deviate")
        (is (every? #(empty? (writes (:txn %))) v))
        (is (empty? (causality-violations rp)) "each reader's view is causally closed")
        (is (empty? (fractured-reads rp)))
        (is (empty? (session-regressions rp)))
        (is (empty? (mav-violations rp)))
        (is (empty? (ci-violations rp)))
        (is (= #{"tcc" "ra" "rc" "ci"} (levels (.mustSatisfy r))))))))

(deftest causality-violation
  (doseq [w workloads, seed [1 2]]
    (let [[^SimResult r rp] (bug-run :si :causality w seed)
          v (si-violations rp)]
      (testing (str w " seed " seed)
        (is (pos? (.bugFirings r)))
        (is (>= (count (set (map first (causality-violations rp)))) (.bugFirings r)))
        (is (empty? (fractured-reads rp)) "no reader reads directly from the writer it misses")
        (is (empty? (filter #(= :wrote (:kind %)) (session-regressions rp))) "no reader misses its own session's writes")
        (is (empty? (mav-violations rp)))
        (is (empty? (ci-violations rp)))
        (is (every? #(#{:no-snapshot :stale} (:reason %)) v))
        (is (every? #(empty? (writes (:txn %))) v))
        (is (= #{"ra" "rc" "ci"} (levels (.mustSatisfy r))))
        (is (contains? (levels (.mustViolate r)) "tcc"))))))

(deftest fractured-read
  (doseq [w workloads, seed [1 2]]
    (let [[^SimResult r rp] (bug-run :si :fractured w seed)
          v (si-violations rp)]
      (testing (str w " seed " seed)
        (is (pos? (.bugFirings r)))
        (is (>= (count (set (map first (fractured-reads rp)))) (.bugFirings r)))
        (is (empty? (mav-violations rp)) "the stale key is read first: monotonic atomic view holds")
        (is (empty? (ci-violations rp)))
        (is (every? #(#{:no-snapshot :stale} (:reason %)) v))
        (is (every? #(empty? (writes (:txn %))) v))
        (is (= #{"rc" "ci"} (levels (.mustSatisfy r))))
        (is (contains? (levels (.mustViolate r)) "ra"))))))

(deftest stale-realtime-read
  (doseq [w workloads, seed [1 2]]
    (let [[^SimResult r rp] (bug-run :sser :stale-realtime w seed)]
      (testing (str w " seed " seed)
        (is (pos? (.bugFirings r)))
        (is (>= (count (set (map first (stale-realtime-reads rp)))) (.bugFirings r)))
        (is (empty? (ser-violations rp)) "strong-session serializability is kept")
        (is (empty? (session-regressions rp)))
        (is (= #{"strict-serializable" "strong-snapshot-isolation"} (levels (.mustViolate r))))
        (is (contains? (levels (.mustSatisfy r)) "strong-session-serializable"))))))

(deftest bugs-off-or-idle
  (testing "a bug that never gets an opportunity leaves the store's guarantee intact"
    (let [[^SimResult r rp] (bug-run :si :long-fork :append 1 :bug-rate 0.0)]
      (is (zero? (.bugActions r)))
      (is (= (levels (.guarantees Store/SNAPSHOT_ISOLATION)) (levels (.mustSatisfy r))))
      (is (empty? (.mustViolate r)))
      (is (empty? (si-violations rp)))))
  (testing "bugs only attach to the stores they are defined for"
    (is (thrown? IllegalArgumentException (config {:store :rc :bug :long-fork})))
    (is (thrown? IllegalArgumentException (config {:store :si :bug :stale-realtime})))))

(deftest level-sets
  (is (= 10 (count (Levels/ALL))))
  (is (= #{"rc"} (levels (.guarantees Store/READ_COMMITTED))) "read committed does not promise cut isolation")
  (is (not (contains? (levels (.guarantees Store/SERIALIZABLE)) "strict-serializable")))
  (is (contains? (levels (.guarantees Store/SERIALIZABLE)) "strong-session-snapshot-isolation"))
  (is (not (contains? (levels (.guarantees Store/SNAPSHOT_ISOLATION)) "serializable")))
  (doseq [^Bug b (Bug/values)]
    (is (empty? (set/intersection (levels (.breaks b)) (levels (.keeps b)))) (str b))))
