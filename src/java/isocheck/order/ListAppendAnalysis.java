package isocheck.order;

import isocheck.graph.Edge;
import isocheck.graph.EdgeList;
import isocheck.history.History;
import isocheck.history.Kw;
import isocheck.history.OpRecord;
import isocheck.history.OpType;
import isocheck.report.Anomaly;
import isocheck.report.AnomalySet;
import isocheck.report.Data;
import isocheck.util.IntList;
import isocheck.util.Ranges;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;

/**
 * The append-to-version-order translator and the list-append pre-checks.
 *
 * <p>A read {@code [:r k [v1 … vn]]} shows the whole list of k at one version, so (Elle; PolySI
 * artifact `pruneListHistory`; MTC §III) the longest read of k fixes k's version order and every
 * other read of k must be a prefix of it. Each append is a version; a read yields a write-read
 * dependency from the writer of its last element (the earlier elements' writers precede that
 * one in the version order), and an anti-dependency to the writer of the next version. An append
 * no read ever saw has no position: we only know (soundly) that it follows every observed
 * version, so it gets a WW edge from the last observed writer and an RW edge from every reader of
 * the key; the order among several such appends stays open (see {@link #unread}).
 *
 * <p>Pre-checks, each a named anomaly (Elle's names): internal (a read that disagrees with the
 * txn's own earlier reads and appends), future-read, duplicate-elements, G1a (aborted read),
 * G1b (intermediate read), dirty-update, garbage-read (an element no one appended),
 * incompatible-order, and lost-update (two txns read the same version of a key and both
 * appended to it).
 *
 * <p>Completion semantics: :ok reads are facts; :fail txns never committed; :info txns (and
 * invocations without completion) count as committed exactly when some read observed one of
 * their appends, and their own reads are unknown.
 */
public final class ListAppendAnalysis {
  public final History h;
  /** Per txn: committed (ok, or info with an observed append). */
  public final boolean[] committed;
  /** Per read mop of an ok txn: how many of its elements were observed from other txns (its own trailing appends excluded) when it is the txn's first read of that key; -1 otherwise. */
  public final int[] extLen;
  /** Per append mop: its position in its key's version order, or -1 if no read observed it. */
  public final int[] pos;
  /** Per key: the read fixing its version order (the longest), or -1. */
  public final int[] longest;
  /** Per read mop: true when it is not a prefix of its key's version order. */
  public final boolean[] incompatible;
  /** Per key: committed txns with appends no read observed (null when none). Their mutual order is unknown. */
  public final int[][] unread;
  /** Per append mop: the last append to its key within its txn. */
  public final boolean[] finalAppend;
  public final AnomalySet anomalies;
  /** WW, WR and RW edges between committed txns. */
  public final EdgeList edges;

  private final int nKeys;

  public ListAppendAnalysis(History h, int cap) {
    if (h.workload != History.Workload.APPEND) throw new IllegalArgumentException("not a list-append history");
    this.h = h;
    this.anomalies = new AnomalySet(cap);
    int nm = h.mopCount();
    // Roughly one edge per micro-op, plus session order and realtime relays added later.
    edges = new EdgeList(2 * nm + 4 * h.nTxns);
    nKeys = h.keyCount();
    committed = new boolean[h.nTxns];
    extLen = new int[nm];
    Arrays.fill(extLen, -1);
    pos = new int[nm];
    Arrays.fill(pos, -1);
    longest = new int[nKeys];
    Arrays.fill(longest, -1);
    incompatible = new boolean[nm];
    unread = new int[nKeys][];
    finalAppend = new boolean[nm];
    for (int t = 0; t < h.nTxns; t++) if (h.isOk(t)) committed[t] = true;
    // The passes run on every core (isocheck.util.Ranges: contiguous ranges of transactions,
    // keys or micro-ops), each range with its own scratch arrays and its own list of anomalies
    // and edges, joined in range order: the result is the same, in the same order, for any split.
    Ranges txns = new Ranges(h.nTxns);
    markFinalAppends(txns);
    internal(txns);
    orders(txns);
    futureReads(txns);
    duplicates();
    unreadAppends();
    edgesAndLostUpdates();
  }

