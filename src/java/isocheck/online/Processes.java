package isocheck.online;

import isocheck.util.IntList;
import isocheck.util.LongIntMap;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;

/**
 * The online checkers' table of processes: each live process's session id, the ids of forgotten
 * sessions reused, and the forgotten processes remembered (integers as ranges, anything else
 * one by one) so that a later op of one can be told apart from a new process. The checkers keep
 * their own per-session arrays, indexed by these ids. Not thread-safe.
 */
final class Processes {
  private LongIntMap longIds = new LongIntMap();
  private final HashMap<Object, Integer> objIds = new HashMap<>();
  /** Each session's process (null once forgotten: its id is free). */
  private final ArrayList<Object> procOf = new ArrayList<>();
  private final IntList free = new IntList();
  private final WeakOnline.LongRanges forgottenLongs = new WeakOnline.LongRanges();
  private final HashSet<Object> forgottenObjs = new HashSet<>();
  private boolean longsForgotten;

  private static boolean integral(Object p) {
    return p instanceof Long || p instanceof Integer || p instanceof Short || p instanceof Byte;
  }

  /** p's session, or -1 when it has none. */
  int find(Object p) {
    if (integral(p)) return longIds.get(((Number) p).longValue());
    Integer i = objIds.get(p);
    return i == null ? -1 : i;
  }

  /** Whether p's session was forgotten. */
  boolean forgotten(Object p) {
    return integral(p) ? forgottenLongs.contains(((Number) p).longValue()) : forgottenObjs.contains(p);
  }

  /** Gives p (which has none) a session: a forgotten one's id when there is one, else the next. */
  int add(Object p) {
    int s;
    if (free.size() > 0) {
      s = free.pop();
      procOf.set(s, p);
    } else {
      s = procOf.size();
      procOf.add(p);
    }
    if (integral(p)) longIds.put(((Number) p).longValue(), s);
    else objIds.put(p, s);
    return s;
  }

  /** Session s's process, or null when s is forgotten. */
  Object process(int s) { return procOf.get(s); }

  /** Session ids given out so far (live or free). */
  int ids() { return procOf.size(); }

  /** Sessions live now. */
  int live() { return procOf.size() - free.size(); }

  /** Forgets session s: its process is remembered as forgotten, its id freed. Then {@link #compact()}. */
  void forget(int s) {
    Object p = procOf.get(s);
    if (integral(p)) {
      forgottenLongs.add(((Number) p).longValue());
      longsForgotten = true;
    } else {
      forgottenObjs.add(p);
      objIds.remove(p);
    }
    procOf.set(s, null);
    free.add(s);
  }

  /** After {@link #forget}: the integer processes' table rebuilt without the forgotten ones. */
  void compact() {
    if (!longsForgotten) return;
    LongIntMap nl = new LongIntMap(Math.max(16, live()));
    for (int s = 0; s < procOf.size(); s++) {
      Object p = procOf.get(s);
      if (integral(p)) nl.put(((Number) p).longValue(), s);
    }
    longIds = nl;
    longsForgotten = false;
  }
}
