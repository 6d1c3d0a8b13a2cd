(ns isocheck.examples.db
  "The databases the JDBC example drives, one map of functions each: how to
  connect, the tables, the SQL of each micro-op, how to kill a client's
  connection, and which errors mean the transaction definitely did not commit.

  Tables: list-append keeps each key's list as text, `1,2,3`, in a row
  (k integer primary key, v text); an append is one upsert that concatenates
  (PostgreSQL: INSERT ... ON CONFLICT (k) DO UPDATE SET v = v || ',' || new;
  MariaDB: INSERT ... ON DUPLICATE KEY UPDATE v = CONCAT(v, ',', new)), so a
  key's first append and the later ones are the same statement and no
  homemade insert-or-update can race with itself. rw-register keeps one
  integer per key, written with the same upserts. A read is a SELECT by
  primary key; a key with no row reads nil (the initial state).

  Outcomes: an error whose SQLSTATE (or MariaDB error code) says the database
  rolled the transaction back is :fail (serialization failure, deadlock, lock
  wait timeout, constraint violation, statement cancelled). A lost connection
  (the nemesis killed it, a socket timeout) is :info, as Jepsen's clients
  record it, even when COMMIT had not been sent yet; isocheck treats an :info
  transaction as one that may have committed, which is sound either way. Any
  other error is :info too, kind :unexpected, so that a run counts it and its
  tests can refuse it."
  (:require [clojure.string :as str])
  (:import (java.sql Connection DriverManager PreparedStatement ResultSet SQLException
                     SQLNonTransientConnectionException SQLRecoverableException SQLTimeoutException
                     SQLTransientConnectionException Statement)))

(set! *warn-on-reflection* true)

;; MariaDB's driver logs every deadlock to the console; the history records them.
(when-not (System/getProperty "mariadb.logging.disable")
  (System/setProperty "mariadb.logging.disable" "true"))

(def default-urls
  "Where examples/jdbc/servers.sh starts each server; the environment
  variables ISOCHECK_POSTGRES_URL and ISOCHECK_MARIADB_URL override them."
  {:postgres "jdbc:postgresql://127.0.0.1:55432/isocheck?user=isocheck"
   :mariadb  "jdbc:mariadb://127.0.0.1:53306/isocheck?user=isocheck"})

(def ^:private url-env {:postgres "ISOCHECK_POSTGRES_URL", :mariadb "ISOCHECK_MARIADB_URL"})

(defn url
  "The JDBC URL for db (:postgres or :mariadb): the environment's, else the
  default."
  [db]
  (or (not-empty (System/getenv ^String (url-env db))) (default-urls db)))

(def isolation-levels
  {:read-committed  Connection/TRANSACTION_READ_COMMITTED
   :repeatable-read Connection/TRANSACTION_REPEATABLE_READ
   :serializable    Connection/TRANSACTION_SERIALIZABLE})

;; ---------------------------------------------------------------------------
;; Connections

(def ^:private timeouts
  "Driver properties: give up on a connection attempt after 5 s and on a
  socket read after 20 s (the outcome is then unknown: :info)."
  {:postgres {"connectTimeout" "5", "socketTimeout" "20", "ApplicationName" "isocheck"}
   :mariadb  {"connectTimeout" "5000", "socketTimeout" "20000"}})

(defn connect
  "A new connection to db at url, autocommit off, at the given isolation
  level (a key of isolation-levels)."
  ^Connection [db ^String url isolation]
  (let [props (java.util.Properties.)]
    (doseq [[k v] (timeouts db)] (.setProperty props k v))
    (let [c (DriverManager/getConnection url props)]
      (.setAutoCommit c false)
      (.setTransactionIsolation c (int (isolation-levels isolation)))
      c)))

(defn- query-long ^long [^Connection c ^String sql]
  (with-open [s (.createStatement c)
              rs (.executeQuery s sql)]
    (.next rs)
    (.getLong rs 1)))

(defn backend-id
  "The server's id for this connection: PostgreSQL's backend pid, MariaDB's
  connection id. Commits, as the connection is not in autocommit mode."
  ^long [db ^Connection c]
  (let [id (query-long c (case db :postgres "SELECT pg_backend_pid()" :mariadb "SELECT CONNECTION_ID()"))]
    (.commit c)
    id))

(defn kill!
  "Terminates the backend with that id from the admin connection c (in
  autocommit mode): pg_terminate_backend or KILL CONNECTION. Returns true
  when the server found it."
  [db ^Connection c ^long id]
  (case db
    :postgres (with-open [s (.prepareStatement c "SELECT pg_terminate_backend(?)")]
                (.setInt s 1 (int id))
                (with-open [rs (.executeQuery s)]
                  (and (.next rs) (.getBoolean rs 1))))
    :mariadb  (with-open [s (.createStatement c)]
                (try (.execute s (str "KILL CONNECTION " id)) true
                     (catch SQLException e
                       (if (= 1094 (.getErrorCode e)) false (throw e))))))) ; 1094: unknown thread id

