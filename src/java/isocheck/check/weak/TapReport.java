package isocheck.check.weak;

import isocheck.graph.Digraph;
import isocheck.graph.Edge;
import isocheck.history.History;
import isocheck.history.Kw;
import isocheck.report.Anomaly;
import isocheck.report.Data;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

/**
 * Explains TAP instances: the transactions and operations that form each one, in sentences a
 * database engineer can check by hand, with arrows for a picture (Plume Fig. 3's shapes: the
 * read t1 →WR(x) t3, how t2 precedes t3, the forced t2 →CM t1, and the path back from t1 to t2).
 * Paths are shortest (breadth-first), so each counterexample is as small as the graph allows.
 */
final class TapReport {
  private final WeakHistory wh;
  private final History h;
  private final CausalOrder co;
  private final int[] prev, prevMask, seen, queue;
  private int stamp;
  /** Transactions the sentences of the instance being built name (steps of chains, readers cited). */
  private final LinkedHashSet<Integer> mentioned = new LinkedHashSet<>();

  TapReport(WeakHistory wh, CausalOrder co) {
    this.wh = wh;
    this.h = wh.h;
    this.co = co;
    int n = wh.n;
    prev = new int[n];
    prevMask = new int[n];
    seen = new int[n];
    queue = new int[n];
  }

  // ------------------------------------------------------------------ names and facts

  private String name(int t) { return t == WeakHistory.BOT ? "the initial state" : h.name(t); }

  private String proc(int t) { return isocheck.history.Edn.str(h.process(t)); }

  private String readStr(int m) { return h.mopStr(m); }

  /** The op maps of the transactions involved (t⊥ omitted). */
  private List<Object> ops(int... ts) {
    LinkedHashSet<Integer> s = new LinkedHashSet<>();
    for (int t : ts) if (t >= 0) s.add(t);
    List<Object> l = new ArrayList<>();
    for (int t : s) l.add(Data.op(h, t));
    return l;
  }

  private static int[] txns(int... ts) {
    LinkedHashSet<Integer> s = new LinkedHashSet<>();
    for (int t : ts) if (t >= 0) s.add(t);
    int[] r = new int[s.size()];
    int i = 0;
    for (int t : s) r[i++] = t;
    return r;
  }

  private static Map<String, Object> arrow(String from, String to, String label, String style) {
    return Anomaly.map("from", from, "to", to, "label", label, "style", style);
  }

  private Anomaly anomaly(Tap tap, int[] ts, Map<String, Object> data, String text) {
    data.put("tap", String.valueOf(tap.letter));
    data.put("ops", ops(ts));
    return new Anomaly(tap.id, ts, data, text, null);
  }

  // ------------------------------------------------------------------ intra-transaction patterns

