(ns isocheck.bench
  "`lein bench [SIZES...]`: throughput and peak memory, scaling from 10^4 to
  10^6 transactions (defaults: 10000 100000 1000000).

  For each size it generates a list-append history with the simulated store
  (4 micro-ops per transaction, half reads, 10 concurrent sessions, 1000 active
  keys, zipf; Jepsen-style key rotation after 32 appends per key; 5% :fail,
  1% :info), writes it as Jepsen history.edn, then measures, as medians of
  several runs: loading the file (EDN reader + history builder), and checking
  strict-serializable + serializable + snapshot-isolation. Peak heap is the
  largest heap in use seen by a 2 ms sampler during the phase (the loaded
  history included while checking); 'history heap' is what the loaded history
  retains after a full GC.

  Two stores: a strictly serializable one (every level holds: the common case)
  and a snapshot-isolation one (write skew makes the serializable levels fail,
  so counterexamples are searched and explained too).

  Columns: parse op/s is the EDN reader alone (no history built); load is
  reader + history builder (what `check` pays before checking); check is
  strict-serializable + serializable + snapshot-isolation on the loaded
  history; peak is the heap in use during each phase; history is the heap the
  loaded history retains."
  (:require [clojure.edn :as edn]
            [clojure.java.io :as io]
            [clojure.string :as str]
            [isocheck.jepsen]
            [isocheck.workload :as workload])
  (:import (isocheck.check Checker CheckOptions Level Result)
           (isocheck.history History History$Workload HistoryBuilder OpRecord OpSink OpStream OpType)
           (isocheck.online OnlineChecker)
           (isocheck.io EdnWriter Formats)
           (isocheck.cli EdnPrinter)
           (isocheck.sim Bug SimConfig SimConfig$KeyDist Simulator Store)
           (isocheck.verify Verify)
           (java.lang.management ManagementFactory MemoryMXBean)
           (java.nio.file Files Path)))

(set! *warn-on-reflection* true)

(def ^MemoryMXBean mem (ManagementFactory/getMemoryMXBean))

(defn- used [] (.getUsed (.getHeapMemoryUsage mem)))

(defn- gc! [] (System/gc) (Thread/sleep 100) (System/gc) (Thread/sleep 50))

(defn- measure
  "Runs f, returning [result seconds peak-heap-bytes]."
  [f]
  (gc!)
  (let [peak (atom (used))
        stop (atom false)
        t    (Thread. ^Runnable (fn [] (while (not @stop)
                                         (swap! peak max (used))
                                         (Thread/sleep 2))))]
    (.setDaemon t true)
    (.start t)
    (let [t0 (System/nanoTime)
          r  (f)
          s  (/ (- (System/nanoTime) t0) 1e9)]
      (reset! stop true)
      (.join t)
      (swap! peak max (used))
      [r s @peak])))

(defn- median [xs] (let [v (vec (sort xs))] (nth v (quot (count v) 2))))

(defn- config ^SimConfig [store txns]
  (-> (SimConfig/builder)
      (.seed 1)
      (.store store)
      (.workload History$Workload/APPEND)
      (.txns (int txns))
      (.sessions 10)
      (.keys 1000)
      (.keyDist SimConfig$KeyDist/ZIPF)
      (.opsPerTxn 4 4)
      (.readFraction 0.5)
      .build))

