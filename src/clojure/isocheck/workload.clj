(ns isocheck.workload
  "Workloads the Jepsen way: a generator of transactions, a final generator
  that reads every key written, and isocheck's checker, in one map, as
  `jepsen.tests.cycle.append/test` gives Elle's.

      (require '[isocheck.workload :as workload])

      (let [w (workload/append {:key-count 10, :consistency-models [:serializable]})]
        (merge tests/noop-test
               {:client    my-client   ; runs {:f :txn, :value [[:append 3 2] [:r 3 nil]]}
                :checker   (:checker w)
                :generator (gen/phases
                             (->> (:generator w)
                                  (gen/stagger 1/100)
                                  (gen/nemesis my-nemesis-generator)
                                  (gen/time-limit 60))
                             (:final-generator w))}))

  (doc/jepsen.md is the guide, with a complete example test.)

  (workload/wr opts) is the same for rw-register ([:w k v] and [:r k nil]).

  Each returns {:generator :final-generator :checker}. The options are Elle's
  where Elle has them, with Elle's defaults, so a test switches from
  `(append/test opts)` to `(workload/append opts)` with the same map:

      :key-count           keys active at once (10 with :exponential, 3 with
                           :uniform)
      :min-txn-length      micro-ops per transaction, at least (1)
      :max-txn-length      micro-ops per transaction, at most (2, or
                           :min-txn-length when that is larger)
      :max-writes-per-key  writes a key gets before it retires (32)
      :key-dist            :exponential (default: active slot i is
                           key-dist-base^i times as likely as slot 0) or
                           :uniform
      :key-dist-base       base of the exponential distribution (2)
      :consistency-models  levels the checker decides ([:strict-serializable]),
                           in Elle's names: :strict-serializable
                           (:strong-serializable, :PL-SS), :serializable
                           (:PL-3), :strong-session-serializable,
                           :snapshot-isolation (:PL-SI),
                           :strong-session-snapshot-isolation,
                           :strong-snapshot-isolation, :repeatable-read
                           (:PL-2.99), :read-committed (:PL-2),
                           :read-uncommitted (:PL-1), :read-atomic,
                           :causal-cerone; or isocheck's (:gsi :tcc :ra :rc
                           :ci and the aliases of isocheck.core). A model
                           isocheck does not decide is an error here, at
                           construction.

  and isocheck's own:

      :seed                the generator's seed (default: a fresh random one
                           per call); the same options and seed give the
                           same operations
      :final-txn-length    keys read per final transaction (:key-count)
      :levels              isocheck's levels, instead of :consistency-models
      :max-anomalies :clocks :stop-at-first? :time-limit :directory
                           passed to isocheck.core/checker

  Other Elle options (:anomalies, :additional-graphs, plot options) are
  Elle's business and ignored here: isocheck decides levels and reports every
  anomaly that bears on them.

  The generator hands out invocations {:type :invoke, :f :txn, :value
  [[:append 3 2] [:r 5 nil]]} (rw-register: [:w k v] and [:r k nil]). Each
  micro-op is a read or a write with equal probability, on a key drawn from
  the active keys. Values written to a key are 1, 2, 3, ... in generation
  order, so unique per key. When a write is drawn for a key that already got
  :max-writes-per-key writes, the key retires for good: the next unused key
  (one more than the highest so far) takes its slot, and the micro-op is drawn
  again. Keys are integers 0, 1, 2, ...; the first :key-count are active at
  the start. This is what Elle's generators do.

  The final generator reads every key the generator handed out: keys 0 to the
  highest key any transaction handed out names, :final-txn-length keys per
  read-only transaction, each marked :final-read? true. A final read that
  fails or is indeterminate is asked again, up to final-read-attempts times.

  Both are Jepsen generators (jepsen.generator/Generator, extended when this
  namespace loads, if jepsen.generator is on the classpath): Jepsen's
  interpreter asks them for each op; they give it to a client thread only,
  never to the nemesis (they wrap themselves in Jepsen's gen/clients); the
  final reads read to the bound the run reached when Jepsen first asks them,
  so run them after the main phase, as gen/phases does. Printing them (as
  jepsen.core/run! prints the test map) shows one line and realizes nothing.
  Both are also sequences of the same invocations (Seqable, Iterable), for
  use without Jepsen: (take 1000 (:generator w)) then (seq (:final-generator
  w)), whose bound is the highest key realized; each (seq g) starts again
  from the seed, and inspecting them so never changes a Jepsen run's final
  reads.

  `simulate` runs a workload's invocations against isocheck's simulated store
  (`isocheck.sim`) in-process and returns the Jepsen history, to try a test
  before there is a database, or to test the checker."
  (:require [clojure.string :as str]
            [isocheck.core :as core]
            [isocheck.jepsen :as j])
  (:import (isocheck.history History$Workload Kw OpRecord OpSink)
           (isocheck.sim Bug SimConfig SimResult Simulator Store)
           (java.util List)))

