package isocheck.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Anomalies by type, keeping at most {@code cap} instances per type (the smallest ones) while
 * counting all of them, so that a result can say "12,408 G1a, 32 shown" instead of silently
 * truncating.
 */
public final class AnomalySet {
  private final int cap;
  private final LinkedHashMap<String, List<Anomaly>> byType = new LinkedHashMap<>();
  private final LinkedHashMap<String, Long> counts = new LinkedHashMap<>();

  /** Keeps at most cap instances of each type (0: counts only). */
  public AnomalySet(int cap) { this.cap = Math.max(0, cap); }

  public void add(Anomaly a) {
    counts.merge(a.type, 1L, Long::sum);
    List<Anomaly> l = byType.computeIfAbsent(a.type, t -> new ArrayList<>());
    if (cap == 0) return;
    if (l.size() < cap) {
      l.add(a);
      return;
    }
    // Keep the smallest: replace the largest kept instance if this one is smaller.
    int worst = 0;
    for (int i = 1; i < l.size(); i++) if (l.get(i).size() > l.get(worst).size()) worst = i;
    if (a.size() < l.get(worst).size()) l.set(worst, a);
  }

  public void addAll(AnomalySet o) {
    for (List<Anomaly> l : o.byType.values()) for (Anomaly a : l) add(a);
    // Counts of instances o did not keep.
    for (Map.Entry<String, Long> e : o.counts.entrySet()) {
      long kept = o.byType.getOrDefault(e.getKey(), List.of()).size();
      if (e.getValue() > kept) counts.merge(e.getKey(), e.getValue() - kept, Long::sum);
    }
  }

  /**
   * Whether an instance of type over txns transactions would be counted but not kept: the cap is
   * reached and every kept instance has fewer transactions (size orders by transactions first).
   * A caller can then {@link #tally} it without building it.
   */
  public boolean wouldDrop(String type, int txns) {
    if (cap == 0) return true;
    List<Anomaly> l = byType.get(type);
    if (l == null || l.size() < cap) return false;
    for (Anomaly a : l) if (a.txns.length >= txns) return false;
    return true;
  }

  /** Counts one more instance of a type without keeping it (its cap is reached). */
  public void tally(String type) { counts.merge(type, 1L, Long::sum); }

  /** Instances of a type kept so far. */
  public int kept(String type) { return byType.getOrDefault(type, List.of()).size(); }

  public int cap() { return cap; }

  public boolean has(String type) { return counts.containsKey(type); }
  public boolean isEmpty() { return counts.isEmpty(); }
  public long count(String type) { return counts.getOrDefault(type, 0L); }
  public Map<String, Long> counts() { return counts; }

  /** Instances of a type, smallest first. */
  public List<Anomaly> get(String type) {
    List<Anomaly> l = new ArrayList<>(byType.getOrDefault(type, List.of()));
    // Not Comparator.comparingLong: its lambda is spun at run time (AnomalyOrder.ORDER).
    l.sort((a, b) -> Long.compare(a.size(), b.size()));
    return l;
  }

  public List<String> types() { return new ArrayList<>(counts.keySet()); }
}
