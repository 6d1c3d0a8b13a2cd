package isocheck.graph;

/**
 * A cycle (closed walk) in a dependency graph: nodes n0 → n1 → … → n(k-1) → n0, and the edge
 * type taken at each step ({@link Edge} bit). May pass through realtime relay nodes; see
 * {@link #withoutRelays}.
 */
public final class Cycle {
  public final int[] nodes;
  public final int[] labels;

  public Cycle(int[] nodes, int[] labels) {
    this.nodes = nodes;
    this.labels = labels;
  }

  public int length() { return nodes.length; }

  /** The same cycle with runs through relay nodes (ids ≥ firstRelay) folded into single realtime steps. */
  public Cycle withoutRelays(int firstRelay) {
    int k = nodes.length;
    int first = -1;
    for (int i = 0; i < k; i++) if (nodes[i] < firstRelay) { first = i; break; }
    if (first < 0) return this;
    int[] ns = new int[k], ls = new int[k];
    int m = 0;
    for (int j = 0; j < k; j++) {
      int i = (first + j) % k;
      if (nodes[i] >= firstRelay) continue;
      ns[m] = nodes[i];
      // The label is the edge's own, unless the step leads into a relay: then it is realtime.
      ls[m] = nodes[(i + 1) % k] >= firstRelay ? Edge.RT : labels[i];
      m++;
    }
    return new Cycle(java.util.Arrays.copyOf(ns, m), java.util.Arrays.copyOf(ls, m));
  }

  /** Whether no node repeats. */
  public boolean simple() {
    java.util.HashSet<Integer> seen = new java.util.HashSet<>();
    for (int v : nodes) if (!seen.add(v)) return false;
    return true;
  }

  /** Splits a closed walk into simple cycles (a simple cycle is returned as itself). */
  public java.util.List<Cycle> simpleCycles() {
    java.util.List<Cycle> out = new java.util.ArrayList<>();
    if (simple()) {
      out.add(this);
      return out;
    }
    int k = nodes.length;
    int[] sn = new int[k], sl = new int[k];
    int top = 0;
    java.util.HashMap<Integer, Integer> at = new java.util.HashMap<>();
    for (int i = 0; i <= k; i++) {
      int v = nodes[i % k];
      Integer j = at.get(v);
      if (j != null) {
        // nodes sn[j..top) with labels sl[j..top) close a cycle back to v.
        int len = top - j;
        out.add(new Cycle(java.util.Arrays.copyOfRange(sn, j, top), java.util.Arrays.copyOfRange(sl, j, top)));
        for (int x = j; x < top; x++) at.remove(sn[x]);
        top = j;
        if (len == 0) continue;
      }
      if (i == k) break;
      at.put(v, top);
      sn[top] = v;
      sl[top] = labels[i];
      top++;
    }
    return out;
  }

  public int count(int type) {
    int c = 0;
    for (int l : labels) if (l == type) c++;
    return c;
  }

  /** Whether two anti-dependency steps are adjacent (cyclically). */
  public boolean adjacentRw() {
    int k = labels.length;
    for (int i = 0; i < k; i++) if (labels[i] == Edge.RW && labels[(i + 1) % k] == Edge.RW) return true;
    return false;
  }

  /**
   * The Adya/Elle name of this cycle: G0 (write dependencies only), G1c (write and read
   * dependencies), G-single-item (exactly one anti-dependency), G-nonadjacent-item (several,
   * none adjacent), G2-item (adjacent anti-dependencies); "-process" when it needs a session-order
   * step, "-realtime" when it needs a realtime one.
   */
  public String anomalyType() {
    int rw = count(Edge.RW);
    String base;
    if (rw == 0) base = count(Edge.WR) > 0 ? "G1c" : "G0";
    else if (rw == 1) base = "G-single-item";
    else if (!adjacentRw()) base = "G-nonadjacent-item";
    else base = "G2-item";
    if (count(Edge.RT) > 0) return base + "-realtime";
    if (count(Edge.SO) > 0) return base + "-process";
    return base;
  }
}