  /** Runs body(c, out) for every range c of r, in parallel, then adds each range's anomalies in range order. */
  private void inRanges(Ranges r, java.util.function.ObjIntConsumer<List<Anomaly>> body) {
    @SuppressWarnings("unchecked")
    List<Anomaly>[] out = new List[r.count];
    r.forEach(c -> {
      ArrayList<Anomaly> l = new ArrayList<>();
      body.accept(l, c);
      out[c] = l;
    });
    for (List<Anomaly> l : out) for (Anomaly a : l) anomalies.add(a);
  }

  /** Per key: where its order's writer mops start in {@link #orderMop}. */
  private int[] orderStart;
  /** The mop that appended each element of each key's version order (-1: nobody appended it). */
  private int[] orderMop;

  /** The mop that appended the element at position p of key k's order (-1 if none). */
  public int orderWriter(int k, int p) { return orderMop[orderStart[k] + p]; }

  private String name(int t) { return h.name(t); }

  // ------------------------------------------------------------------ per transaction

  /** Per read mop: its transaction appends to the key it read (somewhere in it): a read-modify-write, for lost updates. */
  private boolean[] appendedKey;

  private void markFinalAppends(Ranges txns) {
    appendedKey = new boolean[h.mopCount()];
    txns.forEach(c -> {
      int[] stamp = new int[nKeys];
      for (int t = txns.from(c); t < txns.to(c); t++) {
        boolean reads = false;
        for (int m = h.mopEnd(t) - 1; m >= h.mopStart(t); m--) {
          if (h.mopKind(m) != OpRecord.APPEND) {
            reads = true;
            continue;
          }
          int k = h.mopKey(m);
          finalAppend[m] = stamp[k] != t + 1;
          stamp[k] = t + 1;
        }
        if (!reads) continue;
        for (int m = h.mopStart(t); m < h.mopEnd(t); m++) {
          if (h.mopKind(m) == OpRecord.READ && stamp[h.mopKey(m)] == t + 1) appendedKey[m] = true;
        }
      }
    });
  }

  /**
   * Internal consistency (Cerone et al.'s INT, as Elle adapts it to lists): a read of k must equal
   * the txn's previous read of k followed by its own appends since then, or, if it has not read k
   * yet, end with all its own appends to k. Also fixes each ok txn's external observation per key.
   */
  private void internal(Ranges txns) {
    inRanges(txns, (found, c) -> internal(txns.from(c), txns.to(c), found));
  }

  private void internal(int from, int to, List<Anomaly> found) {
    int[] slotStamp = new int[nKeys];
    int[] slotOf = new int[nKeys];
    ArrayList<IntList> ownAll = new ArrayList<>(), ownSince = new ArrayList<>();
    int[] lastRead = new int[16];
    int[] pool = h.listPool();
    for (int t = from; t < to; t++) {
      if (!h.isOk(t)) continue;
      int slots = 0;
      for (int m = h.mopStart(t); m < h.mopEnd(t); m++) {
        int k = h.mopKey(m);
        int s;
        if (slotStamp[k] != t + 1) {
          slotStamp[k] = t + 1;
          s = slots++;
          slotOf[k] = s;
          if (s == ownAll.size()) {
            ownAll.add(new IntList(4));
            ownSince.add(new IntList(4));
          }
          if (s == lastRead.length) lastRead = Arrays.copyOf(lastRead, s * 2);
          ownAll.get(s).clear();
          ownSince.get(s).clear();
          lastRead[s] = -1;
        } else s = slotOf[k];
        IntList all = ownAll.get(s), since = ownSince.get(s);
        if (h.mopKind(m) == OpRecord.APPEND) {
          all.add(h.mopVal(m));
          since.add(h.mopVal(m));
          continue;
        }
        int off = h.mopVal(m), len = h.mopLen(m);
        int prev = lastRead[s];
        if (prev >= 0) {
          int poff = h.mopVal(prev), plen = h.mopLen(prev);
          boolean same = len == plen + since.size()
              && Arrays.mismatch(pool, off, off + plen, pool, poff, poff + plen) < 0
              && endsWith(pool, off, len, since);
          if (!same) {
            ArrayList<Object> ids = new ArrayList<>();
            for (int j = 0; j < plen; j++) ids.add(pool[poff + j]);
            for (int i = 0; i < since.size(); i++) ids.add(since.get(i));
            found.add(internalAnomaly(t, m, ids, false));
          }
        } else {
          boolean endsWithOwn = endsWith(pool, off, len, all);
          if (all.size() > 0 && !endsWithOwn) found.add(internalAnomaly(t, m, listOf(all), true));
          extLen[m] = endsWithOwn ? len - all.size() : len;
        }
        lastRead[s] = m;
        since.clear();
      }
    }
  }

