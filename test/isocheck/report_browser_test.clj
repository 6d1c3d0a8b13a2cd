(ns isocheck.report-browser-test
  "report.html of real violations, opened in headless Chromium (Debian's
  `chromium`, which .ci/run installs) at 1280 and 900 px: a test-only script
  added to a copy of the page measures its layout and writes the facts into
  the DOM, which `chromium --dump-dom` prints. Asserted: nothing overflows
  sideways; each counterexample has its table of transactions, its
  explanation and its picture, within the page's width and the picture
  legible; long reads are shown around the elements that matter with a count
  of the rest; transactions are named by their op's :index; keys of the
  user's own on an op (a database's transaction id) are shown beside it.

  Three histories, each through another way in: list-append with reads of
  hundreds of elements and a G2-item (Clojure ops); an rw-register long fork
  from the simulated snapshot-isolation store, found by the version-order
  search, its ops renumbered as a filtered Jepsen history would be and
  carrying :txn-id and :node (an EDN file); an aborted read and a G1c whose
  ops carry \"txn-id\" and an \"error\" (a JSON file)."
  (:require [clojure.edn :as edn]
            [clojure.java.io :as io]
            [clojure.string :as str]
            [clojure.test :refer [deftest is testing]]
            [isocheck.core :as ic]
            [isocheck.jepsen :as j])
  (:import (isocheck.history History History$Workload HistoryBuilder Kw OpRecord OpSink)
           (isocheck.io EdnReader EdnWriter JsonReader)
           (isocheck.report Graphviz ReportFiles)
           (isocheck.sim Bug SimConfig SimConfig$KeyDist Simulator Store)
           (java.io File)
           (java.util.concurrent TimeUnit)))

(set! *warn-on-reflection* true)

;; ------------------------------------------------------------------ Chromium

(def ^:private widths [1280 900])

