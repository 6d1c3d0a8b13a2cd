package isocheck.history;

import isocheck.util.ByteList;
import isocheck.util.IntList;
import isocheck.util.LongIntMap;
import isocheck.util.LongList;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;

/**
 * Builds a {@link History} from Jepsen ops in history order, pairing each invocation with its
 * completion per :process, and validating what the checkers rely on. Anything we cannot check
 * faithfully is a {@link HistoryException} naming the op, never a silent guess:
 * a missing :type or :process, a :value that is not a vector of micro-ops, a micro-op that is
 * neither a read nor an append (or write), a list read in a register history or a non-list read
 * in a list-append one, one history mixing appends and register writes, an appended (or
 * written) value that is not unique per key, a process invoking while its previous op is still
 * pending, a completion whose micro-ops differ from its invocation's, or a value that is not a
 * single value (one rule for both workloads: an appended or written value, a register read and
 * each element of a list read is neither nil nor a collection; only a whole read may be nil).
 *
 * <p>Order: the history's order is the order of events (realtime order comes from it). An
 * :index, where ops carry one, must agree: 0 or more, and greater than every earlier op's
 * (gaps are fine: a filtered Jepsen history keeps its ops' numbers). A negative, repeated or
 * decreasing :index is an error naming both ops, never silently overruled by file position.
 * :time is not used for order.
 *
 * <p>Ops whose :f is not the transactions' (:txn unless told otherwise: nemesis ops and the
 * like) are skipped and counted, and so are transaction ops of a process that is not a client's
 * (a keyword such as :nemesis, or "nemesis" in JSON), as Elle skips them: a transaction Jepsen
 * handed to the nemesis thread (ops read from another tool's format, whose sessions are its own,
 * are exempt). A history
 * with no transaction at all says why ({@link History#noTxnReason}), naming the first op skipped.
 */
public final class HistoryBuilder implements OpSink {
  private final History.Workload forced;
  private History.Workload workload;
  private String workloadWhere;

  private final HashMap<Object, Integer> keyObj = new HashMap<>();
  private final Table keys = new Table();
  private final HashMap<Object, Integer> valObj = new HashMap<>();
  private final Table values = new Table();

  private final HashMap<Object, Integer> sessionIds = new HashMap<>();
  private final ArrayList<Object> sessionProcs = new ArrayList<>();
  /**
   * The pending invocation of each session (indexed by session id; null while none is): a raw
   * copy of its record, compared with the completion without interning; interned only when its
   * micro-ops are the ones kept (the op failed, is indeterminate, or never completed). Records
   * are reused through {@link #spareRecs}, so that they number the ops in flight at most, not
   * the sessions (a Jepsen process that crashes is replaced by a new one: a session each).
   */
  private final ArrayList<OpRecord> pendingRec = new ArrayList<>();
  private final java.util.ArrayDeque<OpRecord> spareRecs = new java.util.ArrayDeque<>();
  private boolean[] pendingOn = new boolean[16];
  private final LongIntMap sessionLong = new LongIntMap(64);

  // The columns. When spilling ({@link #spillTo}) they hold only the transactions (and
  // micro-ops) not yet written to the spill file: the first is number txnBase (mopBase).
  private ByteList status = new ByteList();
  private IntList session = new IntList(1024);
  private LongList invokeOrd = new LongList(1024), completeOrd = new LongList(1024),
      invokeTime = new LongList(1024), completeTime = new LongList(1024);
  /** The ops' :index, a long per transaction only when it is neither absent nor the op's position. */
  private final IndexColumn invokeIndex = new IndexColumn(), completeIndex = new IndexColumn();
  /** The transactions' first micro-ops, and one more: where the next transaction's begin. */
  private IntList mopStart = new IntList(1024);

  private ByteList mopKind = new ByteList();
  private IntList mopKey = new IntList(4096), mopVal = new IntList(4096),
      mopLen = new IntList(4096), listPool = new IntList(1 << 14);
  private isocheck.util.PairIntMap writerIndex = new isocheck.util.PairIntMap(1 << 14);
  /**
   * Whether the writes are indexed when the history is built rather than as they come
   * ({@link #indexAtBuild}), and how many there are.
   */
  private boolean indexAtBuild;
  private int writes;
  /** Transactions whose ops carried other keys (increasing), and those keys with their values. */
  private final IntList extraTxn = new IntList(16);
  private final ArrayList<Object[]> extras = new ArrayList<>();

  private final String txnF;
  private long lastIndex = OpRecord.ABSENT, lastIndexOrdinal, lastIndexLine;
  private boolean indexUsable = true;
  private long opsSeen, opsSkipped, nonClientOps;
  private String firstSkipped;
  /** Whether the first op skipped had no :f and micro-ops for its :value (as elle-cli's transactions may). */
  private boolean firstSkippedLooksTxn;
  private String firstScalarRead, firstListRead;
  private History built;

  // ------------------------------------------------------------------ spilling

  /** Where the columns go as they fill (null: all in the heap), and their chunks there. */
  private Spill spill;
  private Spill.Pool pool;
  private int chunk;
  private int txnBase, mopBase;
  private final Spill.Chunks cStatus = new Spill.Chunks(), cSession = new Spill.Chunks(),
      cInvokeOrd = new Spill.Chunks(), cCompleteOrd = new Spill.Chunks(), cInvokeTime = new Spill.Chunks(),
      cCompleteTime = new Spill.Chunks(), cInvokeIndex = new Spill.Chunks(), cCompleteIndex = new Spill.Chunks(),
      cMopStart = new Spill.Chunks(), cMopKind = new Spill.Chunks(), cMopKey = new Spill.Chunks(),
      cMopVal = new Spill.Chunks(), cMopLen = new Spill.Chunks();

  /** The default chunk: transactions (or micro-ops, or list elements) written at a time. */
  public static final int SPILL_CHUNK = 1 << 16;
  /** List pool pages kept in the heap when spilling (the last one among them), and their size at most. */
  private static final int POOL_PAGES = 16, POOL_PAGE = 1 << 14;

  /**
   * Keeps the history's columns (per transaction: status, session, positions, times, :index
   * where it breaks the rule, first micro-op; per micro-op: kind, key, value, list length; and
   * the list pool) out of the heap as they fill, in a file made in dir (unlinked at once where
   * the system allows it, deleted at the end otherwise), chunk transactions (micro-ops, list
   * elements) at a time; {@link #build} reads them back. The heap then holds a chunk of each
   * column and {@link #POOL_PAGES} pages of the pool, beside what cannot go (the interned keys and
   * values, sessions, the pending invocations, ops' extra keys). The writes are indexed when the
   * history is built ({@link #indexAtBuild}: a value written twice is then {@link ReadAgain}).
   * An I/O failure throws {@link java.io.UncheckedIOException} naming the file; the builder is
   * then of no use. Before the first op.
   */
  public HistoryBuilder spillTo(java.nio.file.Path dir, int chunk) {
    if (opsSeen > 0 || spill != null) throw new IllegalStateException("spillTo: before the first op, once");
    return spilling(Spill.inDirectory(dir, bufBytes(chunk)), chunk);
  }

