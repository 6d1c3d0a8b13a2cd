package isocheck.online;

import isocheck.history.OpRecord;
import isocheck.history.OpStream;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.locks.LockSupport;

/**
 * Ingests records on a thread of its own, beside the thread that gives them: the online
 * checker's weak levels ({@link WeakOnline}, see {@link OnlineChecker#parallel}) beside the
 * strong levels' graphs, which share no state with them, and the hook's History for the final
 * check (isocheck.online): on two cores they run at once. Records cross as {@link
 * isocheck.io.PipedSink}'s do: in batches, each one stream of records ({@link OpRecord#writeTo})
 * read back into the relay thread's own record, so each side keeps its record in its own core's
 * cache. A batch is handed over when full or at {@link #flush} (the giving side has nothing more
 * for now: the relay thread must not wait for more events to report). A few batches are in
 * flight at most, so memory does not grow with the input. What the sink's thread wrote is the
 * giving thread's to read once {@link #sync} or {@link #finish} returned (the hand-back of the
 * last batch orders those writes before).
 */
public final class Relay {
  /** Records per batch, and batches queued for the relay thread. */
  private static final int BATCH = 256, QUEUED = 32;

  /** Where the relay thread sends each record, with the number and arrival time it was given with. */
  public interface Sink {
    void op(OpRecord r, long ev, long arrivedNanos);
  }

  private static final class Batch {
    final OpStream ops = new OpStream(BATCH * 16, BATCH * 8); // grows to what the records need
    final long[] ev = new long[BATCH], arrived = new long[BATCH];
    int n;
    boolean last;
  }

  private final Sink sink;
  private final OpRecord rec = new OpRecord();
  private final BlockingQueue<Batch> full = new ArrayBlockingQueue<>(QUEUED), free = new ArrayBlockingQueue<>(QUEUED + 2);
  private final Thread thread;
  private volatile Throwable failed;
  /** Batches handed over (giving thread), and done (relay thread). */
  private long handed;
  private volatile long doneBatches;
  /**
   * The number after the last record given (giving thread), after the last one handed over
   * (written once per batch, as doneEvents is: the two threads' counters each written on the
   * other's side per record would share a cache line), and after the last one done (relay
   * thread).
   */
  private long last;
  private volatile long given, doneEvents;
  private Batch cur;

  /** A relay to sink, whose thread (a daemon, named name) runs until {@link #finish}. */
  public Relay(Sink sink, String name) {
    this.sink = sink;
    for (int i = 0; i < QUEUED + 2; i++) free.add(new Batch());
    cur = free.poll();
    thread = new Thread(this::consume, name);
    thread.setDaemon(true);
    thread.start();
  }

  /** Gives the relay thread r (copied), numbered ev (ascending), arrived at arrivedNanos (0: unknown). */
  public void op(OpRecord r, long ev, long arrivedNanos) {
    Batch b = cur;
    if (b.n == BATCH) {
      hand();
      b = cur;
    }
    r.writeTo(b.ops);
    b.ev[b.n] = ev;
    b.arrived[b.n] = arrivedNanos;
    b.n++;
    last = ev + 1;
  }

  /** Hands over the batch being filled, if any: the relay thread gets every record given so far. */
  public void flush() {
    if (cur.n > 0) hand();
  }

  /**
   * From any thread: {@code eventsGiven} once the relay thread has done every record handed over
   * (those not handed over yet count as done: the giving side flushes when it waits), else the
   * number after the last it did.
   */
  public long eventsDone(long eventsGiven) {
    long d = doneEvents;
    return d >= given ? eventsGiven : d;
  }

  /** Flushes and waits until the relay thread has done every record given; rethrows its failure. */
  public void sync() {
    flush();
    while (doneBatches < handed) {
      if (failed != null) break;
      if (!thread.isAlive()) throw new IllegalStateException(thread.getName() + " ended early");
      LockSupport.parkNanos(20_000);
    }
    rethrowIfFailed();
  }

  /** Hands over what is left, waits for the relay thread to end; rethrows its failure. */
  public void finish() {
    given = last;
    cur.last = true;
    isocheck.util.Threads.put(full, cur);
    handed++;
    cur = null;
    isocheck.util.Threads.join(thread);
    rethrowIfFailed();
  }

  private void hand() {
    rethrowIfFailed();
    given = last;
    isocheck.util.Threads.put(full, cur);
    handed++;
    cur = isocheck.util.Threads.take(free);
  }

  private void rethrowIfFailed() {
    Throwable f = failed;
    if (f == null) return;
    if (f instanceof RuntimeException e) throw e;
    if (f instanceof Error e) throw e;
    throw new IllegalStateException(thread.getName() + " failed: " + f, f);
  }

  /** The relay thread: every batch in order; after a failure, batches are only returned. */
  private void consume() {
    while (true) {
      Batch b;
      try {
        b = isocheck.util.Threads.take(full);
      } catch (Throwable e) {
        // Out of memory while waiting (the giving thread took the last of the heap): the failure
        // is told there; keep taking, so that the giving thread is never left blocked.
        if (failed == null) failed = e;
        Thread.onSpinWait();
        continue;
      }
      if (failed == null) {
        try {
          for (int i = 0; i < b.n; i++) {
            rec.readFrom(b.ops);
            sink.op(rec, b.ev[i], b.arrived[i]);
          }
          if (b.n > 0) doneEvents = b.ev[b.n - 1] + 1;
        } catch (Throwable e) {
          failed = e;
        }
      }
      boolean last = b.last;
      b.n = 0;
      b.ops.clear();
      doneBatches++; // single writer: the relay thread
      if (last) return;
      free.add(b);
    }
  }
}
