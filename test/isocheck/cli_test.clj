(ns isocheck.cli-test
  "The command line is a public contract: arguments, exit status (0 all hold,
  1 violated, 2 unknown, 3 bad usage or input), and --format edn|json|text."
  (:require [clojure.test :refer [deftest is testing]]
            [clojure.edn :as edn]
            [clojure.java.io :as io]
            [clojure.string :as str]
            [isocheck.cli :as cli]))

(defn- tmp-file [name content]
  (let [d (io/file (System/getProperty "java.io.tmpdir") (str "isocheck-cli-" (System/nanoTime)))]
    (.mkdirs d)
    (let [f (io/file d name)]
      (spit f content)
      (.getPath f))))

(def valid-edn
  (str "{:index 0, :type :invoke, :process 0, :f :txn, :value [[:append :x 1]]}\n"
       "{:index 1, :type :ok, :process 0, :f :txn, :value [[:append :x 1]]}\n"
       "{:index 2, :type :invoke, :process 1, :f :txn, :value [[:r :x nil]]}\n"
       "{:index 3, :type :ok, :process 1, :f :txn, :value [[:r :x [1]]]}\n"))

(def write-skew-edn
  (str "{:index 0, :type :ok, :process 0, :f :txn, :value [[:r :x []] [:append :y 1]]}\n"
       "{:index 1, :type :ok, :process 1, :f :txn, :value [[:r :y []] [:append :x 1]]}\n"))

(def register-edn "{:index 0, :type :ok, :process 0, :f :txn, :value [[:w :x 1]]}\n")

(defn- run [& args]
  (let [err (java.io.StringWriter.)
        status (atom nil)
        out (with-out-str (binding [*err* err]
                            (reset! status (try (cli/check-cmd args)
                                                (catch clojure.lang.ExceptionInfo e
                                                  (if (= ::cli/usage (:type (ex-data e))) 3 (throw e)))))))]
    {:status @status, :out out, :err (str err)}))

(deftest exit-status
  (is (= 0 (:status (run (tmp-file "ok.edn" valid-edn)))))
  (is (= 1 (:status (run (tmp-file "ws.edn" write-skew-edn)))))
  (is (= 0 (:status (run "--levels" "si" (tmp-file "ws.edn" write-skew-edn)))))
  (is (= 0 (:status (run (tmp-file "wr.edn" register-edn)))))
  (is (= 2 (:status (run "--levels" "gsi" (tmp-file "wr.edn" register-edn)))) "gsi is not implemented: unknown")
  (is (= 3 (:status (run "/no/such/file.edn"))))
  (is (= 3 (:status (run "--levels" "serialisable" (tmp-file "ok.edn" valid-edn)))))
  (is (= 3 (:status (run "--format" "xml" (tmp-file "ok.edn" valid-edn)))))
  (is (= 3 (:status (run)))))

(deftest edn-format-prints-exactly-the-result-map
  (let [{:keys [status out]} (run "--format" "edn" "--levels" "serializable,snapshot-isolation"
                                  (tmp-file "ws.edn" write-skew-edn))
        m (edn/read-string out)]
    (is (= 1 status))
    (is (= false (:valid? m)))
    (is (= [:G2-item] (:anomaly-types m)))
    (is (= {:serializable {:valid? false, :anomaly-types [:G2-item]}
            :snapshot-isolation {:valid? true}}
           (:levels m)))
    (is (integer? (get-in m [:stats :ms :load])))))

(deftest json-format
  (let [{:keys [status out]} (run "--format" "json" (tmp-file "ws.edn" write-skew-edn))]
    (is (= 1 status))
    (is (str/starts-with? out "{\"valid?\":false"))
    (is (str/includes? out "\"anomaly-types\":[\"G2-item\"]"))))

(deftest text-format-and-many-files
  (let [a (tmp-file "a.edn" valid-edn)
        b (tmp-file "b.edn" write-skew-edn)
        {:keys [status out]} (run a b)]
    (is (= 1 status) "the worst status over the files")
    (is (str/includes? out (str "== " a)))
    (is (str/includes? out "G2-item"))))

(deftest bad-input-is-one-line-naming-the-op
  (let [f (tmp-file "bad.edn" (str valid-edn "{:index 4, :type :ok, :process 2, :f :txn, :value [[:foo :x 2]]}\n"))
        {:keys [status err]} (run f)]
    (is (= 3 status))
    (is (str/includes? err "op 4 (line 5, :index 4): micro-op 0 [:foo :x 2] is neither"))
    (is (= 1 (count (str/split-lines err))))))

(deftest unparseable-edn
  (let [f (tmp-file "broken.edn" (str valid-edn "{:index 4, :type :ok, :value [[:r :x [1 2]]\n"))
        {:keys [status err]} (run "--format" "edn" f)]
    (is (= 3 status))
    (is (str/includes? err "line"))))

(deftest out-directory
  (let [f (tmp-file "ws.edn" write-skew-edn)
        dir (str (System/getProperty "java.io.tmpdir") "/isocheck-cli-out-" (System/nanoTime))
        {:keys [status]} (run "--out" dir f)]
    (is (= 1 status))
    (doseq [name ["report.html" "report.txt" "result.edn" "result.json" "G2-item.dot"]]
      (is (.exists (io/file dir name)) name))))

(deftest stdin
  (let [in (java.io.ByteArrayInputStream. (.getBytes ^String write-skew-edn "UTF-8"))
        old System/in]
    (try
      (System/setIn in)
      (is (= 1 (:status (run "-"))))
      (finally (System/setIn old)))))