  private static List<Object> listOf(IntList l) {
    ArrayList<Object> r = new ArrayList<>(l.size());
    for (int i = 0; i < l.size(); i++) r.add(l.get(i));
    return r;
  }

  private Anomaly internalAnomaly(int t, int m, List<Object> ids, boolean suffixOnly) {
    ArrayList<Object> expected = new ArrayList<>();
    if (suffixOnly) expected.add(new isocheck.history.Sym("..."));
    for (Object id : ids) expected.add(h.value((Integer) id));
    String exp = isocheck.history.Edn.str(expected);
    String why = suffixOnly
        ? "it had appended " + isocheck.history.Edn.str(expected.subList(1, expected.size()))
            + " to that key, so the read should end with " + (ids.size() == 1 ? "it" : "them")
        : "its own earlier reads and appends of that key say it should be " + exp;
    return new Anomaly("internal", new int[] {t},
        Anomaly.map("op", Data.op(h, t), "mop", Data.mop(h, m), "expected", expected),
        name(t) + " read key " + h.keyStr(h.mopKey(m)) + " as " + h.listStr(m) + ", but " + why + ".", null);
  }

  private static boolean endsWith(int[] pool, int off, int len, IntList suffix) {
    int s = suffix.size();
    if (s > len) return false;
    for (int i = 0; i < s; i++) if (pool[off + len - s + i] != suffix.get(i)) return false;
    return true;
  }

  /** A read that includes an element its own txn appends only later (positions answer it without scanning). */
  private void futureReads(Ranges txns) {
    inRanges(txns, (found, c) -> futureReads(txns.from(c), txns.to(c), found));
  }

  private void futureReads(int from, int to, List<Anomaly> found) {
    int[] pool = h.listPool();
    for (int t = from; t < to; t++) {
      if (!h.isOk(t)) continue;
      txn:
      for (int m = h.mopStart(t); m < h.mopEnd(t); m++) {
        if (h.mopKind(m) != OpRecord.READ) continue;
        int k = h.mopKey(m), off = h.mopVal(m), len = h.mopLen(m);
        for (int a = m + 1; a < h.mopEnd(t); a++) {
          if (h.mopKind(a) != OpRecord.APPEND || h.mopKey(a) != k) continue;
          int v = h.mopVal(a);
          boolean seen;
          if (!incompatible[m]) seen = pos[a] >= 0 && pos[a] < len;
          else {
            seen = false;
            for (int j = 0; j < len && !seen; j++) seen = pool[off + j] == v;
          }
          if (seen) {
            found.add(new Anomaly("future-read", new int[] {t},
                Anomaly.map("op", Data.op(h, t), "mop", Data.mop(h, m), "element", h.value(v)),
                name(t) + " read key " + h.keyStr(k) + " as " + h.listStr(m) + ", which includes "
                    + h.valueStr(v) + ", an element " + name(t) + " itself appended only later, in "
                    + h.mopStr(a) + ".", null));
            break txn;
          }
        }
      }
    }
  }

  /**
   * Reads holding an element twice. A read that is a prefix of its key's order holds a duplicate
   * exactly when it reaches the order's first repeated element, so one pass per key suffices; the
   * reads that are not prefixes are checked one by one.
   */
  private void duplicates() {
    int[] pool = h.listPool();
    int[] dupAt = new int[nKeys]; // length at which the order first repeats an element; MAX if never
    Arrays.fill(dupAt, Integer.MAX_VALUE);
    Ranges keys = new Ranges(nKeys);
    keys.forEach(c -> {
      int[] dupStamp = new int[Math.max(1, h.valueCount())];
      int stamp = 0;
      for (int k = keys.from(c); k < keys.to(c); k++) {
        int l = longest[k];
        if (l < 0) continue;
        stamp++;
        int off = h.mopVal(l), len = h.mopLen(l);
        for (int j = 0; j < len; j++) {
          int v = pool[off + j];
          if (dupStamp[v] == stamp) { dupAt[k] = j + 1; break; }
          dupStamp[v] = stamp;
        }
      }
    });
    Ranges mops = new Ranges(h.mopCount());
    inRanges(mops, (found, c) -> duplicateReads(mops.from(c), mops.to(c), dupAt, found));
  }

