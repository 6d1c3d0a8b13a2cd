package isocheck.check.weak;

import isocheck.util.Ranges;
import isocheck.graph.Digraph;
import isocheck.graph.Edge;
import isocheck.graph.EdgeList;
import isocheck.graph.Scc;
import isocheck.util.IntList;
import java.util.Arrays;

/**
 * The commit-order edges each level's axiom forces, and the level's commit-order graph
 * (Plume §3.1 Defs 4–6, §4.1 BuildCM; seeds-weak §3.7). With t3 reading x from t1 and t2 ≠ t1
 * writing x, t3 ∉ {t1, t2}, the axiom forces t2 →CM t1 when
 * <ul>
 * <li>RC (MonoAtomicView): t3 observed t2 by a read of another key y before the read of x;
 * <li>RA (ReadAtomic): t2 precedes t3 in its session (any earlier transaction, not only the
 *     adjacent one: pitfall 2), or t3 observed t2;
 * <li>TCC (Causal): t2 →CO t3.
 * </ul>
 * "Observed" is reads-from, and for lists also seeing t2's append inside a longer list (its
 * visibility). A level holds iff CO ∪ its forced edges (∪ the list version order) is acyclic;
 * each level builds its own edges (pitfall 1: filtering TCC's edges by label is unsound for RC
 * and RA). With t1 = t⊥ (a read of the initial value) a forced edge is a contradiction at once.
 *
 * <p>Costs, in the spirit of AWDIT (Møldrup &amp; Pavlogiannis, PLDI'25): an edge t2 → t1 is kept
 * only when CO does not already imply it (t2 →CO t1, an O(1) clock test). For TCC, only the last
 * writer of x on each chain of CO that t3 knows of matters (the earlier ones precede it
 * causally), and only on chains where t3's clock entry exceeds t1's: each read costs O(number of
 * chains writing x) plus a binary search per chain that differs, so O(w log n) per read at worst
 * for CO of width w, and nearly O(1) when keys have few writers. RA's session case is the same
 * search in t3's own session. RA's and RC's observed cases take, per read, whichever is smaller:
 * the writers of x or the writers t3 observed. The scans run one range of readers per core
 * ({@link Ranges}).
 */
final class CommitOrder {
  static final int SO_VIA = -2, CO_VIA = -1;

  final WeakHistory wh;
  final CausalOrder co;

  /** Forced edges of one level: t2 (src) → t1 (dst), the read of x (index into the read facts), and how t2 precedes t3. */
  static final class Forced {
    final IntList src = new IntList(), dst = new IntList(), rf = new IntList(), via = new IntList();
    /** Reads of the initial value contradicted at once: read-fact index, t2, via. */
    final IntList botRf = new IntList(), botT2 = new IntList(), botVia = new IntList();
    /** Candidate (read, writer) pairs the scan looked at: its work, independent of the machine. */
    long examined;

    void add(int t2, int t1, int rfi, int v) {
      if (t1 == WeakHistory.BOT) {
        botRf.add(rfi);
        botT2.add(t2);
        botVia.add(v);
      } else {
        src.add(t2);
        dst.add(t1);
        rf.add(rfi);
        via.add(v);
      }
    }

    int size() { return src.size(); }

    /** The edge columns, in a fixed order (for joining ranges' results). */
    IntList[] columns() { return new IntList[] {src, dst, rf, via, botRf, botT2, botVia}; }
  }

  /** Per reader, the writers it observed: [start[t], start[t+1]) of writer, read mop, key, in program order. */
  static final class Obs {
    final int[] start, writer, mop, key;

    Obs(WeakHistory wh) {
      int n = wh.n;
      start = new int[n + 1];
      int cap = wh.rfFrom.length + wh.visFrom.length;
      IntList ow = new IntList(cap), om = new IntList(cap), ok = new IntList(cap);
      int[][] buf = {new int[64], new int[64], new int[64]};
      for (int t = 0; t < n; t++) {
        start[t] = ow.size();
        int c = observations(wh, t, buf);
        for (int j = 0; j < c; j++) {
          ow.add(buf[0][j]);
          om.add(buf[1][j]);
          ok.add(buf[2][j]);
        }
      }
      start[n] = ow.size();
      writer = ow.trimmed();
      mop = om.trimmed();
      key = ok.trimmed();
    }
  }

