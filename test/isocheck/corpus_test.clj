(ns isocheck.corpus-test
  "Known-answer tests on real histories, kept in test/resources/corpus (a copy
  of the project's shared corpus; see its README for where they come from),
  read through the CLI's file path: Jepsen's MongoDB bugs, with nemesis ops mixed in,
  PostgreSQL list-append runs, and Plume's 14 single-pattern (TAP) files,
  which have no invocations. Reference verdicts are Elle's and Plume's (see the
  corpus README); where isocheck differs, the test pins isocheck's answer and
  says why it is right."
  (:require [clojure.test :refer [deftest is testing]]
            [clojure.java.io :as io]
            [isocheck.core :as iso])
  (:import (isocheck.io Formats)))

(def corpus "test/resources/corpus")

(defn- check-file [path levels]
  (let [h (Formats/readHistory (str corpus "/" path) nil)]
    (second (iso/check-history {:levels levels} h))))

(defmacro with-corpus [& body]
  `(do (is (.isDirectory (io/file corpus)) "the corpus is part of the repository")
       ~@body))

(deftest postgres-two-sessions-is-strict-serializable
  (with-corpus
    (let [r (check-file "postgres-list-append/sess2-history0.edn" iso/implemented-levels)]
      (is (= true (:valid? r)))
      (is (= 200 (get-in r [:stats :txns])) "400 ops: 200 invocations and their completions"))))

(deftest postgres-five-sessions-breaks-session-order
  ;; Elle: G2-item-realtime (strict-serializable only). The same cycle needs
  ;; only process order: T287 then T293 ran on process 2, T293 missed T291's
  ;; append to key 2245, and T291 missed T287's append to key 1977. So
  ;; strong-session serializability fails too; serializability and every SI
  ;; level hold.
  (with-corpus
    (let [r (check-file "postgres-list-append/sess5-history0.edn" iso/implemented-levels)]
      (is (= {:strict-serializable false, :strong-session-serializable false, :serializable true,
              :strong-snapshot-isolation true, :strong-session-snapshot-isolation true, :gsi true,
              :snapshot-isolation true, :repeatable-read true, :read-committed true,
              :read-uncommitted true, :tcc true, :ra true, :rc true, :ci true}
             (into {} (map (fn [[l v]] [l (:valid? v)])) (:levels r))))
      (is (= #{:strong-session-serializable} (:not r)))
      (is (= #{287 291 293} (set (map :index (get-in r [:counterexamples :G2-item-process :cycle]))))))))

(deftest postgres-serializable-read-only-anomaly
  ;; A run of this repository's JDBC harness (realdb_test's postgres-ser-append: PostgreSQL
  ;; 15.18 at SERIALIZABLE, connections killed by a nemesis), the one of many such runs that
  ;; was not serializable. The cycle is the read-only anomaly of Fekete, O'Neil and O'Neil
  ;; (SIGMOD Record 2004), checked by hand from the ops: T3270 read key 100 as [8 9 10 11],
  ;; without T3266's append of 20 (rw); T3266 committed first; the read-only T3288 then read key
  ;; 100 with T3266's appends 20 21 22 (wr) but key 99 as [8 9 12 13 16], without T3270's
  ;; append of 17 (rw), which every later read of key 99 shows right after 16. Every
  ;; transaction of the cycle is :ok. Snapshot isolation allows it (no two of the three write
  ;; a common key), serializability does not.
  (with-corpus
    (let [r (check-file "postgres-ssi/read-only-anomaly.edn.gz" [:serializable :snapshot-isolation])]
      (is (= {:serializable false, :snapshot-isolation true}
             (into {} (map (fn [[l v]] [l (:valid? v)])) (:levels r))))
      (is (= [:G2-item] (:anomaly-types r)))
      (is (= #{3266 3270 3288} (set (map :index (get-in r [:counterexamples :G2-item :cycle]))))))))

(deftest mongodb-aborted-read
  ;; Elle: G1a, G1c-realtime, G-single-item-realtime, incompatible-order.
  ;; isocheck finds all but G1c-realtime: the only such cycle needs the step
  ;; "T3370's append of 2 to key 99 was never read, so it follows 7", while
  ;; T3199 read key 99 as [1 2]; inferences from a read that contradicts the
  ;; key's order are not drawn.
  (with-corpus
    (let [r (check-file "jepsen-mongodb/aborted-read.edn" iso/implemented-levels)]
      (is (= false (:valid? r)))
      (is (every? (set (:anomaly-types r)) [:G1a :G-single-item-realtime :incompatible-order]))
      (is (= 174 (get-in r [:stats :skipped-ops])) "nemesis ops are skipped, not checked"))))

(deftest mongodb-cyclic-information-flow
  (with-corpus
    (let [r (check-file "jepsen-mongodb/cyclic-information-flow.edn" iso/implemented-levels)]
      (is (every? (set (:anomaly-types r))
                  [:G1a :G1c :G-single-item :G2-item :dirty-update :duplicate-elements]))
      (is (not (contains? (set (:anomaly-types r)) :G0))
          "a duplicated element is one version, not a write cycle"))))

(deftest mongodb-read-your-future-writes
  (with-corpus
    (let [r (check-file "jepsen-mongodb/read-your-future-writes.edn" iso/implemented-levels)]
      (is (every? (set (:anomaly-types r))
                  [:G1a :G1c :G2-item :future-read :dirty-update :duplicate-elements])))))

(deftest mongodb-weak-levels
  ;; The same three MongoDB bugs under Plume's patterns: reading a :fail transaction's append is
  ;; AbortedRead (b), reading one's own later append is FutureRead (c), and the information flow
  ;; cycle is a cycle of causal order (CyclicCO, g). All break RC and so RA and TCC; none reads
  ;; one key from two other transactions in one transaction, so cut isolation holds. Real Jepsen
  ;; histories have reads that complete before their writer does, so causal order is built by
  ;; the strongly-connected-components path, not in transaction-id order.
  (with-corpus
    (doseq [[file tap] {"aborted-read.edn" :AbortedRead
                        "read-your-future-writes.edn" :FutureRead
                        "cyclic-information-flow.edn" :CyclicCO}]
      (let [r (check-file (str "jepsen-mongodb/" file) [:tcc :ra :rc :ci])]
        (is (contains? (set (:anomaly-types r)) tap) (str file " " (:anomaly-types r)))
        (is (= {:tcc false, :ra false, :rc false, :ci true}
               (into {} (map (fn [[l v]] [l (:valid? v)])) (:levels r)))
            file)
        (is (= :scc (get-in r [:stats :weak :co-order])) file)))))

(deftest plume-taps-completion-only
  ;; Each file shows one of Plume's TAPs (a-n), all TCC violations; with
  ;; sessions, SI implies TCC, so strong-session SI must reject every one.
  (with-corpus
    (doseq [[tap expect] {"a" :garbage-read, "b" :G1a, "c" :future-read, "d" :internal,
                          "e" :internal, "f" :G1b, "g" :G1c-process, "h" :G-single-item,
                          "i" :G-single-item, "j" :incompatible-order, "k" :G-single-item,
                          "l" :G-single-item, "m" :G-single-item-process, "n" :incompatible-order}]
      (let [r (check-file (str "plume-taps/tap-" tap ".edn") [:strong-session-snapshot-isolation])]
        (is (= false (:valid? r)) tap)
        (is (contains? (set (:anomaly-types r)) expect) (str tap " " (:anomaly-types r)))))))
