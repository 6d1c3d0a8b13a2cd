(ns isocheck.doc-test
  "The documentation, run: README.md, CHANGELOG.md and every doc/*.md.

  Fenced blocks, by their info string:
  - ```clojure: evaluated form by form, in order, in a scratch namespace per
    file (or the namespaces the blocks declare), against test-twins/ (twins of
    Jepsen's namespaces, modelled on its source). A form followed by a comment
    `;; => value` must evaluate to that value. A block that is a project.clj
    fragment (`:dependencies [...]`) must name this project's artefact and
    version. ```clojure no-run REASON is shown, not run: at most
    `max-no-run` such blocks, each with a reason.
  - ```console: a line `$ CMD` is a command, the lines after it (up to the
    next `$ `) what it prints, standard output and standard error together.
    `bin/isocheck ...` runs in-process through isocheck.cli.Main/run from the
    repository's root; `echo $?` prints the last command's exit status. The
    output must match the lines shown, where a line `...` stands for any
    number of lines and a duration (`0.1 s`, `12 ms`) for any other.
  - ```sh and ```bash: commands shown, not run (too slow, or they need
    servers or a Jepsen project); each must name something real: a `lein`
    task or an alias of project.clj, a bench isocheck.bench knows, a script
    that exists, `bin/isocheck` with flags its usage names.
  - ```text: output or synopses, not checked. A fence without an info string
    is an error: every block says what it is.

  Then the test maps the docs define (`my-test`) run under the twin of
  jepsen.core/run!, which prints the whole test map before the first
  operation, as Jepsen does, with an in-memory serializable store as the
  client: no transaction may reach the nemesis, the final reads must read
  every key the run wrote, and isocheck's verdict must hold. And every
  relative link of the docs names a file of the repository."
  (:require [clojure.edn :as edn]
            [clojure.java.io :as io]
            [clojure.string :as str]
            [clojure.test :refer [deftest is testing]]
            [jepsen.client :as client]
            [jepsen.core :as jepsen]
            [jepsen.generator :as gen])
  (:import (clojure.lang LineNumberingPushbackReader)
           (isocheck.cli Main)
           (java.io ByteArrayOutputStream PrintStream StringReader)))

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

;; ---------------------------------------------------------------------------
;; The docs and their blocks

(def ^:private max-no-run
  "How many ```clojure no-run blocks the docs may hold (none today)."
  2)

(defn- doc-files []
  (concat ["README.md" "CHANGELOG.md"]
          (sort (for [f (.listFiles (io/file "doc")) :when (str/ends-with? (.getName f) ".md")]
                  (str "doc/" (.getName f))))))

