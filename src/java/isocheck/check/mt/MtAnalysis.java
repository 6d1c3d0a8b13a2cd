package isocheck.check.mt;

import isocheck.graph.Edge;
import isocheck.graph.EdgeList;
import isocheck.history.History;
import isocheck.history.Kw;
import isocheck.history.OpRecord;
import isocheck.history.OpType;
import isocheck.order.RegisterAnalysis;
import isocheck.report.Anomaly;
import isocheck.report.AnomalySet;
import isocheck.report.Data;
import isocheck.report.Steps;
import isocheck.util.Ranges;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The dependency graph of a mini-transaction history: MTC (Wei et al., "Boosting End-to-End
 * Database Isolation Checking via Mini-Transactions", ext. version), §IV-B Algorithm 1
 * BuildDependency with the §IV-C optimisations (Theorems 1 and 2: no transitive closure of
 * write-write or session order).
 *
 * <p>Values are unique per key, so every read names its writer (WR). A read-modify-write, a
 * transaction whose first access of key x is a read of version V and which then writes x
 * (MTC Def. 8), installs its write directly after V in x's version order: its own read shows
 * nothing came between (Algorithm 1 lines 10-11). So per key the RMW links form chains, and
 * an RW edge goes from each reader of V to V's RMW child, never from that child itself (Def. 3,
 * T ≠ S: the digest's self-anti-dependency pitfall). Two RMW children of one version are MTC's
 * Divergence pattern (Def. 10, Lemma 1): a lost update, which every serializable and SI level
 * forbids, checked first for every level (the graph then stays linear: each reader gets RW
 * edges to at most two children).
 *
 * <p>A key's version order is <em>known</em> when its chains leave no choice. The chain from
 * the initial state ⊥ comes first (a version between T and the read-modify-write that read T
 * would be overwritten by it unseen: a cycle in every level here), so a key is ordered when
 * every committed write of it is a read-modify-write but at most one, the root of the one other
 * chain, which follows the last version of ⊥'s: a blind write, or an {@code :info}
 * transaction's write someone read (its read is unknown; it can only have read that last
 * version). That covers every key of an MT history (Def. 9), and keys written once. A second
 * root (blind write, or read {@code :info} writer) leaves the order of the chains open: that
 * key is <em>unordered</em>, and the general search decides it ({@link MtCheck}).
 *
 * <p>{@code :info} transactions: one whose writes nobody read is left out (it may have aborted,
 * and leaving out a writer nobody read removes constraints only); one whose write was read
 * committed (as {@link RegisterAnalysis} marks it), but its reads are unknown, so its writes
 * are chain roots. {@code :fail} transactions never committed.
 *
 * <p>Pre-checks (garbage, aborted, intermediate, future and internal reads) are
 * {@link RegisterAnalysis}'s; a read-modify-write whose read they flagged names no version and
 * roots a chain of its own.
 */
public final class MtAnalysis implements Steps.DataExplainer {
  /** A chain's parent: the initial state ⊥, or none known. */
  public static final int BOT = -1, NONE = -2;
  /** Why a committed write is where it is in its key's order. */
  public static final byte RMW = 0, BLIND = 1, INFO = 2, BAD_READ = 3;

  public final History h;
  public final RegisterAnalysis ra;
  public final boolean[] committed;
  /** WR, WW (parent → RMW child) and RW edges: built when first asked for ({@link #edges()}). */
  private EdgeList edges;
  /** Lost updates (the Divergence pattern), one per RMW child of a version beyond its first. */
  public final AnomalySet divergences;
  /** Per key: whether the history fixes its version order. */
  public final boolean[] ordered;
  /**
   * Per key: ordered, with no chain after ⊥'s but one from ⊥ itself (no root, or one and no
   * read-modify-write of ⊥): the keys whose order the general polygraph's own known edges
   * (read-modify-writes, reads of ⊥ before every write) already fix, so it needs no constraint.
   */
  public final boolean[] orderedByRmw;
  public final int nKeys;

  // Write slots: one per (committed transaction, key it writes), in transaction order.
  final int[] slotStart;
  final int[] slotKey, slotMop, slotParent, slotTxn;
  final byte[] slotWhy;
  /** Per slot: its first two RMW children (slots) and how many it has. */
  final int[] child1, child2, nChildren;
  /** The same for ⊥, per key. */
  final int[] botChild1, botChild2, botChildren;
  /** Per micro-op: the write slot of a committed transaction's final write of a key; else -1. */
  final int[] mopSlot;
  /** Per key: chain roots other than ⊥, and the first of them. */
  final int[] roots, firstRoot;
  /** Per key with one such root after a chain from ⊥: that chain's last writer (else BOT). */
  final int[] botTail;

