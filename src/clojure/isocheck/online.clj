(ns isocheck.online
  "Online checking: isocheck watches a Jepsen run as it goes and reports a
  violation within moments of the completion that makes it certain, instead
  of minutes after the test ends. The one-line change to a Jepsen test:

      (require '[isocheck.online :as online])

      {:generator (online/watch (gen/phases ...) {:levels [:serializable :snapshot-isolation]})
       :checker   (isocheck/checker {:levels [:serializable :snapshot-isolation]})} ; as before

  `watch` wraps the test's whole generator (outermost, so that it sees every
  event: Jepsen's interpreter calls the generator's `update` with each
  invocation and completion) and hands each transaction event to a checker
  running on a thread of its own, so the interpreter only pays for putting
  the event on a queue. Nothing changes in the client. Each violation is
  logged through clojure.tools.logging (when on the classpath, as inside
  Jepsen) as it is found, with its counterexample and the :index of the
  completion that made it certain.

  At the end, any isocheck checker of the same test (isocheck.core/checker,
  a workload's :checker) checks the whole history as before, and adds
  :online to its result map:

      {:levels-checked [:serializable :snapshot-isolation]
       :complete?  true  ; false: some event needed a transaction the window had dropped
                         ; (then :incomplete-from-event, :incomplete-because)
       :levels     {:serializable {:valid? false, :first {...}} ...}
       :violations [{:anomaly :G-single-item, :levels [:serializable],
                     :certain-at-event 1234, :certain-at-index 1234,
                     :certain-at-time 5678901234, :latency-ms 0.4,
                     :txns [1200 1234], :steps [:rw :wr],
                     :explanation \"a cycle T1200 -rw 3-> T1234 -wr 5-> T1200 ...\"} ...]
       :anomaly-counts {:G-single-item 3}
       :agrees-with-offline? true
       :stats {:events .. :txns .. :committed .. :edges {..}}}

  Options of `watch`:

      :levels               levels to check online (default: the serializable
                            and snapshot-isolation families of isocheck.core,
                            session and realtime variants included); it also
                            decides the weak levels :rc, :ra and :tcc when
                            named; others are ignored here and decided by the
                            final checker
      :abort-on-violation?  stop the test at the first certain violation: the
                            generator then answers nil (exhausted), so Jepsen
                            waits for the operations in flight and goes on to
                            check (default false)
      :f                    the :f of transaction ops (default :txn)
      :max-anomalies        violations kept (and logged) per anomaly type
                            (default 16); all are counted
      :log?                 log violations (default true)
      :max-writes-per-key   the workload's (Jepsen's :max-writes-per-key, 32
                            in its list-append workload): bounds the
                            checker's memory by a window of the transactions
                            that can still be in a new cycle (default: none,
                            every transaction is kept). A later event that
                            needs a dropped transaction (a very stale read, a
                            final read showing appends no read had shown)
                            sets :complete? false: the verdicts found stay
                            certain, the final check decides the rest
      :collect-at           with the window: look for what to drop once this
                            many transactions are held (default 4096, then
                            twice what the last look kept)
      :parallel?            check the weak levels (when named with strong
                            ones) on a thread of their own, beside the strong
                            levels' (default true: on two cores both run at
                            once; the verdicts are the same)
      :build-history?       build the final check's History on the checker's
                            thread as the events arrive, so that the final
                            check need not read the ops again (default true;
                            it holds what the final check would, during the
                            run; see `prebuilt-history`)
      :spill-history?       keep that History's columns out of the heap while
                            it is built, in a file (unlinked as soon as it is
                            made, where the system allows), read back when the
                            final check asks for it: the heap it takes then
                            stays flat over the run, beside the interned keys
                            and values (default true; false keeps them in the
                            heap). An I/O failure is logged and the final
                            check reads the ops again (same result, later)
      :spill-dir            the directory of that file (default
                            java.io.tmpdir)
      :spill-chunk          transactions (micro-ops, list elements) written
                            at a time (default 65536; small in tests)

  What is checked online: list-append histories, at the serializable levels
  (:serializable, :strong-session-serializable, :strict-serializable) and the
  snapshot-isolation ones (:snapshot-isolation,
  :strong-session-snapshot-isolation, :strong-snapshot-isolation, :gsi), by
  incremental cycle detection over the dependencies the reads prove so far
  (isocheck.online.OnlineChecker), and the pre-checks G1a, G1b, internal and
  incompatible-order; and, when named, read committed, read atomic and
  transactional causal consistency (:rc, :ra, :tcc: Plume's axioms, by the
  reads that contradict them, causal clocks and cycles of causal and version
  order, inside the same window: what no later event can need is dropped).
  rw-register histories are checked online for what no version order can
  explain (isocheck.online.RegisterOnline); the rest is left to the final
  check. A violation is reported only once no later operation could explain
  it away: an :info transaction counts as committed only once a
  read shows one of its appends. The final check may find more (what only a
  search over never-read appends finds); every violation found online, it
  finds too (:agrees-with-offline? says so).

  rw-register histories (the workload told by the first write or non-list
  read; isocheck.online.RegisterOnline): at the same levels, only what no
  version order could explain -- G1a, G1b, internal, future and (at the end)
  garbage reads, cycles of write-read with each level's session and realtime
  order, and for :rc, :ra and :tcc the commit order their axioms force from
  the reads (TCC's from each reader's causal past: isocheck.online.CausalClocks).
  :workload :rw-register; :rc, :ra and :tcc are exact there (Plume's theorems:
  those forced edges are all there is to them), :online-scope :exact, unless
  an event the engine cannot follow says otherwise (then :certain-facts). The
  strong levels' version order is the final check's search: they say
  :online-scope :certain-facts, and :complete? is false when one is checked
  (:incomplete-because says why).

  Without Jepsen (or in tests): `(online/online opts)` makes the checker,
  `(ingest! o op)` feeds it Jepsen op maps in history order, `(result o)`
  waits for it and returns the :online map."
  (:require [clojure.string :as str]
            [isocheck.jepsen :as j])
  (:import (isocheck.check Level)
           (isocheck.history HistoryBuilder HistoryException OpRecord)
           (isocheck.online OnlineChecker OnlineChecker$Listener Relay Relay$Sink Violation)
           (java.util.concurrent LinkedBlockingQueue TimeUnit)))

(set! *warn-on-reflection* true)

(def online-levels
  "The levels checked online, in isocheck.core's order."
  [:strict-serializable :strong-session-serializable :serializable
   :strong-snapshot-isolation :strong-session-snapshot-isolation :gsi :snapshot-isolation])

(defn- parse-level ^Level [l]
  (or (Level/parse (if (keyword? l) (name l) (str l)))
      (throw (IllegalArgumentException. (str "Unknown isolation level " (pr-str l) "; known: " (Level/knownNames))))))

(deftype Event [op ^long nanos])

(def ^:private stop (Event. nil 0))

(defrecord Online [^OnlineChecker checker ^LinkedBlockingQueue queue thread latencies error done result opts
                   builder ^java.util.ArrayList fed built])

(defn- in-history?
  "Whether Jepsen's interpreter puts this event in the history (not :sleep and :log ops)."
  [op]
  (let [t (get op :type)] (not (or (identical? t :sleep) (identical? t :log)))))


(def spill-chunk
  "Transactions (micro-ops, list elements) a spilling History builder writes at a time."
  HistoryBuilder/SPILL_CHUNK)

(defn- history-builder
  "The HistoryBuilder of the watch (:build-history?), spilling its columns to a file in
  :spill-dir (default java.io.tmpdir) unless :spill-history? is false; nil, logged, when the
  spill file cannot be made (the final check then reads the ops)."
  ^HistoryBuilder [opts log]
  (let [b (HistoryBuilder. nil (j/txn-f (:f opts)))]
    (if (false? (:spill-history? opts true))
      b
      (let [dir   (str (or (:spill-dir opts) (System/getProperty "java.io.tmpdir")))
            chunk (:spill-chunk opts spill-chunk)]
        (when-not (and (integer? chunk) (<= 2 chunk (bit-shift-left 1 24)))
          (throw (IllegalArgumentException. (str ":spill-chunk must be an integer from 2 to 2^24, got " (pr-str chunk)))))
        (try (.spillTo b (java.nio.file.Path/of dir (make-array String 0)) (int chunk))
             (catch java.io.UncheckedIOException e
               (when log (log (str "isocheck online: the final check will read the ops again: " (.getMessage e))))
               nil))))))

(defn- drop-builder!
  "Stops building the History during the run (bad input, which the final check reading the ops
  reports; or the spill file failing, logged) and releases its spill file."
  [builder ^Throwable t log]
  (when-let [^HistoryBuilder b @builder]
    (vreset! builder nil)
    (.close b)
    (when (and log (instance? java.io.UncheckedIOException t))
      (log (str "isocheck online: the final check will read the ops again: " (.getMessage t))))))