  /** {@link #spillTo(java.nio.file.Path, int)}, to a channel open for reading and writing (the builder closes it). */
  public HistoryBuilder spillTo(java.nio.channels.FileChannel ch, int chunk) {
    if (opsSeen > 0 || spill != null) throw new IllegalStateException("spillTo: before the first op, once");
    return spilling(Spill.onChannel(ch, bufBytes(chunk)), chunk);
  }

  private static int bufBytes(int chunk) {
    if (chunk < 2 || chunk > 1 << 24) throw new IllegalArgumentException("spill chunk must be 2 .. 2^24, got " + chunk);
    return Math.max(1 << 16, 4 * Integer.highestOneBit(chunk));
  }

  private HistoryBuilder spilling(Spill s, int chunk) {
    spill = s;
    this.chunk = chunk;
    pool = s.new Pool(Math.min(chunk, POOL_PAGE), POOL_PAGES);
    indexAtBuild = true;
    listPool = null;
    // A chunk and a transaction's worth: they are written out once past a chunk.
    int txns = chunk + 1, mops = chunk + 256;
    status.ensureCapacity(txns);
    session.ensureCapacity(txns);
    invokeOrd.ensureCapacity(txns);
    completeOrd.ensureCapacity(txns);
    invokeTime.ensureCapacity(txns);
    completeTime.ensureCapacity(txns);
    mopStart.ensureCapacity(txns + 1);
    mopKind.ensureCapacity(mops);
    mopKey.ensureCapacity(mops);
    mopVal.ensureCapacity(mops);
    mopLen.ensureCapacity(mops);
    return this;
  }

  /** Whether the columns are being spilled (until {@link #build} reads them back). */
  public boolean spilling() { return spill != null; }

  /** Bytes written to the spill file so far (0 when not spilling). */
  public long spilledBytes() { return spill == null ? spilledBytes : spill.bytes(); }

  private long spilledBytes;

  /** The spill file while it is in its directory (where the system could not unlink it open), else null. */
  public java.nio.file.Path spillFile() { return spill == null ? null : spill.path(); }

  /** Releases the spill file of a builder that will not be built (nothing when not spilling). */
  public void close() {
    if (spill != null) {
      spilledBytes = spill.bytes();
      spill.close();
    }
  }

  private int txnCount() { return txnBase + status.size(); }

  private int mopCount() { return mopBase + mopKind.size(); }

  /** Writes out full chunks of the columns (after each transaction). */
  private void spillFull() {
    int nt = status.size();
    if (nt >= chunk) {
      spill.write(cStatus, status.raw(), 0, nt);
      spill.write(cSession, session.raw(), 0, nt);
      spill.write(cInvokeOrd, invokeOrd.raw(), 0, nt);
      spill.write(cCompleteOrd, completeOrd.raw(), 0, nt);
      spill.write(cInvokeTime, invokeTime.raw(), 0, nt);
      spill.write(cCompleteTime, completeTime.raw(), 0, nt);
      spillIndex(cInvokeIndex, invokeIndex);
      spillIndex(cCompleteIndex, completeIndex);
      spill.write(cMopStart, mopStart.raw(), 0, nt);
      int next = mopStart.get(nt);
      status.clear();
      session.clear();
      invokeOrd.clear();
      completeOrd.clear();
      invokeTime.clear();
      completeTime.clear();
      mopStart.clear();
      mopStart.add(next);
      txnBase += nt;
    }
    int nm = mopKind.size();
    if (nm >= chunk) {
      spill.write(cMopKind, mopKind.raw(), 0, nm);
      spill.write(cMopKey, mopKey.raw(), 0, nm);
      spill.write(cMopVal, mopVal.raw(), 0, nm);
      spill.write(cMopLen, mopLen.raw(), 0, nm);
      mopKind.clear();
      mopKey.clear();
      mopVal.clear();
      mopLen.clear();
      mopBase += nm;
    }
  }

  private void spillIndex(Spill.Chunks c, IndexColumn col) {
    LongList e = col.explicit();
    if (e != null && e.size() > 0) {
      spill.write(c, e.raw(), 0, e.size());
      e.clear();
    }
  }

  /** Reads the spilled columns back into the heap, and closes the spill file: the builder is then as one that never spilled. */
  private void unspill() {
    Spill s = spill;
    try {
      int nt = status.size(), nm = mopKind.size();
      status = ByteList.of(s.readBytes(cStatus, status.raw(), nt, 0), txnBase + nt);
      session = IntList.of(s.readInts(cSession, session.raw(), nt, 0), txnBase + nt);
      invokeOrd = LongList.of(s.readLongs(cInvokeOrd, invokeOrd.raw(), nt, 0), txnBase + nt);
      completeOrd = LongList.of(s.readLongs(cCompleteOrd, completeOrd.raw(), nt, 0), txnBase + nt);
      invokeTime = LongList.of(s.readLongs(cInvokeTime, invokeTime.raw(), nt, 0), txnBase + nt);
      completeTime = LongList.of(s.readLongs(cCompleteTime, completeTime.raw(), nt, 0), txnBase + nt);
      unspillIndex(cInvokeIndex, invokeIndex);
      unspillIndex(cCompleteIndex, completeIndex);
      mopStart = IntList.of(s.readInts(cMopStart, mopStart.raw(), nt + 1, 0), txnBase + nt + 1);
      mopKind = ByteList.of(s.readBytes(cMopKind, mopKind.raw(), nm, 0), mopBase + nm);
      mopKey = IntList.of(s.readInts(cMopKey, mopKey.raw(), nm, 0), mopBase + nm);
      mopVal = IntList.of(s.readInts(cMopVal, mopVal.raw(), nm, 0), mopBase + nm);
      mopLen = IntList.of(s.readInts(cMopLen, mopLen.raw(), nm, 0), mopBase + nm);
      int ps = pool.size();
      listPool = IntList.of(pool.readAll(), ps);
    } finally {
      spilledBytes = s.bytes();
      s.close();
      spill = null;
      pool = null;
      txnBase = mopBase = 0;
    }
  }

  private void unspillIndex(Spill.Chunks c, IndexColumn col) {
    LongList e = col.explicit();
    if (e != null) {
      long[] all = spill.readLongs(c, e.raw(), e.size(), 0);
      col.restore(all, all.length);
    }
  }

  /**
   * Presizes the builder for a history of about this many ops and list elements (e.g. from a
   * file's size), so that loading a large file does not keep doubling and copying its arrays.
   * Underestimates are harmless; overestimates cost memory. Applied at the first op, unless a
   * producer's exact {@link #sizeHint} comes first.
   */
  public HistoryBuilder expect(long ops, long listElements) {
    if (opsSeen == 0) {
      expectOps = ops;
      expectElems = listElements;
    }
    return this;
  }

  /** The sizes {@link #expect} or {@link #sizeHint} gave, for the first op: -1 when none. */
  private long expectOps = -1, expectElems, hintTxns = -1, hintMops, hintWrites, hintElems;

  @Override
  public void sizeHint(long txns, long mops, long writes, long elems) {
    hintTxns = txns;
    hintMops = mops;
    hintWrites = writes;
    hintElems = elems;
    // Ops already in: grow to the hint now (once, while the arrays are still small).
    if (opsSeen > 0) presize();
  }

