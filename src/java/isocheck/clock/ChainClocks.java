package isocheck.clock;

import java.util.Arrays;

/**
 * Vector clocks indexed by a chain decomposition of the graph rather than by its sessions. A chain
 * is a sequence of nodes each of which reaches the next (a session is one, but so is any path); if
 * every node that needs to be asked about lies on a chain, entry c of node t's clock, the highest
 * position in chain c of a node that reaches t, answers "does a reach b" as
 * {@code get(b, chain(a)) >= index(a)} exactly as session clocks do, with one entry per chain.
 *
 * <p>Why: Jepsen gives a client thread a new process after every {@code :info} outcome, and
 * sessions are processes, so session-indexed clocks take transactions × processes entries: with
 * 10 threads, 1% crashes and 10^6 transactions that is 10^10 entries. The fewest chains that cover
 * a partial order is its width (Dilworth); for causal order it is about the number of concurrent
 * clients plus the crashed processes whose last transaction the newest ones do not know yet,
 * usually far fewer than the processes.
 *
 * <p>The decomposition is built greedily while the clocks are built, in topological order (each
 * node is {@link #open}ed from its session predecessor, {@link #join}s its other predecessors, then
 * is {@link #place}d): a node continues its session predecessor's chain while that node is still
 * the chain's tail; otherwise it continues any chain whose tail its clock shows it knows, preferring
 * tails that no session successor will extend (a crashed process's last transaction), so a new
 * process usually takes over a dead one's chain; otherwise it opens a new chain. A node with no
 * successor at all needs no chain ({@link #skip}): only it reaches itself.
 *
 * <p>Rows are shared in blocks of {@link #B} entries: a row is an array of references to blocks
 * (null: all zeros), and a node starts with its session predecessor's references, so it owns only
 * the blocks its joins and its own entry changed (copy on write; a join that finds the other
 * block dominating ours takes its reference). A transaction usually learns of a few transactions
 * per read, so it changes a few blocks; most of its row is its predecessor's. Rows are also
 * jagged: a row covers the chains opened before it (plus one); a chain opened later starts at a
 * node later in topological order, which cannot reach it, so {@link #get} returns 0 for it.
 * Members of a cycle share one row ({@link #share}). The total size is bounded when built
 * ({@code maxEntries}, counted in ints: references and block entries): past it, building throws
 * {@link TooWide} rather than exhausting the heap.
 */
public final class ChainClocks implements Clocks {
  /** Thrown when the rows would exceed the entry budget: the graph is too wide for the heap. */
  public static final class TooWide extends IllegalStateException {
    public TooWide(String message) { super(message); }
  }

  /** Entries a block: rows share blocks, so a node pays for the blocks it changed. */
  static final int B = 32, SHIFT = 5, MASK = B - 1;

  private final int[][][] rows;
  private final int[] chain, index, prev;
  private int[] tail = new int[16], len = new int[16];
  private boolean[] tailOpen = new boolean[16];
  private int chains;
  private long entries;
  private final long maxEntries;
  /** owner[b] == t: block b of t's row was made while building t, so t may change it; else shared. */
  private int[] owner = new int[4];

  /** Whether a node may continue a chain other than its session predecessor's. */
  private final boolean merge;

  /** Empty clocks for the given number of nodes, as below, that merge chains. */
  public ChainClocks(int nodes, long maxEntries) { this(nodes, maxEntries, true); }

  /**
   * Empty clocks for the given number of nodes, holding at most maxEntries ints in all (block
   * references and block entries); every node starts on no chain. Without merge, a node
   * continues only its session predecessor's chain (one chain per session, as session clocks;
   * for comparing the two).
   */
  public ChainClocks(int nodes, long maxEntries, boolean merge) {
    this.merge = merge;
    rows = new int[nodes][][];
    chain = new int[nodes];
    index = new int[nodes];
    prev = new int[nodes];
    Arrays.fill(chain, -1);
    Arrays.fill(prev, -1);
    this.maxEntries = maxEntries;
  }

  private void count(long ints) {
    entries += ints;
    if (entries > maxEntries) {
      throw new TooWide(String.format("causal clocks would exceed %,d entries (%,d MB): %,d chains are needed to cover "
          + "causal order so far", maxEntries, maxEntries * 4 >> 20, chains));
    }
  }

  /** Entries a block holds. */
  public static int blockSize() { return B; }

  private static int blocks(int width) { return (width + MASK) >>> SHIFT; }

  /**
   * Block b of row t, made t's own (copied if shared, created if absent). Only the node being
   * built changes its row, and node ids are not reused, so owner needs no reset between nodes.
   */
  private int[] own(int t, int b) {
    int[][] r = rows[t];
    if (b >= r.length) rows[t] = r = Arrays.copyOf(r, b + 1);
    int[] blk = r[b];
    if (blk != null && owner[b] == t) return blk;
    count(B);
    blk = blk == null ? new int[B] : blk.clone();
    r[b] = blk;
    if (b >= owner.length) owner = Arrays.copyOf(owner, Math.max(b + 1, owner.length * 2));
    owner[b] = t;
    return blk;
  }

  /** Starts t's row: p's row (p's clock is complete), shared, or all zeros when p &lt; 0. */
  public void open(int t, int p) {
    int nb = blocks(chains + 1);
    count(nb + 4);
    rows[t] = p >= 0 ? Arrays.copyOf(rows[p], nb) : new int[nb][];
  }