  private void duplicateReads(int from, int to, int[] dupAt, List<Anomaly> found) {
    int[] pool = h.listPool();
    int[] dupStamp = null;
    int stamp = 0;
    for (int m = from; m < to; m++) {
      if (h.mopKind(m) != OpRecord.READ || !h.isOk(h.mopTxn(m))) continue;
      int len = h.mopLen(m);
      if (!incompatible[m] && len < dupAt[h.mopKey(m)]) continue;
      int off = h.mopVal(m);
      if (dupStamp == null) dupStamp = new int[Math.max(1, h.valueCount())];
      stamp++;
      LinkedHashMap<Object, Object> dups = null;
      int firstDup = -1;
      for (int j = 0; j < len; j++) {
        int v = pool[off + j];
        if (dupStamp[v] == stamp) {
          if (dups == null) {
            dups = new LinkedHashMap<>();
            firstDup = j;
          }
          Object vo = h.value(v);
          Object c = dups.get(vo);
          dups.put(vo, c == null ? 2L : (Long) c + 1);
        } else dupStamp[v] = stamp;
      }
      if (dups == null) continue;
      int t = h.mopTxn(m), k = h.mopKey(m);
      found.add(new Anomaly("duplicate-elements", new int[] {t},
          Anomaly.map("op", Data.op(h, t), "mop", Data.mop(h, m), "duplicates", dups, "key", h.key(k),
              "position", (long) firstDup + 1),
          name(t) + " read key " + h.keyStr(k) + " as " + h.listStr(m, firstDup) + ", which holds "
              + (dups.size() == 1 ? "the element " + isocheck.history.Edn.str(dups.keySet().iterator().next())
              : "the elements " + isocheck.history.Edn.str(new ArrayList<>(dups.keySet())))
              + " more than once, yet every value is appended only once.", null));
    }
  }

  // ------------------------------------------------------------------ version orders

