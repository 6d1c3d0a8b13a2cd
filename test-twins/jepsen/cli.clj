(ns jepsen.cli
  "Test twin of Jepsen 0.3's jepsen.cli (jepsen-io/jepsen,
  jepsen/src/jepsen/cli.clj): enough for a test namespace's -main,
  (cli/run! (merge (cli/single-test-cmd {:test-fn f ...}) (cli/serve-cmd)) args).

  Modelled: `single-test-cmd` (a \"test\" command whose options are Jepsen's
  standard ones, --node (repeatable; default n1..n5), --concurrency (an
  integer, or with n, e.g. 3n, times the node count; default 1n),
  --test-count (1), --time-limit (60 s), -h/--help, plus the command's
  :opt-spec; :opt-fn applied after Jepsen's own; runs jepsen.core/run! on
  (test-fn options) :test-count times), `serve-cmd`, and `run!`, which picks
  the command, parses its options and runs it.

  Simplified: options are parsed by a small parser of tools.cli-style specs
  ([short \"--long ARG\" doc & {:default :parse-fn :validate :assoc-fn}]),
  and an option no spec knows, `--key value`, is kept as :key with value
  parsed as a number where it is one (tools.cli would reject it). run!
  RETURNS the command's result (for \"test\", the last test run) instead of
  calling System/exit, so that tests can run it in process; bad arguments
  throw an ex-info with :exit 254, help prints the usage and returns nil.
  With the system property jepsen.twin.exit=true (a separate JVM, as `lein
  run test` starts), it exits as the real one does: 1 when a test's :valid?
  is false, 2 when :unknown, 255 when a command throws, else 0. serve-cmd's \"serve\" does nothing: there
  is no web server here. No SSH options or --nodes-file."
  (:refer-clojure :exclude [run!])
  (:require [clojure.string :as str]
            [jepsen.core :as jepsen]
            [jepsen.util :as util]))

(def default-nodes ["n1" "n2" "n3" "n4" "n5"])

(def help-opt ["-h" "--help" "Print this message and exit"])

(defn repeated-opt
  "An option that may be given several times, collecting a vector, which
  replaces the default when given at all."
  [short-opt long-opt doc default]
  [short-opt long-opt doc
   :default default
   :assoc-fn (fn [m k v]
               (if (identical? (get m k) default) (assoc m k [v]) (update m k conj v)))])

(def test-opt-spec
  "The options every single-test command takes."
  [help-opt
   (repeated-opt "-n" "--node HOSTNAME" "A node to run the test on" default-nodes)
   [nil "--concurrency NUMBER" "Workers: an integer, or with n (3n) times the node count"
    :default "1n"
    :validate [#(re-find #"^\d+n?$" %) "Must be an integer, optionally followed by n."]]
   [nil "--test-count NUMBER" "Times to run the test"
    :default 1, :parse-fn parse-long, :validate [pos? "Must be positive"]]
   [nil "--time-limit SECONDS" "Seconds the test runs, setup and teardown aside"
    :default 60, :parse-fn parse-long, :validate [pos? "Must be positive"]]])

(defn- compile-spec [[short-opt long-opt doc & {:as more}]]
  (let [[flag arg] (str/split long-opt #" " 2)]
    (assoc more :short short-opt, :long flag, :doc doc, :arg arg,
           :id (keyword (subs flag 2)))))

(defn- summary [specs]
  (str/join "\n" (for [{:keys [short long arg doc default]} specs]
                   (str "  " (when short (str short ", ")) long (when arg (str " " arg))
                        (when (some? default) (str " (default " (pr-str default) ")"))
                        "  " doc))))

(defn parse-opts
  "Parses args against an opt-spec, as tools.cli's parse-opts does:
  {:options :arguments :errors :summary}. An option no spec knows, --key,
  takes the next argument as its value (a number when it parses as one), or
  true when none follows."
  [args opt-spec]
  (let [specs   (map compile-spec opt-spec)
        by-name (into {} (mapcat (fn [s] (cond-> [[(:long s) s]] (:short s) (conj [(:short s) s]))))
                      specs)]
    (loop [args    args
           options (into {} (keep #(when (contains? % :default) [(:id %) (:default %)])) specs)
           positional []
           errors  []]
      (if-let [[a & more] (seq args)]
        (let [s      (by-name a)
              value? (and (seq more) (not (str/starts-with? (first more) "--")))]
          (cond
            (and s (not (:arg s)))
            (recur more (assoc options (:id s) true) positional errors)

            (and s (not value?))
            (recur more options positional (conj errors (str "Missing required argument for " a)))

            s
            (let [[pred msg] (:validate s)
                  v   (try ((:parse-fn s identity) (first more))
                           (catch Exception e e))
                  err (cond (instance? Exception v) (str "Error while parsing option " a " "
                                                         (first more) ": " (.getMessage ^Exception v))
                            (and pred (not (pred v))) (str "Failed to validate " a " " (first more)
                                                           ": " msg))]
              (recur (next more)
                     (if err options ((:assoc-fn s assoc) options (:id s) v))
                     positional
                     (cond-> errors err (conj err))))

            (str/starts-with? a "--")
            (let [v (first more)]
              (recur (if value? (next more) more)
                     (assoc options (keyword (subs a 2))
                            (if value? (or (parse-long v) (parse-double v) v) true))
                     positional errors))

            :else (recur more options (conj positional a) errors)))
        {:options options, :arguments positional, :errors (not-empty errors),
         :summary (summary specs)}))))

(defn parse-concurrency
  "Turns the :concurrency option (\"5\", or \"3n\" for 3 times the node
  count) into a number."
  [parsed]
  (let [c (:concurrency (:options parsed))]
    (if-let [[_ k n] (and (string? c) (re-find #"^(\d+)(n?)$" c))]
      (assoc-in parsed [:options :concurrency]
                (* (parse-long k) (if (= "n" n) (count (:nodes (:options parsed))) 1)))
      parsed)))

(defn test-opt-fn
  "Jepsen's own option processing: :node becomes :nodes, :concurrency a
  number."
  [parsed]
  (-> parsed
      (update :options #(-> % (assoc :nodes (:node %)) (dissoc :node)))
      parse-concurrency))

(defn- exit!
  "System/exit with status, as the real jepsen.cli does, when the system
  property jepsen.twin.exit is true; otherwise nothing."
  [status]
  (when (= "true" (System/getProperty "jepsen.twin.exit"))
    (shutdown-agents)
    (System/exit status)))

(defn single-test-cmd
  "A \"test\" command. Options: :test-fn (options -> test, required),
  :opt-spec (more options), :opts-required, :opt-fn (applied after Jepsen's),
  :usage."
  [opts]
  {"test" {:opt-spec      (into test-opt-spec (:opt-spec opts))
           :opts-required (:opts-required opts)
           :opt-fn        (if-let [f (:opt-fn opts)] (comp f test-opt-fn) test-opt-fn)
           :usage         (:usage opts "Usage: lein run -- test [OPTIONS ...]")
           :run           (fn [{:keys [options]}]
                            (util/info "Test options:\n" (util/pprint-str options))
                            (reduce (fn [_ _]
                                      (let [test (jepsen/run! ((:test-fn opts) options))]
                                        (case (:valid? (:results test))
                                          false    (exit! 1)
                                          :unknown (exit! 2)
                                          nil)
                                        test))
                                    nil
                                    (range (:test-count options 1))))}})

(defn serve-cmd
  "A \"serve\" command, which here does nothing (no web server)."
  []
  {"serve" {:opt-spec [help-opt
                       ["-b" "--host HOST" "Hostname to bind to" :default "0.0.0.0"]
                       ["-p" "--port NUMBER" "Port to bind to" :default 8080, :parse-fn parse-long]]
            :run      (fn [_] nil)}})

(defn run!
  "Runs the command named by the first argument with the options that
  follow; returns what the command returns (see the namespace doc)."
  [subcommands [command & arguments]]
  (let [cmd (or (get subcommands command)
                (throw (ex-info (str "Usage: lein run -- COMMAND [OPTIONS ...]\nCommands: "
                                     (str/join ", " (sort (keys subcommands))))
                                {:exit 254})))
        {:keys [opt-spec opts-required opt-fn usage run]} cmd
        {:keys [options errors summary] :as parsed}
        ((or opt-fn identity) (parse-opts arguments opt-spec))]
    (cond (:help options)
          (println (str (or usage (str "Usage: lein run -- " command " [OPTIONS ...]"))
                        "\n\n" summary))

          errors
          (throw (ex-info (str/join "\n" errors) {:exit 254, :errors errors}))

          (not-every? options opts-required)
          (throw (ex-info (str "Missing required option(s): " (str/join ", " (map name opts-required)))
                          {:exit 254}))

          :else (let [r (try ((or run identity) parsed)
                             (catch Throwable t
                               (when (= "true" (System/getProperty "jepsen.twin.exit"))
                                 (.printStackTrace t))
                               (exit! 255)
                               (throw t)))]
                  (exit! 0)
                  r))))
