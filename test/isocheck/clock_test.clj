(ns isocheck.clock-test
  "Tests of isocheck.clock: flat vector clocks and tree clocks (Mathur et al., ASPLOS'22, as Plume
  §4.3 uses them) built over the same graphs must give the same entries, and reaches must agree
  with breadth-first search. Graphs are sessions (chains) plus cross edges, built the way the
  checker builds CO: start a node, join its SO predecessor, then its other predecessors."
  (:require [clojure.test :refer [deftest is testing]])
  (:import [isocheck.clock ChainClocks Clocks ClockKind TreeClocks VectorClocks]
           [java.util Random]))

(set! *warn-on-reflection* true)

;; ---------------------------------------------------------------------------------------------
;; Building clocks from a graph

(defn build
  "Clocks of kind (\"vector\" or \"tree\") for graph g: {:k sessions, :session and :index per node
  (0-based session, 1-based position), :order the processing order, :preds per node, SO
  predecessor first}."
  ^Clocks [kind {:keys [k session index order preds]}]
  (let [c (ClockKind/ofKind kind (count session) k)]
    (doseq [t order]
      (.start c t (session t) (index t))
      (doseq [p (preds t)] (.join c t p)))
    c))

(defn build-interleaved
  "Like build, but builds up to three nodes at once, their joins taken in turn, as the Clocks
  contract allows (a node is opened only when none of its predecessors is still open)."
  ^Clocks [kind {:keys [k session index order preds]}]
  (let [c (ClockKind/ofKind kind (count session) k)
        flush (fn [open]
                (loop [open open]
                  (when (seq open)
                    (doseq [[t [p]] open] (.join c t p))
                    (recur (keep (fn [[t ps]] (when (next ps) [t (next ps)])) open)))))]
    (loop [[t & more :as todo] order, open []]
      (cond (empty? todo) (flush (filter (comp seq second) open))
            (or (= 3 (count open)) (some (set (map first open)) (preds t)))
            (do (flush (filter (comp seq second) open)) (recur todo []))
            :else (do (.start c t (session t) (index t))
                      (recur more (conj open [t (preds t)])))))
    c))