  private void orders(Ranges txns) {
    int[] pool = h.listPool();
    // Longest read per key (the first of the longest): per range, then joined in range order.
    int[][] longestIn = new int[txns.count][];
    txns.forEach(c -> {
      int[] lg = c == 0 ? longest : new int[nKeys];
      if (c > 0) Arrays.fill(lg, -1);
      for (int t = txns.from(c); t < txns.to(c); t++) {
        if (!h.isOk(t)) continue;
        for (int m = h.mopStart(t); m < h.mopEnd(t); m++) {
          if (h.mopKind(m) != OpRecord.READ) continue;
          int k = h.mopKey(m);
          if (lg[k] < 0 || h.mopLen(m) > h.mopLen(lg[k])) lg[k] = m;
        }
      }
      longestIn[c] = lg;
    });
    for (int c = 1; c < txns.count; c++) {
      int[] lg = longestIn[c];
      for (int k = 0; k < nKeys; k++) if (lg[k] >= 0 && (longest[k] < 0 || h.mopLen(lg[k]) > h.mopLen(longest[k]))) longest[k] = lg[k];
    }
    // Every read must be a prefix of the longest (compared on every core; reported in order).
    txns.forEach(c -> {
      for (int t = txns.from(c); t < txns.to(c); t++) {
        if (!h.isOk(t)) continue;
        for (int m = h.mopStart(t); m < h.mopEnd(t); m++) {
          if (h.mopKind(m) != OpRecord.READ) continue;
          int l = longest[h.mopKey(m)];
          if (m == l) continue;
          int off = h.mopVal(m), len = h.mopLen(m), loff = h.mopVal(l);
          // (A read sharing the longest one's place in the pool, as the history builder lays a
          // key's reads out, is its prefix: len is at most the longest's.)
          if (off != loff && Arrays.mismatch(pool, off, off + len, pool, loff, loff + len) >= 0) incompatible[m] = true;
        }
      }
    });
    boolean[] reported = new boolean[nKeys];
    for (int t = 0; t < h.nTxns; t++) {
      if (!h.isOk(t)) continue;
      for (int m = h.mopStart(t); m < h.mopEnd(t); m++) {
        if (!incompatible[m]) continue;
        int k = h.mopKey(m), l = longest[k];
        int off = h.mopVal(m), len = h.mopLen(m), loff = h.mopVal(l);
        if (!reported[k]) {
          reported[k] = true;
          int lt = h.mopTxn(l);
          // Where they part: long reads are shown around it (History.listStr).
          int at = Arrays.mismatch(pool, off, off + len, pool, loff, loff + len);
          anomalies.add(new Anomaly("incompatible-order", new int[] {t, lt},
              Anomaly.map("key", h.key(k), "position", (long) at + 1,
                  "values", List.of(Data.list(h, m, len), Data.list(h, l, h.mopLen(l))), "ops", Data.ops(h, t, lt)),
              name(t) + " read key " + h.keyStr(k) + " as " + h.listStr(m, at) + " and " + name(lt) + " read it as "
                  + h.listStr(l, at) + ": they differ at position " + String.format("%,d", at + 1) + " (counting from 1; "
                  + h.valueStr(pool[off + at]) + " where " + name(lt) + " read " + h.valueStr(pool[loff + at])
                  + "), so neither is a prefix of the other and no single order of appends explains both.",
              null));
        }
        // Elements only this read saw still tell us who committed, and may be aborted or garbage.
        scanElements(k, m, off, len);
      }
    }
    // Writers, positions, aborted and garbage elements, dirty updates along each order.
    orderStart = new int[nKeys + 1];
    for (int k = 0; k < nKeys; k++) orderStart[k + 1] = orderStart[k] + (longest[k] < 0 ? 0 : h.mopLen(longest[k]));
    orderMop = new int[orderStart[nKeys]];
    // On every core, per range of keys: each order's writers; :info writers observed are
    // committed; positions (an element read twice, duplicate-elements, is one version: its first
    // position is kept, the later ones get no writer). Keys whose order holds an element nobody
    // appended or an aborted writer are marked, and only those are scanned below, in key order,
    // for what they report (garbage, aborted reads, dirty updates).
    boolean[] special = new boolean[nKeys];
    Ranges keys = new Ranges(nKeys);
    keys.forEach(c -> {
      for (int k = keys.from(c); k < keys.to(c); k++) {
        int l = longest[k];
        if (l < 0) continue;
        int off = h.mopVal(l), len = h.mopLen(l), base = orderStart[k];
        for (int p = 0; p < len; p++) {
          int w = h.writerMop(k, pool[off + p]);
          orderMop[base + p] = w;
          if (w < 0) {
            special[k] = true;
            continue;
          }
          int wt = h.mopTxn(w), st = h.status(wt);
          if (st == OpType.INFO) committed[wt] = true; // (only ever set: the ranges may race to it)
          else if (st == OpType.FAIL) special[k] = true;
          if (pos[w] < 0) pos[w] = p;
          else if (pos[w] != p) orderMop[base + p] = -1;
        }
      }
    });
    for (int k = 0; k < nKeys; k++) {
      if (!special[k]) continue;
      int l = longest[k];
      int off = h.mopVal(l), len = h.mopLen(l), base = orderStart[k];
      // (A position whose writer was dropped as a repeat is scanned as an element without a
      // position: the same report, once per key and element.)
      scanOrder(k, l, base, len);
      int abortedAt = -1;
      for (int p = 0; p < len; p++) {
        int w = orderMop[base + p];
        if (w < 0) continue;
        int wt = h.mopTxn(w);
        if (h.status(wt) == OpType.FAIL) {
          if (abortedAt < 0) abortedAt = p;
        } else if (abortedAt >= 0) {
          int at = h.mopTxn(orderMop[base + abortedAt]);
          ArrayList<Object> vs = new ArrayList<>();
          for (int j = abortedAt; j <= p; j++) vs.add(h.value(pool[off + j]));
          anomalies.add(new Anomaly("dirty-update", new int[] {at, wt},
              Anomaly.map("key", h.key(k), "values", vs, "ops", Data.ops(h, at, wt)),
              name(wt) + " appended " + h.valueStr(pool[off + p]) + " to key " + h.keyStr(k) + " on top of "
                  + h.valueStr(pool[off + abortedAt]) + ", which " + name(at)
                  + " appended and which was aborted (its op failed): a committed write built on an aborted one.",
              null));
          abortedAt = -1;
        }
      }
    }
  }

