(ns isocheck.store-test
  "Stored Jepsen runs and progress on long checks (issue 10, items 3 and 6).

  - `check` takes Jepsen's store directories: a run (store/<test>/<time>/),
    a test (store/<test>/) and the store itself, in the order the README
    gives, symlinks (latest, current) skipped and no run checked twice.
  - With several histories: a summary line per history and a tally (text:
    on standard output; edn/json: on standard error), each printed map
    naming its :file; exit 1 if any is violated, else 3 if any is
    unreadable, else 2 if any is unknown (issue 25, item 5).
  - A run of a store or test with no history (crashed, or still running)
    is skipped, listed as unfinished; cli_test has the cases of issue 25,
    item 5.
  - --out-beside writes each report into the run's own directory.
  - Progress lines on standard error once a check passes a threshold (the
    tests set it to 0 through the system properties), none with --quiet or
    for a short check; inside Jepsen, through clojure.tools.logging when it
    is there (here a stub namespace made for the test, or the real one)."
  (:require [clojure.test :refer [deftest is testing]]
            [clojure.edn :as edn]
            [clojure.java.io :as io]
            [clojure.string :as str]
            [isocheck.core :as iso]
            [isocheck.jepsen :as j]
            [isocheck.test-util :refer [h ok run-cli tmp-dir valid-edn write-skew-edn sh] :rename {run-cli run}])
  (:import (isocheck.cli Main)
           (isocheck.util HeldProgress Progress ProgressMeter)
           (java.io ByteArrayOutputStream File PrintStream RandomAccessFile)
           (java.nio.file Files LinkOption Path)
           (java.nio.file.attribute FileAttribute)
           (java.util.concurrent CopyOnWriteArrayList)
           (java.util.function Consumer)
           (java.util.zip GZIPOutputStream)))

(def register-edn
  (str "{:index 0, :type :ok, :process 0, :f :txn, :value [[:w :x 1]]}\n"
       "{:index 1, :type :ok, :process 1, :f :txn, :value [[:w :x 2]]}\n"
       "{:index 2, :type :ok, :process 2, :f :txn, :value [[:r :x 1]]}\n"))

(defn- gzip-bytes ^bytes [^String s]
  (let [o (ByteArrayOutputStream.)]
    (with-open [g (GZIPOutputStream. o)] (.write g (.getBytes s "UTF-8")))
    (.toByteArray o)))

(defn- symlink! [^File link ^String target]
  (Files/createSymbolicLink (.toPath link) (.toPath (io/file target)) (make-array FileAttribute 0)))

(defn- store!
  "A Jepsen store as jepsen.store leaves it:

      store/append/20240101T000000.000Z/history.edn      holds
      store/append/20240102T000000.000Z/history.edn      write skew: serializable violated
      store/append/20240103T000000.000Z/                  test.jepsen and jepsen.log, no history
      store/append/latest -> 20240102T000000.000Z
      store/register/20240101T000000.000Z/history.edn    holds
      store/register/20240102T000000.000Z/history.edn.gz holds
      store/register/notes/                               not a run: ignored
      store/latest -> register/20240102T000000.000Z
      store/current -> append/20240103T000000.000Z

  Returns the store directory."
  ^File []
  (let [s (io/file (tmp-dir) "store")
        put (fn [rel content]
              (let [f (io/file s rel)]
                (io/make-parents f)
                (if (bytes? content)
                  (with-open [o (io/output-stream f)] (.write o ^bytes content))
                  (spit f content))))]
    (put "append/20240101T000000.000Z/history.edn" valid-edn)
    (put "append/20240101T000000.000Z/history.txt" "0 :ok :txn ...")
    (put "append/20240101T000000.000Z/test.jepsen" "binary")
    (put "append/20240102T000000.000Z/history.edn" write-skew-edn)
    (put "append/20240103T000000.000Z/test.jepsen" "binary")
    (put "append/20240103T000000.000Z/jepsen.log" "INFO ...")
    (symlink! (io/file s "append/latest") "20240102T000000.000Z")
    (put "register/20240101T000000.000Z/history.edn" register-edn)
    (put "register/20240102T000000.000Z/history.edn.gz" (gzip-bytes register-edn))
    (put "register/notes/todo.txt" "not a run")
    (symlink! (io/file s "latest") "register/20240102T000000.000Z")
    (symlink! (io/file s "current") "append/20240103T000000.000Z")
    s))

