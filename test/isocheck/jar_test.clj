(ns isocheck.jar-test
  "The artefacts users get, not the source tree: what `lein jar` (also what
  `lein install` installs) and `lein uberjar` package, and how the library jar
  behaves beside a Jepsen loaded from source, in a fresh JVM, on every JDK
  installed (17, the target, and 21 or later, which Jepsen 0.3.12 and later
  need).

  What bit us: the standalone jar shipped a compiled test twin of
  jepsen.checker. Clojure prefers an __init.class newer than the source, so
  beside a Jepsen loaded from source the twin won, and jepsen.core failed to
  load (`No such var: checker/check-safe`). Here Jepsen is test-twins/, twins
  modelled on Jepsen's own source (jepsen.checker with check-safe, compose,
  noop, ...), on the classpath as source, as a Jepsen checkout is."
  (:require [clojure.edn :as edn]
            [clojure.java.io :as io]
            [clojure.string :as str]
            [clojure.test :refer [deftest is testing]]
            [isocheck.test-util :refer [sh]])
  (:import (java.io File)
           (java.util.zip ZipFile ZipEntry)))

(def ^:private root (.getCanonicalPath (io/file ".")))

(defn- entries
  "The names of the entries of a jar."
  [^File jar]
  (with-open [z (ZipFile. jar)]
    (mapv #(.getName ^ZipEntry %) (enumeration-seq (.entries z)))))

(def copy
  "A copy of the project (project.clj, README.md, src/, test/, test-twins/:
  a checkout's layout, the twins included) in a directory of its own, where
  the jars are built: lein jar, uberjar and install clean their target
  directory first, and this JVM loads the test suite's classes from the
  project's own."
  (delay
    (let [d (.toFile (java.nio.file.Files/createTempDirectory "isocheck-build"
                                                              (make-array java.nio.file.attribute.FileAttribute 0)))
          r (sh root {} "cp" "-r" "project.clj" "README.md" "src" "test" "test-twins" (str d))]
      (assert (zero? (:status r)) (:err r))
      d)))

(defn lein!
  "Runs lein with args in the project's copy; fails the test with its output
  when it does not succeed."
  [& args]
  (let [r (apply sh @copy {} "lein" args)]
    (is (= 0 (:status r)) (str "lein " (str/join " " args) ":\n" (:out r) (:err r)))
    r))

(defn- thin-jar ^File [] (io/file @copy "target" "isocheck-0.1.0-SNAPSHOT.jar"))
(defn- standalone-jar ^File [] (io/file @copy "target" "uberjar" "isocheck-0.1.0-SNAPSHOT-standalone.jar"))

(deftest the-jars-carry-isocheck-alone
  (lein! "jar")
  (lein! "uberjar")
  (testing "lein jar (and lein install): isocheck's sources and Java classes, and the manifest"
    (let [es (entries (thin-jar))
          stray (remove #(re-find #"^(isocheck/|META-INF/)" %) es)]
      (is (empty? stray) (str "entries outside isocheck/ and META-INF/: " (vec (take 20 stray))))
      (is (not-any? #(str/starts-with? % "jepsen/") es))
      (is (not-any? #(re-find #"_test\.clj$|^isocheck/test_" %) es) "no test namespace")
      (is (not-any? #(str/ends-with? % "__init.class") es)
          "no namespace compiled ahead of time: a library jar that did would pin what those namespaces load")
      (doseq [e ["isocheck/core.clj" "isocheck/workload.clj" "isocheck/jepsen.clj"
                 "isocheck/check/Checker.class" "isocheck/cli/Main.class"]]
        (is (some #{e} es) e))))
  (testing "lein uberjar: isocheck and Clojure (bin/isocheck's jar; never for a Jepsen project)"
    (let [es (entries (standalone-jar))
          stray (remove #(re-find #"^(isocheck/|clojure/|META-INF/)" %) es)]
      (is (empty? stray) (str "entries outside isocheck/, clojure/ and META-INF/: " (vec (take 20 stray))))
      (is (not-any? #(str/starts-with? % "jepsen/") es))
      (is (some #{"isocheck/demo__init.class"} es) "the demo is compiled ahead of time"))))

;; ---------------------------------------------------------------------------
;; The library jar beside a Jepsen loaded from source, in a fresh JVM

(defn- clojure-jars
  "The jars of Clojure itself on this JVM's classpath (clojure, spec.alpha,
  core.specs.alpha): what a Jepsen project brings."
  []
  (->> (str/split (System/getProperty "java.class.path") (re-pattern File/pathSeparator))
       (filter #(re-find #"/org/clojure/(clojure|spec\.alpha|core\.specs\.alpha)/" %))))

(defn jdk-releases
  "The JDKs under /usr/lib/jvm whose release is 17 or later: {release home},
  one home per release."
  []
  (let [release (fn [^File home]
                  (let [f (io/file home "release")]
                    (when (.exists f)
                      (some->> (re-find #"JAVA_VERSION=\"(\d+)" (slurp f)) second Long/parseLong))))
        homes (->> (.listFiles (io/file "/usr/lib/jvm"))
                   (filter #(.exists (io/file ^File % "bin" "java")))
                   (keep (fn [^File h] (when-let [v (release h)] [v (.getCanonicalPath h)])))
                   (filter #(<= 17 (first %)))
                   (into (sorted-map)))]
    homes))

(defn jdks
  "The homes of the JDKs to run on, oldest release first."
  []
  (vec (vals (jdk-releases))))

(def ^:private probe
  "Loads the namespaces in the order given on the command line, then reports
  what jepsen.checker holds and what isocheck's checker does through it."
  "(let [order (map symbol *command-line-args*)]
     (doseq [n order] (require n))
     (require 'jepsen.checker 'isocheck.core)
     (let [publics (set (keys (ns-publics 'jepsen.checker)))
           check-safe (resolve 'jepsen.checker/check-safe)
           compose (resolve 'jepsen.checker/compose)
           optimism (resolve 'jepsen.checker/unbridled-optimism)
           si ((resolve 'isocheck.core/si))
           h [{:index 0 :type :ok :process 0 :f :txn :value [[:r :x []] [:append :y 1]]}
              {:index 1 :type :ok :process 1 :f :txn :value [[:r :y []] [:append :x 1]]}]
           ser ((resolve 'isocheck.core/ser))]
       (prn {:publics publics
             :java (System/getProperty \"java.specification.version\")
             :checker-from (str (.getResource (clojure.lang.RT/baseLoader) \"jepsen/checker.clj\"))
             :init-class (str (.getResource (clojure.lang.RT/baseLoader) \"jepsen/checker__init.class\"))
             :safe (select-keys (check-safe ser {} h {}) [:valid? :anomaly-types])
             :composed (let [r ((resolve 'jepsen.checker/check) (compose {:si si :ser ser :optimism (optimism)}) {} h {})]
                         {:valid? (:valid? r), :si (:valid? (:si r)), :ser (:valid? (:ser r)), :optimism (:valid? (:optimism r))})})
       ;; compose's pmap leaves pool threads that would hold the JVM for a minute.
       (shutdown-agents)))")

(defn- run-probe
  "Runs the probe with java (a JDK home) on the classpath jar + Clojure +
  test-twins/ (Jepsen, from source), loading order first."
  [jdk jar order]
  (let [cp (str/join File/pathSeparator (concat [(str jar)] (clojure-jars) [(str root "/test-twins")]))
        script (File/createTempFile "isocheck-probe" ".clj")
        _ (spit script probe)
        r (apply sh root {} (str jdk "/bin/java") "-cp" cp "clojure.main" (str script) order)]
    (.delete script)
    (assoc r :result (when (zero? (:status r)) (try (edn/read-string (last (str/split-lines (:out r))))
                                                    (catch Exception _ nil))))))

(deftest the-library-jar-keeps-jepsens-checker-whole
  (when-not (.exists (thin-jar)) (lein! "jar"))
  (when-not (.exists (standalone-jar)) (lein! "uberjar"))
  (require 'jepsen.checker)
  (let [expected (set (keys (ns-publics 'jepsen.checker)))
        homes (jdks)]
    (is (every? expected '[Checker check check-safe compose noop merge-valid]) "the twin is Jepsen's shape")
    (is (some #(<= 21 %) (keys (jdk-releases)))
        (str "a JDK of release 21 or later under /usr/lib/jvm (Jepsen 0.3.12 and later need 21); found " (jdk-releases)))
    (doseq [jdk homes
            [what jar] [["lein jar" (thin-jar)] ["lein uberjar" (standalone-jar)]]
            order [["jepsen.checker" "isocheck.core"]
                   ["isocheck.core" "jepsen.checker"]
                   ["isocheck.workload" "jepsen.generator" "jepsen.checker"]]]
      (testing (str jdk ", " what ", loading " (str/join " then " order))
        (let [{:keys [status err result]} (run-probe jdk jar order)]
          (is (= 0 status) err)
          (is (= expected (:publics result)) "jepsen.checker keeps every var of its source")
          (is (str/includes? (str (:checker-from result)) "test-twins") "jepsen.checker comes from its source")
          (is (= "" (:init-class result)) "no compiled jepsen.checker on the classpath")
          (is (= {:valid? false :anomaly-types [:G2-item]} (:safe result)) "check-safe runs isocheck's checker")
          (is (= {:valid? false :si true :ser false :optimism true} (:composed result))
              "compose runs isocheck's checkers beside Jepsen's"))))))
