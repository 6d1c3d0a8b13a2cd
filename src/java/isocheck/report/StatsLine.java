package isocheck.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The text report's one short line of statistics: how much history was checked and how long it
 * took. The full statistics (graph sizes, per-stage times, the weak check's clocks...) stay in
 * the result map's {@code :stats} (result.edn, result.json, --format edn|json).
 */
public final class StatsLine {
  private StatsLine() {}

  /** "2,265 transactions (2,228 ok, 37 failed), 143 keys, 45 processes; read in 47 ms, checked in 96 ms". */
  public static String of(Map<String, Object> stats) {
    List<String> parts = new ArrayList<>();
    Long txns = num(stats.get("txns"));
    String unit = "transaction";
    if (txns == null) {
      txns = num(stats.get("ops"));
      unit = "op";
    }
    if (txns != null) {
      List<String> how = new ArrayList<>();
      Long ok = num(stats.get("ok")), fail = num(stats.get("fail")), info = num(stats.get("info"));
      if (ok != null && (fail != null && fail > 0 || info != null && info > 0)) how.add(String.format("%,d ok", ok));
      if (fail != null && fail > 0) how.add(String.format("%,d failed", fail));
      if (info != null && info > 0) how.add(String.format("%,d indeterminate", info));
      parts.add(count(txns, unit) + (how.isEmpty() ? "" : " (" + String.join(", ", how) + ")"));
    }
    Long keys = num(stats.get("keys"));
    if (keys != null) parts.add(count(keys, "key"));
    Long sessions = num(stats.get("sessions"));
    if (sessions != null) parts.add(count(sessions, "process"));
    String s = String.join(", ", parts);
    Object ms = stats.get("ms");
    if (ms instanceof Map) {
      Long load = num(((Map<?, ?>) ms).get("load")), total = num(((Map<?, ?>) ms).get("total"));
      List<String> t = new ArrayList<>();
      if (load != null) t.add(String.format("read in %,d ms", load));
      if (total != null) t.add(String.format("checked in %,d ms", total));
      if (!t.isEmpty()) s += (s.isEmpty() ? "" : "; ") + String.join(", ", t);
    }
    return s;
  }

  /** "1 key", "143 keys", "2 processes". */
  public static String count(long n, String noun) {
    return String.format("%,d ", n) + (n == 1 ? noun : noun.endsWith("s") ? noun + "es" : noun + "s");
  }

  private static Long num(Object o) { return o instanceof Number ? ((Number) o).longValue() : null; }
}
