package isocheck.util;

/** The threads a check starts (the parser's, the search's): started, and waited for whatever interrupts the caller. */
public final class Threads {
  private Threads() {}

  /**
   * Starts a daemon thread named {@code name} that completes {@code into} with what
   * {@code work} returns, or exceptionally with what it throws (rethrown where it is joined).
   */
  public static <T> Thread start(String name, java.util.concurrent.CompletableFuture<T> into,
                                 java.util.function.Supplier<T> work) {
    Thread t = new Thread(() -> {
      try {
        into.complete(work.get());
      } catch (Throwable e) {
        into.completeExceptionally(e);
      }
    }, name);
    t.setDaemon(true);
    t.start();
    return t;
  }

  /**
   * Waits for thread t (when not null) to end, even when interrupted meanwhile (its work must
   * not outlive the caller's); the interrupt is kept for the caller.
   */
  public static void join(Thread t) {
    if (t == null) return;
    boolean interrupted = false;
    while (true) {
      try {
        t.join();
        break;
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) Thread.currentThread().interrupt();
  }

  /** Puts x into q, waiting for room even when interrupted meanwhile; the interrupt is kept for the caller. */
  public static <T> void put(java.util.concurrent.BlockingQueue<T> q, T x) {
    boolean interrupted = false;
    while (true) {
      try {
        q.put(x);
        break;
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) Thread.currentThread().interrupt();
  }

  /** Takes from q, waiting even when interrupted meanwhile; the interrupt is kept for the caller. */
  public static <T> T take(java.util.concurrent.BlockingQueue<T> q) {
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
