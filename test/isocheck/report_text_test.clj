(ns isocheck.report-text-test
  "The text report a database engineer reads: anomaly types in one severity
  order (Elle's first), each fact once with its other names beside it,
  explanations that name only transactions the report lists (with their ops)
  and no paper jargon, ops shown as recorded, a short stats line."
  (:require [clojure.edn :as edn]
            [clojure.java.io :as io]
            [clojure.string :as str]
            [clojure.test :refer [deftest is testing]]
            [isocheck.core :as ic]
            [isocheck.jepsen :as j]
            [isocheck.test-util :as tu])
  (:import (isocheck.check Result)
           (isocheck.report AnomalyOrder)))

(defn- txn
  "Invoke and completion ops of one transaction (reads blanked in the invocation)."
  [p type mops]
  [{:type :invoke, :process p, :f :txn, :value (mapv (fn [[f k v]] (if (= f :r) [f k nil] [f k v])) mops)}
   {:type type, :process p, :f :txn, :value mops}])

(defn- hist [& ts] (vec (map-indexed (fn [i o] (assoc o :index i)) (mapcat (fn [[p type mops]] (txn p type mops)) ts))))

(defn- result
  "[Java Result, result map] of a history checked at levels (default: all)."
  ([ops] (result ops nil))
  ([ops levels] (ic/check-history (if levels {:levels levels} {}) (j/->history ops))))

(defn- file-ops [f] (edn/read-string (str "[" (slurp f) "]")))

(defn- text [ops & [levels]] (.text ^Result (first (result ops levels))))

(defn- sections
  "The text report's anomaly sections: {heading-type text}."
  [txt]
  (into {} (for [s (str/split txt #"\n\n")
                 :let [[_ t] (re-find #"^([A-Za-z0-9-]+)(?: \(also: [^)]*\))?: [0-9,]+ instances?" s)]
                 :when t]
             [t s])))

(defn- section-order [txt]
  (keep #(second (re-find #"^([A-Za-z0-9-]+)(?: \(also: [^)]*\))?: [0-9,]+ instances?" %)) (str/split txt #"\n\n")))

(def ^:private aborted-read-file "test/resources/corpus/jepsen-mongodb/aborted-read.edn")

;; ---------------------------------------------------------------- one severity order

(deftest severity-order-is-one-rule
  (testing "Elle's and Adya's names in Adya's order, variants after their base, then Plume's, MTC's, linearizability's"
    (is (= ["G0" "G0-process" "duplicate-elements" "G1a" "AbortedRead" "garbage-read" "G1b" "G1c" "incompatible-order"
            "G-single-item" "G-single-item-realtime" "G-nonadjacent-item" "G2-item" "CyclicCO" "COConflictCM"
            "WriteSkew" "divergence" "zzz-unknown"]
           (vec (AnomalyOrder/sorted ["zzz-unknown" "divergence" "WriteSkew" "COConflictCM" "CyclicCO" "G2-item"
                                      "G-nonadjacent-item" "G-single-item-realtime" "G-single-item" "incompatible-order"
                                      "G1c" "G1b" "garbage-read" "AbortedRead" "G1a" "duplicate-elements" "G0-process" "G0"])))))
  (testing "Plume's same facts rank right after Elle's name for them"
    (is (= "G1a" (AnomalyOrder/sameAs "AbortedRead")))
    (is (= "garbage-read" (AnomalyOrder/sameAs "ThinAirRead")))
    (is (= "future-read" (AnomalyOrder/sameAs "FutureRead")))
    (is (= "G1b" (AnomalyOrder/sameAs "IntermediateRead")))
    (is (nil? (AnomalyOrder/sameAs "COConflictCM")))))

(deftest sections-verdicts-and-types-come-most-severe-first
  (let [{:keys [status out]} (tu/run-cli "check" aborted-read-file)
        order (section-order out)]
    (is (= 1 status))
    (is (= ["G1a" "incompatible-order" "G-single-item-realtime" "G-nonadjacent-item-realtime"] order) out)
    (testing "verdict lines in the same order"
      (is (str/includes? out "strict-serializable                VIOLATED (G1a, incompatible-order, G-single-item-realtime, G-nonadjacent-item-realtime)") out))
    (testing "the result map's lists in the same order"
      (let [[_ r] (result (file-ops aborted-read-file) [:strict-serializable :tcc])]
        (is (= [:G1a :AbortedRead :incompatible-order :G-single-item-realtime :G-nonadjacent-item-realtime]
               (:anomaly-types r)) "Plume's name for G1a right after it")
        (is (= [:G1a :incompatible-order :G-single-item-realtime :G-nonadjacent-item-realtime]
               (get-in r [:levels :strict-serializable :anomaly-types])))))))

;; ---------------------------------------------------------------- one fact once

(deftest a-fact-is-shown-once-under-elles-name
  (let [{:keys [out]} (tu/run-cli "check" aborted-read-file)]
    (is (re-find #"(?m)^G1a \(also: AbortedRead\): 2 instances" out) out)
    (is (not (re-find #"(?m)^AbortedRead" out)) "no section of its own")
    (testing "the verdicts of the levels it rules out still say why"
      (is (re-find #"(?m)^  tcc +VIOLATED \(G1a as AbortedRead, incompatible-order\)$" out) out)))
  (testing "the result map keeps both types and says they are one fact"
    (let [[_ r] (result (file-ops aborted-read-file) [:read-committed :rc])]
      (is (contains? (:anomalies r) :AbortedRead))
      (is (contains? (:anomalies r) :G1a))
      (is (= {:AbortedRead :G1a} (:same-as r)))))
  (testing "a Plume pattern alone keeps its own section"
    (let [ops (hist [0 :fail [[:append :x 1]]] [1 :ok [[:r :x [1]]]])
          txt (text ops [:rc])]
      (is (re-find #"(?m)^AbortedRead: 1 instance" txt) txt))))

;; ---------------------------------------------------------------- the defects

(def ^:private opposite-reads
  (hist [0 :ok [[:append 1 1]]] [1 :ok [[:append 1 2]]] [2 :ok [[:r 1 [1 2]]]] [3 :ok [[:r 1 [2 1]]]]))

(deftest every-step-of-a-cycle-cites-key-values-and-read
  (let [[^Result r m] (result opposite-reads [:read-uncommitted :read-committed])
        txt (.text r)
        g0 (get-in m [:counterexamples :G0])]
    (testing "read uncommitted: the two reads show the committed appends in both orders, a write cycle (kept, unlike Elle)"
      (is (false? (get-in m [:levels :read-uncommitted :valid?])))
      (is (= [:G0] (get-in m [:levels :read-uncommitted :anomaly-types]))))
    (is (not (str/includes? txt "ww→")) txt)
    (is (every? :key (:steps g0)) (str (:steps g0)))
    (is (every? #(contains? % :value') (:steps g0)))
    (is (str/includes? txt "read key 1 as [2 1]") txt)
    (is (str/includes? txt "read key 1 as [1 2]") txt)))

(deftest a-lost-update-is-not-said-to-be-allowed-by-snapshot-isolation
  (let [ops (hist [0 :ok [[:r :x nil] [:w :x 1]]] [1 :ok [[:r :x nil] [:w :x 2]]])
        txt (text ops [:snapshot-isolation :serializable])]
    (is (str/includes? txt "VIOLATED") txt)
    (is (not (str/includes? txt "snapshot isolation allows it")) txt)
    (is (str/includes? txt "snapshot isolation forbids it too") txt))
  (testing "a write skew (no common key) still says snapshot isolation may allow it"
    (let [ops (hist [0 :ok [[:r :x nil] [:r :y nil] [:w :x 1]]] [1 :ok [[:r :x nil] [:r :y nil] [:w :y 2]]])
          txt (text ops [:serializable])]
      (is (str/includes? txt "snapshot isolation allows it when no two concurrent transactions") txt))))

(deftest ops-are-shown-as-recorded
  (let [ops (hist [0 :ok [[:append 1 1]]] [1 :ok [[:r 1 nil]]])
        [^Result r m] (result ops [:strict-serializable])
        txt (.text r)]
    (is (str/includes? txt "[:r 1 nil]") txt)
    (is (not (str/includes? txt "[:r 1 []]")) txt)
    (is (some #(= [[:r 1 nil]] (:value %)) (get-in m [:counterexamples :G-single-item-realtime :cycle]))
        "the result map too")))

(deftest no-empty-also-not
  (let [ops (hist [0 :ok [[:r :x nil] [:r :y nil] [:w :x 1]]] [1 :ok [[:r :x nil] [:r :y nil] [:w :y 2]]])
        txt (text ops [:serializable])]
    (is (re-find #"(?m)^not: serializable$" txt) txt)
    (is (not (str/includes? txt "also not")) txt)))

(deftest positions-count-from-1-and-keys-are-called-keys
  (let [ops (hist [0 :ok [[:append 1 1]]] [1 :ok [[:append 1 2]]] [2 :ok [[:r 1 [1]]]] [3 :ok [[:r 1 [2]]]])
        txt (text ops [:rc])]
    (is (str/includes? txt "differ at position 1 (counting from 1") txt)
    (is (not (str/includes? txt "of 1's appends")) txt))
  (is (str/includes? (:err (let [f (java.io.File/createTempFile "nil-elem" ".edn")]
                             (spit f (pr-str {:index 0 :type :ok :process 0 :f :txn :value [[:r :x [1 nil]]]}))
                             (tu/run-cli "check" (str f))))
                     "element 2 (counting from 1) is nil")))

(deftest plural-aware-counts
  (let [f (java.io.File/createTempFile "one-txn" ".edn")
        g (java.io.File/createTempFile "two-txn" ".edn")]
    (spit f (pr-str {:index 0 :type :ok :process 0 :f :txn :value [[:append :x 1]]}))
    (spit g (pr-str {:index 0 :type :ok :process 0 :f :txn :value [[:append :x 2]]}))
    (let [{:keys [out]} (tu/run-cli "check" "--levels" "serializable" (str f) (str g))]
      (is (str/includes? out "  1 txn, ") out)
      (is (not (str/includes? out "1 txns")) out)
      (is (str/includes? out "stats: 1 transaction, 1 key, 1 process;") out))))

(deftest stats-line-is-short
  (let [{:keys [out]} (tu/run-cli "check" aborted-read-file)
        line (first (filter #(str/starts-with? % "stats: ") (str/split-lines out)))]
    (is (< (count line) 160) line)
    (is (not (str/includes? line "{")) line)
    (is (str/includes? line "2,265 transactions (2,228 ok, 37 failed), 143 keys, 45 processes") line))
  (testing "the whole stats stay in the result map"
    (let [{:keys [out]} (tu/run-cli "check" "--format" "edn" aborted-read-file)]
      (is (str/includes? out ":edges ")))))

;; ---------------------------------------------------------------- the corpus

(defn- corpus-files []
  (->> (file-seq (io/file "test/resources/corpus"))
       (filter #(.isFile ^java.io.File %))
       (remove #(= "README.md" (.getName ^java.io.File %)))
       (map str)
       sort))

(defn unlisted-names
  "Transactions an explanation names that its section does not list with their ops."
  [txt]
  (for [s (vals (sections txt))
        :let [lines (str/split-lines s)
              listed (set (keep #(second (re-find #"^  (T\d+) = " %)) lines))
              expl (remove #(re-find #"^  T\d+ = " %) (rest lines))
              named (set (mapcat #(re-seq #"\bT\d+\b" %) expl))]
        n (remove listed named)]
    n))

(deftest corpus-reports-speak-plainly-and-list-whom-they-name
  (doseq [f (corpus-files)]
    (let [{:keys [out status]} (tu/run-cli "check" f)]
      (testing f
        (when (= 1 status) (is (seq (sections out)) "a violation has its sections"))
        (is (not (str/includes? out "axiom")))
        (is (not (str/includes? out "Table I")))
        (is (not (str/includes? out "Divergence pattern")))
        (is (empty? (unlisted-names out)) out))))
  (testing "a causal chain's middle transaction is listed (tap-m: T3 carries T2's write to T4)"
    (let [{:keys [out]} (tu/run-cli "check" "test/resources/corpus/plume-taps/tap-m.edn")
          s (get (sections out) "COConflictCM")]
      (is (str/includes? s "  T3 = {") s)
      (is (str/includes? s "causal consistency") s))))
