(ns isocheck.examples.jdbc
  "Check a real database: a small Jepsen-like runner that drives PostgreSQL
  or MariaDB over JDBC with isocheck's workloads, records a Jepsen history,
  and checks it.

      examples/jdbc/servers.sh start     # throwaway servers on 127.0.0.1
      lein with-profile +examples run -m isocheck.examples.jdbc \\
           --db postgres --isolation repeatable-read --txns 2000

  From a REPL (profile +examples):

      (require '[isocheck.examples.jdbc :as ex])
      (def r (ex/run! {:db :postgres, :isolation :repeatable-read, :workload :append}))
      (:result r)   ; isocheck's result map
      (:history r)  ; the Jepsen history

  What a run does, as a Jepsen test would:

  - :concurrency client threads, one connection each, take the next
    invocation of (take :txns (:generator w)), w being (isocheck.workload/append
    opts) or (isocheck.workload/wr opts), and run it as one SQL transaction at
    the :isolation level; then, with the nemesis stopped, the workload's final
    reads.
  - Each transaction is an :invoke op and a completion: :ok when COMMIT
    returned, with the values read; :fail when the database definitely rolled
    it back (isocheck.examples.db/outcome); :info when the outcome is unknown
    (the connection was lost). Ops carry :index, :time (nanoseconds since the
    start, monotonic, taken under the history's lock so that :time grows
    with :index) and :process. After an :info the thread drops its
    connection and goes on as a new process, its number plus :concurrency,
    with a new connection, as Jepsen's interpreter does after a crash.
  - A nemesis thread, every :kill-interval milliseconds on average (uniform
    in [0, 2x]), terminates a random client's connection from a connection of
    its own (PostgreSQL pg_terminate_backend, MariaDB KILL CONNECTION), and
    records it as Jepsen records nemesis ops, {:type :info, :process
    :nemesis, :f :kill}; isocheck skips those.
  - The history is checked with the workload's checker (isocheck.core) at
    :levels, by default every level isocheck decides.

  With :out, history.edn (one op per line) goes to that directory and
  isocheck's report to its isocheck/ subdirectory, as Jepsen's store does.
  Each run uses a table of its own, dropped at the end."
  (:refer-clojure :exclude [run!])
  (:require [clojure.java.io :as io]
            [clojure.string :as str]
            [isocheck.core :as core]
            [isocheck.examples.db :as db]
            [isocheck.workload :as workload])
  (:import (java.io Writer)
           (java.sql Connection)
           (java.time LocalDateTime)
           (java.time.format DateTimeFormatter)
           (java.util ArrayList)
           (java.util.concurrent ConcurrentHashMap CountDownLatch ThreadLocalRandom TimeUnit)
           (java.util.concurrent.atomic AtomicBoolean AtomicInteger)))

(set! *warn-on-reflection* true)

(def defaults
  "A run's options when not given."
  {:db                 :postgres
   :isolation          :serializable
   :workload           :append
   :txns               2000
   :concurrency        10
   :kill-interval      100          ; ms between nemesis kills, on average; 0: no nemesis
   :key-count          8
   :min-txn-length     2
   :max-txn-length     6
   :max-writes-per-key 32
   :final?             true})

(def ^:private db-names {:postgres "PostgreSQL", :mariadb "MariaDB"})

(defn- start-hint [db]
  (str "start it with `examples/jdbc/servers.sh start " (name db) "` (or `bash .ci/run`, which "
       "installs and starts both servers), or point " (if (= db :postgres) "ISOCHECK_POSTGRES_URL" "ISOCHECK_MARIADB_URL")
       " at a server of yours"))

(defn cannot-connect
  "The message for a server we cannot reach."
  [db url ^Throwable e]
  (str "cannot connect to " (db-names db) " at " url ": " (.getMessage e) "; " (start-hint db)))

(defn check-connection
  "nil when db answers at url, else the message saying why not and how to
  start it."
  [db url]
  (try (with-open [c (db/connect db url :read-committed)]
         (db/backend-id db c)
         nil)
       (catch Exception e (cannot-connect db url e))))

;; ---------------------------------------------------------------------------
;; The history

(defn- recorder [] {:ops (ArrayList.), :t0 (System/nanoTime)})

(defn- record!
  "Appends op to the history with the next :index and the current :time."
  [{:keys [^ArrayList ops ^long t0]} op]
  (locking ops
    (let [op (assoc op :time (- (System/nanoTime) t0), :index (.size ops))]
      (.add ops op)
      op)))

(defn- op [type process f value] (array-map :type type, :process process, :f f, :value value))

;; ---------------------------------------------------------------------------
;; Clients

(defn- close-quietly [^Connection c]
  (when c (try (.close c) (catch Exception _))))

(defn- connect!
  "Gives worker w a connection, trying for up to 10 s; throws ex-info saying
  how to start the server when it cannot."
  [{:keys [db url isolation ^ConcurrentHashMap backends ^AtomicBoolean abort]} w]
  (loop [tries 1]
    (let [r (try (let [c (db/connect db url isolation)]
                   (try [c (db/backend-id db c)]
                        (catch Exception e (close-quietly c) (throw e))))
                 (catch Exception e e))]
      (cond (vector? r) (let [[c id] r]
                          (vreset! (:conn w) c)
                          (.put backends (:thread w) id))
            (or (>= tries 100) (.get abort))
            (do (.set abort true)
                (throw (ex-info (cannot-connect db url r) {:type ::cannot-connect} r)))
            :else (do (Thread/sleep 100) (recur (inc tries)))))))

(defn- drop-connection! [{:keys [^ConcurrentHashMap backends]} w]
  (.remove backends (:thread w))
  (close-quietly @(:conn w))
  (vreset! (:conn w) nil))

(defn- transact
  "Runs txn on c as one transaction: [:ok completed-txn], [:fail txn error]
  or [:info txn error], plus whether the connection is still usable."
  [{:keys [db table workload]} ^Connection c txn]
  (try
    (let [done (mapv #(db/mop! db c table workload %) txn)]
      (.commit c)
      [:ok done nil true])
    (catch Exception e
      (let [[type kind] (db/outcome db e)
            usable?     (and (= type :fail)
                             (try (.rollback c) true (catch Exception _ false)))]
        [type txn [kind (str (.getMessage e))] usable?]))))

(defn- step!
  "Worker w runs one invocation: records it, runs it, records its completion."
  [ctx w invocation]
  (when-not @(:conn w) (connect! ctx w))
  (let [p    @(:process w)
        txn  (:value invocation)
        _    (record! (:history ctx) (op :invoke p :txn txn))
        [type value error usable?] (transact ctx @(:conn w) txn)]
    (record! (:history ctx) (cond-> (op type p :txn value) error (assoc :error error)))
    (when-not usable? (drop-connection! ctx w))
    (when (= type :info) (vswap! (:process w) + (long (:concurrency ctx))))))

(defn- run-phase!
  "The workers take the invocations in order, each the next when free, until
  none is left."
  [ctx workers invocations]
  (let [invocations (vec invocations)
        n           (count invocations)
        next        (AtomicInteger.)
        ^AtomicBoolean abort (:abort ctx)
        futures     (mapv (fn [w]
                            (future
                              (loop []
                                (let [i (.getAndIncrement next)]
                                  (when (and (< i n) (not (.get abort)))
                                    (try (step! ctx w (nth invocations i))
                                         (catch Throwable e (.set abort true) (throw e)))
                                    (recur))))))
                          workers)]
    (doseq [f futures]
      (try @f
           (catch java.util.concurrent.ExecutionException e
             (throw (.getCause e)))))))

;; ---------------------------------------------------------------------------
;; The nemesis

(defn- start-nemesis!
  "Starts the nemesis; returns a function that stops it and returns the
  number of kills."
  [{:keys [db url ^long kill-interval ^ConcurrentHashMap backends history]}]
  (if (<= kill-interval 0)
    (constantly 0)
    (let [stop  (CountDownLatch. 1)
          kills (AtomicInteger.)
          f     (future
                  (with-open [c (doto (db/connect db url :read-committed) (.setAutoCommit true))]
                    (loop []
                      (let [wait (.nextLong (ThreadLocalRandom/current) (inc (* 2 kill-interval)))]
                        (when-not (.await stop wait TimeUnit/MILLISECONDS)
                          (let [ids (vec (.values backends))]
                            (when (seq ids)
                              (let [id (long (rand-nth ids))]
                                (record! history (op :info :nemesis :kill id))
                                (let [killed? (try (db/kill! db c id) (catch Exception e (str (.getMessage e))))]
                                  (when (true? killed?) (.incrementAndGet kills))
                                  (record! history (op :info :nemesis :kill [id killed?]))))))
                          (recur))))))]
      (fn []
        (.countDown stop)
        @f
        (.get kills)))))

;; ---------------------------------------------------------------------------
;; A run

(defn- write-history! [dir ops]
  (io/make-parents (io/file dir "history.edn"))
  (with-open [^Writer w (io/writer (io/file dir "history.edn"))]
    (binding [*print-length* nil, *print-level* nil]
      (doseq [o ops]
        (.write w (pr-str o))
        (.write w "\n")))))

(defn- completions [history]
  (filter #(and (= :txn (:f %)) (not= :invoke (:type %))) history))

(defn summary
  "Counts of a history: transactions by outcome, errors by kind, processes,
  nemesis kills."
  [history]
  (let [cs (completions history)]
    {:ok        (count (filter #(= :ok (:type %)) cs))
     :fail      (count (filter #(= :fail (:type %)) cs))
     :info      (count (filter #(= :info (:type %)) cs))
     :errors    (frequencies (keep (fn [o] (when-let [e (:error o)] [(:type o) (first e)])) cs))
     :processes (count (distinct (map :process cs)))}))

(defn- table-name [workload]
  (str "isocheck_" (name workload) "_"
       (Long/toString (.nextLong (ThreadLocalRandom/current) 1 Long/MAX_VALUE) 36)))

(defn- validate! [{:keys [db isolation workload]}]
  (when-not (#{:postgres :mariadb} db)
    (throw (IllegalArgumentException. (str ":db must be :postgres or :mariadb, not " (pr-str db)))))
  (when-not (db/isolation-levels isolation)
    (throw (IllegalArgumentException.
             (str ":isolation must be :read-committed, :repeatable-read or :serializable, not "
                  (pr-str isolation)))))
  (when-not (#{:append :wr} workload)
    (throw (IllegalArgumentException. (str ":workload must be :append or :wr, not " (pr-str workload))))))

(defn run!
  "Runs a workload against a database and checks the history. Options (see
  `defaults`): :db (:postgres or :mariadb), :url (default
  isocheck.examples.db/url), :isolation (:read-committed, :repeatable-read,
  :serializable), :workload (:append or :wr), :txns, :concurrency,
  :kill-interval (ms; 0 for no nemesis), the workload's options (:key-count
  :min-txn-length :max-txn-length :max-writes-per-key :key-dist :seed),
  :final? (run the final reads), :levels (default: every level isocheck
  decides), :time-limit (seconds, for the rw-register search), :out (a
  directory for history.edn and isocheck/).

  Returns {:history [ops], :result isocheck's result map, :summary
  (summary history) plus :kills and :seconds, :table, :out}. Throws ex-info
  with a one-line message when the server cannot be reached."
  [opts]
  (let [opts     (merge defaults opts)
        {:keys [db isolation txns concurrency out]} opts
        wl       (:workload opts)
        _        (validate! opts)
        url      (or (:url opts) (db/url db))
        w-opts   (cond-> (select-keys opts [:key-count :min-txn-length :max-txn-length :max-writes-per-key
                                            :key-dist :key-dist-base :seed :final-txn-length :time-limit
                                            :max-anomalies])
                   true (assoc :levels (or (:levels opts) core/implemented-levels))
                   out  (assoc :directory (str (io/file out "isocheck"))))
        w        (if (= wl :append) (workload/append w-opts) (workload/wr w-opts))
        table    (table-name wl)
        ctx      {:db db, :url url, :isolation isolation, :workload wl, :table table
                  :concurrency concurrency, :kill-interval (long (:kill-interval opts))
                  :backends (ConcurrentHashMap.), :abort (AtomicBoolean.), :history (recorder)}
        workers  (mapv (fn [i] {:thread i, :process (volatile! i), :conn (volatile! nil)}) (range concurrency))
        admin    (try (doto (db/connect db url :read-committed) (.setAutoCommit true))
                      (catch Exception e
                        (throw (ex-info (cannot-connect db url e) {:type ::cannot-connect} e))))
        start    (System/nanoTime)]
    (try
      (db/create-table! db admin table wl)
      (let [main  (doall (take txns (:generator w)))
            stop  (start-nemesis! ctx)
            kills (do (try (run-phase! ctx workers main)
                           (catch Throwable e (stop) (throw e)))
                      (stop))]
        (when (:final? opts) (run-phase! ctx workers (:final-generator w)))
        (let [seconds (/ (- (System/nanoTime) start) 1e9)
              history (vec (:ops (:history ctx)))
              _       (when out (write-history! out history))
              result  (core/check (:checker w) history)]
          {:history history
           :result  result
           :summary (assoc (summary history) :kills kills :seconds seconds)
           :table   table
           :out     out}))
      (finally
        (doseq [w workers] (drop-connection! ctx w))
        (try (db/drop-table! admin table) (catch Exception _))
        (close-quietly admin)))))

;; ---------------------------------------------------------------------------
;; Command line

(def ^:private usage
  "usage: lein realdb [options]
   (lein realdb is lein with-profile +examples run -m isocheck.examples.jdbc)
  --db postgres|mariadb                             (postgres)
  --isolation read-committed|repeatable-read|serializable  (serializable)
  --workload append|wr                              (append)
  --txns N              transactions, final reads not counted (2000)
  --concurrency N       client threads (10)
  --kill-interval MS    nemesis: a client connection killed every MS ms on average; 0: none (100)
  --key-count N --min-txn-length N --max-txn-length N --max-writes-per-key N --seed N
                        the workload's options (8, 2, 6, 32, random)
  --levels L1,L2,...    levels to check (default: all)
  --time-limit S        rw-register search time limit, seconds (60)
  --url JDBC-URL        default: ISOCHECK_POSTGRES_URL / ISOCHECK_MARIADB_URL, else the
                        servers examples/jdbc/servers.sh starts
  --out DIR             where history.edn and isocheck/ go
                        (default store/<db>-<isolation>-<workload>/<time>/)
Exit status: 0 every level checked holds, 1 one is violated, 2 one is unknown
and none violated, 3 bad usage or no server.")

(def ^:private int-options
  #{"--txns" "--concurrency" "--kill-interval" "--key-count" "--min-txn-length"
    "--max-txn-length" "--max-writes-per-key" "--seed" "--time-limit"})

(defn- parse-args [args]
  (loop [m {}, [a v & more :as args] args]
    (cond
      (empty? args) m
      (#{"-h" "--help"} a) (assoc m :help true)
      (nil? v) (throw (IllegalArgumentException. (str a " needs a value")))
      (int-options a) (let [n (try (Long/parseLong v)
                                   (catch NumberFormatException _
                                     (throw (IllegalArgumentException. (str a " takes an integer, not " (pr-str v))))))]
                        (recur (assoc m (keyword (subs a 2)) n) more))
      (#{"--db" "--isolation" "--workload"} a) (recur (assoc m (keyword (subs a 2)) (keyword v)) more)
      (= "--levels" a) (recur (assoc m :levels (mapv keyword (str/split v #","))) more)
      (#{"--url" "--out"} a) (recur (assoc m (keyword (subs a 2)) v) more)
      :else (throw (IllegalArgumentException. (str "unknown option " a))))))

(defn- print-summary [{:keys [db isolation workload]} {:keys [summary result out]}]
  (let [{:keys [ok fail info errors processes kills seconds]} summary
        kinds (fn [t] (let [ks (->> errors (filter #(= t (ffirst %))) (sort-by (comp str key))
                                    (map (fn [[[_ k] n]] (str (name k) " " n))))]
                        (if (seq ks) (str " (" (str/join ", " ks) ")") "")))]
    (println (format "%s %s, %s: %d ok, %d fail%s, %d info%s; %d processes, %d connections killed; %.1f s"
                     (db-names db) (name isolation) (name workload) ok fail (kinds :fail) info (kinds :info)
                     processes kills seconds))
    (println (str "history: " (io/file out "history.edn")))
    (println)
    (print (slurp (io/file out "isocheck" "report.txt")))
    (println (str "report: " (io/file out "isocheck" "report.html")))
    (flush)
    (case (:valid? result) true 0, false 1, 2)))

(defn -main [& args]
  (let [status
        (try
          (let [opts (parse-args args)]
            (if (:help opts)
              (do (println usage) 0)
              (let [opts (merge defaults opts)
                    out  (or (:out opts)
                             (str (io/file "store" (str (name (:db opts)) "-" (name (:isolation opts)) "-" (name (:workload opts)))
                                           (.format (LocalDateTime/now) (DateTimeFormatter/ofPattern "yyyyMMdd'T'HHmmss")))))
                    opts (assoc opts :out out)]
                (validate! opts)
                (binding [*out* *err*]
                  (println (format "running %d %s transactions on %s at %s, %d clients, %s"
                                   (:txns opts) (name (:workload opts)) (db-names (:db opts))
                                   (name (:isolation opts)) (:concurrency opts)
                                   (if (pos? (:kill-interval opts))
                                     (str "a connection killed every " (:kill-interval opts) " ms on average")
                                     "no nemesis"))))
                (print-summary opts (run! opts)))))
          (catch IllegalArgumentException e
            (binding [*out* *err*] (println (str "isocheck.examples.jdbc: " (.getMessage e))))
            3)
          (catch clojure.lang.ExceptionInfo e
            (binding [*out* *err*] (println (str "isocheck.examples.jdbc: " (.getMessage e))))
            3))]
    (shutdown-agents)
    (System/exit status)))