(defn- edn-lines [out] (mapv edn/read-string (str/split-lines out)))

(defn- files-checked
  "The :file of each map --format edn prints for these arguments (several histories)."
  [& args]
  (mapv :file (edn-lines (:out (apply run "check" "--format" "edn" "--quiet" "--levels" "ser" args)))))

(deftest directories-expand-to-their-runs-in-order
  (let [s (store!)
        p (fn [& parts] (str (apply io/file s parts)))]
    (testing "the store: every test by name, every run by name; latest and current skipped"
      (is (= [(p "append/20240101T000000.000Z/history.edn")
              (p "append/20240102T000000.000Z/history.edn")
              (p "append/20240103T000000.000Z")
              (p "register/20240101T000000.000Z/history.edn")
              (p "register/20240102T000000.000Z/history.edn.gz")]
             (files-checked (str s)))))
    (testing "a test: its runs by name"
      (is (= [(p "append/20240101T000000.000Z/history.edn")
              (p "append/20240102T000000.000Z/history.edn")
              (p "append/20240103T000000.000Z")]
             (files-checked (p "append")))))
    (testing "a run, and a symlink to one, on its own: one history, so no :file"
      (let [{:keys [status out]} (run "check" "--format" "edn" "--levels" "ser" (p "append/20240102T000000.000Z"))]
        (is (= 1 status))
        (is (= 1 (count (str/split-lines out))))
        (is (nil? (:file (edn/read-string out)))))
      (is (= 0 (:status (run "check" "--levels" "ser" (p "latest"))))))
    (testing "a run reached through a symlink and through its real path is checked once"
      (is (= [(p "latest/history.edn.gz")
              (p "append/20240101T000000.000Z/history.edn")
              (p "append/20240102T000000.000Z/history.edn")
              (p "append/20240103T000000.000Z")
              (p "register/20240101T000000.000Z/history.edn")]
             (files-checked (p "latest") (str s))))
      (is (= [(p "append/20240101T000000.000Z/history.edn")
              (p "append/20240102T000000.000Z/history.edn")
              (p "append/20240103T000000.000Z")]
             (files-checked (p "append") (p "append/latest") (p "append")))
          "a directory given again adds nothing"))
    (testing "a file named explicitly is checked as given, and a directory then skips it"
      (is (= [(p "append/20240102T000000.000Z/history.edn")
              (p "append/20240101T000000.000Z/history.edn")
              (p "append/20240103T000000.000Z")]
             (files-checked (p "append/20240102T000000.000Z/history.edn") (p "append"))))
      (let [f (p "append/20240101T000000.000Z/history.edn")]
        (is (= [f f] (files-checked f f)) "a file twice is checked twice, as before")))
    (testing "a relative argument keeps its spelling"
      (let [rel (str (.relativize (.toPath (io/file (System/getProperty "user.dir"))) (.toPath (io/file s "register"))))]
        (is (= [(str rel "/20240101T000000.000Z/history.edn") (str rel "/20240102T000000.000Z/history.edn.gz")]
               (files-checked (str rel "/"))))))))

(deftest directories-without-a-history-are-unreadable-with-the-reason
  (let [s (store!)
        run3 (str (io/file s "append/20240103T000000.000Z"))]
    (testing "a run with only Jepsen's binary test.jepsen, named itself"
      (let [{:keys [status out err]} (run "check" run3)]
        (is (= 3 status))
        (is (= "" out))
        (is (= (str "isocheck: " run3 ": no history.edn in this Jepsen run (it holds jepsen.log, test.jepsen): it stopped "
                    "before its history was written, or is still running, so there is nothing to check (isocheck does not "
                    "read test.jepsen, Jepsen's binary format); a test or store directory skips such runs\n")
               err))))
    (testing "a run with only history.txt"
      (let [d (io/file (tmp-dir) "t" "20240101T000000.000Z")]
        (io/make-parents (io/file d "x"))
        (spit (io/file d "history.txt") "0 :invoke :txn [[:append 1 2]]")
        (let [{:keys [status err]} (run "check" (str d))]
          (is (= 3 status))
          (is (str/includes? err "only history.txt, whose text loses the values' types; isocheck reads history.edn")))))
    (testing "a directory with no run at all"
      (let [d (tmp-dir)]
        (.mkdirs (io/file d "empty-test"))
        (let [{:keys [status out err]} (run "check" "--format" "edn" (str d))]
          (is (= 3 status))
          (is (= {:valid? :unknown, :file (str d)} (dissoc (edn/read-string out) :error)))
          (is (= 1 (count (str/split-lines err))))
          (is (str/includes? err "a directory with no Jepsen run in it: no history.edn in it, in its subdirectories")))))))

