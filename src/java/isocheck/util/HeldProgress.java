package isocheck.util;

/**
 * The progress of work started ahead on a thread of its own while the caller's thread reports
 * its own stages: held back (the latest stage and its count kept) until the caller comes to wait
 * for that work ({@link #release}), then passed on as it comes. So one listener never sees two
 * threads' stages interleaved, nor one stage's count under another's name.
 */
public final class HeldProgress implements Progress {
  private final Progress to;
  private boolean released;
  private String name, unit;
  private long total, done = -1;

  public HeldProgress(Progress to) { this.to = to; }

  @Override
  public synchronized void stage(String name, long total, String unit) {
    if (released) {
      to.stage(name, total, unit);
      return;
    }
    this.name = name;
    this.total = total;
    this.unit = unit;
    done = -1;
  }

  @Override
  public synchronized void done(long units) {
    if (released) to.done(units);
    else done = units;
  }

  /** Passes on the stage held back (and how far it got), and from now on everything as it comes. */
  public synchronized void release() {
    if (released) return;
    released = true;
    if (name == null) return;
    to.stage(name, total, unit);
    if (done >= 0) to.done(done);
  }
}
