(ns isocheck.cli-test
  "The command line is a public contract: arguments, exit status (0 all hold,
  1 violated, 2 unknown, 3 bad usage or input), --format edn|json|text, and
  one line on stderr per error, never a stack trace. Most tests run the Java
  main in-process (isocheck.cli.Main/run); the last ones run bin/isocheck and
  plain java as subprocesses (exit codes, out-of-memory messages)."
  (:require [clojure.test :refer [deftest is testing]]
            [clojure.edn :as edn]
            [clojure.java.io :as io]
            [clojure.string :as str]
            [isocheck.core :as iso]
            [isocheck.test-util :refer [run-cli tmp-dir tmp-file valid-edn write-skew-edn sh] :rename {run-cli run}]
            [isocheck.jepsen :as j])
  (:import (isocheck.check Checker CheckOptions Level)
           (isocheck.cli EdnPrinter Main)
           (isocheck.history History$Workload Kw Sym)
           (isocheck.io EdnReader$Symbol EdnWriter Formats)
           (isocheck.sim Bug SimConfig SimConfig$KeyDist Simulator Store)
           (java.io ByteArrayOutputStream File PrintStream)
           (java.nio.file Files Path)
           (java.util ArrayList LinkedHashMap LinkedHashSet UUID)))

(def register-edn "{:index 0, :type :ok, :process 0, :f :txn, :value [[:w :x 1]]}\n")

(def two-writers-edn
  "Two rw-register writers of two keys, and a read of x from one and y from the other: no
  schedule the history suggests serializes it, so the serializable levels search the writes'
  order in the polygraph."
  (str "{:index 0, :type :ok, :process 0, :f :txn, :value [[:w :x 1] [:w :y 1]]}\n"
       "{:index 1, :type :ok, :process 1, :f :txn, :value [[:w :x 2] [:w :y 2]]}\n"
       "{:index 2, :type :ok, :process 2, :f :txn, :value [[:r :x 1] [:r :y 2]]}\n"))

(defn- with-max-edges
  "Calls f with the version-order search refusing every polygraph (isocheck.search.max-edges 0)
  and generating no constraint lazily instead, so that its levels are :unknown."
  [f]
  (let [old (System/getProperty "isocheck.search.max-edges")]
    (System/setProperty "isocheck.search.max-edges" "0")
    (System/setProperty "isocheck.search.lazy-constraints" "false")
    (try (f)
         (finally (if old (System/setProperty "isocheck.search.max-edges" old)
                      (System/clearProperty "isocheck.search.max-edges"))
                  (System/clearProperty "isocheck.search.lazy-constraints")))))

(defn- no-trace? [^String err]
  (not (or (str/includes? err "Exception") (str/includes? err "\tat ") (str/includes? err "at isocheck."))))

