(ns isocheck.formats-test
  "Other tools' histories, in and out (isocheck.io: PlumeText, DbcopJson, DbcopBincode,
  CobraLog, ElleCli; the convert command). Each format: a small literal history read to the
  same model as its EDN twin (transactions, statuses, sessions, micro-ops) with the same
  verdicts; detected by its content; written back by convert and read to the same model (the
  round trip also on simulated histories, whose verdicts at every level without realtime
  order must not change); malformed files refused in one line naming the place; histories a
  format cannot hold refused naming the transaction. Real files: C4's text test cases and its
  CockroachDB bug history."
  (:require [clojure.java.io :as io]
            [clojure.string :as str]
            [clojure.test :refer [deftest is testing]]
            [isocheck.core :as iso]
            [isocheck.test-util :refer [run-cli tmp-dir tmp-file] :rename {run-cli run}]
            [isocheck.workload :as workload])
  (:import (isocheck.cli Main)
           (isocheck.history History History$Workload HistoryException)
           (isocheck.io Formats Formats$Format)
           (java.io ByteArrayOutputStream DataOutputStream File PrintStream)
           (java.math BigInteger)
           (java.nio.charset StandardCharsets)
           (java.nio.file Files)
           (java.util.zip GZIPOutputStream)))

;; ---------------------------------------------------------------- helpers

(defn- fmt ^Formats$Format [k] (when k (Formats$Format/parse (name k))))

(defn- read-history
  "The History in the file (or Cobra directory) at path, in format k (nil: by its content)."
  (^History [path] (read-history path nil))
  (^History [path k] (Formats/readHistory (str path) nil nil (fmt k))))

(defn- error
  "The message of the HistoryException reading path throws, or nil."
  ([path] (error path nil))
  ([path k] (try (read-history path k) nil (catch HistoryException e (.getMessage e)))))

