(ns isocheck.jepsen
  "The bridge between Jepsen data and isocheck's Java core.

  - `->history` turns Jepsen ops (a vector of op maps, a jepsen.history
    collection, any reducible of maps or records) into an
    `isocheck.history.History`, in one pass, without Jepsen on the classpath.
  - `->clj` turns the Java result data back into Clojure data (keywords,
    maps, vectors, sets).
  - `extend-checker!` extends `jepsen.checker/Checker` to a type, softly: only
    when that namespace is on the classpath (`extend-softly!`, which
    isocheck.workload uses for `jepsen.generator/Generator`). Jepsen is never
    a dependency of isocheck; users bring their own version.
  - `progress-meter` logs a long check's progress through
    clojure.tools.logging, softly too: only when that library is there."
  (:import (isocheck.history History History$Workload HistoryBuilder Kw OpRecord
                             OpType Sym)
           (isocheck.util Progress ProgressMeter)
           (java.util List Map Set)
           (java.util.function Consumer)))

(set! *warn-on-reflection* true)

(defn workload
  "Parses a workload name: :append / \"append\" or :wr / \"wr\" / :rw-register;
  nil means detect it from the micro-ops."
  ^History$Workload [w]
  (case (some-> w name)
    nil nil
    ("append" "list-append") History$Workload/APPEND
    ("wr" "rw-register" "register") History$Workload/REGISTER
    (throw (IllegalArgumentException.
             (str "Unknown workload " (pr-str w) "; expected :append or :wr")))))

