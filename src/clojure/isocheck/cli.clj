(ns isocheck.cli
  "Command line: check saved Jepsen histories, run the demo.

      lein run check [--workload append|wr] [--levels L1,L2,...]
                     [--format text|edn|json] [--out DIR] FILE...
      lein run demo [--seed N] [--txns N]

  (or the same after `java -jar target/uberjar/isocheck-*-standalone.jar`).

  FILE is a Jepsen history.edn (one op map per line, or one EDN vector of
  ops), a JSON history (an array of ops or one op per line), optionally
  gzipped; `-` reads standard input.

  Exit status: 0 every requested level holds; 1 some level is violated;
  2 some level is unknown and none is violated; 3 bad usage or unreadable
  input."
  (:require [clojure.string :as str]
            [isocheck.core :as iso]
            [isocheck.jepsen :as j])
  (:import (isocheck.check Result Verdict$Value)
           (isocheck.history History HistoryException)
           (isocheck.io Formats)
           (isocheck.report Json))
  (:gen-class))

(set! *warn-on-reflection* true)

(def usage
  "usage: isocheck check [--workload append|wr] [--levels L1,L2,...] [--format text|edn|json]
                      [--max-anomalies N] [--clocks vector|tree] [--first] [--out DIR] FILE...
       isocheck demo [--seed N] [--txns N]

Levels (default: all implemented): strict-serializable, strong-session-serializable,
serializable, strong-snapshot-isolation, strong-session-snapshot-isolation,
snapshot-isolation (aliases: sser, ser, si, strong-session-si, strong-si);
weak levels (Plume): tcc, ra, rc, ci (aliases: causal, read-atomic, cut-isolation).
--clocks picks vector (default) or tree clocks for the weak levels' causal order;
--first stops at the first weak anomaly per level instead of finding them all.
FILE: Jepsen history.edn or JSON (optionally .gz); - reads standard input.
Exit status: 0 all levels hold, 1 some level violated, 2 some unknown and none
violated, 3 bad usage or unreadable input.")

(defn- fail-usage [msg]
  (throw (ex-info msg {:type ::usage})))

(defn parse-args
  "Parses check's arguments into an options map with :files."
  [args]
  (loop [args args, opts {:format "text", :files []}]
    (if-let [[a & more] (seq args)]
      (let [need (fn [] (or (first more) (fail-usage (str a " needs a value"))))]
        (case a
          ("--workload" "-w") (recur (next more) (assoc opts :workload (need)))
          ("--levels" "-l") (recur (next more)
                                   (assoc opts :levels
                                          (->> (str/split (need) #",")
                                               (map str/trim)
                                               (remove str/blank?)
                                               (mapv keyword))))
          ("--format" "-f") (let [f (need)]
                              (when-not (#{"text" "edn" "json"} f)
                                (fail-usage (str "--format must be text, edn or json, not " f)))
                              (recur (next more) (assoc opts :format f)))
          "--out" (recur (next more) (assoc opts :out (need)))
          "--clocks" (let [c (need)]
                       (when-not (#{"vector" "tree"} c)
                         (fail-usage (str "--clocks must be vector or tree, not " c)))
                       (recur (next more) (assoc opts :clocks (keyword c))))
          "--first" (recur more (assoc opts :stop-at-first? true))
          "--max-anomalies" (recur (next more)
                                   (assoc opts :max-anomalies
                                          (try (Long/parseLong (need))
                                               (catch NumberFormatException _
                                                 (fail-usage "--max-anomalies takes a number")))))
          ("--help" "-h") (recur more (assoc opts :help true))
          (if (and (str/starts-with? a "-") (not= a "-"))
            (fail-usage (str "unknown option " a))
            (recur more (update opts :files conj a)))))
      opts)))

(defn- base-name [^String file]
  (-> (if (= "-" file) "stdin" (.getName (java.io.File. file)))
      (str/replace #"\.(edn|json|jsonl|ndjson)(\.gz)?$" "")))

(defn- status-of [m]
  (case (:valid? m) true 0, false 1, 2))

(defn check-file
  "Checks one file; returns [exit-status output-string]."
  [opts file out-dir]
  (try
    (let [t0 (System/nanoTime)
          h  (Formats/readHistory ^String file (j/workload (:workload opts)))
          load-ms (quot (- (System/nanoTime) t0) 1000000)
          [^Result r m] (iso/check-history opts h load-ms)]
      (when out-dir (iso/write-report! out-dir r m))
      [(status-of m)
       (case (:format opts)
         "edn"  (binding [*print-length* nil, *print-level* nil] (pr-str m))
         "json" (Json/write (.toData r))
         (str (when (:many? opts) (str "== " file "\n")) (.text r)))])
    (catch HistoryException e
      [3 (str "isocheck: " file ": " (.getMessage e))
       {:valid? :unknown, :error (.getMessage e), :file file}])
    (catch java.nio.file.NoSuchFileException _
      [3 (str "isocheck: " file ": no such file") {:valid? :unknown, :error "no such file", :file file}])
    (catch java.io.IOException e
      [3 (str "isocheck: " file ": " (.getMessage e)) {:valid? :unknown, :error (str (.getMessage e)), :file file}])))

(defn check-cmd
  "Runs `check`; returns the exit status."
  [args]
  (let [opts (parse-args args)]
    (when (:help opts) (println usage) (throw (ex-info "" {:type ::exit, :status 0})))
    (when (empty? (:files opts)) (fail-usage "check needs at least one FILE (or - for standard input)"))
    (let [checker (try (iso/checker (select-keys opts [:levels :workload :max-anomalies :clocks :stop-at-first?]))
                       (catch IllegalArgumentException e (fail-usage (.getMessage e))))
          opts    (merge opts (:opts checker) {:many? (< 1 (count (:files opts)))})
          results (doall
                    (for [f (:files opts)]
                      (let [dir (when-let [o (:out opts)]
                                  (if (:many? opts) (str o "/" (base-name f)) o))
                            [status out err] (check-file opts f dir)]
                        (if err
                          (do (binding [*out* *err*] (println out))
                              (case (:format opts)
                                "edn" (prn err)
                                "json" (println (Json/write {"valid?" "unknown" "error" (:error err) "file" f}))
                                nil))
                          (println out))
                        (flush)
                        status)))]
      (cond (some #{3} results) 3
            (some #{1} results) 1
            (some #{2} results) 2
            :else 0))))

(defn -main [& args]
  (let [status
        (try
          (case (first args)
            "check" (check-cmd (rest args))
            "demo"  ((requiring-resolve 'isocheck.demo/-main) (rest args))
            ("--help" "-h" "help") (do (println usage) 0)
            (fail-usage (if (first args) (str "unknown command " (first args)) "no command")))
          (catch clojure.lang.ExceptionInfo e
            (case (:type (ex-data e))
              ::usage (do (binding [*out* *err*]
                            (println (str "isocheck: " (.getMessage e)))
                            (println usage))
                          3)
              ::exit (:status (ex-data e))
              (throw e))))]
    (flush)
    (shutdown-agents)
    (System/exit status)))
