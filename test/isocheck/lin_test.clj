(ns isocheck.lin-test
  "Linearizability of single-key read / write / compare-and-set histories
  (isocheck.check.lin, MTC §IV-E Algorithm 2 with its gaps closed): literal
  linearizable and non-linearizable histories (MTC Fig. 4 among them), both
  input forms (micro-ops and Jepsen's register ops, with and without
  jepsen.independent), :info and :fail; a brute-force linearizability oracle
  (here, sharing nothing with the checker) on small random histories; and
  random histories from a simulated linearizable register, with :info ops,
  and from one with an injected stale read."
  (:require [clojure.string :as str]
            [clojure.test :refer [deftest is testing]]
            [isocheck.core :as iso]
            [isocheck.test-util :refer [h run-cli]]))

(defn- op [type p mop] {:type type, :process p, :f :txn, :value [mop]})
(defn- inv [p mop] (op :invoke p mop))
(defn- ok [p mop] (op :ok p mop))

(defn- lin [hist] (iso/check (iso/linearizable) hist))
(defn- types [r] (set (:anomaly-types r)))

;; ------------------------------------------------------------------ literal histories

(deftest fig-4-a-linearizable
  ;; MTC Fig. 4(a): x starts at 0 (an insert here); O1 = R&W(x,0,1), O2 = R&W(x,1,2) and
  ;; O3 = R&W(x,2,3) overlap; the order O1 O2 O3 explains them.
  (let [r (lin (h (inv 0 [:w :x 0]) (ok 0 [:w :x 0])
                  (inv 1 [:cas :x 0 1]) (inv 2 [:cas :x 1 2]) (inv 3 [:cas :x 2 3])
                  (ok 1 [:cas :x 0 1]) (ok 3 [:cas :x 2 3]) (ok 2 [:cas :x 1 2])))]
    (is (= true (:valid? r)))
    (is (= {:linearizable {:valid? true}} (:levels r)))
    (is (= 4 (get-in r [:stats :effective-writes])))))

