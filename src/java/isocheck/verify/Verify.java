package isocheck.verify;

import isocheck.history.History;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * {@code isocheck verify HISTORY RESULT}: checks the certificates of a result isocheck wrote
 * (result.edn or result.json; {@code -} reads it from standard input) against the history, with
 * code that shares none with the search: it reads the history with isocheck's readers
 * ({@code isocheck.io}, {@code isocheck.history}) and nothing else of isocheck. Per level, one
 * line: {@code certified (...)}, {@code NOT certified: why}, {@code no certificate} (the level
 * holds, but the result carries no witness), {@code refuted (...)} (a violated level, shown by
 * the history: {@link FactCheck}, {@link CycleCheck}, {@link WeakCycleCheck}, {@link CutIsolationCheck}), {@code refutation not certified
 * (...)} (a violated level verify cannot show so, and why), or {@code unknown}.
 * Exit status: 0 when every certificate checks, 1 when one does not, 3 for bad input.
 *
 * <p>Certificates ({@code :certificates} in the result map, doc/reports.md): a serial order
 * ({@link SerialCheck}), a start/commit order ({@link SnapshotCheck}) or a weak level's commit
 * order ({@link CommitOrderCheck}); the level's name says which rules apply ({@link #RULES}).
 * Cut isolation needs no order: when it holds, verify checks it on the history
 * ({@link CutIsolationCheck}).
 */
public final class Verify {
  private Verify() {}

  public static final int CERTIFIED = 0, REJECTED = 1, BAD = 3;

  /** Per level name: kind (serial or snapshot) and the orders it respects. */
  private static final Map<String, boolean[]> RULES = Map.of(
      // {serial?, session, realtime, realtime to commits}
      "serializable", new boolean[] {true, false, false, false},
      "strong-session-serializable", new boolean[] {true, true, false, false},
      "strict-serializable", new boolean[] {true, true, true, false},
      "snapshot-isolation", new boolean[] {false, false, false, false},
      "strong-session-snapshot-isolation", new boolean[] {false, true, false, false},
      "strong-snapshot-isolation", new boolean[] {false, true, true, false},
      "gsi", new boolean[] {false, false, true, true});

  /** The weak levels whose certificate is a commit order ({@link CommitOrderCheck}); cut isolation needs none ({@link CutIsolationCheck}). */
  private static final java.util.Set<String> WEAK = java.util.Set.of("rc", "ra", "tcc");

  /** The command line's verify: args HISTORY RESULT; returns the exit status. */
  public static int run(List<String> args, PrintStream out, PrintStream err) {
    if (args.size() != 2 || args.get(0).startsWith("--") && !args.get(0).equals("-")) {
      err.println("isocheck: verify takes a history and a result file: isocheck verify HISTORY RESULT (RESULT may be -)");
      return BAD;
    }
    Map<?, ?> result;
    String resultPath = args.get(1);
    try {
      String text = resultPath.equals("-") ? new String(System.in.readAllBytes(), StandardCharsets.UTF_8)
          : Files.readString(Path.of(resultPath), StandardCharsets.UTF_8);
      Object r = ResultData.parse(text);
      if (!(r instanceof Map) || !(((Map<?, ?>) r).get("levels") instanceof Map)) {
        throw new IllegalArgumentException("it is not a result map with :levels (a result.edn or result.json isocheck wrote)");
      }
      result = (Map<?, ?>) r;
    } catch (Exception e) {
      err.println("isocheck: cannot read the result " + resultPath + ": " + oneLine(e));
      return BAD;
    }
    History h;
    try {
      Object stats = result.get("stats");
      Object w = stats instanceof Map ? ((Map<?, ?>) stats).get("workload") : null;
      History.Workload wl = "append".equals(w) ? History.Workload.APPEND : "wr".equals(w) ? History.Workload.REGISTER : null;
      h = isocheck.io.Formats.readHistory(args.get(0), wl);
    } catch (Exception e) {
      err.println("isocheck: cannot read the history " + args.get(0) + ": " + oneLine(e));
      return BAD;
    }
    Outcome o = verify(h, result);
    for (String line : o.lines) out.println(line);
    out.flush();
    if (o.bad != null) {
      err.println("isocheck: " + o.bad);
      return BAD;
    }
    return o.status;
  }

  /** What verify found: a line per level, the exit status, and a bad certificate's reason (else null). */
  public static final class Outcome {
    public final List<String> lines = new java.util.ArrayList<>();
    public int status = CERTIFIED;
    public String bad;
  }

  /** Verifies the result (as text: result.edn or result.json) against h. */
  public static Outcome verify(History h, String resultText) {
    Object r = ResultData.parse(resultText);
    if (!(r instanceof Map) || !(((Map<?, ?>) r).get("levels") instanceof Map)) {
      throw new IllegalArgumentException("it is not a result map with :levels (a result.edn or result.json isocheck wrote)");
    }
    return verify(h, (Map<?, ?>) r);
  }

