package isocheck.check;

import isocheck.graph.Edge;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Isolation levels, named as Elle names them, each with the orders it carries explicitly:
 * {@code serializable} and {@code snapshot-isolation} use no session order,
 * {@code strong-session-*} add process order, {@code strict-serializable} and
 * {@code strong-snapshot-isolation} add realtime order, {@code gsi} adds realtime order between
 * commits only.
 *
 * <ul>
 * <li>serializable: acyclic(WW ∪ WR ∪ RW)  (Adya PL-3; MTC Def. 5 without SO)
 * <li>snapshot isolation: acyclic((WW ∪ WR) ; RW?)  (Cerone–Gotsman, PolySI Thm 6), i.e. no cycle
 *     without two adjacent anti-dependencies, plus no two committed writers of a key that were
 *     concurrent (lost update)
 * <li>generalized snapshot isolation (Elnikety, Pedone, Zwaenepoel, SRDS'05: read rule D1, commit
 *     rule D2): snapshot isolation whose snapshot may be any one committed before the transaction
 *     began; with Jepsen's one clock the only consequence is that a transaction that completed
 *     before another was invoked committed first: Viper's begin/commit graph (EuroSys'23 §5) with
 *     realtime edges commit → commit ({@link Family#COMMIT_REALTIME}; {@link
 *     isocheck.graph.BcGraph} proves it equivalent to the oracles' executions)
 * <li>read uncommitted, read committed, repeatable read: Adya's PL-1 (no G0), PL-2 (no G1a, G1b,
 *     G1c) and PL-2.99 (also no G2-item), as Elle's consistency models name and extend them
 *     (isocheck.check.adya.AdyaLevels)
 * </ul>
 */
public enum Level {
  STRICT_SERIALIZABLE("strict-serializable", Kind.SER, Family.REALTIME),
  STRONG_SESSION_SERIALIZABLE("strong-session-serializable", Kind.SER, Family.PROCESS),
  SERIALIZABLE("serializable", Kind.SER, Family.PLAIN),
  STRONG_SNAPSHOT_ISOLATION("strong-snapshot-isolation", Kind.SI, Family.REALTIME),
  STRONG_SESSION_SNAPSHOT_ISOLATION("strong-session-snapshot-isolation", Kind.SI, Family.PROCESS),
  GSI("gsi", Kind.SI, Family.COMMIT_REALTIME),
  SNAPSHOT_ISOLATION("snapshot-isolation", Kind.SI, Family.PLAIN),
  // Adya's levels under Elle's names: decided by isocheck.check.adya.
  REPEATABLE_READ("repeatable-read", Kind.ADYA, Family.PLAIN),
  READ_COMMITTED("read-committed", Kind.ADYA, Family.PLAIN),
  READ_UNCOMMITTED("read-uncommitted", Kind.ADYA, Family.PLAIN),
  // Weak levels (Plume): decided by isocheck.check.weak.
  TCC("tcc", Kind.WEAK, Family.PROCESS),
  RA("ra", Kind.WEAK, Family.PROCESS),
  RC("rc", Kind.WEAK, Family.PROCESS),
  CI("ci", Kind.WEAK, Family.PROCESS);

  /** SER and SI: cycle rules over the dependency graph; ADYA: Adya's PL-1/2/2.99; WEAK: Plume's axioms. */
  public enum Kind { SER, SI, ADYA, WEAK }

  /**
   * Which orders besides the data dependencies a level includes, and the suffix its cycles take in
   * anomaly names. PLAIN ⊑ PROCESS ⊑ REALTIME and PLAIN ⊑ COMMIT_REALTIME ⊑ REALTIME
   * ({@link #carries}); PROCESS and COMMIT_REALTIME are incomparable. COMMIT_REALTIME is GSI's:
   * realtime order enters a transaction at its commit (C → C) instead of its begin (C → B).
   */
  public enum Family {
    PLAIN(0, ""), PROCESS(Edge.SO, "-process"), REALTIME(Edge.SO | Edge.RT, "-realtime"),
    COMMIT_REALTIME(Edge.RT, "-realtime-commit");
    /** Edge bits the family adds. */
    public final int bits;
    /** The suffix of a cycle's anomaly name that needs this family's orders. */
    public final String suffix;
    Family(int bits, String suffix) {
      this.bits = bits;
      this.suffix = suffix;
    }
    /** The bits this family adds over the next weaker one in the chain PLAIN ⊑ PROCESS ⊑ REALTIME (GSI: RT). */
    public int newBits() { return this == PLAIN ? 0 : this == PROCESS ? Edge.SO : Edge.RT; }

    /** Whether a graph with this family's orders contains (up to reachability) every edge of o's. */
    public boolean carries(Family o) { return o == PLAIN || o == this || this == REALTIME; }

