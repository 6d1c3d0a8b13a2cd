(ns isocheck.errors-test
  "Bad input gets a one-line error naming the op and what was expected, never a
  stack trace or a wrong verdict."
  (:require [clojure.test :refer [deftest is testing are]]
            [clojure.string :as str]
            [isocheck.core :as iso]
            [isocheck.jepsen :as j]
            [isocheck.test-util :as test-util :refer [h ok fail info invoke check]])
  (:import (isocheck.check Level)
           (isocheck.cli CliFuzz CliFuzz$Report Main)
           (isocheck.history HistoryException)
           (java.io ByteArrayOutputStream PrintStream)
           (java.nio.file Files Path)
           (java.nio.file.attribute FileAttribute)))

(defn- error-of [hist]
  (try (j/->history hist) nil
       (catch HistoryException e (.getMessage e))))

(deftest unknown-micro-op
  (let [e (error-of (h (ok 0 [[:append :x 1]])
                       (ok 0 [[:r :x [1]] [:foo :x 2]])))]
    (is (str/includes? e "op 1 (:index 1)"))
    (is (str/includes? e "micro-op 1 [:foo :x 2]"))
    (is (str/includes? e "is neither a read [:r k v] nor an append [:append k v]"))
    (is (not (str/includes? e "\n")))))

(deftest malformed-micro-op
  (let [e (error-of (h (ok 0 [[:append :x]])))]
    (is (str/includes? e "op 0"))
    (is (str/includes? e "[:append :x] is not a [f k v] triple"))))

(deftest non-list-read-in-append-history
  (let [e (error-of (h (ok 0 [[:append :x 1]])
                       (ok 1 [[:r :x 1]])))]
    (is (str/includes? e "op 1"))
    (is (str/includes? e "[:r :x 1] reads a non-list value"))
    (is (str/includes? e "list-append reads return a list"))))

(deftest list-read-in-register-history
  (let [e (error-of (h (ok 0 [[:w :x 1]])
                       (ok 1 [[:r :x [1]]])))]
    (is (str/includes? e "op 1"))
    (is (str/includes? e "reads a list"))))

(deftest missing-process
  (let [e (error-of [{:index 0 :type :ok :f :txn :value [[:append :x 1]]}])]
    (is (str/includes? e "op 0 (:index 0): missing :process"))))

(deftest missing-or-bad-type
  (is (str/includes? (error-of [{:index 0 :process 0 :f :txn :value []}]) "missing :type"))
  (is (str/includes? (error-of [{:index 0 :type :done :process 0 :f :txn :value []}])
                     ":type is :done; expected :invoke, :ok, :fail or :info")))

(deftest value-not-a-transaction
  (is (str/includes? (error-of [{:index 0 :type :ok :process 0 :f :txn :value 3}])
                     ":value is 3; expected a vector of micro-ops")))

(deftest duplicate-appended-values
  (let [e (error-of (h (ok 0 [[:append :x 1]])
                       (ok 1 [[:append :x 1]])))]
    (is (str/includes? e "op 1 (:index 1): micro-op [:append :x 1] appends 1 to key :x, which op 0 appended too"))
    (is (str/includes? e "unique per key"))))

(deftest same-value-on-different-keys-is-fine
  (is (nil? (error-of (h (ok 0 [[:append :x 1] [:append :y 1]]))))))

(deftest mixed-workloads
  (let [e (error-of (h (ok 0 [[:append :x 1]])
                       (ok 1 [[:w :y 1]])))]
    (is (str/includes? e "op 1"))
    (is (str/includes? e "is a register write"))
    (is (str/includes? e "list-append history"))))

(deftest forced-workload-mismatch
  (let [e (try (j/->history (h (ok 0 [[:append :x 1]])) :wr) nil
               (catch HistoryException ex (.getMessage ex)))]
    (is (str/includes? e "--workload wr"))))

(deftest process-invokes-twice
  (let [e (error-of (h (invoke 0 [[:append :x 1]])
                       (invoke 0 [[:append :x 2]])))]
    (is (str/includes? e "op 1 (:index 1): process 0 invoked a new op while its op 0 (:index 0) had not completed"))))

