package isocheck.io;

import isocheck.history.Kw;
import isocheck.history.OpRecord;
import isocheck.history.OpSink;
import isocheck.history.OpType;
import isocheck.report.Json;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * elle-cli's histories (ligurio/elle-cli, {@code src/elle_cli/cli.clj}). Its JSON is the JSON
 * {@link JsonReader} reads (an array of op objects, {@code "type"}, {@code "f"} and a
 * micro-op's kind becoming keywords, every other string staying a string), and its EDN is
 * Jepsen's; the one convention of its own is that an op without {@code :f} whose
 * {@code :value} is a vector of micro-ops is a transaction, as Elle's list-append and
 * rw-register histories often are written. {@link #transactionsWithoutF} applies it;
 * {@link Writer} writes elle-cli's JSON.
 */
public final class ElleCli {
  private ElleCli() {}

  /**
   * {@code sink}, except that an op without {@code :f} whose {@code :value} is a non-empty
   * vector of micro-ops gets {@code :f f} (the transactions' :f) on its way, as elle-cli reads it.
   */
  public static OpSink transactionsWithoutF(OpSink sink, String f) {
    Kw kw = new Kw(f == null ? "txn" : f.startsWith(":") ? f.substring(1) : f);
    return new OpSink() {
      @Override
      public void op(OpRecord r) {
        if (r.f == null && r.valueShape == OpRecord.VALUE_TXN && r.mopCount() > 0) r.f = kw;
        sink.op(r);
      }

      @Override
      public void end() { sink.end(); }
    };
  }

  /**
   * An {@link OpSink} writing elle-cli's JSON: one array, one op object per line, fields
   * {@code index time type process f value} as the op has them. JSON has no keywords: a
   * keyword ({@code :x}, a key or a process such as {@code :nemesis}) is written as the string
   * of its name, which elle-cli and isocheck read back as that string. {@link #end} closes the
   * array and flushes (the stream is left open).
   */
  public static final class Writer implements OpSink {
    private final OutputStream out;
    private final StringBuilder sb = new StringBuilder(1 << 12);
    private boolean first = true;

    public Writer(OutputStream out) { this.out = out; }

    @Override
    public void op(OpRecord r) {
      sb.append(first ? "[" : ",\n ");
      first = false;
      sb.append('{');
      boolean more = false;
      if (r.index != OpRecord.ABSENT) {
        sb.append("\"index\":").append(r.index);
        more = true;
      }
      if (r.time != OpRecord.ABSENT) {
        sb.append(more ? "," : "").append("\"time\":").append(r.time);
        more = true;
      }
      if (r.type >= 0 || r.typeRaw != null) {
        sb.append(more ? "," : "").append("\"type\":");
        Json.string(sb, r.type >= 0 ? OpType.name(r.type) : Kw.nameOf(r.typeRaw));
        more = true;
      }
      if (r.hasProcess) {
        sb.append(more ? "," : "").append("\"process\":");
        Json.write(sb, r.process);
        more = true;
      }
      if (r.f != null) {
        sb.append(more ? "," : "").append("\"f\":");
        Json.string(sb, Kw.nameOf(r.f));
        more = true;
      }
      if (r.valueShape != OpRecord.VALUE_ABSENT) {
        sb.append(more ? "," : "").append("\"value\":");
        if (r.valueShape == OpRecord.VALUE_TXN) mops(r);
        else Json.write(sb, r.valueRaw);
      }
      sb.append('}');
      if (sb.length() > 1 << 16) flush();
    }

    private void mops(OpRecord r) {
      sb.append('[');
      for (int i = 0; i < r.mopCount(); i++) {
        if (i > 0) sb.append(',');
        if (r.kind(i) == OpRecord.MALFORMED) {
          Json.write(sb, r.valueObj(i));
          continue;
        }
        sb.append('[');
        Object f = r.fRaw(i);
        Json.string(sb, f != null ? Kw.nameOf(f) : r.kind(i) == OpRecord.READ ? "r" : r.kind(i) == OpRecord.APPEND ? "append" : "w");
        sb.append(',');
        Json.write(sb, r.key(i));
        sb.append(',');
        Json.write(sb, r.value(i));
        sb.append(']');
      }
      sb.append(']');
    }

    private void flush() {
      try {
        out.write(sb.toString().getBytes(StandardCharsets.UTF_8));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      sb.setLength(0);
    }

    @Override
    public void end() {
      sb.append(first ? "[]\n" : "]\n");
      flush();
      try {
        out.flush();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }
}
