package isocheck.order;

import isocheck.graph.Edge;
import isocheck.history.History;
import isocheck.history.Kw;
import isocheck.history.OpRecord;
import isocheck.report.Anomaly;
import isocheck.report.Data;
import isocheck.report.Steps;

/**
 * Explains WW, WR and RW steps of a list-append history from its version orders. A long read
 * is shown abbreviated ({@link History#listStr(int, int, int)}) around the element the step is
 * about: the append observed, or the end of the state read (what an anti-dependency's append
 * would have followed).
 */
public final class ListAppendExplainer implements Steps.DataExplainer {
  private final ListAppendAnalysis la;
  private final History h;

  public ListAppendExplainer(ListAppendAnalysis la) {
    this.la = la;
    this.h = la.h;
  }

  @Override
  public Steps.Step explain(int a, int b, int type) {
    switch (type) {
      case Edge.WW: return ww(a, b);
      case Edge.WR: return wr(a, b);
      case Edge.RW: return rw(a, b);
      default: return null;
    }
  }

  private boolean isUnread(int k, int t) {
    int[] u = la.unread[k];
    if (u == null) return false;
    for (int x : u) if (x == t) return true;
    return false;
  }

  private String orderEvidence(int k) {
    int l = la.longest[k];
    if (l < 0) return "";
    int t = h.mopTxn(l);
    return h.mopLen(l) <= 12 ? " (" + h.name(t) + " read key " + h.keyStr(k) + " as " + h.listStr(l) + ")" : "";
  }

  private Steps.Step ww(int a, int b) {
    // An observed pair: in the order of a key b appended to, a's element is the last committed one before b's.
    for (int y = h.mopStart(b); y < h.mopEnd(b); y++) {
      if (h.mopKind(y) != OpRecord.APPEND || la.pos[y] <= 0) continue;
      int k = h.mopKey(y);
      for (int p = la.pos[y] - 1; p >= 0; p--) {
        int x = la.orderWriter(k, p);
        if (x < 0 || !la.committed[h.mopTxn(x)]) continue;
        if (h.mopTxn(x) != a) break;
        if (a == b) {
          if (x < y) continue; // in program order: look further back
          return new Steps.Step(Anomaly.map("type", new Kw("ww"), "key", h.key(k), "value", h.value(h.mopVal(x)),
              "value'", h.value(h.mopVal(y))),
              h.name(a) + " appended " + h.valueStr(h.mopVal(y)) + " and later " + h.valueStr(h.mopVal(x)) + " to key "
                  + h.keyStr(k) + ", yet the order of that key puts " + h.valueStr(h.mopVal(x)) + " first"
                  + orderEvidence(k) + ": its appends took effect out of program order");
        }
        return new Steps.Step(Anomaly.map("type", new Kw("ww"), "key", h.key(k), "value", h.value(h.mopVal(x)),
            "value'", h.value(h.mopVal(y))),
            h.name(a) + " appended " + h.valueStr(h.mopVal(x)) + " to key " + h.keyStr(k) + " before " + h.name(b)
                + " appended " + h.valueStr(h.mopVal(y)) + orderEvidence(k));
      }
    }
    // A read that is not a prefix of its key's longest one (incompatible-order): read
    // uncommitted's write orders include the orders such reads show (AdyaLevels.writeOrders).
    Steps.Step s = wwFromIncompatibleRead(a, b);
    if (s != null) return s;
    // A never-read append of b: it follows every observed append of its key, a's last one included.
    for (int y = h.mopStart(b); y < h.mopEnd(b); y++) {
      if (h.mopKind(y) != OpRecord.APPEND || la.pos[y] >= 0) continue;
      int k = h.mopKey(y);
      if (!isUnread(k, b)) continue;
      int x = -1;
      for (int m = h.mopStart(a); m < h.mopEnd(a); m++) {
        if (h.mopKind(m) == OpRecord.APPEND && h.mopKey(m) == k && la.pos[m] >= 0 && (x < 0 || la.pos[m] > la.pos[x])) x = m;
      }
      if (x < 0) continue;
      return new Steps.Step(Anomaly.map("type", new Kw("ww"), "key", h.key(k), "value", h.value(h.mopVal(x)),
          "value'", h.value(h.mopVal(y)), "unread", true),
          h.name(b) + "'s append of " + h.valueStr(h.mopVal(y)) + " to key " + h.keyStr(k)
              + " was never read, so it came after every observed append to that key, including " + h.name(a)
              + "'s " + h.valueStr(h.mopVal(x)));
    }
    return null;
  }

  /** Per key, the reads that are not a prefix of the key's longest read; built on first use. */
  private java.util.HashMap<Integer, java.util.List<Integer>> incompatibleReads;