  /** Counts for [:stats :mt]. */
  public long rmwWrites, blindWrites, infoRoots, badReadRoots, infoDropped, divergenceCount, versionsDiverged;
  public int unorderedKeys;
  /** The first unordered key and why, for the stats. */
  public String unorderedExample;

  public MtAnalysis(History h, RegisterAnalysis ra, int cap) {
    if (h.workload != History.Workload.REGISTER) throw new IllegalArgumentException("not an rw-register history");
    this.h = h;
    this.ra = ra;
    this.committed = ra.committed;
    this.nKeys = h.keyCount();
    int n = h.nTxns;
    for (int t = 0; t < n; t++) if (h.status(t) == OpType.INFO && !committed[t]) infoDropped++;
    // Pass 1: the write slots, each with its final write and the read that opened its key; a
    // range of transactions per core (isocheck.util.Ranges), each counted, then placed after the
    // ranges before it, then filled.
    slotStart = new int[n + 1];
    Ranges txns = new Ranges(n);
    int[] rangeSlots = new int[txns.count];
    // (A slot per key a transaction writes: its final write of the key, which the pre-checks
    // marked; no per-key array, whose random accesses cost a cache miss a micro-op.)
    txns.forEach(c -> {
      int total = 0;
      for (int t = txns.from(c); t < txns.to(c); t++) {
        slotStart[t] = total;
        if (!committed[t]) continue;
        for (int m = h.mopStart(t); m < h.mopEnd(t); m++) {
          if (h.mopKind(m) == OpRecord.WRITE && ra.isFinalWrite(m)) total++;
        }
      }
      rangeSlots[c] = total;
    });
    int total = 0;
    for (int c = 0; c < txns.count; c++) {
      txns.shift(slotStart, c, total);
      total += rangeSlots[c];
    }
    slotStart[n] = total;
    slotKey = new int[total];
    slotMop = new int[total];
    slotParent = new int[total];
    slotTxn = new int[total];
    slotWhy = new byte[total];
    int[] slotRead = new int[total];
    mopSlot = new int[h.mopCount()];
    java.util.Arrays.fill(mopSlot, -1);
    txns.forEach(c -> {
      int[] stamp = null, lastWrite = null, firstRead = null;
      int[] keyBuf = new int[16];
      for (int t = txns.from(c); t < txns.to(c); t++) {
        if (!committed[t]) continue;
        int nk = 0, s = slotStart[t];
        int ms = h.mopStart(t), me = h.mopEnd(t);
        boolean ok = h.isOk(t);
        if (me - ms <= 48) {
          // Short: each key's first write, its final write and the key's first access found by
          // scanning the transaction (in cache), in the order of the first writes, as below.
          for (int m = ms; m < me; m++) {
            if (h.mopKind(m) != OpRecord.WRITE) continue;
            int k = h.mopKey(m), first = ms;
            while (first < m && h.mopKey(first) != k) first++;
            boolean firstWrite = true;
            for (int a = first; a < m && firstWrite; a++) firstWrite = h.mopKey(a) != k || h.mopKind(a) != OpRecord.WRITE;
            if (!firstWrite) continue;
            int last = m;
            while (!ra.isFinalWrite(last)) {
              last++;
              while (h.mopKey(last) != k || h.mopKind(last) != OpRecord.WRITE) last++;
            }
            int fr = h.mopKind(first) == OpRecord.READ ? first : -1;
            slotKey[s] = k;
            slotTxn[s] = t;
            slotMop[s] = last;
            mopSlot[last] = s;
            slotRead[s] = ok ? fr : -1;
            slotWhy[s] = !ok ? INFO : fr < 0 ? BLIND : RMW;
            s++;
          }
          continue;
        }
        if (stamp == null) {
          stamp = new int[nKeys];
          lastWrite = new int[nKeys];
          firstRead = new int[nKeys];
        }
        for (int m = ms; m < me; m++) {
          int k = h.mopKey(m);
          if (stamp[k] != t + 1) {
            stamp[k] = t + 1;
            firstRead[k] = h.mopKind(m) == OpRecord.READ ? m : -1;
            lastWrite[k] = -1;
          }
          if (h.mopKind(m) == OpRecord.WRITE) {
            if (lastWrite[k] < 0) {
              if (nk == keyBuf.length) keyBuf = java.util.Arrays.copyOf(keyBuf, nk * 2);
              keyBuf[nk++] = k;
            }
            lastWrite[k] = m;
          }
        }
        for (int i = 0; i < nk; i++) {
          int k = keyBuf[i];
          slotKey[s] = k;
          slotTxn[s] = t;
          slotMop[s] = lastWrite[k];
          mopSlot[lastWrite[k]] = s;
          slotRead[s] = ok ? firstRead[k] : -1;
          slotWhy[s] = !ok ? INFO : firstRead[k] < 0 ? BLIND : RMW;
          s++;
        }
      }
    });
    // Pass 2: each read-modify-write's parent version (a slot, or ⊥): looked up on both cores
    // (a range of slots each; every slot exists by now), then, in slot order, the children and
    // the roots.
    int[] parentSlot = new int[total];
    Ranges slots = new Ranges(total);
    slots.forEach(c -> {
      for (int x = slots.from(c); x < slots.to(c); x++) {
        int vs = slotWhy[x] == RMW ? versionSlot(slotRead[x]) : NONE;
        if (slotWhy[x] == RMW && vs == NONE) slotWhy[x] = BAD_READ;
        parentSlot[x] = vs;
        slotParent[x] = vs >= 0 ? slotTxn[vs] : vs;
      }
    });
    child1 = new int[total];
    child2 = new int[total];
    nChildren = new int[total];
    botChild1 = new int[nKeys];
    botChild2 = new int[nKeys];
    botChildren = new int[nKeys];
    roots = new int[nKeys];
    firstRoot = new int[nKeys];
    java.util.Arrays.fill(firstRoot, -1);
    for (int x = 0; x < total; x++) {
      int k = slotKey[x], vs = parentSlot[x];
      switch (slotWhy[x]) {
        case RMW: rmwWrites++; break;
        case BLIND: blindWrites++; break;
        case INFO: infoRoots++; break;
        default: badReadRoots++;
      }
      if (vs == NONE) {
        if (roots[k]++ == 0) firstRoot[k] = x;
      } else if (vs == BOT) {
        if (botChildren[k] == 0) botChild1[k] = x;
        else if (botChildren[k] == 1) botChild2[k] = x;
        botChildren[k]++;
      } else {
        if (nChildren[vs] == 0) child1[vs] = x;
        else if (nChildren[vs] == 1) child2[vs] = x;
        nChildren[vs]++;
      }
    }
    ordered = new boolean[nKeys];
    orderedByRmw = new boolean[nKeys];
    botTail = new int[nKeys];
    for (int k = 0; k < nKeys; k++) {
      // The chain from ⊥ comes first; one other chain can only follow it.
      ordered[k] = roots[k] <= 1;
      orderedByRmw[k] = roots[k] == 0 || (roots[k] == 1 && botChildren[k] == 0);
      botTail[k] = BOT;
      if (roots[k] == 1 && botChildren[k] > 0) {
        int x = botChild1[k];
        while (nChildren[x] > 0) x = child1[x];
        botTail[k] = slotTxn[x];
      }
      if (!ordered[k]) {
        unorderedKeys++;
        if (unorderedExample == null) unorderedExample = unorderedReason(k);
      }
    }
    divergences = new AnomalySet(cap);
    for (int x = 0; x < total; x++) {
      int vs = parentSlot[x], k = slotKey[x];
      if (vs == NONE) continue;
      int nc = vs == BOT ? botChildren[k] : nChildren[vs];
      int first = vs == BOT ? botChild1[k] : child1[vs];
      if (nc < 2) continue;
      if (first == x) {
        versionsDiverged++;
        continue;
      }
      divergenceCount++;
      divergences.add(lostUpdate(k, slotParent[x], slotTxn[first], slotTxn[x]));
    }
  }

