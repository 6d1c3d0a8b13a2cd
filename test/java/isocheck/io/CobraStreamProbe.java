package isocheck.io;

import isocheck.history.HistoryBuilder;
import java.io.IOException;
import java.nio.file.Path;

/**
 * For tests: a directory of Cobra logs read as {@link Formats#readHistory} first reads it,
 * streaming ({@link StreamingSink}), but without reading it again whole when the streaming
 * read gives up: whether the streaming read's own checks (its {@link CobraLog.WriterCheck})
 * accept the logs or refuse them.
 */
public final class CobraStreamProbe {
  private CobraStreamProbe() {}

  /** Null when the streaming read builds the history; else why it gave up ("not streamable: ..."). */
  public static String stream(Path dir) throws IOException {
    HistoryBuilder b = new HistoryBuilder(null, null);
    b.indexAtBuild();
    try {
      CobraLog.read(dir, new StreamingSink(b, CobraLog.logBytes(dir)));
      b.build();
      return null;
    } catch (TxnBuffer.NotStreamable e) {
      return "not streamable: " + e.getMessage();
    }
  }
}
