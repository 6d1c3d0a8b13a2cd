(ns isocheck.online-spill-test
  "The History built during a run with its columns spilled to a file
  (HistoryBuilder.spillTo, the watch's :spill-history?): every column equal
  to the one built in the heap, over simulated histories of both workloads
  made awkward on purpose (:fail, :info and crashed processes, ops never
  completed, extra keys, nemesis ops, an :index breaking the rule), spanning
  many chunks; the file gone; an I/O failure an error naming it, and the
  watch's final check then reading the ops again, with the same result."
  (:require [clojure.test :refer [deftest is testing]]
            [isocheck.core :as isocheck]
            [isocheck.jepsen :as j]
            [isocheck.online :as online]
            [isocheck.test-util :as tu]
            [jepsen.checker])
  (:import (isocheck.history History History$Workload HistoryBuilder OpRecord OpSink)
           (isocheck.sim Bug SimConfig Simulator Store)
           (java.nio.channels FileChannel)
           (java.nio.file Files OpenOption Path StandardOpenOption)
           (java.nio.file.attribute FileAttribute)))

(defn- sim-ops
  "The op maps of one simulated history of workload wl (the interpreter's shape, processes
  retired after :info)."
  [wl {:keys [seed store bug txns sessions keys ops info-rate fail-rate max-writes]}]
  (let [cfg (cond-> (-> (SimConfig/builder) (.seed (long seed)) (.store store) (.workload wl)
                        (.txns (int txns)) (.sessions (int sessions)) (.keys (int keys)) (.opsPerTxn 1 (int ops))
                        (.infoRate (double info-rate)) (.failRate (double fail-rate)))
              max-writes (.maxWritesPerKey (int max-writes))
              bug (-> (.bug ^Bug bug) (.bugRate 0.1))
              true .build)
        out (java.util.ArrayList.)]
    (Simulator/run cfg (reify OpSink
                         (op [_ r]
                           (.add out {:index (.index r), :time (.time r), :type (keyword (isocheck.history.Kw/nameOf (.typeRaw r)))
                                      :process (.process r), :f :txn
                                      :value (mapv (fn [i] (let [i (int i), v (.value r i)]
                                                             [(keyword (isocheck.history.Kw/nameOf (.fRaw r i))) (.key r i)
                                                              (if (instance? java.util.List v) (vec v) v)]))
                                                   (range (.mopCount r)))}))
                         (end [_])))
    (vec out)))

