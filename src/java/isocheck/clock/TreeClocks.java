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
 * <p>Layout: one int array, four ints an entry (clock, attach time, newest child, next older
 * sibling; links are session numbers or {@link #NONE}), k entries a node, so 16 bytes an entry:
 * 1.6 GB at 10^6 nodes × 100 sessions. A node's row is contiguous, so the first join, a copy of
 * the SO predecessor, is one arraycopy. The parent and previous-sibling links a detach needs are
 * kept only for the node being built, in k-sized scratch arrays filled on demand. Entries of
 * sessions a clock does not know (clock 0) hold stale links that are never followed. The root's
 * attach slot, unused as an attach time, says whether the node has absorbed its SO predecessor.
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
  /** Field offsets within an entry, and the entry width as a shift. */
  private static final int CLOCK = 0, ATTACH = 1, CHILD = 2, SIBLING = 3, SHIFT = 2;
  /** Root attach-slot values: still waiting for the SO predecessor, or complete in its session. */
  private static final int WAITING = 0, ABSORBED = 1;

  private final int n, k;
  /** Entry (t, s) starts at (t·k + s) << SHIFT. */
  private final int[] e;
  /** Each node's own session (its tree's root), NONE until started. */
  private final int[] root;

  /** The node whose tree the parent/prev scratch links describe, or NONE. */
  private int indexed = NONE;
  private final int[] parent, prev;
  /** The updated sessions of one join, parents before children, and the parent of each. */
  private final int[] order, from;
  /** The walk stack of {@link #index}, apart from order because a join indexes mid-way. */
  private final int[] stack;
  /** Predecessor entries looked at, and own entries walked to index, for tests and the benchmark. */
  private long examined, walked;

  public TreeClocks(int nodes, int sessions) {
    this.e = new int[ClockKind.entries("tree", nodes, sessions, 1 << SHIFT)];
    this.n = nodes;
    this.k = sessions;
    this.root = new int[nodes];
    Arrays.fill(root, NONE);
    this.parent = new int[sessions];
    this.prev = new int[sessions];
    this.order = new int[sessions];
    this.from = new int[sessions];
    this.stack = new int[sessions];
  }

  /** Where node t's row starts in {@link #e}; session s's entry is at row + (s << SHIFT). */
  private int row(int t) { return (t * k) << SHIFT; }

  @Override public void start(int t, int s, int index) {
    ClockKind.checkStart(t, s, index, k);
    int o = row(t), x = o + (s << SHIFT);
    for (int i = o + CLOCK; i < o + (k << SHIFT); i += 1 << SHIFT) e[i] = 0;
    e[x + CLOCK] = index;
    e[x + ATTACH] = index == 1 ? ABSORBED : WAITING;
    e[x + CHILD] = NONE;
    e[x + SIBLING] = NONE;
    root[t] = s;
    if (indexed == t) indexed = NONE;
  }

  @Override public void join(int t, int p) {
    if (p == t) return;
    int r = root[t], rp = root[p];
    if (r == NONE || rp == NONE) {
      throw new IllegalStateException("join(" + t + ", " + p + "): node " + (r == NONE ? t : p) + " was never started");
    }
    int x = row(t) + (r << SHIFT), index = e[x + CLOCK], known = e[row(p) + (r << SHIFT) + CLOCK];
    if (e[x + ATTACH] == WAITING) {
      if (rp != r || known != index - 1) {
        throw new IllegalStateException("join(" + t + ", " + p + "): node " + t + " is position " + index
            + " of session " + r + ", so its first join must be position " + (index - 1)
            + " of that session (its SO predecessor); tree clocks prune by it");
      }
      System.arraycopy(e, row(p), e, row(t), k << SHIFT);
      examined += k;
      e[x + CLOCK] = index;
      e[x + ATTACH] = ABSORBED;
      if (indexed == t) indexed = NONE;
      return;
    }
    if (known >= index) {
      throw new IllegalStateException("join(" + t + ", " + p + "): node " + p + " already knows position "
          + known + " of session " + r + ", so it cannot precede node " + t + " (position " + index
          + "): a cycle; use vector clocks");
    }
    merge(t, p);
  }

  /** The tree-clock join of p into t (t's SO predecessor already absorbed, p not knowing t). */
  private void merge(int t, int p) {
    int o = row(t), q = row(p), r = root[t], rp = root[p];
    examined++;
    if (e[q + (rp << SHIFT) + CLOCK] <= e[o + (rp << SHIFT) + CLOCK]) return;
    // The updated sessions of p's tree, breadth first: parents before children, and each parent's
    // updated children consecutive, newest attach first.
    order[0] = rp;
    from[0] = r;
    int m = 1;
    boolean moves = false;
    long limit = examined + k;  // a tree has k - 1 children at most: more means a corrupt tree
    for (int i = 0; i < m; i++) {
      int u = order[i], known = e[o + (u << SHIFT) + CLOCK];
      moves |= known != 0;
      for (int c = e[q + (u << SHIFT) + CHILD]; c != NONE; c = e[q + (c << SHIFT) + SIBLING]) {
        if (++examined > limit) throw new IllegalStateException("tree clock of node " + p + " is corrupt (a loop)");
        int y = q + (c << SHIFT);
        if (e[o + (c << SHIFT) + CLOCK] < e[y + CLOCK]) {
          order[m] = c;
          from[m++] = u;
        } else if (e[y + ATTACH] <= known) {
          break;
        }
      }
    }
    if (moves) {
      if (indexed != t) index(t);
      for (int i = 0; i < m; i++) {
        if (e[o + (order[i] << SHIFT) + CLOCK] != 0) detach(o, order[i]);
      }
    }
    int lastParent = NONE, after = NONE;
    for (int i = 0; i < m; i++) {
      int v = order[i], u = from[i], x = o + (v << SHIFT), y = q + (v << SHIFT);
      if (e[x + CLOCK] == 0) e[x + CHILD] = NONE;
      e[x + CLOCK] = e[y + CLOCK];
      e[x + ATTACH] = i == 0 ? e[o + (r << SHIFT) + CLOCK] : e[y + ATTACH];
      if (u != lastParent) {
        lastParent = u;
        after = NONE;
      }
      insert(o, v, u, after);
      after = v;
    }
    if (indexed != t) indexed = NONE;  // the inserts wrote links of a tree not indexed
  }

  /** Fills the parent/prev scratch links from node t's tree. */
  private void index(int t) {
    int o = row(t), top = 0;
    stack[top++] = root[t];
    while (top > 0) {
      int u = stack[--top], before = NONE;
      walked++;
      for (int c = e[o + (u << SHIFT) + CHILD]; c != NONE; c = e[o + (c << SHIFT) + SIBLING]) {
        parent[c] = u;
        prev[c] = before;
        before = c;
        stack[top++] = c;
      }
    }
    indexed = t;
  }

  /** Unlinks session v (not the root) from its parent's child list in row o. */
  private void detach(int o, int v) {
    int before = prev[v], next = e[o + (v << SHIFT) + SIBLING];
    if (before == NONE) e[o + (parent[v] << SHIFT) + CHILD] = next;
    else e[o + (before << SHIFT) + SIBLING] = next;
    if (next != NONE) prev[next] = before;
  }

  /** Links session v under u in row o: first child when after is NONE, else right after it. */
  private void insert(int o, int v, int u, int after) {
    int link = after == NONE ? o + (u << SHIFT) + CHILD : o + (after << SHIFT) + SIBLING;
    int next = e[link];
    e[link] = v;
    e[o + (v << SHIFT) + SIBLING] = next;
    prev[v] = after;
    if (next != NONE) prev[next] = v;
    parent[v] = u;
  }

  /**
   * Predecessor entries the joins have looked at so far: k for each copy of an SO predecessor, and
   * each root compared and each child inspected by a tree join. A vector join looks at all k.
   */
  public long examined() { return examined; }

  /**
   * Own entries walked so far to find the parent and previous-sibling links a detach needs: the
   * whole tree of a node, at its first join that moves a session it already knows.
   */
  public long walked() { return walked; }

  /**
   * Node t's tree, for tests and debugging: {@code session=clock} for the root, then its children
   * newest first in braces, each as {@code session=clock@attach}; e.g. {@code 3=2{2=1@2, 1=2@1{0=2@2}}}.
   */
  public String tree(int t) {
    StringBuilder b = new StringBuilder();
    appendTree(b, row(t), root[t], false);
    return b.toString();
  }

  private void appendTree(StringBuilder b, int o, int u, boolean withAttach) {
    int x = o + (u << SHIFT);
    b.append(u).append('=').append(e[x + CLOCK]);
    if (withAttach) b.append('@').append(e[x + ATTACH]);
    if (e[x + CHILD] == NONE) return;
    b.append('{');
    for (int c = e[x + CHILD]; c != NONE; c = e[o + (c << SHIFT) + SIBLING]) {
      appendTree(b, o, c, true);
      if (e[o + (c << SHIFT) + SIBLING] != NONE) b.append(", ");
    }
    b.append('}');
  }

  @Override public int get(int t, int s) { return e[((t * k + s) << SHIFT) + CLOCK]; }

  @Override public int sessions() { return k; }

  /** Number of nodes (clocks). */
  public int nodes() { return n; }

  @Override public long bytes() {
    return 4L * (e.length + root.length + parent.length + prev.length + order.length + from.length + stack.length);
  }

  @Override public String name() { return "tree"; }
}