;; ---------------------------------------------------------------------------
;; Tables and micro-ops

(defn create-table!
  "Creates table t (dropping an older one of that name) for the workload
  (:append or :wr)."
  [db ^Connection c ^String t workload]
  (with-open [s (.createStatement c)]
    (.execute s (str "DROP TABLE IF EXISTS " t))
    (.execute s (str "CREATE TABLE " t " (k integer PRIMARY KEY, v "
                     (if (= workload :append) "text" "integer") " NOT NULL)"
                     (when (= db :mariadb) " ENGINE=InnoDB"))))
  (when-not (.getAutoCommit c) (.commit c)))

(defn drop-table! [^Connection c ^String t]
  (with-open [s (.createStatement c)]
    (.execute s (str "DROP TABLE IF EXISTS " t)))
  (when-not (.getAutoCommit c) (.commit c)))

(defn- write-sql ^String [db t f]
  (case [db f]
    [:postgres :append] (str "INSERT INTO " t " AS cur (k, v) VALUES (?, ?)"
                             " ON CONFLICT (k) DO UPDATE SET v = cur.v || ',' || excluded.v")
    [:postgres :w]      (str "INSERT INTO " t " (k, v) VALUES (?, ?)"
                             " ON CONFLICT (k) DO UPDATE SET v = excluded.v")
    [:mariadb :append]  (str "INSERT INTO " t " (k, v) VALUES (?, ?)"
                             " ON DUPLICATE KEY UPDATE v = CONCAT(v, ',', VALUES(v))")
    [:mariadb :w]       (str "INSERT INTO " t " (k, v) VALUES (?, ?)"
                             " ON DUPLICATE KEY UPDATE v = VALUES(v)")))

(defn- parse-list [^String s]
  (mapv #(Long/parseLong %) (str/split s #",")))

(defn mop!
  "Runs one micro-op [f k v] of a workload (:append or :wr) on c against
  table t; returns it completed (a read's value filled in)."
  [db ^Connection c ^String t workload [f k v :as mop]]
  (case f
    :r (with-open [s (.prepareStatement c (str "SELECT v FROM " t " WHERE k = ?"))]
         (.setLong s 1 (long k))
         (with-open [rs (.executeQuery s)]
           [f k (when (.next rs)
                  (if (= workload :append)
                    (parse-list (.getString rs 1))
                    (.getLong rs 1)))]))
    (:append :w)
    (with-open [s (.prepareStatement c (write-sql db t f))]
      (.setLong s 1 (long k))
      (if (= f :append) (.setString s 2 (str v)) (.setLong s 2 (long v)))
      (.executeUpdate s)
      mop)))

;; ---------------------------------------------------------------------------
;; Errors

(def ^:private pg-aborts
  "SQLSTATEs after which PostgreSQL has rolled the transaction back."
  {"40001" :serialization-failure
   "40P01" :deadlock
   "40002" :integrity-constraint-violation
   "55P03" :lock-not-available
   "57014" :query-canceled})

(def ^:private mariadb-aborts
  "MariaDB error codes after which the transaction will not commit (we roll
  back whatever InnoDB did not)."
  {1213 :deadlock              ; ER_LOCK_DEADLOCK, SQLSTATE 40001: transaction rolled back
   1205 :lock-wait-timeout     ; ER_LOCK_WAIT_TIMEOUT: statement rolled back, we roll back the rest
   1020 :record-changed        ; ER_CHECKREAD (innodb_snapshot_isolation, MariaDB 11.6+)
   1062 :duplicate-key})

(defn- connection-lost? [db ^SQLException e]
  (let [state (str (.getSQLState e))]
    (or (instance? SQLNonTransientConnectionException e)
        (instance? SQLTransientConnectionException e)
        (instance? SQLRecoverableException e)
        (instance? SQLTimeoutException e)
        (str/starts-with? state "08")
        (case db
          :postgres (contains? #{"57P01" "57P02" "57P03"} state)       ; terminated by the administrator, crash, cannot connect now
          :mariadb  (or (= "70100" state)                              ; ER_CONNECTION_KILLED
                        (contains? #{1927 2006 2013} (.getErrorCode e)))))))

(defn outcome
  "How an exception ends a transaction: [:fail kind] when the database
  definitely did not commit it, [:info kind] when the outcome is unknown."
  [db ^Throwable e]
  (if (instance? SQLException e)
    (let [^SQLException e e
          state (str (.getSQLState e))]
      (cond
        (connection-lost? db e) [:info :connection-lost]
        (= db :postgres) (if-let [k (or (pg-aborts state)
                                        (when (str/starts-with? state "23") :integrity-constraint-violation))]
                           [:fail k]
                           [:info :unexpected])
        :else (if-let [k (or (mariadb-aborts (.getErrorCode e))
                             (when (= "40001" state) :serialization-failure))]
                [:fail k]
                [:info :unexpected])))
    [:info :unexpected]))
