(ns isocheck.cli (:gen-class))
(defn -main [& args] (println "hello"))
