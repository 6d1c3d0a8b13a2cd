(ns jepsen.generator
  "Test twin of Jepsen 0.3's pure generators, jepsen.generator (jepsen-io/jepsen,
  jepsen/src/jepsen/generator.clj, the 0.3-era version with contexts).

  A generator answers (op gen test ctx) with nil (exhausted), [:pending gen]
  or [op gen'], op a jepsen.history.Op, and (update gen test ctx event) with
  the generator after an invocation or completion. Modelled, with Jepsen's
  semantics:
  - the default generators: nil; a map, one operation filled in from the
    context (`fill-in-op`: :time, :type :invoke and a free :process unless
    given, other keys kept; :pending when no process is free); a function of
    no arguments or of (test ctx), called for a generator that is used up
    before it is called again; a delay, forced when asked; any Seqable, its
    elements one after the other, `update` going to the first; promises,
    :pending until delivered (after `init!`);
  - `validate` (the checks Jepsen makes of every [op gen'] pair) and
    `friendly-exceptions`, which the interpreter wraps a test's generator in;
  - the combinators `map`, `f-map`, `filter`, `on-threads`/`on`, `clients`,
    `nemesis`, `any`, `each-thread`, `reserve`, `mix`, `limit`, `once`,
    `log`, `repeat`, `cycle`, `time-limit` (its cutoff counted from its first
    op's :time), `stagger`, `delay`, `sleep`, `synchronize`, `phases` (a lazy
    sequence of synchronized generators, as Jepsen's), `then`, `until-ok`,
    `concat`; and the context functions Jepsen re-exports here.
  - printing: generator records print as (ClassName {..fields..}), as
    Jepsen's fipp override has them (see jepsen.util/test->str).

  Simplified: exceptions are ex-infos carrying the data Jepsen's slingshot
  maps carry; friendly-exceptions prints the generator with the twin's
  printer rather than clojure.pprint; a function generator's arity is read
  from its class by reflection (0 if it has a no-argument arity, else 2);
  no trace, flip-flop, process-limit, cycle-times or on-update."
  (:refer-clojure :exclude [concat cycle delay filter map repeat update])
  (:require [clojure.core :as c]
            [clojure.set :as set]
            [jepsen.generator.context :as context]
            [jepsen.history :as history]
            [jepsen.util :as util]))

(doseq [f '[all-processes all-threads context free-processes free-threads
            process->thread some-free-process thread->process]]
  (let [v (ns-resolve 'jepsen.generator.context f)]
    (intern *ns* (with-meta f (select-keys (meta v) [:doc :arglists])) @v)))

(defprotocol Generator
  (update [gen test context event]
    "The generator after an event (an invocation or a completion).")
  (op [gen test context]
    "[op gen'], [:pending gen], or nil when exhausted."))

(extend jepsen.generator.Generator util/PrintOverride {:-edn util/record-list-edn})

(defn fill-in-op
  "A jepsen.history.Op from an operation map, with :time, :type (:invoke)
  and :process (a free one) taken from the context where the map has none;
  :pending when no process is free."
  [o ctx]
  (assert (not (history/op? o)))
  (if-let [p (context/some-free-process ctx)]
    (history/map->Op (assoc (merge {:time (:time ctx), :type :invoke, :process p} o)
                            :index -1))
    :pending))

(defn- arity
  "2 when f has an arity of two arguments and none of zero; else 0."
  [f]
  (let [arities (set (c/map #(count (.getParameterTypes ^java.lang.reflect.Method %))
                            (c/filter #(= "invoke" (.getName ^java.lang.reflect.Method %))
                                      (.getDeclaredMethods (class f)))))]
    (if (and (arities 2) (not (arities 0))) 2 0)))

(defrecord Fn [arity f]
  Generator
  (update [this _ _ _] this)
  (op [this test ctx]
    (when-let [gen (if (= 2 arity) (f test ctx) (f))]
      (op [gen this] test ctx))))

(extend-protocol Generator
  nil
  (update [_ _ _ _] nil)
  (op [_ _ _] nil)

  clojure.lang.APersistentMap
  (update [this _ _ _] this)
  (op [this _ ctx]
    (let [o (fill-in-op this ctx)]
      [o (when (= :pending o) this)]))

  clojure.lang.AFunction
  (update [f test ctx event] (update (Fn. (arity f) f) test ctx event))
  (op [f test ctx] (op (Fn. (arity f) f) test ctx))

  clojure.lang.Delay
  (update [d _ _ _] d)
  (op [d test ctx] (op @d test ctx))

  clojure.lang.Seqable
  (update [this test ctx event]
    (when (seq this)
      (cons (update (first this) test ctx event) (next this))))
  (op [this test ctx]
    (loop [gens this]
      (when (seq gens)
        (if-let [[o gen'] (op (first gens) test ctx)]
          [o (if-let [more (next gens)] (cons gen' more) gen')]
          (recur (next gens))))))

  jepsen.util.Forgettable
  (update [this test ctx event] (update @this test ctx event))
  (op [this test ctx] (op @this test ctx)))

(defonce ^:private initialized? (atom false))

(defn init!
  "Makes promises generators (:pending until delivered, then their value),
  once. The interpreter calls this."
  []
  (when (compare-and-set! initialized? false true)
    (extend (class (promise)) Generator
      {:update (fn [p _ _ _] p)
       :op     (fn [p test ctx]
                 (if (realized? p) (op @p test ctx) [:pending p]))})))

;; Wrappers the interpreter puts around a test's generator

(defrecord Validate [gen]
  Generator
  (op [_ test ctx]
    (when-let [res (op gen test ctx)]
      (let [pair?    (and (vector? res) (= 2 (count res)))
            [o gen'] (when pair? res)
            problems
            (cond (not pair?)
                  ["should return a vector of two elements."]

                  (= :pending o) []

                  :else
                  (cond-> []
                    (not (history/op? o))
                    (conj "should be either :pending or a jepsen.history.Op")
                    (not (#{:invoke :info :sleep :log} (:type o)))
                    (conj ":type should be :invoke, :info, :sleep, or :log")
                    (not (number? (:time o)))
                    (conj ":time should be a number")
                    (not (:process o))
                    (conj "no :process")
                    (not (->> (:process o) (context/process->thread ctx) (context/thread-free? ctx)))
                    (conj (str "process " (pr-str (:process o)) " is not free"))))]
        (when (seq problems)
          (util/throw+ {:type ::invalid-op, :context ctx, :res res, :problems problems}
                       nil
                       (str "Generator produced an invalid [op, gen'] tuple: "
                            (binding [*print-length* 10] (pr-str res))
                            "\n - " (apply str (interpose "\n - " problems)))))
        [o (Validate. gen')])))
  (update [_ test ctx event]
    (Validate. (update gen test ctx event))))

(defn validate
  "Checks every [op gen'] the generator produces, throwing on a malformed one."
  [gen]
  (Validate. gen))

(defn- gen-str [gen]
  (binding [*print-length* 10] (util/pprint-str gen)))

(defrecord FriendlyExceptions [gen]
  Generator
  (op [_ test ctx]
    (try (when-let [[o gen'] (op gen test ctx)]
           [o (FriendlyExceptions. gen')])
         (catch Throwable t
           (util/throw+ {:type ::op-threw, :context ctx} t
                        (str "Generator threw " (class t) " - " (.getMessage t)
                             " when asked for an operation. Generator:\n" (gen-str gen))))))
  (update [_ test ctx event]
    (try (when-let [gen' (update gen test ctx event)]
           (FriendlyExceptions. gen'))
         (catch Throwable t
           (util/throw+ {:type ::update-threw, :context ctx, :event event} t
                        (str "Generator threw " t " when updated with an event. Generator:\n"
                             (gen-str gen)))))))

(defn friendly-exceptions
  "Wraps exceptions from op and update in ex-infos of :type ::op-threw or
  ::update-threw, saying which generator threw."
  [gen]
  (FriendlyExceptions. gen))

;; Combinators

(defrecord Map [f gen]
  Generator
  (op [_ test ctx]
    (when-let [[o gen'] (op gen test ctx)]
      [(if (= :pending o) o (f o)) (Map. f gen')]))
  (update [_ test ctx event] (Map. f (update gen test ctx event))))

(defn map
  "Transforms each op (not :pending or nil) the generator produces with f."
  [f gen]
  (Map. f gen))

(defn f-map
  "Renames each op's :f through the map (or function) f-map."
  [f-map gen]
  (map (fn transform [o] (c/update o :f f-map)) gen))

(defrecord Filter [f gen]
  Generator
  (op [_ test ctx]
    (loop [gen gen]
      (when-let [[o gen'] (op gen test ctx)]
        (if (or (= :pending o) (f o))
          [o (Filter. f gen')]
          (recur gen')))))
  (update [_ test ctx event] (Filter. f (update gen test ctx event))))

(defn filter
  "Passes on only the ops matching (f op); :pending and nil bypass f."
  [f gen]
  (Filter. f gen))

(defn concat
  "A generator of the given generators, one after another."
  [& gens]
  (seq gens))

(defrecord OnThreads [f context-filter gen]
  Generator
  (op [_ test ctx]
    (when-let [[o gen'] (op gen test (context-filter ctx))]
      [o (OnThreads. f context-filter gen')]))
  (update [this test ctx event]
    (if (f (context/process->thread ctx (:process event)))
      (OnThreads. f context-filter (update gen test (context-filter ctx) event))
      this)))

(defn on-threads
  "Only the threads matching (f thread) ask gen for ops, and only their events
  update it; gen sees a context of just those threads."
  [f gen]
  (OnThreads. f (context/make-thread-filter f) gen))

(def on "For backwards compatibility: on-threads." on-threads)

(defn soonest-op-map
  "Of two maps {:op .. :weight ..}, the one whose op comes first: a nil map or
  a :pending op loses; equal times are settled at random in proportion to the
  weights, and the winner carries their sum."
  ([] nil)
  ([m] m)
  ([m1 m2]
   (cond (nil? m1) m2
         (nil? m2) m1
         (= :pending (:op m1)) m2
         (= :pending (:op m2)) m1
         :else
         (let [t1 (:time (:op m1)), t2 (:time (:op m2))]
           (if (= t1 t2)
             (let [w1 (:weight m1 1), w (+ w1 (:weight m2 1))]
               (assoc (if (< (rand-int w) w1) m1 m2) :weight w))
             (if (< t1 t2) m1 m2))))))

(defrecord Any [gens]
  Generator
  (op [_ test ctx]
    (when-let [{o :op, gen' :gen', i :i}
               (reduce soonest-op-map nil
                       (map-indexed (fn [i gen]
                                      (when-let [[o gen'] (op gen test ctx)]
                                        {:op o, :gen' gen', :i i}))
                                    gens))]
      [o (Any. (assoc gens i gen'))]))
  (update [_ test ctx event]
    (Any. (mapv #(update % test ctx event) gens))))

(defn any
  "Ops from whichever generator has one soonest; updates go to all."
  [& gens]
  (case (count gens)
    0 nil
    1 (first gens)
    (Any. (vec gens))))

(defn clients
  "One argument: gen, asked only by client threads. Two: client-gen for the
  clients, nemesis-gen for the nemesis."
  ([client-gen]
   (on-threads (context/all-but :nemesis) client-gen))
  ([client-gen nemesis-gen]
   (any (clients client-gen) (on-threads #{:nemesis} nemesis-gen))))

(defn nemesis
  "One argument: gen, asked only by the nemesis. Two: nemesis-gen for the
  nemesis, client-gen for the clients."
  ([nemesis-gen]
   (on-threads #{:nemesis} nemesis-gen))
  ([nemesis-gen client-gen]
   (any (nemesis nemesis-gen) (clients client-gen))))

(defrecord EachThread [fresh-gen gens]
  Generator
  (op [this test ctx]
    (let [{o :op, gen' :gen', thread :thread}
          (reduce soonest-op-map nil
                  (keep (fn [thread]
                          (let [tctx ((context/make-thread-filter #{thread} ctx) ctx)]
                            (when-let [[o gen'] (op (get gens thread fresh-gen) test tctx)]
                              {:op o, :gen' gen', :thread thread})))
                        (context/free-threads ctx)))]
      (cond o [o (EachThread. fresh-gen (assoc gens thread gen'))]
            (not= (context/free-thread-count ctx) (context/all-thread-count ctx)) [:pending this]
            :else nil)))
  (update [_ test ctx event]
    (let [thread (context/process->thread ctx (:process event))
          tctx   ((context/make-thread-filter #{thread} ctx) ctx)]
      (EachThread. fresh-gen
                   (assoc gens thread (update (get gens thread fresh-gen) test tctx event))))))

(defn each-thread
  "A separate copy of gen for every thread, each seeing only its thread."
  [gen]
  (EachThread. gen {}))

(defrecord Reserve [ranges context-filters gens]
  Generator
  (op [_ test ctx]
    (let [ask (fn [i weight]
                (let [tctx ((nth context-filters i) ctx)]
                  (when-let [[o gen'] (op (nth gens i) test tctx)]
                    {:op o, :gen' gen', :weight (weight tctx), :i i})))
          {o :op, gen' :gen', i :i}
          (reduce soonest-op-map
                  (ask (count ranges) context/all-thread-count)
                  (map-indexed (fn [i threads] (ask i (constantly (count threads)))) ranges))]
      (when o
        [o (Reserve. ranges context-filters (assoc gens i gen'))])))
  (update [_ test ctx event]
    (let [thread (context/process->thread ctx (:process event))
          i      (or (first (keep-indexed (fn [i r] (when (r thread) i)) ranges))
                     (count ranges))]
      (Reserve. ranges context-filters (c/update gens i update test ctx event)))))

(defn reserve
  "(reserve 5 write-gen, 10 cas-gen, read-gen): threads 0-4 run write-gen,
  5-14 cas-gen, the rest (the nemesis too) read-gen."
  [& args]
  (let [pairs  (partition 2 (butlast args))
        ranges (second (reduce (fn [[n rs] [k _]] [(+ n k) (conj rs (set (range n (+ n k))))])
                               [0 []]
                               pairs))
        all    (reduce set/union #{} ranges)]
    (assert (last args))
    (Reserve. ranges
              (mapv context/make-thread-filter (conj ranges (complement all)))
              (conj (mapv second pairs) (last args)))))

(defn- drop-nth [v i]
  (into (subvec v 0 i) (subvec v (inc i))))

(defrecord Mix [i gens]
  Generator
  (op [_ test ctx]
    (when (seq gens)
      (if-let [[o gen'] (op (nth gens i) test ctx)]
        [o (Mix. (rand-int (count gens)) (assoc gens i gen'))]
        (op (Mix. (rand-int (dec (count gens))) (drop-nth gens i)) test ctx))))
  (update [this _ _ _] this))

(defn mix
  "A random mixture of generators: each op from one picked uniformly. Ignores
  updates."
  [gens]
  (when (seq gens)
    (Mix. (rand-int (count gens)) (vec gens))))

(defrecord Limit [remaining gen]
  Generator
  (op [_ test ctx]
    (when (pos? remaining)
      (when-let [[o gen'] (op gen test ctx)]
        [o (Limit. (dec remaining) gen')])))
  (update [_ test ctx event] (Limit. remaining (update gen test ctx event))))

(defn limit
  "At most `remaining` ops (a :pending answer counts as one, as in Jepsen)."
  [remaining gen]
  (Limit. remaining gen))

(defn once
  "Only the first op of gen."
  [gen]
  (limit 1 gen))

(defn log
  "An op that makes its worker log msg; kept out of the history."
  [msg]
  {:type :log, :value msg})

(defrecord Repeat [remaining gen]
  Generator
  (op [_ test ctx]
    (when-not (zero? remaining)
      (when-let [[o _] (op gen test ctx)]
        [o (Repeat. (max -1 (dec remaining)) gen)])))
  (update [_ test ctx event] (Repeat. remaining (update gen test ctx event))))

(defn repeat
  "gen's first op, over and over (forever, or `limit` times): gen itself does
  not advance."
  ([gen] (Repeat. -1 gen))
  ([limit gen]
   (assert (not (neg? limit)))
   (Repeat. limit gen)))

(defrecord Cycle [remaining original gen]
  Generator
  (op [_ test ctx]
    (when-not (zero? remaining)
      (if-let [[o gen'] (op gen test ctx)]
        [o (Cycle. remaining original gen')]
        (op (Cycle. (dec remaining) original original) test ctx))))
  (update [_ test ctx event] (Cycle. remaining original (update gen test ctx event))))

(defn cycle
  "gen, started over each time it is exhausted (forever, or `limit` times)."
  ([gen] (Cycle. -1 gen gen))
  ([limit gen] (Cycle. limit gen gen)))

(defrecord TimeLimit [limit cutoff gen]
  Generator
  (op [_ test ctx]
    (let [[o gen'] (op gen test ctx)]
      (cond (nil? o)        nil
            (= :pending o)  [:pending (TimeLimit. limit cutoff gen')]
            :else
            (let [cutoff (or cutoff (+ (:time o) limit))]
              (when (< (:time o) cutoff)
                [o (TimeLimit. limit cutoff gen')])))))
  (update [_ test ctx event] (TimeLimit. limit cutoff (update gen test ctx event))))

(defn time-limit
  "Ops of gen for dt seconds, counted from the :time of its first op."
  [dt gen]
  (TimeLimit. (long (util/secs->nanos dt)) nil gen))

(defrecord Stagger [dt next-time gen]
  Generator
  (op [this test ctx]
    (when-let [[o gen'] (op gen test ctx)]
      (let [next-time (or next-time (:time ctx))]
        (cond (= :pending o)           [o this]
              (<= next-time (:time o)) [o (Stagger. dt (+ (:time o) (long (rand dt))) gen')]
              :else                    [(assoc o :time next-time)
                                        (Stagger. dt (+ next-time (long (rand dt))) gen')]))))
  (update [_ test ctx event] (Stagger. dt next-time (update gen test ctx event))))

(defn stagger
  "Ops of gen at uniformly random intervals of 0 to 2*dt seconds (in total,
  across all threads)."
  [dt gen]
  (Stagger. (long (util/secs->nanos (* 2 dt))) nil gen))

(defrecord Delay [dt next-time gen]
  Generator
  (op [_ test ctx]
    (when-let [[o gen'] (op gen test ctx)]
      (if (= :pending o)
        [o (Delay. dt next-time gen')]
        (let [o (c/update o :time max (or next-time (:time o)))]
          [o (Delay. dt (+ (:time o) dt) gen')]))))
  (update [_ test ctx event] (Delay. dt next-time (update gen test ctx event))))

(defn delay
  "Ops of gen dt seconds apart (sooner when running behind)."
  [dt gen]
  (Delay. (long (util/secs->nanos dt)) nil gen))

(defn sleep
  "An op that makes its worker do nothing for dt seconds."
  [dt]
  {:type :sleep, :value dt})

(defrecord Synchronize [gen]
  Generator
  (op [this test ctx]
    (if (= (context/free-thread-count ctx) (context/all-thread-count ctx))
      (op gen test ctx)
      [:pending this]))
  (update [_ test ctx event] (Synchronize. (update gen test ctx event))))

(defn synchronize
  "gen, once every thread is free."
  [gen]
  (Synchronize. gen))

(defn phases
  "Each generator in turn, the next waiting until every thread is free."
  [& generators]
  (c/map synchronize generators))

(defn then
  "b, then (once every thread is free) a: backwards, for ->>."
  [a b]
  [b (synchronize a)])

(defrecord UntilOk [gen done? active-processes]
  Generator
  (op [this test ctx]
    (when-not done?
      (when-let [[o gen'] (op gen test ctx)]
        (if (= :pending o)
          [o (assoc this :gen gen')]
          [o (UntilOk. gen' done? (conj active-processes (:process o)))]))))
  (update [_ test ctx event]
    (let [gen' (update gen test ctx event)
          p    (:process event)]
      (if (contains? active-processes p)
        (case (:type event)
          :ok           (UntilOk. gen' true (disj active-processes p))
          (:info :fail) (UntilOk. gen' done? (disj active-processes p))
          (UntilOk. gen' done? active-processes))
        (UntilOk. gen' done? active-processes)))))

(defn until-ok
  "Ops of gen until one of them completes :ok."
  [gen]
  (UntilOk. gen false #{}))