(def ^:private summary-line
  #"(?m)^(holds|violated|unknown|unreadable|unfinished) +(\S+)  (?:(\d+) txns, (\d+\.\d) s(?:  (.*))?|(.*))$")

(defn- summary
  "The summary block of a text or stderr output: [[verdict file txns rest] ...] and the tally line."
  [^String s]
  (let [at (str/index-of s "== summary\n")
        block (subs s (+ at (count "== summary\n")))
        lines (str/split-lines block)]
    {:rows (mapv (fn [l]
                   (let [[_ v f txns _ more failure] (re-matches summary-line l)]
                     [v f (some-> txns Long/parseLong) (or more failure)]))
                 (butlast lines))
     :tally (last lines)}))

(deftest summary-line-per-history-and-tally
  (let [s (store!)
        p (fn [& parts] (str (apply io/file s parts)))]
    (testing "text: after the reports, on standard output"
      (let [{:keys [status out err]} (run "check" "--levels" "ser,si" (str s))
            {:keys [rows tally]} (summary out)]
        (is (= 1 status) "a violation; the unfinished run is skipped")
        (is (str/ends-with? out (str tally "\n")) "the tally is the last line")
        (is (< (str/last-index-of out (str "== " (p "register/20240102T000000.000Z/history.edn.gz")))
               (str/index-of out "== summary")))
        (is (= [["holds" (p "append/20240101T000000.000Z/history.edn") 2 nil]
                ["violated" (p "append/20240102T000000.000Z/history.edn") 2 "serializable: G2-item"]
                ["unfinished" (p "append/20240103T000000.000Z")
                 nil "no history.edn: stopped before its history was written, or still running (it holds jepsen.log, test.jepsen)"]
                ["holds" (p "register/20240101T000000.000Z/history.edn") 3 nil]
                ["holds" (p "register/20240102T000000.000Z/history.edn.gz") 3 nil]]
               rows))
        (is (= "4 files: 3 hold, 1 violated, 0 unknown, 0 unreadable; 1 unfinished run skipped" tally))
        (is (= "" err) "stderr: nothing; a skipped run is no error")))
    (testing "levels grouped by the anomalies that rule them out; unknown levels named"
      (let [d (tmp-dir)
            a (str (io/file d "ws.edn"))
            b (str (io/file d "empty.edn"))]
        (spit a write-skew-edn)
        (spit b "")
        (let [{:keys [status out]} (run "check" "--levels" "sser,ser,si,gsi" a b)
              {:keys [rows tally]} (summary out)]
          (is (= 1 status))
          ;; gsi holds on a write skew (snapshot isolation does); the empty history's levels are unknown.
          (is (= [["violated" a 2 "strict-serializable, serializable: G2-item"]
                  ["unknown" b 0 "unknown: strict-serializable, serializable, snapshot-isolation, gsi"]]
                 rows))
          (is (= "2 files: 0 hold, 1 violated, 1 unknown, 0 unreadable" tally)))))
    (testing "edn and json: one map per history on standard output, the summary on standard error"
      (doseq [fmt ["edn" "json"]]
        (let [{:keys [status out err]} (run "check" "--format" fmt "--levels" "ser" (p "append"))]
          (is (= 1 status))
          (is (= 3 (count (str/split-lines out))) fmt)
          (is (not (str/includes? out "== summary")))
          (is (every? #(or (str/starts-with? % "{:valid?") (str/starts-with? % "{\"valid?\"")) (str/split-lines out)))
          (is (= "2 files: 1 hold, 1 violated, 0 unknown, 0 unreadable; 1 unfinished run skipped" (:tally (summary err))) fmt)))
      (testing "--quiet drops it there"
        (let [{:keys [out err]} (run "check" "--format" "edn" "--quiet" "--levels" "ser" (p "append") "/no/such/file.edn")]
          (is (= 4 (count (str/split-lines out))))
          (is (not (str/includes? err "== summary")))
          (is (= "isocheck: /no/such/file.edn: no such file\n" err) "errors are still said"))))
    (testing "one history: no summary"
      (is (not (str/includes? (:out (run "check" (p "append/20240101T000000.000Z"))) "== summary"))))
    (testing "exit status over several histories: 1 if any is violated, else 3, else 2"
      (is (= 0 (:status (run "check" "--levels" "ser" (p "register")))))
      (is (= 1 (:status (run "check" "--levels" "ser" (p "register") (p "append/latest")))))
      ;; An empty history: every level unknown (no transactions), none violated.
      (let [e (str (io/file (tmp-dir) "empty.edn"))]
        (spit e "")
        (is (= 2 (:status (run "check" "--levels" "ser" (p "register") e))))
        (is (= 1 (:status (run "check" "--levels" "ser" (p "register") e (p "append/latest"))))))
      ;; current: the unfinished run, named itself, so an error; a violation still outranks it.
      (is (= 1 (:status (run "check" "--levels" "ser" (p "register") (p "append/latest") (p "current")))))
      (is (= 3 (:status (run "check" "--levels" "ser" (p "register") (p "current"))))))))

(defn- files-under [^File dir]
  (set (for [^File f (file-seq dir) :when (.isFile f)]
         (subs (.getPath f) (inc (count (.getPath dir)))))))

(deftest out-beside-writes-into-each-run
  (let [s (store!)
        p (fn [& parts] (str (apply io/file s parts)))]
    (let [{:keys [status out]} (run "check" "--levels" "ser" "--out-beside" (p "append"))]
      (is (= 1 status))
      (is (= #{"report.html" "report.txt" "result.edn" "result.json"}
             (files-under (io/file (p "append/20240101T000000.000Z/isocheck")))))
      (is (.exists (io/file (p "append/20240102T000000.000Z/isocheck/G2-item.dot"))))
      (is (= [:G2-item] (:anomaly-types (edn/read-string (slurp (p "append/20240102T000000.000Z/isocheck/result.edn"))))))
      (is (not (.exists (io/file (p "append/20240103T000000.000Z/isocheck")))) "no report for a run without a history")
      (is (str/includes? out (str "report: " (p "append/20240102T000000.000Z/isocheck/report.html")))))
    (testing "a run reached through latest: its own directory"
      (is (= 0 (:status (run "check" "--levels" "ser" "--out-beside" (p "latest")))))
      (is (.exists (io/file (p "register/20240102T000000.000Z/isocheck/report.html")))))
    (testing "checked again, the run's report is replaced, not merged"
      (spit (p "append/20240102T000000.000Z/history.edn") valid-edn)
      (run "check" "--levels" "ser" "--out-beside" (p "append/20240102T000000.000Z"))
      (is (= #{"report.html" "report.txt" "result.edn" "result.json"}
             (files-under (io/file (p "append/20240102T000000.000Z/isocheck"))))))
    (testing "other files: <name>.isocheck beside them; a directory that would repeat gets -2"
      (let [d (tmp-dir)
            a (io/file d "a.edn")
            h1 (io/file d "history.edn")
            h2 (io/file d "history.edn.gz")]
        (spit a valid-edn)
        (spit h1 valid-edn)
        (with-open [o (io/output-stream h2)] (.write o (gzip-bytes valid-edn)))
        (is (= 0 (:status (run "check" "--out-beside" (str a) (str h1) (str h2)))))
        (is (.exists (io/file d "a.isocheck/report.html")))
        (is (.exists (io/file d "isocheck/report.html")))
        (is (.exists (io/file d "isocheck-2/report.html")))))
    (testing "bad usage"
      (let [{:keys [status err]} (run "check" "--out" "x" "--out-beside" (p "append"))]
        (is (= 3 status))
        (is (str/starts-with? err "isocheck: --out DIR and --out-beside exclude each other")))
      (let [{:keys [status err]} (run "check" "--out-beside" "-")]
        (is (= 3 status))
        (is (str/starts-with? err "isocheck: --out-beside writes each report beside its history, and standard input has no directory"))))
    (testing "--out DIR with a store: DIR/<test>/<time>/, as for store/*/*/history.edn"
      (let [out (tmp-dir)]
        (run "check" "--levels" "ser" "--out" (str out) (str s))
        (is (= #{"append/20240101T000000.000Z" "append/20240102T000000.000Z"
                 "register/20240101T000000.000Z" "register/20240102T000000.000Z"}
               (set (for [f (files-under out)] (subs f 0 (str/last-index-of f "/"))))))))))

;; --- progress -----------------------------------------------------------------------------

(defn- with-progress
  "Runs f with the progress threshold and interval system properties set (nil: cleared)."
  [after every f]
  (let [props {ProgressMeter/AFTER_PROPERTY after, ProgressMeter/EVERY_PROPERTY every}
        old (into {} (for [k (keys props)] [k (System/getProperty k)]))
        put! (fn [m] (doseq [[k v] m] (if v (System/setProperty k (str v)) (System/clearProperty k))))]
    (put! props)
    (try (f) (finally (put! old)))))

(def ^:private progress-line #"isocheck: (.+?): \[(\d+\.\d) s\] (.+)")

(defn- progress-stages [file ^String err]
  (vec (for [l (str/split-lines err)
             :let [[_ f _ stage] (re-matches progress-line l)]
             :when (= f file)]
         stage)))

(deftest progress-lines-past-the-threshold
  (let [d (tmp-dir)
        a (str (io/file d "ws.edn"))
        w (str (io/file d "wr.edn"))]
    (spit a write-skew-edn)
    (spit w register-edn)
    (with-progress 0 0
      (fn []
        (testing "every stage, on standard error only"
          ;; (serializable and tcc: no level asked keeps session order and holds, which would imply
          ;; the weak levels without checking them)
          (let [{:keys [status out err]} (run "check" "--format" "edn" "--levels" "serializable,tcc" a)
                stages (progress-stages a err)]
            (is (= 1 status))
            (is (= false (:valid? (edn/read-string out))) "standard output: the result map alone")
            (is (every? #(re-matches progress-line %) (str/split-lines err)) err)
            (is (re-matches #"loading \d+% \(\d+ KB of \d+ KB\)" (first stages)) (first stages))
            (is (some #{"loading 100% (0 KB of 0 KB)"} stages) "the file read to its end")
            (doseq [s ["analysis" "graph" "cycles" "counterexamples 0% (0 of 1 cyclic components)"
                       "weak levels: reads and writes" "weak levels: causal order" "tcc: commit order"]]
              (is (some #{s} stages) s))
            (is (< (.indexOf stages "analysis") (.indexOf stages "graph") (.indexOf stages "cycles")
                   (.indexOf stages "weak levels: reads and writes") (.indexOf stages "tcc: commit order"))
                "in the order the check runs them")))
        (testing "the version-order search's stages, per level"
          ;; (serializable is searched through strong-session serializability first, which implies it)
          (let [stages (progress-stages w (:err (run "check" "--levels" "ser" w)))]
            (is (some #(re-matches #"(strong-session-)?serializable: time-ordered schedule" %) stages) (pr-str stages)))
          ;; Blind writers of x and y, and a read of x from one and y from the other: no schedule
          ;; serializes it, and the writes' order is not in the history, so the polygraph is searched.
          (let [skew (str (io/file d "skew.edn"))
                _ (spit skew (str "{:type :ok, :process 0, :f :txn, :value [[:w :x 1] [:w :y 1]]}\n"
                                  "{:type :ok, :process 1, :f :txn, :value [[:w :x 2] [:w :y 2]]}\n"
                                  "{:type :ok, :process 2, :f :txn, :value [[:r :x 1] [:r :y 2]]}\n"))
                stages (progress-stages skew (:err (run "check" "--levels" "ser" skew)))]
            (is (some #(re-matches #"(strong-session-)?serializable: polygraph" %) stages) (pr-str stages))
            (is (some #(re-matches #"(strong-session-)?serializable: known graph" %) stages) (pr-str stages))))
        (testing "with --out, the report too"
          (is (some #{"writing the report"} (progress-stages a (:err (run "check" "--out" (str (io/file d "r")) a))))))
        (testing "--quiet: none"
          (let [{:keys [status err]} (run "check" "--quiet" a)]
            (is (= 1 status))
            (is (= "" err))))
        (testing "text with several files: progress on stderr, never in the reports"
          (let [{:keys [out err]} (run "check" a w)]
            (is (seq (progress-stages w err)))
            (is (not (re-find #"\[\d+\.\d s\]" out)))))))
    (testing "the default threshold (2 s): nothing for a short check"
      (with-progress nil nil
        (fn []
          (let [{:keys [status err]} (run "check" a w)]
            (is (= 1 status))
            (is (= "" err))))))))

(defn- meter-lines
  "A meter writing into a list: [meter lines]."
  [after every]
  (let [lines (CopyOnWriteArrayList.)]
    [(ProgressMeter. "p: " (reify Consumer (accept [_ l] (.add lines l))) (long after) (long every)) lines]))

(deftest progress-meter
  (with-progress nil nil
    (fn []
      (testing "the lines: stage, fraction where known, time so far"
        (let [[^ProgressMeter m lines] (meter-lines 0 0)]
          (.stage m "loading" (* 100 1024 1024) Progress/BYTES)
          (.done m (* 50 1024 1024))
          (.stage m "serializable: pruning" 10 "constraints decided")
          (.done m 3)
          (.stage m "serializable: solver")
          (.stage m "loading" 0 Progress/BYTES)
          (.done m (* 3 1024 1024 1024))
          (.close m)
          (is (= ["loading 0% (0 KB of 100 MB)" "loading 50% (50 MB of 100 MB)"
                  "serializable: pruning 0% (0 of 10 constraints decided)"
                  "serializable: pruning 30% (3 of 10 constraints decided)"
                  "serializable: solver" "loading" "loading 3.0 GB"]
                 (mapv #(second (re-matches #"p: \[\d+\.\d s\] (.*)" %)) lines))
              (vec lines))))
      (testing "a stage that says nothing still gets a line every interval: the deliberately slow check"
        (let [[^ProgressMeter m lines] (meter-lines 0 20)]
          (.stage m "serializable: solver")
          (Thread/sleep 300)
          (.close m)
          (let [n (count lines)
                times (mapv #(Double/parseDouble (second (re-find #"\[(\d+\.\d) s\]" %))) lines)]
            (is (<= 3 n) (vec lines))
            (is (every? #(str/ends-with? % "] serializable: solver") lines))
            (is (= times (sort times)) "time goes forward")
            (is (<= 0.2 (peek times)))
            (Thread/sleep 100)
            (is (= n (count lines)) "nothing after close"))))
      (testing "work run ahead: its stages held back until the caller waits for it, then passed on"
        (let [[^ProgressMeter m lines] (meter-lines 0 0)
              held (HeldProgress. m)]
          (.stage m "counterexamples" 10 "cyclic components")
          (.stage held "strong-snapshot-isolation: polygraph" 0 nil)
          (.stage held "strong-snapshot-isolation: pruning" 8 "constraints decided")
          (.done held 2)
          (.done m 4)
          (.release held)
          (.done held 6)
          (.stage held "strong-snapshot-isolation: solver" 0 nil)
          (.close m)
          (is (= ["counterexamples 0% (0 of 10 cyclic components)" "counterexamples 40% (4 of 10 cyclic components)"
                  "strong-snapshot-isolation: pruning 0% (0 of 8 constraints decided)"
                  "strong-snapshot-isolation: pruning 25% (2 of 8 constraints decided)"
                  "strong-snapshot-isolation: pruning 75% (6 of 8 constraints decided)"
                  "strong-snapshot-isolation: solver"]
                 (mapv #(second (re-matches #"p: \[\d+\.\d s\] (.*)" %)) lines))
              (vec lines))))
      (testing "before the threshold: nothing"
        (let [[^ProgressMeter m lines] (meter-lines 60000 0)]
          (.stage m "analysis")
          (.done m 5)
          (Thread/sleep 50)
          (.close m)
          (is (empty? lines))))
      (testing "the system properties override the owner's threshold"
        (with-progress 0 0
          (fn []
            (let [[^ProgressMeter m lines] (meter-lines 60000 60000)]
              (.stage m "analysis")
              (.stage m "graph")
              (.close m)
              (is (= 2 (count lines))))))))))

;; --- inside Jepsen: clojure.tools.logging -----------------------------------------------------

(defn- with-tools-logging
  "Runs (f logged) with clojure.tools.logging's log* capturing [logger-name level message] into
  the atom logged: the real library's when it is on the classpath, else stub namespaces made
  for the test and removed after it."
  [f]
  (let [logged (atom [])
        capture (fn [logger level _throwable message] (swap! logged conj [logger level message]))]
    (if (io/resource "clojure/tools/logging.clj")
      (do (require 'clojure.tools.logging)
          (with-redefs-fn {(resolve 'clojure.tools.logging/log*)
                           (fn [logger level t message] (capture (str logger) level t message))}
            #(f logged)))
      (let [impl (create-ns 'clojure.tools.logging.impl)
            lg (create-ns 'clojure.tools.logging)]
        (intern impl 'get-logger (fn [factory logger-name] (str (name factory) "/" logger-name)))
        (intern lg '*logger-factory* :stub)
        (intern lg 'log* capture)
        (try (f logged)
             (finally (remove-ns 'clojure.tools.logging)
                      (remove-ns 'clojure.tools.logging.impl)))))))

(def write-skew (h (ok 0 [[:r :x []] [:append :y 1]]) (ok 1 [[:r :y []] [:append :x 1]])))

(deftest jepsen-checker-logs-progress-through-tools-logging
  (when-not (io/resource "clojure/tools/logging.clj")
    (is (nil? (j/progress-meter)) "without tools.logging: no meter, nothing logged"))
  (with-progress 0 0
    (fn []
      (when-not (io/resource "clojure/tools/logging.clj")
        (testing "without tools.logging the check still works, silently"
          (is (= false (:valid? (iso/check (iso/checker {:levels [:serializable]}) {} write-skew {}))))))
      (with-tools-logging
        (fn [logged]
          (let [r (iso/check (iso/checker {:levels [:serializable :tcc] :directory (str (tmp-dir))}) {} write-skew {})
                msgs (mapv #(nth % 2) @logged)]
            (is (= false (:valid? r)))
            (is (seq msgs))
            (is (every? #(= :info (second %)) @logged))
            (when-not (io/resource "clojure/tools/logging.clj")
              (is (every? #(= "stub/isocheck.core" (first %)) @logged) "logger isocheck.core"))
            (is (every? #(re-matches #"isocheck: \[\d+\.\d s\] .+" %) msgs) msgs)
            (doseq [s ["reading the history 0% (0 of 2 ops)" "analysis" "cycles" "tcc: commit order" "writing the report"]]
              (is (some #(str/ends-with? % (str "] " s)) msgs) s)))))
      (testing "the default threshold: a short check logs nothing"
        (with-progress nil nil
          (fn []
            (with-tools-logging
              (fn [logged]
                (iso/check (iso/ser) {} write-skew {})
                (is (empty? @logged))))))))))

;; --- the launcher: a directory's largest history sizes the heap -------------------------------

(def ^:private launcher (str (.getCanonicalPath (io/file ".")) "/bin/isocheck"))

(defn- max-heap
  "The -Xmx the launcher picked, from java's -XX:+PrintCommandLineFlags line."
  [{:keys [out]}]
  (some-> (re-find #"-XX:MaxHeapSize=(\d+)" out) second Long/parseLong))

(deftest launcher-sizes-the-heap-by-the-largest-run-in-a-directory
  ;; A sparse 100 MB run history (NUL bytes: exit 3 at its first byte, at once) beside a small
  ;; one: the heap is sized for 100 MB (at least) whether the file or the store is named.
  (let [s (io/file (tmp-dir) "store")
        big (io/file s "t/20240102T000000.000Z/history.edn")
        small (io/file s "t/20240101T000000.000Z/history.edn")
        flags {"JAVA_OPTS" "-XX:+PrintCommandLineFlags"}]
    (io/make-parents big)
    (io/make-parents small)
    (spit small valid-edn)
    (with-open [f (RandomAccessFile. big "rw")] (.setLength f (* 100 1000 1000)))
    (symlink! (io/file s "latest") "t/20240102T000000.000Z")
    (let [by-file (sh s flags launcher "check" "--levels" "ser" (str big))
          by-store (sh s flags launcher "check" "--levels" "ser" (str s))
          by-test (sh s flags launcher "check" "--levels" "ser" "t")
          small-only (sh s flags launcher "check" "--levels" "ser" (str small))]
      (is (= 3 (:status by-store)) (:err by-store))
      (is (str/includes? (:out by-store) "2 files: 1 hold, 0 violated, 0 unknown, 1 unreadable") (:out by-store))
      ;; (1.5 times 128 MB plus 16 bytes a byte: 2,592 MB. The small history gets the floor, half
      ;; of what the machine can give, which on a large machine is more than that.)
      (is (<= (* 1.5 (+ (* 128 1024 1024) (* 16 100 1000 1000))) (+ (max-heap by-file) (* 2 1024 1024)))
          "the heap is sized for the 100 MB history")
      (is (<= (max-heap small-only) (max-heap by-file)))
      (is (= (max-heap by-file) (max-heap by-store) (max-heap by-test))))))
