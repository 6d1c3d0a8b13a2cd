package isocheck.check;

import isocheck.graph.Edge;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Isolation levels, named as Elle names them, each with the orders it carries explicitly:
 * {@code serializable} and {@code snapshot-isolation} use no session order,
 * {@code strong-session-*} add process order, {@code strict-serializable} and
 * {@code strong-snapshot-isolation} add realtime order.
 *
 * <ul>
 * <li>serializable: acyclic(WW ∪ WR ∪ RW)  (Adya PL-3; MTC Def. 5 without SO)
 * <li>snapshot isolation: acyclic((WW ∪ WR) ; RW?)  (Cerone–Gotsman, PolySI Thm 6), i.e. no cycle
 *     without two adjacent anti-dependencies, plus no two committed writers of a key that were
 *     concurrent (lost update)
 * </ul>
 *
 * Levels that are known by name but not yet implemented answer {@code :unknown} with a reason.
 */
public enum Level {
  STRICT_SERIALIZABLE("strict-serializable", Kind.SER, Family.REALTIME),
  STRONG_SESSION_SERIALIZABLE("strong-session-serializable", Kind.SER, Family.PROCESS),
  SERIALIZABLE("serializable", Kind.SER, Family.PLAIN),
  STRONG_SNAPSHOT_ISOLATION("strong-snapshot-isolation", Kind.SI, Family.REALTIME),
  STRONG_SESSION_SNAPSHOT_ISOLATION("strong-session-snapshot-isolation", Kind.SI, Family.PROCESS),
  SNAPSHOT_ISOLATION("snapshot-isolation", Kind.SI, Family.PLAIN),
  // Weak levels (Plume): decided by isocheck.check.weak.
  TCC("tcc", Kind.WEAK, Family.PROCESS),
  RA("ra", Kind.WEAK, Family.PROCESS),
  RC("rc", Kind.WEAK, Family.PROCESS),
  CI("ci", Kind.WEAK, Family.PROCESS),
  // Known, not implemented yet: answer :unknown.
  READ_COMMITTED("read-committed", Kind.WEAK, Family.PLAIN),
  GSI("gsi", Kind.WEAK, Family.REALTIME);

  public enum Kind { SER, SI, WEAK }

  /** Which orders besides the data dependencies a level includes. */
  public enum Family {
    PLAIN(0), PROCESS(Edge.SO), REALTIME(Edge.SO | Edge.RT);
    /** Edge bits the family adds. */
    public final int bits;
    Family(int bits) { this.bits = bits; }
    /** The bits this family adds over the next weaker one. */
    public int newBits() { return this == PLAIN ? 0 : this == PROCESS ? Edge.SO : Edge.RT; }
  }

  public final String id;
  public final Kind kind;
  public final Family family;

  Level(String id, Kind kind, Family family) {
    this.id = id;
    this.kind = kind;
    this.family = family;
  }

  public boolean implemented() { return this != READ_COMMITTED && this != GSI; }

  private static final Map<String, Level> NAMES = new LinkedHashMap<>();

  static {
    for (Level l : values()) NAMES.put(l.id, l);
    NAMES.put("sser", STRICT_SERIALIZABLE);
    NAMES.put("strong-serializable", STRICT_SERIALIZABLE);
    NAMES.put("ser", SERIALIZABLE);
    NAMES.put("si", SNAPSHOT_ISOLATION);
    NAMES.put("strong-session-si", STRONG_SESSION_SNAPSHOT_ISOLATION);
    NAMES.put("strong-si", STRONG_SNAPSHOT_ISOLATION);
    NAMES.put("causal", TCC);
    NAMES.put("read-atomic", RA);
    NAMES.put("cut-isolation", CI);
  }

  /** Parses a level name or alias (with or without a leading colon); null if unknown. */
  public static Level parse(String name) {
    if (name == null) return null;
    String n = name.startsWith(":") ? name.substring(1) : name;
    return NAMES.get(n.trim().toLowerCase(java.util.Locale.ROOT));
  }

  public static String knownNames() { return String.join(", ", NAMES.keySet()); }