  /** {@link #scanElements} for a key's order, whose writers are already known. */
  private void scanOrder(int k, int m, int base, int len) {
    int[] pool = h.listPool();
    int reader = h.mopTxn(m), off = h.mopVal(m);
    for (int p = 0; p < len; p++) {
      int w = orderMop[base + p];
      if (w >= 0) {
        int wt = h.mopTxn(w), st = h.status(wt);
        if (st == OpType.INFO) committed[wt] = true;
        else if (st == OpType.FAIL && wt != reader) scanElements(k, m, off + p, 1);
      } else scanElements(k, m, off + p, 1);
    }
  }

  /** Appends observed only by reads that contradict their key's order: observed, yet without a position. */
  private boolean[] observedElsewhere;

  /** Marks info writers of observed elements committed, and reports aborted and garbage elements once per (key, value). */
  private void scanElements(int k, int m, int off, int len) {
    int[] pool = h.listPool();
    int reader = h.mopTxn(m);
    for (int p = 0; p < len; p++) {
      int v = pool[off + p];
      int w = h.writerMop(k, v);
      if (w >= 0 && incompatible[m]) {
        if (observedElsewhere == null) observedElsewhere = new boolean[h.mopCount()];
        observedElsewhere[w] = true;
      }
      if (w >= 0) {
        int wt = h.mopTxn(w);
        int st = h.status(wt);
        if (st == OpType.INFO) committed[wt] = true;
        if (st == OpType.FAIL && wt != reader) {
          if (seenBad(k, v)) continue;
          anomalies.add(new Anomaly("G1a", new int[] {reader, wt},
              Anomaly.map("op", Data.op(h, reader), "mop", Data.mop(h, m), "writer", Data.op(h, wt),
                  "element", h.value(v)),
              name(reader) + " read key " + h.keyStr(k) + " as " + h.listStr(m, off - h.mopVal(m) + p) + ", which includes "
                  + h.valueStr(v) + ", appended by " + name(wt) + ", whose op failed: an aborted read.", null));
        }
      } else {
        if (seenBad(k, v)) continue;
        anomalies.add(new Anomaly("garbage-read", new int[] {reader},
            Anomaly.map("op", Data.op(h, reader), "mop", Data.mop(h, m), "key", h.key(k), "element", h.value(v)),
            name(reader) + " read key " + h.keyStr(k) + " as " + h.listStr(m, off - h.mopVal(m) + p) + ", which includes "
                + h.valueStr(v) + ", yet no transaction ever appended " + h.valueStr(v) + " to key "
                + h.keyStr(k) + ": a value out of thin air.", null));
      }
    }
  }

  private isocheck.util.LongIntMap badSeen;

  private boolean seenBad(int k, int v) {
    if (badSeen == null) badSeen = new isocheck.util.LongIntMap();
    long key = ((long) k << 32) | (v & 0xffffffffL);
    if (badSeen.get(key) >= 0) return true;
    badSeen.put(key, 1);
    return false;
  }

  /** G1b: the last element a read observed was not its writer's final append to that key. */
  private void intermediateRead(int m, int e, int w, List<Anomaly> found) {
    if (w < 0 || finalAppend[w]) return;
    int k = h.mopKey(m), r = h.mopTxn(m), wt = h.mopTxn(w);
    if (wt == r) return;
    int later = -1;
    for (int a = w + 1; a < h.mopEnd(wt); a++) {
      if (h.mopKind(a) == OpRecord.APPEND && h.mopKey(a) == k) { later = a; break; }
    }
    int v = h.mopVal(w);
    found.add(new Anomaly("G1b", new int[] {r, wt},
        Anomaly.map("op", Data.op(h, r), "mop", Data.mop(h, m), "writer", Data.op(h, wt), "element", h.value(v)),
        name(r) + " read key " + h.keyStr(k) + " as " + h.listStr(m) + ", ending with " + h.valueStr(v)
            + ", but " + name(wt) + " appended " + h.valueStr(v) + " and then "
            + h.valueStr(h.mopVal(later)) + " to that key: " + name(r)
            + " saw an intermediate state of " + name(wt) + ".", null));
  }

