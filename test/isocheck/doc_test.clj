(ns isocheck.doc-test
  "The Jepsen documentation, run: every Clojure block of README.md's \"Use it
  in a Jepsen test\" and \"The checker's options and result\" sections and of
  doc/jepsen.md is read and evaluated, in order, in the namespaces the blocks
  declare, against test-twins/ (twins of Jepsen's namespaces, modelled on its
  source). A form followed by a comment `;; => value` must evaluate to that
  value. Blocks that are project.clj fragments (`:dependencies [...]`) must
  name this project's artefact and version.

  Then the test maps the docs define (`my-test`) run under the twin of
  jepsen.core/run!, which prints the whole test map before the first
  operation, as Jepsen does, with an in-memory serializable store as the
  client: no transaction may reach the nemesis, the final reads must read
  every key the run wrote, and isocheck's verdict must hold."
  (:require [clojure.edn :as edn]
            [clojure.java.io :as io]
            [clojure.string :as str]
            [clojure.test :refer [deftest is testing]]
            [jepsen.client :as client]
            [jepsen.core :as jepsen]
            [jepsen.generator :as gen])
  (:import (clojure.lang LineNumberingPushbackReader)
           (java.io StringReader)))

(defn- section
  "The text of a markdown file from the heading line `from` to the next
  heading of the same level (the whole file when from is nil)."
  [file from]
  (let [s (slurp file)]
    (if-not from
      s
      (let [a (str/index-of s (str from "\n"))
            _ (assert a (str "no heading " from " in " file))
            level (re-find #"^#+ " from)
            b (str/index-of s (str "\n" level) (+ a (count from)))]
        (subs s a (or b (count s)))))))

(defn- blocks
  "The bodies of the ```clojure blocks of a text."
  [text]
  (map second (re-seq #"(?s)```clojure\n(.*?)```" text)))

(defn- expected-after
  "The value a `;; => ...` comment right after line n (0-based) of lines
  promises, or ::none."
  [lines n]
  (let [[head & more] (drop n lines)]
    (if (and head (str/starts-with? (str/triml head) ";; =>"))
      (let [cont (take-while #(and (str/starts-with? (str/triml %) ";;")
                                   (not (str/starts-with? (str/triml %) ";; =>")))
                             more)]
        (edn/read-string (str/join "\n" (cons (subs (str/triml head) 5)
                                              (map #(subs (str/triml %) 2) cont)))))
      ::none)))

(defn- run-block!
  "Evaluates the forms of a block in order; checks each `;; =>`."
  [where text]
  (let [lines (str/split-lines text)
        r (LineNumberingPushbackReader. (StringReader. text))]
    (loop []
      (let [form (read {:eof ::eof} r)]
        (when-not (= ::eof form)
          (let [line (.getLineNumber r)
                v (eval form)
                want (expected-after lines line)]
            (when-not (= ::none want)
              (is (= want v) (str where ": " (pr-str form)))))
          (recur))))))

(defn- project-version []
  (let [[_ nm version] (read-string (slurp "project.clj"))]
    [(symbol (name nm)) version]))

(defn- run-doc!
  "Runs every Clojure block of a doc section; returns how many ran."
  [file heading]
  (let [bs (blocks (section file heading))]
    (binding [*ns* (create-ns 'isocheck.doc-scratch)]
      (refer-clojure)
      (doseq [[i b] (map-indexed vector bs)
              :let [where (str file (when heading (str " " heading)) ", block " (inc i))]]
        (testing where
          (if (str/starts-with? (str/triml b) ":dependencies")
            (let [deps (:dependencies (edn/read-string (str "{" b "}")))
                  [nm version] (project-version)]
              (is (some #{[nm version]} deps) (str "the dependency vector names " nm " " version ": " deps)))
            (run-block! where b)))))
    (count bs)))

;; ---------------------------------------------------------------------------
;; An in-memory store and a Jepsen run of the docs' test map

(defrecord MemClient [state]
  client/Client
  (open! [this test node] this)
  (setup! [this test])
  (invoke! [this test op]
    ;; One lock: every transaction runs alone, so the store is strictly serializable.
    (locking state
      (assoc op :type :ok
             :value (mapv (fn [[f k v]]
                            (case f
                              :r      [f k (get @state k (when (= :append (:workload test)) []))]
                              :append (do (swap! state update k (fnil conj []) v) [f k v])
                              :w      (do (swap! state assoc k v) [f k v])))
                          (:value op)))))
  (teardown! [this test])
  (close! [this test]))

(defn- run-my-test!
  "Runs (my.test/my-test opts client nemesis-gen) under jepsen.core/run!;
  returns the test."
  []
  (let [my-test @(resolve 'my.test/my-test)
        t (my-test {:concurrency 5, :time-limit 3, :workload :append}
                   (->MemClient (atom {}))
                   (cycle [(gen/sleep 0.3) {:type :info, :f :noop}]))]
    (jepsen/run! t)))

(defn- check-run [test]
  (let [h (:history test)
        txns (filter #(= :txn (:f %)) h)
        written (set (for [op txns :when (#{:ok :info} (:type op)), [f k] (:value op) :when (not= f :r)] k))
        finals (filter #(and (:final-read? %) (= :ok (:type %))) txns)
        read-at-end (set (for [op finals, [_ k] (:value op)] k))]
    (is (seq txns) "the run ran transactions")
    (is (some #(= :nemesis (:process %)) h) "the nemesis ran its own ops")
    (is (not-any? #(and (= :txn (:f %)) (not (integer? (:process %)))) h)
        "no transaction went to the nemesis")
    (is (< 10 (count written)) (str "keys rotated during the run: " (sort written)))
    (is (every? read-at-end written)
        (str "the final reads read every key written; missing: " (sort (remove read-at-end written))))
    (is (every? #(every? (fn [[f]] (= :r f)) (:value %)) finals) "final reads only read")
    (is (some #(and (str/starts-with? % "Running test:") (str/includes? % ":generator")) @jepsen/log-lines)
        "the test map, generator included, was printed before the run")
    (is (not= false (:valid? (:results test))) (pr-str (:results test)))))

(deftest the-readme-jepsen-section-runs
  (is (= 4 (run-doc! "README.md" "## Use it in a Jepsen test")))
  (testing "the README's my-test under the twin of jepsen.core/run!"
    (let [t (run-my-test!)]
      (check-run t)
      (is (= true (get-in t [:results :valid?])) (pr-str (:results t))))))

(deftest the-readme-checker-section-runs
  (is (= 1 (run-doc! "README.md" "## The checker's options and result"))))

(deftest doc-jepsen-runs
  (is (= 5 (run-doc! "doc/jepsen.md" nil)))
  (testing "doc/jepsen.md's my-test under the twin of jepsen.core/run!, composed with Elle's (twin) checker"
    (let [t (run-my-test!)]
      (check-run t)
      (is (= true (get-in t [:results :isocheck :valid?])) (pr-str (:results t))))))
