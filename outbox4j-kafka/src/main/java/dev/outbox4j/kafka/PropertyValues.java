package dev.outbox4j.kafka;

import java.time.Duration;
import java.util.Locale;

/**
 * Reads the values of {@link KafkaTransport#fromProperties}: durations and booleans, with errors that name the key and
 * quote the text (these keys never hold secrets; secret keys are not parsed here).
 *
 * <p>Stateless and thread-safe.
 */
final class PropertyValues {
  private PropertyValues() {}

  /**
   * @param key the property, for the error message
   * @param text {@code 250ms}, {@code 5s}, {@code 2m}, {@code 3h}, {@code 7d}, a bare number of milliseconds, or
   *     ISO-8601 ({@code PT5S}, {@code P7D})
   * @return the duration
   * @throws IllegalArgumentException naming the key
   */
  static Duration duration(String key, String text) {
    String value = text.trim().toLowerCase(Locale.ROOT);
    try {
      if (value.startsWith("p")) {
        return Duration.parse(text.trim());
      }
      if (value.endsWith("ms")) {
        return Duration.ofMillis(number(value, 2));
      }
      if (value.endsWith("s")) {
        return Duration.ofSeconds(number(value, 1));
      }
      if (value.endsWith("m")) {
        return Duration.ofMinutes(number(value, 1));
      }
      if (value.endsWith("h")) {
        return Duration.ofHours(number(value, 1));
      }
      if (value.endsWith("d")) {
        return Duration.ofDays(number(value, 1));
      }
      return Duration.ofMillis(Long.parseLong(value));
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(key + " must be a duration such as 5s, 500ms, 2m, 7d or PT5S, was '"
          + text + "'");
    }
  }

  private static long number(String value, int unitLength) {
    return Long.parseLong(value.substring(0, value.length() - unitLength).trim());
  }

  /**
   * @param key the property, for the error message
   * @param text {@code true} or {@code false}, any case
   * @return the value
   * @throws IllegalArgumentException naming the key
   */
  static boolean bool(String key, String text) {
    return switch (text.trim().toLowerCase(Locale.ROOT)) {
      case "true" -> true;
      case "false" -> false;
      default -> throw new IllegalArgumentException(key + " must be true or false, was '" + text + "'");
    };
  }
}