(defn- chromium
  "The path of Debian's chromium (or a chromium-browser) on PATH, or nil."
  []
  (first (for [dir (str/split (or (System/getenv "PATH") "") #":")
               exe ["chromium" "chromium-browser"]
               :let [f (io/file dir exe)]
               :when (and (.isFile f) (.canExecute f))]
           (.getPath f))))

(defn- tmp-dir ^File [prefix]
  (let [d (io/file (System/getProperty "java.io.tmpdir") (str prefix (System/nanoTime)))]
    (.mkdirs d)
    d))

(defn- delete-tree [^File f]
  (when (.isDirectory f) (run! delete-tree (.listFiles f)))
  (.delete f))

(def ^:private probe
  "Measures the page and writes what it found as EDN into <pre id=layout-facts>."
  "<script>
(function () {
  function edn(v) {
    if (v === null || v === undefined) return 'nil';
    if (typeof v === 'number') return isFinite(v) ? String(v) : 'nil';
    if (typeof v === 'boolean') return String(v);
    if (typeof v === 'string') return JSON.stringify(v);
    if (Array.isArray(v)) return '[' + v.map(edn).join(' ') + ']';
    return '{' + Object.keys(v).map(function (k) { return ':' + k + ' ' + edn(v[k]); }).join(', ') + '}';
  }
  function box(e) {
    if (!e) return null;
    var r = e.getBoundingClientRect(), s = getComputedStyle(e);
    return {left: r.left, right: r.right, width: r.width, height: r.height,
            'scroll-width': e.scrollWidth, 'client-width': e.clientWidth,
            visible: s.display !== 'none' && s.visibility !== 'hidden' && r.width > 0 && r.height > 0,
            text: e.textContent};
  }
  var de = document.documentElement;
  var facts = {'inner-width': window.innerWidth, 'client-width': de.clientWidth,
               'scroll-width': de.scrollWidth, 'body-scroll-width': document.body.scrollWidth,
               levels: box(document.querySelector('table.levels')), anomalies: []};
  facts['level-rows'] = Array.prototype.map.call(document.querySelectorAll('table.levels tr'), function (tr) {
    return Array.prototype.map.call(tr.cells, function (c) { return c.textContent; });
  });
  document.querySelectorAll('section.anomaly').forEach(function (s) {
    var t = s.querySelector('table.txns'), svg = s.querySelector('.pic svg');
    var a = {type: s.querySelector('h2').textContent, section: box(s), txns: box(t),
             explanation: box(s.querySelector('pre.explanation')), pic: box(s.querySelector('.pic')),
             svg: box(svg), 'svg-natural-width': svg ? svg.width.baseVal.value : null};
    if (t) {
      a.header = Array.prototype.map.call(t.rows[0].cells, function (c) { return c.textContent; });
      a.rows = Array.prototype.slice.call(t.rows, 1).map(function (tr) {
        return Array.prototype.map.call(tr.cells, box);
      });
    }
    a['svg-texts'] = svg ? Array.prototype.map.call(svg.querySelectorAll('text'), box) : [];
    a.id = s.id;
    a['back-links'] = s.querySelectorAll('a[href=\"#top\"]').length;
    var tl = s.querySelector('svg.timeline');
    a.timeline = box(tl);
    if (tl) {
      a['timeline-lanes'] = Array.prototype.map.call(tl.querySelectorAll('g.lane'), function (g) { return g.getAttribute('data-process'); });
      a['timeline-bars'] = Array.prototype.map.call(tl.querySelectorAll('g.txn'), function (g) {
        var r = g.querySelector('rect.bar').getBoundingClientRect();
        return {txn: g.getAttribute('data-txn'), top: r.top, bottom: r.bottom, width: r.width};
      });
      a['timeline-lane-boxes'] = Array.prototype.map.call(tl.querySelectorAll('g.lane'), function (g) {
        var r = g.querySelector('rect').getBoundingClientRect();
        return {process: g.getAttribute('data-process'), top: r.top, bottom: r.bottom};
      });
      a['timeline-edges'] = Array.prototype.map.call(tl.querySelectorAll('g.edge'), function (g) {
        var path = g.querySelector('path');
        return {kind: g.getAttribute('data-kind'), from: g.getAttribute('data-from'), to: g.getAttribute('data-to'),
                stroke: path.getAttribute('stroke'), length: path.getTotalLength()};
      });
      a['timeline-texts'] = Array.prototype.map.call(tl.querySelectorAll('text'), box);
    }
    a['pic-edges'] = svg ? Array.prototype.map.call(svg.querySelectorAll('g.edge'), function (g) {
      var path = g.querySelector('path'), t = g.querySelector('text');
      return {stroke: path ? path.getAttribute('stroke') : null, label: t ? t.textContent : null};
    }) : [];
    facts.anomalies.push(a);
  });
  facts.title = document.title;
  facts.h1 = document.querySelector('h1') ? document.querySelector('h1').textContent : null;
  facts.links = Array.prototype.map.call(document.querySelectorAll('a[href^=\"#\"]'), function (l) {
    var id = decodeURIComponent(l.getAttribute('href').substring(1));
    return {href: l.getAttribute('href'), text: l.textContent, resolves: document.getElementById(id) !== null,
            toc: l.closest('nav.toc') !== null, verdicts: l.closest('table.levels') !== null};
  });
  facts.legend = Array.prototype.map.call(document.querySelectorAll('tr.edge-kind'), function (tr) {
    return {kind: tr.getAttribute('data-kind'), color: tr.getAttribute('data-color'), visible: box(tr).visible};
  });
  facts['top-id'] = document.getElementById('top') ? document.getElementById('top').tagName : null;
  var out = document.createElement('pre');
  out.id = 'layout-facts';
  out.textContent = edn(facts);
  document.body.appendChild(out);
})();
</script>")

(defn- unescape-html [s]
  (-> s (str/replace "&lt;" "<") (str/replace "&gt;" ">") (str/replace "&quot;" "\"") (str/replace "&nbsp;" "\u00a0")
      (str/replace "&amp;" "&")))

(defn- layout
  "Opens a copy of report.html with the probe in headless Chromium, the window
  width px wide, and returns the facts the probe wrote."
  [chrome ^File report width]
  (let [work (tmp-dir "isocheck-chromium-")
        page (io/file work "report.html")
        profile (io/file work "profile")
        html (slurp report)]
    (.mkdirs profile)
    (spit page (str/replace html "</body>" (str probe "</body>")))
    (try
      (let [p (-> (ProcessBuilder.
                    ^java.util.List
                    (vector chrome "--headless" "--no-sandbox" "--disable-gpu" "--disable-quic" "--no-first-run"
                     "--disable-background-networking" "--disable-component-update" "--disable-sync"
                     "--enable-logging=stderr" "--v=0"
                     (str "--user-data-dir=" (.getPath profile)) (str "--window-size=" width ",900")
                     "--dump-dom" (str (.toURI page))))
                  (.redirectError (io/file work "chromium.log"))
                  .start)
            out (future (slurp (.getInputStream p)))]
        (when-not (.waitFor p 120 TimeUnit/SECONDS)
          (.destroyForcibly p))
        (let [dom (deref out 10000 "")
              m (re-find #"(?s)<pre id=\"layout-facts\">(.*?)</pre>" dom)]
          (if m
            (assoc (edn/read-string (unescape-html (second m)))
                   :console (vec (filter #(str/includes? % ":CONSOLE") (str/split-lines (slurp (io/file work "chromium.log"))))))
            (throw (ex-info (str "Chromium printed no layout facts for " report " at " width " px; its log: "
                                 (let [l (slurp (io/file work "chromium.log"))] (subs l (max 0 (- (count l) 2000)))))
                            {})))))
      (finally (delete-tree work)))))

;; ------------------------------------------------------------------ histories

(defn- pair
  "An invocation and its :ok completion on process p; extra keys go on the completion."
  [p inv done & [extra]]
  [{:type :invoke :process p :f :txn :value inv}
   (merge {:type :ok :process p :f :txn :value done} extra)])

(defn- numbered
  "Numbers ops as a filtered Jepsen history keeps them: :index 100, 103, 106, ..."
  [ops]
  (vec (map-indexed (fn [i o] (assoc o :index (+ 100 (* 3 i)))) ops)))

(def ^:private long-reads
  "300 appends to :x and 250 to :z, one per transaction; then T_a reads all of :x
  and appends to :y, T_b reads all of :z and the empty :y and appends to :x; a
  final read shows both appends: a G2-item whose reads hold hundreds of elements."
  (numbered
    (concat (mapcat #(pair (mod % 5) [[:append :x %]] [[:append :x %]]) (range 1 301))
            (mapcat #(pair (mod % 5) [[:append :z %]] [[:append :z %]]) (range 1 251))
            (pair 7 [[:r :x nil] [:append :y 1]] [[:r :x (vec (range 1 301))] [:append :y 1]])
            (pair 8 [[:r :z nil] [:r :y nil] [:append :x 301]] [[:r :z (vec (range 1 251))] [:r :y []] [:append :x 301]])
            (pair 9 [[:r :x nil] [:r :y nil]] [[:r :x (vec (range 1 302))] [:r :y [1]]]))))

(defn- long-fork-edn
  "Writes an rw-register history of the simulated snapshot-isolation store with
  its long-fork bug (the demo's settings) to f, each op renumbered (:index
  1000 + 7 × position) and each completion carrying :txn-id and :node."
  [^File f]
  (let [w (EdnWriter/open (.toPath f))
        cfg (-> (SimConfig/builder) (.seed 42) (.store Store/SNAPSHOT_ISOLATION) (.workload History$Workload/REGISTER)
                (.txns 3000) (.sessions 10) (.keys 20) (.keyDist SimConfig$KeyDist/ZIPF) (.opsPerTxn 2 6)
                (.bug Bug/LONG_FORK) (.bugRate 0.2) .build)
        sink (reify OpSink
               (op [_ r]
                 (let [i (.index r)]
                   (set! (.index r) (+ 1000 (* 7 i)))
                   (when (pos? (.type r))
                     (.addExtra r (Kw. "txn-id") (+ 880000 i))
                     (.addExtra r (Kw. "node") (str "n" (inc (mod i 5))))))
                 (.op w r))
               (end [_] (.end w)))]
    (Simulator/run cfg sink)
    f))

(def ^:private aborted-read-json
  "A failed append of 1 to x that T_r read (G1a), and two transactions each
  reading the other's append (G1c); every completion has a \"txn-id\", the
  failed one an \"error\"."
  (str "[{\"index\":10,\"type\":\"invoke\",\"process\":0,\"f\":\"txn\",\"value\":[[\"append\",\"x\",1]]},\n"
       "{\"index\":11,\"type\":\"fail\",\"process\":0,\"f\":\"txn\",\"value\":[[\"append\",\"x\",1]],\"txn-id\":51234,\"error\":\"serialization failure\"},\n"
       "{\"index\":12,\"type\":\"invoke\",\"process\":1,\"f\":\"txn\",\"value\":[[\"r\",\"x\",null]]},\n"
       "{\"index\":13,\"type\":\"ok\",\"process\":1,\"f\":\"txn\",\"value\":[[\"r\",\"x\",[1]]],\"txn-id\":51240},\n"
       "{\"index\":20,\"type\":\"invoke\",\"process\":2,\"f\":\"txn\",\"value\":[[\"append\",\"a\",1],[\"r\",\"b\",null]]},\n"
       "{\"index\":21,\"type\":\"invoke\",\"process\":3,\"f\":\"txn\",\"value\":[[\"append\",\"b\",1],[\"r\",\"a\",null]]},\n"
       "{\"index\":22,\"type\":\"ok\",\"process\":2,\"f\":\"txn\",\"value\":[[\"append\",\"a\",1],[\"r\",\"b\",[1]]],\"txn-id\":51300},\n"
       "{\"index\":23,\"type\":\"ok\",\"process\":3,\"f\":\"txn\",\"value\":[[\"append\",\"b\",1],[\"r\",\"a\",[1]]],\"txn-id\":51301}]\n"))

(defn- read-file ^History [reader ^File f]
  (let [b (HistoryBuilder. nil)]
    (case reader
      :edn (EdnReader/read (.toPath f) b)
      :json (JsonReader/read (.toPath f) b))
    (.build b)))

(defn- report!
  "Checks h at levels, writes its report into a new directory; returns
  {:dir :html :result} (the result map)."
  [^History h levels source]
  (let [[r m] (ic/check-history {:levels levels} h)
        dir (tmp-dir "isocheck-report-browser-")]
    (ReportFiles/write (.toPath dir) r source)
    {:dir dir :html (io/file dir "report.html") :result m :source source}))

;; ------------------------------------------------------------------ assertions

(def ^:private min-scale
  "The least a picture may be scaled down to fit the page: its 10 pt labels
  stay at least 8 px tall."
  0.6)

(defn- cx-indices
  "The :index of every op a counterexample names."
  [cx]
  (set (map :index (concat (:cycle cx) (:ops cx) (keep cx [:op :writer])))))

(defn- within? [{:keys [left right]} width]
  (and (>= left -0.5) (<= right (+ width 0.5))))

(def ^:private edge-kinds #{"wr" "ww" "rw" "process" "realtime" "cm" "intra"})

(defn- cx-arrows
  "The arrows a counterexample's timeline must draw, as #{[kind from to]}: a step per pair of
  consecutive transactions of its cycle; for a read of a failed write, the write → read step."
  [cx]
  (cond
    (:cycle cx) (set (map (fn [[a b] st] [(name (:type st)) (str "T" (:index a)) (str "T" (:index b))])
                          (partition 2 1 (:cycle cx)) (:steps cx)))
    (:writer cx) #{["wr" (str "T" (:index (:writer cx))) (str "T" (:index (:op cx)))]}
    :else #{}))

(defn- cx-processes
  "The processes of a counterexample's ops, as the timeline's lanes name them."
  [cx]
  (set (map (comp pr-str :process) (concat (:cycle cx) (:ops cx) (keep cx [:op :writer])))))

(defn- check-page
  "The page's name, navigation, legend, timelines and console, at one width."
  [f {:keys [result source]} w]
  (let [legend (into {} (map (juxt :kind :color)) (:legend f))
        file-name (.getName (io/file (str source)))]
    (testing "the page names its history"
      (is (str/includes? (:title f) file-name) (:title f))
      (is (str/includes? (:h1 f) file-name) (:h1 f)))
    (is (empty? (:console f)) (str "no console messages: " (:console f)))
    (testing "navigation"
      (is (every? :resolves (:links f)) (str "every link leads to an anchor; not: " (remove :resolves (:links f))))
      (is (some? (:top-id f)) "the top has an anchor")
      (let [toc (set (map :href (filter :toc (:links f))))
            verdict-links (filter :verdicts (:links f))
            section-of (into {} (map (juxt :type :id)) (:anomalies f))]
        (is (every? #(contains? toc (str "#" (:id %))) (:anomalies f)) "the contents link every section")
        (is (= (set (map name (mapcat :anomaly-types (vals (:levels result)))))
               (set (map :text verdict-links)))
            "each anomaly the verdict table names is a link")
        (doseq [l verdict-links]
          (is (= (str "#" (section-of (:text l))) (:href l)) (str (:text l) " links to its own section")))
        (doseq [a (:anomalies f)]
          (is (pos? (:back-links a)) (str (:type a) " has a way back to the top")))))
    (testing "legend"
      (is (= edge-kinds (set (keys legend))) "every kind of arrow")
      (is (every? :visible (:legend f)))
      (is (= (count legend) (count (set (vals legend)))) "a colour per kind"))
    (doseq [a (:anomalies f)
            :let [cx (get-in result [:counterexamples (keyword (:type a))])]]
      (testing (str (:type a) " timeline")
        (is (get-in a [:timeline :visible]) "each counterexample has a timeline")
        (is (some-> (:timeline a) (within? w)) "within the page's width")
        (is (every? #(within? % w) (:timeline-texts a)) "its labels too")
        (is (= (cx-processes cx) (set (:timeline-lanes a))) "a lane per process involved")
        (is (= (count (:timeline-lanes a)) (count (distinct (:timeline-lanes a)))) "one lane per process")
        (is (= (set (map #(str "T" %) (cx-indices cx))) (set (map :txn (:timeline-bars a)))) "a bar per transaction")
        (let [lanes (into {} (map (juxt :process identity)) (:timeline-lane-boxes a))
              op-of (into {} (map (juxt #(str "T" (:index %)) identity)) (concat (:cycle cx) (:ops cx) (keep cx [:op :writer])))]
          (doseq [b (:timeline-bars a)
                  :let [lane (lanes (pr-str (:process (op-of (:txn b)))))]]
            (is (and lane (>= (:top b) (:top lane)) (<= (:bottom b) (:bottom lane)))
                (str (:txn b) " lies in its process's lane"))))
        (is (= (cx-arrows cx) (set (map (juxt :kind :from :to) (:timeline-edges a))))
            "an arrow per step of the counterexample, of its kind, between its transactions")
        (is (= (count (cx-arrows cx)) (count (:timeline-edges a))) "and no more")
        (doseq [e (:timeline-edges a)]
          (is (= (legend (:kind e)) (:stroke e)) (str (:kind e) " in the legend's colour"))
          (is (pos? (:length e)) "drawn")))
      (testing (str (:type a) " picture colours")
        (doseq [e (:pic-edges a)
                :let [k (some-> (:label e) (str/split #" ") first)]
                :when (edge-kinds k)]
          (is (= (legend k) (:stroke e)) (str "the picture's " k " arrow in the legend's colour")))))))

(defn- check-layout
  "What every report must show at every width. Returns the facts."
  [chrome label {:keys [html result] :as rep} width]
  (let [f (layout chrome html width)
        w (:client-width f)]
    (testing (str label " at " width " px")
      (is (<= (:scroll-width f) w) "no horizontal overflow: nothing to scroll sideways")
      (is (<= (:body-scroll-width f) w))
      (is (within? (:levels f) w) "the verdict table fits")
      (is (= (set (map name (keys (:levels result))))
             (set (map first (rest (:level-rows f)))))
          "the verdict table has a row per level")
      (is (= (set (map name (keys (:counterexamples result))))
             (set (map :type (:anomalies f))))
          "a section per counterexample in the result map")
      (doseq [a (:anomalies f)
              :let [cx (get-in result [:counterexamples (keyword (:type a))])]]
        (testing (:type a)
          (doseq [k [:section :txns :explanation :pic :svg]]
            (is (get-in a [k :visible]) (str (name k) " is shown"))
            (is (some-> (get a k) (within? w)) (str (name k) " lies within the page's width")))
          (is (<= (get-in a [:explanation :scroll-width]) (get-in a [:explanation :client-width]))
              "the explanation's lines wrap: it needs no scrolling of its own")
          (is (<= (get-in a [:pic :scroll-width]) (get-in a [:pic :client-width]))
              "the picture fits its box")
          (is (= (:explanation cx) (get-in a [:explanation :text])) "the explanation is the result map's")
          (is (>= (/ (get-in a [:svg :width]) (:svg-natural-width a)) min-scale)
              (str "the picture is legible, scaled by " (/ (get-in a [:svg :width]) (:svg-natural-width a))))
          (is (seq (:svg-texts a)))
          (is (every? #(within? % w) (:svg-texts a)) "every label of the picture is within the page")
          (let [names (set (for [row (:rows a)] (:text (first row))))
                cycle (set (map #(str "T" %) (cx-indices cx)))]
            (is (every? names cycle)
                "the transactions are named by the :index of their ops in the result map")
            (is (every? #(str/includes? (:explanation cx) %) (remove cycle names))
                "the table lists besides them only transactions the explanation names (a reader cited as evidence)"))
          (doseq [row (:rows a)]
            (is (every? #(within? % w) row) "every cell of the table is within the page")))))
    (check-page f rep w)
    f))

(defn- row
  "The table row of transaction name in anomaly a, as {column-header text}."
  [a name]
  (some (fn [r] (when (= name (:text (first r))) (zipmap (:header a) (map :text r)))) (:rows a)))

(defn- anomaly [f type] (some #(when (= type (:type %)) %) (:anomalies f)))

(defmacro ^:private with-chromium
  "Runs body with sym bound to Chromium's path; without Chromium (or graphviz),
  fails saying how to install it."
  [[sym] & body]
  `(do (is (Graphviz/available) "graphviz (dot) is missing: run bash .ci/run")
       (if-let [~sym (chromium)]
         (do ~@body)
         (is false "Chromium is missing: run bash .ci/run (it installs Debian's chromium)"))))

(deftest long-reads-and-a-cycle-read-well
  (with-chromium [chrome]
    (let [{:keys [html result] :as rep} (report! (j/->history long-reads) [:serializable :snapshot-isolation :rc] "long-reads.edn")
          cx (get-in result [:counterexamples :G2-item])
          [ta tb] (map :index (:cycle cx))]
      (is (= [:G2-item] (:anomaly-types result)))
      (is (< (.length ^File html) 40000) "the reads are not printed whole")
      (doseq [w widths]
        (let [f (check-layout chrome "list-append, long reads" rep w)
              a (anomaly f "G2-item")
              ra (row a (str "T" ta))
              rb (row a (str "T" tb))]
          (testing "the reads are shown up to where they end, with a count of the rest"
            (is (= "[:r :x [1 2 3 …291 more… 295 296 297 298 299 300]][:append :y 1]" (get ra "micro-ops")))
            (is (= "[:r :z [1 2 3 …241 more… 245 246 247 248 249 250]][:r :y []][:append :x 301]" (get rb "micro-ops")))
            (is (str/includes? (get-in a [:explanation :text])
                               (str "T" ta " read key :x as [1 2 3 …291 more… 295 296 297 298 299 300], which does not include T"
                                    tb "'s append of 301")))
            (is (some #(str/includes? (:text %) "[:r :x [1 2 3 …291 more… 295 296 297 298 299 300]]") (:svg-texts a))
                "the picture shows the same"))
          (is (= #{"transaction" "process" "type" "micro-ops"} (set (:header a)))
              "no column for other keys when no op has any"))))))

(deftest a-long-fork-found-by-the-search-with-database-ids
  (with-chromium [chrome]
    (let [file (long-fork-edn (doto (io/file (tmp-dir "isocheck-long-fork-") "store/long-fork/20260101T000000.000Z/history.edn")
                                (-> .getParentFile .mkdirs)))
          ops (into {} (map (juxt :index identity)) (map edn/read-string (str/split-lines (slurp file))))
          {:keys [result] :as rep} (report! (read-file :edn file) [:serializable :snapshot-isolation] (str file))
          cx (get-in result [:counterexamples :G-nonadjacent-item])]
      (is (some? cx) "the simulated long fork is found")
      ;; (Serializability's search finds it among the known edges; its shape rules out snapshot
      ;; isolation too, which is then not searched again.)
      (is (= :known-graph (get-in result [:stats :search :serializable :decided-by])) "by the version-order search")
      (is (= [:G-nonadjacent-item] (get-in result [:levels :snapshot-isolation :anomaly-types])))
      (doseq [w widths]
        (let [f (check-layout chrome "rw-register long fork" rep w)
              a (anomaly f "G-nonadjacent-item")]
          (is (str/includes? (:title f) "Jepsen test long-fork, 20260101T000000.000Z") "a Jepsen store's test and time")
          (is (= 4 (count (set (cx-indices cx)))))
          (is (<= 4 (count (:rows a))) "the cycle's four, and the readers its steps cite")
          (doseq [op (:cycle cx)
                  :let [n (str "T" (:index op)), r (row a n), file-op (ops (:index op))]]
            (testing n
              (is (= :ok (:type file-op)) "the name is the :index of the transaction's completion in the file")
              (is (= (apply str (map pr-str (:value file-op))) (get r "micro-ops")) "the row shows that op's micro-ops")
              (is (= (str ":txn-id " (:txn-id file-op) ", :node " (pr-str (:node file-op))) (get r "other keys of its op"))
                  "the database's transaction id is shown beside the name")
              (is (= (:txn-id file-op) (:txn-id op)) "and kept in the result map's op")
              (is (some #(= (str ":txn-id " (:txn-id file-op) ", :node " (pr-str (:node file-op))) (:text %))
                        (:svg-texts a))
                  "and in the picture's box"))))))))

(deftest an-aborted-read-and-a-cycle-with-ids-and-errors
  (with-chromium [chrome]
    (let [file (io/file (tmp-dir "isocheck-json-") "history.json")
          _ (spit file aborted-read-json)
          {:keys [result] :as rep} (report! (read-file :json file) [:serializable :snapshot-isolation] (str file))]
      (is (= #{:G1a :G1c} (set (:anomaly-types result))))
      (doseq [w widths]
        (let [f (check-layout chrome "aborted read" rep w)
              g1a (anomaly f "G1a")
              g1c (anomaly f "G1c")]
          (is (= ":txn-id 51234, :error \"serialization failure\"" (get (row g1a "T11") "other keys of its op")))
          (is (= "fail" (get (row g1a "T11") "type")))
          (is (= ":txn-id 51240" (get (row g1a "T13") "other keys of its op")))
          (is (= #{"T22" "T23"} (set (map (comp :text first) (:rows g1c)))))
          (is (= ":txn-id 51300" (get (row g1c "T22") "other keys of its op"))))))))

(deftest a-long-cycle-is-drawn-top-to-bottom
  ;; Twelve transactions in a G1c ring: side by side they would have to shrink to a
  ;; third of their size to fit; drawn top to bottom they keep theirs.
  (with-chromium [chrome]
    (let [n 12
          ring (vec (for [i (range n)]
                      {:index (* 2 i) :type :ok :process i :f :txn
                       :value [[:append (keyword (str "k" i)) 1] [:r (keyword (str "k" (mod (inc i) n))) [1]]]}))
          {:keys [dir] :as rep} (report! (j/->history ring) [:serializable] "ring")]
      (is (str/includes? (slurp (io/file dir "G1c.dot")) "rankdir=TB") "the picture's DOT file is the one shown")
      (doseq [w widths]
        (let [a (anomaly (check-layout chrome "12-transaction cycle" rep w) "G1c")]
          (is (= (set (map #(str "T" (* 2 %)) (range n))) (set (map (comp :text first) (:rows a))))))))))
