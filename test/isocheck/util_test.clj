(ns isocheck.util-test
  "isocheck.util's small shared pieces, against brute force."
  (:require [clojure.test :refer [deftest is]])
  (:import (isocheck.util IntList)))

(deftest last-at-most-is-the-last-index-at-or-below
  ;; IntList.lastAtMost (Cobra's log of a transaction, the window's block of a position, a
  ;; clock entry's occupancy): the last index whose value is at most x, 0 when none is.
  (let [rnd (java.util.Random. 7)]
    (dotimes [_ 2000]
      (let [n (inc (.nextInt rnd 20))
            xs (vec (sort (repeatedly n #(.nextInt rnd 50))))
            l (IntList/of (int-array xs) n)
            x (- (.nextInt rnd 60) 5)
            want (or (last (keep-indexed (fn [i v] (when (<= v x) i)) xs)) 0)]
        (is (= want (.lastAtMost l (int x))) (pr-str xs x))
        (is (= want (IntList/lastAtMost (int-array (concat xs [99 99])) (int n) (int x))) (pr-str xs x))))
    (is (zero? (.lastAtMost (IntList.) 3)) "empty")))
