(ns jepsen.generator.context
  "Test twin of Jepsen 0.3's jepsen.generator.context (jepsen-io/jepsen,
  jepsen/src/jepsen/generator/context.clj, with translation_table.clj).

  A context tells generators what time it is, which threads exist, which are
  free and which process each runs. Modelled, with the same semantics: threads
  are 0..concurrency-1 plus :nemesis, each with an index (integers are their
  own index, :nemesis comes after them); initially all are free and each runs
  itself as its process. `some-free-process` scans the free threads from the
  next thread index, wrapping around, and `busy-thread` advances that index
  (modulo the thread count), so operations rotate across threads;
  `with-next-process` gives a thread the process p + (integer thread count),
  the :nemesis keeping its own; `make-thread-filter` restricts a context to
  the threads matching a predicate (precomputed from a context, or lazily
  from the first context it sees); `all-but` is the predicate matching
  everything but one thread.

  Simplified: a context is an immutable Clojure map whose only public key is
  :time (users may add their own); the bookkeeping sits under this
  namespace's qualified keys, in sorted sets of indices where Jepsen has
  BitSets and Bifurcan maps. Thread sets come back as Clojure sets.")

(defn- thread-index
  "A thread's index, or nil when the context has no such thread."
  [ctx thread]
  (if (integer? thread)
    thread
    (let [i (.indexOf ^java.util.List (::named ctx) thread)]
      (when-not (neg? i) (+ (::ints ctx) i)))))

(defn context
  "A fresh context for a test: time 0, threads 0..(:concurrency test)-1 and
  :nemesis, all free, each running itself as its process."
  [test]
  (let [n       (:concurrency test)
        named   [:nemesis]
        names   (into (vec (range n)) named)
        indices (into (sorted-set) (range (count names)))]
    {:time     0
     ::ints    n
     ::named   named
     ::names   names
     ::all     indices
     ::free    indices
     ::next    0
     ::process names
     ::thread  (zipmap names names)}))

(defn- names [ctx indices]
  (into #{} (map (::names ctx)) indices))

(defn all-threads       "Every thread in the context."  [ctx] (names ctx (::all ctx)))
(defn all-thread-count  "How many threads in all."      [ctx] (count (::all ctx)))
(defn free-thread-count "How many threads are free."    [ctx] (count (::free ctx)))
(defn free-threads      "The threads not busy with an invocation." [ctx] (names ctx (::free ctx)))

(defn process->thread
  "The thread running a process, or nil."
  [ctx process]
  (get (::thread ctx) process))

(defn thread->process
  "The process a thread runs."
  [ctx thread]
  (nth (::process ctx) (thread-index ctx thread)))

(defn all-processes
  "The processes of every thread in the context."
  [ctx]
  (mapv (::process ctx) (::all ctx)))

(defn free-processes
  "The processes of the free threads."
  [ctx]
  (mapv (::process ctx) (::free ctx)))

(defn thread-free?
  "Is this thread free?"
  [ctx thread]
  (boolean (some->> (thread-index ctx thread) (contains? (::free ctx)))))

(defn some-free-process
  "The process of the first free thread at or after the next thread index,
  wrapping around; nil when none is free."
  [ctx]
  (let [free (::free ctx)]
    (when-let [i (or (first (subseq free >= (::next ctx))) (first free))]
      (nth (::process ctx) i))))

(defn busy-thread
  "The context at `time` with `thread` busy; the next thread index moves on."
  [ctx time thread]
  (assoc ctx
         :time   time
         ::next  (mod (inc (::next ctx)) (count (::names ctx)))
         ::free  (disj (::free ctx) (thread-index ctx thread))))

(defn free-thread
  "The context at `time` with `thread` free."
  [ctx time thread]
  (assoc ctx
         :time  time
         ::free (conj (::free ctx) (thread-index ctx thread))))

(defn with-next-process
  "The context with `thread` running a new process: an integer process p
  becomes p + the number of integer threads; other processes stay."
  [ctx thread]
  (let [p  (thread->process ctx thread)
        p' (if (integer? p) (+ (::ints ctx) p) p)]
    (assoc ctx
           ::process (assoc (::process ctx) (thread-index ctx thread) p')
           ::thread  (-> (::thread ctx) (dissoc p) (assoc p' thread)))))

(defrecord AllBut [element]
  clojure.lang.IFn
  (invoke [_ x] (when-not (= element x) x)))

(defn all-but
  "A predicate true of every thread but x."
  [x]
  (AllBut. x))

(defn make-thread-filter
  "A function restricting a context (this one, or one like it at another time
  or with other threads busy) to the threads matching pred. Without a
  context, the function works that out from the first context it is given."
  ([pred]
   (let [compiled (atom nil)]
     (fn lazy-filter [ctx]
       ((or @compiled (reset! compiled (make-thread-filter pred ctx))) ctx))))
  ([pred ctx]
   (let [keep (into (sorted-set) (filter #(pred (nth (::names ctx) %))) (::all ctx))
         both (fn [s] (into (sorted-set) (filter keep) s))]
     (fn thread-filter [ctx]
       (assoc ctx ::all (both (::all ctx)) ::free (both (::free ctx)))))))
