(ns isocheck.verify-test
  "Certificates (issue 27 item 4): every true verdict of a serializable or
  snapshot-isolation level carries a witness that `verify` (isocheck.verify,
  sharing no code with the search) accepts; a tampered one is rejected, naming
  the transaction; the CLI's verify command and its exit statuses. Violated
  levels: refutations by facts, cycles and, on rw-register, the result's
  :refutations proofs (tampered ones rejected, none made for a level that
  holds)."
  (:require [clojure.test :refer [deftest is testing]]
            [clojure.java.io :as io]
            [clojure.string :as str]
            [isocheck.jepsen :as j])
  (:import (isocheck.check Checker CheckOptions Level Verdict$Value)
           (isocheck.cli EdnPrinter Main)
           (isocheck.history History$Workload)
           (isocheck.io Formats)
           (isocheck.sim Bug SimConfig SimConfig$KeyDist SimHistory Simulator Store)
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
  "Checks h at the strong levels (or those named); [result result-data verify-outcome]."
  ([h] (verify-data h strong))
  ([h names]
   (let [r (Checker/check h (.levels (CheckOptions.) (levels names)))
         data (.toData r)]
     [r data (Verify/verify h (EdnPrinter/str data))])))

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
                    (.listFiles (io/file "test/resources/corpus/plume-taps"))
                    (.listFiles (io/file "test/resources/corpus/c4-text")))
          names [strong ["tcc" "ra" "rc" "ci"]]
          :let [h (Formats/readHistory (str f) nil)
                [r _ o] (verify-data h names)]]
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

