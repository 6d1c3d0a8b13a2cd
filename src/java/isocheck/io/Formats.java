package isocheck.io;

import isocheck.history.History;
import isocheck.history.HistoryException;
import isocheck.history.HistoryBuilder;
import isocheck.history.OpSink;
import isocheck.util.Progress;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PushbackInputStream;
import java.io.SequenceInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * The history file formats we read, and how we tell them apart.
 *
 * <p>Jepsen's: EDN ({@link EdnReader}) and JSON ({@link JsonReader}, elle-cli's and Jepsen's
 * exports). Other tools': Plume's and PolySI's text ({@link PlumeText}), dbcop's JSON
 * ({@link DbcopJson}) and the bincode PolySI and VeriStrong read ({@link DbcopBincode}), Cobra's
 * client logs ({@link CobraLog}, a directory); and {@code elle-cli}, EDN or JSON read as
 * elle-cli reads them ({@link ElleCli}: an op without :f whose value is micro-ops is a
 * transaction). A format named by the caller ({@code --input-format}) is used as named;
 * otherwise the content decides.
 *
 * <p>Compression: any input starting with gzip's magic bytes is decompressed first, whatever
 * its name (so {@code history.edn.gz} and a gzipped {@code history.edn} both work). Truncated
 * or corrupt gzip data is bad input that says after which op the text breaks off
 * ({@link GzipInput}).
 *
 * <p>The content decides when it can: whitespace (and a UTF-8 byte order mark) is skipped and
 * the first bytes (of the first 4 KiB) are looked at. A dbcop bincode header (five small
 * little-endian counts, a short string and a date), a Cobra log's 'S' record, a Plume/PolySI line
 * {@code r(} or {@code w(}, an array of arrays {@code [[} (dbcop's sessions) or an object whose
 * first key is one of dbcop's ({@code {"params"}, {@code {"data"}, ...) each say their format.
 * An object whose first key is another string, <code>{"</code>, is JSON, and so is an array of
 * such objects, <code>[{"</code>. Keyword keys <code>{:</code> and <code>[{:</code>, a tagged
 * record <code>#jepsen.history.Op{...}</code>, a list <code>(</code> or a comment <code>;</code>
 * are EDN. So a JSON history named {@code history.edn} is read as JSON. When a reader then
 * finds an error, and the format came from the content against (or without) the name, the
 * message says so: an EDN history whose op maps have string keys starts like JSON, and the
 * JSON reader's complaint would puzzle. A directory is Cobra's logs, or, holding a
 * {@code history.bincode} and no logs, dbcop's bincode (as AWDIT keeps it).
 *
 * <p>When the content does not decide (no input, an empty array, something no format starts
 * with): by name, a trailing {@code .gz} set aside, {@code .edn} is EDN, {@code .json},
 * {@code .jsonl} and {@code .ndjson} are JSON, {@code .txt} is Plume/PolySI text,
 * {@code .bincode} dbcop bincode and {@code .log} a Cobra log; any other name, or {@code -}
 * (standard input), is EDN, whose error then says what it found.
 */
public final class Formats {
  private Formats() {}

  /** A history format: its name for {@code --input-format} and {@code convert --to}, and what it is. */
  public enum Format {
    EDN("edn", "Jepsen EDN"),
    JSON("json", "Jepsen/elle-cli JSON"),
    ELLE_CLI("elle-cli", "elle-cli's EDN or JSON"),
    PLUME("plume", "Plume/PolySI text"),
    DBCOP("dbcop", "dbcop JSON"),
    DBCOP_BINCODE("dbcop-bincode", "dbcop bincode"),
    COBRA("cobra", "Cobra logs");

    /** The name users give it. */
    public final String id;
    /** What it is, for messages. */
    public final String description;

    Format(String id, String description) {
      this.id = id;
      this.description = description;
    }

    /** The format a name (or alias, a leading ':' ignored) stands for, or null. */
    public static Format parse(String name) {
      String n = name.startsWith(":") ? name.substring(1) : name;
      switch (n.toLowerCase(Locale.ROOT)) {
        case "edn": case "jepsen": return EDN;
        case "json": return JSON;
        case "elle-cli": case "elle": return ELLE_CLI;
        case "plume": case "polysi": case "text": return PLUME;
        case "dbcop": case "dbcop-json": return DBCOP;
        case "dbcop-bincode": case "bincode": return DBCOP_BINCODE;
        case "cobra": return COBRA;
        default: return null;
      }
    }

    /** The names {@link #parse} knows, for messages. */
    public static String names() {
      return "edn, json, elle-cli, plume (or polysi, text), dbcop, dbcop-bincode (or bincode), cobra";
    }
  }

  private static final int SNIFF = 1 << 12;

  /** The format a file name announces, or null when it announces none. */
  public static Format byName(String name) {
    String n = name.toLowerCase(Locale.ROOT);
    if (n.endsWith(".gz")) n = n.substring(0, n.length() - 3);
    if (n.endsWith(".edn")) return Format.EDN;
    if (n.endsWith(".json") || n.endsWith(".jsonl") || n.endsWith(".ndjson")) return Format.JSON;
    if (n.endsWith(".txt")) return Format.PLUME;
    if (n.endsWith(".bincode")) return Format.DBCOP_BINCODE;
    if (n.endsWith(".log")) return Format.COBRA;
    return null;
  }

  /**
   * Whether directory d is one history of another tool: Cobra's logs, or a directory holding
   * dbcop's history.bincode (as AWDIT keeps it).
   */
  public static boolean isHistoryDirectory(Path d) {
    try {
      return Files.isRegularFile(d.resolve("history.bincode")) || !CobraLog.logs(d).isEmpty();
    } catch (IOException e) {
      return false;
    }
  }

  /** Reads the history at {@code path} ({@code -} for standard input) into {@code sink}. */
  public static void read(String path, OpSink sink) throws IOException {
    read(path, null, sink);
  }

  /**
   * Reads the history at {@code path} ({@code -} for standard input; a directory is Cobra's
   * logs) into {@code sink}, in format {@code named}, or as its content shows when null.
   */
  public static void read(String path, Format named, OpSink sink) throws IOException {
    read(path, named, null, sink);
  }

  /** As {@link #read(String, Format, OpSink)}, with {@code txnF} the :f elle-cli's ops without one get (null: txn). */
  public static void read(String path, Format named, String txnF, OpSink sink) throws IOException {
    read(path, named, txnF, Progress.NONE, sink);
  }

  /**
   * As {@link #read(String, Format, String, OpSink)}, telling {@code progress} how far the
   * reading has got, in bytes of the file as stored (compressed bytes for gzip; for standard
   * input, the bytes so far of an unknown total; nothing for a directory of logs).
   */
  static void read(String path, Format named, String txnF, Progress progress, OpSink sink) throws IOException {
    if (path.equals("-")) {
      read(progress == Progress.NONE ? System.in : new Counted(System.in, progress), named, null, "-", txnF, sink);
      return;
    }
    Path p = Path.of(path);
    String name = p.getFileName() == null ? path : p.getFileName().toString();
    if (Files.isDirectory(p)) {
      // Cobra's logs are a directory; AWDIT keeps a dbcop history as a directory holding history.bincode.
      Path bincode = p.resolve("history.bincode");
      boolean dbcop = named == Format.DBCOP_BINCODE
          || (named == null && Files.isRegularFile(bincode) && CobraLog.logs(p).isEmpty());
      if (dbcop) {
        try (InputStream in = open(bincode)) {
          read(in, Format.DBCOP_BINCODE, null, "history.bincode", txnF, sink);
        }
        return;
      }
      if (named != null && named != Format.COBRA) {
        throw new HistoryException("it is a directory, and " + named.description
            + " is read from a file (a directory is Cobra's logs, or dbcop's history.bincode)");
      }
      CobraLog.read(p, sink);
      return;
    }
    try (InputStream in = open(p, progress)) {
      read(in, named, byName(name), name, txnF, sink);
    }
  }

  /** Reads a history in any format, gzip-compressed or not, from {@code in} (not closed), as its content shows. */
  public static void read(InputStream in, OpSink sink) throws IOException {
    read(in, null, null, null, null, sink);
  }

  /** Reads a history from {@code in} (not closed) in format {@code named}, or as its content shows when null. */
  public static void read(InputStream in, Format named, OpSink sink) throws IOException {
    read(in, named, null, null, null, sink);
  }

  /**
   * Reads {@code in} (gzip-compressed or not) in the format {@code named}, else the one its
   * content shows, else the one its name ({@code byName}) announces, else EDN.
   */
  private static void read(InputStream in, Format named, Format byName, String name, String txnF, OpSink sink)
      throws IOException {
    byte[] head = new byte[SNIFF];
    int n = fillPrefix(in, head);
    InputStream all = new SequenceInputStream(new ByteArrayInputStream(head, 0, n), in);
    if (n >= 2 && (head[0] & 0xff) == 0x1f && (head[1] & 0xff) == 0x8b) {
      read(new GzipInput(all), named, byName, name, txnF, sink);
      return;
    }
    Format seen = sniff(head, n);
    if (named != null) {
      try {
        if (named == Format.ELLE_CLI) {
          Format base = seen == Format.JSON || seen == Format.EDN ? seen : byName == Format.JSON ? Format.JSON : Format.EDN;
          read(all, base, name, ElleCli.transactionsWithoutF(sink, txnF));
        } else {
          read(all, named, name, sink);
        }
      } catch (HistoryException e) {
        boolean agrees = seen == null || seen == named
            || (named == Format.ELLE_CLI && (seen == Format.EDN || seen == Format.JSON));
        if (agrees) throw e;
        throw new HistoryException(e.ordinal, e.getMessage() + " (read as " + named.description + " as --input-format "
            + named.id + " says; " + why(seen) + ", as " + seen.description + " does)");
      }
      return;
    }
    Format f = seen != null ? seen : byName != null ? byName : Format.EDN;
    try {
      read(all, f, name, sink);
    } catch (HistoryException e) {
      // Say so when the content overrode the name, or chose JSON for a nameless input (an EDN
      // history with string keys looks like JSON); EDN is the default, not worth a note, and
      // dbcop's JSON named .json is what its name says.
      if (seen == null || seen == byName || (byName == null && seen == Format.EDN)
          || (seen == Format.DBCOP && byName == Format.JSON)) throw e;
      throw new HistoryException(e.ordinal, e.getMessage() + " (read as "
          + label(seen) + " because " + why(seen) + (byName != null ? ", though the name " + name + " says " + label(byName) : "") + ")");
    }
  }

  /** EDN and JSON by their names (as messages always said), the others by what they are. */
  private static String label(Format f) {
    return f == Format.EDN || f == Format.JSON ? f.name() : f.description;
  }

  /** Why the content showed format f. */
  private static String why(Format f) {
    switch (f) {
      case JSON: return "it starts with {\", a string key";
      case PLUME: return "it starts with r( or w(";
      case DBCOP: return "it starts like a dbcop history ([[, or {\" and one of dbcop's keys)";
      case DBCOP_BINCODE: return "it starts with a dbcop bincode header";
      case COBRA: return "it starts with a Cobra log's S record";
      default: return "it starts like EDN";
    }
  }

  /** Builds the history at {@code path} ({@code -} for standard input); {@code workload} null detects it. */
  public static History readHistory(String path, History.Workload workload) throws IOException {
    return readHistory(path, workload, null);
  }

  /** As {@link #readHistory(String, History.Workload)}, with {@code txnF} the :f of transaction ops (null: txn). */
  public static History readHistory(String path, History.Workload workload, String txnF) throws IOException {
    return readHistory(path, workload, txnF, (Format) null, Progress.NONE);
  }

  /** As {@link #readHistory(String, History.Workload, String, Format, Progress)}, without progress. */
  public static History readHistory(String path, History.Workload workload, String txnF, Format named) throws IOException {
    return readHistory(path, workload, txnF, named, Progress.NONE);
  }

  /**
   * Builds the history at {@code path} ({@code -} for standard input; a directory is Cobra's
   * logs), in format {@code named} (null: as its content shows); {@code workload} null detects
   * it; {@code txnF} is the :f of transaction ops (null: txn). {@code progress} is told how far
   * the reading has got: stage {@code loading}, in bytes of the file as stored.
   *
   * <p>From a file or a directory, the other tools' readers stream their transactions into the
   * builder as they complete ({@link StreamingSink}); a file that turns out to need the
   * whole-file reading, or that fails, is read again whole (progress then starts over), so the
   * result, or the error, is the one reading it whole gives.
   */
  public static History readHistory(String path, History.Workload workload, String txnF, Format named, Progress progress)
      throws IOException {
    long size = -1;
    boolean again = false;
    if (!path.equals("-")) {
      Path p = Path.of(path);
      if (Files.isRegularFile(p)) size = Files.size(p);
      // A file or a directory can be read again: the other tools' readers may stream into the
      // builder (StreamingSink), and when the file needs the whole-file reading after all, or
      // anything fails, it is read again whole, which says what reading it whole always said.
      again = size >= 0 || Files.isDirectory(p);
    }
    // The bytes the readers will read (not a gzipped file's: its size is not its text's).
    long bytes = !again ? -1 : size >= 0 ? (gzippedFile(Path.of(path)) ? -1 : size) : CobraLog.logBytes(Path.of(path));
    // A file or a directory: the builder indexes the writes when the history is built
    // (HistoryBuilder.indexAtBuild), which finds a value written twice only then, without the
    // op: such a history, or one that fails after such a write, is read again into a builder
    // that indexes as the ops come, and fails as it always did, naming the op.
    boolean stream = again, atBuild = again;
    while (true) {
      StreamingSink[] streamed = {null};
      HistoryBuilder[] builder = {null};
      try {
        return load(path, workload, txnF, named, progress, size, bytes,
            stream ? sink -> streamed[0] = new StreamingSink(sink, bytes) : sink -> sink, atBuild, builder);
      } catch (IOException | RuntimeException e) {
        if (e instanceof HistoryBuilder.ReadAgain || (atBuild && builder[0] != null && !builder[0].writesUnique())) {
          stream = atBuild = false;
        } else if (stream && streamed[0] != null && streamed[0].used
            && (e instanceof HistoryException || e instanceof TxnBuffer.NotStreamable)) {
          stream = false;
        } else {
          throw e;
        }
      }
    }
  }

  private static History load(String path, History.Workload workload, String txnF, Format named, Progress progress,
      long size, long bytes, java.util.function.UnaryOperator<OpSink> wrap, boolean indexAtBuild,
      HistoryBuilder[] builder) throws IOException {
    HistoryBuilder b = builder[0] = new HistoryBuilder(workload, txnF);
    if (indexAtBuild) b.indexAtBuild();
    // A Jepsen list-append op takes ~150-200 bytes; a list element ~3.
    if (size >= 0 && !path.toLowerCase(Locale.ROOT).endsWith(".gz")) b.expect(size / 160, size / 10);
    if (progress != Progress.NONE) progress.stage("loading", size, Progress.BYTES);
    // elle-cli's ops without :f get the transactions' :f. From a megabyte on (or from standard
    // input) the builder runs on a second core while the reader parses ({@link PipedSink}); the
    // system property isocheck.load.pipe-from sets that size instead (tests and benchmarks).
    long pipeFrom = Long.getLong("isocheck.load.pipe-from", 1 << 20);
    // A file of a few megabytes or more: the builder is told what to expect from its first
    // megabytes (EstimatingSink), which counts them through the progress of the stream read.
    EstimatingSink[] est = {null};
    Progress counted = progress;
    // A gzip-compressed file: the history's size from its trailer (or -1).
    long text = size >= 0 && bytes < 0 && !path.equals("-") ? gzipTextSize(Path.of(path), size) : bytes;
    if (size >= 0 && text >= EstimatingSink.FROM) {
      // Told the bytes of the file read; of a gzip-compressed one, also the text read from it
      // (GzipInput), which is what its estimate counts.
      final class Counting implements Progress, java.util.function.LongConsumer {
        @Override public void stage(String name, long total, String unit) { progress.stage(name, total, unit); }
        @Override public void done(long units) {
          if (est[0] != null && !est[0].countsText) est[0].bytes = units;
          progress.done(units);
        }
        @Override public void accept(long textRead) {
          if (est[0] != null && est[0].countsText) est[0].bytes = textRead;
        }
      }
      counted = new Counting();
    }
    Progress reading = counted;
    java.util.function.UnaryOperator<OpSink> sinks = reading == progress ? wrap
        : sink -> wrap.apply(est[0] = new EstimatingSink(sink, size, text));
    if (Runtime.getRuntime().availableProcessors() > 1 && (size < 0 ? pipeFrom < Long.MAX_VALUE : size >= pipeFrom)) {
      PipedSink.read(b, sink -> read(path, named, txnF, reading, sinks.apply(sink)));
    } else {
      read(path, named, txnF, reading, sinks.apply(b));
    }
    return b.build();
  }

  /**
   * The uncompressed size of a gzip-compressed file of {@code size} bytes, from its trailer
   * (ISIZE: the size modulo 4 GB, so taken only when it is more than the file's size and the
   * file less than 4 GB), or -1 (not gzip-compressed, or not said).
   */
  static long gzipTextSize(Path p, long size) {
    if (size < 18 || size >= (1L << 32) || !gzippedFile(p)) return -1;
    try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(p)) {
      java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(4).order(java.nio.ByteOrder.LITTLE_ENDIAN);
      while (b.hasRemaining() && ch.read(b, size - 4 + b.position()) > 0) { }
      if (b.hasRemaining()) return -1;
      long n = b.getInt(0) & 0xffffffffL;
      return n > size ? n : -1;
    } catch (IOException e) {
      return -1;
    }
  }

  /** Whether the file starts with gzip's magic bytes. */
  static boolean gzippedFile(Path p) {
    try (InputStream in = Files.newInputStream(p)) {
      return in.read() == 0x1f && in.read() == 0x8b;
    } catch (IOException e) {
      return false;
    }
  }

  /** An input stream that tells progress how many bytes have been read from it. */
  private static final class Counted extends java.io.FilterInputStream {
    private final Progress progress;
    private long n;

    Counted(InputStream in, Progress progress) {
      super(in);
      this.progress = progress;
    }

    @Override public int read() throws IOException {
      int c = in.read();
      if (c >= 0) progress.done(++n);
      return c;
    }

    @Override public int read(byte[] b, int off, int len) throws IOException {
      int k = in.read(b, off, len);
      if (k > 0) progress.done(n += k);
      return k;
    }

    @Override public long skip(long k) throws IOException {
      long s = in.skip(k);
      if (s > 0) progress.done(n += s);
      return s;
    }

    /** Standard input stays open. */
    @Override public void close() throws IOException {
      if (in != System.in) in.close();
    }
  }

  private static void read(InputStream in, Format f, String name, OpSink sink) throws IOException {
    switch (f) {
      case JSON:
        EstimatingSink.forJson(sink);
        JsonReader.read(in, sink);
        break;
      case PLUME: PlumeText.read(in, sink); break;
      case DBCOP: DbcopJson.read(in, sink); break;
      case DBCOP_BINCODE: DbcopBincode.read(in, sink); break;
      case COBRA: CobraLog.read(in, name == null ? "-" : name, sink); break;
      case ELLE_CLI: read(in, Format.ELLE_CLI, null, name, null, sink); break;
      default: EdnReader.read(in, sink);
    }
  }

  /** The format a history starting with {@code head[0..n)} shows, by the rules above, or null when it shows none. */
  static Format sniff(byte[] head, int n) {
    if (DbcopBincode.sniff(head, n)) return Format.DBCOP_BINCODE;
    if (CobraLog.sniff(head, n)) return Format.COBRA;
    int i = skip(head, n, 0);
    if (i + 2 < n && (head[i] & 0xff) == 0xEF && (head[i + 1] & 0xff) == 0xBB && (head[i + 2] & 0xff) == 0xBF) {
      i = skip(head, n, i + 3);
    }
    if (i >= n) return null;
    if (PlumeText.sniff(head, n, i)) return Format.PLUME;
    if (head[i] == '[') {
      i = skip(head, n, i + 1);
      if (i >= n) return null;
      if (head[i] == '#' || head[i] == '(') return Format.EDN;
      if (head[i] == '[') return Format.DBCOP;
      if (head[i] != '{') return null;
    } else if (head[i] == '{' && DbcopJson.sniffObject(head, n, i)) {
      return Format.DBCOP;
    }
    if (head[i] == '{') {
      i = skip(head, n, i + 1);
      if (i >= n) return null;
      return head[i] == '"' ? Format.JSON : head[i] == ':' ? Format.EDN : null;
    }
    return head[i] == '#' || head[i] == '(' || head[i] == ';' ? Format.EDN : null;
  }

  private static int skip(byte[] b, int n, int i) {
    while (i < n && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t')) i++;
    return i;
  }

  /**
   * Reads up to head.length bytes. Damaged gzip data ends the prefix early: the failure is
   * sticky, so the reader meets it again where the prefix ends and reports it with the op.
   */
  private static int fillPrefix(InputStream in, byte[] head) throws IOException {
    int n = 0;
    while (n < head.length) {
      int k;
      try {
        k = in.read(head, n, head.length - n);
      } catch (GzipInput.Damaged e) {
        break;
      }
      if (k < 0) break;
      n += k;
    }
    return n;
  }

  /** Whether path is a file that exists and is neither regular nor a directory: a pipe, a FIFO, a device. */
  static boolean streamed(Path path) {
    return Files.exists(path) && !Files.isRegularFile(path) && !Files.isDirectory(path);
  }

  /** Opens a pipe or FIFO as a plain stream; the failures as {@link Files#newInputStream} names them. */
  private static InputStream openStream(Path path) throws IOException {
    try {
      return new java.io.FileInputStream(path.toFile());
    } catch (java.io.FileNotFoundException e) {
      if (!Files.exists(path)) throw new java.nio.file.NoSuchFileException(path.toString());
      if (!Files.isReadable(path)) throw new java.nio.file.AccessDeniedException(path.toString());
      throw new java.nio.file.FileSystemException(path.toString(), null, e.getMessage());
    }
  }

  /** Opens a file for reading, decompressing it when it starts with gzip's magic bytes. */
  static InputStream open(Path path) throws IOException { return open(path, Progress.NONE); }

  /** As {@link #open(Path)}, telling progress the bytes read from the file as stored. */
  static InputStream open(Path path, Progress progress) throws IOException {
    // A file that is not a regular one (a pipe, /dev/stdin, a FIFO, bash's <(...)) is opened
    // once and read once, as a stream: the sniffing above looks at a buffered prefix, never at
    // the file again. Not through Files.newInputStream: its stream's available() asks the
    // channel for its size and position, which a pipe refuses ("Illegal seek"), and gzip asks
    // for available() at the end of each member.
    InputStream raw = streamed(path) ? openStream(path) : Files.newInputStream(path);
    PushbackInputStream in = new PushbackInputStream(progress == Progress.NONE ? raw : new Counted(raw, progress), 2);
    try {
      byte[] magic = new byte[2];
      int n = in.readNBytes(magic, 0, 2);
      in.unread(magic, 0, n);
      if (n == 2 && (magic[0] & 0xff) == 0x1f && (magic[1] & 0xff) == 0x8b) {
        GzipInput g = new GzipInput(in);
        // The load's estimate (EstimatingSink) counts the text read.
        if (progress instanceof java.util.function.LongConsumer c) g.textRead = c;
        return g;
      }
      return in;
    } catch (IOException e) {
      in.close();
      throw e;
    }
  }
}
