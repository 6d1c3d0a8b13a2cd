package isocheck.verify;

import isocheck.history.History;
import java.util.HashMap;

/**
 * Checks cut isolation (CI) on the history alone: it needs no order (Plume, Liu et al.,
 * OOPSLA'24, Def. 3, and Table 2: CI forbids TAPs a and j only). The rules, for every
 * transaction that completed :ok:
 *
 * <ol>
 * <li>No thin-air read: every value read (every element of a list read) was written by some
 *     transaction, or is the initial nil.
 * <li>Repeatable reads: the reads of one key that show another transaction's version all show
 *     the same one. A read's version is the writer of its value (nil: the initial state t⊥);
 *     list-append: the writer of the last element that is not the reader's own append (t⊥ when
 *     there is none). Reads of the reader's own writes, and of writes of failed transactions
 *     (aborted reads, which CI allows), show no version here.
 * </ol>
 */
final class CutIsolationCheck {
  private CutIsolationCheck() {}

  static final int BOT = -1;

  /** Checks every read; the number of reads checked, or Rejected. */
  static int check(Facts f) {
    History h = f.h;
    int reads = 0;
    for (int t = 0; t < f.n; t++) {
      if (!f.ok(t)) continue;
      HashMap<Integer, Integer> version = new HashMap<>(); // key -> the transaction whose version t read
      for (int m = h.mopStart(t); m < h.mopEnd(t); m++) {
        if (!f.isRead(m)) continue;
        reads++;
        int x = h.mopKey(m), src;
        if (!f.append) {
          src = h.mopVal(m) == History.NIL ? BOT : writer(f, t, m, h.mopVal(m));
        } else {
          for (int j = 0; j < Math.max(h.mopLen(m), 0); j++) writer(f, t, m, h.listElem(m, j)); // no thin air
          src = lastForeign(f, t, m);
        }
        if (src == t || (src != BOT && f.failed(src))) continue;
        Integer before = version.putIfAbsent(x, src);
        if (before != null && before != src) {
          throw new Facts.Rejected(f.name(t) + " read key " + f.key(x) + " from " + source(f, before) + " and then from " + source(f, src)
              + " (a non-repeatable read, which cut isolation forbids)");
        }
      }
    }
    return reads;
  }

  /** The writer of the last element of list read m that is not t's own trailing append (t⊥ if none). */
  private static int lastForeign(Facts f, int t, int m) {
    for (int j = Math.max(f.h.mopLen(m), 0) - 1; j >= 0; j--) {
      int w = writer(f, t, m, f.h.listElem(m, j));
      if (w != t) return w;
    }
    return BOT;
  }

  /** The transaction that wrote value v of read m's key, or Rejected (a thin-air read). */
  private static int writer(Facts f, int t, int m, int v) {
    int w = f.h.writerMop(f.h.mopKey(m), v);
    if (w < 0) {
      throw new Facts.Rejected(f.name(t) + " read key " + f.key(f.h.mopKey(m)) + " as " + f.value(v)
          + " (or a list holding it), which no transaction writes (a thin-air read, which cut isolation forbids)");
    }
    return f.h.mopTxn(w);
  }

  private static String source(Facts f, int t) { return t == BOT ? "the initial state" : f.name(t); }
}
