package isocheck.graph;

import isocheck.history.History;
import isocheck.history.OpType;
import java.util.Arrays;

/**
 * Session-order and realtime edges.
 *
 * <p>Session order (SO): consecutive committed transactions of one Jepsen process. (A process
 * that completes with :info is gone; its thread continues under a new process, which is a new
 * session.)
 *
 * <p>Realtime order (RT): T → S when T completed (:ok) before S was invoked. Adding every such
 * pair costs O(n²) edges, so we add relay nodes instead (a frontier encoding that preserves
 * reachability): walking the history in order, completions seen since the previous invocation
 * join a new relay node, relays form a chain, and each invocation gets one edge from the newest
 * relay. Then T reaches S through relays exactly when T completed before S was invoked. An :info
 * transaction that committed may have done so at any time after its invocation, so it gets
 * incoming realtime edges only. Relay nodes are numbered from {@code h.nTxns}.
 */
public final class Orders {
  private Orders() {}

  public static void sessionOrder(History h, boolean[] committed, EdgeList es) {
    int[] last = new int[h.sessionCount()];
    Arrays.fill(last, -1);
    for (int t = 0; t < h.nTxns; t++) {
      if (!committed[t]) continue;
      int s = h.session(t);
      if (last[s] >= 0) es.add(last[s], t, Edge.SO);
      last[s] = t;
    }
  }

  /** Adds realtime edges through relay nodes; returns how many relay nodes it created. */
  public static int realtime(History h, boolean[] committed, EdgeList es) {
    int n = h.nTxns;
    // Completions of committed ok txns, in history order (txn ids follow completion order).
    int nc = 0;
    int[] comp = new int[n];
    for (int t = 0; t < n; t++) if (committed[t] && h.status(t) == OpType.OK && h.completeOrdinal(t) >= 0) comp[nc++] = t;
    // Invocations of committed txns, sorted by position.
    long[] inv = new long[n];
    int ni = 0;
    for (int t = 0; t < n; t++) {
      if (committed[t] && h.invokeOrdinal(t) >= 0) inv[ni++] = (h.invokeOrdinal(t) << 32) | t;
    }
    Arrays.sort(inv, 0, ni);
    int relays = 0, cur = -1, ci = 0;
    boolean open = false;
    for (int i = 0; i < ni; i++) {
      long io = inv[i] >>> 32;
      int s = (int) inv[i];
      while (ci < nc && h.completeOrdinal(comp[ci]) < io) {
        if (!open) {
          int r = n + relays++;
          if (cur >= 0) es.add(cur, r, Edge.RT);
          cur = r;
          open = true;
        }
        es.add(comp[ci], cur, Edge.RT);
        ci++;
      }
      open = false;
      if (cur >= 0) es.add(cur, s, Edge.RT);
    }
    return relays;
  }
}