  static Outcome verify(History h, Map<?, ?> result) {
    Outcome o = new Outcome();
    Facts f = new Facts(h);
    CycleCheck.Evidence[] evidence = {null}; // built on the first refutation
    Map<?, ?> levels = (Map<?, ?>) result.get("levels");
    Object cs = result.get("certificates");
    Map<?, ?> certs = cs instanceof Map ? (Map<?, ?>) cs : Map.of();
    int width = 0;
    for (Object l : levels.keySet()) width = Math.max(width, String.valueOf(l).length());
    for (Map.Entry<?, ?> e : levels.entrySet()) {
      String level = String.valueOf(e.getKey());
      Object valid = e.getValue() instanceof Map ? ((Map<?, ?>) e.getValue()).get("valid?") : null;
      Object cert = certs.get(level);
      String line;
      if (cert != null) {
        try {
          line = certify(f, level, cert);
        } catch (Facts.Rejected rej) {
          line = "NOT certified: " + rej.getMessage();
          o.status = REJECTED;
        } catch (IllegalArgumentException bad) {
          o.bad = "bad certificate for " + level + ": " + bad.getMessage();
          return o;
        }
      } else if (Boolean.TRUE.equals(valid) && level.equals("ci")) {
        try {
          line = String.format("certified (no order needed: %,d reads checked on the history)", CutIsolationCheck.check(f));
        } catch (Facts.Rejected rej) {
          line = "NOT certified: " + rej.getMessage();
          o.status = REJECTED;
        }
      } else if (Boolean.TRUE.equals(valid)) {
        line = "no certificate";
      } else if (Boolean.FALSE.equals(valid)) {
        line = refute(f, level, (Map<?, ?>) e.getValue(), result.get("anomalies"), evidence);
        Object refs = result.get("refutations");
        Object proof = refs instanceof Map ? ((Map<?, ?>) refs).get(level) : null;
        if (line.startsWith("refutation not certified") && proof != null) line = proof(f, level, proof, evidence, line);
        if (line.startsWith("NOT")) o.status = REJECTED;
      } else {
        line = "unknown: nothing to certify";
      }
      o.lines.add(String.format("%-" + (width + 2) + "s%s", level, line));
    }
    return o;
  }

  /** Checks one level's certificate; the "certified (...)" text, or Rejected. */
  private static String certify(Facts f, String level, Object cert) {
    if (WEAK.contains(level)) {
      if (!(cert instanceof Map) || !(((Map<?, ?>) cert).get("commit-order") instanceof List)) {
        throw new IllegalArgumentException("it has no :commit-order list");
      }
      CommitOrderCheck.Counts c = CommitOrderCheck.check(f, (List<?>) ((Map<?, ?>) cert).get("commit-order"), level);
      return String.format("certified (commit order of %,d transactions, %,d reads checked against %s's axiom)", c.txns, c.reads, level);
    }
    boolean[] r = RULES.get(level);
    if (r == null) throw new IllegalArgumentException("no rules for a level named " + level);
    if (!(cert instanceof Map)) throw new IllegalArgumentException("it is not a map");
    Map<?, ?> c = (Map<?, ?>) cert;
    String key = r[0] ? "serial-order" : "start-commit-order";
    if (!(c.get(key) instanceof List)) throw new IllegalArgumentException("it has no :" + key + " list");
    List<?> order = (List<?>) c.get(key);
    if (r[0]) {
      int n = SerialCheck.check(f, order, r[1], r[2]);
      return String.format("certified (serial order of %,d transactions replayed)", n);
    }
    int n = SnapshotCheck.check(f, order, r[1], r[2], r[3]);
    return String.format("certified (start/commit order of %,d transactions replayed)", n);
  }

  /** Elle's Adya levels (repeatable read, read committed, read uncommitted): refuted by facts and by cycles of the steps each forbids. */
  private static final java.util.Set<String> ADYA = java.util.Set.of("repeatable-read", "read-committed", "read-uncommitted");

