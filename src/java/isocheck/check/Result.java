package isocheck.check;

import isocheck.history.History;
import isocheck.history.Kw;
import isocheck.report.Anomaly;
import isocheck.report.AnomalySet;
import isocheck.report.Dot;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The outcome of a check: a verdict per requested level, the anomalies found (smallest first,
 * at most a cap per type, all counted), and statistics. {@link #toData} gives the result map,
 * Elle-compatible where the concepts coincide ({@code :valid? :anomaly-types :anomalies :not
 * :also-not}) plus {@code :levels :counterexamples :anomaly-counts :stats}.
 */
public final class Result {
  public final History history;
  public final LinkedHashMap<Level, Verdict> levels;
  public final AnomalySet anomalies;
  public final LinkedHashMap<String, Object> stats;
  /**
   * How the counterexamples of cycles were searched ({@code :counterexample-search}): "smallest"
   * (each type's shortest cycle per component, every search complete), "bounded" (some search
   * stopped at its bound, CheckOptions#counterexampleMs: the smallest found within it) or
   * "skipped" (types and counts only).
   */
  public String counterexampleSearch = "smallest";

  Result(History history, LinkedHashMap<Level, Verdict> levels, AnomalySet anomalies, LinkedHashMap<String, Object> stats) {
    this.history = history;
    this.levels = levels;
    this.anomalies = anomalies;
    this.stats = stats;
  }

  /** False if some level is violated; else unknown if some is unknown; else true. */
  public Verdict.Value valid() {
    boolean unknown = false;
    for (Verdict v : levels.values()) {
      if (v.value == Verdict.Value.FALSE) return Verdict.Value.FALSE;
      if (v.value == Verdict.Value.UNKNOWN) unknown = true;
    }
    return unknown ? Verdict.Value.UNKNOWN : Verdict.Value.TRUE;
  }

  /**
   * The anomaly types that bear on the levels asked for (rule out at least one of them): the
   * result's {@code :anomalies}. The others are only counted ({@code :other-anomaly-counts}).
   */
  public List<String> relevantTypes() {
    TreeSet<String> named = new TreeSet<>();
    for (Verdict v : levels.values()) named.addAll(v.anomalyTypes);
    List<String> r = new ArrayList<>();
    for (String t : new TreeSet<>(anomalies.types())) {
      boolean bears = named.contains(t);
      for (Level l : Level.violatedBy(t, history.workload)) bears |= levels.containsKey(l);
      if (bears) r.add(t);
    }
    return r;
  }

  /**
   * Every level ruled out: a level asked for iff its verdict is false (so this agrees
   * with {@code :levels} by construction); a level not asked for when a relevant anomaly rules it
   * out or it implies a violated level.
   */
  public EnumSet<Level> violated() {
    EnumSet<Level> v = EnumSet.noneOf(Level.class);
    for (Map.Entry<Level, Verdict> e : levels.entrySet()) if (e.getValue().value == Verdict.Value.FALSE) v.add(e.getKey());
    EnumSet<Level> asked = EnumSet.noneOf(Level.class);
    asked.addAll(levels.keySet());
    EnumSet<Level> other = EnumSet.noneOf(Level.class);
    for (String t : relevantTypes()) other.addAll(Level.violatedBy(t, history.workload));
    for (Level l : Level.values()) {
      if (asked.contains(l)) continue;
      for (Level bad : v) if (l.implies(bad)) other.add(l);
    }
    other.removeAll(asked);
    v.addAll(other);
    return v;
  }

  /** The weakest violated levels (Elle's :not). */
  public EnumSet<Level> not() { return weakest(violated()); }

  private static EnumSet<Level> weakest(EnumSet<Level> v) {
    EnumSet<Level> r = EnumSet.noneOf(Level.class);
    for (Level l : v) {
      boolean weakest = true;
      for (Level o : v) if (o != l && l.implies(o)) weakest = false;
      if (weakest) r.add(l);
    }
    return r;
  }

  /** The levels asked for that are violated: the weakest of them, as the text report says "not:". */
  public EnumSet<Level> notAsked() { return weakest(violatedAsked()); }

  /** The levels asked for that are violated and imply another one of them ("also not:"). */
  public EnumSet<Level> alsoNotAsked() {
    EnumSet<Level> r = violatedAsked();
    r.removeAll(notAsked());
    return r;
  }

  private EnumSet<Level> violatedAsked() {
    EnumSet<Level> v = EnumSet.noneOf(Level.class);
    for (Map.Entry<Level, Verdict> e : levels.entrySet()) if (e.getValue().value == Verdict.Value.FALSE) v.add(e.getKey());
    return v;
  }

  public EnumSet<Level> alsoNot() {
    EnumSet<Level> r = violated();
    r.removeAll(not());
    return r;
  }

  private static Object verdictData(Verdict.Value v) {
    return v == Verdict.Value.UNKNOWN ? new Kw("unknown") : (Object) (v == Verdict.Value.TRUE);
  }

  private static List<Object> kws(Iterable<?> xs) {
    List<Object> l = new ArrayList<>();
    for (Object x : xs) l.add(new Kw(x.toString()));
    return l;
  }

  /** The result map, as plain data (String keys become keywords on the Clojure side). */
  public Map<String, Object> toData() {
    LinkedHashMap<String, Object> m = new LinkedHashMap<>();
    Verdict.Value valid = valid();
    m.put("valid?", verdictData(valid));
    List<String> types = relevantTypes();
    m.put("anomaly-types", kws(types));
    LinkedHashMap<Object, Object> an = new LinkedHashMap<>();
    LinkedHashMap<Object, Object> cx = new LinkedHashMap<>();
    for (String t : types) {
      List<Object> l = new ArrayList<>();
      List<Anomaly> inst = anomalies.get(t);
      for (Anomaly a : inst) {
        LinkedHashMap<String, Object> d = new LinkedHashMap<>(a.data);
        d.put("explanation", a.explanation);
        l.add(d);
      }
      an.put(new Kw(t), l);
      if (inst.isEmpty()) continue; // counting only (max anomalies 0)
      Anomaly best = inst.get(0);
      LinkedHashMap<String, Object> d = new LinkedHashMap<>(best.data);
      d.put("explanation", best.explanation);
      d.put("dot", Dot.of(history, best));
      cx.put(new Kw(t), d);
    }
    m.put("anomalies", an);
    m.put("not", new LinkedHashSet<>(kws(not())));
    m.put("also-not", new LinkedHashSet<>(kws(alsoNot())));
    LinkedHashMap<Object, Object> lv = new LinkedHashMap<>();
    List<String> reasons = new ArrayList<>();
    for (Map.Entry<Level, Verdict> e : levels.entrySet()) {
      LinkedHashMap<String, Object> d = new LinkedHashMap<>();
      Verdict v = e.getValue();
      d.put("valid?", verdictData(v.value));
      if (v.reason != null) {
        d.put("reason", v.reason);
        reasons.add(e.getKey().id + ": " + v.reason);
      }
      if (!v.anomalyTypes.isEmpty()) d.put("anomaly-types", kws(v.anomalyTypes));
      lv.put(new Kw(e.getKey().id), d);
    }
    m.put("levels", lv);
    if (valid == Verdict.Value.UNKNOWN) m.put("unknown-reason", commonReason() != null ? commonReason() : String.join("; ", reasons));
    m.put("counterexamples", cx);
    m.put("counterexample-search", new Kw(counterexampleSearch));
    LinkedHashMap<Object, Object> counts = new LinkedHashMap<>();
    for (String t : types) counts.put(new Kw(t), anomalies.count(t));
    m.put("anomaly-counts", counts);
    LinkedHashMap<Object, Object> others = new LinkedHashMap<>();
    for (String t : new TreeSet<>(anomalies.types())) if (!types.contains(t)) others.put(new Kw(t), anomalies.count(t));
    if (!others.isEmpty()) m.put("other-anomaly-counts", others);
    m.put("stats", stats);
    return m;
  }

  /**
   * The reason every level is unknown for, when there are several levels and they share one
   * (no transactions to check): then said once. Null otherwise.
   */
  public String commonReason() {
    if (levels.size() < 2) return null;
    String r = null;
    for (Verdict v : levels.values()) {
      if (v.value != Verdict.Value.UNKNOWN || v.reason == null || (r != null && !r.equals(v.reason))) return null;
      r = v.reason;
    }
    return r;
  }

  /** A readable report: verdict per level, then each anomaly type with its smallest counterexample explained. */
  public String text() {
    StringBuilder sb = new StringBuilder();
    Verdict.Value valid = valid();
    String common = commonReason();
    sb.append("valid? ").append(valid == Verdict.Value.UNKNOWN ? "unknown" : valid == Verdict.Value.TRUE ? "true" : "false")
        .append(common != null ? ": " + common : "").append('\n');
    int w = 0;
    for (Level l : levels.keySet()) w = Math.max(w, l.id.length());
    for (Map.Entry<Level, Verdict> e : levels.entrySet()) {
      Verdict v = e.getValue();
      sb.append("  ").append(pad(e.getKey().id, w)).append("  ");
      switch (v.value) {
        case TRUE: sb.append("holds"); break;
        case FALSE: sb.append("VIOLATED (").append(String.join(", ", v.anomalyTypes)).append(')'); break;
        default: sb.append(common != null ? "unknown" : "unknown: " + v.reason);
      }
      sb.append('\n');
    }
    List<String> relevant = relevantTypes();
    if (!relevant.isEmpty()) {
      sb.append("\nnot: ").append(names(notAsked())).append("   also not: ").append(names(alsoNotAsked())).append('\n');
      for (String t : relevant) {
        List<Anomaly> inst = anomalies.get(t);
        long n = anomalies.count(t);
        sb.append("\n").append(t).append(": ").append(n).append(n == 1 ? " instance" : " instances")
            .append(inst.isEmpty() ? " (counted only)" : n > inst.size() ? " (" + inst.size() + " kept; " + shown() + ")"
                : n > 1 ? " (" + shown() + ")" : "")
            .append('\n');
        if (inst.isEmpty()) continue;
        Anomaly a = inst.get(0);
        for (int t2 : new LinkedHashSet<Integer>(toList(a.txns))) {
          sb.append("  ").append(history.name(t2)).append(" = ").append(isocheck.report.Data.opStr(history, t2, a)).append('\n');
        }
        for (String line : a.explanation.split("\n")) sb.append("  ").append(line).append('\n');
      }
    }
    List<String> others = new ArrayList<>();
    for (String t : new TreeSet<>(anomalies.types())) if (!relevant.contains(t)) others.add(t + " (" + anomalies.count(t) + ")");
    if (!others.isEmpty()) sb.append("\nAlso found, bearing on no level asked for: ").append(String.join(", ", others)).append('\n');
    sb.append("\nstats: ").append(isocheck.history.Edn.str(stats)).append('\n');
    return sb.toString();
  }

  /** What the report says of the instance shown: the smallest, or the smallest found within the time bound. */
  private String shown() {
    return "bounded".equals(counterexampleSearch) ? "the smallest found within the time bound is shown" : "the smallest is shown";
  }

  private static List<Integer> toList(int[] a) {
    List<Integer> l = new ArrayList<>();
    for (int x : a) l.add(x);
    return l;
  }

  private static String names(EnumSet<Level> ls) {
    if (ls.isEmpty()) return "-";
    List<String> s = new ArrayList<>();
    for (Level l : ls) s.add(l.id);
    return String.join(", ", s);
  }

  private static String pad(String s, int w) {
    StringBuilder sb = new StringBuilder(s);
    while (sb.length() < w) sb.append(' ');
    return sb.toString();
  }
}
