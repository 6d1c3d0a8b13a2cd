package isocheck.cli;

import isocheck.history.History;
import isocheck.io.EdnWriter;
import isocheck.sim.SimConfig;
import isocheck.sim.Simulator;
import isocheck.sim.Store;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * The training run bin/isocheck records its class-data archive from (the AOT cache of JDK 25
 * and later, JEP 483/514/515; the dynamic CDS archive of JDK 17-24): what a check of a small
 * history loads, links and runs. It writes a few small simulated histories (list-append and
 * rw-register, Jepsen's shape and Plume's) into a temporary directory, converts them into
 * every format isocheck reads (JSON, Plume text, dbcop JSON and bincode, Cobra logs, gzip),
 * and runs {@code check} on each as a user would (the default levels, the weak levels, SER and
 * SI, --format edn and json, a report under --out), then {@code verify}; everything printed is
 * discarded. It decides nothing: the archive only saves the JVM work of loading these classes
 * (and, on JDK 25, warms the JIT with their profiles), and a check gives the same result with
 * or without it. Not part of the command line's contract; {@code java -cp JAR
 * isocheck.cli.Train} exits 0 when every run gave the status expected.
 */
public final class Train {
  private Train() {}

  public static void main(String[] args) throws IOException {
    Path dir = Files.createTempDirectory("isocheck-train");
    int bad;
    try {
      bad = run(dir);
    } finally {
      try (Stream<Path> s = Files.walk(dir)) {
        for (Path p : (Iterable<Path>) s.sorted(Comparator.reverseOrder())::iterator) Files.deleteIfExists(p);
      }
    }
    System.exit(bad == 0 ? 0 : 1);
  }

  private static SimConfig config(Store store, History.Workload w, int txns, int ops, int sessions, int keys, double info) {
    return SimConfig.builder().seed(7).store(store).workload(w).txns(txns).sessions(sessions).keys(keys)
        .opsPerTxn(ops, ops).readFraction(0.5).failRate(info > 0 ? 0.05 : 0.0).infoRate(info)
        .pendingAtEnd(info > 0 ? 2 : 0).build();
  }

  /** Jepsen's rw-register shape (lein bench search's): zipf keys rotated after 32 writes, 1% :info. */
  private static SimConfig jepsenRegister(Store store, int txns) {
    return SimConfig.builder().seed(1).store(store).workload(History.Workload.REGISTER).txns(txns).sessions(10)
        .keys(1000).keyDist(SimConfig.KeyDist.ZIPF).maxWritesPerKey(32).opsPerTxn(4, 4).readFraction(0.5)
        .failRate(0.0).infoRate(0.01).build();
  }

  private static String write(Path dir, String name, SimConfig c) throws IOException {
    Path f = dir.resolve(name);
    try (EdnWriter w = EdnWriter.open(f)) {
      Simulator.run(c, w);
    }
    return f.toString();
  }

