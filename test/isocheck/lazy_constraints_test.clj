(ns isocheck.lazy-constraints-test
  "Write-order constraints generated lazily (isocheck.check.si.LazyConstraints, issue 27
  item 1): when the whole polygraph of an rw-register history is too large to build, the
  search starts from the known edges and adds a writer pair's constraint only when a model
  breaks it. Its verdicts must be the whole polygraph's on every simulated store and bug,
  with the shortcuts and without; every level it shows holds carries an order that `verify`
  (isocheck.verify, sharing no code with the search) certifies. The switch is a test-only
  heap bound, -Disocheck.search.max-edges=0: every polygraph with a constraint is then too
  large, and only the lazy path decides."
  (:require [clojure.test :refer [deftest is testing]]
            [clojure.string :as str]
            [isocheck.test-util :as tu])
  (:import (isocheck.check Checker CheckOptions Level Result Verdict Verdict$Value)
           (isocheck.cli EdnPrinter)
           (isocheck.history History History$Workload)
           (isocheck.sim Bug SimConfig SimConfig$KeyDist Simulator Store)
           (isocheck.verify Verify)))

(def ^:private level-ids
  ["strict-serializable" "strong-session-serializable" "serializable" "strong-snapshot-isolation"
   "strong-session-snapshot-isolation" "gsi" "snapshot-isolation" "repeatable-read"])

(defn- simulated
  "An rw-register history of the simulated store (bug at rate 0.1, or none), 1 to max-ops
  micro-ops a transaction, 5% :info; keys rotated after 32 writes unless rotate? is false."
  (^History [store bug seed txns sessions keys max-ops rotate? blind?]
   (simulated store bug seed txns sessions keys max-ops rotate? blind? 0.05))
  (^History [store bug seed txns sessions keys max-ops rotate? blind? info]
  (.history (Simulator/history
              (cond-> (-> (SimConfig/builder) (.seed (long seed)) (.store store)
                          (.workload History$Workload/REGISTER) (.txns (int txns)) (.sessions (int sessions))
                          (.keys (int keys)) (.keyDist SimConfig$KeyDist/ZIPF) (.opsPerTxn 1 (int max-ops))
                          (.infoRate (double info)) (.failRate 0.0) (.blind (boolean blind?)))
                (not rotate?) (.maxWritesPerKey 0)
                bug (-> (.bug bug) (.bugRate 0.1))
                true .build)))))

(defn- with-lazy
  "Calls f with every polygraph that has a constraint too large to build (the lazy path)."
  [f]
  (System/setProperty "isocheck.search.max-edges" "0")
  (try (f) (finally (System/clearProperty "isocheck.search.max-edges"))))

