(ns isocheck.graph-test
  "Strongly connected components searched within groups (isocheck.graph.Scc):
  a weaker family's components within the stronger family's cyclic ones, and
  snapshot isolation's begin/commit components within serializability's, must
  be exactly what a search of the whole graph finds."
  (:require [clojure.test :refer [deftest is testing]])
  (:import (isocheck.graph BcGraph CycleFinder Digraph Edge EdgeList Scc)
           (isocheck.check CycleReporter Level$Family)))

(declare random-edges)

(defn- random-graph
  "n transactions and r relay nodes, about d edges a node, each with one or two
  of the dependency and order bits; a few self-loops."
  ^Digraph [seed n r d]
  (Digraph/of (+ n r) (random-edges seed n r d)))

(defn- random-edges
  "random-graph's edge list."
  ^EdgeList [seed n r d]
  (let [rnd (java.util.Random. seed)
        es (EdgeList.)
        bits [Edge/WW Edge/WR Edge/RW Edge/SO Edge/RT]
        total (+ n r)]
    (dotimes [_ (* d total)]
      (let [a (.nextInt rnd total)
            ;; mostly forward, so that components stay small, as in real histories
            b (if (< (.nextInt rnd 10) 8)
                (min (dec total) (+ a 1 (.nextInt rnd 5)))
                (.nextInt rnd total))
            a (if (and (>= a n) (>= b n)) (.nextInt rnd n) a)
            m (bit-or (nth bits (.nextInt rnd 5)) (if (zero? (.nextInt rnd 3)) (nth bits (.nextInt rnd 5)) 0))
            ;; anti-dependencies only between transactions, as the checker builds them
            m (if (or (>= a n) (>= b n)) (bit-and m (bit-not Edge/RW)) m)
            m (if (zero? m) Edge/RT m)]
        (.add es (int a) (int b) (int m))))
    es))