  /** Runs the training; returns how many runs ended with a status other than expected. */
  static int run(Path dir) throws IOException {
    PrintStream out = new PrintStream(OutputStream.nullOutputStream(), false, StandardCharsets.UTF_8);
    String append = write(dir, "append.edn", config(Store.SNAPSHOT_ISOLATION, History.Workload.APPEND, 400, 4, 10, 50, 0.01));
    String jepsenWr = write(dir, "jepsen-wr.edn", config(Store.SERIALIZABLE, History.Workload.REGISTER, 400, 4, 10, 50, 0.01));
    String plume = write(dir, "plume.edn", config(Store.READ_COMMITTED, History.Workload.REGISTER, 400, 20, 25, 800, 0));
    // One session: no conflicts, so no aborted transactions, which Cobra's logs cannot hold.
    String serial = write(dir, "serial.edn", config(Store.SERIALIZABLE, History.Workload.REGISTER, 100, 8, 1, 50, 0));
    // What lein bench startup checks (doc/benchmarks.md): the SI store's Jepsen rw-register
    // history and a Plume-shaped one at SER+SI (the version-order search, pruning, solver), and
    // Plume's list-append at the weak levels.
    String jepsenSi = write(dir, "jepsen-si.edn", jepsenRegister(Store.SNAPSHOT_ISOLATION, 1000));
    String plumeAppend = write(dir, "plume-append.edn", config(Store.SNAPSHOT_ISOLATION, History.Workload.APPEND, 1000, 20, 25, 2000, 0));
    String plumeSi = write(dir, "plume-si.edn", config(Store.SNAPSHOT_ISOLATION, History.Workload.REGISTER, 1000, 20, 25, 2000, 0));
    List<String[]> runs = new ArrayList<>();
    String o = dir.resolve("out").toString();
    // Without --quiet, as users run it: the progress meter's classes are loaded then.
    runs.add(new String[] {"check", "--format", "edn", "--levels", "serializable,snapshot-isolation", jepsenSi});
    runs.add(new String[] {"check", "--format", "edn", "--levels", "tcc,ra,rc,ci", plumeAppend});
    runs.add(new String[] {"check", "--format", "edn", "--levels", "serializable,snapshot-isolation", plumeSi});
    runs.add(new String[] {"check", "--format", "edn", "--levels", "tcc,ra,rc,ci", plume});
    runs.add(new String[] {"check", "--format", "edn", append});
    runs.add(new String[] {"check", "--quiet", append});
    runs.add(new String[] {"check", "--quiet", "--format", "edn", "--levels", "serializable,snapshot-isolation", jepsenWr});
    runs.add(new String[] {"check", "--quiet", "--format", "json", "--levels", "tcc,ra,rc,ci", plume});
    runs.add(new String[] {"check", "--quiet", "--out", o, jepsenWr});
    runs.add(new String[] {"check", "--quiet", "--format", "edn", "--out", dir.resolve("out2").toString(), append});
    // Every format isocheck reads, from the histories above.
    String[][] formats = {{"json", "plume.json"}, {"plume", "plume.txt"}, {"dbcop", "plume.dbcop.json"},
        {"dbcop-bincode", "plume.bincode"}, {"edn", "plume.edn.gz"}};
    for (String[] f : formats) {
      String to = dir.resolve(f[1]).toString();
      runs.add(new String[] {"convert", "--lossy", "--to", f[0], plume, to});
      runs.add(new String[] {"check", "--quiet", "--levels", "serializable,snapshot-isolation,tcc,ra,rc,ci", to});
    }
    runs.add(new String[] {"convert", "--lossy", "--to", "cobra", serial, dir.resolve("serial.cobra").toString()});
    runs.add(new String[] {"check", "--quiet", dir.resolve("serial.cobra").toString()});
    runs.add(new String[] {"convert", "--to", "json", append, dir.resolve("append.json").toString()});
    runs.add(new String[] {"check", "--quiet", "--levels", "serializable,snapshot-isolation", dir.resolve("append.json").toString()});
    runs.add(new String[] {"verify", append, dir.resolve("out2").resolve("result.edn").toString()});
    // What main installs, so that its class is in the class data too.
    Thread.UncaughtExceptionHandler before = Thread.getDefaultUncaughtExceptionHandler();
    Thread.setDefaultUncaughtExceptionHandler(Main.lastResort());
    Thread.setDefaultUncaughtExceptionHandler(before);
    int bad = 0;
    for (String[] r : runs) {
      int status = Main.run(r, out, out);
      // Checks hold or are violated (the SI store's histories); conversions and verify succeed.
      boolean ok = r[0].equals("check") ? status == Main.HOLDS || status == Main.VIOLATED : status == Main.HOLDS;
      if (!ok) {
        bad++;
        System.err.println("isocheck.cli.Train: " + String.join(" ", r) + ": exit status " + status);
      }
    }
    return bad;
  }
}
