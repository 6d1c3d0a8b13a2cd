package isocheck.check.weak;

import java.util.EnumSet;

/**
 * Plume's transactional anomalous patterns (Plume Table 1 / Fig. 3, definitions reconstructed in
 * seeds-weak §3.4) and the levels each rules out (Plume Table 2): RC = a–i, RA = a–l, TCC = a–n,
 * CI = j, and a (ThinAirRead) rules out CI too: Plume's levels are defined over histories, in
 * which each read has a writer (its Definition 2), so a read of a value no one wrote satisfies
 * none. Three list-append patterns the papers do not name complete the set: a read that is not
 * a prefix of its key's order, a list with an element twice, and a cycle made only of version
 * order and causal order (pitfall 12: it must never be accepted silently).
 */
enum Tap {
  THIN_AIR_READ("ThinAirRead", 'a', "read a value no transaction wrote"),
  ABORTED_READ("AbortedRead", 'b', "read a value written by an aborted transaction"),
  FUTURE_READ("FutureRead", 'c', "read its own later write"),
  NOT_MY_OWN_WRITE("NotMyOwnWrite", 'd', "read another transaction's value after writing the key itself"),
  NOT_MY_LAST_WRITE("NotMyLastWrite", 'e', "read its own write, but not its last one"),
  INTERMEDIATE_READ("IntermediateRead", 'f', "read a write that its transaction later overwrote"),
  CYCLIC_CO("CyclicCO", 'g', "session and read-from order form a cycle"),
  NON_MONO_READ_CO("NonMonoReadCO", 'h', "read y from t2, then x from t1, although t1 causally precedes t2, which wrote x"),
  NON_MONO_READ_CM("NonMonoReadCM", 'i', "read y from t2, then x from t1, although t1 must commit before t2, which wrote x"),
  NON_REPEATABLE_READ("NonRepeatableRead", 'j', "read one key from two different transactions"),
  FRACTURED_READ_CO("FracturedReadCO", 'k', "saw t2's writes, but read x from t1, which causally precedes t2"),
  FRACTURED_READ_CM("FracturedReadCM", 'l', "saw t2's writes, but read x from t1, which must commit before t2"),
  CO_CONFLICT_CM("COConflictCM", 'm', "read x from t1, although t2 overwrote it and both causally precede the reader"),
  CONFLICT_CM("ConflictCM", 'n', "read x from t1, although t2 overwrote it, t2 causally precedes the reader, and t1 must commit before t2"),
  INCOMPATIBLE_ORDER("incompatible-order", '-', "two reads of a list disagree on its order"),
  DUPLICATE_ELEMENTS("duplicate-elements", '-', "a list holds an element twice"),
  CYCLIC_VERSION_ORDER("CyclicVersionOrder", '-', "the order of a key's list contradicts causal order");

  final String id;
  final char letter;
  final String gist;

  Tap(String id, char letter, String gist) {
    this.id = id;
    this.letter = letter;
    this.gist = gist;
  }

  /** Weak levels this pattern rules out. */
  EnumSet<WeakLevel> violates() {
    switch (this) {
      case NON_REPEATABLE_READ: return EnumSet.of(WeakLevel.CI, WeakLevel.RA, WeakLevel.TCC);
      // Plume's Table 2 lists TAP j alone for CI, over histories (Definition 2), in which every
      // read has a committed writer: a value no one wrote is no history, so no level holds.
      case THIN_AIR_READ: return EnumSet.allOf(WeakLevel.class);
      case FRACTURED_READ_CO: case FRACTURED_READ_CM: return EnumSet.of(WeakLevel.RA, WeakLevel.TCC);
      case CO_CONFLICT_CM: case CONFLICT_CM: return EnumSet.of(WeakLevel.TCC);
      default: return EnumSet.of(WeakLevel.RC, WeakLevel.RA, WeakLevel.TCC);
    }
  }

  /** Whether the pattern is a commit-order triangle (h, i, k–n). */
  boolean triangle() { return ordinal() >= NON_MONO_READ_CO.ordinal() && ordinal() <= CONFLICT_CM.ordinal() && this != NON_REPEATABLE_READ; }

  static Tap byId(String id) {
    for (Tap t : values()) if (t.id.equals(id)) return t;
    return null;
  }

  /** The weak levels, weakest first, as the checker decides them. */
  enum WeakLevel { CI, RC, RA, TCC }

  /**
   * One instance. Intra-transaction patterns: reader t (t3), the read mop, the related mop
   * (own write, writer) and the other transaction. Triangles: t1 (read from), t2 (the overwriting
   * writer), t3 (the reader), the read of x (mop), and how t2 precedes t3 ({@link #via}).
   */
  static final class Instance {
    final Tap tap;
    final int t3, mop, mop2, t1, t2, elem;
    /** Triangles: SO, a read mop of t3 reading from t2 (WR), or -1 (causal order). */
    int via = -1;
    boolean viaSo;

    Instance(Tap tap, int t3, int mop, int mop2, int t1, int t2, int elem) {
      this.tap = tap;
      this.t3 = t3;
      this.mop = mop;
      this.mop2 = mop2;
      this.t1 = t1;
      this.t2 = t2;
      this.elem = elem;
    }

    static Instance intra(Tap tap, int t, int readMop, int otherMop, int other) {
      return new Instance(tap, t, readMop, otherMop, other, -1, -1);
    }

    static Instance intraElem(Tap tap, int t, int readMop, int otherMop, int other, int elem) {
      return new Instance(tap, t, readMop, otherMop, other, -1, elem);
    }

    static Instance incompatible(int t, int readMop, int longestMop, int elem) {
      return new Instance(INCOMPATIBLE_ORDER, t, readMop, longestMop, -1, -1, elem);
    }

    static Instance nonRepeatable(int t, int firstMop, int firstFrom, int secondMop, int secondFrom) {
      return new Instance(NON_REPEATABLE_READ, t, firstMop, secondMop, firstFrom, secondFrom, -1);
    }
  }
}
