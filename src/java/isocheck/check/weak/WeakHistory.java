package isocheck.check.weak;

import isocheck.util.Ranges;
import isocheck.history.History;
import isocheck.history.OpRecord;
import isocheck.history.OpType;
import isocheck.util.IntList;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A history as Plume sees it (Plume §2, Def. 2): committed transactions T in sessions, every
 * cross-transaction read's writer (reads-from, lifted to WR between transactions), and the facts
 * the intra-transaction TAPs a–f and j are made of.
 *
 * <p>Committed: {@code :ok}, and {@code :info} (or never completed) when some committed read
 * observed one of its writes (pitfall 9: never treat them as aborted, never as thin air). Reads of
 * transactions that are not {@code :ok} are unknown and ignored. The initial transaction t⊥ is
 * {@link #BOT}: it wrote nil (the empty list) to every key and precedes everything.
 *
 * <p>List-append (Plume §5.5.2, pitfalls 11–14): each {@code [:append k v]} is a write of v. A read
 * {@code [:r k [v1..vn]]} reads from writer(vn) (register view), makes writer(v1..vn-1) visible
 * ({@link #visFrom}: causally before the reader, but not reads-from), and fixes the version
 * order of its key. Under the commit-order semantics of lists (the value of a version is the
 * concatenation of the appends of every writer committed up to it) the list must also be made of
 * whole transactions: each writer's appends to the key, complete and in program order. The
 * longest read of a key (own trailing appends aside) gives the key's version order
 * ({@link #wwSrc}/{@link #wwDst}: between consecutive writers), every other read must be a prefix
 * of it, and a committed append no read shows comes after its last writer.
 */
final class WeakHistory {
  static final int BOT = -1;

  final History h;
  final boolean list;
  final int n, k;
  /** In T: :ok, or an :info whose write someone read. */
  final boolean[] committed;
  /** Session and 1-based position in it among committed transactions (0 if not committed). */
  final int[] pos;
  final int[][] sessionTxns;

  /** Cross-transaction reads of each committed :ok reader, in program order: [rfStart[t], rfStart[t+1]). */
  final int[] rfStart;
  final int[] rfKey, rfFrom, rfMop;
  /**
   * Lists: per read fact, its writer's rank in the key's version order (1 for the first writer,
   * 0 for t⊥); null for registers.
   */
  final int[] rfRank;
  /**
   * Lists: each key's committed writers in version order, [voStart[x], voStart[x+1]) of voTxn:
   * the writers of its longest read, then those whose appends no read shows (in id order; the
   * order among them is open). The writer of rank r is voTxn[voStart[x] + r - 1].
   */
  final int[] voStart, voTxn;
  /** Visible writers of list reads (earlier elements), per reader, deduplicated per read: [visStart[t], visStart[t+1]). */
  final int[] visStart, visFrom, visKey, visMop;
  /** Keys each committed transaction writes, sorted, with its last write mop: [wkStart[t], wkStart[t+1]). */
  final int[] wkStart, wkKey, wkLast;
  /** List version order: writer → next writer, with the key. */
  final IntList wwSrc = new IntList(), wwDst = new IntList(), wwKey = new IntList();
  /** Per version-order edge: its target's appends appear in no read (so they follow the last one read). */
  final IntList wwUnread = new IntList();
  /** Intra-transaction TAP instances found while reading the history. */
  final List<Tap.Instance> intra = new ArrayList<>();

  /** Per write/append mop: it is its transaction's last write to the key. */
  private boolean[] finalWrite;
  /**
   * Lists: per append mop, its place among its transaction's appends to the key, as seq == 0 ?
   * count : -seq (the count of the transaction's appends to the key at its first one).
   */
  private int[] app;

  WeakHistory(History h) {
    this.h = h;
    this.list = h.workload == History.Workload.APPEND;
    this.n = h.nTxns;
    this.k = h.sessionCount();
    int nm = h.mopCount();
    committed = new boolean[n];
    for (int t = 0; t < n; t++) if (h.isOk(t)) committed[t] = true;
    // An indeterminate transaction committed iff a committed read observed one of its writes:
    // marked while resolving reads (one writer look-up per read or list element).
    // Per-mop facts about writes.
    finalWrite = new boolean[nm];
    app = list ? new int[nm] : null;
    wkStart = new int[n + 1];
    IntList wk = new IntList(), wl = new IntList();
    Ranges txns = new Ranges(n);
    IntList[][] parts = new IntList[txns.count][];
    txns.forEach(c -> {
      IntList k = new IntList(), l = new IntList();
      writtenKeys(txns.from(c), txns.to(c), k, l);
      parts[c] = new IntList[] {k, l};
    });
    txns.join(new IntList[] {wk, wl}, parts, wkStart);
    wkStart[n] = wk.size();
    wkKey = wk.trimmed();
    wkLast = wl.trimmed();

    rfStart = new int[n + 1];
    visStart = new int[n + 1];
    IntList rk = new IntList(Math.max(16, nm / 2)), rf = new IntList(Math.max(16, nm / 2)), rm = new IntList(Math.max(16, nm / 2));
    IntList vf = new IntList(), vk = new IntList(), vm = new IntList();
    IntList rr = list ? new IntList(Math.max(16, nm / 2)) : null;
    int[][] vo = new int[2][];
    if (list) readLists(rk, rf, rm, rr, vf, vk, vm, vo);
    else readRegisters(rk, rf, rm);
    rfRank = list ? rr.trimmed() : null;
    voStart = vo[0];
    voTxn = vo[1];
    rfKey = rk.trimmed();
    rfFrom = rf.trimmed();
    rfMop = rm.trimmed();
    visFrom = vf.trimmed();
    visKey = vk.trimmed();
    visMop = vm.trimmed();
    // Sessions: committed transactions of each process, in order.
    pos = new int[n];
    int[] len = new int[k];
    int[] bySession = sortedBySession();
    for (int t : bySession) len[h.session(t)]++;
    sessionTxns = new int[k][];
    for (int s = 0; s < k; s++) sessionTxns[s] = new int[len[s]];
    Arrays.fill(len, 0);
    for (int t : bySession) {
      int s = h.session(t);
      sessionTxns[s][len[s]] = t;
      pos[t] = ++len[s];
    }
    if (list) nonRepeatable(viewStart, viewKey, viewFrom, viewMop);
    else nonRepeatable(rfStart, rfKey, rfFrom, rfMop);
    // Per-mop scaffolding of the reading passes; the checks after this need none of it.
    finalWrite = null;
    app = null;
    foreignLen = null;
    viewStart = viewKey = viewFrom = viewMop = null;
  }

  /**
   * Transactions [from, to): the keys each writes (sorted, with its last write there), with
   * wkStart relative to wk's start; marks final writes, and for lists each append's transaction,
   * sequence number and count.
   */
  private void writtenKeys(int from, int to, IntList wk, IntList wl) {
    int[] seen = null; // per key, for transactions too long to scan
    for (int t = from; t < to; t++) {
      wkStart[t] = wk.size();
      int a = h.mopStart(t), b = h.mopEnd(t);
      int first = wk.size();
      if (b - a <= SCAN) {
        writtenKeysByScan(a, b, wk, wl);
        continue;
      }
      if (seen == null) {
        seen = new int[h.keyCount()];
        Arrays.fill(seen, -1);
      }
      for (int m = b - 1; m >= a; m--) {
        byte kind = h.mopKind(m);
        if (kind == OpRecord.READ) continue;
        int x = h.mopKey(m);
        if (seen[x] != t) {
          seen[x] = t;
          finalWrite[m] = true;
          wk.add(x);
          wl.add(m);
        }
      }
      sortPairs(wk.raw(), wl.raw(), first, wk.size());
      if (list) {
        // Sequence numbers of each key's appends, in program order.
        for (int i = first; i < wk.size(); i++) seen[wk.get(i)] = -2 - i; // reuse: slot → counter index
        int[] cnt = new int[wk.size() - first];
        for (int m = a; m < b; m++) {
          if (h.mopKind(m) != OpRecord.APPEND) continue;
          app[m] = cnt[-2 - seen[h.mopKey(m)] - first]++;
        }
        for (int m = a; m < b; m++) {
          if (h.mopKind(m) != OpRecord.APPEND) continue;
          app[m] = app[m] == 0 ? cnt[-2 - seen[h.mopKey(m)] - first] : -app[m];
        }
        for (int i = first; i < wk.size(); i++) seen[wk.get(i)] = -1;
      }
      // `seen` holds t for its keys; the next transaction's ids differ, so no reset is needed,
      // except after the list pass above, which reset them to -1.
    }
  }

  /**
   * Transactions of at most this many micro-ops find a key's other micro-ops by scanning
   * themselves (in cache) rather than through a per-key array (a cache miss a micro-op over
   * millions of keys).
   */
  private static final int SCAN = 48;

  /** {@link #writtenKeys} for one short transaction's micro-ops [a, b), by scanning it. */
  private void writtenKeysByScan(int a, int b, IntList wk, IntList wl) {
    int first = wk.size();
    for (int m = b - 1; m >= a; m--) {
      if (h.mopKind(m) == OpRecord.READ) continue;
      int x = h.mopKey(m);
      boolean later = false;
      for (int i = first, e = wk.size(); i < e; i++) if (wk.get(i) == x) { later = true; break; }
      if (later) continue;
      finalWrite[m] = true;
      wk.add(x);
      wl.add(m);
    }
    sortPairs(wk.raw(), wl.raw(), first, wk.size());
    if (!list) return;
    // Each append's place among the transaction's appends to its key: seq == 0 ? count : -seq.
    for (int m = a; m < b; m++) {
      if (h.mopKind(m) != OpRecord.APPEND) continue;
      int x = h.mopKey(m), seq = 0;
      for (int q = a; q < m; q++) if (h.mopKey(q) == x && h.mopKind(q) == OpRecord.APPEND) seq++;
      if (seq > 0) {
        app[m] = -seq;
        continue;
      }
      int cnt = 1;
      for (int q = m + 1; q < b; q++) if (h.mopKey(q) == x && h.mopKind(q) == OpRecord.APPEND) cnt++;
      app[m] = cnt;
    }
  }

  /**
   * Committed transactions grouped by session, each session in transaction-id order. Ids follow
   * completion order and a process runs one transaction at a time (a never-completed one is its
   * last), so this is program order.
   */
  private int[] sortedBySession() {
    int[] start = new int[k + 1];
    int c = 0;
    for (int t = 0; t < n; t++) if (committed[t]) { start[h.session(t) + 1]++; c++; }
    for (int s = 0; s < k; s++) start[s + 1] += start[s];
    int[] out = new int[c];
    for (int t = 0; t < n; t++) if (committed[t]) out[start[h.session(t)]++] = t;
    return out;
  }

  private static void sortPairs(int[] a, int[] b, int from, int to) {
    for (int i = from + 1; i < to; i++) {
      int x = a[i], y = b[i], j = i - 1;
      while (j >= from && a[j] > x) {
        a[j + 1] = a[j];
        b[j + 1] = b[j];
        j--;
      }
      a[j + 1] = x;
      b[j + 1] = y;
    }
  }

  /** The mop of t's last write to key x, or -1 if t does not write x. */
  int lastWrite(int t, int x) {
    int i = indexOf(t, x);
    return i < 0 ? -1 : wkLast[i];
  }

  boolean writes(int t, int x) { return t == BOT || lastWrite(t, x) >= 0; }

  int session(int t) { return h.session(t); }

  int txnOf(int mop) { return h.mopTxn(mop); }

  // ------------------------------------------------------------------ rw-register

  /**
   * Reads-from of every register read, split into one range of readers per core (the writer
   * look-ups are cache misses, which two cores overlap), then joined in reader order: the same
   * facts and instances, in the same order, whatever the number of cores.
   */
  private void readRegisters(IntList rk, IntList rf, IntList rm) {
    Ranges txns = new Ranges(n);
    IntList[][] parts = new IntList[txns.count][];
    @SuppressWarnings("unchecked")
    List<Tap.Instance>[] found = new List[txns.count];
    txns.forEach(c -> {
      int cap = Math.max(16, (h.mopStart(txns.to(c)) - h.mopStart(txns.from(c))) / 2);
      IntList[] l = {new IntList(cap), new IntList(cap), new IntList(cap)};
      found[c] = new ArrayList<>();
      readRegisters(txns.from(c), txns.to(c), l[0], l[1], l[2], found[c]);
      parts[c] = l;
    });
    txns.join(new IntList[] {rk, rf, rm}, parts, rfStart);
    for (List<Tap.Instance> f : found) intra.addAll(f);
    rfStart[n] = rk.size();
    visStart[n] = 0;
  }

  /** Readers [from, to); rfStart of each relative to rk's start. Marks :info writers read committed (a benign race: only ever true). */
  private void readRegisters(int from, int to, IntList rk, IntList rf, IntList rm, List<Tap.Instance> intra) {
    // The writers first, in a loop of their own: independent look-ups, whose cache misses the
    // core overlaps (as in isocheck.order.RegisterAnalysis).
    int m0 = h.mopStart(from);
    int[] writer = new int[h.mopStart(to) - m0];
    for (int m = m0, e = h.mopStart(to); m < e; m++) {
      if (h.mopKind(m) != OpRecord.READ || h.mopVal(m) == History.NIL || !h.isOk(h.mopTxn(m))) continue;
      writer[m - m0] = h.writerMop(h.mopKey(m), h.mopVal(m));
    }
    // A transaction's own last write of a key before a read: found by scanning it when it is
    // short (in cache), else through a per-key array (a cache miss a micro-op over 2 million keys).
    int[] own = null;
    for (int t = from; t < to; t++) {
      rfStart[t] = rk.size();
      visStart[t] = 0;
      if (!h.isOk(t)) continue;
      int a = h.mopStart(t), b = h.mopEnd(t);
      boolean scan = b - a <= 48;
      if (!scan && own == null) {
        own = new int[h.keyCount()];
        Arrays.fill(own, -1);
      }
      for (int m = a; m < b; m++) {
        int x = h.mopKey(m);
        if (h.mopKind(m) != OpRecord.READ) {
          if (!scan) own[x] = m;
          continue;
        }
        int v = h.mopVal(m);
        int mine;
        if (scan) {
          mine = m - 1;
          while (mine >= a && (h.mopKey(mine) != x || h.mopKind(mine) == OpRecord.READ)) mine--;
          if (mine < a) mine = -1;
        } else mine = own[x];
        if (v == History.NIL) {
          if (mine >= 0) intra.add(Tap.Instance.intra(Tap.NOT_MY_OWN_WRITE, t, m, mine, BOT));
          rk.add(x);
          rf.add(BOT);
          rm.add(m);
          continue;
        }
        int w = writer[m - m0];
        if (w < 0) {
          intra.add(Tap.Instance.intra(Tap.THIN_AIR_READ, t, m, -1, BOT));
          continue;
        }
        int tw = h.mopTxn(w);
        if (h.status(tw) == OpType.FAIL) {
          intra.add(Tap.Instance.intra(Tap.ABORTED_READ, t, m, w, tw));
          continue;
        }
        committed[tw] = true; // an :info writer someone read committed
        if (tw == t) {
          if (w > m) intra.add(Tap.Instance.intra(Tap.FUTURE_READ, t, m, w, t));
          else if (w != mine) intra.add(Tap.Instance.intra(Tap.NOT_MY_LAST_WRITE, t, m, w, t));
          continue;
        }
        if (mine >= 0) intra.add(Tap.Instance.intra(Tap.NOT_MY_OWN_WRITE, t, m, mine, tw));
        if (!finalWrite[w]) intra.add(Tap.Instance.intra(Tap.INTERMEDIATE_READ, t, m, w, tw));
        rk.add(x);
        rf.add(tw);
        rm.add(m);
      }
      if (!scan) for (int m = a; m < b; m++) own[h.mopKey(m)] = -1;
    }
  }

  // ------------------------------------------------------------------ list-append

  /** Length of a list read's part written by others: the list minus the reader's own trailing appends, when they are exactly the reader's appends so far. */
  private int[] foreignLen;

  private void readLists(IntList rk, IntList rf, IntList rm, IntList rr, IntList vf, IntList vk, IntList vm, int[][] vo) {
    int nm = h.mopCount(), nKeys = h.keyCount();
    foreignLen = new int[nm];
    Arrays.fill(foreignLen, -1);
    boolean[] bad = new boolean[nm];
    // Each element's writer mop and transaction (t⊥ when it has no writer), beside the list pool,
    // resolved through the key's appends laid out together (appendsByKey): one or two cache misses
    // per read, where a look-up per element in the history's (key, value) index costs two misses
    // for the index and one more for the writer's facts.
    int[] pool = h.listPool();
    // es: the element's place among its writer's appends to the key, as seq == 0 ? count : -seq.
    // ei: the element's entry in ka (-1 when it has no writer).
    int[] ew = new int[pool.length], et = new int[pool.length], es = new int[pool.length], ei = new int[pool.length];
    int[] kaStart = new int[nKeys + 1];
    int[] ka = appendsByKey(kaStart);
    Ranges txns = new Ranges(n);
    // In batches of reads: first every read's range of appends (independent look-ups, whose
    // cache misses the core overlaps), then the first entry of each range, then the elements,
    // found among entries now in cache; one read at a time, the misses would come one after another.
    txns.forEach(c -> {
      int[] bm = new int[BATCH], bs = new int[BATCH], be = new int[BATCH], bv = new int[BATCH];
      int nb = 0;
      for (int t = txns.from(c); t < txns.to(c); t++) {
        if (!h.isOk(t)) continue;
        for (int m = h.mopStart(t); m < h.mopEnd(t); m++) {
          if (h.mopKind(m) != OpRecord.READ) continue;
          bm[nb++] = m;
          if (nb == BATCH) {
            resolve(bm, bs, be, bv, nb, kaStart, ka, pool, ew, et, es, ei);
            nb = 0;
          }
        }
      }
      resolve(bm, bs, be, bv, nb, kaStart, ka, pool, ew, et, es, ei);
    });
    viewStart = new int[n + 1];
    // Pass 1, per range of readers (one per core), joined in reader order.
    Facts[] parts = new Facts[txns.count];
    txns.forEach(c -> {
      int from = txns.from(c), to = txns.to(c);
      Facts out = new Facts(Math.max(16, (h.mopStart(to) - h.mopStart(from)) / 2));
      readLists(from, to, ew, et, es, ei, bad, out);
      parts[c] = out;
    });
    IntList viewKey = new IntList(), viewFrom = new IntList(), viewMop = new IntList();
    IntList[][] reads = new IntList[txns.count][], vis = new IntList[txns.count][], views = new IntList[txns.count][];
    int[][] longestOf = new int[txns.count][];
    for (int c = 0; c < txns.count; c++) {
      longestOf[c] = parts[c].longest;
      reads[c] = parts[c].reads;
      vis[c] = parts[c].vis;
      views[c] = parts[c].views;
      intra.addAll(parts[c].intra);
      parts[c] = null;
    }
    txns.join(new IntList[] {rk, rf, rm, rr}, reads, rfStart);
    txns.join(new IntList[] {vf, vk, vm}, vis, visStart);
    txns.join(new IntList[] {viewKey, viewFrom, viewMop}, views, viewStart);
    rfStart[n] = rk.size();
    visStart[n] = vf.size();
    viewStart[n] = viewKey.size();
    this.viewKey = viewKey.trimmed();
    this.viewFrom = viewFrom.trimmed();
    this.viewMop = viewMop.trimmed();
    versionOrder(bad, ew, et, ka, ei, longestOf, vo);
  }

  /** lastWriter of a key no valid read shows (in {@link #versionOrder}'s last pass). */
  private static final int NO_READ = -3;

  /**
   * An element whose writer failed has entry FAILED - i in ei (i its entry in ka): only reads
   * that hold none, valid ones, look their entries up.
   */
  private static final int FAILED = -2;

  /** Reads resolved together. */
  private static final int BATCH = 256;

  /**
   * Resolves the elements of read mops bm[0, nb) among their keys' appends (see readLists): the
   * appends' ranges of all of them first, then their first entries, then the elements.
   */
  private void resolve(int[] bm, int[] bs, int[] be, int[] bv, int nb, int[] kaStart, int[] ka, int[] pool,
                       int[] ew, int[] et, int[] es, int[] ei) {
    for (int i = 0; i < nb; i++) {
      int x = h.mopKey(bm[i]);
      bs[i] = kaStart[x];
      be[i] = kaStart[x + 1];
    }
    for (int i = 0; i < nb; i++) bv[i] = bs[i] < be[i] ? ka[bs[i]] : 0;
    for (int r = 0; r < nb; r++) {
      int m = bm[r];
      int x = h.mopKey(m), base = h.mopVal(m), len = h.mopLen(m);
      int s = bs[r], e = be[r], at = s;
      for (int p = base; p < base + len; p++) {
        int i = find(ka, s, e, at, x, pool[p]);
        ei[p] = i;
        if (i < 0) {
          ew[p] = -1;
          et[p] = BOT;
          continue;
        }
        int tw = ka[i + 2], st = h.status(tw);
        ew[p] = ka[i + 1];
        et[p] = tw;
        es[p] = ka[i + 3];
        // An :info writer a committed read observed committed (a benign race: only ever true).
        if (st == OpType.INFO) committed[tw] = true;
        // A failed writer's element: its entry as FAILED - i, so pass 1 need not look again.
        else if (st == OpType.FAIL) ei[p] = FAILED - i;
        at = i + KA;
      }
    }
  }

  /** Ints per entry of {@link #appendsByKey}: value, mop, transaction, place (as in es). */
  private static final int KA = 4;

  /**
   * Every append, grouped by key (start[x] .. start[x+1] in ka, KA ints an entry), in mop order
   * within a key: {value, mop, transaction, place among the transaction's appends to the key}.
   */
  private int[] appendsByKey(int[] start) {
    int nm = h.mopCount(), nKeys = h.keyCount();
    for (int m = 0; m < nm; m++) if (h.mopKind(m) == OpRecord.APPEND) start[h.mopKey(m) + 1] += KA;
    for (int x = 0; x < nKeys; x++) start[x + 1] += start[x];
    int[] ka = new int[start[nKeys]];
    int[] fill = Arrays.copyOf(start, nKeys);
    for (int m = 0; m < nm; m++) {
      if (h.mopKind(m) != OpRecord.APPEND) continue;
      int i = fill[h.mopKey(m)];
      fill[h.mopKey(m)] = i + KA;
      ka[i] = h.mopVal(m);
      ka[i + 1] = m;
      ka[i + 2] = h.mopTxn(m);
      ka[i + 3] = app[m];
    }
    return ka;
  }

  /**
   * The entry of key x's appends [s, e) in ka whose value is v, or -1. Reads list a key's appends
   * mostly in the order they were made, so the search starts at the entry after the previous
   * element's (at) and tries a few entries; a key with more appends than that falls back to the
   * history's (key, value) index and a binary search by mop.
   */
  private int find(int[] ka, int s, int e, int at, int x, int v) {
    final int probes = 8;
    int size = (e - s) / KA;
    if (size == 0) return -1;
    if (at >= e) at = s;
    for (int i = at, c = Math.min(size, probes); c > 0; c--) {
      if (ka[i] == v) return i;
      i += KA;
      if (i >= e) i = s;
    }
    if (size <= probes) return -1;
    int w = h.writerMop(x, v);
    if (w < 0) return -1;
    int lo = 0, hi = size - 1;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1, mm = ka[s + mid * KA + 1];
      if (mm < w) lo = mid + 1;
      else if (mm > w) hi = mid - 1;
      else return s + mid * KA;
    }
    return -1;
  }

  /** One range's facts, as columns: reads-from {key, writer, mop, rank}, visibility {writer, key, mop}, views {key, writer, mop}; and its intra-transaction instances. */
  private static final class Facts {
    final IntList[] reads, vis, views;
    final List<Tap.Instance> intra = new ArrayList<>();
    /** Per key, its longest valid read in the range and that read's foreign length, side by side (-1: none). */
    int[] longest;

    Facts(int cap) {
      reads = new IntList[] {new IntList(cap), new IntList(cap), new IntList(cap), new IntList(cap)};
      vis = columns(cap);
      views = columns(cap);
    }

    private static IntList[] columns(int cap) { return new IntList[] {new IntList(cap), new IntList(cap), new IntList(cap)}; }
  }

  /**
   * Pass 1 over readers [from, to): each read's validity (TAPs a–f element by element, the list
   * rule), the length of its foreign part, its reads-from and visibility facts, and its view.
   * rfStart/visStart/viewStart of each reader are relative to out's lists. Writes foreignLen and
   * bad only at the range's own mops.
   */
  private void readLists(int from, int to, int[] ew, int[] et, int[] es, int[] ei, boolean[] bad, Facts out) {
    int[] longest = new int[2 * h.keyCount()];
    for (int x = 0; x < h.keyCount(); x++) longest[2 * x] = -1;
    out.longest = longest;
    // Valid reads, handed to longest() a batch at a time.
    int[] valid = new int[BATCH], touched = new int[BATCH];
    int nv = 0;
    int[] ownCount = null; // per key, for transactions too long to scan
    int[] dup = new int[64]; // open-addressing set of a long read's elements
    IntList rk = out.reads[0], rf = out.reads[1], rm = out.reads[2], rr = out.reads[3], vf = out.vis[0], vk = out.vis[1], vm = out.vis[2];
    IntList viewKey = out.views[0], viewFrom = out.views[1], viewMop = out.views[2];
    List<Tap.Instance> intra = out.intra;
    for (int t = from; t < to; t++) {
      rfStart[t] = rk.size();
      visStart[t] = vf.size();
      viewStart[t] = viewKey.size();
      if (!h.isOk(t)) continue;
      int a = h.mopStart(t), b = h.mopEnd(t);
      boolean scan = b - a <= SCAN;
      if (!scan && ownCount == null) ownCount = new int[h.keyCount()];
      for (int m = a; m < b; m++) {
        int x = h.mopKey(m);
        if (h.mopKind(m) != OpRecord.READ) {
          if (!scan) ownCount[x]++;
          continue;
        }
        int len = h.mopLen(m), o = h.mopVal(m); // the read's elements are ew/et[o .. o+len)
        if (len > 32 && dup.length < Integer.highestOneBit(len) << 2) dup = new int[Integer.highestOneBit(len) << 2];
        boolean broken = false;
        // a, b, c and duplicates, element by element.
        for (int j = 0; j < len; j++) {
          int w = ew[o + j], tw = et[o + j];
          if (w < 0) {
            intra.add(Tap.Instance.intraElem(Tap.THIN_AIR_READ, t, m, -1, BOT, j));
            broken = true;
            break;
          }
          if (len > 1 && seenBefore(ew, o, j, len, dup)) {
            intra.add(Tap.Instance.intraElem(Tap.DUPLICATE_ELEMENTS, t, m, w, tw, j));
            broken = true;
            break;
          }
          if (ei[o + j] <= FAILED) {
            intra.add(Tap.Instance.intraElem(Tap.ABORTED_READ, t, m, w, tw, j));
            broken = true;
            break;
          }
          if (tw == t && w > m) {
            intra.add(Tap.Instance.intraElem(Tap.FUTURE_READ, t, m, w, t, j));
            broken = true;
            break;
          }
        }
        // TAP j looks at every read, valid or not: the version it shows.
        int view = viewOf(t, ew, et, o, len);
        if (view != Integer.MIN_VALUE) {
          viewKey.add(x);
          viewFrom.add(view);
          viewMop.add(m);
        }
        if (broken) {
          bad[m] = true;
          continue;
        }
        // d, e: the list must end with exactly t's appends to x so far, in program order.
        int mine = 0;
        if (scan) {
          for (int q = a; q < m; q++) if (h.mopKey(q) == x && h.mopKind(q) != OpRecord.READ) mine++;
        } else mine = ownCount[x];
        int f = len - mine;
        boolean ownOk = f >= 0;
        for (int j = Math.max(f, 0); j < len && ownOk; j++) {
          if (et[o + j] != t || (j == f ? es[o + j] <= 0 : es[o + j] != f - j)) ownOk = false;
        }
        if (!ownOk) {
          int lastW = len == 0 ? -1 : ew[o + len - 1];
          boolean lastOwn = lastW >= 0 && et[o + len - 1] == t;
          intra.add(Tap.Instance.intra(lastOwn ? Tap.NOT_MY_LAST_WRITE : Tap.NOT_MY_OWN_WRITE, t, m, lastOwnAppend(t, x, m),
              lastW < 0 ? BOT : et[o + len - 1]));
          bad[m] = true;
          continue;
        }
        // An own append inside the foreign part means t's appends are not contiguous at the end.
        for (int j = 0; j < f; j++) {
          if (et[o + j] == t) {
            intra.add(Tap.Instance.intra(Tap.NOT_MY_LAST_WRITE, t, m, ew[o + j], t));
            ownOk = false;
            break;
          }
        }
        if (!ownOk) {
          bad[m] = true;
          continue;
        }
        // f: every block of one writer's elements is that writer's whole appends to x, in order.
        int j = 0, blocks = 0;
        while (j < f) {
          blocks++;
          int tw = et[o + j];
          int e = j;
          boolean whole = es[o + j] > 0; // the writer's first append to the key
          e++;
          while (e < f) {
            if (et[o + e] != tw) break;
            if (es[o + e] != j - e) whole = false; // its (e - j)th
            e++;
          }
          if (whole && e - j != es[o + j]) whole = false;
          if (!whole) {
            intra.add(Tap.Instance.intraElem(Tap.INTERMEDIATE_READ, t, m, ew[o + e - 1], tw, e - 1));
            broken = true;
            break;
          }
          j = e;
        }
        if (broken) {
          bad[m] = true;
          continue;
        }
        foreignLen[m] = f;
        valid[nv++] = m;
        if (nv == BATCH) nv = longest(valid, nv, touched, longest);
        // Reads-from: the version the read was built on, i.e. the writer of the last element
        // before t's own appends (t⊥ if none). After t's own appends this is still the
        // version of x that t's view of others' writes shows.
        int rfw = f == 0 ? BOT : et[o + f - 1];
        rk.add(x);
        rf.add(rfw);
        rm.add(m);
        rr.add(blocks);
        // Visibility: the other writers of the foreign part (one entry per writer and read). Each
        // writer's elements are one whole block (a second block would repeat its first append, a
        // duplicate), so a writer differs from the previous element's exactly where it first shows.
        for (int i = 0, prev = BOT; i < f; i++) {
          int tw = et[o + i];
          if (tw == prev) continue;
          prev = tw;
          if (tw == rfw) continue;
          vf.add(tw);
          vk.add(x);
          vm.add(m);
        }
      }
      if (!scan) for (int m = a; m < b; m++) ownCount[h.mopKey(m)] = 0;
    }
    longest(valid, nv, touched, longest);
  }

  /**
   * Records valid reads ms[0, n) (in program order) in each key's longest read so far, the first
   * of the greatest foreign length ({2x: read, 2x + 1: length}, read -1 when none): each key's
   * entry looked up for the whole batch first (independent look-ups, whose cache misses overlap).
   * Returns 0, the batch's new size.
   */
  private int longest(int[] ms, int n, int[] touched, int[] longest) {
    for (int i = 0; i < n; i++) touched[i] = longest[2 * h.mopKey(ms[i])];
    for (int i = 0; i < n; i++) {
      int m = ms[i], x = h.mopKey(m), f = foreignLen[m];
      if (longest[2 * x] < 0 || f > longest[2 * x + 1]) {
        longest[2 * x] = m;
        longest[2 * x + 1] = f;
      }
    }
    return 0;
  }

  /**
   * Whether ew[o+j] occurs in ew[o..o+j) (a duplicate element). Short lists compare directly; longer
   * ones keep the elements in an open-addressing set in dup (at least 4 slots per element; cleared at j = 0).
   */
  private static boolean seenBefore(int[] ew, int o, int j, int len, int[] dup) {
    int w = ew[o + j];
    if (len <= 32) {
      for (int i = o; i < o + j; i++) if (ew[i] == w) return true;
      return false;
    }
    int cap = Integer.highestOneBit(len) << 2, mask = cap - 1;
    if (j == 0) Arrays.fill(dup, 0, cap, -1);
    for (int i = (w * 0x9E3779B9) >>> 7 & mask; ; i = (i + 1) & mask) {
      if (dup[i] == w) return true;
      if (dup[i] < 0) {
        dup[i] = w;
        return false;
      }
    }
  }

  private int lastOwnAppend(int t, int x, int before) {
    for (int m = before - 1; m >= h.mopStart(t); m--) if (h.mopKind(m) == OpRecord.APPEND && h.mopKey(m) == x) return m;
    return -1;
  }

  /**
   * Each key's version order: the longest valid foreign part of any read, every other read a
   * prefix of it (else incompatible-order), and appends no read shows after its last writer.
   * elemWriter/elemTxn/elemEntry: each list-pool element's writer mop, transaction and entry in
   * ka ({@link #appendsByKey}). vo receives
   * {@link #voStart} and {@link #voTxn}.
   */
  private void versionOrder(boolean[] bad, int[] elemWriter, int[] elemTxn, int[] ka, int[] elemEntry, int[][] longestOf, int[][] vo) {
    int nKeys = h.keyCount();
    Ranges txns = new Ranges(n), keys = new Ranges(nKeys);
    // The longest valid read of each key, per range of readers (found in pass 1, each key's read
    // and its length side by side), then the first longest overall.
    int[] longest = new int[nKeys], longestLen = new int[nKeys];
    {
      int[] ll = longestOf[0];
      for (int x = 0; x < nKeys; x++) {
        longest[x] = ll[2 * x];
        longestLen[x] = ll[2 * x + 1];
      }
    }
    for (int c = 1; c < txns.count; c++) {
      int[] ll = longestOf[c];
      for (int x = 0; x < nKeys; x++) {
        if (ll[2 * x] >= 0 && (longest[x] < 0 || ll[2 * x + 1] > longestLen[x])) {
          longest[x] = ll[2 * x];
          longestLen[x] = ll[2 * x + 1];
        }
      }
    }
    Arrays.fill(longestOf, null);
    // Every other read must be a prefix of it: element j of the read must be the append at place j
    // of the longest read. Each append's place there (-1 if absent), by its entry in ka: a key's
    // entries lie together, so a read costs one cache miss there, where comparing it with the
    // longest read itself costs three (the longest read of the key, its offset, its elements).
    int[] place = new int[ka.length / KA];
    Arrays.fill(place, -1);
    boolean[] shown = new boolean[h.mopCount()];
    int[] lastWriter = new int[nKeys];
    Arrays.fill(lastWriter, -1);
    // Consecutive writers of each key's longest read, per range of keys, joined in key order;
    // the writers themselves (the shown part of voTxn), counted per key; each append's place.
    int[] voStart = new int[nKeys + 1], shownCount = new int[nKeys];
    IntList[][] order = new IntList[keys.count][];
    keys.forEach(c -> {
      IntList src = new IntList(), dst = new IntList(), key = new IntList(), seq = new IntList();
      // In batches of keys: the longest reads' offsets, then their first elements' facts and
      // places (independent look-ups, overlapped), then the walk over what is now in cache.
      int[] bo = new int[BATCH], bv = new int[BATCH];
      for (int x0 = keys.from(c), xe = keys.to(c); x0 < xe; x0 += BATCH) {
        int nb = Math.min(BATCH, xe - x0);
        for (int i = 0; i < nb; i++) bo[i] = longest[x0 + i] < 0 || longestLen[x0 + i] == 0 ? -1 : h.mopVal(longest[x0 + i]);
        for (int i = 0; i < nb; i++) if (bo[i] >= 0) bv[i] = elemEntry[bo[i]] + elemWriter[bo[i]] + elemTxn[bo[i]];
        for (int i = 0; i < nb; i++) if (bo[i] >= 0) bv[i] += place[elemEntry[bo[i]] / KA] + (shown[elemWriter[bo[i]]] ? 1 : 0);
      for (int x = x0; x < x0 + nb; x++) {
        int l = longest[x];
        if (l < 0) continue;
        int prev = -1;
        for (int p = h.mopVal(l), e = p + longestLen[x], o = p; p < e; p++) {
          place[elemEntry[p] / KA] = p - o;
          shown[elemWriter[p]] = true;
          int tw = elemTxn[p];
          if (tw != prev) {
            if (prev >= 0) {
              src.add(prev);
              dst.add(tw);
              key.add(x);
            }
            seq.add(tw);
            shownCount[x]++;
          }
          prev = tw;
        }
        lastWriter[x] = prev;
      }
      }
      order[c] = new IntList[] {src, dst, key, seq};
    });
    @SuppressWarnings("unchecked")
    List<Tap.Instance>[] incompatible = new List[txns.count];
    txns.forEach(c -> {
      List<Tap.Instance> found = new ArrayList<>();
      // In batches of reads: each one's first place looked up first (independent, overlapped).
      int[] bm = new int[BATCH], bv = new int[BATCH];
      int nb = 0;
      for (int t = txns.from(c), end = txns.to(c); t <= end; t++) {
        if (t < end) {
          if (!committed[t] || !h.isOk(t)) continue;
          for (int m = h.mopStart(t); m < h.mopEnd(t); m++) {
            if (h.mopKind(m) != OpRecord.READ || bad[m] || foreignLen[m] == 0) continue;
            bm[nb++] = m;
            if (nb == BATCH) {
              prefixes(bm, bv, nb, place, elemEntry, longest, found);
              nb = 0;
            }
          }
        } else prefixes(bm, bv, nb, place, elemEntry, longest, found);
      }
      incompatible[c] = found;
    });
    // lastWriter tells keys no valid read shows apart (one look-up a written key, not two).
    for (int x = 0; x < nKeys; x++) if (longest[x] < 0) lastWriter[x] = NO_READ;
    for (List<Tap.Instance> found : incompatible) intra.addAll(found);
    IntList[][] shownSeq = new IntList[keys.count][];
    for (int c = 0; c < keys.count; c++) {
      shownSeq[c] = new IntList[] {order[c][3]};
      order[c] = Arrays.copyOf(order[c], 3);
    }
    appendWw(keys, order, 0);
    // Committed appends no read shows: after the last writer of the key's order (and after t⊥
    // alone when the key's longest read is empty: no version-order edge then).
    IntList[][] unread = new IntList[txns.count][];
    txns.forEach(c -> {
      IntList src = new IntList(), dst = new IntList(), key = new IntList(), ut = new IntList(), ux = new IntList();
      for (int t = txns.from(c); t < txns.to(c); t++) {
        if (!committed[t]) continue;
        for (int i = wkStart[t]; i < wkStart[t + 1]; i++) {
          int x = wkKey[i], last = lastWriter[x];
          if (last == NO_READ || last == t) continue;
          // t's appends to x, when shown, are one whole block: its last one tells.
          if (!shown[wkLast[i]]) {
            ut.add(t);
            ux.add(x);
            if (last < 0) continue;
            src.add(last);
            dst.add(t);
            key.add(x);
          }
        }
      }
      unread[c] = new IntList[] {src, dst, key, ut, ux};
    });
    // voTxn: per key, the shown writers (key ranges in key order), then the unread ones (in id order).
    for (IntList[] u : unread) for (int i = 0; i < u[4].size(); i++) voStart[u[4].get(i) + 1]++;
    for (int x = 0; x < nKeys; x++) voStart[x + 1] += voStart[x] + shownCount[x];
    int[] voTxn = new int[voStart[nKeys]];
    int[] fill = new int[nKeys];
    for (int c = 0; c < keys.count; c++) {
      IntList sq = shownSeq[c][0];
      int i = 0;
      for (int x = keys.from(c); x < keys.to(c); x++) {
        fill[x] = voStart[x];
        for (int e = i + shownCount[x]; i < e; i++) voTxn[fill[x]++] = sq.get(i);
      }
      shownSeq[c] = null;
    }
    for (int c = 0; c < txns.count; c++) {
      IntList[] u = unread[c];
      for (int i = 0; i < u[3].size(); i++) voTxn[fill[u[4].get(i)]++] = u[3].get(i);
      unread[c] = Arrays.copyOf(u, 3);
    }
    vo[0] = voStart;
    vo[1] = voTxn;
    appendWw(txns, unread, 1);
  }

  /** Checks that list reads bm[0, nb) (with foreign parts) are prefixes of their keys' longest reads: element j at place j. */
  private void prefixes(int[] bm, int[] bv, int nb, int[] place, int[] elemEntry, int[] longest, List<Tap.Instance> found) {
    for (int i = 0; i < nb; i++) bv[i] = place[elemEntry[h.mopVal(bm[i])] / KA];
    for (int i = 0; i < nb; i++) {
      int m = bm[i];
      for (int j = 0, o = h.mopVal(m), e = foreignLen[m]; j < e; j++) {
        if (place[elemEntry[o + j] / KA] != j) {
          found.add(Tap.Instance.incompatible(h.mopTxn(m), m, longest[h.mopKey(m)], j));
          break;
        }
      }
    }
  }

  /** Appends each range's version-order edges {src, dst, key}, in range order, flagged unread or not. */
  private void appendWw(Ranges ranges, IntList[][] parts, int unread) {
    ranges.join(new IntList[] {wwSrc, wwDst, wwKey}, parts, null);
    wwUnread.ensureCapacity(wwSrc.size());
    while (wwUnread.size() < wwSrc.size()) wwUnread.add(unread);
  }


  /** Position of key x among t's written keys (binary search), or -1. */
  private int indexOf(int t, int x) {
    int lo = wkStart[t], hi = wkStart[t + 1] - 1;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      if (wkKey[mid] < x) lo = mid + 1;
      else if (wkKey[mid] > x) hi = mid - 1;
      else return mid;
    }
    return -1;
  }

  // ------------------------------------------------------------------ TAP j

  /** Lists: per :ok reader, the version each read shows (see {@link #viewOf}), when its writer is committed. */
  private int[] viewStart, viewKey, viewFrom, viewMop;

  /**
   * NonRepeatableRead (Plume Def. 3): a transaction read one key from two different other
   * committed transactions (t⊥ included). Decided on every read of a committed :ok transaction,
   * whatever else is wrong with it: cut isolation constrains nothing else. For registers the
   * versions read are the reads-from facts; a list read's writer is that of its last element the
   * reader did not append itself, recorded for every list read, valid or not.
   */
  private void nonRepeatable(int[] start, int[] key, int[] from, int[] mop) {
    int nKeys = h.keyCount();
    int[] firstFrom = new int[nKeys], firstFact = new int[nKeys];
    Arrays.fill(firstFact, -1);
    for (int t = 0; t < n; t++) {
      int a = start[t], b = start[t + 1];
      for (int i = a; i < b; i++) {
        int x = key[i], f = from[i];
        if (firstFact[x] < 0) {
          firstFact[x] = i;
          firstFrom[x] = f;
        } else if (firstFrom[x] != f && firstFrom[x] != Integer.MIN_VALUE) {
          intra.add(Tap.Instance.nonRepeatable(t, mop[firstFact[x]], firstFrom[x], mop[i], f));
          firstFrom[x] = Integer.MIN_VALUE; // one instance per key and reader
        }
      }
      for (int i = a; i < b; i++) firstFact[key[i]] = -1;
    }
  }

  /** A list read's view from its resolved elements: the last element not t's own; MIN_VALUE if its writer is not committed. */
  private int viewOf(int t, int[] ew, int[] et, int o, int len) {
    int j = o + len - 1;
    while (j >= o && ew[j] >= 0 && et[j] == t) j--;
    if (j < o) return BOT;
    return ew[j] < 0 || !committed[et[j]] ? Integer.MIN_VALUE : et[j];
  }

}
