(ns jepsen.client
  "Test twin of Jepsen 0.3's jepsen.client (jepsen-io/jepsen,
  jepsen/src/jepsen/client.clj).

  Modelled: the `Client` protocol (open! close! setup! invoke! teardown!),
  `Reusable` with `is-reusable?` (false when the client does not implement
  it), `noop` (every invocation completes :ok), and `validate`, the wrapper
  the interpreter opens clients through: open! must return a Client, and a
  completion must be a map with :type :ok, :info or :fail and the
  invocation's :process and :f, else it throws (and the worker turns that
  into an :info completion).

  Simplified: ex-info where Jepsen throws with slingshot; no timeout wrapper,
  with-client, or the pre-0.2 compatibility shims."
  (:require [jepsen.util :as util]))

(defprotocol Client
  (open! [client test node]
    "A client ready to invoke operations against node. Should not change the
    database's logical state.")
  (close! [client test]
    "Releases the client's connection.")
  (setup! [client test]
    "Sets up database state for the test, once.")
  (invoke! [client test operation]
    "Applies an operation; returns its completion.")
  (teardown! [client test]
    "Tears down database state when the test is done."))

(defprotocol Reusable
  (reusable? [client test]
    "True when the client may go on serving a fresh process after an :info
    completion or a crash; otherwise it is closed and a new one opened."))

(defn is-reusable?
  "reusable?, false when the client does not implement Reusable."
  [client test]
  (try (reusable? client test)
       (catch IllegalArgumentException _ false)))

(def noop
  "A client that does nothing and completes every op :ok."
  (reify Client
    (setup!    [_ _])
    (teardown! [_ _])
    (invoke!   [_ _ op] (assoc op :type :ok))
    (open!     [this _ _] this)
    (close!    [_ _])))

(defn completion-problems
  "What is wrong with op' as the completion of op, for the validate wrappers
  of clients and nemeses (a twin helper; Jepsen spells the checks out in
  each): not a map, a :type outside `types` (a set, named by `types-doc`),
  another :process or :f."
  [op op' types types-doc]
  (cond-> []
    (not (map? op'))                    (conj "should be a map")
    (not (types (:type op')))           (conj (str ":type should be " types-doc))
    (not= (:process op) (:process op')) (conj ":process should be the same")
    (not= (:f op) (:f op'))             (conj ":f should be the same")))

(defrecord Validate [client]
  Client
  (open! [_ test node]
    (let [res (open! client test node)]
      (when-not (satisfies? Client res)
        (util/throw+ {:type ::open-returned-non-client, :got res} nil
                     (str "expected open! to return a Client, but got " (pr-str res) " instead")))
      (Validate. res)))
  (close! [_ test] (close! client test))
  (setup! [_ test] (Validate. (setup! client test)))
  (invoke! [_ test op]
    (let [op'      (invoke! client test op)
          problems (completion-problems op op' #{:ok :info :fail} ":ok, :info, or :fail")]
      (when (seq problems)
        (util/throw+ {:type ::invalid-completion, :op op, :op' op', :problems problems}))
      op'))
  (teardown! [_ test] (teardown! client test))

  Reusable
  (reusable? [_ test] (reusable? client test)))

(defn validate
  "Wraps a client, checking what open! and invoke! return."
  [client]
  (Validate. client))