  private Obs obs;

  /** The observations, built on first use (RC, RA and the classification need them; TCC does not). */
  Obs obs() {
    if (obs == null) obs = new Obs(wh);
    return obs;
  }

  CommitOrder(WeakHistory wh, CausalOrder co) {
    this.wh = wh;
    this.co = co;
  }

  /** Whether the edge t2 → t1 is implied by CO already (so need not be kept). */
  private boolean implied(int t2, int t1) {
    return t1 != WeakHistory.BOT && co.reaches(t2, t1);
  }

  // ------------------------------------------------------------------ observed cases (RC, RA)

  /** MonoAtomicView edges: t2 observed by a read of y ≠ x before the read of x from t1. */
  Forced monoAtomicView() {
    Forced f = new Forced();
    observed(f, true);
    return f;
  }

  /**
   * Edges from the writers t3 observed: for MonoAtomicView only those observed by a read of
   * another key before the read of x; for ReadAtomic any, by any read (same key included).
   *
   * <p>For each read of x from t1, the observed writers of x are found from whichever side is
   * smaller (AWDIT's trick, PLDI'25 §4): the committed writers of x, each tested for having been
   * observed by t3 (a mark per transaction, set once per reader), or t3's observations, each
   * tested for writing x. So a read costs min(writers of x, observations of t3) rather than
   * their product with the reader's size.
   */
  private void observed(Forced f, boolean monoAtomic) {
    Writers ws = bySession();
    inParallel(f, (from, to, out) -> {
      // t3's observations in program order (as in Obs, gathered per reader into a scratch buffer).
      int[][] scratch = {new int[64], new int[64], new int[64]};
      Observed seen = new Observed();
      for (int t3 = from; t3 < to; t3++) {
        int oe = observations(wh, t3, scratch);
        if (oe == 0) continue;
        out.examined += oe;
        int[] obWriter = scratch[0], obMop = scratch[1], obKey = scratch[2];
        seen.reset(oe);
        for (int j = 0; j < oe; j++) {
          int t2 = obWriter[j], e = seen.find(t2);
          if (e < 0) seen.put(~e, t2, obMop[j], obKey[j]);
          else if (seen.otherMop[e] == Integer.MAX_VALUE && obKey[j] != seen.firstKey[e]) seen.otherMop[e] = obMop[j];
        }
        for (int i = wh.rfStart[t3]; i < wh.rfStart[t3 + 1]; i++) {
          int x = wh.rfKey[i], t1 = wh.rfFrom[i], mx = wh.rfMop[i];
          int wa = ws.from(ws.segStart[x]), we = ws.from(ws.segStart[x + 1]);
          out.examined += Math.min(we - wa, oe);
          if (we - wa <= oe) {
            for (int wi = wa; wi < we; wi++) {
              int t2 = ws.wTxn[wi], e;
              if (t2 == t1 || (e = seen.find(t2)) < 0) continue;
              int via = !monoAtomic || seen.firstKey[e] != x ? seen.firstMop[e] : seen.otherMop[e];
              if (monoAtomic && via >= mx) continue;
              if (!implied(t2, t1)) out.add(t2, t1, i, via);
            }
          } else {
            for (int j = 0; j < oe && (!monoAtomic || obMop[j] < mx); j++) {
              int t2 = obWriter[j], e = seen.find(t2);
              if (t2 == t1 || seen.lastRead[e] == i || (monoAtomic && obKey[j] == x)) continue;
              seen.lastRead[e] = i;
              if (wh.writes(t2, x) && !implied(t2, t1)) out.add(t2, t1, i, obMop[j]);
            }
          }
        }
      }
    });
  }

  /**
   * The writers one reader observed, in a small open-addressing table (it stays in the fastest
   * cache, where arrays over all transactions would miss on every probe): per writer its first
   * observing mop and that read's key, the first observing mop of another key (MAX_VALUE if
   * none), and the last read index it was paired with.
   */
  private static final class Observed {
    int[] txn = new int[64], firstMop = new int[64], firstKey = new int[64], otherMop = new int[64], lastRead = new int[64];
    int mask = 63;

