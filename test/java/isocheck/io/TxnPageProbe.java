package isocheck.io;

import isocheck.history.OpRecord;
import isocheck.history.OpSink;
import isocheck.history.OpType;
import java.io.ByteArrayInputStream;
import java.io.IOException;

/**
 * For tests: what the other tools' streaming buffer ({@link TxnBuffer}) keeps of the
 * transactions it has handed on, and what their ops' messages still say.
 */
public final class TxnPageProbe {
  private TxnPageProbe() {}

  /**
   * Reads a Plume/PolySI {@code text} streaming (as {@link Formats#readHistory} reads a file)
   * or whole, into a sink that keeps a copy of op {@code keep} (as the history builder's
   * thread may hold an op while the reader goes on); returns where that op came from, asked
   * only once the whole text is read.
   */
  public static String plumeOrigin(byte[] text, boolean streaming, int keep) throws IOException {
    OpRecord kept = new OpRecord();
    OpSink sink = new OpSink() {
      private long n;

      @Override public void op(OpRecord r) {
        if (n++ == keep) kept.copyFrom(r);
      }
    };
    PlumeText.read(new ByteArrayInputStream(text), streaming ? new StreamingSink(sink, text.length) : sink);
    return kept.originText();
  }

  /**
   * Streams {@code n} transactions of one op each through a buffer, each handed on as the next
   * begins; returns the most pages of transactions the buffer held at once.
   */
  public static int mostPagesHeld(int n) {
    TxnBuffer b = new TxnBuffer();
    int id = b.longColumn();
    b.stream(new OpSink() {
      @Override public void op(OpRecord r) {}
    }, new TxnBuffer.Origin() {
      @Override public long arg(int t) { return b.longAt(id, t); }
      @Override public String of(Object session, long arg, long tag) { return "txn " + arg; }
    }, null);
    int most = 0;
    for (int t = 0; t < n; t++) {
      int u = b.txn(0L, OpType.OK, t);
      b.setLong(id, u, 1000 + t);
      b.flushBefore(u, -1);
      b.op(u, OpRecord.WRITE, t, null, 1, null, false, t);
      most = Math.max(most, b.pagesHeld());
    }
    b.finishStream();
    return most;
  }
}