(defn- check
  "[result verdicts search-stats] of h at the levels, with or without the shortcuts."
  [^History h shortcuts?]
  (let [o (doto (CheckOptions.) (.levels (mapv #(Level/parse %) level-ids)))]
    (set! (.searchShortcuts o) (boolean shortcuts?))
    (let [^Result r (Checker/check h o)]
      [r (tu/verdict-strings r) (into {} (get (.stats r) "search"))])))

(defn- uncertified
  "The levels of r that hold but whose certificate verify does not accept (with its line)."
  [^History h ^Result r]
  (let [o (Verify/verify h (EdnPrinter/str (.toData r)))
        lines (.lines o)]
    (for [[^Level l ^Verdict v] (.levels r)
          :when (and (= Verdict$Value/TRUE (.value v)) (not= "repeatable-read" (.id l)))
          :let [line (first (filter #(str/starts-with? % (str (.id l) " ")) lines))]
          :when (not (some-> line (str/includes? " certified (")))]
      [(.id l) line])))

(deftest constraints-generated-lazily-decide-as-the-whole-polygraph
  (let [lazy-levels (atom {})
        problems (atom [])]
    (doseq [store [Store/SERIALIZABLE Store/SNAPSHOT_ISOLATION Store/READ_COMMITTED Store/STRICT_SERIALIZABLE]
            bug (cons nil (seq (Bug/values)))
            :when (or (nil? bug) (.contains (.stores ^Bug bug) store))
            seed (range 3)
            :let [rotate? (even? seed)
                  h (simulated store bug seed 300 6 (if rotate? 12 4) 5 rotate? (= seed 1))
                  what (str store " " bug " seed " seed)
                  [_ whole] (check h true)]
            shortcuts? [true false]]
      (let [[r lazy stats] (with-lazy #(check h shortcuts?))]
        (when-not (= whole lazy)
          (swap! problems conj (str what (when-not shortcuts? ", solver alone") ": whole " whole ", lazy " lazy)))
        (doseq [[l m] stats :when (get m "lazy-pairs")]
          (swap! lazy-levels update (str (get m "decided-by")) (fnil inc 0)))
        (doseq [u (with-lazy #(doall (uncertified h r)))]
          (swap! problems conj (str what ": not certified " u)))))
    (is (empty? @problems) (str (count @problems) " problems, first: " (first @problems)))
    (testing "not vacuous: the lazy path decided levels both ways"
      (is (pos? (get @lazy-levels ":lazy-constraints" 0)) (pr-str @lazy-levels))
      (is (pos? (reduce + (vals (dissoc @lazy-levels ":lazy-constraints")))) (pr-str @lazy-levels)))))

(defn- shuffled
  "h's transactions as completions alone (no realtime information), each its own process
  (no session order), in a random order: the shape where the witness schedule has nothing to
  go by and every pair of writers of a key is open."
  ^History [^History h seed]
  (let [ops (vec (for [t (range (.nTxns h)) :when (.isOk h t)]
                   {:type :ok :f :txn
                    :value (vec (for [m (range (.mopStart h t) (.mopEnd h t))]
                                  (if (= isocheck.history.OpRecord/WRITE (.mopKind h m))
                                    [:w (.key h (.mopKey h m)) (.value h (.mopVal h m))]
                                    [:r (.key h (.mopKey h m)) (let [v (.mopVal h m)] (when (not= v History/NIL) (.value h v)))])))}))
        rnd (java.util.Random. (long seed))
        l (java.util.ArrayList. ^java.util.Collection ops)]
    (java.util.Collections/shuffle l rnd)
    (isocheck.jepsen/->history (vec (map-indexed (fn [i op] (assoc op :process i)) l)))))

(deftest two-keys-written-by-every-writer-are-decided-lazily
  ;; The shape issue 27 names: keys written thousands of times without rotation, blind
  ;; writes; here 2 keys and 1,500 transactions, shuffled (no session or realtime order).
  ;; The whole polygraph holds a constraint per pair of a key's writers (~280,000 pairs);
  ;; lazily, a few thousand.
  (let [h (shuffled (simulated Store/SERIALIZABLE nil 5 1500 10 2 3 false true 0.0) 11)
        o #(doto (CheckOptions.) (.levels (mapv (fn [l] (Level/parse l)) ["serializable" "snapshot-isolation"])))
        whole (tu/verdict-strings (Checker/check h (o)))
        ^Result r (with-lazy #(Checker/check h (o)))
        m (into {} (get (into {} (get (.stats r) "search")) "serializable"))
        ;; (Each transaction its own process: strong-session serializability, searched first,
        ;; is the same search, and implies it.)
        m (if (= ":implied" (str (get m "decided-by"))) (into {} (get m "implied-by-search")) m)]
    (is (= {"serializable" "TRUE" "snapshot-isolation" "TRUE"} whole))
    (is (= whole (tu/verdict-strings r)))
    (is (= ":lazy-constraints" (str (get m "decided-by"))) (pr-str m))
    (is (< (get m "lazy-pairs") (quot (get m "side-edges") 20)) (pr-str m))
    (is (empty? (uncertified h r)))))

(deftest a-level-lazy-constraints-leave-open-gets-the-whole-polygraph-when-it-fits
  ;; Constraints generated lazily get a share of the time when the whole polygraph, refused for
  ;; being quadratic, would fit; a level still open after it is searched on the whole polygraph
  ;; (:whole-after-lazy true). Here every polygraph with an edge counts as quadratic
  ;; (-Disocheck.search.lazy-from-edges=0) and the share is no time at all
  ;; (-Disocheck.search.lazy-share=0): every such level takes the fallback, and must be decided
  ;; as the whole polygraph decides it, and certified.
  (let [fallbacks (atom 0)
        problems (atom [])]
    (doseq [store [Store/SERIALIZABLE Store/SNAPSHOT_ISOLATION Store/STRICT_SERIALIZABLE]
            bug (cons nil (seq (Bug/values)))
            :when (or (nil? bug) (.contains (.stores ^Bug bug) store))
            seed (range 2)
            :let [h (simulated store bug seed 300 6 4 5 false (= seed 1))
                  what (str store " " bug " seed " seed)
                  [_ whole] (check h true)]]
      (System/setProperty "isocheck.search.lazy-from-edges" "0")
      (System/setProperty "isocheck.search.lazy-share" "0")
      (try
        (let [[r after stats] (check h true)]
          (when-not (= whole after) (swap! problems conj (str what ": whole " whole ", after lazily " after)))
          (swap! fallbacks + (count (filter #(get (val %) "whole-after-lazy") stats)))
          (doseq [u (uncertified h r)] (swap! problems conj (str what ": not certified " u))))
        (finally
          (System/clearProperty "isocheck.search.lazy-from-edges")
          (System/clearProperty "isocheck.search.lazy-share"))))
    (is (empty? @problems) (str (count @problems) " problems, first: " (first @problems)))
    (is (pos? @fallbacks) "some level was decided on the whole polygraph after constraints generated lazily")))