    void reset(int entries) {
      int cap = Integer.highestOneBit(Math.max(8, entries)) << 2;
      if (txn.length < cap) {
        txn = new int[cap];
        firstMop = new int[cap];
        firstKey = new int[cap];
        otherMop = new int[cap];
        lastRead = new int[cap];
      }
      mask = cap - 1;
      Arrays.fill(txn, 0, cap, -1);
    }

    /** The slot of writer t, or ~(the free slot where it would go). */
    int find(int t) {
      int h = t * 0x9E3779B9;
      for (int i = (h ^ h >>> 16) & mask; ; i = (i + 1) & mask) {
        if (txn[i] == t) return i;
        if (txn[i] < 0) return ~i;
      }
    }

    void put(int slot, int t, int mop, int key) {
      txn[slot] = t;
      firstMop[slot] = mop;
      firstKey[slot] = key;
      otherMop[slot] = Integer.MAX_VALUE;
      lastRead[slot] = -1;
    }
  }


  /**
   * Gathers t3's observations (reads-from of other transactions, and visibility) in program
   * order into buf = {writers, mops, keys}, growing it as needed; returns their number.
   */
  static int observations(WeakHistory wh, int t3, int[][] buf) {
    int i = wh.rfStart[t3], ie = wh.rfStart[t3 + 1], j = wh.visStart[t3], je = wh.visStart[t3 + 1];
    int need = ie - i + je - j;
    if (buf[0].length < need) for (int b = 0; b < 3; b++) buf[b] = new int[Math.max(need, buf[b].length * 2)];
    int[] w = buf[0], m = buf[1], k = buf[2];
    int c = 0;
    while (i < ie || j < je) {
      if (j >= je || (i < ie && wh.rfMop[i] <= wh.visMop[j])) {
        if (wh.rfFrom[i] != WeakHistory.BOT) {
          w[c] = wh.rfFrom[i];
          m[c] = wh.rfMop[i];
          k[c++] = wh.rfKey[i];
        }
        i++;
      } else {
        w[c] = wh.visFrom[j];
        m[c] = wh.visMop[j];
        k[c++] = wh.visKey[j];
        j++;
      }
    }
    return c;
  }

  /** A scan of readers [from, to) adding forced edges to out. */
  private interface Scan {
    void run(int from, int to, Forced out);
  }

  /**
   * Runs a scan over every reader, split into one contiguous range per core (the scans only read
   * shared state), and appends the ranges' edges to f in reader order: the same edges, in the
   * same order, whatever the number of cores.
   */
  private void inParallel(Forced f, Scan scan) {
    Ranges readers = new Ranges(wh.n);
    IntList[][] parts = new IntList[readers.count][];
    long[] examined = new long[readers.count];
    readers.forEach(c -> {
      Forced out = new Forced();
      scan.run(readers.from(c), readers.to(c), out);
      parts[c] = out.columns();
      examined[c] = out.examined;
    });
    readers.join(f.columns(), parts, null);
    for (long e : examined) f.examined += e;
  }


  /** ReadAtomic edges: session predecessors and observed writers. */
  Forced readAtomic() {
    Forced f = new Forced();
    lastSessionWriters(f);
    observed(f, false);
    return f;
  }

  /** Causal edges: every writer of x causally before t3 (the last one per session suffices). */
  Forced causal() {
    Forced f = new Forced();
    lastChainWriters(f);
    return f;
  }

  // ------------------------------------------------------------------ writers by key and group

  /**
   * Every committed writer of each key, grouped (by session, or by causal-order chain) and sorted
   * by position in its group: [segStart[x], segStart[x+1]) are key x's segments; segment j holds
   * writers wTxn[from(j) .. from(j + 1)) of group group(j), at positions wPos.
   *
   * <p>A segment's group, first writer and the positions of its first and last writers are four
   * neighbouring ints of {@code seg} (a last record holds the end): TCC's check reads them for
   * every segment of the key each read reads, where three arrays cost a cache miss each (at 10^6
   * rw-register transactions, 45 million segments examined).
   */
  private static final class Writers {
    final int[] segStart, seg, wTxn, wPos;

    int group(int j) { return seg[4 * j]; }

    int from(int j) { return seg[4 * j + 1]; }

