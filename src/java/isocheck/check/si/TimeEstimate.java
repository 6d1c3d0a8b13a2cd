package isocheck.check.si;

import isocheck.history.History;
import isocheck.history.OpRecord;
import java.util.Arrays;

/**
 * When each committed transaction of an rw-register history ran, estimated from what the history
 * fixes whatever order its file lists transactions in: session order and reads-from (a reader
 * after the writer it read; a reader of a key's initial state before every writer of the key),
 * the edges every serial schedule extends (PolySI, PVLDB'23, §2: the known edges of the
 * polygraph). Each session advances one step per transaction; the estimate is the middle of the
 * earliest time the edges allow (longest paths from the start, Lamport's clocks) and the latest
 * (longest paths to the end), refined by the integers each key's writers wrote ({@link
 * #byValues}). The lazy search ({@link LazyConstraints}) starts its solver from it where the
 * history has no invocations ({@link RegisterSearch#nodeRanks}): transaction ids are then the
 * file's order, which for dbcop, Cobra and Plume text is session by session and no guide to time
 * (issue 29). Only the search's path depends on it, never a verdict.
 */
final class TimeEstimate {
  private TimeEstimate() {}


  /** A reads-from edge's length, in session steps (a reader soon after the writer it read). */
  static final double READ = 0.1;

  /**
   * Per transaction, its estimated time (session steps; 0 for those not committed), or null when
   * the edges have a cycle (the history violates every serializable and SI level with session
   * order; the file's order is as good as any).
   *
   * @param version per read mop, the version it names: a transaction, {@link Polygraph#BOT}, or
   *     MIN_VALUE for none (RegisterAnalysis#versions)
   */
  static double[] of(History h, isocheck.order.RegisterAnalysis ra, boolean[] committed, int[] version, boolean session) {
    // The gates' edges are serializability's (under snapshot isolation a reader of the initial
    // state may follow a writer of the key, write skew): where they close a cycle, without them.
    double[] e = of(h, ra, committed, version, session, true);
    return e != null ? e : of(h, ra, committed, version, session, false);
  }

  private static double[] of(History h, isocheck.order.RegisterAnalysis ra, boolean[] committed, int[] version, boolean session,
                             boolean gates) {
    int n = h.nTxns, nKeys = h.keyCount();
    // Gates: one node per key read in its initial state; readers → gate → writers.
    int[] gate = new int[nKeys];
    Arrays.fill(gate, -1);
    int gateCount = 0;
    for (int t = 0; t < n && gates; t++) {
      if (!h.isOk(t)) continue;
      for (int m = h.mopStart(t); m < h.mopEnd(t); m++) {
        if (h.mopKind(m) == OpRecord.READ && version[m] == Polygraph.BOT && gate[h.mopKey(m)] < 0) gate[h.mopKey(m)] = gateCount++;
      }
    }
    int nodes = n + gateCount;
    // Edges in CSR, counted then filled; weights by kind: session 1, reads-from READ, gate READ / 2.
    int[] start = new int[nodes + 1];
    int[] last = new int[h.sessionCount()];
    int[] target = null;
    float[] weight = null;
    int[] fill = null;
    for (int pass = 0; pass < 2; pass++) {
      Arrays.fill(last, -1);
      for (int t = 0; t < n; t++) {
        if (!committed[t]) continue;
        if (session) {
          int p = last[h.session(t)];
          if (p >= 0) edge(pass, start, fill, target, weight, p, t, 1f);
          last[h.session(t)] = t;
        }
        boolean ok = h.isOk(t);
        for (int m = h.mopStart(t); m < h.mopEnd(t); m++) {
          int x = h.mopKey(m);
          if (ok && h.mopKind(m) == OpRecord.READ) {
            int v = version[m];
            if (v >= 0 && v != t && committed[v]) edge(pass, start, fill, target, weight, v, t, (float) READ);
            else if (v == Polygraph.BOT && gate[x] >= 0) edge(pass, start, fill, target, weight, t, n + gate[x], (float) READ / 2);
          } else if (h.mopKind(m) == OpRecord.WRITE && gate[x] >= 0 && firstWrite(h, t, m) && !readsInitial(h, version, t, x)) {
            edge(pass, start, fill, target, weight, n + gate[x], t, (float) READ / 2);
          }
        }
      }
      if (pass == 0) {
        for (int v = 0; v < nodes; v++) start[v + 1] += start[v];
        target = new int[start[nodes]];
        weight = new float[start[nodes]];
        fill = Arrays.copyOf(start, nodes);
      }
    }
    // A topological order (Kahn's), then longest paths forward and backward along it.
    int[] indeg = new int[nodes];
    for (int e = 0; e < target.length; e++) indeg[target[e]]++;
    int[] order = new int[nodes];
    int head = 0, tail = 0;
    for (int v = 0; v < nodes; v++) if (indeg[v] == 0) order[tail++] = v;
    while (head < tail) {
      int v = order[head++];
      for (int e = start[v]; e < start[v + 1]; e++) if (--indeg[target[e]] == 0) order[tail++] = target[e];
    }
    if (tail < nodes) return null;
    double[] early = new double[nodes], late = new double[nodes];
    double end = 0;
    for (int i = 0; i < nodes; i++) {
      int v = order[i];
      for (int e = start[v]; e < start[v + 1]; e++) early[target[e]] = Math.max(early[target[e]], early[v] + weight[e]);
      end = Math.max(end, early[v]);
    }
    for (int i = nodes - 1; i >= 0; i--) {
      int v = order[i];
      double l = end;
      for (int e = start[v]; e < start[v + 1]; e++) l = Math.min(l, late[target[e]] - weight[e]);
      late[v] = l;
    }
    double[] est = new double[n];
    for (int t = 0; t < n; t++) if (committed[t]) est[t] = (early[t] + late[t]) / 2;
    double[] byValues = byValues(h, ra, committed, version, start, target, nodes, est);
    return byValues != null ? byValues : est;
  }