    /** The family an anomaly name's suffix names (PLAIN when it has none). */
    public static Family ofType(String type) {
      if (type.endsWith(COMMIT_REALTIME.suffix)) return COMMIT_REALTIME;
      if (type.endsWith(REALTIME.suffix)) return REALTIME;
      if (type.endsWith(PROCESS.suffix)) return PROCESS;
      return PLAIN;
    }

    /** An anomaly name without its family suffix. */
    public static String baseOf(String type) {
      String s = ofType(type).suffix;
      return type.substring(0, type.length() - s.length());
    }
  }

  public final String id;
  public final Kind kind;
  public final Family family;

  Level(String id, Kind kind, Family family) {
    this.id = id;
    this.kind = kind;
    this.family = family;
  }

  private static final Map<String, Level> NAMES = new LinkedHashMap<>();

  static {
    for (Level l : values()) NAMES.put(l.id, l);
    NAMES.put("sser", STRICT_SERIALIZABLE);
    NAMES.put("strong-serializable", STRICT_SERIALIZABLE);
    NAMES.put("ser", SERIALIZABLE);
    NAMES.put("si", SNAPSHOT_ISOLATION);
    NAMES.put("strong-session-si", STRONG_SESSION_SNAPSHOT_ISOLATION);
    NAMES.put("strong-si", STRONG_SNAPSHOT_ISOLATION);
    NAMES.put("pl-2.99", REPEATABLE_READ);
    NAMES.put("pl-2", READ_COMMITTED);
    NAMES.put("pl-1", READ_UNCOMMITTED);
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
    if (o.kind == Kind.WEAK) {
      // TCC ⟹ RA ⟹ RC, RA ⟹ CI (Plume Thm 1, Fig. 1). The SI and serializable levels imply CI;
      // with session order they imply TCC (CM ⊇ SO ∪ WR, and a snapshot is causally closed).
      // Elle's levels allow a read that disagrees with the transaction's own earlier ones (:internal),
      // which CI forbids, so they imply none of Plume's.
      if (kind == Kind.WEAK) return ordinal() < o.ordinal() && !(this == RC && o == CI);
      if (kind == Kind.ADYA) return false;
      return o == CI || family.carries(Family.PROCESS);
    }
    if (kind == Kind.WEAK) return false;
    if (o.kind == Kind.ADYA) {
      // RR ⟹ RC ⟹ RU (declaration order); every SI and serializable level forbids all that read
      // committed does; the serializable ones all that repeatable read does (Elle's model graph).
      if (kind == Kind.ADYA) return ordinal() < o.ordinal();
      return o != REPEATABLE_READ || kind == Kind.SER;
    }
    if (kind == Kind.ADYA) return false;
    if (!family.carries(o.family)) return false; // a level carries every order a weaker one does
    return kind == Kind.SER || o.kind == Kind.SI;
  }

  private static final EnumSet<Level> STRONG = EnumSet.range(STRICT_SERIALIZABLE, SNAPSHOT_ISOLATION);
  private static final EnumSet<Level> WEAK_CM = EnumSet.of(RC, RA, TCC);
  private static final EnumSet<Level> RR_UP = EnumSet.of(REPEATABLE_READ);
  private static final EnumSet<Level> RC_UP = EnumSet.of(REPEATABLE_READ, READ_COMMITTED);
  private static final EnumSet<Level> RU_UP = EnumSet.of(REPEATABLE_READ, READ_COMMITTED, READ_UNCOMMITTED);