    int firstPos(int j) { return seg[4 * j + 2]; }

    int lastPos(int j) { return seg[4 * j + 3]; }

    /**
     * members[g] lists group g's transactions in order; position(t) is t's 1-based position in
     * its group. A counting sort by key over the groups in order keeps each key's bucket grouped
     * and sorted.
     */
    Writers(WeakHistory wh, int[][] members, int[] position) {
      int nKeys = wh.h.keyCount();
      int[] count = new int[nKeys + 1];
      for (int[] txns : members) for (int u : txns) for (int i = wh.wkStart[u]; i < wh.wkStart[u + 1]; i++) count[wh.wkKey[i] + 1]++;
      for (int x = 0; x < nKeys; x++) count[x + 1] += count[x];
      int[] fill = Arrays.copyOf(count, nKeys);
      int[] group = new int[count[nKeys]];
      wTxn = new int[count[nKeys]];
      for (int g = 0; g < members.length; g++) {
        for (int u : members[g]) {
          for (int i = wh.wkStart[u]; i < wh.wkStart[u + 1]; i++) {
            int at = fill[wh.wkKey[i]]++;
            wTxn[at] = u;
            group[at] = g;
          }
        }
      }
      segStart = new int[nKeys + 1];
      IntList ss = new IntList(), sf = new IntList();
      for (int x = 0; x < nKeys; x++) {
        segStart[x] = ss.size();
        int prev = -1;
        for (int i = count[x]; i < count[x + 1]; i++) {
          if (group[i] != prev) {
            ss.add(group[i]);
            sf.add(i);
            prev = group[i];
          }
        }
      }
      segStart[nKeys] = ss.size();
      sf.add(wTxn.length);
      wPos = new int[wTxn.length];
      for (int i = 0; i < wTxn.length; i++) wPos[i] = position[wTxn[i]];
      int ns = ss.size();
      seg = new int[4 * (ns + 1)];
      for (int j = 0; j < ns; j++) {
        int a = sf.get(j), b = sf.get(j + 1);
        seg[4 * j] = ss.get(j);
        seg[4 * j + 1] = a;
        seg[4 * j + 2] = wPos[a];
        seg[4 * j + 3] = wPos[b - 1];
      }
      seg[4 * ns + 1] = wTxn.length;
    }

    /** The index (into wTxn) of the last writer in segment j at position ≤ c in its group, or -1. */
    int lastUpTo(int j, int c) {
      int lo = from(j), hi = from(j + 1) - 1, r = -1;
      while (lo <= hi) {
        int mid = (lo + hi) >>> 1;
        if (wPos[mid] <= c) {
          r = mid;
          lo = mid + 1;
        } else hi = mid - 1;
      }
      return r;
    }
  }

  private Writers bySession, byChain;

  /** Writers grouped by session: every committed writer. */
  private Writers bySession() {
    if (bySession == null) bySession = new Writers(wh, wh.sessionTxns, wh.pos);
    return bySession;
  }

  /** Writers grouped by causal-order chain: those on no chain (nothing follows them) are left out. */
  private Writers byChain() {
    if (byChain == null) {
      int[] len = new int[co.chains];
      for (int t = 0; t < wh.n; t++) if (co.chain[t] >= 0) len[co.chain[t]]++;
      int[][] members = new int[co.chains][];
      for (int c = 0; c < co.chains; c++) members[c] = new int[len[c]];
      for (int t = 0; t < wh.n; t++) if (co.chain[t] >= 0) members[co.chain[t]][co.index[t] - 1] = t;
      byChain = new Writers(wh, members, co.index);
    }
    return byChain;
  }

  /**
   * RA's session case: for each read of x from t1 by t3, the last writer w of x before t3 in t3's
   * session; the earlier ones precede w in session order, so w's edge implies theirs. Kept unless
   * w is t1 or CO already orders w before t1.
   */
  private void lastSessionWriters(Forced f) {
    Writers ws = bySession();
    inParallel(f, (from, to, out) -> {
      for (int t3 = from; t3 < to; t3++) {
        int a = wh.rfStart[t3], b = wh.rfStart[t3 + 1];
        if (a == b) continue;
        int s3 = wh.session(t3), p3 = wh.pos[t3];
        for (int i = a; i < b; i++) {
          int x = wh.rfKey[i], t1 = wh.rfFrom[i];
          out.examined += ws.segStart[x + 1] - ws.segStart[x];
          for (int j = ws.segStart[x]; j < ws.segStart[x + 1]; j++) {
            if (ws.group(j) != s3) continue;
            int wi = ws.lastUpTo(j, p3 - 1);
            if (wi < 0) break;
            int w = ws.wTxn[wi];
            if (w != t1 && !implied(w, t1)) out.add(w, t1, i, SO_VIA);
            break;
          }
        }
      }
    });
  }

