package isocheck.io;

import isocheck.history.History;
import java.io.IOException;

/**
 * One load of a history file, as {@code isocheck check} loads it ({@link Formats#readHistory}:
 * the reader and the history builder), for {@code lein bench load}: run as the main class of
 * the uberjar under the launcher's JVM flags ({@code ISOCHECK_MAIN_CLASS=isocheck.io.LoadBench
 * bin/isocheck check FILE}), so that the process's peak RSS is what loading that file costs
 * there. Prints one EDN map: {@code {:ms load-ms, :txns n, :mops n, :sessions n, :keys n}}.
 * The arguments are check's; the last one is the file, and {@code --input-format NAME} is
 * honoured. With {@code -Disocheck.loadbench.pools=true} (in {@code JAVA_OPTS}), the heap's
 * pools too, on standard error: each one's most used during the load and its use at the end
 * (of the young generation, the most is about the pages loading touched).
 */
public final class LoadBench {
  private LoadBench() {}

  public static void main(String[] args) throws IOException {
    String file = args[args.length - 1];
    Formats.Format named = null;
    for (int i = 0; i + 1 < args.length; i++) {
      if (args[i].equals("--input-format")) named = Formats.Format.parse(args[i + 1]);
    }
    long t0 = System.nanoTime();
    History h = Formats.readHistory(file, null, null, named);
    long ms = (System.nanoTime() - t0) / 1_000_000L;
    System.out.println("{:ms " + ms + ", :txns " + h.nTxns + ", :mops " + h.mopCount() + ", :sessions "
        + h.sessionCount() + ", :keys " + h.keyCount() + "}");
    if (Boolean.getBoolean("isocheck.loadbench.pools")) {
      for (java.lang.management.MemoryPoolMXBean p : java.lang.management.ManagementFactory.getMemoryPoolMXBeans()) {
        if (p.getType() != java.lang.management.MemoryType.HEAP) continue;
        System.err.printf("%s: most %d KB, at the end %d KB%n", p.getName(), p.getPeakUsage().getUsed() >> 10,
            p.getUsage().getUsed() >> 10);
      }
    }
    System.exit(0);
  }
}
