(ns isocheck.core
  "isocheck: isolation checking for Jepsen transactional histories, sound and
  complete, with the smallest counterexample per anomaly explained in words
  and drawn as a picture.

  In a Jepsen test:

      (require '[isocheck.core :as isocheck])

      {:checker (isocheck/si)}                      ; snapshot isolation
      {:checker (isocheck/ser)}                     ; serializability
      {:checker (isocheck/sser)}                    ; strict serializability
      {:checker (isocheck/tcc)}                     ; transactional causal consistency
      {:checker (isocheck/ra)}                      ; read atomic
      {:checker (isocheck/rc)}                      ; read committed (Plume's)
      {:checker (isocheck/ci)}                      ; cut isolation
      {:checker (isocheck/gsi)}                     ; generalized snapshot isolation
      {:checker (isocheck/read-committed)}          ; Elle's read committed (Adya PL-2)
      {:checker (isocheck/checker
                  {:levels [:serializable :snapshot-isolation]})}

  For the whole workload (generator, final reads and this checker) with
  Elle's options, see isocheck.workload.

  `jepsen.checker/check` then returns an Elle-shaped map (`:valid?`,
  `:anomaly-types`, `:anomalies`, `:not`, `:also-not`) plus `:levels` (the
  verdict per level), `:counterexamples` (the smallest instance of each
  anomaly type, with `:explanation` and a Graphviz `:dot`), `:anomaly-counts`
  and `:stats`; and it writes report.html, report.txt, result.edn, result.json
  and one picture per anomaly type to store/<test>/<time>/isocheck/.

  Without Jepsen, on a vector of op maps or any reducible of ops:

      (isocheck/check (isocheck/si) history)

  or on a file: a Jepsen history.edn or JSON, or another tool's history
  (Plume/PolySI text, dbcop JSON or bincode, Cobra's logs; see check-file):

      (isocheck/check-file (isocheck/si) \"hist-00000.txt\")

  Options (all optional):

      :levels         levels to decide (default: every level).
                      Elle's names: :strict-serializable :serializable
                      :strong-session-serializable :snapshot-isolation
                      :strong-session-snapshot-isolation
                      :strong-snapshot-isolation :gsi :repeatable-read
                      :read-committed :read-uncommitted; aliases :sser
                      :ser :si :strong-session-si :strong-si :PL-2.99
                      :PL-2 :PL-1. Weak levels (Plume): :tcc :ra :rc :ci
                      (aliases :causal :read-atomic :cut-isolation).
      :workload       :append or :wr (default: detected from the micro-ops)
      :f              the :f of transaction ops (default :txn); ops with
                      another :f are skipped and counted. A history with no
                      transaction at all is :valid? :unknown, with the
                      reason
      :max-anomalies  instances kept per anomaly type (default 16; all are
                      counted in :anomaly-counts; 0 keeps none, counts only)
      :clocks         weak levels: :vector (default) or :tree clocks for
                      causal order
      :stop-at-first? weak levels: stop at the first anomaly per level
                      instead of finding them all (default false)
      :time-limit     seconds for the search of the serializable, SI and GSI
                      levels (and repeatable read on rw-register): an
                      rw-register history's version order, a list-append
                      history's order of never-read appends (default 60);
                      past it a level still open is :unknown with the reason
      :counterexample-time-limit
                      seconds for the search of the smallest cycle of each
                      anomaly type (default: a quarter of the check's time
                      before it, at least 0.1 s); past it the result's
                      :counterexample-search is :bounded (the smallest found
                      within the bound), else :smallest (:skipped with
                      :max-anomalies 0). Verdicts do not depend on it
      :directory      where to write the report files (default: the Jepsen
                      store directory when checking inside Jepsen, else none)

  A check that runs longer than 2 s logs its progress (the stage, how much
  of it is done where that is known, the time so far) at :info through
  clojure.tools.logging, about every 10 s, when that library is on the
  classpath, as it is inside Jepsen; without it, nothing."
  (:require [clojure.java.io :as io]
            [clojure.string :as str]
            [isocheck.jepsen :as j])
  (:import (isocheck.check CheckOptions Checker Level Result)
           (isocheck.history History HistoryException)
           (isocheck.io Formats Formats$Format)
           (isocheck.report ReportFiles)
           (isocheck.util Progress ProgressMeter)
           (java.nio.file Paths)))

(set! *warn-on-reflection* true)

(def implemented-levels
  "The levels isocheck decides (all of them, the default), in the order of
  Level's declaration: the serializable and snapshot-isolation families
  strongest first, Elle's PL-2.99, PL-2, PL-1, then Plume's weak levels."
  [:strict-serializable :strong-session-serializable :serializable
   :strong-snapshot-isolation :strong-session-snapshot-isolation :gsi
   :snapshot-isolation :repeatable-read :read-committed :read-uncommitted
   :tcc :ra :rc :ci])

(defn- parse-level
  ^Level [l]
  (or (Level/parse (if (keyword? l) (name l) (str l)))
      (throw (IllegalArgumentException.
               (str "Unknown isolation level " (pr-str l) "; known: "
                    (Level/knownNames))))))

(defn- options ^CheckOptions [opts]
  (let [o (CheckOptions.)]
    (when-let [c (:clocks opts)]
      (let [c (name c)]
        (when-not (#{"vector" "tree"} c)
          (throw (IllegalArgumentException.
                   (str ":clocks must be :vector or :tree, not " (pr-str (:clocks opts))))))
        (set! (.clocks (.weak o)) c)))
    (when (:stop-at-first? opts) (set! (.stopAtFirst (.weak o)) true))
    (when (false? (:mt? opts)) (set! (.miniTransactions o) false))
    (when (false? (:witness? opts)) (set! (.searchWitness o) false))
    (.levels o (mapv parse-level (:levels opts)))
    (when-let [m (:max-anomalies opts)]
      (when-not (and (integer? m) (<= 0 m Integer/MAX_VALUE))
        (throw (IllegalArgumentException.
                 (str ":max-anomalies must be 0 (count only) or a positive integer, not " (pr-str m)))))
      (set! (.maxAnomaliesPerType o) (int m)))
    (when-let [b (:search-budget opts)] (set! (.searchBudget o) (long b)))
    (when-let [t (:counterexample-time-limit opts)]
      (when-not (and (number? t) (not (neg? t)))
        (throw (IllegalArgumentException.
                 (str ":counterexample-time-limit must be a number of seconds, 0 or more, not " (pr-str t)))))
      (set! (.counterexampleMs o) (long (Math/ceil (* 1000.0 (double t))))))
    (when-let [t (:time-limit opts)]
      (when-not (and (number? t) (pos? t))
        (throw (IllegalArgumentException. (str ":time-limit must be a positive number of seconds, not " (pr-str t)))))
      (set! (.timeLimitMs o) (long (Math/ceil (* 1000.0 (double t))))))
    o))

(defrecord IsoChecker [opts])

(defrecord LinChecker [opts])

(defn linearizable
  "Linearizability of single-key register histories with compare-and-set
  (lightweight transactions), per key, in O(n log n) (MTC Algorithm 2, with
  its gaps closed). The history: Jepsen's register ops ({:f :read :value v},
  {:f :write :value v}, {:f :cas :value [old new]}), on one register or with
  jepsen.independent's [k v] tuples; or transaction ops of one micro-op each
  ([:r k v], [:w k v], [:cas k old new]). Values written must be unique per
  key (else the key is :unknown, with the reason). The result map has
  :valid?, :levels {:linearizable ...}, :anomaly-types, :counterexamples
  (explained, with a :dot picture), :failures (keys not linearizable) and
  :stats.

      {:checker (independent/checker ...)}   ; Knossos, per key
      {:checker (isocheck/linearizable)}     ; the same question, all keys at once

  Options: :max-anomalies, :f (the :f of transaction ops), :directory."
  ([] (linearizable {}))
  ([opts] (->LinChecker opts)))

(defn- linearizable-only?
  "Whether levels ask for linearizability; it is checked alone."
  [levels]
  (let [lin? #(#{"linearizable" "lin"} (name %))]
    (when (some lin? levels)
      (when-not (every? lin? levels)
        (throw (IllegalArgumentException.
                 ":linearizable is checked alone (on histories of single-key reads, writes and compare-and-sets), not with transactional levels")))
      true)))

(defn checker
  "A checker for the given options (see the namespace docstring). Throws
  IllegalArgumentException at once for an unknown level or workload."
  ([] (checker {}))
  ([opts]
   (let [levels (vec (or (:levels opts) implemented-levels))]
     (when (empty? levels)
       (throw (IllegalArgumentException. ":levels must name at least one level")))
     (if (linearizable-only? levels)
       (linearizable opts)
       (do
     (run! parse-level levels)
     (j/workload (:workload opts))
     (j/txn-f (:f opts))
     (options (assoc opts :levels levels))
     (->IsoChecker (assoc opts :levels levels)))))))

(defn si
  "Snapshot isolation (Elle's :snapshot-isolation: Adya/Cerone-Gotsman SI
  without session or realtime order)."
  ([] (si {}))
  ([opts] (checker (assoc opts :levels [:snapshot-isolation]))))

(defn strong-session-si
  "Strong-session snapshot isolation: SI plus process order (PolySI's level)."
  ([] (strong-session-si {}))
  ([opts] (checker (assoc opts :levels [:strong-session-snapshot-isolation]))))

(defn strong-si
  "Strong snapshot isolation: SI plus realtime order."
  ([] (strong-si {}))
  ([opts] (checker (assoc opts :levels [:strong-snapshot-isolation]))))

(defn gsi
  "Generalized snapshot isolation (Elnikety et al.): SI whose snapshot may be
  any one committed before the transaction began, so realtime order binds only
  commits (a transaction that completed before another was invoked committed
  first). Between :snapshot-isolation and :strong-snapshot-isolation;
  incomparable with :strong-session-snapshot-isolation."
  ([] (gsi {}))
  ([opts] (checker (assoc opts :levels [:gsi]))))

(defn ser
  "Serializability (no session or realtime order)."
  ([] (ser {}))
  ([opts] (checker (assoc opts :levels [:serializable]))))

(defn strong-session-ser
  "Strong-session serializability: serializability plus process order."
  ([] (strong-session-ser {}))
  ([opts] (checker (assoc opts :levels [:strong-session-serializable]))))

(defn sser
  "Strict serializability: serializability plus realtime order."
  ([] (sser {}))
  ([opts] (checker (assoc opts :levels [:strict-serializable]))))

(defn repeatable-read
  "Elle's :repeatable-read (Adya PL-2.99): no G1 and no cycle with an
  anti-dependency (G-single-item, G-nonadjacent-item, G2-item), no lost
  update. On key-value histories this is serializability's graph, without
  serializability's :internal check."
  ([] (repeatable-read {}))
  ([opts] (checker (assoc opts :levels [:repeatable-read]))))

(defn read-committed
  "Elle's :read-committed (Adya PL-2): no aborted (G1a) or intermediate (G1b)
  reads, no cycle of write and read dependencies (G1c), nor what Elle says
  implies them (incompatible-order, dirty-update, future-read). Weaker than
  Plume's (rc)."
  ([] (read-committed {}))
  ([opts] (checker (assoc opts :levels [:read-committed]))))

(defn read-uncommitted
  "Elle's :read-uncommitted (Adya PL-1): no cycle of write dependencies (G0),
  no element read twice, and no read of a value no one wrote (:garbage-read,
  which no level allows). Otherwise always holds on rw-register histories,
  whose version order no read reveals."
  ([] (read-uncommitted {}))
  ([opts] (checker (assoc opts :levels [:read-uncommitted]))))

(defn tcc
  "Transactional causal consistency (Plume Def. 6): causal order (session
  order and reads-from, transitively) is respected, reads are atomic, and one
  commit order explains every read. Forbids all 14 TAPs a-n."
  ([] (tcc {}))
  ([opts] (checker (assoc opts :levels [:tcc]))))

(defn ra
  "Read atomic (Plume Def. 5): a transaction that sees one of another's writes
  (or follows it in its session) sees all of them. Forbids TAPs a-l."
  ([] (ra {}))
  ([opts] (checker (assoc opts :levels [:ra]))))

(defn rc
  "Read committed, as Plume defines it (Def. 4): no aborted, intermediate or
  thin-air reads, acyclic causal order, and monotonic atomic view within a
  transaction. Forbids TAPs a-i. Stronger than Elle's :read-committed (PL-2),
  which allows non-monotonic reads (h, i)."
  ([] (rc {}))
  ([opts] (checker (assoc opts :levels [:rc]))))

(defn ci
  "Cut isolation (Plume Def. 3): a transaction that reads a key more than once
  from other transactions reads the same value. Forbids TAP j, and TAP a
  (ThinAirRead, a value no transaction wrote), which no level allows."
  ([] (ci {}))
  ([opts] (checker (assoc opts :levels [:ci]))))

(defn- bad-input
  "The result map for a history we cannot check."
  [opts ^String message]
  {:valid?  :unknown
   :error   message
   :levels  (into {} (map (fn [l] [(keyword (.id (parse-level l)))
                                   {:valid? :unknown, :reason message}]))
                  (:levels opts))
   :unknown-reason message})

(defn write-report!
  "Writes report.html, report.txt, result.edn, result.json and one DOT (and
  SVG, with graphviz) per anomaly type into dir; source, when given, names the
  history checked at the top of the reports. Returns dir."
  ([dir result result-map] (write-report! dir result result-map nil))
  ([dir ^Result result result-map source]
  (let [path (Paths/get (str dir) (into-array String []))]
    (ReportFiles/write path result (some-> source str))
    (binding [*print-length* nil, *print-level* nil]
      (spit (io/file (str dir) "result.edn") (pr-str result-map)))
    (str dir))))

(defn check-history
  "Checks an isocheck.history.History; returns [Result result-map]. load-ms,
  when given, is reported as [:stats :ms :load]; progress, an
  isocheck.util.Progress, is told each stage."
  ([opts h] (check-history opts h nil))
  ([opts h load-ms] (check-history opts h load-ms Progress/NONE))
  ([opts ^History h load-ms ^Progress progress]
   (let [o (options opts)
         _ (set! (.progress o) progress)
         r (Checker/check h o)]
     (when load-ms
       ;; An empty history's stats have no :ms yet.
       (let [^java.util.Map stats (.-stats r)
             ^java.util.Map ms (or (.get stats "ms")
                                   (let [m (java.util.LinkedHashMap.)] (.put stats "ms" m) m))]
         (.put ms "load" (long load-ms))))
     [r (j/->clj (.toData r))])))

(defn- check-linearizable
  [opts test history check-opts]
  (try
    (let [h   (j/->cas-history history (:f opts))
          r   (isocheck.check.lin.Linearizability/check h (int (or (:max-anomalies opts) 16)))
          m   (j/->clj (.toData r))
          dir (or (:directory opts) (j/store-dir test check-opts))]
      (if dir
        (let [d (io/file (str dir))]
          (.mkdirs d)
          (binding [*print-length* nil, *print-level* nil]
            (spit (io/file d "result.edn") (pr-str m)))
          (spit (io/file d "report.txt") (.text r))
          (doseq [[t c] (:counterexamples m)] (spit (io/file d (str (name t) ".dot")) (:dot c)))
          (assoc m :report-dir (str dir)))
        m))
    (catch HistoryException e
      (let [msg (.getMessage e)]
        {:valid? :unknown, :error msg, :levels {:linearizable {:valid? :unknown, :reason msg}}, :unknown-reason msg}))))

(defn- with-online
  "m with the :online result of the isocheck.online/watch that watched this
  test's run, if one did (isocheck.online is then loaded)."
  [test m]
  (if-let [attach (some-> (find-ns 'isocheck.online) (ns-resolve 'attach))]
    (attach test m)
    m))

(defn- online-history
  "The History the online checker that watched this test built during the
  run from exactly these ops, or nil (isocheck.online/prebuilt-history)."
  [test history opts]
  (when-let [f (some-> (find-ns 'isocheck.online) (ns-resolve 'prebuilt-history))]
    (f test history (:workload opts) (:f opts))))

(defn check
  "Checks a history with a checker; returns the result map. The 4-arity form
  is what jepsen.checker/check calls. Bad input yields {:valid? :unknown
  :error \"op 12 (...): ...\"} naming the op, not an exception."
  ([checker history] (check checker {} history {}))
  ([checker test history check-opts]
   (if (instance? LinChecker checker)
     (check-linearizable (:opts checker) test history check-opts)
   (let [opts  (:opts checker)
         meter (j/progress-meter)
         p     (or meter Progress/NONE)]
     (try
       (let [h         (or (online-history test history opts)
                           (j/->history history (:workload opts) (:f opts) p))
             [r m]     (check-history opts h nil p)
             m         (with-online test m)
             dir       (or (:directory opts) (j/store-dir test check-opts))]
         (if dir
           (do (.stage ^Progress p "writing the report")
               (write-report! dir r m (when-let [n (:name test)] (str "Jepsen test " n (some->> (:start-time test) (str ", started ")))))
               (assoc m :report-dir dir))
           m))
       (catch HistoryException e
         (bad-input opts (.getMessage e)))
       (finally
         (when meter (.close ^ProgressMeter meter))))))))

(defn- io-error-message
  "What went wrong reading a file, in the words of `isocheck check`."
  [^java.io.IOException e]
  (cond
    (instance? java.nio.file.NoSuchFileException e) "no such file"
    (instance? java.nio.file.AccessDeniedException e) "permission denied"
    (and (instance? java.nio.file.FileSystemException e)
         (seq (.getReason ^java.nio.file.FileSystemException e)))
    (let [r (.getReason ^java.nio.file.FileSystemException e)]
      (str (str/lower-case (subs r 0 1)) (subs r 1)))
    :else (or (.getMessage e) (.getSimpleName (class e)))))

(defn check-file
  "Checks the history in a file with a checker; returns the result map, as
  `check` does. The file is a Jepsen history.edn or JSON history, or another
  tool's history (Plume/PolySI text, dbcop JSON or bincode, a directory of
  Cobra logs), told apart by its content, or named by :input-format: :edn
  :json :elle-cli (EDN or JSON, an op without :f being a transaction, as
  elle-cli reads them) :plume :dbcop :dbcop-bincode :cobra. Bad input yields
  {:valid? :unknown :error \"...\"}, and so does a file that cannot be read:
  missing (\"no such file\"), a directory that is no history, one we may not
  read (\"permission denied\"), or failing to read (the system's reason), as
  `isocheck check` says it. Only an unknown :input-format throws
  (IllegalArgumentException).

      (isocheck/check-file (isocheck/si) \"hist-00000.txt\")
      (isocheck/check-file (isocheck/ser) \"history.bincode\" {:input-format :dbcop-bincode})"
  ([checker path] (check-file checker path {}))
  ([checker path {:keys [input-format]}]
   (let [opts (:opts checker)
         fmt  (when input-format
                (or (Formats$Format/parse (name input-format))
                    (throw (IllegalArgumentException.
                             (str "Unknown :input-format " (pr-str input-format) "; known: "
                                  (Formats$Format/names))))))]
     (try
       (let [t0    (System/nanoTime)
             h     (Formats/readHistory (str path) (j/workload (:workload opts)) (j/txn-f (:f opts)) fmt)
             [r m] (check-history opts h (quot (- (System/nanoTime) t0) 1000000))]
         (if-let [dir (:directory opts)]
           (do (write-report! dir r m (str path))
               (assoc m :report-dir dir))
           m))
       (catch HistoryException e
         (bad-input opts (.getMessage e)))
       (catch java.io.IOException e
         (bad-input opts (io-error-message e)))))))

(j/extend-checker! IsoChecker check)
(j/extend-checker! LinChecker check)
