package isocheck.verify;

import isocheck.history.History;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;

/**
 * The database state a certificate's order builds, key by key: an rw-register's value (nil
 * before any write) and a list-append key's list (empty before any append), with the
 * transaction that wrote it last. A transaction's reads are checked against it, and its writes
 * applied to it, by the certificate classes, in their order.
 *
 * <p>The read rule (Adya's "reads see the last installed version"; Cerone et al., CONCUR'15,
 * INT and EXT): a read of key k that follows the transaction's own write of k returns that
 * write (rw-register: its last write; list-append: the state plus its own appends so far);
 * any other read returns the state. Only the reads of transactions that completed :ok are
 * checked: an :info transaction's reads are unknown.
 */
final class Store {
  private final Facts f;
  private final int[] value, writer;
  private final List<List<Integer>> lists = new ArrayList<>();

  Store(Facts f) {
    this.f = f;
    int keys = f.h.keyCount();
    value = new int[keys];
    writer = new int[keys];
    java.util.Arrays.fill(value, History.NIL);
    java.util.Arrays.fill(writer, -1);
    for (int k = 0; k < keys; k++) lists.add(null);
  }

  /** Checks t's reads against the state now, with its own writes; throws naming the first that disagrees. */
  void checkReads(int t, String where) {
    if (!f.ok(t)) return;
    History h = f.h;
    HashMap<Integer, Integer> ownValue = new HashMap<>();
    HashMap<Integer, List<Integer>> ownAppends = new HashMap<>();
    for (int m = h.mopStart(t); m < h.mopEnd(t); m++) {
      int k = h.mopKey(m);
      if (f.isWrite(m)) {
        if (f.append) ownAppends.computeIfAbsent(k, x -> new ArrayList<>()).add(h.mopVal(m));
        else ownValue.put(k, h.mopVal(m));
        continue;
      }
      if (!f.isRead(m)) continue;
      if (!f.append) {
        int got = h.mopVal(m);
        boolean own = ownValue.containsKey(k);
        int want = own ? ownValue.get(k) : value[k];
        if (got == want) continue;
        String source = own ? "its own write before the read is " + f.value(want)
            : writer[k] < 0 ? "no transaction " + where + " in the certificate writes it (nil)"
            : "the last write " + where + " in the certificate is " + f.name(writer[k]) + "'s " + f.value(want);
        throw new Facts.Rejected(f.name(t) + " read key " + f.key(k) + " as " + (got == History.NIL ? "nil" : f.value(got))
            + ", but " + source);
      }
      List<Integer> base = lists.get(k) == null ? List.of() : lists.get(k);
      List<Integer> own = ownAppends.getOrDefault(k, List.of());
      int len = Math.max(h.mopLen(m), 0), want = base.size() + own.size();
      for (int j = 0; j < Math.max(len, want); j++) {
        int got = j < len ? h.listElem(m, j) : Integer.MIN_VALUE;
        int exp = j < base.size() ? base.get(j) : j < want ? own.get(j - base.size()) : Integer.MIN_VALUE;
        if (got == exp) continue;
        String by = j < base.size() ? " (appended by " + f.name(appender(k, j)) + ")" : j < want ? " (its own append)" : "";
        throw new Facts.Rejected(f.name(t) + " read key " + f.key(k) + " as a list of " + len + " elements, but the appends "
            + where + " in the certificate" + (own.isEmpty() ? "" : " and its own") + " make " + want + "; they first differ at "
            + "position " + j + ": read " + (j < len ? f.value(got) : "nothing") + ", expected "
            + (j < want ? f.value(exp) + by : "nothing"));
      }
    }
  }

  /** Per key, which transaction appended each position (list-append), for the messages. */
  private final List<List<Integer>> appenders = new ArrayList<>();

  private int appender(int k, int j) { return appenders.get(k).get(j); }

  /** Applies t's writes, in its order: after this, reads see them. */
  void apply(int t) {
    History h = f.h;
    for (int m = h.mopStart(t); m < h.mopEnd(t); m++) {
      if (!f.isWrite(m)) continue;
      int k = h.mopKey(m);
      writer[k] = t;
      if (!f.append) {
        value[k] = h.mopVal(m);
        continue;
      }
      if (lists.get(k) == null) lists.set(k, new ArrayList<>());
      while (appenders.size() <= k) appenders.add(null);
      if (appenders.get(k) == null) appenders.set(k, new ArrayList<>());
      lists.get(k).add(h.mopVal(m));
      appenders.get(k).add(t);
    }
  }

  /** The keys t writes. */
  java.util.Set<Integer> keysWritten(int t) {
    java.util.LinkedHashSet<Integer> ks = new java.util.LinkedHashSet<>();
    for (int m = f.h.mopStart(t); m < f.h.mopEnd(t); m++) if (f.isWrite(m)) ks.add(f.h.mopKey(m));
    return ks;
  }
}