  Anomaly intra(Tap.Instance in) {
    int t = in.t3;
    String r = name(t) + " (process " + proc(t) + ")";
    // A long list is shown around the element the pattern is about.
    String read = h.mopStr(in.mop, in.elem);
    Map<String, Object> d = Anomaly.map("key", h.key(h.mopKey(in.mop)), "read", read);
    if (in.elem >= 0) d.put("position", (long) in.elem + 1);
    List<Object> arrows = new ArrayList<>();
    String text;
    switch (in.tap) {
      case THIN_AIR_READ:
        text = r + " read " + read + (in.elem >= 0 ? " (element " + (in.elem + 1) + ", counting from 1)" : "")
            + ", but no transaction wrote that value to key " + h.keyStr(h.mopKey(in.mop)) + ".";
        return anomaly(in.tap, txns(t), d, text);
      case ABORTED_READ:
        text = r + " read " + read + ", which " + name(in.t1) + " wrote in " + h.mopStr(in.mop2) + "; but "
            + name(in.t1) + " aborted (:fail), so no one may see its writes.";
        arrows.add(arrow(name(in.t1), name(t), "wr " + h.keyStr(h.mopKey(in.mop)), "solid"));
        break;
      case FUTURE_READ:
        text = r + " read " + read + ", a value it only wrote later, in " + h.mopStr(in.mop2) + ".";
        break;
      case NOT_MY_OWN_WRITE:
        text = r + " wrote key " + h.keyStr(h.mopKey(in.mop)) + (in.mop2 >= 0 ? " (" + h.mopStr(in.mop2) + ")" : "")
            + " and later read " + read + ", which " + name(in.t1)
            + (in.t1 == WeakHistory.BOT ? " holds" : " wrote") + ": a read after the transaction's own write must see that write.";
        if (in.t1 >= 0) arrows.add(arrow(name(in.t1), name(t), "wr " + h.keyStr(h.mopKey(in.mop)), "solid"));
        break;
      case NOT_MY_LAST_WRITE:
        text = r + " read " + read + ", its own write " + (in.mop2 >= 0 ? h.mopStr(in.mop2) + " " : "")
            + "but not its last one before the read" + (wh.list ? " (the list must end with the transaction's own appends so far, in order)" : "")
            + ".";
        break;
      case INTERMEDIATE_READ:
        text = r + " read " + read + ", which shows " + name(in.t1) + "'s " + h.mopStr(in.mop2) + "; but "
            + name(in.t1) + " wrote key " + h.keyStr(h.mopKey(in.mop)) + " again afterwards"
            + (wh.list ? " (its appends to a key are one atomic block, here cut short)" : "")
            + ", so " + name(t) + " saw a state " + name(in.t1) + " never committed.";
        arrows.add(arrow(name(in.t1), name(t), "wr " + h.keyStr(h.mopKey(in.mop)), "solid"));
        break;
      case DUPLICATE_ELEMENTS:
        text = r + " read " + read + ", which holds " + h.valueStr(h.mopVal(in.mop2)) + " twice; each append happens once.";
        break;
      case INCOMPATIBLE_ORDER:
        text = r + " read " + read + ", which is not a prefix of " + h.mopStr(in.mop2, in.elem) + " (read by "
            + name(h.mopTxn(in.mop2)) + "): they differ at position " + String.format("%,d", in.elem + 1) + " (counting from 1), so no single order of key "
            + h.keyStr(h.mopKey(in.mop)) + "'s appends explains both.";
        return anomaly(in.tap, txns(t, h.mopTxn(in.mop2)), d, text);
      case NON_REPEATABLE_READ:
        text = r + " read key " + h.keyStr(h.mopKey(in.mop)) + " twice, from two different transactions: " + read
            + " from " + name(in.t1) + ", then " + readStr(in.mop2) + " from " + name(in.t2) + ".";
        d.put("read", List.of(h.mopStr(in.mop), h.mopStr(in.mop2)));
        if (in.t1 >= 0) arrows.add(arrow(name(in.t1), name(t), "wr " + h.keyStr(h.mopKey(in.mop)), "solid"));
        if (in.t2 >= 0) arrows.add(arrow(name(in.t2), name(t), "wr " + h.keyStr(h.mopKey(in.mop)), "solid"));
        d.put("arrows", arrows);
        return anomaly(in.tap, txns(in.t1, in.t2, t), d, text);
      default:
        throw new IllegalStateException(in.tap.toString());
    }
    if (!arrows.isEmpty()) d.put("arrows", arrows);
    return anomaly(in.tap, txns(in.t1, t), d, text);
  }

  // ------------------------------------------------------------------ paths

  /** Shortest path a → … → b over edges in filter (inside component cid of comp, if comp given); nodes and step masks, or null. */
  int[][] path(Digraph g, int filter, int a, int b, int[] comp, int cid) {
    stamp++;
    int qh = 0, qt = 0;
    queue[qt++] = a;
    seen[a] = stamp;
    prev[a] = -1;
    boolean found = false;
    while (qh < qt && !found) {
      int u = queue[qh++];
      for (int e = g.start(u); e < g.end(u); e++) {
        if ((g.mask(e) & filter) == 0) continue;
        int v = g.target(e);
        if (comp != null && comp[v] != cid) continue;
        if (v == b && u != b) {
          prev[b] = u;
          prevMask[b] = g.mask(e) & filter;
          found = true;
          break;
        }
        if (seen[v] == stamp) continue;
        seen[v] = stamp;
        prev[v] = u;
        prevMask[v] = g.mask(e) & filter;
        queue[qt++] = v;
      }
    }
    if (!found) return null;
    ArrayList<Integer> ns = new ArrayList<>(), ms = new ArrayList<>();
    int v = b;
    ns.add(v);
    do {
      ms.add(prevMask[v]);
      v = prev[v];
      ns.add(v);
    } while (v != a);
    int[] nodes = new int[ns.size()], masks = new int[ms.size()];
    for (int i = 0; i < nodes.length; i++) nodes[i] = ns.get(nodes.length - 1 - i);
    for (int i = 0; i < masks.length; i++) masks[i] = ms.get(masks.length - 1 - i);
    return new int[][] {nodes, masks};
  }

