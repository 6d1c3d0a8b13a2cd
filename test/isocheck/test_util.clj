(ns isocheck.test-util
  "Small builders for literal histories, so tests read like the papers'
  figures: (h (ok 0 [[:append :x 1]]) (ok 1 [[:r :x [1]]]))."
  (:require [clojure.java.io :as io]
            [clojure.string :as str]
            [clojure.test :as t]
            [isocheck.core :as iso]
            [isocheck.jepsen :as j])
  (:import (isocheck.check Result Verdict)
           (isocheck.cli Main)
           (isocheck.verify Verify)
           (java.io ByteArrayOutputStream File PrintStream)
           (java.nio.file Files OpenOption)))

(defn verdict-strings
  "A Java Result's verdicts as {level-id \"TRUE\"|\"FALSE\"|\"UNKNOWN\"}."
  [^Result r]
  (into {} (for [[l v] (.levels r)] [(str l) (str (.value ^Verdict v))])))

(defn unbounded
  "o with no time bound on its counterexample searches, for tests that compare two checks' result
  maps: the automatic bound (a share of the check's time, floor 100 ms) can stop one run's
  search and not the other's on a loaded machine, and the maps then differ in their
  counterexamples, not their verdicts."
  ^isocheck.check.CheckOptions [^isocheck.check.CheckOptions o]
  (set! (.counterexampleMs o) Long/MAX_VALUE)
  o)

(defn op [type process mops] {:type type, :process process, :f :txn, :value mops})
(defn invoke [p mops] (op :invoke p mops))
(defn ok [p mops] (op :ok p mops))
(defn fail [p mops] (op :fail p mops))
(defn info [p mops] (op :info p mops))

(defn h
  "A history from ops, numbering :index by position."
  [& ops]
  (vec (map-indexed (fn [i o] (assoc o :index i)) ops)))

(def strong-levels
  "The serializable and snapshot-isolation levels (the weak ones have their own tests)."
  [:strict-serializable :strong-session-serializable :serializable
   :strong-snapshot-isolation :strong-session-snapshot-isolation
   :snapshot-isolation])

(defn verified
  "Runs isocheck.verify (bin/isocheck verify, sharing no code with the checker) on
  the result map r of hist, and asserts what it must find: every certificate checks
  (nothing NOT certified), every level that holds with a certificate is certified,
  and only a violated level is refuted. Returns r."
  [hist r]
  (when-not (:error r)
    (let [h (j/->history hist (get-in r [:stats :workload]))
          text (binding [*print-length* nil, *print-level* nil] (pr-str (dissoc r :report-dir)))
          o (Verify/verify h text)
          line (fn [l] (first (filter #(.startsWith ^String % (str (name l) " ")) (.lines o))))]
      (t/is (= 0 (.status o)) (str "verify: " (str/join "\n" (.lines o))))
      (doseq [[l v] (:levels r)]
        (when (and (true? (:valid? v)) (get-in r [:certificates l]))
          (t/is (.contains ^String (str (line l)) " certified (") (str "verify: " (line l))))
        (when (.contains ^String (str (line l)) " refuted (")
          (t/is (false? (:valid? v)) (str "verify refuted a level that is not violated: " (line l)))))))
  r)

(defn check
  "Checks history with the given levels (default: the six strong levels), and runs
  verify on the result ([[verified]])."
  ([hist] (check hist strong-levels))
  ([hist levels] (verified hist (iso/check (iso/checker {:levels levels}) hist))))

(defn verdict [r level] (get-in r [:levels level :valid?]))

(defn types [r] (set (:anomaly-types r)))

(defn cx-indices
  "The :index of every op in the smallest counterexample of type t."
  [r t]
  (let [c (get-in r [:counterexamples t])]
    (set (map :index (concat (:cycle c) (:ops c) (keep c [:op :writer]))))))

;; ---------------------------------------------------------------- the command line

(defn run-cli
  "Runs the Java command line (isocheck.cli.Main) in-process: {:status :out :err}."
  [& args]
  (let [out (ByteArrayOutputStream.)
        err (ByteArrayOutputStream.)
        status (Main/run (into-array String args) (PrintStream. out true "UTF-8") (PrintStream. err true "UTF-8"))]
    {:status status, :out (.toString out "UTF-8"), :err (.toString err "UTF-8")}))

(defn tmp-dir
  "A new directory under java.io.tmpdir (its canonical path)."
  ^File []
  (let [d (io/file (System/getProperty "java.io.tmpdir") (str "isocheck-test-" (System/nanoTime) "-" (rand-int 1000000)))]
    (.mkdirs d)
    (.getCanonicalFile d)))

(defn tmp-file
  "A new file named name (parent directories made) in a new directory, holding content (a
  string or bytes); its path."
  [name content]
  (let [f (io/file (tmp-dir) name)]
    (io/make-parents f)
    (if (string? content)
      (spit f content)
      (Files/write (.toPath f) ^bytes content (make-array OpenOption 0)))
    (.getPath f)))

(def valid-edn
  "A list-append history every level accepts, as a Jepsen history.edn."
  (str "{:index 0, :type :invoke, :process 0, :f :txn, :value [[:append :x 1]]}\n"
       "{:index 1, :type :ok, :process 0, :f :txn, :value [[:append :x 1]]}\n"
       "{:index 2, :type :invoke, :process 1, :f :txn, :value [[:r :x nil]]}\n"
       "{:index 3, :type :ok, :process 1, :f :txn, :value [[:r :x [1]]]}\n"))

(def write-skew-edn
  "A list-append write skew: snapshot isolation holds, serializability does not."
  (str "{:index 0, :type :ok, :process 0, :f :txn, :value [[:r :x []] [:append :y 1]]}\n"
       "{:index 1, :type :ok, :process 1, :f :txn, :value [[:r :y []] [:append :x 1]]}\n"))

(defn sh
  "Runs a command in dir with extra environment variables (a map); {:status :out :err}."
  [dir env & cmd]
  (let [pb (ProcessBuilder. ^java.util.List (vec cmd))]
    (.directory pb (io/file dir))
    (doseq [[k v] env] (.put (.environment pb) k v))
    (let [p (.start pb)
          out (future (slurp (.getInputStream p)))
          err (future (slurp (.getErrorStream p)))]
      (.close (.getOutputStream p))
      {:status (.waitFor p), :out @out, :err @err})))

(defn watched-final-check
  "[the final check (jepsen.checker/check with checker) of ops watched online by an
  isocheck.online checker made with online-opts (the History built during the run), the same
  ops checked by a final check no watch watched (read again)]. Jepsen's namespaces (the test
  twins) and isocheck.online are loaded only when called."
  [checker ops online-opts]
  (let [check    (requiring-resolve 'jepsen.checker/check)
        online   (requiring-resolve 'isocheck.online/online)
        ingest!  (requiring-resolve 'isocheck.online/ingest!)
        register! (requiring-resolve 'isocheck.online/register!)
        test     {:name "final-check", :start-time (str (java.util.UUID/randomUUID))}
        o        (online (merge {:log? false} online-opts))]
    (register! test o)
    (doseq [op ops] (ingest! o op))
    [(check checker test ops {})
     (check checker (assoc test :name "final-check, not watched") ops {})]))
