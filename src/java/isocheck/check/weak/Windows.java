package isocheck.check.weak;

import java.util.Arrays;

/**
 * Windows of transaction-id order that hold every cycle of a graph whose edges mostly point
 * forward (ids follow completion order, so reads-from, session and version-order edges usually
 * do). A cycle must come back down: for every id c from its lowest node up to (not including) its
 * highest, some edge of it goes from above c to c or below, a backward edge u → v with v ≤ c < u.
 * So the node ranges [v, u] of the backward edges (u ≥ v, self-loops included), merged where they
 * share a node, hold every cycle, and any path from a higher id to a lower one: both ends lie in
 * one window. Outside the windows every node is its own acyclic component, and id order, with each
 * window's nodes in a topological order of their own, is a topological order of the graph. So the
 * strongly-connected-components pass needs only the edges inside windows, which on a real
 * history (a read that completed before its writer did, now and then) are a few nodes wide.
 */
final class Windows {
  /** Per node, its window (numbered in id order), or -1 when it lies in none. */
  final int[] group;
  /** Windows, and the nodes they hold. */
  final int count, nodes;

  /** The windows of the backward edges fed to b. */
  private Windows(Builder b) {
    int n = b.reach.length;
    group = new int[n];
    int c = 0, in = 0, end = -1;
    for (int v = 0; v < n; v++) {
      int r = b.reach[v];
      if (v > end && r >= v) c++; // a window opens here
      if (r > end) end = r;
      if (v <= end) {
        group[v] = c - 1;
        in++;
      } else group[v] = -1;
    }
    count = c;
    nodes = in;
  }

  /** Whether a and b lie in one window (so a path between them may go backward). */
  boolean same(int a, int b) { return a >= 0 && b >= 0 && group[a] >= 0 && group[a] == group[b]; }

  /** Collects backward edges. */
  static final class Builder {
    /** Per node v, the highest u of a backward edge u → v, or -1. */
    final int[] reach;

    Builder(int n) {
      reach = new int[n];
      Arrays.fill(reach, -1);
    }

    /** Edge u → v (transactions; t⊥ and forward edges change nothing). */
    void edge(int u, int v) {
      if (v >= 0 && u >= v && u > reach[v]) reach[v] = u;
    }

    Windows build() { return new Windows(this); }
  }
}
