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
import isocheck.report.Steps;
import isocheck.util.Ranges;
import java.util.Arrays;

/**
 * Pre-checks and the known dependencies of an rw-register history ([:w k v], [:r k v], nil the
 * initial value). Values are unique per key, so every read names its writer and write-read edges
 * are facts; the version order (hence WW and RW) is not observable and is left to a solver.
 *
 * <p>Pre-checks (each a named anomaly): internal (a read that disagrees with the txn's own
 * earlier write or read of the key), future-read (reading a value the txn writes later),
 * garbage-read (a value nobody wrote), G1a (a value only a failed txn wrote), G1b (a value its
 * writer overwrote within the same txn).
 */
public final class RegisterAnalysis implements Steps.DataExplainer {
  public final History h;
  public final boolean[] committed;
  /** Per read mop: true when it is the txn's first access of the key (an external read). */
  public final boolean[] external;
  /** Per external read of a non-nil value: the mop that wrote it, or -1 (none, or not an external read). */
  public final int[] writerOfRead;
  public final AnomalySet anomalies;
  /** Reads-from, one edge per external read of a committed transaction's write. */
  public final EdgeList edges;
  private final boolean[] finalWrite;

  /** Whether write mop m is its transaction's last write of the key. */
  public boolean isFinalWrite(int m) { return finalWrite[m]; }

  /** In {@link #versions}: the initial state; a mop that names no version. */
  public static final int INITIAL = -1, NO_VERSION = Integer.MIN_VALUE;

  private int[] versions;

  /**
   * Per mop, the version a read names for the version-order search: its writer transaction, or
   * {@link #INITIAL}; {@link #NO_VERSION} for writes and for the reads that name none. Only the
   * external reads of :ok transactions name one, and only a committed transaction's final write
   * of the key (other than the reader's own) or the initial state: the others are violations the
   * pre-checks report. Computed once, when first asked (the serial witness and the polygraph
   * builder both read it; random access into the writers, so it costs). Synchronized: a witness
   * schedule run ahead computes it on a thread of its own (isocheck.check.si.RegisterSearch).
   */
  public synchronized int[] versions() {
    if (versions != null) return versions;
    int[] out = new int[h.mopCount()];
    Arrays.fill(out, NO_VERSION);
    Ranges txns = new Ranges(h.nTxns);
    txns.forEach(c -> {
      for (int t = txns.from(c); t < txns.to(c); t++) {
        if (!h.isOk(t)) continue;
        for (int m = h.mopStart(t); m < h.mopEnd(t); m++) {
          if (h.mopKind(m) != OpRecord.READ || !external[m]) continue;
          if (h.mopVal(m) == History.NIL) {
            out[m] = INITIAL;
            continue;
          }
          int w = writerOfRead[m];
          if (w < 0) continue;
          int wt = h.mopTxn(w);
          if (wt == t || !committed[wt] || !finalWrite[w]) continue;
          out[m] = wt;
        }
      }
    });
    return versions = out;
  }

  public RegisterAnalysis(History h, int cap) {
    if (h.workload != History.Workload.REGISTER) throw new IllegalArgumentException("not an rw-register history");
    this.h = h;
    anomalies = new AnomalySet(cap);
    int nm = h.mopCount();
    committed = new boolean[h.nTxns];
    external = new boolean[nm];
    writerOfRead = new int[nm];
    java.util.Arrays.fill(writerOfRead, -1);
    finalWrite = new boolean[nm];
    for (int t = 0; t < h.nTxns; t++) if (h.isOk(t)) committed[t] = true;
    // Each range of transactions on a core of its own (isocheck.util.Ranges), its anomalies and
    // reads-from edges kept apart and joined in range order: the same result, in the same order,
    // whatever the number of cores. Final writes and external reads first, everywhere, since a
    // read's writer may lie in another range.
    Ranges txns = new Ranges(h.nTxns);
    Part[] parts = new Part[txns.count];
    txns.forEach(c -> {
      parts[c] = new Part();
      finalWrites(txns.from(c), txns.to(c));
      parts[c].externalReads = internal(txns.from(c), txns.to(c), parts[c].early);
    });
    txns.forEach(c -> {
      parts[c].edges = new EdgeList(parts[c].externalReads);
      reads(txns.from(c), txns.to(c), parts[c]);
    });
    int total = 0;
    for (Part p : parts) total += p.edges.size();
    // Sized once: growing it by doubling copied tens of millions of entries at 10^6 transactions.
    edges = new EdgeList(total);
    for (Part p : parts) {
      for (Anomaly a : p.early) anomalies.add(a);
    }
    for (Part p : parts) {
      for (Anomaly a : p.anomalies) anomalies.add(a);
      edges.addAll(p.edges);
    }
  }

