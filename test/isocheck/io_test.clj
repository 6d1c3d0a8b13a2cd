(ns isocheck.io-test
  "The history readers and writer (isocheck.io): what they read, what they write back, and
  what they say about bad input."
  (:require [clojure.java.io :as io]
            [clojure.string :as str]
            [clojure.test :refer [deftest is testing are]]
            [isocheck.test-util :refer [tmp-dir tmp-file]])
  (:import (isocheck.history HistoryBuilder History History$Workload HistoryException Kw OpRecord OpSink OpStream)
           (isocheck.sim SimConfig Simulator Store)
           (isocheck.io EdnReader EdnReader$Symbol EdnWriter Formats Formats$Format JsonReader)
           (java.io ByteArrayInputStream ByteArrayOutputStream File InputStream)
           (java.nio.charset StandardCharsets)
           (java.nio.file Files Path)
           (java.util ArrayList LinkedHashMap LinkedHashSet List UUID)
           (java.util.zip GZIPOutputStream)))

;; ---------------------------------------------------------------- helpers

(defn- kw ^Kw [s] (Kw. s))

(declare op->json)

(defn- mop-snapshot [^OpRecord r i]
  (let [k (.kind r i)]
    (if (= k OpRecord/MALFORMED)
      {:malformed (.valueObj r i)}
      {:kind k
       :f (.fRaw r i)
       :key (.key r i)
       :key-long? (.keyIsLong r i)
       :tag (.valueTag r i)
       :value (.value r i)
       :elems-long? (when (= (.valueTag r i) OpRecord/V_LIST)
                      (mapv #(.elemIsLong r i %) (range (.listLen r i))))})))

(defn- snapshot
  "Everything a producer put into the record, as Clojure data."
  [^OpRecord r]
  {:ordinal (.ordinal r) :line (.line r) :index (.index r) :time (.time r)
   :type (.type r) :type-raw (.typeRaw r)
   :process (.process r) :has-process (.hasProcess r) :f (.f r)
   :shape (.valueShape r) :value-raw (.valueRaw r)
   :mops (mapv #(mop-snapshot r %) (range (.mopCount r)))})

(defn- collector
  "An OpSink that snapshots each op into the atom; (:ended @a) once end() ran."
  [a]
  (reify OpSink
    (op [_ r] (swap! a update :ops conj (snapshot r)))
    (end [_] (swap! a assoc :ended true))))

(defn- bytes-of ^bytes [^String s] (.getBytes s StandardCharsets/UTF_8))

(defn- trickle
  "An InputStream over bs that hands out at most n bytes per read, so that every token of the
  input straddles a refill of the reader's window."
  ^InputStream [^bytes bs n]
  (let [in (ByteArrayInputStream. bs)]
    (proxy [InputStream] []
      (read
        ([] (.read in))
        ([b] (.read in ^bytes b 0 (min (int n) (alength ^bytes b))))
        ([b off len] (.read in ^bytes b (int off) (int (min (int n) (int len)))))))))

(defn- read-with [f ^InputStream in]
  (let [a (atom {:ops []})]
    (f in (collector a))
    (assert (:ended @a))
    (:ops @a)))

(defn- edn-ops [s] (read-with #(EdnReader/read ^InputStream %1 ^OpSink %2) (ByteArrayInputStream. (bytes-of s))))
(defn- json-ops [s] (read-with #(JsonReader/read ^InputStream %1 ^OpSink %2) (ByteArrayInputStream. (bytes-of s))))

(defn- error-of
  "The HistoryException message reading s with reader-fn gives, or nil."
  [ops-fn s]
  (try (ops-fn s) nil
       (catch HistoryException e (.getMessage e))))

(defn- build ^History [ops-fn s]
  (let [b (HistoryBuilder.)]
    (ops-fn s) ; syntax first
    (let [src (bytes-of s)]
      (if (= ops-fn json-ops)
        (JsonReader/read (ByteArrayInputStream. src) b)
        (EdnReader/read (ByteArrayInputStream. src) b)))
    (.build b)))

(defn- history-view [^History h]
  {:txns (.nTxns h)
   :statuses (vec (.statusCounts h))
   :skipped (.opsSkipped h)
   :txn-strs (mapv #(.txnStr h %) (range (.nTxns h)))
   :status (mapv #(.status h %) (range (.nTxns h)))
   :process (mapv #(.process h %) (range (.nTxns h)))})

(def corpus (io/file "test/resources/corpus"))

(defn- corpus-files []
  (->> (file-seq corpus) (filter #(str/ends-with? (.getName ^File %) ".edn")) (sort-by #(.getPath ^File %))))

;; ---------------------------------------------------------------- EDN: reading ops

(deftest reads-a-list-append-op
  (let [[o] (edn-ops "{:type :ok, :f :txn, :value [[:append 1 2] [:r 3 [1 2 3]] [:r 4 nil]], :time 12, :process 7, :index 3}")]
    (is (= 0 (:ordinal o)))
    (is (= 1 (:line o)))
    (is (= [3 12 OpRecord/ABSENT] [(:index o) (:time o) OpRecord/ABSENT]))
    (is (= isocheck.history.OpType/OK (:type o)))
    (is (identical? Kw/OK (:type-raw o)) "keywords are shared, not allocated per op")
    (is (= 7 (:process o)))
    (is (instance? Long (:process o)))
    (is (identical? Kw/TXN (:f o)))
    (is (= OpRecord/VALUE_TXN (:shape o)))
    (is (= [{:kind OpRecord/APPEND :f Kw/APPEND :key 1 :key-long? true :tag OpRecord/V_LONG :value 2 :elems-long? nil}
            {:kind OpRecord/READ :f Kw/R :key 3 :key-long? true :tag OpRecord/V_LIST :value [1 2 3]
             :elems-long? [true true true]}
            {:kind OpRecord/READ :f Kw/R :key 4 :key-long? true :tag OpRecord/V_NIL :value nil :elems-long? nil}]
           (:mops o)))))

(deftest ordinals-and-lines
  (let [ops (edn-ops "\n{:type :invoke, :f :txn, :process 0, :value []}\n\n  {:type :ok, :f :txn, :process 0,\n :value []}{:type :info :f :x :process :nemesis}")]
    (is (= [0 1 2] (map :ordinal ops)))
    (is (= [2 4 5] (map :line ops)) "an op's line is where its map starts"))
  (testing "line breaks inside strings, comments and skipped values count too"
    (is (= [1 5 8] (map :line (edn-ops (str "{:type :ok, :note \"two\nlines\n\", :value [[:w 1 \"a\nb\"]]}\n"
                                            "{:type :ok ; comment\n :x [1\n 2]}\n"
                                            "{:type :ok}")))))
    (is (= [1 3] (map :line (json-ops "{\"type\":\"ok\",\n\"x\":[1,\n2]}{\"type\":\"ok\"}"))))))

(deftest maps-with-nothing-or-commas-between
  (let [one "{:index 0, :type :ok, :process 1, :f :txn, :value [[:r 1 [1]]]}"]
    (is (= 3 (count (edn-ops (str one one one)))))
    (is (= 3 (count (edn-ops (str one ",," one " , " one ",")))))
    (is (= [1 1 1] (map :line (edn-ops (str one one one)))))))

(deftest vector-and-list-forms
  (let [a "{:type :invoke, :f :txn, :process 0, :value [[:append 1 1]]}"
        b "{:type :ok, :f :txn, :process 0, :value [[:append 1 1]]}"
        stream (edn-ops (str a "\n" b))]
    (is (= 2 (count stream)))
    (is (= (map #(dissoc % :line) stream) (map #(dissoc % :line) (edn-ops (str "[" a "\n" b "]")))))
    (is (= (map #(dissoc % :line) stream) (map #(dissoc % :line) (edn-ops (str "(" a " " b ")")))))
    (is (= [] (edn-ops "[]")))
    (is (= [] (edn-ops "")))
    (is (= [] (edn-ops " ; nothing but a comment\n")))))

(deftest tagged-records
  (testing "jepsen.history.Op records, alone and in the vector form"
    (let [rec "#jepsen.history.Op{:index 5, :time 9, :type :ok, :process 2, :f :txn, :value [[:r 1 [1]]], :extra #{1}}"
          ops (edn-ops (str rec "\n" rec))]
      (is (= [5 5] (map :index ops)))
      (is (= [[1]] (map :value (:mops (first ops)))))
      (is (= 2 (count (edn-ops (str "[" rec " #jepsen.history.Op {:index 6 :type :ok :f :txn :process 3 :value []}]")))))))
  (testing "#inst and #uuid become Instant and UUID; other tags keep their inner value"
    (let [[o] (edn-ops (str "{:type :ok, :f :txn, :process 0, :value [[:w 1 #uuid \"f81d4fae-7dec-11d0-a765-00a0c91e6bf6\"]"
                            " [:w 2 #inst \"1985-04-12T23:20:50.52Z\"] [:w 3 #my/tag [1 2]] [:w 4 #my.Rec{:a 1}]]}"))]
      (is (= [(UUID/fromString "f81d4fae-7dec-11d0-a765-00a0c91e6bf6")
              (java.time.Instant/parse "1985-04-12T23:20:50.520Z")
              [1 2]
              {(kw "a") 1}]
             (map :value (:mops o))))
      (is (= 1 (count (edn-ops "{:type :ok, :f :txn, :process 0, :value #my/wrapped [[:r 1 nil]]}")))))))

(deftest comments-discards-and-metadata
  (let [s (str "; a Jepsen history\n"
               "{:type :invoke, #_ :ignored #_ [1 2 {:a \"}\"}] :f :txn ; comment with } and ]\n"
               " :process 0, :extra {:a [1 2 #{3} \"str]\" \\] #inst \"2020-01-01T00:00:00Z\" (4 5)]}, "
               " :value ^{:doc \"meta\"} [#_[:r 9 nil] [:append 1 2] ^:tagged [:r 1 nil]]}\n"
               "#_{:type :ok, :f :txn, :process 0, :value [[:append 1 2]]}\n")
        [o & more] (edn-ops s)]
    (is (nil? more) "the discarded map is not an op")
    (is (= 2 (:line o)))
    (is (= [[1 2] [1 nil]] (map (juxt :key :value) (:mops o))))))

(deftest strings-and-characters
  (let [[o] (edn-ops (str "{:type :ok, :f :txn, :process \"p-é\", :value [[:w \"k\\\"ey\" \"a\\\"b\\\\c\\n\\t\\u00e9\\u20AC\\uD83D\\uDE00\"]"
                          " [:w \"raw\" \"é€😀 ok\"] [:w \"multi\nline\" \"\"] [:w \\a \\newline] [:w \\u0041 \\space] [:w \\é \\(]]}"))]
    (is (= "p-é" (:process o)))
    (is (= [["k\"ey" "a\"b\\c\n\té€😀"]
            ["raw" "é€😀 ok"]
            ["multi\nline" ""]
            [\a \newline]
            [\A \space]
            [\é \(]]
           (map (juxt :key :value) (:mops o))))
    (is (= [false false false false false false] (map :key-long? (:mops o))))))

(deftest numbers
  (let [[o] (edn-ops (str "{:type :ok, :f :txn, :process 0, :value [[:w 1 12345678901234567890] [:w 2 5N]"
                          " [:w -9223372036854775808 9223372036854775807] [:w 3 9223372036854775808] [:w 4 -1.5]"
                          " [:w 5 1e3] [:w 6 1.5M] [:w 7 1/2] [:w 8 4/2] [:w 9 0x1F] [:w 10 017] [:w 11 2r101]"
                          " [:w 12 ##Inf] [:w +13 -0] [:r 14 [1 2N 300000000000000000000 -4]]]}"))
        mops (:mops o)]
    (is (= [12345678901234567890N 5 9223372036854775807 9223372036854775808N -1.5 1000.0 1.5M 0.5 2 31 15 5
            ##Inf 0 [1 2 300000000000000000000N -4]]
           (map :value mops)))
    (is (instance? java.math.BigInteger (:value (first mops))) "beyond a long: a BigInteger, not a Clojure BigInt")
    (is (= OpRecord/V_LONG (:tag (nth mops 1))) "5N fits a long and takes the primitive path")
    (is (= Long/MIN_VALUE (:key (nth mops 2))))
    (is (:key-long? (nth mops 13)) "+13 is an integer key")
    (is (instance? java.math.BigDecimal (:value (nth mops 6))))
    (is (= [true true false true] (:elems-long? (last mops))))))

(deftest keywords-symbols-and-literals
  (let [[o] (edn-ops "{:type :ok, :f :txn, :process 0, :value [[:w :a/b foo] [:w my.ns/sym nil] [:w true false] [:w - +]]}")]
    (is (= [[(kw "a/b") (EdnReader$Symbol. "foo")]
            [(EdnReader$Symbol. "my.ns/sym") nil]
            [true false]
            [(EdnReader$Symbol. "-") (EdnReader$Symbol. "+")]]
           (map (juxt :key :value) (:mops o))))
    (is (= OpRecord/V_NIL (:tag (second (:mops o)))))))

(deftest value-shapes
  (let [[absent nil-value kw-value nemesis short long as-list unknown]
        (edn-ops (str "{:type :info, :f :x, :process :nemesis}\n"
                      "{:type :info, :f :x, :process :nemesis, :value nil}\n"
                      "{:type :info, :f :start-partition, :process :nemesis, :value :primaries}\n"
                      "{:type :info, :f :start-partition, :process :nemesis, :value [:isolated {\"n2\" #{\"n1\"}, \"n1\" #{\"n2\" \"n3\"}}]}\n"
                      "{:type :ok, :f :txn, :process 0, :value [[:r 1] []]}\n"
                      "{:type :ok, :f :txn, :process 0, :value [[:r 1 nil 4] [:append 1 [2]]]}\n"
                      "{:type :ok, :f :txn, :process 0, :value ((:r 1 (1 2)) (:append 1 3))}\n"
                      "{:type :ok, :f :txn, :process 0, :value [[:frob 1 2]]}\n"))]
    (is (= OpRecord/VALUE_ABSENT (:shape absent)))
    (is (= [OpRecord/VALUE_OTHER nil] ((juxt :shape :value-raw) nil-value)) "an explicit nil is a value, not a missing one")
    (is (= [OpRecord/VALUE_OTHER (kw "primaries")] ((juxt :shape :value-raw) kw-value)))
    (is (= (kw "nemesis") (:process nemesis)))
    (is (= [OpRecord/VALUE_OTHER [(kw "isolated") {"n2" #{"n1"} "n1" #{"n2" "n3"}}] []]
           ((juxt :shape :value-raw :mops) nemesis))
        "a vector :value without vectors in it is an ordinary value, not micro-ops")
    (is (= [{:malformed [Kw/R 1]} {:malformed []}] (:mops short)))
    (is (= {:malformed [Kw/R 1 nil 4]} (first (:mops long))))
    (is (= [2] (:value (second (:mops long)))) "a list append is read as such; the builder rejects it")
    (is (= [[1 2] 3] (map :value (:mops as-list))))
    (is (= OpRecord/UNKNOWN (:kind (first (:mops unknown)))) "unknown micro-op kinds are left to the builder")))

(deftest byte-order-mark-and-crlf
  (let [ops (edn-ops (str "\uFEFF{:type :invoke, :f :txn, :process 0, :value [[:r 1 nil]]}\r\n"
                          "{:type :ok, :f :txn, :process 0, :value [[:r 1 [1]]]}\r\n"))]
    (is (= [1 2] (map :line ops)))
    (is (= [nil [1]] (map #(:value (first (:mops %))) ops))))
  (is (= [1 2] (map :line (json-ops "\uFEFF{\"type\":\"ok\"}\r\n{\"type\":\"ok\"}\r\n")))))

(deftest other-keys-are-skipped
  (let [[o] (edn-ops "{:type :ok, :node \"n1\", :error [:timeout {:msg \"x\"}], :f :txn, :process 0, \"type\" 7, :value []}")]
    (is (= Kw/OK (:type-raw o)))
    (is (= [] (:mops o)))))

;; ---------------------------------------------------------------- refills

(deftest every-token-straddling-a-refill
  (let [f (io/file corpus "jepsen-mongodb/aborted-read.edn")
        bs (Files/readAllBytes (.toPath ^File f))
        whole (read-with #(EdnReader/read ^InputStream %1 ^OpSink %2) (ByteArrayInputStream. bs))]
    (doseq [n [1 7]]
      (is (= whole (read-with #(EdnReader/read ^InputStream %1 ^OpSink %2) (trickle bs n)))
          (str n " bytes at a time")))
    (let [json (bytes-of (str/join "\n" (map op->json whole)))
          jwhole (read-with #(JsonReader/read ^InputStream %1 ^OpSink %2) (ByteArrayInputStream. json))]
      (is (= (count whole) (count jwhole)))
      (doseq [n [3]]
        (is (= jwhole (read-with #(JsonReader/read ^InputStream %1 ^OpSink %2) (trickle json n)))
            (str "JSON, " n " bytes at a time")))))
  (testing "strings longer than the reader's 1 MiB window, in both formats"
    (let [big (apply str (repeat 300000 "abcé"))
          [o] (edn-ops (str "{:type :ok, :f :txn, :process 0, :value [[:w 1 \"" big "\"]]}"))
          [j] (json-ops (str "{\"type\": \"ok\", \"f\": \"txn\", \"process\": 0, \"value\": [[\"w\", 1, \"" big "\"]]}"))]
      (is (= big (:value (first (:mops o)))))
      (is (= big (:value (first (:mops j))))))))

;; ---------------------------------------------------------------- corpus

(deftest every-corpus-file-parses
  (let [files (corpus-files)]
    (is (= 19 (count files)))
    (doseq [^File f files]
      (let [text (slurp f)
            ops (read-with #(EdnReader/read ^InputStream %1 ^OpSink %2) (io/input-stream f))
            h (Formats/readHistory (.getPath f) nil)
            nemesis (count (filter #(= (kw "nemesis") (:process %)) ops))]
        (testing (.getName f)
          (is (= (count (re-seq #"\{:" text)) (count ops)) "one op per op map")
          (is (= (range (count ops)) (map :ordinal ops)))
          (is (= (.opsSeen h) (count ops)))
          (is (= nemesis (.opsSkipped h)) "nemesis ops are read, then skipped by the builder")
          (is (= (count (filter #(= Kw/TXN (:f %)) ops)) (- (count ops) nemesis)))
          (is (pos? (.nTxns h))))))))

(deftest corpus-counts
  (are [file ops nemesis txns]
       (let [f (io/file corpus file)
             h (Formats/readHistory (.getPath f) nil)]
         (= [ops nemesis txns] [(.opsSeen h) (.opsSkipped h) (.nTxns h)]))
    "jepsen-mongodb/aborted-read.edn" 4704 174 2265
    "jepsen-mongodb/cyclic-information-flow.edn" 3868 642 1613
    "jepsen-mongodb/read-your-future-writes.edn" 10738 690 5024
    "postgres-list-append/sess2-history0.edn" 400 0 200
    "postgres-list-append/sess5-history0.edn" 1000 0 500))

(deftest plume-files
  (let [expected {"tap-a" 1 "tap-b" 2 "tap-c" 1 "tap-d" 2 "tap-e" 1 "tap-f" 2 "tap-g" 3
                  "tap-h" 4 "tap-i" 3 "tap-j" 2 "tap-k" 4 "tap-l" 3 "tap-m" 5 "tap-n" 6}
        files (sort (map #(io/file corpus "plume-taps" (str % ".edn")) (keys expected)))]
    (doseq [^File f files]
      (is (= (expected (str/replace (.getName f) ".edn" "")) (count (edn-ops (slurp f)))) (.getName f)))
    (testing "the files glued together: no newline at their ends, so maps share lines"
      (let [glued (apply str (map slurp files))
            ops (edn-ops glued)]
        (is (< (count (str/split-lines glued)) (count ops)))
        (is (= (reduce + (vals expected)) (count ops)))
        (is (= (range (count ops)) (map :ordinal ops)))))))

;; ---------------------------------------------------------------- writer

(defn- jlist ^ArrayList [& xs] (ArrayList. ^java.util.Collection (vec xs)))

(defn- fill-op!
  "Sets up r from a description {:index .. :mops [[f k v] ...] ...}; :malformed mops are raw."
  [^OpRecord r ord {:keys [index time type-raw process f shape value-raw mops] :as d}]
  (.reset r ord)
  (when index (set! (.index r) (long index)))
  (when time (set! (.time r) (long time)))
  (when type-raw
    (set! (.typeRaw r) type-raw)
    (set! (.type r) (int (isocheck.history.OpType/parse type-raw))))
  (when (contains? d :process)
    (set! (.process r) process)
    (set! (.hasProcess r) true))
  (when f (set! (.f r) f))
  (set! (.valueShape r) (int (or shape (if mops OpRecord/VALUE_TXN OpRecord/VALUE_ABSENT))))
  (set! (.valueRaw r) value-raw)
  (doseq [m mops]
    (if (= :malformed (first m))
      (.addMalformed r (second m))
      (let [[mf k v] m]
        (.beginMop r (OpRecord/kindOf mf) mf)
        (if (integer? k) (.setKey r (long k)) (.setKey r ^Object k))
        (cond (nil? v) (.setValueNil r)
              (instance? Long v) (.setValue r (long v))
              (vector? v) (do (.beginList r)
                              (doseq [e v] (if (instance? Long e) (.addElem r (long e)) (.addElem r ^Object e))))
              :else (.setValueObj r v)))))
  r)

(def ^:private sample-ops
  [{:index 0 :time 123 :type-raw Kw/INVOKE :process 0 :f Kw/TXN :mops [[Kw/APPEND 1 2] [Kw/R 3 nil]]}
   {:index 1 :time 456 :type-raw Kw/OK :process 0 :f Kw/TXN
    :mops [[Kw/APPEND 1 2] [Kw/R 3 [1 2 3]] [Kw/R (kw "x") [nil (kw "y") "z" -7]]]}
   {:index 2 :type-raw Kw/INFO :process (kw "nemesis") :f (kw "start-partition") :shape OpRecord/VALUE_OTHER
    :value-raw (jlist (kw "isolated") (doto (LinkedHashMap.) (.put "n2" (LinkedHashSet. ["n1"]))))}
   {:index 3 :type-raw Kw/INFO :process (kw "nemesis") :f (kw "stop-partition") :shape OpRecord/VALUE_OTHER}
   {:type-raw Kw/FAIL :process "proc\"1" :f Kw/TXN
    :mops [[Kw/W "k\"ey\n" "é€😀\u0001\\"] [Kw/W Long/MIN_VALUE Long/MAX_VALUE]
           [Kw/W 2 (biginteger 123456789012345678901234567890)] [Kw/W 3 1.5] [Kw/W 4 (bigdec "2.50")]
           [Kw/W 5 true] [Kw/W 6 \newline] [Kw/W 7 (UUID/fromString "f81d4fae-7dec-11d0-a765-00a0c91e6bf6")]
           [Kw/W 8 (java.time.Instant/parse "2020-01-01T00:00:00.123Z")] [Kw/W 9 ##-Inf]
           [(kw "frob") 10 11]
           [:malformed (jlist Kw/R 1)] [:malformed 42]]}
   {:time 5 :type-raw (kw "weird") :process 3 :f Kw/TXN :mops []}
   {:index 7}])

(deftest writer-round-trip
  (let [out (ByteArrayOutputStream.)
        w (EdnWriter. out)
        r (OpRecord.)
        written (vec (map-indexed (fn [i d] (let [r (fill-op! r i d)]
                                              (.op w r)
                                              (assoc (snapshot r) :line (inc i))))
                                  sample-ops))
        _ (.end w)
        text (.toString out "UTF-8")]
    (is (= (count sample-ops) (count (str/split-lines text))) "one map per line")
    (is (= written (edn-ops text)))
    (testing "and back again: writing what was read gives the same bytes"
      (let [out2 (ByteArrayOutputStream.)
            w2 (EdnWriter. out2)]
        (EdnReader/read (ByteArrayInputStream. (.toByteArray out)) w2)
        (is (= text (.toString out2 "UTF-8")))))))

(deftest writer-format
  (let [out (ByteArrayOutputStream.)
        w (EdnWriter. out)
        r (OpRecord.)]
    (.op w (fill-op! r 0 (first sample-ops)))
    (.op w (fill-op! r 1 (nth sample-ops 2)))
    (.op w (fill-op! r 2 {:index 9 :type-raw "ok" :process 1 :f "txn" :mops [["append" 1 2]]}))
    (.end w)
    (is (= (str "{:index 0, :time 123, :type :invoke, :process 0, :f :txn, :value [[:append 1 2] [:r 3 nil]]}\n"
                "{:index 2, :type :info, :process :nemesis, :f :start-partition, :value [:isolated {\"n2\" #{\"n1\"}}]}\n"
                "{:index 9, :type :ok, :process 1, :f :txn, :value [[:append 1 2]]}\n")
           (.toString out "UTF-8")))))

;; ---------------------------------------------------------------- JSON

(defn- json-str [^StringBuilder sb ^String s]
  (.append sb \")
  (doseq [c s]
    (case c
      \" (.append sb "\\\"")
      \\ (.append sb "\\\\")
      \newline (.append sb "\\n")
      (.append sb (char c))))
  (.append sb \"))

(defn- json-into [^StringBuilder sb x]
  (cond (nil? x) (.append sb "null")
        (instance? Kw x) (json-str sb (.name ^Kw x))
        (string? x) (json-str sb x)
        (or (instance? Boolean x) (number? x)) (.append sb (str x))
        (instance? java.util.Map x) (do (.append sb \{)
                                        (doseq [[i [k v]] (map-indexed vector x)]
                                          (when (pos? i) (.append sb \,))
                                          (json-into sb k)
                                          (.append sb \:)
                                          (json-into sb v))
                                        (.append sb \}))
        (instance? java.util.Collection x) (do (.append sb \[)
                                               (doseq [[i v] (map-indexed vector x)]
                                                 (when (pos? i) (.append sb \,))
                                                 (json-into sb v))
                                               (.append sb \]))
        :else (json-str sb (str x))))

(defn- ->json [x] (str (json-into (StringBuilder.) x)))

(defn- op->json
  "The JSON twin of an op snapshot."
  [{:keys [index time type-raw process has-process f shape value-raw mops]}]
  (->json (cond-> {}
            (not= index OpRecord/ABSENT) (assoc "index" index)
            (not= time OpRecord/ABSENT) (assoc "time" time)
            type-raw (assoc "type" type-raw)
            has-process (assoc "process" process)
            f (assoc "f" f)
            (= shape OpRecord/VALUE_OTHER) (assoc "value" value-raw)
            (= shape OpRecord/VALUE_TXN) (assoc "value" (mapv #(if (contains? % :malformed)
                                                                  (:malformed %)
                                                                  [(:f %) (:key %) (:value %)])
                                                               mops)))))

(deftest json-twins-of-corpus-histories
  (doseq [file ["jepsen-mongodb/aborted-read.edn" "postgres-list-append/sess5-history0.edn" "plume-taps/tap-n.edn"]]
    (let [edn (slurp (io/file corpus file))
          ops (edn-ops edn)
          jsonl (str/join "\n" (map op->json ops))
          array (str "[\n" (str/join ",\n" (map op->json ops)) "\n]")
          view (history-view (build edn-ops edn))]
      (testing file
        (is (= (count ops) (count (json-ops jsonl))))
        (is (= (map :line ops) (map :line (json-ops jsonl))))
        (is (= view (history-view (build json-ops jsonl))) "JSON Lines")
        (is (= view (history-view (build json-ops array))) "one JSON array")))))

(deftest json-reading
  (let [[a b c] (json-ops (str "{\"type\":\"invoke\",\"f\":\"txn\",\"process\":0,\"value\":[[\"append\",1,2],[\"r\",1,null]],\"index\":0,\"time\":5}\n"
                               "{\":type\": \":ok\", \":f\": \":txn\", \"process\": 0, \"value\": [[\":append\", 1, 2], [\"r\", 1, [1, 2]]], \"node\": {\"a\": [1, {}]}}"
                               "{\"type\":\"info\",\"f\":\"start\",\"process\":\"nemesis\",\"value\":{\"n1\":[\"n2\"]}}"))]
    (is (= [0 5 Kw/INVOKE 0 Kw/TXN] ((juxt :index :time :type-raw :process :f) a)))
    (is (= [[Kw/APPEND 1 2] [Kw/R 1 nil]] (map (juxt :f :key :value) (:mops a))))
    (is (= [Kw/OK Kw/TXN] ((juxt :type-raw :f) b)) "keyword-ish strings with a leading colon")
    (is (= [[Kw/APPEND 1 2] [Kw/R 1 [1 2]]] (map (juxt :f :key :value) (:mops b))))
    (is (= [true true] (:elems-long? (second (:mops b)))))
    (is (= ["nemesis" OpRecord/VALUE_OTHER {"n1" ["n2"]}] ((juxt :process :shape :value-raw) c)))
    (is (= "ä€😀\"\\/\n" (:value (first (:mops (first (json-ops "{\"type\":\"ok\",\"f\":\"txn\",\"process\":0,\"value\":[[\"w\",1,\"\\u00e4€\\ud83d\\ude00\\\"\\\\\\/\\n\"]]}")))))))
    (is (= [12345678901234567890N -2.5E-3 true] (map :value (:mops (first (json-ops "{\"value\":[[\"w\",1,12345678901234567890],[\"w\",2,-2.5e-3],[\"w\",3,true]]}"))))))))

;; ---------------------------------------------------------------- formats

(defn- temp-file ^Path [^String suffix ^String content]
  (let [p (Files/createTempFile "isocheck-io" (str/replace suffix "+gzip" "") (make-array java.nio.file.attribute.FileAttribute 0))]
    (.deleteOnExit (.toFile p))
    (if (or (str/ends-with? suffix ".gz") (str/ends-with? suffix "+gzip"))
      (with-open [o (GZIPOutputStream. (Files/newOutputStream p (make-array java.nio.file.OpenOption 0)))]
        (.write o (bytes-of content)))
      (spit (.toFile p) content))
    p))

(deftest format-by-name-and-by-content
  (are [name fmt] (= fmt (Formats/byName name))
    "history.edn" Formats$Format/EDN
    "h.EDN.gz" Formats$Format/EDN
    "h.json" Formats$Format/JSON
    "h.jsonl" Formats$Format/JSON
    "h.ndjson.gz" Formats$Format/JSON
    "history" nil)
  (let [edn "{:type :ok, :f :txn, :process 0, :value [[:append 1 2]]}"
        json "{\"type\":\"ok\",\"f\":\"txn\",\"process\":0,\"value\":[[\"append\",1,2]]}"
        sniffed (fn [s] (read-with #(Formats/read ^InputStream %1 ^OpSink %2) (ByteArrayInputStream. (bytes-of s))))
        gz (fn [s] (let [o (ByteArrayOutputStream.)]
                     (with-open [g (GZIPOutputStream. o)] (.write g (bytes-of s)))
                     (read-with #(Formats/read ^InputStream %1 ^OpSink %2) (ByteArrayInputStream. (.toByteArray o)))))
        want [[Kw/APPEND 1 2]]
        mops #(map (juxt :f :key :value) (:mops (first %)))]
    (doseq [s [edn (str "  \n" edn) (str "[" edn "]") (str "[ \n " json " ]") json (str "\n\n" json) (str "#jepsen.history.Op" edn)
               (str "; comment\n" edn)]]
      (is (= want (mops (sniffed s))) s)
      (is (= want (mops (gz s))) (str "gzip: " s)))
    (testing "files, by extension, with transparent gzip"
      (doseq [[suffix content] [[".edn" edn] [".edn.gz" edn] [".json" json] [".jsonl.gz" json] [".txt" json] [".txt" edn]
                               [".edn+gzip" edn] [".txt+gzip" json]]]
        (let [p (temp-file suffix content)
              h (Formats/readHistory (str p) nil)]
          (is (= ["[[:append 1 2]]"] (mapv #(.txnStr h %) (range (.nTxns h)))) suffix))))
    (testing "EdnWriter.open compresses .gz files and EdnReader reads them back"
      (let [p (temp-file ".edn.gz" "")
            w (EdnWriter/open p)]
        (.op w (fill-op! (OpRecord.) 0 (first sample-ops)))
        (.end w)
        (is (= [[Kw/APPEND 1 2] [Kw/R 3 nil]] (map (juxt :f :key :value) (:mops (first (read-with (fn [_ sink] (EdnReader/read p ^OpSink sink)) nil))))))))))

;; ---------------------------------------------------------------- bad input

(def ^:private good "{:type :ok, :f :txn, :process 0, :value [[:r 1 [1 2]]]}")

(deftest edn-syntax-errors
  (are [input msg] (= msg (error-of edn-ops input))
    "{:type :ok, :f :txn, :process 0, :value [[:w 1 \"abc]]}\n"
    "op 0 (line 1, column 48): unterminated string; expected a closing \" before the end of the input"

    (str good "\n" good "\n{:type :ok, :value [[:r 1 [1 2]}]}")
    "op 2 (line 3, column 32): expected ] to close the micro-op opened by [ at column 21, found }"

    (str good "}")
    "line 1, column 56: expected an op map such as {:type :invoke, :f :txn, ...}, found an unmatched }"

    (str good "\n" good "\n42\n")
    "line 3, column 1: expected an op map such as {:type :invoke, :f :txn, ...}, found 42"

    (str "[" good "\n  :ok]")
    "line 2, column 3: expected an op map such as {:type :invoke, :f :txn, ...}, found :ok"

    (str "[" good "] " good)
    "line 1, column 59: expected the end of the input after the history's closing ], found {:type :ok, :f :txn, :process 0, :value [[:r 1 [1 2]]]}"

    (str good "\n{:type :ok, :f :txn, :value [[:r 1 [1 2")
    "op 1 (line 2, column 40): unexpected end of input; expected ] to close the list opened by [ at column 36"

    (str good "\n{:type :ok, :f :txn")
    "op 1 (line 2, column 20): unexpected end of input; expected } to close the op map opened by { at column 1"

    "{:type :ok, :f :txn, :process 0, :value [[:w 1 \"a\\qb\"]]}"
    "op 0 (line 1, column 48): invalid escape \\q in the string starting here; expected one of \\\" \\\\ \\n \\t \\r \\b \\f \\uXXXX"

    "{:type :ok, :index \"x\"}"
    "op 0 (line 1, column 20): expected an integer for :index, found \"x\""

    "{:type :ok, :time 99999999999999999999}"
    "op 0 (line 1, column 19): expected an integer that fits in 64 bits for :time, found 99999999999999999999"

    "{:type :ok, :type :ok}"
    "op 0 (line 1, column 13): duplicate key :type in the op map"

    "{:type :ok, :value [[:w 1 1.2.3]]}"
    "op 0 (line 1, column 27): invalid number 1.2.3"

    "{:type :ok, :f}"
    "op 0 (line 1, column 15): expected a value for :f, found the end of the op map"

    "{:type :ok, :value [[:w 1 {:a}]]}"
    "op 0 (line 1, column 30): expected a value for the key :a of the map at column 27, found the end of the map"

    "{:type :ok, :f :txn #_}"
    "op 0 (line 1, column 21): expected a form to discard after #_, found an unmatched }"

    "{:type :ok, :value [[:w 1 \\bogus]]}"
    "op 0 (line 1, column 27): unsupported character \\bogus; expected a single character, \\newline, \\space, \\tab, \\return, \\uXXXX or the like"

    (str "[" good)
    "line 1, column 57: unexpected end of input; expected ] to close the history opened by [ at column 1"))

(deftest edn-errors-are-one-line-history-exceptions
  (let [e (try (edn-ops (str good "\n" good "\n{:type :ok, :value [\"unterminated\n\n")) nil
               (catch HistoryException e e))]
    (is (some? e))
    (is (= 2 (.ordinal ^HistoryException e)))
    (is (not (str/includes? (.getMessage ^HistoryException e) "\n")))
    (is (str/starts-with? (.getMessage ^HistoryException e) "op 2 (line 3, column 21): unterminated string")))
  (is (re-find #"line 1, column \d+: values nested too deeply" (error-of edn-ops (apply str (repeat 100000 "[")))))
  (is (= "op 0 (line 1, column 27): invalid UTF-8 in the string starting here"
         (try (read-with #(EdnReader/read ^InputStream %1 ^OpSink %2)
                         (ByteArrayInputStream. (byte-array (concat (bytes-of "{:type :ok, :value [[:w 1 \"")
                                                                    [(unchecked-byte 0xC3) (unchecked-byte 0x28)]
                                                                    (bytes-of "\"]]}")))))
              nil
              (catch HistoryException e (.getMessage e))))))

(deftest json-syntax-errors
  (let [good "{\"type\":\"ok\",\"f\":\"txn\",\"process\":0,\"value\":[[\"r\",1,[1,2]]]}"]
    (are [input msg] (= msg (error-of json-ops input))
      "{\"type\":\"ok\",\"value\":[[\"w\",1,\"abc]]}\n"
      "op 0 (line 1, column 30): unterminated string; expected a closing \" before the end of the line"

      (str good "\n42")
      "line 2, column 1: expected an op object such as {\"type\": \"invoke\", \"f\": \"txn\", ...}, found 42"

      (str "[" good ",\n" good ",]")
      "line 2, column 61: expected a value after ',' in the history, found ]"

      (str good "\n{\"type\":\"ok\",\"value\":[[\"r\",1,[1,2")
      "op 1 (line 2, column 34): unexpected end of input; expected ] to close the list opened by [ at column 30"

      "{\"type\":\"ok\",\"value\":[[\"r\",1,[1,2]}"
      "op 0 (line 1, column 35): expected ',' or ] in the micro-op opened by [ at column 23, found '}'"

      "{\"type\":\"ok\" \"f\":\"txn\"}"
      "op 0 (line 1, column 14): expected ',' or '}' in the op object at column 1, found \"f\""

      "{\"index\":1.5}"
      "op 0 (line 1, column 10): expected an integer for \"index\", found 1.5"

      "{:type :ok}"
      "op 0 (line 1, column 2): expected a string key in the op object at column 1, found ':'")))

(deftest builder-judges-what-the-reader-passes-on
  (are [input re] (re-find re (try (build edn-ops input) ""
                                   (catch HistoryException e (.getMessage e))))
    "{:type :ok, :f :txn, :process 0, :value [[:frob 1 2]]}" #"op 0 \(line 1\): micro-op 0 \[:frob 1 2\] is neither"
    "{:type :ok, :f :txn, :process 0, :value [[:r 1]]}" #"op 0 \(line 1\): micro-op 0 \[:r 1\] is not a \[f k v\] triple"
    "{:type :ok, :f :txn, :process 0, :value nil}" #"op 0 \(line 1\): :value is nil; expected a vector of micro-ops"
    "{:type :ok, :f :txn, :process 0, :value [1 2]}" #"op 0 \(line 1\): :value is \[1 2\]; expected a vector of micro-ops"
    "{:type :ok, :f :txn, :process 0}" #":value is missing"))

;; ---------------------------------------------------------------- input limits and damage

(defn- limited-error
  "The error reading s (UTF-8) with reader-fn (EdnReader/read or JsonReader/read as a 3-arity fn)
  and a token limit of max-token bytes, handed out n bytes at a time; nil when it reads."
  [read-fn max-token n ^String s]
  (try (read-with #(read-fn %1 %2 (int max-token)) (trickle (bytes-of s) n)) nil
       (catch HistoryException e (.getMessage e))))

(def ^:private edn-limited #(EdnReader/read ^InputStream %1 ^OpSink %2 (int %3)))
(def ^:private json-limited #(JsonReader/read ^InputStream %1 ^OpSink %2 (int %3)))

(deftest over-long-tokens-are-rejected-at-their-start
  ;; The window grows to hold the token being read, up to the limit (64 MiB by default; a
  ;; token of 1 GiB used to overflow the array's doubling). Here the limit is 4 KiB.
  (let [long-str (apply str (repeat 5000 "a"))
        edn (str good "\n{:type :ok, :f :txn, :process 0, :value [[:w 1 \"" long-str "\"]]}\n")
        json (str "{\"type\":\"ok\",\"f\":\"txn\",\"process\":0,\"value\":[[\"w\",1,\"" long-str "\"]]}\n")]
    (doseq [n [4096 1000 7]]
      (is (= "op 1 (line 2, column 48): a token (string, number, symbol or keyword) longer than 4 KiB starts here; isocheck reads tokens of up to 4 KiB"
             (limited-error edn-limited 4096 n edn)) (str "EDN, " n " bytes per read"))
      (is (= "op 0 (line 1, column 52): a token (string, number, symbol or keyword) longer than 4 KiB starts here; isocheck reads tokens of up to 4 KiB"
             (limited-error json-limited 4096 n json)) (str "JSON, " n " bytes per read")))
    (testing "a symbol at the top level (a file of one character repeated)"
      (is (= "line 1, column 1: a token (string, number, symbol or keyword) longer than 4 KiB starts here; isocheck reads tokens of up to 4 KiB"
             (limited-error edn-limited 4096 512 long-str))))
    (testing "tokens up to the limit read, straddling refills"
      (let [ok-str (apply str (repeat 4000 "b"))
            ops (read-with #(EdnReader/read ^InputStream %1 ^OpSink %2 (int 4096))
                           (trickle (bytes-of (str good "\n{:type :ok, :f :txn, :process 0, :value [[:w 1 \"" ok-str "\"]]}\n")) 333))]
        (is (= ok-str (:value (first (:mops (second ops))))))))))

(deftest absurd-number-literals-are-rejected
  (let [digits (fn [n] (apply str "1" (repeat (dec n) "7")))]
    (testing "100 characters read (a BigInteger), 101 do not"
      (is (= (biginteger (BigInteger. ^String (digits 100))) (:value (first (:mops (first (edn-ops (str "{:value [[:w 1 " (digits 100) "]]}"))))))))
      (is (= "op 0 (line 1, column 16): a number literal of 101 characters; isocheck reads numbers of up to 100 characters"
             (error-of edn-ops (str "{:value [[:w 1 " (digits 101) "]]}")))))
    (testing "a 200,000-digit integer (quadratic to parse) is rejected without parsing it"
      (is (= "op 0 (line 1, column 16): a number literal of 200000 characters; isocheck reads numbers of up to 100 characters"
             (error-of edn-ops (str "{:value [[:w 1 " (digits 200000) "]]}"))))
      (is (= "op 0 (line 1, column 18): a number literal of 200000 characters; isocheck reads numbers of up to 100 characters"
             (error-of json-ops (str "{\"value\":[[\"w\",1," (digits 200000) "]]}")))))
    (testing "floats and ratios too"
      (is (str/includes? (error-of edn-ops (str "{:value [[:w 1 " (digits 150) ".5]]}")) "a number literal of 152 characters"))
      (is (str/includes? (error-of edn-ops (str "{:value [[:w 1 1/" (digits 150) "]]}")) "a number literal of 152 characters")))))

(deftest control-characters-never-reach-messages-raw
  (testing "outside strings, a control byte is an error where it is"
    (is (= "line 1, column 1: unexpected byte 0x00; control characters may appear only inside strings"
           (error-of edn-ops (String. (byte-array 100) StandardCharsets/ISO_8859_1))))
    (is (= "op 0 (line 1, column 18): unexpected byte 0x00 inside a symbol, keyword or number; control characters may appear only inside strings"
           (error-of edn-ops "{:value [[:w 1 ab\u0000c]]}")))
    (is (= "op 0 (line 1, column 9): unexpected byte 0x01; control characters may appear only inside strings"
           (error-of edn-ops "{:value \u0001}"))))
  (testing "inside a string it reads, and messages show it escaped"
    (let [[o] (edn-ops "{:type :ok, :f :txn, :process 0, :value [[:r :x \"a\u0000b\"]]}")]
      (is (= "a\u0000b" (:value (first (:mops o))))))
    (let [e (try (build edn-ops (str "{:type :ok, :f :txn, :process 0, :value [[:append :x 1]]}\n"
                                     "{:type :ok, :f :txn, :process 0, :value [[:r :x \"a\u0000b\"]]}"))
                 nil
                 (catch HistoryException e (.getMessage e)))]
      (is (str/includes? e "micro-op 0 [:r :x \"a\\u0000b\"] reads a non-list value") e)
      (is (not (re-find #"[\x00-\x1f]" e)))))
  (testing "a JSON literal with a control byte: the message escapes it"
    (let [e (error-of json-ops "{\"value\":[[\"w\",1,tr\u0000ue]]}")]
      (is (= "op 0 (line 1, column 18): expected a JSON value, found tr\\u0000ue" e))))
  (testing "Edn rendering, which explanations and reports use"
    (is (= "[\"a\\u0000b\\u001f\" \\u0000 \\newline \\a]" (isocheck.history.Edn/str ["a\u0000b\u001f" \u0000 \newline \a])))))

(defn- gzipped ^bytes [^String s]
  (let [o (ByteArrayOutputStream.)]
    (with-open [g (GZIPOutputStream. o)] (.write g (bytes-of s)))
    (.toByteArray o)))

(defn- gz-error [^bytes bs]
  (try (read-with #(Formats/read ^InputStream %1 ^OpSink %2) (ByteArrayInputStream. bs)) nil
       (catch HistoryException e (.getMessage e))))

(deftest damaged-gzip-says-where-the-text-breaks-off
  (let [text (str/join "\n" (for [i (range 2000)]
                              (str "{:index " i ", :type :ok, :process " (mod i 7) ", :f :txn, :value [[:append " (mod i 13) " " i "]], :time " (* 1000 i) "}")))
        gz (gzipped text)
        cut (fn [n] (java.util.Arrays/copyOf gz (int n)))]
    (is (< 4096 (count gz)) "longer than the 4 KiB the format is sniffed from")
    (testing "cut inside the compressed text: names the op it breaks off in"
      (let [e (gz-error (cut (quot (count gz) 2)))]
        (is (re-find #"^truncated gzip data \(the file is incomplete\): the input breaks off inside op (\d+) \(line (\d+)\), after \1 complete ops$" e) e)
        (let [[_ op line] (re-find #"inside op (\d+) \(line (\d+)\)" e)]
          (is (= (inc (parse-long op)) (parse-long line)) "one op per line")
          (is (< 100 (parse-long op) 1900)))))
    (testing "cut within the first 4 KiB (while the format is sniffed) or in the header"
      (is (= "truncated gzip data (the file is incomplete): the input breaks off before the first op" (gz-error (cut 30))))
      (is (= "truncated gzip data (the file is incomplete): the input breaks off before the first op" (gz-error (cut 5)))))
    (testing "cut in the trailer: every op was read"
      (is (= "truncated gzip data (the file is incomplete): the input breaks off after op 1999 (at line 2000)"
             (gz-error (cut (- (count gz) 4))))))
    (testing "a corrupt trailer (wrong CRC) is corrupt, not truncated"
      (let [bad (java.util.Arrays/copyOf gz (count gz))]
        (aset-byte bad (- (count bad) 8) (unchecked-byte (bit-xor 0xff (aget bad (- (count bad) 8)))))
        (is (= "corrupt gzip data (Corrupt GZIP trailer): the input breaks off after op 1999 (at line 2000)" (gz-error bad)))))
    (testing "a file, by name, the same"
      (let [p (temp-file ".edn.gz" "")]
        (Files/write p (cut 3000) (make-array java.nio.file.OpenOption 0))
        (is (str/starts-with? (try (Formats/readHistory (str p) nil) nil (catch HistoryException e (.getMessage e)))
                              "truncated gzip data (the file is incomplete): the input breaks off inside op "))))))

(deftest content-decides-the-format-over-the-name
  (let [json "[{\"type\":\"ok\",\"f\":\"txn\",\"process\":0,\"value\":[[\"append\",1,2]]}]"
        edn "{:type :ok, :f :txn, :process 0, :value [[:append 1 2]]}"
        txns (fn [suffix content] (let [h (Formats/readHistory (str (temp-file suffix content)) nil)]
                                    (mapv #(.txnStr h %) (range (.nTxns h)))))
        err (fn [suffix content] (try (Formats/readHistory (str (temp-file suffix content)) nil) nil
                                      (catch HistoryException e (.getMessage e))))]
    (is (= ["[[:append 1 2]]"] (txns ".edn" json)) "JSON named .edn")
    (is (= ["[[:append 1 2]]"] (txns ".edn.gz" json)))
    (is (= ["[[:append 1 2]]"] (txns ".json" edn)) "EDN named .json")
    (testing "when the content overrode the name, an error says so"
      (is (= (str "op 0 (line 1, column 10): expected a JSON value (string, number, array, object, true, false or null), found 'o'"
                  " (read as JSON because it starts with {\", a string key, though the name ")
             (first (str/split (err ".edn" "{\"type\" :ok \"f\" :txn \"process\" 0 :value [[:append 1 2]]}") #"isocheck-io")))))
    (testing "EDN op maps with string keys, where the content says EDN"
      (is (= "op 0 (line 1, column 20): the key \"type\" is a string; EDN op maps have keyword keys such as :type"
             (error-of edn-ops "#jepsen.history.Op{\"type\" :ok \"f\" :txn :value [[:append 1 2]] \"process\" 0}")))
      (is (= "op 0 (line 1, column 12): the key \"f\" is a string; EDN op maps have keyword keys such as :f"
             (error-of edn-ops "{:type :ok \"f\" :txn :value [[:append 1 2]] :process 0}"))))))

;; ---------------------------------------------------------------- loading on two threads

(defn- history-data
  "Everything a History holds that the checks read, as Clojure data."
  [^History h]
  (let [n (.nTxns h), m (.mopCount h)]
    {:counts [n m (.opsSeen h) (.opsSkipped h) (.sessionCount h) (.indexUsable h) (.noTxnReason h)]
     :txns (vec (for [t (range n)]
                  [(.status h t) (.session h t) (.invokeOrdinal h t) (.completeOrdinal h t)
                   (.invokeIndex h t) (.completeIndex h t) (.invokeTime h t) (.completeTime h t)
                   (.mopStart h t) (vec (.extras h t))]))
     :mops (vec (for [i (range m)]
                  [(.mopKind h i) (.keyStr h (.mopKey h i)) (.mopLen h i) (.mopTxn h i)
                   (if (= History$Workload/APPEND (.workload h))
                     (mapv #(.valueStr h (aget (.listPool h) (+ (.mopVal h i) %))) (range (.mopLen h i)))
                     (.valueStr h (.mopVal h i)))]))}))

(defn- load-with
  "Loads path with the builder on its own thread from pipe-from bytes on (0: always; nil: never)."
  [path pipe-from]
  (System/setProperty "isocheck.load.pipe-from" (str (or pipe-from Long/MAX_VALUE)))
  (try (Formats/readHistory path nil)
       (finally (System/clearProperty "isocheck.load.pipe-from"))))

(defn- load-error [path pipe-from]
  (try (load-with path pipe-from) nil
       (catch HistoryException e (.getMessage e))))

(deftest loading-on-two-threads-changes-nothing
  ;; From a megabyte on, the reader parses while the builder runs on another thread, the ops
  ;; handed over in batches as a stream of records: the history must be the same, op for op.
  (let [sim (fn [name wl info]
              (let [f (io/file (tmp-dir) name)
                    w (EdnWriter/open (.toPath f))]
                (try (Simulator/run (-> (SimConfig/builder) (.seed 3) (.store Store/SNAPSHOT_ISOLATION) (.workload wl)
                                        (.txns 5000) (.sessions 7) (.keys 50) (.opsPerTxn 1 6)
                                        (.infoRate (double info)) (.failRate 0.05) .build)
                                    w)
                     (finally (.close w)))
                (.getPath f)))
        files (concat (map #(.getPath ^File %) (corpus-files))
                      [(sim "append.edn" History$Workload/APPEND 0.1)
                       (sim "wr.edn" History$Workload/REGISTER 0.3)])]
    (doseq [path files]
      (let [one (history-data (load-with path nil))
            two (history-data (load-with path 0))]
        (is (= one two) path)
        (is (pos? (first (:counts two))) path)))))

(defn- record-data
  "Everything a consumer can see of an op record."
  [^OpRecord r]
  {:ordinal (.ordinal r) :line (.line r) :index (.index r) :time (.time r) :type (.type r)
   :type-raw (.typeRaw r) :process (.process r) :has-process (.hasProcess r) :f (.f r)
   :shape (.valueShape r) :raw (.valueRaw r) :origin (.origin r) :where (.where r)
   :object-elems (.hasObjectElems r)
   :mops (vec (for [i (range (.mopCount r))]
                [(.kind r i) (.fRaw r i) (.keyIsLong r i) (.key r i) (.valueTag r i) (.value r i)
                 (.renderMop r i)]))
   :extras (vec (for [i (range (.extraCount r))] [(.extraKey r i) (.extraValue r i)]))})

(deftest op-records-cross-threads-as-a-stream-unchanged
  ;; The reader hands ops to the builder's thread as a stream (OpRecord.writeTo / readFrom):
  ;; every field, micro-op and extra must come back as it was, objects included.
  (let [plain (doto (OpRecord.) (.reset 4)
                (.addMop (kw "r") 1 [1 2 3]) (.addMop (kw "append") 2 4) (.addMop (kw "w") 5 6)
                (.addMop (kw "r") 7 nil))
        _ (do (set! (.line plain) 5) (set! (.index plain) 4) (set! (.time plain) 1000)
              (set! (.type plain) 1) (set! (.typeRaw plain) (kw "ok")) (set! (.process plain) 3)
              (set! (.hasProcess plain) true) (set! (.f plain) (kw "txn"))
              (set! (.valueShape plain) OpRecord/VALUE_TXN))
        odd (doto (OpRecord.) (.reset 9)
              (.addMalformed [1 2]) (.addMop (kw "r") "k" ["a" nil 3]) (.addMop (kw "w") nil (kw "v"))
              (.addMop (kw "r") 2 []) (.addMop "cas" 3 [4 5]) (.addExtra (kw "db-id") "x")
              (.addExtra (kw "node") 3))
        _ (do (set! (.type odd) -1) (set! (.typeRaw odd) (kw "weird")) (set! (.f odd) "txn")
              (set! (.time odd) 77) (set! (.origin odd) "txn 7, session 1")
              (set! (.valueShape odd) OpRecord/VALUE_TXN))
        other (doto (OpRecord.) (.reset 10))
        _ (do (set! (.valueShape other) OpRecord/VALUE_OTHER) (set! (.valueRaw other) [(kw "isolated") {"n2" #{"n1"}}])
              (set! (.type other) 3) (set! (.typeRaw other) (kw "info")) (set! (.f other) (kw "start-partition")))
        big (let [r (doto (OpRecord.) (.reset 11))]
              (doseq [i (range 40)] (.addMop r (kw (if (even? i) "r" "append")) i (if (even? i) (vec (range (* 10 i))) i)))
              r)
        recs [plain odd other big plain odd]
        s (OpStream. 16 16)]
    (doseq [r recs] (.writeTo ^OpRecord r s))
    (let [back (OpRecord.)]
      (doseq [r recs]
        (.readFrom back s)
        (is (= (record-data r) (record-data back)))))
    (testing "a cleared stream is written and read again from its start"
      (.clear s)
      (.writeTo ^OpRecord odd s)
      (let [back (OpRecord.)]
        (.readFrom back s)
        (is (= (record-data odd) (record-data back)))))))

(deftest loading-on-two-threads-reports-the-first-error
  ;; The builder's error at an early op wins over the reader's at a later one, and the other
  ;; way round, as on one thread; the batches hold 1024 ops, so the errors sit batches apart.
  (let [ok (fn [i] (str "{:index " i ", :type :ok, :process " (mod i 5) ", :f :txn, :value [[:append " i " 1]]}\n"))
        file (fn [bad-at]
               (tmp-file "h.edn" (apply str (for [i (range 5000)] (get bad-at i (ok i))))))
        frob (fn [i] (str "{:index " i ", :type :ok, :process 0, :f :txn, :value [[:frob 1 2]]}\n"))
        cut "{:index 9, :type :ok, :process 0, :f :txn, :value [[:r 1 [1 2]]}\n"]
    (doseq [[label path expected]
            [["builder first" (file {3 (frob 3), 4000 cut}) #"^op 3 \(line 4, :index 3\): micro-op 0 \[:frob 1 2\]"]
             ["reader first" (file {3 cut, 4000 (frob 4000)}) #"line 4"]
             ["builder only, in a later batch" (file {3000 (frob 3000)}) #"^op 3000 \(line 3001, :index 3000\)"]]]
      (let [one (load-error path nil), two (load-error path 0)]
        (is (some? one) label)
        (is (= one two) label)
        (is (re-find expected (str two)) (str label ": " two))))))

;; ---------------------------------------------------------------- writes indexed at build

(deftest a-file-whose-writes-are-indexed-at-build-fails-as-one-indexed-op-by-op
  ;; Files are loaded with the writes indexed when the history is built: a value written twice
  ;; is found there, without its op, and the file is read again indexed op by op. The error
  ;; must be the one building the ops with writes indexed as they come gives (the same ops
  ;; built in memory), whichever comes first, the value written twice or a later (or earlier)
  ;; bad op (the first error in op order, as in loading-on-two-threads-reports-the-first-error),
  ;; on one thread or two.
  (let [ok (fn [i] (str "{:index " i ", :type :ok, :process " (mod i 5) ", :f :txn, :value [[:append " i " 1] [:r " i " [1]]]}\n"))
        dup (fn [i was] (str "{:index " i ", :type :ok, :process 0, :f :txn, :value [[:r 1 nil] [:append " was " 1]]}\n"))
        frob (fn [i] (str "{:index " i ", :type :ok, :process 0, :f :txn, :value [[:frob 1 2]]}\n"))
        cut (fn [i] (str "{:index " i ", :type :ok, :process 0, :f :txn, :value [[:r 1 [1 2]]}\n"))
        text (fn [bad-at] (apply str (for [i (range 5000)] (get bad-at i (ok i)))))]
    (doseq [[label bad-at expected]
            [["written twice" {3000 (dup 3000 10)} #"^op 3000 \(line 3001, :index 3000\): micro-op \[:append 10 1\] appends 1 to key 10, which op 10 appended too"]
             ["written twice in one op" {7 (str "{:index 7, :type :ok, :process 2, :f :txn, :value [[:append 7 1] [:append 7 1]]}\n")}
              #"^op 7 .*which the same transaction already appended"]
             ["written twice, then a bad op" {20 (dup 20 3), 4000 (frob 4000)} #"^op 20 .*appends 1 to key 3"]
             ["written twice, then cut short" {20 (dup 20 3), 4000 (cut 4000)} #"^op 20 .*appends 1 to key 3"]
             ["a bad op, then written twice" {20 (frob 20), 4000 (dup 4000 3)} #"^op 20 .*:frob"]
             ["cut short, then written twice" {20 (cut 20), 4000 (dup 4000 3)} #"line 21"]]]
      (let [t (text bad-at)
            path (tmp-file "h.edn" t)
            one (load-error path nil)]
        (is (re-find expected (str one)) (str label ": " one))
        (is (= one (load-error path 0)) (str label ", two threads"))
        (when (= 1 (count bad-at))
          (is (= one (try (build edn-ops t) nil (catch HistoryException e (.getMessage e)))) (str label ", in memory")))))))

;; The reference: the writes' pairs (a[i], b[i]) put into a map one at a time, and the first
;; write whose pair an earlier write had (-1 when none).
(defn- pairs-one-at-a-time [n ^bytes sel ^ints a ^ints b]
  (let [one (isocheck.util.PairIntMap. 1)]
    [one (reduce (fn [d i]
                   (if (= (aget sel i) OpRecord/READ) d
                       (let [v (.putIfAbsent one (aget a i) (aget b i) (int i))]
                         (if (and (neg? d) (not= v i)) i d))))
                 -1 (range n))]))

(deftest the-writer-index-made-at-once-answers-as-one-made-a-pair-at-a-time
  ;; PairIntMap.ofFirst sorts the pairs by the part of the table they go to and inserts them
  ;; part by part: the same answers as putIfAbsent in order, each pair to its first index,
  ;; entries not selected left out, and the first index whose pair came before (-1: none);
  ;; from tables of one part to tables of many.
  (let [rnd (java.util.Random. 31)]
    (doseq [[n a-range b-range] [[0 10 10] [50 10 10] [5000 2000 8] [200000 100000 40] [200000 30 100000]
                                 [300000 1 400000]
                                 ;; Dense tables (load 0.65): with two cores, a few probes cross
                                 ;; from one thread's half of the parts into the other's.
                                 [243000 1000000 1000000] [130000 1000000 1000000]]]
      (let [a (int-array (repeatedly n #(.nextInt rnd a-range)))
            b (int-array (repeatedly n #(.nextInt rnd b-range)))
            sel (byte-array (repeatedly n #(if (< (.nextInt rnd 10) 3) OpRecord/READ OpRecord/WRITE)))
            [^isocheck.util.PairIntMap one first-dup] (pairs-one-at-a-time n sel a b)
            pairs (count (filter #(not= OpRecord/READ %) sel))
            out (int-array 1)
            m (isocheck.util.PairIntMap/ofFirst pairs n sel OpRecord/READ a b out)]
        (is (= first-dup (aget out 0)) (str n))
        (is (= (.size one) (.size m)) (str n))
        (is (every? #(= (.get one (aget a %) (aget b %)) (.get m (aget a %) (aget b %))) (range n)) (str n))
        (is (= -1 (.get m a-range 0) (.get m 0 b-range)) (str n))))))

;; Cobra's write ids as values: unique across keys, about as many values as writes, so no
;; table by (key, value) suits and the index is a table by value alone (PairIntMap.byValueOfFirst).
(deftest the-writer-index-by-value-answers-as-one-made-a-pair-at-a-time
  (let [rnd (java.util.Random. 37)]
    (doseq [[n again] [[0 0] [1000 0] [200000 0] [200000 5]]]
      (let [b (int-array (shuffle (range n)))
            a (int-array (repeatedly n #(.nextInt rnd 50000)))
            ;; A pair written again, of the same key: at i, the pair at j < i.
            _ (dotimes [k again] (let [i (+ 1000 (* 30000 k)), j (- i 500 k)] (aset b i (aget b j)) (aset a i (aget a j))))
            sel (byte-array (repeatedly n #(if (< (.nextInt rnd 10) 3) OpRecord/READ OpRecord/WRITE)))
            [^isocheck.util.PairIntMap one first-dup] (pairs-one-at-a-time n sel a b)
            out (int-array 1)
            m (isocheck.util.PairIntMap/byValueOfFirst (max 1 n) n sel OpRecord/READ a b out)]
        (is (= first-dup (aget out 0)) (str n))
        (is (= (.size one) (.size m)) (str n))
        (is (every? #(= (.get one (aget a %) (aget b %)) (.get m (aget a %) (aget b %))) (range n)) (str n))
        (is (every? #(= -1 (.get m (inc (aget a %)) (aget b %))) (range 0 n 97)) (str n ", another key"))
        (is (= -1 (.get m 0 n) (.get m 0 -1)) (str n)))))
  ;; A value of two keys: no table by value (the builder makes the hash map instead).
  (is (nil? (isocheck.util.PairIntMap/byValueOfFirst 3 2 (byte-array [OpRecord/WRITE OpRecord/WRITE]) OpRecord/READ
                                                     (int-array [0 1]) (int-array [2 2]) (int-array 1))))
  ;; Through a file: 400 keys, each value written once (the table by key and value would be
  ;; too large); a value of two keys loads through the hash map; a pair written twice fails as
  ;; indexed op by op.
  (let [op (fn [i k v] (str "{:index " i ", :type :ok, :process " (mod i 5) ", :f :txn, :value [[:w " k " " v "] [:r " k " " v "]]}\n"))
        text (fn [extra] (str (apply str (for [i (range 400)] (op i i (+ 1000 i)))) extra))]
    (doseq [[label extra] [["unique" ""] ["a value of two keys" (op 400 3 1005)]]]
      (let [h (Formats/readHistory (str (tmp-file "h.edn" (text extra))) nil)]
        (is (every? (fn [m] (or (= OpRecord/READ (.mopKind h m)) (= m (.writerMop h (.mopKey h m) (.mopVal h m)))))
                    (range (.mopCount h))) label)
        (is (= -1 (.writerMop h (.mopKey h 0) (.mopVal h 2))) label)))
    (is (re-find #"^op 400 .*writes 1005 to key 5, which op 5 wrote too" (str (load-error (str (tmp-file "h.edn" (text (op 400 5 1005)))) nil))))))

;; ---------------------------------------------------------------- the builder's tables

(deftest the-writer-index-answers-as-a-map-does
  ;; PairIntMap keeps (a, b) -> v in one array of slots (a + 1, b, v), 0 marking an empty
  ;; slot: pairs with a or b 0, long dense runs of one a (a key written thousands of times),
  ;; large ids, and growth from the smallest table all answer as a map does.
  (let [rnd (java.util.Random. 29)
        pairs (distinct (concat (for [b (range 3000)] [0 b])
                                (for [a (range 2000)] [a 0])
                                (for [_ (range 20000)] [(.nextInt rnd 5000) (.nextInt rnd 70)])
                                [[Integer/MAX_VALUE Integer/MAX_VALUE] [(dec Integer/MAX_VALUE) 0] [0 Integer/MAX_VALUE]]))
        m (isocheck.util.PairIntMap. 1)
        want (reduce (fn [acc [[a b] v]]
                       (is (= (get acc [a b] v) (.putIfAbsent m (int a) (int b) (int v))))
                       (if (contains? acc [a b]) acc (assoc acc [a b] v)))
                     {} (map vector (concat pairs (take 500 pairs)) (range)))]
    (is (= (count want) (.size m)))
    (is (every? (fn [[[a b] v]] (= v (.get m (int a) (int b)))) want))
    (is (= -1 (.get m 1 3000) (.get m 5000 0) (.get m 4999 Integer/MAX_VALUE)))))

(deftest a-history-names-each-writes-writer-and-its-keys-and-values
  ;; The builder's writer index, key and value tables against the micro-ops themselves: the
  ;; simulator's rw-register and list-append histories (integer keys and values), and one with
  ;; string keys and keyword values beside integers.
  (doseq [wl [History$Workload/REGISTER History$Workload/APPEND]]
    (let [h (.history (Simulator/history (-> (SimConfig/builder) (.seed 3) (.store Store/SNAPSHOT_ISOLATION) (.workload wl)
                                             (.txns 3000) (.sessions 5) (.keys 400) (.opsPerTxn 1 12) (.failRate 0.05) (.infoRate 0.02) .build)))]
      (testing (str wl)
        (doseq [m (range (.mopCount h)) :when (not= OpRecord/READ (.mopKind h m))]
          (is (= m (.writerMop h (.mopKey h m) (.mopVal h m)))))
        (is (= (.keyCount h) (count (distinct (map #(.key h %) (range (.keyCount h)))))))
        (is (every? #(instance? Long (.key h %)) (range (.keyCount h)))))))
  (let [h (build edn-ops (str "{:type :invoke, :process 0, :f :txn, :value [[:w \"x\" :a] [:w 1 2] [:r \"x\" nil]]}\n"
                              "{:type :ok, :process 0, :f :txn, :value [[:w \"x\" :a] [:w 1 2] [:r \"x\" :a]]}\n"
                              "{:type :ok, :process 1, :f :txn, :value [[:w 1 :b] [:w \"x\" 3] [:r 1 2]]}\n"))]
    (is (= ["[[:w \"x\" :a] [:w 1 2] [:r \"x\" :a]]" "[[:w 1 :b] [:w \"x\" 3] [:r 1 2]]"] (mapv #(.txnStr h %) (range 2))))
    (is (= ["x" 1] (mapv #(.key h %) (range (.keyCount h)))))
    (is (= [0 1 3 4] (vec (for [m (range (.mopCount h)) :when (not= OpRecord/READ (.mopKind h m))]
                            (.writerMop h (.mopKey h m) (.mopVal h m)))))))
  (is (= "op 1 (line 2): micro-op [:w 1 2] writes 2 to key 1, which op 0 wrote too; values must be unique per key, or reads cannot name their writer"
         (try (build edn-ops (str "{:type :ok, :process 0, :f :txn, :value [[:w 1 2] [:w \"x\" :a]]}\n"
                                  "{:type :ok, :process 1, :f :txn, :value [[:w \"x\" 3] [:w 1 2]]}\n"))
              nil (catch HistoryException e (.getMessage e))))))

;; The builder keeps values as ints in chunks while each fits (then longs), boxes none of them
;; (History.value boxes on asking), and interns non-negative longs in pages while they are dense
;; enough, the rest (and a sparse range's) in a hash map: every value read back as written, each
;; read of a (key, value) finding its write.
(deftest values-kept-as-ints-then-longs-and-interned-in-pages-or-the-map
  (let [dense (for [i (range 70000)] [i (* 3 i)])                   ; past the first chunk of 65,536
        sparse (for [i (range 3000)] [(+ 200000 i) (+ 7 (* 1000003 i))]) ; up to 3*10^9: pages, then the map
        odd [[100000 (bit-shift-left 1 40)] [100001 "x"] [100002 -5] [100003 Long/MIN_VALUE]]
        kvs (concat dense odd sparse (take 500 dense) (take 500 sparse))
        text (apply str (map-indexed (fn [i [k v]] (str "{:index " i ", :type :ok, :process " (mod i 7) ", :f :txn, :value [[:w " k " " (pr-str v) "] [:r " k " " (pr-str v) "]]}\n"))
                                     (concat dense odd sparse)))
        h (build edn-ops text)
        n (count (concat dense odd sparse))]
    (is (= (* 2 n) (.mopCount h)))
    (is (every? true? (for [t (range n) :let [[_ v] (nth (vec (concat dense odd sparse)) t) m (.mopStart h t)]]
                        (and (= v (.value h (.mopVal h m))) (= v (.value h (.mopVal h (inc m))))
                             (= m (.writerMop h (.mopKey h (inc m)) (.mopVal h (inc m))))))))
    (let [val-of (fn [k] (.mopVal h (.mopStart h (int (some (fn [t] (when (= k (.key h (.mopKey h (.mopStart h t)))) t)) (range n))))))]
      (is (and (.valueIsLong h (val-of 100000)) (= (bit-shift-left 1 40) (.valueLong h (val-of 100000)))))
      (is (= [false false] [(.valueIsLong h (val-of 100001)) (.valueIsInteger h (val-of 100001))]))
      (is (= [true -5] [(.valueIsInteger h (val-of 100002)) (.valueAsLong h (val-of 100002))]))
      (is (= Long/MIN_VALUE (.valueAsLong h (val-of 100003)))))
    (is (= (count (distinct (map second kvs))) (.valueCount h)) "one id a distinct value")))
(defn- capacity
  "The length of the History's array field (its columns may keep room past what they hold)."
  ^long [^History h ^String field]
  (java.lang.reflect.Array/getLength (.get (doto (.getDeclaredField History field) (.setAccessible true)) h)))

(deftest past-an-estimate-the-builder-grows-by-an-eighth
  ;; A producer's estimate of a large history (HistoryBuilder.sizeHint, from 65,536
  ;; transactions on) sizes the columns; a history a little larger grows them by an eighth at
  ;; a time, not by doubling (which left the micro-op columns of 10^6 transactions of JSON,
  ;; estimated 0.3% short, twice what they held).
  (let [n 80000
        text (str/join "\n" (for [i (range n)] (str "{:type :ok, :f :txn, :process " (mod i 7) ", :value [[:w " i " 1] [:r " (+ n i) " nil]]}")))
        b (doto (HistoryBuilder.) (.sizeHint 70000 100000 50000 0))
        _ (Formats/read (ByteArrayInputStream. (.getBytes text StandardCharsets/UTF_8)) b)
        h (.build b)]
    (is (= n (.nTxns h)))
    (is (= (* 2 n) (.mopCount h)))
    (is (<= (* 2 n) (capacity h "mopKey") (* 1.15 2 n)) (str "micro-op columns: " (capacity h "mopKey")))
    (is (<= n (capacity h "invokeOrd") (* 1.15 n)) (str "transaction columns: " (capacity h "invokeOrd")))
    (testing "a small first hint (a producer's start) still doubles"
      (let [b (doto (HistoryBuilder.) (.sizeHint 1024 16384 8192 0))
            _ (Formats/read (ByteArrayInputStream. (.getBytes text StandardCharsets/UTF_8)) b)
            h (.build b)]
        (is (= (* 2 n) (.mopCount h)))
        (is (= 0 (mod (capacity h "mopKey") 16384)) (str (capacity h "mopKey")))))))

(deftest a-historys-integer-keys-are-not-boxed
  ;; History keeps its keys as the builder interned them (int chunks, long ones from the first
  ;; key past an int, objects apart) and boxes one when asked: boxed when built, 10^6
  ;; Plume-shaped transactions' 2 million keys were 40 MB of Longs made as the load ended.
  (let [field (fn [^History h f] (.get (doto (.getDeclaredField History f) (.setAccessible true)) h))
        load (fn [keys] (let [text (str/join "\n" (for [[i k] (map-indexed vector keys)]
                                                    (str "{:type :ok, :f :txn, :process 0, :value [[:w " (pr-str k) " " (inc i) "]]}")))
                              b (HistoryBuilder.)]
                          (Formats/read (ByteArrayInputStream. (.getBytes ^String text StandardCharsets/UTF_8)) b)
                          (.build b)))
        ks (fn [^History h] (mapv #(.key h (int %)) (range (.keyCount h))))]
    (testing "integers: no objects, the same keys back"
      (let [h (load (range 70000))]
        (is (nil? (field h "keyObjs")))
        (is (= (range 70000) (ks h)))))
    (testing "an integer past an int: longs from then on"
      (let [h (load [3 (bit-shift-left 1 40) 5])]
        (is (nil? (field h "keyObjs")))
        (is (= [3 (bit-shift-left 1 40) 5] (ks h)))))
    (testing "strings and keywords as they are, beside integers"
      (let [h (load [7 "x" :y 8])]
        (is (= [7 "x" :y 8] (mapv #(if (instance? isocheck.history.Kw %) (keyword (isocheck.history.Kw/nameOf %)) %) (ks h))))
        (is (thrown? IndexOutOfBoundsException (.key h (int 4))))))))

(deftest plume-text-is-estimated-from-its-txn-ids-digits
  ;; Streaming, a few megabytes in, a reader tells the builder what to expect. Plume's lines
  ;; spend the same bytes on an op but for the txn id, 0, 1, 2, ... in order, which gains
  ;; digits through the file: scaled by the bytes alone, 60,000 transactions (22 MB, short keys)
  ;; were estimated 4-5% over; counted with the ids' digits, within the 2% margin.
  (let [n 60000
        f (str (.resolve (.toPath ^File (tmp-dir)) "ids.txt"))
        _ (with-open [w (io/writer f)]
            (dotimes [t n]
              (dotimes [j 20]
                (let [k (inc (mod (+ (* t 20) j) 90000))]
                  (.write w (str (if (even? j) "w(" "r(") k "," (if (even? j) (inc (quot (+ (* t 20) j) 90000)) 0) "," (mod t 10) "," t ")\n"))))))
        hints (atom [])
        sink (reify OpSink
               (op [_ _])
               (sizeHint [_ txns mops _ _] (swap! hints conj [txns mops])))
        ctor (doto (.getDeclaredConstructor (Class/forName "isocheck.io.StreamingSink")
                                            (into-array Class [OpSink Long/TYPE]))
               (.setAccessible true))
        size (.length (io/file f))
        streaming (.newInstance ctor (object-array [sink size]))]
    (is (< (* 16 1024 1024) size) "large enough for the estimate")
    (with-open [in (io/input-stream f)] (Formats/read in ^OpSink streaming))
    (let [[txns mops] (last @hints)]
      (is (<= n txns (* 1.03 n)) (str "estimated " txns " transactions of " n))
      (is (<= (* 20 n) mops (* 1.03 20 n)) (str "estimated " mops " micro-ops of " (* 20 n))))))
