package isocheck.io;

import isocheck.history.OpRecord;
import isocheck.history.OpSink;
import isocheck.history.OpType;

/**
 * Tells the history builder what a large file holds, from its first megabytes: a file of
 * Jepsen's (EDN, JSON) spends about the same bytes on each op all along, so the transactions,
 * micro-ops, writes and list elements in the first {@link #AFTER} bytes, scaled to the file's
 * size, are what the builder needs room for ({@link OpSink#sizeHint}). Before the first op it
 * asks for little, rather than the builder's guess from the size alone (a Jepsen list-append op
 * takes about 160 bytes; one of 20 micro-ops takes 350, and its arrays doubled up to twice
 * what they held). A producer that hints itself (the other tools' streaming readers) turns it
 * off. Counts completions (not invocations) as the builder keeps them; a hint, nothing more.
 */
final class EstimatingSink implements OpSink {
  /** How much of the file is read before the estimate. */
  static final long AFTER = 16 << 20;

  private final OpSink down;
  private final long size;
  /** Bytes of the file read so far (the reader's stream, a window ahead of the op). */
  long bytes;
  private boolean off, started;
  private long txns, mops, writes, elems;

  EstimatingSink(OpSink down, long size) {
    this.down = down;
    this.size = size;
  }

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
    if (bytes >= AFTER) {
      off = true;
      double f = (double) size / bytes * 1.05;
      down.sizeHint((long) (txns * f) + 16, (long) (mops * f) + 64, (long) (writes * f) + 64, (long) (elems * f) + 64);
    }
  }

  @Override public void end() { down.end(); }

  @Override public void sizeHint(long txns, long mops, long writes, long elems) {
    off = true;
    down.sizeHint(txns, mops, writes, elems);
  }
}
