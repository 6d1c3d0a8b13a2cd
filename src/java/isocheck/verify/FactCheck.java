package isocheck.verify;

import isocheck.history.History;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Checks a refutation that is not a cycle: an anomaly that is a fact of one or two transactions
 * of the history, which rules a level out by itself. The anomaly's types, under Elle's names and
 * Plume's (OOPSLA'24, Table 1: TAPs a–f, j), and the levels each rules out ({@link #levels}):
 *
 * <ul>
 * <li>aborted read (G1a, AbortedRead; dirty-update, an aborted append a committed one built on):
 *     an :ok transaction read a value (or a list holding an element) written by a transaction
 *     that failed (:fail);
 * <li>intermediate read (G1b, IntermediateRead): an :ok transaction read a value of another
 *     transaction that wrote the key again afterwards (list-append: the list read ends with an
 *     append its writer followed by another to the key);
 * <li>future read (future-read, FutureRead): a read shows a value the transaction itself writes
 *     only later;
 * <li>garbage read (garbage-read, ThinAirRead): a value no transaction writes to the key;
 * <li>duplicate-elements: a list that holds an element twice (each value is appended once);
 * <li>incompatible-order: two reads of a list neither of which is a prefix of the other (the
 *     weak levels compare the parts others appended: a read's own trailing appends are not part
 *     of the version it saw, Plume's view);
 * <li>internal: a read that disagrees with its transaction's own earlier read or write of the
 *     key; NotMyOwnWrite, NotMyLastWrite (TAPs d, e): a read after the transaction's own write of
 *     the key that does not show its last write; NonRepeatableRead (TAP j): two reads of a key,
 *     with no write of it between, from different writers;
 * <li>lost-update: two :ok transactions read one version of a key (before writing it
 *     themselves) and both wrote it: in a serial order or under first-committer-wins, the second
 *     should have seen the first's write (Adya's G2-item through two anti-dependencies; Cerone
 *     et al., CONCUR'15, NOCONFLICT).
 * </ul>
 *
 * Each check looks for the fact among the transactions the anomaly names (its :op, :writer,
 * :ops), reading the history alone; a claim the history does not bear out is not certified,
 * naming the transactions.
 */
final class FactCheck {
  private FactCheck() {}

  static final Set<String> STRONG = Set.of("strict-serializable", "strong-session-serializable", "serializable",
      "strong-snapshot-isolation", "strong-session-snapshot-isolation", "gsi", "snapshot-isolation");

  private static Set<String> with(String... more) {
    LinkedHashSet<String> s = new LinkedHashSet<>(STRONG);
    s.addAll(List.of(more));
    return s;
  }

  private static final Set<String> G1 = with("repeatable-read", "read-committed", "rc", "ra", "tcc");

  /** The levels a fact of this type rules out, or null when the type is not a fact verify checks. */
  static Set<String> levels(String type) {
    switch (type) {
      case "G1a": case "AbortedRead": case "dirty-update":
      case "G1b": case "IntermediateRead":
      case "future-read": case "FutureRead":
        return G1;
      case "garbage-read": case "ThinAirRead":
        return with("repeatable-read", "read-committed", "read-uncommitted", "rc", "ra", "tcc", "ci");
      case "duplicate-elements": return with("repeatable-read", "read-committed", "read-uncommitted", "rc", "ra", "tcc");
      case "incompatible-order": return G1;
      case "internal": return with("ra", "tcc");
      case "NotMyOwnWrite": case "NotMyLastWrite": return with("rc", "ra", "tcc");
      case "NonRepeatableRead": return with("ci", "ra", "tcc");
      case "lost-update": return with("repeatable-read");
      default: return null;
    }
  }

  /** The transactions an anomaly instance names (its :op, :writer, :ops and :cycle ops), in order. */
  static List<Integer> txns(Facts f, Object instance) {
    LinkedHashSet<Integer> ts = new LinkedHashSet<>();
    if (instance instanceof Map) {
      Map<?, ?> m = (Map<?, ?>) instance;
      for (String k : new String[] {"op", "writer"}) addOp(f, ts, m.get(k));
      for (String k : new String[] {"ops", "cycle", "unordered"}) {
        if (m.get(k) instanceof List) for (Object o : (List<?>) m.get(k)) addOp(f, ts, o);
      }
    }
    return new ArrayList<>(ts);
  }

  private static void addOp(Facts f, Set<Integer> ts, Object op) {
    if (!(op instanceof Map)) return;
    try {
      ts.add(f.txn(((Map<?, ?>) op).get("index")));
    } catch (Facts.Rejected e) {
      throw new CycleCheck.Unproven(e.getMessage());
    }
  }

  /** Checks the instance of the type for the level; what it shows, in words, or Unproven. */
  static String check(Facts f, CycleCheck.Evidence ev, String type, Object instance, String level) {
    List<Integer> ts = txns(f, instance);
    if (ts.isEmpty()) throw new CycleCheck.Unproven("it names no transaction of the history");
    Object key = instance instanceof Map ? ((Map<?, ?>) instance).get("key") : null;
    String found;
    switch (type) {
      case "G1a": case "AbortedRead": found = aborted(f, ts); break;
      case "dirty-update": found = dirtyUpdate(f, ev, ts); break;
      case "G1b": case "IntermediateRead": found = intermediate(f, ts); break;
      case "future-read": case "FutureRead": found = future(f, ts); break;
      case "garbage-read": case "ThinAirRead": found = garbage(f, ts); break;
      case "duplicate-elements": found = duplicate(f, ts); break;
      case "incompatible-order": found = incompatible(f, ts, WEAK.contains(level)); break;
      case "internal": found = own(f, ts, true, false); break;
      case "NotMyOwnWrite": case "NotMyLastWrite": found = own(f, ts, false, false); break;
      case "NonRepeatableRead": found = own(f, ts, false, true); break;
      case "lost-update": found = lostUpdate(f, ts, key); break;
      default: throw new CycleCheck.Unproven("verify does not check anomalies of type " + type);
    }
    if (found == null) throw new CycleCheck.Unproven(names(f, ts) + (ts.size() == 1 ? " does not show " : " do not show ") + GIST.get(type));
    return found;
  }

  private static final Set<String> WEAK = Set.of("rc", "ra", "tcc", "ci");

  private static final Map<String, String> GIST = Map.ofEntries(
      Map.entry("G1a", "an aborted read (no :ok read of a value written by a transaction that failed)"),
      Map.entry("AbortedRead", "an aborted read (no :ok read of a value written by a transaction that failed)"),
      Map.entry("dirty-update", "a dirty update (no read of a list with a failed transaction's append before a committed one's)"),
      Map.entry("G1b", "an intermediate read (no read of a value its writer overwrote later in the same transaction)"),
      Map.entry("IntermediateRead", "an intermediate read (no read of a value its writer overwrote later in the same transaction)"),
      Map.entry("future-read", "a future read (no read of a value its transaction writes only later)"),
      Map.entry("FutureRead", "a future read (no read of a value its transaction writes only later)"),
      Map.entry("garbage-read", "a garbage read (every value read has a writer)"),
      Map.entry("ThinAirRead", "a garbage read (every value read has a writer)"),
      Map.entry("duplicate-elements", "a list with an element twice"),
      Map.entry("incompatible-order", "two reads of a list neither of which is a prefix of the other"),
      Map.entry("internal", "a read that disagrees with its transaction's own earlier read or write of the key"),
      Map.entry("NotMyOwnWrite", "a read after its transaction's own write that does not show that write"),
      Map.entry("NotMyLastWrite", "a read after its transaction's own write that does not show that write"),
      Map.entry("NonRepeatableRead", "a key read twice from two different transactions"),
      Map.entry("lost-update", "a lost update (two :ok transactions that read one version of the key and both wrote it)"));

  private static String names(Facts f, List<Integer> ts) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < ts.size(); i++) b.append(i == 0 ? "" : i == ts.size() - 1 ? " and " : ", ").append(f.name(ts.get(i)));
    return b.toString();
  }

  // ------------------------------------------------------------------ reads and what they show

  /** What read m shows, for messages: "= v" or "as [..]". */
  private static String shown(Facts f, int m) {
    History h = f.h;
    if (!f.append) return "= " + (h.mopVal(m) == History.NIL ? "nil" : f.value(h.mopVal(m)));
    return "as " + h.listStr(m);
  }

  private static String holds(Facts f, int v) { return f.append ? ", which holds " + f.value(v) : ""; }

  private static String read(Facts f, int m) { return f.name(f.h.mopTxn(m)) + " read key " + f.key(f.h.mopKey(m)) + " " + shown(f, m); }

  /** The values read m shows: a register's value (none for nil), or a list's elements. */
  private static int[] values(Facts f, int m) {
    History h = f.h;
    if (!f.append) return h.mopVal(m) == History.NIL ? new int[0] : new int[] {h.mopVal(m)};
    int len = Math.max(h.mopLen(m), 0);
    int[] vs = new int[len];
    for (int j = 0; j < len; j++) vs[j] = h.listElem(m, j);
    return vs;
  }

  /** The mop of t that writes value v of key x, or -1. */
  private static int writer(Facts f, int x, int v) { return v == History.NIL ? -1 : f.h.writerMop(x, v); }

  /** What one value v a read m shows says, or null: {@link #eachValueRead}'s test. */
  private interface ValueRead {
    String test(int m, int v);
  }

  /** The first non-null answer of r over every value each read of an :ok transaction among ts shows, in order; or null. */
  private static String eachValueRead(Facts f, List<Integer> ts, ValueRead r) {
    History h = f.h;
    for (int t : ts) {
      if (!h.isOk(t)) continue;
      for (int m = h.mopStart(t); m < h.mopEnd(t); m++) {
        if (!f.isRead(m)) continue;
        for (int v : values(f, m)) {
          String s = r.test(m, v);
          if (s != null) return s;
        }
      }
    }
    return null;
  }

  private static String aborted(Facts f, List<Integer> ts) {
    History h = f.h;
    return eachValueRead(f, ts, (m, v) -> {
      int w = writer(f, h.mopKey(m), v);
      if (w < 0 || h.mopTxn(w) == h.mopTxn(m) || !f.failed(h.mopTxn(w))) return null;
      return read(f, m) + (f.append ? ", which holds " + f.value(v) + ", appended by " : ", written by ") + f.name(h.mopTxn(w))
          + ", which failed (:fail)";
    });
  }

  /** A list read (of any :ok transaction) showing an element of a failed transaction among ts before one of a committed one. */
  private static String dirtyUpdate(Facts f, CycleCheck.Evidence ev, List<Integer> ts) {
    if (!f.append) return null;
    History h = f.h;
    for (int a : ts) {
      if (!f.failed(a)) continue;
      for (int p = h.mopStart(a); p < h.mopEnd(a); p++) {
        if (!f.isWrite(p)) continue;
        int x = h.mopKey(p);
        for (int m : ev.readsOf(x)) {
          int[] vs = values(f, m);
          boolean seenA = false;
          for (int v : vs) {
            int w = writer(f, x, v);
            if (w < 0) continue;
            int wt = h.mopTxn(w);
            if (wt == a) seenA = true;
            else if (seenA && ts.contains(wt) && !f.failed(wt)) {
              return read(f, m) + ": " + f.name(wt) + "'s append follows " + f.name(a) + "'s, and " + f.name(a) + " failed (:fail)";
            }
          }
        }
      }
    }
    return null;
  }

  /** The foreign part of list read m: its length once the transaction's own appends to the key before m are stripped; -1 when it does not end with them. */
  static int foreign(Facts f, int m) {
    History h = f.h;
    int t = h.mopTxn(m), x = h.mopKey(m);
    List<Integer> own = new ArrayList<>();
    for (int p = h.mopStart(t); p < m; p++) if (f.isWrite(p) && h.mopKey(p) == x) own.add(h.mopVal(p));
    int len = Math.max(h.mopLen(m), 0), fl = len - own.size();
    if (fl < 0) return -1;
    for (int j = 0; j < own.size(); j++) if (h.listElem(m, fl + j) != own.get(j)) return -1;
    return fl;
  }

  private static boolean writesBefore(Facts f, int t, int x, int m) {
    for (int p = f.h.mopStart(t); p < m; p++) if (f.isWrite(p) && f.h.mopKey(p) == x) return true;
    return false;
  }

  private static String intermediate(Facts f, List<Integer> ts) {
    History h = f.h;
    for (int t : ts) {
      if (!h.isOk(t)) continue;
      for (int m = h.mopStart(t); m < h.mopEnd(t); m++) {
        if (!f.isRead(m)) continue;
        int x = h.mopKey(m), v;
        if (f.append) {
          int fl = foreign(f, m);
          if (fl <= 0) continue;
          v = h.listElem(m, fl - 1);
        } else {
          if (writesBefore(f, t, x, m)) continue;
          v = h.mopVal(m);
        }
        int w = writer(f, x, v);
        if (w < 0 || h.mopTxn(w) == t) continue;
        int wt = h.mopTxn(w);
        for (int p = w + 1; p < h.mopEnd(wt); p++) {
          if (f.isWrite(p) && h.mopKey(p) == x) {
            return read(f, m) + (f.append ? ", ending with " + f.value(v) + ", which " : ", which ") + f.name(wt)
                + (f.append ? " appended and then appended " : " wrote and then overwrote with ") + f.value(h.mopVal(p))
                + " in the same transaction";
          }
        }
      }
    }
    return null;
  }

  private static String future(Facts f, List<Integer> ts) {
    History h = f.h;
    return eachValueRead(f, ts, (m, v) -> {
      int w = writer(f, h.mopKey(m), v);
      return w > m && h.mopTxn(w) == h.mopTxn(m) ? read(f, m) + holds(f, v) + ", a value it writes itself only later" : null;
    });
  }

  private static String garbage(Facts f, List<Integer> ts) {
    return eachValueRead(f, ts, (m, v) ->
        writer(f, f.h.mopKey(m), v) < 0 ? read(f, m) + holds(f, v) + ", a value no transaction writes to it" : null);
  }

  private static String duplicate(Facts f, List<Integer> ts) {
    if (!f.append) return null;
    History h = f.h;
    for (int t : ts) {
      if (!h.isOk(t)) continue;
      for (int m = h.mopStart(t); m < h.mopEnd(t); m++) {
        if (!f.isRead(m)) continue;
        java.util.HashSet<Integer> seen = new java.util.HashSet<>();
        for (int v : values(f, m)) if (!seen.add(v)) return read(f, m) + ", which holds " + f.value(v) + " twice";
      }
    }
    return null;
  }

  /** Two :ok reads of a key among ts's, neither a prefix of the other (their foreign parts, when weak). */
  private static String incompatible(Facts f, List<Integer> ts, boolean weak) {
    if (!f.append) return null;
    History h = f.h;
    List<Integer> reads = new ArrayList<>();
    for (int t : ts) {
      if (!h.isOk(t)) continue;
      for (int m = h.mopStart(t); m < h.mopEnd(t); m++) if (f.isRead(m)) reads.add(m);
    }
    for (int i = 0; i < reads.size(); i++) {
      for (int j = i + 1; j < reads.size(); j++) {
        int a = reads.get(i), b = reads.get(j);
        if (h.mopKey(a) != h.mopKey(b)) continue;
        int la = weak ? foreign(f, a) : Math.max(h.mopLen(a), 0), lb = weak ? foreign(f, b) : Math.max(h.mopLen(b), 0);
        if (la < 0 || lb < 0) continue;
        for (int k = 0; k < Math.min(la, lb); k++) {
          if (h.listElem(a, k) != h.listElem(b, k)) {
            return read(f, a) + " and " + read(f, b) + (weak ? " (the parts others appended)" : "") + ": they differ at position "
                + (k + 1) + ", so neither is a prefix of the other";
          }
        }
      }
    }
    return null;
  }

  /**
   * Reads against the transaction's own earlier reads and writes of the key: after its own write
   * (lists: appends), a read must show it (its last write; a list ending with its appends so far,
   * and, after a read of its own, that read with them); with prior reads: internal also compares
   * with the last one, nonRepeatable only (two reads before any write, from different writers).
   */
  private static String own(Facts f, List<Integer> ts, boolean internal, boolean nonRepeatable) {
    History h = f.h;
    for (int t : ts) {
      if (!h.isOk(t)) continue;
      for (int m = h.mopStart(t); m < h.mopEnd(t); m++) {
        if (!f.isRead(m)) continue;
        int x = h.mopKey(m);
        // The last own op on x before m, and the last own read, with the appends after it.
        int lastOp = -1, lastRead = -1;
        List<Integer> appendsSince = new ArrayList<>(), allAppends = new ArrayList<>();
        for (int p = h.mopStart(t); p < m; p++) {
          if (h.mopKey(p) != x) continue;
          if (f.isWrite(p)) {
            appendsSince.add(h.mopVal(p));
            allAppends.add(h.mopVal(p));
            lastOp = p;
          } else if (f.isRead(p)) {
            lastRead = p;
            lastOp = p;
            appendsSince.clear();
          }
        }
        if (lastOp < 0) continue;
        boolean wrote = !allAppends.isEmpty();
        if (nonRepeatable) {
          if (wrote || lastRead < 0) continue;
          int s1 = source(f, lastRead), s2 = source(f, m);
          if (s1 != s2 && s1 != Integer.MIN_VALUE && s2 != Integer.MIN_VALUE) {
            return read(f, lastRead) + " and then " + shown(f, m) + ", from " + srcName(f, s1) + " and then " + srcName(f, s2);
          }
          continue;
        }
        if (!internal && !wrote) continue;
        if (!f.append) {
          int want = h.mopVal(lastOp);
          if (!internal && f.isRead(lastOp)) {
            // After a read, the last own write still decides.
            want = History.NIL;
            for (int p = h.mopStart(t); p < m; p++) if (f.isWrite(p) && h.mopKey(p) == x) want = h.mopVal(p);
          }
          if (h.mopVal(m) != want) {
            return read(f, m) + ", but its own earlier " + (f.isWrite(lastOp) || !internal ? "write" : "read") + " of it says "
                + (want == History.NIL ? "nil" : f.value(want));
          }
          continue;
        }
        int len = Math.max(h.mopLen(m), 0);
        List<Integer> tail = internal && lastRead >= 0 ? appendsSince : allAppends;
        boolean bad = len < tail.size();
        for (int j = 0; !bad && j < tail.size(); j++) bad = h.listElem(m, len - tail.size() + j) != tail.get(j);
        if (!bad && internal && lastRead >= 0) {
          int lr = Math.max(h.mopLen(lastRead), 0);
          bad = len != lr + appendsSince.size();
          for (int j = 0; !bad && j < lr; j++) bad = h.listElem(m, j) != h.listElem(lastRead, j);
        }
        if (bad) {
          return read(f, m) + ", but " + (internal && lastRead >= 0 ? "its own earlier read " + shown(f, lastRead)
              + (appendsSince.isEmpty() ? "" : " and its appends since of " + appendsSince.size() + " value(s)")
              : "its own appends to it so far (" + tail.size() + ") do not end it in order");
        }
      }
    }
    return null;
  }

  /** The writer read m reads from: a register's value's writer, a list's last element's; -1 for nil or empty; MIN_VALUE when unknown. */
  private static int source(Facts f, int m) {
    History h = f.h;
    int x = h.mopKey(m);
    int v;
    if (f.append) {
      int len = Math.max(h.mopLen(m), 0);
      if (len == 0) return -1;
      v = h.listElem(m, len - 1);
    } else {
      v = h.mopVal(m);
      if (v == History.NIL) return -1;
    }
    int w = writer(f, x, v);
    return w < 0 ? Integer.MIN_VALUE : h.mopTxn(w);
  }

  private static String srcName(Facts f, int s) { return s < 0 ? "the initial state" : f.name(s); }

  /** Two :ok transactions among ts that read one version of the key (before writing it) and both wrote it. */
  private static String lostUpdate(Facts f, List<Integer> ts, Object keyName) {
    History h = f.h;
    List<Integer> rmw = new ArrayList<>(); // the external read mop of each read-modify-write of the key
    for (int t : ts) {
      if (!h.isOk(t)) continue;
      for (int m = h.mopStart(t); m < h.mopEnd(t); m++) {
        if (!f.isRead(m) || writesBefore(f, t, h.mopKey(m), m)) continue;
        if (keyName != null && !sameKey(f.key(h.mopKey(m)), String.valueOf(keyName))) continue;
        boolean writesAfter = false;
        for (int p = m + 1; p < h.mopEnd(t); p++) writesAfter |= f.isWrite(p) && h.mopKey(p) == h.mopKey(m);
        if (writesAfter) {
          rmw.add(m);
          break;
        }
      }
    }
    for (int i = 0; i < rmw.size(); i++) {
      for (int j = i + 1; j < rmw.size(); j++) {
        int a = rmw.get(i), b = rmw.get(j);
        if (h.mopKey(a) != h.mopKey(b) || !java.util.Arrays.equals(values(f, a), values(f, b))) continue;
        return f.name(h.mopTxn(a)) + " and " + f.name(h.mopTxn(b)) + " both read key " + f.key(h.mopKey(a)) + " " + shown(f, a)
            + " and then wrote it";
      }
    }
    if (rmw.size() == 2) {
      int a = rmw.get(0), b = rmw.get(1);
      throw new CycleCheck.Unproven(read(f, a) + " and " + read(f, b) + ": not one version, so not a lost update");
    }
    return null;
  }

  /** Whether a history key (as EDN) is the one the result data names (a keyword or symbol by its name, a string, a number). */
  static boolean sameKey(String edn, String name) {
    return edn.equals(name) || edn.equals(":" + name) || edn.equals("\"" + name + "\"");
  }
}