  private void unreadAppends() {
    // Per range of transactions (on every core; a transaction's micro-ops lie in one range), each
    // key's committed transactions with an append no read observed, in transaction order; joined
    // per key in range order: the same lists as one pass over the micro-ops.
    Ranges txns = new Ranges(h.nTxns);
    IntList[][] parts = new IntList[txns.count][];
    txns.forEach(c -> {
      IntList[] lists = new IntList[nKeys];
      for (int t = txns.from(c); t < txns.to(c); t++) {
        if (!committed[t]) continue;
        for (int m = h.mopStart(t); m < h.mopEnd(t); m++) {
          if (h.mopKind(m) != OpRecord.APPEND || pos[m] >= 0) continue;
          // Read, but only by a read that contradicts the key's order: not unread, and of unknown position.
          if (observedElsewhere != null && observedElsewhere[m]) continue;
          int k = h.mopKey(m);
          IntList l = lists[k];
          if (l == null) lists[k] = l = new IntList(2);
          else if (l.last() == t) continue;
          l.add(t);
        }
      }
      parts[c] = lists;
    });
    for (int k = 0; k < nKeys; k++) {
      IntList all = null;
      for (IntList[] part : parts) {
        IntList l = part[k];
        if (l == null) continue;
        if (all == null) all = l;
        else all.addAll(l);
      }
      if (all != null) unread[k] = all.toArray();
    }
  }

  // ------------------------------------------------------------------ edges

  private void edgesAndLostUpdates() {
    // Bucket the external reads of ok txns by key.
    // (Counted and placed per range of micro-ops, on every core: a key's reads from range c go
    // after those from the ranges before it, each range's in micro-op order: the serial order.)
    int nm = h.mopCount();
    Ranges mops = new Ranges(nm);
    int[][] cntIn = new int[mops.count][];
    mops.forEach(c -> {
      int[] cc = new int[nKeys];
      for (int m = mops.from(c), e = mops.to(c); m < e; m++) if (extLen[m] >= 0) cc[h.mopKey(m)]++;
      cntIn[c] = cc;
    });
    int[] cnt = new int[nKeys + 1];
    for (int k = 0; k < nKeys; k++) {
      int sum = cnt[k];
      for (int c = 0; c < mops.count; c++) {
        int x = cntIn[c][k];
        cntIn[c][k] = sum; // from here on: where range c's reads of key k start
        sum += x;
      }
      cnt[k + 1] = sum;
    }
    int[] byKey = new int[cnt[nKeys]];
    mops.forEach(c -> {
      int[] at = cntIn[c];
      for (int m = mops.from(c), e = mops.to(c); m < e; m++) if (extLen[m] >= 0) byKey[at[h.mopKey(m)]++] = m;
    });
    // Per range of keys: its own edges and anomalies, joined in key order.
    Ranges keys = new Ranges(nKeys);
    EdgeList[] part = new EdgeList[keys.count];
    inRanges(keys, (found, c) -> {
      EdgeList es = c == 0 ? edges : new EdgeList(2 * h.mopCount() / keys.count);
      edgesAndLostUpdates(keys.from(c), keys.to(c), cnt, byKey, es, found);
      part[c] = es;
    });
    for (int c = 1; c < keys.count; c++) {
      edges.addAll(part[c]);
      part[c] = null;
    }
  }

