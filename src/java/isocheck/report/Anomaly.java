package isocheck.report;

import isocheck.graph.Cycle;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One anomaly found in a history: its type (Elle's name where one exists: G1a, G-single-item,
 * incompatible-order, ...), the transactions that form it, the facts as plain data for the result
 * map, a sentence-level explanation a database engineer can check by hand, and, for cycles, the
 * cycle itself (for pictures).
 */
public final class Anomaly {
  public final String type;
  /** Transactions involved, in the order the explanation names them. */
  public final int[] txns;
  /** Result-map fields (keys become keywords): ops, keys, values, steps. */
  public final Map<String, Object> data;
  public final String explanation;
  /** The cycle, for cycle anomalies; null otherwise. */
  public final Cycle cycle;

  public Anomaly(String type, int[] txns, Map<String, Object> data, String explanation, Cycle cycle) {
    this.type = type;
    this.txns = txns;
    this.data = data;
    this.explanation = explanation;
    this.cycle = cycle;
  }

  /** Size used to pick the smallest counterexample: transactions, then explanation length. */
  public long size() { return (long) txns.length * 1_000_000L + Math.min(999_999, explanation.length()); }

  public static Map<String, Object> map(Object... kvs) {
    LinkedHashMap<String, Object> m = new LinkedHashMap<>();
    for (int i = 0; i < kvs.length; i += 2) m.put((String) kvs[i], kvs[i + 1]);
    return m;
  }
}
