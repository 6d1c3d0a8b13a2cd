package isocheck.history;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

/**
 * An {@link OpSink} that hands ops to another sink on a second thread, in batches of copied
 * records, so that parsing a file and building the history use two cores. Order is preserved;
 * an exception thrown by the target (a {@link HistoryException} naming the op) is rethrown to the
 * producer at its next call, and at {@link #end()} at the latest.
 */
public final class PipelinedSink implements OpSink {
  private static final int BATCH = 1024;
  private static final OpRecord[] POISON = new OpRecord[0];

  private final OpSink target;
  private final BlockingQueue<OpRecord[]> full = new ArrayBlockingQueue<>(4);
  private final BlockingQueue<OpRecord[]> free = new ArrayBlockingQueue<>(6);
  private final Thread worker;
  private volatile Throwable failure;
  private OpRecord[] batch;
  private int n;
  private final java.util.IdentityHashMap<OpRecord[], Integer> counts = new java.util.IdentityHashMap<>();

  public PipelinedSink(OpSink target) {
    this.target = target;
    for (int i = 0; i < 6; i++) {
      OpRecord[] b = new OpRecord[BATCH];
      for (int j = 0; j < BATCH; j++) b[j] = new OpRecord();
      free.add(b);
    }
    batch = take(free);
    worker = new Thread(this::work, "isocheck-history-builder");
    worker.setDaemon(true);
    worker.start();
  }

  private void work() {
    while (true) {
      OpRecord[] b;
      try {
        b = full.take();
      } catch (InterruptedException e) {
        failure = e;
        return;
      }
      if (b == POISON) return;
      int m;
      synchronized (counts) {
        m = counts.remove(b);
      }
      // After a failure, keep draining (without building) so the producer never blocks.
      if (failure == null) {
        try {
          for (int i = 0; i < m; i++) target.op(b[i]);
        } catch (Throwable t) {
          failure = t;
        }
      }
      free.add(b);
    }
  }

  private static OpRecord[] take(BlockingQueue<OpRecord[]> q) {
    try {
      return q.take();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while reading a history", e);
    }
  }

  private void check() {
    Throwable t = failure;
    if (t == null) return;
    if (t instanceof RuntimeException re) throw re;
    if (t instanceof Error er) throw er;
    throw new IllegalStateException(t);
  }

  @Override
  public void op(OpRecord r) {
    batch[n++].copyFrom(r);
    if (n == BATCH) flush();
  }

  private void flush() {
    check();
    synchronized (counts) {
      counts.put(batch, n);
    }
    try {
      full.put(batch);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while reading a history", e);
    }
    batch = take(free);
    n = 0;
    check();
  }

  @Override
  public void end() {
    if (n > 0) flush();
    try {
      full.put(POISON);
      worker.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while reading a history", e);
    }
    check();
    target.end();
  }
}
