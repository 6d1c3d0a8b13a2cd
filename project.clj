(defproject isocheck "0.1.0-SNAPSHOT"
  :description "Isolation checker for Jepsen histories: sound and complete verdicts for SER, SSER, SI and their session/realtime variants, with minimal counterexamples explained in words and pictures."
  :url "https://example.invalid/isocheck"
  :license {:name "Eclipse Public License 2.0"
            :url "https://www.eclipse.org/legal/epl-2.0/"}
  ;; Maven Central only (DESIGN.md, decision 1): no other repository is reachable from our machines.
  :repositories ^:replace [["central" {:url "https://repo1.maven.org/maven2/"}]]
  :dependencies [[org.clojure/clojure "1.11.1"]]
  :source-paths ["src/clojure"]
  :java-source-paths ["src/java"]
  :test-paths ["test"]
  :resource-paths ["resources"]
  ;; -Xpkginfo:always: package-info.class is written, so lein does not recompile it on every run.
  ;; -XDstringConcat=inline: string concatenation as StringBuilder calls rather than
  ;; invokedynamic, whose bootstrap costs a short command-line run about 20 ms of CPU.
  :javac-options ["--release" "17" "-XDstringConcat=inline" "-Xpkginfo:always" "-Xlint:unchecked" "-Xlint:deprecation"]
  ;; The Java command line (lein run check ..., the jars' Main-Class): a Java class, so the
  ;; library jar (lein jar, lein install) carries Clojure sources and the Java core's classes
  ;; only, never an AOT-compiled namespace (which would pin what it loads).
  :main isocheck.cli.Main
  ;; What the jars may hold (project: the jars carry isocheck alone): never a twin of a
  ;; Jepsen namespace or a test namespace, even when a build directory still holds one from
  ;; an older build. jar_test checks both jars entry by entry.
  :jar-exclusions [#"^jepsen/" #"^isocheck/.*_test" #"^isocheck/test_"]
  :uberjar-exclusions [#"^jepsen/" #"^isocheck/.*_test" #"^isocheck/test_"]
  ;; A batch checker wants throughput: ParallelGC loads large histories 10-25% faster
  ;; than G1 on our 2-core machines (no concurrent marking competing for the cores).
  :jvm-opts ["-XX:+UseParallelGC"]
  :aliases {"tests" ["with-profile" "+test" "run" "-m" "isocheck.test-runner"]
            "bench" ["with-profile" "+bench" "run" "-m" "isocheck.bench"]
            ;; Check a real database (README): PostgreSQL or MariaDB driven over JDBC.
            "realdb" ["with-profile" "+examples" "run" "-m" "isocheck.examples.jdbc"]}
  :profiles {;; lein's own :base profile pulls nREPL from an unreachable repository; replace it.
             :base {}
             ;; The real-database examples (examples/jdbc, and the Jepsen test of
             ;; examples/jepsen, which needs Jepsen or test-twins/) and their JDBC drivers: on
             ;; the test classpath (realdb_test, jepsen_example_test), never in the jar's
             ;; dependencies.
             :examples {:source-paths ["examples/jdbc/src" "examples/jepsen/src"]
                        :dependencies [[org.postgresql/postgresql "42.7.14"]
                                       [org.mariadb.jdbc/mariadb-java-client "3.5.3"]]}
             ;; test-twins/: test-only twins of the Jepsen namespaces our tests meet (Jepsen
             ;; itself is not reachable here); on the classpath for tests only.
             :test [:examples {:jvm-opts ["-Xmx2g"] :java-source-paths ["test/java"]
                               :test-paths ^:replace ["test" "test-twins"]}]
             :bench {:jvm-opts ["-Xmx12g" "-Xms12g" "-XX:+UseParallelGC"]}
             ;; The standalone jar (bin/isocheck's) also AOT-compiles the demo, so that
             ;; bin/isocheck demo starts without compiling Clojure.
             ;; No test paths while compiling isocheck.demo ahead of time: isocheck.core
             ;; resolves jepsen.checker when it loads, and a twin on the classpath would be
             ;; compiled into the jar and shadow the user's Jepsen.
             :uberjar {:main isocheck.cli.Main
                       :aot [isocheck.demo]
                       :test-paths ^:replace []
                       :target-path "target/uberjar"}})
