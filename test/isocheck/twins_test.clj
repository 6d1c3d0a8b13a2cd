(ns isocheck.twins-test
  "The test twins of Jepsen (test-twins/) behave as Jepsen 0.3 does where it
  has bitten us: a plain sequence of transactions hands some to the nemesis
  thread, which returns them as :info completions; an :info completion moves
  its thread to a new process; logging the test map (util/test->str, as
  jepsen.core/run! does first) realizes the heads of lazy sequences in the
  generator but prints other objects through str; phases wait for every
  thread; time-limit stops; checkers compose; and a whole test runs through
  jepsen.core/run! and jepsen.cli/run!."
  (:require [clojure.java.io :as io]
            [clojure.string :as str]
            [clojure.test :refer [deftest is testing]]
            [isocheck.jepsen :as ij]
            [jepsen.checker :as checker]
            [jepsen.cli :as cli]
            [jepsen.client :as client]
            [jepsen.core :as core]
            [jepsen.generator :as gen]
            [jepsen.generator.interpreter :as interpreter]
            [jepsen.history :as h]
            [jepsen.nemesis :as nemesis]
            [jepsen.store :as store]
            [jepsen.tests :as tests]
            [jepsen.util :as util]))

(def ^:private base
  {:concurrency 3, :nodes ["n1" "n2" "n3"], :client client/noop, :nemesis nemesis/noop})

(defn- run [test] (:history (interpreter/run! (merge base test))))

(defn- txns [n] (map (fn [i] {:f :txn, :value [[:append 1 i]]}) (range n)))

(defn- client-of
  "A client completing each op as (complete op)."
  [complete]
  (reify client/Client
    (open! [this _ _] this)
    (setup! [_ _])
    (teardown! [_ _])
    (close! [_ _])
    (invoke! [_ _ op] (complete op))))

