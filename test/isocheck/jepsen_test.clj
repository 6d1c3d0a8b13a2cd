(ns isocheck.jepsen-test
  "The Jepsen path: isocheck's checker extends jepsen.checker/Checker softly at
  load time. Here jepsen.checker is the test-only twin in
  test-twins/jepsen/checker.clj, which declares the same protocol. Histories come as
  a vector of maps and as an indexed, reducible collection of records (the
  shape of jepsen.history)."
  (:require [clojure.test :refer [deftest is testing]]
            [clojure.java.io :as io]
            [jepsen.checker :as checker]
            [isocheck.core :as isocheck]
            [isocheck.test-util :refer [h ok invoke]]))

(defrecord Op [index time type process f value])

(defn- history-coll
  "An indexed, counted, reducible collection of Op records, like
  jepsen.history's dense histories: reducible without being a vector."
  [ops]
  (let [v (mapv map->Op ops)]
    (reify
      clojure.lang.Counted
      (count [_] (count v))
      clojure.lang.Indexed
      (nth [_ i] (nth v i))
      (nth [_ i nf] (nth v i nf))
      clojure.lang.IReduceInit
      (reduce [_ f init] (reduce f init v))
      clojure.lang.Seqable
      (seq [_] (seq v)))))

(def long-fork
  (h (ok 0 [[:append :x 1]])
     (ok 1 [[:append :y 1]])
     (ok 2 [[:r :x [1]] [:r :y []]])
     (ok 3 [[:r :x []] [:r :y [1]]])))

(def write-skew
  (h (ok 0 [[:r :x []] [:append :y 1]])
     (ok 1 [[:r :y []] [:append :x 1]])))

(deftest checker-satisfies-the-protocol
  (is (satisfies? checker/Checker (isocheck/si)))
  (is (satisfies? checker/Checker (isocheck/checker {:levels [:serializable]}))))