  /**
   * The levels an anomaly type rules out. Pre-check anomalies (aborted, intermediate, internal,
   * garbage reads, ...) and lost updates rule out all the SI and serializable ones; a cycle rules
   * out the levels whose graph contains it: its family (plain, -process, -realtime,
   * -realtime-commit) and, for G2-item (adjacent anti-dependencies), only the serializable kinds.
   * Elle's read uncommitted, read committed and repeatable read follow Elle's anomaly graph
   * (elle.consistency-model): PL-1 forbids G0 and duplicate elements; PL-2 also G1a, G1b, G1c and
   * what Elle says implies them (incompatible-order and dirty-update imply G1a, future-read G1c);
   * PL-2.99 also G-single-item, G-nonadjacent-item, G2-item and lost-update. Elle's models forbid
   * no :internal anomaly; isocheck counts a garbage read (a value no one wrote) with the aborted
   * reads, and, unlike them, as ruling out every level, read uncommitted and cut isolation
   * included: every level is defined over histories in which each read has a writer (Adya's
   * histories, where a read of x_i follows the write of x_i; Plume's Definition 2, where WR maps
   * each read to exactly one committed writer, which is why Plume's TAP a, ThinAirRead, is
   * "subsumed by the definition of history"), so a read of a value no one wrote leaves no
   * history for any level to hold on (Elle's list-append check stops with an assertion, "No
   * transaction wrote", at every level); and G-SI (a cycle that rests on write orders a search forced under snapshot isolation's
   * rules, see {@link isocheck.check.si.RegisterSearch}) with repeatable read, which on key-value
   * histories has serializability's graph.
   */
  public static EnumSet<Level> violatedBy(String type) {
    // Both analyses name these: the serializable/SI one under its semantics (a read's own
    // trailing appends are part of the version it shows), the weak one under Plume's (they are
    // not). The weak checker's own verdicts say when the weak levels are ruled out.
    if (type.equals("duplicate-elements")) return union(STRONG, RU_UP);
    if (type.equals("incompatible-order")) return union(STRONG, RC_UP);
    // A refutation the search could not put into a cycle: its verdict names it; it rules out no
    // other level by itself.
    if (type.equals("unclassified-cycle")) return EnumSet.noneOf(Level.class);
    EnumSet<Level> weak = isocheck.check.weak.WeakCheck.violatedBy(type);
    if (weak != null) return weak;
    EnumSet<Level> r = EnumSet.noneOf(Level.class);
    Family f = Family.ofType(type);
    String base = Family.baseOf(type);
    boolean cycle = base.equals("G0") || base.equals("G1c") || base.startsWith("G-single") || base.startsWith("G-nonadjacent")
        || base.equals("G2-item") || base.equals("G-SI");
    if (!cycle) {
      // Pre-checks: every SI and serializable level forbids them. Below them: a lost update is
      // allowed by read committed and Plume's levels; an internal inconsistency (a read that
      // disagrees with the transaction's own earlier reads and writes of the key) is Plume's
      // NotMyOwnWrite or NotMyLastWrite (TAPs d, e: RC and up) or NonRepeatableRead (TAP j: RA
      // and up, not RC), so it rules out RA and TCC only, and none of Elle's; the others
      // (aborted, intermediate, future, garbage reads, dirty updates) are TAPs a-c and f, which
      // Plume's RC forbids, and G1 for Elle's read committed.
      r.addAll(STRONG);
      if (type.equals("internal")) r.addAll(EnumSet.of(RA, TCC));
      else if (type.equals("lost-update")) r.addAll(RR_UP);
      else {
        r.addAll(WEAK_CM);
        r.addAll(RC_UP);
        // A value nobody wrote: no level holds (see the comment above).
        if (type.equals("garbage-read")) r.addAll(EnumSet.of(READ_UNCOMMITTED, CI));
      }
      return r;
    }
    for (Level l : STRONG) {
      if (!l.family.carries(f)) continue; // the cycle needs orders this level lacks
      if (base.equals("G2-item") && l.kind != Kind.SER) continue;
      r.add(l);
    }
    if (f == Family.PLAIN) r.addAll(base.equals("G0") ? RU_UP : base.equals("G1c") ? RC_UP : RR_UP);
    return r;
  }

  private static EnumSet<Level> union(EnumSet<Level> a, EnumSet<Level> b) {
    EnumSet<Level> r = EnumSet.copyOf(a);
    r.addAll(b);
    return r;
  }

  /**
   * {@link #violatedBy(String)} for a history of the given workload. On rw-register histories a
   * G1c cycle (plain or -process) is made of reads-from and session order only (the version-order
   * search names a cycle that rests on write orders it forced G-SI, never G0 or G1c), so it is a
   * causal-order cycle (Plume's TAP g) and rules out RC, RA and TCC too. On list-append ones its
   * write-write steps come from the serializable/SI reading of lists (a transaction's read after
   * its own appends fixes where they went; an append no read shows follows the last one read),
   * which Plume's weak levels do not assume, so it rules out the strong levels and Elle's only;
   * the weak checker finds the weak levels' own cycles.
   */
  public static EnumSet<Level> violatedBy(String type, isocheck.history.History.Workload w) {
    EnumSet<Level> r = violatedBy(type);
    if (w == isocheck.history.History.Workload.REGISTER && (type.equals("G1c") || type.equals("G1c-process"))) {
      r.addAll(WEAK_CM);
    }
    return r;
  }

  /** The anomaly types among types that rule level l out ({@link #violatedBy(String)}), sorted. */
  public static java.util.List<String> ruledOutBy(Iterable<String> types, Level l) {
    java.util.List<String> r = new java.util.ArrayList<>();
    for (String t : types) if (violatedBy(t).contains(l)) r.add(t);
    java.util.Collections.sort(r);
    return r;
  }

  @Override public String toString() { return id; }
}
