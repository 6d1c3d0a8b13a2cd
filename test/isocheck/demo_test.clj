(ns isocheck.demo-test
  "The demo agrees with the simulated store: every verdict matches what the
  store guarantees or what its injected bug breaks, on both workloads, and the
  rw-register long fork and lost update are found by the version-order search."
  (:require [clojure.string :as str]
            [clojure.test :refer [deftest is testing]]
            [isocheck.demo :as demo]))

(deftest demo-verdicts-match-the-simulated-store
  (let [status (atom nil)
        out (with-out-str (reset! status (demo/-main ["--txns" "2000" "--seed" "7"])))
        row (fn [title label]
              (let [section (second (str/split out (re-pattern (str "\\Q" title "\\E"))))]
                (first (filter #(str/starts-with? % label) (str/split-lines section)))))]
    (is (= 0 @status) "no verdict contradicts the simulated store")
    (is (str/includes? out "(0 such)"))
    (testing "rw-register rows: bugs fire and are reported under their names"
      (let [lf (row "rw-register histories" "SI store + long fork")
            lu (row "rw-register histories" "SI store + lost update")]
        (is (re-find #"G-nonadjacent" lf) lf)
        (is (not (str/includes? lf "did not fire")) lf)
        (is (re-find #"lost-update" lu) lu)))
    (is (str/includes? out "== rw-register, SI store + long fork: G-nonadjacent"))
    (testing "mini-transaction rows: the MT checker decides, and names what it finds after MTC's Table I"
      (let [lu (row "mini-transaction histories" "SI store + lost update")]
        (is (re-find #"path :fast: lost-update" lu) lu))
      (is (re-find #"path :(fast|chains|general)" (row "mini-transaction histories" "SI store, correct")))
      (is (str/includes? out "== mini-transactions, SI store + lost update: lost-update"))
      (is (str/includes? out "(LostUpdate in MTC")))))
