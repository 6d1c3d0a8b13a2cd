(ns jepsen.nemesis
  "Test twin of Jepsen 0.3's jepsen.nemesis (jepsen-io/jepsen,
  jepsen/src/jepsen/nemesis.clj).

  Modelled: the `Nemesis` protocol (setup! invoke! teardown!), `Reflection`
  (`fs`), `noop` (a value, as in Jepsen: invoke! returns the op unchanged),
  and `validate`: setup! must return a Nemesis, and a completion must be a
  map with :type :info and the invocation's :process and :f, else it throws.
  So an op that the generator hands the nemesis thread and that noop returns
  as an :invoke comes back, through the worker, as an :info completion with
  :process :nemesis. Nemesis records print as (ClassName {..}), reifies as
  #unprintable, as Jepsen's fipp override has them.

  Simplified: ex-info where Jepsen throws with slingshot; none of the fault
  nemeses (partitions, clocks, kills), which need nodes."
  (:require [jepsen.client :as client]
            [jepsen.util :as util]))

(defprotocol Nemesis
  (setup! [this test] "Sets up the nemesis; returns it, ready to invoke.")
  (invoke! [this test op] "Applies an operation; returns its completion.")
  (teardown! [this test] "Tears down the nemesis when the test is done."))

(defprotocol Reflection
  "Optional: what a nemesis can do."
  (fs [this] "The set of :f values this nemesis handles."))

(extend jepsen.nemesis.Nemesis util/PrintOverride {:-edn util/record-list-edn})

(def noop
  "A nemesis that does nothing: invoke! returns the op as it came."
  (reify Nemesis
    (setup! [this _] this)
    (invoke! [_ _ op] op)
    (teardown! [this _] this)
    Reflection
    (fs [_] #{})))

(defrecord Validate [nemesis]
  Nemesis
  (setup! [_ test]
    (let [res (setup! nemesis test)]
      (when-not (satisfies? Nemesis res)
        (util/throw+ {:type ::setup-returned-non-nemesis, :got res} nil
                     (str "expected setup! to return a Nemesis, but got " (pr-str res) " instead")))
      (Validate. res)))
  (invoke! [_ test op]
    (let [op'      (invoke! nemesis test op)
          problems (client/completion-problems op op' #{:info} ":info")]
      (when (seq problems)
        (util/throw+ {:type ::invalid-completion, :op op, :op' op', :problems problems}))
      op'))
  (teardown! [_ test] (teardown! nemesis test)))

(defn validate
  "Wraps a nemesis, checking what setup! and invoke! return."
  [nemesis]
  (Validate. nemesis))
