(ns isocheck.report-test
  "The report files a user reads (report.txt, report.html, the DOT pictures):
  long reads shown around where they matter, never printed whole; the input
  named; wide pictures fitted to the page; transactions named by their op's
  :index; keys of the user's own on ops kept by every reader and shown.
  report_browser_test checks report.html in Chromium."
  (:require [clojure.edn :as edn]
            [clojure.java.io :as io]
            [clojure.string :as str]
            [clojure.test :refer [deftest is testing]]
            [isocheck.core :as ic]
            [isocheck.jepsen :as j]
            [isocheck.test-util :as tu])
  (:import (isocheck.report Anomaly AnomalySet Dot EdgeKind ReportFiles)
           (java.nio.file Files)))

(defn- long-reads
  "n single-append transactions on :x, then two reads of all n elements that swap the elements
  at 0-based positions at and at+1 in the second one."
  [n at]
  (let [appends (mapcat (fn [v] [{:type :invoke :process 0 :f :txn :value [[:append :x v]]}
                                 {:type :ok :process 0 :f :txn :value [[:append :x v]]}])
                        (range 1 (inc n)))
        a (vec (range 1 (inc n)))
        b (assoc a at (a (inc at)) (inc at) (a at))
        reads (mapcat (fn [p l] [{:type :invoke :process p :f :txn :value [[:r :x nil]]}
                                 {:type :ok :process p :f :txn :value [[:r :x l]]}])
                      [1 2] [a b])]
    (vec (map-indexed (fn [i op] (assoc op :index i)) (concat appends reads)))))

(defn- tmp-dir []
  (let [d (io/file (System/getProperty "java.io.tmpdir") (str "isocheck-report-" (System/nanoTime)))]
    (.mkdirs d)
    d))