  /**
   * A violated level's line: cut isolation is checked on the history ({@link CutIsolationCheck});
   * any other level by the first of its anomalies that the history shows: a fact of one or two
   * transactions that rules the level out ({@link FactCheck}), a cycle shown step by step of a
   * shape the level forbids ({@link CycleCheck}; a pair of writers each of whose orders closes
   * one, {@link CycleCheck#checkPair}), or, at a weak level, a cycle of the commit order the
   * level needs among the counterexample's transactions ({@link WeakCycleCheck}).
   */
  private static String refute(Facts f, String level, Map<?, ?> verdict, Object anomalies, CycleCheck.Evidence[] evidence) {
    if (level.equals("ci")) {
      try {
        CutIsolationCheck.check(f);
      } catch (Facts.Rejected rej) {
        return "refuted (checked on the history: " + rej.getMessage() + ")";
      }
      return "NOT certified: the history has no thin-air or non-repeatable read, so cut isolation holds";
    }
    boolean[] r = RULES.get(level);
    boolean adya = ADYA.contains(level), weak = WEAK.contains(level);
    if (r == null && !adya && !weak) return "refutation not certified (verify knows no rules for a level named " + level + ")";
    if (adya) r = new boolean[] {true, false, false, false};
    if (evidence[0] == null) evidence[0] = new CycleCheck.Evidence(f);
    CycleCheck.Evidence ev = evidence[0];
    Object types = verdict.get("anomaly-types");
    String first = null;
    int tried = 0;
    if (types instanceof List && anomalies instanceof Map) {
      for (Object ty : (List<?>) types) {
        String type = String.valueOf(ty);
        Object inst = ((Map<?, ?>) anomalies).get(type);
        if (!(inst instanceof List)) continue;
        java.util.Set<String> rulesOut = FactCheck.levels(type);
        if (rulesOut != null && !rulesOut.contains(level)) {
          if (first == null) first = type + " does not rule out " + level;
          continue;
        }
        for (Object cx : (List<?>) inst) {
          if (!(cx instanceof Map)) continue;
          tried++;
          try {
            if (rulesOut != null) return "refuted (" + type + ": " + FactCheck.check(f, ev, type, cx, level) + ")";
            if (weak) return "refuted (" + type + ": " + WeakCycleCheck.check(f, ev, FactCheck.txns(f, cx), level) + ")";
            Map<?, ?> c = (Map<?, ?>) cx;
            if (!(c.get("cycle") instanceof List)) throw new CycleCheck.Unproven("verify does not check anomalies of type " + type);
            if (c.get("unordered") instanceof List) {
              try {
                int[] p = CycleCheck.checkPair(f, ev, cx, r[0], r[1], r[2], r[3]);
                if (adya) {
                  adyaShape(f, c, level);
                  adyaShape(f, (Map<?, ?>) c.get("alternative"), level);
                }
                return String.format("refuted (%s: either order of %s's and %s's writes closes a cycle, of %d and %d steps, each shown by"
                    + " the history and that order)", type, f.name(p[0]), f.name(p[1]), p[2], p[3]);
              } catch (CycleCheck.Unproven u) {
                if (first == null) first = type + ": " + u.getMessage();
              }
            }
            int k = CycleCheck.check(f, ev, cx, r[0], r[1], r[2], r[3]);
            if (adya) adyaShape(f, c, level);
            return String.format("refuted (%s: a cycle of %d steps, each shown by the history)", type, k);
          } catch (CycleCheck.Unproven u) {
            if (first == null) first = type + ": " + u.getMessage();
          }
        }
      }
    }
    if (tried == 0) {
      return "refutation not certified (" + (first != null ? first : "no counterexample among its anomalies" + (types instanceof List ? ": " + types : "")) + ")";
    }
    return "refutation not certified (" + first + ")";
  }

  /**
   * A violated level's :refutations proof ({@link ProofCheck}): every version order closes a
   * cycle the level forbids. The line, or the one before with why the proof does not check.
   */
  private static String proof(Facts f, String level, Object proof, CycleCheck.Evidence[] evidence, String before) {
    boolean[] r = level.equals("repeatable-read") ? new boolean[] {true, false, false, false} : RULES.get(level);
    if (r == null || f.append) return before;
    if (evidence[0] == null) evidence[0] = new CycleCheck.Evidence(f);
    try {
      ProofCheck pc = new ProofCheck(f, evidence[0], r[0], r[1], r[2], r[3]);
      pc.check(proof, 0);
      if (pc.splits == 0) return "refuted (the history's facts close a cycle, whatever the version order; checked on the history)";
      return String.format("refuted (every version order closes a cycle: %s%d %s on two writers' order, %d %s in all; checked on the history)",
          pc.derivations == 0 ? "" : pc.derivations + " write " + (pc.derivations == 1 ? "order" : "orders") + " derived, each because its reverse closes one, then ",
          pc.splits, pc.splits == 1 ? "case" : "cases", pc.leaves, pc.leaves == 1 ? "cycle" : "cycles");
    } catch (CycleCheck.Unproven u) {
      return before.substring(0, before.length() - 1) + "; its proof does not check: " + u.getMessage() + ")";
    }
  }

  /** Adya's levels forbid cycles of some steps only: read uncommitted, of write-write ones (G0); read committed, with reads too (G1c). */
  private static void adyaShape(Facts f, Map<?, ?> cx, String level) {
    if (level.equals("repeatable-read")) return;
    for (Object s : (List<?>) cx.get("steps")) {
      String kind = s instanceof Map ? String.valueOf(((Map<?, ?>) s).get("type")) : "?";
      if (kind.equals("ww") || kind.equals("wr") && level.equals("read-committed")) continue;
      throw new CycleCheck.Unproven("a cycle with a " + kind + " step, which " + level + " allows");
    }
  }

  private static String oneLine(Exception e) {
    String m = e.getMessage() == null ? e.toString() : e.getMessage();
    return m.replace('\n', ' ');
  }
}
