package isocheck.check.lin;

import isocheck.check.Verdict;
import isocheck.history.Edn;
import isocheck.history.Kw;
import isocheck.history.OpType;
import isocheck.report.Anomaly;
import isocheck.report.AnomalySet;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Linearizability of single-key read / write / compare-and-set histories with unique values,
 * per key (linearizability is local: Herlihy–Wing), in O(n log n): MTC (ext. version) §IV-E,
 * Algorithm 2 (VL-LWT), with the gaps the digest (seeds-mtc §2.6) notes closed.
 *
 * <p>Values are unique per key, so each read and each compare-and-set names the write it saw.
 * A compare-and-set CAS(old, new) that took effect was linearized where the register held old:
 * its write follows old's immediately. So the writes form <em>chains</em> (runs that are
 * contiguous in every linearization): one from the initial value (nil) and one from each blind
 * write ({@code [:w k v]}: Algorithm 2 admits a single insert; here any number, ordered by the
 * search below). Each version's reads sit between it and the next write.
 *
 * <ol>
 * <li>Which writes took effect: every {@code :ok} one; an {@code :info} (or never completed) one
 *     when something observed its value (a read, or a compare-and-set that took effect: to a
 *     fixpoint), else it is left out (it may never have happened); {@code :fail} never. A value
 *     nobody wrote, or only a failed op, read or compared: {@code :garbage-read},
 *     {@code :aborted-read}. Two compare-and-sets from one value: {@code :divergence} (Algorithm
 *     2 line 8's "∃!" fails on two candidates, not only on none). Writes no chain reaches (a
 *     cycle of compare-and-sets): {@code :cyclic-versions}.
 * <li>Within a chain the order of its ops is forced up to the order of one version's reads
 *     (Algorithm 2 step 2, with the chain's head and the reads placed in it): scanning from the
 *     end, an op invoked after some op forced later had completed is {@code :stale-order}; a read
 *     of a value that completed before its write was invoked, {@code :read-before-write}.
 * <li>The chains' order: the initial one first; chain C before chain D whenever an op of C
 *     completed before an op of D was invoked. A cycle of that relation has one of length two
 *     (take the chain whose earliest completion is least; its predecessor and it precede each
 *     other), so it is found by sorting the chains: {@code :interleaved-chains}, with the four
 *     ops that show it. None: the chains in that order, each in its forced order, linearize the
 *     history.
 * </ol>
 *
 * <p>Without unique values linearizability is NP-complete (Gibbons–Korach; MTC App. C): a key
 * with a value written twice is {@code :unknown} with that reason.
 */
public final class Linearizability {
  private Linearizability() {}

  private static final int INIT = -1;
  private static final long INF = Long.MAX_VALUE;

  /** The outcome: a verdict per key and overall, anomalies, statistics. */
  public static final class Result {
    public final CasHistory h;
    public final Verdict.Value valid;
    public final AnomalySet anomalies;
    /** Keys (as given) not linearizable, and those undecided with why. */
    public final List<Object> failures = new ArrayList<>();
    public final LinkedHashMap<Object, String> unknown = new LinkedHashMap<>();
    public final LinkedHashMap<String, Object> stats = new LinkedHashMap<>();

    Result(CasHistory h, Verdict.Value valid, AnomalySet anomalies) {
      this.h = h;
      this.valid = valid;
      this.anomalies = anomalies;
    }

    private static Object kw(Verdict.Value v) {
      return v == Verdict.Value.TRUE ? Boolean.TRUE : v == Verdict.Value.FALSE ? Boolean.FALSE : new Kw("unknown");
    }

    /** The result map: {:valid? :levels {:linearizable ..} :anomaly-types :anomalies :counterexamples ...}. */
    public Map<String, Object> toData() {
      LinkedHashMap<String, Object> m = new LinkedHashMap<>();
      m.put("valid?", kw(valid));
      List<Object> types = new ArrayList<>();
      for (String t : isocheck.report.AnomalyOrder.sorted(anomalies.types())) types.add(new Kw(t));
      LinkedHashMap<String, Object> lv = new LinkedHashMap<>();
      lv.put("valid?", kw(valid));
      if (!types.isEmpty()) lv.put("anomaly-types", types);
      if (valid == Verdict.Value.UNKNOWN) lv.put("reason", unknownReason());
      m.put("levels", new LinkedHashMap<>(Map.of("linearizable", lv)));
      if (valid == Verdict.Value.FALSE) m.put("not", new java.util.LinkedHashSet<>(List.of(new Kw("linearizable"))));
      m.put("anomaly-types", types);
      LinkedHashMap<String, Object> an = new LinkedHashMap<>(), cx = new LinkedHashMap<>(), counts = new LinkedHashMap<>();
      for (String t : isocheck.report.AnomalyOrder.sorted(anomalies.types())) {
        List<Object> l = new ArrayList<>();
        for (Anomaly a : anomalies.get(t)) l.add(instance(a));
        an.put(t, l);
        counts.put(t, anomalies.count(t));
        if (!l.isEmpty()) {
          Anomaly a = anomalies.get(t).get(0);
          @SuppressWarnings("unchecked")
          Map<String, Object> c = new LinkedHashMap<>((Map<String, Object>) instance(a));
          c.put("explanation", a.explanation);
          c.put("dot", dot(a));
          cx.put(t, c);
        }
      }
      m.put("anomalies", an);
      m.put("counterexamples", cx);
      m.put("anomaly-counts", counts);
      if (!failures.isEmpty()) m.put("failures", failures);
      if (!unknown.isEmpty()) m.put("unknown-keys", new LinkedHashMap<>(unknown));
      if (valid == Verdict.Value.UNKNOWN) m.put("unknown-reason", unknownReason());
      m.put("stats", stats);
      return m;
    }

    private Object instance(Anomaly a) {
      LinkedHashMap<String, Object> d = new LinkedHashMap<>(a.data);
      d.put("type", new Kw(a.type));
      return d;
    }

    String unknownReason() {
      if (unknown.isEmpty()) return null;
      Map.Entry<Object, String> e = unknown.entrySet().iterator().next();
      return (unknown.size() == 1 ? "" : unknown.size() + " keys undecided; the first, ") + e.getValue();
    }

    /** A Graphviz picture of a counterexample: its ops, the forced order (blue) and realtime (red). */
    public String dot(Anomaly a) {
      StringBuilder sb = new StringBuilder("digraph \"").append(a.type).append("\" {\n");
      sb.append("  graph [rankdir=LR, fontname=\"Helvetica\", label=\"").append(a.type).append("\", labelloc=t];\n");
      sb.append("  node [shape=box, style=rounded, fontname=\"Courier\", fontsize=10];\n");
      sb.append("  edge [fontname=\"Helvetica\", fontsize=10];\n");
      for (int i : a.txns) {
        sb.append("  \"").append(h.name(i)).append("\" [label=\"").append(esc(h.name(i) + "  process " + Edn.str(h.process[i]) + "  "
            + (h.completeOrd[i] >= 0 ? OpType.name(h.status[i]) : "never completed") + "\\l" + h.opStr(i))).append("\\l\"];\n");
      }
      @SuppressWarnings("unchecked")
      List<Map<String, Object>> arrows = (List<Map<String, Object>>) a.data.getOrDefault("arrows", List.of());
      for (Map<String, Object> ar : arrows) {
        boolean rt = "realtime".equals(ar.get("label"));
        sb.append("  \"").append(ar.get("from")).append("\" -> \"").append(ar.get("to")).append("\" [label=\"")
            .append(esc(String.valueOf(ar.get("label")))).append("\", color=\"").append(rt ? "#c62828" : "#1f4e9c").append("\"")
            .append(rt ? ", style=dashed" : "").append("];\n");
      }
      return sb.append("}\n").toString();
    }

    private static String esc(String s) { return s.replace("\\", "\\\\").replace("\"", "\\\"").replace("\\\\l", "\\l"); }

    /** The text report. */
    public String text() {
      StringBuilder sb = new StringBuilder();
      sb.append("valid? ").append(valid == Verdict.Value.TRUE ? "true" : valid == Verdict.Value.FALSE ? "false" : "unknown");
      if (valid == Verdict.Value.UNKNOWN) sb.append(": ").append(unknownReason());
      sb.append("\n  linearizable").append(" ".repeat(24)).append(valid == Verdict.Value.TRUE ? "holds" : valid == Verdict.Value.FALSE
          ? "VIOLATED" : "unknown").append('\n');
      if (!failures.isEmpty()) {
        sb.append("\nkeys not linearizable: ").append(failures.size()).append(" (");
        List<String> ks = new ArrayList<>();
        for (int i = 0; i < Math.min(10, failures.size()); i++) ks.add(Edn.str(failures.get(i)));
        sb.append(String.join(", ", ks)).append(failures.size() > 10 ? ", ..." : "").append(")\n");
      }
      for (String t : isocheck.report.AnomalyOrder.sorted(anomalies.types())) {
        long c = anomalies.count(t);
        List<Anomaly> l = anomalies.get(t);
        sb.append('\n').append(t).append(": ").append(c).append(c == 1 ? " instance" : " instances");
        if (l.isEmpty()) {
          sb.append('\n');
          continue;
        }
        sb.append(c > l.size() ? " (" + l.size() + " kept; the smallest is shown)" : c > 1 ? " (the smallest is shown)" : "").append('\n');
        for (String line : l.get(0).explanation.split("\n")) sb.append("  ").append(line).append('\n');
      }
      sb.append("\nstats: ").append(isocheck.report.StatsLine.of(stats)).append('\n');
      return sb.toString();
    }
  }

  /** Checks every key; keeps at most cap instances per anomaly type. */
  public static Result check(CasHistory h, int cap) {
    long t0 = System.nanoTime();
    int nk = h.keyCount();
    // Ops by key (CSR), in completion order.
    int[] start = new int[nk + 1];
    for (int i = 0; i < h.n; i++) start[h.key[i] + 1]++;
    for (int k = 0; k < nk; k++) start[k + 1] += start[k];
    int[] byKey = new int[h.n], fill = Arrays.copyOf(start, nk);
    for (int i = 0; i < h.n; i++) byKey[fill[h.key[i]]++] = i;
    AnomalySet anomalies = new AnomalySet(Math.max(cap, 1));
    Verdict.Value valid = Verdict.Value.TRUE;
    Result r = new Result(h, valid, anomalies);
    long effective = 0, chains = 0;
    KeyCheck kc = new KeyCheck(h, anomalies);
    boolean anyFalse = false, anyUnknown = false;
    for (int k = 0; k < nk; k++) {
      int[] ops = Arrays.copyOfRange(byKey, start[k], start[k + 1]);
      Verdict.Value v = kc.run(k, ops);
      effective += kc.effectiveWrites;
      chains += kc.chainCount;
      Object key = h.keys[k] == CasHistory.NO_KEY ? new Kw("register") : h.keys[k];
      if (v == Verdict.Value.FALSE) {
        anyFalse = true;
        r.failures.add(key);
      } else if (v == Verdict.Value.UNKNOWN) {
        anyUnknown = true;
        r.unknown.put(key, kc.reason);
      }
    }
    Result out = new Result(h, anyFalse ? Verdict.Value.FALSE : anyUnknown ? Verdict.Value.UNKNOWN : Verdict.Value.TRUE, anomalies);
    out.failures.addAll(r.failures);
    out.unknown.putAll(r.unknown);
    int[] st = new int[4];
    for (int i = 0; i < h.n; i++) st[h.status[i]]++;
    out.stats.put("level", new Kw("linearizable"));
    out.stats.put("ops", (long) h.n);
    out.stats.put("ok", (long) st[OpType.OK]);
    out.stats.put("fail", (long) st[OpType.FAIL]);
    out.stats.put("info", (long) st[OpType.INFO]);
    out.stats.put("keys", (long) nk);
    out.stats.put("effective-writes", effective);
    out.stats.put("chains", chains);
    if (h.opsSkipped > 0) out.stats.put("skipped-ops", h.opsSkipped);
    out.stats.put("ms", new LinkedHashMap<>(Map.of("total", (System.nanoTime() - t0) / 1_000_000L)));
    return out;
  }

  /** One key's check; reused across keys. */
  private static final class KeyCheck {
    final CasHistory h;
    final AnomalySet anomalies;
    String reason;
    long effectiveWrites, chainCount;
    String key;
    Object keyData;

    KeyCheck(CasHistory h, AnomalySet anomalies) {
      this.h = h;
      this.anomalies = anomalies;
    }

    long inv(int i) { return h.invokeOrd[i]; }

    long comp(int i) { return h.completeOrd[i] < 0 || h.status[i] == OpType.INFO ? INF : h.completeOrd[i]; }

    boolean writes(int i) { return h.kind[i] != CasHistory.READ; }

    Object written(int i) { return h.kind[i] == CasHistory.CAS ? h.v2[i] : h.v1[i]; }

    Verdict.Value run(int k, int[] ops) {
      reason = null;
      effectiveWrites = chainCount = 0;
      key = h.keyStr(k);
      keyData = h.keys[k] == CasHistory.NO_KEY ? null : h.keys[k];
      // Writers by value; unique values or no verdict.
      HashMap<Object, Integer> writer = new HashMap<>();
      for (int i : ops) {
        if (!writes(i)) continue;
        Integer prev = writer.putIfAbsent(written(i), i);
        if (prev != null) {
          reason = key + ": the value " + Edn.str(written(i)) + " is written twice (" + h.name(prev) + " and " + h.name(i)
              + "); linearizability is decided with unique values only (without them it is NP-complete: Gibbons and "
              + "Korach; MTC App. C). Jepsen's Knossos searches such histories";
          return Verdict.Value.UNKNOWN;
        }
      }
      boolean bad = false;
      // Which writes took effect: :ok ones, and :info ones something that took effect observed.
      HashMap<Integer, Boolean> effective = new HashMap<>();
      ArrayList<Integer> queue = new ArrayList<>();
      for (int i : ops) {
        if (writes(i) && h.status[i] == OpType.OK) {
          effective.put(i, true);
          queue.add(i);
        }
      }
      for (int i : ops) {
        if (h.kind[i] != CasHistory.READ || h.status[i] != OpType.OK || h.v1[i] == null) continue;
        bad |= observe(i, h.v1[i], writer, effective, queue);
      }
      for (int q = 0; q < queue.size(); q++) {
        int i = queue.get(q);
        if (h.kind[i] == CasHistory.CAS && h.v1[i] != null) bad |= observe(i, h.v1[i], writer, effective, queue);
      }
      effectiveWrites = effective.size();
      // Parents, children, chains.
      HashMap<Integer, int[]> children = new HashMap<>(); // version (writer op or INIT) -> {count, first, second}
      ArrayList<Integer> heads = new ArrayList<>();
      heads.add(INIT);
      for (int i : queue) {
        if (h.kind[i] == CasHistory.WRITE) {
          heads.add(i);
          continue;
        }
        Integer p = h.v1[i] == null ? Integer.valueOf(INIT) : writer.get(h.v1[i]);
        if (p == null || (p != INIT && !effective.containsKey(p))) continue; // reported by observe
        int[] c = children.computeIfAbsent(p, z -> new int[] {0, -1, -1});
        if (c[0] == 0) c[1] = i;
        else if (c[0] == 1) c[2] = i;
        else if (c[0] >= 2) divergence(p, c[1], i);
        if (c[0] == 1) divergence(p, c[1], i);
        c[0]++;
      }
      for (int[] c : children.values()) if (c[0] >= 2) bad = true;
      // Reads per version.
      HashMap<Integer, ArrayList<Integer>> reads = new HashMap<>();
      for (int i : ops) {
        if (h.kind[i] != CasHistory.READ || h.status[i] != OpType.OK) continue;
        Integer w = h.v1[i] == null ? Integer.valueOf(INIT) : writer.get(h.v1[i]);
        if (w == null || (w != INIT && !effective.containsKey(w))) continue;
        reads.computeIfAbsent(w, z -> new ArrayList<>()).add(i);
      }
      if (bad) return Verdict.Value.FALSE;
      // Each chain: its versions in order.
      ArrayList<int[]> chainList = new ArrayList<>();
      int reached = 0;
      for (int head : heads) {
        ArrayList<Integer> seq = new ArrayList<>();
        for (int v = head; ; ) {
          seq.add(v);
          if (v != INIT) reached++;
          int[] c = children.get(v);
          if (c == null) break;
          v = c[1];
        }
        chainList.add(seq.stream().mapToInt(Integer::intValue).toArray());
      }
      chainCount = chainList.size();
      if (reached < effective.size()) {
        cyclic(effective, chainList);
        return Verdict.Value.FALSE;
      }
      // Within each chain: the forced order (Algorithm 2 step 2, the head and the reads included).
      long[] s = new long[chainList.size()], f = new long[chainList.size()];
      int[] sOp = new int[chainList.size()], fOp = new int[chainList.size()];
      for (int c = 0; c < chainList.size(); c++) {
        int[] seq = chainList.get(c);
        long minLater = INF;
        int minLaterOp = -1;
        s[c] = Long.MIN_VALUE;
        sOp[c] = -1;
        for (int j = seq.length - 1; j >= 0; j--) {
          int v = seq[j];
          ArrayList<Integer> rs = reads.getOrDefault(v, new ArrayList<>());
          long minRead = INF;
          int minReadOp = -1;
          for (int rd : rs) {
            if (inv(rd) > minLater) {
              staleOrder(rd, minLaterOp, seq, j, v);
              return Verdict.Value.FALSE;
            }
            if (comp(rd) < minRead) {
              minRead = comp(rd);
              minReadOp = rd;
            }
            if (inv(rd) > s[c]) { s[c] = inv(rd); sOp[c] = rd; }
          }
          if (v != INIT) {
            if (inv(v) > minLater) {
              staleOrder(v, minLaterOp, seq, j, v);
              return Verdict.Value.FALSE;
            }
            if (inv(v) > minRead) {
              readBeforeWrite(minReadOp, v);
              return Verdict.Value.FALSE;
            }
            if (inv(v) > s[c]) { s[c] = inv(v); sOp[c] = v; }
            if (comp(v) < minRead) { minRead = comp(v); minReadOp = v; }
          }
          if (minRead < minLater) {
            minLater = minRead;
            minLaterOp = minReadOp;
          }
        }
        f[c] = minLater;
        fOp[c] = minLaterOp;
      }
      // The chains' order: the initial one first; then no two chains each before the other.
      for (int c = 1; c < chainList.size(); c++) {
        if (f[c] < s[0]) {
          interleaved(0, c, -1, -1, sOp[0], fOp[c], chainList, true);
          return Verdict.Value.FALSE;
        }
      }
      int m = chainList.size() - 1;
      if (m >= 2) {
        Integer[] bySDesc = new Integer[m];
        for (int c = 1; c <= m; c++) bySDesc[c - 1] = c;
        Arrays.sort(bySDesc, (a, b) -> Long.compare(s[b], s[a]));
        // Prefix minima of f over bySDesc: the two smallest, so one chain can be excluded.
        int[] min1 = new int[m], min2 = new int[m];
        for (int i = 0; i < m; i++) {
          int c = bySDesc[i];
          int a = i == 0 ? -1 : min1[i - 1], b = i == 0 ? -1 : min2[i - 1];
          if (a < 0 || f[c] < f[a]) { b = a; a = c; }
          else if (b < 0 || f[c] < f[b]) b = c;
          min1[i] = a;
          min2[i] = b;
        }
        for (int c = 1; c <= m; c++) {
          // Chains D with s(D) > f(C): a prefix of bySDesc.
          int lo = 0, hi = m;
          while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (s[bySDesc[mid]] > f[c]) lo = mid + 1;
            else hi = mid;
          }
          if (lo == 0) continue;
          int d = min1[lo - 1] != c ? min1[lo - 1] : min2[lo - 1];
          if (d < 0) continue;
          if (f[d] < s[c]) {
            interleaved(c, d, fOp[c], sOp[d], sOp[c], fOp[d], chainList, false);
            return Verdict.Value.FALSE;
          }
        }
      }
      return Verdict.Value.TRUE;
    }

    /**
     * Op i observed value v (a read, or a compare-and-set's old value): its writer took effect.
     * Returns true (after reporting it) when no op wrote v, or only a failed one.
     */
    private boolean observe(int i, Object v, HashMap<Object, Integer> writer, HashMap<Integer, Boolean> effective, ArrayList<Integer> queue) {
      Integer w = writer.get(v);
      String how = h.kind[i] == CasHistory.READ ? "read " + Edn.str(v) : "compared " + Edn.str(v) + " and set " + Edn.str(h.v2[i]);
      if (w == null) {
        anomalies.add(new Anomaly("garbage-read", new int[] {i},
            Anomaly.map("key", keyData, "op", h.opData(i), "value", v),
            "On " + key + ", " + h.name(i) + " (" + h.opStr(i) + ") " + how + ", but no op wrote " + Edn.str(v)
                + ": a value out of thin air.", null));
        return true;
      }
      if (h.status[w] == OpType.FAIL) {
        anomalies.add(new Anomaly("aborted-read", new int[] {i, w},
            Anomaly.map("key", keyData, "op", h.opData(i), "writer", h.opData(w), "value", v),
            "On " + key + ", " + h.name(i) + " (" + h.opStr(i) + ") " + how + ", which only " + h.name(w) + " ("
                + h.opStr(w) + ") wrote, and it failed: a failed op took effect.", null));
        return true;
      }
      if (!effective.containsKey(w)) {
        effective.put(w, true);
        queue.add(w);
      }
      return false;
    }

    private String versionStr(int v) { return v == INIT ? "nil (the initial value)" : Edn.str(written(v)) + " (" + h.name(v) + ")"; }

    private void divergence(int p, int a, int b) {
      anomalies.add(new Anomaly("divergence", new int[] {a, b},
          Anomaly.map("key", keyData, "ops", java.util.Arrays.asList(h.opData(a), h.opData(b)), "value", p == INIT ? null : written(p),
              "arrows", List.of(Anomaly.map("from", h.name(a), "to", h.name(b), "label", "same old value"))),
          "On " + key + ", " + h.name(a) + " (" + h.opStr(a) + ") and " + h.name(b) + " (" + h.opStr(b) + ") both "
              + "compared-and-set from " + versionStr(p) + ", and both took effect. Once the first set its value, the "
              + "register no longer held " + (p == INIT ? "nil" : Edn.str(written(p))) + " for the second: no order of "
              + "the ops explains both: a lost update (MTC calls this pattern Divergence).", null));
    }

    private void cyclic(HashMap<Integer, Boolean> effective, ArrayList<int[]> chainList) {
      java.util.HashSet<Integer> inChains = new java.util.HashSet<>();
      for (int[] seq : chainList) for (int v : seq) inChains.add(v);
      int first = -1;
      for (int w : effective.keySet()) if (!inChains.contains(w) && (first < 0 || w < first)) first = w;
      anomalies.add(new Anomaly("cyclic-versions", new int[] {first},
          Anomaly.map("key", keyData, "op", h.opData(first)),
          "On " + key + ", " + h.name(first) + " (" + h.opStr(first) + ") took effect, but following its compare-and-sets "
              + "back from value to value never reaches the initial value or a plain write: they form a cycle, which no "
              + "order of the writes allows.", null));
    }

    /** The versions of a chain, rendered: nil → 1 (op 3) → 2 (op 7). */
    private String chainStr(int[] seq) {
      StringBuilder sb = new StringBuilder();
      int from = Math.max(0, seq.length - 12);
      if (from > 0) sb.append("… → ");
      for (int j = from; j < seq.length; j++) {
        if (j > from) sb.append(" → ");
        sb.append(versionStr(seq[j]));
      }
      return sb.toString();
    }

    /** Op o, forced (by the chain) before op later, was invoked after later completed. */
    private void staleOrder(int o, int later, int[] seq, int j, int v) {
      String role = h.kind[o] == CasHistory.READ ? "read " + versionStr(v) : "wrote " + versionStr(v);
      anomalies.add(new Anomaly("stale-order", new int[] {o, later},
          Anomaly.map("key", keyData, "ops", List.of(h.opData(o), h.opData(later)),
              "arrows", List.of(Anomaly.map("from", h.name(o), "to", h.name(later), "label", "forced order"),
                  Anomaly.map("from", h.name(later), "to", h.name(o), "label", "realtime"))),
          "On " + key + ", compare-and-sets fix the order of the writes: " + chainStr(Arrays.copyOf(seq, seq.length)) + ".\n"
              + h.name(o) + " (" + h.opStr(o) + ") " + role + ", so it comes before " + h.name(later) + " ("
              + h.opStr(later) + "), which belongs later in that order.\n"
              + "But " + h.name(later) + " completed (at " + h.completeOrd[later] + ") before " + h.name(o) + " was invoked (at "
              + h.invokeOrd[o] + "): in real time it came first. No linearization has both.", null));
    }

    private void readBeforeWrite(int rd, int w) {
      anomalies.add(new Anomaly("read-before-write", new int[] {rd, w},
          Anomaly.map("key", keyData, "ops", List.of(h.opData(rd), h.opData(w)),
              "arrows", List.of(Anomaly.map("from", h.name(w), "to", h.name(rd), "label", "wrote the value read"),
                  Anomaly.map("from", h.name(rd), "to", h.name(w), "label", "realtime"))),
          "On " + key + ", " + h.name(rd) + " (" + h.opStr(rd) + ") read " + Edn.str(written(w)) + ", which " + h.name(w) + " ("
              + h.opStr(w) + ") wrote; but " + h.name(rd) + " completed (at " + h.completeOrd[rd] + ") before " + h.name(w)
              + " was invoked (at " + h.invokeOrd[w] + "): it read a value from the future.", null));
    }

    /**
     * Chains a and b each must come before the other: op a1 (of a) completed before op b1 (of b)
     * was invoked, and op b2 (of b) completed before op a2 (of a) was invoked. With initial: a is
     * the initial chain (first by definition) and b2 completed before a2 was invoked.
     */
    private void interleaved(int a, int b, int a1, int b1, int a2, int b2, ArrayList<int[]> chains, boolean initial) {
      int[] ca = chains.get(a), cb = chains.get(b);
      StringBuilder sb = new StringBuilder("On " + key + ", compare-and-sets chain the writes into runs, each contiguous in any "
          + "linearization: " + chainStr(ca) + "; and " + chainStr(cb) + ".\n");
      List<Object> arrows = new ArrayList<>();
      java.util.LinkedHashSet<Integer> ops = new java.util.LinkedHashSet<>();
      if (initial) {
        sb.append("The run from the initial value comes first, yet ").append(h.name(b2)).append(" (").append(h.opStr(b2))
            .append(", of the second run) completed (at ").append(h.completeOrd[b2]).append(") before ").append(h.name(a2))
            .append(" (").append(h.opStr(a2)).append(", of the first) was invoked (at ").append(h.invokeOrd[a2]).append(").");
        ops.add(a2);
        ops.add(b2);
        arrows.add(Anomaly.map("from", h.name(b2), "to", h.name(a2), "label", "realtime"));
      } else {
        sb.append(h.name(a1)).append(" (").append(h.opStr(a1)).append(") completed (at ").append(h.completeOrd[a1]).append(") before ")
            .append(h.name(b1)).append(" (").append(h.opStr(b1)).append(") was invoked (at ").append(h.invokeOrd[b1])
            .append("), so the first run comes before the second; but ").append(h.name(b2)).append(" (").append(h.opStr(b2))
            .append(") completed (at ").append(h.completeOrd[b2]).append(") before ").append(h.name(a2)).append(" (")
            .append(h.opStr(a2)).append(") was invoked (at ").append(h.invokeOrd[a2]).append("), so the second comes before the first.");
        ops.addAll(List.of(a1, b1, b2, a2));
        arrows.add(Anomaly.map("from", h.name(a1), "to", h.name(b1), "label", "realtime"));
        arrows.add(Anomaly.map("from", h.name(b2), "to", h.name(a2), "label", "realtime"));
      }
      List<Object> data = new ArrayList<>();
      for (int o : ops) data.add(h.opData(o));
      anomalies.add(new Anomaly("interleaved-chains", ops.stream().mapToInt(Integer::intValue).toArray(),
          Anomaly.map("key", keyData, "ops", data, "arrows", arrows), sb.toString(), null));
    }
  }
}
