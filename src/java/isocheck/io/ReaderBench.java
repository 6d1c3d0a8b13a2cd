package isocheck.io;

import isocheck.history.History;
import isocheck.history.HistoryBuilder;
import isocheck.history.Kw;
import isocheck.history.OpRecord;
import isocheck.history.OpSink;
import isocheck.history.OpType;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * Throughput of the history readers, as a program (not a test): writes a synthetic Jepsen
 * list-append history with {@link EdnWriter} (and its JSON Lines twin), then times
 * {@link EdnWriter} without I/O, {@link EdnReader} alone, {@link EdnReader} feeding
 * {@link HistoryBuilder} on a second thread (as files load) and on the reader's, and {@link JsonReader} alone, printing ops/s and MB/s for each run.
 *
 * <p>The history: 10 processes, each transaction 4 micro-ops, half reads and half appends
 * over a pool of 200 keys; a key is retired once it holds 40 elements, so completed reads
 * return lists of 0-40 (mostly 10-30) elements, as in Jepsen's append workload.
 *
 * <p>Usage: {@code lein with-profile +bench run -m isocheck.io.ReaderBench [ops] [runs] [dir]},
 * or {@code java -Xmx6g -cp target/classes isocheck.io.ReaderBench ...} after {@code lein javac}
 * (defaults: 2000000 ops, 5 runs, the system temp directory; the files are deleted afterwards).
 * The first run of each kind includes JIT warm-up; on a shared machine, take the best.
 */
public final class ReaderBench {
  private ReaderBench() {}

  public static void main(String[] args) throws IOException {
    long ops = args.length > 0 ? Long.parseLong(args[0]) : 2_000_000;
    int runs = args.length > 1 ? Integer.parseInt(args[1]) : 5;
    Path dir = args.length > 2 ? Path.of(args[2]) : Path.of(System.getProperty("java.io.tmpdir"));
    Path edn = Files.createTempFile(dir, "bench-history", ".edn");
    Path json = Files.createTempFile(dir, "bench-history", ".jsonl");
    try {
      long t0 = System.nanoTime();
      try (EdnWriter w = EdnWriter.open(edn)) {
        generate(ops, w);
      }
      double wsec = (System.nanoTime() - t0) / 1e9;
      long ednBytes = Files.size(edn);
      System.out.printf("wrote %,d ops, %.1f MB of EDN in %.2f s: %,.0f ops/s, %.0f MB/s (EdnWriter)%n",
          ops, ednBytes / 1e6, wsec, ops / wsec, ednBytes / 1e6 / wsec);
      for (int i = 0; i < runs; i++) {
        long s = System.nanoTime();
        EdnWriter w = new EdnWriter(OutputStream.nullOutputStream());
        generate(ops, w);
        report("EdnWriter (generator included, no I/O)", ops, ednBytes, System.nanoTime() - s);
      }
      try (OutputStream o = new BufferedOutputStream(Files.newOutputStream(json), 1 << 16)) {
        generate(ops, new JsonLines(o));
      }
      long jsonBytes = Files.size(json);

      for (int i = 0; i < runs; i++) {
        Counter c = new Counter();
        long s = System.nanoTime();
        EdnReader.read(edn, c);
        report("EdnReader", c.n, ednBytes, System.nanoTime() - s);
      }
      for (int i = 0; i < runs; i++) {
        long s = System.nanoTime();
        History h = Formats.readHistory(edn.toString(), null);
        report("EdnReader+HistoryBuilder, 2 threads (" + h.nTxns + " txns, " + h.mopCount() + " micro-ops)", h.opsSeen, ednBytes, System.nanoTime() - s);
      }
      System.setProperty("isocheck.load.pipe-from", String.valueOf(Long.MAX_VALUE));
      for (int i = 0; i < runs; i++) {
        long s = System.nanoTime();
        History h = Formats.readHistory(edn.toString(), null);
        report("EdnReader+HistoryBuilder, 1 thread", h.opsSeen, ednBytes, System.nanoTime() - s);
      }
      System.clearProperty("isocheck.load.pipe-from");
      for (int i = 0; i < runs; i++) {
        Counter c = new Counter();
        long s = System.nanoTime();
        JsonReader.read(json, c);
        report("JsonReader", c.n, jsonBytes, System.nanoTime() - s);
      }
    } finally {
      if (System.getProperty("keep") == null) {
        Files.deleteIfExists(edn);
        Files.deleteIfExists(json);
      } else System.out.println("kept " + edn + " and " + json);
    }
  }

  private static void report(String what, long ops, long bytes, long nanos) {
    double sec = nanos / 1e9;
    System.out.printf("%-42s %,10d ops in %.3f s: %,12.0f ops/s %7.1f MB/s%n", what, ops, sec, ops / sec,
        bytes / 1e6 / sec);
  }

  /** Counts ops and touches every micro-op, as a consumer would. */
  private static final class Counter implements OpSink {
    long n, sum;

    @Override
    public void op(OpRecord r) {
      n++;
      for (int i = 0; i < r.mopCount(); i++) {
        sum += r.keyLong(i);
        if (r.valueTag(i) == OpRecord.V_LIST) sum += r.listLen(i);
      }
    }
  }

