(ns jepsen.util
  "Test twin of Jepsen 0.3's jepsen.util (jepsen-io/jepsen,
  jepsen/src/jepsen/util.clj), with the part of fipp (brandonbloom/fipp:
  src/fipp/edn.cljc, visit.cljc, ednize.clj, engine.cljc) that its `test->str`
  prints through.

  Modelled:
  - time: `linear-time-nanos`, `*relative-time-origin*`, `with-relative-time`,
    `relative-time-nanos`, `secs->nanos`, `nanos->secs`, `ms->nanos`,
    `nanos->ms`;
  - `forgettable`/`forget!`: the IDeref reference jepsen.core wraps a test's
    generator in;
  - `test->str`: the whole test map, key by key, each value pretty-printed by
    a fipp-faithful printer (`pretty`), with *print-length* bound to 8 for the
    :generator value only. The printer dispatches as fipp's visitor does: nil,
    booleans, strings, characters, symbols, keywords, numbers; `seq?` values,
    vectors, maps and sets print at most *print-length* elements, and, as
    fipp's pretty-coll, realize one more to know whether to print `...`;
    records print as tagged literals of (into {} record); values that satisfy
    `PrintOverride` (Jepsen's generators and nemeses, which Jepsen marks with
    fipp's IOverride) print as their `-edn`; anything else as fipp's IEdn
    does: IDeref objects (atoms, delays, promises, Forgettables) as
    #object[Class \"0x..\" {:status .., :val ..}], deref'ing those that are
    not pending, classes as their names, and other objects as
    #object[Class \"0x..\" \"(str x)\"], through `str`: so a value that is
    Seqable but not `seq?` is never realized. This is how jepsen.core/run!,
    logging the test before its first op, realizes lazy sequences inside the
    generator.
  - `pprint-str`, and `info`: Jepsen logs through clojure.tools.logging; the
    twin keeps what was logged in the atom `log-lines` and writes it to *err*
    only when `*log-to-err?*` is true.

  Simplified: fipp's layout engine is approximated by a small one with the
  same document language (:text :span :group :align :nest :line :break) and
  the same decision, a group is flat when it fits in what is left of the
  line; metadata is never printed; fipp's Date/UUID/queue cases are left to
  `str`. Nothing else of jepsen.util's kitchen sink is here."
  (:require [clojure.string :as str])
  (:import (java.time ZoneOffset ZonedDateTime)
           (java.time.format DateTimeFormatter)))

;; Time

(defn ms->nanos [ms] (* ms 1000000))
(defn nanos->ms [nanos] (/ nanos 1000000))
(defn secs->nanos "Seconds to nanoseconds (a double, as Jepsen's)." [s] (* s 1e9))
(defn nanos->secs "Nanoseconds to seconds (a double, as Jepsen's)." [nanos] (/ nanos 1e9))

(defn linear-time-nanos
  "A monotone clock, in nanoseconds."
  ^long []
  (System/nanoTime))

(def ^:dynamic *relative-time-origin*
  "Where relative time starts: bound by `with-relative-time`. Unlike Jepsen's
  (nil until bound), its root value is the moment this namespace loaded, so the
  interpreter twin can run outside jepsen.core/run!."
  (linear-time-nanos))

(defn relative-time-nanos
  "Nanoseconds since *relative-time-origin*."
  ^long []
  (- (linear-time-nanos) *relative-time-origin*))

