(ns isocheck.errors-test
  "Bad input gets a one-line error naming the op and what was expected, never a
  stack trace or a wrong verdict."
  (:require [clojure.test :refer [deftest is testing]]
            [clojure.string :as str]
            [isocheck.core :as iso]
            [isocheck.jepsen :as j]
            [isocheck.test-util :refer [h ok fail info invoke check]])
  (:import (isocheck.check Level)
           (isocheck.history HistoryException)))

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