  /** Feeds {@code ops} ops of a list-append history to {@code sink}, then ends it. */
  static void generate(long ops, OpSink sink) {
    final int procs = 10, mops = 4, poolSize = 200, retireAt = 40;
    SplittableRandom rnd = new SplittableRandom(42);
    long[] pool = new long[poolSize];
    long[][] lists = new long[poolSize][retireAt];
    int[] lens = new int[poolSize];
    long nextKey = 0;
    for (int i = 0; i < poolSize; i++) pool[i] = nextKey++;
    // Pre-fill so reads start in the typical range.
    for (int i = 0; i < poolSize; i++) {
      int l = rnd.nextInt(retireAt);
      for (int j = 0; j < l; j++) lists[i][j] = j + 1;
      lens[i] = l;
    }
    long[] nextVal = new long[poolSize];
    for (int i = 0; i < poolSize; i++) nextVal[i] = lens[i] + 1;

    OpRecord r = new OpRecord();
    long ord = 0, time = 1_000_000;
    int[][] slot = new int[procs][mops];
    boolean[][] isRead = new boolean[procs][mops];
    long[][] val = new long[procs][mops];
    Long[] procIds = new Long[procs];
    for (int p = 0; p < procs; p++) procIds[p] = (long) p;
    ArrayList<Integer> order = new ArrayList<>();
    for (int p = 0; p < procs; p++) order.add(p);

    while (ord < ops) {
      // Invoke a batch of transactions, one per process.
      for (int p = 0; p < procs && ord < ops; p++) {
        r.reset(ord);
        r.index = ord++;
        r.time = time += 1000 + rnd.nextInt(5000);
        r.type = OpType.INVOKE;
        r.typeRaw = Kw.INVOKE;
        r.process = procIds[p];
        r.hasProcess = true;
        r.f = Kw.TXN;
        r.valueShape = OpRecord.VALUE_TXN;
        for (int m = 0; m < mops; m++) {
          int s = rnd.nextInt(poolSize);
          slot[p][m] = s;
          isRead[p][m] = rnd.nextBoolean();
          if (isRead[p][m]) {
            r.beginMop(OpRecord.READ, Kw.R);
            r.setKey(pool[s]);
            r.setValueNil();
          } else {
            val[p][m] = nextVal[s]++;
            r.beginMop(OpRecord.APPEND, Kw.APPEND);
            r.setKey(pool[s]);
            r.setValue(val[p][m]);
          }
        }
        sink.op(r);
      }
      // Complete them in a shuffled order; each runs atomically at its completion.
      for (int i = procs - 1; i > 0; i--) {
        int j = rnd.nextInt(i + 1);
        Integer t = order.get(i);
        order.set(i, order.get(j));
        order.set(j, t);
      }
      for (int p : order) {
        if (ord >= ops) break;
        r.reset(ord);
        r.index = ord++;
        r.time = time += 1000 + rnd.nextInt(5000);
        r.type = OpType.OK;
        r.typeRaw = Kw.OK;
        r.process = procIds[p];
        r.hasProcess = true;
        r.f = Kw.TXN;
        r.valueShape = OpRecord.VALUE_TXN;
        for (int m = 0; m < mops; m++) {
          int s = slot[p][m];
          if (isRead[p][m]) {
            r.beginMop(OpRecord.READ, Kw.R);
            r.setKey(pool[s]);
            r.beginList();
            for (int j = 0; j < lens[s]; j++) r.addElem(lists[s][j]);
          } else {
            r.beginMop(OpRecord.APPEND, Kw.APPEND);
            r.setKey(pool[s]);
            r.setValue(val[p][m]);
            if (lens[s] < retireAt) lists[s][lens[s]++] = val[p][m];
          }
        }
        sink.op(r);
      }
      // Retire full keys; appends to a retired key that were already invoked stay unread.
      for (int s = 0; s < poolSize; s++) {
        if (lens[s] >= retireAt) {
          pool[s] = nextKey++;
          lens[s] = 0;
          nextVal[s] = 1;
          Arrays.fill(lists[s], 0);
        }
      }
    }
    sink.end();
  }

  /** Just enough of a JSON Lines writer for the benchmark's ops. */
  private static final class JsonLines implements OpSink {
    private final OutputStream out;
    private final StringBuilder sb = new StringBuilder(512);

    JsonLines(OutputStream out) { this.out = out; }

    @Override
    public void op(OpRecord r) {
      sb.setLength(0);
      sb.append("{\"index\":").append(r.index).append(",\"time\":").append(r.time)
          .append(",\"type\":\"").append(OpType.name(r.type)).append("\",\"process\":").append(r.process)
          .append(",\"f\":\"txn\",\"value\":[");
      for (int i = 0; i < r.mopCount(); i++) {
        if (i > 0) sb.append(',');
        sb.append(r.kind(i) == OpRecord.READ ? "[\"r\"," : "[\"append\",").append(r.keyLong(i)).append(',');
        switch (r.valueTag(i)) {
          case OpRecord.V_LONG: sb.append(r.valueLong(i)); break;
          case OpRecord.V_LIST: {
            sb.append('[');
            for (int j = 0; j < r.listLen(i); j++) {
              if (j > 0) sb.append(',');
              sb.append(r.elemLong(i, j));
            }
            sb.append(']');
            break;
          }
          default: sb.append("null");
        }
        sb.append(']');
      }
      sb.append("]}\n");
      try {
        out.write(sb.toString().getBytes(StandardCharsets.US_ASCII));
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }
  }
}