  /**
   * WR (the pre-checks' reads-from), WW (parent → read-modify-write child) and RW (reader →
   * child) edges, built on the first call. Only the mini-transaction verdicts and the chain
   * polygraph use them: a history the general search decides (most keys written blind, say)
   * never builds them, which at 10^6 transactions saves a pass over every read and a list of
   * tens of millions of edges.
   */
  public EdgeList edges() {
    if (edges != null) return edges;
    int total = slotKey.length;
    EdgeList wr = ra.edges;
    EdgeList edges = new EdgeList(wr.size() * 3 + total + 16);
    for (int i = 0; i < wr.size(); i++) edges.add(wr.src(i), wr.dst(i), wr.type(i));
    for (int x = 0; x < total; x++) if (slotParent[x] >= 0) edges.add(slotParent[x], slotTxn[x], Edge.WW);
    for (int k = 0; k < nKeys; k++) if (botTail[k] != BOT) edges.add(botTail[k], slotTxn[firstRoot[k]], Edge.WW);
    for (int m = 0; m < h.mopCount(); m++) {
      if (!ra.external[m]) continue;
      int r = h.mopTxn(m), k = h.mopKey(m), vs = versionSlot(m);
      if (vs == NONE) continue;
      int c1, c2, nc;
      if (vs == BOT) {
        nc = botChildren[k];
        c1 = botChild1[k];
        c2 = botChild2[k];
        if (nc == 0 && roots[k] == 1) {
          // ⊥'s only successor is the one chain root.
          int root = slotTxn[firstRoot[k]];
          if (root != r) edges.add(r, root, Edge.RW);
          continue;
        }
      } else {
        nc = nChildren[vs];
        c1 = child1[vs];
        c2 = child2[vs];
      }
      if (nc >= 1 && slotTxn[c1] != r) edges.add(r, slotTxn[c1], Edge.RW);
      if (nc >= 2 && slotTxn[c2] != r) edges.add(r, slotTxn[c2], Edge.RW);
      if (vs >= 0 && roots[k] == 1 && botTail[k] == slotTxn[vs] && nc == 0) {
        // The last version of ⊥'s chain, followed by the one other chain.
        int root = slotTxn[firstRoot[k]];
        if (root != r) edges.add(r, root, Edge.RW);
      }
    }
    this.edges = edges;
    return edges;
  }

