(ns jepsen.tests
  "Test twin of Jepsen 0.3's jepsen.tests (jepsen-io/jepsen,
  jepsen/src/jepsen/tests.clj).

  Modelled: `noop-test`, the stub tests start from: :name \"noop\", :nodes
  n1 to n5, the noop client and nemesis, no generator, and a checker that
  always says valid. Like Jepsen's it has no :concurrency: jepsen.core/run!
  makes that the node count.

  Simplified: no :os, :db, :net or :remote (they need nodes over SSH), and no
  atom-db or atom-client."
  (:require [jepsen.checker :as checker]
            [jepsen.client :as client]
            [jepsen.nemesis :as nemesis]))

(def noop-test
  "A test that does nothing; merge what a test needs into it."
  {:nodes     ["n1" "n2" "n3" "n4" "n5"]
   :name      "noop"
   :client    client/noop
   :nemesis   nemesis/noop
   :generator nil
   :checker   (checker/unbridled-optimism)})