  /**
   * a → b shown by a read that is not a prefix of its key's longest read: a's element
   * directly before b's among the committed writers' elements of that read (or, a == b, b's
   * later append before its earlier one).
   */
  private Steps.Step wwFromIncompatibleRead(int a, int b) {
    if (incompatibleReads == null) {
      incompatibleReads = new java.util.HashMap<>();
      for (int m = 0; m < h.mopCount(); m++) {
        if (la.incompatible[m]) incompatibleReads.computeIfAbsent(h.mopKey(m), k -> new java.util.ArrayList<>()).add(m);
      }
    }
    int[] pool = h.listPool();
    for (int y = h.mopStart(b); y < h.mopEnd(b); y++) {
      if (h.mopKind(y) != OpRecord.APPEND) continue;
      int k = h.mopKey(y);
      for (int m : incompatibleReads.getOrDefault(k, java.util.List.of())) {
        int off = h.mopVal(m), len = h.mopLen(m);
        int prev = -1; // the previous committed element's append mop
        for (int p = 0; p < len; p++) {
          int w = h.writerMop(k, pool[off + p]);
          if (w < 0 || !la.committed[h.mopTxn(w)]) continue;
          if (w == y && prev >= 0 && h.mopTxn(prev) == a && (a != b || prev > y)) {
            String read = h.name(h.mopTxn(m)) + " read key " + h.keyStr(k) + " as " + h.listStr(m, len, p);
            String text = a == b
                ? h.name(a) + " appended " + h.valueStr(h.mopVal(y)) + " and later " + h.valueStr(h.mopVal(prev)) + " to key "
                    + h.keyStr(k) + ", yet " + read + ", with " + h.valueStr(h.mopVal(prev)) + " first: its appends took effect out of program order"
                : read + ": " + h.name(a) + "'s append of " + h.valueStr(h.mopVal(prev)) + " comes right before " + h.name(b)
                    + "'s append of " + h.valueStr(h.mopVal(y)) + " (that read is not a prefix of the key's longest read: incompatible-order)";
            return new Steps.Step(Anomaly.map("type", new Kw("ww"), "key", h.key(k), "value", h.value(h.mopVal(prev)),
                "value'", h.value(h.mopVal(y)), "read", Data.mop(h, m)), text);
          }
          prev = w;
        }
      }
    }
    return null;
  }

  private Steps.Step wr(int a, int b) {
    int[] pool = h.listPool();
    for (int m = h.mopStart(b); m < h.mopEnd(b); m++) {
      int e = la.extLen[m];
      if (e <= 0) continue;
      int k = h.mopKey(m);
      // The last of a's appends among the first e elements.
      for (int j = e - 1; j >= 0; j--) {
        int v = pool[h.mopVal(m) + j];
        int w = h.writerMop(k, v);
        if (w >= 0 && h.mopTxn(w) == a) {
          return new Steps.Step(Anomaly.map("type", new Kw("wr"), "key", h.key(k), "value", h.value(v)),
              h.name(b) + " read key " + h.keyStr(k) + " as " + h.listStr(m, e, j) + ", observing " + h.name(a)
                  + "'s append of " + h.valueStr(v));
        }
      }
    }
    return null;
  }

  private Steps.Step rw(int a, int b) {
    for (int m = h.mopStart(a); m < h.mopEnd(a); m++) {
      int e = la.extLen[m];
      if (e < 0 || la.incompatible[m]) continue;
      int k = h.mopKey(m);
      for (int y = h.mopStart(b); y < h.mopEnd(b); y++) {
        if (h.mopKind(y) != OpRecord.APPEND || h.mopKey(y) != k) continue;
        if (la.pos[y] >= e) {
          return new Steps.Step(Anomaly.map("type", new Kw("rw"), "key", h.key(k), "value", Data.list(h, m, e),
              "value'", h.value(h.mopVal(y))),
              h.name(a) + " read key " + h.keyStr(k) + " as " + h.listStr(m, e, e - 1) + ", which does not include " + h.name(b)
                  + "'s append of " + h.valueStr(h.mopVal(y)));
        }
        if (la.pos[y] < 0 && isUnread(k, b)) {
          return new Steps.Step(Anomaly.map("type", new Kw("rw"), "key", h.key(k), "value", Data.list(h, m, e),
              "value'", h.value(h.mopVal(y)), "unread", true),
              h.name(a) + " read key " + h.keyStr(k) + " as " + h.listStr(m, e, e - 1) + "; " + h.name(b) + "'s append of "
                  + h.valueStr(h.mopVal(y)) + " was never read, so it came after that state");
        }
      }
    }
    return null;
  }
}