  private void presize() {
    if (spill != null) return; // the columns hold a chunk
    int txns, mops;
    long elems = 0, writes;
    if (hintTxns >= 0) {
      txns = (int) Math.min(Integer.MAX_VALUE / 4, hintTxns);
      mops = (int) Math.min(Integer.MAX_VALUE / 4, hintMops);
      writes = hintWrites;
      elems = hintElems;
    } else if (expectOps >= 0) {
      txns = (int) Math.min(Integer.MAX_VALUE / 4, expectOps / 2 + 16);
      mops = (int) Math.min(Integer.MAX_VALUE / 4, 4L * txns);
      elems = expectElems;
      writes = mops / 2;
    } else {
      return;
    }
    keyIds.expect(mops);
    valueIds.expect(mops);
    sizeTxns(txns);
    sizeMops(mops);
    // An estimate of a large history (not the small start a producer asks for before it knows):
    // reaching it, grow by an eighth (growTxns, growMops), not by doubling.
    if (hintTxns >= ESTIMATED_FROM) {
      estimatedTxns = txns;
      estimatedMops = mops;
    }
    // Reads share their key's segment (placeList): the pool holds about each key's longest list
    // twice over, far fewer than all the elements read; presized to at most the micro-ops.
    listPool.ensureCapacity((int) Math.min(Integer.MAX_VALUE / 2, Math.min(elems, mops)));
    if (!indexAtBuild) writerIndex.ensureCapacity((int) Math.min(Integer.MAX_VALUE / 4, writes));
  }

  /**
   * The transactions and micro-ops the columns were sized for from a producer's estimate of a
   * large history ({@link #sizeHint}), 0 when none: past it they grow by an eighth rather than
   * doubling. The estimate, from the first megabytes, is a few percent off either way (elle-cli
   * JSON's first 16 MB spend 5% more bytes per micro-op than the rest: its reads of the initial
   * value, null); doubling when it fell short left the micro-op columns twice what they hold,
   * 240 MB more in the built history at 10^6 Plume-shaped transactions, and allocated 480 MB at
   * the end of the load.
   */
  private int estimatedTxns, estimatedMops;

  /** The smallest hint taken for an estimate (below: a producer's small start). */
  private static final long ESTIMATED_FROM = 1 << 16;

  /** Room for the next transaction past the estimate: an eighth more. */
  private void growTxns() {
    estimatedTxns = (int) Math.min(Integer.MAX_VALUE / 4, Math.max(status.size() + 1L, estimatedTxns + (long) estimatedTxns / 8 + 16));
    sizeTxns(estimatedTxns);
  }

  /** Room for n more micro-ops past the estimate: an eighth more. */
  private void growMops(int n) {
    estimatedMops = (int) Math.min(Integer.MAX_VALUE / 4, Math.max(mopKind.size() + (long) n, estimatedMops + (long) estimatedMops / 8));
    sizeMops(estimatedMops);
  }

  private void sizeTxns(int txns) {
    session.ensureCapacity(txns);
    invokeOrd.ensureCapacity(txns);
    completeOrd.ensureCapacity(txns);
    invokeIndex.ensureCapacity(txns);
    completeIndex.ensureCapacity(txns);
    invokeTime.ensureCapacity(txns);
    completeTime.ensureCapacity(txns);
    mopStart.ensureCapacity(txns + 1);
    status.ensureCapacity(txns);
  }

  private void sizeMops(int mops) {
    mopKey.ensureCapacity(mops);
    mopVal.ensureCapacity(mops);
    mopLen.ensureCapacity(mops);
    mopKind.ensureCapacity(mops);
  }

  /**
   * Indexes the (key, value) pairs written when the history is built, all at once, rather than
   * each write as its op comes: a large history's index is far larger than the caches, and one
   * write at a time waits for memory at nearly every write, where all at once, sorted by
   * where they go, they find their place in the caches ({@link isocheck.util.PairIntMap#ofFirst}:
   * at 10^5 Plume-shaped transactions, a million writes, the builder's thread spent about half
   * its time on them before). A value written twice to one key is then found only when the
   * history is built (or {@link #writesUnique} asked), without the op that wrote it again:
   * {@link #build} throws {@link ReadAgain}, and the caller reads the input again into a
   * builder that indexes as the ops come, which names that op as always. Before the first op.
   */
  public HistoryBuilder indexAtBuild() {
    if (opsSeen == 0) indexAtBuild = true;
    return this;
  }

  /**
   * Thrown by {@link #build} when the writes were indexed at build ({@link #indexAtBuild}) and
   * a value was written twice to one key: read the input again into a builder that indexes as
   * the ops come, which reports the op that wrote it again.
   */
  public static final class ReadAgain extends RuntimeException {
    ReadAgain() { super("a value written twice to one key: read the history again, indexing writes as they come", null, false, false); }
  }

  /**
   * With writes indexed at build ({@link #indexAtBuild}): whether no (key, value) pair was
   * written twice by the ops taken so far (a builder that failed: if one was, a builder
   * indexing as the ops came would have failed there first). Always true otherwise.
   */
  public boolean writesUnique() {
    if (!indexAtBuild || built != null) return true;
    if (spill != null) unspill();
    return indexWrites() < 0;
  }

  /** Indexes every write so far (writes indexed at build); returns the first write of a pair written before, or -1. */
  private int indexWrites() {
    int[] first = new int[1];
    int nm = mopKind.size();
    byte[] kind = mopKind.raw();
    int[] val = mopVal.raw();
    int cols = 0;
    for (int m = 0; m < nm; m++) if (kind[m] != OpRecord.READ && val[m] >= cols) cols = val[m] + 1;
    // A table by (key, value) when the keys' values fill one (Jepsen's 1, 2, 3 ... per key); by
    // value alone when values are unique across keys (Cobra's write ids: about as many values as
    // writes), which the pass finds out; else the hash map.
    writerIndex = isocheck.util.PairIntMap.denseSuits(writes, keys.size(), cols)
        ? isocheck.util.PairIntMap.denseOfFirst(keys.size(), cols, nm, kind, OpRecord.READ, mopKey.raw(), val, first)
        : null;
    if (writerIndex == null && isocheck.util.PairIntMap.denseSuits(writes, 1, cols)) {
      writerIndex = isocheck.util.PairIntMap.byValueOfFirst(cols, nm, kind, OpRecord.READ, mopKey.raw(), val, first);
    }
    if (writerIndex == null) writerIndex = isocheck.util.PairIntMap.ofFirst(writes, nm, kind, OpRecord.READ, mopKey.raw(), val, first);
    return first[0];
  }

  /** @param workload the workload to insist on, or null to detect it from the micro-ops. */
  public HistoryBuilder(History.Workload workload) { this(workload, null); }

  /**
   * @param workload the workload to insist on, or null to detect it from the micro-ops.
   * @param txnF the :f of transaction ops (a keyword's name, a leading ':' ignored), or null for txn.
   */
  public HistoryBuilder(History.Workload workload, String txnF) {
    String f = txnF == null ? "txn" : txnF.startsWith(":") ? txnF.substring(1) : txnF;
    if (f.isEmpty()) throw new IllegalArgumentException("the :f of transaction ops cannot be empty");
    this.txnF = f;
    this.forced = workload;
    this.workload = workload;
    if (workload != null) workloadWhere = "--workload " + workload.cliName;
    mopStart.add(0);
  }

