package isocheck.report;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The one order in which anomaly types are shown (text report, verdict lines, the result map's
 * lists of types, report.html), and which types name the same fact in two vocabularies.
 *
 * <p>The rule, most severe first:
 * <ol>
 * <li>Elle's and Adya's names, in Adya's order G0, G1a, G1b, G1c, G-single-item,
 *     G-nonadjacent-item, G-SI, G2-item; each base name is followed by its variants that need
 *     more orders to close (-process, then -realtime, then -realtime-commit), since a cycle the
 *     data alone closes is the worse finding. The anomalies Elle finds without a cycle sit beside
 *     the phenomenon whose levels they break: duplicate-elements with G0 (read uncommitted and
 *     up), garbage-read and dirty-update with G1a (values no committed transaction wrote),
 *     future-read with G1b, incompatible-order after G1c (read committed and up), internal and
 *     lost-update before G-single-item (repeatable read and snapshot isolation).</li>
 * <li>Plume's patterns, in Plume's order (TAPs a-n). A pattern that is the same fact as one of
 *     Elle's anomalies ({@link #sameAs}) ranks right after it instead.</li>
 * <li>MTC's names (Table I, a-n), which only ever appear as a second name of Elle's types.</li>
 * <li>The linearizability check's findings.</li>
 * <li>Any other type, alphabetically.</li>
 * </ol>
 */
public final class AnomalyOrder {
  private AnomalyOrder() {}

  private static final String[] ELLE = {
      "G0", "duplicate-elements",
      "G1a", "garbage-read", "dirty-update",
      "G1b", "future-read",
      "G1c", "incompatible-order",
      "internal", "lost-update",
      "G-single-item", "G-single", "G-nonadjacent-item", "G-nonadjacent", "G-SI", "G2-item", "G2",
      "unclassified-cycle"};
  private static final String[] SUFFIXES = {"", "-process", "-realtime", "-realtime-commit"};
  private static final String[] PLUME = {
      "ThinAirRead", "AbortedRead", "FutureRead", "NotMyOwnWrite", "NotMyLastWrite", "IntermediateRead", "CyclicCO",
      "NonMonoReadCO", "NonMonoReadCM", "NonRepeatableRead", "FracturedReadCO", "FracturedReadCM", "COConflictCM",
      "ConflictCM", "CyclicVersionOrder"};
  private static final String[] MTC = {
      "ThinAirRead", "AbortedRead", "FutureRead", "NotMyLastWrite", "NotMyOwnWrite", "IntermediateRead",
      "NonRepeatableReads", "SessionGuaranteeViolation", "NonMonotonicRead", "FracturedRead", "CausalityViolation",
      "LongFork", "LostUpdate", "WriteSkew"};
  private static final String[] LIN = {
      "aborted-read", "cyclic-versions", "read-before-write", "stale-order", "divergence", "interleaved-chains"};

  /**
   * Plume's patterns that are the same fact as one of Elle's anomalies, Plume's name to Elle's:
   * a read of an aborted write (G1a), of a value nobody wrote (garbage-read), of a write its
   * transaction overwrote later (G1b), of the reader's own later write (future-read); and a read
   * that disagrees with its own transaction's earlier write or read of the key (internal: Plume
   * tells apart NotMyOwnWrite, NotMyLastWrite and NonRepeatableRead).
   */
  private static final Map<String, String> SAME_AS = new LinkedHashMap<>();

  private static final HashMap<String, Integer> RANK = new HashMap<>();

  static {
    SAME_AS.put("AbortedRead", "G1a");
    SAME_AS.put("ThinAirRead", "garbage-read");
    SAME_AS.put("IntermediateRead", "G1b");
    SAME_AS.put("FutureRead", "future-read");
    SAME_AS.put("NotMyOwnWrite", "internal");
    SAME_AS.put("NotMyLastWrite", "internal");
    SAME_AS.put("NonRepeatableRead", "internal");
    int r = 0;
    for (String b : ELLE) {
      for (String s : SUFFIXES) {
        RANK.putIfAbsent(b + s, r);
        r += 2;
        for (Map.Entry<String, String> e : SAME_AS.entrySet()) if (e.getValue().equals(b + s)) RANK.put(e.getKey(), r - 1);
      }
    }
    for (String p : PLUME) if (!RANK.containsKey(p)) RANK.put(p, r += 2);
    for (String m : MTC) if (!RANK.containsKey(m)) RANK.put(m, r += 2);
    for (String l : LIN) RANK.put(l, r += 2);
  }

  private static final int OTHER = Integer.MAX_VALUE;

  /** A type's place in the order; types of no known vocabulary share the last place. */
  public static int rank(String type) { return RANK.getOrDefault(type, OTHER); }

  /**
   * Most severe first; unknown types last, alphabetically. (A lambda of ours rather than
   * Comparator.comparingInt(...).thenComparing(...), whose own lambdas, java.util.Comparator's,
   * the AOT cache does not hold: each is spun at run time, milliseconds of a small check.)
   */
  public static final Comparator<String> ORDER = (a, b) -> {
    int c = Integer.compare(rank(a), rank(b));
    return c != 0 ? c : a.compareTo(b);
  };

  /** types in {@link #ORDER}, as a new list. */
  public static List<String> sorted(Collection<String> types) {
    List<String> l = new ArrayList<>(types);
    l.sort(ORDER);
    return l;
  }

  /** Elle's name for the same fact as this Plume pattern, or null. */
  public static String sameAs(String type) { return SAME_AS.get(type); }

  /** Plume's patterns that are the same fact as this Elle type, in {@link #ORDER} (empty if none). */
  public static List<String> otherNames(String elleType) {
    List<String> r = new ArrayList<>();
    for (Map.Entry<String, String> e : SAME_AS.entrySet()) if (e.getValue().equals(elleType)) r.add(e.getKey());
    return r;
  }
}
