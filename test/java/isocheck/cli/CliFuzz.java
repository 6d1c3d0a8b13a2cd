package isocheck.cli;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Mutated histories through the command line ({@link Main#run}, in-process): bytes flipped,
 * ranges deleted, duplicated or cut off, tokens and numbers inserted (Jepsen's keywords, nil,
 * huge and odd literals, NUL, broken UTF-8, JSON pieces), one to four at a time, into valid
 * histories of both workloads in EDN and JSON. Whatever the input, the command must answer with
 * an exit status of 0 to 3, without an internal error or an exception's name, with status 1
 * only when a violation is printed, with a short standard error, and within a time limit.
 */
public final class CliFuzz {
  private CliFuzz() {}

  /** What a run found: inputs tried, bad outcomes (the first described), exit statuses 0..3. */
  public static final class Report {
    public int inputs, bad;
    public final int[] exits = new int[4];
    public String first;

    @Override
    public String toString() {
      return inputs + " inputs, exits " + Arrays.toString(exits) + ", " + bad + " bad" + (first == null ? "" : "; first: " + first);
    }
  }

  private static final String[] TOKENS = {"nil", ":txn", ":ok", ":info", ":fail", ":invoke", ":r", ":w", ":append", "[", "]",
      "{", "}", "\"", "\\", "#{", "#", "-", "1e400", "99999999999999999999999", "-0", "0x1F", "\u0000", "\u00ff", "\ufffd",
      ":index", ":process", ":value", ":type", ":f", ":time", "true", "false", "\"x\"", "[:r 1 [1 nil]]", "[:w 1 {}]",
      "[:r 1 {:a 1}]", "[:append 1 [1]]", "[:r 1 1]", "[[:r 1 nil]]", "{:type :ok}", "1.5", "1/2", "\\a", "#inst \"2020\"",
      ";", ",", "\n", " ", "[:r nil nil]", "[:w 1 nil]", "[:r]", "[]", ":nemesis", "-1", "2147483648",
      "9223372036854775808", "\"r\"", "\"w\"", "\"append\"", "null", "[\"r\",1,null]", "[\"w\",1,1]", "{\"type\":\"ok\"}",
      "\"txn\""};

  /**
   * Tries count mutated inputs (seeded from seed) made from the given valid histories, writing
   * them under dir (kept only when bad), each given timeoutMs.
   */
  public static Report run(long seed, int count, List<Path> histories, Path dir, long timeoutMs) throws IOException {
    List<byte[]> seeds = new ArrayList<>();
    List<String> exts = new ArrayList<>();
    for (Path p : histories) {
      seeds.add(Files.readAllBytes(p));
      exts.add(p.toString().endsWith(".json") ? ".json" : ".edn");
    }
    Report rep = new Report();
    ExecutorService ex = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "cli-fuzz");
      t.setDaemon(true);
      return t;
    });
    try {
      for (long s = seed; s < seed + count; s++) {
        Random r = new Random(s);
        int si = r.nextInt(seeds.size());
        byte[] b = mutate(seeds.get(si), r);
        Path f = dir.resolve("m" + s + exts.get(si));
        Files.write(f, b);
        List<String> args = new ArrayList<>(List.of("check", "--format", r.nextBoolean() ? "edn" : "text"));
        if (r.nextInt(4) == 0) args.addAll(List.of("--levels", r.nextBoolean() ? "tcc,ra,rc,ci" : "serializable,snapshot-isolation"));
        if (r.nextInt(6) == 0) args.addAll(List.of("--workload", r.nextBoolean() ? "wr" : "append"));
        if (r.nextInt(8) == 0) args.addAll(List.of("--out", dir.resolve("out" + s).toString()));
        args.add(f.toString());
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        PrintStream po = new PrintStream(out, true, StandardCharsets.UTF_8), pe = new PrintStream(err, true, StandardCharsets.UTF_8);
        Future<Integer> fut = ex.submit(() -> Main.run(args.toArray(new String[0]), po, pe));
        Integer code = null;
        String why = null;
        try {
          code = fut.get(timeoutMs, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
          why = "no answer within " + timeoutMs + " ms";
          fut.cancel(true);
        } catch (ExecutionException e) {
          why = "threw " + e.getCause();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          why = "interrupted";
        }
        String es = err.toString(StandardCharsets.UTF_8), os = out.toString(StandardCharsets.UTF_8);
        if (why == null && (code < 0 || code > 3)) why = "exit " + code;
        if (why == null && (es.contains("internal error") || es.contains("Exception") || es.contains("\tat ")))
          why = "standard error: " + es.lines().filter(l -> l.contains("internal error") || l.contains("Exception")).findFirst().orElse(es);
        if (why == null && code == 1 && !os.contains("false") && !os.contains("VIOLATED")) why = "exit 1 without a violation";
        if (why == null && es.lines().count() > 30) why = es.lines().count() + " lines on standard error";
        rep.inputs++;
        if (code != null && code >= 0 && code <= 3) rep.exits[code]++;
        if (why != null) {
          rep.bad++;
          if (rep.first == null) rep.first = "seed " + s + " " + args + ": " + why;
        } else {
          Files.deleteIfExists(f);
        }
      }
    } finally {
      ex.shutdownNow();
    }
    return rep;
  }

  static byte[] mutate(byte[] src, Random r) {
    byte[] b = src;
    int k = r.nextInt(10) < 6 ? 1 : 1 + r.nextInt(4);
    for (int i = 0; i < k; i++) {
      int p = b.length == 0 ? 0 : r.nextInt(b.length);
      switch (r.nextInt(7)) {
        case 0: // a byte
          if (b.length == 0) break;
          b = b.clone();
          b[p] = (byte) r.nextInt(256);
          break;
        case 1: { // a range deleted
          int len = Math.min(b.length - p, 1 + r.nextInt(40));
          byte[] c = new byte[b.length - len];
          System.arraycopy(b, 0, c, 0, p);
          System.arraycopy(b, p + len, c, p, b.length - p - len);
          b = c;
          break;
        }
        case 2: case 3: // a token inserted
          b = splice(b, p, p, TOKENS[r.nextInt(TOKENS.length)].getBytes(StandardCharsets.UTF_8));
          break;
        case 4: // cut off
          b = Arrays.copyOf(b, p);
          break;
        case 5: { // a range duplicated
          int len = Math.min(b.length - p, 1 + r.nextInt(200));
          b = splice(b, p + len, p + len, Arrays.copyOfRange(b, p, p + len));
          break;
        }
        default: { // a run of digits replaced by another number
          int q = p;
          while (q < b.length && Character.isDigit(b[q])) q++;
          String num = new String[] {"0", "-1", "7", "100000", "2147483647", "4294967296", "18446744073709551616"}[r.nextInt(7)];
          b = splice(b, p, q, num.getBytes(StandardCharsets.UTF_8));
        }
      }
    }
    return b;
  }

  private static byte[] splice(byte[] b, int from, int to, byte[] with) {
    byte[] c = new byte[b.length - (to - from) + with.length];
    System.arraycopy(b, 0, c, 0, from);
    System.arraycopy(with, 0, c, from, with.length);
    System.arraycopy(b, to, c, from + with.length, b.length - to);
    return c;
  }
}