;; ---------------------------------------------------------------- weak levels (Plume's RC, RA, TCC, CI)

(def weak ["tcc" "ra" "rc" "ci"])

(defn- bug-sim ^SimHistory [seed store bug workload txns sessions keys]
  (Simulator/history
    (cond-> (-> (SimConfig/builder)
                (.seed (long seed)) (.store store) (.workload workload) (.txns (int txns))
                (.sessions (int sessions)) (.keys (int keys)) (.opsPerTxn 1 4)
                (.infoRate 0.02) (.failRate 0.02))
      bug (-> (.bug bug) (.bugRate 0.2))
      true .build)))

(def weak-runs
  "Stores and bugs whose histories hold some weak levels and violate others."
  (concat (for [s [Store/STRICT_SERIALIZABLE Store/SNAPSHOT_ISOLATION Store/READ_COMMITTED]] [s nil])
          (for [b [Bug/LONG_FORK Bug/CAUSALITY_VIOLATION Bug/FRACTURED_READ Bug/ABORTED_READ Bug/INTERMEDIATE_READ]]
            [Store/SNAPSHOT_ISOLATION b])))

(deftest every-true-weak-verdict-is-certified-and-no-false-one-is
  ;; Every refutation verify checks (a cycle shown by the history, cut isolation on
  ;; the history) is of a level found violated, and nothing is NOT certified.
  ;; Weak levels asked alone (the weak checker decides them) and beside the strong
  ;; ones (a strong level that holds implies them: its order is their certificate).
  ;; A level found violated has no commit order; the order of a weaker level that
  ;; holds, claimed for it, must be rejected (verify is not vacuous).
  (let [problems (atom []) trues (atom 0) claimed (atom 0) refuted (atom 0)]
    (doseq [i (range 4)
            [store bug] weak-runs
            workload [History$Workload/APPEND History$Workload/REGISTER]
            asked [weak (into weak strong)]]
      (let [seed (+ 3000 i)
            h (.history (bug-sim seed store bug workload (nth [60 200] (mod i 2)) (nth [3 6] (mod i 2)) (nth [4 12] (mod i 2))))
            r (Checker/check h (.levels (CheckOptions.) (levels asked)))
            data (.toData r)
            o (Verify/verify h (EdnPrinter/str data))
            where (str store " " bug " " workload " seed " seed " " (count asked) " levels: ")
            valid (fn [l] (str (.value ^isocheck.check.Verdict (get (.levels r) (Level/parse l)))))
            certs (get data "certificates")]
        (when-not (= 0 (.status o)) (swap! problems conj (str where (str/join "\n" (.lines o)))))
        (doseq [l asked :when (str/includes? (str (line-of o l)) " refuted (")]
          (swap! refuted inc)
          (when-not (= "FALSE" (valid l)) (swap! problems conj (str where l " refuted, but its verdict is " (valid l)))))
        (doseq [l weak :when (= "TRUE" (valid l))]
          (swap! trues inc)
          (when-not (some-> (line-of o l) (str/includes? " certified ("))
            (swap! problems conj (str where l " holds without a certificate: " (line-of o l)))))
        (doseq [[bad good] [["tcc" "ra"] ["tcc" "rc"] ["ra" "rc"]]
                :when (and (= "FALSE" (valid bad)) (= "TRUE" (valid good)))
                :let [order (get (get certs (isocheck.history.Kw. good)) "commit-order")
                      forged (str "{:levels {:" bad " {:valid? true}} :certificates {:" bad " {:commit-order ["
                                  (str/join " " order) "]}}}")
                      o2 (Verify/verify h forged)]]
          (swap! claimed inc)
          (when-not (re-find (re-pattern (str "^" bad " +NOT certified: T\\d+ ")) (str (line-of o2 bad)))
            (swap! problems conj (str where good "'s order accepted for " bad ", which is violated: " (line-of o2 bad)))))
        (when (= "FALSE" (valid "ci"))
          (let [o2 (Verify/verify h "{:levels {:ci {:valid? true}}}")]
            (swap! claimed inc)
            (when-not (str/includes? (str (line-of o2 "ci")) "NOT certified: ")
              (swap! problems conj (str where "ci claimed true, violated, accepted: " (line-of o2 "ci"))))))))
    (is (< 200 @trues) "not vacuous: many weak levels held")
    (is (< 20 @claimed) "not vacuous: many violated weak levels were claimed with a weaker level's order")
    (is (< 100 @refuted) "not vacuous: many refutations were checked on the history")
    (is (empty? @problems) (str (count @problems) " problems, first:\n" (first @problems)))))

(defn- literal
  "A History of ops given as [process mops] (all :ok), numbered from 0, so Tn is the nth."
  [& ops]
  (j/->history (vec (map-indexed (fn [i [p mops]] {:index i :type :ok :process p :f :txn :value mops}) ops))))

(defn- claim [h level order]
  (let [o (Verify/verify h (str "{:levels {:" level " {:valid? true}} :certificates {:" level " {:commit-order " order "}}}"))]
    (line-of o level)))

(deftest tampered-weak-commit-orders-are-rejected-naming-the-transaction
  (testing "RC (monotonic atomic view): T2 saw T0 through :y, then read :x from T1, so T0 commits before T1"
    (let [h (literal [0 [[:w :x 1] [:w :y 1]]] [1 [[:w :x 2]]] [2 [[:r :y 1] [:r :x 2]]] [3 [[:r :x 2] [:r :y 1]]])]
      (doseq [l ["rc" "ra" "tcc"]]
        (is (str/includes? (claim h l "[0 1 2 3]") (str "certified (commit order of 4 transactions, 4 reads checked against " l "'s axiom)"))))
      (is (str/includes? (claim h "rc" "[1 0 2 3]")
                         (str "NOT certified: T2 read key :x from T1, but T0, which also writes it and was observed by it in an earlier"
                              " read of key :y, comes after T1 in the commit order (rc needs it before)")))))
  (testing "RA, not RC: T3 read :x from T1 and only then saw T0 through :y"
    (let [h (literal [0 [[:w :x 1] [:w :y 1]]] [1 [[:w :x 2]]] [3 [[:r :x 2] [:r :y 1]]])]
      (is (str/includes? (claim h "rc" "[1 0 2]") "certified ("))
      (is (str/includes? (claim h "ra" "[1 0 2]")
                         "NOT certified: T2 read key :x from T1, but T0, which also writes it and was observed by it, comes after T1"))))
  (testing "RA's session case: T2 read :x from T0 after its own process wrote :x in T1"
    (let [h (literal [0 [[:w :x 1]]] [1 [[:w :x 2]]] [1 [[:r :x 1]]])]
      (is (str/includes? (claim h "ra" "[1 0 2]") "certified ("))
      (is (str/includes? (claim h "rc" "[0 1 2]") "certified ("))
      (is (str/includes? (claim h "ra" "[0 1 2]") "NOT certified: T2 read key :x from T0, but T1, which also writes it and precedes it in process 1"))))
  (testing "TCC, not RA: T0 reaches T3 through T2 only"
    (let [h (literal [0 [[:w :x 1]]] [1 [[:w :x 2]]] [2 [[:r :x 1] [:w :y 1]]] [3 [[:r :y 1] [:r :x 2]]])]
      (is (str/includes? (claim h "ra" "[1 0 2 3]") "certified ("))
      (is (str/includes? (claim h "tcc" "[0 1 2 3]") "certified ("))
      (is (str/includes? (claim h "tcc" "[1 0 2 3]")
                         "NOT certified: T3 read key :x from T1, but T0, which also writes it and precedes it causally, comes after T1"))))
  (testing "the initial state: no order can put a writer T3 observed before it"
    (let [h (literal [0 [[:w :x 1] [:w :y 1]]] [1 [[:r :y 1] [:r :x nil]]])]
      (is (str/includes? (claim h "rc" "[0 1]")
                         "NOT certified: T1 read key :x from the initial state, but T0, which also writes it and was observed by it"))))
  (testing "session order, reads-from, what the lists show, membership"
    (let [h (literal [0 [[:append :x 1]]] [1 [[:append :x 2]]] [2 [[:r :x [1 2]]]] [0 [[:r :x [1]]]])]
      (is (str/includes? (claim h "tcc" "[0 3 1 2]") "certified ("))
      (is (str/includes? (claim h "rc" "[3 0 1 2]") "NOT certified: T3 follows T0 in process 0, but the commit order puts it first"))
      (is (str/includes? (claim h "rc" "[1 0 2 3]")
                         "NOT certified: T2 read key :x as a list whose element 0 is 1, but the appends to it in the commit order give 2 (appended by T1) there"))
      (is (str/includes? (claim h "rc" "[0 3 2 1]") "NOT certified: T2 read key :x as a list ending with 2, written by T1, which the commit order puts after it"))
      (is (str/includes? (claim h "rc" "[0 1 3]") "NOT certified: T2 completed :ok but is not in the commit order"))
      (is (str/includes? (claim h "rc" "[0 1 1 2 3]") "NOT certified: T1 is in the commit order twice")))
    (let [h (literal [0 [[:w :x 1] [:w :x 2]]] [1 [[:r :x 1]]])]
      (is (str/includes? (claim h "rc" "[0 1]") "NOT certified: T1 read key :x as 1, which T0 overwrites later (an intermediate value)")))
    (let [h (literal [0 [[:w :x 1]]] [1 [[:r :x 1]]])]
      (is (str/includes? (claim h "rc" "[1 0]") "NOT certified: T1 read key :x as 1, written by T0, which the commit order puts after it"))))
  (testing "cut isolation, checked on the history"
    (let [h (literal [0 [[:w :x 1]]] [1 [[:w :x 2]]] [2 [[:r :x 1] [:r :x 2]]])
          o (Verify/verify h "{:levels {:ci {:valid? true} :rc {:valid? true}}}")]
      (is (str/includes? (line-of o "ci") "NOT certified: T2 read key :x from T0 and then from T1 (a non-repeatable read, which cut isolation forbids)"))
      (is (str/includes? (line-of o "rc") "no certificate")))
    (let [h (literal [0 [[:append :x 1]]] [1 [[:r :x [1]] [:append :x 2] [:r :x [1 2]]]])
          o (Verify/verify h "{:levels {:ci {:valid? true}}}")]
      (is (str/includes? (line-of o "ci") "certified (no order needed: 2 reads checked on the history)")))))

(deftest verify-shares-no-code-with-the-search
  ;; isocheck.verify reads the history with isocheck's readers and nothing else of
  ;; isocheck: no checker, order, graph, solver or utility class.
  (doseq [^java.io.File f (.listFiles (io/file "src/java/isocheck/verify"))
          :let [uses (set (re-seq #"isocheck\.[a-z]+" (slurp f)))]]
    (is (empty? (remove #{"isocheck.history" "isocheck.io" "isocheck.verify"} uses)) (str (.getName f) " uses " uses))))

;; ---------------------------------------------------------------- refutations

(defn- checked
  "Checks a literal History at the named levels; [History result-map (Clojure data)]."
  [h names]
  [h (j/->clj (.toData (Checker/check h (.levels (CheckOptions.) (levels names)))))])

(defn- verify-map [h m]
  (Verify/verify h (binding [*print-length* nil *print-level* nil] (pr-str m))))

(deftest refutation-cycles-are-checked-step-by-step
  (testing "write skew: serializability refuted by two anti-dependencies the lists show; snapshot isolation allows them"
    (let [[h r] (checked (literal [0 [[:r :x []] [:append :y 1]]] [1 [[:r :y []] [:append :x 1]]] [2 [[:r :x [1]] [:r :y [1]]]])
                         ["serializable" "snapshot-isolation"])]
      (is (= false (get-in r [:levels :serializable :valid?])))
      (is (= "serializable        refuted (G2-item: a cycle of 2 steps, each shown by the history)"
             (line-of (verify-map h r) "serializable")))
      (let [forged (-> r (assoc-in [:levels :snapshot-isolation] {:valid? false :anomaly-types [:G2-item]}) (dissoc :certificates))]
        (is (str/includes? (line-of (verify-map h forged) "snapshot-isolation")
                           (str "refutation not certified (G2-item: the step T0 → T1 (rw) and the step T1 → T0 (rw) are adjacent,"
                                " which snapshot isolation allows"))))
      (let [forged (assoc-in r [:anomalies :G2-item 0 :steps 0 :type] :wr)]
        (is (str/includes? (line-of (verify-map h forged) "serializable")
                           "refutation not certified (G2-item: the step T0 → T1 (wr): no read of T1 shows a write of T0)")))))
  (testing "read skew: a cycle of three steps; one dropped, the step left names what the history does not show"
    (let [[h r] (checked (literal [0 [[:append :x 1]]] [1 [[:r :x [1]] [:append :y 1]]] [2 [[:r :y [1]] [:r :x []]]])
                         ["serializable" "snapshot-isolation" "strong-snapshot-isolation"])]
      (doseq [l ["serializable" "snapshot-isolation" "strong-snapshot-isolation"]]
        (is (str/includes? (line-of (verify-map h r) l) "refuted (G-single-item: a cycle of 3 steps, each shown by the history)") l))
      (let [dropped (update-in r [:anomalies :G-single-item 0]
                               #(-> % (update :cycle (fn [c] (vec (remove (fn [op] (= 1 (:index op))) c))))
                                    (update :steps (fn [s] (vec (rest s))))))]
        (is (str/includes? (line-of (verify-map h dropped) "serializable")
                           "refutation not certified (G-single-item: the step T0 → T2 (wr): no read of T2 shows a write of T0)")))))
  (testing "rw-register: a version order only the search chose is not evidence; a read-modify-write is"
    (let [[h r] (checked (literal [0 [[:r :x nil] [:w :x 1]]] [1 [[:r :x nil] [:w :x 2]]]) ["serializable"])]
      ;; a lost update: both read nil and wrote :x; the cycle T0 → T1 → T0 is two anti-dependencies from nil
      (is (= false (get-in r [:levels :serializable :valid?])))
      (is (re-find #"^serializable +refuted \(" (line-of (verify-map h r) "serializable")) (str (line-of (verify-map h r) "serializable"))))
    ;; Either order of T0's and T1's writes of :x closes a cycle, but no read shows which came
    ;; first: a pair, refuted when both branches' cycles are shown by the history plus their order.
    (let [[h r] (checked (literal [0 [[:w :x 1] [:w :z 1]]] [1 [[:w :x 2] [:w :y 1]]] [2 [[:r :x 1] [:r :y 1]]] [3 [[:r :x 2] [:r :z 1]]])
                         ["serializable"])]
      (is (= false (get-in r [:levels :serializable :valid?])))
      (is (str/includes? (line-of (verify-map h r) "serializable")
                         "refuted (G-single-item: either order of T0's and T1's writes closes a cycle, of 2 and 2 steps")
          (str (line-of (verify-map h r) "serializable")))
      (testing "a branch whose cycle the history does not show: not certified, naming the step"
        (let [forged (-> r (assoc-in [:anomalies :G-single-item 0 :alternative :steps 0 :type] :ww) (dissoc :refutations))]
          (is (re-find #"refutation not certified \(G-single-item: if T\d's write came first, the step T\d → T\d \(ww\)"
                       (line-of (verify-map h forged) "serializable"))
              (line-of (verify-map h forged) "serializable"))))))
  (testing "cut isolation refuted on the history; a false verdict the history does not bear out is NOT certified"
    (let [h (literal [0 [[:w :x 1]]] [1 [[:w :x 2]]] [2 [[:r :x 1] [:r :x 2]]])]
      (is (str/includes? (line-of (Verify/verify h "{:levels {:ci {:valid? false}}}") "ci")
                         "refuted (checked on the history: T2 read key :x from T0 and then from T1")))
    (let [h (literal [0 [[:w :x 1]]] [1 [[:r :x 1] [:r :x 1]]])
          o (Verify/verify h "{:levels {:ci {:valid? false}}}")]
      (is (= 1 (.status o)))
      (is (str/includes? (line-of o "ci") "NOT certified: the history has no thin-air or non-repeatable read")))))

(deftest refutations-by-facts-of-the-history
  ;; Anomalies that are not cycles: each checked on the transactions it names, for every level
  ;; it rules out; a claim the history does not bear out is not certified, naming them.
  (let [all ["serializable" "snapshot-isolation" "repeatable-read" "read-committed" "read-uncommitted" "rc" "ra" "tcc"]
        run (fn [ops] (let [h (j/->history (vec (map-indexed (fn [i [ty p mops]] {:index i :type ty :process p :f :txn :value mops}) ops)))]
                        (checked h all)))]
    (testing "G1a: every level it rules out is refuted, read uncommitted is not violated"
      (let [[h r] (run [[:fail 0 [[:w :x 1]]] [:ok 1 [[:r :x 1]]]])
            o (verify-map h r)]
        (doseq [l ["serializable" "snapshot-isolation" "repeatable-read" "read-committed"]]
          (is (str/includes? (line-of o l) "refuted (G1a: T1 read key :x = 1, written by T0, which failed (:fail))") (line-of o l)))
        (doseq [l ["rc" "ra" "tcc"]]
          (is (str/includes? (line-of o l) "refuted (AbortedRead: T1 read key :x = 1, written by T0, which failed (:fail))") (line-of o l)))
        (testing "tampered: the writer committed"
          (let [h2 (j/->history [{:index 0 :type :ok :process 0 :f :txn :value [[:w :x 1]]}
                                 {:index 1 :type :ok :process 1 :f :txn :value [[:r :x 1]]}])]
            (is (str/includes? (line-of (verify-map h2 r) "serializable")
                               "refutation not certified (G1a: T1 and T0 do not show an aborted read"))))
        (testing "a fact claimed for a level it does not rule out"
          (is (str/includes? (line-of (verify-map h (assoc-in r [:levels :read-uncommitted] {:valid? false :anomaly-types [:G1a]}))
                                      "read-uncommitted")
                             "refutation not certified (G1a does not rule out read-uncommitted)")))))
    (testing "G1b, internal, future and garbage reads, duplicates, incompatible orders"
      (doseq [[ops level want] [[[[:ok 0 [[:append :x 1] [:append :x 2]]] [:ok 1 [[:r :x [1]]]]] "read-committed"
                                 "refuted (G1b: T1 read key :x as [1], ending with 1, which T0 appended and then appended 2 in the same transaction)"]
                                [[[:ok 0 [[:w :x 1] [:r :x 2]]] [:ok 1 [[:w :x 2]]]] "serializable"
                                 "refuted (internal: T0 read key :x = 2, but its own earlier write of it says 1)"]
                                [[[:ok 0 [[:w :x 1] [:r :x 2]]] [:ok 1 [[:w :x 2]]]] "rc"
                                 "refuted (NotMyOwnWrite: T0 read key :x = 2, but its own earlier write of it says 1)"]
                                [[[:ok 0 [[:r :x [1]] [:append :x 1]]]] "tcc"
                                 "refuted (FutureRead: T0 read key :x as [1], which holds 1, a value it writes itself only later)"]
                                [[[:ok 0 [[:r :x 5]]]] "read-uncommitted"
                                 "refuted (garbage-read: T0 read key :x = 5, a value no transaction writes to it)"]
                                [[[:ok 0 [[:append :x 1]]] [:ok 1 [[:r :x [1 1]]]]] "read-uncommitted"
                                 "refuted (duplicate-elements: T1 read key :x as [1 1], which holds 1 twice)"]
                                [[[:ok 0 [[:append :x 1]]] [:ok 1 [[:append :x 2]]] [:ok 2 [[:r :x [1 2]]]] [:ok 3 [[:r :x [2 1]]]]] "ra"
                                 "refuted (incompatible-order: T3 read key :x as [2 1] and T2 read key :x as [1 2]"]]]
        (let [[h r] (run ops)]
          (is (str/includes? (line-of (verify-map h r) level) want) (str level ": " (line-of (verify-map h r) level))))))
    (testing "lost update: two read-modify-writes of one version; tampered, two versions"
      (let [[h r] (run [[:ok 0 [[:r :x nil] [:w :x 1]]] [:ok 1 [[:r :x nil] [:w :x 2]]]])]
        (is (str/includes? (line-of (verify-map h r) "snapshot-isolation")
                           "refuted (lost-update: T0 and T1 both read key :x = nil and then wrote it)"))
        (let [h2 (j/->history [{:index 0 :type :ok :process 0 :f :txn :value [[:r :x nil] [:w :x 1]]}
                               {:index 1 :type :ok :process 1 :f :txn :value [[:r :x 1] [:w :x 2]]}])]
          (is (str/includes? (line-of (verify-map h2 r) "snapshot-isolation")
                             "refutation not certified (lost-update: T0 read key :x = nil and T1 read key :x = 1: not one version")))))))

(deftest weak-refutations-are-commit-order-cycles
  (let [[h r] (checked (literal [0 [[:w :x 1] [:w :z 1]]] [1 [[:w :x 2] [:w :y 1]]] [2 [[:r :x 1] [:r :y 1]]] [3 [[:r :x 2] [:r :z 1]]])
                       ["ra" "tcc" "rc"])
        o (verify-map h r)]
    (is (= true (get-in r [:levels :rc :valid?])))
    (doseq [l ["ra" "tcc"]]
      (is (str/includes? (line-of o l) (str "refuted (FracturedReadCM: no commit order satisfies " l ": T0 → T1 → T0 (T0 before T1: T3 read key :x from T1"))
          (line-of o l)))
    (testing "tampered: the reader that forces one of the orders left out"
      (let [forged (update-in r [:anomalies :FracturedReadCM]
                              (fn [insts] (mapv (fn [i] (update i :ops (fn [ops] (vec (remove #(= 3 (:index %)) ops))))) insts)))]
        (is (str/includes? (line-of (verify-map h forged) "ra")
                           "refutation not certified (FracturedReadCM: the history forces no cycle of ra's commit order among T0, T1, T2)")))))
  (let [[h r] (checked (literal [0 [[:w :x 1] [:w :y 1]]] [1 [[:r :x 1] [:r :y nil]]]) ["rc"])]
    (is (str/includes? (line-of (verify-map h r) "rc")
                       (str "refuted (NonMonoReadCO: no commit order satisfies rc: the initial state → T0 → the initial state (the initial state"
                            " precedes every transaction; T0 before the initial state: T1 read key :y from the initial state, T0 writes it too"
                            " and T1 observed it in an earlier read of key :x))")))))

(deftest refutation-proofs-when-the-search-chose-write-orders
  ;; rw-register: T2 read y from T1 and x from T0, so T1's write of :x came first (the other order
  ;; closes T2 → T1 → T2); then either order of T1's and T3's writes of :y closes a cycle, one of
  ;; them through that derived order. No counterexample alone shows it; the proof does.
  (let [[h r] (checked (literal [0 [[:w :x 1] [:w :z 1]]] [1 [[:w :x 2] [:w :y 1]]]
                                [2 [[:r :y 1] [:r :x 1] [:r :w 1]]] [3 [[:r :z 1] [:w :y 2] [:w :w 1]]])
                       ["serializable" "snapshot-isolation"])
        proof {:derive [{:key :x, :before 1, :after 0}], :split {:key :y, :before 1, :after 3}}]
    (is (= {:serializable proof :snapshot-isolation proof} (:refutations r)))
    (testing "read back from result.json too"
      (let [json (isocheck.report.Json/write (.toData (Checker/check h (.levels (CheckOptions.) (levels ["serializable"])))))]
        (is (str/includes? json "\"refutations\""))
        (is (str/includes? (line-of (Verify/verify h json) "serializable") "refuted (every version order closes a cycle: 1 write order derived"))))
    (doseq [l ["serializable" "snapshot-isolation"]]
      (is (str/includes? (line-of (verify-map h r) l)
                         (str "refuted (every version order closes a cycle: 1 write order derived, each because its reverse closes one,"
                              " then 1 case on two writers' order, 2 cycles in all; checked on the history)"))
          (line-of (verify-map h r) l))
      (is (str/includes? (line-of (verify-map h (dissoc r :refutations)) l) "refutation not certified (G-SI: the step T3 → T1 (ww)")
          "without the proof, the counterexample rests on an order the search chose"))
    (testing "tampered proofs are not certified, naming the order"
      (doseq [[forged want] [[(assoc-in proof [:derive 0] {:key :x, :before 0, :after 1})
                              "its proof does not check: the derivation T0's write of key :x before T1's does not hold: the reverse order closes no cycle"]
                             [(assoc proof :derive [])
                              "its proof does not check: the order T3's write of key :y before T1's closes no cycle"]
                             [(assoc proof :split {:key :x, :before 1, :after 3})
                              "its proof does not check: the proof orders T1's and T3's writes of key x, which they do not both write"]
                             [(assoc proof :split {:key :y, :before 1, :after 3} :then {:derive [] :split {:key :z :before 0 :after 0}})
                              "which they do not both write"]
                             [(assoc proof :cycle-through 2 :split nil)
                              "its proof does not check: no cycle through T2 of the facts and the orders derived"]]]
        (let [ln (line-of (verify-map h (assoc-in r [:refutations :serializable] forged)) "serializable")]
          (is (str/includes? ln want) ln)))))
  (testing "a history that is serializable: no proof is made for it, and a forged one does not check"
    (let [h (literal [0 [[:w :x 1]]] [1 [[:w :x 2]]] [2 [[:r :x 1]]] [3 [[:r :x 2]]])
          forged {:levels {:serializable {:valid? false :anomaly-types [:G2-item]}}
                  :refutations {:serializable {:derive [] :split {:key :x :before 0 :after 1}}}}]
      (is (nil? (isocheck.check.si.ConstraintProof/of h Level/SERIALIZABLE nil)))
      (is (str/includes? (line-of (verify-map h forged) "serializable")
                         "its proof does not check: the order T0's write of key :x before T1's closes no cycle"))))
  (testing "an order of a writer that may not have committed (:info, its write never read) is no fact of the version order"
    (let [h (j/->history [{:index 0 :type :ok :process 0 :f :txn :value [[:w :x 1]]}
                          {:index 1 :type :info :process 1 :f :txn :value [[:w :x 2]]}
                          {:index 2 :type :ok :process 2 :f :txn :value [[:r :x 1]]}])
          forged {:levels {:serializable {:valid? false :anomaly-types [:G2-item]}}
                  :refutations {:serializable {:derive [] :split {:key :x :before 0 :after 1}}}}]
      (is (str/includes? (line-of (verify-map h forged) "serializable")
                         "its proof does not check: T1 may not have committed, so its write of key :x has no place in the version order"))))
  (testing "the facts alone close a cycle the counterexample is not: the proof names a transaction on it"
    (let [h (literal [0 [[:r :x nil] [:w :y 1]]] [1 [[:r :y nil] [:w :x 1]]])]
      (is (= {:derive [] :cycle-through 1} (j/->clj (isocheck.check.si.ConstraintProof/of h Level/SERIALIZABLE nil))))
      (is (str/includes? (line-of (verify-map h {:levels {:serializable {:valid? false :anomaly-types [:G2-item]}}
                                                  :refutations {:serializable {:derive [] :cycle-through 1}}}) "serializable")
                         "refuted (the history's facts close a cycle, whatever the version order; checked on the history)"))
      (is (str/includes? (line-of (verify-map h {:levels {:snapshot-isolation {:valid? false :anomaly-types [:G2-item]}}
                                                  :refutations {:snapshot-isolation {:derive [] :cycle-through 0}}}) "snapshot-isolation")
                         "no cycle through T0")
          "write skew is no cycle snapshot isolation forbids"))))

(deftest no-proof-for-a-level-that-holds
  ;; The proof search's soundness, cross-checked: on simulated rw-register histories, at every
  ;; serializable and SI level the check finds to hold, no proof is found (a proof would say
  ;; every version order closes a cycle, against the check's certificate, which verify accepts).
  (let [tried (atom 0)]
    (doseq [seed (range 6)
            store [Store/SERIALIZABLE Store/SNAPSHOT_ISOLATION Store/READ_COMMITTED]
            :let [h (.history (sim seed store History$Workload/REGISTER 80 4 5 4))
                  r (Checker/check h (.levels (CheckOptions.) (levels strong)))]
            [^Level l v] (.levels r)
            :when (= Verdict$Value/TRUE (.value ^isocheck.check.Verdict v))]
      (swap! tried inc)
      (is (nil? (isocheck.check.si.ConstraintProof/of h l nil))
          (str store " seed " seed " " (.id l))))
    (is (< 30 @tried) "not vacuous: many levels held")))

(deftest no-weak-refutation-of-a-level-that-holds
  ;; WeakCycleCheck's orders, cross-checked: on simulated histories, a weak level the check
  ;; finds to hold (with a commit order verify certifies) is never refuted, even by a forged
  ;; counterexample naming every transaction (all the orders verify derives, at once).
  (let [tried (atom 0)]
    (doseq [seed (range 4)
            store [Store/SERIALIZABLE Store/SNAPSHOT_ISOLATION Store/READ_COMMITTED]
            workload [History$Workload/APPEND History$Workload/REGISTER]
            :let [h (.history (sim seed store workload 40 3 4 4))
                  r (Checker/check h (.levels (CheckOptions.) (levels ["rc" "ra" "tcc"])))
                  ops (vec (for [t (range (.nTxns h))] {:index (.displayIndex h t)}))]
            [^Level l v] (.levels r)
            :when (= Verdict$Value/TRUE (.value ^isocheck.check.Verdict v))]
      (swap! tried inc)
      (let [ln (line-of (verify-map h {:levels {(keyword (.id l)) {:valid? false :anomaly-types [:NonMonoReadCM]}}
                                       :anomalies {:NonMonoReadCM [{:ops ops}]}})
                        (.id l))]
        (is (str/includes? ln "refutation not certified (NonMonoReadCM: the history forces no cycle") (str store " " workload " seed " seed ": " ln))))
    (is (< 20 @tried) "not vacuous: many weak levels held")))