  /** Whether this level implies another (a history satisfying this one satisfies that one). */
  public boolean implies(Level o) {
    if (this == o) return true;
    if (!implemented() || !o.implemented()) return false;
    if (o.kind == Kind.WEAK) {
      // TCC ⟹ RA ⟹ RC, RA ⟹ CI (Plume Thm 1, Fig. 1). The SI and serializable levels imply CI;
      // with session order they imply TCC (CM ⊇ SO ∪ WR, and a snapshot is causally closed).
      if (kind == Kind.WEAK) return ordinal() < o.ordinal() && !(this == RC && o == CI);
      return o == CI || family != Family.PLAIN;
    }
    if (kind == Kind.WEAK) return false;
    if (family.ordinal() < o.family.ordinal()) return false; // a level carries every order a weaker one does
    return kind == Kind.SER || o.kind == Kind.SI;
  }

  private static final EnumSet<Level> STRONG = EnumSet.range(STRICT_SERIALIZABLE, SNAPSHOT_ISOLATION);
  private static final EnumSet<Level> WEAK_CM = EnumSet.of(RC, RA, TCC);

  /**
   * The implemented levels an anomaly type rules out. Pre-check anomalies (aborted, intermediate,
   * internal, garbage reads, ...) and lost updates rule out all of them; a cycle rules out the
   * levels whose graph contains it: its family (plain, -process, -realtime) and, for G2-item
   * (adjacent anti-dependencies), only the serializable kinds.
   */
  public static EnumSet<Level> violatedBy(String type) {
    // Both analyses name these: the serializable/SI one under its semantics (a read's own
    // trailing appends are part of the version it shows), the weak one under Plume's (they are
    // not). Only the strong levels are ruled out by either; the weak checker's own verdicts say
    // when the weak levels are.
    if (type.equals("incompatible-order") || type.equals("duplicate-elements")) return EnumSet.copyOf(STRONG);
    EnumSet<Level> weak = isocheck.check.weak.WeakCheck.violatedBy(type);
    if (weak != null) return weak;
    EnumSet<Level> r = EnumSet.noneOf(Level.class);
    Family f = Family.PLAIN;
    String base = type;
    if (type.endsWith("-realtime")) { f = Family.REALTIME; base = type.substring(0, type.length() - 9); }
    else if (type.endsWith("-process")) { f = Family.PROCESS; base = type.substring(0, type.length() - 8); }
    boolean cycle = base.equals("G0") || base.equals("G1c") || base.startsWith("G-single") || base.startsWith("G-nonadjacent")
        || base.equals("G2-item");
    if (!cycle) {
      // Pre-checks: every strong level forbids them. Below them: a lost update is allowed; an
      // internal inconsistency (a read that disagrees with the transaction's own earlier reads
      // and writes of the key) is Plume's NotMyOwnWrite or NotMyLastWrite (TAPs d, e: RC and up)
      // or NonRepeatableRead (TAP j: RA and up, not RC), so it rules out RA and TCC only; the
      // others (aborted, intermediate, future, garbage reads, dirty updates) are TAPs a-c and f,
      // which RC forbids.
      r.addAll(STRONG);
      if (type.equals("internal")) r.addAll(EnumSet.of(RA, TCC));
      else if (!type.equals("lost-update")) r.addAll(WEAK_CM);
      return r;
    }
    for (Level l : STRONG) {
      if (l.family.ordinal() < f.ordinal()) continue; // the cycle needs orders this level lacks
      if (base.equals("G2-item") && l.kind != Kind.SER) continue;
      r.add(l);
    }
    return r;
  }

  /**
   * {@link #violatedBy(String)} for a history of the given workload. On rw-register histories a
   * G0 or G1c cycle (plain or -process) is made of reads-from and session order only, so it is a
   * causal-order cycle (Plume's TAP g) and rules out RC, RA and TCC too. On list-append ones its
   * write-write steps come from the serializable/SI reading of lists (a transaction's read after
   * its own appends fixes where they went; an append no read shows follows the last one read),
   * which Plume's weak levels do not assume, so it rules out the strong levels only; the weak
   * checker finds the weak levels' own cycles.
   */
  public static EnumSet<Level> violatedBy(String type, isocheck.history.History.Workload w) {
    EnumSet<Level> r = violatedBy(type);
    if (w == isocheck.history.History.Workload.REGISTER
        && (type.equals("G0") || type.equals("G1c") || type.equals("G0-process") || type.equals("G1c-process"))) {
      r.addAll(WEAK_CM);
    }
    return r;
  }

  @Override public String toString() { return id; }
}
