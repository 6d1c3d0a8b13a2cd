package isocheck.io;

import isocheck.history.OpRecord;
import isocheck.history.OpSink;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.lang.ref.WeakReference;

/**
 * For tests: what the other tools' streaming buffer ({@link TxnBuffer}) keeps of the
 * transactions it has handed on. Reads a Plume/PolySI text into a sink that keeps a copy of
 * one op (as the history builder's thread may hold an op while the reader moves on) and
 * watches another's {@link OpRecord#originFn} through a weak reference.
 */
public final class TxnPageProbe {
  private TxnPageProbe() {}

  /**
   * Reads {@code text} streaming (as {@link Formats#readHistory} reads a file) or whole; returns
   * the origin op {@code keep} names, asked only once the whole text is read, and whether what
   * op {@code watch}'s origin is made from was let go (collected) by the time op {@code at}
   * reached the sink.
   */
  public static Object[] read(byte[] text, boolean streaming, int keep, int watch, int at) throws IOException {
    OpRecord kept = new OpRecord();
    Object[] watched = {null};
    boolean[] gone = {false};
    OpSink sink = new OpSink() {
      private long n;

      @Override public void op(OpRecord r) {
        if (n == keep) kept.copyFrom(r);
        if (n == watch) watched[0] = new WeakReference<>(r.originFn);
        if (n == at) {
          WeakReference<?> w = (WeakReference<?>) watched[0];
          for (int i = 0; i < 5 && w.get() != null; i++) System.gc();
          gone[0] = w.get() == null;
        }
        n++;
      }
    };
    PlumeText.read(new ByteArrayInputStream(text), streaming ? new StreamingSink(sink, text.length) : sink);
    return new Object[] {kept.originText(), gone[0]};
  }
}
