package isocheck.report;

import isocheck.graph.Edge;
import isocheck.history.History;
import isocheck.history.Kw;
import isocheck.history.OpRecord;
import java.util.Map;

/**
 * Explains single dependency steps T → S in words and as data. Data dependencies (WW, WR, RW)
 * are explained by the workload's analysis, which knows the version orders; session and
 * realtime steps are explained here.
 */
public final class Steps {
  /** One explained step: result-map data ({:type :ww, :key k, ...}) and a sentence. */
  public record Step(Map<String, Object> data, String text) {}

  /** Explains the data dependencies of a workload. */
  public interface DataExplainer {
    /** Explains a → b of the given type (Edge.WW/WR/RW), or returns null if it cannot. */
    Step explain(int a, int b, int type);
  }

  private final History h;
  private final DataExplainer data;

  public Steps(History h, DataExplainer data) {
    this.h = h;
    this.data = data;
  }

  public Step explain(int a, int b, int type) {
    if (type == Edge.SO) {
      return new Step(Anomaly.map("type", new Kw("process"), "process", h.process(a)),
          h.name(a) + " and " + h.name(b) + " ran on process " + isocheck.history.Edn.str(h.process(a))
              + ", " + h.name(a) + " first");
    }
    if (type == Edge.RT) {
      return new Step(Anomaly.map("type", new Kw("realtime"), "completed", idx(h.completeIndex(a), h.completeOrdinal(a)),
          "invoked", idx(h.invokeIndex(b), h.invokeOrdinal(b))),
          h.name(a) + " completed (op " + idx(h.completeIndex(a), h.completeOrdinal(a)) + ") before " + h.name(b)
              + " was invoked (op " + idx(h.invokeIndex(b), h.invokeOrdinal(b)) + ")");
    }
    Step s = data.explain(a, b, type);
    if (s != null) return s;
    // Every workload's explainer cites a read for each data step it makes; this is a safety net.
    return new Step(Anomaly.map("type", new Kw(Edge.name(type))), h.name(a) + " precedes " + h.name(b) + " by a "
        + Edge.name(type) + " dependency the checker cannot cite a read for");
  }

  private long idx(long index, long ordinal) {
    return h.indexUsable && index != OpRecord.ABSENT ? index : ordinal;
  }
}
