(ns isocheck.cli-edges-test
  "The command line's rough edges (issue 26, item 3): inputs that can be read only once (pipes,
  FIFOs, /dev/stdin, bash's <(...)), convert refusing to overwrite its input or to drop what
  its target format cannot hold, usage errors short enough to be read, check-file's failures as
  result maps, file names with newlines, values nobody wrote, and Cobra logs with a universal
  write id."
  (:require [clojure.test :refer [deftest is testing]]
            [clojure.edn :as edn]
            [clojure.java.io :as io]
            [clojure.string :as str]
            [isocheck.core :as iso]
            [isocheck.test-util :refer [run-cli tmp-dir tmp-file valid-edn write-skew-edn sh] :rename {run-cli run}])
  (:import (java.io File)
           (java.nio.file Files Path)
           (java.util.concurrent TimeUnit)
           (java.util.zip GZIPOutputStream)))

(defn- gz-bytes ^bytes [^String s]
  (let [bo (java.io.ByteArrayOutputStream.)]
    (with-open [o (GZIPOutputStream. bo)] (.write o (.getBytes s "UTF-8")))
    (.toByteArray bo)))

(defn- no-trace? [^String err]
  (not (or (str/includes? err "Exception") (str/includes? err "\tat "))))

;; --- 1. inputs read once ------------------------------------------------------------------

(defn- with-fifo-writer
  "Makes a FIFO in a new directory, starts a subprocess writing file src into it, calls f with
  the FIFO's path, and gives f at most 60 s (a reader that opens the FIFO twice waited for
  ever for a second writer). Returns f's value, or :timed-out."
  [^String src f]
  (let [d (tmp-dir)
        fifo (str (io/file d "history.fifo"))
        _ (is (= 0 (:status (sh d {} "mkfifo" fifo))))
        writer (.start (ProcessBuilder. ^java.util.List ["sh" "-c" "exec cat \"$0\" > \"$1\"" src fifo]))
        result (future (f fifo))
        v (deref result 60000 :timed-out)]
    (when (= :timed-out v)
      (future-cancel result)
      ;; Unblock a reader still waiting in open(): a writer that opens and closes the FIFO.
      (future (with-open [_ (io/output-stream fifo)])))
    (.destroy writer)
    (.waitFor writer 10 TimeUnit/SECONDS)
    v))

