package isocheck.online;

import isocheck.check.Level;
import isocheck.history.Kw;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One violation the {@link OnlineChecker} found while the history was still being produced, and
 * the moment it became certain: the event (completion) after which no later operation of the
 * history could explain it away. Immutable.
 */
public final class Violation {
  /** Elle's name of the anomaly: G0, G1c, G-single-item (with -process / -realtime), G1a, ... */
  public final String anomaly;
  /** The levels it rules out, of those checked online. */
  public final List<Level> levels;
  /** The ingested transaction event (0-based, invocations and completions of :txn ops) that made it certain. */
  public final long event;
  /** That event's :index and :time, or {@link isocheck.history.OpRecord#ABSENT}. */
  public final long index, time;
  /** The transactions involved, by their :index (as isocheck names them, T12), in cycle order for a cycle. */
  public final long[] txns;
  /** For a cycle: the edge each step takes (ww, wr, rw, process, realtime), parallel to {@link #txns}; else empty. */
  public final String[] steps;
  /** One sentence a database engineer can check by hand. */
  public final String explanation;
  /** {@link System#nanoTime()} when it was found. */
  public final long detectedNanos;
  /**
   * {@link System#nanoTime()} when the event that made it certain arrived (handed to the online
   * checker: {@link OnlineChecker#op(isocheck.history.OpRecord, long)}), or 0 when not told; the
   * latency to its report is {@code detectedNanos - arrivedNanos}.
   */
  public final long arrivedNanos;

  Violation(String anomaly, List<Level> levels, long event, long index, long time, long arrivedNanos, long[] txns,
      String[] steps, String explanation) {
    this.arrivedNanos = arrivedNanos;
    this.anomaly = anomaly;
    this.levels = List.copyOf(levels);
    this.event = event;
    this.index = index;
    this.time = time;
    this.txns = txns;
    this.steps = steps;
    this.explanation = explanation;
    this.detectedNanos = System.nanoTime();
  }

  /** The violation as plain data (string keys, {@link Kw} values), for the Clojure layer's ->clj. */
  public Map<String, Object> toData() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("anomaly", new Kw(anomaly));
    List<Object> ls = new ArrayList<>();
    for (Level l : levels) ls.add(new Kw(l.id));
    m.put("levels", ls);
    m.put("certain-at-event", event);
    if (index != isocheck.history.OpRecord.ABSENT) m.put("certain-at-index", index);
    if (time != isocheck.history.OpRecord.ABSENT) m.put("certain-at-time", time);
    List<Object> ts = new ArrayList<>();
    for (long t : txns) ts.add(t);
    m.put("txns", ts);
    if (steps.length > 0) {
      List<Object> ss = new ArrayList<>();
      for (String s : steps) ss.add(new Kw(s));
      m.put("steps", ss);
    }
    m.put("explanation", explanation);
    return m;
  }

  @Override public String toString() {
    return anomaly + " (" + explanation + "), certain at event " + event
        + (index != isocheck.history.OpRecord.ABSENT ? " (:index " + index + ")" : "");
  }
}