(deftest fig-4-b-not-linearizable
  ;; MTC Fig. 4(b): O1 = R&W(x,0,1) starts after O2 = R&W(x,1,2) finished.
  (let [r (lin (h (inv 0 [:w :x 0]) (ok 0 [:w :x 0])
                  (inv 2 [:cas :x 1 2]) (ok 2 [:cas :x 1 2])
                  (inv 1 [:cas :x 0 1]) (ok 1 [:cas :x 0 1])))
        c (get-in r [:counterexamples :stale-order])]
    (is (= false (:valid? r)))
    (is (= #{:stale-order} (types r)))
    (is (= [:x] (:failures r)))
    (is (= #{3 5} (set (map :index (:ops c)))))
    (is (str/includes? (:explanation c) "0 (op 1) → 1 (op 5) → 2 (op 3)") (:explanation c))
    (is (str/includes? (:dot c) "realtime"))))

(deftest stale-read
  (let [r (lin (h (inv 0 [:cas :x nil 1]) (ok 0 [:cas :x nil 1])
                  (inv 0 [:cas :x 1 2]) (ok 0 [:cas :x 1 2])
                  (inv 1 [:r :x nil]) (ok 1 [:r :x 1])))]
    (is (= false (:valid? r)))
    (is (= #{:stale-order} (types r))))
  (testing "concurrent with the overwrite, it is fine"
    (is (= true (:valid? (lin (h (inv 0 [:cas :x nil 1]) (ok 0 [:cas :x nil 1])
                                 (inv 0 [:cas :x 1 2]) (inv 1 [:r :x nil])
                                 (ok 0 [:cas :x 1 2]) (ok 1 [:r :x 1]))))))))

(deftest read-before-write
  (let [r (lin (h (inv 1 [:r :x nil]) (ok 1 [:r :x 1])
                  (inv 0 [:w :x 1]) (ok 0 [:w :x 1])))]
    (is (= #{:read-before-write} (types r)))))

(deftest initial-value-read-after-a-write
  (let [r (lin (h (inv 0 [:w :x 1]) (ok 0 [:w :x 1])
                  (inv 1 [:r :x nil]) (ok 1 [:r :x nil])))]
    (is (= #{:interleaved-chains} (types r)))
    (is (str/includes? (get-in r [:counterexamples :interleaved-chains :explanation]) "from the initial value comes first"))))

(deftest divergence-and-thin-air
  (let [r (lin (h (inv 0 [:w :x 1]) (ok 0 [:w :x 1])
                  (inv 1 [:cas :x 1 2]) (inv 2 [:cas :x 1 3]) (ok 1 [:cas :x 1 2]) (ok 2 [:cas :x 1 3])))]
    (is (= #{:divergence} (types r)))
    (is (str/includes? (get-in r [:counterexamples :divergence :explanation]) "Divergence")))
  (is (= #{:garbage-read} (types (lin (h (inv 0 [:r :x nil]) (ok 0 [:r :x 7]))))))
  (is (= #{:garbage-read} (types (lin (h (inv 0 [:cas :x 7 8]) (ok 0 [:cas :x 7 8])))))))

(deftest fail-and-info
  (testing "a failed compare-and-set never happened; reading its value is an aborted read"
    (is (= true (:valid? (lin (h (inv 0 [:cas :x 5 6]) (op :fail 0 [:cas :x 5 6]) (inv 1 [:r :x nil]) (ok 1 [:r :x nil]))))))
    (is (= #{:aborted-read} (types (lin (h (inv 0 [:cas :x nil 6]) (op :fail 0 [:cas :x nil 6])
                                           (inv 1 [:r :x nil]) (ok 1 [:r :x 6])))))))
  (testing "an :info write nobody observed may not have happened"
    (is (= true (:valid? (lin (h (inv 0 [:w :x 1]) (op :info 0 [:w :x 1]) (inv 1 [:r :x nil]) (ok 1 [:r :x nil])))))))
  (testing "an :info compare-and-set someone observed took effect, any time after its invocation"
    (is (= true (:valid? (lin (h (inv 0 [:cas :x nil 1]) (op :info 0 [:cas :x nil 1])
                                 (inv 1 [:cas :x 1 2]) (ok 1 [:cas :x 1 2]) (inv 2 [:r :x nil]) (ok 2 [:r :x 2]))))))
    (testing "but not before it was invoked"
      (let [r (lin (h (inv 1 [:r :x nil]) (ok 1 [:r :x 1]) (inv 0 [:cas :x nil 1]) (op :info 0 [:cas :x nil 1])))]
        (is (= #{:read-before-write} (types r))))))
  (testing "an invocation never completed is :info"
    (is (= true (:valid? (lin (h (inv 0 [:w :x 1]) (inv 1 [:r :x nil]) (ok 1 [:r :x 1]))))))))

(deftest interleaved-blind-write-chains
  ;; Two runs: 1 → 2 (op 1's write, op 3's cas) and 5 → 6. Each run is contiguous in any
  ;; linearization, but op 1 completed before op 5 began and op 7 before op 3.
  (let [r (lin (h (inv 0 [:w :x 1]) (ok 0 [:w :x 1])
                  (inv 1 [:w :x 5]) (ok 1 [:w :x 5])
                  (inv 1 [:cas :x 5 6]) (ok 1 [:cas :x 5 6])
                  (inv 0 [:cas :x 1 2]) (ok 0 [:cas :x 1 2])))]
    (is (= #{:interleaved-chains} (types r)))
    (is (= 4 (count (get-in r [:counterexamples :interleaved-chains :ops]))))))

(deftest jepsen-register-ops
  (testing "one register: {:f :read/:write/:cas}"
    (let [o (fn [t p f v] {:type t, :process p, :f f, :value v})
          hist (h (o :invoke 0 :write 1) (o :ok 0 :write 1)
                  (o :invoke 1 :cas [1 2]) (o :ok 1 :cas [1 2])
                  (o :invoke 2 :read nil) (o :ok 2 :read 1)
                  {:type :info, :process :nemesis, :f :kill, :value nil})
          r (lin hist)]
      (is (= false (:valid? r)))
      (is (= #{:stale-order} (types r)))
      (is (= [:register] (:failures r)))
      (is (= 1 (get-in r [:stats :skipped-ops])))
      (is (str/includes? (get-in r [:counterexamples :stale-order :explanation]) "{:f :read, :value 1}"))))
  (testing "jepsen.independent tuples: [k v], [k [old new]]; keys are independent"
    (let [o (fn [t p f v] {:type t, :process p, :f f, :value v})
          r (lin (h (o :invoke 0 :write [:a 1]) (o :ok 0 :write [:a 1])
                    (o :invoke 1 :write [:b 1]) (o :ok 1 :write [:b 1])
                    (o :invoke 0 :cas [:a [1 2]]) (o :ok 0 :cas [:a [1 2]])
                    (o :invoke 1 :read [:b nil]) (o :ok 1 :read [:b 1])
                    (o :invoke 2 :read [:a nil]) (o :ok 2 :read [:a 1])))]
      (is (= [:a] (:failures r)))
      (is (= 2 (get-in r [:stats :keys])))))
  (testing "through the checker constructor and its :levels"
    (is (instance? isocheck.core.LinChecker (iso/checker {:levels [:linearizable]})))
    (is (thrown-with-msg? IllegalArgumentException #"checked alone" (iso/checker {:levels [:linearizable :serializable]})))))

(deftest bad-input-and-unknown
  (testing "values written twice: no verdict, with the reason"
    (let [r (lin (h (inv 0 [:w :x 1]) (ok 0 [:w :x 1]) (inv 0 [:w :x 1]) (ok 0 [:w :x 1])))]
      (is (= :unknown (:valid? r)))
      (is (str/includes? (:unknown-reason r) "written twice"))
      (is (str/includes? (:unknown-reason r) "Knossos"))))
  (testing "a transaction of two micro-ops is bad input, naming the op"
    (let [r (lin (h (inv 0 [:w :x 1]) {:type :ok, :process 0, :f :txn, :value [[:w :x 1] [:r :x 1]]}))]
      (is (= :unknown (:valid? r)))
      (is (re-find #"op 1 .*has 2 micro-ops" (:error r)))))
  (testing "a :cas op whose value is not [old new]"
    (is (re-find #":cas op's :value is 3" (:error (lin [{:type :invoke, :process 0, :f :cas, :value 3}]))))))

;; ------------------------------------------------------------------ a brute-force oracle

(defn- ops-of
  "The history's ops as {:i :kind :k :a :b :status :inv :comp}, in completion order."
  [hist]
  (let [pending (atom {})
        out (atom [])]
    (doseq [[pos o] (map-indexed vector hist)]
      (let [[f k a b] (first (:value o))]
        (if (= :invoke (:type o))
          (swap! pending assoc (:process o) [pos [f k a b]])
          (let [[ipos [f k a b]] (@pending (:process o))]
            (swap! pending dissoc (:process o))
            (swap! out conj {:kind f, :k k, :a (if (= f :r) (second (next (first (:value o)))) a), :b b
                             :status (:type o), :inv ipos, :comp (when (= :ok (:type o)) pos)})))))
    (into @out (for [[_ [ipos [f k a b]]] @pending] {:kind f, :k k, :a (when (not= f :r) a), :b b, :status :info, :inv ipos, :comp nil}))))

(defn oracle-linearizable?
  "Brute force: some order of the :ok ops and any subset of the :info writes
  and compare-and-sets that respects realtime and register semantics."
  [hist]
  (let [ops (vec (keep-indexed (fn [i o] (when (or (= :ok (:status o)) (and (= :info (:status o)) (not= :r (:kind o)))) (assoc o :i i)))
                               (ops-of hist)))
        n (count ops)
        must (set (keep #(when (= :ok (:status %)) (:i %)) ops))
        pre (fn [o] (set (keep #(when (and (:comp %) (< (:comp %) (:inv o))) (:i %)) ops)))
        preds (into {} (map (fn [o] [(:i o) (pre o)]) ops))
        dead (atom #{})]
    (letfn [(go [done state]
              (cond (every? done must) true
                    (@dead [done state]) false
                    :else
                    (or (some (fn [o]
                                (when (and (not (done (:i o))) (every? done (preds (:i o))))
                                  (let [cur (get state (:k o))]
                                    (case (:kind o)
                                      :r (when (= cur (:a o)) (go (conj done (:i o)) state))
                                      :w (go (conj done (:i o)) (assoc state (:k o) (:a o)))
                                      :cas (when (= cur (:a o)) (go (conj done (:i o)) (assoc state (:k o) (:b o))))))))
                              ops)
                        (do (swap! dead conj [done state]) false))))]
      (go #{} {}))))

(defn random-history
  "A random history of reads, writes and compare-and-sets on one or two keys
  by 3 processes (a new one after each :info), each op taking effect at a
  random moment between its invocation and completion; values unique per key;
  a compare-and-set that finds another value :fail; some ops :info. With
  probability p-bad per read, a wrong value: any value written to the key
  (:random), or the value the current one overwrote once the op that wrote the
  current one has completed before the read was invoked (:stale, a definite
  stale read)."
  ([seed n p-bad] (random-history seed n p-bad :random))
  ([seed n p-bad bad]
  (let [rnd (java.util.Random. seed)
        pick (fn [xs] (nth xs (.nextInt rnd (count xs))))
        ks [:x :y]
        ctr (atom {})
        written (atom {})
        state (atom {})
        procs (atom {0 nil, 1 nil, 2 nil})   ; process -> pending {:mop :effected? :result}
        next-p (atom 3)
        out (atom [])
        emit! (fn [o] (swap! out conj o))
        started (atom 0)
        prev (atom {})                       ; key -> the value the current one overwrote
        installed (atom {})                  ; key -> [process, completed at (or nil)] of the current value's writer
        invoked-at (atom {})                 ; process -> position of its pending invocation
        injected (atom 0)
        injected-at (atom [])]
    (while (or (< @started n) (some some? (vals @procs)))
      (let [p (pick (vec (keys @procs)))
            pend (@procs p)]
        (cond
          (and (nil? pend) (< @started n))
          (let [k (pick ks)
                kind (pick [:r :w :cas :cas])
                nv #(get (swap! ctr update k (fnil inc 0)) k)
                mop (case kind
                      :r [:r k nil]
                      :w (let [v (nv)] (swap! written update k (fnil conj []) v) [:w k v])
                      :cas (let [old (if (< (.nextDouble rnd) 0.7) (get @state k) (pick (vec (cons nil (get @written k)))))
                                 v (nv)]
                             (swap! written update k (fnil conj []) v)
                             [:cas k old v]))]
            (swap! started inc)
            (swap! invoked-at assoc p (count @out))
            (emit! {:type :invoke, :process p, :f :txn, :value [mop]})
            (swap! procs assoc p {:mop mop, :done? false}))

          (nil? pend) nil

          (not (:done? pend))
          ;; Linearize: take effect now.
          (let [[f k a b] (:mop pend)
                cur (get @state k)
                install! (fn [v cas?] (swap! prev assoc k cur) (swap! state assoc k v) (swap! installed assoc k [p nil cas?]))
                [wp done-at cas?] (get @installed k)
                res (case f
                      :r [:r k (cond (not (< (.nextDouble rnd) p-bad)) cur
                                     (= bad :random) (if (seq (get @written k)) (pick (get @written k)) cur)
                                     ;; Only after a compare-and-set: then the value read is the one it
                                     ;; overwrote, and no linearization has the read before it.
                                     (and cas? done-at (< done-at (@invoked-at p)) (contains? @prev k))
                                     (do (swap! injected inc) (swap! injected-at conj [(@invoked-at p) k (get @prev k) (get @installed k)]) (get @prev k))
                                     :else cur)]
                      :w (do (install! a false) [:w k a])
                      :cas (if (= cur a) (do (install! b true) [:cas k a b]) :fail))]
            (swap! procs assoc p (assoc pend :done? true :res res)))

          :else
          (let [u (.nextDouble rnd)
                {:keys [mop res]} pend]
            (cond (= res :fail) (emit! {:type :fail, :process p, :f :txn, :value [mop]})
                  (< u 0.1) (do (emit! {:type :info, :process p, :f :txn, :value [mop]})
                                (swap! procs dissoc p)
                                (swap! procs assoc @next-p nil)
                                (swap! next-p inc))
                  :else (do (doseq [[k [wp done-at cas?]] @installed :when (and (= wp p) (nil? done-at))]
                              (swap! installed assoc k [p (count @out) cas?]))
                            (emit! {:type :ok, :process p, :f :txn, :value [res]})))
            (when (contains? @procs p) (swap! procs assoc p nil))))))
    (with-meta (vec (map-indexed (fn [i o] (assoc o :index i)) @out)) {:injected @injected, :injected-at @injected-at}))))

(deftest agrees-with-the-brute-force-oracle
  (let [n (or (some-> (System/getenv "LIN_ORACLE_N") Long/parseLong) 3000)
        tally (atom {})]
    (doseq [seed (range n)]
      (let [hist (random-history seed (+ 3 (mod seed 6)) 0.4)
            r (lin hist)
            o (oracle-linearizable? hist)]
        (swap! tally update (:valid? r) (fnil inc 0))
        (is (= o (:valid? r)) (str "seed " seed ": oracle " o ", isocheck " (:valid? r) " " (:anomaly-types r) "\n" (pr-str hist)))))
    (println "linearizability vs brute force:" n "random histories;" @tally)
    (is (< 100 (get @tally false 0)))
    (is (< 100 (get @tally true 0)))))

(def ^:private fired (atom 0))

(deftest simulated-registers
  (testing "a linearizable register with :info ops: every history holds"
    (doseq [seed (range 40)]
      (let [r (lin (random-history seed 400 0.0))]
        (is (= true (:valid? r)) (str "seed " seed " " (:anomaly-types r))))))
  (testing "with stale reads injected: caught"
    (doseq [seed (range 40)]
      (let [hist (random-history seed 400 0.05 :stale)
            r (lin hist)]
        ;; A stale read that completed :ok (an :info one returned nothing).
        (when (some (fn [[ipos]]
                      (let [p (:process (nth hist ipos))]
                        (= :ok (:type (first (filter #(and (> (:index %) ipos) (= p (:process %))) hist))))))
                    (:injected-at (meta hist)))
          (swap! fired inc)
          (is (= false (:valid? r)) (str "seed " seed))
          (is (contains? (types r) :stale-order))))))
  (is (< 30 @fired)))

;; ------------------------------------------------------------------ the command line

(deftest command-line
  (let [f (java.io.File/createTempFile "lin" ".edn")
        stale (str "{:index 0, :type :invoke, :process 0, :f :cas, :value [:a [nil 1]]}\n"
                   "{:index 1, :type :ok, :process 0, :f :cas, :value [:a [nil 1]]}\n"
                   "{:index 2, :type :invoke, :process 0, :f :cas, :value [:a [1 2]]}\n"
                   "{:index 3, :type :ok, :process 0, :f :cas, :value [:a [1 2]]}\n"
                   "{:index 4, :type :invoke, :process 1, :f :read, :value [:a nil]}\n"
                   "{:index 5, :type :ok, :process 1, :f :read, :value [:a 1]}\n")]
    (spit f stale)
    (let [{:keys [status out]} (run-cli "check" "--levels" "linearizable" (str f))]
      (is (= 1 status))
      (is (str/includes? out "linearizable                        VIOLATED"))
      (is (str/includes? out "stale-order: 1 instance"))
      (is (re-find #"(?m)^stats: 3 ops, 1 key; read in [0-9,]+ ms, checked in [0-9,]+ ms$" out) "a short stats line; the whole stats in the result map"))
    (let [{:keys [status out]} (run-cli "check" "--levels" "linearizable" "--format" "edn" (str f))
          m (clojure.edn/read-string out)]
      (is (= 1 status))
      (is (= false (:valid? m)))
      (is (= [:a] (:failures m))))
    (spit f (str/join "\n" (take 4 (str/split-lines stale))))
    (is (= 0 (:status (run-cli "check" "--levels" "linearizable" (str f)))))
    (testing "linearizable is checked alone; bad input is exit 3, one line"
      (let [{:keys [status err]} (run-cli "check" "--levels" "linearizable,serializable" (str f))]
        (is (= 3 status))
        (is (str/includes? err "checked alone")))
      (spit f "{:index 0, :type :invoke, :process 0, :f :cas, :value 3}\n")
      (let [{:keys [status err]} (run-cli "check" "--levels" "linearizable" (str f))]
        (is (= 3 status))
        (is (str/includes? err ":cas op's :value is 3"))
        (is (= 1 (count (str/split-lines err))))))
    (.delete f)))

(deftest simulated-cas-registers-at-scale
  ;; isocheck.sim.CasRegisters (the benchmark's registers): 10^5 ops over 100 keys with 1% :info.
  (let [check (fn [stale]
                (let [b (isocheck.check.lin.CasHistory$Builder. nil)
                      fired (isocheck.sim.CasRegisters/run 3 100000 100 10 0.01 (double stale) b)]
                  [fired (isocheck.check.lin.Linearizability/check (.build b) 16)]))
        [_ ok] (check 0.0)
        [fired bad] (check 0.01)]
    (is (= isocheck.check.Verdict$Value/TRUE (.valid ^isocheck.check.lin.Linearizability$Result ok)))
    (is (pos? fired))
    (is (= isocheck.check.Verdict$Value/FALSE (.valid ^isocheck.check.lin.Linearizability$Result bad)))
    (is (pos? (.count (.anomalies ^isocheck.check.lin.Linearizability$Result bad) "stale-order")))))
