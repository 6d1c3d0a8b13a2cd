package isocheck.online;

import isocheck.history.OpRecord;
import isocheck.history.OpStream;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.locks.LockSupport;

/**
 * The weak levels ({@link WeakOnline}) on a thread of their own, beside the strong levels'
 * graphs on the ingesting thread: on two cores the two engines, which share no state, run at
 * once (with serializable, snapshot isolation and the three weak levels each takes about half
 * the work). Records cross as {@link isocheck.io.PipedSink}'s do: in batches, each one stream of
 * records ({@link OpRecord#writeTo}) read back into the weak thread's own record, so each side
 * keeps its record in its own core's cache. A batch is handed over when full or at {@link
 * #flush} (the ingesting side's queue is empty: the weak levels must not wait for more events to
 * report). A few batches are in flight at most, so memory does not grow with the input. The
 * weak engine's state is the ingesting thread's to read again once {@link #sync} or {@link
 * #finish} returned (the hand-back of the last batch orders its writes before).
 */
final class WeakRelay {
  /** Records per batch, and batches queued for the weak thread. */
  private static final int BATCH = 512, QUEUED = 8;

  /** Where the weak thread sends each record: the transaction event's number, and when it arrived. */
  interface Sink {
    void op(OpRecord r, long ev, long arrivedNanos);
  }

  private static final class Batch {
    final OpStream ops = new OpStream(BATCH * 48, BATCH * 24);
    final long[] ev = new long[BATCH], arrived = new long[BATCH];
    int n;
    boolean last;
  }

  private final Sink sink;
  private final OpRecord rec = new OpRecord();
  private final BlockingQueue<Batch> full = new ArrayBlockingQueue<>(QUEUED), free = new ArrayBlockingQueue<>(QUEUED + 2);
  private final Thread thread;
  private volatile Throwable failed;
  /** Batches handed over (ingesting thread), and done (weak thread). */
  private long handed;
  private volatile long doneBatches;
  /** The event after the last one given (ingesting thread), and after the last one done (weak thread). */
  private volatile long given;
  private volatile long doneEvents;
  private Batch cur;

  WeakRelay(Sink sink) {
    this.sink = sink;
    for (int i = 0; i < QUEUED + 2; i++) free.add(new Batch());
    cur = free.poll();
    thread = new Thread(this::consume, "isocheck online weak levels");
    thread.setDaemon(true);
    thread.start();
  }

  /** Gives the weak thread r (copied), transaction event ev, arrived at arrivedNanos (0: unknown). */
  void op(OpRecord r, long ev, long arrivedNanos) {
    Batch b = cur;
    if (b.n == BATCH) {
      hand();
      b = cur;
    }
    r.writeTo(b.ops);
    b.ev[b.n] = ev;
    b.arrived[b.n] = arrivedNanos;
    b.n++;
    given = ev + 1;
  }

  /** Hands over the batch being filled, if any: the weak thread sees every event given so far. */
  void flush() {
    if (cur.n > 0) hand();
  }

  /**
   * Transaction events the weak levels have ingested; from any thread: every event given, once
   * the weak thread has caught up (else the event after the last it did).
   */
  long eventsDone(long eventsGiven) {
    long d = doneEvents;
    return d >= given ? eventsGiven : d;
  }

  /** Flushes and waits until the weak thread has done every event given; rethrows its failure. */
  void sync() {
    flush();
    while (doneBatches < handed) {
      if (failed != null) break;
      LockSupport.parkNanos(20_000);
    }
    rethrowIfFailed();
  }

  /** Hands over what is left, waits for the weak thread to end; rethrows its failure. */
  void finish() {
    cur.last = true;
    put(cur);
    handed++;
    cur = null;
    isocheck.util.Threads.join(thread);
    rethrowIfFailed();
  }

  private void hand() {
    rethrowIfFailed();
    put(cur);
    handed++;
    cur = take(free);
  }

  private void rethrowIfFailed() {
    Throwable f = failed;
    if (f == null) return;
    if (f instanceof RuntimeException e) throw e;
    if (f instanceof Error e) throw e;
    throw new IllegalStateException("the weak levels' thread failed: " + f, f);
  }

  /** The weak thread: every batch in order; after a failure, batches are only returned. */
  private void consume() {
    while (true) {
      Batch b = take(full);
      if (failed == null) {
        try {
          for (int i = 0; i < b.n; i++) {
            rec.readFrom(b.ops);
            sink.op(rec, b.ev[i], b.arrived[i]);
            doneEvents = b.ev[i] + 1;
          }
        } catch (Throwable e) {
          failed = e;
        }
      }
      boolean last = b.last;
      b.n = 0;
      b.ops.clear();
      doneBatches++; // single writer: the weak thread
      if (last) return;
      free.add(b);
    }
  }

  private void put(Batch b) {
    boolean interrupted = false;
    while (true) {
      try {
        full.put(b);
        break;
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) Thread.currentThread().interrupt();
  }

  private static Batch take(BlockingQueue<Batch> q) {
    boolean interrupted = false;
    try {
      while (true) {
        try {
          return q.take();
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
    } finally {
      if (interrupted) Thread.currentThread().interrupt();
    }
  }
}
