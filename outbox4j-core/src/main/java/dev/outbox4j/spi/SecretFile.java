package dev.outbox4j.spi;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Reads a value (usually a secret) from a file, as for the {@code <key>-file} form of a configuration key: the whole
 * content as UTF-8 with trailing line breaks removed, so a file written by {@code echo} or mounted from a Kubernetes
 * secret gives the value itself. Error messages name the file and the key, never the content.
 *
 * <p>Stateless and thread-safe.
 */
public final class SecretFile {
  private SecretFile() {}

  /**
   * @param path the file's path
   * @param what what the value is for, for error messages (for example {@code nats property 'password-file'})
   * @return the content without trailing {@code \n} / {@code \r}
   * @throws IllegalArgumentException naming {@code what} and the path when the file cannot be read or is empty
   */
  public static String read(String path, String what) {
    String content;
    try {
      content = Files.readString(Path.of(path), StandardCharsets.UTF_8);
    } catch (IOException | RuntimeException e) {
      throw new IllegalArgumentException(what + ": cannot read " + path + " (" + e.getClass().getSimpleName() + ")",
          e);
    }
    int end = content.length();
    while (end > 0 && (content.charAt(end - 1) == '\n' || content.charAt(end - 1) == '\r')) {
      end--;
    }
    if (end == 0) {
      throw new IllegalArgumentException(what + ": " + path + " is empty");
    }
    return content.substring(0, end);
  }
}
