package isocheck.io;

import isocheck.history.OpRecord;
import isocheck.history.OpSink;
import isocheck.history.OpStream;
import java.io.IOException;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

/**
 * Loads on two cores: the reader parses on the calling thread while another thread feeds the ops
 * to the sink (the history builder). Ops are handed over in batches, each one stream of records
 * ({@link OpRecord#writeTo}), which the sink's thread reads back into a record of its own:
 * each side keeps its record in its own core's cache, and only the stream crosses, written and
 * read in order (handing over the records themselves slowed the reader by 40% on Jepsen's
 * list-append).
 * The ops reach the sink in the order read, and a failure is reported as reading on one thread
 * would report it: when the sink rejects an op, that error wins over a reader error at a later
 * op; the reader then stops at its next hand-over. A few batches are in flight at most, so
 * memory does not grow with the input.
 */
final class PipedSink implements OpSink {
  /** Ops per batch (at most; fewer when their stream reaches BATCH * 64 longs), and batches queued for the sink's thread. */
  private static final int BATCH = 1024, QUEUED = 4;

  /** How a history is read into a sink. */
  interface Reading {
    void read(OpSink sink) throws IOException;
  }

  /**
   * Reads with {@code reading} into {@code sink}, the sink on its own thread. Throws the first
   * error in op order (the sink's, else the reader's).
   */
  static void read(OpSink sink, Reading reading) throws IOException {
    PipedSink p = new PipedSink(sink);
    try {
      reading.read(p);
    } catch (IOException | RuntimeException | Error e) {
      Throwable first = p.finishQuietly();
      if (first != null && first != e) throw rethrow(first);
      throw e;
    }
    Throwable first = p.finishQuietly();
    if (first != null) throw rethrow(first);
  }

  private static final class Batch {
    final OpStream ops = new OpStream(BATCH * 64, BATCH * 24);
    int n;
    /** The last batch; {@code end}: the reader reached the end (the sink's end() is due). */
    boolean last, end;
    /** The producer's {@link OpSink#sizeHint} (txns, micro-ops, writes, elements), for the sink before this batch's ops; or null. */
    long[] hint;
  }

  private final OpSink down;
  /** The sink's thread's record, filled from each batch in turn. */
  private final OpRecord rec = new OpRecord();
  private final BlockingQueue<Batch> full = new ArrayBlockingQueue<>(QUEUED), free = new ArrayBlockingQueue<>(QUEUED + 2);
  private final Thread thread;
  private volatile Throwable failed;
  private Batch cur;

  private PipedSink(OpSink down) {
    this.down = down;
    for (int i = 0; i < QUEUED + 2; i++) free.add(new Batch());
    cur = free.poll();
    thread = new Thread(this::consume, "isocheck-load");
    thread.setDaemon(true);
    thread.start();
  }

  /** Goes to the sink with the batch being filled, on the sink's thread, before that batch's ops. */
  @Override public void sizeHint(long txns, long mops, long writes, long elems) {
    if (cur != null) cur.hint = new long[] {txns, mops, writes, elems};
  }

  @Override public void op(OpRecord r) {
    if (cur == null) throw new IllegalStateException("op after end");
    if (cur.n == BATCH || cur.ops.size() >= BATCH * 64) {
      Throwable f = failed;
      if (f != null) throw rethrow(f);
      isocheck.util.Threads.put(full, cur);
      cur = isocheck.util.Threads.take(free);
    }
    r.writeTo(cur.ops);
    cur.n++;
  }

  /** The reader's end: the rest goes to the sink, then the sink's end(); waits for both. */
  @Override public void end() {
    Throwable f = finish(true);
    if (f != null) throw rethrow(f);
  }

  /** Hands over what is left (once), waits for the sink's thread; returns the sink's failure or null. */
  private Throwable finishQuietly() {
    return finish(false);
  }

  private Throwable finish(boolean end) {
    if (cur != null) {
      cur.last = true;
      cur.end = end;
      isocheck.util.Threads.put(full, cur);
      cur = null;
    }
    isocheck.util.Threads.join(thread);
    return failed;
  }

  /** The sink's thread: every batch in order; after a failure, batches are only returned. */
  private void consume() {
    while (true) {
      Batch b;
      try {
        b = full.take();
      } catch (InterruptedException e) {
        failed = e;
        return;
      } catch (Throwable e) {
        // Out of memory while waiting for a batch (the reader's thread took the last of the
        // heap): the failure is the load's, reported on the reader's thread; keep taking, so
        // that the reader, which stops at its next hand-over, is never left blocked.
        if (failed == null) failed = e;
        Thread.onSpinWait();
        continue;
      }
      if (failed == null) {
        try {
          if (b.hint != null) down.sizeHint(b.hint[0], b.hint[1], b.hint[2], b.hint[3]);
          for (int i = 0; i < b.n; i++) {
            rec.readFrom(b.ops);
            down.op(rec);
          }
          if (b.end) down.end();
        } catch (Throwable e) {
          failed = e;
        }
      }
      if (b.last) return;
      b.n = 0;
      b.hint = null;
      b.ops.clear();
      free.add(b);
    }
  }

  private static RuntimeException rethrow(Throwable t) {
    if (t instanceof RuntimeException r) throw r;
    if (t instanceof Error e) throw e;
    throw new IllegalStateException("loading failed: " + t, t);
  }
}
