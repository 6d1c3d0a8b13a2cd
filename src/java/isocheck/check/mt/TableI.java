package isocheck.check.mt;

import isocheck.graph.Cycle;
import isocheck.graph.Edge;
import isocheck.history.History;
import isocheck.history.OpRecord;
import isocheck.report.Anomaly;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The names MTC gives the anomalies mini-transactions capture (MTC Table I / Fig. 5, after Adya,
 * Cerone et al., Cerone–Gotsman, Biswas–Enea and Plume), for the anomalies the MT checker
 * reports. The anomaly type stays the Adya/Elle one ({@code G-single-item}, {@code lost-update},
 * {@code G1a}, ...), which decides the levels ruled out ({@link isocheck.check.Level#violatedBy});
 * the Table I name is added as {@code :mtc} and opens the explanation.
 *
 * <p>Cycles are named by shape: two adjacent anti-dependencies (G2-item) are WriteSkew; several,
 * none adjacent (G-nonadjacent), a LongFork; exactly one (G-single) with a session step a
 * SessionGuaranteeViolation, over two transactions a FracturedRead or NonMonotonicRead (which
 * Table I tells apart by the order of the reader's two reads: the newer value first, then the
 * older, is non-monotonic), over more a CausalityViolation. Cycles without anti-dependency
 * (G0, G1c) and single-anti-dependency cycles that need realtime order have no Table I name.
 */
public final class TableI {
  private TableI() {}

  private static final Map<String, String> LETTER = new LinkedHashMap<>();
  private static final Map<String, String> GIST = new LinkedHashMap<>();

  static {
    add("ThinAirRead", "a", "a transaction read a value no transaction wrote");
    add("AbortedRead", "b", "a transaction read a value written by an aborted transaction");
    add("FutureRead", "c", "a transaction read a value it wrote only later");
    add("NotMyLastWrite", "d", "a transaction read its own write of a key, but not its last one");
    add("NotMyOwnWrite", "e", "a transaction wrote a key and then read another value of it");
    add("IntermediateRead", "f", "a transaction read a value its writer later overwrote");
    add("NonRepeatableReads", "g", "a transaction read one key twice and got different values");
    add("SessionGuaranteeViolation", "h", "a transaction missed the effect of an earlier transaction of its own session");
    add("NonMonotonicRead", "i", "a transaction read one key from a writer, then another key from a version that writer had already overwritten");
    add("FracturedRead", "j", "a transaction saw one write of another transaction but missed another of its writes");
    add("CausalityViolation", "k", "a transaction saw an effect but missed one its cause had seen");
    add("LongFork", "l", "two readers saw two concurrent writes in opposite orders");
    add("LostUpdate", "m", "two transactions read the same version of a key and both wrote it");
    add("WriteSkew", "n", "two transactions each read a version the other overwrote");
  }

  private static void add(String name, String letter, String gist) {
    LETTER.put(name, letter);
    GIST.put(name, gist);
  }

  /** The Table I names, in the table's order (a-n). */
  public static java.util.Set<String> names() { return LETTER.keySet(); }

  /**
   * "Two transactions each read a version the other overwrote (WriteSkew in MTC). ": what
   * happened first, the paper's name in parentheses.
   */
  public static String prefix(String name) {
    String g = GIST.get(name);
    return Character.toUpperCase(g.charAt(0)) + g.substring(1) + " (" + name + " in MTC). ";
  }

  /** The letter of a name in MTC's table of anomalies (a-n), or null. */
  public static String letter(String name) { return LETTER.get(name); }

  /** The Table I name of a pre-check anomaly from {@link isocheck.order.RegisterAnalysis}, or null. */
  static String ofPrecheck(History h, Anomaly a) {
    switch (a.type) {
      case "garbage-read": return "ThinAirRead";
      case "G1a": return "AbortedRead";
      case "G1b": return "IntermediateRead";
      case "future-read": return "FutureRead";
      case "lost-update": return "LostUpdate";
      case "internal": return internal(h, a);
      default: return null;
    }
  }

  /**
   * Which intra-transaction pattern an internal inconsistency is: a read that disagrees with an
   * earlier read of the key (NonRepeatableReads), or with the transaction's own earlier write:
   * one of its earlier writes of the key (NotMyLastWrite) or another value (NotMyOwnWrite).
   */
  private static String internal(History h, Anomaly a) {
    int t = a.txns[0];
    Object mop = a.data.get("mop");
    java.util.HashMap<Integer, java.util.HashSet<Integer>> written = new java.util.HashMap<>();
    java.util.HashSet<Integer> seen = new java.util.HashSet<>();
    for (int m = h.mopStart(t); m < h.mopEnd(t); m++) {
      int k = h.mopKey(m);
      boolean first = seen.add(k);
      if (h.mopKind(m) == OpRecord.WRITE) {
        written.computeIfAbsent(k, x -> new java.util.HashSet<>()).add(h.mopVal(m));
        continue;
      }
      // The first access of a key is the external read, never internally inconsistent.
      if (first || !isocheck.report.Data.mop(h, m).equals(mop)) continue;
      java.util.HashSet<Integer> own = written.get(k);
      if (own == null) return "NonRepeatableReads";
      return own.contains(h.mopVal(m)) ? "NotMyLastWrite" : "NotMyOwnWrite";
    }
    return null;
  }

  /** The Table I name of a dependency cycle over transactions (relays folded), or null. */
  static String ofCycle(Cycle c, MtAnalysis mt) {
    String type = c.anomalyType();
    if (type.startsWith("G2-item")) return c.length() == 2 && siblings(c.nodes[0], c.nodes[1], mt) ? "LostUpdate" : "WriteSkew";
    if (type.startsWith("G-nonadjacent")) return "LongFork";
    if (!type.startsWith("G-single")) return null;
    if (c.count(Edge.RT) > 0) return null;
    if (c.count(Edge.SO) > 0) return "SessionGuaranteeViolation";
    if (c.length() != 2) return "CausalityViolation";
    // T → R (R saw T's write) and R → T (anti-dependency: R read a version T overwrote).
    int i = c.labels[0] == Edge.RW ? 1 : 0;
    int t = c.nodes[i], r = c.nodes[1 - i];
    int fresh = -1, stale = -1;
    History h = mt.h;
    for (int m = h.mopStart(r); m < h.mopEnd(r); m++) {
      if (!mt.ra.external[m]) continue;
      int v = mt.version(m), k = h.mopKey(m);
      if (v == MtAnalysis.NONE) continue;
      if (v == t && fresh < 0) fresh = m;
      int x = mt.slotOf(t, k);
      if (x >= 0 && v != t && stale < 0 && (mt.slotParent[x] == v || (v == MtAnalysis.BOT && mt.slotParent[x] == MtAnalysis.NONE))) stale = m;
    }
    return fresh >= 0 && stale >= 0 && fresh < stale ? "NonMonotonicRead" : "FracturedRead";
  }

  /** Whether a and b read-modify-wrote one version of some key (MTC's Divergence pattern). */
  private static boolean siblings(int a, int b, MtAnalysis mt) {
    for (int x = mt.slotStart[a]; x < mt.slotStart[a + 1]; x++) {
      int y = mt.slotOf(b, mt.slotKey[x]);
      if (y >= 0 && mt.slotWhy[x] == MtAnalysis.RMW && mt.slotWhy[y] == MtAnalysis.RMW && mt.slotParent[x] == mt.slotParent[y]) return true;
    }
    return false;
  }

  /** a with its Table I name added: as {@code :mtc} in its data and at the head of its explanation. */
  static Anomaly named(Anomaly a, String name) {
    if (name == null) return a;
    Map<String, Object> data = new LinkedHashMap<>(a.data);
    data.put("mtc", name);
    return new Anomaly(a.type, a.txns, data, prefix(name) + a.explanation, a.cycle);
  }
}
