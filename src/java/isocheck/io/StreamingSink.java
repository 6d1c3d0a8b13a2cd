package isocheck.io;

import isocheck.history.OpRecord;
import isocheck.history.OpSink;

/**
 * The sink {@link Formats#readHistory} gives a reader when the input can be read again (a
 * file, a directory): it tells the other tools' readers (Plume text, dbcop JSON and bincode)
 * that they may stream, handing each transaction on as soon as it is complete, so that the
 * history builder works while the file is still being read ({@link TxnBuffer#stream}). A
 * reader that does says so ({@link #used}); when the file turns out to need the whole-file
 * reading after all, or anything fails, the caller reads it again whole, which gives exactly
 * what reading it whole always gave (the history, or the error).
 */
final class StreamingSink implements OpSink {
  final OpSink down;
  /** The input's size in bytes as read (a file's, not gzip-compressed; a directory's logs'), or -1. */
  final long size;
  /** Whether a reader streamed into this sink. */
  boolean used;

  StreamingSink(OpSink down, long size) {
    this.down = down;
    this.size = size;
  }

  /** The streaming sink sink is, or null. */
  static StreamingSink of(OpSink sink) { return sink instanceof StreamingSink s ? s : null; }

  @Override public void op(OpRecord r) { down.op(r); }

  @Override public void end() { down.end(); }

  @Override public void sizeHint(long txns, long mops, long writes, long elems) { down.sizeHint(txns, mops, writes, elems); }
}