  private void edgesAndLostUpdates(int fromKey, int toKey, int[] cnt, int[] byKey, EdgeList edges, List<Anomaly> found) {
    int[] pool = h.listPool();
    int[] wt = new int[16], prevW = new int[16], nextW = new int[17];
    int[] seenOnKey = new int[h.nTxns], lastMopOnKey = new int[h.nTxns];
    long[] rmw = new long[16];
    for (int k = fromKey; k < toKey; k++) {
      int l = longest[k];
      int n = l < 0 ? 0 : h.mopLen(l);
      if (wt.length < n + 1) {
        wt = new int[n + 1];
        prevW = new int[n + 1];
        nextW = new int[n + 2];
      }
      int base = orderStart[k];
      int lastC = -1;
      for (int p = 0; p < n; p++) {
        int w = orderMop[base + p];
        int t = w < 0 ? -1 : h.mopTxn(w);
        wt[p] = t >= 0 && committed[t] ? t : -1;
        if (wt[p] >= 0) {
          if (lastC >= 0 && lastC != wt[p]) edges.add(lastC, wt[p], Edge.WW);
          lastC = wt[p];
          // A txn's appends must take effect in program order: a later append placed before an
          // earlier one is a write cycle within the txn (T -ww-> T).
          if (seenOnKey[t] != k + 1) {
            seenOnKey[t] = k + 1;
            lastMopOnKey[t] = w;
          } else if (w < lastMopOnKey[t]) edges.add(t, t, Edge.WW);
          else lastMopOnKey[t] = w;
        }
        prevW[p] = lastC;
      }
      nextW[n] = -1;
      for (int p = n - 1; p >= 0; p--) nextW[p] = wt[p] >= 0 ? wt[p] : nextW[p + 1];
      int[] un = unread[k];
      if (un != null && lastC >= 0) for (int u : un) if (u != lastC) edges.add(lastC, u, Edge.WW);

      int nr = 0;
      for (int i = cnt[k]; i < cnt[k + 1]; i++) {
        int m = byKey[i];
        int r = h.mopTxn(m);
        int e = extLen[m];
        if (incompatible[m]) {
          if (e > 0) {
            int w = h.writerMop(k, pool[h.mopVal(m) + e - 1]);
            intermediateRead(m, e, w, found);
            int t = w < 0 ? -1 : h.mopTxn(w);
            if (t >= 0 && t != r && committed[t]) edges.add(t, r, Edge.WR);
          }
          continue;
        }
        if (e > 0) {
          intermediateRead(m, e, orderMop[base + e - 1], found);
          int w = prevW[e - 1];
          if (w >= 0 && w != r) edges.add(w, r, Edge.WR);
        }
        int next = e < n ? nextW[e] : -1;
        if (next >= 0) {
          if (next != r) edges.add(r, next, Edge.RW);
        } else if (un != null) {
          for (int u : un) if (u != r) edges.add(r, u, Edge.RW);
        }
        if (appendedKey[m]) {
          if (nr == rmw.length) rmw = Arrays.copyOf(rmw, nr * 2);
          rmw[nr++] = ((long) e << 32) | r;
        }
      }
      if (nr > 1) lostUpdates(k, rmw, nr, found);
    }
  }

  /** Two committed txns that read the same version of k and both appended to k: under SI one must have aborted. */
  private void lostUpdates(int k, long[] rmw, int nr, List<Anomaly> found) {
    Arrays.sort(rmw, 0, nr);
    for (int i = 0; i < nr; ) {
      int j = i + 1;
      while (j < nr && (rmw[j] >>> 32) == (rmw[i] >>> 32)) j++;
      if (j - i >= 2) {
        int e = (int) (rmw[i] >>> 32);
        int[] ts = new int[j - i];
        for (int x = i; x < j; x++) ts[x - i] = (int) rmw[x];
        int l = longest[k];
        List<Object> version = l < 0 ? List.of() : Data.list(h, l, e);
        StringBuilder names = new StringBuilder();
        for (int x = 0; x < ts.length; x++) {
          if (x > 0) names.append(x == ts.length - 1 ? " and " : ", ");
          names.append(name(ts[x]));
        }
        found.add(new Anomaly("lost-update", ts,
            Anomaly.map("key", h.key(k), "value", version, "ops", Data.ops(h, ts)),
            names + (ts.length == 2 ? " both" : " all") + " read key " + h.keyStr(k) + " as "
                + isocheck.history.Edn.str(version) + " and then appended to it, and "
                + (ts.length == 2 ? "both" : "all") + " committed: each update was made without seeing the other"
                + (ts.length == 2 ? "" : "s") + ", so under snapshot isolation (first committer wins) "
                + (ts.length == 2 ? "one" : "all but one") + " should have aborted (a lost update).", null));
      }
      i = j;
    }
  }
}