(deftest exit-status
  (is (= 0 (:status (run "check" (tmp-file "ok.edn" valid-edn)))))
  (is (= 1 (:status (run "check" (tmp-file "ws.edn" write-skew-edn)))))
  (is (= 0 (:status (run "check" "--levels" "si" (tmp-file "ws.edn" write-skew-edn)))))
  (is (= 0 (:status (run "check" (tmp-file "wr.edn" register-edn)))))
  (is (= 0 (:status (run "check" "--levels" "gsi" (tmp-file "wr.edn" register-edn)))) "gsi is decided")
  (is (= 2 (with-max-edges #(:status (run "check" "--levels" "serializable" (tmp-file "ww.edn" two-writers-edn)))))
      "a version order too large to search: unknown")
  (is (= 3 (:status (run "check" "/no/such/file.edn"))))
  (is (= 3 (:status (run "check" "--levels" "serialisable" (tmp-file "ok.edn" valid-edn)))))
  (is (= 3 (:status (run "check" "--format" "xml" (tmp-file "ok.edn" valid-edn)))))
  (is (= 3 (:status (run "check" "--workload" "bank" (tmp-file "ok.edn" valid-edn)))))
  (is (= 3 (:status (run "check"))))
  (is (= 3 (:status (run))))
  (is (= 3 (:status (run "chekc" "x.edn"))))
  (testing "several files: 1 if any is violated, else 3 if any is unreadable, else 2 if any is unknown"
    (is (= 1 (:status (run "check" (tmp-file "wr.edn" register-edn) (tmp-file "ws.edn" write-skew-edn)))))
    (is (= 1 (:status (run "check" (tmp-file "ws.edn" write-skew-edn) "/no/such/file.edn")))
        "a violation is never hidden by an unreadable neighbour")
    (is (= 1 (:status (run "check" "/no/such/file.edn" (tmp-file "ws.edn" write-skew-edn)))))
    (is (= 3 (:status (run "check" (tmp-file "wr.edn" register-edn) "/no/such/file.edn"))))
    (is (= 3 (:status (run "check" (tmp-file "empty.edn" "") "/no/such/file.edn"))) "unreadable outranks unknown")))

(deftest an-unknown-repeatable-read-says-it-is-serializabilitys-search
  ;; Repeatable read has serializability's cycles here (no predicate reads), so it shares that
  ;; search; unknown, its own line must say so, not only name serializability.
  (let [{:keys [status out]} (with-max-edges #(run "check" "--levels" "repeatable-read" (tmp-file "ww.edn" two-writers-edn)))]
    (is (= 2 status))
    (is (re-find #"repeatable-read +unknown: repeatable-read shares serializability's search \(without predicate reads, the cycles it forbids are the same\): deciding serializable needs" out)
        out)))

(deftest usage-errors-are-one-line-and-where-the-usage-is
  (let [{:keys [status out err]} (run "check" "--levels" "serialisable" (tmp-file "ok.edn" valid-edn))]
    (is (= 3 status))
    (is (= "" out))
    (is (str/starts-with? err "isocheck: Unknown isolation level :serialisable; known: "))
    (is (str/ends-with? err "\nisocheck: see 'isocheck check --help' for the usage\n") err)
    (is (= 2 (count (str/split-lines err))) "the error and the hint, not the usage that scrolls it away")
    (is (no-trace? err)))
  (let [{:keys [status out]} (run "check" "--help")]
    (is (= 0 status))
    (is (str/starts-with? out "usage: isocheck check")))
  (is (str/includes? (:err (run "check" "--out")) "isocheck: --out needs a value")))

(deftest edn-format-prints-exactly-the-result-map
  (let [{:keys [status out]} (run "check" "--format" "edn" "--levels" "serializable,snapshot-isolation"
                                  (tmp-file "ws.edn" write-skew-edn))
        m (edn/read-string out)]
    (is (= 1 status))
    (is (= 1 (count (str/split-lines out))) "one result per line")
    (is (= false (:valid? m)))
    (is (= [:G2-item] (:anomaly-types m)))
    (is (= {:serializable {:valid? false, :anomaly-types [:G2-item]}
            :snapshot-isolation {:valid? true}}
           (:levels m)))
    (is (integer? (get-in m [:stats :ms :load])))))

(defn- without-times
  "The result without its timings (every :ms and *-ms in :stats)."
  [m]
  (update m :stats (fn strip [s]
                     (into {} (for [[k v] s :when (not (or (= :ms k) (str/ends-with? (name k) "-ms")))]
                                [k (if (map? v) (strip v) v)])))))

(deftest edn-format-equals-the-clojure-result
  ;; What `--format edn` prints, read back, is what the Clojure API returns for the same file
  ;; (timings aside).
  (doseq [[path levels] [["test/resources/corpus/jepsen-mongodb/aborted-read.edn" nil]
                         ["test/resources/corpus/postgres-list-append/sess5-history0.edn" nil]
                         ["test/resources/corpus/plume-taps/tap-k.edn" [:tcc :ra :rc :ci]]]]
    (let [{:keys [out]} (apply run (concat ["check" "--format" "edn"]
                                           (when levels ["--levels" (str/join "," (map name levels))])
                                           [path]))
          h (Formats/readHistory ^String path nil)
          [_ m] (iso/check-history {:levels (or levels iso/implemented-levels)} h)]
      (is (= (without-times m) (without-times (edn/read-string out))) path))))

(defn- printed-equals-clj?
  "Whether EdnPrinter's text of data reads back as (->clj data)."
  [data]
  (= (j/->clj data) (edn/read-string (EdnPrinter/str data))))

(deftest edn-printer-reads-back-as-clojure-data
  (testing "every value type a history or a result holds"
    (let [m (doto (LinkedHashMap.)
              (.put "valid?" (Kw. "unknown"))
              (.put "s" "quote \" backslash \\ newline \n tab \t return \r formfeed \f backspace \b bell \u0007 é ∀")
              (.put "kw" (Kw. "ns/name"))
              (.put "sym" (Sym. "foo"))
              (.put "edn-sym" (EdnReader$Symbol. "jepsen.history/op"))
              (.put "nums" (ArrayList. [(long 1) (int -2) 1.5 -0.0 1.0E300 (biginteger 12345678901234567890)
                                         (bigdec "1.25") (short 3) (byte 4)]))
              (.put "chars" (ArrayList. [\a \newline \space \tab \return \formfeed \backspace \" \\ (char 1)]))
              (.put "nil" nil)
              (.put "bools" (ArrayList. [true false]))
              (.put "set" (LinkedHashSet. [(Kw. "a") "b" 3]))
              (.put "uuid" (UUID/fromString "0f8fad5b-d9cb-469f-a165-70867728950e"))
              (.put "nested" (doto (LinkedHashMap.)
                               (.put (Kw. "k") (ArrayList. [(ArrayList.) (LinkedHashMap.)]))
                               (.put (long 7) "a long key")
                               (.put (ArrayList. [(Kw. "r") "x"]) "a vector key")
                               (.put "with space" "a string key that is not a keyword"))))]
      (is (printed-equals-clj? (doto (LinkedHashMap. m) (.remove "nested") (.remove "edn-sym"))))
      ;; ->clj keeps a String key that is no keyword as an unreadable keyword; we keep it a string.
      (is (= "a string key that is not a keyword"
             (get-in (edn/read-string (EdnPrinter/str m)) [:nested "with space"])))
      (is (= 'jepsen.history/op (:edn-sym (edn/read-string (EdnPrinter/str m)))))
      (is (= {:k [[] {}], 7 "a long key", [:r "x"] "a vector key"}
             (-> (edn/read-string (EdnPrinter/str m)) :nested (dissoc "with space"))))))
  (testing "doubles Clojure prints with ##"
    (is (= "[##Inf ##-Inf ##NaN]" (EdnPrinter/str (ArrayList. [Double/POSITIVE_INFINITY Double/NEGATIVE_INFINITY Double/NaN])))))
  (testing "keys that print alike make one entry, as in Clojure"
    (is (= {:a 2} (edn/read-string (EdnPrinter/str (doto (LinkedHashMap.) (.put "a" 1) (.put (Kw. "a") 2))))))))

(defn- check-all ^isocheck.check.Result [h levels]
  (Checker/check h (.levels (CheckOptions.) (mapv #(Level/parse (name %)) levels))))

(deftest keywords-and-symbols-are-values
  ;; Kw, Sym and EdnReader.Symbol spell out equals and hashCode (a record's would be linked at
  ;; run time, outside the class data): the same values as the records', name by name.
  (doseq [[make other] [[#(Kw. %) #(Sym. %)] [#(Sym. %) #(Kw. %)] [#(EdnReader$Symbol. %) #(Sym. %)]]]
    (is (= (make "ok") (make "ok")))
    (is (= (make nil) (make nil)))
    (is (not= (make "ok") (make "fail")))
    (is (not= (make "ok") (make nil)))
    (is (not= (make nil) (make "ok")))
    (is (not= (make "ok") (other "ok")) "another type with the same name")
    (is (not= (make "ok") "ok"))
    (is (= (.hashCode "ok") (.hashCode ^Object (make "ok"))) "the record's hash: the name's")
    (is (= 0 (.hashCode ^Object (make nil))))
    (is (= 1 (count (into #{} [(make "a") (make "a")]))))
    (is (= 2 (count (into #{} [(make "a") (make "b")]))))))

(deftest edn-printer-on-the-corpus
  (let [files (->> (concat (file-seq (io/file "test/resources/corpus")) (file-seq (io/file "test/resources/weak")))
                   (filter #(str/ends-with? (.getName ^File %) ".edn"))
                   (sort))]
    (is (< 30 (count files)))
    (doseq [^File f files]
      (let [h (Formats/readHistory (.getPath f) nil)
            r (check-all h iso/implemented-levels)]
        (is (printed-equals-clj? (.toData r)) (.getPath f))))))

(deftest edn-printer-on-simulated-histories
  ;; Every store and bug of the simulator, both workloads, written as EDN and read back (so
  ;; values come from the file reader, as on the command line).
  (let [dir (.toPath (tmp-dir))]
    (doseq [[store bug] [[Store/SNAPSHOT_ISOLATION nil] [Store/SNAPSHOT_ISOLATION Bug/LOST_UPDATE]
                         [Store/SNAPSHOT_ISOLATION Bug/LONG_FORK] [Store/SNAPSHOT_ISOLATION Bug/ABORTED_READ]
                         [Store/SNAPSHOT_ISOLATION Bug/CAUSALITY_VIOLATION] [Store/SNAPSHOT_ISOLATION Bug/FRACTURED_READ]
                         [Store/READ_COMMITTED nil] [Store/STRICT_SERIALIZABLE Bug/STALE_REALTIME_READ]]
            wl [History$Workload/APPEND History$Workload/REGISTER]
            seed [1 2]]
      (let [cfg (cond-> (-> (SimConfig/builder) (.seed seed) (.store store) (.workload wl) (.txns 300)
                            (.sessions 5) (.keys 20) (.keyDist SimConfig$KeyDist/ZIPF) (.opsPerTxn 1 4))
                  bug (-> (.bug bug) (.bugRate 0.1))
                  true .build)
            file (.resolve dir (str "h-" seed ".edn"))
            w (EdnWriter/open file)]
        (try (Simulator/run cfg w) (finally (.close w)))
        (let [r (check-all (Formats/readHistory (str file) nil) iso/implemented-levels)]
          (is (printed-equals-clj? (.toData r)) (str store " " bug " " wl " " seed)))))))

(deftest json-format
  (let [{:keys [status out]} (run "check" "--format" "json" (tmp-file "ws.edn" write-skew-edn))]
    (is (= 1 status))
    (is (str/starts-with? out "{\"valid?\":false"))
    (is (str/includes? out "\"anomaly-types\":[\"G2-item\"]"))))

(deftest text-format-and-many-files
  (let [a (tmp-file "a.edn" valid-edn)
        b (tmp-file "b.edn" write-skew-edn)
        {:keys [status out]} (run "check" a b)]
    (is (= 1 status) "the worst status over the files")
    (is (str/includes? out (str "== " a)))
    (is (str/includes? out "G2-item"))))

;; --- Jepsen stores with unfinished runs, and the exit status of several histories (issue 25, item 5)

(def ^:private crashed-run
  "What Jepsen leaves in a run that stopped before its history was written, or is still
  running (the shared real store's rj-append-ser/20261128T151959.516Z): an empty test.jepsen
  and the log, no history.edn."
  {"test.jepsen" "" "jepsen.log" "INFO [jepsen test runner] jepsen.core: Running test:\n"})

(def ^:private corrupt-history
  "A finished run whose history.edn does not parse (a map cut short)."
  {"history.edn" (str valid-edn "{:index 4, :type :ok, :value [[:r :x [1 2]]\n") "history.txt" "0 :ok :txn"})

(defn- jepsen-store!
  "A store/ directory (a new temp dir's) laid out as {\"<test>/<time>\" {file-name content}};
  returns its path."
  ^String [runs]
  (let [s (io/file (tmp-dir) "store")]
    (doseq [[run files] runs, [name content] files]
      (let [f (io/file s run name)]
        (io/make-parents f)
        (spit f content)))
    (str s)))

(defn- summary-of
  "The lines after `== summary` in s: {:rows [[word path rest] ...], :tally last-line}; nil
  without a summary."
  [^String s]
  (when-let [at (str/index-of s "== summary\n")]
    (let [lines (str/split-lines (subs s (+ at (count "== summary\n"))))]
      {:rows (mapv #(vec (rest (re-matches #"(\S+) +(\S+)  (.*)" %))) (butlast lines))
       :tally (last lines)})))

(deftest a-crashed-run-does-not-hide-a-violation
  (let [s (jepsen-store! {"append/20240101T000000.000Z" {"history.edn" write-skew-edn}
                          "append/20240102T000000.000Z" crashed-run})
        crashed (str s "/append/20240102T000000.000Z")
        {:keys [status out err]} (run "check" "--levels" "ser" s)
        {:keys [rows tally]} (summary-of out)]
    (is (= 1 status) "violated, whatever the crashed run beside it")
    (is (= ["violated" (str s "/append/20240101T000000.000Z/history.edn")] (take 2 (first rows))))
    (is (= ["unfinished" crashed] (take 2 (second rows))) "the crashed run: a line of its own")
    (is (re-find #"^no history.edn.*still running.*\(it holds jepsen.log, test.jepsen\)$" (nth (second rows) 2 ""))
        (second rows))
    (is (= "1 file: 0 hold, 1 violated, 0 unknown, 0 unreadable; 1 unfinished run skipped" tally))
    (is (= "" err) "a skipped run is no error")))

(deftest a-crashed-run-beside-a-valid-one-exits-0
  (let [s (jepsen-store! {"append/20240101T000000.000Z" {"history.edn" valid-edn "history.txt" "0 :ok :txn"
                                                         "results.edn" "{:valid? true}" "test.jepsen" "binary"}
                          "append/20240102T000000.000Z" crashed-run
                          "append/20240103T000000.000Z" crashed-run})]
    (doseq [dir [s (str s "/append")]]
      (testing dir
        (let [{:keys [status out err]} (run "check" dir)
              {:keys [rows tally]} (summary-of out)]
          (is (= 0 status) "the finished run holds; the unfinished ones do not change the status")
          (is (= ["holds" "unfinished" "unfinished"] (map first rows)))
          (is (= "1 file: 1 hold, 0 violated, 0 unknown, 0 unreadable; 2 unfinished runs skipped" tally))
          (is (= "" err)))))))

(deftest unfinished-runs-in-edn-and-json
  ;; Standard output keeps a map per history, the skipped run's saying why it has no verdict
  ;; (:unfinished, where an unreadable history has :error); the summary goes to standard error.
  (let [s (jepsen-store! {"t/20240101T000000.000Z" {"history.edn" write-skew-edn}
                          "t/20240102T000000.000Z" crashed-run})
        crashed (str s "/t/20240102T000000.000Z")]
    (let [{:keys [status out err]} (run "check" "--format" "edn" "--levels" "ser" s)
          [a b :as maps] (map edn/read-string (str/split-lines out))]
      (is (= 1 status))
      (is (= 2 (count maps)))
      (is (= [false (str s "/t/20240101T000000.000Z/history.edn")] [(:valid? a) (:file a)]))
      (is (= [:valid? :unfinished :file] (keys b)))
      (is (= [:unknown crashed] [(:valid? b) (:file b)]))
      (is (str/starts-with? (:unfinished b) "no history.edn"))
      (is (= ["unfinished" crashed] (take 2 (second (:rows (summary-of err))))))
      (is (not (str/includes? err (str "isocheck: " crashed))) "no error line for it"))
    (let [{:keys [status out]} (run "check" "--format" "json" "--quiet" "--levels" "ser" s)
          l (second (str/split-lines out))]
      (is (= 1 status))
      (is (str/starts-with? l "{\"valid?\":\"unknown\",\"unfinished\":\"no history.edn"))
      (is (str/ends-with? l (str "\"file\":\"" crashed "\"}"))))))

(deftest a-violation-outranks-an-unreadable-neighbour
  (let [s (jepsen-store! {"t/20240101T000000.000Z" corrupt-history
                          "t/20240102T000000.000Z" {"history.edn" write-skew-edn}
                          "t/20240103T000000.000Z" crashed-run})
        corrupt (str s "/t/20240101T000000.000Z/history.edn")
        {:keys [status out err]} (run "check" "--levels" "ser" s)
        {:keys [rows tally]} (summary-of out)]
    (is (= 1 status) "a script testing for 1 sees the violation")
    (is (= ["unreadable" "violated" "unfinished"] (map first rows)))
    (is (= "2 files: 0 hold, 1 violated, 0 unknown, 1 unreadable; 1 unfinished run skipped" tally))
    (is (= 1 (count (str/split-lines err))) "the unreadable history's error, one line")
    (is (str/starts-with? err (str "isocheck: " corrupt ": ")))
    (is (no-trace? err))))

(deftest an-unreadable-run-beside-a-valid-one-exits-3
  (let [s (jepsen-store! {"t/20240101T000000.000Z" {"history.edn" valid-edn}
                          "t/20240102T000000.000Z" corrupt-history
                          "t/20240103T000000.000Z" crashed-run})
        {:keys [status out]} (run "check" s)]
    (is (= 3 status) "no violation, and a history that could not be read")
    (is (= ["holds" "unreadable" "unfinished"] (map first (:rows (summary-of out))))))
  (testing "a finished run (results.edn, or history.txt) whose history.edn is missing is unreadable, not skipped"
    (doseq [files [{"results.edn" "{:valid? true}" "jepsen.log" ""} {"history.txt" "0 :ok :txn"}]]
      (let [s (jepsen-store! {"t/20240101T000000.000Z" {"history.edn" valid-edn}
                              "t/20240102T000000.000Z" files})
            {:keys [status out err]} (run "check" s)]
        (is (= 3 status) (pr-str files))
        (is (= ["holds" "unreadable"] (map first (:rows (summary-of out)))))
        (is (str/starts-with? err (str "isocheck: " s "/t/20240102T000000.000Z: no history.edn in this Jepsen run")) err)))))

(deftest a-run-named-without-a-history-is-an-error
  (let [s (jepsen-store! {"t/20240101T000000.000Z" {"history.edn" valid-edn}
                          "t/20240102T000000.000Z" crashed-run})
        crashed (str s "/t/20240102T000000.000Z")]
    (doseq [arg [crashed (str crashed "/")]]
      (let [{:keys [status out err]} (run "check" arg)]
        (is (= 3 status) "named explicitly, a run with nothing to check is an error")
        (is (= "" out))
        (is (= 1 (count (str/split-lines err))) err)
        (is (str/starts-with? err (str "isocheck: " crashed ": no history.edn in this Jepsen run (it holds jepsen.log, test.jepsen)")))
        (is (str/includes? err "still running"))
        (is (str/includes? err "a test or store directory skips such runs"))))
    (testing "beside a violated history: 1, as for any unreadable input"
      (is (= 1 (:status (run "check" crashed (tmp-file "ws.edn" write-skew-edn))))))))

(deftest a-store-with-no-finished-run-is-an-error
  (let [s (jepsen-store! {"a/20240101T000000.000Z" crashed-run
                          "b/20240101T000000.000Z" crashed-run
                          "b/20240102T000000.000Z" crashed-run})]
    (doseq [[dir n] [[s 3] [(str s "/b") 2]]]
      (testing dir
        (let [{:keys [status out err]} (run "check" dir)]
          (is (= 3 status) "nothing to check")
          (is (= "" out))
          (is (= 1 (count (str/split-lines err))) err)
          (is (str/starts-with? err (str "isocheck: " dir ": nothing to check: no run in it has a history.edn; its "
                                         n " runs are unfinished")))
          (is (str/includes? err (str s "/b/20240101T000000.000Z")) "it names the runs"))))
    (testing "edn: the error's map"
      (let [{:keys [status out]} (run "check" "--format" "edn" s)]
        (is (= 3 status))
        (is (= [:valid? :error :file] (keys (edn/read-string out))))))))

(deftest bad-input-is-one-line-naming-the-op
  (let [f (tmp-file "bad.edn" (str valid-edn "{:index 4, :type :ok, :process 2, :f :txn, :value [[:foo :x 2]]}\n"))
        {:keys [status err]} (run "check" f)]
    (is (= 3 status))
    (is (str/includes? err "op 4 (line 5, :index 4): micro-op 0 [:foo :x 2] is neither"))
    (is (= 1 (count (str/split-lines err))))))

(deftest unparseable-edn
  (let [f (tmp-file "broken.edn" (str valid-edn "{:index 4, :type :ok, :value [[:r :x [1 2]]\n"))
        {:keys [status out err]} (run "check" "--format" "edn" f)]
    (is (= 3 status))
    (is (str/includes? err "line"))
    (is (= {:valid? :unknown, :file f} (dissoc (edn/read-string out) :error))
        "edn output still has one map per file")))

(deftest missing-file-names-the-file
  (let [{:keys [status err]} (run "check" "/no/such/file.edn")]
    (is (= 3 status))
    (is (= "isocheck: /no/such/file.edn: no such file\n" err))))

(defn- files-in [^File dir]
  (set (for [^File f (file-seq dir) :when (.isFile f)]
         (str/replace (subs (.getPath f) (inc (count (.getPath dir)))) File/separator "/"))))

(deftest out-directory
  (let [f (tmp-file "ws.edn" write-skew-edn)
        dir (str (tmp-dir) "/report")
        {:keys [status out]} (run "check" "--out" dir f)]
    (is (= 1 status))
    (doseq [name ["report.html" "report.txt" "result.edn" "result.json" "G2-item.dot"]]
      (is (.exists (io/file dir name)) name))
    (is (str/includes? out (str "report: " dir "/report.html")))
    (testing "result.edn is the result map"
      (is (= [:G2-item] (:anomaly-types (edn/read-string (slurp (io/file dir "result.edn")))))))))

(deftest out-directory-for-several-jepsen-runs
  ;; Jepsen's layout: store/<test>/<time>/history.edn. Each report goes to DIR/<test>/<time>/.
  (let [store (tmp-dir)
        a (io/file store "append-test/20240101T000000/history.edn")
        b (io/file store "append-test/20240102T000000/history.edn")
        c (io/file store "other-test/20240101T000000/history.edn")
        _ (doseq [[^File f s] [[a write-skew-edn] [b valid-edn] [c write-skew-edn]]]
            (io/make-parents f)
            (spit f s))
        out (tmp-dir)
        {:keys [status err] :as r} (run "check" "--format" "edn" "--out" (str out) (str a) (str b) (str c))]
    (is (= 1 status))
    (is (= 3 (count (str/split-lines (:out r)))) "stdout: one result per file")
    (is (= #{"append-test/20240101T000000" "append-test/20240102T000000" "other-test/20240101T000000"}
           (set (for [p (files-in out)] (subs p 0 (str/last-index-of p "/"))))))
    (is (= (edn/read-string (slurp (io/file out "append-test/20240102T000000/result.edn")))
           (dissoc (edn/read-string (second (str/split-lines (:out r)))) :file))
        "each directory holds its own file's result")
    (is (= (str b) (:file (edn/read-string (second (str/split-lines (:out r))))))
        "with several files, each printed map names its file")
    (is (not (.exists (io/file out "append-test/20240102T000000/G2-item.dot"))) "no picture of another run")
    (testing "where each report went, on stderr for edn"
      (is (= 3 (count (re-seq #"report: " err))))
      (is (str/includes? err (str (io/file out "other-test/20240101T000000/report.html")))))
    (testing "files with different names in one directory keep their names"
      (let [d (tmp-dir)
            out2 (tmp-dir)]
        (spit (io/file d "a.edn") valid-edn)
        (spit (io/file d "b.edn") valid-edn)
        (run "check" "--out" (str out2) (str (io/file d "a.edn")) (str (io/file d "b.edn")) (str (io/file d "a.edn")))
        (is (= #{"a" "b" "a-2"} (set (map #(subs % 0 (str/index-of % "/")) (files-in out2)))))))))

(deftest out-directory-reused-loses-stale-reports
  (let [f (tmp-file "ok.edn" valid-edn)
        dir (tmp-dir)]
    (spit (io/file dir "result.edn") "{:valid? false}")
    (spit (io/file dir "G1c.dot") "digraph {}")
    (spit (io/file dir "G1c.svg") "<svg/>")
    (spit (io/file dir "notes.txt") "mine")
    (.mkdirs (io/file dir "sub"))
    (spit (io/file dir "sub/G1c.dot") "digraph {}")
    (is (= 0 (:status (run "check" "--out" (str dir) f))))
    (is (= #{"report.html" "report.txt" "result.edn" "result.json" "notes.txt" "sub/G1c.dot"} (files-in dir))
        "our old files are gone, the user's are kept")
    (testing "a directory without a report of ours is left alone"
      (let [d (tmp-dir)]
        (spit (io/file d "figure.svg") "<svg/>")
        (run "check" "--out" (str d) f)
        (is (.exists (io/file d "figure.svg")))))))

(deftest unwritable-out-keeps-the-verdict
  (let [f (tmp-file "ws.edn" write-skew-edn)
        regular (tmp-file "not-a-dir" "x")]
    (doseq [out [regular (str regular "/sub")]]
      (let [{:keys [status err] :as r} (run "check" "--levels" "serializable" "--out" out f)]
        (is (= 1 status) "the exit status is the verdict's")
        (is (str/includes? (:out r) "VIOLATED (G2-item)") "the verdict is printed")
        (is (= 1 (count (str/split-lines err))))
        (is (str/starts-with? err (str "isocheck: --out " out ": ")))
        (is (str/includes? err "the report for"))
        (is (not (str/includes? err (str f ": no such file"))) "the input is not blamed")))
    (let [{:keys [status out err]} (run "check" "--format" "edn" "--out" regular f)]
      (is (= 1 status))
      (is (= false (:valid? (edn/read-string out))))
      (is (str/includes? err "exists and is not a directory")))))

(deftest max-anomalies
  (let [f (tmp-file "ws.edn" write-skew-edn)]
    (testing "0 keeps no instance: types and counts only"
      (let [{:keys [status out]} (run "check" "--format" "edn" "--levels" "serializable" "--max-anomalies" "0" f)
            m (edn/read-string out)]
        (is (= 1 status))
        (is (= [:G2-item] (:anomaly-types m)))
        (is (= {:G2-item 1} (:anomaly-counts m)))
        (is (= {:G2-item []} (:anomalies m)))
        (is (= {} (:counterexamples m))))
      (let [{:keys [out]} (run "check" "--levels" "serializable" "--max-anomalies" "0" f)]
        (is (str/includes? out "G2-item: 1 instance\n"))
        (is (not (str/includes? out "T0 =")) "no instance shown")
        (is (str/includes? out "serializable  VIOLATED (G2-item)"))))
    (testing "1 keeps one"
      (is (= 1 (count (get-in (edn/read-string (:out (run "check" "--format" "edn" "--max-anomalies" "1" "--levels" "ser" f)))
                              [:anomalies :G2-item])))))
    (testing "negative or not a number: bad usage"
      (doseq [n ["-1" "x"]]
        (let [{:keys [status err]} (run "check" "--max-anomalies" n f)]
          (is (= 3 status) n)
          (is (str/starts-with? err "isocheck: --max-anomalies ")))))))

(deftest stdin
  (let [in (java.io.ByteArrayInputStream. (.getBytes ^String write-skew-edn "UTF-8"))
        old System/in]
    (try
      (System/setIn in)
      (is (= 1 (:status (run "check" "-"))))
      (finally (System/setIn old)))))

(deftest start-load-check-times
  (let [m (edn/read-string (:out (run "check" "--format" "edn" (tmp-file "ok.edn" valid-edn))))]
    (is (every? #(integer? (get-in m [:stats :ms %])) [:load :total]))))

;; --- input hygiene: nothing to check, damaged or absurd input --------------------------------

(def tx-edn (str/replace valid-edn ":f :txn" ":f :tx"))

(deftest no-transactions-is-exit-2-with-the-reason
  (doseq [[file content reason] [["empty.edn" "" "no operations: the history is empty"]
                                 ["read.edn" "{:index 0, :type :ok, :f :read, :value 1, :process 0}\n"
                                  "no :txn operations, so nothing to check: 1 op skipped; the first, op 0 (line 1, :index 0), has :f :read"]
                                 ["tx.edn" tx-edn
                                  "no :txn operations, so nothing to check: 4 ops skipped; the first, op 0 (line 1, :index 0), has :f :tx"]
                                 ["no-f.edn" "{:index 0, :type :ok, :process 0, :value [[:append :x 1]]}\n"
                                  "no :txn operations, so nothing to check: 1 op skipped; the first, op 0 (line 1, :index 0), has no :f"]]]
    (let [f (tmp-file file content)
          {:keys [status out err]} (run "check" f)]
      (is (= 2 status) file)
      (is (= "" err))
      (is (str/starts-with? out (str "valid? unknown: " reason)) out)
      (is (str/includes? out "\n  serializable                       unknown\n") "each level unknown, the reason said once"))
    (let [m (edn/read-string (:out (run "check" "--format" "edn" (tmp-file file content))))]
      (is (= :unknown (:valid? m)))
      (is (str/starts-with? (:unknown-reason m) reason))
      (is (= 14 (count (:levels m))) "every level of the default set")
      (is (every? #(and (= :unknown (:valid? %)) (str/starts-with? (:reason %) reason)) (vals (:levels m))))))
  (testing "standard input with nothing on it"
    (let [old System/in]
      (try
        (System/setIn (java.io.ByteArrayInputStream. (byte-array 0)))
        (let [{:keys [status out]} (run "check" "-")]
          (is (= 2 status))
          (is (str/starts-with? out "valid? unknown: no operations: the history is empty")))
        (finally (System/setIn old)))))
  (testing "with another file that holds, the worst status"
    (is (= 2 (:status (run "check" (tmp-file "ok.edn" valid-edn) (tmp-file "empty.edn" "")))))))

(deftest f-option-names-the-transactions
  (let [f (tmp-file "tx.edn" tx-edn)]
    (is (= 0 (:status (run "check" "--f" "tx" f))))
    (is (= 0 (:status (run "check" "--f" ":tx" f))))
    (is (= 4 (get-in (edn/read-string (:out (run "check" "--format" "edn" "--f" "tx" f))) [:stats :ops]))))
  (is (= 1 (:status (run "check" "--f" "tx" (tmp-file "ws.edn" (str/replace write-skew-edn ":f :txn" ":f :tx"))))))
  (testing "the default :f is then skipped like any other"
    (is (= 2 (:status (run "check" "--f" "tx" (tmp-file "ok.edn" valid-edn))))))
  (doseq [bad ["" ":" "a,b"]]
    (let [{:keys [status err]} (run "check" "--f" bad (tmp-file "tx.edn" tx-edn))]
      (is (= 3 status) bad)
      (is (str/starts-with? err "isocheck: --f takes the name of the :f of transaction ops")))))

(defn- one-line-error
  "Runs check on a file with these bytes; {:status :err}, asserting one line without a trace."
  [name ^bytes content & args]
  (let [f (io/file (tmp-dir) name)]
    (with-open [o (io/output-stream f)] (.write o content))
    (let [{:keys [status err]} (apply run (concat ["check"] args [(.getPath f)]))]
      (is (= 1 (count (str/split-lines err))) err)
      (is (no-trace? err))
      (is (not (re-find #"[\x00-\x08\x0b-\x1f]" err)) "no raw control character")
      (is (str/starts-with? err (str "isocheck: " (.getPath f) ": ")))
      {:status status, :err (str " " (str/trim-newline (subs err (count (str "isocheck: " (.getPath f) ": ")))))})))

(defn- utf8 ^bytes [^String s] (.getBytes s "UTF-8"))

(deftest damaged-and-absurd-input-is-exit-3-with-the-op
  (testing "truncated gzip"
    (let [text (apply str (for [i (range 3000)]
                            (str "{:index " i ", :type :ok, :process " (mod i 5) ", :f :txn, :value [[:append " (mod i 7) " " i "]]}\n")))
          o (ByteArrayOutputStream.)
          _ (with-open [g (java.util.zip.GZIPOutputStream. o)] (.write g (utf8 text)))
          gz (.toByteArray o)
          {:keys [status err]} (one-line-error "trunc.edn.gz" (java.util.Arrays/copyOf gz (quot (count gz) 2)))]
      (is (= 3 status))
      (is (re-find #"^ truncated gzip data \(the file is incomplete\): the input breaks off inside op \d+ \(line \d+\), after \d+ complete ops$" err) err)))
  (testing "a NUL byte in a read value is shown escaped"
    (let [{:keys [status err]} (one-line-error "nul.edn" (utf8 (str "{:index 0, :type :ok, :process 0, :f :txn, :value [[:append :x 1]]}\n"
                                                                    "{:index 1, :type :ok, :process 0, :f :txn, :value [[:r :x \"a\u0000b\"]]}\n")))]
      (is (= 3 status))
      (is (str/includes? err "micro-op 0 [:r :x \"a\\u0000b\"] reads a non-list value") err)))
  (testing "a file of NUL bytes (like /dev/zero)"
    (let [{:keys [status err]} (one-line-error "zeros" (byte-array 10000))]
      (is (= 3 status))
      (is (= " line 1, column 1: unexpected byte 0x00; control characters may appear only inside strings" err))))
  (testing "a 200,000-digit integer"
    (let [{:keys [status err]} (one-line-error "num.edn" (utf8 (str "{:index 0, :type :ok, :process 0, :f :txn, :value [[:r :x "
                                                                    (apply str (repeat 200000 "7")) "]]}\n")))]
      (is (= 3 status))
      (is (= " op 0 (line 1, column 59): a number literal of 200000 characters; isocheck reads numbers of up to 100 characters" err))))
  (testing ":index negative, repeated or decreasing"
    (doseq [[idx msg] [[[-1] "op 0 (line 1, :index -1): :index -1 is negative"]
                       [[0 0] "op 1 (line 2, :index 0): :index 0 repeats the :index of op 0 (line 1)"]
                       [[5 3] "op 1 (line 2, :index 3): :index 3 is less than the :index 5 of op 0 (line 1)"]]]
      (let [text (apply str (map-indexed (fn [p i] (str "{:index " i ", :type :ok, :process " p ", :f :txn, :value [[:append :x " p "]]}\n")) idx))
            {:keys [status err]} (one-line-error "idx.edn" (utf8 text))]
        (is (= 3 status))
        (is (str/starts-with? err (str " " msg)) err))))
  (testing "malformed values, in both workloads"
    (doseq [[mops msg] [["[[:r :x [1 nil]]]" "micro-op 0 [:r :x [1 nil]] reads a list whose element 2 (counting from 1) is nil"]
                        ["[[:r :x {:a 1}]]" "micro-op 0 [:r :x {:a 1}] reads a map"]]]
      (let [{:keys [status err]} (one-line-error "v.edn" (utf8 (str "{:index 0, :type :ok, :process 0, :f :txn, :value [[:append :x 1]]}\n"
                                                                    "{:index 1, :type :ok, :process 1, :f :txn, :value " mops "}\n")))]
        (is (= 3 status))
        (is (str/includes? err (str "op 1 (line 2, :index 1): " msg)) err))
      (let [{:keys [status err]} (one-line-error "v.edn" (utf8 (str "{:index 0, :type :ok, :process 0, :f :txn, :value [[:w :x 1]]}\n"
                                                                    "{:index 1, :type :ok, :process 1, :f :txn, :value " mops "}\n")))]
        (is (= 3 status))
        (is (str/includes? err (str "op 1 (line 2, :index 1): " msg)) err))))
  (testing "EDN op maps with string keys"
    (let [{:keys [status err]} (one-line-error "sk.edn" (utf8 "#jepsen.history.Op{\"type\" :ok, \"f\" :txn, \"process\" 0, :value [[:append 1 2]]}\n"))]
      (is (= 3 status))
      (is (= " op 0 (line 1, column 20): the key \"type\" is a string; EDN op maps have keyword keys such as :type" err)))
    (let [{:keys [status err]} (one-line-error "sk.edn" (utf8 "{\"type\" :ok, \"f\" :txn, \"process\" 0, :value [[:append 1 2]]}\n"))]
      (is (= 3 status))
      (is (str/includes? err "(read as JSON because it starts with {\", a string key, though the name sk.edn says EDN)") err))))

(deftest json-named-edn-is-read-as-json
  (let [f (tmp-file "j.edn" "[{\"type\":\"ok\",\"f\":\"txn\",\"process\":0,\"value\":[[\"append\",1,2]],\"index\":0}]")
        {:keys [status out]} (run "check" "--format" "edn" f)]
    (is (= 0 status))
    (is (= 1 (get-in (edn/read-string out) [:stats :txns])))))

;; --- subprocesses: bin/isocheck and plain java --------------------------------------------

(def ^:private root (.getCanonicalPath (io/file ".")))
(def ^:private launcher (str root "/bin/isocheck"))

(deftest launcher-exit-codes-from-any-directory
  (let [d (tmp-dir)]
    (spit (io/file d "ok.edn") valid-edn)
    (spit (io/file d "ws.edn") write-skew-edn)
    (spit (io/file d "wr.edn") register-edn)
    (spit (io/file d "ww.edn") two-writers-edn)
    (spit (io/file d "bad.edn") "{:index 0, :type :ok, :process 0, :f :txn, :value [[:foo :x 2]]}\n")
    (spit (io/file d "empty.edn") "")
    (spit (io/file d "tx.edn") tx-edn)
    (doseq [[status args env] [[0 ["check" "ok.edn"]]
                               [1 ["check" "ws.edn"]]
                               [0 ["check" "wr.edn"]]
                               [0 ["check" "--levels" "gsi" "wr.edn"]]
                               [2 ["check" "--levels" "serializable" "ww.edn"] {"JAVA_OPTS" "-Disocheck.search.max-edges=0 -Disocheck.search.lazy-constraints=false"}]
                               [3 ["check" "bad.edn"]]
                               [3 ["check" "missing.edn"]]
                               [3 ["check" "--levels" "nope" "ok.edn"]]
                               [3 ["check" "--max-anomalies" "-1" "ok.edn"]]
                               [2 ["check" "empty.edn"]]
                               [2 ["check" "-"]]
                               [0 ["check" "--f" "tx" "tx.edn"]]
                               [3 ["check" "/dev/zero"]]]]
      (let [r (apply sh d (or env {}) launcher args)]
        (is (= status (:status r)) (str args " " (:err r)))
        (is (no-trace? (:err r)) (str args))
        (when (= 3 status) (is (str/starts-with? (:err r) "isocheck: ") (str args)))))
    (let [r (sh d {} launcher "check" "--format" "edn" "ws.edn")]
      (is (= [:G2-item] (:anomaly-types (edn/read-string (:out r)))))
      (is (integer? (get-in (edn/read-string (:out r)) [:stats :ms :start])) "start-up is timed from the launcher"))
    (testing "a bad ISOCHECK_HEAP is bad usage, not a JVM error"
      (let [r (sh d {"ISOCHECK_HEAP" "lots"} launcher "check" "ok.edn")]
        (is (= 3 (:status r)))
        (is (str/includes? (:err r) "ISOCHECK_HEAP"))))))

(defn- jdk-homes
  "The JDKs under /usr/lib/jvm by major version, from their release files (as bin/isocheck reads them)."
  []
  (into (sorted-map)
        (for [^java.io.File d (or (.listFiles (io/file "/usr/lib/jvm")) [])
              :let [r (io/file d "release")]
              :when (and (.isFile r) (.canExecute (io/file d "bin" "java"))
                         (not (Files/isSymbolicLink (.toPath d))))
              :let [[_ v] (re-find #"(?m)^JAVA_VERSION=\"?([0-9.]+)" (slurp r))
                    [a b] (when v (str/split v #"\."))]
              :when a]
          [(Long/parseLong (if (= a "1") b a)) (str d)])))

(defn- class-data
  "The class-data file bin/isocheck uses with the JDK at home (nil: the one it picks) in the
  install under root: the AOT cache from JDK 25 on, else the CDS archive."
  ^java.io.File [root home]
  (let [home (or home (some (fn [[m d]] (when (>= m 25) d)) (rseq (jdk-homes))))
        major (some (fn [[m d]] (when (= d home) m)) (jdk-homes))]
    (io/file root "target" "uberjar" (if (and major (>= major 25)) "isocheck.aot" "isocheck.jsa"))))

(deftest a-copied-install-keeps-standard-output-clean
  ;; The class data (JDK 25's AOT cache, JDK 17's CDS archive) names the jar it was made from:
  ;; in a checkout copied elsewhere the JVM refuses it, with a warning that once went to
  ;; standard output, in front of the --format json result. The launcher keys the file by the
  ;; jar and the JDK and makes it again for the copy, and sends the JVM's own warnings to
  ;; standard error. With each JDK installed: the one the launcher picks, and JDK 17.
  (let [d (tmp-dir)
        _ (spit (io/file d "ok.edn") valid-edn)
        jdks (jdk-homes)
        envs (distinct (cond-> [{}] (some #(< % 25) (keys jdks)) (conj {"JAVA_HOME" (some (fn [[m h]] (when (< m 25) h)) jdks)})))]
    (doseq [env envs]
      (sh d env launcher "check" "ok.edn") ; (the uberjar and its class data exist after this)
      (let [copy (io/file (tmp-dir) "isocheck")
            uj (io/file copy "target" "uberjar")
            cp! (fn [^java.io.File from ^java.io.File to]
                  (io/make-parents to)
                  (Files/copy (.toPath from) (.toPath to)
                              ^"[Ljava.nio.file.CopyOption;" (into-array java.nio.file.CopyOption
                                                                         [java.nio.file.StandardCopyOption/COPY_ATTRIBUTES
                                                                          java.nio.file.StandardCopyOption/REPLACE_EXISTING])))
            data (class-data copy (get env "JAVA_HOME"))
            key-file (io/file (str data ".key"))
            run (fn [] (sh d env (str copy "/bin/isocheck") "check" "--format" "json" "ok.edn"))]
        (cp! (io/file root "bin" "isocheck") (io/file copy "bin" "isocheck"))
        (.setExecutable (io/file copy "bin" "isocheck") true)
        (doseq [^java.io.File f (.listFiles (io/file root "target" "uberjar"))
                :when (re-find #"standalone\.jar$|\.jsa$|\.aot$|\.key$" (.getName f))]
          (cp! f (io/file uj (.getName f))))
        (testing (str env ": the class data is made again for the copy's path")
          (let [{:keys [status out err]} (run)]
            (is (= 0 status) err)
            (is (= "" err))
            (is (str/starts-with? out "{\"valid?\":true,") out)
            (is (.isFile data) (str data))
            (is (str/includes? (slurp key-file) (str uj)) (slurp key-file))))
        (testing (str env ": and again when the jar's time is another (rebuilt)")
          (let [jar (first (filter #(str/ends-with? (.getName ^java.io.File %) "standalone.jar") (.listFiles uj)))]
            (.setLastModified ^java.io.File jar (+ (.lastModified key-file) 2000))
            (let [{:keys [status out]} (run)]
              (is (= 0 status))
              (is (str/starts-with? out "{\"valid?\":true,"))
              (is (= (.lastModified key-file) (.lastModified ^java.io.File jar)) "the key has the jar's time"))))
        (testing (str env ": class data the JVM refuses: its complaint on standard error, the result alone on standard output")
          ;; JDK 25 complains of a file that is not an AOT cache; JDK 17 of an archive made
          ;; for another jar's path (the original checkout's), and says nothing of garbage.
          (if (str/ends-with? (str data) ".aot")
            (spit data "not class data")
            (cp! (class-data root (get env "JAVA_HOME")) data))
          (let [{:keys [status out err]} (run)]
            (is (= 0 status) err)
            (is (str/starts-with? out "{\"valid?\":true,") out)
            (is (re-find #"(?i)shared archive|AOT cache|CDS" err) err)))))))

(deftest the-jdk-and-its-class-data-never-change-a-verdict
  ;; bin/isocheck prefers JDK 25 (its AOT cache) when installed; JDK 17, with its CDS archive or
  ;; without it, must give the same verdicts on the same histories: the class data saves the
  ;; JVM's start-up work, nothing else.
  (let [d (tmp-dir)
        _ (doseq [[f text] [["ok.edn" valid-edn] ["ws.edn" write-skew-edn] ["wr.edn" register-edn] ["ww.edn" two-writers-edn]]]
            (spit (io/file d f) text))
        jdks (jdk-homes)
        j17 (some (fn [[m h]] (when (< m 25) h)) jdks)
        j25 (some (fn [[m h]] (when (>= m 25) h)) (rseq jdks))
        envs (cond-> [{}]
               j17 (conj {"JAVA_HOME" j17} {"JAVA_HOME" j17 "JAVA_OPTS" "-Xshare:off"})
               j25 (conj {"JAVA_HOME" j25 "JAVA_OPTS" "-XX:AOTMode=off"}))
        verdicts (fn [out] (let [r (edn/read-string {:default (fn [_ v] v)} out)]
                             [(:valid? r) (:anomaly-types r) (into (sorted-map) (for [[l v] (:levels r)] [l (:valid? v)]))]))]
    (is (< 1 (count envs)) "more than one JDK or mode to compare")
    (doseq [f ["ok.edn" "ws.edn" "wr.edn" "ww.edn"]
            :let [rs (for [env envs] [env (sh d env launcher "check" "--format" "edn" f)])]]
      (doseq [[env r] rs]
        (is (= "" (:err r)) (str f " " env))
        (is (= (:status (second (first rs))) (:status r)) (str f " " env)))
      (is (apply = (for [[_ r] rs] (verdicts (:out r)))) f))))

;; What lein bench startup checks (doc/benchmarks.md): the classes and lambdas a small check
;; needs come from the class data, none parsed from the jar or spun at run time (an ObjectMethods
;; bootstrap behind a record's hashCode, java.util.Comparator's lambdas, the progress meter's
;; classes when the training ran with --quiet: milliseconds each, interpreted).
(defn- bench-history
  "A simulated history as lein bench startup writes it: [:jepsen-rw store txns] (zipf keys
  rotated after 32 writes, 1% :info) or [:plume workload txns] (20 micro-ops, 25 sessions)."
  [^File dir [shape a txns]]
  (let [f (.toPath (io/file dir (str (name shape) "-" txns ".edn")))
        cfg (case shape
              :jepsen-rw (-> (SimConfig/builder) (.seed 1) (.store a) (.workload History$Workload/REGISTER)
                             (.txns (int txns)) (.sessions 10) (.opsPerTxn 4 4) (.readFraction 0.5) (.keys 1000)
                             (.keyDist SimConfig$KeyDist/ZIPF) (.maxWritesPerKey 32) (.failRate 0.0) (.infoRate 0.01) .build)
              :plume (-> (SimConfig/builder) (.seed 7) (.store Store/SNAPSHOT_ISOLATION) (.workload a)
                         (.txns (int txns)) (.sessions 25) (.keys (int (* 2 txns))) (.keyDist SimConfig$KeyDist/UNIFORM)
                         (.opsPerTxn 20 20) (.readFraction 0.5) (.failRate 0.0) (.infoRate 0.0) (.pendingAtEnd 0) .build))
        w (EdnWriter/open f)]
    (try (Simulator/run cfg w) (finally (.close w)))
    (str f)))

(deftest a-small-check-loads-its-classes-from-the-class-data
  (let [jdks (jdk-homes)]
    (when (some #(>= % 25) (keys jdks)) ; the launcher's pick: JDK 25's AOT cache
      (let [d (tmp-dir)
            one (doto (io/file d "one.edn") (spit "{:index 0, :type :ok, :process 0, :f :txn, :value [[:append :x 1]]}\n"))
            runs [[[] (str one)]
                  [["--levels" "serializable,snapshot-isolation"] (bench-history d [:jepsen-rw Store/SNAPSHOT_ISOLATION 1000])]
                  [["--levels" "serializable,snapshot-isolation"] (bench-history d [:plume History$Workload/REGISTER 1000])]
                  [["--levels" "tcc,ra,rc,ci"] (bench-history d [:plume History$Workload/APPEND 1000])]]]
        (sh d {} launcher "check" (str one)) ; (the uberjar and its class data exist after this)
        (doseq [[args f] runs]
          (let [log (io/file d "classes.log")
                _ (io/delete-file log true)
                {:keys [status err]} (apply sh d {"JAVA_OPTS" (str "-Xlog:class+load=info:file=" log)}
                                            launcher "check" "--format" "edn" (conj args f))
                lines (str/split-lines (slurp log))
                ;; "[info][class,load] NAME source: WHERE"
                loaded (for [l lines :let [[_ c src] (re-find #"\]\s*(\S+) source: (.*)$" l)] :when c] [c src])
                ours (filter (fn [[c]] (or (str/starts-with? c "isocheck.") (str/includes? c "$$Lambda") (str/includes? c "LambdaForm$"))) loaded)
                outside (remove (fn [[_ src]] (= src "shared objects file")) ours)]
            (is (#{0 1} status) (str args " " err))
            (is (< 1000 (count loaded)) "the log lists the classes loaded")
            (is (some (fn [[c]] (= c "isocheck.cli.Main")) ours))
            (is (empty? outside) (str (last args) " " args ": loaded outside the class data: " (vec outside)))))))))

(deftest a-heap-without-compressed-pointers-runs-without-class-data
  ;; From 32 GB of heap on the JVM drops compressed object pointers, and refuses class data made
  ;; with them (a warning on standard error): the launcher leaves it out then.
  (let [d (tmp-dir)]
    (spit (io/file d "ok.edn") valid-edn)
    (doseq [heap ["40g" "31g"]]
      (let [{:keys [status out err]} (sh d {"ISOCHECK_HEAP" heap} launcher "check" "--format" "json" "ok.edn")]
        (is (= 0 status) (str heap " " err))
        (is (= "" err) heap)
        (is (str/starts-with? out "{\"valid?\":true,") heap)))))

(defn- fake-jdk-25-and-launcher!
  "Makes fake a JDK that says it is 25 and whose bin/java is the script java-sh, and copy a
  copy of bin/isocheck beside the uberjar jar (in copy/target/uberjar, its times kept)."
  [fake java-sh copy jar]
  (let [uj (io/file copy "target" "uberjar")]
    (io/make-parents (io/file fake "bin" "java"))
    (spit (io/file fake "release") "JAVA_VERSION=\"25.0.1\"\n")
    (spit (io/file fake "bin" "java") java-sh)
    (.setExecutable (io/file fake "bin" "java") true)
    (io/make-parents (io/file uj "x"))
    (Files/copy (.toPath (io/file root "bin" "isocheck")) (.toPath (doto (io/file copy "bin" "isocheck") io/make-parents))
                ^"[Ljava.nio.file.CopyOption;" (make-array java.nio.file.CopyOption 0))
    (.setExecutable (io/file copy "bin" "isocheck") true)
    (Files/copy (.toPath ^java.io.File jar) (.toPath (io/file uj (.getName ^java.io.File jar)))
                ^"[Ljava.nio.file.CopyOption;" (into-array java.nio.file.CopyOption [java.nio.file.StandardCopyOption/COPY_ATTRIBUTES]))))

(deftest a-jdk-that-cannot-make-class-data-runs-without-it
  ;; A JDK whose release file says 25 but whose java cannot record an AOT cache (here JDK 17
  ;; behind it): the launcher notes that none could be made (the key, no cache), and checks
  ;; without one, silently, from then on until the jar changes.
  (when-let [j17 (some (fn [[m h]] (when (< m 25) h)) (jdk-homes))]
    (let [d (tmp-dir)
          _ (spit (io/file d "ok.edn") valid-edn)
          fake (io/file (tmp-dir) "jdk-25")
          copy (io/file (tmp-dir) "isocheck")
          uj (io/file copy "target" "uberjar")
          _ (sh d {} launcher "check" "ok.edn") ; (the uberjar exists after this)
          jar (first (filter #(str/ends-with? (.getName ^java.io.File %) "standalone.jar") (.listFiles (io/file root "target" "uberjar"))))]
      (fake-jdk-25-and-launcher! fake (str "#!/bin/sh\nexec " j17 "/bin/java \"$@\"\n") copy jar)
      (dotimes [i 2]
        (let [{:keys [status out err]} (sh d {"JAVA_HOME" (str fake)} (str copy "/bin/isocheck") "check" "--format" "json" "ok.edn")]
          (is (= 0 status) err)
          (is (= "" err) (str "run " i))
          (is (str/starts-with? out "{\"valid?\":true,") out)))
      (is (.isFile (io/file uj "isocheck.aot.key")))
      (is (not (.exists (io/file uj "isocheck.aot")))))))

(deftest a-busy-machine-compiles-in-the-foreground
  ;; bin/isocheck adds -Xbatch for a small input (below 16 MB in all) when the 1-minute load
  ;; average is at least 4 times the online CPUs, and only then: a java that prints its
  ;; arguments shows what the launcher chose, beside the load average read before and after
  ;; (a run whose two readings fall on either side of the line says nothing).
  (let [d (tmp-dir)
        fake (io/file (tmp-dir) "jdk-25")
        copy (io/file (tmp-dir) "isocheck")
        uj (io/file copy "target" "uberjar")
        _ (spit (io/file d "ok.edn") valid-edn)
        _ (sh d {} launcher "check" "ok.edn") ; (the uberjar exists after this)
        jar (first (filter #(str/ends-with? (.getName ^java.io.File %) "standalone.jar") (.listFiles (io/file root "target" "uberjar"))))
        cpus (let [online (str/trim (Files/readString (.toPath (io/file "/sys/devices/system/cpu/online"))))]
               (reduce + (for [r (str/split online #",")]
                           (if-let [[_ lo hi] (re-matches #"(\d+)-(\d+)" r)] (inc (- (Long/parseLong hi) (Long/parseLong lo))) 1))))
        busy? (fn [] (>= (long (Double/parseDouble (first (str/split (Files/readString (.toPath (io/file "/proc/loadavg"))) #" ")))) (* 4 cpus)))
        big (io/file d "big.edn")]
    (fake-jdk-25-and-launcher! fake "#!/bin/sh\necho \"$@\"\n" copy jar)
    (with-open [f (java.io.RandomAccessFile. big "rw")] (.setLength f (* 17 1024 1024)))
    (let [flags (fn [& args] (let [{:keys [status out]} (apply sh d {"JAVA_HOME" (str fake)} (str copy "/bin/isocheck") args)]
                               (is (= 0 status))
                               (str/split (str/trim (last (str/split-lines out))) #" ")))]
      (testing "a small input: -Xbatch as busy as the machine is"
        (let [before (busy?), fs (flags "check" "ok.edn"), after (busy?)]
          (is (some #{"-XX:TieredStopAtLevel=1"} fs) (str fs))
          (is (some #{"isocheck.cli.Main"} fs) (str fs))
          (when (= before after)
            (is (= before (boolean (some #{"-Xbatch"} fs))) (str "busy " before ": " fs)))))
      (testing "17 MB of input: never"
        (let [fs (flags "check" "big.edn")]
          (is (some #{"-XX:TieredStopAtLevel=1"} fs) (str fs))
          (is (not (some #{"-Xbatch"} fs)) (str fs))))
      (testing "nor another command (demo)"
        (is (not (some #{"-Xbatch"} (flags "demo"))))))))

;; With C1 alone (small inputs), bin/isocheck has the JVM skip the AOT cache's training data
;; (C2's profiles; replaying them had C1 compile what the training run compiled): a diagnostic
;; flag, passed only when the JDK took it in a probe made with the cache. A java that makes a
;; cache and a configuration file, and prints its arguments otherwise, shows what was chosen.
(deftest the-aot-cache-s-training-data-is-skipped-with-c1-alone
  (let [d (tmp-dir)
        _ (spit (io/file d "ok.edn") valid-edn)
        _ (sh d {} launcher "check" "ok.edn") ; (the uberjar exists after this)
        jar (first (filter #(str/ends-with? (.getName ^java.io.File %) "standalone.jar") (.listFiles (io/file root "target" "uberjar"))))
        big (io/file d "big.edn")]
    (with-open [f (java.io.RandomAccessFile. big "rw")] (.setLength f (* 600 1024 1024)))
    (doseq [takes? [true false]]
      (let [fake (io/file (tmp-dir) "jdk-25")
            copy (io/file (tmp-dir) "isocheck")
            java-sh (str "#!/bin/sh\n"
                         "for a; do case \"$a\" in\n"
                         "  -XX:AOTMode=record) for b; do case \"$b\" in -XX:AOTConfiguration=*) echo conf > \"${b#*=}\" ;; esac; done; exit 0 ;;\n"
                         "  -XX:AOTMode=create) for b; do case \"$b\" in -XX:AOTCache=*) echo cache > \"${b#*=}\" ;; esac; done; exit 0 ;;\n"
                         "  -version) exit " (if takes? 0 1) " ;;\n"
                         "esac; done\n"
                         "echo \"$@\"\n")
            _ (fake-jdk-25-and-launcher! fake java-sh copy jar)
            flags (fn [& args] (let [{:keys [status out err]} (apply sh d {"JAVA_HOME" (str fake)} (str copy "/bin/isocheck") args)]
                                 (is (= 0 status) err)
                                 (set (str/split (str/trim (last (str/split-lines out))) #" "))))
            small (flags "check" "ok.edn")
            cache (str "-XX:AOTCache=" (io/file copy "target" "uberjar" "isocheck.aot"))]
        (testing (str "the probe " (if takes? "took" "refused") " the flag")
          (is (= (if takes? "replay-off" "") (second (concat (str/split-lines (slurp (io/file copy "target" "uberjar" "isocheck.aot.key"))) [""]))))
          (is (contains? small cache) (str small))
          (is (contains? small "-XX:TieredStopAtLevel=1") (str small))
          (is (= takes? (contains? small "-XX:-AOTReplayTraining")) (str small))
          (is (= takes? (contains? small "-XX:+UnlockDiagnosticVMOptions")) (str small)))
        (testing "C2 (600 MB of input) and other commands replay it"
          (let [fs (flags "check" "big.edn")]
            (is (contains? fs cache) (str fs))
            (is (not (contains? fs "-XX:TieredStopAtLevel=1")) (str fs))
            (is (not (contains? fs "-XX:-AOTReplayTraining")) (str fs)))
          (is (not (contains? (flags "demo") "-XX:-AOTReplayTraining"))))))))

(defn- plume-file
  "An rw-register history of Plume's shape (20 micro-ops per transaction), written as EDN."
  [^Path dir txns wl]
  (let [f (.resolve dir (str "h-" txns "-" (.cliName ^History$Workload wl) ".edn"))
        cfg (-> (SimConfig/builder) (.seed 7) (.store Store/SNAPSHOT_ISOLATION) (.workload wl)
                (.txns (int txns)) (.sessions 25) (.keys (int (* 2 txns))) (.keyDist SimConfig$KeyDist/UNIFORM)
                (.opsPerTxn 20 20) (.readFraction 0.5) .build)
        w (EdnWriter/open f)]
    (try (Simulator/run cfg w) (finally (.close w)))
    (str f)))

(deftest out-of-memory-while-reading-is-exit-3
  (let [dir (.toPath (tmp-dir))
        f (plume-file dir 20000 History$Workload/REGISTER)
        cp (System/getProperty "java.class.path")]
    (testing "plain java: names the heap, the size needed and -Xmx"
      (let [{:keys [status out err]} (sh (str dir) {} "java" "-Xmx16m" "-cp" cp "isocheck.cli.Main" "check" "--format" "edn" f)]
        (is (= 3 status))
        (is (= 1 (count (str/split-lines err))) err)
        (is (no-trace? err))
        (is (re-find #"out of memory while reading it: the heap is \d+ MB, and a \d+ MB history needs about \d+ MB; run java with -Xmx\d+[mg]" err) err)
        (is (= :unknown (:valid? (edn/read-string out))))))
    (testing "bin/isocheck: names ISOCHECK_HEAP"
      (let [{:keys [status err]} (sh (str dir) {"ISOCHECK_HEAP" "16m"} launcher "check" f)]
        (is (= 3 status))
        (is (no-trace? err))
        (is (str/includes? err "ISOCHECK_HEAP=") err)))))

(defn- jepsen-append-file
  "Jepsen's list-append shape (4 micro-ops per transaction, 10 sessions, 1000 keys zipf), 10^5
  transactions of the SI store, written as EDN in dir."
  [dir]
  (let [f (str (io/file dir "append.edn"))
        cfg (-> (SimConfig/builder) (.seed 1) (.store Store/SNAPSHOT_ISOLATION) (.workload History$Workload/APPEND)
                (.txns 100000) (.sessions 10) (.keys 1000) (.keyDist SimConfig$KeyDist/ZIPF) (.opsPerTxn 4 4)
                (.readFraction 0.5) .build)
        w (EdnWriter/open (.toPath (io/file f)))]
    (try (Simulator/run cfg w) (finally (.close w)))
    f))

(deftest out-of-memory-while-checking-is-exit-2
  ;; Jepsen's list-append shape (4 micro-ops per transaction), 10^5 transactions: loading fits
  ;; in 40 MB, the weak levels need more (measured: out of memory while checking from 40 to 64
  ;; MB; at 80 MB the causal clocks' width guard answers first), so 56 MB fails while checking.
  (let [dir (tmp-dir)
        f (jepsen-append-file dir)
        cp (System/getProperty "java.class.path")
        {:keys [status err]} (sh (str dir) {} "java" "-Xmx56m" "-XX:+UseSerialGC" "-cp" cp "isocheck.cli.Main"
                                 "check" "--levels" "tcc,ra,rc,ci" f)]
    (is (= 2 status) err)
    (is (no-trace? err))
    (is (re-find #"out of memory while checking 100000 transactions, so no verdict: the heap is \d+ MB, about \S+ [MG]B is needed; run java with -Xmx\d+[mg]" err) err)))

(deftest out-of-memory-in-the-weak-levels-keeps-the-levels-decided-before
  ;; The same history and heap as above, with serializability asked for too: a cycle of the
  ;; observed graph violates it before the weak levels run out of memory. It stays violated
  ;; (exit 1); the weak levels are :unknown with the reason. (Asked for alone, as above, the
  ;; weak levels' failure is the whole check's, with the heap it needs.)
  (let [dir (tmp-dir)
        f (jepsen-append-file dir)
        cp (System/getProperty "java.class.path")
        {:keys [status out err]} (sh (str dir) {} "java" "-Xmx56m" "-XX:+UseSerialGC" "-cp" cp "isocheck.cli.Main"
                                     "check" "--format" "edn" "--levels" "serializable,tcc,ra,rc,ci" f)
        r (edn/read-string out)]
    (is (= 1 status) err)
    (is (no-trace? err))
    (is (not (str/includes? err "no verdict")) err)
    (is (false? (get-in r [:levels :serializable :valid?])) (pr-str (:levels r)))
    (doseq [l [:tcc :ra :rc :ci]]
      (is (= :unknown (get-in r [:levels l :valid?])) (str l))
      (is (re-find #"^out of memory while checking the weak levels: their reads, writes and causal order of 100,000 transactions did not fit in this JVM's heap \(max \d+ MB\); raise the heap \(ISOCHECK_HEAP, -Xmx\)$"
                   (str (get-in r [:levels l :reason])))
          (str l " " (get-in r [:levels l :reason]))))
    (is (true? (get-in r [:stats :weak :out-of-memory])))))

;; A search that runs out of memory loses its own level's verdict, not the others': the level is
;; :unknown with the reason, a level that needs the same pairs after it is not searched, and
;; every other level (the weak ones, the SI levels, strict serializability's known cycle) is
;; still decided. Plume's shape over 2·10^4 transactions without key rotation: serializability
;; without session order needs 449,000 write-order constraints, and the check's other steps fit
;; in 96 MB (measured: strong-session serializability's search runs out from 96 to 160 MB,
;; every level decided from 300 MB). The pairs' own limit is lifted, so that the search starts.
(deftest out-of-memory-in-one-search-keeps-the-other-verdicts
  (let [dir (tmp-dir)
        f (str (io/file dir "plume.edn"))
        cfg (-> (SimConfig/builder) (.seed 1) (.store Store/SNAPSHOT_ISOLATION) (.workload History$Workload/REGISTER)
                (.txns 20000) (.sessions 25) (.keys 40000) (.keyDist SimConfig$KeyDist/UNIFORM) (.opsPerTxn 20 20)
                (.readFraction 0.5) (.maxWritesPerKey 0) (.failRate 0.0) (.infoRate 0.0) (.pendingAtEnd 0) .build)
        w (EdnWriter/open (.toPath (io/file f)))
        _ (try (Simulator/run cfg w) (finally (.close w)))
        cp (System/getProperty "java.class.path")
        check (fn [heap]
                (let [{:keys [status out err]} (sh (str dir) {} "java" (str "-Xmx" heap) "-XX:+UseSerialGC"
                                                   "-Disocheck.search.max-edges=100000000000" "-cp" cp
                                                   "isocheck.cli.Main" "check" "--format" "edn" f)]
                  {:status status :err err :r (edn/read-string out)}))
        ser #{:strict-serializable :strong-session-serializable :serializable :repeatable-read}]
    (testing "128 MB: the serializable levels' search runs out; the others are decided"
      (let [{:keys [status err r]} (check "128m")
            levels (:levels r)
            unknown (into #{} (comp (filter (fn [[_ v]] (= :unknown (:valid? v)))) (map key)) levels)]
        (is (no-trace? err))
        (is (not (str/includes? err "no verdict")) err)
        (is (seq unknown) (pr-str levels))
        (is (every? ser unknown) (pr-str unknown))
        (is (some #(re-find #"^out of memory while deciding [a-z-]+: its search of the version order of rw-register writes did not fit in this JVM's heap \(max \d+ MB\); raise the heap \(ISOCHECK_HEAP, -Xmx\)$"
                            (str (:reason (levels %))))
                  unknown)
            (pr-str levels))
        (is (every? #(re-find #"ran out of memory|out of memory while deciding" (str (:reason (levels %)))) unknown))
        (doseq [l [:strong-snapshot-isolation :snapshot-isolation :gsi :read-committed :tcc :ra :rc :ci]]
          (is (true? (:valid? (levels l))) (str l " " (pr-str (levels l)))))
        (is (some #(true? (:out-of-memory %)) (vals (get-in r [:stats :search]))) (pr-str (get-in r [:stats :search])))
        ;; A violation found is still a violation: exit 1; else the unknown levels make it 2.
        (is (= (if (some #(false? (:valid? %)) (vals levels)) 1 2) status) err)))
    (testing "700 MB: every level decided, the same verdicts where both decided"
      (let [small (:levels (:r (check "128m")))
            {:keys [status r]} (check "700m")]
        (is (= 1 status))
        (is (not-any? #(= :unknown (:valid? %)) (vals (:levels r))) (pr-str (:levels r)))
        (doseq [[l v] small :when (not= :unknown (:valid? v))]
          (is (= (:valid? v) (:valid? ((:levels r) l))) (str l)))))))

(deftest time-limit-option
  (is (= 0 (:status (run "check" "--time-limit" "5" (tmp-file "wr.edn" register-edn)))))
  (is (= 3 (:status (run "check" "--time-limit" "0" (tmp-file "wr.edn" register-edn)))))
  (is (str/includes? (:err (run "check" "--time-limit" "soon" (tmp-file "wr.edn" register-edn)))
                     "--time-limit takes seconds, not soon")))

(deftest from-64-mb-the-young-generation-starts-at-192-mb-at-most
  ;; From 64 MB of history to 512 MB (ParallelGC), the young generation is a third of -Xms
  ;; (128 MB plus 4 bytes per byte) up to 192 MB: where a third is more (from 112 MB of
  ;; history), bin/isocheck gives -XX:NewSize=192m beside -Xms, so that a large history's load
  ;; touches no more of it and its columns go to the old generation directly; below, the
  ;; default third (no flag); below 64 MB its -Xmn is unchanged, and from 512 MB (G1) there is
  ;; none. A java that prints its arguments shows the flags; the files are sparse.
  (let [d (tmp-dir)
        fake (io/file (tmp-dir) "jdk-25")
        copy (io/file (tmp-dir) "isocheck")
        _ (spit (io/file d "ok.edn") valid-edn)
        _ (sh d {} launcher "check" "ok.edn") ; (the uberjar exists after this)
        jar (first (filter #(str/ends-with? (.getName ^java.io.File %) "standalone.jar") (.listFiles (io/file root "target" "uberjar"))))
        sized (fn [mb] (let [f (io/file d (str mb ".edn"))]
                         (with-open [r (java.io.RandomAccessFile. f "rw")] (.setLength r (* mb 1024 1024)))
                         (.getName f)))
        flags (fn [file] (let [{:keys [status out]} (sh d {"JAVA_HOME" (str fake)} (str copy "/bin/isocheck") "check" file)]
                           (is (= 0 status))
                           (str/split (str/trim (last (str/split-lines out))) #" ")))
        new-size (fn [fs] (some #(second (re-matches #"-XX:NewSize=(\d+)m" %)) fs))]
    (fake-jdk-25-and-launcher! fake "#!/bin/sh\necho \"$@\"\n" copy jar)
    (testing "100 MB: a third of -Xms (128 + 4 * 100 = 528 MB) is 176 MB: ParallelGC's own, no flag"
      (let [fs (flags (sized 100))]
        (is (some #{"-Xms528m"} fs) (str fs))
        (is (nil? (new-size fs)) (str fs))
        (is (some #{"-XX:+UseParallelGC"} fs) (str fs))))
    (testing "120 MB: a third of -Xms (608 MB) would be 202 MB: 192"
      (let [fs (flags (sized 120))]
        (is (some #{"-Xms608m"} fs) (str fs))
        (is (= "192" (new-size fs)) (str fs))))
    (testing "400 MB: 192 MB, not a third of -Xms (1,728 MB)"
      (let [fs (flags (sized 400))]
        (is (some #{"-Xms1728m"} fs) (str fs))
        (is (= "192" (new-size fs)) (str fs))))
    (testing "40 MB: -Xmn as before, no -XX:NewSize"
      (let [fs (flags (sized 40))]
        (is (some #{"-Xmn304m"} fs) (str fs))
        (is (nil? (new-size fs)) (str fs))))
    (testing "600 MB: G1, no -XX:NewSize"
      (let [fs (flags (sized 600))]
        (is (some #{"-XX:+UseG1GC"} fs) (str fs))
        (is (nil? (new-size fs)) (str fs))))
    (testing "600 MB of dbcop JSON, a history of 200 MB: ParallelGC and 192 MB as for 200 MB of EDN, not G1"
      ;; (G1 from the file's bytes gave its load at 10^6 a peak RSS 70 MB over the EDN's.)
      (let [f (io/file d "600.dbcop.json")
            _ (with-open [r (java.io.RandomAccessFile. f "rw")]
                (.write r (.getBytes "[[{\"id\":0}]]" "UTF-8"))
                (.setLength r (* 600 1024 1024)))
            fs (flags (.getName f))]
        (is (some #{"-XX:+UseParallelGC"} fs) (str fs))
        (is (not-any? #{"-XX:+UseG1GC"} fs) (str fs))
        (is (some #{"-Xms928m"} fs) (str fs))
        (is (= "192" (new-size fs)) (str fs))))
    (testing "ISOCHECK_HEAP: the heap as given, no -Xms nor -XX:NewSize"
      (let [{:keys [out]} (sh d {"JAVA_HOME" (str fake) "ISOCHECK_HEAP" "8g"} (str copy "/bin/isocheck") "check" (sized 400))
            fs (str/split (str/trim (last (str/split-lines out))) #" ")]
        (is (some #{"-Xmx8g"} fs) (str fs))
        (is (nil? (new-size fs)) (str fs))))))
