(ns jepsen.generator.interpreter
  "Test twin of Jepsen 0.3's jepsen.generator.interpreter (jepsen-io/jepsen,
  jepsen/src/jepsen/generator/interpreter.clj).

  Modelled, as Jepsen's `run!` does it: one worker thread per thread of the
  context (0..concurrency-1 and :nemesis), each taking invocations from its
  own one-slot ArrayBlockingQueue and putting completions on a shared queue.
  The main loop first polls for a completion: it gets the next :index and the
  current relative :time, its thread is freed, the generator is updated with
  it, and after an :info completion (or one with :end-process?) a client
  thread gets a new process (p + concurrency); the nemesis keeps its own.
  With nothing to complete, it asks the generator for an op at the current
  time: nil ends the run once nothing is outstanding; :pending waits up to
  1 ms for a completion; an op whose :time is still ahead waits until then
  (or a completion), after which the old generator is asked again; otherwise
  the op gets an :index, goes to its thread's worker, the thread is busy, and
  the generator is updated with the invocation. :sleep and :log ops are done
  by the worker and kept out of the history. A client worker opens its client
  (on node (nth nodes (mod thread (count nodes)))) through client/validate on
  its first op and again for each new process, unless the client is
  reusable; the nemesis worker invokes the nemesis through nemesis/validate.
  Any Throwable in a worker becomes an :info completion with :error
  \"indeterminate: ...\" and :exception. The generator is wrapped in
  friendly-exceptions and validate. Returns the test without :generator and
  with :history.

  Simplified: the history is a vector of jepsen.history.Op records in index
  order, kept in memory (no store handle, no history writer, no log of each
  op); the generator may be a plain generator as well as the Forgettable that
  jepsen.core wraps it in; the nemesis is validated here, where Jepsen relies
  on jepsen.core having done it, so running this alone behaves as a run
  through jepsen.core; a test without :nodes gives clients a nil node."
  (:refer-clojure :exclude [run!])
  (:require [jepsen.client :as client]
            [jepsen.generator :as gen]
            [jepsen.generator.context :as context]
            [jepsen.history :as h]
            [jepsen.nemesis :as nemesis]
            [jepsen.util :as util])
  (:import (java.util.concurrent ArrayBlockingQueue TimeUnit)))

(defprotocol Worker
  (open [this test id] "A worker for thread id.")
  (invoke! [this test op] "Performs op; returns its completion.")
  (close! [this test] "Releases what the worker holds."))

(deftype ClientWorker [node
                       ^:unsynchronized-mutable process
                       ^:unsynchronized-mutable client]
  Worker
  (open [this _ _] this)
  (invoke! [this test op]
    (if (and (not= process (:process op))
             (not (client/is-reusable? client test)))
      (do (close! this test)
          (let [c (try (client/open! (client/validate (:client test)) test node)
                       (catch Exception e e))]
            (if (instance? Exception c)
              (do (set! client nil)
                  (assoc op :type :fail, :error [:no-client (.getMessage ^Exception c)]))
              (do (set! client c)
                  (set! process (:process op))
                  (client/invoke! c test op)))))
      (client/invoke! client test op)))
  (close! [_ test]
    (when client
      (client/close! client test)
      (set! client nil))))

(defrecord NemesisWorker []
  Worker
  (open [this _ _] this)
  (invoke! [_ test op]
    (let [n (:nemesis test)]
      (nemesis/invoke! (if (instance? jepsen.nemesis.Validate n) n (nemesis/validate n))
                       test op)))
  (close! [_ _]))

(defn- open-worker
  "A client worker for an integer thread, the nemesis worker otherwise."
  [test id]
  (if (integer? id)
    (let [nodes (:nodes test)]
      (ClientWorker. (when (seq nodes) (nth nodes (mod id (count nodes)))) nil nil))
    (NemesisWorker.)))

(defn- crashed
  "The :info completion of an op whose worker threw e."
  [op ^Throwable e]
  (assoc op
         :type      :info
         :exception (Throwable->map e)
         :error     (str "indeterminate: "
                         (if (.getCause e) (.getMessage (.getCause e)) (.getMessage e)))))

