(ns isocheck.levels-test
  "GSI and Elle's read uncommitted, read committed and repeatable read: one
  literal history per case that tells a level from its neighbours, on both
  workloads where the case exists. Each gets its verdict at all ten levels the
  brute-force oracles decide, from isocheck and from the oracles (which share
  no code with it), the anomaly the weakest violated level is named after,
  and a result map that agrees with itself (isocheck.consistency-test)."
  (:require [clojure.string :as str]
            [clojure.test :refer [deftest is testing]]
            [isocheck.consistency-test :as ct]
            [isocheck.core :as ic]
            [isocheck.oracle-test :as ot]
            [isocheck.register-oracle-test :as rot])
  (:import (isocheck.check Level)))

(defn- txn
  "Invoke and completion ops of one transaction (reads blanked in the invocation)."
  [p type mops]
  [{:type :invoke, :process p, :f :txn, :value (mapv (fn [[f k v]] (if (= f :r) [f k nil] [f k v])) mops)}
   {:type type, :process p, :f :txn, :value mops}])

(defn- inv [p mops] (first (txn p :ok mops)))
(defn- ok [p mops] {:type :ok, :process p, :f :txn, :value mops})
(defn- seq-txns
  "Transactions one after another, each completing before the next is invoked."
  [& ts]
  (vec (mapcat (fn [[p type mops]] (txn p type mops)) ts)))

(def ^:private all-true (zipmap ot/levels (repeat true)))
(def ^:private all-false (zipmap ot/levels (repeat false)))
(defn- holding [& ls] (merge all-false (zipmap ls (repeat true))))
(defn- failing [& ls] (merge all-true (zipmap ls (repeat false))))

(def si-and-ser [:strict-serializable :strong-session-serializable :serializable :strong-snapshot-isolation
                 :strong-session-snapshot-isolation :gsi :snapshot-isolation])