  /**
   * Places in an order that also follows, where the history allows, each key's writers in the
   * order of the integers they wrote (each reader of a version before the writer of the next
   * value): Jepsen's rw-register generator writes each key's values in increasing order, and
   * dbcop's and Cobra's clients count too, so a store that committed a key's writers about when
   * they were invoked has about that version order (the simulator's snapshot-isolation store,
   * 99.85% of consecutive writer pairs; its serializable store, 93%). Kahn's algorithm over
   * the known edges and those hints, the ready node of least estimate next (ties by session and
   * place in it, never by the file's order); when none is ready, the hints into the node of least
   * estimate whose known edges are satisfied are dropped, or, where a hint into it comes from a
   * node held by hints alone, that node's (the first of such a chain). Null when some written
   * value is not an integer.
   */
  private static double[] byValues(History h, isocheck.order.RegisterAnalysis ra, boolean[] committed, int[] version,
                                   int[] start, int[] target, int nodes, double[] est) {
    int n = h.nTxns, nKeys = h.keyCount(), mops = h.mopCount();
    int[] count = new int[nKeys + 1];
    for (int t = 0; t < n; t++) {
      if (!committed[t]) continue;
      for (int m = h.mopStart(t); m < h.mopEnd(t); m++) {
        if (h.mopKind(m) != OpRecord.WRITE || !ra.isFinalWrite(m)) continue;
        if (!h.valueIsInteger(h.mopVal(m))) return null;
        count[h.mopKey(m) + 1]++;
      }
    }
    for (int x = 0; x < nKeys; x++) count[x + 1] += count[x];
    long[] byValue = new long[count[nKeys]];
    int[] fill = Arrays.copyOf(count, nKeys);
    // Per key, (value, final write mop), sorted: values are distinct per key in such histories;
    // ties (not distinct) by mop, which then orders nothing that matters much.
    long[] vals = new long[count[nKeys]];
    int[] mopOf = new int[count[nKeys]];
    for (int t = 0; t < n; t++) {
      if (!committed[t]) continue;
      for (int m = h.mopStart(t); m < h.mopEnd(t); m++) {
        if (h.mopKind(m) != OpRecord.WRITE || !ra.isFinalWrite(m)) continue;
        int i = fill[h.mopKey(m)]++;
        vals[i] = h.valueAsLong(h.mopVal(m));
        mopOf[i] = m;
      }
    }
    // Each key's writes by value: (value << 32 | slot) sorted where values fit in an int (no
    // boxing: at 10^6 transactions, 2 million writes), else boxed.
    int[] idx = new int[vals.length];
    boolean small = true;
    for (long v : vals) small &= v >= Integer.MIN_VALUE && v <= Integer.MAX_VALUE;
    if (small) {
      long[] packed = new long[vals.length];
      for (int i = 0; i < vals.length; i++) packed[i] = vals[i] << 32 | i;
      for (int x = 0; x < nKeys; x++) Arrays.sort(packed, count[x], count[x + 1]);
      for (int i = 0; i < vals.length; i++) idx[i] = (int) packed[i];
    } else {
      Integer[] boxed = new Integer[vals.length];
      for (int i = 0; i < boxed.length; i++) boxed[i] = i;
      for (int x = 0; x < nKeys; x++) Arrays.sort(boxed, count[x], count[x + 1], (a, b) -> Long.compare(vals[a], vals[b]));
      for (int i = 0; i < vals.length; i++) idx[i] = boxed[i];
    }
    // next[m]: the final write mop of the next value of m's key, -1 for none.
    int[] next = new int[mops];
    Arrays.fill(next, -1);
    for (int x = 0; x < nKeys; x++) for (int i = count[x]; i + 1 < count[x + 1]; i++) next[mopOf[idx[i]]] = mopOf[idx[i + 1]];
    // Hints, in CSR: writer → next writer, reader of a version → writer of the next value.
    int[] hs = new int[nodes + 1];
    int[] ht = null, hf = null;
    for (int pass = 0; pass < 2; pass++) {
      for (int t = 0; t < n; t++) {
        if (!committed[t]) continue;
        for (int m = h.mopStart(t); m < h.mopEnd(t); m++) {
          int nm = -1;
          if (h.mopKind(m) == OpRecord.WRITE && ra.isFinalWrite(m)) nm = next[m];
          else if (h.isOk(t) && h.mopKind(m) == OpRecord.READ && version[m] >= 0 && version[m] != t && committed[version[m]]) nm = next[ra.writerOfRead[m]];
          if (nm < 0 || h.mopTxn(nm) == t) continue;
          if (pass == 0) hs[t + 1]++;
          else ht[hf[t]++] = h.mopTxn(nm);
        }
      }
      if (pass == 0) {
        for (int v = 0; v < nodes; v++) hs[v + 1] += hs[v];
        ht = new int[hs[nodes]];
        hf = Arrays.copyOf(hs, nodes);
      }
    }
    // The hints reversed: per node, the nodes whose hints go into it.
    int[] rs = new int[nodes + 1], rt = new int[ht.length];
    for (int e = 0; e < ht.length; e++) rs[ht[e] + 1]++;
    for (int v = 0; v < nodes; v++) rs[v + 1] += rs[v];
    int[] rf = Arrays.copyOf(rs, nodes);
    for (int v = 0; v < nodes; v++) for (int e = hs[v]; e < hs[v + 1]; e++) rt[rf[ht[e]]++] = v;
    int[] hardIn = new int[nodes], softIn = new int[nodes];
    for (int e = 0; e < target.length; e++) hardIn[target[e]]++;
    for (int e = 0; e < ht.length; e++) softIn[ht[e]]++;
    double max = 1;
    for (double e : est) max = Math.max(max, e);
    double scale = (1 << 30) / max;
    // Ties by session (its process, as text) and place in it, not by id: the file's order.
    int ns = h.sessionCount();
    String[] proc = new String[ns];
    for (int t = 0; t < n; t++) if (proc[h.session(t)] == null) proc[h.session(t)] = String.valueOf(h.process(t));
    Integer[] sessions = new Integer[ns];
    for (int i = 0; i < ns; i++) sessions[i] = i;
    Arrays.sort(sessions, (a, b) -> {
      int c = String.valueOf(proc[a]).compareTo(String.valueOf(proc[b]));
      return c != 0 ? c : Integer.compare(a, b);
    });
    int[] sessionStart = new int[ns + 1], sessionRank = new int[ns];
    for (int i = 0; i < ns; i++) sessionRank[sessions[i]] = i;
    for (int t = 0; t < n; t++) sessionStart[sessionRank[h.session(t)] + 1]++;
    for (int i = 0; i < ns; i++) sessionStart[i + 1] += sessionStart[i];
    int[] canon = new int[n], nodeOf = new int[nodes];
    for (int t = 0; t < n; t++) {
      int c = sessionStart[sessionRank[h.session(t)]]++;
      canon[t] = c;
      nodeOf[c] = t;
    }
    for (int v = n; v < nodes; v++) nodeOf[v] = v;
    long[] key = new long[nodes];
    for (int v = 0; v < nodes; v++) key[v] = v < n ? (long) (est[v] * scale) << 32 | canon[v] : v;
    isocheck.util.LongHeap ready = new isocheck.util.LongHeap(64), held = new isocheck.util.LongHeap(64);
    boolean[] done = new boolean[nodes];
    for (int v = 0; v < nodes; v++) {
      if (hardIn[v] == 0 && softIn[v] == 0) ready.push(key[v]);
      else if (hardIn[v] == 0) held.push(key[v]);
    }
    double[] place = new double[n];
    int k = 0;
    while (true) {
      int v;
      if (ready.size() > 0) v = nodeOf[(int) ready.pop()];
      else {
        while (held.size() > 0 && done[nodeOf[(int) held.peek()]]) held.pop();
        if (held.size() == 0) break;
        v = nodeOf[(int) held.pop()];
        // Not the hints into it, if one comes from a node held by hints itself: that one's first
        // (the hints form a cycle there, and the node furthest back in it goes).
        for (int steps = 0; steps < 64; steps++) {
          int u = -1; // (the least by key: not the file's order)
          for (int e = rs[v]; e < rs[v + 1]; e++) {
            int c = rt[e];
            if (!done[c] && hardIn[c] == 0 && c != v && (u < 0 || key[c] < key[u])) u = c;
          }
          if (u < 0) break;
          if (!done[v] && hardIn[v] == 0) held.push(key[v]);
          v = u;
        }
      }
      if (done[v]) continue;
      done[v] = true;
      if (v < n) place[v] = ++k;
      for (int e = start[v]; e < start[v + 1]; e++) {
        int w = target[e];
        if (--hardIn[w] == 0) {
          if (softIn[w] == 0) ready.push(key[w]);
          else held.push(key[w]);
        }
      }
      if (v < n) {
        for (int e = hs[v]; e < hs[v + 1]; e++) {
          int w = ht[e];
          if (--softIn[w] == 0 && hardIn[w] == 0 && !done[w]) ready.push(key[w]);
        }
      }
    }
    return place;
  }

  private static void edge(int pass, int[] start, int[] fill, int[] target, float[] weight, int a, int b, float w) {
    if (pass == 0) start[a + 1]++;
    else {
      target[fill[a]] = b;
      weight[fill[a]++] = w;
    }
  }

  /** Whether mop m is t's first write of its key. */
  private static boolean firstWrite(History h, int t, int m) {
    for (int i = h.mopStart(t); i < m; i++) if (h.mopKind(i) == OpRecord.WRITE && h.mopKey(i) == h.mopKey(m)) return false;
    return true;
  }

  /** Whether :ok transaction t reads key x's initial state (then it is the read-modify-write of ⊥, not after the gate). */
  private static boolean readsInitial(History h, int[] version, int t, int x) {
    if (!h.isOk(t)) return false;
    for (int m = h.mopStart(t); m < h.mopEnd(t); m++) {
      if (h.mopKind(m) == OpRecord.READ && h.mopKey(m) == x && version[m] == Polygraph.BOT) return true;
    }
    return false;
  }
}
