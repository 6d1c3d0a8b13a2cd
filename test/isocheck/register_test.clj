(ns isocheck.register-test
  "rw-register histories: pre-checks are decided, cycles of observed
  dependencies are violations, and everything else is :unknown with a reason
  (never true by guesswork)."
  (:require [clojure.test :refer [deftest is testing]]
            [clojure.string :as str]
            [isocheck.test-util :refer [h ok fail info invoke check verdict types
                                        cx-indices]]))

(deftest valid-register-history-is-unknown-with-reason
  (let [r (check (h (ok 0 [[:w :x 1]])
                    (ok 1 [[:r :x 1] [:w :y 2]])
                    (ok 0 [[:r :y 2] [:r :x 1]])))]
    (is (= :unknown (:valid? r)))
    (doseq [[l v] (:levels r)]
      (is (= :unknown (:valid? v)) (str l))
      (is (str/includes? (:reason v) "version order") (str l)))
    (is (string? (:unknown-reason r)))
    (is (= :wr (get-in r [:stats :workload])))))

(deftest register-g1a
  (let [r (check (h (fail 0 [[:w :x 1]])
                    (ok 1 [[:r :x 1]])))]
    (is (= #{:G1a} (types r)))
    (is (= #{0 1} (cx-indices r :G1a)))
    (is (= false (:valid? r)))))

(deftest register-g1b
  (let [r (check (h (ok 0 [[:w :x 1] [:w :x 2]])
                    (ok 1 [[:r :x 1]])))]
    (is (= #{:G1b} (types r)))
    (is (= false (verdict r :snapshot-isolation)))))

(deftest register-garbage
  (let [r (check (h (ok 0 [[:w :x 1]])
                    (ok 1 [[:r :x 5]])))]
    (is (= #{:garbage-read} (types r)))))

(deftest register-internal
  (let [r (check (h (ok 0 [[:w :x 1] [:r :x 2]])
                    (ok 1 [[:w :x 2]])))]
    (is (contains? (types r) :internal))
    (is (= 1 (get-in r [:counterexamples :internal :expected])))))

(deftest register-future-read
  (let [r (check (h (ok 0 [[:r :x 1] [:w :x 1]])))]
    (is (= #{:future-read} (types r)))))

(deftest register-wr-cycle-is-a-violation
  (let [r (check (h (ok 0 [[:w :x 1] [:r :y 1]])
                    (ok 1 [[:w :y 1] [:r :x 1]])))]
    (is (= #{:G1c} (types r)))
    (is (= #{0 1} (cx-indices r :G1c)))
    (is (= false (:valid? r)))
    (is (every? false? (map :valid? (vals (:levels r)))))))

(deftest register-wr-process-cycle
  ;; T0 reads what T1 (later on the same process) writes.
  (let [r (check (h (ok 0 [[:r :x 1]])
                    (ok 0 [[:w :x 1]])))]
    (is (= #{:G1c-process} (types r)))
    (is (= false (verdict r :strong-session-serializable)))
    (is (= :unknown (verdict r :serializable)))))

(deftest register-info-write-read-is-committed
  (let [r (check (h (info 0 [[:w :x 1] [:r :y 1]])
                    (ok 1 [[:w :y 1] [:r :x 1]])))]
    ;; T0's reads are unknown, so no cycle; its write was read, so it committed.
    (is (= :unknown (:valid? r)))
    (is (= 2 (get-in r [:stats :committed])))))
