package isocheck.check;

import isocheck.history.History;
import isocheck.history.Kw;
import isocheck.report.Anomaly;
import isocheck.report.AnomalyOrder;
import isocheck.report.AnomalySet;
import isocheck.report.StatsLine;
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
    // Every verdict names its anomaly types in the one severity order (AnomalyOrder).
    for (Map.Entry<Level, Verdict> e : levels.entrySet()) {
      Verdict v = e.getValue();
      if (v.anomalyTypes.size() <= 1) continue;
      Verdict sorted = new Verdict(v.value, v.reason, AnomalyOrder.sorted(v.anomalyTypes));
      sorted.witness = v.witness;
      sorted.refutation = v.refutation;
      e.setValue(sorted);
    }
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
   * result's {@code :anomalies}, most severe first ({@link AnomalyOrder}). The others are only
   * counted ({@code :other-anomaly-counts}).
   */
  public List<String> relevantTypes() {
    TreeSet<String> named = new TreeSet<>();
    for (Verdict v : levels.values()) named.addAll(v.anomalyTypes);
    List<String> r = new ArrayList<>();
    for (String t : AnomalyOrder.sorted(anomalies.types())) {
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

  /**
   * {@code :certificates}: per level that holds with a witness kept, the order that shows it, by
   * the transactions' display indices (doc/reports.md): a serializable level's {@code
   * :serial-order}, a snapshot-isolation level's {@code :start-commit-order} (each transaction
   * twice: its start, then its commit), a weak level's (RC, RA, TCC) {@code :commit-order}; cut
   * isolation needs no order. {@code bin/isocheck verify} checks them.
   */
  private LinkedHashMap<Object, Object> certificates() {
    LinkedHashMap<Object, Object> certs = new LinkedHashMap<>();
    for (Map.Entry<Level, Verdict> e : levels.entrySet()) {
      Verdict v = e.getValue();
      Level l = e.getKey();
      if (v.value != Verdict.Value.TRUE || v.witness == null) continue;
      LinkedHashMap<String, Object> c = new LinkedHashMap<>();
      if (l.kind == Level.Kind.SER && !v.witness.si) c.put("serial-order", v.witness.serialOrder(history));
      else if (l.kind == Level.Kind.SI) c.put("start-commit-order", v.witness.eventOrder(history));
      else if (l.kind == Level.Kind.WEAK && l != Level.CI) c.put("commit-order", v.witness.serialOrder(history));
      else continue;
      certs.put(new Kw(l.id), c);
    }
    return certs;
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
    LinkedHashMap<Object, Object> certs = certificates();
    if (!certs.isEmpty()) m.put("certificates", certs);
    LinkedHashMap<Object, Object> refs = new LinkedHashMap<>();
    for (Map.Entry<Level, Verdict> e : levels.entrySet()) {
      if (e.getValue().value == Verdict.Value.FALSE && e.getValue().refutation != null) refs.put(new Kw(e.getKey().id), e.getValue().refutation);
    }
    if (!refs.isEmpty()) m.put("refutations", refs);
    if (valid == Verdict.Value.UNKNOWN) m.put("unknown-reason", commonReason() != null ? commonReason() : String.join("; ", reasons));
    m.put("counterexamples", cx);
    m.put("counterexample-search", new Kw(counterexampleSearch));
    LinkedHashMap<Object, Object> counts = new LinkedHashMap<>();
    for (String t : types) counts.put(new Kw(t), anomalies.count(t));
    m.put("anomaly-counts", counts);
    LinkedHashMap<Object, Object> same = new LinkedHashMap<>();
    for (Map.Entry<String, String> e : sameAs().entrySet()) same.put(new Kw(e.getKey()), new Kw(e.getValue()));
    if (!same.isEmpty()) m.put("same-as", same);
    LinkedHashMap<Object, Object> others = new LinkedHashMap<>();
    for (String t : AnomalyOrder.sorted(anomalies.types())) if (!types.contains(t)) others.put(new Kw(t), anomalies.count(t));
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

  /**
   * The Plume patterns reported under Elle's name for the same fact ({@link AnomalyOrder#sameAs}),
   * Plume's name to Elle's: both types bear on the levels asked for, so the text report shows the
   * fact once, under Elle's name, and names the other beside it. In the result map as {@code :same-as}.
   */
  public LinkedHashMap<String, String> sameAs() {
    List<String> rel = relevantTypes();
    LinkedHashMap<String, String> m = new LinkedHashMap<>();
    for (String t : rel) {
      String elle = AnomalyOrder.sameAs(t);
      if (elle != null && rel.contains(elle)) m.put(t, elle);
    }
    return m;
  }

  /** The relevant types the text report gives a section of their own: {@link #relevantTypes} less those {@link #sameAs} folds. */
  public List<String> shownTypes() {
    List<String> r = new ArrayList<>(relevantTypes());
    r.removeAll(sameAs().keySet());
    return r;
  }

  /** A verdict's anomaly types as the text report names them: a folded pattern as "G1a as AbortedRead", each fact once. */
  private List<String> verdictNames(List<String> types, Map<String, String> same) {
    LinkedHashMap<String, List<String>> byShown = new LinkedHashMap<>();
    for (String t : types) byShown.computeIfAbsent(same.getOrDefault(t, t), k -> new ArrayList<>()).add(t);
    List<String> shown = AnomalyOrder.sorted(byShown.keySet());
    List<String> r = new ArrayList<>();
    for (String s : shown) {
      List<String> as = byShown.get(s);
      if (as.contains(s)) r.add(s);
      else r.add(s + " as " + String.join(", ", as));
    }
    return r;
  }

  /** "not: read-committed, rc; also not: serializable, tcc", without an empty "also not". */
  public static String notLine(EnumSet<Level> not, EnumSet<Level> alsoNot) {
    return "not: " + names(not) + (alsoNot.isEmpty() ? "" : "; also not: " + names(alsoNot));
  }

  /** A readable report: verdict per level, then each anomaly type with its smallest counterexample explained. */
  public String text() { return text(false); }

  /**
   * The text report: the verdict per level; the weakest levels violated; each anomaly type, most
   * severe first ({@link AnomalyOrder}), one section per fact (a Plume pattern that is the same
   * fact as one of Elle's anomalies is named in the latter's heading), with its smallest
   * counterexample explained (countsOnly: its count alone); a short line of statistics.
   */
  public String text(boolean countsOnly) {
    StringBuilder sb = new StringBuilder();
    Verdict.Value valid = valid();
    String common = commonReason();
    Map<String, String> same = sameAs();
    sb.append("valid? ").append(valid == Verdict.Value.UNKNOWN ? "unknown" : valid == Verdict.Value.TRUE ? "true" : "false")
        .append(common != null ? ": " + common : "").append('\n');
    int w = 0;
    for (Level l : levels.keySet()) w = Math.max(w, l.id.length());
    for (Map.Entry<Level, Verdict> e : levels.entrySet()) {
      Verdict v = e.getValue();
      sb.append("  ").append(pad(e.getKey().id, w)).append("  ");
      switch (v.value) {
        case TRUE: sb.append("holds"); break;
        case FALSE: sb.append("VIOLATED (").append(String.join(", ", verdictNames(v.anomalyTypes, same))).append(')'); break;
        default: sb.append(common != null ? "unknown" : "unknown: " + v.reason);
      }
      sb.append('\n');
    }
    List<String> relevant = relevantTypes();
    if (!relevant.isEmpty()) {
      sb.append('\n').append(notLine(notAsked(), alsoNotAsked())).append('\n');
      if (countsOnly) sb.append('\n');
      for (String t : shownTypes()) {
        List<Anomaly> inst = anomalies.get(t);
        long n = anomalies.count(t);
        if (!countsOnly) sb.append('\n');
        sb.append(t).append(alsoNames(t, n, same)).append(": ").append(StatsLine.count(n, "instance"));
        if (countsOnly) {
          sb.append('\n');
          continue;
        }
        sb.append(inst.isEmpty() ? " (counted only)" : n > inst.size() ? " (" + inst.size() + " kept; " + shown() + ")"
                : n > 1 ? " (" + shown() + ")" : "")
            .append('\n');
        if (inst.isEmpty()) continue;
        Anomaly a = inst.get(0);
        for (int t2 : listed(a)) {
          sb.append("  ").append(history.name(t2)).append(" = ").append(isocheck.report.Data.opStr(history, t2, a)).append('\n');
        }
        for (String line : a.explanation.split("\n")) sb.append("  ").append(line).append('\n');
      }
    }
    List<String> others = new ArrayList<>();
    for (String t : AnomalyOrder.sorted(anomalies.types())) if (!relevant.contains(t)) others.add(t + " (" + anomalies.count(t) + ")");
    if (!others.isEmpty()) sb.append("\nAlso found, bearing on no level asked for: ").append(String.join(", ", others)).append('\n');
    sb.append("\nstats: ").append(StatsLine.of(stats)).append('\n');
    return sb.toString();
  }

  private java.util.HashMap<Long, Integer> byName;

  /**
   * The transactions a counterexample lists with their ops: its own, then every other one its
   * explanation names (a reader cited as evidence, a step of a causal chain), so a reader can
   * check each sentence against the ops.
   */
  public List<Integer> listed(Anomaly a) {
    LinkedHashSet<Integer> r = new LinkedHashSet<>(toList(a.txns));
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("\\bT(\\d+)\\b").matcher(a.explanation);
    while (m.find()) {
      if (byName == null) {
        byName = new java.util.HashMap<>();
        for (int t = 0; t < history.nTxns; t++) byName.putIfAbsent(history.displayIndex(t), t);
      }
      Integer t;
      try {
        t = byName.get(Long.parseLong(m.group(1)));
      } catch (NumberFormatException e) {
        continue;
      }
      if (t != null) r.add(t);
    }
    return new ArrayList<>(r);
  }

  /** The other names of a shown type, as its heading gives them: " (also: AbortedRead)", or "". */
  public String alsoNames(String shown) {
    return alsoNames(shown, anomalies.count(shown), sameAs());
  }

  /** " (also: AbortedRead)", or with its own count when that differs: " (also: AbortedRead, 3 instances)". */
  private String alsoNames(String elle, long n, Map<String, String> same) {
    List<String> as = new ArrayList<>();
    for (Map.Entry<String, String> e : same.entrySet()) {
      if (!e.getValue().equals(elle)) continue;
      long m = anomalies.count(e.getKey());
      as.add(e.getKey() + (m == n ? "" : ", " + StatsLine.count(m, "instance")));
    }
    return as.isEmpty() ? "" : " (also: " + String.join("; ", as) + ")";
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
