package isocheck.solver;

import java.util.Arrays;

/**
 * A cycle in the graph of an {@link AcyclicitySolver}: nodes n0 → n1 → … → n(k-1) → n0, and
 * for each step i (from {@code nodes[i]} to {@code nodes[(i+1) % k]}) the literal whose truth
 * puts that edge in the graph, or 0 for a known edge. A cycle of one node is a self-loop.
 */
public final class EdgeCycle {
  public final int[] nodes;
  public final int[] lits;

  public EdgeCycle(int[] nodes, int[] lits) {
    if (nodes.length != lits.length || nodes.length == 0) throw new IllegalArgumentException("bad cycle");
    this.nodes = nodes;
    this.lits = lits;
  }

  public int length() { return nodes.length; }

  /** Source of step i. */
  public int from(int i) { return nodes[i]; }

  /** Target of step i. */
  public int to(int i) { return nodes[(i + 1) % nodes.length]; }

  /** The distinct non-zero literals of the cycle's edges, in step order. */
  public int[] literals() {
    return Arrays.stream(lits).filter(l -> l != 0).distinct().toArray();
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < nodes.length; i++) {
      sb.append(nodes[i]).append(" -");
      sb.append(lits[i] == 0 ? "known" : Integer.toString(lits[i]));
      sb.append("-> ");
    }
    return sb.append(nodes[0]).toString();
  }
}
