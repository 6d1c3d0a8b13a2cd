(ns isocheck.jepsen-example-test
  "The example Jepsen test of PostgreSQL (examples/jepsen, doc/jepsen.md §5)
  runs, against the PostgreSQL server examples/jdbc/servers.sh starts, with
  test-twins/ standing in for Jepsen:

  - in process, under the twin of jepsen.core/run! (which prints the test map
    first, runs real worker threads, hands ops to a nemesis thread, and gives
    a crashed client a new process);
  - as a Jepsen user gets it: `lein install` here, then a project of its own
    whose project.clj takes its dependencies from doc/jepsen.md, running
    `lein run test ...` on the newest JDK installed, with the example as its
    :main.

  A server that cannot be reached fails these tests with the command that
  starts it; they are never skipped."
  (:require [clojure.edn :as edn]
            [clojure.java.io :as io]
            [clojure.string :as str]
            [clojure.test :refer [deftest is testing]]
            [isocheck.examples.jdbc :as jdbc]
            [isocheck.examples.db :as db]
            [isocheck.jar-test :as jar-test]
            [isocheck.test-util :refer [sh]]
            [jepsen.core :as jepsen]
            [isocheck.examples.jepsen-pg :as pg])
  (:import (java.io File)
           (java.nio.file Files)
           (java.nio.file.attribute FileAttribute)))

(def ^:private url (db/url :postgres))

(defn- tmp-dir ^File []
  (.toFile (Files/createTempDirectory "isocheck-jepsen-example" (make-array FileAttribute 0))))

(defn- final-reads-cover-writes
  "Whether the final reads (:final-read? true) read every key written;
  [ok? missing]."
  [history]
  (let [txns (filter #(= :txn (:f %)) history)
        written (set (for [op txns :when (#{:ok :info} (:type op)), [f k] (:value op) :when (not= f :r)] k))
        read (set (for [op txns :when (and (:final-read? op) (= :ok (:type op))), [_ k] (:value op)] k))]
    [(and (seq read) (every? read written)) (sort (remove read written))]))

(defn- check-history [history concurrency]
  (is (not-any? #(and (= :txn (:f %)) (not (integer? (:process %)))) history)
      "no transaction went to the nemesis")
  (is (some #(and (= :kill (:f %)) (= :nemesis (:process %)) (= :info (:type %))) history)
      "the nemesis killed connections")
  (is (some #(and (= :txn (:f %)) (= :info (:type %))) history)
      "some transactions lost their connection (:info)")
  (is (some #(and (integer? (:process %)) (<= concurrency (:process %))) history)
      "a client whose connection died went on as a new process")
  (let [[ok? missing] (final-reads-cover-writes history)]
    (is ok? (str "the final reads read every key written; missing " missing))))

(deftest the-example-runs-under-the-twin-of-jepsen-core
  (if-let [msg (jdbc/check-connection :postgres url)]
    (is false msg)
    (doseq [[wl isolation holds] [[:append :serializable [:serializable :snapshot-isolation :tcc]]
                                  [:wr :repeatable-read [:snapshot-isolation :tcc]]]]
      (testing (str wl " at " isolation)
        (let [store (tmp-dir)
              t (jepsen/run! (pg/pg-test {:db-url url, :isolation isolation, :workload wl
                                          :time-limit 4, :concurrency 5, :rate 150, :kill-interval 0.7
                                          :store-dir (str store)}))
              iso (get-in t [:results :isocheck])]
          (check-history (:history t) 5)
          (doseq [l holds]
            (is (= true (get-in iso [:levels l :valid?])) (str l " holds: " (pr-str (:levels iso)))))
          (is (pos? (get-in iso [:stats :info] 0)))
          (is (.exists (io/file (:report-dir iso) "report.html")) (str (:report-dir iso)))
          (is (str/starts-with? (str (:report-dir iso)) (.getCanonicalPath store))
              "the report lands in the test's store directory"))))))

(defn- doc-dependencies
  "The :dependencies of doc/jepsen.md's example project, Jepsen left out
  (test-twins/ stands in for it)."
  []
  (let [doc (slurp "doc/jepsen.md")
        block (->> (re-seq #"(?s)```clojure\n(:dependencies.*?)```" doc) (map second)
                   (filter #(str/includes? % "postgresql")) first)]
    (->> (:dependencies (edn/read-string (str "{" block "}")))
         (remove #(= 'jepsen (first %))))))

(deftest a-jepsen-project-runs-the-example-from-the-installed-jar
  (if-let [msg (jdbc/check-connection :postgres url)]
    (is false msg)
    (let [root (.getCanonicalPath (io/file "."))
          _ (jar-test/lein! "install")
          deps (doc-dependencies)
          project (tmp-dir)
          newest (last (jar-test/jdks))]
      (is (some #(= 'isocheck (first %)) deps) (str deps))
      (spit (io/file project "project.clj")
            (pr-str `(~'defproject ~'isocheck-user "0.1.0"
                      :repositories ~(with-meta [["central" {:url "https://repo1.maven.org/maven2/"}]] {:replace true})
                      :dependencies ~(vec (cons '[org.clojure/clojure "1.11.1"] deps))
                      :source-paths [~(str root "/test-twins") ~(str root "/examples/jepsen/src")]
                      :main ~'isocheck.examples.jepsen-pg
                      ;; The jepsen.cli twin exits as Jepsen's does (0 valid, 1 invalid, 2 unknown).
                      :jvm-opts ["-Djepsen.twin.exit=true"]
                      :profiles {:base {}})))
      (let [r (sh project {"JAVA_CMD" (str newest "/bin/java")}
                  "lein" "-o" "run" "test" "--db-url" url "--time-limit" "3" "--concurrency" "4"
                  "--kill-interval" "1" "--workload" "append" "--isolation" "serializable")
            results (->> (file-seq (io/file project "store"))
                         (filter #(and (= "result.edn" (.getName ^File %))
                                       (= "isocheck" (.getName (.getParentFile ^File %))))))]
        (is (= 0 (:status r)) (str (:out r) (:err r)))
        (is (= 1 (count results)) (str "isocheck's report in store/<test>/<time>/isocheck/: " (vec results)))
        (when-let [f (first results)]
          (let [m (edn/read-string (slurp f))]
            (is (= true (:valid? m)) (pr-str (select-keys m [:valid? :levels])))
            (is (pos? (get-in m [:stats :txns])))))))))
