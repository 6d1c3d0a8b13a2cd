(ns isocheck.test-runner
  "Runs every test namespace under test/ and ends with one line,
  `N passed, N failed`, counting deftests (a test passes when none of its
  assertions fails or errors). Exit status 0 when none failed, 1 otherwise.
  Usage: lein tests [namespace-regex]"
  (:require [clojure.java.io :as io]
            [clojure.string :as str]
            [clojure.test :as t]))

(defn- test-namespaces []
  (->> (file-seq (io/file "test"))
       (filter #(str/ends-with? (.getName ^java.io.File %) "_test.clj"))
       (map (fn [^java.io.File f]
              (-> (.getPath f)
                  (str/replace #"^test/" "")
                  (str/replace #"\.clj$" "")
                  (str/replace "/" ".")
                  (str/replace "_" "-")
                  symbol)))
       sort))

(defn -main [& [pattern]]
  (let [nss     (cond->> (test-namespaces)
                  pattern (filter #(re-find (re-pattern pattern) (str %))))
        results (atom {})
        current (atom nil)
        report  t/report]
    (doseq [n nss] (require n))
    (binding [t/report (fn [m]
                         (case (:type m)
                           :begin-test-var (let [v (:var m)]
                                             (reset! current v)
                                             (swap! results assoc v :pass))
                           (:fail :error) (when-let [v @current]
                                            (swap! results assoc v :fail))
                           nil)
                         (report m))]
      (apply t/run-tests nss))
    (let [failed (count (filter #{:fail} (vals @results)))
          passed (count (filter #{:pass} (vals @results)))]
      (when (pos? failed)
        (println "\nFailed tests:")
        (doseq [[v r] (sort-by (comp str key) @results) :when (= :fail r)]
          (println "  " (str v))))
      (println)
      (println (str passed " passed, " failed " failed"))
      (shutdown-agents)
      (System/exit (if (zero? failed) 0 1)))))
