package isocheck.clock;

import java.util.Arrays;

/**
 * Tree clocks (Mathur, Pavlogiannis, Tunç, Viswanathan, ASPLOS'22, §4 and Algorithm 2), one per
 * node, as Plume §4.3 uses them: a node's clock is a tree over the sessions it knows, rooted at its
 * own session. A session v hanging under u with attach time a means "t learned v's entry from
 * node (u, a)": position a of session u already knew (v, clock(v)). Because each clock is final
 * before anyone joins from it, knowing (u, a) means knowing everything (u, a) knew, and so
 * <ul>
 *   <li>{@link #reaches} is one entry comparison, O(1);
 *   <li>{@link #join} walks the other tree from its root, skipping the subtree of every session
 *       this clock already knows as well, and stopping among u's children (newest attach first)
 *       at the first one that is known and was attached no later than this clock's old entry for
 *       u: it and all older siblings were already known through u. The updated sessions are then
 *       detached and re-attached as in the other tree, the other root under this root.
 * </ul>
 *
 * <p>Layout: four int arrays of nodes × sessions entries, row t·k for node t, indexed by session:
 * {@code clock} (the entry), {@code attach} (attach time), {@code child} (newest child) and
 * {@code sibling} (next older sibling), links being session numbers or {@link #NONE}; about 16
 * bytes an entry, 1.6 GB at 10^6 nodes × 100 sessions. The parent and previous-sibling links a
 * detach needs are kept only for the node being built, in k-sized scratch arrays. Entries of
 * sessions a clock does not know (clock 0) hold stale links that are never followed. The root's
 * attach slot, unused as an attach time, says whether the node has absorbed its session
 * predecessor.
 *
 * <p>One rule beyond {@link Clocks}: a node at position i &gt; 1 must first join position i-1 of its
 * own session (its SO predecessor), which copies that clock, before any other predecessor; until it
 * has, its own entry claims knowledge it does not have, and a pruned join would go wrong. Breaking
 * the rule, or joining a node that already knows t (a cycle), throws IllegalStateException; the
 * checker uses {@link VectorClocks} for cyclic CO.
 */
public final class TreeClocks implements Clocks {
  /** No session: the end of a child or sibling list, or the root's parent. */
  private static final int NONE = -1;
  /** Root attach-slot values: still waiting for the SO predecessor, or complete in its session. */
  private static final int WAITING = 0, ABSORBED = 1;

  private final int n, k;
  private final int[] clock, attach, child, sibling;
  /** Each node's own session (its tree's root), -1 until started. */
  private final int[] root;

  /** The node whose parent/prev links the scratch arrays hold, or NONE. */
  private int building = NONE;
  private final int[] parent, prev;
  /** The updated sessions of one join, parents before children, and the parent of each. */
  private final int[] order, from;
  /** Tree entries looked at by joins so far (copies included), for tests and the benchmark. */
  private long examined;

  public TreeClocks(int nodes, int sessions) {
    int e = ClockKind.entries("tree", nodes, sessions);
    this.n = nodes;
    this.k = sessions;
    this.clock = new int[e];
    this.attach = new int[e];
    this.child = new int[e];
    this.sibling = new int[e];
    this.root = new int[nodes];
    Arrays.fill(root, NONE);
    this.parent = new int[sessions];
    this.prev = new int[sessions];
    this.order = new int[sessions];
    this.from = new int[sessions];
  }

  @Override public void start(int t, int s, int index) {
    ClockKind.checkStart(t, s, index, k);
    int o = t * k;
    Arrays.fill(clock, o, o + k, 0);
    clock[o + s] = index;
    attach[o + s] = index == 1 ? ABSORBED : WAITING;
    child[o + s] = NONE;
    sibling[o + s] = NONE;
    root[t] = s;
    building = t;
    parent[s] = NONE;
    prev[s] = NONE;
  }

  @Override public void join(int t, int p) {
    if (p == t) return;
    int r = root[t], rp = root[p];
    if (r == NONE || rp == NONE) {
      throw new IllegalStateException("join(" + t + ", " + p + "): node " + (r == NONE ? t : p) + " was never started");
    }
    int o = t * k, index = clock[o + r];
    if (attach[o + r] == WAITING) {
      if (rp == r && clock[p * k + r] == index - 1) {
        copyTree(t, p);
        attach[o + r] = ABSORBED;
        clock[o + r] = index;
        return;
      }
      throw new IllegalStateException("join(" + t + ", " + p + "): node " + t + " is position " + index
          + " of session " + r + ", so its first join must be position " + (index - 1)
          + " of that session (its SO predecessor); tree clocks prune by it");
    }
    if (clock[p * k + r] >= index) {
      throw new IllegalStateException("join(" + t + ", " + p + "): node " + p + " already knows position "
          + clock[p * k + r] + " of session " + r + ", so it cannot precede node " + t
          + " (position " + index + "): a cycle; use vector clocks");
    }
    if (building != t) copyTree(t, t);
    mergeTree(t, p);
  }