  /**
   * TCC: for each read of x from t1 by t3 and each chain c of CO holding writers of x: the last
   * writer w of x on c that t3 knows of (position ≤ t3's clock entry for c; on t3's own chain,
   * before t3). Earlier writers on c precede w causally, so w's edge implies theirs; and when t1
   * already knows w (its entry for c reaches w), the edge is implied by CO. So only chains where
   * t3's entry exceeds t1's are searched. Cost: O(chains writing x) per read plus a binary search
   * where the entries differ. Writers on no chain precede nothing, so they are never t2.
   */
  private void lastChainWriters(Forced f) {
    Writers ws = byChain();
    inParallel(f, (from, to, out) -> {
      for (int t3 = from; t3 < to; t3++) {
        int a = wh.rfStart[t3], b = wh.rfStart[t3 + 1];
        if (a == b) continue;
        int c3 = co.chain[t3], s3 = wh.session(t3), p3 = wh.pos[t3];
        for (int i = a; i < b; i++) {
          int x = wh.rfKey[i], t1 = wh.rfFrom[i];
          out.examined += ws.segStart[x + 1] - ws.segStart[x];
          for (int j = ws.segStart[x]; j < ws.segStart[x + 1]; j++) {
            int c = ws.group(j);
            int known = c == c3 ? co.index[t3] - 1 : co.clocks.get(t3, c);
            if (ws.firstPos(j) > known) continue; // t3 knows none of c's writers of x
            int lo = t1 == WeakHistory.BOT ? 0 : co.clocks.get(t1, c);
            if (known <= lo || ws.lastPos(j) <= lo) continue; // t1 knows every one t3 knows
            int wi = ws.lastUpTo(j, known);
            if (wi < 0 || ws.wPos[wi] <= lo) continue;
            int w = ws.wTxn[wi];
            if (w == t1 || w == t3) continue;
            boolean so = wh.session(w) == s3 && wh.pos[w] < p3;
            out.add(w, t1, i, so ? SO_VIA : CO_VIA);
          }
        }
      }
    });
  }

  /**
   * TCC on a list-append history whose reads are all valid and prefixes of their key's longest
   * read: each key's version order is then total up to its unread appends ({@link
   * WeakHistory#voTxn}), so a forced edge t2 → t1 from a writer t2 ranked before t1 is implied by
   * version-order edges already in the graph. Only a writer ranked after t1 that t3 knows
   * causally can close a cycle (t1 →WW* t2 →CM t1). Checks, per read of x from t1 by t3, the
   * writers of x ranked after t1 (usually none or a few: reads mostly show a recent version),
   * one clock test each unless CO is in id order and the writer's id follows t3's. Returns the writers examined when no read knows a later writer (then
   * TCC's graph is CO ∪ the version order), or -1 when one does or the examined writers exceed
   * the budget: the general scan ({@link #causal}) decides then, and names the cycles.
   */
  long listCausalWithoutForcedEdges(long budget) {
    Ranges readers = new Ranges(wh.n);
    long[] examined = new long[readers.count];
    long share = Math.max(1, budget / readers.count);
    readers.forEach(c -> {
      long ex = 0;
      // The keys' version orders looked up a batch of reads ahead (independent look-ups, whose
      // cache misses the core overlaps; one read at a time they would come one after another).
      final int batch = 256;
      int[] ahead = new int[batch];
      int pre = wh.rfStart[readers.from(c)], base = pre;
      scan:
      for (int t3 = readers.from(c), e3 = readers.to(c); t3 < e3; t3++) {
        for (int i = wh.rfStart[t3]; i < wh.rfStart[t3 + 1]; i++) {
          if (i >= pre) {
            base = i;
            pre = Math.min(i + batch, wh.rfStart[e3]);
            for (int j = base; j < pre; j++) ahead[j - base] = wh.voStart[wh.rfKey[j]] + wh.rfRank[j];
            for (int j = base; j < pre; j++) if (ahead[j - base] > 0 && ahead[j - base] <= wh.voTxn.length) ahead[j - base] = wh.voTxn[ahead[j - base] - 1];
          }
          int x = wh.rfKey[i], r = wh.rfRank[i], at = wh.voStart[x] + r;
          // The writer read must sit at its rank (it does when the read is a prefix of the
          // longest one); anything else goes to the general scan.
          if (r == 0 ? wh.rfFrom[i] != WeakHistory.BOT : at > wh.voStart[x + 1] || wh.voTxn[at - 1] != wh.rfFrom[i]) {
            ex = -1;
            break scan;
          }
          for (int q = at, e = wh.voStart[x + 1]; q < e; q++) {
            int w = wh.voTxn[q];
            // A later transaction precedes t3 in CO only when both lie in one of CO's windows of
            // backward edges (none when CO is in id order): no clock test needed otherwise.
            if (w == t3 || (w > t3 && !co.mayGoBack(w, t3))) continue;
            if (++ex > share || co.reaches(w, t3)) {
              ex = -1;
              break scan;
            }
          }
        }
      }
      examined[c] = ex;
    });
    long sum = 0;
    for (long e : examined) {
      if (e < 0) return -1;
      sum += e;
    }
    return sum;
  }