(defn entries
  "Every clock as a vector of its entries, node by node."
  [^Clocks c n]
  (mapv (fn [t] (mapv #(.get c t %) (range (.sessions c)))) (range n)))

(defn graph
  "A graph from sessions given as vectors of node ids (in session order), cross edges [from to],
  and a processing order; preds are the SO predecessor then the cross sources in edge order."
  [sessions cross order]
  (let [n (reduce + (map count sessions))
        at (into {} (for [[s ts] (map-indexed vector sessions), [i t] (map-indexed vector ts)]
                      [t [s (inc i)]]))
        so (into {} (mapcat #(map vector (rest %) %) sessions))
        preds (reduce (fn [m [a b]] (update m b conj a))
                      (into {} (for [t (range n)] [t (if-let [p (so t)] [p] [])]))
                      cross)]
    {:k (count sessions), :session (mapv (comp first at) (range n)),
     :index (mapv (comp second at) (range n)), :order order, :preds preds}))

;; ---------------------------------------------------------------------------------------------
;; Known answers

;; Sessions A = t0 t1, B = t2 t3, C = t4 t5; cross edges t2 → t4, t4 → t1, t0 → t3, t3 → t5.
(def small
  (graph [[0 1] [2 3] [4 5]] [[2 4] [4 1] [0 3] [3 5]] [0 2 4 1 3 5]))

(deftest small-dag-known-entries
  (doseq [kind ["vector" "tree"]]
    (testing kind
      (let [c (build kind small)]
        (is (= [[1 0 0]    ; t0 = a1
                [2 1 1]    ; t1 = a2 ← a1, c1 (← b1)
                [0 1 0]    ; t2 = b1
                [1 2 0]    ; t3 = b2 ← b1, a1
                [0 1 1]    ; t4 = c1 ← b1
                [1 2 2]]   ; t5 = c2 ← c1, b2 (← a1)
               (entries c 6)))
        (is (.reaches c 0 1 5) "a1 reaches c2 through b2")
        (is (not (.reaches c 0 2 5)) "a2 does not reach c2")
        (is (.reaches c 1 1 1) "b1 reaches a2 through c1")
        (is (.reaches c 2 2 5) "reflexive")))))

;; Plume Fig. 6 (Example 3), processed in a topological order. Sessions (0-based) s1 = t1 t4,
;; s2 = t2 t5, s3 = t3 t9, s4 = t6 t7 t8, s5 = t10 t11; edges t1 → t2 (WR x), t2 → t3, t4 → t5
;; (WR z), t5 → t6 (WR z), t3 → t7 (WR z), t6 → t10, t7 → t11. Node ids are the t numbers
;; minus one.
(def fig6
  (graph [[0 3] [1 4] [2 8] [5 6 7] [9 10]]
         [[0 1] [1 2] [3 4] [4 5] [2 6] [5 9] [6 10]]
         [0 1 2 3 4 5 6 7 8 9 10]))

(deftest tree-join-prunes-plume-fig6
  (let [^TreeClocks c (ClockKind/ofKind "tree" 11 5)
        {:keys [session index preds]} fig6
        step (fn [t] (.start c t (session t) (index t)) (doseq [p (preds t)] (.join c t p)))]
    (run! step [0 1 2 3 4 5])
    (is (= "1=2{0=2@2}" (.tree c 4)) "t5 learned t4 on s1 through t4 → t5")
    (is (= "3=1{1=2@1{0=2@2}}" (.tree c 5)))
    (is (= "2=1{1=1@1{0=1@1}}" (.tree c 2)))
    (testing "t7 joins t3: s2 is known newer (t5 via t6), so s1 below it is never examined"
      (.start c 6 3 2)
      (.join c 6 5)
      (let [before (.examined c)]
        (.join c 6 2)
        (is (= 2 (- (.examined c) before)) "t3's root s3 and its child s2, not s1"))
      (is (= "3=2{2=1@2, 1=2@1{0=2@2}}" (.tree c 6)))
      (is (= [2 2 1 2 0] (mapv #(.get c 6 %) (range 5)))))
    (run! step [7 8 9])
    (testing "t11 joins t7 knowing s4 at t6: among s4's children, s2 (attached at 1) stops the walk"
      (.start c 10 4 2)
      (.join c 10 9)
      (let [before (.examined c), walked (.walked c)]
        (.join c 10 6)
        (is (= 3 (- (.examined c) before)) "root s4, then s3 (new), then s2: break")
        (is (= 4 (- (.walked c) walked)) "s4 moves, so t11's own tree (4 sessions) is indexed once"))
      (is (= [2 2 1 2 2] (mapv #(.get c 10 %) (range 5))))
      (is (= "4=2{3=2@2{2=1@2, 1=2@1{0=2@2}}}" (.tree c 10))))
    (is (= (entries (build "vector" fig6) 11) (entries c 11)))))

;; ---------------------------------------------------------------------------------------------
;; Differential: random DAGs, vector vs tree vs breadth-first search

(defn- shuffled [^Random rnd xs]
  (let [l (java.util.ArrayList. ^java.util.Collection (vec xs))]
    (java.util.Collections/shuffle l rnd)
    (vec l)))

(defn random-graph
  "A random graph of n nodes over k sessions, processed in a random order that interleaves the
  sessions (shuffled session labels: the i-th occurrence of s is position i of s) under random
  node ids. Each node gets up to max-cross cross edges from nodes processed before it, half of
  them from the last 20 (long causal chains), the rest from anywhere (same session included),
  joined after its SO predecessor in random order."
  [^Random rnd k n max-cross]
  (let [labels (shuffled rnd (repeatedly n #(.nextInt rnd (int k))))
        ids (shuffled rnd (range n))
        pick (fn [j] (if (and (> j 20) (.nextBoolean rnd))
                       (- j 1 (.nextInt rnd 20))
                       (.nextInt rnd (int j))))]
    (loop [j 0, last-of {}, len {}
           g {:k k, :session (vec (repeat n 0)), :index (vec (repeat n 0)), :order [], :preds {}}]
      (if (= j n)
        g
        (let [s (labels j), t (ids j), i (inc (long (len s 0)))
              cross (when (pos? j) (repeatedly (.nextInt rnd (int (inc max-cross))) #(ids (pick j))))
              ps (cond->> (shuffled rnd cross) (last-of s) (cons (last-of s)))]
          (recur (inc j) (assoc last-of s t) (assoc len s i)
                 (-> g (assoc-in [:session t] s) (assoc-in [:index t] i)
                     (update :order conj t) (assoc-in [:preds t] (vec ps)))))))))

(defn first-difference
  "The first entry where two clocks over n nodes differ, as {:t :s kind value ...}, or nil."
  [^Clocks a ^Clocks b n]
  (let [k (.sessions a)]
    (loop [t 0, s 0]
      (cond (= t n) nil
            (= s k) (recur (inc t) 0)
            (not= (.get a t s) (.get b t s))
            {:t t, :s s, (keyword (.name a)) (.get a t s), (keyword (.name b)) (.get b t s)}
            :else (recur t (inc s))))))

(declare reach-fn-difference)

(defn reach-difference
  "The first pair (a from sources, any b) where c's reaches disagrees with breadth-first search
  over the graph's edges (reflexive), as {:from :to :bfs :clocks}, or nil."
  [^Clocks c {:keys [session index] :as g} sources]
  (reach-fn-difference (fn [a b] (.reaches c (session a) (index a) b)) g sources))

(defn reach-fn-difference
  "Like reach-difference, for a function (reaches? a b)."
  [reaches? {:keys [session preds]} sources]
  (let [n (count session)
        succs (reduce (fn [m [t ps]] (reduce #(update %1 %2 conj t) m ps)) {} preds)]
    (some (fn [a]
            (let [seen (boolean-array n)]
              (aset seen (int a) true)
              (loop [todo (conj clojure.lang.PersistentQueue/EMPTY a)]
                (when-let [x (peek todo)]
                  (recur (reduce (fn [todo y] (if (aget seen (int y)) todo (do (aset seen (int y) true) (conj todo y))))
                                 (pop todo) (succs x)))))
              (some (fn [b]
                      (let [bfs (aget seen (int b)), clk (boolean (reaches? a b))]
                        (when (not= bfs clk) {:from a, :to b, :bfs bfs, :clocks clk})))
                    (range n))))
          sources)))

(defn differential
  "Builds `runs` random graphs from seeds base, base+1, …, each with (shape rnd) = [k n max-cross],
  and checks vector = tree entry by entry and both against BFS from `sources` random nodes (all
  when nil). Odd seeds build the tree clocks three nodes at a time. Reports the seed of any failing graph."
  [base runs shape sources]
  (doseq [seed (range base (+ base runs))]
    (let [rnd (Random. seed)
          [k n max-cross] (shape rnd)
          g (random-graph rnd k n max-cross)
          srcs (if sources (repeatedly sources #(.nextInt rnd (int n))) (range n))
          diff (try
                 (let [v (build "vector" g)
                       t (if (odd? seed) (build-interleaved "tree" g) (build "tree" g))]
                   (or (first-difference v t n) (reach-difference v g srcs) (reach-difference t g srcs)))
                 (catch RuntimeException e {:thrown (str e)}))]
      (is (nil? diff) (str "seed " seed ", " k " sessions, " n " nodes: " diff)))))

(defn build-chains
  "Chain clocks for graph g, built as the checker builds them: in g's order, each node opened from
  its SO predecessor, its other predecessors joined unless already known, then placed on a chain
  (nodes nothing follows on none). Returns [clocks reaches?]."
  [{:keys [session index order preds]}]
  (let [n (count session)
        so (into {} (for [t order :let [p (first (preds t))] :when (and p (= (session p) (session t)) (= (index p) (dec (index t))))]
                      [t p]))
        has-so-succ (set (vals so))
        has-succ (into has-so-succ (mapcat preds order))
        c (ChainClocks. n Long/MAX_VALUE)]
    (doseq [t order]
      (let [sp (so t -1)]
        (.open c t sp)
        (doseq [p (preds t) :when (and (not= p sp) (not (.knows c t p)))] (.join c t p))
        (if (has-succ t)
          (.place c t sp (boolean (has-so-succ t)))
          (.skip c t))))
    [c (fn [a b] (let [ch (.chain c a)] (if (neg? ch) (= a b) (>= (.get c b ch) (.index c a)))))]))

(deftest chain-clocks-agree-with-bfs
  (testing "small random graphs"
    (doseq [seed (range 2000 3500)]
      (let [rnd (Random. seed)
            g (random-graph rnd (inc (.nextInt rnd 12)) (inc (.nextInt rnd 40)) (.nextInt rnd 4))
            [_ reaches?] (build-chains g)]
        (is (nil? (reach-fn-difference reaches? g nil)) (str "seed " seed)))))
  (testing "many short sessions (a Jepsen run under crashes), sparse edges: many chains, several blocks a row"
    ;; up to 3 cross edges a node: a join that makes a block its own, then one that takes a
    ;; dominating shared block, then one that changes it again (copy on write must copy)
    (doseq [seed (range 930000 930006)
            max-cross [1 3]]
      (let [rnd (Random. seed)
            g (random-graph rnd 400 1500 max-cross)
            [^ChainClocks c reaches?] (build-chains g)]
        (is (< 64 (.chains c) 400) "more chains than two blocks hold, fewer than the sessions")
        (is (nil? (reach-fn-difference reaches? g (repeatedly 60 #(.nextInt rnd 1500)))) (str "seed " seed))))))

(deftest vector-and-tree-agree-on-small-random-dags
  (differential 1000 3000
                (fn [^Random rnd] [(inc (.nextInt rnd 12)) (inc (.nextInt rnd 40)) (.nextInt rnd 4)])
                nil))

(deftest vector-and-tree-agree-on-many-sessions-and-long-chains
  (testing "200 sessions, sparse cross edges: deep trees, many pruned subtrees"
    (differential 900000 6 (fn [_] [200 2000 1]) 40))
  (testing "200 sessions, dense cross edges"
    (differential 910000 4 (fn [_] [200 1500 4]) 40))
  (testing "3 sessions, long chains"
    (differential 920000 6 (fn [_] [3 1500 2]) 40)))

;; ---------------------------------------------------------------------------------------------
;; Errors

(deftest of-kind-names-the-valid-kinds
  (is (= "vector" (.name (ClockKind/ofKind "vector" 1 1))))
  (is (= "tree" (.name (ClockKind/ofKind "tree" 1 1))))
  (is (thrown-with-msg? IllegalArgumentException #"unknown clock kind \"flat\"; valid kinds: vector, tree"
                        (ClockKind/ofKind "flat" 1 1))))

(deftest clocks-too-large-for-one-array
  (is (thrown-with-msg? IllegalArgumentException
                        #"vector clocks: 1000000 nodes × 3000 sessions = 3000000000 entries, more than one Java int array holds"
                        (VectorClocks. 1000000 3000)))
  (is (thrown-with-msg? IllegalArgumentException #"tree clocks: 1000000 nodes × 600 sessions = 600000000 entries of 4 ints, more than one Java int array holds"
                        (TreeClocks. 1000000 600)))
  (is (thrown-with-msg? IllegalArgumentException #"must not be negative" (VectorClocks. -1 3))))

(deftest tree-clocks-enforce-their-build-order
  (let [c (TreeClocks. 4 2)]
    (.start c 0 0 1)
    (.start c 1 1 1)
    (.start c 2 0 2)
    (is (thrown-with-msg? IllegalStateException #"first join must be position 1 of that session"
                          (.join c 2 1))
        "a cross join before the SO predecessor")
    (.join c 2 0)
    (.join c 2 1)
    (.start c 3 1 2)
    (.join c 3 1)
    (.join c 3 2)
    (is (thrown-with-msg? IllegalStateException #"a cycle; use vector clocks" (.join c 2 3))
        "joining a node that already knows t"))
  (is (thrown-with-msg? IllegalArgumentException #"position 0 < 1" (.start (VectorClocks. 1 1) 0 0 0)))
  (is (thrown-with-msg? IllegalArgumentException #"session 2 outside 0..1" (.start (TreeClocks. 1 2) 0 2 1))))
