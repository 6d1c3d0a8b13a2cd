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
            [isocheck.jepsen :as j])
  (:import (isocheck.report Anomaly AnomalySet Dot ReportFiles)
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