(defn- awkward
  "ops made awkward: extra keys (an :error on each :fail, a :txn-id on every seventh op), a
  nemesis op every 50, the :index with gaps from the middle on (breaking the rule: not the op's
  position) or absent on the first third, and the last few completions cut (never completed)."
  [ops variant]
  (let [n   (count ops)
        ;; the last op of three processes, when it is a completion: its invocation never completes
        last (vals (reduce (fn [m i] (assoc m (:process (nth ops i)) i)) {} (range n)))
        cut (set (take 3 (filter #(not= :invoke (:type (nth ops %))) (sort last))))
        ops (->> ops
                 (keep-indexed (fn [i op] (when-not (cut i) op)))
                 (map-indexed (fn [i op]
                                (cond-> op
                                  (= :fail (:type op)) (assoc :error [:aborted i])
                                  (zero? (mod i 7)) (assoc :txn-id (str "t" i)))))
                 (mapcat (fn [op] (if (zero? (mod (:index op) 50))
                                    [{:type :info, :process :nemesis, :f :kill, :value nil} op]
                                    [op]))))]
    (vec (map-indexed (fn [i op]
                        (case variant
                          :positions (assoc op :index i)
                          :gaps (assoc op :index (if (< i (quot n 2)) i (* 2 i)))
                          :absent-first (if (< i (quot n 3)) (dissoc op :index) (assoc op :index i))))
                      ops))))

(defn- build
  "The History of ops, its builder spilling with the chunk given (or not: nil), and the builder."
  [ops chunk ^Path dir]
  (let [b (HistoryBuilder. nil "txn")
        _ (when chunk (.spillTo b dir (int chunk)))
        r (OpRecord.)]
    (dorun (map-indexed (fn [i op] (.op b (j/fill! r i op))) ops))
    [(.build b) b]))

(defn- columns
  "Every column of h, as data."
  [^History h]
  (let [nt (.nTxns h), nm (.mopCount h)
        txn (fn [f] (mapv #(f (int %)) (range nt)))
        mop (fn [f] (mapv #(f (int %)) (range nm)))]
    {:workload (.workload h), :n nt, :mops nm, :index-usable (.indexUsable h)
     :seen [(.opsSeen h) (.opsSkipped h) (.nonClientOps h) (.noTxnReason h)]
     :keys (mapv #(.key h (int %)) (range (.keyCount h)))
     :values (mapv #(.value h (int %)) (range (.valueCount h)))
     :status (txn #(.status h %)), :session (txn #(.session h %)), :process (txn #(.process h %))
     :sessions (.sessionCount h)
     :invoke-ord (txn #(.invokeOrdinal h %)), :complete-ord (txn #(.completeOrdinal h %))
     :invoke-index (txn #(.invokeIndex h %)), :complete-index (txn #(.completeIndex h %))
     :invoke-time (txn #(.invokeTime h %)), :complete-time (txn #(.completeTime h %))
     :extras (txn #(vec (.extras h %))), :mop-start (txn #(.mopStart h %)), :mop-end (txn #(.mopEnd h %))
     :kind (mop #(.mopKind h %)), :key (mop #(.mopKey h %)), :val (mop #(.mopVal h %)), :len (mop #(.mopLen h %))
     :txn (mop #(.mopTxn h %)), :nil-read (mop #(.recordedNil h %))
     :elems (mop #(when (pos? (.mopLen h %)) (mapv (fn [j] (.listElem h % (int j))) (range (.mopLen h %)))))
     :writer (mop #(if (= OpRecord/READ (.mopKind h %))
                     (when (and (neg? (.mopLen h %)) (not= History/NIL (.mopVal h %))) (.writerMop h (.mopKey h %) (.mopVal h %)))
                     (.writerMop h (.mopKey h %) (.mopVal h %))))
     :pool (let [p (.listPool h), used (reduce max 0 (map #(if (pos? (.mopLen h (int %))) (+ (.mopVal h (int %)) (.mopLen h (int %))) 0) (range nm)))]
             (vec (take used p)))
     :text (txn #(.txnStr h %))}))

(defn- temp-dir ^Path [] (Files/createTempDirectory "isocheck-spill-test" (make-array FileAttribute 0)))

(defn- files [^Path dir] (with-open [s (Files/list dir)] (vec (iterator-seq (.iterator s)))))

(deftest the-spilled-history-equals-the-one-built-in-the-heap
  (let [dir (temp-dir)]
    (doseq [[i wl] (map-indexed vector (for [_ (range 3), wl [History$Workload/APPEND History$Workload/REGISTER]] wl))
            :let [variant ([:positions :gaps :absent-first] (mod (quot i 2) 3))
                  bug? (odd? (quot i 2))
                  cfg {:seed (+ 4100 i), :store (if bug? Store/SNAPSHOT_ISOLATION Store/STRICT_SERIALIZABLE)
                       :bug (when bug? (if (= wl History$Workload/APPEND) Bug/LONG_FORK Bug/CAUSALITY_VIOLATION))
                       :txns 700, :sessions (nth [3 6 10] (mod i 3)), :keys (nth [6 40] (mod i 2)), :ops 5
                       :info-rate 0.04, :fail-rate 0.05, :max-writes (when (even? (quot i 2)) 8)}
                  ops (awkward (sim-ops wl cfg) variant)
                  [heap] (build ops nil dir)
                  want (columns heap)]]
      (is (some #(= :info (:type %)) ops))
      (is (some #(= :fail (:type %)) ops))
      (is (some #(seq (.extras heap (int %))) (range (.nTxns heap))) "extras kept")
      (is (some #(= -1 (.completeOrdinal heap (int %))) (range (.nTxns heap))) "some never completed")
      (doseq [chunk [2 7 32]]
        (let [[spilled ^HistoryBuilder b] (build ops chunk dir)]
          (is (< (* 10 chunk) (.nTxns spilled)) "many chunks")
          (is (pos? (.spilledBytes b)) "it spilled")
          (is (not (.spilling b)) "read back")
          (is (= want (columns spilled)) (str wl " " variant " chunk " chunk " " cfg))
          (is (= [] (files dir)) "no file left")))
      (testing "the same result map"
        (let [[spilled] (build ops 7 dir)
              check #(dissoc (second (isocheck/check-history {:counterexample-time-limit 3600 :levels [:serializable :snapshot-isolation :rc]} %)) :stats)]
          (is (= (check heap) (check spilled))))))
    (Files/delete dir)))

(deftest the-spill-file-is-gone
  (let [dir (temp-dir)
        ops (awkward (sim-ops History$Workload/APPEND {:seed 5, :store Store/STRICT_SERIALIZABLE, :txns 300, :sessions 4
                                                       :keys 10, :ops 4, :info-rate 0.02, :fail-rate 0.05})
                     :positions)
        b (.spillTo (HistoryBuilder. nil "txn") dir (int 16))
        r (OpRecord.)]
    (dorun (map-indexed (fn [i op] (.op b (j/fill! r i op))) (take 300 ops)))
    (is (pos? (.spilledBytes b)))
    (is (nil? (.spillFile b)) "unlinked as soon as made (on a system that allows it)")
    (is (= [] (files dir)))
    (testing "a builder not built releases its file"
      (.close b)
      (is (thrown? IllegalStateException (dorun (map-indexed (fn [i op] (.op b (j/fill! r (+ 300 i) op))) (drop 300 ops))))))
    (Files/delete dir)))

(defn- dev-full ^FileChannel []
  (FileChannel/open (Path/of "/dev/full" (make-array String 0))
                    (into-array OpenOption [StandardOpenOption/READ StandardOpenOption/WRITE])))

(defn- failing-channel
  "A FileChannel over a temp file (deleted when closed) whose positional writes fail once
  more than limit bytes are written, and whose positional reads fail while @fail-reads."
  ^FileChannel [limit fail-reads]
  (let [f (Files/createTempFile "isocheck-spill-test" ".spill" (make-array FileAttribute 0))
        ch (FileChannel/open f (into-array OpenOption [StandardOpenOption/READ StandardOpenOption/WRITE StandardOpenOption/DELETE_ON_CLOSE]))
        written (atom 0)]
    (proxy [FileChannel] []
      (write
        ([^java.nio.ByteBuffer src pos]
         (when (> (swap! written + (.remaining src)) limit) (throw (java.io.IOException. "injected: the disk is full")))
         (.write ch src (long pos))))
      (read
        ([^java.nio.ByteBuffer dst pos]
         (when @fail-reads (throw (java.io.IOException. "injected: read error")))
         (.read ch dst (long pos))))
      (size [] (.size ch))
      (implCloseChannel [] (.close ch)))))

(deftest an-io-failure-says-so
  (let [ops (sim-ops History$Workload/APPEND {:seed 6, :store Store/STRICT_SERIALIZABLE, :txns 200, :sessions 4
                                              :keys 10, :ops 4, :info-rate 0.02, :fail-rate 0.05})
        r (OpRecord.)
        feed (fn [^HistoryBuilder b] (dorun (map-indexed (fn [i op] (.op b (j/fill! r i op))) ops)) (.build b))]
    (when (Files/isWritable (Path/of "/dev/full" (make-array String 0)))
      (testing "a full disk while writing"
        (let [e (is (thrown? java.io.UncheckedIOException (feed (.spillTo (HistoryBuilder. nil "txn") (dev-full) (int 8)))))]
          (is (re-find #"^isocheck: could not write to the channel given \(spilling the history being built\): .*No space left" (.getMessage ^Exception e))))))
    (testing "a write failing mid-run, on a channel that fails after 4 KB"
      (let [e (is (thrown? java.io.UncheckedIOException (feed (.spillTo (HistoryBuilder. nil "txn") (failing-channel 4096 (atom false)) (int 8)))))]
        (is (re-find #"^isocheck: could not write to the channel given \(spilling the history being built\): .*injected" (.getMessage ^Exception e)))))
    (testing "reading back failing"
      (let [fail (atom false)
            ch (failing-channel Long/MAX_VALUE fail)
            b (.spillTo (HistoryBuilder. nil "txn") ch (int 8))]
        (dorun (map-indexed (fn [i op] (.op b (j/fill! r i op))) ops))
        (is (pos? (.spilledBytes b)))
        (reset! fail true)
        (let [e (is (thrown? java.io.UncheckedIOException (.build b)))]
          (is (re-find #"could not read back the channel given .*injected" (.getMessage ^Exception e))))
        (is (not (.isOpen ch)) "closed")))
    (testing "no directory to make the file in"
      (let [f (Files/createTempFile "isocheck-spill-test" ".not-a-dir" (make-array FileAttribute 0))
            e (is (thrown? java.io.UncheckedIOException (.spillTo (HistoryBuilder. nil "txn") (.resolve f "sub") (int 8))))]
        (is (re-find #"could not make a spill file in .*not-a-dir/sub" (.getMessage ^Exception e)))
        (Files/delete f)))))

(defn- strip [m] (dissoc m :online :stats :report-dir))

(deftest the-watch-spills-and-the-final-check-is-the-same
  (let [checker (isocheck/checker {:counterexample-time-limit 3600 :levels [:serializable :snapshot-isolation :rc :ra]})
        dir (temp-dir)]
    (doseq [i (range 4)
            :let [wl (if (even? i) History$Workload/APPEND History$Workload/REGISTER)
                  ops (awkward (sim-ops wl {:seed (+ 4200 i), :store Store/SNAPSHOT_ISOLATION
                                            :bug (if (even? i) Bug/LONG_FORK Bug/CAUSALITY_VIOLATION)
                                            :txns 600, :sessions 5, :keys 20, :ops 4, :info-rate 0.03, :fail-rate 0.05
                                            :max-writes 16})
                               ([:positions :gaps] (mod (quot i 2) 2)))]]
      (testing "spilled in chunks of 8"
        (let [[m again] (tu/watched-final-check checker ops {:spill-dir (str dir), :spill-chunk 8})]
          (is (true? (get-in m [:online :history-prebuilt?])))
          (is (= (strip again) (strip m)))
          (is (= [] (files dir)))))
      (testing "the spill file failing mid-run: the final check reads the ops again, the same result"
        (with-redefs-fn {#'online/history-builder (fn [_ _] (.spillTo (HistoryBuilder. nil "txn") (failing-channel 4096 (atom false)) (int 8)))}
          #(let [[m again] (tu/watched-final-check checker ops {})]
             (is (false? (get-in m [:online :history-prebuilt?])))
             (is (= (strip again) (strip m))))))
      (testing "no directory for the file: the same"
        (let [f (Files/createTempFile "isocheck-spill-test" ".not-a-dir" (make-array FileAttribute 0))
              [m again] (tu/watched-final-check checker ops {:spill-dir (str f)})]
          (is (false? (get-in m [:online :history-prebuilt?])))
          (is (= (strip again) (strip m)))
          (Files/delete f))))
    (Files/delete dir)))

(deftest values-unique-across-keys-index-writes-in-a-hash-map
  ;; Each value made unique across keys (as Cobra's write ids are): the keys' values do not fill
  ;; a dense table, so the writes are indexed at build by the hash map; the same History.
  (let [dir (temp-dir)]
    (doseq [wl [History$Workload/APPEND History$Workload/REGISTER]]
      (let [ops (awkward (sim-ops wl {:seed 77, :store Store/SNAPSHOT_ISOLATION, :txns 3000, :sessions 8, :keys 300, :ops 4
                                      :info-rate 0.02, :fail-rate 0.05})
                         :positions)
            wide (fn [k v] (+ (* 1000003 (long v)) (long k)))
            ops (mapv (fn [op]
                        (cond-> op
                          (vector? (:value op))
                          (update :value (fn [mops] (mapv (fn [[f k v]]
                                                            [f k (cond (nil? v) nil
                                                                       (sequential? v) (mapv #(wide k %) v)
                                                                       :else (wide k v))])
                                                          mops)))))
                      ops)
            [heap] (build ops nil dir)
            [spilled] (build ops 64 dir)]
        (is (< 1000 (.valueCount heap)))
        (is (not (isocheck.util.PairIntMap/denseSuits 5000 (.keyCount heap) (.valueCount heap))) "not dense")
        (is (= (columns heap) (columns spilled)) (str wl))
        (is (= [] (files dir)))))
    (Files/delete dir)))

(deftest a-value-written-twice-is-found-when-the-spilled-history-is-built
  (let [dir (temp-dir)
        ops (vec (map-indexed (fn [i [p t v]] {:index i, :process p, :type t, :f :txn, :value v})
                              (concat (for [i (range 40), t [:invoke :ok]] [(mod i 3) t [[:append (mod i 5) (inc (quot i 5))]]])
                                      [[0 :invoke [[:append 2 3]]] [0 :ok [[:append 2 3]]]])))
        r (OpRecord.)]
    (testing "dense and hash-map indexes alike"
      (doseq [ops [ops (mapv #(update % :value (fn [m] (mapv (fn [[f k v]] [f k (+ v (* 1000 k))]) m))) ops)]]
        (let [b (.spillTo (HistoryBuilder. nil "txn") dir (int 4))]
          (dorun (map-indexed (fn [i op] (.op b (j/fill! r i op))) ops))
          (is (thrown? isocheck.history.HistoryBuilder$ReadAgain (.build b)))
          (is (= [] (files dir))))
        (is (thrown-with-msg? isocheck.history.HistoryException #"op 81 .*appends (3|2003) to key 2, which op 25 appended too"
                              (build ops nil dir)))))
    (Files/delete dir)))