(def cases
  "[name workload history expected-verdicts {level anomaly-type-it-names}]"
  [;; ---- read uncommitted (PL-1): only a write cycle or a duplicate element
   ["write cycle (G0): not even read uncommitted" :append
    (seq-txns [0 :ok [[:append :x 1] [:append :y 1]]] [1 :ok [[:append :x 2] [:append :y 2]]]
              [2 :ok [[:r :x [1 2]] [:r :y [2 1]]]])
    all-false {:read-uncommitted :G0}]
   ["two reads in opposite orders: incompatible, and read uncommitted's write orders (every read's) cycle" :append
    (seq-txns [0 :ok [[:append :x 1]]] [1 :ok [[:append :x 2]]]
              [2 :ok [[:r :x [1 2]]]] [3 :ok [[:r :x [2 1]]]])
    all-false {:read-uncommitted :G0, :read-committed :incompatible-order}]
   ["incompatible reads explained by an aborted append: read uncommitted holds" :append
    (seq-txns [0 :fail [[:append :x 1]]] [1 :ok [[:r :x [1]]]] [2 :ok [[:append :x 2]]] [3 :ok [[:r :x [2]]]])
    (holding :read-uncommitted) {:read-committed :G1a}]

   ;; ---- read committed (PL-2): aborted and intermediate reads, cycles of write and read dependencies
   ["aborted read (G1a): read uncommitted allows it, read committed does not" :append
    (seq-txns [0 :fail [[:append :x 1]]] [1 :ok [[:r :x [1]]]])
    (holding :read-uncommitted) {:read-committed :G1a}]
   ["aborted read (G1a)" :wr
    (seq-txns [0 :fail [[:w :x 1]]] [1 :ok [[:r :x 1]]])
    (holding :read-uncommitted) {:read-committed :G1a}]
   ["intermediate read (G1b)" :wr
    (seq-txns [0 :ok [[:w :x 1] [:w :x 2]]] [1 :ok [[:r :x 1]]])
    (holding :read-uncommitted) {:read-committed :G1b}]
   ["circular information flow (G1c)" :append
    [(inv 0 [[:append :x 1] [:r :y nil]]) (inv 1 [[:append :y 1] [:r :x nil]])
     (ok 0 [[:append :x 1] [:r :y [1]]]) (ok 1 [[:append :y 1] [:r :x [1]]])]
    (holding :read-uncommitted) {:read-committed :G1c}]
   ["circular information flow (G1c)" :wr
    [(inv 0 [[:w :x 1] [:r :y nil]]) (inv 1 [[:w :y 2] [:r :x nil]])
     (ok 0 [[:w :x 1] [:r :y 2]]) (ok 1 [[:w :y 2] [:r :x 1]])]
    (holding :read-uncommitted) {:read-committed :G1c}]

   ;; ---- repeatable read (PL-2.99): no cycle with an anti-dependency, no lost update
   ["read skew (G-single): read committed allows it, repeatable read does not" :append
    [(inv 0 [[:append :x 1] [:append :y 1]]) (inv 1 [[:r :x nil] [:r :y nil]])
     (ok 0 [[:append :x 1] [:append :y 1]]) (ok 1 [[:r :x []] [:r :y [1]]])
     (inv 2 [[:r :x nil]]) (ok 2 [[:r :x [1]]])]
    (holding :read-committed :read-uncommitted) {:repeatable-read :G-single-item}]
   ["read skew (G-single)" :wr
    [(inv 0 [[:w :x 1] [:w :y 1]]) (inv 1 [[:r :x nil] [:r :y nil]])
     (ok 0 [[:w :x 1] [:w :y 1]]) (ok 1 [[:r :x nil] [:r :y 1]])]
    (holding :read-committed :read-uncommitted) {:repeatable-read :G-single-item}]
   ["lost update: read committed allows it, repeatable read does not" :append
    [(inv 0 [[:r :x nil] [:append :x 1]]) (inv 1 [[:r :x nil] [:append :x 2]])
     (ok 0 [[:r :x []] [:append :x 1]]) (ok 1 [[:r :x []] [:append :x 2]])
     (inv 0 [[:r :x nil]]) (ok 0 [[:r :x [1 2]]])]
    (holding :read-committed :read-uncommitted) {:repeatable-read :lost-update}]
   ["lost update" :wr
    [(inv 0 [[:r :x nil] [:w :x 1]]) (inv 1 [[:r :x nil] [:w :x 2]])
     (ok 0 [[:r :x nil] [:w :x 1]]) (ok 1 [[:r :x nil] [:w :x 2]])]
    (holding :read-committed :read-uncommitted) {:repeatable-read :lost-update}]
   ["write skew (G2-item): snapshot isolation allows it, repeatable read does not" :wr
    [(inv 0 [[:r :x nil] [:r :y nil] [:w :x 1]]) (inv 1 [[:r :x nil] [:r :y nil] [:w :y 2]])
     (ok 0 [[:r :x nil] [:r :y nil] [:w :x 1]]) (ok 1 [[:r :x nil] [:r :y nil] [:w :y 2]])]
    (failing :strict-serializable :strong-session-serializable :serializable :repeatable-read)
    {:repeatable-read :G2-item}]
   ["a read disagreeing with the transaction's own earlier one (:internal): repeatable read holds, serializability does not" :wr
    (seq-txns [0 :ok [[:w :x 1]]] [1 :ok [[:r :x 1] [:r :x nil]]])
    (holding :repeatable-read :read-committed :read-uncommitted) {:snapshot-isolation :internal}]
   ["a read missing the transaction's own append (:internal)" :append
    (seq-txns [0 :ok [[:append :x 1] [:r :x []]]])
    (holding :repeatable-read :read-committed :read-uncommitted) {:serializable :internal}]

   ;; ---- the snapshot-isolation variants: plain, strong-session, GSI, strong
   ["long fork: every SI variant rejects it (read committed holds)" :wr
    (vec (concat (txn 0 :ok [[:w :x 1]]) (txn 1 :ok [[:w :y 2]])
                 [(inv 2 [[:r :x nil] [:r :y nil]]) (inv 3 [[:r :x nil] [:r :y nil]])
                  (ok 2 [[:r :x 1] [:r :y nil]]) (ok 3 [[:r :x nil] [:r :y 2]])]))
    (holding :read-committed :read-uncommitted) {:snapshot-isolation :G-nonadjacent-item}]
   ["stale read in one session: strong-session SI and strong SI reject it, GSI and SI do not" :append
    (seq-txns [0 :ok [[:append :x 1]]] [0 :ok [[:r :x []]]])
    (failing :strict-serializable :strong-session-serializable :strong-snapshot-isolation
             :strong-session-snapshot-isolation)
    {:strong-session-snapshot-isolation :G-single-item-process}]
   ["stale read in one session" :wr
    (seq-txns [0 :ok [[:w :x 1]]] [0 :ok [[:r :x nil]]])
    (failing :strict-serializable :strong-session-serializable :strong-snapshot-isolation
             :strong-session-snapshot-isolation)
    {:strong-session-snapshot-isolation :G-single-item-process}]
   ["commits out of realtime order: GSI and strong SI reject it, strong-session SI and SI do not" :append
    (seq-txns [0 :ok [[:append :x 1]]] [1 :ok [[:append :x 2] [:append :y 2]]] [2 :ok [[:r :x [2 1]] [:r :y [2]]]])
    (failing :strict-serializable :strong-snapshot-isolation :gsi)
    {:gsi :G0-realtime-commit}]
   ["commits out of realtime order" :wr
    (seq-txns [0 :ok [[:w :x 1]]] [1 :ok [[:w :x 2] [:w :y 2]]] [2 :ok [[:r :x 1] [:r :y 2]]])
    (failing :strict-serializable :strong-snapshot-isolation :gsi)
    {:gsi :G-single-item-realtime-commit}]
   ["stale read across sessions: only strong SI (and strict serializability) reject it" :append
    (seq-txns [0 :ok [[:append :x 1]]] [1 :ok [[:r :x []]]])
    (failing :strict-serializable :strong-snapshot-isolation)
    {:strong-snapshot-isolation :G-single-item-realtime}]
   ["stale read across sessions" :wr
    (seq-txns [0 :ok [[:w :x 1]]] [1 :ok [[:r :x nil]]])
    (failing :strict-serializable :strong-snapshot-isolation)
    {:strong-snapshot-isolation :G-single-item-realtime}]
   ["a read of realtime-later writes through reads-from alone: a GSI cycle without a write order" :wr
    ;; T1 completes before T2 is invoked, yet T1 read T2's write: under GSI T1 committed first,
    ;; and T2 cannot have committed before T1's snapshot.
    (seq-txns [0 :ok [[:r :x 2] [:w :y 1]]] [1 :ok [[:w :x 2]]])
    (failing :strict-serializable :strong-snapshot-isolation :gsi)
    {:gsi :G1c-realtime-commit}]])