  /** One range's results: its pre-checks' anomalies (internal and future reads, then the reads'), its edges. */
  private static final class Part {
    final java.util.ArrayList<Anomaly> early = new java.util.ArrayList<>(), anomalies = new java.util.ArrayList<>();
    int externalReads;
    EdgeList edges;

    Part() {}
  }

  /**
   * Transactions of at most this many micro-ops find a key's earlier (or later) micro-op by
   * scanning their own, in cache; longer ones use a per-key array of the range's own. At 10^6
   * transactions over 2 million keys, that array's random accesses (one cache miss a micro-op)
   * made the final writes and internal reads cost 0.4-1.0 s on two cores.
   */
  private static final int SCAN = 48;

  /** Marks each transaction's last write of each key, over transactions [from, to). */
  private void finalWrites(int from, int to) {
    int[] stamp = null;
    for (int t = from; t < to; t++) {
      int s = h.mopStart(t), e = h.mopEnd(t);
      if (e - s <= SCAN) {
        for (int m = s; m < e; m++) {
          if (h.mopKind(m) != OpRecord.WRITE) continue;
          int k = h.mopKey(m);
          boolean last = true;
          for (int a = m + 1; a < e; a++) {
            if (h.mopKey(a) == k && h.mopKind(a) == OpRecord.WRITE) {
              last = false;
              break;
            }
          }
          finalWrite[m] = last;
        }
        continue;
      }
      if (stamp == null) stamp = new int[h.keyCount()];
      for (int m = e - 1; m >= s; m--) {
        if (h.mopKind(m) != OpRecord.WRITE) continue;
        finalWrite[m] = stamp[h.mopKey(m)] != t + 1;
        stamp[h.mopKey(m)] = t + 1;
      }
    }
  }

  /**
   * Marks external reads and reports internal and future reads, over transactions [from, to);
   * returns how many external reads there are.
   */
  private int internal(int from, int to, java.util.List<Anomaly> found) {
    int externalReads = 0;
    // Per key: the transaction that last touched it (t + 1, high half) and the value it last
    // wrote or read (low half), in one long: one cache miss per micro-op, not two.
    long[] last = null;
    for (int t = from; t < to; t++) {
      if (!h.isOk(t)) continue;
      long mine = (long) (t + 1) << 32;
      int s = h.mopStart(t), e = h.mopEnd(t);
      boolean scan = e - s <= SCAN;
      if (!scan && last == null) last = new long[h.keyCount()];
      for (int m = s; m < e; m++) {
        int k = h.mopKey(m), v = h.mopVal(m);
        boolean first;
        long l;
        if (scan) {
          int a = m - 1;
          while (a >= s && h.mopKey(a) != k) a--;
          first = a < s;
          l = first ? 0 : h.mopVal(a);
        } else {
          l = last[k];
          first = (l & 0xffffffff00000000L) != mine;
          last[k] = mine | (v & 0xffffffffL);
        }
        if (h.mopKind(m) == OpRecord.WRITE) continue;
        if (first) {
          external[m] = true;
          externalReads++;
          for (int a = m + 1; a < e && v != History.NIL; a++) {
            if (h.mopKey(a) == k && h.mopKind(a) == OpRecord.WRITE && h.mopVal(a) == v) {
              found.add(new Anomaly("future-read", new int[] {t},
                  Anomaly.map("op", Data.op(h, t), "mop", Data.mop(h, m), "element", h.value(v)),
                  h.name(t) + " read key " + h.keyStr(k) + " = " + h.valueStr(v) + ", a value " + h.name(t)
                      + " itself wrote only later, in " + h.mopStr(a) + ".", null));
              break;
            }
          }
        } else if ((int) l != v) {
          int expected = (int) l;
          found.add(new Anomaly("internal", new int[] {t},
              Anomaly.map("op", Data.op(h, t), "mop", Data.mop(h, m), "expected", h.value(expected)),
              h.name(t) + " read key " + h.keyStr(k) + " = " + h.valueStr(v) + ", but its own earlier "
                  + (wroteBefore(t, k, m) ? "write" : "read") + " of that key says it should be " + h.valueStr(expected) + ".", null));
        }
      }
    }
    return externalReads;
  }