  /**
   * Walks p's tree and copies it into t's row (nothing to copy when p == t), recording the parent
   * and previous-sibling links of t's tree in the scratch arrays.
   */
  private void copyTree(int t, int p) {
    int o = t * k, q = p * k, r = root[p];
    parent[r] = NONE;
    prev[r] = NONE;
    int top = 0;
    order[top++] = r;
    while (top > 0) {
      int u = order[--top];
      examined++;
      clock[o + u] = clock[q + u];
      attach[o + u] = attach[q + u];
      child[o + u] = child[q + u];
      sibling[o + u] = sibling[q + u];
      int before = NONE;
      for (int c = child[q + u]; c != NONE; c = sibling[q + c]) {
        parent[c] = u;
        prev[c] = before;
        before = c;
        order[top++] = c;
      }
    }
    building = t;
  }

  /** The tree-clock join of p into t (t's SO predecessor already absorbed, p not knowing t). */
  private void mergeTree(int t, int p) {
    int o = t * k, q = p * k, r = root[t], rp = root[p];
    examined++;
    if (clock[q + rp] <= clock[o + rp]) return;
    // The updated sessions of p's tree, breadth first: parents before children, and each parent's
    // updated children consecutive, newest attach first.
    order[0] = rp;
    from[0] = r;
    int m = 1;
    for (int i = 0; i < m; i++) {
      int u = order[i], known = clock[o + u];
      for (int c = child[q + u]; c != NONE; c = sibling[q + c]) {
        examined++;
        if (clock[o + c] < clock[q + c]) {
          order[m] = c;
          from[m++] = u;
        } else if (attach[q + c] <= known) {
          break;
        }
      }
    }
    for (int i = 0; i < m; i++) {
      if (clock[o + order[i]] != 0) detach(o, order[i]);
    }
    int lastParent = NONE, after = NONE;
    for (int i = 0; i < m; i++) {
      int v = order[i], u = from[i];
      if (clock[o + v] == 0) child[o + v] = NONE;
      clock[o + v] = clock[q + v];
      attach[o + v] = i == 0 ? clock[o + r] : attach[q + v];
      if (u != lastParent) {
        lastParent = u;
        after = NONE;
      }
      insert(o, v, u, after);
      after = v;
    }
  }

  /** Unlinks session v (not the root) from its parent's child list in row o. */
  private void detach(int o, int v) {
    int before = prev[v], next = sibling[o + v];
    if (before == NONE) child[o + parent[v]] = next;
    else sibling[o + before] = next;
    if (next != NONE) prev[next] = before;
  }

  /** Links session v under u in row o: first child when after is NONE, else right after it. */
  private void insert(int o, int v, int u, int after) {
    int next;
    if (after == NONE) {
      next = child[o + u];
      child[o + u] = v;
    } else {
      next = sibling[o + after];
      sibling[o + after] = v;
    }
    sibling[o + v] = next;
    prev[v] = after;
    if (next != NONE) prev[next] = v;
    parent[v] = u;
  }

  /**
   * Tree entries the joins have looked at so far: each entry copied from an SO predecessor, each
   * root compared and each child inspected by a tree join. A vector join looks at all k.
   */
  public long examined() { return examined; }

  /**
   * Node t's tree, for tests and debugging: {@code session=clock} for the root, then its children
   * newest first in braces, each as {@code session=clock@attach}; e.g. {@code 3=2{2=1@2, 1=2@1{0=2@2}}}.
   */
  public String tree(int t) {
    StringBuilder b = new StringBuilder();
    appendTree(b, t * k, root[t], false);
    return b.toString();
  }

  private void appendTree(StringBuilder b, int o, int u, boolean withAttach) {
    b.append(u).append('=').append(clock[o + u]);
    if (withAttach) b.append('@').append(attach[o + u]);
    if (child[o + u] == NONE) return;
    b.append('{');
    for (int c = child[o + u]; c != NONE; c = sibling[o + c]) {
      appendTree(b, o, c, true);
      if (sibling[o + c] != NONE) b.append(", ");
    }
    b.append('}');
  }

  @Override public int get(int t, int s) { return clock[t * k + s]; }

  @Override public int sessions() { return k; }

  /** Number of nodes (clocks). */
  public int nodes() { return n; }

  @Override public long bytes() {
    return 4L * (clock.length + attach.length + child.length + sibling.length + root.length
        + parent.length + prev.length + order.length + from.length);
  }

  @Override public String name() { return "tree"; }
}