  /**
   * The version an external read mop names, as a write slot: BOT for nil; the slot of the
   * writer's final write of the key when the writer committed and is another transaction;
   * else NONE (the pre-checks flagged it).
   */
  int versionSlot(int m) {
    int v = h.mopVal(m);
    if (v == History.NIL) return BOT;
    int w = ra.external[m] ? ra.writerOfRead[m] : h.writerMop(h.mopKey(m), v);
    if (w < 0) return NONE;
    int vs = mopSlot[w];
    return vs < 0 || slotTxn[vs] == h.mopTxn(m) ? NONE : vs;
  }

  /** Transaction of write slot x. */
  int txnOf(int x) { return slotTxn[x]; }

  /** Transaction t's write slot of key k, or -1. */
  int slotOf(int t, int k) {
    for (int x = slotStart[t]; x < slotStart[t + 1]; x++) if (slotKey[x] == k) return x;
    return -1;
  }

  /** The version an external read mop names, as its writer: BOT, a transaction, or NONE ({@link #versionSlot}). */
  int version(int m) {
    int vs = versionSlot(m);
    return vs >= 0 ? slotTxn[vs] : vs;
  }

  private String unorderedReason(int k) {
    StringBuilder sb = new StringBuilder("key ").append(h.keyStr(k)).append(": ");
    List<String> why = new ArrayList<>();
    int shown = 0;
    for (int x = 0; x < slotKey.length && shown < 2; x++) {
      if (slotKey[x] != k || slotParent[x] != NONE) continue;
      int t = txnOf(x);
      shown++;
      switch (slotWhy[x]) {
        case BLIND: why.add(h.name(t) + " wrote it without reading it first"); break;
        case INFO: why.add(h.name(t) + " is :info (its write was read, its own read is unknown)"); break;
        default: why.add(h.name(t) + "'s read of it names no committed version");
      }
    }
    sb.append(String.join(", and ", why));
    sb.append(roots[k] > 2 ? String.format(" (%,d such writes)", roots[k]) : "");
    return sb.append(", so the order of its writes is not in the history").toString();
  }

  // ------------------------------------------------------------------ lost updates