(defn online
  "An online checker with its own thread, fed by `ingest!` (or by a `watch`
  generator). Options as for `watch`."
  ([] (online {}))
  ([opts]
   (let [levels   (mapv parse-level (or (:levels opts) online-levels))
         _        (j/txn-f (:f opts))
         log      (when-not (false? (:log? opts)) (j/info-logger))
         lat      (java.util.ArrayList.)
         ;; Told on the checker's thread, or the weak levels' own (:parallel?): the latency is
         ;; from the arrival of the event that made v certain, which v carries.
         listener (reify OnlineChecker$Listener
                    (found [_ v]
                      (let [ms (/ (- (.detectedNanos v) (.arrivedNanos v)) 1e6)]
                        (locking lat (.add lat [v ms]))
                        (when log
                          (log (str "isocheck online: " (.anomaly v) " violates "
                                    (str/join ", " (map #(.id ^Level %) (.levels v)))
                                    ", certain at :index " (if (= OpRecord/ABSENT (.index v)) (str "? (event " (.event v) ")") (.index v))
                                    " (found " (format "%.1f" ms) " ms after that completion): "
                                    (.explanation v)))))))
         mwpk     (:max-writes-per-key opts 0)
         _        (when-not (and (integer? mwpk) (<= 0 mwpk Integer/MAX_VALUE))
                    (throw (IllegalArgumentException. (str ":max-writes-per-key must be a non-negative integer, got " (pr-str mwpk)))))
         checker  (OnlineChecker. levels (j/txn-f (:f opts)) (int (:max-anomalies opts 16)) listener (int mwpk))
         _        (when-let [g (:collect-at opts)] (.gcThreshold checker (int g)))
         parallel? (not (false? (:parallel? opts)))
         _        (when parallel? (.parallel checker true))
         queue    (LinkedBlockingQueue. 1048576)
         error    (atom nil)
         done     (promise)
         ;; The final check's History, built as the events arrive (HistoryBuilder fed the same
         ;; records, on a thread of its own with :parallel?, else this one), with the events fed
         ;; to it, for `prebuilt-history`.
         builder  (volatile! (when-not (false? (:build-history? opts)) (history-builder opts log)))
         fed      (java.util.ArrayList.)
         hpos     (long-array 1)
         brelay   (when (and parallel? @builder)
                    (Relay. (reify Relay$Sink
                              (op [_ r ordinal _]
                                (when-let [^HistoryBuilder b @builder]
                                  (try (set! (.ordinal r) ordinal)
                                       (.op b r)
                                       ;; Bad input: the final check reads the history and says so.
                                       (catch Throwable t (drop-builder! builder t log))))))
                            "isocheck online history"))
         ;; The checker's thread takes the events in batches (one lock per batch, not per
         ;; event) and converts each with isocheck.jepsen/fill! into one reusable record.
         t        (Thread.
                    ^Runnable
                    (fn []
                      (let [r     (OpRecord.)
                            batch (java.util.ArrayList. 4096)]
                        (loop [i 0]
                          (.add batch (.take queue))
                          (.drainTo queue batch 4095)
                          (let [n   (.size batch)
                                i'  (loop [j 0, i i]
                                      (if (< j n)
                                        (let [^Event e (.get batch j)]
                                          (if (identical? e stop)
                                            -1
                                            (do (when-not @error
                                                  (try (.op checker (j/fill! r i (.op e)) (.nanos e))
                                                       (catch Throwable t
                                                         (reset! error (str (.getSimpleName (class t)) ": " (.getMessage t)))
                                                         (when log (log (str "isocheck online: stopped checking: " @error))))))
                                                (if-let [^HistoryBuilder b @builder]
                                                  (let [op (.op e)]
                                                    (when (in-history? op)
                                                      (try (when @error (j/fill! r i op))
                                                           (let [ordinal (aget hpos 0)]
                                                             (aset hpos 0 (inc ordinal))
                                                             (.add fed op)
                                                             (if brelay
                                                               (.op ^Relay brelay r ordinal 0)
                                                               (do (set! (.ordinal r) ordinal)
                                                                   (.op b r))))
                                                           ;; Bad input: the final check reads the history and says so.
                                                           (catch Throwable t (drop-builder! builder t log) (.clear fed)))))
                                                  (when-not (.isEmpty fed) (.clear fed)))
                                                (recur (inc j) (inc i)))))
                                        i))]
                            (.clear batch)
                            ;; Waiting for more: the weak levels' thread gets what came (:parallel?).
                            (when (and (.isEmpty queue) (not @error))
                              (try (.flush checker)
                                   (catch Throwable t
                                     (reset! error (str (.getSimpleName (class t)) ": " (.getMessage t)))
                                     (when log (log (str "isocheck online: stopped checking: " @error))))))
                            (if (neg? (long i'))
                              (do (when brelay (try (.finish ^Relay brelay) (catch Throwable t (drop-builder! builder t log))))
                                  (deliver done true))
                              (recur (long i')))))))
                    "isocheck online checker")]
     (.setDaemon t true)
     (.start t)
     (map->Online {:checker checker, :queue queue, :thread t, :latencies lat, :error error,
                   :done done, :result (atom nil), :opts opts, :builder builder, :fed fed, :built (atom nil)}))))

(defn ingest!
  "Hands one Jepsen op (an invocation or completion, in history order) to the
  online checker; returns at once. Ops that are not transactions of client
  processes are skipped."
  [^Online o op]
  (.put ^LinkedBlockingQueue (:queue o) (Event. op (System/nanoTime))))

(defn violated?
  "Whether the online checker has found a violation so far."
  [^Online o]
  (.violated ^OnlineChecker (:checker o)))

(def ^:private kws
  ;; anomaly, step and level names -> keywords (a few dozen names, each interned once)
  (java.util.concurrent.ConcurrentHashMap.))

(defn- kw [^String s]
  (or (.get ^java.util.concurrent.ConcurrentHashMap kws s)
      (let [k (keyword s)] (.putIfAbsent ^java.util.concurrent.ConcurrentHashMap kws s k) k)))

(defn- ->clj-violation
  "(j/->clj (.toData v)) with :latency-ms, built directly: a run with many violations kept
  converts each at the end (9,000 of them took 0.1-0.3 s through toData and ->clj)."
  [^Violation v ms]
  (let [absent OpRecord/ABSENT]
    (-> (transient {})
        (assoc! :anomaly (kw (.anomaly v)))
        (assoc! :levels (mapv (fn [^Level l] (kw (.id l))) (.levels v)))
        (assoc! :certain-at-event (.event v))
        (cond-> (not= absent (.index v)) (assoc! :certain-at-index (.index v)))
        (cond-> (not= absent (.time v)) (assoc! :certain-at-time (.time v)))
        (assoc! :txns (vec (.txns v)))
        (cond-> (pos? (alength ^objects (.steps v))) (assoc! :steps (mapv kw (.steps v))))
        (assoc! :explanation (.explanation v))
        (assoc! :latency-ms ms)
        persistent!)))

(defn result
  "Waits until the online checker has ingested every op handed to it, and
  returns the :online map (see the namespace docstring); the same map on
  every call."
  [^Online o]
  (or @(:result o)
      (locking o
        (or @(:result o)
            (do (.put ^LinkedBlockingQueue (:queue o) stop)
                (deref (:done o))
                (let [^OnlineChecker c (:checker o)
                      ;; The run is over: what is still in flight never completed.
                      _    (if @(:error o)
                             (try (.parallel c false) (catch Throwable _ nil)) ; ends the weak levels' thread
                             (.end c))
                      lats (locking (:latencies o) (vec (:latencies o)))
                      m    (j/->clj (.toData c false)) ; the violations converted below
                      ms   (into {} (map (fn [[^Violation v ms]] [v ms])) lats)
                      m    (assoc m :violations (mapv (fn [^Violation v] (->clj-violation v (ms v))) (.violations c)))
                      ;; :first is the level's first violation, with its latency too.
                      firsts (into {} (map (fn [[^Level l ^Violation v]] [(keyword (.id l)) (->clj-violation v (ms v))]))
                                   (.firstViolations c))
                      m    (update m :levels (fn [ls] (into {} (map (fn [[l v]] [l (cond-> v (firsts l) (assoc :first (firsts l)))])) ls)))
                      m    (cond-> m @(:error o) (assoc :error @(:error o)))]
                  (reset! (:result o) m)
                  m))))))

;; ---------------------------------------------------------------------------
;; Finding a test's online checker from its final checker

(defonce ^:private registry
  ;; [test name, start time] -> Online, for the final checker to find. The few most recent only.
  (atom {:order [], :by-key {}}))

(defn- test-key [test] [(:name test) (:start-time test)])

(defn- register! [test o]
  (when-let [k (some-> (test-key test) (as-> k (when (some some? k) k)))]
    (swap! registry (fn [{:keys [order by-key] :as r}]
                      (if (contains? by-key k)
                        r
                        (let [order (conj order k)
                              drop  (max 0 (- (count order) 8))]
                          {:order (subvec order drop)
                           :by-key (assoc (apply dissoc by-key (take drop order)) k o)}))))))

(defn for-test
  "The online checker that watched this test's run, or nil. A test is known
  by its :name and :start-time (jepsen.core/run! sets both), so a test map
  with neither has none."
  [test]
  (let [k (test-key test)]
    (when (some some? k)
      (get-in @registry [:by-key k]))))

(defn attach
  "The result map m of isocheck's final check of test, with :online added
  when a `watch` watched that test's run: the online result, and
  :agrees-with-offline? (every level violated online is violated in m).
  isocheck.core/check calls this."
  [test m]
  (if-let [o (for-test test)]
    (let [on    (result o)
          bad   (for [[l v] (:levels on)
                      :when (false? (:valid? v))
                      :when (not (false? (get-in m [:levels l :valid?])))
                      :when (contains? (:levels m) l)]
                  l)]
      (assoc m :online (cond-> (assoc on :agrees-with-offline? (empty? bad)
                                      :history-prebuilt? (boolean (second @(:built o))))
                         (seq bad) (assoc :disagreements (vec bad)))))
    m))

;; ---------------------------------------------------------------------------
;; The final check's history, built during the run

(defn prebuilt-history
  "The History of ops for the final check of test, built by the online
  checker's thread as the run went (so the final check need not read the ops
  again), or nil: when no watch with :build-history? (the default) watched
  test, when the final check forces a workload (wl) or names another
  transaction :f than the watch, or when ops are not exactly the events the
  watch saw (each the identical object, in the same order, :sleep and :log
  events aside: what Jepsen's interpreter hands the generator and puts in the
  history). Then the History is the one isocheck.jepsen/->history would build
  from ops. Waits for the online checker to finish (see `result`).
  isocheck.core/check calls this."
  [test ops wl f]
  (when-let [^Online o (for-test test)]
    (when (and (nil? wl) (= (j/txn-f f) (j/txn-f (:f (:opts o)))) (counted? ops) (instance? Iterable ops))
      (result o)
      (locking o
        (let [[seen h] @(:built o)]
          (if (identical? seen ops)
            h
            (when-let [^HistoryBuilder b @(:builder o)]
              (let [^java.util.ArrayList fed (:fed o)
                    n (.size fed)]
                (when (and (== n (count ops))
                           ;; (two iterators in one loop: 2 x 10^6 events in a few ms)
                           (let [it (.iterator fed), ot (.iterator ^Iterable ops)]
                             (loop []
                               (cond (not (.hasNext it)) (not (.hasNext ot))
                                     (not (.hasNext ot)) false
                                     (identical? (.next it) (.next ot)) (recur)
                                     :else false))))
                  (let [h (try (.build b)
                               ;; Bad input (a value written twice: found when the spilled History
                               ;; is built), or the spill file failing: the final check reads the ops.
                               (catch HistoryException _ nil)
                               (catch isocheck.history.HistoryBuilder$ReadAgain _ nil)
                               (catch java.io.UncheckedIOException e
                                 (when-let [log (when-not (false? (:log? (:opts o))) (j/info-logger))]
                                   (log (str "isocheck online: the final check reads the ops again: " (.getMessage e))))
                                 nil)
                               (finally (.close b)))]
                    (vreset! (:builder o) nil)
                    (.clear fed)
                    (reset! (:built o) [ops h])
                    h))))))))))

;; ---------------------------------------------------------------------------
;; The generator

(def ^:private jepsen-gen
  (delay {:op     @(requiring-resolve 'jepsen.generator/op)
          :update @(requiring-resolve 'jepsen.generator/update)}))

(deftype Watch [gen ^Online online abort? registered])

(defmethod print-method Watch [^Watch w ^java.io.Writer out]
  (.write out "(isocheck.online/watch ")
  (print-method (.gen w) out)
  (.write out ")"))

(defn- ensure-registered! [^Watch w test]
  (let [^clojure.lang.Volatile reg (.registered w)]
    (when-not @reg
      (vreset! reg true)
      (register! test (.online w)))))

(defn- watch-op [^Watch w test ctx]
  (ensure-registered! w test)
  (when-not (and (.abort? w) (violated? (.online w)))
    (when-let [[o gen'] ((:op @jepsen-gen) (.gen w) test ctx)]
      [o (Watch. gen' (.online w) (.abort? w) (.registered w))])))

(defn- watch-update [^Watch w test ctx event]
  (ensure-registered! w test)
  (ingest! (.online w) event)
  (Watch. ((:update @jepsen-gen) (.gen w) test ctx event) (.online w) (.abort? w) (.registered w)))

(j/extend-softly! 'jepsen.generator/Generator Watch {:op watch-op, :update watch-update})

(defn watch
  "A Jepsen generator that behaves as gen and hands every invocation and
  completion the interpreter reports to an online checker (see the namespace
  docstring for the options). Wrap the test's whole generator, so that every
  event reaches it: combinators such as gen/phases update only their current
  part."
  ([gen] (watch gen {}))
  ([gen opts]
   (Watch. gen (online opts) (boolean (:abort-on-violation? opts)) (volatile! false))))

(defn watched
  "The Online checker of a `watch` generator."
  [^Watch w]
  (.online w))
