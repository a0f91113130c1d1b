package dev.outbox4j.relay.config;

import dev.outbox4j.spi.SecretFile;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The {@code <key>-file} form of every configuration key: {@code database.password-file: /run/secrets/db} (or
 * {@code OUTBOX4J_DATABASE_PASSWORD_FILE}) gives {@code database.password} the content of that file, read once at
 * start, without its trailing line break. That is how a Kubernetes secret mounted as a file reaches the relay without
 * being copied into the configuration or the environment. The content is never logged nor shown in an error.
 *
 * <p>Stateless and thread-safe.
 */
final class SecretFiles {
  static final String SUFFIX = "-file";

  private SecretFiles() {}

  /** Adds {@code <NAME>_FILE → <key>-file} for every environment name already known. */
  static void addEnvironmentNames(Map<String, String> byEnvironmentName) {
    for (Map.Entry<String, String> known : List.copyOf(byEnvironmentName.entrySet())) {
      if (!known.getValue().endsWith(SUFFIX)) {
        byEnvironmentName.putIfAbsent(known.getKey() + "_FILE", known.getValue() + SUFFIX);
      }
    }
  }

  /**
   * Replaces each {@code <key>-file} value by {@code <key>} with the file's content.
   *
   * @throws ConfigException naming the key when the file cannot be read or is empty, or when the key is also given
   *     directly
   */
  static void resolve(Map<String, ConfigValue> values) {
    for (ConfigValue value : new ArrayList<>(values.values())) {
      String key = value.key();
      if (!key.endsWith(SUFFIX) || key.length() == SUFFIX.length()) {
        continue;
      }
      String base = key.substring(0, key.length() - SUFFIX.length());
      ConfigValue direct = values.get(base);
      if (direct != null && !direct.text().isEmpty()) {
        throw new ConfigException(key, "and '" + base + "' exclude each other (the other is set at "
            + direct.origin() + ")", value.origin());
      }
      String content;
      try {
        content = SecretFile.read(value.text(), "names a file that");
      } catch (IllegalArgumentException e) {
        throw new ConfigException(key, e.getMessage(), value.origin());
      }
      values.remove(key);
      values.put(base, new ConfigValue(base, content, "file " + value.text() + " (" + value.origin() + ")"));
    }
  }
}