  /** Whether transaction t wrote key k before micro-op m (for messages). */
  private boolean wroteBefore(int t, int k, int m) {
    for (int a = h.mopStart(t); a < m; a++) if (h.mopKind(a) == OpRecord.WRITE && h.mopKey(a) == k) return true;
    return false;
  }

  /**
   * The writer of each external read of transactions [from, to), its reads-from edge, and the
   * reads no committed final write explains (garbage, aborted, intermediate). Writes only those
   * reads' entries, and committed[] for :info writers someone read (true, from any range).
   */
  private void reads(int from, int to, Part part) {
    // The writers first, in a loop of their own: its look-ups are independent of each other, so
    // the core overlaps their cache misses (0.7 s instead of 1.0 at 10^6 transactions).
    for (int m = h.mopStart(from), e = h.mopStart(to); m < e; m++) {
      if (!external[m]) continue;
      int v = h.mopVal(m);
      if (v == History.NIL) continue;
      writerOfRead[m] = h.writerMop(h.mopKey(m), v);
    }
    for (int m = h.mopStart(from), e = h.mopStart(to); m < e; m++) {
      if (!external[m]) continue;
      int v = h.mopVal(m);
      if (v == History.NIL) continue;
      int k = h.mopKey(m), r = h.mopTxn(m);
      int w = writerOfRead[m];
      if (w < 0) {
        part.anomalies.add(new Anomaly("garbage-read", new int[] {r},
            Anomaly.map("op", Data.op(h, r), "mop", Data.mop(h, m), "key", h.key(k), "element", h.value(v)),
            h.name(r) + " read key " + h.keyStr(k) + " = " + h.valueStr(v) + ", yet no transaction ever wrote "
                + h.valueStr(v) + " to that key: a value out of thin air.", null));
        continue;
      }
      int wt = h.mopTxn(w);
      if (wt == r) continue; // future read, reported above
      int st = h.status(wt);
      if (st == OpType.FAIL) {
        part.anomalies.add(new Anomaly("G1a", new int[] {r, wt},
            Anomaly.map("op", Data.op(h, r), "mop", Data.mop(h, m), "writer", Data.op(h, wt), "element", h.value(v)),
            h.name(r) + " read key " + h.keyStr(k) + " = " + h.valueStr(v) + ", written by " + h.name(wt)
                + ", whose op failed: an aborted read.", null));
        continue;
      }
      if (!finalWrite[w]) {
        part.anomalies.add(new Anomaly("G1b", new int[] {r, wt},
            Anomaly.map("op", Data.op(h, r), "mop", Data.mop(h, m), "writer", Data.op(h, wt), "element", h.value(v)),
            h.name(r) + " read key " + h.keyStr(k) + " = " + h.valueStr(v) + ", but " + h.name(wt)
                + " overwrote that value within the same transaction: an intermediate read.", null));
      }
      if (st == OpType.INFO) committed[wt] = true;
      part.edges.add(wt, r, Edge.WR);
    }
  }

  @Override
  public Steps.Step explain(int a, int b, int type) {
    if (type != Edge.WR) return null;
    for (int m = h.mopStart(b); m < h.mopEnd(b); m++) {
      if (!external[m] || h.mopVal(m) == History.NIL) continue;
      int w = h.writerMop(h.mopKey(m), h.mopVal(m));
      if (w >= 0 && h.mopTxn(w) == a) {
        return new Steps.Step(Anomaly.map("type", new Kw("wr"), "key", h.key(h.mopKey(m)), "value", h.value(h.mopVal(m))),
            h.name(b) + " read key " + h.keyStr(h.mopKey(m)) + " = " + h.valueStr(h.mopVal(m)) + ", written by " + h.name(a));
      }
    }
    return null;
  }
}