  private Anomaly lostUpdate(int k, int version, int a, int b) {
    String ver = version == BOT ? "nil, the initial value" : h.valueStr(h.mopVal(slotMop[slotOf(version, k)])) + ", " + h.name(version) + "'s write";
    String verNode = version == BOT ? "init" : h.name(version);
    String key = h.keyStr(k);
    List<Object> arrows = new ArrayList<>();
    arrows.add(Anomaly.map("from", verNode, "to", h.name(a), "label", "ww " + key));
    arrows.add(Anomaly.map("from", verNode, "to", h.name(b), "label", "ww " + key));
    arrows.add(Anomaly.map("from", h.name(a), "to", h.name(b), "label", "rw " + key));
    arrows.add(Anomaly.map("from", h.name(b), "to", h.name(a), "label", "rw " + key));
    Map<String, Object> data = Anomaly.map("key", h.key(k), "ops", Data.ops(h, a, b), "mtc", "LostUpdate");
    if (version != BOT) data.put("writer", Data.op(h, version));
    data.put("arrows", arrows);
    int[] txns = version == BOT ? new int[] {a, b} : new int[] {a, b, version};
    return new Anomaly("lost-update", txns, data,
        h.name(a) + " and " + h.name(b) + " both read key " + key + " = " + ver + ", and both "
            + "wrote it (" + valueOf(a, k) + " and " + valueOf(b, k) + "). Whichever committed "
            + "second overwrote a write it never saw: a lost update (LostUpdate in MTC, which finds it by its Divergence "
            + "check). As a cycle, each read the version the other "
            + "overwrote (" + h.name(a) + " rw→ " + h.name(b) + " rw→ " + h.name(a) + "). Every serializable and "
            + "snapshot-isolation level forbids it.", null);
  }

  private String valueOf(int t, int k) {
    int x = slotOf(t, k);
    return x < 0 ? "?" : h.valueStr(h.mopVal(slotMop[x]));
  }

  // ------------------------------------------------------------------ explanations

  @Override
  public Steps.Step explain(int a, int b, int type) {
    if (type == Edge.WR) return ra.explain(a, b, type);
    if (type == Edge.WW) {
      for (int x = slotStart[b]; x < slotStart[b + 1]; x++) {
        int k = slotKey[x];
        if (slotParent[x] == a) {
          return step(type, k, h.name(b) + " read key " + h.keyStr(k) + " = " + valueOf(a, k) + ", " + h.name(a)
              + "'s write, and then wrote it (" + valueOf(b, k) + "), so " + h.name(a) + "'s write came just before "
              + h.name(b) + "'s");
        }
        if (slotParent[x] == NONE && botTail[k] == a) {
          return step(type, k, h.name(a) + "'s write of key " + h.keyStr(k) + " (" + valueOf(a, k) + ") is the last of the "
              + "read-modify-writes that follow the initial value, which come first; " + h.name(b) + "'s ("
              + valueOf(b, k) + ") is the key's one other write that no read-modify-write read, so it comes after");
        }
      }
      return null;
    }
    if (type != Edge.RW) return null;
    for (int m = h.mopStart(a); m < h.mopEnd(a); m++) {
      if (!ra.external[m]) continue;
      int k = h.mopKey(m), v = version(m);
      if (v == NONE) continue;
      int x = slotOf(b, k);
      if (x < 0) continue;
      String read = h.name(a) + " read key " + h.keyStr(k) + " = "
          + (v == BOT ? "nil, the initial value" : valueOf(v, k) + ", " + h.name(v) + "'s write");
      if (slotParent[x] == v) {
        return step(type, k, read + ", which " + h.name(b) + " read too and then overwrote (" + valueOf(b, k) + ")");
      }
      if (v == BOT && slotParent[x] == NONE && roots[k] == 1 && botChildren[k] == 0) {
        return step(type, k, read + ", and " + h.name(b) + "'s write of it (" + valueOf(b, k)
            + ") is the first that follows the initial value");
      }
      if (v != BOT && slotParent[x] == NONE && roots[k] == 1 && botTail[k] == v) {
        return step(type, k, read + ", the last of the read-modify-writes that follow the initial value, and "
            + h.name(b) + "'s write of it (" + valueOf(b, k) + ") comes after them");
      }
    }
    return null;
  }

  private Steps.Step step(int type, int k, String text) {
    return new Steps.Step(Anomaly.map("type", new Kw(Edge.name(type)), "key", h.key(k)), text);
  }

  /** Stats for [:stats :mt]. */
  public Map<String, Object> stats() {
    Map<String, Object> m = new java.util.LinkedHashMap<>();
    m.put("keys", (long) nKeys);
    m.put("ordered-keys", (long) (nKeys - unorderedKeys));
    if (unorderedKeys > 0) m.put("unordered-keys", (long) unorderedKeys);
    m.put("rmw-writes", rmwWrites);
    if (blindWrites > 0) m.put("blind-writes", blindWrites);
    if (infoRoots > 0) m.put("info-writes-read", infoRoots);
    if (infoDropped > 0) m.put("info-dropped", infoDropped);
    if (badReadRoots > 0) m.put("bad-read-writes", badReadRoots);
    if (divergenceCount > 0) m.put("divergences", divergenceCount);
    return m;
  }
}
