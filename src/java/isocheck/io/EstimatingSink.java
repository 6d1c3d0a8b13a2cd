package isocheck.io;

import isocheck.history.OpRecord;
import isocheck.history.OpSink;
import isocheck.history.OpType;

/**
 * Tells the history builder what a file of a few megabytes or more holds, from its first
 * megabytes: a file of Jepsen's (EDN, JSON) spends about the same bytes on each op all along,
 * so the transactions, micro-ops, writes and list elements in its first quarter (from 4 MB to
 * {@link #AFTER} bytes), scaled to the file's size, are what the builder needs room for
 * ({@link OpSink#sizeHint}). Before the first op it
 * asks for little, rather than the builder's guess from the size alone (a Jepsen list-append op
 * takes about 160 bytes; one of 20 micro-ops takes 350, and its arrays doubled up to twice
 * what they held). A producer that hints itself (the other tools' streaming readers) turns it
 * off. Counts completions (not invocations) as the builder keeps them; a hint, nothing more.
 */
final class EstimatingSink implements OpSink {
  /** How much of the file is read before the estimate. */
  static final long AFTER = 16 << 20;
  /** The smallest file told: below, the builder's arrays are small whatever it holds. */
  static final long FROM = 8 << 20;
  /**
   * About how far the stream read is ahead of the op (the text readers' buffer of 1 MB): the
   * ops seen span the bytes read less this much (counting it in, 10^5 transactions of Plume's
   * shape in 33 MB of EDN were estimated at 94,744, and the builder's arrays grew at the end).
   */
  private static final long AHEAD = 1 << 20;

  /** The compressed bytes the decompressor reads at a time ({@link GzipInput}'s buffer). */
  static final int GZIP_INPUT = 1 << 16;

  /**
   * What the estimate is multiplied by: an estimate short of the history costs far more than one
   * over it (the builder's micro-op columns grow once more at the end, and under a small young
   * generation the arrays they replace were already copied into the old one, where they stay
   * until a full collection: 260 MB at 10^6 Plume-shaped transactions), and the first megabytes
   * may spend more bytes on an op than the rest: a history's first reads mostly find the initial
   * value, nil (null in JSON) rather than a digit or two. Of 10^6 Plume-shaped transactions
   * (twice as many keys: 45% of the first 16 MB's micro-ops read nil, almost none of the last
   * 16 MB's), the first 16 MB of elle-cli JSON gave 5.0% fewer micro-ops than there are, of
   * EDN 3.5%; at 10^5, 3.0% and 2.1%. With 1.05 the JSON's estimate fell short: JSON's is 1.067
   * ({@link #forJson}), as far over its history as EDN's is over its own (1.3-1.4% at 10^6, a
   * nil costing JSON half as many bytes again as EDN; at 1.08 its columns were 2.6% over, 4 MB
   * more than EDN's, all of it touched). EDN's stays 1.05: 8% more arrays tipped the load of 10^5 Plume-shaped
   * transactions with invocations (72 MB, which about fills its young generation) into a
   * collection every time rather than some of the times (221 MB of RSS rather than 149).
   */
  static final double MARGIN = 1.05, JSON_MARGIN = 1.067;

  private double margin = MARGIN;

  /**
   * The margin for a JSON history: its reads of nil ({@code null}, 4 bytes) cost more than
   * EDN's ({@code nil}, 3) against the digit or two of a value read later. For the estimating
   * sink under {@code sink}, if any (the one a reader is given: it, or a streaming sink over it).
   */
  static void forJson(OpSink sink) {
    StreamingSink st = StreamingSink.of(sink);
    OpSink s = st != null ? st.down : sink;
    if (s instanceof EstimatingSink e) e.margin = JSON_MARGIN;
  }

  private final OpSink down;
  private final long size, after, ahead;
  /** Bytes of the file (or of its text, {@link #countsText}) read so far (the reader's stream, a window ahead of the op). */
  long bytes;
  private boolean off, started;
  private long txns, mops, writes, elems;

  EstimatingSink(OpSink down, long size) { this(down, size, size); }

  /**
   * For a file of {@code size} bytes as stored holding {@code text} bytes of history: a
   * gzip-compressed file's estimate counts the text read from it ({@link #countsText}: {@link
   * GzipInput} says how much), as a plain file's counts its bytes. The text reader's buffer
   * fills a read of the decompressor at a time, its input buffer (64 KB) inflated: that much
   * is counted out as read ahead, where a plain file's reader is a megabyte ahead. (Counting
   * the compressed bytes read, scaled by the file's ratio, the first megabytes, which compress
   * better than the rest, made 10^6 Plume-shaped transactions' micro-ops 7.4% more than there
   * are, their EDN's 1.4%: 15 MB more of the builder's columns, all of it touched. Counting the
   * text with nothing counted out, 0.1% fewer: the columns grew by an eighth at the end.)
   */
  EstimatingSink(OpSink down, long size, long text) {
    this.down = down;
    this.countsText = text > size;
    this.size = countsText ? text : size;
    this.after = Math.max(4 << 20, Math.min(AFTER, this.size / 4));
    this.ahead = countsText ? Math.min(AHEAD, (long) ((double) GZIP_INPUT * text / size)) : AHEAD;
  }

  /** Whether {@link #bytes} counts the text read from a gzip-compressed file rather than the file's bytes. */
  final boolean countsText;

  @Override public void op(OpRecord r) {
    if (!off) count(r);
    down.op(r);
  }

  private void count(OpRecord r) {
    if (!started) {
      started = true;
      down.sizeHint(1 << 10, 1 << 14, 1 << 13, 1 << 14);
    }
    if (r.type != OpType.INVOKE && r.valueShape == OpRecord.VALUE_TXN) {
      txns++;
      int n = r.mopCount();
      mops += n;
      for (int i = 0; i < n; i++) {
        if (r.kind(i) != OpRecord.READ) writes++;
        else if (r.valueTag(i) == OpRecord.V_LIST) elems += r.listLen(i);
      }
    }
    if (bytes >= after) {
      off = true;
      double f = (double) size / (bytes - ahead) * margin;
      down.sizeHint((long) (txns * f) + 16, (long) (mops * f) + 64, (long) (writes * f) + 64, (long) (elems * f) + 64);
    }
  }

  @Override public void end() { down.end(); }

  @Override public void sizeHint(long txns, long mops, long writes, long elems) {
    off = true;
    down.sizeHint(txns, mops, writes, elems);
  }
}