  public HistoryBuilder() { this(null); }

  @Override
  public void op(OpRecord r) {
    if (built != null) throw new IllegalStateException("history already built");
    if (opsSeen == 0) presize();
    opsSeen++;
    checkIndex(r);
    if (!txnF.equals(Kw.nameOf(r.f))) {
      if (opsSkipped++ == 0) {
        firstSkipped = r.where() + ", has " + (r.f == null ? "no :f" : ":f " + shorten(Edn.str(r.f)));
        firstSkippedLooksTxn = r.f == null && r.valueShape == OpRecord.VALUE_TXN && r.mopCount() > 0;
      }
      return;
    }
    if (!r.hasOrigin() && r.hasProcess && r.process != null && !clientProcess(r.process)) {
      // Jepsen's clients are integers; its other threads are named by keywords (:nemesis). A
      // transaction Jepsen handed to the nemesis (a generator not wrapped in gen/clients) comes
      // back as an :info op of process :nemesis; it ran nowhere and is no session. Elle skips
      // every op whose process is not an integer; a string stays a session here, as another
      // tool names its sessions (a Cobra log's file name, kept by isocheck convert --to edn).
      nonClientOps++;
      if (opsSkipped++ == 0) {
        firstSkipped = r.where() + ", has :process " + shorten(Edn.str(r.process))
            + " (Jepsen's clients are integers)";
      }
      return;
    }
    if (r.type < 0) {
      throw new HistoryException(r.ordinal, r.where() + ": "
          + (r.typeRaw == null ? "missing :type" : ":type is " + Edn.str(r.typeRaw))
          + "; expected :invoke, :ok, :fail or :info");
    }
    if (!r.hasProcess || r.process == null) {
      throw new HistoryException(r.ordinal, r.where() + ": missing :process; every :txn op needs the process (session) that ran it");
    }
    if (r.valueShape != OpRecord.VALUE_TXN) {
      throw new HistoryException(r.ordinal, r.where() + ": :value "
          + (r.valueShape == OpRecord.VALUE_ABSENT ? "is missing" : "is " + Edn.str(r.valueRaw))
          + "; expected a vector of micro-ops such as [[:r 1 nil] [:append 1 2]]");
    }
    validateMops(r);
    Object proc = r.process;
    int sid = sessionId(proc);
    if (r.type == OpType.INVOKE) {
      if (pendingOn[sid]) {
        throw new HistoryException(r.ordinal, r.where() + ": process " + Edn.str(proc)
            + " invoked a new op while its " + pendingRec.get(sid).where()
            + " had not completed; a Jepsen process runs one op at a time");
      }
      OpRecord rec = spareRecs.isEmpty() ? new OpRecord() : spareRecs.pop();
      rec.copyFrom(r);
      pendingRec.set(sid, rec);
      pendingOn[sid] = true;
      return;
    }
    OpRecord inv = pendingOn[sid] ? pendingRec.get(sid) : null;
    pendingOn[sid] = false;
    if (inv != null && !Kw.nameOf(inv.f).equals(Kw.nameOf(r.f))) {
      throw new HistoryException(r.ordinal, r.where() + ": completes " + inv.where() + " of process "
          + Edn.str(proc) + ", but its :f differs");
    }
    int t = txnCount();
    if (status.size() >= estimatedTxns && estimatedTxns > 0 && spill == null) growTxns();
    status.add((byte) r.type);
    session.add(sid);
    invokeOrd.add(inv == null ? -1 : inv.ordinal);
    invokeIndex.add(inv == null ? OpRecord.ABSENT : inv.index, inv == null ? -1 : inv.ordinal);
    invokeTime.add(inv == null ? OpRecord.ABSENT : inv.time);
    completeOrd.add(r.ordinal);
    completeIndex.add(r.index, r.ordinal);
    completeTime.add(r.time);
    if (r.type == OpType.OK || inv == null) {
      if (inv != null) sameShape(inv, r);
      addMops(t, r, r.type != OpType.OK);
    } else {
      addMops(t, inv, true);
    }
    keepExtras(t, inv, r);
    if (inv != null) {
      pendingRec.set(sid, null);
      spareRecs.push(inv);
    }
    if (spill != null) spillFull();
  }

  /**
   * Keeps the other keys of txn t's ops (its invocation's, then its completion's, a key both
   * carry with the completion's value), only for transactions that have any.
   */
  private void keepExtras(int t, OpRecord inv, OpRecord done) {
    int ni = inv == null ? 0 : inv.extraCount(), nd = done == null ? 0 : done.extraCount();
    if (ni + nd == 0) return;
    Object[] kv = new Object[2 * (ni + nd)];
    int n = 0;
    for (int i = 0; i < ni; i++) {
      kv[2 * n] = inv.extraKey(i);
      kv[2 * n++ + 1] = inv.extraValue(i);
    }
    for (int i = 0; i < nd; i++) {
      Object k = done.extraKey(i);
      int at = 0;
      while (at < ni && !java.util.Objects.equals(kv[2 * at], k)) at++;
      if (at == ni) at = n++;
      kv[2 * at] = k;
      kv[2 * at + 1] = done.extraValue(i);
    }
    extraTxn.add(t);
    extras.add(n == ni + nd ? kv : java.util.Arrays.copyOf(kv, 2 * n));
  }

  /** Rejects a negative :index, or one not greater than the last op's that had one. */
  private void checkIndex(OpRecord r) {
    long i = r.index;
    if (i == OpRecord.ABSENT) {
      indexUsable = false;
      return;
    }
    if (i < 0) {
      throw new HistoryException(r.ordinal, r.where() + ": :index " + i
          + " is negative; an :index numbers an op's place in the history, from 0");
    }
    if (lastIndex != OpRecord.ABSENT && i <= lastIndex) {
      throw new HistoryException(r.ordinal, r.where() + ": :index " + i
          + (i == lastIndex ? " repeats the :index of" : " is less than the :index " + lastIndex + " of")
          + " op " + lastIndexOrdinal + (lastIndexLine >= 0 ? " (line " + lastIndexLine + ")" : "")
          + "; each op's :index must be greater than every earlier op's, since the order of the history is the order of events");
    }
    lastIndex = i;
    lastIndexOrdinal = r.ordinal;
    lastIndexLine = r.line;
  }

  private static String shorten(String s) {
    return s.length() <= 60 ? s : s.substring(0, 57) + "...";
  }

  @Override
  public void end() { build(); }