(defn- cyclic-sets
  "The node sets of the cyclic components."
  [^Scc s n]
  (->> (range n)
       (filter #(aget (.cyclic s) (aget (.comp s) %)))
       (group-by #(aget (.comp s) %))
       vals
       (map set)
       set))

(deftest components-within-groups-are-the-whole-graphs
  (doseq [seed (range 300)
          :let [n (+ 5 (mod seed 40))
                r (mod seed 4)
                g (random-graph seed n r (inc (mod seed 3)))
                families [Level$Family/REALTIME Level$Family/PROCESS Level$Family/PLAIN]]]
    (testing (str "seed " seed)
      (doseq [[strong weak] (partition 2 1 families)
              :let [outer (Scc/of g (CycleReporter/serFilter strong))
                    whole (Scc/of g (CycleReporter/serFilter weak))
                    within (Scc/of g (CycleReporter/serFilter weak) (.cyclicGroups outer))]]
        (is (= (cyclic-sets whole (.n g)) (cyclic-sets within (.n g))) (str strong " -> " weak))
        (is (= (.cyclicCount whole) (.cyclicCount within))))
      (doseq [f families
              :let [ser (Scc/of g (CycleReporter/serFilter f))
                    groups (.cyclicGroups ser)
                    bcn (+ (* 2 n) r)
                    whole (Scc/of (BcGraph/of g n) (CycleReporter/siFilter f))
                    within (Scc/of (BcGraph/of g n false groups) (CycleReporter/siFilter f) (BcGraph/lift groups n bcn))]]
        (is (= (cyclic-sets whole bcn) (cyclic-sets within bcn)) (str "SI " f))))))

(deftest the-cyclic-components-come-smallest-then-earliest-first
  ;; Two 2-cycles and a 3-cycle: the 2-cycles first, the one of the earlier transactions first,
  ;; whatever order the search numbered them in.
  (let [es (doto (EdgeList.)
             (.add 7 8 Edge/WW) (.add 8 7 Edge/WR)
             (.add 0 1 Edge/WW) (.add 1 2 Edge/WW) (.add 2 0 Edge/WW)
             (.add 3 4 Edge/WR) (.add 4 3 Edge/RW))
        g (Digraph/of 9 es)
        comps (map vec (.cyclicComponents (Scc/of g Edge/DATA) 9 false 9 9))]
    (is (= [[3 4] [7 8] [0 1 2]] comps))))

(deftest packing-a-graph-on-every-core-changes-nothing
  ;; Digraph/of counts, scatters and sorts on every core from a million edges on; the graph
  ;; (each node's targets in order, parallel edges merged with their types' union) must be the
  ;; same for any split, including duplicates, self-loops and nodes without edges.
  (let [rnd (java.util.Random. 11)
        n 150000
        es (EdgeList.)
        _ (dotimes [_ 1300000]
            (let [a (.nextInt rnd n)
                  b (if (zero? (.nextInt rnd 50)) a (min (dec n) (+ a (.nextInt rnd 40))))]
              (.add es (int a) (int b) (int (bit-shift-left 1 (.nextInt rnd 6))))))
        pack (fn [cores]
               (System/setProperty "isocheck.weak.cores" (str cores))
               (try
                 (let [^Digraph g (Digraph/of n es)]
                   [(vec (map #(.start g %) (range (inc n))))
                    (vec (map #(.target g %) (range (.edgeCount g))))
                    (vec (map #(.mask g %) (range (.edgeCount g))))])
                 (finally (System/clearProperty "isocheck.weak.cores"))))
        one (pack 1)]
    (is (< (count (second one)) 1300000) "parallel edges were merged")
    (is (= one (pack 2)))
    (is (= one (pack 3)))))

(deftest an-unordered-graph-keeps-each-nodes-edges-in-list-order
  ;; Digraph/unordered packs the edges per source node and no further (the time order and the
  ;; check of the choice after it need no more): each node's edges in list order, parallel edges
  ;; kept, for any split among cores; ordering it afterwards gives what Digraph/of gives.
  (let [rnd (java.util.Random. 12)
        n 120000
        m 1200000
        es (EdgeList.)
        _ (dotimes [_ m]
            (let [a (.nextInt rnd n)
                  b (if (zero? (.nextInt rnd 50)) a (min (dec n) (+ a (.nextInt rnd 30))))]
              (.add es (int a) (int b) (int (bit-shift-left 1 (.nextInt rnd 6))))))
        expected (reduce (fn [acc i] (update acc (.src es i) (fnil conj []) [(.dst es i) (.type es i)]))
                         {} (range m))
        adjacency (fn [^Digraph g]
                    (into {} (for [v (range n)
                                   :let [es (vec (for [e (range (.start g v) (.end g v))] [(.target g e) (.mask g e)]))]
                                   :when (seq es)]
                               [v es])))
        packed (fn [cores f]
                 (System/setProperty "isocheck.weak.cores" (str cores))
                 (try (f) (finally (System/clearProperty "isocheck.weak.cores"))))]
    (doseq [cores [1 2]]
      (let [^Digraph u (packed cores #(Digraph/unordered n es))]
        (is (not (.isOrdered u)))
        (is (= m (.edgeCount u)) "parallel edges kept")
        (is (= expected (adjacency u)) (str cores " cores"))
        (is (thrown? IllegalStateException (.maskOf u 0 1)) "no binary search on an unordered graph")
        (let [^Digraph o (packed cores #(.ordered u))
              ^Digraph g (packed cores #(Digraph/of n es))]
          (is (.isOrdered o))
          (is (= (adjacency g) (adjacency o)) (str cores " cores, ordered afterwards"))
          ;; Ordering sorted its arrays in place: the unordered graph is not to be used again.
          (is (thrown? IllegalStateException (.acyclic u (int Edge/WR))))
          (is (thrown? IllegalStateException (.ordered u))))))))

(defn- both-packings
  "Seed's random graph of up to 5 + (spread - 1) transactions and a few relays, about 1 to
  degrees edges a node: [total nodes, edges, Digraph/of, Digraph/unordered]."
  [seed spread degrees]
  (let [n (+ 5 (mod seed spread)), r (mod seed 4), d (inc (mod seed degrees))
        es (random-edges seed n r d)
        total (+ n r)]
    [total es (Digraph/of total es) (Digraph/unordered total es)]))

(deftest kahns-acyclicity-agrees-with-the-component-search
  ;; The rw-register check asks Digraph.acyclic (Kahn's algorithm, on the graph as packed,
  ;; unordered) before it orders the observed graph and searches its components: both must
  ;; answer alike for every filter, and the unordered graph must count the edges ordering keeps.
  (let [outcomes (atom #{})]
    (doseq [seed (range 300)
            :let [[_ _ ^Digraph g ^Digraph u] (both-packings seed 40 2)]
            filter [(bit-or Edge/WR Edge/SO Edge/RT) (bit-or Edge/WR Edge/RT) Edge/WR
                    (bit-or Edge/WW Edge/WR Edge/RW Edge/SO Edge/RT)]]
      (let [cyclic (.hasCycle (Scc/of g (int filter)))]
        (swap! outcomes conj cyclic)
        (is (= (not cyclic) (.acyclic u (int filter)) (.acyclic g (int filter))) (str "seed " seed " filter " filter))
        (is (= (.edgeCount g) (.distinctEdgeCount u) (.distinctEdgeCount g)) (str "seed " seed))))
    (is (= #{true false} @outcomes) "both cyclic and acyclic graphs were met")))

(deftest the-first-cyclic-component-is-found-without-the-whole-search
  ;; When strict serializability's time order fails, the counterexample comes from the first
  ;; nontrivial component the component search numbers, and a cycle in it. Scc/firstCyclic finds
  ;; it on the graph as packed, sorting only the nodes it reaches and stopping there: the same
  ;; component (number and nodes) and the same cycle as from the whole graph ordered; null on an
  ;; acyclic graph; the graph still packs to the same ordered graph afterwards.
  (let [outcomes (atom #{})]
    (doseq [seed (range 400)
            :let [[total _ ^Digraph g ^Digraph u] (both-packings seed 60 3)
                  whole (Scc/of g (int -1))
                  f (Scc/firstCyclic u)
                  c0 (first (filter #(aget (.cyclic whole) %) (range (.count whole))))]]
      (swap! outcomes conj (some? f))
      (if (nil? c0)
        (is (nil? f) (str "seed " seed ": acyclic"))
        (let [s (.scc f)
              members (fn [^Scc s c] (set (filter #(= c (aget (.comp s) %)) (range total))))
              cyc (fn [^Digraph gr ^Scc s c] (let [y (CycleFinder/anyCycleIn gr s c -1)] [(vec (.nodes y)) (vec (.labels y))]))]
          (is (= (inc c0) (.count s)) (str "seed " seed))
          (is (aget (.cyclic s) c0))
          (is (= (members whole c0) (members s c0)) (str "seed " seed))
          (is (= (cyc g whole c0) (cyc (.visited f) s c0)) (str "seed " seed))))
      (let [o (.ordered u)]
        (is (= (vec (for [v (range total)] [(.start g v) (.end g v)])) (vec (for [v (range total)] [(.start o v) (.end o v)]))))
        (is (= (vec (for [e (range (.edgeCount g))] [(.target g e) (.mask g e)]))
               (vec (for [e (range (.edgeCount o))] [(.target o e) (.mask o e)]))) (str "seed " seed))))
    (is (= #{true false} @outcomes) "both cyclic and acyclic graphs were met")))
