package dev.outbox4j.relay.logging;

import java.util.Locale;

/**
 * How the relay writes its log: {@link #PLAIN} for people, {@link #JSON} for log pipelines. Chosen by
 * {@code logging.format} (environment {@code OUTBOX4J_LOGGING_FORMAT}) or {@code --log-format}; see docs/relay-app.md,
 * "Logging".
 */
public enum LogFormat {
  /** One line per record: ISO-8601 UTC time, level, logger, message; an exception follows on lines starting with a tab. */
  PLAIN,
  /** One JSON object per line: time, level, logger, thread, message, the record's context fields, exception. */
  JSON;

  /**
   * @param text {@code plain} or {@code json}, in any case
   * @param origin where the text came from, for the message
   * @return the format
   * @throws IllegalArgumentException naming both values when the text is neither
   */
  public static LogFormat of(String text, String origin) {
    return switch (text.trim().toLowerCase(Locale.ROOT)) {
      case "plain" -> PLAIN;
      case "json" -> JSON;
      default -> throw new IllegalArgumentException(origin + " must be 'plain' or 'json', was '" + text + "'");
    };
  }

  /** @return the name as configured: {@code plain} or {@code json} */
  public String configName() {
    return name().toLowerCase(Locale.ROOT);
  }
}