  /** Finishes the history: invocations never completed become indeterminate (:info) transactions. */
  public History build() {
    if (built != null) return built;
    ArrayList<Integer> rest = new ArrayList<>();
    for (int sid = 0; sid < pendingRec.size(); sid++) if (pendingOn[sid]) rest.add(sid);
    rest.sort((a, b) -> Long.compare(pendingRec.get(a).ordinal, pendingRec.get(b).ordinal));
    for (int sid : rest) {
      OpRecord p = pendingRec.get(sid);
      int t = txnCount();
      status.add((byte) OpType.INFO);
      session.add(sid);
      invokeOrd.add(p.ordinal);
      invokeIndex.add(p.index, p.ordinal);
      invokeTime.add(p.time);
      completeOrd.add(-1);
      completeIndex.add(OpRecord.ABSENT, -1);
      completeTime.add(OpRecord.ABSENT);
      addMops(t, p, true);
      keepExtras(t, p, null);
      pendingOn[sid] = false;
      if (spill != null) spillFull();
    }
    if (spill != null) unspill();
    if (workload == null) workload = firstListRead != null || firstScalarRead == null
        ? History.Workload.APPEND : History.Workload.REGISTER;
    if (workload == History.Workload.APPEND && firstScalarRead != null) {
      throw new HistoryException(firstScalarRead + "; list-append reads return a list such as [1 2] (or nil)"
          + (workloadWhere == null ? "" : " (list-append was chosen by " + workloadWhere + ")"));
    }
    if (workload == History.Workload.REGISTER && firstListRead != null) {
      throw new HistoryException(firstListRead + "; rw-register reads return a single value (or nil)"
          + (workloadWhere == null ? "" : " (rw-register was chosen by " + workloadWhere + ")"));
    }
    if (indexAtBuild && indexWrites() >= 0) throw new ReadAgain();
    int nm = mopKind.size();
    // Mop arrays are handed over as they are (possibly with spare room at the end: the mop count
    // is mopKind's length), to avoid copying hundreds of megabytes on a large history.
    int[] len = mopLen.raw();
    int[] val = mopVal.raw();
    byte[] kinds = mopKind.toArray();
    // The reads added once the workload was known are already in their final form (addMops).
    for (int m = 0, upTo = normFrom < 0 ? nm : normFrom; m < upTo; m++) {
      if (kinds[m] != OpRecord.READ) { len[m] = -1; continue; }
      if (workload == History.Workload.APPEND) {
        if (len[m] < 0) {
          // Checked as the empty list; shown as recorded.
          if (len[m] == -1) (nilReads == null ? nilReads = new java.util.BitSet() : nilReads).set(m);
          len[m] = 0;
          val[m] = 0;
        }
      } else {
        if (len[m] == -1) val[m] = History.NIL;
        len[m] = -1;
      }
    }
    int n = status.size();
    Object[] procs = sessionProcs.toArray();
    // Per-txn arrays may keep spare room at the end (nTxns is the count); copying hundreds of
    // megabytes to trim them costs more than the spare room.
    long[] invokeOrds = invokeOrd.compact(), completeOrds = completeOrd.compact();
    built = new History(workload, keys.ints, keys.longs, keys.objs, keys.size(), values.ints, values.longs, values.objs, values.size(), n, status.toArray(),
        session.compact(), procs, invokeOrds, completeOrds, invokeIndex.freeze(invokeOrds),
        completeIndex.freeze(completeOrds), invokeTime.compact(), completeTime.compact(), mopStart.compact(),
        kinds, mopKey.raw(), val, len, mopTxns(n, nm, mopStart.raw()), listPool.compact(), writerIndex,
        indexUsable, opsSeen, opsSkipped, nonClientOps, n > 0 ? null : noTxnReason(), extraTxn.toArray(),
        extras.toArray(new Object[0][]));
    built.nilReads = nilReads;
    return built;
  }

  /**
   * Whether a :process names a client: anything but a keyword (Jepsen's named threads, :nemesis;
   * a Clojure keyword prints with a leading colon) and the string "nemesis" (the nemesis in a
   * JSON history).
   */
  public static boolean clientProcess(Object p) {
    if (p instanceof Number) return true;
    if (p instanceof Kw) return false;
    if (p instanceof String s) return !s.equals("nemesis");
    return !p.toString().startsWith(":");
  }

  private String noTxnReason() {
    if (opsSeen == 0) return "no operations: the history is empty";
    return "no :" + txnF + " operations" + (nonClientOps > 0 ? " of a client process" : "")
        + ", so nothing to check: " + opsSeen + (opsSeen == 1 ? " op" : " ops")
        + " skipped" + (nonClientOps > 0 ? " (" + nonClientOps + " of them :" + txnF + " ops of a process that is not a client's, such as the nemesis)" : "")
        + "; the first, " + firstSkipped
        + " (the :f of transaction ops is :" + txnF + "; --f NAME on the command line, :f in the API, names another)"
        + (firstSkippedLooksTxn ? "; elle-cli reads an op without :f whose :value is micro-ops as a transaction:"
            + " --input-format elle-cli on the command line, :input-format :elle-cli in check-file" : "");
  }

  // ------------------------------------------------------------------ validation

  private void validateMops(OpRecord r) {
    for (int i = 0; i < r.mopCount(); i++) {
      byte k = r.kind(i);
      if (k == OpRecord.MALFORMED) {
        throw new HistoryException(r.ordinal, r.where() + ": micro-op " + i + " " + r.renderMop(i)
            + " is not a [f k v] triple such as [:append 1 2]");
      }
      if (k == OpRecord.UNKNOWN) {
        String expected = workload == History.Workload.REGISTER ? "a read [:r k v] nor a write [:w k v]"
            : workload == History.Workload.APPEND ? "a read [:r k v] nor an append [:append k v]"
            : "a read [:r k v], an append [:append k v] nor a write [:w k v]";
        throw new HistoryException(r.ordinal, r.where() + ": micro-op " + i + " " + r.renderMop(i)
            + " is neither " + expected);
      }
      if (k == OpRecord.APPEND || k == OpRecord.WRITE) {
        History.Workload w = k == OpRecord.APPEND ? History.Workload.APPEND : History.Workload.REGISTER;
        if (workload == null) {
          workload = w;
          workloadWhere = "micro-op " + r.renderMop(i) + " of " + r.where();
        } else if (workload != w) {
          throw new HistoryException(r.ordinal, r.where() + ": micro-op " + i + " " + r.renderMop(i)
              + (k == OpRecord.APPEND ? " is an append" : " is a register write") + ", but "
              + workloadWhere + " made this a" + (workload == History.Workload.APPEND
                  ? " list-append history ([:r k v] and [:append k v])"
                  : "n rw-register history ([:r k v] and [:w k v])"));
        }
        byte tag = r.valueTag(i);
        if (tag == OpRecord.V_NIL) {
          throw new HistoryException(r.ordinal, r.where() + ": micro-op " + i + " " + r.renderMop(i)
              + (k == OpRecord.APPEND ? " appends" : " writes") + " nil; nil stands for the initial state, so values must be non-nil");
        }
        String coll = tag == OpRecord.V_LIST ? "a list" : tag == OpRecord.V_OBJ ? collection(r.valueObj(i)) : null;
        if (coll != null) {
          throw new HistoryException(r.ordinal, r.where() + ": micro-op " + i + " " + r.renderMop(i)
              + (k == OpRecord.APPEND ? " appends " : " writes ") + coll + "; expected a single value such as 5");
        }
      } else if (r.type == OpType.OK) {
        byte tag = r.valueTag(i);
        String coll = tag == OpRecord.V_OBJ ? collection(r.valueObj(i)) : null;
        if (coll != null) {
          throw new HistoryException(r.ordinal, r.where() + ": micro-op " + i + " " + r.renderMop(i) + " reads " + coll
              + "; a read returns nil, a single value such as 5 (rw-register) or a list of them such as [1 2] (list-append)");
        }
        if (tag == OpRecord.V_LIST && r.hasObjectElems()) listElems(r, i);
        if (tag == OpRecord.V_LIST && firstListRead == null) {
          firstListRead = r.where() + ": micro-op " + i + " " + r.renderMop(i) + " reads a list";
          if (workload == History.Workload.REGISTER) {
            throw new HistoryException(r.ordinal, firstListRead + "; rw-register reads return a single value (or nil)");
          }
        } else if ((tag == OpRecord.V_LONG || tag == OpRecord.V_OBJ) && firstScalarRead == null) {
          firstScalarRead = r.where() + ": micro-op " + i + " " + r.renderMop(i) + " reads a non-list value";
          if (workload == History.Workload.APPEND) {
            throw new HistoryException(r.ordinal, firstScalarRead + "; list-append reads return a list such as [1 2] (or nil)");
          }
        }
      }
    }
  }