;; Logging (Jepsen's goes through clojure.tools.logging)

(def log-lines
  "What `info` logged, oldest first. jepsen.core/run! empties it when a test
  starts, so after a run it holds that run's log."
  (atom []))

(def ^:dynamic *log-to-err?*
  "When true, `info` also writes each line to *err*."
  false)

(defn info
  "Logs its arguments, joined by spaces, as one line; returns the line."
  [& xs]
  (let [line (apply print-str xs)]
    (swap! log-lines conj line)
    (when *log-to-err?*
      (binding [*out* *err*] (println line)))
    line))

(defn throw+
  "Throws an ex-info carrying `data`, where Jepsen throws with slingshot's
  throw+: with no message, slingshot's own (\"throw+: \" and the data)."
  ([data] (throw (ex-info (str "throw+: " (pr-str data)) data)))
  ([data cause message] (throw (ex-info message data cause))))

(defn local-time-str
  "Now, as Jepsen names a run's store directory (its basic date-time format),
  in UTC: \"20261128T152708.446Z\". Jepsen keeps a clj-time DateTime and
  formats it where it needs the string; the twin keeps the string."
  []
  (.format (DateTimeFormatter/ofPattern "yyyyMMdd'T'HHmmss.SSSX")
           (ZonedDateTime/now ZoneOffset/UTC)))

(defmacro with-relative-time
  "Evaluates body with relative time starting now."
  [& body]
  `(binding [*relative-time-origin* (linear-time-nanos)]
     (info "Relative time begins now")
     ~@body))

;; Forgettable references

;; forget: drops the referent, so the GC may reclaim it; returns this.
(definterface IForgettable
  (forget []))

(deftype Forgettable [^:unsynchronized-mutable x]
  IForgettable
  (forget [this] (set! x ::forgotten) this)

  clojure.lang.IDeref
  (deref [_]
    (let [v x]
      (if (identical? v ::forgotten)
        (throw+ {:type ::forgotten})
        v)))

  Object
  (toString [_]
    (let [v x]
      (str "#<Forgettable " (if (identical? v ::forgotten) "?" v) ">"))))

(defn forgettable
  "A deref-able reference to x that can be explicitly forgotten."
  [x]
  (Forgettable. x))

(defn forget!
  "Forgets a Forgettable's referent; later derefs throw."
  [^Forgettable f]
  (.forget f))

;; Printing, as fipp does it

(defprotocol PrintOverride
  "Stands for the pair fipp.ednize/IOverride + IEdn: a value that satisfies
  this prints as (-edn x) does, before any other dispatch."
  (-edn [x] "x as data the printer knows."))

(defn record-list-edn
  "How Jepsen prints its generators and nemeses (it extends fipp's IOverride
  and IEdn to their interfaces): a record as (ClassName {..fields..}), any
  other implementation as #unprintable \"(str x)\"."
  [x]
  (if (record? x)
    (list (symbol (.getName (class x))) (into {} x))
    (tagged-literal 'unprintable (str x))))

(defn- tagged-object [x rep]
  (let [^Class c (class x)]
    (tagged-literal 'object [(if (.isArray c) (.getName c) (symbol (.getName c)))
                             (format "0x%x" (System/identityHashCode x))
                             rep])))

(defn- edn
  "fipp's IEdn for what its visitor does not know."
  [x]
  (cond (instance? clojure.lang.IDeref x)
        (let [pending? (and (instance? clojure.lang.IPending x)
                            (not (realized? x)))
              [ex v]   (when-not pending?
                         (try [false @x] (catch Throwable e [true e])))]
          (tagged-object x {:status (cond ex :failed pending? :pending :else :ready)
                            :val    v}))

        (class? x) (symbol (.getName ^Class x))
        :else      (tagged-object x (str x))))

(declare visit)

(defn- pretty-coll
  "fipp's pretty-coll: at most :print-length elements, then \"...\" when one
  more exists, which realizes it."
  [{:keys [print-length print-level] :as p} open xs sep close f]
  (let [p    (cond-> p print-level (update :print-level dec))
        ys   (if (pos? (or print-level 1))
               (interpose sep (map #(f p %) (if print-length (take print-length xs) xs)))
               "#")
        more (when (and print-length (seq (drop print-length xs)))
               [:span sep "..."])]
    [:group open [:align ys more] close]))

(defn- visit-tagged [p tag form]
  [:group "#" (str tag) (when-not (coll? form) " ") (visit p form)])

(defn- visit
  "A document for x, dispatching in the order of fipp's visit*."
  [p x]
  (cond (nil? x)                 "nil"
        (satisfies? PrintOverride x) (visit p (-edn x))
        (boolean? x)             (str x)
        (string? x)              (pr-str x)
        (char? x)                (pr-str x)
        (symbol? x)              (str x)
        (keyword? x)             (str x)
        (number? x)              (binding [*print-dup* false] (pr-str x))
        (seq? x)                 (pretty-coll p "(" x :line ")" visit)
        (vector? x)              (pretty-coll p "[" x :line "]" visit)
        (record? x)              (visit-tagged p (symbol (.getName (class x))) (into {} x))
        (map? x)                 (pretty-coll p "{" x [:span "," :line] "}"
                                              (fn [p [k v]] [:span (visit p k) " " (visit p v)]))
        (set? x)                 (pretty-coll p "#{" x :line "}" visit)
        (tagged-literal? x)      (visit-tagged p (:tag x) (:form x))
        (var? x)                 (str x)
        (instance? java.util.regex.Pattern x) (pr-str x)
        :else                    (visit p (edn x))))

(defn pretty
  "A fipp document for x, printing at most *print-length* elements of a
  collection (as bound now, when the document is made)."
  ([x] (pretty x {}))
  ([x opts]
   (visit (merge {:print-length *print-length* :print-level *print-level*} opts) x)))

;; Layout: fipp's document language, laid out as its engine does: a group
;; goes flat when all of it fits in the rest of the line.

(defn- kids [[_ n & more :as d]]
  (if (number? n) more (rest d)))

(defn- fits?
  "Does doc, laid out flat, take at most `room` columns?"
  [doc room]
  (loop [stack (list doc), room room]
    (cond (neg? room)   false
          (empty? stack) true
          :else
          (let [d (peek stack), stack (pop stack)]
            (cond (nil? d)     (recur stack room)
                  (string? d)  (recur stack (- room (count d)))
                  (= :line d)  (recur stack (dec room))
                  (= :break d) false
                  (seq? d)     (recur (into stack (reverse d)) room)
                  :else
                  (case (first d)
                    :text  (recur stack (- room (reduce + (map count (rest d)))))
                    :line  (recur stack (- room (count (second d))))
                    :pass  (recur stack room)
                    (recur (into stack (reverse (kids d))) room)))))))

(defn pprint-document
  "Lays out a fipp document in `width` columns; returns the string, ending in
  a newline."
  [doc width]
  (let [sb (StringBuilder.)
        newline! (fn [indent]
                   (.append sb \newline)
                   (dotimes [_ indent] (.append sb \space))
                   indent)]
    (loop [stack (list [0 false doc]), col 0]
      (if (empty? stack)
        (str (.append sb \newline))
        (let [[indent flat? d] (peek stack)
              stack (pop stack)
              push  (fn [ds indent flat?]
                      (into stack (map (fn [k] [indent flat? k])) (reverse ds)))]
          (cond (nil? d)     (recur stack col)
                (string? d)  (do (.append sb ^String d) (recur stack (+ col (count d))))
                (= :line d)  (if flat?
                               (do (.append sb \space) (recur stack (inc col)))
                               (recur stack (newline! indent)))
                (= :break d) (recur stack (newline! indent))
                (seq? d)     (recur (push d indent flat?) col)
                :else
                (let [[tag n] d]
                  (case tag
                    :text  (let [s (apply str (rest d))]
                             (.append sb s)
                             (recur stack (+ col (count s))))
                    :pass  (do (.append sb (apply str (rest d))) (recur stack col))
                    :line  (let [[_ inline terminate] d]
                             (if flat?
                               (do (.append sb ^String inline) (recur stack (+ col (count inline))))
                               (do (.append sb ^String terminate) (recur stack (newline! indent)))))
                    :span  (recur (push (rest d) indent flat?) col)
                    :group (recur (push (rest d) indent
                                        (or flat? (fits? (vec (cons :span (rest d))) (- width col))))
                                  col)
                    :align (recur (push (kids d) (+ col (if (number? n) n 0)) flat?) col)
                    :nest  (recur (push (kids d) (+ indent (if (number? n) n 2)) flat?) col)))))))))

(defn pprint-str
  "x pretty-printed, 78 columns wide, as a string ending in a newline."
  [x]
  (pprint-document (pretty x) 78))

(defn test->str
  "Pretty-prints a test map to a string, as Jepsen logs it: every key's value
  in full, except the :generator's, printed with *print-length* 8."
  [test]
  (pprint-document
    [:group "{"
     [:nest 1
      (->> test
           (map (fn [[k v]]
                  [:group (pretty k) :line
                   (if (= k :generator)
                     (binding [*print-length* 8] (pretty v))
                     (pretty v))]))
           (interpose [:line ", " ""]))]
     "}"]
    80))