(deftest vector-history
  (let [r (checker/check (isocheck/si) {:name "t"} long-fork {})]
    (is (= false (:valid? r)))
    (is (= [:G-nonadjacent-item] (:anomaly-types r)))
    ;; Snapshot isolation and repeatable read (which a long fork's anti-dependency cycle rules
    ;; out too) are incomparable: both are weakest.
    (is (= #{:snapshot-isolation :repeatable-read} (:not r))))
  (let [r (checker/check (isocheck/si) {} write-skew {})]
    (is (= true (:valid? r)))
    (is (= {:snapshot-isolation {:valid? true}} (:levels r)))))

(deftest micro-ops-as-vectors-lists-or-seqs
  ;; fill! reads vector micro-ops by index and any other sequential one as before: the same
  ;; history with its micro-ops as lists, seqs or subvectors checks the same; a micro-op of two
  ;; elements is malformed whatever its shape.
  (let [shaped (fn [mk] (mapv (fn [op] (update op :value #(mapv (fn [mop] (apply mk mop)) %))) long-fork))
        check  (fn [ops] (select-keys (checker/check (isocheck/si) {} ops {}) [:valid? :anomaly-types :not]))
        expect (check long-fork)]
    (is (= false (:valid? expect)))
    (doseq [[label mk] [["list" list] ["seq" (fn [& xs] (seq (vec xs)))] ["subvec" (fn [& xs] (subvec (vec (cons :pad xs)) 1))]]]
      (is (= expect (check (shaped mk))) label))
    (doseq [mop [[:append :x] (list :append :x) {:append :x}]]
      (let [r (checker/check (isocheck/si) {} (h (ok 0 [mop])) {})]
        (is (= :unknown (:valid? r)) (pr-str mop))))))

(defn- record-view
  "What fill! put in an OpRecord, as data."
  [^isocheck.history.OpRecord r]
  {:index (.index r) :time (.time r) :type (.type r) :type-raw (.typeRaw r)
   :process? (.hasProcess r) :process (.process r) :f (.f r)
   :shape (.valueShape r) :raw (.valueRaw r)
   :mops (mapv (fn [i] [(.kind r i) (.renderMop r i)]) (range (.mopCount r)))
   :extra (set (map (fn [i] [(.extraKey r i) (.extraValue r i)]) (range (.extraCount r))))})

(deftest fill-reads-every-map-shape-alike
  ;; fill! reads an array map (the usual op) in one pass over its entries and any other map by
  ;; looking up each standard key: the same op as an array map and a hash map (and a record,
  ;; given all six keys) fills the record alike -- nil and missing keys, keys of the user's own,
  ;; odd values included.
  (let [convert (fn [op] (let [r (isocheck.history.OpRecord.)] (record-view (isocheck.jepsen/fill! r 7 op))))
        ops [{:index 3 :time 10 :type :ok :process 0 :f :txn :value [[:append :x 1] [:r :y [1 2]] [:w 5 nil]]}
             {:index 4 :time 11 :type :ok :process 2 :f :txn :value [[:r :x [1 :two nil]]] :node "n2"}
             {:type :invoke :process 1 :f :txn :value [[:r :x nil] (list :append :y 3)] :db-txn "t-9"}
             {:type :info :process nil :f :txn :value nil}
             {:type "ok" :f :txn}
             {:index nil :time :soon :type :nope :f :read :value 5 "node" "n1"}
             {:type :ok :f :txn :value [[:append :x] {:r :x} [:cas :x 1 2] [:rr :x 1]]}
             {:type :fail :f :txn :value (first {:x 1})}]]
    (doseq [op ops]
      (let [expect (convert op)]
        (is (instance? clojure.lang.PersistentArrayMap op))
        (is (= expect (convert (into (hash-map) op))) (pr-str op))
        ;; A record always holds its six keys (nil when not given): alike for an op with all six.
        (when (every? #(some? (get op %)) [:index :time :type :process :f :value])
          (is (= expect (convert (merge (map->Op {}) op))) (pr-str op)))))
    (let [v (convert (first ops))]
      (is (= [[isocheck.history.OpRecord/APPEND "[:append :x 1]"] [isocheck.history.OpRecord/READ "[:r :y [1 2]]"]
              [isocheck.history.OpRecord/WRITE "[:w 5 nil]"]]
             (:mops v)))
      (is (= [3 10 isocheck.history.OpType/OK true 0] ((juxt :index :time :type :process? :process) v))))
    (is (= #{[:node "n2"]} (:extra (convert (nth ops 1)))))
    (is (= #{[:db-txn "t-9"]} (:extra (convert (nth ops 2)))))
    (is (= [true nil isocheck.history.OpRecord/VALUE_OTHER] ((juxt :process? :process :shape) (convert (nth ops 3)))))
    (is (= [false isocheck.history.OpRecord/VALUE_ABSENT isocheck.history.OpType/OK] ((juxt :process? :shape :type) (convert (nth ops 4)))))
    (is (= #{["node" "n1"]} (:extra (convert (nth ops 5)))))
    (is (= [isocheck.history.OpRecord/MALFORMED isocheck.history.OpRecord/MALFORMED isocheck.history.OpRecord/MALFORMED
            isocheck.history.OpRecord/UNKNOWN]
           (map first (:mops (convert (nth ops 6))))))
    (is (= isocheck.history.OpRecord/VALUE_OTHER (:shape (convert (nth ops 7)))))))

(deftest micro-op-kinds-and-types-by-name-whatever-the-object
  ;; kindOf and OpType.parse answer keywords they have seen by identity: any object naming the
  ;; same kind answers the same, and one naming none stays unknown however often it is asked.
  (dotimes [_ 3]
    (doseq [[f k] [[:r isocheck.history.OpRecord/READ] ["r" isocheck.history.OpRecord/READ] [":r" isocheck.history.OpRecord/READ]
                   [isocheck.history.Kw/R isocheck.history.OpRecord/READ] [(isocheck.history.Kw. "append") isocheck.history.OpRecord/APPEND]
                   [:append isocheck.history.OpRecord/APPEND] [:w isocheck.history.OpRecord/WRITE] ["w" isocheck.history.OpRecord/WRITE]
                   [:rr isocheck.history.OpRecord/UNKNOWN] [:my/r isocheck.history.OpRecord/UNKNOWN] [nil isocheck.history.OpRecord/UNKNOWN]
                   ['r isocheck.history.OpRecord/READ] [1 isocheck.history.OpRecord/UNKNOWN]]]
      (is (= k (isocheck.history.OpRecord/kindOf f)) (pr-str f)))
    (doseq [[t k] [[:invoke 0] [:ok 1] ["fail" 2] [(isocheck.history.Kw. "info") 3] [:okay -1] [nil -1] [:jepsen/ok -1]]]
      (is (= k (isocheck.history.OpType/parse t)) (pr-str t)))))

(deftest record-collection-history
  (let [coll (history-coll long-fork)]
    (is (not (vector? coll)))
    (let [r (checker/check (isocheck/ser) {} coll {})]
      (is (= false (:valid? r)))
      (is (= {:serializable {:valid? false, :anomaly-types [:G-nonadjacent-item]}}
             (:levels r)))))
  (let [r (checker/check (isocheck/ser) {} (history-coll write-skew) {})]
    (is (= [:G2-item] (:anomaly-types r)))))

(deftest elle-shaped-result
  (let [r (checker/check (isocheck/checker {:levels [:serializable :snapshot-isolation]})
                         {} write-skew {})]
    (is (= #{:valid? :anomaly-types :anomalies :not :also-not :levels :counterexamples
             :counterexample-search :anomaly-counts :stats :certificates}
           (set (keys r))))
    (is (= [:snapshot-isolation] (keys (:certificates r))) "the level that holds carries its witness")
    (is (= false (:valid? r)))
    (is (= #{:repeatable-read} (:not r)))
    (is (contains? (:also-not r) :serializable))
    (is (contains? (:also-not r) :strict-serializable))
    (let [a (first (get-in r [:anomalies :G2-item]))]
      (is (= 3 (count (:cycle a))))
      (is (= [:rw :rw] (map :type (:steps a))))
      (is (string? (:explanation a))))
    (is (re-find #"digraph" (get-in r [:counterexamples :G2-item :dot])))))

(deftest writes-report-files-when-given-a-directory
  (let [dir (str (System/getProperty "java.io.tmpdir") "/isocheck-test-" (System/nanoTime))
        r   (checker/check (isocheck/checker {:directory dir}) {} long-fork {})]
    (is (= dir (:report-dir r)))
    (doseq [f ["report.html" "report.txt" "result.edn" "result.json" "G-nonadjacent-item.dot"]]
      (is (.exists (io/file dir f)) f))
    (is (= (dissoc r :report-dir)
           (read-string (slurp (io/file dir "result.edn")))))))

(deftest transactions-of-the-nemesis-are-skipped-as-elle-skips-them
  ;; Jepsen hands an op of a generator not wrapped in gen/clients to any free thread, the
  ;; nemesis's too; nemesis/noop returns it unchanged, nemesis/validate refuses the :invoke
  ;; completion, and the worker records it as :info of process :nemesis. It ran nowhere.
  (let [nemesis-txn {:type :invoke, :process :nemesis, :f :txn, :value [[:append :x 9] [:r :y nil]]}
        hist (h (ok 0 [[:append :x 1]])
                nemesis-txn
                (ok 1 [[:r :x [1]]])
                (assoc nemesis-txn :type :info :error "indeterminate: :type should be :info"))
        r (checker/check (isocheck/checker {:levels [:serializable :tcc]}) {} hist {})]
    (is (= true (:valid? r)) "the nemesis's :info append of 9 to :x is no transaction: nobody read it, none is owed")
    (is (= 2 (get-in r [:stats :txns])))
    (is (= 2 (get-in r [:stats :sessions])) "the nemesis is no session")
    (is (= 2 (get-in r [:stats :skipped-non-client-ops])))
    (is (= 2 (get-in r [:stats :skipped-ops]))))
  (testing "\"nemesis\", as a JSON history names it, is the nemesis too; another string names a session"
    (let [r (isocheck/check (isocheck/ser)
                            [{:index 0 :type :ok :process "nemesis" :f :txn :value [[:append :x 1]]}
                             {:index 1 :type :ok :process "client-a" :f :txn :value [[:r :x []]]}])]
      (is (= 1 (get-in r [:stats :txns])))
      (is (= 1 (get-in r [:stats :skipped-non-client-ops])))))
  (testing "a history whose transactions all ran on the nemesis: nothing to check, and why"
    (let [r (isocheck/check (isocheck/si)
                            [{:index 0 :type :invoke :process :nemesis :f :txn :value [[:append :x 1]]}
                             {:index 1 :type :info :process :nemesis :f :txn :value [[:append :x 1]]}])]
      (is (= :unknown (:valid? r)))
      (is (re-find #"no :txn operations of a client process.*2 of them :txn ops of a process that is not a client's.*:process :nemesis"
                   (str (:unknown-reason r)))
          (:unknown-reason r)))))
