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
 * <p>Compression: any input starting with gzip's magic bytes is decompressed first, whatever
 * its name (so {@code history.edn.gz} and a gzipped {@code history.edn} both work). Truncated
 * or corrupt gzip data is bad input that says after which op the text breaks off
 * ({@link GzipInput}).
 *
 * <p>The content decides when it can: whitespace (and a UTF-8 byte order mark) is skipped and
 * the first bytes (of the first 4 KiB) are looked at. An object whose first key is a string,
 * <code>{"</code>, is JSON, and so is an array of such objects, <code>[{"</code>. Keyword keys
 * <code>{:</code> and <code>[{:</code>, a tagged record <code>#jepsen.history.Op{...}</code>, a
 * list <code>(</code> or a comment <code>;</code> are EDN. So a JSON history named
 * {@code history.edn} is read as JSON. When a reader then finds an error, and the format came
 * from the content against (or without) the name, the message says so: an EDN history whose
 * op maps have string keys starts like JSON, and the JSON reader's complaint would puzzle.
 *
 * <p>When the content does not decide (no input, an empty array, something neither format
 * starts with): by name, a trailing {@code .gz} set aside, {@code .edn} is EDN
 * ({@link EdnReader}) and {@code .json}, {@code .jsonl} and {@code .ndjson} are JSON
 * ({@link JsonReader}, either an array of ops or one op per line); any other name, or
 * {@code -} (standard input), is EDN, whose error then says what it found.
 */
public final class Formats {
  private Formats() {}

  public enum Format { EDN, JSON }

  private static final int SNIFF = 1 << 12;

  /** The format a file name announces, or null when it announces none. */
  public static Format byName(String name) {
    String n = name.toLowerCase(Locale.ROOT);
    if (n.endsWith(".gz")) n = n.substring(0, n.length() - 3);
    if (n.endsWith(".edn")) return Format.EDN;
    if (n.endsWith(".json") || n.endsWith(".jsonl") || n.endsWith(".ndjson")) return Format.JSON;
    return null;
  }

  /** Reads the history at {@code path} ({@code -} for standard input) into {@code sink}. */
  public static void read(String path, OpSink sink) throws IOException {
    if (path.equals("-")) {
      read(System.in, sink);
      return;
    }
    Path p = Path.of(path);
    String name = p.getFileName() == null ? path : p.getFileName().toString();
    try (InputStream in = open(p)) {
      read(in, byName(name), name, sink);
    }
  }

  /** Reads a history in either format, gzip-compressed or not, from {@code in} (not closed). */
  public static void read(InputStream in, OpSink sink) throws IOException {
    read(in, null, null, sink);
  }

  /** Reads {@code in} (gzip-compressed or not) in the format its content shows, else {@code named}, else EDN. */
  private static void read(InputStream in, Format named, String name, OpSink sink) throws IOException {
    byte[] head = new byte[SNIFF];
    int n = fillPrefix(in, head);
    InputStream all = new SequenceInputStream(new ByteArrayInputStream(head, 0, n), in);
    if (n >= 2 && (head[0] & 0xff) == 0x1f && (head[1] & 0xff) == 0x8b) {
      read(new GzipInput(all), named, name, sink);
      return;
    }
    Format seen = sniff(head, n);
    Format f = seen != null ? seen : named != null ? named : Format.EDN;
    try {
      read(all, f, sink);
    } catch (HistoryException e) {
      // Say so when the content overrode the name, or chose JSON for a nameless input (an EDN
      // history with string keys looks like JSON); EDN is the default, not worth a note.
      if (seen == null || seen == named || (named == null && seen == Format.EDN)) throw e;
      String why = seen == Format.JSON ? "it starts with {\", a string key" : "it starts like EDN";
      throw new HistoryException(e.ordinal, e.getMessage() + " (read as " + seen + " because " + why
          + (named != null ? ", though the name " + name + " says " + named : "") + ")");
    }
  }

  /** Builds the history at {@code path} ({@code -} for standard input); {@code workload} null detects it. */
  public static History readHistory(String path, History.Workload workload) throws IOException {
    return readHistory(path, workload, null);
  }

  /** As {@link #readHistory(String, History.Workload)}, with {@code txnF} the :f of transaction ops (null: txn). */
  public static History readHistory(String path, History.Workload workload, String txnF) throws IOException {
    return readHistory(path, workload, txnF, Progress.NONE);
  }

  /**
   * As {@link #readHistory(String, History.Workload, String)}, telling {@code progress} how far
   * the reading has got: stage {@code loading}, in bytes of the file as stored (compressed bytes
   * for gzip); for standard input, the bytes so far of an unknown total.
   */
  public static History readHistory(String path, History.Workload workload, String txnF, Progress progress) throws IOException {
    HistoryBuilder b = new HistoryBuilder(workload, txnF);
    long size = -1;
    if (!path.equals("-")) {
      size = Files.size(Path.of(path));
      // A Jepsen list-append op takes ~150-200 bytes; a list element ~3.
      if (!path.toLowerCase(Locale.ROOT).endsWith(".gz")) b.expect(size / 160, size / 10);
    }
    if (progress == Progress.NONE) {
      read(path, b);
      return b.build();
    }
    progress.stage("loading", size, Progress.BYTES);
    if (path.equals("-")) {
      read(new Counted(System.in, progress), null, null, b);
    } else {
      Path p = Path.of(path);
      String name = p.getFileName() == null ? path : p.getFileName().toString();
      try (InputStream in = new Counted(Files.newInputStream(p), progress)) {
        read(in, byName(name), name, b);
      }
    }
    return b.build();
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

  private static void read(InputStream in, Format f, OpSink sink) throws IOException {
    if (f == Format.JSON) JsonReader.read(in, sink);
    else EdnReader.read(in, sink);
  }

  /** The format a history starting with {@code head[0..n)} shows, by the rules above, or null when it shows neither. */
  static Format sniff(byte[] head, int n) {
    int i = skip(head, n, 0);
    if (i + 2 < n && (head[i] & 0xff) == 0xEF && (head[i + 1] & 0xff) == 0xBB && (head[i + 2] & 0xff) == 0xBF) {
      i = skip(head, n, i + 3);
    }
    if (i >= n) return null;
    if (head[i] == '[') {
      i = skip(head, n, i + 1);
      if (i >= n) return null;
      if (head[i] == '#' || head[i] == '(') return Format.EDN;
      if (head[i] != '{') return null;
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

  /** Opens a file for reading, decompressing it when it starts with gzip's magic bytes. */
  static InputStream open(Path path) throws IOException {
    PushbackInputStream in = new PushbackInputStream(Files.newInputStream(path), 2);
    try {
      byte[] magic = new byte[2];
      int n = in.readNBytes(magic, 0, 2);
      in.unread(magic, 0, n);
      if (n == 2 && (magic[0] & 0xff) == 0x1f && (magic[1] & 0xff) == 0x8b) return new GzipInput(in);
      return in;
    } catch (IOException e) {
      in.close();
      throw e;
    }
  }
}