(defn txn-f
  "The name of the :f that marks transaction ops, as the Java core takes it:
  \"txn\" for nil (the default); \"tx\" for :tx, \"tx\" or 'tx; a namespaced
  keyword keeps its namespace (:my/txn is \"my/txn\")."
  ^String [f]
  (cond (nil? f) "txn"
        (keyword? f) (subs (str f) 1)
        (and (string? f) (seq f)) f
        (symbol? f) (str f)
        :else (throw (IllegalArgumentException.
                       (str ":f must name the :f of transaction ops, such as :txn, not " (pr-str f))))))

;; The conversion below runs once per op on the online hook's checker thread and in the loader of
;; op maps: top-level functions with the record as their accumulator (no closure per op), the
;; array map Jepsen ops usually are read in one pass over its entries, vectors by index.

(def ^:private op-keys #{:index :time :type :process :f :value})

(defn- add-mop!
  "Adds one micro-op, [f k v], to the record (or a malformed one)."
  ^OpRecord [^OpRecord r mop]
  (if (and (instance? clojure.lang.IPersistentVector mop)
           (== 3 (.count ^clojure.lang.IPersistentVector mop)))
    (let [^clojure.lang.IPersistentVector mop mop]
      (.addMop r (.nth mop 0) (.nth mop 1) (.nth mop 2)))
    (if (and (sequential? mop) (= 3 (count mop)))
      (let [[f k v] mop] (.addMop r f k v))
      (.addMalformed r mop)))
  r)

(defn- fill-value!
  "Sets the record's :value: a transaction's micro-ops, or anything else kept raw."
  [^OpRecord r value]
  (if (and (sequential? value) (not (map-entry? value)))
    (do (set! (.valueShape r) OpRecord/VALUE_TXN)
        (if (instance? clojure.lang.IPersistentVector value)
          (let [^clojure.lang.IPersistentVector v value
                n (.count v)]
            (loop [i 0]
              (when (< i n)
                (add-mop! r (.nth v i))
                (recur (inc i)))))
          (reduce add-mop! r value)))
    (do (set! (.valueShape r) OpRecord/VALUE_OTHER)
        (set! (.valueRaw r) value))))

(defn- fill-entry!
  "One entry of an op map into the record: a standard key into its field, any other kept."
  ^OpRecord [^OpRecord r k v]
  (case k
    :value   (fill-value! r v)
    :type    (do (set! (.typeRaw r) v)
                 (set! (.type r) (OpType/parse v)))
    :f       (set! (.f r) v)
    :index   (when (integer? v) (set! (.index r) (long v)))
    :time    (when (integer? v) (set! (.time r) (long v)))
    :process (do (set! (.hasProcess r) true)
                 (set! (.process r) v))
    (.addExtra r k v))
  r)

(defn fill!
  "Copies one Jepsen op into the reusable record, with any keys of the user's
  own (a database's transaction id, say), which reports show."
  [^OpRecord r ^long ordinal op]
  (.reset r ordinal)
  (if (instance? clojure.lang.PersistentArrayMap op)
    ;; The usual op map (at most 8 keys): one pass over its entries.
    (.kvreduce ^clojure.lang.PersistentArrayMap op fill-entry! r)
    ;; A record (jepsen.history.Op), a larger or Java map: each standard key looked up.
    (let [index (get op :index)
          time  (get op :time)
          type  (get op :type)
          value (get op :value ::absent)
          f     (get op :f)
          process? (contains? op :process)]
      (when (integer? index) (set! (.index r) (long index)))
      (when (integer? time) (set! (.time r) (long time)))
      (set! (.typeRaw r) type)
      (set! (.type r) (OpType/parse type))
      (when process?
        (set! (.hasProcess r) true)
        (set! (.process r) (get op :process)))
      (set! (.f r) f)
      (when-not (identical? ::absent value) (fill-value! r value))
      ;; More keys than the standard ones seen (a standard key holding nil counts as
      ;; unseen, which only costs a look): the others are kept.
      (when (and (map? op)
                 (< (cond-> 0 index inc, time inc, type inc, f inc, process? inc,
                      (not (identical? ::absent value)) inc)
                    (count op)))
        (reduce-kv (fn [_ k v] (when-not (contains? op-keys k) (.addExtra r k v))) nil op))))
  r)

(defn ->history
  "Builds a History from Jepsen ops (maps or records with :index :time :type
  :process :f :value), reducing over the collection once. `wl` forces the
  workload (:append or :wr); nil detects it. `f` is the :f of transaction
  ops (default :txn); other ops are skipped. Throws
  isocheck.history.HistoryException, naming the op, on input it cannot check."
  (^History [ops] (->history ops nil nil))
  (^History [ops wl] (->history ops wl nil))
  (^History [ops wl f] (->history ops wl f Progress/NONE))
  (^History [ops wl f ^Progress progress]
   (let [b (HistoryBuilder. (workload wl) (txn-f f))
         r (OpRecord.)]
     (.stage progress "reading the history" (if (counted? ops) (count ops) 0) "ops")
     (reduce (fn [^long i op]
               (.op b (fill! r i op))
               (when (zero? (bit-and i 0xffff)) (.done progress i))
               (inc i))
             0
             ops)
     (.build b))))

(defn ->cas-history
  "Builds an isocheck.check.lin.CasHistory (single-key reads, writes and
  compare-and-sets, for linearizability) from Jepsen ops: register ops
  {:f :read/:write/:cas}, single or with jepsen.independent [k v] tuples, or
  transaction ops of one micro-op ([:r k v], [:w k v], [:cas k old new]).
  Throws isocheck.history.HistoryException, naming the op, on input it
  cannot check."
  [ops f]
  (let [b (isocheck.check.lin.CasHistory$Builder. (txn-f f))
        r (OpRecord.)]
    (reduce (fn [^long i op]
              (.op b (fill! r i op))
              (inc i))
            0
            ops)
    (.build b)))

(def ^:private long-array-class (Class/forName "[J"))

(declare ->clj)

(defn- list->vector
  "A Java list as a vector of its elements ->clj'd: in one array, numbers and strings as they are
  (a 10^6-transaction certificate, :commit-order, is a million of them: mapv spent a call, five
  type tests and a transient conj on each)."
  [^List x]
  (let [a (.toArray x)
        n (alength a)]
    (loop [i 0]
      (when (< i n)
        (let [v (aget a i)]
          (when-not (or (instance? Long v) (instance? String v))
            (aset a i (->clj v))))
        (recur (inc i))))
    (clojure.lang.LazilyPersistentVector/createOwning a)))

(defn ->clj
  "Java result data -> Clojure data. Java maps become Clojure maps with
  keyword keys; Kw becomes a keyword; lists and long arrays become vectors; sets become sets.
  Clojure collections (e.g. a user's own keys and values) pass through."
  [x]
  (cond (instance? Long x) x
        (instance? clojure.lang.IPersistentCollection x) x
        (instance? Kw x) (keyword (.name ^Kw x))
        (instance? Sym x) (symbol (.name ^Sym x))
        (instance? Map x)
        (persistent!
          (reduce (fn [m ^java.util.Map$Entry e]
                    (let [k (.getKey e)]
                      (assoc! m (if (string? k) (keyword k) (->clj k))
                              (->clj (.getValue e)))))
                  (transient {})
                  (.entrySet ^Map x)))
        (instance? Set x) (into #{} (map ->clj) x)
        (instance? List x) (list->vector x)
        (instance? long-array-class x) (vec ^longs x)   ; certificates: orders of indices
        :else x))

(defn- on-classpath?
  "Whether namespace ns (a symbol) is loaded or can be: its source or its
  compiled class is on the classpath."
  [ns]
  (or (some? (find-ns ns))
      (let [base (-> (name ns) (.replace "-" "_") (.replace "." "/"))]
        (boolean (some #(.getResource (clojure.lang.RT/baseLoader) (str base %)) ["__init.class" ".clj" ".cljc"])))))

(defn extend-softly!
  "Extends the protocol named by proto (a fully qualified symbol, such as
  'jepsen.checker/Checker) to type t with impls (a map of method keywords to
  functions), when the protocol's namespace is on the classpath, loading it if
  need be. Returns true when it did, false when that namespace is absent. A
  namespace that is present but fails to load throws: a Jepsen whose
  namespaces cannot load is not one to run without."
  [proto t impls]
  (if (on-classpath? (symbol (namespace proto)))
    (do (extend t @(requiring-resolve proto) impls)
        true)
    false))

(defn extend-checker!
  "Extends jepsen.checker/Checker to type `t` with `check-fn` (called as
  (check-fn this test history opts)), if jepsen.checker is on the classpath.
  Returns true when it did."
  [t check-fn]
  (extend-softly! 'jepsen.checker/Checker t {:check check-fn}))

(def ^:private logging-required (atom false))

(defn info-logger
  "A function of one string that logs it at :info, logger isocheck.core,
  through clojure.tools.logging; nil when that library is not on the
  classpath. Jepsen loads it before any checker runs; otherwise one attempt
  is made to load it, per JVM. Resolved by name, so isocheck does not depend
  on it."
  []
  (when (or (find-ns 'clojure.tools.logging)
            (and (compare-and-set! logging-required false true)
                 (try (require 'clojure.tools.logging) true
                      (catch Throwable _ false))))
    (let [log*       (ns-resolve 'clojure.tools.logging 'log*)
          factory    (ns-resolve 'clojure.tools.logging '*logger-factory*)
          get-logger (when (find-ns 'clojure.tools.logging.impl)
                       (ns-resolve 'clojure.tools.logging.impl 'get-logger))]
      (when (and log* factory get-logger)
        (fn [^String line]
          (@log* (@get-logger @factory "isocheck.core") :info nil line))))))

(defn progress-meter
  "An isocheck.util.ProgressMeter that logs a check's progress through
  clojure.tools.logging, once the check has run 2 s, then about every 10 s
  (lines such as \"isocheck: [12.0 s] serializable: solver\"); nil when
  tools.logging is not on the classpath. Close it when the check ends."
  ^ProgressMeter []
  (when-let [log (info-logger)]
    (ProgressMeter. "isocheck: "
                    (reify Consumer (accept [_ line] (log line)))
                    ProgressMeter/DEFAULT_AFTER_MS
                    10000)))

(defn store-dir
  "The directory where a Jepsen checker should write its files,
  store/<test>/<time>/<subdirectory>/isocheck, when jepsen.store is available
  and the test map knows its name and start time; nil otherwise."
  [test opts]
  (when-let [path! (try (requiring-resolve 'jepsen.store/path!)
                        (catch Throwable _ nil))]
    (try (let [^java.io.File f (path! test (:subdirectory opts) "isocheck")]
           (.getCanonicalPath f))
         (catch Throwable _ nil))))