(def levels (mapv #(Level/parse %) ["strict-serializable" "serializable" "snapshot-isolation"]))

(defn- mb [b] (format "%.0f MB" (/ b 1e6)))

(defn run-size [store txns dir]
  (let [^Path file (.resolve ^Path dir (str (str/lower-case (str store)) "-" txns ".edn"))
        [res gen-s] (let [t0 (System/nanoTime)
                          w (EdnWriter/open file)
                          r (try (Simulator/run (config store txns) w) (finally (.close w)))]
                      [r (/ (- (System/nanoTime) t0) 1e9)])
        bytes (Files/size file)
        runs  (if (>= txns 1000000) 3 5)
        ;; Keep one loaded history only, so measurements see one history in memory.
        keep  (atom nil)
        loads (vec (for [_ (range runs)]
                     (let [[h s p] (measure #(Formats/readHistory (str file) nil))]
                       (compare-and-set! keep nil h)
                       [nil s p])))
        ^History h @keep
        parse-s (median (for [_ (range runs)]
                          (second (measure #(Formats/read (str file) (reify isocheck.history.OpSink
                                                                        (op [_ _])
                                                                        (end [_])))))))
        _ (gc!)
        hist-heap (used)
        last-result (atom nil)
        checks (vec (for [_ (range runs)]
                      (let [[r s p] (measure #(Checker/check h (.levels (CheckOptions.) levels)))]
                        (reset! last-result r)
                        [nil s p])))
        ^Result r @last-result
        load-s (median (map second loads))
        check-s (median (map second checks))]
    (Files/deleteIfExists file)
    {:store store, :txns txns, :ops (.opsSeen h), :bytes bytes, :gen-s gen-s
     :parse-s parse-s, :load-s load-s, :load-peak (median (map #(nth % 2) loads))
     :check-s check-s, :check-peak (median (map #(nth % 2) checks))
     :hist-heap hist-heap
     :verdicts (str/join " " (for [l levels]
                               (str (.id ^Level l) "="
                                    (str/lower-case (str (.value ^isocheck.check.Verdict (get (.levels r) l)))))))
     :anomalies (reduce + (vals (.counts (.anomalies r))))
     :ms (get (.stats r) "ms")
     ;; How each level was decided, and the never-read-append pairs its search had open.
     :search (str/join " " (for [[l m] (get (.stats r) "search")]
                             (str l "=" (get m "decided-by")
                                  (when-let [c (get m "constraints")] (str "/" c)))))}))

(defn- row [{:keys [txns ops bytes parse-s load-s load-peak check-s check-peak hist-heap]}]
  (format "%,10d %,10d %8s %,11.0f %7.2f s %,11.0f %8s %7.2f s %,11.0f %9s %9s"
          txns ops (mb bytes) (/ ops parse-s) load-s (/ ops load-s) (mb load-peak) check-s (/ txns check-s)
          (mb check-peak) (mb hist-heap)))

(defn- weak-config ^SimConfig [workload txns sessions keys & [info]]
  (-> (SimConfig/builder)
      (.seed 7)
      (.store Store/SNAPSHOT_ISOLATION)
      (.workload workload)
      (.txns (int txns))
      (.sessions (int sessions))
      (.keys (int keys))
      (.keyDist SimConfig$KeyDist/UNIFORM)
      (.opsPerTxn 20 20)
      (.readFraction 0.5)
      ;; Plume's generator has no crashes; the Jepsen shape adds them: each :info
      ;; retires its process and the thread continues as a new one.
      (.failRate 0.0)
      (.infoRate (double (or info 0.0)))
      (.pendingAtEnd 0)
      .build))

(defn- weak-check
  "Checks the given weak levels with the given clocks (\"vector\", \"tree\", or
  \"vector/scc\": vectors without the transaction-id-order shortcut, the path real
  Jepsen histories usually take); [Result seconds peak]."
  [^History h levels clocks]
  (let [o (.levels (CheckOptions.) (mapv #(Level/parse (name %)) levels))]
    (set! (.clocks (.weak o)) (if (= clocks "tree") "tree" "vector"))
    (when (= clocks "vector/scc") (set! (.idOrder (.weak o)) false))
    (measure #(Checker/check h o))))

(defn- weak-row [label ^History h levels clocks runs]
  (let [rs (vec (for [_ (range runs)] (weak-check h levels clocks)))
        ^Result r (first (first rs))
        s (median (map second rs))
        peak (median (map #(nth % 2) rs))
        bad (for [[l v] (.levels r) :when (not= "TRUE" (str (.value ^isocheck.check.Verdict v)))] (str l))
        ;; The forced-edge scans' candidate pairs per transaction: their work, which does not
        ;; depend on the machine (time per transaction also grows as data leaves the caches).
        work (reduce + (for [[_ m] (get (.stats r) "weak") :when (instance? java.util.Map m)]
                         (long (or (get m "examined") 0))))
        w (get (.stats r) "weak")]
    (println (format "  %-28s %-10s %8.3f s %,12.0f txns/s %9s %6.1f pairs/txn  %,6d chains %8s clocks   %s" label clocks s (/ (.nTxns h) s) (mb peak)
                     (double (/ work (.nTxns h))) (long (or (get w "chains") 0)) (mb (or (get w "clock-bytes") 0))
                     (if (empty? bad) "all hold" (str "VIOLATED " (str/join "," bad)))))
    (flush)
    s))

(defn crash-rows
  "Jepsen's shape under faults, on Plume's workload: 10 worker threads, each :info
  retiring its process (the thread continues as a new one, as Jepsen does), so
  processes number in the thousands. 1% :info at every size, 30% up to 10^5."
  [sizes]
  (doseq [[info ns] [[0.01 sizes] [0.3 (filter #(<= % 100000) sizes)]]
          wl [History$Workload/REGISTER History$Workload/APPEND]
          n ns]
    (let [[^History h gen-s] (let [t0 (System/nanoTime)
                                   sh (Simulator/history (weak-config wl n 10 (* 2 n) info))]
                               [(.history sh) (/ (- (System/nanoTime) t0) 1e9)])
          runs (if (>= n 100000) 3 5)]
      (println (format "\n%s, %,d txns, 10 threads, %.0f%% :info: %,d processes, %,d micro-ops; generated in %.1f s"
                       (.cliName ^History$Workload wl) (.nTxns h) (* 100 info) (.sessionCount h) (long (.mopCount h)) gen-s))
      (doseq [l [:tcc :ra :rc]] (weak-row (name l) h [l] "vector" runs))
      (weak-row "rc+ra+tcc+ci" h [:rc :ra :tcc :ci] "vector" runs)
      (weak-row "rc+ra+tcc+ci" h [:rc :ra :tcc :ci] "vector/scc" runs))))

(defn weak-main
  "Plume's workload (25 sessions, 20 ops/txn, 50% reads, uniform keys, twice
  as many keys as transactions: 10k keys at Plume's default 5,000 txns) on the
  snapshot-isolation store (every weak level holds, as on Plume's PostgreSQL
  histories), rw-register and list-append, generated in memory (times are
  after loading). Each weak level alone, then all four with vector clocks, with
  tree clocks, and with vector clocks on the exact SCC path (no id-order
  shortcut); then TCC at 10^5 txns with 10 to 200 sessions (the n·k term)."
  [sizes]
  (let [rt (Runtime/getRuntime)]
    (println (format "isocheck weak bench: %d cores, max heap %s, %s %s"
                     (.availableProcessors rt) (mb (.maxMemory rt))
                     (System/getProperty "java.vm.name") (System/getProperty "java.version")))
    (doseq [wl [History$Workload/REGISTER History$Workload/APPEND]
            n sizes]
      (let [[^History h gen-s] (let [t0 (System/nanoTime)
                                     sh (Simulator/history (weak-config wl n 25 (* 2 n)))]
                                 [(.history sh) (/ (- (System/nanoTime) t0) 1e9)])
            _ (gc!)
            heap (used)
            runs (if (>= n 100000) 3 5)]
        (println (format "\n%s, %,d txns, %,d sessions, %,d micro-ops, %,d keys; generated in %.1f s; history heap %s"
                         (.cliName ^History$Workload wl) (.nTxns h) (.sessionCount h) (long (.mopCount h)) (.keyCount h) gen-s (mb heap)))
        (doseq [l [:rc :ra :tcc]] (weak-row (name l) h [l] "vector" runs))
        (weak-row "rc+ra+tcc+ci" h [:rc :ra :tcc :ci] "vector" runs)
        (weak-row "rc+ra+tcc+ci" h [:rc :ra :tcc :ci] "tree" runs)
        (weak-row "rc+ra+tcc+ci" h [:rc :ra :tcc :ci] "vector/scc" runs)))
    (crash-rows sizes)
    (println "\nTCC, rw-register, 100,000 txns, 200,000 keys: sessions k")
    (doseq [k [10 25 50 100 200]]
      (let [h (.history (Simulator/history (weak-config History$Workload/REGISTER 100000 k 200000)))]
        (weak-row (str "tcc, k = " k) h [:tcc] "vector" 3)
        (weak-row (str "tcc, k = " k) h [:tcc] "tree" 3)))))

(defn- run-cli
  "Runs bin/isocheck check --format edn FILE (default levels) once, under
  /usr/bin/time when it is installed (for the peak RSS), and reads the result
  map it prints (the text report's stats line is for people, not for parsing).
  Returns {:wall s, :exit n, :ms {..} (the result's [:stats :ms]), :levels-ms,
  :txns, :rss bytes or nil, :bounded? (the counterexample search stopped at
  its time bound), :instances (anomalies found, every type)}."
  [^String launcher ^String file & args]
  (let [time? (.canExecute (java.io.File. "/usr/bin/time"))
        cmd (cond->> (-> [launcher "check" "--format" "edn"] (into args) (conj file))
              time? (into ["/usr/bin/time" "-f" "isocheck-bench-rss %M"]))
        t0 (System/nanoTime)
        p (.start (ProcessBuilder. ^java.util.List cmd))
        out (future (slurp (.getInputStream p)))
        err (future (slurp (.getErrorStream p)))
        exit (.waitFor p)
        wall (/ (- (System/nanoTime) t0) 1e9)
        result (try (edn/read-string {:default (fn [_ v] v)} @out) (catch Exception _ nil))
        stats (:stats result)
        rss (some #(when-let [[_ kb] (re-find #"^isocheck-bench-rss (\d+)" %)] (* 1024 (Long/parseLong kb)))
                  (str/split-lines @err))]
    (when-not stats
      (throw (ex-info (str "bin/isocheck check " file " printed no result map with stats (exit " exit "): " @err) {})))
    {:wall wall, :exit exit, :ms (:ms stats), :levels-ms (:levels-ms stats), :txns (:txns stats), :rss rss
     :bounded? (= :bounded (:counterexample-search result))
     :instances (reduce + 0 (vals (:anomaly-counts result)))}))

(defn- size-str [^long b]
  (cond (< b 10000) (str b " B") (< b 10000000) (format "%.0f kB" (/ b 1e3)) :else (mb b)))

(defn- write-history
  "Writes the simulator's history for cfg to dir/name as Jepsen EDN; returns the path."
  ^String [^Path dir ^String name ^SimConfig cfg]
  (let [f (.resolve dir name)
        w (EdnWriter/open f)]
    (try (Simulator/run cfg w) (finally (.close w)))
    (str f)))

(declare search-config jepsen-rw plume-many-writers-rows never-rotated-row)

(defn cli-main
  "`lein bench cli [SIZES...]`: the whole command, as a user runs it. For a one-op
  file, Plume's default history (rw-register, 5,000 transactions of 20 micro-ops, 25
  sessions, 10,000 keys) and, at each size (default 10^4, 10^5, 10^6 transactions),
  rw-register histories of Plume's shape, Jepsen list-append histories (4 micro-ops,
  10 sessions, 1000 keys zipf, from the snapshot-isolation store) and Jepsen-shaped
  rw-register histories (lein bench search's: 4 micro-ops, 10 sessions, 1000 keys zipf
  rotating after 32 writes, 1% :info; from the SI store, where serializability fails,
  and from the serializable store, where strict serializability fails), it runs
  `bin/isocheck check FILE` (default levels, --format edn, whose result map gives the stats; then with --levels
  tcc,ra,rc,ci, the weak levels AWDIT also checks) as a subprocess several
  times and prints medians of: wall time; the command's own split from the result's
  [:stats :ms] (start: process start, the launcher included, to Java's main; load:
  reading the file; check: all levels); and peak RSS (from /usr/bin/time, Debian
  package time). The launcher picks the JVM flags as it does for users. Not run by CI."
  [sizes]
  (let [launcher (str (System/getProperty "user.dir") "/bin/isocheck")
        dir (Files/createTempDirectory "isocheck-bench-cli" (make-array java.nio.file.attribute.FileAttribute 0))
        one (str (.resolve dir "one-op.edn"))
        _ (spit one "{:index 0, :type :ok, :process 0, :f :txn, :value [[:append :x 1]]}\n")
        _ (run-cli launcher one)                  ; builds the jar and the CDS archive if needed
        inputs (concat [["one op" (constantly one) 9]
                        ["Plume default, rw-register" #(write-history dir "plume-5000.edn"
                                                                      (weak-config History$Workload/REGISTER 5000 25 10000)) 9]]
                       (for [n sizes
                             [label f args] [["rw-register, 20 ops/txn" #(write-history dir (str "wr-" n ".edn")
                                                                                         (weak-config History$Workload/REGISTER n 25 (* 2 n)))]
                                             ["  the same, weak levels" #(str (.resolve dir (str "wr-" n ".edn"))) ["--levels" "tcc,ra,rc,ci"]]
                                             ["list-append, Jepsen" #(write-history dir (str "append-" n ".edn")
                                                                                    (config Store/SNAPSHOT_ISOLATION n))]
                                             ["  the same, weak levels" #(str (.resolve dir (str "append-" n ".edn"))) ["--levels" "tcc,ra,rc,ci"]]
                                             ["rw-register, Jepsen, SI store" #(write-history dir (str "jsi-" n ".edn")
                                                                                              (jepsen-rw Store/SNAPSHOT_ISOLATION n))]
                                             ["rw-register, Jepsen, SER store" #(write-history dir (str "jser-" n ".edn")
                                                                                               (jepsen-rw Store/SERIALIZABLE n))]]]
                         [(format "%s, %,d" label n) f (cond (<= n 10000) 5 (<= n 100000) 3 :else 3) args]))
        rt (Runtime/getRuntime)]
    (println (format "isocheck bench cli: bin/isocheck check FILE, --format edn, default levels; %d cores, %s; medians"
                     (.availableProcessors rt) (str "load average " (str/join " " (take 3 (str/split (try (Files/readString (java.nio.file.Path/of "/proc/loadavg" (make-array String 0)))
                                                                                             (catch java.io.IOException _ "? ? ?"))
                                                                           #" "))))))
    (println (format "%-40s %10s %9s %5s %8s %8s %8s %8s %9s %5s"
                     "input" "txns" "file" "runs" "wall" "start" "load" "check" "peak RSS" "exit"))
    (doseq [[label make runs args] inputs]
      (let [file (make)
            rs (vec (for [_ (range runs)] (apply run-cli launcher file args)))
            ms (fn [k] (median (map #(get-in % [:ms k] 0) rs)))
            rss (keep :rss rs)]
        (println (format "%-40s %,10d %9s %5d %6.2f s %6.2f s %6.2f s %6.2f s %9s %5s"
                         label (long (:txns (first rs))) (size-str (Files/size (java.nio.file.Path/of file (make-array String 0))))
                         runs (median (map :wall rs)) (/ (ms :start) 1e3) (/ (ms :load) 1e3) (/ (ms :total) 1e3)
                         (if (seq rss) (mb (median rss)) "-") (str/join "," (distinct (map :exit rs)))))
        (flush)
        ;; A history goes once its weak-levels row (the one after it) has run.
        (when (or args (str/starts-with? label "Plume") (str/includes? label "Jepsen, S"))
          (Files/deleteIfExists (java.nio.file.Path/of file (make-array String 0))))))
    (Files/deleteIfExists (java.nio.file.Path/of one (make-array String 0)))
    (Files/deleteIfExists dir)))

(defn- jepsen-rw
  "lein bench search's Jepsen-shaped rw-register history of a store: 10 processes, 4
  micro-ops, 1,000 keys zipf rotating after 32 writes, 1% :info."
  ^SimConfig [store txns]
  (search-config {:txns txns :sessions 10 :ops 4 :reads 0.5 :keys 1000 :dist SimConfig$KeyDist/ZIPF
                  :rotate 32 :info 0.01 :store store}))

(defn- search-config
  "A simulated rw-register history: [name config-builder]."
  ^SimConfig [{:keys [txns sessions ops reads keys dist blind rotate info store bug seed]
               :or {seed 1, info 0.0, rotate Integer/MAX_VALUE, store Store/SNAPSHOT_ISOLATION}}]
  (cond-> (-> (SimConfig/builder) (.seed (long seed)) (.store store) (.workload History$Workload/REGISTER)
              (.txns (int txns)) (.sessions (int sessions)) (.opsPerTxn (int ops) (int ops)) (.readFraction (double reads))
              (.keys (int keys)) (.keyDist dist) (.blind (boolean blind)) (.maxWritesPerKey (int rotate))
              (.failRate 0.0) (.infoRate (double info)))
    bug (-> (.bug bug) (.bugRate 0.002))
    true .build))

(defn- search-row
  "Checks levels on the history of a config (or of a history file, given its path), runs
  times; prints one row per level with the search's stages (witness, polygraph, pruning,
  solver), constraints before and after pruning, how it was decided, and peak heap. With
  :solver-alone, no pruning and no time-ordered choice."
  [label src levels runs & {:keys [solver-alone time-limit-ms]}]
  (let [t0 (System/nanoTime)
        file? (string? src)
        ^SimConfig cfg (when-not file? src)
        sh (when cfg (Simulator/history cfg))
        ^History h (if file? (Formats/readHistory ^String src nil) (.history sh))
        gen-s (/ (- (System/nanoTime) t0) 1e9)
        o (.levels (CheckOptions.) (mapv #(Level/parse (name %)) levels))
        _ (when solver-alone (set! (.searchShortcuts o) false))
        ;; 10^6 transactions may need more than the default 60 s per history: give them 10 minutes.
        _ (when (>= (.nTxns h) 1000000) (set! (.timeLimitMs o) (long 600000)))
        _ (when time-limit-ms (set! (.timeLimitMs o) (long time-limit-ms)))
        rs (vec (for [_ (range runs)] (measure #(Checker/check h o))))
        ^Result r (first (first rs))
        s (median (map second rs))
        peak (median (map #(nth % 2) rs))
        search (get (.stats r) "search")]
    (println (format "\n%s: %,d txns, %,d micro-ops, %,d keys (%s in %.1f s%s); check %.2f s median of %d, peak %s"
                     label (.nTxns h) (long (.mopCount h)) (.keyCount h) (if file? "read" "generated") gen-s
                     (if-let [b (some-> cfg .bug)] (str ", bug " b " fired " (.bugFirings (.result sh))) "")
                     s runs (mb peak)))
    (doseq [l levels
            :let [lv (Level/parse (name l))
                  v (get (.levels r) lv)
                  m0 (get search (.id lv))
                  implied? (= ":implied" (str (get m0 "decided-by")))
                  ;; Through the strong-session level that implies it: that level's search, named.
                  via (when (and implied? (get m0 "implied-by-search")) (get m0 "implied-by"))
                  m (if implied? (get m0 "implied-by-search") m0)]]
      (println (format "  %-36s %-8s %s%s" (.id lv) (str (.value ^isocheck.check.Verdict v))
                       (if via (str "via " via ": ") "")
                       (cond
                         (and m (get m "lazy-pairs"))
                         (format "constraints generated lazily: %,d pairs in %d rounds (the whole polygraph: %,d side edges), %,d conflicts, %d ms, by %s"
                                 (long (get m "lazy-pairs")) (long (get m "lazy-rounds" 0)) (long (get m "side-edges" 0))
                                 (long (get m "lazy-conflicts" 0)) (long (get m "lazy-ms" 0)) (str (get m "decided-by")))
                         m
                         (format "%spolygraph %5d ms, prune %6d ms (%d rounds), constraints %,9d -> open %,7d, %ssolver %s, by %s"
                                 (if (= ":witness" (str (get m "decided-by")))
                                   (if (= ":backtracking" (str (get m "witness")))
                                     (format "witness %d ms (:backtracking, %,d backtracks, %,d steps), " (long (get m "witness-ms" 0))
                                             (long (get m "witness-backtracks" 0)) (long (get m "witness-backtrack-steps" 0)))
                                     (format "witness %d ms (%s, %d passes), " (long (get m "witness-ms" 0)) (get m "witness")
                                             (long (get m "greedy-passes" 0))))
                                   "")
                                 (long (get m "polygraph-ms" 0)) (long (get m "prune-ms" 0)) (long (get m "pruning-rounds" 0))
                                 (long (get m "constraints" 0)) (long (get m "open" 0))
                                 (if-let [ps (get m "pinned-solve")]
                                   (format "fixed sides: %,d contested, %d rounds%s, %d ms; " (long (get ps "contested" 0))
                                           (long (get ps "rounds" 0))
                                           (if-let [f (get ps "freed-by-components")] (format " (%,d freed by components)" (long f)) "")
                                           (long (get ps "ms" 0)))
                                   "")
                                 (if-let [sv (get m "solver")] (format "%d ms, %d conflicts" (long (get sv "ms")) (long (get sv "conflicts" 0))) "-")
                                 (str (get m "decided-by")))
                         :else
                         (str "decided without a search of its own" (when-let [t (seq (.anomalyTypes ^isocheck.check.Verdict v))] (str ": " (vec t))))))))
    (flush)))

(defn search-main
  "rw-register SER/SI: PolySI's General{RH,RW,WH} (25 sessions x 400 txns x 8 ops, zipf over
  10,000 keys, no key rotation; 95/50/30% reads), valid (an SI store) and with lost updates and
  long forks injected; Viper's BlindW-RW (read-only and write-only txns of 8 ops, 2,000 keys) at
  10^3 and 10^4 txns; Plume-shaped histories (20 micro-ops, 25 sessions, uniform keys; SI store)
  where serializability is searched without session order, at 2·10^5 txns over 400,000 keys
  (it holds), 10^5 over 10^5 (violated) and 2·10^5 over 200,000 (it holds; SI too, implied); two 10^4 histories of the differential fuzz whose pinned rounds stalled; a
  real Jepsen run of a stale-read store (serializable alone, and every level); Jepsen-shaped histories (10 processes, 4 micro-ops, keys rotating after 32
  writes, 1% :info) at the given sizes (default 10^4 10^5 10^6), SSER + SER + SI."
  [sizes]
  (let [rt (Runtime/getRuntime)
        ser-si [:serializable :snapshot-isolation]]
    (println (format "isocheck search bench: %d cores, max heap %s" (.availableProcessors rt) (mb (.maxMemory rt))))
    (doseq [[nm reads] [["GeneralRH" 0.95] ["GeneralRW" 0.5] ["GeneralWH" 0.3]]
            [what bug] [["valid" nil] ["lost updates" Bug/LOST_UPDATE] ["long forks" Bug/LONG_FORK]]]
      (search-row (str nm ", " what)
                  (search-config {:txns 10000 :sessions 25 :ops 8 :reads reads :keys 10000 :dist SimConfig$KeyDist/ZIPF :bug bug})
                  ser-si 3))
    ;; Each level alone: with both, SI would follow from SER holding, without a search.
    (doseq [n [1000 10000]
            alone [false true]
            level ser-si]
      (search-row (str "BlindW-RW, " (name level) " alone" (when alone ", solver alone (no pruning, no time order)"))
                  (search-config {:txns n :sessions 25 :ops 8 :reads 0.5 :keys 2000 :dist SimConfig$KeyDist/UNIFORM :blind true})
                  [level] 3 :solver-alone alone))
    ;; Plume's shape (20 micro-ops, 25 sessions, uniform keys) from the SI store, where
    ;; strong-session serializability fails, so serializability is searched without session
    ;; order: pairs too wide for pruning, the time order's choice cyclic, the solver's case.
    (doseq [[n keys seed what] [[200000 400000 7 "serializable holds"] [100000 100000 3 "serializable violated"]
                                [200000 200000 2 "serializable holds: readers before the writers that overwrote what they read, 2 pinned rounds"]]]
      (search-row (format "Plume-shaped rw-register, %,d keys (%s)" keys what)
                  (-> (SimConfig/builder) (.seed (long seed)) (.store Store/SNAPSHOT_ISOLATION)
                      (.workload History$Workload/REGISTER) (.txns (int n)) (.sessions 25) (.keys (int keys))
                      (.keyDist SimConfig$KeyDist/UNIFORM) (.opsPerTxn 20 20) (.readFraction 0.5) (.failRate 0.0)
                      (.infoRate 0.0) (.pendingAtEnd 0) .build)
                  ;; (Over 200,000 keys, SI too: implied once serializability holds. It took a 120 s
                  ;; limit, serializability the full solver's turn and 5 pinned rounds, until the time
                  ;; order put readers first: now the default 60 s.)
                  (if (= keys 200000) [:strong-session-serializable :serializable :snapshot-isolation] [:strong-session-serializable :serializable])
                  1))
    ;; Two histories of the differential fuzz (30 sessions, 10^4 transactions, blind writes) whose
    ;; pinned rounds stalled (their cycles freed no fixed side): serializability was unknown at
    ;; 60 s; now the contested constraints' own model frees the sides in its cycles.
    (doseq [[what ^SimConfig cfg]
            [["SI store, 200 keys rotated after 32 writes (fuzz seed 90087)"
              (-> (SimConfig/builder) (.seed 90087) (.store Store/SNAPSHOT_ISOLATION) (.workload History$Workload/REGISTER)
                  (.txns 10000) (.sessions 30) (.opsPerTxn 1 5) (.readFraction 0.4426959591725064) (.keys 200)
                  (.maxWritesPerKey 32) (.failRate 0.05) (.infoRate 0.01) .build)]
             ["read-committed store, 2,000 keys, blind writes (fuzz seed 80189)"
              (-> (SimConfig/builder) (.seed 80189) (.store Store/READ_COMMITTED) (.workload History$Workload/REGISTER)
                  (.txns 10000) (.sessions 30) (.opsPerTxn 1 6) (.readFraction 0.3842068714906289) (.blind true)
                  (.keys 2000) (.failRate 0.0) (.infoRate 0.0) .build)]]]
      (search-row (str "fuzz-found rw-register, " what) cfg [:serializable] 1))
    ;; A real Jepsen run (issue 25, item 6): a store serving read-only transactions a stale
    ;; snapshot (process order violated), 168 keys written blind. Serializable alone took 140
    ;; pinned rounds (4.4 s) until read-only transactions were placed as early as their reads
    ;; allow; and every level, what a Jepsen user who leaves the default gets.
    (let [f "test/resources/corpus/jepsen-real/rj-wr-stale-read/history.edn.gz"]
      (search-row "Jepsen run, stale-read store (rw-register; serializable alone)" f [:serializable] 5)
      (search-row "Jepsen run, stale-read store (rw-register; every level)" f
                  (mapv #(keyword (.id ^Level %)) (Level/values)) 5))
    (doseq [n sizes
            store [Store/SNAPSHOT_ISOLATION Store/SERIALIZABLE]]
      (search-row (str "Jepsen rw-register, " store " store")
                  (search-config {:txns n :sessions 10 :ops 4 :reads 0.5 :keys 1000 :dist SimConfig$KeyDist/ZIPF
                                  :rotate 32 :info 0.01 :store store})
                  [:strict-serializable :serializable :snapshot-isolation] (if (>= n 1000000) 1 3)))
    (plume-many-writers-rows)
    (doseq [n sizes
            store [Store/SNAPSHOT_ISOLATION Store/SERIALIZABLE]]
      (never-rotated-row n store))))

(defn- plume-many-writers-rows
  "Issue 27, item 1: Plume-shaped histories (20 micro-ops, 25 sessions, uniform keys, SI
  store) of 2·10^5 transactions over 20,000 and 100,000 keys, about 100 and 20 writers a key:
  74-96 million side edges, :unknown when the whole polygraph was the only way; constraints
  generated lazily."
  []
  (doseq [[keys seed] [[20000 1] [100000 1]]]
    (search-row (format "Plume-shaped rw-register, 2·10^5 over %,d keys (many writers a key: constraints generated lazily)" keys)
                (-> (SimConfig/builder) (.seed (long seed)) (.store Store/SNAPSHOT_ISOLATION)
                    (.workload History$Workload/REGISTER) (.txns 200000) (.sessions 25) (.keys (int keys))
                    (.keyDist SimConfig$KeyDist/UNIFORM) (.opsPerTxn 20 20) (.readFraction 0.5) (.failRate 0.0)
                    (.infoRate 0.0) (.pendingAtEnd 0) .build)
                [:strong-session-serializable :serializable] 1)))

(defn- never-rotated-row
  "Issue 27, item 1: lein bench search's Jepsen shape with keys never rotated (each of the
  1,000 zipf keys written thousands of times at 10^6), at every serializable and SI level
  with realtime: the realtime families' polygraphs keep the writers that overlap in time, still
  hundreds of millions of side edges (808 million for GSI at 10^6), generated lazily."
  [n store]
  (search-row (str "Jepsen rw-register, keys never rotated, " store " store")
              (search-config {:txns n :sessions 10 :ops 4 :reads 0.5 :keys 1000 :dist SimConfig$KeyDist/ZIPF
                              :rotate 0 :info 0.01 :store store})
              [:strict-serializable :serializable :snapshot-isolation :strong-snapshot-isolation :gsi] (if (>= n 1000000) 1 3)))

(defn- reorder-history
  "Writes the Jepsen EDN at src again as completions alone (no invocations, no :index or
  :time: no realtime information), in the history's order (:interleaved) or session by session
  (:session: each process's ops in their order, processes in turn, as dbcop, Cobra and Plume
  text list them). Returns out."
  ^String [^String src mode ^String out]
  (let [lines (->> (str/split-lines (slurp src))
                   (remove #(str/includes? % ":type :invoke"))
                   (map #(-> % (str/replace #":index \d+, " "") (str/replace #":time \d+, " ""))))
        proc #(Long/parseLong (second (re-find #":process (\d+)" %)))
        lines (if (= mode :session) (sort-by proc lines) lines)]
    (spit out (str (str/join "\n" lines) "\n"))
    out))

(defn- shuffled-history
  "Writes the Jepsen EDN at src again as its completions alone (no invocations, :index or
  :time), each its own process (no session order), in a random order (seeded): no realtime,
  session or file order for the witness schedule to go by. Returns out."
  ^String [^String src seed ^String out]
  (let [lines (->> (str/split-lines (slurp src))
                   (remove #(str/includes? % ":type :invoke"))
                   (map #(-> % (str/replace #":index \d+, " "") (str/replace #":time \d+, " ""))))
        l (java.util.ArrayList. ^java.util.Collection lines)]
    (java.util.Collections/shuffle l (java.util.Random. (long seed)))
    (spit out (str (str/join "\n" (map-indexed (fn [i line] (str/replace line #":process \d+" (str ":process " i))) l)) "\n"))
    out))

(defn- perturbed-history
  "Writes the completions at src (reorder-history's :interleaved output: no realtime
  information) again with each transaction moved a few places: Kahn's order over session order
  and reads-from, the ready transaction first whose place in src plus an offset drawn uniformly
  from [-w, w] (seeded) is least, so that every session keeps its order and no read comes before
  its writer (at w = 10 on lein bench order's 10^5 history, a transaction moves 3 places at the
  median and 17 at most). An order as close to the completion order as an estimate could hope
  to be. Returns out."
  ^String [^String src w seed ^String out]
  (let [lines (vec (str/split-lines (slurp src)))
        ops (mapv edn/read-string lines)
        n (count ops)
        writer (java.util.HashMap.)
        _ (doseq [[i op] (map-indexed vector ops), [f k v] (:value op) :when (= f :w)] (.put writer [k v] (int i)))
        succ (object-array (repeatedly n #(java.util.ArrayList.)))
        indeg (int-array n)
        last-of (java.util.HashMap.)]
    (doseq [[i op] (map-indexed vector ops)]
      (let [preds (cond-> (set (for [[f k v] (:value op)
                                     :let [wi (when (and (= f :r) (some? v)) (.get writer [k v]))]
                                     :when (and wi (not= (int wi) (int i)))]
                                 (int wi)))
                    (.get last-of (:process op)) (conj (int (.get last-of (:process op)))))]
        (.put last-of (:process op) (int i))
        (doseq [p preds]
          (.add ^java.util.ArrayList (aget succ p) (int i))
          (aset indeg i (inc (aget indeg i))))))
    (let [rnd (java.util.Random. (long seed))
          est (double-array (for [i (range n)] (+ i (* w (- (* 2.0 (.nextDouble rnd)) 1.0)))))
          q (java.util.PriorityQueue. (int (max 1 n)) (comparator (fn [a b] (< (aget est (int a)) (aget est (int b))))))
          order (java.util.ArrayList. n)]
      (dotimes [i n] (when (zero? (aget indeg i)) (.add q (int i))))
      (while (not (.isEmpty q))
        (let [i (int (.poll q))]
          (.add order i)
          (doseq [j (aget succ i)]
            (let [j (int j)]
              (aset indeg j (dec (aget indeg j)))
              (when (zero? (aget indeg j)) (.add q j))))))
      (spit out (str (str/join "\n" (map #(nth lines %) order)) "\n"))
      out)))

(defn lazy-main
  "Issue 27, item 1: rw-register histories whose keys are written many times without
  rotation, so that the whole polygraph (a constraint per pair of a key's writers) is too
  large, and the constraints are generated lazily (isocheck.check.si.LazyConstraints). At each
  size (default 12,000 transactions): 2 keys written blind by every writer, 10 sessions of 1-3
  micro-ops, from the serializable store, shuffled (no session, realtime or file order); and
  Jepsen-shaped (4 micro-ops, 10 sessions, 1,000 keys zipf, never rotated) from the serializable
  and SI stores, as the peer formats list them (session by session, completions alone). Each
  checked (serializable + snapshot-isolation) with the whole polygraph (lazy generation off,
  -Disocheck.search.lazy-constraints=false: unknown when it does not fit the bench heap) and
  lazily (every polygraph refused, -Disocheck.search.max-edges=0); by default these shapes are
  searched lazily (Polygraph's bounds: over 4 million side edges and 12 per micro-op)."
  [sizes]
  (let [rt (Runtime/getRuntime)
        dir (Files/createTempDirectory "isocheck-bench-lazy" (make-array java.nio.file.attribute.FileAttribute 0))
        rows (fn [label f]
               (System/setProperty "isocheck.search.lazy-constraints" "false")
               (try (search-row (str label ", whole polygraph") f [:serializable :snapshot-isolation] 3)
                    (finally (System/clearProperty "isocheck.search.lazy-constraints")))
               (System/setProperty "isocheck.search.max-edges" "0")
               (try (search-row (str label ", lazily") f [:serializable :snapshot-isolation] 3)
                    (finally (System/clearProperty "isocheck.search.max-edges"))))]
    (println (format "isocheck lazy bench: %d cores, max heap %s" (.availableProcessors rt) (mb (.maxMemory rt))))
    (doseq [n sizes]
      (let [two (write-history dir (str "two-keys-" n ".edn")
                               (-> (SimConfig/builder) (.seed 1) (.store Store/SERIALIZABLE) (.workload History$Workload/REGISTER)
                                   (.txns (int n)) (.sessions 10) (.opsPerTxn 1 3) (.readFraction 0.5) (.keys 2)
                                   (.keyDist SimConfig$KeyDist/UNIFORM) (.blind true) (.maxWritesPerKey 0) (.failRate 0.0)
                                   (.infoRate 0.0) .build))]
        (rows "2 keys, blind writes, never rotated, shuffled" (shuffled-history two 5 (str two ".shuffled.edn"))))
      (doseq [store [Store/SERIALIZABLE Store/SNAPSHOT_ISOLATION]]
        (let [edn (write-history dir (str "jepsen-norotate-" store "-" n ".edn")
                                 (search-config {:txns n :sessions 10 :ops 4 :reads 0.5 :keys 1000 :dist SimConfig$KeyDist/ZIPF
                                                 :rotate 0 :info 0.0 :store store}))]
          (rows (str "Jepsen-shaped rw-register, never rotated, " store " store, session-ordered")
                (reorder-history edn :session (str edn ".sessions.edn"))))))))

(defn order-main
  "Issue 29: the SER/SI search against the order a file lists transactions in. lein bench
  search's Jepsen-shaped rw-register histories (10 processes, 4 micro-ops, 1,000 keys zipf
  rotating after 32 writes, 1% :info) of the serializable and the snapshot-isolation store, at
  the given sizes (default 10^4 10^5), each checked (serializable + snapshot-isolation) as
  the simulator writes it (interleaved, with invocations: realtime information), as its
  completions alone in the same order (interleaved, no realtime information), and as those
  completions session by session (no realtime information, the peer formats' order); and, to
  read beside them, the interleaved completions with each transaction moved up to 10 places
  (perturbed-history: what the best estimate of the completion order could give).
  Fair to each row: before the rows, one untimed check of each store's files (so that no
  row pays the JIT's warm-up of the code paths it shares with the others, as the first check in
  the JVM did: at 10^5 its realtime row took 0.19 s of which the witness was 33 ms), then 3
  runs per row at every size, the median reported."
  [sizes]
  (let [rt (Runtime/getRuntime)
        dir (Files/createTempDirectory "isocheck-bench-order" (make-array java.nio.file.attribute.FileAttribute 0))]
    (println (format "isocheck order bench: %d cores, max heap %s" (.availableProcessors rt) (mb (.maxMemory rt))))
    (doseq [n sizes
            store [Store/SERIALIZABLE Store/SNAPSHOT_ISOLATION]]
      (let [edn (write-history dir (str "order-" store "-" n ".edn") (jepsen-rw store n))
            files [["interleaved, realtime information" edn]
                   ["interleaved, no realtime information" (reorder-history edn :interleaved (str edn ".nort.edn"))]
                   ["session-ordered, no realtime information" (reorder-history edn :session (str edn ".sessions.edn"))]]
            ;; What an estimate of the completion order could at best give (each transaction
            ;; moved up to 10 places): a row to read beside the others, not one of the issue's.
            files (conj files ["interleaved, each transaction moved up to 10 places, no realtime information"
                               (perturbed-history (second (nth files 1)) 10 1 (str edn ".moved.edn"))])
            o (.levels (CheckOptions.) (mapv #(Level/parse (name %)) [:serializable :snapshot-isolation]))]
        ;; The warm-up: one untimed check per file.
        (doseq [[_ f] files] (Checker/check (Formats/readHistory ^String f nil) o))
        (doseq [[what f] files]
          (search-row (format "Jepsen rw-register, %s store, %s" store what) f [:serializable :snapshot-isolation] 3))
        (doseq [[_ f] files] (Files/deleteIfExists (java.nio.file.Path/of f (make-array String 0))))))
    (Files/deleteIfExists dir)))

(defn- level-search
  "A level's search statistics (through the level whose search decided it: :implied or
  :same-without-realtime), or nil."
  [search ^Level lv]
  (let [m (get search (.id lv))]
    (or (get m "implied-by-search") (get m "same-as-search") m)))

(defn- prune-stages
  "One run's stages of a level's search, ms: polygraph, each pruning round, pruning in all (with
  the level graph and the time order before it), the pinned rounds, the solver; and how it was
  decided."
  [m]
  {:polygraph (long (get m "polygraph-ms" 0))
   :rounds (vec (get m "pruning-round-ms" []))
   :prune (long (get m "prune-ms" 0))
   :pinned (long (get (get m "pinned-solve") "ms" 0))
   :solver (long (get (get m "solver") "ms" 0))
   :lazy (long (get m "lazy-ms" 0))
   :whole (boolean (get m "whole-after-lazy"))
   :by (str (get m "decided-by"))
   :constraints (long (get m "constraints" 0))
   :open (long (get m "open" 0))})

(defn- prune-row
  "Checks levels on the history at file runs times with the system properties props set; prints
  the check's median time and peak heap, then per level the median of each stage."
  [label ^String file levels runs props]
  (doseq [[k v] props] (System/setProperty k v))
  (try
    (let [h (Formats/readHistory file nil)
          lvs (mapv #(Level/parse (name %)) levels)
          o (.levels (CheckOptions.) lvs)
          rs (vec (for [_ (range runs)] (measure #(Checker/check h o))))
          med (fn [xs] (if (seq xs) (median xs) 0))]
      (println (format "\n%s: check %.2f s median of %d (%s), peak %s" label (median (map second rs)) runs
                       (str/join ", " (map #(format "%.2f" (second %)) rs)) (mb (median (map #(nth % 2) rs)))))
      (doseq [^Level lv lvs
              :let [^Result r0 (first (first rs))
                    st (map #(prune-stages (level-search (get (.stats ^Result (first %)) "search") lv)) rs)
                    s0 (first st)
                    nr (apply max 0 (map (comp count :rounds) st))]]
        (println (format "  %-36s %-8s %s" (.id lv) (str (.value ^isocheck.check.Verdict (get (.levels r0) lv)))
                         (if (and (pos? (:lazy s0)) (not (:whole s0)))
                           (format "constraints generated lazily, %d ms, by %s" (med (map :lazy st)) (:by s0))
                           (format "%spolygraph %d ms, pruning %d ms (rounds: %s), constraints %,d -> open %,d, pinned rounds %d ms, solver %d ms, by %s"
                                   (if (:whole s0) (format "constraints generated lazily %d ms, then whole: " (med (map :lazy st))) "")
                                   (med (map :polygraph st)) (med (map :prune st))
                                   (if (zero? nr) "none" (str/join " + " (for [i (range nr)] (str (med (keep #(get (:rounds %) i) st)) " ms"))))
                                   (:constraints s0) (:open s0) (med (map :pinned st)) (med (map :solver st)) (:by s0))))))
      (flush))
    (finally (doseq [[k _] props] (System/clearProperty k)))))

(defn prune-main
  "Issue 27, item 2: a proxy of VeriStrong's yuga-G2-b (a Cobra log of YugabyteDB, 26,994
  transactions, 4.38 million write-order constraints, whose pruning took 35 s in 6 rounds): at
  each size (default 27,000 transactions), an rw-register history of the snapshot-isolation
  store (its write skews are G2-item: serializability fails), 24 sessions of 4 micro-ops, half
  reads, 450 keys uniform never rotated (each written about 120 times: 2.4 million writer pairs
  and 9.8 million side edges), listed as Cobra's logs list it (session by session, completions
  alone: no realtime information), checked at four levels (strict serializability,
  serializability, strong-session and plain snapshot isolation), 3 runs each: with the whole
  polygraph (lazy generation off, as before issue 27 item 1), pruning's rounds rebuilt whole
  each round (-Disocheck.prune.incremental=false, the way before) and incremental (the
  default); and as by default (over 12 side edges a micro-op: constraints generated lazily).
  Per level, the medians of each stage: the polygraph, each pruning round, pruning in all,
  the pinned rounds and the solver."
  [sizes]
  (let [rt (Runtime/getRuntime)
        dir (Files/createTempDirectory "isocheck-bench-prune" (make-array java.nio.file.attribute.FileAttribute 0))
        levels [:strict-serializable :serializable :strong-session-snapshot-isolation :snapshot-isolation]]
    (println (format "isocheck prune bench: %d cores, max heap %s" (.availableProcessors rt) (mb (.maxMemory rt))))
    (doseq [n sizes]
      (let [edn (write-history dir (str "prune-" n ".edn")
                               (search-config {:txns n :sessions 24 :ops 4 :reads 0.5 :keys 450 :dist SimConfig$KeyDist/UNIFORM
                                               :rotate 0 :store Store/SNAPSHOT_ISOLATION}))
            cobra (reorder-history edn :session (str edn ".sessions.edn"))
            label (format "yuga-G2-b proxy, %,d txns (SI store, 450 keys never rotated, session-ordered)" n)]
        (prune-row (str label ", whole polygraph, rounds rebuilt whole (before)") cobra levels 3
                   {"isocheck.search.lazy-constraints" "false" "isocheck.prune.incremental" "false"})
        (prune-row (str label ", whole polygraph, incremental rounds") cobra levels 3
                   {"isocheck.search.lazy-constraints" "false"})
        (prune-row (str label ", by default") cobra levels 3 {})
        (doseq [f [edn cobra]] (Files/deleteIfExists (java.nio.file.Path/of ^String f (make-array String 0))))))
    (Files/deleteIfExists dir)))

(defn levels-main
  "`lein bench levels [SIZES...]` (default 10^4 10^5): what the levels added to the default set
  (GSI and Elle's repeatable read, read committed, read uncommitted) cost. On Jepsen-shaped
  histories (4 micro-ops, 10 sessions, 1000 keys zipf rotating after 32 writes, 1% :info), both
  workloads, from the strictly serializable store with a stale-read bug (0.2%: strong SI fails,
  so GSI needs a search of its own) and from the snapshot-isolation store, it times, in one JVM
  after loading, medians of 3: the ten levels that were the default before, each added level
  alone, and all fourteen."
  [sizes]
  (let [rt (Runtime/getRuntime)
        before [:strict-serializable :strong-session-serializable :serializable :strong-snapshot-isolation
                :strong-session-snapshot-isolation :snapshot-isolation :tcc :ra :rc :ci]
        rows (concat [["the ten levels before" before]]
                     (for [l [:gsi :repeatable-read :read-committed :read-uncommitted]] [(name l) [l]])
                     [["all fourteen (the default)" (mapv #(keyword (.id ^Level %)) (Level/values))]])]
    (println (format "isocheck levels bench: %d cores, max heap %s; check time after loading, medians of 3"
                     (.availableProcessors rt) (mb (.maxMemory rt))))
    (doseq [n sizes
            [store bug] [[Store/STRICT_SERIALIZABLE Bug/STALE_REALTIME_READ] [Store/SNAPSHOT_ISOLATION nil]]
            wl [History$Workload/APPEND History$Workload/REGISTER]
            :let [^SimConfig cfg (cond-> (-> (SimConfig/builder) (.seed 3) (.store store) (.workload wl) (.txns (int n))
                                             (.sessions 10) (.keys 1000) (.keyDist SimConfig$KeyDist/ZIPF) (.opsPerTxn 4 4)
                                             (.readFraction 0.5) (.maxWritesPerKey 32) (.infoRate 0.01))
                                   bug (-> (.bug bug) (.bugRate 0.002))
                                   true .build)]]
      (let [^History h (.history (Simulator/history cfg))]
        (println (format "\n%s store%s, %s, %,d txns:" store (if bug (str " + " bug) "") (.cliName ^History$Workload wl) (.nTxns h)))
        (doseq [[label ls] rows]
          (let [o (.levels (CheckOptions.) (mapv #(Level/parse (name %)) ls))
                rs (vec (for [_ (range 3)] (measure #(Checker/check h o))))
                ^Result r (first (first rs))
                of (fn [value] (for [[l v] (.levels r) :when (= value (str (.value ^isocheck.check.Verdict v)))] (str l)))
                bad (of "FALSE")
                unknown (of "UNKNOWN")]
            (println (format "  %-28s %8.3f s  peak %8s   violated: %s%s" label (median (map second rs))
                             (mb (median (map #(nth % 2) rs))) (if (seq bad) (str/join " " bad) "none")
                             (if (seq unknown) (str "; unknown: " (str/join " " unknown)) "")))
            (flush)))))))

(defn- mt-history
  "An MT history: `isocheck.workload/mt` invocations (keys zipfian, every
  shape equally) driving the simulated store, 10 sessions, 5% :fail and
  the given :info rate; [History seconds]."
  [store txns keys info]
  (let [t0 (System/nanoTime)
        w ((requiring-resolve 'isocheck.workload/mt) {:seed 1 :key-count keys :key-dist :zipfian :levels [:serializable]})
        cfg (-> (SimConfig/builder) (.seed 1) (.store store) (.workload History$Workload/REGISTER)
                (.sessions 10) (.failRate 0.05) (.infoRate (double info)) (.pendingAtEnd 0) .build)
        sh (Simulator/driveHistory cfg [(map :value (take txns (:generator w)))])]
    [(.history sh) (/ (- (System/nanoTime) t0) 1e9)]))

(defn- mt-check
  "Checks levels, the MT checker on or off, runs times: {:s median seconds, :peak bytes, :result Result}."
  [^History h levels mt? runs time-limit-s]
  (let [o (.levels (CheckOptions.) (mapv #(Level/parse (name %)) levels))]
    (set! (.miniTransactions o) (boolean mt?))
    (set! (.timeLimitMs o) (long (* 1000 time-limit-s)))
    (let [rs (vec (for [_ (range runs)] (measure #(Checker/check h o))))]
      {:s (median (map second rs)), :peak (median (map #(nth % 2) rs)), :result (first (last rs))})))

(defn- verdict-str [^Result r levels]
  (str/join " " (for [l levels
                      :let [v ^isocheck.check.Verdict (get (.levels r) (Level/parse (name l)))]]
                  (str (name l) "=" (str/lower-case (str (.value v)))
                       (when-let [why (.reason v)] (str " (" (subs why 0 (min 110 (count why))) "...)"))))))

(defn mt-main
  "`lein bench mt [SIZES...]`: mini-transaction histories (isocheck.workload/mt,
  zipfian over 100 keys, every shape; the simulated store, 10 sessions, 5%
  :fail, no :info, so every key's order is in the history) of 10^4, 10^5 and
  10^6 transactions (default), from a strictly serializable store (every level
  holds) and a snapshot-isolation one (write skews: the serializable levels
  fail, counterexamples are searched). After loading, the MT checker
  (MTC Algorithm 1) at SER, SI and SSER alone and all six strong levels, then
  the same histories through the general search (:mt? false; 120 s limit, and
  not past 10^5), medians. Last, histories with 1% :info, whose :info writes
  that were read leave some keys' order open: the search over chains."
  [sizes]
  (let [rt (Runtime/getRuntime)
        six [:strict-serializable :strong-session-serializable :serializable
             :strong-snapshot-isolation :strong-session-snapshot-isolation :snapshot-isolation]
        row (fn [label {:keys [s peak ^Result result]} n levels]
              (let [ms (get (.stats result) "mt")]
                (println (format "  %-34s %8.3f s %,12.0f txns/s %9s  %-22s %s" label s (/ n s) (mb peak)
                                 (str (get ms "path" "-")) (verdict-str result levels)))
                (flush)))]
    (println (format "isocheck bench mt: %d cores, max heap %s, %s %s; medians"
                     (.availableProcessors rt) (mb (.maxMemory rt))
                     (System/getProperty "java.vm.name") (System/getProperty "java.version")))
    (doseq [[store info] [[Store/STRICT_SERIALIZABLE 0.0] [Store/SNAPSHOT_ISOLATION 0.0] [Store/STRICT_SERIALIZABLE 0.01]]
            n sizes]
      (let [[^History h gen-s] (mt-history store n 100 info)
            _ (gc!)
            heap (used)
            runs (if (>= n 1000000) 3 5)]
        (println (format "\n%s store, %,d txns, %.0f%% :info: %,d micro-ops, %,d keys; generated in %.1f s; history heap %s"
                         store (.nTxns h) (* 100 info) (long (.mopCount h)) (.keyCount h) gen-s (mb heap)))
        (doseq [ls [[:serializable] [:snapshot-isolation] [:strict-serializable] six]]
          (row (str (if (= ls six) "all six" (name (first ls))) ", MT checker") (mt-check h ls true runs 120) n ls))
        (when (and (zero? info) (<= n 100000))
          (doseq [ls [[:serializable] [:snapshot-isolation] [:strict-serializable]]]
            (row (str (name (first ls)) ", general search") (mt-check h ls false (if (>= n 100000) 1 3) 120) n ls)))))))

(defn lin-main
  "`lein bench lin [SIZES...]`: linearizability of compare-and-set registers
  (isocheck.sim.CasRegisters: 100 keys, 10 sessions, 40% reads, 20% writes,
  40% compare-and-sets, 1% :info) at 10^4, 10^5 and 10^6 ops (default): a
  linearizable history, and one with stale reads. Times after loading,
  medians."
  [sizes]
  (let [rt (Runtime/getRuntime)]
    (println (format "isocheck bench lin: %d cores, max heap %s; 100 keys, 10 sessions, 1%% :info; medians"
                     (.availableProcessors rt) (mb (.maxMemory rt))))
    (doseq [[label stale] [["linearizable registers" 0.0] ["stale reads injected" 0.01]]
            n sizes]
      (let [b (isocheck.check.lin.CasHistory$Builder. nil)
            t0 (System/nanoTime)
            fired (isocheck.sim.CasRegisters/run 1 (int n) 100 10 0.01 (double stale) b)
            ^isocheck.check.lin.CasHistory h (.build b)
            gen-s (/ (- (System/nanoTime) t0) 1e9)
            runs (if (>= n 1000000) 3 5)
            rs (vec (for [_ (range runs)] (measure #(isocheck.check.lin.Linearizability/check h 16))))
            ^isocheck.check.lin.Linearizability$Result r (first (last rs))
            s (median (map second rs))]
        (println (format "  %-24s %,10d ops (%s)  check %7.3f s %,12.0f ops/s %9s  valid? %s%s"
                         label (.n h) (format "generated in %.1f s" gen-s) s (/ (.n h) s) (mb (median (map #(nth % 2) rs)))
                         (str/lower-case (str (.valid r)))
                         (if (pos? fired) (str ", " fired " stale reads served, anomalies " (into {} (.counts (.anomalies r)))) "")))
        (flush)))))

(defn- violated-config
  "A Jepsen-shaped history (10 sessions, 4 micro-ops, half reads, 1,000 keys zipf rotating
  after 32 writes) of store with bug injected at rate."
  ^SimConfig [workload store bug rate txns]
  (-> (SimConfig/builder) (.seed 1) (.store store) (.workload workload) (.txns (int txns)) (.sessions 10)
      (.keys 1000) (.keyDist SimConfig$KeyDist/ZIPF) (.opsPerTxn 4 4) (.readFraction 0.5) (.maxWritesPerKey 32)
      (.bug bug) (.bugRate (double rate)) .build))

(defn- stale-snapshot-history
  "Writes to dir/name a list-append history of n transactions from isocheck's own Jepsen
  workload (10 active keys, up to 4 micro-ops, keys rotating after 32 appends), run by 10
  processes against an in-memory store that applies each transaction atomically when it
  completes, except that 1% of the read-only transactions read a snapshot up to `lag`
  commits old: the shape of the stale reads a real Jepsen run found (issue 26), whose
  realtime cycles make thousands of cyclic components. Returns the path."
  ^String [^Path dir ^String name n lag]
  (let [rng (java.util.Random. 1)
        txns (into [] (take n) (:generator (workload/append {:key-count 10, :max-txn-length 4, :max-writes-per-key 32, :seed 1})))
        snaps (doto (java.util.ArrayList.) (.add {}))
        conc 10
        pending (object-array conc)
        f (str (.resolve dir name))]
    (with-open [w (io/writer f)]
      (let [i (long-array 1)
            emit (fn [m]
                   (let [k (aget i 0)]
                     (.write w (pr-str (assoc m :index k :time (* 1000 (inc k)))))
                     (.write w "\n")
                     (aset i 0 (inc k))))]
        (loop [next-txn (long 0)]
          (let [next-txn (loop [p 0, nt next-txn]
                           (cond (= p conc) nt
                                 (and (nil? (aget pending p)) (< nt n))
                                 (let [op (assoc (txns nt) :process p :type :invoke)]
                                   (aset pending p op) (emit op) (recur (inc p) (inc nt)))
                                 :else (recur (inc p) nt)))
                busy (filterv #(aget pending %) (range conc))]
            (when (seq busy)
              (let [p (busy (.nextInt rng (count busy)))
                    op (aget pending p)
                    cur (.get snaps (dec (.size snaps)))
                    ro? (every? #(= :r (first %)) (:value op))
                    view (if (and ro? (< (.nextDouble rng) 0.01))
                           (.get snaps (max 0 (- (.size snaps) 1 (inc (.nextInt rng (int lag))))))
                           cur)
                    [st vals] (reduce (fn [[st acc] [f k v]]
                                        (if (= f :r)
                                          [st (conj acc [f k (get (if ro? view st) k)])]
                                          [(update st k (fnil conj []) v) (conj acc [f k v])]))
                                      [cur []] (:value op))]
                (when-not ro? (.add snaps st))
                (aset pending p nil)
                (emit (assoc op :type :ok :value vals))
                (recur (long next-txn))))))))
    f))

(defn violated-main
  "`lein bench violated [SIZES...]`: violated histories with many anomalies, where the
  search for the smallest counterexamples (the shortest cycle of each anomaly type in each
  cyclic component) is what a check may spend its time on (issue 26). At each size (default
  10^4, 10^5, 10^6 transactions), Jepsen-shaped histories (10 sessions, 4 micro-ops, 1,000
  keys zipf rotating after 32 writes) of list-append and rw-register: the strictly
  serializable store with 1% stale realtime reads, and the SI store with 1% long forks;
  and isocheck's own list-append workload against a store where 1% of the read-only
  transactions read a snapshot up to 2,000 commits old (the real Jepsen run of issue 26).
  `bin/isocheck check --format edn FILE` (default levels), then the same with
  --max-anomalies 0, as a subprocess, medians of several runs: load, detection (the check
  less its counterexample search), counterexamples ([:stats :levels-ms :counterexamples]:
  the observed cycles' typed searches), the check ([:stats :ms :total]: every level, the
  load excluded), the
  counterexamples' share of it, peak RSS; 'bounded' when the result's
  :counterexample-search says the search stopped at its time bound. Not run by CI."
  [sizes]
  (let [launcher (str (System/getProperty "user.dir") "/bin/isocheck")
        dir (Files/createTempDirectory "isocheck-bench-violated" (make-array java.nio.file.attribute.FileAttribute 0))
        one (str (.resolve dir "one-op.edn"))
        _ (spit one "{:index 0, :type :ok, :process 0, :f :txn, :value [[:append :x 1]]}\n")
        _ (run-cli launcher one)
        rt (Runtime/getRuntime)]
    (println (format "isocheck bench violated: bin/isocheck check FILE, default levels; %d cores, load average %s; medians"
                     (.availableProcessors rt)
                     (str/join " " (take 3 (str/split (try (Files/readString (java.nio.file.Path/of "/proc/loadavg" (make-array String 0)))
                                                           (catch java.io.IOException _ "? ? ?"))
                                                      #" ")))))
    (println (format "%-46s %10s %4s %8s %9s %9s %9s %6s %9s %10s %s"
                     "input" "txns" "runs" "load" "detect" "cx" "check" "cx/chk" "peak RSS" "instances" "counterexamples"))
    (doseq [n sizes
            [label wl store bug] [["list-append, 1% stale snapshots (workload/append)" :stale-snapshots nil nil]
                                  ["list-append, SSER store, 1% stale reads" History$Workload/APPEND Store/STRICT_SERIALIZABLE Bug/STALE_REALTIME_READ]
                                  ["list-append, SI store, 1% long forks" History$Workload/APPEND Store/SNAPSHOT_ISOLATION Bug/LONG_FORK]
                                  ["rw-register, SSER store, 1% stale reads" History$Workload/REGISTER Store/STRICT_SERIALIZABLE Bug/STALE_REALTIME_READ]
                                  ["rw-register, SI store, 1% long forks" History$Workload/REGISTER Store/SNAPSHOT_ISOLATION Bug/LONG_FORK]]]
      (let [file (if (= wl :stale-snapshots)
                   (stale-snapshot-history dir (str "v-" n ".edn") n 2000)
                   (write-history dir (str "v-" n ".edn") (violated-config wl store bug 0.01 n)))
            runs (cond (<= n 10000) 5 (<= n 100000) 3 :else 1)]
        (doseq [[suffix args] [["" []] ["  --max-anomalies 0" ["--max-anomalies" "0"]]]]
          (let [rs (vec (for [_ (range runs)] (apply run-cli launcher file args)))
                ms (fn [k] (median (map #(get-in % [:ms k] 0) rs)))
                cx (median (map #(get-in % [:levels-ms :counterexamples] 0) rs))
                check #(get-in % [:ms :total] 0)   ; the check alone: [:stats :ms :total] excludes :load
                detect (median (map #(- (check %) (get-in % [:levels-ms :counterexamples] 0)) rs))
                total (median (map check rs))
                rss (keep :rss rs)]
            (println (format "%-46s %,10d %4d %6.2f s %7.2f s %7.2f s %7.2f s %5.0f%% %9s %,10d %s"
                             (str (if (seq suffix) "" label) suffix) (long (:txns (first rs))) runs (/ (ms :load) 1e3)
                             (/ detect 1e3) (/ cx 1e3) (/ total 1e3) (if (pos? total) (* 100.0 (/ cx total)) 0.0)
                             (if (seq rss) (mb (median rss)) "-") (long (median (map :instances rs)))
                             (cond (seq args) "skipped" (some :bounded? rs) "bounded" :else "smallest")))
            (flush)))
        (Files/deleteIfExists (java.nio.file.Path/of file (make-array String 0)))))
    (Files/deleteIfExists (java.nio.file.Path/of one (make-array String 0)))
    (Files/deleteIfExists dir)))

(defn- certificates-main
  "`lein bench certificates [SIZES...]`: what the certificates cost (CheckOptions#certificates,
  --no-certificates), and what checking them costs (isocheck.verify). At each size (default
  10^5, 10^6), Jepsen-shaped histories (10 sessions, 4 micro-ops, half reads, 1,000 keys zipf
  rotating after 32 writes, 1% :info): rw-register from the serializable store (strict
  serializability and strong SI violated) and from the strict-serializable one, list-append
  from the strict-serializable one, checked at strict-serializable, serializable, strong SI and
  SI; and the weak levels TCC, RA, RC asked alone (so decided by the weak checker, not implied
  by a strong level) on both workloads from the SI store (all three hold) and the read-committed
  one (RC holds). Each checked with and without certificates, alternating, 5 runs each; medians
  of the check, of the result map (Result#toData), and of verify (the result printed as EDN,
  read back, every certificate checked). Not run by CI."
  [sizes]
  (let [strong (mapv #(Level/parse %) ["strict-serializable" "serializable" "strong-snapshot-isolation" "snapshot-isolation"])
        weak (mapv #(Level/parse %) ["tcc" "ra" "rc"])]
    (println (format "isocheck certificates bench: %d cores" (.availableProcessors (Runtime/getRuntime))))
    (println (format "%-44s %10s %14s %14s %12s %12s" "history" "txns" "check, with" "check, without" "result map" "verify"))
    (doseq [n sizes
            [label wl store levels] [["rw-register, serializable store" History$Workload/REGISTER Store/SERIALIZABLE strong]
                                     ["rw-register, strict-serializable store" History$Workload/REGISTER Store/STRICT_SERIALIZABLE strong]
                                     ["list-append, strict-serializable store" History$Workload/APPEND Store/STRICT_SERIALIZABLE strong]
                                     ["weak: rw-register, SI store" History$Workload/REGISTER Store/SNAPSHOT_ISOLATION weak]
                                     ["weak: rw-register, read-committed store" History$Workload/REGISTER Store/READ_COMMITTED weak]
                                     ["weak: list-append, SI store" History$Workload/APPEND Store/SNAPSHOT_ISOLATION weak]
                                     ["weak: list-append, read-committed store" History$Workload/APPEND Store/READ_COMMITTED weak]]]
      (let [h (.history (Simulator/history
                          (-> (SimConfig/builder) (.seed 1) (.store store) (.workload wl) (.txns (int n)) (.sessions 10)
                              (.opsPerTxn 4 4) (.readFraction 0.5) (.keys 1000) (.keyDist SimConfig$KeyDist/ZIPF)
                              (.maxWritesPerKey 32) (.failRate 0.0) (.infoRate 0.01) .build)))
            opts (fn [on] (let [o (.levels (CheckOptions.) levels)] (set! (.certificates o) (boolean on)) o))
            runs (vec (for [_ (range 5) on [true false]]
                        (do (gc!)
                            (let [t0 (System/nanoTime) r (Checker/check h ^CheckOptions (opts on)) t1 (System/nanoTime)
                                  data (.toData ^Result r) t2 (System/nanoTime)
                                  o (when on (Verify/verify h (EdnPrinter/str data))) t3 (System/nanoTime)]
                              (when (and o (not= 0 (.status ^isocheck.verify.Verify$Outcome o)))
                                (throw (IllegalStateException. (str label ": " (vec (.lines ^isocheck.verify.Verify$Outcome o))))))
                              {:on on :check (/ (- t1 t0) 1e6) :data (/ (- t2 t1) 1e6) :verify (/ (- t3 t2) 1e6)}))))
            med (fn [on k] (median (map k (filter #(= on (:on %)) runs))))]
        (println (format "%-44s %,10d %11.0f ms %11.0f ms %9.0f ms %9.0f ms" label n (med true :check) (med false :check)
                         (med true :data) (med true :verify)))
        (flush)))))

(defn- run-env
  "Runs cmd (a vector of strings) once with extra environment variables (a map), under
  /usr/bin/time when installed (for the peak RSS); {:wall s, :exit n, :out str, :rss bytes or nil}."
  [cmd env]
  (let [time? (.canExecute (java.io.File. "/usr/bin/time"))
        cmd (cond->> cmd time? (into ["/usr/bin/time" "-f" "isocheck-bench-rss %M"]))
        pb (ProcessBuilder. ^java.util.List cmd)
        _ (doseq [[k v] env] (.put (.environment pb) k v))
        t0 (System/nanoTime)
        p (.start pb)
        out (future (slurp (.getInputStream p)))
        err (future (slurp (.getErrorStream p)))
        exit (.waitFor p)
        wall (/ (- (System/nanoTime) t0) 1e9)]
    {:wall wall, :exit exit, :out @out, :err @err
     :rss (some #(when-let [[_ kb] (re-find #"^isocheck-bench-rss (\d+)" %)] (* 1024 (Long/parseLong kb)))
                (str/split-lines @err))}))

(defn- loadavg []
  (str/join " " (take 3 (str/split (try (Files/readString (java.nio.file.Path/of "/proc/loadavg" (make-array String 0)))
                                        (catch java.io.IOException _ "? ? ?"))
                                   #" "))))

(defn- jdk-homes
  "The JDKs under /usr/lib/jvm by major version (from their release files): {17 path, 25 path}."
  []
  (into (sorted-map)
        (for [^java.io.File d (or (.listFiles (java.io.File. "/usr/lib/jvm")) [])
              :let [r (java.io.File. d "release")]
              :when (and (.isFile r) (not (java.nio.file.Files/isSymbolicLink (.toPath d)))
                         (.canExecute (java.io.File. d "bin/java")))
              :let [[_ v] (re-find #"(?m)^JAVA_VERSION=\"?([0-9.]+)" (slurp r))
                    major (when v (let [[a b] (str/split v #"\.")] (Long/parseLong (if (= a "1") b a))))]
              :when major]
          [major (str d)])))

(defn- verdicts-of
  "The :valid? and per-level verdicts of a --format edn result printed by check."
  [out]
  (let [r (try (edn/read-string {:default (fn [_ v] v)} out) (catch Exception _ nil))]
    [(:valid? r) (into (sorted-map) (for [[l v] (:levels r)] [l (:valid? v)]))]))

(defn startup-main
  "`lein bench startup [RUNS]` (default 10): the whole command on small histories, where the
  JVM's start is most of the time: a one-transaction file; 1,000 transactions checked at SER
  and SI (VeriStrong's size: Jepsen list-append, Jepsen rw-register and Plume-shaped
  rw-register); Plume's default history (5,000 transactions of 20 micro-ops, 25 sessions,
  10,000 keys; rw-register and list-append) at the weak levels, as AWDIT checks it. Each as
  bin/isocheck runs it (the JDK and class data the launcher picks: JDK 25's AOT cache when
  installed; -Xbatch on a busy machine), the same never with -Xbatch, with JDK 17 and its class-data archive (JAVA_HOME), and with JDK 25 without its
  AOT cache (-XX:AOTMode=off): median wall time and peak RSS of RUNS runs, alternating, and
  whether every configuration gave the same verdicts (it must). Not run by CI."
  [[runs]]
  (let [runs (long (or runs 10))
        launcher (str (System/getProperty "user.dir") "/bin/isocheck")
        dir (Files/createTempDirectory "isocheck-bench-startup" (make-array java.nio.file.attribute.FileAttribute 0))
        one (str (.resolve dir "one.edn"))
        _ (spit one "{:index 0, :type :ok, :process 0, :f :txn, :value [[:append :x 1]]}\n")
        jdks (jdk-homes)
        j17 (some (fn [[m d]] (when (< m 25) d)) (rseq jdks))
        j25 (some (fn [[m d]] (when (>= m 25) d)) (rseq jdks))
        configs (cond-> [["bin/isocheck" {}]
                         ;; The launcher's pick, but never -Xbatch (which it adds on a busy machine).
                         ["bin/isocheck, no -Xbatch" {"JAVA_OPTS" "-XX:+BackgroundCompilation"}]]
                  j17 (conj [(str "JDK " (some (fn [[m d]] (when (= d j17) m)) jdks) ", CDS archive") {"JAVA_HOME" j17}])
                  j25 (conj ["JDK 25, no AOT cache" {"JAVA_HOME" j25 "JAVA_OPTS" "-XX:AOTMode=off"}]))
        ser-si ["--levels" "serializable,snapshot-isolation"]
        weak ["--levels" "tcc,ra,rc,ci"]
        inputs [["one transaction" one []]
                ["1,000 list-append (Jepsen), SER+SI" (write-history dir "append-1000.edn" (config Store/SNAPSHOT_ISOLATION 1000)) ser-si]
                ["1,000 rw-register (Jepsen), SER+SI" (write-history dir "jsi-1000.edn" (jepsen-rw Store/SNAPSHOT_ISOLATION 1000)) ser-si]
                ["1,000 rw-register (Plume), SER+SI" (write-history dir "wr-1000.edn" (weak-config History$Workload/REGISTER 1000 25 2000)) ser-si]
                ["5,000 rw-register (Plume), weak" (write-history dir "wr-5000.edn" (weak-config History$Workload/REGISTER 5000 25 10000)) weak]
                ["5,000 list-append (Plume), weak" (write-history dir "append-5000.edn" (weak-config History$Workload/APPEND 5000 25 10000)) weak]]]
    ;; The first run of each configuration makes its class data (once).
    (doseq [[_ env] configs] (run-env [launcher "check" one] env))
    (println (format "isocheck bench startup: bin/isocheck check FILE --format edn; %d cores, load average %s; median of %d runs each, alternating"
                     (.availableProcessors (Runtime/getRuntime))
                     (loadavg) runs))
    (let [la (try (Double/parseDouble (first (str/split (loadavg) #" "))) (catch NumberFormatException _ 0.0))]
      (when (>= la (* 4 (.availableProcessors (Runtime/getRuntime))))
        (println "busy (load average at least 4 times the cores): bin/isocheck compiles in the foreground (-Xbatch) now")))
    (println (format "JDKs: %s" (str/join ", " (for [[m d] jdks] (str m " " d)))))
    (println (format "%-36s %s  %s" "input" (str/join "  " (for [[l] configs] (format "%24s" l))) "verdicts"))
    (doseq [[label file args] inputs]
      (let [cmd (-> [launcher "check" "--format" "edn"] (into args) (conj file))
            rs (reduce (fn [acc _] (reduce (fn [acc [l env]] (update acc l (fnil conj []) (run-env cmd env))) acc configs))
                       {} (range runs))
            same? (apply = (for [[l] configs r (rs l)] (verdicts-of (:out r))))]
        (println (format "%-36s %s  %s" label
                         (str/join "  " (for [[l] configs :let [r (rs l)]]
                                          (format "%24s" (format "%.3f s %5s" (median (map :wall r))
                                                                 (if-let [m (seq (keep :rss r))] (format "%.0fM" (/ (median m) 1e6)) "-")))))
                         (if same? (str "same " (first (verdicts-of (:out (first (rs (ffirst configs))))))) "DIFFER")))
        (flush)))
    (doseq [f (.listFiles (.toFile dir))] (.delete ^java.io.File f))
    (Files/deleteIfExists dir)))

(defn- convert!
  "Runs isocheck convert in this JVM; throws unless it succeeds."
  [& args]
  (let [err (java.io.ByteArrayOutputStream.)
        status (isocheck.cli.Main/run (into-array String (cons "convert" args))
                                      (java.io.PrintStream. (java.io.OutputStream/nullOutputStream))
                                      (java.io.PrintStream. err true "UTF-8"))]
    (when-not (zero? status) (throw (ex-info (str "convert " (str/join " " args) ": " err) {})))))

(defn- dir-size ^long [^java.io.File f]
  (if (.isDirectory f) (reduce + 0 (map dir-size (.listFiles f))) (.length f)))

(defn load-main
  "`lein bench load [SIZES...]` (default 10^5 and 10^6 transactions): loading one history in
  every format isocheck reads, as check loads it (reader and history builder), under the JVM
  flags bin/isocheck picks for the file (ISOCHECK_MAIN_CLASS=isocheck.io.LoadBench: the
  load, and nothing after it). The history is Plume's shape (rw-register, 20 micro-ops per
  transaction, 25 sessions, twice as many keys as transactions) with its committed
  transactions only (Cobra's logs hold no others), written as Plume/PolySI text and converted
  into Jepsen EDN (gzipped too), Jepsen/elle-cli JSON, dbcop JSON and bincode, and Cobra's
  logs: the same transactions in every file (Cobra's with its write ids as values, so its EDN
  twin, converted back, is the row to compare it with). Then the simulator's own Jepsen EDN of it (with
  invocations and times, and the aborted transactions), as a Jepsen test writes it. Median
  load time and peak RSS of 3 runs (of 1 from 10^6 on); the micro-ops per second are AWDIT's
  measure (its parse of this shape: 0.3 s at 10^5, 7-8 s at 10^6, from a peer run). Not run
  by CI. ISOCHECK_BENCH_FORMATS (comma-separated, case aside) keeps the rows a word names: a
  row's whole name (`jepsen edn`), or any part of one (`plume,json` keeps Plume/PolySI text,
  Jepsen/elle-cli JSON and dbcop JSON), and converts only the files those need;
  ISOCHECK_BENCH_RUNS sets the runs per row."
  [sizes]
  (let [launcher (str (System/getProperty "user.dir") "/bin/isocheck")
        words (some->> (System/getenv "ISOCHECK_BENCH_FORMATS") str/lower-case (re-seq #"[^,]+") (map str/trim) (remove empty?) seq)
        labels ["plume/polysi text" "jepsen edn" "jepsen edn, gzip" "jepsen/elle-cli json" "dbcop json" "dbcop bincode"
                "cobra logs" "jepsen edn of the cobra logs" "jepsen edn, invocations, aborts"]
        want? (fn [label]
                (let [l (str/lower-case label)]
                  (or (nil? words)
                      (some #(if (some #{%} labels) (= l %) (str/includes? l %)) words))))
        twin? (want? "Jepsen EDN of the Cobra logs")
        runs-env (some-> (System/getenv "ISOCHECK_BENCH_RUNS") str/trim not-empty Long/parseLong)
        dir (Files/createTempDirectory "isocheck-bench-load" (make-array java.nio.file.attribute.FileAttribute 0))
        p (fn [n] (str (.resolve dir ^String n)))]
    ;; Builds the jar and its class data if needed.
    (spit (p "one.edn") "{:index 0, :type :ok, :process 0, :f :txn, :value [[:append :x 1]]}\n")
    (run-env [launcher "check" (p "one.edn")] {})
    (println (format "isocheck bench load: ISOCHECK_MAIN_CLASS=isocheck.io.LoadBench bin/isocheck check FILE; %d cores, load average %s"
                     (.availableProcessors (Runtime/getRuntime)) (loadavg)))
    (doseq [n sizes]
      (let [jepsen (write-history dir (str "jepsen-" n ".edn") (weak-config History$Workload/REGISTER n 25 (* 2 n)))
            all (p (str "all-" n ".txt"))
            _ (convert! "--lossy" "--to" "plume" jepsen all)
            text (p (str "plume-" n ".txt"))
            _ (with-open [r (io/reader all) w (io/writer text)]
                (doseq [^String l (line-seq r) :when (not (str/ends-with? l ",-1)"))] (.write w l) (.write w "\n")))
            _ (Files/delete (java.nio.file.Path/of all (make-array String 0)))
            converted (vec (for [[label to ext] [["Jepsen EDN" "edn" ".edn"] ["Jepsen EDN, gzip" "edn" ".edn.gz"]
                                                 ["Jepsen/elle-cli JSON" "json" ".json"] ["dbcop JSON" "dbcop" ".dbcop.json"]
                                                 ["dbcop bincode" "dbcop-bincode" ".bincode"] ["Cobra logs" "cobra" ".cobra"]]
                                 :when (or (want? label) (and twin? (= label "Cobra logs")))]
                             (let [f (p (str "h-" n ext))] (convert! "--to" to text f) [label f])))
            ;; Cobra's values are its write ids (64-bit): its own EDN twin is the fair measure.
            twin (when twin? (let [f (p (str "h-" n ".cobra-values.edn"))] (convert! "--to" "edn" (p (str "h-" n ".cobra")) f) f))
            files (filter (fn [[label]] (want? label))
                          (concat [["Plume/PolySI text" text]] converted
                                  (when twin? [["Jepsen EDN of the Cobra logs" twin]]) [["Jepsen EDN, invocations, aborts" jepsen]]))
            runs (or runs-env (if (>= n 1000000) 1 3))]
        (println (format "\n%,d transactions, 20 micro-ops each, Plume's shape" n))
        (println (format "%-34s %9s %9s %12s %10s %5s" "format" "file" "load" "Mmicro-op/s" "peak RSS" "runs"))
        (doseq [[label f] files]
          (let [rs (vec (for [_ (range runs)] (run-env [launcher "check" f] {"ISOCHECK_MAIN_CLASS" "isocheck.io.LoadBench"})))
                res (mapv #(try (edn/read-string (:out %)) (catch Exception _ nil)) rs)]
            (when-not (every? :ms res) (throw (ex-info (str label ": " (:err (first rs))) {})))
            (let [ms (median (map :ms res))]
              (println (format "%-34s %9s %7.2f s %12.1f %10s %5d" label (size-str (dir-size (java.io.File. ^String f)))
                               (/ ms 1e3) (/ (:mops (first res)) (* ms 1e3))
                               (if-let [m (seq (keep :rss rs))] (mb (median m)) "-") runs)))
            (flush)))
        (doseq [^String f (distinct (concat [text jepsen] (map second converted) (when twin [twin])))]
          (let [ff (java.io.File. f)]
            (when (.isDirectory ff) (doseq [x (.listFiles ff)] (.delete ^java.io.File x)))
            (.delete ff)))))
    (doseq [f (.listFiles (.toFile dir))] (.delete ^java.io.File f))
    (Files/deleteIfExists dir)))

(defn- crash-main [sizes]
  (let [rt (Runtime/getRuntime)]
    (println (format "isocheck weak bench, crash shape: %d cores, max heap %s" (.availableProcessors rt) (mb (.maxMemory rt)))))
  (crash-rows sizes))

;; ---------------------------------------------------------------------------
;; lein bench online

(defn- online-config
  "A Jepsen-shaped list-append history (10 sessions, 4 micro-ops, half reads, 1,000 keys zipf
  rotating after 32 appends, 5% :fail, 1% :info) of store, with bug at 1% when given."
  ^SimConfig [store bug txns]
  (cond-> (-> (SimConfig/builder) (.seed 1) (.store store) (.workload History$Workload/APPEND) (.txns (int txns))
              (.sessions 10) (.keys 1000) (.keyDist SimConfig$KeyDist/ZIPF) (.opsPerTxn 4 4) (.readFraction 0.5)
              (.maxWritesPerKey 32) (.failRate 0.05) (.infoRate 0.01))
    bug (-> (.bug ^Bug bug) (.bugRate 0.01))
    true .build))

(defn- recorded
  "The simulator's history for cfg, recorded in memory to be replayed."
  ^OpStream [cfg]
  (let [s (OpStream. 1024 1024)]
    (Simulator/run cfg (reify OpSink (op [_ r] (.writeTo r s)) (end [_])))
    s))

(def ^:private online-mwpk
  "The window of `lein bench online`: the simulator's rotation (online-config's maxWritesPerKey)."
  32)

(defn- ingest-java
  "Replays s into a fresh OnlineChecker for levels, with the window: [checker seconds]."
  [^OpStream s levels]
  (.rewind s)
  (let [oc (doto (OnlineChecker. levels "txn" 16 nil (int online-mwpk)) (.parallel true))  ; as the hook runs it
        r  (OpRecord.)
        t0 (System/nanoTime)]
    (while (.hasMore s)
      (.readFrom r s)
      (.op oc r))
    (.sync oc)
    (let [t (- (System/nanoTime) t0)]
      (.parallel oc false)   ; ends the weak levels' thread
      [oc (/ t 1e9)])))

(defn- record->op
  "A Jepsen op map from a record, as Jepsen's interpreter hands it to a generator."
  [^OpRecord r]
  {:index   (.index r)
   :time    (.time r)
   :type    (keyword (isocheck.history.Kw/nameOf (.typeRaw r)))
   :process (.process r)
   :f       :txn
   :value   (mapv (fn [i]
                    (let [i (int i)
                          v (.value r i)]
                      [(keyword (isocheck.history.Kw/nameOf (.fRaw r i))) (.key r i)
                       (if (instance? java.util.List v) (vec v) v)]))
                  (range (.mopCount r)))})

(defn- op-maps [^OpStream s]
  (.rewind s)
  (let [r (OpRecord.)]
    (loop [v (transient [])]
      (if (.hasMore s)
        (do (.readFrom r s) (recur (conj! v (record->op r))))
        (persistent! v)))))

(defn- percentile [xs q]
  (when (seq xs)
    (let [v (vec (sort xs))]
      (nth v (min (dec (count v)) (long (Math/floor (* q (count v)))))))))

(defn- process-cpu-ns
  "CPU time of this JVM so far, every thread (GC's too), in ns; -1 when unknown."
  ^long []
  (let [os (ManagementFactory/getOperatingSystemMXBean)]
    (if (instance? com.sun.management.OperatingSystemMXBean os)
      (.getProcessCpuTime ^com.sun.management.OperatingSystemMXBean os)
      -1)))

(defn- ingest-hook
  "Replays ops through online/ingest! (what the watch generator's update does with each event)
  at full speed, or at `rate` transactions per second; returns {:s end to end (first event to
  verdict) :cpu-s (CPU of every thread meanwhile) :producer-s (time in ingest!) :lat [latencies
  ms] :violations n}."
  [ops level-names rate]
  (let [o   ((requiring-resolve 'isocheck.online/online) {:levels level-names, :log? false, :max-anomalies 1000000
                                                          :max-writes-per-key online-mwpk})
        ingest! (requiring-resolve 'isocheck.online/ingest!)
        result (requiring-resolve 'isocheck.online/result)
        gap (when rate (/ 1e9 (* 2.0 (double rate))))   ; two events per transaction
        c0  (process-cpu-ns)
        t0  (System/nanoTime)
        producer (loop [i 0, ops (seq ops), spent 0]
                   (if ops
                     (do (when gap
                           (let [due (+ t0 (long (* i (double gap))))]
                             (loop [] (let [now (System/nanoTime)]
                                        (when (< now due)
                                          (java.util.concurrent.locks.LockSupport/parkNanos (min 200000 (- due now)))
                                          (recur))))))
                         (let [a (System/nanoTime)]
                           (ingest! o (first ops))
                           (recur (inc i) (next ops) (+ spent (- (System/nanoTime) a)))))
                     spent))
        m   (result o)
        s   (/ (- (System/nanoTime) t0) 1e9)]
    {:s s, :cpu-s (/ (- (process-cpu-ns) c0) 1e9), :producer-s (/ producer 1e9), :lat (keep :latency-ms (:violations m))
     :violations (reduce + 0 (vals (:anomaly-counts m))), :complete? (:complete? m)
     :window (get-in m [:stats :window])}))

(defn- final-delay
  "Replays ops through online/ingest! at full speed as the watch of a test, waits until the
  online checker has caught up (a run paced by a real database leaves no backlog), then runs
  the final checker (isocheck.core/check, which attaches :online): {:backlog-s (last op handed
  over to the online checker caught up, at full speed) :final-s (caught up to the final result
  map, the History built by the watch during the run) :reread-s (the same final check reading
  the ops again, as a test no watch watched: what it cost before) :read-s (of that, the time
  reading the ops into a History) :m :prebuilt?}. online-opts: the watch's (:spill-history?)."
  [ops level-names opts online-opts]
  (let [online  (requiring-resolve 'isocheck.online/online)
        ingest! (requiring-resolve 'isocheck.online/ingest!)
        result  (requiring-resolve 'isocheck.online/result)
        register! @(requiring-resolve 'isocheck.online/register!)
        check   (requiring-resolve 'isocheck.core/check)
        checker ((requiring-resolve 'isocheck.core/checker) (merge {:levels (mapv keyword level-names)} opts))
        test    {:name "bench" :start-time (System/nanoTime)}
        o       (online (merge {:levels level-names, :log? false, :max-writes-per-key online-mwpk} online-opts))
        ^OnlineChecker oc (:checker o)
        n       (count ops)
        _       (register! test o)
        _       (doseq [op ops] (ingest! o op))
        tl      (System/nanoTime)
        _       (while (< (.events oc) n) (java.util.concurrent.locks.LockSupport/parkNanos 50000))
        t0      (System/nanoTime)
        c0      (process-cpu-ns)
        m       (check checker test ops {})
        t1      (System/nanoTime)
        c1      (process-cpu-ns)
        _       (result o)
        t2      (System/nanoTime)
        m2      (check checker (assoc test :name "bench, not watched") ops {})
        t3      (System/nanoTime)
        _       ((requiring-resolve 'isocheck.jepsen/->history) ops)
        t4      (System/nanoTime)]
    (when-not (= (:levels m2) (:levels m))
      (throw (IllegalStateException. "the final check on the History built online differs from reading the ops")))
    {:backlog-s (/ (- t0 tl) 1e9), :final-s (/ (- t1 t0) 1e9), :final-cpu-s (/ (- c1 c0) 1e9), :reread-s (/ (- t3 t2) 1e9), :read-s (/ (- t4 t3) 1e9)
     :m m, :prebuilt? (get-in m [:online :history-prebuilt?])}))

(defn- watch-heap
  "The heap a watch retains once it has taken every op (after a full GC, ops held apart, as
  Jepsen holds its history), with the History built during the run spilled, built in the heap,
  and without it: [bytes-spilled bytes-in-heap bytes-without events]."
  [ops level-names]
  (let [online  (requiring-resolve 'isocheck.online/online)
        ingest! (requiring-resolve 'isocheck.online/ingest!)
        one (fn [build? spill?]
              (gc!)
              (let [before (used)
                    o (online {:levels level-names, :log? false, :max-writes-per-key online-mwpk, :build-history? build?
                               :spill-history? spill?})
                    ^OnlineChecker oc (:checker o)]
                (doseq [op ops] (ingest! o op))
                (while (< (.events oc) (count ops)) (java.util.concurrent.locks.LockSupport/parkNanos 50000))
                (gc!)
                (let [held (- (used) before)]
                  ((requiring-resolve 'isocheck.online/result) o)
                  held)))]
    [(one true true) (one true false) (one false false) (count ops)]))

(defn online-final-main
  "`lein bench online-final [SIZES...]`: the delay from the last op to the final checker's
  result (isocheck.core/check with :online attached) once the online checker has caught up,
  SER+SI, median of 3: with the History the watch built during the run, spilled to a file (the
  default) and in the heap (:spill-history? false), and reading the ops again (no watch); the
  histories of `lein bench online`. Then the heap the watch retains at the end of the run at the
  largest size: the History spilled, in the heap, and none."
  [sizes]
  (let [ser+si ["serializable" "snapshot-isolation"]
        stores [["SSER store" Store/STRICT_SERIALIZABLE nil]
                ["SI store, 1% long forks" Store/SNAPSHOT_ISOLATION Bug/LONG_FORK]]]
    (let [ops (op-maps (recorded (online-config Store/SNAPSHOT_ISOLATION Bug/LONG_FORK 20000)))]
      (dotimes [_ 2] (final-delay ops ser+si {} {:spill-history? true}) (final-delay ops ser+si {} {:spill-history? false})))
    (println "From the last op to the final verdict (isocheck.core/check of the whole history, :online attached), SER+SI, median of 3; load average"
             (str/join " " (take 3 (str/split (try (Files/readString (java.nio.file.Path/of "/proc/loadavg" (make-array String 0)))
                                                   (catch java.io.IOException _ "? ? ?")) #" "))))
    (println "backlog: the online checker catching up after a full-speed replay; final: from then to the final result (History built during the run);")
    (println "re-read: the same final check reading the ops again (before); reading: of that, the ops into a History")
    (println "History: spilled to a file during the run (:spill-history? true, the default) or built in the heap (false)")
    (println "final cpu: the processor time of that final check, every thread of the JVM (what a busy machine does not stretch)")
    (println (format "%-24s %10s %-8s %12s %10s %14s %11s %12s %9s %s" "history" "txns" "History" "backlog (s)" "final (s)" "final cpu (s)" "re-read (s)" "reading (s)" "prebuilt" "verdicts"))
    (doseq [n sizes
            [label store bug] stores]
      (let [ops (op-maps (recorded (online-config store bug n)))
            ;; Spilled and in the heap alternately, 3 runs each.
            runs (vec (for [_ (range 3), spill? [true false]]
                        (do (gc!) (assoc (final-delay ops ser+si {} {:spill-history? spill?}) :spill? spill?))))]
        (doseq [spill? [true false]
                :let [runs (filter #(= spill? (:spill? %)) runs)
                      m (:m (first runs))]]
          (println (format "%-24s %,10d %-8s %12.2f %10.2f %14.2f %11.2f %12.2f %9s %s" label n (if spill? "spilled" "in heap")
                           (median (map :backlog-s runs)) (median (map :final-s runs)) (median (map :final-cpu-s runs))
                           (median (map :reread-s runs)) (median (map :read-s runs)) (every? :prebuilt? runs)
                           (pr-str (into (sorted-map) (map (fn [[l v]] [l (:valid? v)])) (:levels m)))))
          (flush))))
    (let [n (apply max sizes)
          [spilled in-heap without events] (watch-heap (op-maps (recorded (online-config Store/STRICT_SERIALIZABLE nil n))) ser+si)]
      (println (format "Heap the watch retains at the end (SSER store, %,d txns, after a full GC): %s with the History spilled, %s with it in the heap, %s without (:build-history? false): %.1f and %.1f bytes an event for the History"
                       n (mb spilled) (mb in-heap) (mb without) (/ (double (- spilled without)) events) (/ (double (- in-heap without)) events))))))

(defn final-spill-main
  "`lein bench final-spill [SIZES...]`: online-final's final delay alone (no re-read), the
  History spilled and in the heap alternately, 5 runs each (the first of each warms up), on the
  SSER store's history (the valid run, the slower final check): each run's wall time from the
  online checker caught up to the final result, its processor time, and the load average."
  [sizes]
  (let [check   (requiring-resolve 'isocheck.core/check)
        checker ((requiring-resolve 'isocheck.core/checker) {:levels [:serializable :snapshot-isolation]})
        online  (requiring-resolve 'isocheck.online/online)
        ingest! (requiring-resolve 'isocheck.online/ingest!)
        register! @(requiring-resolve 'isocheck.online/register!)
        load-avg #(str/join " " (take 3 (str/split (try (Files/readString (java.nio.file.Path/of "/proc/loadavg" (make-array String 0)))
                                                       (catch java.io.IOException _ "? ? ?")) #" ")))]
    (println "From the online checker caught up to the final result (SER+SI, SSER store), the History spilled or in the heap; wall, processor time (every thread), load average")
    (doseq [n sizes]
      (let [ops (op-maps (recorded (online-config Store/STRICT_SERIALIZABLE nil n)))
            one (fn [spill?]
                  (gc!)
                  (let [test {:name "final-spill" :start-time (System/nanoTime)}
                        o (online {:levels ["serializable" "snapshot-isolation"], :log? false, :max-writes-per-key online-mwpk
                                   :spill-history? spill?})
                        ^OnlineChecker oc (:checker o)
                        _ (register! test o)
                        _ (doseq [op ops] (ingest! o op))
                        _ (while (< (.events oc) (count ops)) (java.util.concurrent.locks.LockSupport/parkNanos 50000))
                        t0 (System/nanoTime)
                        c0 (process-cpu-ns)
                        m (check checker test ops {})
                        r {:s (/ (- (System/nanoTime) t0) 1e9), :cpu (/ (- (process-cpu-ns) c0) 1e9)
                           :prebuilt? (get-in m [:online :history-prebuilt?]), :load (load-avg)}]
                    (println (format "%,10d %-8s %6.2f s %6.2f s cpu  prebuilt %s  load %s" n (if spill? "spilled" "in heap") (:s r) (:cpu r) (:prebuilt? r) (:load r)))
                    (flush)
                    r))
            runs (vec (for [_ (range 5), spill? [true false]] (assoc (one spill?) :spill? spill?)))]
        (doseq [spill? [true false]
                :let [rs (rest (filter #(= spill? (:spill? %)) runs))]]
          (println (format "%,10d %-8s median of the last 4: %.2f s, %.2f s cpu" n (if spill? "spilled" "in heap")
                           (median (map :s rs)) (median (map :cpu rs)))))))))

(defn history-spill-main
  "`lein bench history-spill [SIZES...]`: the heap the History built during a run takes over
  the run's length (issue 28), spilled to a file (HistoryBuilder.spillTo, the watch's default)
  and in the heap. One Jepsen-shaped list-append history (online-config, the strict-serializable
  store) as long as the largest size, streamed from the simulator straight into a
  HistoryBuilder (nothing else records it), once per way; at each size, the heap in use after a
  full GC less that of the simulator alone (a third pass), the spill file's size, and at the end
  the time to build the History (reading the spill back and indexing the writes, or not)."
  [sizes]
  (let [sizes (vec (sort sizes))
        n     (long (peek sizes))
        rt    (Runtime/getRuntime)
        pass  (fn [mode]
                (gc!)
                (let [b    (case mode
                             :none nil
                             :heap (HistoryBuilder. nil "txn")
                             :spill (.spillTo (HistoryBuilder. nil "txn")
                                              (java.nio.file.Path/of (System/getProperty "java.io.tmpdir") (make-array String 0))
                                              (int HistoryBuilder/SPILL_CHUNK)))
                      done (long-array 1)
                      next (volatile! sizes)
                      rows (java.util.ArrayList.)]
                  (Simulator/run (online-config Store/STRICT_SERIALIZABLE nil (+ n 1000))
                                 (reify OpSink
                                   (op [_ r]
                                     (when b (.op ^HistoryBuilder b r))
                                     (when (not= OpType/INVOKE (.type ^OpRecord r))
                                       (let [c (aset done 0 (inc (aget done 0)))]
                                         (when (and (seq @next) (= c (long (first @next))))
                                           (vswap! next rest)
                                           (gc!)
                                           (.add rows [c (used) (if b (.spilledBytes ^HistoryBuilder b) 0)])))))
                                   (end [_])))
                  (let [t0 (System/nanoTime)
                        h  (when b (.build ^HistoryBuilder b))
                        s  (/ (- (System/nanoTime) t0) 1e9)]
                    {:rows (vec rows), :build-s s, :txns (when h (.nTxns ^isocheck.history.History h))})))
        none  (pass :none)
        heap  (pass :heap)
        spill (pass :spill)]
    (println (format "isocheck history-spill bench: %d cores, max heap %s; load average %s; the builder fed by the simulator (online-config, SSER store)"
                     (.availableProcessors rt) (mb (.maxMemory rt))
                     (str/join " " (take 3 (str/split (try (Files/readString (java.nio.file.Path/of "/proc/loadavg" (make-array String 0)))
                                                           (catch java.io.IOException _ "? ? ?")) #" ")))))
    (println (format "%12s %14s %10s %14s %10s %12s" "txns" "in heap" "B/event" "spilled" "B/event" "spill file"))
    (doseq [[[c base] [_ h] [_ sp file]] (map vector (:rows none) (:rows heap) (:rows spill))]
      (println (format "%,12d %14s %10.1f %14s %10.1f %12s" c (mb (- h base)) (/ (- h base) (* 2.0 c))
                       (mb (- sp base)) (/ (- sp base) (* 2.0 c)) (mb file))))
    (println (format "build at the end (%,d txns): %.2f s in heap, %.2f s spilled (reading back and indexing the writes)"
                     (:txns heap) (:build-s heap) (:build-s spill)))))

(defn- online-register-config
  "online-config's Jepsen-shaped history, on rw-register: 10 sessions, 4 micro-ops, half reads,
  1,000 keys zipf rotating after 32 writes, 5% :fail, 1% :info; bug at 1% when given."
  ^SimConfig [store bug txns]
  (cond-> (-> (SimConfig/builder) (.seed 1) (.store store) (.workload History$Workload/REGISTER) (.txns (int txns))
              (.sessions 10) (.keys 1000) (.keyDist SimConfig$KeyDist/ZIPF) (.opsPerTxn 4 4) (.readFraction 0.5)
              (.maxWritesPerKey 32) (.failRate 0.05) (.infoRate 0.01))
    bug (-> (.bug ^Bug bug) (.bugRate 0.01))
    true .build))

(defn- ingest-register
  "Replays s into a fresh OnlineChecker for levels (told the simulator's rotation, which TCC's
  clocks use to recycle chains): [checker wall-seconds cpu-seconds], the CPU time of this thread
  (the machine is shared: wall time counts other processes' turns too)."
  [^OpStream s levels]
  (.rewind s)
  (let [mx (java.lang.management.ManagementFactory/getThreadMXBean)
        oc (OnlineChecker. levels "txn" 16 nil (int online-mwpk))
        r  (OpRecord.)
        t0 (System/nanoTime)
        c0 (.getCurrentThreadCpuTime mx)]
    (while (.hasMore s)
      (.readFrom r s)
      (.op oc r))
    [oc (/ (- (System/nanoTime) t0) 1e9) (/ (- (.getCurrentThreadCpuTime mx) c0) 1e9)]))

(defn- online-register-rows
  "rw-register rows of `lein bench online` (isocheck.online.RegisterOnline): the Java
  OnlineChecker's ingest rate (median of 3, wall clock and CPU time of the ingesting thread),
  the heap it retains at the end (with the window, :max-writes-per-key 32), violations found,
  whether the weak levels' online verdicts are exact (:online-scope :exact; TCC's causal edges,
  CausalClocks) and TCC's chains (its clocks' width), on the SSER store (valid) and the SI store
  with 1% causality violations (TCC violated)."
  [sizes]
  (let [ser+si ["serializable" "snapshot-isolation"]
        weak   ["rc" "ra" "tcc"]
        stores [["SSER store" Store/STRICT_SERIALIZABLE nil]
                ["SI store, 1% causal bug" Store/SNAPSHOT_ISOLATION Bug/CAUSALITY_VIOLATION]]]
    (doseq [[_ store bug] stores]
      (let [s (recorded (online-register-config store bug 20000))]
        (dotimes [_ 3] (ingest-register s (mapv #(Level/parse %) (into ser+si weak))))))
    (println)
    (println "rw-register (RegisterOnline, window :max-writes-per-key 32): Java ingest, median of 3 (wall, and CPU of the ingesting thread); weak levels exact online (:online-scope :exact)?")
    (println (format "%-24s %-11s %10s %10s %10s %8s %9s %7s %7s %7s %s" "history" "levels" "txns" "java txn/s" "cpu txn/s" "ckr heap" "held max" "found" "exact" "chains" "violated online"))
    (doseq [n sizes
            [label store bug] stores]
      (let [s (recorded (online-register-config store bug n))]
        (doseq [[lname names] [["SER+SI" ser+si] ["weak" weak] ["SER+SI+weak" (into ser+si weak)]]]
          (let [levels (mapv #(Level/parse %) names)
                box (volatile! (ingest-register s levels))
                [^OnlineChecker oc s1 c1] @box
                _ (.end oc)
                data (.toData oc)
                exact (every? (fn [l] (= "exact" (.name ^isocheck.history.Kw (get-in (into {} (get data "levels")) [l "online-scope"])))) (filter (set weak) names))
                found (reduce + 0 (vals (.counts oc)))
                chains (get-in (into {} (.stats oc)) ["register" "chains"])
                violated (sort (map #(.id ^Level %) (keys (.firstViolations oc))))
                with (do (gc!) (used))
                heap (do (vreset! box nil) (gc!) (- with (used)))
                more (vec (for [_ (range 2)] (ingest-register s levels)))
                java-s (median (cons s1 (map second more)))
                cpu-s (median (cons c1 (map #(nth % 2) more)))]
            (println (format "%-24s %-11s %,10d %,10.0f %,10.0f %8s %,9d %,7d %7s %7s %s" label lname n (/ n java-s) (/ n cpu-s) (mb heap)
                             (.peakLiveTxns oc) (long found)
                             (if (some (set weak) names) (if exact "yes" "no") "-") (or chains "-") (str/join " " violated)))
            (flush)))))))

(defn online-main
  "`lein bench online [SIZES...]`: online checking (isocheck.online, issue 28), with the window
  (:max-writes-per-key 32, the simulator's rotation). At each size (default 10^5, 10^6
  transactions), Jepsen-shaped list-append histories (10 sessions, 4 micro-ops, half reads,
  1,000 keys zipf rotating after 32 appends, 5% :fail, 1% :info) of the strict-serializable
  store (valid) and of the SI store with 1% long forks (violations), recorded in memory and
  replayed at full speed: (1) into the Java OnlineChecker directly, as the hook runs it (weak levels on their own thread; ingest rate; transactions
  held at the end and at most; heap the checker retains at the end, after a full GC); (2)
  through online/ingest!, the hook the watch generator's update calls, onto the checker's
  thread (and, :parallel?, the weak levels' and the History's threads): end-to-end rate (first
  event to verdict), the CPU it took per transaction (every thread of the JVM: on a busy
  machine the rate follows the CPU share it gets, this does not), the producer's cost per event (what
  Jepsen's interpreter pays), and the latency from a violation's certain completion being
  handed over to its report (median, p99) -- at full speed the queue backs up, so this is the
  worst case; (3) the same at a steady 20,000 transactions per second (the first 10^5), the
  latency a run sees. Levels: serializable + snapshot-isolation; the weak levels (read committed,
  read atomic, causal: rc, ra, tcc), with their own window; both together; and all seven strong levels up to 10^5. Medians of 3 runs for (1) and (2). Then (4) the
  delay from the last op to the final checker's result (isocheck.core/check with :online
  attached) once the online checker has caught up (and, apart, its backlog after the
  full-speed replay), SER+SI, median of 3, at sizes up to 10^5."
  [sizes]
  (let [rt (Runtime/getRuntime)
        ser+si ["serializable" "snapshot-isolation"]
        seven  ["strict-serializable" "strong-session-serializable" "serializable" "strong-snapshot-isolation"
                "strong-session-snapshot-isolation" "gsi" "snapshot-isolation"]
        weak   ["rc" "ra" "tcc"]
        both   (into ser+si weak)
        stores [["SSER store" Store/STRICT_SERIALIZABLE nil]
                ["SI store, 1% long forks" Store/SNAPSHOT_ISOLATION Bug/LONG_FORK]]]
    (println (format "isocheck online bench: %d cores, max heap %s; load average %s; window :max-writes-per-key %d"
                     (.availableProcessors rt) (mb (.maxMemory rt))
                     (str/join " " (take 3 (str/split (try (Files/readString (java.nio.file.Path/of "/proc/loadavg" (make-array String 0)))
                                                           (catch java.io.IOException _ "? ? ?")) #" ")))
                     online-mwpk))
    ;; Warm up the JIT on a small history of each kind, all paths, before measuring.
    (doseq [[_ store bug] stores]
      (let [s (recorded (online-config store bug 20000))]
        (dotimes [_ 3] (ingest-java s (mapv #(Level/parse %) seven)))
        (dotimes [_ 3] (ingest-java s (mapv #(Level/parse %) both)))
        (dotimes [_ 2] (ingest-hook (op-maps s) weak nil))
        (dotimes [_ 2] (ingest-hook (op-maps s) ser+si nil))
        (ingest-hook (op-maps s) seven nil)))
    (println (format "%-24s %-11s %10s %10s %9s %9s %8s %10s %8s %8s %7s %5s %14s %14s"
                     "history" "levels" "txns" "java txn/s" "held end" "held max" "ckr heap" "hook txn/s" "hook cpu" "prod/ev" "found" "compl" "lat full (ms)" "lat 20k/s (ms)"))
    (doseq [n sizes
            [label store bug] stores]
      (let [s (recorded (online-config store bug n))
            ops (op-maps s)
            paced (vec (take (* 2 (min n 100000)) ops))]
        (doseq [[lname names] (cond-> [["SER+SI" ser+si] ["weak" weak] ["SER+SI+weak" both]] (<= n 100000) (conj ["all 7" seven]))]
          (let [levels (mapv #(Level/parse %) names)
                ;; The heap the checker retains: used after a full GC with it held, less without.
                box (volatile! (ingest-java s levels))
                [^OnlineChecker oc s1] @box
                held (.liveTxns oc)
                most (.peakLiveTxns oc)
                complete (.complete oc)
                with (do (gc!) (used))
                heap (do (vreset! box nil) (gc!) (- with (used)))
                java-s (median (cons s1 (for [_ (range 2)] (second (ingest-java s levels)))))
                hooks (vec (for [_ (range 3)] (do (gc!) (ingest-hook ops names nil))))
                hook (nth (sort-by :s hooks) 1)
                slow (do (gc!) (ingest-hook paced names 20000))
                lat (fn [{:keys [lat]}] (if (seq lat) (format "%.1f / %.1f" (percentile lat 0.5) (percentile lat 0.99)) "-"))]
            (println (format "%-24s %-11s %,10d %,10.0f %,9d %,9d %8s %,10.0f %5.2f us %5.0f ns %,7d %5s %14s %14s"
                             label lname n (/ n java-s) held most (mb heap) (/ n (:s hook))
                             (/ (* 1e6 (:cpu-s hook)) n)
                             (/ (* 1e9 (:producer-s hook)) (* 2.0 n)) (long (:violations hook))
                             (if (and complete (:complete? hook)) "yes" "no") (lat hook) (lat slow)))
            (flush)))))
    (online-register-rows sizes)
    (println)
    ;; at 10^6 the offline check beside the replay outgrew the shared machine: `lein bench online-final 1000000` alone
    (online-final-main (filter #(<= % 100000) sizes))))

;; lein bench fill

(defn fill-main
  "`lein bench fill [SIZES...]`: the conversion of Jepsen op maps into OpRecords
  (isocheck.jepsen/fill!, what the online hook's checker thread and the offline loader of op
  maps pay per op; issue 28). At each size (default 10^5 transactions), the online bench's
  Jepsen-shaped list-append history (online-config, the strict-serializable store) as op maps,
  converted into one record over and over: ns per op, wall and this thread's CPU, medians of 9
  passes after 15 to warm up; the whole history (its op maps out of the caches, as in the hook's
  replay: mostly memory traffic) and its first 2,000 ops 100 times (in the caches: the
  conversion's own work)."
  [sizes]
  (let [tmx (ManagementFactory/getThreadMXBean)]
    (println (format "%10s %10s %12s %12s %12s" "txns" "ops" "fill! ns/op" "cpu ns/op" "cached ns/op"))
    (doseq [n sizes]
      (let [^objects ops (object-array (op-maps (recorded (online-config Store/STRICT_SERIALIZABLE nil n))))
            m   (alength ops)
            r   (OpRecord.)
            pass (fn [^long m ^long times]
                   (let [c0 (.getCurrentThreadCpuTime tmx)
                         t0 (System/nanoTime)]
                     (dotimes [_ times]
                       (loop [i 0]
                         (when (< i m)
                           (isocheck.jepsen/fill! r i (aget ops i))
                           (recur (inc i)))))
                     [(/ (- (System/nanoTime) t0) (double (* m times)))
                      (/ (- (.getCurrentThreadCpuTime tmx) c0) (double (* m times)))]))
            hot (min m 2000)]
        (dotimes [_ 15] (pass m 1) (pass hot 100))
        (let [ps (vec (repeatedly 9 #(pass m 1)))
              hs (vec (repeatedly 9 #(pass hot 100)))]
          (println (format "%,10d %,10d %12.1f %12.1f %12.1f" n m (median (map first ps)) (median (map second ps))
                           (median (map second hs))))
          (flush))))))

;; lein bench online-stream

(defn- stream-online!
  "Streams one simulated history (cfg, as long as the largest of sizes plus a margin: transactions
  in flight at the end never complete) straight into an OnlineChecker with the window
  (:max-writes-per-key online-mwpk) for serializable + snapshot-isolation + rc + ra + tcc, and
  at each size, after a full GC, prints (row oc completed seconds heap-in-use). title and header
  are printed first."
  [sizes cfg-fn title header row]
  (let [sizes  (vec (sort sizes))
        n      (long (peek sizes))
        levels (mapv #(Level/parse %) ["serializable" "snapshot-isolation" "rc" "ra" "tcc"])
        oc     (OnlineChecker. levels "txn" 16 nil (int online-mwpk))
        done   (long-array 1)
        next   (volatile! sizes)
        t0     (System/nanoTime)
        rt     (Runtime/getRuntime)]
    (println (format "isocheck %s bench: %d cores, max heap %s; load average %s; SER+SI+RC+RA+TCC, window :max-writes-per-key %d"
                     title (.availableProcessors rt) (mb (.maxMemory rt)) (loadavg) online-mwpk))
    (println header)
    (flush)
    (Simulator/run (cfg-fn (+ n 1000))
                   (reify OpSink
                     (op [_ r]
                       (.op oc r)
                       (when (not= OpType/INVOKE (.type ^OpRecord r))
                         (let [c (aset done 0 (inc (aget done 0)))]
                           (when (and (seq @next) (= c (long (first @next))))
                             (vswap! next rest)
                             (let [s (/ (- (System/nanoTime) t0) 1e9)]
                               (gc!)
                               (println (row oc c s (used)))
                               (flush))))))
                     (end [_] (.end oc))))
    (println (format "violations: %d; %s" (count (.violations oc)) (pr-str (into {} (.counts oc)))))))

(defn online-stream-register-main
  "`lein bench online-stream-register [SIZES...]`: as online-stream, on rw-register
  (RegisterOnline's window, issue 28): one Jepsen-shaped rw-register history
  (online-register-config: 10 sessions, 4 micro-ops, half reads, 1,000 keys zipf rotating after
  32 writes, 5% :fail, 1% :info; the strict-serializable store) as long as the largest size,
  streamed from the simulator into an OnlineChecker with the window (:max-writes-per-key 32) for
  serializable + snapshot-isolation + rc + ra + tcc. At each size: the heap in use after a full GC
  (simulator and checker), the transactions held now and at most, the keys held and forgotten,
  TCC's chains, the rate so far, and whether the verdicts are complete (nothing dropped was
  needed) and the weak levels exact."
  [sizes]
  (stream-online!
   sizes #(online-register-config Store/STRICT_SERIALIZABLE nil %) "online-stream-register (rw-register)"
   (format "%12s %9s %10s %10s %9s %10s %9s %10s %7s %6s %6s"
           "txns" "time (s)" "txn/s" "heap (GC)" "held" "peak held" "keys held" "keys forg" "chains" "compl" "exact")
   (fn [^OnlineChecker oc c s h]
     (let [st (into {} (.stats oc))
           w  (into {} (get st "window"))
           rg (into {} (get st "register"))
           d  (.toData oc)
           exact (every? (fn [l] (= "exact" (.name ^isocheck.history.Kw (get-in (into {} (get d "levels")) [l "online-scope"]))))
                         ["rc" "ra" "tcc"])]
       (format "%,12d %9.0f %,10.0f %10s %,9d %,10d %,9d %,10d %7d %6s %6s"
               c s (/ c s) (mb h) (long (w "live-txns")) (long (w "peak-live-txns"))
               (long (w "live-keys")) (long (w "forgotten-keys")) (long (rg "chains"))
               (if (.complete oc) "yes" "no") (if exact "yes" "no"))))))

(defn online-register-main
  "`lein bench online-register [SIZES...]`: only the rw-register rows of `lein bench online`
  (online-register-rows), default 10^5 transactions."
  [sizes]
  (online-register-rows sizes))

(defn online-stream-main
  "`lein bench online-stream [SIZES...]`: the window's memory over a long run (issue 28). One
  Jepsen-shaped list-append history (online-config: 10 sessions, 4 micro-ops, half reads, 1,000
  keys zipf rotating after 32 appends, 5% :fail, 1% :info; the strict-serializable store), as
  long as the largest size, streamed from the simulator straight into an OnlineChecker with the
  window (:max-writes-per-key 32) for serializable + snapshot-isolation + rc + ra + tcc: nothing
  records the history. At each size, the heap in use after a full GC (the whole JVM: simulator
  and checker), the transactions held (strong levels and weak levels apart), the retired keys
  forgotten, the rate so far and whether the verdicts are complete. Flat heap: the checker's
  memory is bounded by the window, not by the run."
  [sizes]
  (stream-online!
   sizes #(online-config Store/STRICT_SERIALIZABLE nil %) "online-stream"
   (format "%12s %9s %10s %10s %11s %11s %10s %10s %10s %6s"
           "txns" "time (s)" "txn/s" "heap (GC)" "held SER+SI" "held weak" "peak held" "keys forg" "weak forg" "compl")
   (fn [^OnlineChecker oc c s h]
     (let [st (into {} (.stats oc))
           w  (into {} (get st "window"))
           wk (into {} (get st "weak"))]
       (format "%,12d %9.0f %,10.0f %10s %,11d %,11d %,10d %,10d %,10d %6s"
               c s (/ c s) (mb h) (long (w "live-txns")) (long (wk "held-txns"))
               (.peakLiveTxns oc) (long (w "forgotten-keys")) (long (wk "forgotten-keys"))
               (if (.complete oc) "yes" "no"))))))

(def ^:private benches
  "lein bench NAME [SIZES...]: each named benchmark and its default sizes."
  {"levels" [levels-main [10000 100000]]
   "lin"    [lin-main [10000 100000 1000000]]
   "mt"     [mt-main [10000 100000 1000000]]
   "search" [search-main [10000 100000 1000000]]
   "order"  [order-main [10000 100000]]
   "lazy"   [lazy-main [12000]]
   "online-final" [online-final-main [100000 1000000]]
   "final-spill" [final-spill-main [1000000]]
   "history-spill" [history-spill-main [1000000 2000000 3000000 4000000 5000000]]
   "prune"  [prune-main [27000]]
   "cli"    [cli-main [10000 100000 1000000]]
   "startup" [startup-main [10]]
   "load"   [load-main [100000 1000000]]
   "violated" [violated-main [10000 100000 1000000]]
   "crash"  [crash-main [5000 100000 1000000]]
   "weak"   [weak-main [5000 100000 1000000]]
   "certificates" [certificates-main [100000 1000000]]
   "online" [online-main [100000 1000000]]
   "online-stream" [online-stream-main [1000000 5000000 10000000]]
   "online-stream-register" [online-stream-register-main [1000000 5000000 10000000]]
   "online-register" [online-register-main [100000]]
   "fill"   [fill-main [100000]]})

(defn -main [& args]
  (when-let [[f default] (benches (first args))]
    (f (if (next args) (mapv #(Long/parseLong %) (next args)) default))
    (shutdown-agents)
    (System/exit 0))
  (let [sizes (if (seq args) (mapv #(Long/parseLong %) args) [10000 100000 1000000])
        dir   (Files/createTempDirectory "isocheck-bench" (make-array java.nio.file.attribute.FileAttribute 0))
        rt    (Runtime/getRuntime)]
    (println (format "isocheck bench: %d cores, max heap %s, %s %s"
                     (.availableProcessors rt) (mb (.maxMemory rt))
                     (System/getProperty "java.vm.name") (System/getProperty "java.version")))
    (println "list-append, 4 micro-ops/txn, 10 sessions, 1000 keys zipf; check = strict-serializable + serializable + snapshot-isolation; medians")
    (doseq [store [Store/STRICT_SERIALIZABLE Store/SNAPSHOT_ISOLATION]]
      (println (str "\nstore: " store))
      (println (format "%10s %10s %8s %11s %9s %11s %8s %9s %11s %9s %9s"
                       "txns" "ops" "file" "parse op/s" "load" "load op/s" "peak" "check" "txns/s" "peak" "history"))
      (doseq [n sizes]
        (let [r (run-size store n dir)]
          (println (row r))
          (println (format "%10s verdicts: %s; %d anomalies; check ms %s" "" (:verdicts r) (:anomalies r) (:ms r)))
          (println (format "%10s search (decided-by/constraints): %s" "" (:search r)))
          (flush))))
    (Files/deleteIfExists dir)
    (shutdown-agents)
    (System/exit 0)))