(defn spawn-worker
  "Starts the worker thread for thread id: {:id id, :in its queue, :future}."
  [test ^ArrayBlockingQueue out id]
  (let [in  (ArrayBlockingQueue. 1)
        fut (future
              (let [worker (open-worker test id)]
                (try
                  (loop []
                    (let [op (.take in)]
                      (when-not (= :exit (:type op))
                        (.put out (try (case (:type op)
                                         :sleep (do (Thread/sleep (long (* 1000 (:value op)))) op)
                                         :log   (do (util/info (:value op)) op)
                                         (invoke! worker test op))
                                       (catch Throwable e (crashed op e))))
                        (recur))))
                  (finally (close! worker test)))))]
    {:id id, :in in, :future fut}))

(def max-pending-interval
  "How long, in microseconds, to wait for a completion while the generator is
  :pending."
  1000)

(defn goes-in-history?
  "Does this op go in the history? Not :sleep and :log ops."
  [op]
  (not (#{:sleep :log} (:type op))))

(defn- stop-workers!
  "After an abnormal exit: cancel each worker once, then ask those still
  running to exit."
  [workers]
  (doseq [w workers] (future-cancel (:future w)))
  (loop [ws workers]
    (when-let [{:keys [in future] :as w} (first ws)]
      (if (future-done? future)
        (recur (next ws))
        (do (.offer ^ArrayBlockingQueue in {:type :exit})
            (recur ws))))))

(defn run!
  "Runs the test's :generator against its :client and :nemesis, with a worker
  thread per thread, and returns the test with :history (a vector of
  jepsen.history.Op records) and without :generator."
  [test]
  (gen/init!)
  (let [ctx         (context/context test)
        threads     (vec (context/all-threads ctx))
        completions (ArrayBlockingQueue. (count threads))
        workers     (mapv #(spawn-worker test completions %) threads)
        inboxes     (into {} (map (juxt :id :in)) workers)
        g           (:generator test)
        g           (if (instance? jepsen.util.Forgettable g)
                      (let [v @g] (util/forget! g) v)
                      g)
        gen         (gen/validate (gen/friendly-exceptions g))
        test        (dissoc test :generator)]
    (try
      (loop [ctx ctx, gen gen, history (transient []), outstanding 0, poll-timeout 0]
        (if-let [op' (.poll completions poll-timeout TimeUnit/MICROSECONDS)]
          (let [thread (context/process->thread ctx (:process op'))
                time   (util/relative-time-nanos)
                op'    (assoc (h/op op') :index (count history) :time time)
                ctx    (context/free-thread ctx time thread)
                gen    (gen/update gen test ctx op')
                ctx    (if (and (not= :nemesis thread)
                                (or (= :info (:type op')) (:end-process? op')))
                         (context/with-next-process ctx thread)
                         ctx)]
            (recur ctx gen (cond-> history (goes-in-history? op') (conj! op'))
                   (dec outstanding) 0))
          (let [time      (util/relative-time-nanos)
                ctx       (assoc ctx :time time)
                [op gen'] (gen/op gen test ctx)]
            (cond
              (nil? op)
              (if (pos? outstanding)
                (recur ctx gen history outstanding max-pending-interval)
                (do (doseq [in (vals inboxes)] (.put ^ArrayBlockingQueue in {:type :exit}))
                    (doseq [w workers] @(:future w))
                    (assoc test :history (persistent! history))))

              (= :pending op)
              (recur ctx gen history outstanding max-pending-interval)

              (< time (:time op))
              (recur ctx gen history outstanding (long (/ (- (:time op) time) 1000)))

              :else
              (let [thread (context/process->thread ctx (:process op))
                    op     (assoc op :index (count history))
                    _      (.put ^ArrayBlockingQueue (get inboxes thread) op)
                    ctx    (context/busy-thread ctx (:time op) thread)]
                (recur ctx (gen/update gen' test ctx op)
                       (cond-> history (goes-in-history? op) (conj! op))
                       (inc outstanding) 0))))))
      (catch Throwable t
        (util/info "Shutting down workers after abnormal exit")
        (stop-workers! workers)
        (throw t)))))
