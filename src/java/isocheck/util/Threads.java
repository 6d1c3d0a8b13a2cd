package isocheck.util;

/** Waiting for the threads a check starts (the parser's, the search's), whatever interrupts the caller. */
public final class Threads {
  private Threads() {}

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
}