(deftest completion-differs-from-invocation
  (let [e (error-of (h (invoke 0 [[:append :x 1]])
                       (ok 0 [[:append :x 2]])))]
    (is (str/includes? e "op 1"))
    (is (str/includes? e "differ from those of its invocation"))))

(deftest check-returns-unknown-not-a-stack-trace
  (let [r (iso/check (iso/si) (h (ok 0 [[:append :x 1]]) (ok 1 [[:append :x 1]])))]
    (is (= :unknown (:valid? r)))
    (is (str/includes? (:error r) "op 1"))
    (is (= :unknown (get-in r [:levels :snapshot-isolation :valid?])))))

(deftest unknown-level-fails-fast
  (is (thrown-with-msg? IllegalArgumentException #"Unknown isolation level :serialisable"
                        (iso/checker {:levels [:serialisable]})))
  (is (thrown-with-msg? IllegalArgumentException #"Unknown workload"
                        (iso/checker {:workload :bank}))))

(deftest every-known-level-is-decided
  ;; No name is known but unimplemented: every level (and alias) gets a definite verdict.
  (doseq [hist [(h (ok 0 [[:append :x 1]])) (h (ok 0 [[:w :x 1]]))]
          l (map keyword (str/split (Level/knownNames) #", "))]
    (let [r (check hist [l])]
      (is (true? (:valid? r)) (str l)))))

;; --- :index: the history's order is the order of events; :index must agree -----------------

(deftest index-must-increase
  (is (= "op 1 (:index 0): :index 0 repeats the :index of op 0; each op's :index must be greater than every earlier op's, since the order of the history is the order of events"
         (error-of [(assoc (ok 0 [[:append :x 1]]) :index 0) (assoc (ok 1 [[:r :x [1]]]) :index 0)])))
  (is (str/starts-with? (error-of [(assoc (ok 0 [[:append :x 1]]) :index 5) (assoc (ok 1 [[:r :x [1]]]) :index 3)])
                        "op 1 (:index 3): :index 3 is less than the :index 5 of op 0; "))
  (is (= "op 0 (:index -1): :index -1 is negative; an :index numbers an op's place in the history, from 0"
         (error-of [(assoc (ok 0 [[:append :x 1]]) :index -1)])))
  (testing "skipped ops count too: their :index is part of the history's order"
    (is (str/starts-with? (error-of [{:index 4 :type :info :process :nemesis :f :kill} (assoc (ok 0 [[:append :x 1]]) :index 2)])
                          "op 1 (:index 2): :index 2 is less than the :index 4 of op 0")))
  (testing "gaps (a filtered history) and ops without :index are fine"
    (is (nil? (error-of [(assoc (ok 0 [[:append :x 1]]) :index 3) (assoc (ok 1 [[:r :x [1]]]) :index 10)])))
    (is (nil? (error-of [(ok 0 [[:append :x 1]]) (assoc (ok 1 [[:r :x [1]]]) :index 1) (ok 1 [[:r :x [1]]])])))))

(deftest index-error-through-the-api-is-unknown-not-an-exception
  (let [r (check [(assoc (ok 0 [[:append :x 1]]) :index 1) (assoc (ok 1 [[:r :x [1]]]) :index 1)])]
    (is (= :unknown (:valid? r)))
    (is (str/includes? (:error r) "repeats the :index of op 0"))))

;; --- malformed values: one rule for both workloads -------------------------------------------

(deftest malformed-values-are-bad-input
  (are [hist msg] (= msg (error-of hist))
    (h (ok 0 [[:append :x 1]]) (ok 1 [[:r :x [1 nil]]]))
    "op 1 (:index 1): micro-op 0 [:r :x [1 nil]] reads a list whose element 2 (counting from 1) is nil; list elements are appended values, single values such as 5, never nil"

    (h (ok 0 [[:append :x 1]]) (ok 1 [[:r :x [1 [2]]]]))
    "op 1 (:index 1): micro-op 0 [:r :x [1 [2]]] reads a list whose element 2 (counting from 1) is a list; list elements are appended values, single values such as 5, never nil"

    (h (ok 0 [[:w :x 1]]) (ok 1 [[:r :x {:a 1}]]))
    "op 1 (:index 1): micro-op 0 [:r :x {:a 1}] reads a map; a read returns nil, a single value such as 5 (rw-register) or a list of them such as [1 2] (list-append)"

    (h (ok 0 [[:w :x 1]]) (ok 1 [[:r :x #{1}]]))
    "op 1 (:index 1): micro-op 0 [:r :x #{1}] reads a set; a read returns nil, a single value such as 5 (rw-register) or a list of them such as [1 2] (list-append)"

    (h (ok 0 [[:append :x {:a 1}]]))
    "op 0 (:index 0): micro-op 0 [:append :x {:a 1}] appends a map; expected a single value such as 5"

    (h (ok 0 [[:w :x #{1}]]))
    "op 0 (:index 0): micro-op 0 [:w :x #{1}] writes a set; expected a single value such as 5")
  (testing "a register read of a list stays bad input, as before"
    (is (str/includes? (error-of (h (ok 0 [[:w :x 1]]) (ok 1 [[:r :x [1]]]))) "reads a list"))))

(deftest malformed-values-through-the-api-are-unknown-not-violations
  (doseq [hist [(h (ok 0 [[:append :x 1]]) (ok 1 [[:r :x [1 nil]]]))
                (h (ok 0 [[:w :x 1]]) (ok 1 [[:r :x {:a 1}]]))]]
    (let [r (check hist)]
      (is (= :unknown (:valid? r)))
      (is (empty? (:anomaly-types r)) "no garbage read reported")
      (is (str/includes? (:error r) "micro-op 0")))))

(deftest long-lists-are-abbreviated-in-messages
  (let [e (error-of (h (ok 0 [[:append :x 1]]) (ok 1 [[:r :x (conj (vec (range 100 200)) nil)]])))]
    (is (str/includes? e "[:r :x [100 101 102 103 104 105 106 107 ... (85 more) 193 194 195 196 197 198 199 nil]]") e)
    (is (str/includes? e "element 101 (counting from 1) is nil"))))

;; --- no transactions is not a pass ----------------------------------------------------------

(deftest no-transactions-is-unknown-with-the-reason
  (testing "an empty history"
    (let [r (check [])]
      (is (= :unknown (:valid? r)))
      (is (= "no operations: the history is empty" (:unknown-reason r)))
      (is (every? #(= {:valid? :unknown, :reason "no operations: the history is empty"} %) (vals (:levels r))))
      (is (= (set test-util/strong-levels) (set (keys (:levels r)))))
      (is (nil? (:error r)) "not bad input: a verdict of unknown")))
  (testing "ops, none of them a transaction"
    (doseq [[hist first-op more] [[[{:index 0 :type :invoke :process 0 :f :read :value nil}
                                    {:index 1 :type :ok :process 0 :f :read :value 1}]
                                   "op 0 (:index 0), has :f :read" ""]
                                  [[{:index 0 :type :ok :process 0 :value [[:append :x 1]]}] "op 0 (:index 0), has no :f"
                                   (str "; elle-cli reads an op without :f whose :value is micro-ops as a transaction:"
                                        " --input-format elle-cli on the command line, :input-format :elle-cli in check-file")]
                                  [(mapv #(assoc % :f :tx) (h (ok 0 [[:append :x 1]]))) "op 0 (:index 0), has :f :tx" ""]]]
      (let [r (check hist)
            n (count hist)]
        (is (= :unknown (:valid? r)))
        (is (= (str "no :txn operations, so nothing to check: " n (if (= 1 n) " op" " ops") " skipped; the first, "
                    first-op " (the :f of transaction ops is :txn; --f NAME on the command line, :f in the API, names another)"
                    more)
               (:unknown-reason r)))
        (is (= n (get-in r [:stats :skipped-ops])))
        (is (= 0 (get-in r [:stats :txns]))))))
  (testing "the weak levels too"
    (is (= #{:unknown} (set (map :valid? (vals (:levels (check [] [:tcc :ci])))))))))

(deftest f-option-names-the-transactions
  (let [hist (mapv #(assoc % :f :tx) (h (ok 0 [[:append :x 1] [:r :y []]]) (ok 1 [[:append :y 1] [:r :x []]])))]
    (is (= :unknown (:valid? (check hist))))
    (let [r (iso/check (iso/checker {:levels [:serializable] :f :tx}) hist)]
      (is (= false (:valid? r)) "write skew, now that the ops are checked")
      (is (= [:G2-item] (:anomaly-types r))))
    (is (= false (:valid? (iso/check (iso/checker {:levels [:serializable] :f "tx"}) hist))))
    (testing "ops with the default :f are then skipped"
      (let [r (iso/check (iso/checker {:levels [:serializable] :f :tx})
                         (conj hist {:index 2 :type :ok :process 2 :f :txn :value [[:r :x [1]]]}))]
        (is (= 1 (get-in r [:stats :skipped-ops]))))))
  (is (thrown-with-msg? IllegalArgumentException #":f must name the :f of transaction ops"
                        (iso/checker {:f 3}))))

;; --- each cycle is counted once ---------------------------------------------------------------

(deftest two-transaction-g1c-is-one-instance
  ;; T0 and T1 each read the other's append: one cycle, whatever orders (process, realtime) the
  ;; two transactions also have.
  (doseq [[label hist] [["two processes, concurrent"
                         [(assoc (invoke 0 [[:append :x 1] [:r :y nil]]) :index 0)
                          (assoc (invoke 1 [[:append :y 1] [:r :x nil]]) :index 1)
                          (assoc (ok 0 [[:append :x 1] [:r :y [1]]]) :index 2)
                          (assoc (ok 1 [[:append :y 1] [:r :x [1]]]) :index 3)]]
                        ["two processes, in sequence" (h (ok 0 [[:append :x 1] [:r :y [1]]]) (ok 1 [[:append :y 1] [:r :x [1]]]))]
                        ["one process" (h (ok 0 [[:append :x 1] [:r :y [1]]]) (ok 0 [[:append :y 1] [:r :x [1]]]))]
                        ["rw-register" (h (ok 0 [[:w :x 1] [:r :y 1]]) (ok 1 [[:w :y 1] [:r :x 1]]))]]]
    (let [r (check hist)]
      (is (= 1 (get-in r [:anomaly-counts :G1c])) label)
      (is (= 1 (count (get-in r [:anomalies :G1c]))) label))))

(deftest mutated-histories-never-crash-the-command-line
  ;; 1,500 inputs made from valid histories of both workloads, EDN and JSON, by CliFuzz's
  ;; mutations (bytes, ranges, tokens, numbers): every answer an exit status of 0 to 3, none an
  ;; internal error or an exception, status 1 only with a violation printed, each within 20 s;
  ;; and the mutations reach every status, the checker's too, not only the reader's errors.
  ;; (A longer run: 84,000 inputs, none bad, 2026-11-27.)
  (let [dir (Files/createTempDirectory "isocheck-cli-fuzz" (make-array FileAttribute 0))
        res (fn [p] (.toPath (java.io.File. (str "test/resources/" p))))
        json (.resolve dir "plume-fig4.json")
        quiet (PrintStream. (ByteArrayOutputStream.))]
    (is (zero? (Main/run (into-array String ["convert" "--to" "json" (str (res "weak/plume-fig4.edn")) (str json)]) quiet quiet)))
    (let [seeds [(res "register-oracle/g-sib.edn") (res "register-oracle/g1c.edn") (res "corpus/plume-taps/tap-g.edn")
                 (res "weak/plume-fig4.edn") json]
          ^CliFuzz$Report r (CliFuzz/run 0 1500 seeds dir 20000)]
      (println "CLI mutation fuzz:" (str r))
      (is (zero? (.bad r)) (.first r))
      (is (= 1500 (.inputs r)))
      (doseq [status (range 4)]
        (is (pos? (aget (.exits r) status)) (str "exit " status " never reached: " r))))))
