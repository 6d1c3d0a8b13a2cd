(ns isocheck.verify-test
  "Certificates (issue 27 item 4): every true verdict of a serializable or
  snapshot-isolation level carries a witness that `verify` (isocheck.verify,
  sharing no code with the search) accepts; a tampered one is rejected, naming
  the transaction; the CLI's verify command and its exit statuses."
  (:require [clojure.test :refer [deftest is testing]]
            [clojure.java.io :as io]
            [clojure.string :as str])
  (:import (isocheck.check Checker CheckOptions Level Verdict$Value)
           (isocheck.cli EdnPrinter Main)
           (isocheck.history History$Workload)
           (isocheck.io Formats)
           (isocheck.sim SimConfig SimConfig$KeyDist SimHistory Simulator Store)
           (isocheck.verify Verify)
           (java.io ByteArrayOutputStream PrintStream)))

(def strong
  ["strict-serializable" "strong-session-serializable" "serializable"
   "strong-snapshot-isolation" "strong-session-snapshot-isolation" "gsi" "snapshot-isolation"])

(defn- levels [names] (mapv #(Level/parse %) names))

(defn- sim ^SimHistory [seed store workload txns sessions keys ops]
  (Simulator/history
    (-> (SimConfig/builder)
        (.seed (long seed)) (.store store) (.workload workload) (.txns (int txns))
        (.sessions (int sessions)) (.keys (int keys)) (.opsPerTxn 1 (int ops))
        (.keyDist (nth [SimConfig$KeyDist/UNIFORM SimConfig$KeyDist/ZIPF SimConfig$KeyDist/HOTSPOT] (mod seed 3)))
        .build)))

(defn- verify-data
  "Checks h at the strong levels; [result-data verify-outcome]."
  [h]
  (let [r (Checker/check h (.levels (CheckOptions.) (levels strong)))
        data (.toData r)]
    [r data (Verify/verify h (EdnPrinter/str data))]))

(defn- line-of [^isocheck.verify.Verify$Outcome o level]
  (first (filter #(str/starts-with? % (str level " ")) (.lines o))))

(deftest every-true-strong-verdict-is-certified
  (let [problems (atom [])
        trues (atom 0)]
    (doseq [i (range 16)
            store [Store/STRICT_SERIALIZABLE Store/SERIALIZABLE Store/SNAPSHOT_ISOLATION]
            workload [History$Workload/APPEND History$Workload/REGISTER]]
      (let [sh (sim (+ 2000 i) store workload (nth [30 120 400] (mod i 3)) (nth [2 3 5 10] (mod i 4))
                    (nth [3 10 50] (mod (quot i 3) 3)) (nth [2 4 6] (mod i 3)))
            h (.history sh)
            [r data o] (verify-data h)]
        (when-not (= 0 (.status o))
          (swap! problems conj (str store " " workload " seed " (+ 2000 i) ": " (str/join "\n" (.lines o)))))
        (doseq [[^Level l v] (.levels r)
                :when (= Verdict$Value/TRUE (.value ^isocheck.check.Verdict v))]
          (swap! trues inc)
          (when-not (some-> (line-of o (.id l)) (str/includes? " certified ("))
            (swap! problems conj (str store " " workload " seed " (+ 2000 i) ": " (.id l) " holds without a certificate: "
                                      (line-of o (.id l)) " " (get-in (into {} (.toData r)) ["stats"])))))))
    (is (< 100 @trues) "not vacuous: many levels held")
    (is (empty? @problems) (str (count @problems) " problems, first:\n" (first @problems)))))

(defn- verify-text [file result-edn]
  (Verify/verify (Formats/readHistory file nil) result-edn))

(def rt-file "test/resources/verify/rt.edn")

(deftest tampered-certificates-are-rejected-naming-the-transaction
  (testing "a serial order that breaks realtime order: serializable, not strict"
    (let [o (verify-text rt-file (str "{:levels {:serializable {:valid? true} :strict-serializable {:valid? true}}"
                                      " :certificates {:serializable {:serial-order [3 1 7 5]}"
                                      "                :strict-serializable {:serial-order [3 1 7 5]}}}"))]
      (is (= 1 (.status o)))
      (is (str/includes? (line-of o "serializable") "certified (serial order of 4 transactions replayed)"))
      (is (str/includes? (line-of o "strict-serializable") "NOT certified: T1 completed before T3 was invoked"))))
  (testing "a read moved before its writer"
    (let [o (verify-text rt-file "{:levels {:serializable {:valid? true}} :certificates {:serializable {:serial-order [5 1 3 7]}}}")]
      (is (= 1 (.status o)))
      (is (str/includes? (line-of o "serializable")
                         "NOT certified: T5 read key :x as 1, but no transaction before it in the certificate writes it (nil)"))))
  (testing "another order that keeps every read: accepted"
    (let [o (verify-text rt-file "{:levels {:serializable {:valid? true}} :certificates {:serializable {:serial-order [1 3 7 5]}}}")]
      (is (= 0 (.status o)) (str (.lines o)))))
  (testing "snapshot isolation: a snapshot taken before the writer commits; two writers that overlap"
    (let [o (verify-text rt-file (str "{:levels {:snapshot-isolation {:valid? true}}"
                                      " :certificates {:snapshot-isolation {:start-commit-order [1 5 1 5 3 3 7 7]}}}"))]
      (is (str/includes? (line-of o "snapshot-isolation")
                         "NOT certified: T5 read key :x as 1, but no transaction committed before its start in the certificate writes it (nil)")))
    (let [o (verify-text rt-file (str "{:levels {:snapshot-isolation {:valid? true}}"
                                      " :certificates {:snapshot-isolation {:start-commit-order [1 1 3 7 3 7 5 5]}}}"))]
      (is (str/includes? (line-of o "snapshot-isolation") "NOT certified: T7 and T3 both write key :y and overlap")))
    (let [o (verify-text rt-file (str "{:levels {:gsi {:valid? true}}"
                                      " :certificates {:gsi {:start-commit-order [1 1 3 3 7 5 5 7]}}}"))]
      (is (= 0 (.status o)) (str (.lines o))))
    (let [o (verify-text rt-file (str "{:levels {:gsi {:valid? true}}"
                                      " :certificates {:gsi {:start-commit-order [1 1 3 3 7 7 5 5]}}}"))]
      (is (str/includes? (line-of o "gsi") "NOT certified: T5 completed before T7 was invoked, but the certificate commits the later one first"))))
  (testing "a transaction left out, or named twice"
    (let [o (verify-text rt-file "{:levels {:serializable {:valid? true}} :certificates {:serializable {:serial-order [1 3 5]}}}")]
      (is (str/includes? (line-of o "serializable") "NOT certified: T7 completed :ok but is not in the serial order")))
    (let [o (verify-text rt-file "{:levels {:serializable {:valid? true}} :certificates {:serializable {:serial-order [1 3 3 5 7]}}}")]
      (is (str/includes? (line-of o "serializable") "NOT certified: T3 is in the serial order twice"))))
  (testing "a simulated history's certificate, reversed"
    (let [h (.history (sim 7 Store/STRICT_SERIALIZABLE History$Workload/APPEND 200 5 5 4))
          [_ data o] (verify-data h)
          certs (get data "certificates")
          ser (get certs (isocheck.history.Kw. "serializable"))]
      (is (= 0 (.status o)))
      (java.util.Collections/reverse (get ser "serial-order"))
      (let [o2 (Verify/verify h (EdnPrinter/str data))]
        (is (= 1 (.status o2)))
        (is (re-find #"^serializable +NOT certified: T\d+ " (line-of o2 "serializable")) (str (.lines o2)))))))

(deftest corpus-histories-check-then-verify
  (doseq [f (concat (.listFiles (io/file "test/resources/corpus/postgres-list-append"))
                    (.listFiles (io/file "test/resources/corpus/jepsen-mongodb"))
                    (.listFiles (io/file "test/resources/corpus/plume-taps")))
          :let [h (Formats/readHistory (str f) nil)
                [r _ o] (verify-data h)]]
    (is (= 0 (.status o)) (str f "\n" (str/join "\n" (.lines o))))
    (doseq [[^Level l v] (.levels r)
            :when (= Verdict$Value/TRUE (.value ^isocheck.check.Verdict v))]
      (is (str/includes? (line-of o (.id l)) " certified (") (str f " " (.id l))))))

(defn- cli [& args]
  (let [out (ByteArrayOutputStream.) err (ByteArrayOutputStream.)
        status (Main/run (into-array String args) (PrintStream. out true "UTF-8") (PrintStream. err true "UTF-8"))]
    {:status status :out (.toString out "UTF-8") :err (.toString err "UTF-8")}))

(deftest verify-command
  (let [dir (doto (io/file "target/verify-test") .mkdirs)
        hist "test/resources/corpus/postgres-list-append/sess2-history0.edn"
        res (io/file dir "result.edn")
        checked (cli "check" "--quiet" "--levels" "serializable,snapshot-isolation" "--format" "json" hist)]
    (testing "json result: every certificate checks, exit 0"
      (spit res (:out checked))
      (let [{:keys [status out]} (cli "verify" hist (str res))]
        (is (= 0 status) out)
        (is (re-find #"(?m)^serializable +certified \(serial order of 200 transactions replayed\)$" out))
        (is (re-find #"(?m)^snapshot-isolation +certified \(start/commit order of 200 transactions replayed\)$" out))))
    (testing "a tampered certificate (its first transaction left out): exit 1"
      (spit res (str/replace (:out checked) #"\"serial-order\":\[\d+," "\"serial-order\":["))
      (let [{:keys [status out]} (cli "verify" hist (str res))]
        (is (= 1 status) out)
        (is (re-find #"(?m)^serializable +NOT certified: T\d+ completed :ok but is not in the serial order$" out))))
    (testing "--no-certificates: none in the result; verify says so, exit 0"
      (let [plain (cli "check" "--quiet" "--no-certificates" "--levels" "serializable" "--format" "edn" hist)]
        (is (not (str/includes? (:out plain) ":certificates")))
        (spit res (:out plain))
        (let [{:keys [status out]} (cli "verify" hist (str res))]
          (is (= 0 status))
          (is (re-find #"(?m)^serializable +no certificate$" out)))))
    (testing "bad input: one line, exit 3"
      (spit res "{:levels")
      (doseq [args [["verify" hist (str res)] ["verify" hist "target/verify-test/none.edn"]
                    ["verify" "target/verify-test/none.edn" hist] ["verify" hist]]]
        (let [{:keys [status err]} (apply cli args)]
          (is (= 3 status) (str args))
          (is (= 1 (count (str/split-lines err))) err)
          (is (str/starts-with? err "isocheck: ") err))))))

(defn- serial-rmw-history
  "A serial store's history of read-modify-write mini-transactions: each reads a
  key's current value and writes a fresh one (sometimes two keys), 3 processes,
  one transaction at a time; as EDN lines."
  [seed n]
  (let [rnd (java.util.Random. seed)]
    (loop [i 0, state {}, out []]
      (if (= i n)
        (str/join "\n" (map pr-str (map-indexed #(assoc %2 :index %1) out)))
        (let [ks (distinct (repeatedly (inc (.nextInt rnd 2)) #(.nextInt rnd 6)))
              inv (vec (mapcat (fn [k] [[:r k nil] [:w k (inc i)]]) ks))
              ok (vec (mapcat (fn [k] [[:r k (state k)] [:w k (inc i)]]) ks))
              p (mod i 3)]
          (recur (inc i) (reduce #(assoc %1 %2 (inc i)) state ks)
                 (conj out {:type :invoke :process p :f :txn :value inv} {:type :ok :process p :f :txn :value ok})))))))

(deftest mini-transaction-verdicts-are-certified
  ;; The mini-transaction checker (isocheck.check.mt) decides these: its true
  ;; verdicts carry certificates too.
  (doseq [seed (range 4)]
    (let [f (java.io.File/createTempFile "verify-mt" ".edn")]
      (try
        (spit f (serial-rmw-history seed 200))
        (let [h (Formats/readHistory (str f) nil)
              [r _ o] (verify-data h)]
          (is (= "fast" (str (.name ^isocheck.history.Kw (get (get (.stats r) "mt") "path")))) (str (get (.stats r) "mt")))
          (is (= 0 (.status o)) (str/join "\n" (.lines o)))
          (doseq [l strong]
            (is (str/includes? (str (line-of o l)) " certified (") (str seed " " (line-of o l)))))
        (finally (.delete f))))))
