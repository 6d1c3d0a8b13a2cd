package isocheck.report;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/** Renders DOT to SVG with the {@code dot} program (Debian package graphviz) when it is installed. */
public final class Graphviz {
  private Graphviz() {}

  private static Boolean available;

  public static synchronized boolean available() {
    if (available == null) {
      try {
        Process p = new ProcessBuilder("dot", "-V").redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        available = p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0;
      } catch (Exception e) {
        available = false;
      }
    }
    return available;
  }

  /** The SVG for a DOT text, or null when graphviz is missing or fails. */
  public static String svg(String dot) {
    if (!available()) return null;
    try {
      Process p = new ProcessBuilder("dot", "-Tsvg").start();
      try (OutputStream os = p.getOutputStream()) {
        os.write(dot.getBytes(StandardCharsets.UTF_8));
      }
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      try (InputStream is = p.getInputStream()) {
        is.transferTo(out);
      }
      if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) return null;
      return out.toString(StandardCharsets.UTF_8);
    } catch (Exception e) {
      return null;
    }
  }
}