(deftest long-reads-are-shown-around-where-they-differ
  (let [n 20000, at 10000
        [r _] (ic/check-history {:levels [:serializable :rc]} (j/->history (long-reads n at)))
        dir (tmp-dir)]
    (ReportFiles/write (.toPath dir) r "huge.edn")
    (let [txt (slurp (io/file dir "report.txt"))
          html (slurp (io/file dir "report.html"))
          dot (slurp (io/file dir "incompatible-order.dot"))
          window "10000 10002 10001 10003"]
      (testing "text"
        (is (< (count txt) 10000) "a few kilobytes, not the reads three times over")
        (is (every? #(< (count %) 700) (str/split-lines txt)) "no line holds a whole read")
        (is (str/includes? txt window) "the swapped elements are shown")
        (is (str/includes? txt "differ at position 10,001"))
        (is (str/includes? txt "…9,992 more…") "what is elided is counted")
        (is (str/starts-with? txt "input: huge.edn\n")))
      (testing "html"
        (is (< (count html) 20000))
        (is (str/includes? html window))
        (is (str/includes? html "input: <code>huge.edn</code>")))
      (testing "dot"
        (is (str/includes? dot window) "each box shows the reads around the difference")))))

(deftest a-long-aborted-read-is-shown-around-the-aborted-element
  (let [h (conj (vec (mapcat (fn [v] [{:type :invoke :process 0 :f :txn :value [[:append :x v]]}
                                      {:type (if (= v 700) :fail :ok) :process 0 :f :txn :value [[:append :x v]]}])
                             (range 1 1001)))
                {:type :invoke :process 1 :f :txn :value [[:r :x nil]]}
                {:type :ok :process 1 :f :txn :value [[:r :x (vec (range 1 1001))]]})
        h (vec (map-indexed (fn [i op] (assoc op :index i)) h))
        [r m] (ic/check-history {:levels [:serializable]} (j/->history h))
        ex (get-in m [:counterexamples :G1a :explanation])]
    (is (str/includes? ex "698 699 700 701 702") ex)
    (is (< (count ex) 400) ex)))

(deftest dependency-steps-show-long-reads-around-their-end
  ;; T_a reads 500 elements of :x and appends to :y; T_b reads :y empty and appends 501 to :x.
  (let [h (vec (map-indexed (fn [i op] (assoc op :index i))
                            (concat (for [v (range 1 501)] {:type :ok :process 0 :f :txn :value [[:append :x v]]})
                                    [{:type :ok :process 1 :f :txn :value [[:r :x (vec (range 1 501))] [:append :y 1]]}
                                     {:type :ok :process 2 :f :txn :value [[:r :y []] [:append :x 501]]}
                                     {:type :ok :process 3 :f :txn :value [[:r :x (vec (range 1 502))] [:r :y [1]]]}])))
        [_ m] (ic/check-history {:levels [:serializable]} (j/->history h))
        ex (get-in m [:counterexamples :G2-item :explanation])]
    (is (str/includes? ex "T500 read key :x as [1 2 3 …491 more… 495 496 497 498 499 500], which does not include T501's append of 501") ex)
    (is (< (count ex) 600) ex)))

(deftest wide-pictures-fit-the-page
  (let [;; A 12-transaction G1c chain: a wide picture.
        n 12
        h (vec (map-indexed (fn [i op] (assoc op :index i))
                            (for [i (range n)]
                              {:type :ok :process i :f :txn
                               :value [[:append (keyword (str "k" i)) 1]
                                       [:r (keyword (str "k" (mod (inc i) n))) [1]]]})))
        [r _] (ic/check-history {:levels [:serializable]} (j/->history h))
        dir (tmp-dir)]
    (ReportFiles/write (.toPath dir) r)
    (let [html (slurp (io/file dir "report.html"))]
      (is (str/includes? html ".pic svg{max-width:100%;height:auto}"))
      (is (or (str/includes? html "<div class=\"pic\"><svg")
              (not (str/includes? html "<svg")))
          "every inlined picture sits in a scaled, scrollable box"))))

(deftest max-anomalies-zero-counts-only
  (let [h [{:index 0 :type :ok :process 0 :f :txn :value [[:r :x []] [:append :y 1]]}
           {:index 1 :type :ok :process 1 :f :txn :value [[:r :y []] [:append :x 1]]}]
        r (ic/check (ic/checker {:levels [:serializable] :max-anomalies 0}) h)
        [jr _] (ic/check-history {:levels [:serializable] :max-anomalies 0} (j/->history h))]
    (is (false? (:valid? r)))
    (is (= {:G2-item 1} (:anomaly-counts r)))
    (is (= {:G2-item []} (:anomalies r)))
    (is (= {} (:counterexamples r)))
    (is (str/includes? (.text ^isocheck.check.Result jr) "G2-item: 1 instance (counted only)"))
    (let [dir (tmp-dir)]
      (ReportFiles/write (.toPath dir) jr)
      (is (str/includes? (slurp (io/file dir "report.html")) "1 counted"))))
  (is (thrown-with-msg? IllegalArgumentException #":max-anomalies must be 0"
                        (ic/checker {:max-anomalies -1}))))

;; ------------------------------------------------------------------ names and keys of the user's own

(def ^:private g1c-with-ids
  "A G1c whose ops carry keys of their own: :node on the invocations, :txn-id
  on the completions (T1's invocation has a :txn-id too: the completion's wins)."
  [{:index 0 :type :invoke :process 0 :f :txn :value [[:append 1 1] [:r 2 nil]] :node "n1"}
   {:index 1 :type :invoke :process 1 :f :txn :value [[:append 2 1] [:r 1 nil]] :node "n2" :txn-id -1}
   {:index 2 :type :ok :process 0 :f :txn :value [[:append 1 1] [:r 2 [1]]] :txn-id 17}
   {:index 3 :type :ok :process 1 :f :txn :value [[:append 2 1] [:r 1 [1]]] :txn-id 18}])

(def ^:private g1c-with-ids-json
  (str "[{\"index\":0,\"type\":\"invoke\",\"process\":0,\"f\":\"txn\",\"value\":[[\"append\",1,1],[\"r\",2,null]],\"node\":\"n1\"},"
       "{\"index\":1,\"type\":\"invoke\",\"process\":1,\"f\":\"txn\",\"value\":[[\"append\",2,1],[\"r\",1,null]],\"node\":\"n2\",\":txn-id\":-1},"
       "{\"index\":2,\"type\":\"ok\",\"process\":0,\"f\":\"txn\",\"value\":[[\"append\",1,1],[\"r\",2,[1]]],\"txn-id\":17},"
       "{\"index\":3,\"type\":\"ok\",\"process\":1,\"f\":\"txn\",\"value\":[[\"append\",2,1],[\"r\",1,[1]]],\"txn-id\":18}]"))

(defrecord Op [index time type process f value])

(defn- read-with ^isocheck.history.History [reader ^String text]
  (let [b (isocheck.history.HistoryBuilder. nil)]
    (reader (java.io.ByteArrayInputStream. (.getBytes text "UTF-8")) b)
    (.build b)))

(deftest keys-of-the-users-own-are-kept-by-every-way-in
  (let [edn-text (str/join "\n" (map pr-str g1c-with-ids))
        hs {"clojure maps" (j/->history g1c-with-ids)
            "jepsen-like records" (j/->history (map (fn [op] (merge (map->Op (select-keys op [:index :time :type :process :f :value]))
                                                                   (dissoc op :index :time :type :process :f :value)))
                                                    g1c-with-ids))
            "EDN" (read-with #(isocheck.io.EdnReader/read ^java.io.InputStream %1 ^isocheck.history.OpSink %2) edn-text)
            "JSON" (read-with #(isocheck.io.JsonReader/read ^java.io.InputStream %1 ^isocheck.history.OpSink %2) g1c-with-ids-json)}]
    (doseq [[way h] hs]
      (testing way
        (let [[r m] (ic/check-history {:levels [:serializable]} h)
              cx (get-in m [:counterexamples :G1c])]
          (is (= #{{:index 2 :node "n1" :txn-id 17} {:index 3 :node "n2" :txn-id 18}}
                 (set (map #(select-keys % [:index :node :txn-id]) (:cycle cx))))
              "the result map's ops carry them, the completion's value winning")
          (is (str/includes? (.text ^isocheck.check.Result r)
                             "T2 = {:index 2, :type :ok, :process 0, :f :txn, :node \"n1\", :txn-id 17, :value [[:append 1 1] [:r 2 [1]]]}")
              "the text report shows them beside the name, before the micro-ops")
          (is (str/includes? (:dot cx) "T3  process 1  ok\\l:node \\\"n2\\\", :txn-id 18\\l")
              "the picture's box shows them under the name"))))
    (testing "EDN written back keeps them"
      (let [out (java.io.ByteArrayOutputStream.)
            w (isocheck.io.EdnWriter. out)]
        (isocheck.io.EdnReader/read (java.io.ByteArrayInputStream. (.getBytes ^String edn-text "UTF-8")) w)
        (is (= g1c-with-ids (map edn/read-string (str/split-lines (.toString out "UTF-8")))))))
    (testing "ops without any keep none"
      (let [h (j/->history (map #(dissoc % :node :txn-id) g1c-with-ids))]
        (is (every? #(zero? (alength (.extras h (int %)))) (range (.nTxns h))))))))

(defn- names [^isocheck.history.History h]
  (set (map #(.name h (int %)) (range (.nTxns h)))))

(deftest transactions-are-named-by-their-ops-index
  (testing "a filtered history keeps its numbers: the completion's :index names the transaction"
    (is (= #{"T11" "T21" "T40"}
           (names (j/->history [{:index 10 :type :invoke :process 0 :f :txn :value [[:append :x 1]]}
                                {:index 11 :type :ok :process 0 :f :txn :value [[:append :x 1]]}
                                {:index 20 :type :invoke :process 1 :f :txn :value [[:r :x nil]]}
                                {:index 21 :type :ok :process 1 :f :txn :value [[:r :x [1]]]}
                                ;; never completed: named by its invocation
                                {:index 40 :type :invoke :process 2 :f :txn :value [[:append :x 2]]}])))))
  (testing "ops without :index: their position, as Jepsen would number them"
    (is (= #{"T1" "T3"}
           (names (j/->history [{:type :invoke :process 0 :f :txn :value [[:append :x 1]]}
                                {:type :ok :process 0 :f :txn :value [[:append :x 1]]}
                                {:type :invoke :process 1 :f :txn :value [[:r :x nil]]}
                                {:type :ok :process 1 :f :txn :value [[:r :x [1]]]}])))))
  (testing "a nemesis op without :index does not renumber the others"
    (let [h (j/->history [{:type :info :process :nemesis :f :kill}
                          {:index 7 :type :invoke :process 0 :f :txn :value [[:append :x 1] [:r :y nil]]}
                          {:index 8 :type :invoke :process 1 :f :txn :value [[:append :y 1] [:r :x nil]]}
                          {:index 9 :type :ok :process 0 :f :txn :value [[:append :x 1] [:r :y [1]]]}
                          {:index 12 :type :ok :process 1 :f :txn :value [[:append :y 1] [:r :x [1]]]}])
          [r m] (ic/check-history {:levels [:serializable]} h)
          cx (get-in m [:counterexamples :G1c])]
      (is (= #{"T9" "T12"} (names h)))
      (is (= #{9 12} (set (map :index (:cycle cx)))))
      (is (str/starts-with? (:explanation cx) "T9 and T12 form G1c") (:explanation cx)))))

(deftest an-instance-longer-than-every-kept-one-is-counted-without-being-built
  ;; Cycles are reported by building their explanation; once a type has its cap of instances and
  ;; each kept one has fewer transactions, a longer one would not be kept: the checker only
  ;; counts it (AnomalySet/wouldDrop). Equal lengths are built (the explanation breaks the tie).
  (let [a (fn [n] (Anomaly. "G2-item" (int-array (range n)) {} (apply str (repeat n "x")) nil))
        s (AnomalySet. 2)]
    (is (not (.wouldDrop s "G2-item" 5)) "below the cap")
    (.add s (a 2))
    (.add s (a 3))
    (is (.wouldDrop s "G2-item" 4))
    (is (not (.wouldDrop s "G2-item" 3)) "as long as a kept one: may replace it")
    (is (not (.wouldDrop s "G-single-item" 9)) "another type")
    (is (.wouldDrop (AnomalySet. 0) "G2-item" 2) "counts only")
    (testing "the checker's counts and kept instances are the same as when every cycle was built"
      ;; Many long-fork-shaped 2-cycles and longer cycles in one list-append history, capped at 1.
      (let [hist (vec (map-indexed (fn [i o] (assoc o :index i))
                                   (for [r (range 30)
                                         o (let [x (keyword (str "x" r)) y (keyword (str "y" r)) z (keyword (str "z" r))]
                                             (if (even? r)
                                               [{:type :ok :process 0 :f :txn :value [[:append x 1] [:r y []]]}
                                                {:type :ok :process 1 :f :txn :value [[:append y 1] [:r x []]]}]
                                               [{:type :ok :process 0 :f :txn :value [[:append x 1] [:r y []]]}
                                                {:type :ok :process 1 :f :txn :value [[:append y 1] [:r z []]]}
                                                {:type :ok :process 2 :f :txn :value [[:append z 1] [:r x []]]}]))]
                                     o)))
            r (ic/check (ic/checker {:levels [:serializable] :max-anomalies 1}) hist)]
        (is (= 30 (get-in r [:anomaly-counts :G2-item])) (pr-str (:anomaly-counts r)))
        (is (= 3 (count (get-in r [:counterexamples :G2-item :cycle])))
            "the one kept is a two-transaction cycle (plus the closing step)")))))

;; ------------------------------------------------------------------ report.html: names, colours, stats

(defn- rw-lost-update
  "An rw-register lost update: T1 writes x = 1; T3 and T5 both read 1 and write x (2 and 3); T7
  reads 3. Ops numbered 0..7 by :index."
  []
  (vec (map-indexed (fn [i o] (assoc o :index i))
                    (mapcat (fn [p inv done] [{:type :invoke :process p :f :txn :value inv}
                                              {:type :ok :process p :f :txn :value done}])
                            [0 1 2 3]
                            [[[:w :x 1]] [[:r :x nil] [:w :x 2]] [[:r :x nil] [:w :x 3]] [[:r :x nil]]]
                            [[[:w :x 1]] [[:r :x 1] [:w :x 2]] [[:r :x 1] [:w :x 3]] [[:r :x 3]]]))))

(defn- write-report [ops levels source]
  (let [[r m] (ic/check-history {:levels levels} (j/->history ops))
        dir (tmp-dir)]
    (ReportFiles/write (.toPath dir) r source)
    {:dir dir :result m :html (slurp (io/file dir "report.html"))}))

(defn- title [html] (second (re-find #"<title>(.*?)</title>" html)))
(defn- h1 [html] (str/replace (second (re-find #"(?s)<h1[^>]*>(.*?)</h1>" html)) #"<[^>]+>" ""))

(deftest report-html-names-its-history
  (testing "a file: its name in the title and the heading"
    (let [{:keys [html]} (write-report (rw-lost-update) [:serializable] "/data/runs/aborted-read.edn")]
      (is (str/includes? (title html) "aborted-read.edn") (title html))
      (is (str/includes? (h1 html) "aborted-read.edn") (h1 html))
      (is (str/includes? (title html) "violated") "and the verdict")))
  (testing "a Jepsen store's history: the test's name and time too"
    (let [{:keys [html]} (write-report (rw-lost-update) [:serializable] "/x/store/mongo-append/20240101T120000.000Z/history.edn")]
      (doseq [part ["history.edn" "mongo-append" "20240101T120000.000Z"]]
        (is (str/includes? (title html) part) (title html))
        (is (str/includes? (h1 html) part) (h1 html)))))
  (testing "the command line passes the file it checked"
    (let [f (tu/tmp-file "write-skew.edn" tu/write-skew-edn)
          dir (str (tmp-dir) "/report")
          {:keys [status]} (tu/run-cli "check" "--out" dir f)
          html (slurp (io/file dir "report.html"))
          name (.getName (io/file f))]
      (is (= 1 status))
      (is (str/includes? (title html) name) (title html))
      (is (str/includes? (h1 html) name) (h1 html))
      (is (str/includes? html (str "input: <code>" f "</code>"))))))

(defn- dot-edges
  "The edges of a DOT text: [{:from :to :label :color :style}]."
  [dot]
  (for [[_ from to attrs] (re-seq #"(?m)^\s*(\S+) -> (\S+) \[(.*)\];$" dot)]
    {:from (str/replace from "\"" "") :to (str/replace to "\"" "")
     :label (second (re-find #"label=\"([^\"]*)\"" attrs))
     :color (second (re-find #"(?<!font)color=\"([^\"]*)\"" attrs))
     :style (second (re-find #"style=(\w+)" attrs))}))

(defn- kind-of [label] (first (str/split label #" ")))

(deftest every-edge-kind-has-one-colour-in-every-picture-and-the-legend
  (let [{:keys [dir html result]} (write-report (rw-lost-update) [:serializable :snapshot-isolation :tcc] "lu.edn")
        dots (for [^java.io.File f (.listFiles ^java.io.File dir) :when (str/ends-with? (.getName f) ".dot")] (slurp f))
        edges (mapcat dot-edges dots)
        legend (into {} (for [[_ k c] (re-seq #"data-kind=\"([^\"]+)\" data-color=\"([^\"]+)\"" html)] [k c]))
        timeline (for [[_ k c] (re-seq #"<g class=\"edge\" data-kind=\"([^\"]+)\"[^>]*>(?:<title>[^<]*</title>)?<path[^>]* stroke=\"([^\"]+)\"" html)]
                   [k c])]
    (is (contains? (:counterexamples result) :lost-update))
    (is (some #(= "rw" (kind-of (:label %))) (dot-edges (slurp (io/file dir "lost-update.dot"))))
        "the lost update's picture has its two rw steps")
    (is (seq edges))
    (doseq [[kind es] (group-by (comp kind-of :label) edges)]
      (testing kind
        (is (= 1 (count (set (map :color es)))) (str kind " is drawn in one colour: " (set (map :color es))))
        (is (= (legend kind) (:color (first es))) "the legend's colour")))
    (is (= (set (map #(.-label ^EdgeKind %) (EdgeKind/values))) (set (keys legend))) "the legend names every kind")
    (is (= (count legend) (count (set (vals legend)))) "no two kinds share a colour")
    (is (= "dashed" (:style (first (filter #(= "rw" (kind-of (:label %))) edges)))) "anti-dependencies dashed")
    (is (seq timeline) "the timelines draw the steps")
    (doseq [[k c] timeline]
      (is (= (legend k) c) (str "the timeline's " k " arrow in the legend's colour")))))

(deftest stats-are-a-table-with-the-full-map-folded
  (let [{:keys [html result]} (write-report (rw-lost-update) [:serializable] "lu.edn")
        table (second (re-find #"(?s)<table class=\"stats\">(.*?)</table>" html))]
    (is table "a table of key figures")
    (is (some->> table (re-find #"<td>transactions</td><td class=\"v\">4</td><td>ok 4, fail 0, info 0</td>")))
    (is (some->> table (re-find #"<td>processes \(sessions\)</td><td class=\"v\">4</td>")))
    (is (re-find #"(?s)<details><summary>[^<]*</summary><pre>\{:workload :wr, :txns 4" html) "every figure, folded")
    (is (not (re-find #"<h2>stats</h2><pre>" html)) "no raw EDN as the section")
    (is (= 4 (get-in result [:stats :txns])))))

(defn- g1c-timed
  "A G1c between processes 0 and 1, their ops at times (ns) ts (none when nil), :index 0..3."
  [ts]
  (mapv (fn [o i t] (cond-> (assoc o :index i) t (assoc :time t)))
        [{:type :invoke :process 0 :f :txn :value [[:append :a 1] [:r :b nil]]}
         {:type :invoke :process 1 :f :txn :value [[:append :b 1] [:r :a nil]]}
         {:type :ok :process 0 :f :txn :value [[:append :a 1] [:r :b [1]]]}
         {:type :ok :process 1 :f :txn :value [[:append :b 1] [:r :a [1]]]}]
        (range) (concat ts (repeat nil))))

(deftest timelines-place-transactions-by-time-when-it-tells-them-apart
  (let [timeline (fn [ops] (second (re-find #"(?s)(<svg[^>]*class=\"timeline\".*?</svg>)" (:html (write-report ops [:serializable] "t.edn")))))
        by (fn [svg] (some->> svg (re-find #"data-by=\"(\w+)\"") second))]
    (is (= "time" (by (timeline (g1c-timed [1000000 2000000 3000000 4000000])))) "distinct times: by :time")
    (is (= "position" (by (timeline (g1c-timed [0 0 0 0])))) "the same :time throughout: by position")
    (is (= "position" (by (timeline (g1c-timed [])))) "no :time: by position")
    (let [svg (str (timeline (g1c-timed [1000000 2000000 3000000 4000000])))]
      (is (= #{"0" "1"} (set (map second (re-seq #"class=\"lane\" data-process=\"([^\"]+)\"" svg)))) "a lane per process")
      (is (= #{["wr" "T2" "T3"] ["wr" "T3" "T2"]}
             (set (map rest (re-seq #"class=\"edge\" data-kind=\"(\w+)\" data-from=\"(\w+)\" data-to=\"(\w+)\"" svg))))
          "an arrow per step")
      (is (str/includes? svg "+0.002") "the axis in seconds from the first instant"))))

(deftest report-html-shows-one-fact-once
  (let [dir (str (tmp-dir) "/report")
        {:keys [status]} (tu/run-cli "check" "--out" dir "test/resources/corpus/jepsen-mongodb/aborted-read.edn")
        html (slurp (io/file dir "report.html"))
        sections (map second (re-seq #"<section class=\"anomaly\" id=\"([^\"]+)\"" html))]
    (is (= 1 status))
    (is (some #{"G1a"} sections))
    (is (not-any? #{"AbortedRead"} sections) "AbortedRead is G1a: no section of its own")
    (is (re-find #"<h2>G1a \(also: AbortedRead\)</h2>" html) "G1a's heading names it")
    (is (str/includes? html "<a href=\"#G1a\">G1a as AbortedRead</a>") "tcc's verdict links AbortedRead to G1a's section")
    (is (= sections (distinct sections)))
    (is (not (re-find #"(?i)axiom|Table I\b" html)) "no paper jargon in the page either (legend included)")
    (testing "sections most severe first: G1a before incompatible-order, Elle's before Plume's"
      (is (< (.indexOf ^java.util.List sections "G1a") (.indexOf ^java.util.List sections "incompatible-order"))))))