  /** "a map", "a set" or "a list" when o is a collection (not a single value), else null. */
  private static String collection(Object o) {
    return o instanceof java.util.Map ? "a map" : o instanceof java.util.Set ? "a set"
        : o instanceof java.util.Collection ? "a list" : null;
  }

  /** A list read's elements are appended values: neither nil nor collections. */
  private static void listElems(OpRecord r, int i) {
    for (int j = 0, n = r.listLen(i); j < n; j++) {
      if (r.elemIsLong(i, j)) continue;
      Object e = r.elem(i, j);
      String what = e == null ? "nil" : collection(e);
      if (what != null) {
        throw new HistoryException(r.ordinal, r.where() + ": micro-op " + i + " " + r.renderMop(i)
            + " reads a list whose element " + (j + 1) + " (counting from 1) is " + what
            + "; list elements are appended values, single values such as 5, never nil");
      }
    }
  }

  private void sameShape(OpRecord inv, OpRecord r) {
    int n = r.mopCount();
    boolean same = n == inv.mopCount();
    for (int i = 0; same && i < n; i++) {
      byte k = r.kind(i);
      if (k != inv.kind(i) || !sameKey(inv, r, i)) same = false;
      else if (k != OpRecord.READ && !sameValue(inv, r, i)) same = false;
    }
    if (!same) {
      throw new HistoryException(r.ordinal, r.where() + ": its micro-ops differ from those of its invocation, "
          + inv.where() + "; a completion must repeat its invocation's micro-ops, with read values filled in");
    }
  }

  private static boolean sameKey(OpRecord a, OpRecord b, int i) {
    if (a.keyIsLong(i) != b.keyIsLong(i)) return false;
    return a.keyIsLong(i) ? a.keyLong(i) == b.keyLong(i) : java.util.Objects.equals(a.key(i), b.key(i));
  }

  private static boolean sameValue(OpRecord a, OpRecord b, int i) {
    byte t = a.valueTag(i);
    if (t != b.valueTag(i)) return false;
    return t == OpRecord.V_LONG ? a.valueLong(i) == b.valueLong(i) : java.util.Objects.equals(a.value(i), b.value(i));
  }

  // ------------------------------------------------------------------ storage

  private int sessionId(Object proc) {
    if (proc instanceof Long l) {
      int s = sessionLong.get(l);
      if (s >= 0) return s;
      s = sessionProcs.size();
      sessionLong.put(l, s);
      sessionProcs.add(proc);
      newSession();
      return s;
    }
    Integer s = sessionIds.get(proc);
    if (s == null) {
      s = sessionProcs.size();
      sessionIds.put(proc, s);
      sessionProcs.add(proc);
      newSession();
    }
    return s;
  }

  private void newSession() {
    pendingRec.add(null);
    if (pendingOn.length < pendingRec.size()) pendingOn = java.util.Arrays.copyOf(pendingOn, pendingOn.length * 2);
  }

  /** The object standing for a null value in the tables handed to {@link History}. */
  static Object nullValue() { return Table.NULL; }

  /**
   * The interned keys (or values) by id: integers as ints while every one fits in an int (then
   * as longs), never boxed ({@link History#key} and {@link History#value} box one when asked: a
   * table of boxed Longs cost an object per distinct key or value while loading; Cobra's write
   * ids, a million distinct at 10^5 transactions, were 16 MB of Longs and an array of 4 MB more;
   * 10^6 Plume-shaped transactions' 2 million keys, boxed when the history was built, 40 MB
   * made as the load ended), other objects as they are. In chunks of 65,536, never
   * copied (doubled, a million values' table and its copies were 16 MB; ten million, 268 MB).
   */
  private static final class Table {
    static final int CHUNK_BITS = History.VALUE_CHUNK_BITS, CHUNK = 1 << CHUNK_BITS;
    /** The integers: ints until one does not fit (ints null from then on), longs after. */
    private int[][] ints = new int[16][];
    private long[][] longs;
    /** Null until an object that is not an integer comes; then such objects at their ids. */
    private Object[] objs;
    private int n;

    int size() { return n; }

    private void room() {
      int c = n >>> CHUNK_BITS;
      int len = ints != null ? ints.length : longs.length;
      if ((n & (CHUNK - 1)) == 0) {
        if (c == len) {
          if (ints != null) ints = java.util.Arrays.copyOf(ints, 2 * c);
          else longs = java.util.Arrays.copyOf(longs, 2 * c);
        }
        // The first chunk small: most histories have a few keys and values.
        if (ints != null) ints[c] = new int[c == 0 ? 1024 : CHUNK];
        else longs[c] = new long[c == 0 ? 1024 : CHUNK];
      } else if (c == 0 && n == (ints != null ? ints[0].length : longs[0].length)) {
        if (ints != null) ints[0] = java.util.Arrays.copyOf(ints[0], Math.min(CHUNK, 4 * n));
        else longs[0] = java.util.Arrays.copyOf(longs[0], Math.min(CHUNK, 4 * n));
      }
      if (objs != null && n == objs.length) objs = java.util.Arrays.copyOf(objs, 2 * n);
    }

    int add(long v) {
      room();
      if (ints != null && v != (int) v) widen();
      if (ints != null) ints[n >>> CHUNK_BITS][n & (CHUNK - 1)] = (int) v;
      else longs[n >>> CHUNK_BITS][n & (CHUNK - 1)] = v;
      return n++;
    }

    /** The first integer that does not fit in an int: every chunk as longs from now on. */
    private void widen() {
      longs = new long[ints.length][];
      for (int c = 0; c < ints.length && ints[c] != null; c++) {
        int[] a = ints[c];
        long[] b = longs[c] = new long[a.length];
        for (int i = 0; i < a.length; i++) b[i] = a[i];
      }
      ints = null;
    }

    int add(Object o) {
      room();
      if (objs == null) objs = new Object[Math.max(1024, n + 1)];
      objs[n] = o == null ? NULL : o;
      return n++;
    }

