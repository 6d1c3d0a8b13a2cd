(ns jepsen.store
  "Test twin of Jepsen 0.3's jepsen.store (jepsen-io/jepsen,
  jepsen/src/jepsen/store.clj): where a run's files go.

  Modelled: `path` and `path!`: a test's directory is
  store/<:name>/<:start-time>/, further arguments name a file or
  subdirectory below it (nested collections flattened, nils dropped, each
  part through `str`), and `path!` creates the parent directories. So a
  checker can write its files under store/<test>/<time>/.

  Simplified: :start-time is used as a string (jepsen.core's twin makes it
  one; Jepsen formats its DateTime to the same shape); the base directory is
  (:store-dir test \"store\"), where Jepsen's is always \"store\", so tests
  can write under a temporary directory; nothing is saved or loaded."
  (:require [clojure.java.io :as io]))

(def base-dir "Where runs are kept, unless the test says :store-dir." "store")

(defn path
  "The test's directory, or, with more arguments, a file below it."
  (^java.io.File [test]
   (assert (:name test))
   (assert (:start-time test))
   (io/file (:store-dir test base-dir) (:name test) (str (:start-time test))))
  (^java.io.File [test & args]
   (->> args flatten (remove nil?) (map str) (apply io/file (path test)))))

(defn path!
  "Like path, and creates the directories that contain it."
  ^java.io.File [& args]
  (let [f (apply path args)]
    (io/make-parents f)
    f))
