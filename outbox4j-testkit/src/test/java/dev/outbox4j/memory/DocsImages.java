package dev.outbox4j.memory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** Where the pictures drawn by tests go: {@code target/}, and {@code docs/images/} when run with -Ddocs.images=true. */
final class DocsImages {
  private DocsImages() {}

  /**
   * @param fileName the picture's file name, for example {@code outage-timeline.svg}
   * @param svg the picture
   * @throws IOException if it cannot be written
   */
  static void write(String fileName, String svg) throws IOException {
    Path target = Path.of("target", fileName);
    Files.createDirectories(target.getParent());
    Files.writeString(target, svg, StandardCharsets.UTF_8);
    if (Boolean.getBoolean("docs.images")) {
      Files.writeString(Path.of("..", "docs", "images", fileName), svg, StandardCharsets.UTF_8);
    }
  }
}