    /** Stands for a null object (a null slot is an integer's). */
    static final Object NULL = new Object();

    long integer(int i) { return ints != null ? ints[i >>> CHUNK_BITS][i & (CHUNK - 1)] : longs[i >>> CHUNK_BITS][i & (CHUNK - 1)]; }

    Object get(int i) {
      Object o = objs == null || i >= objs.length ? null : objs[i];
      return o == null ? (Object) integer(i) : o == NULL ? null : o;
    }
  }

  /**
   * Interns longs into a table of ids shared with other objects: non-negative longs (Jepsen's
   * keys and per-key counters, Cobra's write ids) by direct lookup in pages of 16,384 ids,
   * allocated as first needed while they stay dense (at most 4M slots, or the micro-ops
   * expected, or 8 a long so far), never copied; others, and those of a range first met once
   * pages were too sparse, through a hash map. (One array up to 4M slots, doubled, was 8 MB for Cobra's million write ids at 10^5
   * transactions, copies included; from 4M on a hash map, 400 MB for its ten million at 10^6.)
   */
  private static final class LongIds {
    private static final int BITS = 14, PAGE = 1 << BITS, MASK = PAGE - 1;
    /** Up to 4M slots whatever the density, as the one array had. */
    private static final long SLOTS = 1 << 22;
    /** A range of longs that went to the hash map: never paged afterwards. */
    private static final int[] HASHED = new int[0];
    private int[][] pages = new int[0][]; // id + 1 per long; 0 = unset; null: no page yet
    private long paged;
    /** Slots allowed whatever the density: the micro-ops to expect, when told (each brings one long at most). */
    private long expected;
    private final LongIntMap big = new LongIntMap(1024);

    /** About n micro-ops to expect: pages for up to n slots, however sparse the longs come (a history listed by session meets its write ids across their whole range from the first session on). */
    void expect(long n) { expected = Math.max(expected, n); }

    /** Reads v's entry, if it has a direct one, and returns it (meaning nothing): see {@link #addMops}. */
    int touch(long v) {
      if (v < 0 || (v >>> BITS) >= pages.length) return 0;
      int[] p = pages[(int) (v >>> BITS)];
      return p == null || p == HASHED ? 0 : p[(int) v & MASK];
    }

    int id(long v, Table table) {
      if (v >= 0 && v < 1L << 31) {
        int k = (int) (v >>> BITS);
        int[] p = k < pages.length ? pages[k] : null;
        if (p == null) p = page(k, table.size());
        if (p != HASHED) {
          int id = p[(int) v & MASK] - 1;
          if (id >= 0) return id;
          id = table.add(v);
          p[(int) v & MASK] = id + 1;
          return id;
        }
      }
      int id = big.putIfAbsent(v, table.size());
      if (id == table.size()) table.add(v);
      return id;
    }

    /** Range k's page, new (or {@link #HASHED} when pages would be too sparse), for a table of n ids. */
    private int[] page(int k, int n) {
      if (k >= pages.length) pages = java.util.Arrays.copyOf(pages, Math.max(k + 1, 2 * pages.length));
      boolean dense = paged + PAGE <= Math.max(Math.max(SLOTS, expected), 8L * n);
      if (dense) paged += PAGE;
      return pages[k] = dense ? new int[PAGE] : HASHED;
    }
  }

  private final LongIds keyIds = new LongIds(), valueIds = new LongIds();

  private int internKey(OpRecord r, int i) {
    return r.keyIsLong(i) ? keyIds.id(r.keyLong(i), keys) : internObj(keyObj, keys, r.key(i));
  }

  private int internValue(OpRecord r, int i) {
    return r.valueTag(i) == OpRecord.V_LONG ? internLong(r.valueLong(i)) : internObj(valObj, values, r.valueObj(i));
  }

  private int internLong(long v) { return valueIds.id(v, values); }

  private static int internObj(HashMap<Object, Integer> map, Table table, Object o) {
    Integer id = map.get(o);
    if (id == null) {
      id = table.add(o);
      map.put(o, id);
    }
    return id;
  }

  private int internElem(OpRecord r, int i, int j) {
    return r.elemIsLong(i, j) ? internLong(r.elemLong(i, j)) : internObj(valObj, values, r.elem(i, j));
  }

  /** List reads recorded as nil (list-append), or null if none. */
  private java.util.BitSet nilReads;

  /** Adds txn t's micro-ops from r; with readsUnknown, reads are kept as nil (what a failed or indeterminate op read is unknown). */
  private void addMops(int t, OpRecord r, boolean readsUnknown) {
    int n = r.mopCount();
    if (scratchKey.length < n) {
      scratchKey = new int[Math.max(n, 2 * scratchKey.length)];
      scratchVal = new int[scratchKey.length];
    }
    int[] keyId = scratchKey, valId = scratchVal;
    // In passes: a large history's key table and (key, value) index are far larger than the
    // caches, and a transaction's keys are anywhere in them, so its keys' (and values') entries
    // in their tables, then its writes' slots in the index, are first touched in tight loops of
    // independent loads, which the processor overlaps, rather than each waited for in turn.
    // Keys and values are interned in the micro-ops' order (ids are assigned in order of first
    // appearance).
    long touched = 0;
    if (n > 1) {
      for (int i = 0; i < n; i++) {
        if (r.keyIsLong(i)) touched += keyIds.touch(r.keyLong(i));
        // Values too (Cobra's are its write ids, a million distinct at 10^5 transactions).
        if (r.valueTag(i) == OpRecord.V_LONG) touched += valueIds.touch(r.valueLong(i));
      }
    }
    for (int i = 0; i < n; i++) {
      byte k = r.kind(i);
      int key = keyId[i] = internKey(r, i);
      if (k == OpRecord.READ) {
        byte tag = readsUnknown ? OpRecord.V_NIL : r.valueTag(i);
        if (tag == OpRecord.V_LIST) {
          int len = r.listLen(i);
          if (scratchElems.length < len) scratchElems = new int[Math.max(len, 2 * scratchElems.length)];
          for (int j = 0; j < len; j++) scratchElems[j] = internElem(r, i, j);
          valId[i] = placeList(key, scratchElems, len);
        } else if (tag == OpRecord.V_NIL) {
          valId[i] = -1;
        } else {
          valId[i] = internValue(r, i);
        }
      } else {
        valId[i] = internValue(r, i);
      }
    }
    if (n > 1 && !indexAtBuild) for (int i = 0; i < n; i++) if (r.kind(i) != OpRecord.READ) touched += writerIndex.touch(keyId[i], valId[i]);
    this.touched += touched;
    if (normFrom < 0 && workload != null) normFrom = mopCount();
    if (mopKind.size() + n > estimatedMops && estimatedMops > 0 && spill == null) growMops(n);
    for (int i = 0; i < n; i++) {
      byte k = r.kind(i);
      int key = keyId[i], v = valId[i];
      int m = mopCount();
      mopKind.add(k);
      mopKey.add(key);
      if (k == OpRecord.READ) {
        byte tag = readsUnknown ? OpRecord.V_NIL : r.valueTag(i);
        int len = tag == OpRecord.V_LIST ? r.listLen(i) : tag == OpRecord.V_NIL ? -1 : -2;
        if (normFrom >= 0) {
          // The workload known, the read in its final form now (as build() puts the earlier ones).
          if (workload == History.Workload.APPEND) {
            if (len < 0) {
              if (len == -1) (nilReads == null ? nilReads = new java.util.BitSet() : nilReads).set(m);
              len = 0;
              v = 0;
            }
          } else {
            if (len == -1) v = History.NIL;
            len = -1;
          }
        }
        mopVal.add(v);
        mopLen.add(len);
      } else {
        mopVal.add(v);
        mopLen.add(-1);
        writes++;
        if (!indexAtBuild && !registerWrite(m, key, v)) duplicateWrite(m, key, v, r.where(), r.renderMop(i), r.ordinal);
      }
    }
    mopStart.add(mopCount());
  }