(defn- isocheck-verdicts [history wl]
  (let [r (ic/check (ic/checker {:levels ic/implemented-levels, :workload wl}) history)]
    [r (into {} (for [l ot/levels] [l (get-in r [:levels l :valid?])]))]))

(deftest literal-cases
  (doseq [[nm wl history expect names] cases]
    (testing (str nm " (" (name wl) ")")
      (is (= expect (if (= wl :append) (ot/verdicts history) (rot/verdicts history))) "the oracles")
      (let [[r got] (isocheck-verdicts history wl)]
        (is (= expect got) "isocheck")
        (doseq [[l t] names]
          (is (some #{t} (get-in r [:levels l :anomaly-types])) (str l " names " t ": " (get-in r [:levels l]))))
        (is (empty? (ct/agreement-problems r)))))))

(deftest the-cases-separate-the-levels
  ;; For each pair of neighbouring levels, a case where the weaker holds and the stronger fails.
  (let [vs (for [[_ _ _ expect] cases] expect)
        separates? (fn [weaker stronger] (some #(and (% weaker) (not (% stronger))) vs))]
    (doseq [[weaker stronger] [[:read-uncommitted :read-committed] [:read-committed :repeatable-read]
                               [:repeatable-read :serializable] [:read-committed :snapshot-isolation]
                               [:snapshot-isolation :repeatable-read] [:snapshot-isolation :gsi]
                               [:snapshot-isolation :strong-session-snapshot-isolation]
                               [:gsi :strong-snapshot-isolation] [:gsi :strong-session-snapshot-isolation]
                               [:strong-session-snapshot-isolation :gsi]
                               [:strong-session-snapshot-isolation :strong-snapshot-isolation]]]
      (is (separates? weaker stronger) (str weaker " without " stronger)))))

(deftest read-uncommitted-holds-on-registers-whatever-the-order
  ;; A register's version order is never observed, and PL-1 constrains nothing else: even a
  ;; history every other level rejects (an aborted read included). Only a value no one wrote
  ;; rules it out (cli_edges_test).
  (let [h (vec (concat (txn 0 :fail [[:w :x 1]])
                       [(inv 1 [[:w :x 2] [:r :y nil]]) (inv 2 [[:w :y 3] [:r :x nil]])
                        (ok 1 [[:w :x 2] [:r :y 3]]) (ok 2 [[:w :y 3] [:r :x 1]])]))
        [r got] (isocheck-verdicts h :wr)]
    (is (true? (got :read-uncommitted)))
    (is (every? false? (vals (dissoc got :read-uncommitted))))
    (is (contains? (:not r) :read-committed))))

(deftest search-counterexamples-never-claim-read-committed
  ;; The version-order search forces write orders under the searched level's rules. A cycle made
  ;; of such orders and reads-from steps is shaped G0 or G1c, but read committed's rules force no
  ;; write order, and it holds: such a counterexample is named G-SI (snapshot isolation and the
  ;; levels implying it fail, repeatable read too), or after the other alternative when that one
  ;; has an anti-dependency.
  (testing "both orders of one pair close a cycle, one of them G1c-shaped"
    ;; T1 before T0 on x closes T2 -rw-> T0 -wr-> T2; T0 before T1 closes T0 -ww-> T1 -wr-> T0.
    (let [h [(inv 0 [[:w :x 2] [:w :y 2] [:r :z nil]])
             (inv 1 [[:w :x 1] [:w :z 1]])
             (inv 2 [[:r :x nil] [:r :y nil]])
             (ok 0 [[:w :x 2] [:w :y 2] [:r :z 1]])
             (ok 1 [[:w :x 1] [:w :z 1]])
             (ok 2 [[:r :x 1] [:r :y 2]])]
          [r got] (isocheck-verdicts h :wr)]
      (is (= (holding :read-committed :read-uncommitted) got))
      (is (= (holding :read-committed :read-uncommitted) (rot/verdicts h)))
      (is (= [:G-single-item] (get-in r [:levels :snapshot-isolation :anomaly-types])))
      (is (empty? (ct/agreement-problems r)))))
  (testing "two forced orders and two reads close a cycle"
    ;; Pruning forces T1 before T0 on x (the other order closes T4 -rw-> T1 -wr-> T4) and T3
    ;; before T2 on y (likewise with T5); then T0 -wr-> T3 -ww-> T2 -wr-> T1 -ww-> T0.
    (let [ts [[0 [[:w :x 1] [:w :a 1]]]
              [1 [[:w :x 2] [:w :p 2] [:r :c 3]]]
              [2 [[:w :y 3] [:w :c 3]]]
              [3 [[:w :y 4] [:w :q 4] [:r :a 1]]]
              [4 [[:r :x 1] [:r :p 2]]]
              [5 [[:r :y 3] [:r :q 4]]]]
          h (vec (concat (for [[p m] ts] (inv p m)) (for [[p m] ts] (ok p m))))
          [r got] (isocheck-verdicts h :wr)]
      (is (= (holding :read-committed :read-uncommitted) got))
      (is (= (holding :read-committed :read-uncommitted) (rot/verdicts h)))
      (is (= [:G-SI] (get-in r [:levels :snapshot-isolation :anomaly-types])))
      (is (str/includes? (get-in r [:counterexamples :G-SI :explanation]) "(forced: the other order"))
      (is (not-any? #{:G1c :G0} (:anomaly-types r)))
      (is (true? (get-in r [:levels :rc :valid?])) "Plume's read committed holds too")
      (is (empty? (ct/agreement-problems r))))))

(deftest names-and-constructors
  (doseq [[n l] [["gsi" "gsi"] [":read-committed" "read-committed"] ["PL-2" "read-committed"] ["pl-1" "read-uncommitted"]
                 ["PL-2.99" "repeatable-read"] ["repeatable-read" "repeatable-read"]]]
    (is (= l (.id (Level/parse n))) n))
  (doseq [[f l] [[ic/gsi :gsi] [ic/read-committed :read-committed] [ic/read-uncommitted :read-uncommitted]
                 [ic/repeatable-read :repeatable-read]]]
    (is (= [l] (get-in (f) [:opts :levels])))))