  /** One sentence per step of a path, and its arrows. */
  private String steps(int[][] p, CommitOrder.Forced f, String level, List<Object> arrows, List<Object> stepData) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i + 1 < p[0].length; i++) {
      int a = p[0][i], b = p[0][i + 1], m = p[1][i];
      String s;
      String label;
      String style = "solid";
      if ((m & Edge.SO) != 0) {
        s = name(b) + " follows " + name(a) + " in process " + proc(a);
        label = "so";
      } else if ((m & Edge.WR) != 0) {
        int j = observation(a, b);
        int mop = j >= 0 ? cmObsMop(j) : -1;
        boolean last = j >= 0 && isReadsFrom(b, a, mop);
        String what = wh.list ? "append" : "write";
        s = mop < 0 ? name(b) + " observed " + name(a) + "'s " + what
            : name(b) + (last ? " read " : "'s read ") + h.mopStr(mop) + (last ? " from " + name(a) : " shows " + name(a) + "'s " + what);
        label = "wr" + (mop >= 0 ? " " + h.keyStr(h.mopKey(mop)) : "");
      } else if ((m & Edge.WW) != 0) {
        int wi = wwIndex(a, b);
        int x = wi >= 0 ? wh.wwKey.get(wi) : -1;
        s = wi >= 0 && wh.wwUnread.get(wi) == 1
            ? name(b) + "'s append to key " + h.keyStr(x) + " is in no read of it, so it comes after " + name(a) + "'s, the last one read"
            : "the order of " + (x >= 0 ? "key " + h.keyStr(x) : "a key") + "'s list puts " + name(a) + "'s appends before " + name(b) + "'s";
        label = "ww" + (x >= 0 ? " " + h.keyStr(x) : "");
      } else {
        int e = forcedIndex(f, a, b);
        int rfi = e >= 0 ? f.rf.get(e) : -1;
        if (rfi >= 0) rfiMentioned = txnOfRf(rfi);
        s = name(a) + " must commit before " + name(b) + " (under " + level + "): " + (rfi >= 0 ? name(txnOfRf(rfi)) + " read "
            + h.mopStr(wh.rfMop[rfi]) + " from " + name(b) + ", and " + name(a) + ", which also wrote key " + h.keyStr(wh.rfKey[rfi]) + ", "
            + viaText(a, txnOfRf(rfi), f.via.get(e)) + ", so " + name(txnOfRf(rfi)) + " should have seen " + name(a) + "'s write or a newer one"
            : "the level's rule orders them so");
        label = "cm";
        style = "dashed";
      }
      mentioned.add(a);
      mentioned.add(b);
      if (rfiMentioned >= 0) mentioned.add(rfiMentioned);
      rfiMentioned = -1;
      if (sb.length() > 0) sb.append(";\n");
      sb.append("  ").append(s);
      arrows.add(arrow(name(a), name(b), label, style));
      stepData.add(Anomaly.map("from", (long) h.displayIndex(a), "to", (long) h.displayIndex(b), "type", new Kw(label.split(" ")[0])));
    }
    return sb.toString();
  }

  private int rfiMentioned = -1;

  private int txnOfRf(int rfi) { return h.mopTxn(wh.rfMop[rfi]); }

  private CommitOrder cmForObs;

  void observations(CommitOrder cm) { this.cmForObs = cm; }

  private int observation(int a, int b) {
    if (cmForObs == null) return -1;
    CommitOrder.Obs ob = cmForObs.obs();
    for (int j = ob.start[b]; j < ob.start[b + 1]; j++) if (ob.writer[j] == a) return j;
    return -1;
  }

  private int cmObsMop(int j) { return cmForObs.obs().mop[j]; }

  private boolean isReadsFrom(int reader, int writer, int mop) {
    for (int i = wh.rfStart[reader]; i < wh.rfStart[reader + 1]; i++) if (wh.rfMop[i] == mop && wh.rfFrom[i] == writer) return true;
    return false;
  }

  private int wwIndex(int a, int b) {
    for (int i = 0; i < wh.wwSrc.size(); i++) if (wh.wwSrc.get(i) == a && wh.wwDst.get(i) == b) return i;
    return -1;
  }

  private final HashMap<CommitOrder.Forced, HashMap<Long, Integer>> forcedIndex = new HashMap<>();

  private int forcedIndex(CommitOrder.Forced f, int a, int b) {
    if (f == null) return -1;
    HashMap<Long, Integer> m = forcedIndex.computeIfAbsent(f, ff -> {
      HashMap<Long, Integer> mm = new HashMap<>();
      for (int i = ff.size() - 1; i >= 0; i--) mm.put(((long) ff.src.get(i) << 32) | ff.dst.get(i), i);
      return mm;
    });
    Integer i = m.get(((long) a << 32) | b);
    return i == null ? -1 : i;
  }

  /** How t2 precedes t3: in its session, by t3 observing it, or causally. */
  private String viaText(int t2, int t3, int via) {
    if (via == CommitOrder.SO_VIA) return "precedes " + name(t3) + " in process " + proc(t3);
    if (via >= 0) return "was observed by " + name(t3) + " in " + h.mopStr(via) + (via < 0 ? "" : "");
    return "causally precedes " + name(t3);
  }

  // ------------------------------------------------------------------ triangles

  /**
   * A commit-order triangle (h, i, k–n): t3 read x from t1 (read fact rfi), t2 wrote x and
   * precedes t3 (via), the level forces t2 →CM t1, and t1 precedes t2 (causally when coChain,
   * else in the level's commit-order graph g).
   */
  Anomaly triangle(Tap tap, int rfi, int t2, int via, boolean coChain, Digraph g, int[] comp, CommitOrder.Forced f, String level) {
    int t3 = txnOfRf(rfi), t1 = wh.rfFrom[rfi], mx = wh.rfMop[rfi], x = wh.rfKey[rfi];
    List<Object> arrows = new ArrayList<>(), stepData = new ArrayList<>();
    mentioned.clear();
    StringBuilder sb = new StringBuilder();
    String key = "key " + h.keyStr(x);
    sb.append(name(t3)).append(" (process ").append(proc(t3)).append(") read ").append(h.mopStr(mx)).append(": ")
        .append(t1 == WeakHistory.BOT ? "the initial state of " + key + ", before any write to it"
            : wh.list ? "the last append to " + key + " it shows is " + name(t1) + "'s" : "the value " + name(t1) + " wrote")
        .append(".\n");
    arrows.add(arrow(name(t1), name(t3), "wr " + h.keyStr(x), "solid"));
    int w2 = wh.lastWrite(t2, x);
    sb.append(name(t2)).append(" also wrote ").append(key).append(w2 >= 0 ? " (" + h.mopStr(w2) + ")" : "").append(", and ");
    int[] ts;
    if (via == CommitOrder.SO_VIA) {
      sb.append("ran before ").append(name(t3)).append(" in process ").append(proc(t3)).append(".\n");
      arrows.add(arrow(name(t2), name(t3), "so", "solid"));
    } else if (via >= 0) {
      sb.append(name(t3)).append(" had seen ").append(name(t2)).append("'s writes: its read ").append(h.mopStr(via)).append(" shows ")
          .append(name(t2)).append("'s ").append(wh.list ? "append" : "write").append(via < mx ? ", before it read " + key : "").append(".\n");
      arrows.add(arrow(name(t2), name(t3), "wr " + h.keyStr(h.mopKey(via)), "solid"));
    } else {
      int[][] p = path(co.succ(), Edge.SO | Edge.WR, t2, t3, null, 0);
      sb.append("causally precedes ").append(name(t3)).append(":\n");
      if (p != null) sb.append(steps(p, null, level, arrows, stepData)).append(".\n");
    }
    sb.append(rule(level, t2, t3, key)).append(" So ").append(name(t2)).append("'s write of ").append(key)
        .append(t1 == WeakHistory.BOT ? " must come before the initial state"
            : " must be ordered before " + name(t1) + "'s: " + name(t2) + " must commit before " + name(t1))
        .append(".\n");
    arrows.add(arrow(name(t2), name(t1), "cm", "dashed"));
    if (t1 == WeakHistory.BOT) {
      sb.append("But the initial state precedes every transaction: a contradiction.");
      ts = txns(concat(new int[] {t2, t3}, ints(mentioned)));
    } else {
      int[][] p = coChain ? path(co.succ(), Edge.SO | Edge.WR, t1, t2, null, 0)
          : path(g, Edge.SO | Edge.WR | Edge.WW | Edge.CM, t1, t2, comp, comp == null ? 0 : comp[t1]);
      sb.append("But ").append(name(t1)).append(coChain ? " causally precedes " : " must commit before ").append(name(t2)).append(":\n");
      if (p != null) sb.append(steps(p, f, level, arrows, stepData)).append(".\n");
      ts = txns(concat(new int[] {t1, t2, t3}, ints(mentioned)));
      sb.append("So ").append(name(t2)).append(" must commit both before and after ").append(name(t1)).append(": no commit order satisfies ")
          .append(level).append(" (").append(levelName(level)).append(").");
    }
    Map<String, Object> d = Anomaly.map("key", h.key(x), "read", h.mopStr(mx), "t1", t1 >= 0 ? (Object) (long) h.displayIndex(t1) : new Kw("init"),
        "t2", (long) h.displayIndex(t2), "t3", (long) h.displayIndex(t3), "level", new Kw(level), "steps", stepData, "arrows", arrows);
    return anomaly(tap, ts, d, sb.toString());
  }

  private static int[] concat(int[] a, int[] b) {
    int[] r = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, r, a.length, b.length);
    return r;
  }

  /**
   * The level's rule that orders t2's write before the one t3 read, in words (the paper's name of
   * the rule in parentheses): read committed's MonoAtomicView, read atomic's ReadAtomic, causal
   * consistency's Causal (Plume §3.1).
   */
  private String rule(String level, int t2, int t3, String key) {
    switch (level) {
      case "rc": return "Under rc (read committed), once a transaction has seen some of " + name(t2) + "'s writes, its later reads "
          + "must not show a state older than " + name(t2) + "'s (Plume's MonoAtomicView): " + name(t3) + "'s read of " + key
          + " must show " + name(t2) + "'s write or a newer one.";
      case "ra": return "Under ra (read atomic), a transaction that sees one of " + name(t2) + "'s writes must see all of them "
          + "(Plume's ReadAtomic): " + name(t3) + "'s read of " + key + " must show " + name(t2) + "'s write or a newer one.";
      default: return "Under tcc (causal consistency), a transaction must see every write that causally precedes it (Plume's Causal): "
          + name(t3) + "'s read of " + key + " must show " + name(t2) + "'s write or a newer one.";
    }
  }

  static String levelName(String level) {
    switch (level) {
      case "rc": return "read committed";
      case "ra": return "read atomic";
      case "ci": return "cut isolation";
      default: return "causal consistency";
    }
  }

  private static int[] ints(java.util.Collection<Integer> c) {
    int[] r = new int[c.size()];
    int i = 0;
    for (int x : c) r[i++] = x;
    return r;
  }

  // ------------------------------------------------------------------ cycles without a triangle

  /** A cycle of CO (TAP g) or of CO and list order (no forced edge), through component cid. */
  Anomaly cycle(Tap tap, Digraph g, int filter, int[] comp, int cid, int start) {
    int[][] p = null;
    // Shortest cycle through start: a path from a successor back to start.
    for (int e = g.start(start); e < g.end(start) && p == null; e++) {
      if ((g.mask(e) & filter) == 0 || comp[g.target(e)] != cid) continue;
      int v = g.target(e);
      if (v == start) {
        p = new int[][] {{start, start}, {g.mask(e) & filter}};
        break;
      }
      int[][] q = path(g, filter, v, start, comp, cid);
      if (q != null) {
        int[] nodes = new int[q[0].length + 1], masks = new int[q[1].length + 1];
        nodes[0] = start;
        masks[0] = g.mask(e) & filter;
        System.arraycopy(q[0], 0, nodes, 1, q[0].length);
        System.arraycopy(q[1], 0, masks, 1, q[1].length);
        p = new int[][] {nodes, masks};
      }
    }
    List<Object> arrows = new ArrayList<>(), stepData = new ArrayList<>();
    mentioned.clear();
    String text = tap == Tap.CYCLIC_CO ? "What these transactions read and the order of their processes form a cycle:\n"
        : "The order of a key's list contradicts the order in which these transactions saw each other's writes:\n";
    text += p == null ? "" : steps(p, null, "rc", arrows, stepData) + ".";
    Map<String, Object> d = Anomaly.map("steps", stepData, "arrows", arrows);
    int[] ts = p == null ? new int[] {start} : txns(concat(p[0], ints(mentioned)));
    return anomaly(tap, ts, d, text);
  }
}