  /**
   * The first micro-op added once the workload was known (forced, or told by a first append or
   * write), from which reads are kept in their final form as they come; -1 while unknown.
   */
  private int normFrom = -1;

  /** A list read's elements, interned, before {@link #placeList} places them. */
  private int[] scratchElems = new int[64];

  /**
   * Per key id: the pool segment its reads share (offset, length used, capacity), offset -1 when
   * none yet. The reads of one key are prefixes of one another in a valid history (each shows the
   * whole list at a version), so instead of a copy per read (a 10^6-transaction Jepsen history
   * read about 30 million elements, 120 MB), a read that is a prefix of its key's segment points
   * into it, and one that extends it is written on in place when the segment has room (it is
   * given spare room: twice its length); a read that disagrees gets a segment of its own, which
   * becomes the key's when it is longer. The pool is read-only once built, and every reader sees
   * exactly its own elements at {@code listPool[mopVal .. mopVal + mopLen)}: shared or not, the
   * checks cannot tell, and a shared segment is never written below the length any read has.
   */
  private int[] segOff = new int[0], segLen = new int[0], segCap = new int[0];

  private boolean shareLists = true;

  /**
   * Whether a key's list reads share pool segments ({@link #placeList}; the default), or each read
   * is copied apart (as before: the tests build both and compare what the checks see).
   */
  public HistoryBuilder shareLists(boolean on) {
    shareLists = on;
    return this;
  }

  /**
   * Places a list read of key (its interned elements e[0, len)) in the pool, in the heap or
   * spilled (the same places, the same elements); returns its offset.
   */
  private int placeList(int key, int[] e, int len) {
    if (!shareLists) return appendList(e, len, len);
    if (key >= segOff.length) {
      int n = Math.max(key + 1, 2 * segOff.length + 64);
      int old = segOff.length;
      segOff = java.util.Arrays.copyOf(segOff, n);
      segLen = java.util.Arrays.copyOf(segLen, n);
      segCap = java.util.Arrays.copyOf(segCap, n);
      java.util.Arrays.fill(segOff, old, n, -1);
    }
    if (len == 0) return poolSize();
    int off = segOff[key];
    if (off >= 0) {
      int have = segLen[key];
      int common = Math.min(have, len);
      if (poolHolds(off, e, common)) {
        if (len <= have) return off;
        if (len <= segCap[key]) {
          poolPut(off + have, e, have, len - have);
          segLen[key] = len;
          return off;
        }
      } else if (len <= have) {
        return appendList(e, len, len);
      }
    }
    int at = appendList(e, len, len < 4 ? 8 : 2 * len);
    segOff[key] = at;
    segLen[key] = len;
    segCap[key] = poolSize() - at;
    return at;
  }

  private int poolSize() { return pool != null ? pool.size() : listPool.size(); }

  /** Whether the pool holds e[0, n) at off. */
  private boolean poolHolds(int off, int[] e, int n) {
    if (pool != null) return pool.same(off, e, n);
    return java.util.Arrays.mismatch(listPool.raw(), off, off + n, e, 0, n) < 0;
  }

  /** Writes e[from, from + n) at off, within the pool's size. */
  private void poolPut(int off, int[] e, int from, int n) {
    if (pool != null) pool.put(off, e, from, n);
    else System.arraycopy(e, from, listPool.raw(), off, n);
  }

  /** Appends e[0, len) to the pool with room for cap elements (the rest zero); returns its offset. */
  private int appendList(int[] e, int len, int cap) {
    return pool != null ? appendSpilled(e, len, cap) : appendSegment(e, len, cap);
  }

  private int appendSpilled(int[] e, int len, int cap) {
    int at = pool.size();
    pool.grow(cap);
    pool.put(at, e, 0, len);
    return at;
  }

  private int appendSegment(int[] e, int len, int cap) {
    int at = listPool.size();
    int[] pool = listPool.raw();
    if (at + cap > pool.length) {
      listPool.ensureCapacity((int) Math.min(Integer.MAX_VALUE - 8, Math.max(at + (long) cap, 2L * pool.length)));
      pool = listPool.raw();
    }
    System.arraycopy(e, 0, pool, at, len);
    listPool.truncate(at + cap);
    return at;
  }

  /**
   * Each micro-op's transaction, from the transactions' first micro-ops: derived when the history
   * is built (a pass over the micro-ops), not kept as the ops come (4 bytes a micro-op).
   */
  private static int[] mopTxns(int nTxns, int nm, int[] start) {
    int[] txn = new int[Math.max(nm, 1)];
    for (int t = 0; t < nTxns; t++) java.util.Arrays.fill(txn, start[t], start[t + 1], t);
    return txn;
  }

  /** The transaction of micro-op m, among those added so far. */
  private int txnOf(int m) {
    int[] start = mopStart.raw();
    int lo = 0, hi = mopStart.size() - 1; // start[lo] <= m < start[hi]
    if (m >= start[hi]) return hi; // the transaction being added
    while (hi - lo > 1) {
      int mid = (lo + hi) >>> 1;
      if (start[mid] <= m) lo = mid;
      else hi = mid;
    }
    return lo;
  }

  /** The micro-ops' key and value ids (or list offsets) of the transaction being added. */
  private int[] scratchKey = new int[32], scratchVal = new int[32];
  /** What touching the tables read (nothing anyone needs: kept so that the reads are not dropped). */
  long touched;

  /** Indexes the write; false if (key, value) was written before. */
  private boolean registerWrite(int m, int key, int v) {
    return writerIndex.putIfAbsent(key, v, m) == m;
  }

  private void duplicateWrite(int m, int key, int v, String where, String mop, long ordinal) {
    int prev = writerIndex.get(key, v);
    {
      int pt = txnOf(prev);
      long po = completeOrd.get(pt) >= 0 ? completeOrd.get(pt) : invokeOrd.get(pt);
      boolean app = mopKind.get(m) == OpRecord.APPEND;
      String verb = app ? "appends" : "writes", past = app ? "appended" : "wrote";
      throw new HistoryException(ordinal, where + ": micro-op " + mop + " " + verb + " "
          + Edn.str(values.get(v)) + " to key " + Edn.str(keys.get(key))
          + (pt == status.size() - 1 ? ", which the same transaction already " + past
              : ", which op " + po + " " + past + " too")
          + "; values must be unique per key, or reads cannot name their writer");
    }
  }
}