(defn- fenced
  "The fenced blocks of a markdown text: {:lang :info :body :line}."
  [text]
  (let [lines (vec (str/split-lines text))]
    (loop [i 0, acc []]
      (if (>= i (count lines))
        acc
        (if-let [[_ info] (re-matches #"```(.*)" (lines i))]
          (let [j (loop [j (inc i)] (if (or (>= j (count lines)) (str/starts-with? (lines j) "```")) j (recur (inc j))))
                info (str/trim info)]
            (recur (inc j) (conj acc {:lang (first (str/split info #"\s+" 2))
                                      :info info
                                      :line (inc i)
                                      :body (str (str/join "\n" (subvec lines (inc i) (min j (count lines)))) "\n")})))
          (recur (inc i) acc))))))

;; --- console blocks ----------------------------------------------------------

(defn- tokens [cmd] (map #(str/replace % #"^'|'$" "") (re-seq #"'[^']*'|\S+" cmd)))

(defn- run-cli
  "Runs the command line in-process: [exit-status output]."
  [args]
  (let [b (ByteArrayOutputStream.)
        p (PrintStream. b true "UTF-8")
        status (Main/run (into-array String args) p p)]
    (.flush p)
    [status (.toString b "UTF-8")]))

(defn- norm [line]
  (-> line str/trimr (str/replace #"\d+(\.\d+)? (s|ms)\b" "<duration>")))

(defn- matches?
  "Whether the actual lines match the expected ones, where an expected `...`
  matches any number of lines."
  [want got]
  (cond
    (empty? want) (empty? got)
    (= "..." (str/trim (first want))) (or (matches? (rest want) got)
                                          (and (seq got) (recur want (rest got))))
    (empty? got) false
    (= (norm (first want)) (norm (first got))) (recur (rest want) (rest got))
    :else false))

(defn- console-commands
  "[[command [expected lines]] ...] of a console block."
  [body]
  (loop [[l & more :as ls] (str/split-lines body), acc []]
    (cond
      (empty? ls) acc
      (str/starts-with? l "$ ") (let [[out rest-lines] (split-with #(not (str/starts-with? % "$ ")) more)]
                                  (recur rest-lines (conj acc [(subs l 2) (vec out)])))
      :else (do (is false (str "a console block's line outside a command's output: " l))
                (recur more acc)))))

(defn- run-console!
  "Runs a console block's commands; returns how many ran."
  [where body]
  (let [last-status (atom nil)]
    (doseq [[cmd want] (console-commands body)
            :let [[prog & args] (tokens cmd)]]
      (cond
        (= cmd "echo $?")
        (is (matches? want [(str @last-status)]) (str where ": `" cmd "` shows " want ", the status was " @last-status))

        (= prog "bin/isocheck")
        (let [[status out] (run-cli args)
              got (str/split-lines out)]
          (reset! last-status status)
          (is (matches? want got)
              (str where ": `" cmd "` printed\n" (str/join "\n" (take 40 got)) "\n-- which the doc shows as\n" (str/join "\n" want))))

        :else (is false (str where ": a console command the doc test cannot run: " cmd))))
    (count (console-commands body))))

;; --- sh/bash blocks: shown, not run -------------------------------------------

(def ^:private lein-tasks
  "Leiningen's own tasks the docs may name."
  #{"run" "install" "jar" "uberjar" "test" "deps" "classpath" "compile" "javac"})

(defn- project-aliases []
  (set (keys (:aliases (apply hash-map (drop 3 (read-string (slurp "project.clj"))))))))

(defn- bench-names []
  (set (map second (re-seq #"\"([\w-]+)\"\s+\[[\w-]+-main" (slurp "src/clojure/isocheck/bench.clj")))))

(defn- class-exists? [nm]
  (or (= nm "clojure.main")
      (some #(.exists (io/file %))
            (let [p (str/replace nm "." "/")
                  c (str/replace p "-" "_")]
              [(str "src/java/" p ".java") (str "test/java/" p ".java") (str "src/clojure/" c ".clj")
               (str "examples/jdbc/src/" c ".clj") (str "examples/jepsen/src/" c ".clj")]))))

(defn- shell-lines
  "The commands of a sh block: comments dropped, continuations joined."
  [body]
  (->> (str/split (str/replace body #"\\\n\s*" " ") #"\n")
       (map #(str/trim (str/replace % #"(^|\s)#\s.*$" "")))
       (remove #(or (str/blank? %) (str/starts-with? % "#")))))

(defn- check-shell-command
  "Nil when the command names something real, else why not."
  [cmd]
  (let [[prog & args :as ts] (tokens cmd)
        ts (if (= "sudo" prog) (rest ts) ts)
        [prog & args] ts]
    (cond
      (= prog "bin/isocheck")
      (let [[sub & flags] args
            bad (remove #(re-find (re-pattern (str (java.util.regex.Pattern/quote %) "(?![\\w-])")) Main/USAGE)
                        (filter #(str/starts-with? % "--") flags))]
        (cond (not (#{"check" "convert" "demo" "verify"} sub)) (str "no command " sub)
              (seq bad) (str "flags the usage does not name: " (vec bad))))

      (= prog "lein")
      (let [args (if (= "with-profile" (first args)) (drop 2 args) args)
            [task & more] args]
        (cond
          (not (or (lein-tasks task) ((project-aliases) task))) (str "no lein task or alias " task)
          (and (= task "bench") (seq more) (not (re-matches #"\d+" (first more))) (not ((bench-names) (first more))))
          (str "no bench " (first more) " in isocheck.bench (" (sort (bench-names)) ")")
          (and (= task "run") (= "-m" (first more)) (not (class-exists? (second more))))
          (str "no namespace or class " (second more))))

      (= prog "bash") (when-not (.exists (io/file (first args))) (str "no script " (first args)))
      (re-find #"/" (str prog)) (when-not (.exists (io/file prog)) (str "no script " prog))
      (= prog "apt-get") (when-not (= "install" (first (remove #(str/starts-with? % "-") args))) "apt-get other than install")
      (= prog "java") (let [jar (second (drop-while #(not= "-jar" %) args))
                            [nm version] (project-version)]
                        (when-not (= jar (str "target/uberjar/" nm "-" version "-standalone.jar"))
                          (str "not the standalone jar: " jar)))
      (#{"git" "cd"} prog) nil
      :else (str "a command the doc test does not know: " cmd))))

;; --- one doc ----------------------------------------------------------------

(defn- run-doc!
  "Runs or checks every block of a doc; returns counts per kind."
  [file]
  (let [counts (atom {})]
    (binding [*ns* (create-ns (symbol (str "isocheck.doc-scratch." (str/replace file #"[^A-Za-z0-9]" "-"))))]
      (refer-clojure)
      (doseq [{:keys [lang info body line]} (fenced (slurp file))
              :let [where (str file ":" line)]]
        (testing where
          (case lang
            "clojure" (cond
                        (str/starts-with? (str/triml (subs info 7)) "no-run")
                        (do (is (re-find #"no-run\s+\S" info) (str where ": a no-run block says why"))
                            (swap! counts update :no-run (fnil inc 0)))
                        (str/starts-with? (str/triml body) ":dependencies")
                        (let [deps (:dependencies (edn/read-string (str "{" body "}")))
                              [nm version] (project-version)]
                          (is (some #{[nm version]} deps) (str "the dependency vector names " nm " " version ": " deps))
                          (swap! counts update :dependencies (fnil inc 0)))
                        :else (do (run-block! where body)
                                  (swap! counts update :clojure (fnil inc 0))))
            "console" (swap! counts update :console-commands (fnil + 0) (run-console! where body))
            ("sh" "bash") (doseq [cmd (shell-lines body)]
                            (is (nil? (check-shell-command cmd)) (str where ": `" cmd "`: " (check-shell-command cmd)))
                            (swap! counts update :shell-checked (fnil inc 0)))
            "text" nil
            (is false (str where ": a fence without a known info string (clojure, console, sh, bash, text): " (pr-str info)))))))
    @counts))

(defn- links [text]
  (map second (re-seq #"\]\(([^)\s]+)\)" text)))

;; ---------------------------------------------------------------------------

(def ^:private totals (atom {}))

(deftest every-doc-runs
  (reset! totals {})
  (doseq [f (doc-files)]
    (let [c (run-doc! f)]
      (swap! totals #(merge-with + % c))
      (when (#{"README.md" "doc/jepsen.md"} f)
        (testing (str f "'s my-test under the twin of jepsen.core/run!")
          (let [t (run-my-test!)]
            (check-run t)
            (is (= true (if (= f "README.md")
                          (get-in t [:results :valid?])
                          (get-in t [:results :isocheck :valid?])))
                (pr-str (:results t))))))))
  (println "doc_test:" (into (sorted-map) @totals))
  (is (<= 10 (:clojure @totals 0)) "the Clojure blocks were found and run")
  (is (<= 10 (:console-commands @totals 0)) "the console commands were found and run")
  (is (<= (:no-run @totals 0) max-no-run) (str "at most " max-no-run " Clojure blocks are not run")))

(deftest the-readme-shows-the-ci-test-command
  ;; .ci/run runs exactly the README's test command.
  (let [sh (filter #(#{"sh" "bash"} (:lang %)) (fenced (slurp "README.md")))]
    (is (some #(= ["lein tests"] (shell-lines (:body %))) sh) "a sh block of the README is `lein tests` alone")
    (is (str/ends-with? (str/trim (slurp ".ci/run")) "lein tests"))))

(deftest the-docs-link-only-inside-the-repository
  (doseq [f (doc-files)
          l (links (slurp f))
          :when (not (re-find #"^(https?:|mailto:|#)" l))
          :let [path (first (str/split l #"#"))
                target (.getCanonicalFile (io/file (.getParentFile (.getAbsoluteFile (io/file f))) path))]]
    (is (.exists target) (str f ": the link " l " names no file"))
    (is (str/starts-with? (str target) (str (.getCanonicalFile (io/file ".")))) (str f ": the link " l " leaves the repository")))
  (doseq [f (doc-files)]
    (is (not (re-find #"\.\./shared|/work/|digests/" (slurp f))) (str f " names a file outside the repository"))))