(deftest check-reads-a-fifo-once
  (doseq [[label src] [["plain" (tmp-file "ws.edn" write-skew-edn)]
                       ["gzip" (tmp-file "ws.edn.gz" (gz-bytes write-skew-edn))]]]
    (testing label
      (let [r (with-fifo-writer src #(run "check" "--levels" "serializable,si" %))]
        (is (not= :timed-out r) "the FIFO is opened once: no wait for a second writer")
        (when (map? r)
          (is (= 1 (:status r)) (:err r))
          (is (re-find #"serializable +VIOLATED" (:out r)) (:out r))
          (is (= "" (:err r))))))))

(def ^:private java-cmd
  (str (System/getProperty "java.home") "/bin/java"))

(defn- main-in-shell
  "Runs `bash -c script` with $J the java command line of isocheck.cli.Main (this JVM's
  classpath) and $1 the given file."
  [dir script file]
  (sh dir {"J" (str java-cmd " -cp " (System/getProperty "java.class.path") " isocheck.cli.Main")}
      "bash" "-c" script "bash" file))

(deftest check-reads-pipes-from-the-shell
  ;; bash's <(zcat f) and `cat f | check /dev/stdin`: the sniffer once opened the path twice,
  ;; so the history's first bytes went to the size estimate and the parser blamed a valid history.
  (let [d (tmp-dir)
        plain (str (io/file d "ws.edn"))
        gz (str (io/file d "ws.edn.gz"))]
    (spit plain write-skew-edn)
    (Files/write (.toPath (io/file gz)) (gz-bytes write-skew-edn) ^"[Ljava.nio.file.OpenOption;" (make-array java.nio.file.OpenOption 0))
    (doseq [script ["$J check --levels ser <(zcat \"$1\")"
                    "$J check --levels ser <(cat \"$1\")"
                    "zcat \"$1\" | $J check --levels ser /dev/stdin"
                    "cat \"$1\" | $J check --levels ser /dev/stdin"]]
      (let [{:keys [status out err]} (main-in-shell d script gz)]
        (is (= 1 status) (str script ": " err))
        (is (re-find #"serializable +VIOLATED" out) script)
        (is (no-trace? err) script)))
    (testing "gzip through a pipe: told by its magic bytes"
      (let [{:keys [status out err]} (main-in-shell d "cat \"$1\" | $J check --levels ser /dev/stdin" gz)]
        (is (= 1 status) err)
        (is (re-find #"serializable +VIOLATED" out))))
    (testing "through bin/isocheck, from a shell pipe"
      (let [launcher (str (.getCanonicalPath (io/file ".")) "/bin/isocheck")]
        (doseq [script ["zcat \"$1\" | \"$L\" check --levels ser /dev/stdin"
                        "\"$L\" check --levels ser <(zcat \"$1\")"]]
          (let [{:keys [status out err]} (sh d {"L" launcher} "bash" "-c" script "bash" gz)]
            (is (= 1 status) (str script ": " err))
            (is (re-find #"serializable +VIOLATED" out) script)))))
    (testing "a missing file is still named so"
      (is (= "isocheck: /no/such/file.edn: no such file\n" (:err (run "check" "/no/such/file.edn")))))))

;; --- 3. usage errors: one line and where the usage is ---------------------------------------

(deftest usage-errors-are-a-line-and-a-hint
  (doseq [[args line hint] [[["check" "--bogus" "x.edn"] "unknown option --bogus" "isocheck check --help"]
                            [["check"] "check needs at least one FILE" "isocheck check --help"]
                            [["convert" "a.edn"] "convert needs --to FORMAT" "isocheck convert --help"]
                            [["chekc" "x.edn"] "unknown command chekc" "isocheck --help"]
                            [["demo" "--bogus"] "unknown option --bogus for demo" "isocheck demo --help"]
                            [["demo" "--txns" "abc"] "--txns takes a number of transactions per history, 1 or more, not abc" "isocheck demo --help"]
                            [["demo" "--txns" "0"] "--txns must be 1 or more" "isocheck demo --help"]
                            [["demo" "--txns" "-5"] "--txns must be 1 or more" "isocheck demo --help"]
                            [["demo" "--seed" "x"] "--seed takes a whole number, not x" "isocheck demo --help"]
                            [["demo" "--seed"] "--seed needs a value" "isocheck demo --help"]
                            [["demo" "file.edn"] "demo takes no files" "isocheck demo --help"]]]
    (let [{:keys [status out err]} (apply run args)
          lines (str/split-lines err)]
      (is (= 3 status) (str args))
      (is (= "" out) (str args))
      (is (= 2 (count lines)) (str args ": " err))
      (is (str/starts-with? (first lines) (str "isocheck: " line)) (str args ": " err))
      (is (= (str "isocheck: see '" hint "' for the usage") (second lines)) (str args))
      (is (not (str/includes? err "internal error")) (str args))
      (is (no-trace? err) (str args))))
  (testing "no command at all: the usage itself, on standard error, exit 3"
    (let [{:keys [status err]} (run)]
      (is (= 3 status))
      (is (str/includes? err "usage: isocheck check"))))
  (testing "--help, -h and help print the usage on standard output, exit 0"
    (doseq [args [["--help"] ["-h"] ["help"] ["check" "--help"] ["check" "-h"] ["convert" "--help"] ["demo" "--help"] ["demo" "-h"]]]
      (let [{:keys [status out err]} (apply run args)]
        (is (= 0 status) (str args))
        (is (str/starts-with? out "usage: isocheck check") (str args))
        (is (str/includes? out "isocheck demo [--seed N] [--txns N]") (str args))
        (is (= "" err) (str args))))))

;; --- 4. check-file: every failure is a result map -----------------------------------------

(deftest check-file-failures-are-result-maps
  (let [c (iso/checker {:levels [:serializable]})
        unknown? (fn [m why]
                   (is (= :unknown (:valid? m)) (pr-str m))
                   (is (string? (:error m)) (pr-str m))
                   (is (re-find why (str (:error m))) (pr-str m))
                   (is (= {:serializable {:valid? :unknown, :reason (:error m)}} (:levels m))))]
    (testing "missing"
      (unknown? (iso/check-file c "/no/such/history.edn") #"^no such file$"))
    (testing "a directory that is no history"
      (unknown? (iso/check-file c (str (tmp-dir))) #"no \.log files in .*; a Cobra history is a directory of client logs"))
    (testing "a path through a regular file"
      (unknown? (iso/check-file c (str (tmp-file "f.edn" valid-edn) "/history.edn")) #"^not a directory$"))
    (testing "unreadable"
      (let [f (io/file (tmp-file "secret.edn" valid-edn))]
        (.setReadable f false false)
        (if (.canRead f)
          ;; root reads whatever the mode: a file the kernel will not read from instead.
          (when (.exists (io/file "/proc/self/mem"))
            (unknown? (iso/check-file c "/proc/self/mem") #"(?i)input/output error"))
          (unknown? (iso/check-file c (str f)) #"^permission denied$"))))
    (testing "bad content"
      (unknown? (iso/check-file c (tmp-file "bad.edn" "{:index 0, :type :ok, :process 0, :f :txn, :value [[:foo :x 2]]}\n"))
                #"op 0 .*micro-op 0 \[:foo :x 2\]")
      (unknown? (iso/check-file c (tmp-file "bad.json" "[{\"type\": \"ok\", ")) #"."))
    (testing "an empty file: no transactions, unknown with the reason (it threw a NullPointerException)"
      (let [m (iso/check-file c (tmp-file "empty.edn" ""))]
        (is (= :unknown (:valid? m)))
        (is (re-find #"the history is empty" (:unknown-reason m)) (pr-str m))
        (is (integer? (get-in m [:stats :ms :load])))))
    (testing "an unknown :input-format is a programming error, and throws"
      (is (thrown? IllegalArgumentException (iso/check-file c (tmp-file "ok.edn" valid-edn) {:input-format :csv}))))
    (testing "and a good file still checks"
      (is (true? (:valid? (iso/check-file c (tmp-file "ok.edn" valid-edn))))))))

;; --- 5. file names with newlines ------------------------------------------------------------

(deftest names-with-newlines-stay-on-one-line
  (let [d (tmp-dir)
        odd (str (io/file d "a\nholds.edn"))
        tab (str (io/file d "t\tb.edn"))
        ws (str (io/file d "ws.edn"))
        missing (str (io/file d "gone\n.edn"))]
    (spit odd valid-edn)
    (spit tab valid-edn)
    (spit ws write-skew-edn)
    (testing "the summary: one line per history, odd names quoted and escaped"
      (let [{:keys [status out err]} (run "check" "--levels" "ser" odd tab ws missing)
            summary (drop-while #(not= "== summary" %) (str/split-lines out))]
        (is (= 1 status))
        (is (= 6 (count summary)) (str/join "\n" summary))
        (is (re-find #"^holds +\"[^\"]*/a\\nholds\.edn\"  2 txns, " (nth summary 1)) (nth summary 1))
        (is (re-find #"^holds +\"[^\"]*/t\\tb\.edn\"  " (nth summary 2)) (nth summary 2))
        (is (re-find #"^violated +[^\"]*/ws\.edn  " (nth summary 3)) "plain names as they were")
        (is (re-find #"^unreadable +\"[^\"]*/gone\\n\.edn\"  no such file$" (nth summary 4)) (nth summary 4))
        (is (str/includes? out (str "== \"" d "/a\\nholds.edn\"\n")) "the report's header line too")
        (is (= [(str "isocheck: \"" d "/gone\\n.edn\": no such file")] (str/split-lines err)) "and the error line")))
    (testing "edn: :file is the name itself (EDN escapes it)"
      (let [{:keys [out]} (run "check" "--format" "edn" "--quiet" "--levels" "ser" odd ws)]
        (is (= [odd ws] (map (comp :file edn/read-string) (str/split-lines out))))))
    (testing "report directories: no control characters in their names"
      (let [out-dir (tmp-dir)]
        (is (= 1 (:status (run "check" "--levels" "ser" "--out" (str out-dir) odd tab ws))))
        (is (= #{"a_holds" "t_b" "ws"} (set (.list out-dir))))
        (is (.exists (io/file out-dir "a_holds" "report.html"))))
      (is (= 0 (:status (run "check" "--levels" "ser" "--out-beside" odd))))
      (is (.exists (io/file d "a_holds.isocheck" "report.html")) (pr-str (seq (.list (io/file d))))))))

;; --- 2. convert: never over its input, never silently lossy --------------------------------

(def ^:private realtime-edn
  "Process 1 reads x after process 0's write of it has completed: strict serializability is
  violated (G-single-item-realtime), serializability holds."
  (str "{:index 0, :type :invoke, :process 0, :f :txn, :value [[:w 1 1]], :time 10}\n"
       "{:index 1, :type :ok, :process 0, :f :txn, :value [[:w 1 1]], :time 20}\n"
       "{:index 2, :type :invoke, :process 1, :f :txn, :value [[:r 1 nil]], :time 30}\n"
       "{:index 3, :type :ok, :process 1, :f :txn, :value [[:r 1 nil]], :time 40}\n"))

(deftest convert-never-overwrites-its-input
  (let [d (tmp-dir)
        in (io/file d "h.edn")
        p (fn [& xs] (str (apply io/file d xs)))]
    (spit in realtime-edn)
    (Files/createSymbolicLink (.toPath (io/file d "sym.edn")) (.toPath in) (make-array java.nio.file.attribute.FileAttribute 0))
    (Files/createLink (.toPath (io/file d "hard.edn")) (.toPath in))
    (doseq [[out to why] [[(p "h.edn") "json" "is IN itself"]
                          [(str d "/./h.edn") "edn" "is IN itself"]
                          [(p "sym.edn") "json" "is a symbolic link to IN"]
                          [(p "hard.edn") "edn" "is IN (" ]
                          [(p "h.edn") "dbcop" "is IN itself"]]]
      (let [{:keys [status out err]} (run "convert" "--lossy" "--to" to (str in) out)]
        (is (= 3 status) out)
        (is (= 1 (count (str/split-lines err))) err)
        (is (str/includes? err why) err)
        (is (str/includes? err "give another OUT") err)
        (is (= realtime-edn (slurp in)) "the history is as it was")))
    (testing "IN a link to OUT"
      (let [{:keys [status err]} (run "convert" "--to" "json" (p "sym.edn") (str in))]
        (is (= 3 status))
        (is (str/includes? err "is what IN") err)))
    (testing "another OUT still converts"
      (is (= 0 (:status (run "convert" "--to" "json" (str in) (p "h.json"))))))))

(deftest convert-refuses-to-drop-the-realtime-order
  (let [in (tmp-file "rt.edn" realtime-edn)]
    (is (= 1 (:status (run "check" "--levels" "sser" in))) "the original violates strict serializability")
    (doseq [to ["plume" "dbcop" "dbcop-bincode" "cobra"]]
      (testing to
        (let [out (str (io/file (tmp-dir) "out"))
              {:keys [status err]} (run "convert" "--to" to in out)]
          (is (= 3 status))
          (is (= 1 (count (str/split-lines err))) err)
          (is (re-find #": converting to .* would drop 2 invocations and 4 :time values \(the first: op 0, :index 0, the invocation of T1 of process 0 at :time 10\): .*keeps each session's transactions in order, not when they ran, .*convert --lossy drops them$"
                       (str/trim err)) err)
          (is (not (.exists (io/file out))) "nothing written"))
        (let [out (str (io/file (tmp-dir) "out"))
              {:keys [status out] :as r} (run "convert" "--lossy" "--to" to in out)]
          (is (= 0 status) (:err r))
          (is (str/includes? out "(--lossy: 2 invocations and 4 :time values dropped)") out))))
    (testing "what --lossy drops changes the verdict: why it is refused"
      (let [out (str (io/file (tmp-dir) "out.json"))]
        (run "convert" "--lossy" "--to" "dbcop" in out)
        (is (= 0 (:status (run "check" "--levels" "sser" out))))))
    (testing "EDN and JSON keep every op: no refusal"
      (is (= 0 (:status (run "convert" "--to" "json" in (str (io/file (tmp-dir) "o.json")))))))
    (testing "a history without invocations or times converts as before"
      (let [in2 (tmp-file "c.edn" (str "{:index 0, :type :ok, :process 0, :f :txn, :value [[:w 1 1]]}\n"
                                      "{:index 1, :type :ok, :process 1, :f :txn, :value [[:r 1 1]]}\n"))
            {:keys [status out err]} (run "convert" "--to" "dbcop" in2 (str (io/file (tmp-dir) "o.json")))]
        (is (= 0 status) err)
        (is (not (str/includes? out "lossy")))))))

;; --- 6. a value nobody wrote passes no level ----------------------------------------------

(def ^:private thin-air
  "Per workload: a read of a value (an element) nobody wrote, beside a correct write."
  {:rw-register (str "{:index 0, :type :ok, :process 0, :f :txn, :value [[:w :x 1]]}\n"
                     "{:index 1, :type :ok, :process 1, :f :txn, :value [[:r :x 2]]}\n")
   :list-append (str "{:index 0, :type :ok, :process 0, :f :txn, :value [[:append :x 1]]}\n"
                     "{:index 1, :type :ok, :process 1, :f :txn, :value [[:r :x [1 2]]]}\n")})

(deftest no-level-passes-a-value-nobody-wrote
  (doseq [[wl text] thin-air]
    (testing (name wl)
      (testing "through core: every level, read uncommitted and cut isolation included"
        (let [r (iso/check (iso/checker {:levels iso/implemented-levels}) (edn/read-string (str "[" text "]")))]
          (is (false? (:valid? r)))
          (is (= {} (into {} (filter (comp not false? :valid? val)) (:levels r))) "no level holds")
          (is (= [:garbage-read] (get-in r [:levels :read-uncommitted :anomaly-types])))
          (is (= [:ThinAirRead] (get-in r [:levels :ci :anomaly-types])))
          (is (contains? (:not r) :read-uncommitted))
          (is (contains? (:not r) :ci))))
      (testing "through core, each of the two weakest levels asked alone"
        (doseq [c [(iso/read-uncommitted) (iso/ci)]]
          (is (false? (:valid? (iso/check c (edn/read-string (str "[" text "]"))))))))
      (testing "through the CLI: a gate on read-uncommitted or ci fails, exit 1"
        (let [f (tmp-file "h.edn" text)]
          (doseq [l ["read-uncommitted" "ci" "pl-1" "cut-isolation"]]
            (let [{:keys [status out]} (run "check" "--levels" l f)]
              (is (= 1 status) (str l ": " out))
              (is (re-find #"VIOLATED \((garbage-read|ThinAirRead)\)" out) out)))))))
  (testing "a value an aborted transaction wrote is still read uncommitted's to allow (G1a)"
    (let [r (iso/check (iso/read-uncommitted)
                       [{:index 0, :type :fail, :process 0, :f :txn, :value [[:w :x 1]]}
                        {:index 1, :type :ok, :process 1, :f :txn, :value [[:r :x 1]]}])]
      (is (true? (:valid? r)) (pr-str (:levels r))))))

;; --- 7. Cobra logs with VeriStrong's universal write id -------------------------------------

(defn- cobra-log
  "A Cobra client log from records [\\S id], [\\W wid key val], [\\R txn wid key val], [\\C id]."
  ^bytes [& records]
  (let [o (java.io.ByteArrayOutputStream.)
        d (java.io.DataOutputStream. o)]
    (doseq [[tag & fields] records]
      (.writeByte d (int tag))
      (doseq [f fields] (.writeLong d (long f))))
    (.flush d)
    (.toByteArray o)))

(defn- cobra-dir [logs]
  (let [d (tmp-dir)]
    (doseq [[name ^bytes bytes] logs] (Files/write (.toPath (io/file d name)) bytes ^"[Ljava.nio.file.OpenOption;" (make-array java.nio.file.OpenOption 0)))
    (str d)))

(def ^:private U 0xabddefee)
(def ^:private init 0xbebeebee)

(deftest cobra-universal-write-id-reads-by-key-and-value
  ;; VeriStrong's tpcc histories log every write with write id 0xabddefee and every read of
  ;; another transaction's write with 0xabddefee as writer and write id: the value names the
  ;; write. Two read-modify-writes of key 1's initial value (a lost update), and a read of one.
  (let [d (cobra-dir {"0.log" (cobra-log [\S 1] [\R init init 1 0] [\W U 1 10] [\C 1])
                      "1.log" (cobra-log [\S 2] [\R init init 1 0] [\W U 1 20] [\C 2])
                      "2.log" (cobra-log [\S 3] [\R U U 1 10] [\R U U 2 30] [\C 3]
                                         [\S 4] [\W U 2 30] [\R U U 1 20] [\C 4])})]
    (testing "read as its EDN twin: values are the logged values"
      (let [{:keys [status out err]} (run "convert" "--to" "edn" d "-")]
        (is (= 0 status) err)
        (is (= [[:ok 0 [[:r 1 nil] [:w 1 10]]]
                [:ok 1 [[:r 1 nil] [:w 1 20]]]
                [:ok 2 [[:r 1 10] [:r 2 30]]]
                [:ok 2 [[:w 2 30] [:r 1 20]]]]
               (map (juxt :type :process :value) (map edn/read-string (str/split-lines out)))))))
    (testing "checked: the lost update is found, reads-from by key and value"
      (let [{:keys [status out err]} (run "check" "--levels" "serializable,read-committed" d)]
        (is (= 1 status) err)
        (is (re-find #"serializable +VIOLATED \(.*lost-update.*\)" out) out)
        (is (re-find #"read-committed +holds" out) out)))
    (testing "through core too"
      (let [r (iso/check-file (iso/checker {:levels [:serializable :ci]}) d)]
        (is (false? (get-in r [:levels :serializable :valid?])) (pr-str (:levels r)))
        (is (true? (get-in r [:levels :ci :valid?])) "every read has its writer: no thin-air read")))
    (testing "a universal read of a value no one wrote is a thin-air read"
      (let [d2 (cobra-dir {"0.log" (cobra-log [\S 1] [\W U 1 10] [\C 1])
                           "1.log" (cobra-log [\S 2] [\R U U 1 99] [\C 2])})]
        (is (= [:garbage-read] (get-in (iso/check-file (iso/checker {:levels [:read-uncommitted]}) d2)
                                       [:levels :read-uncommitted :anomaly-types])))))
    (testing "mixing the universal id with plain write ids is refused, naming both"
      (let [d3 (cobra-dir {"0.log" (cobra-log [\S 1] [\W 7 1 10] [\C 1])
                           "1.log" (cobra-log [\S 2] [\R U U 1 10] [\C 2])})
            {:keys [status err]} (run "check" d3)]
        (is (= 3 status))
        (is (= 1 (count (str/split-lines err))) err)
        (is (str/includes? err "mix VeriStrong's universal write id 0xabddefee (first at 1.log, byte 9)") err)
        (is (str/includes? err "(first at 0.log, byte 9 (a write with write id 0x7))") err)))))

(deftest counterexample-time-limit-flag
  (let [f "test/resources/corpus/jepsen-mongodb/aborted-read.edn"
        edn-of (fn [& args] (let [{:keys [status out]} (apply run (concat ["check" "--format" "edn" "--levels" "sser"] args [f]))]
                              [status (edn/read-string {:default (fn [_ v] v)} out)]))]
    (let [[status r] (edn-of "--counterexample-time-limit" "0")]
      (is (= 1 status))
      (is (= :bounded (:counterexample-search r)) "a bound of 0: past it at once")
      (is (seq (:counterexamples r)) "each component still gets its first cycle"))
    (let [[status r] (edn-of "--counterexample-time-limit" "600")]
      (is (= 1 status))
      (is (= :smallest (:counterexample-search r))))
    (let [{:keys [status err]} (run "check" "--counterexample-time-limit" "-1" f)]
      (is (= 3 status))
      (is (str/includes? err "--counterexample-time-limit must be a number of seconds, 0 or more, not -1")))))
