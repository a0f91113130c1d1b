package dev.outbox4j.relay.config;

import dev.outbox4j.OutboxException;

/**
 * A configuration value is missing, unknown or malformed. The message names the key, the problem and where the value
 * came from (the file and line, an environment variable or a command-line option); it never contains the value of a
 * key that may hold a secret.
 *
 * <p>Immutable and thread-safe.
 */
public final class ConfigException extends OutboxException {
  private static final long serialVersionUID = 1L;

  private final String key;

  /**
   * @param key the configuration key, for example {@code relay.batch-size}
   * @param problem what is wrong with it, for example {@code must be an integer, was 'x'}
   * @param origin where the value came from, for example {@code relay.yaml line 12}
   */
  public ConfigException(String key, String problem, String origin) {
    super(origin + ": '" + key + "' " + problem);
    this.key = key;
  }

  /**
   * A problem with the file as a whole (unreadable, not YAML).
   *
   * @param origin the file
   * @param problem what is wrong
   * @param cause the underlying failure, or {@code null}
   * @return the exception
   */
  public static ConfigException ofFile(String origin, String problem,
      @org.jspecify.annotations.Nullable Throwable cause) {
    return new ConfigException(origin + ": " + problem, cause);
  }

  private ConfigException(String message, @org.jspecify.annotations.Nullable Throwable cause) {
    super(message, cause);
    this.key = "";
  }

  /** @return the key at fault; empty when the problem is with the file as a whole */
  public String key() {
    return key;
  }
}