(set! *warn-on-reflection* true)

;; ---------------------------------------------------------------------------
;; Consistency models

(def ^:private elle-models
  "Elle's model names that isocheck decides, with the level each is."
  {:strict-serializable               :strict-serializable
   :strong-serializable               :strict-serializable
   :PL-SS                             :strict-serializable
   :serializable                      :serializable
   :PL-3                              :serializable
   :strong-session-serializable       :strong-session-serializable
   :snapshot-isolation                :snapshot-isolation
   :PL-SI                             :snapshot-isolation
   :strong-session-snapshot-isolation :strong-session-snapshot-isolation
   :strong-snapshot-isolation         :strong-snapshot-isolation
   :repeatable-read                   :repeatable-read
   :PL-2.99                           :repeatable-read
   :read-committed                    :read-committed
   :PL-2                              :read-committed
   :read-uncommitted                  :read-uncommitted
   :PL-1                              :read-uncommitted
   :read-atomic                       :ra
   :causal-cerone                     :tcc})

(def ^:private own-names
  "isocheck's own level names and aliases that mean nothing else in Elle."
  #{:sser :ser :si :strong-session-si :strong-si :gsi :tcc :ra :rc :ci :cut-isolation})

(def ^:private not-decided
  "Elle models whose name could be taken for one isocheck decides, and why not."
  {:causal "Elle's :causal is its single-object causal model; for transactional causal consistency use :causal-cerone (isocheck's :tcc)"})

(defn- undecided ^String [m k]
  (str "isocheck does not decide the consistency model " (pr-str m) "; "
       (or (not-decided k)
           (str "it decides " (str/join " " (sort (map str (concat (keys elle-models) own-names))))))))

(defn levels
  "isocheck's levels for Elle's :consistency-models (default
  [:strict-serializable], Elle's default), or `:levels` when given. Throws
  IllegalArgumentException naming a model isocheck does not decide."
  [opts]
  (if-let [ls (:levels opts)]
    (do (core/checker {:levels ls}) (vec ls))
    (let [ms (:consistency-models opts [:strict-serializable])]
      (when-not (and (sequential? ms) (seq ms))
        (throw (IllegalArgumentException.
                 (str ":consistency-models must be a non-empty collection of models, not " (pr-str ms)))))
      (->> ms
           (mapv (fn [m]
                   (let [k (when (or (keyword? m) (string? m)) (keyword (name m)))]
                     (cond (elle-models k) (elle-models k)
                           (own-names k)   k
                           :else           (throw (IllegalArgumentException. (undecided m k)))))))
           distinct
           vec))))

;; ---------------------------------------------------------------------------
;; Randomness: SplitMix64, as isocheck.sim.Rng, so a seed gives the same
;; operations on every JVM and the sequence stays a pure function of it.

(def ^:private ^:const gamma -7046029254386353131)   ; 0x9E3779B97F4A7C15

(defn- mix ^long [^long z]
  (let [z (unchecked-multiply (bit-xor z (unsigned-bit-shift-right z 30)) -4658895280553007687)  ; 0xBF58476D1CE4E5B9
        z (unchecked-multiply (bit-xor z (unsigned-bit-shift-right z 27)) -7723592293110705685)] ; 0x94D049BB133111EB
    (bit-xor z (unsigned-bit-shift-right z 31))))

(def ^:private ^:const ulp53 1.1102230246251565E-16)   ; 2^-53

(defn- uniform
  "Advances the state in a (a long[1]) and returns a double in [0, 1)."
  ^double [^longs a]
  (let [s (unchecked-add (aget a 0) gamma)]
    (aset a 0 s)
    (* (double (unsigned-bit-shift-right (mix s) 11)) ulp53)))

;; ---------------------------------------------------------------------------
;; The generator

(defn- positive-int [opts k default]
  (let [v (get opts k default)]
    (when-not (and (integer? v) (pos? v) (<= v Integer/MAX_VALUE))
      (throw (IllegalArgumentException. (str k " must be a positive integer, not " (pr-str v)))))
    (long v)))

(defn- config
  "The generator's settings from the options, with Elle's defaults; throws on
  a bad option."
  [opts]
  (let [dist (get opts :key-dist :exponential)
        _    (when-not (#{:exponential :uniform} dist)
               (throw (IllegalArgumentException.
                        (str ":key-dist must be :exponential or :uniform, not " (pr-str dist)))))
        kc   (positive-int opts :key-count (if (= dist :exponential) 10 3))
        lo   (positive-int opts :min-txn-length 1)
        hi   (positive-int opts :max-txn-length (max 2 lo))
        _    (when (< hi lo)
               (throw (IllegalArgumentException.
                        (str ":max-txn-length (" hi ") must be at least :min-txn-length (" lo ")"))))
        base (get opts :key-dist-base 2)
        _    (when-not (and (number? base) (> (double base) 1.0) (Double/isFinite (double base)))
               (throw (IllegalArgumentException.
                        (str ":key-dist-base must be a number greater than 1, not " (pr-str base)))))
        seed (get opts :seed (.nextLong (java.util.concurrent.ThreadLocalRandom/current)))
        _    (when-not (integer? seed)
               (throw (IllegalArgumentException. (str ":seed must be an integer, not " (pr-str seed)))))]
    {:key-count        kc
     :min-length       lo
     :max-length       hi
     :max-writes       (positive-int opts :max-writes-per-key 32)
     :exponential?     (= dist :exponential)
     :base             (double base)
     :seed             (unchecked-long seed)
     :final-txn-length (positive-int opts :final-txn-length kc)}))

(defn- slot
  "An active slot in [0, n) for the uniform u: uniform, or exponential with
  P(i) = base^i (base - 1) / (base^n - 1), by inverting that distribution's
  CDF (computed in logarithms, so large n do not overflow)."
  ^long [exponential? ^double base ^long n ^double u]
  (let [i (if exponential?
            (long (Math/floor (+ n (/ (Math/log (+ u (* (- 1.0 u) (Math/pow base (- n)))))
                                      (Math/log base)))))
            (long (Math/floor (* u n))))]
    (max 0 (min (dec n) i))))

(defn- next-txn
  "One transaction from the generator's state; returns [txn state']."
  [{:keys [min-length max-length max-writes exponential? base key-count]} write-f
   {:keys [rng active next-key writes]}]
  (let [a      (long-array [rng])
        lo     (long min-length)
        length (+ lo (long (* (uniform a) (inc (- (long max-length) lo)))))]
    (loop [txn (transient []), left length, active active, next-key (long next-key), writes writes]
      (if (zero? left)
        [(persistent! txn) {:rng (aget a 0), :active active, :next-key next-key, :writes writes}]
        (let [write? (>= (uniform a) 0.5)
              i      (slot exponential? base key-count (uniform a))
              k      (nth active i)
              n      (long (get writes k 0))]
          (cond (not write?)
                (recur (conj! txn [:r k nil]) (dec left) active next-key writes)

                (< n (long max-writes))
                (recur (conj! txn [write-f k (inc n)]) (dec left) active next-key
                       (assoc writes k (inc n)))

                :else ; k has had its writes: it retires, a fresh key takes its slot, draw again
                (recur txn left (assoc active i next-key) (inc next-key) (dissoc writes k))))))))

(defn- top-key
  "The highest key a transaction names (-1 for none)."
  ^long [txn]
  (reduce (fn [^long m mop] (max m (long (second mop)))) -1 txn))

(defn- txn-op [txn] {:type :invoke, :f :txn, :value txn})

(defn- reads
  "A final read of keys ks: marked :final-read? true, so that a client, a
  report or a test can tell the final phase's reads from the others."
  [ks]
  (assoc (txn-op (mapv (fn [k] [:r k nil]) ks)) :final-read? true))

(defn- txn-seq
  "The lazy, infinite sequence of invocations that step (state -> [txn
  state']) makes from state; records in seen (an atom) the highest key any
  realized one names."
  [step state seen]
  (lazy-seq
    (let [[txn state'] (step state)]
      (swap! seen max (top-key txn))
      (cons (txn-op txn) (txn-seq step state' seen)))))

;; A workload's generators are values of these two types. Each is:
;;
;; - a Jepsen generator (jepsen.generator/Generator, extended at load time when
;;   jepsen.generator is on the classpath): `op` hands the next transaction to
;;   a free client, never to the nemesis (the generator wraps itself in Jepsen's
;;   own gen/clients), and returns the generator's next state; nothing happens
;;   until Jepsen's interpreter asks, so printing the test map, as
;;   jepsen.core/run! does before the first operation, changes nothing;
;; - a sequence (Seqable and Iterable) of the same invocations, for use without
;;   Jepsen: (take 1000 (:generator w)). Each (seq g) starts again from the
;;   generator's state, so a seed gives the same invocations every time;
;; - printed as one line that names it, whatever *print-length* is.
;;
;; `bounds` holds the highest key handed out so far: {:run atom} by Jepsen's
;; interpreter (op), {:seq atom} by realized sequences. The final reads read
;; keys 0 to that bound: :run's when Jepsen asks them for an op, the larger of
;; the two as a sequence. Inspecting the generator as a sequence in a REPL
;; therefore never changes what a Jepsen run's final reads read.

(deftype Invocations [step state bounds ^String label raw?]
  clojure.lang.Seqable
  (seq [_] (seq (txn-seq step state (:seq bounds))))
  Iterable
  (iterator [this] (clojure.lang.SeqIterator. (seq this)))
  Object
  (toString [_] label))

(deftype FinalReads [bounds ^long n st ^String label raw?]
  ;; st: {:next k, :retry [ks ...], :outstanding {process ks}, :tries {ks n}}
  clojure.lang.Seqable
  (seq [_] (seq (map reads (partition-all n (range (inc (max (long @(:run bounds)) (long @(:seq bounds)))))))))
  Iterable
  (iterator [this] (clojure.lang.SeqIterator. (seq this)))
  clojure.lang.Counted
  (count [this] (count (seq this)))
  Object
  (toString [_] label))

(defmethod print-method Invocations [g ^java.io.Writer w] (.write w (str g)))
(defmethod print-method FinalReads [g ^java.io.Writer w] (.write w (str g)))

(def ^:const final-read-attempts
  "How many times the final generator asks for a read of the same keys that
  fails or is indeterminate, before it gives those keys up."
  5)

(def ^:private jepsen-gen
  "jepsen.generator's functions, resolved when first needed (only Jepsen's
  interpreter calls the generators' Jepsen side, so it is there)."
  (delay {:op         @(requiring-resolve 'jepsen.generator/op)
          :update     @(requiring-resolve 'jepsen.generator/update)
          :fill-in-op @(requiring-resolve 'jepsen.generator/fill-in-op)
          :clients    @(requiring-resolve 'jepsen.generator/clients)}))

(defn- fill-in
  "Jepsen's op for the invocation m from a free process of ctx, or :pending."
  [m ctx]
  ((:fill-in-op @jepsen-gen) m ctx))

(defn- as-clients
  "g's raw twin (whose op takes any free process the context offers) inside
  Jepsen's gen/clients, which offers it client processes only."
  [raw]
  ((:clients @jepsen-gen) raw))

(defn- invocations-op [^Invocations g test ctx]
  (if-not (.raw? g)
    ((:op @jepsen-gen) (as-clients (Invocations. (.step g) (.state g) (.bounds g) (.label g) true)) test ctx)
    (let [[txn state'] ((.step g) (.state g))
          o (fill-in (txn-op txn) ctx)]
      (if (identical? :pending o)
        [:pending g]
        (do (swap! (:run (.bounds g)) max (top-key txn))
            [o (Invocations. (.step g) state' (.bounds g) (.label g) true)])))))

(defn- invocations-update [^Invocations g test ctx event]
  (if (.raw? g)
    g
    ((:update @jepsen-gen) (as-clients (Invocations. (.step g) (.state g) (.bounds g) (.label g) true)) test ctx event)))

(defn- final-chunk
  "The keys the final reads read next from state st with bound hi: a retry
  first, then the next n fresh keys; [ks st'] or nil."
  [st ^long n ^long hi]
  (if-let [ks (first (:retry st))]
    [ks (update st :retry subvec 1)]
    (let [k (long (:next st))]
      (when (<= k hi)
        (let [ks (vec (range k (min (inc hi) (+ k n))))]
          [ks (assoc st :next (+ k (count ks)))])))))

(defn- final-op [^FinalReads g test ctx]
  (let [raw (fn [st] (FinalReads. (.bounds g) (.n g) st (.label g) true))]
    (if-not (.raw? g)
      ((:op @jepsen-gen) (as-clients (raw (.st g))) test ctx)
      (let [st (.st g)]
        (if-let [[ks st'] (final-chunk st (.n g) @(:run (.bounds g)))]
          (let [o (fill-in (reads ks) ctx)]
            (if (identical? :pending o) [:pending g] [o (raw st')]))
          ;; A read in flight may yet fail and be asked again: wait for it.
          (when (seq (:outstanding st)) [:pending g]))))))

(defn- final-update
  "Follows the final reads' own transactions through the events Jepsen's
  interpreter reports (invocations and completions, by process): a read that
  fails or is indeterminate is asked again, up to final-read-attempts times.
  Where no event reaches the generator (a combinator that drops updates), it
  reads each key once, and never waits."
  [^FinalReads g test ctx event]
  (if-not (.raw? g)
    ((:update @jepsen-gen) (as-clients (FinalReads. (.bounds g) (.n g) (.st g) (.label g) true)) test ctx event)
    (let [st (.st g)
          p  (:process event)
          t  (:type event)
          ks (when (and (= :txn (:f event)) (sequential? (:value event)))
               (let [v (:value event)]
                 (when (every? #(and (sequential? %) (= :r (first %))) v) (mapv second v))))
          st' (cond
                (= :invoke t)
                (if ks (assoc-in st [:outstanding p] ks) st)

                (contains? (:outstanding st) p)
                (let [ks (get-in st [:outstanding p])
                      st (update st :outstanding dissoc p)
                      tries (inc (long (get-in st [:tries ks] 1)))]
                  (if (and (#{:fail :info} t) (<= tries final-read-attempts))
                    (-> st (update :retry conj ks) (assoc-in [:tries ks] tries))
                    st))

                :else st)]
      (if (identical? st st') g (FinalReads. (.bounds g) (.n g) st' (.label g) true)))))

(j/extend-softly! 'jepsen.generator/Generator Invocations
                  {:op invocations-op, :update invocations-update})
(j/extend-softly! 'jepsen.generator/Generator FinalReads
                  {:op final-op, :update final-update})

(defn- generators
  "{:generator :final-generator} for the transactions step makes from state;
  the final reads read keys 0 to the highest key handed out, or to hi when
  given."
  ([step state final-n what] (generators step state final-n what -1))
  ([step state final-n ^String what hi]
  (let [b {:run (atom hi), :seq (atom hi)}]
    {:generator       (Invocations. step state b (str "#isocheck.workload/generator {:transactions " what "}") false)
     :final-generator (FinalReads. b final-n {:next 0, :retry [], :outstanding {}, :tries {}}
                                   (str "#isocheck.workload/final-reads {:keys \"0 to the highest key the generator handed out\", :per-transaction " final-n "}")
                                   false)})))

(def ^:private checker-keys [:max-anomalies :clocks :stop-at-first? :time-limit :directory])

(defn- workload [opts write-f wl]
  (let [cfg (config opts)
        ls  (levels opts)
        c   (core/checker (assoc (select-keys opts checker-keys) :levels ls :workload wl))]
    (assoc (generators (fn [st] (next-txn cfg write-f st))
                       {:rng      (:seed cfg)
                        :active   (vec (range (:key-count cfg)))
                        :next-key (:key-count cfg)
                        :writes   {}}
                       (:final-txn-length cfg)
                       (str (if (= wl :append) ":list-append" ":rw-register") ", :seed " (:seed cfg)))
           :checker c)))

(defn append
  "A list-append workload: {:generator :final-generator :checker}, the
  generator's transactions made of [:append k v] and [:r k nil]. Options as in
  the namespace docstring; throws IllegalArgumentException on a bad one."
  ([] (append {}))
  ([opts] (workload opts :append :append)))

(defn wr
  "An rw-register workload: {:generator :final-generator :checker}, the
  generator's transactions made of [:w k v] and [:r k nil]. Options as in the
  namespace docstring; throws IllegalArgumentException on a bad one."
  ([] (wr {}))
  ([opts] (workload opts :w :wr)))

;; ---------------------------------------------------------------------------
;; Mini-transactions (MTC, Def. 8)

(def mt-shapes
  "The mini-transaction shapes (MTC Def. 8: one or two reads, at most two
  writes, each write after a read of its key), over keys x and y (two
  different keys), in the order the micro-ops run."
  {:r     [[:r :x]]                           ; read-only
   :rr    [[:r :x] [:r :y]]                   ; read-only, two keys
   :rx    [[:r :x] [:r :x]]                   ; a repeated read
   :rw    [[:r :x] [:w :x]]                   ; read-modify-write
   :rwr   [[:r :x] [:w :x] [:r :x]]           ; ... then reads its own write
   :rwwr  [[:r :x] [:w :x] [:w :x] [:r :x]]   ; two writes, then a read of the last
   :rrw   [[:r :x] [:r :y] [:w :x]]           ; reads two keys, writes one (write skew)
   :rrww  [[:r :x] [:r :y] [:w :x] [:w :y]]   ; reads two keys, writes both
   :rwrw  [[:r :x] [:w :x] [:r :y] [:w :y]]}) ; two read-modify-writes

(defn- mt-config
  "The MT generator's settings from the options; throws on a bad option."
  [opts]
  (let [dist   (get opts :key-dist :exponential)
        _      (when-not (#{:uniform :zipfian :hotspot :exponential} dist)
                 (throw (IllegalArgumentException.
                          (str ":key-dist must be :uniform, :zipfian, :hotspot or :exponential, not " (pr-str dist)))))
        kc     (positive-int opts :key-count 10)
        shapes (get opts :shapes (zipmap (keys mt-shapes) (repeat 1)))
        _      (when-not (and (map? shapes) (seq shapes)
                              (every? mt-shapes (keys shapes))
                              (every? #(and (number? %) (>= (double %) 0.0)) (vals shapes))
                              (pos? (reduce + 0.0 (map double (vals shapes)))))
                 (throw (IllegalArgumentException.
                          (str ":shapes must map shapes (" (str/join " " (sort (keys mt-shapes)))
                               ") to non-negative weights, not all zero, not " (pr-str shapes)))))
        ;; One key: the two-key shapes have no second key, so they are left out.
        shapes (if (= 1 kc) (into {} (filter (fn [[k _]] (not (some #{[:r :y]} (mt-shapes k))))) shapes) shapes)
        _      (when (and (= 1 kc) (not (pos? (reduce + 0.0 (map double (vals shapes))))))
                 (throw (IllegalArgumentException. ":key-count 1 leaves only the one-key shapes, and :shapes gives them no weight")))
        base   (get opts :key-dist-base 2)
        _      (when-not (and (number? base) (> (double base) 1.0) (Double/isFinite (double base)))
                 (throw (IllegalArgumentException. (str ":key-dist-base must be a number greater than 1, not " (pr-str base)))))
        zipf   (get opts :zipf-exponent 1.0)
        _      (when-not (and (number? zipf) (pos? (double zipf)) (Double/isFinite (double zipf)))
                 (throw (IllegalArgumentException. (str ":zipf-exponent must be a positive number, not " (pr-str zipf)))))
        hot-k  (get opts :hotspot-keys 0.2)
        hot-p  (get opts :hotspot-probability 0.8)
        _      (when-not (and (number? hot-k) (< 0.0 (double hot-k) 1.0) (number? hot-p) (<= 0.0 (double hot-p) 1.0))
                 (throw (IllegalArgumentException.
                          (str ":hotspot-keys must be in (0, 1) and :hotspot-probability in [0, 1], not "
                               (pr-str hot-k) " and " (pr-str hot-p)))))
        seed   (get opts :seed (.nextLong (java.util.concurrent.ThreadLocalRandom/current)))
        _      (when-not (integer? seed)
                 (throw (IllegalArgumentException. (str ":seed must be an integer, not " (pr-str seed)))))
        ws     (sort-by key shapes)
        total  (reduce + 0.0 (map (comp double val) ws))]
    {:key-count        kc
     :dist             dist
     :base             (double base)
     ;; Zipf: P(i) proportional to 1 / (i + 1)^s, by the cumulative distribution.
     :zipf-cdf         (when (= dist :zipfian)
                         (let [w (mapv #(Math/pow (inc (double %)) (- (double zipf))) (range kc))
                               t (reduce + w)]
                           (double-array (reductions + (map #(/ (double %) t) w)))))
     :hot-n            (max 1 (min (dec kc) (long (Math/ceil (* (double hot-k) kc)))))
     :hot-p            (double hot-p)
     :shape-names      (mapv key ws)
     :shape-cdf        (double-array (reductions + (map #(/ (double (val %)) total) ws)))
     :seed             (unchecked-long seed)
     :final-txn-length (positive-int opts :final-txn-length 2)}))

(defn- cdf-index
  "The first index whose cumulative probability exceeds u (the last, for u
  past rounding)."
  ^long [^doubles cdf ^double u]
  (let [n (alength cdf)]
    (loop [lo 0, hi (dec n)]
      (if (>= lo hi) lo
          (let [mid (quot (+ lo hi) 2)]
            (if (> (aget cdf mid) u) (recur lo mid) (recur (inc mid) hi)))))))

(defn- mt-key
  "A key in [0, key-count) drawn by the configured distribution."
  ^long [{:keys [dist key-count base zipf-cdf hot-n hot-p]} ^longs a]
  (let [n (long key-count)]
    (case dist
      :uniform     (min (dec n) (long (* (uniform a) n)))
      :exponential (slot true base n (uniform a))
      :zipfian     (cdf-index zipf-cdf (uniform a))
      :hotspot     (let [hot? (< (uniform a) (double hot-p))
                         u (uniform a)
                         h (long hot-n)]
                     (if hot?
                       (min (dec h) (long (* u h)))
                       (+ h (min (dec (- n h)) (long (* u (- n h))))))))))

(defn- next-mt
  "One mini-transaction from the generator's state; returns [txn state']."
  [cfg {:keys [rng writes]}]
  (let [a     (long-array [rng])
        shape ((:shape-names cfg) (cdf-index (:shape-cdf cfg) (uniform a)))
        x     (mt-key cfg a)
        y     (if (some #{[:r :y]} (mt-shapes shape))
                (loop [y (mt-key cfg a), tries 0]
                  (cond (not= y x) y
                        ;; A skewed distribution may keep drawing x: then any other key.
                        (> tries 16) (mod (+ x 1 (long (* (uniform a) (dec (long (:key-count cfg)))))) (long (:key-count cfg)))
                        :else (recur (mt-key cfg a) (inc tries))))
                x)
        [txn writes] (reduce (fn [[txn writes] [f k]]
                               (let [k (if (= k :x) x y)]
                                 (if (= f :w)
                                   (let [v (inc (long (get writes k 0)))]
                                     [(conj txn [:w k v]) (assoc writes k v)])
                                   [(conj txn [:r k nil]) writes])))
                             [[] writes]
                             (mt-shapes shape))]
    [txn {:rng (aget a 0), :writes writes}]))

(defn mt
  "A mini-transaction workload (MTC): {:generator :final-generator :checker}.
  Each invocation is one mini-transaction of MTC Def. 8 ([:r k nil] and
  [:w k v], one or two reads, at most two writes, each write after a read of
  its key), so the history's read-modify-writes fix every key's version order
  and isocheck decides the serializable and SI levels in linear time
  (isocheck.check.mt). Options:

      :key-count             keys, 0 .. key-count - 1 (10)
      :key-dist              :exponential (default; key i is
                             :key-dist-base^i times as likely as key 0),
                             :uniform, :zipfian (P(i) ~ 1/(i+1)^:zipf-exponent,
                             1.0) or :hotspot (:hotspot-probability, 0.8, of
                             the accesses go to the first :hotspot-keys, 0.2,
                             of the keys)
      :shapes                weights of the shapes, {:rw 2, :rrw 1, ...}
                             (default: all of isocheck.workload/mt-shapes,
                             equally)
      :final-txn-length      keys per final read-only transaction (2)
      :consistency-models, :levels, :seed and the checker's options as for
                             append and wr

  Values written to a key are 1, 2, 3, ...: unique per key. Keys do not
  retire (MTC's workload has a fixed set of objects): the final generator
  reads keys 0 .. key-count - 1."
  ([] (mt {}))
  ([opts]
   (let [cfg (mt-config opts)
         ls  (levels opts)
         c   (core/checker (assoc (select-keys opts checker-keys) :levels ls :workload :wr))]
     ;; Keys do not retire: the final reads read every key, whatever was handed out.
     (-> (generators (fn [st] (next-mt cfg st)) {:rng (:seed cfg), :writes {}}
                     (:final-txn-length cfg) (str ":mini-transactions, :seed " (:seed cfg))
                     (dec (long (:key-count cfg))))
         (assoc :checker c)))))

;; ---------------------------------------------------------------------------
;; Running a workload against the simulated store

(def ^:private stores
  {:strict-serializable Store/STRICT_SERIALIZABLE
   :serializable        Store/SERIALIZABLE
   :snapshot-isolation  Store/SNAPSHOT_ISOLATION
   :read-committed      Store/READ_COMMITTED})

(def ^:private bugs
  (into {} (map (fn [^Bug b] [(keyword (str/lower-case (str/replace (.name b) "_" "-"))) b]))
        (Bug/values)))

(defn- option-of [m k v]
  (or (get m v)
      (throw (IllegalArgumentException.
               (str k " must be one of " (str/join " " (sort (keys m))) ", not " (pr-str v))))))

(defn- txn-value
  "The transaction of an invocation, or an error naming it."
  [phase i op]
  (if (and (map? op) (= :invoke (:type op)) (= :txn (:f op)) (sequential? (:value op)))
    (:value op)
    (throw (IllegalArgumentException.
             (str phase " op " i " " (pr-str op)
                  " is not a transaction invocation {:type :invoke, :f :txn, :value [...]}")))))

(defn- kind-of
  "History$Workload from the first write among the invocations (list-append
  when none writes)."
  ^History$Workload [ops]
  (let [f (some (fn [op] (some (fn [mop] (when (sequential? mop)
                                           (#{:append :w} (first mop))))
                               (:value op)))
                ops)]
    (if (= f :w) History$Workload/REGISTER History$Workload/APPEND)))

(defn- record->op [^OpRecord r]
  {:type    (keyword (Kw/nameOf (.typeRaw r)))
   :f       (keyword (Kw/nameOf (.f r)))
   :value   (mapv (fn [i]
                    (let [i (int i)
                          v (.value r i)]
                      [(keyword (Kw/nameOf (.fRaw r i))) (.key r i) (if (instance? List v) (vec v) v)]))
                  (range (.mopCount r)))
   :process (.process r)
   :time    (.time r)
   :index   (.index r)})

(defn- level-set [s] (into (sorted-set) (map keyword) s))

(defn simulate
  "Runs a workload's invocations against isocheck's simulated store, in
  process, as Jepsen's interpreter would against a database: :concurrency
  clients each take the next invocation of (take :txns (:generator w)) when
  free; once all have completed, the :final-generator's (unless :final? is
  false).
  Returns

      {:history      [ops]   ; a Jepsen history: :invoke then :ok/:fail/:info
                             ; per transaction, with :process :time :index
       :must-satisfy #{levels}  :must-violate #{levels}
       :bug-firings n, :description \"...\"}

  where :must-satisfy are the levels the store guarantees (those the bug
  keeps, once it acted) and :must-violate those the bug breaks once it fired.
  Options: :store (:strict-serializable, :serializable, :snapshot-isolation,
  default, or :read-committed), :bug (:lost-update :long-fork
  :causality-violation :fractured-read :aborted-read :intermediate-read
  :stale-realtime-read; default none), :bug-rate (0.05), :txns (1000),
  :concurrency (10), :seed (0), :fail-rate (0.05), :info-rate (0.01),
  :pending (invocations left without completion at the end, 0). A bug's
  scenarios add read-only transactions on the workload's keys, and write only
  keys of their own (negative integers). Throws IllegalArgumentException
  naming the op on an invocation the store cannot run."
  ([w] (simulate w {}))
  ([w {:keys [store bug bug-rate txns concurrency seed fail-rate info-rate pending final?]
       :or   {store :snapshot-isolation, bug-rate 0.05, txns 1000, concurrency 10, seed 0,
              fail-rate 0.05, info-rate 0.01, pending 0, final? true}}]
   (let [main   (into [] (take txns) (:generator w))
         finals (if final? (vec (:final-generator w)) [])
         phases (cond-> [(into [] (map-indexed (partial txn-value ":generator")) main)]
                  final? (conj (into [] (map-indexed (partial txn-value ":final-generator")) finals)))
         b      (-> (SimConfig/builder)
                    (.seed (long seed))
                    (.workload (kind-of (concat main finals)))
                    (.store ^Store (option-of stores :store store))
                    (.sessions (int concurrency))
                    (.failRate (double fail-rate))
                    (.infoRate (double info-rate))
                    (.pendingAtEnd (int pending))
                    (.bugRate (double bug-rate)))
         _      (when bug (.bug b ^Bug (option-of bugs :bug bug)))
         ops    (volatile! (transient []))
         sink   (reify OpSink
                  (op [_ r] (vswap! ops conj! (record->op r))))
         ^SimResult r (Simulator/drive (.build b) phases sink)]
     {:history      (persistent! @ops)
      :must-satisfy (level-set (.mustSatisfy r))
      :must-violate (level-set (.mustViolate r))
      :bug-firings  (.bugFirings r)
      :description  (.description r)})))
