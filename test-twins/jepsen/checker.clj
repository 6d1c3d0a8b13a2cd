(ns jepsen.checker
  "Test-only stand-in for Jepsen's checker namespace: the same protocol, so
  tests exercise isocheck's soft extension of it without Jepsen itself (which
  cannot be fetched here).")

(defprotocol Checker
  (check [checker test history opts]
    "Verify the history is correct. Returns a map like {:valid? true}."))