(defn- mop [^History h m]
  (let [k (.mopKind h m)]
    [({0 :r 1 :append 2 :w} (int k))
     (.key h (.mopKey h m))
     (cond (not= 0 k) (.value h (.mopVal h m))
           (= History$Workload/APPEND (.workload h)) (mapv #(.value h (.listElem h m %)) (range (.mopLen h m)))
           :else (.value h (.mopVal h m)))]))

(defn- model
  "The history's transactions in order: [status process micro-ops]."
  [^History h]
  (vec (for [t (range (.nTxns h))]
         [({1 :ok 2 :fail 3 :info} (.status h t)) (.process h t)
          (mapv #(mop h %) (range (.mopStart h t) (.mopEnd h t)))])))

(defn- sessions
  "The history's sessions, each the vector of its transactions' [status micro-ops], in order of
  their processes: what the other tools' formats keep of a history (they have no times and no
  order across sessions)."
  [^History h]
  (let [g (group-by second (model h))]
    (mapv (fn [p] (mapv (fn [[s _ mops]] [s mops]) (g p))) (sort-by pr-str (keys g)))))

(defn- normal
  "sessions, as a multiset: formats that number sessions their own way keep them, not their names."
  [^History h]
  (frequencies (sessions h)))

(defn- relabel
  "sessions with each key's written values numbered in order of appearance (reads follow them;
  a value nobody wrote is :unwritten): Cobra names a write by its write id, not its value."
  [^History h]
  (let [norm   (sessions h)
        labels (reduce (fn [acc [k key v]] (if (or (not= k :w) (contains? acc [key v])) acc (assoc acc [key v] (count acc))))
                       {} (for [s norm [_ mops] s m mops] m))]
    (mapv (fn [s] (mapv (fn [[st mops]]
                          [st (mapv (fn [[k key v]] [k key (cond (nil? v) nil
                                                                 (contains? labels [key v]) (labels [key v])
                                                                 :else :unwritten)])
                                    mops)])
                        s))
          norm)))

(defn- without-aborts
  "Jepsen ops without the aborted transactions (their :fail completions and invocations): Cobra's
  logs hold none."
  [ops]
  (let [failed (set (keep-indexed (fn [i op] (when (= :fail (:type op)) i)) ops))
        invoke (loop [i 0, pending {}, drop #{}]
                 (if (= i (count ops))
                   drop
                   (let [{:keys [type process]} (nth ops i)]
                     (cond (= type :invoke) (recur (inc i) (assoc pending process i) drop)
                           (failed i) (recur (inc i) (dissoc pending process) (conj drop (pending process)))
                           :else (recur (inc i) (dissoc pending process) drop)))))]
    (vec (keep-indexed (fn [i op] (when-not (or (failed i) (invoke i)) op)) ops))))

(def levels iso/implemented-levels)

(def untimed-levels
  "The levels that use no realtime order: the verdicts a history keeps in formats without times."
  [:strong-session-serializable :serializable :strong-session-snapshot-isolation :snapshot-isolation
   :tcc :ra :rc :ci])

(defn- verdicts
  ([^History h] (verdicts h levels))
  ([^History h ls] (into {} (map (fn [[l v]] [l (:valid? v)])) (:levels (second (iso/check-history {:levels ls} h))))))

(defn- one-line? [^String s] (and (string? s) (not (str/includes? s "\n"))))

(defn- same-as-twin
  "Asserts the file at path reads to the model and verdicts of the EDN twin."
  [path edn]
  (let [h    (read-history path)
        twin (read-history (tmp-file "twin.edn" edn))]
    (is (= (model twin) (model h)))
    (is (= (verdicts twin) (verdicts h)))
    h))

(defn- convert
  "Converts in to format to (a new file or directory; returned), with --lossy: a Jepsen
  history's invocations and times are dropped, as these tests expect."
  [in to]
  (let [out (str (io/file (tmp-dir) (str "out." (name to))))
        r   (run "convert" "--lossy" "--to" (name to) in out)]
    (is (= 0 (:status r)) (:err r))
    (is (= "" (:err r)))
    out))

;; ---------------------------------------------------------------- Plume / PolySI text

(def plume-text
  ;; Session 0 writes the initial values explicitly (txn 9: writes of 0 only), then txn 1;
  ;; session 1's txn 2 is spread over the file; an aborted run of session 1; a read of 0.
  (str "w(1,0,0,9)\nw(2,0,0,9)\n"
       "w(1,1,0,1)\n"
       "r(1,1,1,2)\n"
       "w(2,1,0,1)\n"
       "w(1,2,1,-1)\nr(2,0,1,-1)\n"
       "\n"
       "r(2,0,1,2)\n"
       "  r(1,1,1,3)  \n"
       "w(2,2,1,3)"))

(def plume-twin
  (str "{:index 0, :type :ok, :process 0, :f :txn, :value [[:w 1 1] [:w 2 1]]}\n"
       "{:index 1, :type :ok, :process 1, :f :txn, :value [[:r 1 1] [:r 2 nil]]}\n"
       "{:index 2, :type :fail, :process 1, :f :txn, :value [[:w 1 2] [:r 2 nil]]}\n"
       "{:index 3, :type :ok, :process 1, :f :txn, :value [[:r 1 1] [:w 2 2]]}\n"))

(deftest plume-text-reads-as-its-edn-twin
  (let [h (same-as-twin (tmp-file "h.txt" plume-text) plume-twin)]
    (is (= 4 (.nTxns h)) "the initial transaction (writes of 0 only) is the initial state, left out")
    (is (= [0 1] (distinct (map second (model h)))) "sessions are the processes"))
  (testing "aborted operations of one session written one after the other are one :fail transaction; another session's interrupt them"
    (let [h (read-history (tmp-file "a.txt" "w(1,1,0,-1)\nw(2,1,0,-1)\nw(3,1,1,-1)\nw(4,1,0,-1)\nr(1,0,2,5)\n"))]
      (is (= [[:fail 0 [[:w 1 1] [:w 2 1]]] [:fail 1 [[:w 3 1]]] [:fail 0 [[:w 4 1]]] [:ok 2 [[:r 1 nil]]]]
             (model h)))))
  (testing "an aborted write of a value a committed transaction also writes (a retry) is kept apart, as Plume keeps it"
    (let [text "w(1,5,0,-1)\nw(1,5,1,0)\nr(1,5,2,1)\n"
          h    (read-history (tmp-file "retry.txt" text))]
      (is (= [[:fail 0 [[:w 1 "5/aborted"]]] [:ok 1 [[:w 1 5]]] [:ok 2 [[:r 1 5]]]] (model h)))
      (is (every? true? (vals (verdicts h))) "the read reads the committed write")
      (is (= text (slurp (convert (tmp-file "retry.txt" text) :plume))) "and Plume's text gets it back as it was")))
  (testing "no realtime order: strict levels are decided as their plain counterparts"
    ;; T1 reads the initial value after T0 wrote it in another session: stale, which only
    ;; realtime order could forbid, and the format has none.
    (let [h (read-history (tmp-file "s.txt" "w(1,1,0,0)\nr(1,0,1,1)\n"))]
      (is (every? true? (vals (verdicts h)))))))

(deftest plume-text-malformed-lines-are-one-line-errors
  (doseq [[text expect]
          [["w(1,1,0,0)\nr(1,a,0,1)\n"
            "line 2, column 5: expected a digit (the value), found 'a' in r(1,a,0,1); a line of Plume's or PolySI's text is r(key,value,session,txn) or w(key,value,session,txn), integers 0 or more (txn -1: an aborted operation)"]
           ["x(1,1,0,0)\n" "line 1, column 1: expected r or w, found 'x' in x(1,1,0,0)"]
           ["w(1,1,0,0) w(2,1,0,0)\n" "line 1, column 11: unexpected a space after the operation w(1,1,0,0)"]
           ["w(1,1,0\n" "line 1, column 8: expected ',' after the session, found the end of the line in w(1,1,0"]
           ["w(1,1,0,-2)\n" "line 1, column 9: txn -2 in w(1,1,0,-2); a transaction id is 0 or more, or -1 for an aborted operation"]
           ["w(1,99999999999999999999,0,0)\n" "line 1, column 5: the value 99999999999999999999 does not fit in a 64-bit integer"]
           ["w(1,1,0,4)\nw(2,1,1,4)\n" "line 2: txn 4 is in session 1 here, but in session 0 at line 1; a transaction belongs to one session"]
           ["w(1,1,0,0)\nw(2,0,0,0)\n" "line 2: w(2,0,0,0) writes 0, every key's initial value in this format, in a transaction that does more than write 0s"]
           ["w(1,5,0,0)\nw(1,5,1,1)\n" "op 1 (txn 1 of session 1, line 2): micro-op [:w 1 5] writes 5 to key 1, which op 0 wrote too; values must be unique per key"]]]
    (let [m (error (tmp-file "bad.txt" text))]
      (is (one-line? m) text)
      (is (and m (str/starts-with? m expect)) (str text " => " m)))))

;; ---------------------------------------------------------------- dbcop JSON

(def dbcop-json
  ;; The file dbcop generate writes; members in another order, an unknown one skipped; tagged
  ;; and compact events; a null version and a version 0 nobody writes (both the initial value)
  ;; and a version 0 someone writes (a real value); an uncommitted transaction; a string variable.
  (str "{\"params\": {\"id\": 0, \"n_node\": 2, \"n_variable\": 3, \"n_transaction\": 3, \"n_event\": 2},\n"
       " \"info\": \"generated\", \"start\": \"2025-01-01T00:00:00+00:00\", \"end\": \"2025-01-01T00:00:00+00:00\",\n"
       " \"data\": [\n"
       "  [{\"events\": [{\"Write\": {\"variable\": 0, \"version\": 1}}, [\"w\", 1, 0]], \"committed\": true},\n"
       "   {\"committed\": false, \"extra\": [1, {\"a\": null}], \"events\": [[\"w\", \"k\", 7]]}],\n"
       "  [{\"events\": [{\"Read\": {\"variable\": 0, \"version\": null}}, {\"Read\": {\"version\": 0, \"variable\": 2}},\n"
       "              [\"r\", 1, 0], [\"r\", \"k\", 7]], \"committed\": true}]\n"
       " ]}\n"))

(def dbcop-twin
  (str "{:index 0, :type :ok, :process 1, :f :txn, :value [[:w 0 1] [:w 1 0]]}\n"
       "{:index 1, :type :fail, :process 1, :f :txn, :value [[:w \"k\" 7]]}\n"
       "{:index 2, :type :ok, :process 2, :f :txn, :value [[:r 0 nil] [:r 2 nil] [:r 1 0] [:r \"k\" 7]]}\n"))

(deftest dbcop-json-reads-as-its-edn-twin
  (let [h (same-as-twin (tmp-file "history.json" dbcop-json) dbcop-twin)]
    (is (= #{:G1a :AbortedRead :FracturedReadCO :G-single-item} (set (:anomaly-types (second (iso/check-history {:levels levels} h)))))
        (str "the read of \"k\" = 7 reads an uncommitted transaction's write; the read of 0 as initial after reading T0's 1 = 0 "
             "is fractured (a read skew: G-single-item, which the mini-transaction checker reports beside the aborted read)")))
  (testing "the bare array of sessions (dbcop's WASM form) reads the same"
    (let [bare (subs dbcop-json (str/index-of dbcop-json "[\n  [") (inc (str/last-index-of dbcop-json "]")))]
      (is (= (model (read-history (tmp-file "h.json" dbcop-json))) (model (read-history (tmp-file "bare.json" bare)))))))
  (testing "an empty history is no transactions"
    (is (= 0 (.nTxns (read-history (tmp-file "e.json" "{\"data\": []}")))))))

(deftest dbcop-json-malformed-files-are-one-line-errors
  (doseq [[text expect]
          [["{\"params\": {}, \"info\": \"x\"}" "line 1, column 28: the history object has no \"data\" member (the array of sessions)"]
           ["[[{\"events\": [{\"Write\": {\"variable\": 0, \"version\": -1}}], \"committed\": true}]]"
            "line 1, column 52 ([0][0].events[0]): the version -1 is negative; dbcop's versions are unsigned"]
           ["[[{\"events\": [{\"Write\": {\"variable\": 0}}], \"committed\": true}]]"
            "line 1, column 40 ([0][0].events[0]): the Write has no \"version\""]
           ["[[{\"events\": [{\"Delete\": {\"variable\": 0}}], \"committed\": true}]]"
            "line 1, column 24 ([0][0].events[0]): expected \"Read\" or \"Write\", found \"Delete\""]
           ["[[{\"events\": []}]]" "line 1, column 17 ([0][0]): the transaction has no \"committed\" (true or false)"]
           ["[[{\"events\": [], \"committed\": 1}]]" "line 1, column 31 ([0][0]): expected true or false for \"committed\", found 1"]
           ["[[{\"events\": [[\"w\", 0, 1]], \"committed\": true}],\n [{\"events\": [[\"w\", 0, 1.5]]"
            "line 2, column 24 ([1][0].events[0]): expected a version (an integer), found 1.5"]
           ["[[{\"events\": [[\"w\", 0, 1]], \"committed\": true}], [{\"events\": [[\"w\", 0, 1]" 
            "line 1, column 74 ([1][0].events[0]): expected ',' or ']' in the events, found the end of the input"]
           ["[[{\"events\": [[\"w\", 0, 1]], \"committed\": true}], [{\"events\": [[\"w\", 0, 1]], \"committed\": true}]]"
            "op 1 ([1][0], line 1): micro-op [:w 0 1] writes 1 to key 0, which op 0 wrote too"]]]
    (let [m (error (tmp-file "bad.json" text))]
      (is (one-line? m) text)
      (is (and m (str/starts-with? m expect)) (str text " => " m)))))

;; ---------------------------------------------------------------- dbcop bincode

(defn- bincode
  "dbcop's bincode for sessions of transactions [success [[write? variable value success?] ...]]."
  ^bytes [sessions]
  (let [o  (ByteArrayOutputStream.)
        u8 (fn [v] (.write o (int v)))
        u64 (fn [v] (let [v (biginteger v)] (dotimes [i 8] (u8 (.longValue (.and (.shiftRight v (* 8 i)) (biginteger 255)))))))
        s  (fn [^String x] (let [b (.getBytes x StandardCharsets/UTF_8)] (u64 (alength b)) (.write o b 0 (alength b))))]
    (doseq [v [0 (count sessions) 3 (reduce + (map count sessions)) 2]] (u64 v))
    (s "test") (s "2022-01-01T00:00:00+00:00") (s "2022-01-01T00:00:01+00:00")
    (u64 (count sessions))
    (doseq [ss sessions]
      (u64 (count ss))
      (doseq [[ok events] ss]
        (u64 (count events))
        (doseq [[w k v okv] events] (u8 (if w 1 0)) (u64 k) (u64 v) (u8 (if okv 1 0)))
        (u8 (if ok 1 0))))
    (.toByteArray o)))

(def bincode-sessions
  [[[true [[true 1 0 true] [true 2 0 true]]]                       ; the initial transaction: left out
    [true [[true 1 5 true] [false 2 0 true] [true 3 9 false]       ; a failed write: an aborted write
           [false 1 7 false]]]                                     ; a failed read: left out
    [false [[true 2 6 true] [true 4 1 false]]]]                    ; a failed transaction: :fail
   [[true [[false 1 5 true] [false 2 6 true] [true (.shiftLeft BigInteger/ONE 63) 3 true]]]]])

(def bincode-twin
  (str "{:index 0, :type :ok, :process 1, :f :txn, :value [[:w 1 5] [:r 2 nil]]}\n"
       "{:index 1, :type :fail, :process 1, :f :txn, :value [[:w 3 9]]}\n"
       "{:index 2, :type :fail, :process 1, :f :txn, :value [[:w 2 6] [:w 4 1]]}\n"
       "{:index 3, :type :ok, :process 2, :f :txn, :value [[:r 1 5] [:r 2 6] [:w 9223372036854775808 3]]}\n"))

(deftest dbcop-bincode-reads-as-its-edn-twin
  (same-as-twin (tmp-file "history.bincode" (bincode bincode-sessions)) bincode-twin)
  (testing "an aborted write of a value a successful transaction also writes is kept apart"
    (let [retry [[[false [[true 1 5 true]]] [true [[true 1 5 true]]]] [[true [[false 1 5 true]]]]]
          f     (tmp-file "retry.bincode" (bincode retry))]
      (is (= [[:fail 1 [[:w 1 "5/aborted"]]] [:ok 1 [[:w 1 5]]] [:ok 2 [[:r 1 5]]]] (model (read-history f))))
      (is (= (model (read-history f)) (model (read-history (convert f :dbcop-bincode))))
          "written back as it was (value 5), it reads the same")))
  (testing "a directory holding history.bincode, as AWDIT and PolySI's artifact keep it"
    (let [d (tmp-dir)]
      (Files/write (.toPath (io/file d "history.bincode")) ^bytes (bincode bincode-sessions) (make-array java.nio.file.OpenOption 0))
      (is (= (model (read-history (tmp-file "twin.edn" bincode-twin))) (model (read-history d))))
      (is (= (model (read-history d)) (model (read-history d :dbcop-bincode))))))
  (testing "gzip-compressed, under any name"
    (let [o (ByteArrayOutputStream.)]
      (with-open [g (GZIPOutputStream. o)] (.write g (bincode bincode-sessions)))
      (is (= (model (read-history (tmp-file "twin.edn" bincode-twin)))
             (model (read-history (tmp-file "h.dat" (.toByteArray o)))))))))

(deftest dbcop-bincode-malformed-files-are-one-line-errors
  (let [good (bincode bincode-sessions)
        cut  (fn [n] (java.util.Arrays/copyOf good (int n)))
        at   (fn [^bytes b i v] (let [c (aclone b)] (aset-byte c i (unchecked-byte v)) c))]
    (doseq [[bytes expect]
            [[(cut (- (alength good) 10))
              "truncated dbcop bincode (the file is incomplete): it ends at byte 366, inside data[1][0].events[2] value, after 3 complete transactions"]
             [(cut 60) "truncated dbcop bincode (the file is incomplete): it ends at byte 60, inside start, after 0 complete transactions"]
             [(at good 142 7) "byte 142: 0x07 where data[0][0].events[0] write, a bool (0 or 1), belongs; not a dbcop bincode history"]
             [(byte-array (concat good [0])) "byte 376: bytes after the last session; not a dbcop bincode history"]
             [(bincode [[[true [[true 1 0 true] [true 2 3 true]]]]])
              "byte 142: data[0][0] writes 0 to variable 1, and 0 is every variable's initial value in this format"]]]
      (let [m (error (tmp-file "bad.bincode" bytes))]
        (is (one-line? m))
        (is (and m (str/starts-with? m expect)) m)))))

;; ---------------------------------------------------------------- Cobra logs

(defn- cobra-log
  "A Cobra client log from records [\\S id], [\\W wid key val], [\\R txn wid key val], [\\C id]."
  ^bytes [& records]
  (let [o (ByteArrayOutputStream.)
        d (DataOutputStream. o)]
    (doseq [[tag & fields] records]
      (.writeByte d (int tag))
      (doseq [f fields] (.writeLong d (long f))))
    (.flush d)
    (.toByteArray o)))

(def init 0xbebeebee)

(defn- cobra-dir [logs]
  (let [d (tmp-dir)]
    (doseq [[name bytes] logs] (Files/write (.toPath (io/file d name)) ^bytes bytes (make-array java.nio.file.OpenOption 0)))
    (.getPath d)))

(def cobra-logs
  {"1.log"      (cobra-log [\S 100] [\W 11 7 12345] [\R 100 11 7 12345] [\C 100]   ; reads its own write
                           [\S 101] [\R init init 8 0] [\W 12 8 0] [\C 101])
   "0.log"      (cobra-log [\S 200] [\R 100 11 7 12345] [\C 200]
                           [\S 201] [\W 13 7 1])                                    ; never committed: :info
   "client.log" (cobra-log [\S 300] [\R 101 12 8 0] [\R 0xdeadbeef 0xdeadbeef 9 0] [\C 300])
   "notes.txt"  (.getBytes "not a log")})

(def cobra-twin
  (str "{:index 0, :type :ok, :process 0, :f :txn, :value [[:r 7 11]]}\n"
       "{:index 1, :type :info, :process 0, :f :txn, :value [[:w 7 13]]}\n"
       "{:index 2, :type :ok, :process 1, :f :txn, :value [[:w 7 11] [:r 7 11]]}\n"
       "{:index 3, :type :ok, :process 1, :f :txn, :value [[:r 8 nil] [:w 8 12]]}\n"
       "{:index 4, :type :ok, :process \"client\", :f :txn, :value [[:r 8 12] [:r 9 nil]]}\n"))

(deftest cobra-logs-read-as-their-edn-twin
  (same-as-twin (cobra-dir cobra-logs) cobra-twin)
  (testing "one log file alone is one session"
    (is (= [[:ok "client" [[:r 8 12] [:r 9 nil]]]]
           (model (read-history (tmp-file "client.log" (cobra-logs "client.log")))))))
  (testing "a directory named with another --input-format is refused"
    (is (str/starts-with? (str (error (cobra-dir cobra-logs) :plume)) "it is a directory, and Plume/PolySI text is read from a file"))))

(deftest cobra-malformed-logs-are-one-line-errors
  (doseq [[logs expect]
          [[{"0.log" (cobra-log [\S 1] [\W 1 2 3] [\X 1])} "0.log, byte 34: 0x58 ('X') is not a Cobra log record (S, W, R or C); isocheck reads logs written without timestamps (TIME_ORDER_ON=false, Cobra's default)"]
           [{"0.log" (cobra-log [\S 1] [\A 1])} "0.log, byte 9: 0x41 ('A') is not a Cobra log record (S, W, R or C); Cobra's clients log no aborts"]
           [{"0.log" (java.util.Arrays/copyOf (cobra-log [\S 1] [\W 1 2 3]) 20)} "0.log, byte 18: the log ends inside the 'W' record at byte 9 (its key): the file is incomplete"]
           [{"0.log" (cobra-log [\S 1] [\C 2])} "0.log, byte 9: a commit of transaction 0x2 inside transaction 0x1 (started at byte 0)"]
           [{"0.log" (cobra-log [\S 1] [\S 2])} "0.log, byte 9: transaction 0x2 starts while transaction 0x1 (started at byte 0) has not committed"]
           [{"0.log" (cobra-log [\S 1] [\C 1]) "1.log" (cobra-log [\S 1] [\C 1])} "1.log, byte 0: transaction 0x1 starts again; it started at byte 0 of 0.log"]
           [{"0.log" (cobra-log [\W 1 2 3])} "0.log, byte 0: a write outside any transaction"]
           [{"0.log" (cobra-log [\S 1] [\R init 0x23332333 5 0] [\C 1])} "0.log, byte 9: a read of write id 0x23332333 of Cobra's initial transaction (a garbage-collection read of Cobra's online mode), which isocheck cannot map"]
           [{"0.log" (cobra-log [\S 1] [\W 7 5 0] [\C 1]) "1.log" (cobra-log [\S 2] [\R 3 7 5 0] [\C 2])}
            "1.log, byte 9: transaction 0x2 reads write id 0x7 as transaction 0x3's, but transaction 0x1 wrote it (0.log, byte 9)"]]]
    (let [m (error (cobra-dir logs))]
      (is (one-line? m))
      (is (and m (str/starts-with? m expect)) m)))
  (is (str/starts-with? (str (error (cobra-dir {"notes.txt" (.getBytes "x")}) :cobra)) "no .log files in ")))

;; Write ids 1, 2, 3, ...: each read checked against its write id's slot (CobraLog.WriterCheck).
(deftest cobra-reads-of-many-writes-check-the-first-writer-in-log-order
  (let [n 6000
        writes (apply cobra-log (mapcat (fn [i] [[\S i] [\W i (mod i 97) 0] [\C i]]) (range 1 (inc n))))
        ;; txn 6001 writes write id 60 again, to another key: its first write (txn 60's) is the one a read names.
        again (cobra-log [\S 6001] [\W 60 1000 0] [\C 6001])
        logs (fn [& reads] {"0.log" writes "2.log" again
                            "1.log" (apply cobra-log (concat [[\S 9001]] reads [[\C 9001]]))})]
    (is (nil? (error (cobra-dir (logs [\R 100 100 3 0] [\R 60 60 60 0] [\R 5999 5999 82 0] [\R 7 123456 1 0]))))
        "reads naming their write ids' first writers, and a read of a write id no log has, load")
    (let [m (error (cobra-dir (logs [\R 100 100 3 0] [\R 7 4000 23 0] [\R 7 50 50 0])))]
      (is (one-line? m))
      (is (= "1.log, byte 42: transaction 0x2329 reads write id 0xfa0 as transaction 0x7's, but transaction 0xfa0 wrote it (0.log, byte 171966)" m)
          "the first read in log order naming another writer"))
    (is (= "1.log, byte 9: transaction 0x2329 reads write id 0x3c as transaction 0x1771's, but transaction 0x3c wrote it (0.log, byte 2546)"
           (error (cobra-dir (logs [\R 6001 60 60 0]))))
        "a write id written twice is its first write's")))

(deftest cobra-reads-of-many-more-writes-check-each-part
  ;; 400,000 writes of write ids beyond WriterCheck's slots (from 2^40), so joined by ReadCheck:
  ;; more than 4,096 in each of its 64 partitions, so each is split into parts by more of the hash
  ;; before it is joined; reads of write ids spread over all of them.
  (let [txns 40000
        far (bit-shift-left 1 40)
        writes (apply cobra-log (mapcat (fn [t] (concat [[\S t]] (for [j (range 10)] [\W (+ far (* 16 t) j) (mod (+ t j) 997) 0]) [[\C t]]))
                                        (range 1 (inc txns))))
        reads (fn [bad] (apply cobra-log (concat [[\S 900000]]
                                                 (for [t (range 1 (inc txns) 97)]
                                                   [\R (if (= t bad) (inc t) t) (+ far (* 16 t) 3) (mod (+ t 3) 997) 0])
                                                 [[\C 900000]])))]
    (is (nil? (error (cobra-dir {"0.log" writes "1.log" (reads -1)}))) "every read names its write id's writer")
    (is (nil? (isocheck.io.CobraStreamProbe/stream (.toPath (io/file ^String (cobra-dir {"0.log" writes "1.log" (reads -1)})))))
        "and streams")
    (doseq [bad [1 (inc (* 97 200)) (inc (* 97 412))]]
      (is (str/starts-with? (str (isocheck.io.CobraStreamProbe/stream (.toPath (io/file ^String (cobra-dir {"0.log" writes "1.log" (reads bad)})))))
                            "not streamable: write id 0x"))
      (let [m (error (cobra-dir {"0.log" writes "1.log" (reads bad)}))]
        (is (one-line? m))
        (is (and m (str/includes? m (str "reads write id 0x" (Long/toHexString (+ far (* 16 bad) 3)) " as transaction 0x"
                                         (Long/toHexString (inc bad)) "'s, but transaction 0x" (Long/toHexString bad) " wrote it")))
            m)))))

;; While streaming, CobraLog.WriterCheck checks each read against its write id's first writer:
;; write ids numbered from 0 up (a slot each), any other in ReadCheck; writers' Cobra ids that fit
;; in 31 bits kept as they are, others aside. CobraStreamProbe reads as the streaming read does,
;; without the whole read a refusal leads to (which names the read).
(deftest cobra-reads-checked-while-streaming
  (let [stream #(isocheck.io.CobraStreamProbe/stream (.toPath (io/file ^String %)))
        wide 0x100000001
        cases
        [["a read in a log before its writer's" 7
          {"0.log" (cobra-log [\S 1] [\R 2 7 5 0] [\R 9 99 5 0] [\C 1]) "1.log" (cobra-log [\S 2] [\W 7 5 0] [\C 2])}
          {"0.log" (cobra-log [\S 1] [\R 3 7 5 0] [\C 1]) "1.log" (cobra-log [\S 2] [\W 7 5 0] [\C 2])}
          "0.log, byte 9: transaction 0x1 reads write id 0x7 as transaction 0x3's, but transaction 0x2 wrote it (1.log, byte 9)"]
         ["write ids beyond the slots (negative, 2^62) beside ones in them" 0x4000000000000000
          {"0.log" (cobra-log [\S 1] [\W -5 1 0] [\W 0x4000000000000000 2 0] [\W 3 3 0] [\C 1])
           "1.log" (cobra-log [\S 2] [\R 1 -5 1 0] [\R 1 0x4000000000000000 2 0] [\R 1 3 3 0] [\C 2])}
          {"0.log" (cobra-log [\S 1] [\W -5 1 0] [\W 0x4000000000000000 2 0] [\W 3 3 0] [\C 1])
           "1.log" (cobra-log [\S 2] [\R 1 -5 1 0] [\R 2 0x4000000000000000 2 0] [\R 1 3 3 0] [\C 2])}
          "1.log, byte 42: transaction 0x2 reads write id 0x4000000000000000 as transaction 0x2's, but transaction 0x1 wrote it (0.log, byte 34)"]
         ["writers' ids beyond 31 bits" 4
          {"0.log" (cobra-log [\S wide] [\W 4 1 0] [\C wide] [\S -7] [\W 5 1 0] [\C -7])
           "1.log" (cobra-log [\S 2] [\R wide 4 1 0] [\R -7 5 1 0] [\C 2])}
          {"0.log" (cobra-log [\S wide] [\W 4 1 0] [\C wide] [\S -7] [\W 5 1 0] [\C -7])
           "1.log" (cobra-log [\S 2] [\R -7 4 1 0] [\R -7 5 1 0] [\C 2])}
          "1.log, byte 9: transaction 0x2 reads write id 0x4 as transaction 0xfffffffffffffff9's, but transaction 0x100000001 wrote it (0.log, byte 9)"]
         ["a writer's id beyond 31 bits named for one that fits" 4
          {"0.log" (cobra-log [\S 1] [\W 4 1 0] [\C 1]) "1.log" (cobra-log [\S 2] [\R 1 4 1 0] [\C 2])}
          {"0.log" (cobra-log [\S 1] [\W 4 1 0] [\C 1]) "1.log" (cobra-log [\S 2] [\R (+ wide 0xfffffffe) 4 1 0] [\C 2])}
          "1.log, byte 9: transaction 0x2 reads write id 0x4 as transaction 0x1ffffffff's, but transaction 0x1 wrote it (0.log, byte 9)"]]]
    (doseq [[label wid good bad message] cases]
      (is (nil? (stream (cobra-dir good))) label)
      (is (nil? (error (cobra-dir good))) label)
      (is (= (str "not streamable: write id 0x" (Long/toHexString wid) " read as another transaction's") (stream (cobra-dir bad))) label)
      (is (= message (error (cobra-dir bad))) label))
  (testing "a transaction id beyond the slots started again"
      (is (= "1.log, byte 0: transaction 0x4000000000000000 starts again; it started at byte 18 of 0.log"
           (error (cobra-dir {"0.log" (cobra-log [\S 1] [\C 1] [\S 0x4000000000000000] [\C 0x4000000000000000])
                              "1.log" (cobra-log [\S 0x4000000000000000] [\C 0x4000000000000000])})))))
  (testing "many write ids in slots and beyond, each read of its first writer"
    (let [n 20000
          writes (apply cobra-log (mapcat (fn [i] [[\S i] [\W (if (odd? i) i (- i)) (mod i 97) 0] [\C i]]) (range 1 (inc n))))
          reads (fn [bad] (apply cobra-log (concat [[\S 900000]]
                                                   (for [i (range 1 (inc n) 7)] [\R (if (= i bad) (inc i) i) (if (odd? i) i (- i)) (mod i 97) 0])
                                                   [[\C 900000]])))]
      (is (nil? (stream (cobra-dir {"0.log" (reads -1) "1.log" writes}))))
      (doseq [bad [1 (inc (* 7 1001)) (inc (* 7 1000))]]
        (is (= (str "not streamable: write id 0x" (Long/toHexString (if (odd? bad) bad (- bad))) " read as another transaction's")
               (stream (cobra-dir {"0.log" (reads bad) "1.log" writes})))))))))

;; A read of a write id no log has written yet keeps the writer it names in the write id's slot
;; (CobraLog.WriterCheck's claims): later reads of it, and its first write, are checked against
;; that; writers whose Cobra ids need 30 bits or more kept aside as before.
(deftest cobra-reads-before-their-writes-checked-while-streaming
  (let [stream #(isocheck.io.CobraStreamProbe/stream (.toPath (io/file ^String %)))
        big 0x40000000
        refused #(str "not streamable: write id 0x" (Long/toHexString %) " read as another transaction's")
        logs (fn [reads writes] {"0.log" (apply cobra-log (concat [[\S 1]] reads [[\C 1]])) "1.log" (apply cobra-log writes)})]
    (testing "reads naming the first writer, before it and after it"
      (let [d (cobra-dir (logs [[\R 2 7 5 0] [\R 2 7 5 0] [\R big 8 6 0]]
                               [[\S 2] [\W 7 5 0] [\C 2] [\S 3] [\W 7 9 0] [\C 3] [\S big] [\W 8 6 0] [\C big] [\S 4] [\R 2 7 5 0] [\C 4]]))]
        (is (nil? (stream d)))
        (is (nil? (error d)))))
    (testing "a read before the write naming another writer"
      (let [d (cobra-dir (logs [[\R 3 7 5 0]] [[\S 2] [\W 7 5 0] [\C 2] [\S 3] [\W 7 9 0] [\C 3]]))]
        (is (= (refused 7) (stream d)))
        (is (= "0.log, byte 9: transaction 0x1 reads write id 0x7 as transaction 0x3's, but transaction 0x2 wrote it (1.log, byte 9)"
               (error d)))))
    (testing "a read naming a writer whose id fits in 30 bits, written by one whose id does not"
      (let [d (cobra-dir (logs [[\R (- big 2) 8 6 0]] [[\S big] [\W 8 6 0] [\C big]]))]
        (is (= (refused 8) (stream d)))
        (is (str/starts-with? (str (error d)) "0.log, byte 9: transaction 0x1 reads write id 0x8 as transaction 0x3ffffffe's"))))
    (testing "two reads naming different writers of a write id: refused while streaming, the whole read decides"
      (let [unwritten (cobra-dir (logs [[\R 2 7 5 0] [\R 3 7 5 0]] [[\S 2] [\C 2]]))
            written (cobra-dir (logs [[\R 2 7 5 0] [\R 3 7 5 0]] [[\S 2] [\W 7 5 0] [\C 2]]))]
        (is (= (refused 7) (stream unwritten)))
        (is (nil? (error unwritten)) "no write of it: both load, as reads of a write id no log has")
        (is (= (refused 7) (stream written)))
        (is (str/starts-with? (str (error written)) "0.log, byte 42: transaction 0x1 reads write id 0x7 as transaction 0x3's"))))
    (testing "more reads than are checked together, every one before its write"
      (let [n 3000
            writes (mapcat (fn [i] [[\S (+ 10 i)] [\W i (mod i 97) 0] [\C (+ 10 i)]]) (range 1 (inc n)))
            reads (fn [bad] (for [i (range 1 (inc n))] [\R (if (= i bad) (+ 11 i) (+ 10 i)) i (mod i 97) 0]))]
        (is (nil? (stream (cobra-dir (logs (reads -1) writes)))))
        (doseq [bad [1 256 257 2999]]
          (is (= (refused bad) (stream (cobra-dir (logs (reads bad) writes)))) bad))))))

;; ---------------------------------------------------------------- elle-cli

(def elle-json
  ;; elle-cli's list-append test files leave out "f" on transactions.
  (str "[{\"index\":0,\"process\":0,\"type\":\"invoke\",\"value\":[[\"append\",1,1]]},\n"
       " {\"index\":1,\"process\":0,\"type\":\"fail\",\"value\":[[\"append\",1,1]]},\n"
       " {\"index\":2,\"process\":1,\"type\":\"invoke\",\"value\":[[\"r\",1,null]]},\n"
       " {\"index\":3,\"process\":1,\"type\":\"ok\",\"value\":[[\"r\",1,[1]]]},\n"
       " {\"index\":4,\"process\":\"nemesis\",\"type\":\"info\",\"value\":null}]\n"))

(def elle-twin
  (str "{:index 0, :process 0, :type :invoke, :f :txn, :value [[:append 1 1]]}\n"
       "{:index 1, :process 0, :type :fail, :f :txn, :value [[:append 1 1]]}\n"
       "{:index 2, :process 1, :type :invoke, :f :txn, :value [[:r 1 nil]]}\n"
       "{:index 3, :process 1, :type :ok, :f :txn, :value [[:r 1 [1]]]}\n"
       "{:index 4, :process :nemesis, :type :info, :value nil}\n"))

(deftest elle-cli-ops-without-f-are-transactions
  (let [f    (tmp-file "g1a.json" elle-json)
        h    (read-history f :elle-cli)
        twin (read-history (tmp-file "twin.edn" elle-twin))]
    (is (= (model twin) (model h)))
    (is (= (verdicts twin) (verdicts h)))
    (is (= 1 (.opsSkipped h)) "an op without :f whose value is not micro-ops stays skipped")
    (testing "read as isocheck's JSON, such ops are skipped, and the reason says how to read them"
      (let [plain (read-history f)]
        (is (= 0 (.nTxns plain)))
        (is (str/includes? (.noTxnReason plain) "--input-format elle-cli"))))
    (testing "elle-cli's EDN too"
      (is (= (model twin) (model (read-history (tmp-file "g1a.edn" (str/replace elle-twin ", :f :txn" "")) :elle-cli)))))
    (testing "with --f, ops without :f get that :f"
      (is (= (model twin) (model (Formats/readHistory f nil "tx" (fmt :elle-cli))))))))

;; ---------------------------------------------------------------- detection by content


;; ---------------------------------------------------------------- the readers' fast paths

(deftest dbcop-json-numbers-and-names-read-as-written
  ;; Numbers are checked and parsed from the bytes, member names and tags matched in place:
  ;; the grammar and the spellings accepted are JSON's, as when each went through a String.
  (let [ev (fn [v] (str "[[{\"events\": [[\"w\", 0, " v "]], \"committed\": true}]]"))]
    (doseq [[v want] [["0" 0] ["-0" 0] ["42" 42] ["9223372036854775807" Long/MAX_VALUE]
                      ["18446744073709551615" (biginteger 18446744073709551615N)]]]
      (is (= [[:ok 1 [[:w 0 want]]]] (model (read-history (tmp-file "n.json" (ev v))))) v))
    (doseq [[v expect] [["007" "expected a version (an integer), found 007"]
                        ["1e3" "expected a version (an integer), found 1e3"]
                        ["-" "expected a version (an integer), found -"]
                        ["--1" "expected a version (an integer), found --1"]
                        ["18446744073709551616" "the version 18446744073709551616 does not fit in 64 bits"]
                        ["-5" "the version -5 is negative; dbcop's versions are unsigned"]]]
      (let [m (error (tmp-file "n.json" (ev v)))]
        (is (one-line? m) v)
        (is (and m (str/includes? m expect)) (str v " => " m)))))
  (testing "escaped member names and tags are the names they spell"
    (let [plain   (str "[[{\"events\": [{\"Write\": {\"variable\": 0, \"version\": 1}}, [\"r\", 0, 1]], \"committed\": true}]]")
          escaped (str "[[{\"ev\\u0065nts\": [{\"Writ\\u0065\": {\"v\\u0061riable\": 0, \"version\": 1}}, [\"\\u0072\", 0, 1]],"
                       " \"committed\": true}]]")]
      (is (= (model (read-history (tmp-file "p.json" plain))) (model (read-history (tmp-file "e.json" escaped)))))
      (is (= [[:ok 1 [[:w 0 1] [:r 0 1]]]] (model (read-history (tmp-file "e.json" escaped)))))))
  (testing "CRLF line ends and other whitespace"
    (is (= (model (read-history (tmp-file "d.json" dbcop-json)))
           (model (read-history (tmp-file "crlf.json" (str/replace dbcop-json "\n" "\r\n\t"))))))))

(deftest dbcop-json-events-read-in-one-scan-read-as-the-general-reading
  ;; An event as dbcop and isocheck write it, whole in the reader's buffer, is read in one scan
  ;; of its bytes; any other spelling by the general reading. In a file of some kilobytes (so
  ;; that the events are far from the buffer's end), every spelling below must read as the
  ;; general reading reads it (forced by a line end inside each event), and a bad number must
  ;; fail as it does there.
  (let [evs ["{\"Write\": {\"variable\": %d, \"version\": 1}}" "{\"Write\":{\"variable\":%d,\"version\":2}}"
             "{\"Read\": {\"variable\": %d, \"version\": 5}}" "{\"Read\": {\"variable\": %d, \"version\": null}}"
             "{\"Read\":{\"variable\":%d,\"version\":null}}" "{ \"Write\" :  { \"variable\" : %d , \"version\" : 7 } }"
             "{\"Write\":      {\"variable\": %d, \"version\": 9}}"
             "{\"Write\": {\"version\": 10, \"variable\": %d}}"
             "{\"Write\": {\"variable\": %d, \"version\": 123456789012345678}}"
             "{\"Write\": {\"variable\": %d, \"version\": 1234567890123456789}}"
             "{\"Write\": {\"variable\": %d, \"version\": 18446744073709551615}}"
             "{\"Write\": {\"variable\": \"k%d\", \"version\": 1}}"
             "{\"Write\": {\"variable\": %d, \"version\": 3, \"x\": [1]}}"
             "{\"Read\": {\"variable\": %d, \"version\": 0}}"]
        file (fn [general?]
               (str "[[" (str/join ",\n" (for [i (range 40)]
                                          (str "{\"events\": ["
                                               (str/join ", " (for [[j e] (map vector (range) evs)]
                                                                (let [e (format e (+ (* 100 i) j 1))]
                                                                  (if general? (str "{\n" (subs e 1)) e))))
                                               "], \"committed\": true}")))
                    "]]"))
        want (model (read-history (tmp-file "g.json" (file true))))]
    (is (= 560 (count (mapcat last want))))
    (is (= want (model (read-history (tmp-file "f.json" (file false))))))
    (doseq [[bad expect] [["\"version\": 007}" "expected a version or null (an integer), found 007"]
                          ["\"version\": nullx}" "expected a version or null"]
                          ["\"version\": -1}" "the version -1 is negative"]]]
      (let [text (str/replace-first (file false) (if (str/includes? bad "nullx") "\"version\": null}" "\"version\": 5}") bad)
            m (error (tmp-file "b.json" text))]
        (is (one-line? m) bad)
        (is (and m (str/includes? m expect)) (str bad " => " m))))))

(deftest plume-text-line-ends-blank-lines-and-gzip
  (let [want (model (read-history (tmp-file "p.txt" plume-text)))
        gz   (fn [^String s] (let [o (ByteArrayOutputStream.)]
                               (with-open [g (GZIPOutputStream. o)] (.write g (.getBytes s StandardCharsets/UTF_8)))
                               (.toByteArray o)))]
    (doseq [[label text] [["CRLF" (str/replace plume-text "\n" "\r\n")]
                          ["trailing blank lines" (str plume-text "\n\n\r\n  \n")]
                          ["a byte order mark" (str "\uFEFF" plume-text)]]]
      (is (= want (model (read-history (tmp-file "v.txt" text)))) label)
      (is (= want (model (read-history (tmp-file "v.txt.gz" (gz text))))) (str label ", gzip")))))

;; PlumeText reads a well-formed line whose end is in its 1 MiB window in one pass, any other
;; line (across the window's end, a number of 19 digits, the last line without a newline, an
;; error) by the general reading: both kinds, over several windows, read alike.
(deftest plume-text-lines-across-the-window-read-alike
  (let [n     60000
        big   (fn [t] (if (zero? (mod t 11)) (+ 1000000000000000000 t) (inc t)))
        end   (fn [t] (case (int (mod t 5)) 0 "  \n" 1 "\r\n" "\n"))
        txn   (fn [t] (if (zero? (mod t 7)) -1 t))
        text  (apply str (for [t (range n)]
                           (str "w(" t "," (big t) "," (mod t 3) "," (txn t) ")" (end t)
                                "r(" (+ t 1000000) ",0," (mod t 3) "," (txn t) ")" (end (inc t)))))
        want  (vec (for [t (range n)]
                     [(if (zero? (mod t 7)) :fail :ok) (mod t 3) [[:w t (big t)] [:r (+ t 1000000) nil]]]))]
    (is (> (count text) (* 2 (bit-shift-left 1 20))) "the file spans several windows")
    (is (= want (model (read-history (tmp-file "w.txt" text)))))
    (is (= (conj want [:ok 0 [[:w 7 7]]]) (model (read-history (tmp-file "w.txt" (str text "w(7,7,0," n ")")))))
        "the last line without its newline")
    (is (str/starts-with? (error (tmp-file "w.txt" (str text "w(7,x,0," n ")\n")))
                          (str "line " (inc (* 2 n)) ", column 5: expected a digit (the value), found 'x' in w(7,x,0," n ")"))
        "an error past the first window names its line")))

;; PlumeText finds small txn ids in a table indexed by id, grown as ids come, the others in a
;; hash map: a transaction whose lines are apart is one transaction wherever its id was kept
;; (here 5000 and 10^15 in the map first, 5000 then in the table once it grows past it).
(deftest plume-text-a-transaction-is-found-again-by-its-id
  (let [n    5000
        text (str "w(1,1,0,5000)\nw(1,2,0,1000000000000000)\n"
                  (apply str (for [t (range n)] (str "w(" (+ t 10) ",1,0," t ")\n")))
                  "w(2,1,0,5000)\nw(2,2,0,1000000000000000)\n")
        h    (read-history (tmp-file "ids.txt" text))]
    (is (= (+ n 2) (.nTxns h)))
    (is (= [[:ok 0 [[:w 1 1] [:w 2 1]]] [:ok 0 [[:w 1 2] [:w 2 2]]]] (take 2 (model h))))))

(deftest aborted-duplicates-are-renamed-wherever-the-committed-write-is
  ;; TxnBuffer looks the committed writes up among the aborted ones rather than boxing them
  ;; all: an aborted write gets a name of its own when a committed write of the same key and
  ;; value comes before it or after it, or an aborted one before it; otherwise it keeps its value.
  (let [h (read-history (tmp-file "r.txt" (str "w(1,5,0,-1)\n"     ; aborted, committed 5 later: 5/aborted
                                               "w(1,5,1,0)\n"
                                               "w(1,5,2,-1)\n"      ; aborted after it: 5/aborted-2
                                               "w(2,3,0,-1)\nr(1,5,0,1)\n"
                                               "w(2,3,1,-1)\n"      ; aborted twice, never committed: 3, then 3/aborted
                                               "w(3,4,2,-1)\n")))]  ; aborted, alone: keeps 4
    (is (= [[:fail 0 [[:w 1 "5/aborted"]]] [:ok 1 [[:w 1 5]]] [:fail 2 [[:w 1 "5/aborted-2"]]]
            [:fail 0 [[:w 2 3]]] [:ok 0 [[:r 1 5]]] [:fail 1 [[:w 2 "3/aborted"]]] [:fail 2 [[:w 3 4]]]]
           (model h))))
  (testing "variables from 2^63 up (dbcop bincode): the same, keys compared as objects"
    (let [big (.shiftLeft BigInteger/ONE 63)
          h   (read-history (tmp-file "s.bincode" (bincode [[[false [[true big 5 true]]] [true [[true big 5 true] [true 7 5 true]]]]
                                                            [[false [[true big 5 true]]] [false [[true 7 5 true]]]]])))]
      (is (= [[:fail 1 [[:w big "5/aborted"]]] [:ok 1 [[:w big 5] [:w 7 5]]]
              [:fail 2 [[:w big "5/aborted-2"]]] [:fail 2 [[:w 7 "5/aborted"]]]]
             (model h))))))

(deftest messages-name-the-place-when-the-builder-runs-on-its-own-thread
  ;; The other tools' readers describe where an op came from only when a message needs it
  ;; (OpRecord.originFn): through the stream to the builder's thread as well.
  (System/setProperty "isocheck.load.pipe-from" "0")
  (try
    (is (str/starts-with? (error (tmp-file "dup.txt" "w(1,5,0,0)\nw(1,5,1,1)\n"))
                          "op 1 (txn 1 of session 1, line 2): micro-op [:w 1 5] writes 5 to key 1"))
    (is (str/starts-with? (error (tmp-file "dup.json" "[[{\"events\": [[\"w\", 0, 1]], \"committed\": true}], [{\"events\": [[\"w\", 0, 1]], \"committed\": true}]]"))
                          "op 1 ([1][0], line 1): micro-op [:w 0 1] writes 1 to key 0"))
    (finally (System/clearProperty "isocheck.load.pipe-from"))))

(defn- read-whole
  "The History of the file at path read from a stream, which cannot be read again: the other
  tools' readers then read it whole before handing any transaction on (no streaming)."
  ^History [path]
  (let [b (isocheck.history.HistoryBuilder. nil nil)]
    (with-open [in (io/input-stream (io/file path))] (Formats/read in b))
    (.build b)))

;; The streaming buffer keeps its transactions' columns (session, line, txn id) in pages of
;; 4,096 transactions: it lets go of a page once every transaction in it is handed on (and,
;; streaming, fills it again with the next ones). A handed-on op carries what its message
;; needs (OpRecord.originArg, originArg2, its process), so a message about an op the builder
;; still holds names it rightly however far the reader has gone on, streaming or read whole.
(deftest handed-on-transactions-columns-are-let-go-and-still-name-their-place
  (let [n 12400
        text (.getBytes ^String (apply str (for [t (range n)] (str "w(" (inc t) ",1," (mod t 7) "," (+ 100 t) ")\n")))
                        StandardCharsets/US_ASCII)]
    (doseq [streaming [true false]
            [keep want] [[2 "txn 102 of session 2, line 3"] [5000 "txn 5100 of session 2, line 5001"]]]
      (is (= want (isocheck.io.TxnPageProbe/plumeOrigin text streaming keep)) (str "streaming " streaming))))
  (is (<= (isocheck.io.TxnPageProbe/mostPagesHeld 20000) 2) "streaming holds a page or two")
  (testing "a transaction's lines again, or in another session, pages after it was handed on: read whole, as ever"
    (let [lines (apply str (for [t (range 10000)] (str "w(" (inc t) ",1," (mod t 7) "," t ")\n")))
          again (tmp-file "again.txt" (str lines "w(20000,1,3,3)\n"))
          moved (tmp-file "moved.txt" (str lines "w(20000,1,4,3)\n"))]
      (is (= (model (read-whole again)) (model (read-history again))))
      (is (= [[:w 4 1] [:w 20000 1]] (nth (map last (model (read-history again))) 3)))
      (is (= "line 10001: txn 3 is in session 4 here, but in session 3 at line 4; a transaction belongs to one session"
             (error moved))))))

(deftest streamed-files-read-as-when-read-whole
  ;; From a file (or directory), the other tools' readers hand each transaction on as soon as it is complete
  ;; (TxnBuffer.stream); a file that needs the whole-file reading after all (a transaction's
  ;; lines apart, a read of version 0 before the write of it, an aborted write renamed, any
  ;; error) is read again whole. Either way: the same history as reading it whole, or the same error.
  (let [cases [["contiguous, an initial transaction of zeros, aborted runs, a read of 0"
                "p.txt" (str "w(1,0,0,9)\nw(2,0,0,9)\nw(1,1,0,1)\nw(2,1,0,1)\nw(1,2,1,-1)\nr(2,0,1,-1)\n\n"
                             "r(1,1,1,2)\nr(2,0,1,2)\nw(3,4,2,-1)\nw(3,5,2,-1)\nr(1,1,2,3)\nw(2,2,1,4)\n")]
               ["a transaction's lines apart" "spread.txt" plume-text]
               ["an aborted write renamed" "retry.txt" "w(1,5,0,-1)\nw(1,5,1,0)\nr(1,5,2,1)\n"]
               ["dbcop JSON" "d.json" dbcop-json]
               ["dbcop JSON, a read of version 0 before its write"
                "z.json" "[[{\"events\": [[\"r\", 1, 0]], \"committed\": true}], [{\"events\": [[\"w\", 1, 0]], \"committed\": true}]]"]
               ["dbcop bincode" "b.bincode" (bincode bincode-sessions)]
               ["dbcop bincode, an aborted write renamed" "r.bincode"
                (bincode [[[false [[true 1 5 true]]] [true [[true 1 5 true]]]] [[true [[false 1 5 true]]]]])]]]
    (doseq [[label name content] (concat cases
                                          [["Cobra logs" :cobra cobra-logs]
                                           ["Cobra logs, a read of a write id as another transaction's" :cobra
                                            (assoc cobra-logs "2.log" (cobra-log [\S 400] [\R 101 11 7 12345] [\C 400]))]])
            pipe [nil "0"]]
      (if pipe (System/setProperty "isocheck.load.pipe-from" pipe) (System/clearProperty "isocheck.load.pipe-from"))
      (try
        (if (= :cobra name)
          ;; A directory: read whole, one log after another, with CobraLog's own reader.
          (let [d (cobra-dir content)
                whole (fn [] (let [b (isocheck.history.HistoryBuilder. nil nil)]
                               (isocheck.io.CobraLog/read (.toPath (io/file d)) b)
                               (model (.build b))))
                w (try (whole) (catch HistoryException e (.getMessage e)))
                s (try (model (read-history d)) (catch HistoryException e (.getMessage e)))]
            (is (= w s) (str label (when pipe ", builder on its own thread"))))
          (let [f (tmp-file name content)]
            (is (= (model (read-whole f)) (model (read-history f))) (str label (when pipe ", builder on its own thread")))))
        (finally (System/clearProperty "isocheck.load.pipe-from")))))
  (testing "a read of version 0 before a write of it reads the written 0, not the initial value"
    (is (= [[:ok 1 [[:r 1 0]]] [:ok 2 [[:w 1 0]]]]
           (model (read-history (tmp-file "z.json" "[[{\"events\": [[\"r\", 1, 0]], \"committed\": true}], [{\"events\": [[\"w\", 1, 0]], \"committed\": true}]]"))))))
  (testing "errors: the one reading the file whole meets first"
    (doseq [[text expect] [["w(1,5,0,0)\nw(1,5,1,1)\nx(1,1,0,2)\n" "line 3, column 1: expected r or w"]
                           ["w(1,1,0,0)\nw(2,0,0,0)\nw(3,1,0,1)\nw(3,1,1,2)\n" "line 2: w(2,0,0,0) writes 0"]
                           ["w(1,1,0,0)\nw(1,1,1,1)\n" "op 1 (txn 1 of session 1, line 2): micro-op [:w 1 1] writes 1 to key 1, which op 0 wrote too"]]]
      (let [m (error (tmp-file "e.txt" text))]
        (is (one-line? m))
        (is (and m (str/starts-with? m expect)) (str text " => " m))))))

;; Streaming hands each transaction on as it completes and then numbers the buffer's ops from 0
;; again (TxnBuffer.restart), so a file holds one chunk of ops at a time; a transaction longer
;; than a chunk (65,536 ops) spans two; from 16 MB of input the buffer sizes its per-transaction
;; columns (and its reader's) from the estimate. Either way the history read whole.

(defn- first-difference
  "The first place two histories differ ([what where a b]), or nil: every transaction's status,
  process and micro-ops (kind, key, value)."
  [^History a ^History b]
  (if (not= (.nTxns a) (.nTxns b))
    [:txns nil (.nTxns a) (.nTxns b)]
    (or (some (fn [t]
                (let [t (int t)]
                  (cond (not= (.status a t) (.status b t)) [:status t (.status a t) (.status b t)]
                        (not= (.process a t) (.process b t)) [:process t (.process a t) (.process b t)]
                        (not= (- (.mopEnd a t) (.mopStart a t)) (- (.mopEnd b t) (.mopStart b t)))
                        [:mops t (- (.mopEnd a t) (.mopStart a t)) (- (.mopEnd b t) (.mopStart b t))])))
              (range (.nTxns a)))
        (some (fn [m]
                (let [m (int m)]
                  (when-not (and (= (.mopKind a m) (.mopKind b m))
                                 (= (.key a (.mopKey a m)) (.key b (.mopKey b m)))
                                 (= (.value a (.mopVal a m)) (.value b (.mopVal b m))))
                    [:mop m (mop a m) (mop b m)])))
              (range (.mopCount a))))))

(defn- plume-lines
  "Plume text of n transactions of 20 micro-ops (10 sessions, ids 0, 1, ...; writes of values
  unique per key, reads of the last value written or 0), the one numbered big of `long-txn`
  writes to new keys instead."
  ^String [n big long-txn]
  (let [sb (StringBuilder.)
        last-val (long-array 50001)]
    (dotimes [t n]
      (let [s (mod t 10)]
        (if (= t big)
          (dotimes [j long-txn] (.append sb (str "w(" (+ 100000 j) ",1," s "," t ")\n")))
          (dotimes [j 20]
            (let [k (inc (mod (+ (* t 7) (* j 13)) 50000))]
              (if (even? j)
                (let [v (inc (aget last-val k))]
                  (aset last-val k v)
                  (.append sb (str "w(" k "," v "," s "," t ")\n")))
                (.append sb (str "r(" k "," (aget last-val k) "," s "," t ")\n"))))))))
    (str sb)))

(deftest streamed-files-spanning-chunks-and-estimated-read-as-when-read-whole
  (let [small (tmp-file "chunks.txt" (plume-lines 3000 1500 70000))
        big (tmp-file "big.txt" (plume-lines 45000 20000 70000))]
    (is (< (* 16 1024 1024) (.length (io/file big))) "large enough for the estimate")
    (doseq [[label f] [["Plume text, 16 MB" big] ["Plume text" small] ["dbcop JSON" (convert small :dbcop)]
                       ["dbcop bincode" (convert small :dbcop-bincode)]]]
      (let [whole (read-whole f)
            streamed (read-history f)]
        (is (< 100000 (.mopCount whole)) label)
        (is (nil? (first-difference whole streamed)) label)))
    (let [d (convert small :cobra)
          whole (let [b (isocheck.history.HistoryBuilder. nil nil)]
                  (isocheck.io.CobraLog/read (.toPath (io/file d)) b)
                  (.build b))
          streamed (read-history d)]
      (is (< 100000 (.mopCount whole)) "Cobra logs")
      (is (nil? (first-difference whole streamed)) "Cobra logs"))))

(deftest every-format-loads-the-same-history
  ;; Plume's shape (20 micro-ops per transaction, 25 sessions), committed transactions only (so
  ;; that Cobra's logs hold it too), through every format isocheck reads: the same sessions,
  ;; transactions and micro-ops (Cobra's values are its write ids), the same verdicts.
  (let [w    (workload/wr {:key-count 200 :key-dist :uniform :max-txn-length 20 :min-txn-length 20 :seed 3})
        sim  (workload/simulate w {:txns 600 :concurrency 25 :store :read-committed :seed 3 :info-rate 0 :fail-rate 0})
        in   (tmp-file "sim.edn" (str/join "\n" (map pr-str (without-aborts (:history sim)))))
        text (convert in :plume)
        orig (read-history text)
        want (verdicts orig untimed-levels)]
    (is (< 200 (.nTxns orig)))
    (doseq [[to f] [[:edn (convert text :edn)] [:json (convert text :json)] [:dbcop (convert text :dbcop)]
                    [:dbcop-bincode (convert text :dbcop-bincode)]
                    [:edn-gzip (let [o (str (io/file (tmp-dir) "h.edn.gz"))] (run "convert" "--to" "edn" text o) o)]
                    [:plume-crlf (tmp-file "crlf.txt" (str/replace (slurp text) "\n" "\r\n"))]]]
      (let [h (read-history f)]
        (is (= (normal orig) (normal h)) (name to))
        (is (= want (verdicts h untimed-levels)) (name to))))
    (let [h (read-history (convert text :cobra))]
      (is (= (relabel orig) (relabel h)) "cobra")
      (is (= want (verdicts h untimed-levels)) "cobra"))))

(deftest formats-are-told-apart-by-their-content
  (let [plume    (model (read-history (tmp-file "h.txt" plume-text)))
        dbcop    (model (read-history (tmp-file "h.json" dbcop-json)))
        bin      (model (read-history (tmp-file "h.bincode" (bincode bincode-sessions))))
        cobra    (model (read-history (tmp-file "client.log" (cobra-logs "client.log"))))]
    (doseq [[name content expect] [["history.edn" plume-text plume]
                                   ["history.dat" (str "\uFEFF" plume-text) plume]
                                   ["history.dat" dbcop-json dbcop]
                                   ["history.edn" (subs dbcop-json (str/index-of dbcop-json "[\n  [")
                                                        (inc (str/last-index-of dbcop-json "]"))) dbcop]
                                   ["history.json" (bincode bincode-sessions) bin]
                                   ["client.edn" (cobra-logs "client.log") (assoc-in cobra [0 1] "client.edn")]]]
      (is (= expect (model (read-history (tmp-file name content)))) name)))
  (testing "Jepsen's formats still are what they were"
    (is (= 4 (.nTxns (read-history (tmp-file "t.txt" plume-twin)))) "EDN content named .txt")
    (is (= 0 (.nTxns (read-history (tmp-file "empty.txt" "")))) "no content: the name decides, and an empty Plume file is empty"))
  (testing "--input-format overrides the content, and the error then says what the content looked like"
    (let [m (error (tmp-file "h.edn" plume-twin) :plume)]
      (is (one-line? m))
      (is (str/ends-with? m "(read as Plume/PolySI text as --input-format plume says; it starts like EDN, as Jepsen EDN does)") m)))
  (testing "a name alone does not override the content, and the error says so"
    (let [m (error (tmp-file "h.txt" "{\"params\": {}}"))]
      (is (str/includes? m "(read as dbcop JSON because it starts like a dbcop history ([[, or {\" and one of dbcop's keys), though the name h.txt says Plume/PolySI text)") m))))

;; ---------------------------------------------------------------- convert: round trips

(def register-edn
  ;; Invocations and times, a nemesis op, an aborted and an indeterminate-free history: every
  ;; format but Cobra's (no aborts) holds it.
  (str "{:index 0, :time 1, :type :invoke, :process 0, :f :txn, :value [[:w 1 1] [:w 2 1]]}\n"
       "{:index 1, :time 2, :type :ok, :process 0, :f :txn, :value [[:w 1 1] [:w 2 1]]}\n"
       "{:index 2, :time 3, :type :invoke, :process 1, :f :txn, :value [[:r 1 nil] [:w 2 2]]}\n"
       "{:index 3, :time 4, :type :fail, :process 1, :f :txn, :value [[:r 1 nil] [:w 2 2]]}\n"
       "{:index 4, :time 5, :type :info, :process :nemesis, :f :kill, :value nil}\n"
       "{:index 5, :time 6, :type :invoke, :process 1, :f :txn, :value [[:r 1 nil] [:r 2 nil]]}\n"
       "{:index 6, :time 7, :type :ok, :process 1, :f :txn, :value [[:r 1 1] [:r 2 nil]]}\n"
       "{:index 7, :time 8, :type :invoke, :process 2, :f :txn, :value [[:r 2 nil] [:w 1 3]]}\n"
       "{:index 8, :time 9, :type :ok, :process 2, :f :txn, :value [[:r 2 1] [:w 1 3]]}\n"))

(deftest convert-round-trips-each-format
  (let [in   (tmp-file "h.edn" register-edn)
        orig (read-history in)]
    (testing "to EDN and elle-cli's JSON, op by op: the same history, invocations, times and other ops included"
      (doseq [to [:edn :json]]
        (let [out  (convert in to)
              back (read-history (convert out :edn))]
          ;; JSON has no keywords: the nemesis's process comes back a string.
          (is (= (cond-> (slurp in) (= to :json) (str/replace ":process :nemesis" ":process \"nemesis\""))
                 (slurp (convert out :edn)))
              (name to))
          (is (= (model orig) (model back)) (name to)))))
    (testing "to the other tools' formats: the same transactions, sessions and micro-ops, their order across sessions aside"
      (doseq [to [:plume :dbcop :dbcop-bincode]]
        (let [back (read-history (convert (convert in to) :edn))]
          (is (= (normal orig) (normal back)) (name to))
          (is (= (verdicts orig untimed-levels) (verdicts back untimed-levels)) (name to))))
      (is (= (map second (model orig)) (map second (model (read-history (convert in :plume)))))
          "Plume's text keeps integer processes as its sessions"))
    (testing "Cobra's logs: its write ids become the values"
      (let [in   (tmp-file "c.edn" (str/join "\n" (map pr-str (without-aborts (mapv read-string (str/split-lines register-edn))))))
            orig (read-history in)
            back (read-history (convert (convert in :cobra) :edn))]
        (is (= (relabel orig) (relabel back)))
        (is (= (verdicts orig untimed-levels) (verdicts back untimed-levels)))))
    (testing "peer format to peer format"
      (is (= (normal orig) (normal (read-history (convert (convert (convert in :dbcop-bincode) :plume) :dbcop)))))))
  (testing "the literal histories of each format survive a trip through every other one"
    (doseq [[name content] [["p.txt" plume-text] ["d.json" dbcop-json] ["b.bincode" (bincode bincode-sessions)]]
            :let [in (tmp-file name content)
                  h  (read-history in)]
            to [:edn :json :plume :dbcop :dbcop-bincode]
            :let [out (str (io/file (tmp-dir) "out"))
                  r   (run "convert" "--to" (clojure.core/name to) in out)]]
      (if (zero? (:status r))
        (is (= (normal h) (normal (read-history out))) (str name " -> " to))
        ;; dbcop's string variable and version 0 have no place in Plume's text or dbcop's
        ;; bincode, nor a u64 from 2^63 up in Plume's text.
        (is (and (or (and (= "d.json" name) (#{:plume :dbcop-bincode} to)) (and (= "b.bincode" name) (= :plume to)))
                 (str/includes? (:err r) "cannot write"))
            (str name " -> " to ": " (:err r)))))))

(deftest convert-round-trips-simulated-histories
  ;; rw-register histories from the simulated stores (aborts, no indeterminate transactions):
  ;; through each format and back, the same transactions and the same verdict at every level
  ;; that uses no realtime order, violations and all.
  (doseq [store [:serializable :snapshot-isolation :read-committed]
          seed  [1 2]]
    (let [w    (workload/wr {:key-count 4 :max-txn-length 4 :seed seed})
          sim  (workload/simulate w {:txns 120 :store store :seed seed :info-rate 0 :fail-rate (if (= seed 1) 0 0.1)})
          in   (tmp-file "sim.edn" (str/join "\n" (map pr-str (:history sim))))
          orig (read-history in)
          want (verdicts orig untimed-levels)]
      (doseq [to [:plume :dbcop :dbcop-bincode :json]]
        (let [back (read-history (convert (convert in to) :edn))]
          (is (= (normal orig) (normal back)) (str store " " seed " " to))
          (is (= want (verdicts back untimed-levels)) (str store " " seed " " to))))
      (testing "Cobra's logs, without the aborted transactions they cannot hold"
        (let [in   (tmp-file "sim.edn" (str/join "\n" (map pr-str (without-aborts (:history sim)))))
              orig (read-history in)
              back (read-history (convert (convert in :cobra) :edn))]
          (is (= (relabel orig) (relabel back)) (str store " " seed))
          (is (= (verdicts orig untimed-levels) (verdicts back untimed-levels)) (str store " " seed))))
      (when (= store :read-committed) (is (some false? (vals want)) "the weakest store shows violations")))))

;; ---------------------------------------------------------------- convert: refusals and usage

(deftest convert-refuses-what-a-format-cannot-hold
  (doseq [[edn to expect]
          [["{:index 0, :type :ok, :process 0, :f :txn, :value [[:append 1 1]]}\n" :plume
            "Plume/PolySI text holds read/write-register histories ([:r k v] and [:w k v]); this one is list-append"]
           ["{:index 0, :type :invoke, :process 0, :f :txn, :value [[:w 1 1]]}\n{:index 1, :type :info, :process 0, :f :txn, :value [[:w 1 1]]}\n" :dbcop
            "cannot write T1 (process 0) as dbcop JSON: it is indeterminate (:info, or its invocation never completed), and dbcop JSON records committed and aborted transactions only"]
           ["{:index 0, :type :ok, :process 0, :f :txn, :value [[:w :x 1]]}\n" :plume
            "cannot write T0 (process 0) as Plume/PolySI text: micro-op [:w :x 1] has the key :x, and keys in Plume/PolySI text are integers from 0 up"]
           ["{:index 0, :type :ok, :process 0, :f :txn, :value [[:w 1 1]]}\n{:index 1, :type :ok, :process 0, :f :txn, :value [[:r :x nil]]}\n" :cobra
            "cannot write T1 (process 0) as Cobra logs: micro-op [:r :x nil] has the key :x, and keys in Cobra logs are 64-bit integers"]
           ["{:index 0, :type :ok, :process 0, :f :txn, :value [[:w 1 0]]}\n" :dbcop-bincode
            "cannot write T0 (process 0) as dbcop bincode: micro-op [:w 1 0] writes 0, which in this format is every variable's initial value"]
           ["{:index 0, :type :ok, :process 0, :f :txn, :value [[:r 1 0]]}\n" :dbcop
            "cannot write T0 (process 0) as dbcop JSON: micro-op [:r 1 0] reads 0, which no transaction writes to 1, and dbcop reads such a version 0 as the initial value"]
           ["{:index 0, :type :fail, :process 0, :f :txn, :value [[:w 1 1]]}\n" :cobra
            "cannot write T0 (process 0) as Cobra logs: it aborted, and a Cobra client logs committed transactions only"]
           ["{:index 0, :type :ok, :process 0, :f :read, :value 1}\n" :plume
            "nothing to convert: no :txn operations"]]]
    (let [in  (tmp-file "in.edn" edn)
          out (str (io/file (tmp-dir) "out"))
          r   (run "convert" "--lossy" "--to" (name to) in out)]
      (is (= 3 (:status r)))
      (is (str/starts-with? (:err r) (str "isocheck: " in ": " expect)) (:err r))
      (is (= 1 (count (str/split-lines (:err r)))))
      (is (not (.exists (io/file out))) "nothing is left behind")))
  (let [in (tmp-file "in.edn" register-edn)]
    (testing "Cobra's logs go into a directory without logs"
      (let [out (convert (tmp-file "c.edn" "{:index 0, :type :ok, :process 0, :f :txn, :value [[:w 1 1]]}\n") :cobra)
            r   (run "convert" "--to" "cobra" (tmp-file "d.edn" "{:index 0, :type :ok, :process 0, :f :txn, :value [[:w 1 1]]}\n") out)]
        (is (= 3 (:status r)))
        (is (str/includes? (:err r) "already holds .log files") (:err r))))
    (doseq [[args expect] [[["convert" in "out"] "isocheck: convert needs --to FORMAT"]
                           [["convert" "--to" "xml" in "out"] "isocheck: unknown format xml for --to; known: edn, json, elle-cli"]
                           [["convert" "--to" "edn" in] "isocheck: convert takes IN and OUT (- for standard input or output), not 1 file"]
                           [["convert" "--to" "cobra" in "-"] "isocheck: convert --to cobra writes a directory of logs, not standard output"]
                           [["check" "--input-format" "csv" in] "isocheck: unknown --input-format csv; known: "]]]
      (let [r (apply run args)]
        (is (= 3 (:status r)) (pr-str args))
        (is (str/starts-with? (:err r) expect) (:err r))))))

(deftest convert-writes-stdout-and-gzip
  (let [in (tmp-file "h.txt" plume-text)
        r  (run "convert" "--to" "edn" in "-")]
    (is (= 0 (:status r)))
    (is (= (str/replace plume-twin "{:index" "{:index") (:out r))))
  (let [in  (tmp-file "h.txt" plume-text)
        out (str (io/file (tmp-dir) "h.edn.gz"))
        r   (run "convert" "--to" "edn" in out)]
    (is (= 0 (:status r)))
    (is (= (str "converted " in " to " out " (Jepsen EDN): 4 ops\n") (:out r)))
    (is (= (model (read-history in)) (model (read-history out))))))

;; ---------------------------------------------------------------- check: the command line and the API

(deftest check-reads-other-formats-from-the-command-line
  (let [f (tmp-file "h.txt" plume-text)]
    (is (= 1 (:status (run "check" f))) "an aborted read (G1a)")
    (is (= 1 (:status (run "check" "--input-format" "plume" f))))
    (let [r (run "check" "--input-format" "dbcop" f)]
      (is (= 3 (:status r)))
      (is (str/starts-with? (:err r) (str "isocheck: " f ": line 1, column 1: expected a dbcop history")) (:err r))))
  (let [r (run "check" "--levels" "tcc" (cobra-dir cobra-logs))]
    (is (= 0 (:status r)) (:err r))))

(deftest check-file-api
  (let [f (tmp-file "h.bin" (bincode bincode-sessions))]
    (is (= (verdicts (read-history f)) (into {} (map (fn [[l v]] [l (:valid? v)])) (:levels (iso/check-file (iso/checker) f)))))
    (is (= (:levels (iso/check-file (iso/checker) f))
           (:levels (iso/check-file (iso/checker) f {:input-format :dbcop-bincode}))))
    (is (str/includes? (:error (iso/check-file (iso/checker) f {:input-format :plume})) "expected r or w"))
    (is (thrown? IllegalArgumentException (iso/check-file (iso/checker) f {:input-format :csv})))))

;; ---------------------------------------------------------------- real files

(def c4 "test/resources/corpus/c4-text")

(deftest c4-test-cases
  ;; C4's (and Plume's) small text test cases, each one anomalous pattern; C4's letters
  ;; differ from Plume's (seeds-weak digest, section 5.4): C4's f is Plume's d, h is k, i is l,
  ;; k is m. tap-n's reader reads the initial value after its own session wrote the key:
  ;; isocheck names it by session order (FracturedReadCO, which RA forbids), as Plume's
  ;; algorithm does for the session-order case; it is a TCC violation either way.
  (doseq [[file tap levels-violated]
          [["bp-b.txt" :AbortedRead #{:rc :ra :tcc}]
           ["bp-d.txt" :NotMyOwnWrite #{:rc :ra :tcc}]
           ["bp-f.txt" :NotMyOwnWrite #{:rc :ra :tcc}]
           ["bp-g.txt" :CyclicCO #{:rc :ra :tcc}]
           ["bp-h.txt" :FracturedReadCO #{:ra :tcc}]
           ["bp-i.txt" :FracturedReadCM #{:ra :tcc}]
           ["bp-k.txt" :COConflictCM #{:tcc}]
           ["bp-l.txt" :COConflictCM #{:tcc}]
           ["tap-a.txt" :ThinAirRead #{:rc :ra :tcc :ci}]
           ["tap-i.txt" :FracturedReadCM #{:ra :tcc}]
           ["tap-n.txt" :FracturedReadCO #{:ra :tcc}]]]
    (let [r (iso/check-file (iso/checker {:levels [:tcc :ra :rc :ci]}) (str c4 "/" file))]
      (is (contains? (set (:anomaly-types r)) tap) (str file " " (:anomaly-types r)))
      (is (= levels-violated (set (keep (fn [[l v]] (when (false? (:valid? v)) l)) (:levels r)))) file))))

(deftest c4-cockroachdb-history
  ;; CockroachDB v21.2.5 at SERIALIZABLE, 2 sessions x 10 transactions x 10 operations. C4
  ;; reports a causal violation (its TAP k, Plume's COConflictCM). isocheck finds a stronger
  ;; one, a read-atomic violation: T0 read key 2 = 47 from T16, then wrote 8 = 1; T1, next in
  ;; T0's session, read 8 = 51, T16's older write. And serializability, snapshot isolation.
  (let [r (iso/check-file (iso/checker) (str c4 "/cockroach.txt"))]
    (is (= {:strict-serializable false, :strong-session-serializable false, :serializable false,
            :strong-snapshot-isolation false, :strong-session-snapshot-isolation false, :snapshot-isolation false,
            :tcc false, :ra false, :rc true, :ci true,
            ;; Elle's levels: PL-2 and PL-1 hold; GSI fails with SI, repeatable read with serializability.
            :gsi false, :repeatable-read false, :read-committed true, :read-uncommitted true}
           (into {} (map (fn [[l v]] [l (:valid? v)])) (:levels r))))
    (is (contains? (set (:anomaly-types r)) :FracturedReadCO))
    (is (= 20 (get-in r [:stats :txns])))
    (is (= 2 (get-in r [:stats :sessions])))))

;; ---------------------------------------------------------------- the launcher

(defn- sh
  "Runs a command in dir; {:status :out :err}."
  [dir & cmd]
  (let [pb (ProcessBuilder. ^java.util.List (vec cmd))]
    (.directory pb (io/file dir))
    (let [p   (.start pb)
          out (future (slurp (.getInputStream p)))
          err (future (slurp (.getErrorStream p)))]
      (.close (.getOutputStream p))
      {:status (.waitFor p), :out @out, :err @err})))

(deftest launcher-converts-and-checks-other-formats
  (let [d        (tmp-dir)
        launcher (str (.getCanonicalPath (io/file ".")) "/bin/isocheck")]
    (spit (io/file d "h.edn") register-edn)
    (let [r (sh d launcher "convert" "--lossy" "--to" "dbcop-bincode" "h.edn" "h.bincode")]
      (is (= 0 (:status r)) (:err r))
      (is (= "converted h.edn to h.bincode (dbcop bincode): 4 transactions in 3 sessions (1 op with another :f than :txn left out; --lossy: 4 invocations and 8 :time values dropped)\n"
             (:out r)) "the nemesis op is left out, and said to be"))
    (doseq [f ["h.edn" "h.bincode"]]
      (let [r (sh d launcher "check" "--levels" "ser" f)]
        (is (= 1 (:status r)) (str f " " (:err r)))
        (is (str/includes? (:out r) "serializable  VIOLATED") f)))))
