package isocheck.util;

import java.util.Locale;
import java.util.function.Consumer;

/**
 * A {@link Progress} listener that writes a line now and then, once a check has run longer
 * than a threshold: nothing for a short check, then a line at most every interval, for example
 * <pre>
 *   [2.0 s] loading 61% (59 MB of 97 MB)
 *   [4.1 s] serializable: solver
 * </pre>
 * (after a prefix the owner gives, such as {@code "isocheck: h.edn: "}). A line is written when
 * a stage begins or reports work and the interval has passed since the last line, and, for a
 * stage that says nothing for a while (a solver's search), by a daemon thread that wakes every
 * interval: so a silent stage still shows it is alive. {@link #close} stops the thread. An
 * interval of 0 writes a line at every call, and starts no thread.
 *
 * <p>The threshold and the interval default to 2 s and 1 s; the system properties
 * {@value #AFTER_PROPERTY} and {@value #EVERY_PROPERTY} (milliseconds) override what the owner
 * asked for (tests set both to 0: a line at every stage).
 */
public final class ProgressMeter implements Progress, AutoCloseable {
  public static final long DEFAULT_AFTER_MS = 2000, DEFAULT_EVERY_MS = 1000;
  public static final String AFTER_PROPERTY = "isocheck.progress.after", EVERY_PROPERTY = "isocheck.progress.every";

  /** The current stage; replaced whole, so a reader never sees one stage's name with another's total. */
  private static final class State {
    final String name, unit;
    final long total;

    State(String name, long total, String unit) {
      this.name = name;
      this.total = total;
      this.unit = unit;
    }
  }

  private final String prefix;
  private final Consumer<String> sink;
  private final long startNs, afterNs, everyNs;
  private volatile State state;
  private volatile long done = -1;
  /** When the last line was written (System.nanoTime), or none yet; guarded by this. */
  private long lastNs;
  private boolean any;
  private int lines;
  private volatile boolean closed;
  private final Thread ticker;

  /**
   * Starts measuring now: lines go to sink, each starting with prefix, from afterMs on, at most
   * every everyMs (both overridden by the system properties when set).
   */
  public ProgressMeter(String prefix, Consumer<String> sink, long afterMs, long everyMs) {
    this.prefix = prefix == null ? "" : prefix;
    this.sink = sink;
    this.startNs = System.nanoTime();
    this.afterNs = Math.max(0, property(AFTER_PROPERTY, afterMs)) * 1_000_000L;
    this.everyNs = Math.max(0, property(EVERY_PROPERTY, everyMs)) * 1_000_000L;
    if (everyNs > 0) {
      ticker = new Thread(this::tick, "isocheck progress");
      ticker.setDaemon(true);
      ticker.start();
    } else {
      ticker = null;
    }
  }

  /** With the default threshold and interval. */
  public ProgressMeter(String prefix, Consumer<String> sink) {
    this(prefix, sink, DEFAULT_AFTER_MS, DEFAULT_EVERY_MS);
  }

  /** A system property's value in milliseconds, or dflt when it is not set or not a number. */
  static long property(String name, long dflt) {
    String v = System.getProperty(name);
    if (v == null) return dflt;
    try {
      return Long.parseLong(v.trim());
    } catch (NumberFormatException e) {
      return dflt;
    }
  }

  @Override public void stage(String name, long total, String unit) {
    done = total > 0 ? 0 : -1;
    state = new State(name, total, unit);
    maybe(System.nanoTime());
  }

  @Override public void done(long units) {
    done = units;
    maybe(System.nanoTime());
  }

  /** The lines written so far. */
  public synchronized int lines() { return lines; }

  private void maybe(long now) {
    if (closed || now - startNs < afterNs) return;
    synchronized (this) {
      if (closed || (any && now - lastNs < everyNs)) return;
      State s = state;
      if (s == null) return;
      String line = prefix + line(s, done, now - startNs);
      any = true;
      lastNs = now;
      lines++;
      try {
        sink.accept(line);
      } catch (RuntimeException e) {
        // A broken log or stream must not break the check.
      }
    }
  }

  /** "[3.1 s] loading 45% (44 MB of 97 MB)", "[12.0 s] serializable: solver", "[2.2 s] loading 120 MB". */
  static String line(State s, long done, long elapsedNs) {
    StringBuilder sb = new StringBuilder();
    sb.append('[').append(String.format(Locale.ROOT, "%.1f", elapsedNs / 1e9)).append(" s] ").append(s.name);
    if (s.total > 0 && done >= 0) {
      long pct = Math.min(100, Math.max(0, (long) Math.floor(100.0 * done / s.total)));
      sb.append(' ').append(pct).append("% (").append(amount(Math.min(done, s.total), s.unit, false)).append(" of ")
          .append(amount(s.total, s.unit, true)).append(')');
    } else if (done > 0 && s.unit != null) {
      sb.append(' ').append(amount(done, s.unit, true));
    }
    return sb.toString();
  }

  private static String amount(long n, String unit, boolean withUnit) {
    if (BYTES.equals(unit)) {
      if (n < 1L << 20) return (n + 512) / 1024 + " KB";
      if (n < 1L << 30) return (n + (1L << 19)) / (1L << 20) + " MB";
      long tenths = (n * 10 + (1L << 29)) / (1L << 30);
      return tenths / 10 + "." + tenths % 10 + " GB";
    }
    return withUnit && unit != null ? n + " " + unit : Long.toString(n);
  }

  private void tick() {
    try {
      while (!closed) {
        long now = System.nanoTime();
        long due;
        synchronized (this) {
          due = any ? lastNs + everyNs : startNs + afterNs;
        }
        long waitMs = Math.max(10, (due - now + 999_999) / 1_000_000L);
        Thread.sleep(waitMs);
        maybe(System.nanoTime());
      }
    } catch (InterruptedException e) {
      // closed
    }
  }

  /** Stops the thread; no line is written after this returns. */
  @Override public void close() {
    closed = true;
    if (ticker != null) ticker.interrupt();
    synchronized (this) {
      // A line being written has been written; none starts after closed is set.
    }
  }
}