  // ------------------------------------------------------------------ the level's graph

  /** CO ∪ list version order ∪ the level's forced edges, masks SO, WR, WW and {@link Edge#CM}. */
  Digraph graph(Forced f) {
    EdgeList es = new EdgeList(co.factCount() + wh.wwSrc.size() + f.size());
    co.edges(es, false); // from the facts: CO's successor graph itself is built only for reports
    for (int i = 0; i < wh.wwSrc.size(); i++) es.add(wh.wwSrc.get(i), wh.wwDst.get(i), Edge.WW);
    for (int i = 0; i < f.size(); i++) es.add(f.src.get(i), f.dst.get(i), Edge.CM);
    return Digraph.of(wh.n, es);
  }

  static Scc scc(Digraph g) { return Scc.of(g, Edge.SO | Edge.WR | Edge.WW | Edge.CM); }

  /** The windows of the backward edges of CO ∪ version order ∪ f ({@link Windows}). */
  Windows windows(Forced f) {
    Windows.Builder b = new Windows.Builder(wh.n);
    for (int t = 0; t < wh.n; t++) {
      for (int i = wh.rfStart[t]; i < wh.rfStart[t + 1]; i++) b.edge(wh.rfFrom[i], t);
      for (int i = wh.visStart[t]; i < wh.visStart[t + 1]; i++) b.edge(wh.visFrom[i], t);
    }
    for (int i = 0; i < wh.wwSrc.size(); i++) b.edge(wh.wwSrc.get(i), wh.wwDst.get(i));
    for (int i = 0; i < f.size(); i++) b.edge(f.src.get(i), f.dst.get(i));
    return b.build();
  }

  /**
   * The level's graph restricted to the edges inside w's windows, which hold every cycle and
   * every path between two transactions of one component: its components (by {@link #scc(Digraph,
   * Windows)}) are those of {@link #graph(Forced)}, found without building it.
   */
  Digraph graph(Forced f, Windows w) {
    EdgeList es = new EdgeList();
    co.edges(es, false, w);
    for (int i = 0; i < wh.wwSrc.size(); i++) if (w.same(wh.wwSrc.get(i), wh.wwDst.get(i))) es.add(wh.wwSrc.get(i), wh.wwDst.get(i), Edge.WW);
    for (int i = 0; i < f.size(); i++) if (w.same(f.src.get(i), f.dst.get(i))) es.add(f.src.get(i), f.dst.get(i), Edge.CM);
    return Digraph.of(wh.n, es);
  }

  static Scc scc(Digraph g, Windows w) { return Scc.of(g, Edge.SO | Edge.WR | Edge.WW | Edge.CM, w.group); }
}