  /** t's row := t's row ⊔ p's row, for a complete predecessor p of t (t is being built). */
  @Override public void join(int t, int p) {
    int[][] r = rows[t], q = rows[p];
    int nb = Math.min(r.length, q.length);
    for (int b = 0; b < nb; b++) {
      int[] x = r[b], y = q[b];
      if (y == null || y == x) continue;
      if (x == null) {
        r[b] = y; // shared: t does not own it (it never owned a null block)
        continue;
      }
      // Keep x when it dominates y, share y when y dominates x, else own x ⊔ y. One pass of
      // subtractions and ORs (entries are positions, 0 or more, so x[i] - y[i] does not
      // overflow, and its sign says x[i] < y[i]); no call: a small history's check runs this
      // interpreted or C1-compiled, where Arrays.equals' vectorized mismatch is a plain loop
      // (the max and two Arrays.equals were a sixth of a 1,000-transaction SER check).
      int below = 0, above = 0;
      for (int i = 0; i < B; i++) {
        int d = x[i] - y[i];
        below |= d;
        above |= -d;
      }
      if (below >= 0) continue;
      if (above >= 0) {
        r[b] = y;
        if (b < owner.length && owner[b] == t) owner[b] = -1; // y is shared: t must copy it to change it
        continue;
      }
      int[] m = own(t, b);
      for (int i = 0; i < B; i++) m[i] = Math.max(m[i], y[i]);
    }
  }

  /** Whether t's clock already shows node a (a is on a chain, and its row is complete). */
  public boolean knows(int t, int a) {
    int c = chain[a];
    return c >= 0 && get(t, c) >= index[a];
  }

  /**
   * Puts the opened and joined node t on a chain and returns it: the chain of prefer (its session
   * predecessor, or -1) if prefer is still that chain's tail; else a chain whose tail t knows,
   * one whose tail nothing will extend first; else a new chain. {@code extendable}: t has a session
   * successor, which will want to continue t's chain.
   */
  public int place(int t, int prefer, boolean extendable) {
    int[][] r = rows[t];
    int c = -1;
    if (prefer >= 0 && chain[prefer] >= 0 && tail[chain[prefer]] == prefer) c = chain[prefer];
    if (c < 0 && merge) {
      int live = -1;
      scan:
      for (int b = 0; b < r.length; b++) {
        int[] blk = r[b];
        if (blk == null) continue;
        for (int i = 0, j = b << SHIFT; i < B && j < chains; i++, j++) {
          if (blk[i] != len[j]) continue;
          if (!tailOpen[j]) {
            c = j;
            break scan;
          }
          if (live < 0) live = j;
        }
      }
      if (c < 0) c = live;
    }
    if (c < 0) c = newChain();
    append(t, c, extendable);
    own(t, c >>> SHIFT)[c & MASK] = index[t];
    return c;
  }

  /** Leaves t on no chain (t has no successor, so only t reaches t). */
  public void skip(int t) { chain[t] = -1; }

  /** Appends t to chain c, after its tail (which reaches t); t's row is not touched. */
  public void append(int t, int c, boolean extendable) {
    prev[t] = len[c] == 0 ? -1 : tail[c];
    chain[t] = c;
    index[t] = ++len[c];
    tail[c] = t;
    tailOpen[c] = extendable;
  }

  private int newChain() {
    if (chains == tail.length) {
      tail = Arrays.copyOf(tail, chains * 2);
      len = Arrays.copyOf(len, chains * 2);
      tailOpen = Arrays.copyOf(tailOpen, chains * 2);
    }
    return chains++;
  }

  /** t's row := from's row, shared (for the members of a cycle, which all know one another). */
  public void share(int t, int from) { rows[t] = rows[from]; }

  /** Entry c of t's row := max(entry, value). */
  public void raise(int t, int c, int value) {
    if (value > get(t, c)) own(t, c >>> SHIFT)[c & MASK] = value;
  }

  /**
   * Starts t at position index of chain c (opening chains up to c) with only itself known: for
   * building from a decomposition already made, as with session clocks. Positions must follow
   * the chain's order.
   */
  @Override public void start(int t, int c, int index) {
    if (c < 0 || index < 1) throw new IllegalArgumentException("start(" + t + ", " + c + ", " + index + "): chain < 0 or position < 1");
    while (chains <= c) newChain();
    rows[t] = new int[blocks(chains)][];
    count(blocks(chains) + 4);
    own(t, c >>> SHIFT)[c & MASK] = index;
    chain[t] = c;
    this.index[t] = index;
    if (index > len[c]) {
      len[c] = index;
      tail[c] = t;
    }
  }

  @Override public int get(int t, int c) {
    int[][] r = rows[t];
    int b = c >>> SHIFT;
    if (b >= r.length) return 0;
    int[] blk = r[b];
    return blk == null ? 0 : blk[c & MASK];
  }

  /** t's chain, or -1 if it is on none. */
  public int chain(int t) { return chain[t]; }

  /** t's 1-based position in its chain (0 if on none). */
  public int index(int t) { return index[t]; }

  /** The node before t on its chain, or -1. */
  public int previous(int t) { return prev[t]; }

  /** Number of nodes on chain c. */
  public int length(int c) { return len[c]; }

  /** Number of chains: the entries of a full clock. */
  public int chains() { return chains; }

  @Override public int sessions() { return chains; }

  /** Ints allocated so far: block references and block entries. */
  public long entries() { return entries; }

  @Override public long bytes() { return 4 * entries + 8L * rows.length + 12L * chain.length; }

  @Override public String name() { return "vector"; }
}
