(ns isocheck.examples.jepsen-pg
  "A complete Jepsen test of PostgreSQL with isocheck beside Elle: copy this
  file into a Jepsen project (renaming the namespace as you like), and run

      lein run test --db-url jdbc:postgresql://127.0.0.1:5432/jepsen?user=jepsen \\
                    --isolation repeatable-read --workload append --time-limit 60

  The project's project.clj needs, beside Jepsen (0.3.12 or later runs on
  JDK 21 or later; older ones on 17):

      :dependencies [[jepsen \"0.3.13\"]
                     [isocheck \"0.1.0-SNAPSHOT\"]          ; lein install, in an isocheck clone
                     [org.postgresql/postgresql \"42.7.14\"]]
      :main isocheck.examples.jepsen-pg

  What runs: `:concurrency` client threads run isocheck.workload/append (or
  /wr) transactions against one table, each as one JDBC transaction at
  `--isolation`, while a nemesis terminates the clients' connections
  (pg_terminate_backend) about every `--kill-interval` seconds, so some
  transactions end :info, as under real faults; then the workload's final
  reads. The history is checked by Elle (jepsen.tests.cycle.append or .wr)
  and isocheck side by side; isocheck's report lands in
  store/<test>/<time>/isocheck/.

  Jepsen installs nothing here (`db/noop`, no SSH): PostgreSQL runs where
  `--db-url` points. Only Jepsen API that 0.3.x releases share is used, so
  the file works across them."
  (:require [clojure.string :as str]
            [jepsen [checker :as checker]
                    [cli :as cli]
                    [client :as client]
                    [generator :as gen]
                    [nemesis :as nemesis]
                    [tests :as tests]]
            [jepsen.tests.cycle [append :as append]
                                [wr :as wr]]
            [isocheck.workload :as workload])
  (:import (java.sql Connection DriverManager SQLException)))

;; ---------------------------------------------------------------------------
;; SQL: one row per key; a list-append list is kept as text "1,2,3"

(def ^:private isolation-levels
  {:read-committed  Connection/TRANSACTION_READ_COMMITTED
   :repeatable-read Connection/TRANSACTION_REPEATABLE_READ
   :serializable    Connection/TRANSACTION_SERIALIZABLE})

(defn connect
  "A connection to url, autocommit off, at isolation (a key of
  isolation-levels), named so that the nemesis finds it."
  ^Connection [^String url isolation]
  (let [props (doto (java.util.Properties.)
                (.setProperty "ApplicationName" "isocheck-client")
                (.setProperty "connectTimeout" "5")
                (.setProperty "socketTimeout" "20"))
        c (DriverManager/getConnection url props)]
    (.setAutoCommit c false)
    (.setTransactionIsolation c (int (isolation-levels isolation)))
    c))

(defn create-table!
  "Creates the table for the workload (:append or :wr), dropping an older one."
  [^Connection c ^String table workload]
  (with-open [s (.createStatement c)]
    (.execute s (str "DROP TABLE IF EXISTS " table))
    (.execute s (str "CREATE TABLE " table " (k bigint PRIMARY KEY, v "
                     (if (= workload :append) "text" "bigint") " NOT NULL)")))
  (.commit c))

(defn- mop!
  "Runs one micro-op on c; returns it with a read's value filled in."
  [^Connection c ^String table [f k v :as mop]]
  (case f
    :r (with-open [s (.prepareStatement c (str "SELECT v FROM " table " WHERE k = ?"))]
         (.setLong s 1 (long k))
         (with-open [rs (.executeQuery s)]
           [f k (when (.next rs)
                  (let [x (.getObject rs 1)]
                    (if (string? x) (mapv #(Long/parseLong %) (str/split x #",")) x)))]))
    :append (with-open [s (.prepareStatement c (str "INSERT INTO " table " AS cur (k, v) VALUES (?, ?)"
                                                    " ON CONFLICT (k) DO UPDATE SET v = cur.v || ',' || excluded.v"))]
              (.setLong s 1 (long k))
              (.setString s 2 (str v))
              (.executeUpdate s)
              mop)
    :w (with-open [s (.prepareStatement c (str "INSERT INTO " table " (k, v) VALUES (?, ?)"
                                               " ON CONFLICT (k) DO UPDATE SET v = excluded.v"))]
         (.setLong s 1 (long k))
         (.setLong s 2 (long v))
         (.executeUpdate s)
         mop)))

(defn- aborted?
  "Whether PostgreSQL rolled the transaction back for sure: serialization
  failure, deadlock, lock not available, constraint violation."
  [^SQLException e]
  (let [state (str (.getSQLState e))]
    (or (#{"40001" "40P01" "55P03"} state) (str/starts-with? state "23"))))

(defn transact!
  "Runs op's transaction on c: the completed op, :ok with the values read,
  :fail when PostgreSQL rolled it back, :info when the outcome is unknown (the
  connection was lost: it may have committed)."
  [^Connection c ^String table op]
  (try
    (let [txn (mapv #(mop! c table %) (:value op))]
      (.commit c)
      (assoc op :type :ok, :value txn))
    (catch SQLException e
      (try (.rollback c) (catch SQLException _))
      (assoc op :type (if (aborted? e) :fail :info), :error [(.getSQLState e) (.getMessage e)]))))

;; ---------------------------------------------------------------------------
;; Jepsen: client and nemesis

(defrecord Client [^Connection conn]
  client/Client
  (open! [this test node]
    (assoc this :conn (connect (:db-url test) (:isolation test))))
  (setup! [this test]
    (create-table! conn (:table test) (:workload test)))
  (invoke! [this test op]
    (transact! conn (:table test) op))
  (teardown! [this test])
  (close! [this test]
    (when conn (.close conn))))

(defrecord ConnectionKiller [url]
  nemesis/Nemesis
  (setup! [this test] this)
  (invoke! [this test op]
    (with-open [c (DriverManager/getConnection url)
                s (.createStatement c)
                rs (.executeQuery s (str "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
                                         " WHERE application_name = 'isocheck-client'"))]
      (.next rs)
      (assoc op :type :info, :value {:terminated (.getLong rs 1)})))
  (teardown! [this test]))

;; ---------------------------------------------------------------------------
;; The test

(defn pg-test
  "A Jepsen test map from the command line's options."
  [opts]
  (let [wl        (keyword (name (:workload opts :append)))
        isolation (keyword (name (:isolation opts :serializable)))
        w-opts    {:key-count 8, :max-txn-length 4, :consistency-models [:serializable]
                   :levels [:serializable :snapshot-isolation :tcc]}
        w         (if (= wl :append) (workload/append w-opts) (workload/wr w-opts))
        elle      (if (= wl :append) (append/checker w-opts) (wr/checker w-opts))
        every     (double (:kill-interval opts 5))]
    (merge tests/noop-test
           opts
           {:name      (str "isocheck-pg-" (name wl) "-" (name isolation))
            :ssh       {:dummy? true}
            :workload  wl
            :isolation isolation
            :table     (str "isocheck_" (name wl))
            :client    (->Client nil)
            :nemesis   (->ConnectionKiller (:db-url opts))
            ;; The workload's generators hand transactions to clients only; the nemesis
            ;; gets its own ops through gen/nemesis. The final reads come after the main
            ;; phase, with the nemesis quiet.
            :generator (gen/phases
                         (->> (:generator w)
                              (gen/stagger (/ 1 (double (:rate opts 100))))
                              (gen/nemesis (cycle [(gen/sleep every) {:type :info, :f :kill}]))
                              (gen/time-limit (:time-limit opts 60)))
                         (:final-generator w))
            :checker   (checker/compose {:elle     elle
                                         :isocheck (:checker w)
                                         :stats    (checker/stats)})})))

(def cli-opts
  "The command line's options, beside Jepsen's own (--time-limit, --concurrency ...)."
  [[nil "--db-url URL" "JDBC URL of the PostgreSQL database"
    :default "jdbc:postgresql://127.0.0.1:55432/isocheck?user=isocheck"]
   [nil "--isolation LEVEL" "read-committed, repeatable-read or serializable"
    :default :serializable :parse-fn keyword]
   [nil "--workload NAME" "append or wr"
    :default :append :parse-fn keyword]
   [nil "--rate HZ" "transactions per second, about"
    :default 100 :parse-fn parse-double]
   [nil "--kill-interval SECONDS" "seconds between connection kills, about"
    :default 5 :parse-fn parse-double]])

(defn -main
  "lein run test [options]"
  [& args]
  (cli/run! (merge (cli/single-test-cmd {:test-fn pg-test, :opt-spec cli-opts})
                   (cli/serve-cmd))
            args))
