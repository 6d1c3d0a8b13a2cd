(ns jepsen.core
  "Test twin of Jepsen 0.3's jepsen.core (jepsen-io/jepsen,
  jepsen/src/jepsen/core.clj).

  Modelled, in the order of Jepsen's run!: `prepare-test` fills in
  :start-time, :concurrency (the node count) and :barrier, and wraps the
  generator in a Forgettable; the whole test map is then logged with
  jepsen.util/test->str, before anything runs (which realizes the first
  elements of lazy sequences in the generator); relative time starts; the
  nemesis is validated and set up, and a client is opened and set up on every
  node; the generator interpreter runs; clients are torn down and closed, the
  nemesis torn down; :barrier is dropped; :results is
  (checker/check-safe (:checker test) test (:history test) {}); the results
  are logged; the test is returned.

  Simplified: no OS, DB, SSH sessions, store files or log files; logging is
  jepsen.util/info, which keeps lines in `log-lines` (the lines of the latest
  run, first the test map) and writes them to *err* only when
  jepsen.util/*log-to-err?* is bound true; :start-time is a string."
  (:refer-clojure :exclude [run!])
  (:require [clojure.string :as str]
            [jepsen.checker :as checker]
            [jepsen.client :as client]
            [jepsen.generator.interpreter :as interpreter]
            [jepsen.nemesis :as nemesis]
            [jepsen.util :as util])
  (:import (java.util.concurrent CyclicBarrier)))

(def log-lines
  "The lines logged by the latest run!, oldest first: the first is
  \"Running test:\" and the test map, as jepsen.util/test->str prints it."
  util/log-lines)

(defn prepare-test
  "The test with :start-time, :concurrency and :barrier filled in where
  missing, and its generator wrapped in a Forgettable."
  [test]
  (cond-> test
    (not (:start-time test))  (assoc :start-time (util/local-time-str))
    (not (:concurrency test)) (assoc :concurrency (count (:nodes test)))
    (not (:barrier test))     (assoc :barrier (let [n (count (:nodes test))]
                                                (if (pos? n) (CyclicBarrier. n) ::no-barrier)))
    true                      (update :generator util/forgettable)))

(defn- real-pmap
  "(f x) for every x at once, each on its own thread; the results in order."
  [f xs]
  (mapv deref (mapv #(future (f %)) xs)))

(defn run-case!
  "Sets up the nemesis and a client per node, runs the generator, and tears
  them down. Returns the test with :history."
  [test]
  (let [nemesis (nemesis/setup! (nemesis/validate (:nemesis test)) test)
        clients (real-pmap (fn [node]
                             (doto (client/open! (:client test) test node)
                               (client/setup! test)))
                           (:nodes test))
        test    (assoc test :nemesis nemesis)]
    (try (interpreter/run! test)
         (finally
           (real-pmap (fn [c]
                        (try (client/teardown! c test)
                             (finally (client/close! c test))))
                      clients)
           (nemesis/teardown! nemesis test)))))

(defn analyze!
  "The test with :results from its checker."
  [test]
  (util/info "Analyzing...")
  (let [test (assoc test :results (checker/check-safe (:checker test) test (:history test)))]
    (util/info "Analysis complete")
    test))

(defn log-results
  "Logs the results and a one-line verdict; returns the test."
  [test]
  (let [results (:results test)]
    (util/info (str (util/pprint-str results)
                    (when (:error results) (str "\n\n" (:error results)))
                    "\n\n"
                    (case (:valid? results)
                      false    "Analysis invalid!"
                      :unknown "Errors occurred during analysis; no anomalies found."
                      "Everything looks valid."))))
  test)

(defn log-test-start!
  "Logs the command line, when the test has :argv, and the test map."
  [test]
  (when-let [argv (:argv test)]
    (util/info (str "Command line:\n" (str/join " " (list* "lein" "run" argv)))))
  (util/info (str "Running test:\n" (util/test->str test))))

(defn run!
  "Runs a test (see the namespace doc) and returns it with :history and
  :results."
  [test]
  (let [test (prepare-test test)]
    (reset! log-lines [])
    (log-test-start! test)
    (-> (util/with-relative-time
          (dissoc (run-case! test) :barrier :sessions))
        analyze!
        log-results)))
