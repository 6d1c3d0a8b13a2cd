package isocheck.sim;

import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The canonical isolation-level names the simulator uses to say which levels a generated
 * history must satisfy or violate (DESIGN.md, "Semantic conventions"). Names carry their orders
 * explicitly: {@code serializable} and {@code snapshot-isolation} use no session order, the
 * {@code strong-session-*} levels add process order, {@code strict-serializable} and
 * {@code strong-snapshot-isolation} add realtime order; {@code tcc}, {@code ra}, {@code rc}
 * (Plume's read committed, with monotonic atomic view) and {@code ci} (cut isolation) include
 * session order.
 *
 * <p>Implications used throughout the package: strict-serializable ⇒ strong-session-serializable
 * ⇒ serializable ⇒ snapshot-isolation; strict-serializable ⇒ strong-snapshot-isolation ⇒
 * strong-session-snapshot-isolation ⇒ snapshot-isolation; strong-session-serializable ⇒
 * strong-session-snapshot-isolation ⇒ tcc ⇒ ra ⇒ rc; ra ⇒ ci. Plain snapshot-isolation does not
 * imply tcc (it ignores sessions), and rc does not imply ci.
 */
public final class Levels {
  private Levels() {}

  public static final String STRICT_SERIALIZABLE = "strict-serializable";
  public static final String STRONG_SESSION_SERIALIZABLE = "strong-session-serializable";
  public static final String SERIALIZABLE = "serializable";
  public static final String STRONG_SNAPSHOT_ISOLATION = "strong-snapshot-isolation";
  public static final String STRONG_SESSION_SNAPSHOT_ISOLATION = "strong-session-snapshot-isolation";
  public static final String SNAPSHOT_ISOLATION = "snapshot-isolation";
  public static final String TCC = "tcc";
  public static final String RA = "ra";
  public static final String RC = "rc";
  public static final String CI = "ci";

  /** All ten, strongest first. */
  public static final List<String> ALL = List.of(STRICT_SERIALIZABLE, STRONG_SESSION_SERIALIZABLE,
      SERIALIZABLE, STRONG_SNAPSHOT_ISOLATION, STRONG_SESSION_SNAPSHOT_ISOLATION, SNAPSHOT_ISOLATION,
      TCC, RA, RC, CI);

  /** The serializability and snapshot-isolation families: everything a lost update or a long fork breaks. */
  static final Set<String> SER_AND_SI = of(STRICT_SERIALIZABLE, STRONG_SESSION_SERIALIZABLE,
      SERIALIZABLE, STRONG_SNAPSHOT_ISOLATION, STRONG_SESSION_SNAPSHOT_ISOLATION, SNAPSHOT_ISOLATION);

  /** An unmodifiable set listing its members in the order of {@link #ALL}. */
  static Set<String> of(String... names) {
    Set<String> want = new LinkedHashSet<>(Arrays.asList(names));
    for (String n : want) {
      if (!ALL.contains(n)) throw new IllegalArgumentException("unknown level " + n);
    }
    LinkedHashSet<String> out = new LinkedHashSet<>();
    for (String l : ALL) if (want.contains(l)) out.add(l);
    return Collections.unmodifiableSet(out);
  }

  static Set<String> union(Set<String> a, Set<String> b) {
    LinkedHashSet<String> u = new LinkedHashSet<>(a);
    u.addAll(b);
    return of(u.toArray(new String[0]));
  }

  static Set<String> intersection(Set<String> a, Set<String> b) {
    LinkedHashSet<String> i = new LinkedHashSet<>(a);
    i.retainAll(b);
    return of(i.toArray(new String[0]));
  }

  static Set<String> minus(Set<String> a, Set<String> b) {
    LinkedHashSet<String> d = new LinkedHashSet<>(a);
    d.removeAll(b);
    return of(d.toArray(new String[0]));
  }
}