(deftest a-plain-sequence-reaches-the-nemesis
  (let [hist (run {:generator (txns 200)})
        nem  (filter #(= :nemesis (:process %)) hist)]
    (is (= 400 (count hist)))
    (is (every? h/op? hist))
    (is (= (range 400) (map :index hist)))
    (is (seq nem) "the nemesis thread takes its turn in the rotation")
    (is (= #{:invoke :info} (set (map :type nem))))
    (is (= (count (filter h/invoke? nem)) (count (filter h/info? nem))))
    (is (every? #(str/starts-with? (:error %) "indeterminate: ") (filter h/info? nem)))
    (is (every? :exception (filter h/info? nem)))
    (is (= 200 (count (filter h/invoke? hist))))
    (testing "wrapped in gen/clients, none goes to the nemesis"
      (let [hist (run {:generator (gen/clients (txns 200))})]
        (is (= 400 (count hist)))
        (is (every? integer? (map :process hist)))
        (is (= 200 (count (filter h/ok? hist))))))))

(deftest an-info-completion-gives-its-thread-a-new-process
  ;; The other writes wait until the crash has returned and then a little
  ;; longer, so its :info completion reaches the interpreter before theirs:
  ;; otherwise, on a loaded machine, the other two threads could run all 59
  ;; writes before the crashed thread's completion is taken (seen once in CI).
  (let [crashed (promise)
        hist  (run {:client    (client-of (fn [op]
                                            (if (zero? (:value op))
                                              (do (deliver crashed true) (assoc op :type :info))
                                              (do @crashed (Thread/sleep 2) (assoc op :type :ok)))))
                    :generator (gen/clients (map (fn [i] {:f :w, :value i}) (range 60)))})
        crash (first (filter h/info? hist))
        p     (:process crash)
        later (filter #(and (h/invoke? %) (> (:index %) (:index crash))) hist)]
    (is (= 0 (:value crash)))
    (is (integer? p))
    (is (not-any? #(= p (:process %)) later) "the crashed process never comes back")
    (is (some #(= (+ p 3) (:process %)) later) "its thread runs process p + concurrency")
    (is (= 120 (count hist)))))

(deftype OnlySeqable [realized]
  clojure.lang.Seqable
  (seq [_] (swap! realized inc) (list {:f :x}))
  Object
  (toString [_] "only-seqable"))

(deftest test->str-realizes-lazy-heads-of-the-generator
  (let [a       (atom 0)
        b       (atom 0)
        counted (fn [n f] (repeatedly (fn [] {:f f, :value (swap! n inc)})))
        g       (gen/phases (->> (counted a :a) (gen/stagger 1/100) (gen/time-limit 1))
                            (gen/clients (counted b :b)))
        s       (util/test->str {:name "t", :nodes (vec (range 20)), :generator g})]
    (is (= 9 @a) "print-length 8, and one more to know whether to print ...")
    (is (= 9 @b))
    (is (str/includes? s "(jepsen.generator.Synchronize"))
    (is (str/includes? s "(jepsen.generator.TimeLimit"))
    (is (str/includes? s ":value 8}"))
    (is (not (str/includes? s ":value 9}")))
    (is (= 2 (count (re-seq #"\.\.\." s))))
    (is (str/includes? s (pr-str (vec (range 20)))) "other keys print whole"))
  (testing "a value that is Seqable but not seq? prints through str, unrealized"
    (let [n (atom 0)
          s (util/test->str {:generator (->OnlySeqable n)})]
      (is (zero? @n))
      (is (re-find #"#object\[isocheck.twins_test.OnlySeqable \"0x[0-9a-f]+\" \"only-seqable\"\]" s))))
  (testing "IDeref values print deref'd when realized"
    (let [s (util/test->str {:a (atom 1), :d (delay 2), :f (util/forgettable [3])})]
      (is (re-find #":a #object\[clojure.lang.Atom \"0x[0-9a-f]+\" \{:status :ready, :val 1\}\]" s))
      (is (re-find #"\{:status :pending, :val nil\}" s))
      (is (re-find #"jepsen.util.Forgettable \"0x[0-9a-f]+\" \{:status :ready, :val \[3\]\}" s)))))

(deftest phases-wait-for-every-thread
  (let [slow  (client-of (fn [op]
                           (when (= :a (:f op)) (Thread/sleep (long (* 10 (inc (:value op))))))
                           (assoc op :type :ok)))
        as    (map (fn [i] {:f :a, :value i}) (range 6))
        b-after-all-a? (fn [hist]
                         (let [b (first (filter #(= :b (:f %)) hist))]
                           (every? #(< (:index %) (:index b))
                                   (filter #(and (= :a (:f %)) (h/ok? %)) hist))))]
    (is (b-after-all-a? (run {:client slow, :generator (gen/phases (gen/clients as)
                                                                   (gen/clients {:f :b}))})))
    (testing "while a plain sequence starts :b as soon as a thread is free"
      (is (not (b-after-all-a? (run {:client slow, :generator (gen/clients [as {:f :b}])})))))))

(deftest time-limit-stops
  (let [t0      (System/nanoTime)
        hist    (run {:generator (gen/time-limit 0.2 (gen/clients (gen/stagger 0.005 (gen/repeat {:f :r}))))})
        invokes (filter h/invoke? hist)
        start   (:time (first invokes))]
    (is (< (- (System/nanoTime) t0) 2e9))
    (is (< 5 (count invokes)))
    (is (every? #(< (:time %) (+ start 2e8)) invokes))
    (is (= (count invokes) (count (filter h/ok? hist))))))

(deftest checkers-compose-and-check-safe-catches
  (let [boom (reify checker/Checker (check [_ _ _ _] (throw (IllegalStateException. "boom"))))
        no   (reify checker/Checker (check [_ _ hist opts] {:valid? false, :n (count hist), :opts opts}))
        r    (checker/check (checker/compose {:yes (checker/unbridled-optimism), :no no, :boom boom})
                            {} [1 2] {:subdirectory "x"})]
    (is (= false (:valid? r)))
    (is (= {:valid? false, :n 2, :opts {:subdirectory "x"}} (:no r)))
    (is (= {:valid? true} (:yes r)))
    (is (= :unknown (get-in r [:boom :valid?])))
    (is (re-find #"IllegalStateException: boom" (get-in r [:boom :error])))
    (is (= :unknown (:valid? (checker/check (checker/compose {:yes (checker/unbridled-optimism)
                                                              :boom boom})
                                            {} [] {}))))
    (is (= {:valid? false, :n 1, :opts {}} (checker/check-safe no {} [:op])))
    (is (= :unknown (:valid? (checker/check-safe boom {} []))))
    (is (thrown? IllegalArgumentException (checker/merge-valid [true :maybe]))))
  (testing "stats counts client completions by :f"
    (let [hist [{:type :invoke, :process 0, :f :r} {:type :ok, :process 0, :f :r}
                {:type :invoke, :process 1, :f :w} {:type :fail, :process 1, :f :w}
                {:type :invoke, :process :nemesis, :f :w} {:type :info, :process :nemesis, :f :w}]
          r    (checker/check (checker/stats) {} hist {})]
      (is (= false (:valid? r)) ":w never succeeded")
      (is (= [2 1 1 0] ((juxt :count :ok-count :fail-count :info-count) r)))
      (is (= {:valid? true, :count 1, :ok-count 1, :fail-count 0, :info-count 0}
             (get-in r [:by-f :r]))))))

(deftest generators-are-validated
  (let [bad (reify gen/Generator
              (op [this _ _] [{:f :not-an-op} this])
              (update [this _ _ _] this))
        e   (is (thrown? clojure.lang.ExceptionInfo (run {:generator bad})))]
    (is (= :jepsen.generator/invalid-op (:type (ex-data e))))
    (is (some #{"should be either :pending or a jepsen.history.Op"} (:problems (ex-data e))))))

(defrecord AppendClient [appended calls]
  client/Client
  (open! [this _ node] (swap! calls conj [:open node]) this)
  (setup! [_ _] (swap! calls conj :setup))
  (invoke! [_ _ op] (swap! appended conj (:value op)) (assoc op :type :ok))
  (teardown! [_ _] (swap! calls conj :teardown))
  (close! [_ _] (swap! calls conj :close)))

(deftest a-test-runs-through-jepsen-core
  (let [appended (atom [])
        calls    (atom [])
        test     (core/run! (merge tests/noop-test
                                   {:client    (->AppendClient appended calls)
                                    :checker   (checker/stats)
                                    :generator (gen/clients (map (fn [i] {:f :append, :value i})
                                                                 (range 20)))}))
        logged   (first @core/log-lines)]
    (is (= {:valid? true, :count 20, :ok-count 20, :fail-count 0, :info-count 0}
           (dissoc (:results test) :by-f)))
    (is (= (range 20) (sort @appended)))
    (is (= 40 (count (:history test))))
    (is (= 5 (:concurrency test)) "noop-test has no :concurrency: the node count")
    (is (re-matches #"\d{8}T\d{6}\.\d{3}Z" (:start-time test)))
    (is (not (contains? test :generator)))
    (is (= 5 (count (filter #{:setup} @calls))))
    (is (= 5 (count (filter #{:teardown} @calls))))
    (is (= (count (filter vector? @calls)) (count (filter #{:close} @calls))) "every client closed")
    (testing "the test map was logged first, its generator's head realized"
      (is (str/starts-with? logged "Running test:\n{"))
      (is (str/includes? logged ":name \"noop\""))
      (is (re-find #"jepsen.util.Forgettable" logged))
      (is (str/includes? logged "{:f :append, :value 7}"))
      (is (not (str/includes? logged "{:f :append, :value 8}"))))))

(deftest a-test-runs-through-jepsen-cli
  (let [t (cli/run! (merge (cli/single-test-cmd
                             {:test-fn (fn [opts]
                                         (merge tests/noop-test opts
                                                {:generator (gen/clients (repeat 4 {:f :r}))}))})
                           (cli/serve-cmd))
                    ["test" "--concurrency" "2n" "--time-limit" "3" "--rate" "1.5" "--node" "a"])]
    (is (= ["a"] (:nodes t)))
    (is (= 2 (:concurrency t)))
    (is (= 3 (:time-limit t)))
    (is (= 1.5 (:rate t)))
    (is (= 8 (count (:history t))))
    (is (true? (:valid? (:results t)))))
  (is (= 254 (:exit (ex-data (is (thrown? clojure.lang.ExceptionInfo
                                          (cli/run! (cli/serve-cmd) ["nope"]))))))))

(deftest store-paths-for-checkers
  (let [dir  (str (System/getProperty "java.io.tmpdir") "/isocheck-twins-" (System/nanoTime))
        test {:name "append", :start-time "20240103T000000.000Z", :store-dir dir}
        f    (store/path! test nil "isocheck" ["a" "b.txt"])]
    (is (= (io/file dir "append" "20240103T000000.000Z" "isocheck" "a" "b.txt") f))
    (is (.isDirectory (.getParentFile f)))
    (is (= (.getCanonicalPath (io/file dir "append" "20240103T000000.000Z" "isocheck"))
           (ij/store-dir test {})))))
