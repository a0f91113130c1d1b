package dev.outbox4j.spi;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Reads the {@code Map<String, String>} form of a transport's configuration (what the runnable relay and the Spring
 * starter hand to a transport's {@code fromProperties}), with errors that name the key.
 *
 * <p>Keys are given without any prefix the host uses (the relay's {@code transport.rabbitmq.host} reaches the
 * transport as {@code host}). Values are trimmed. Durations are written either as ISO-8601 ({@code PT10S}) or as a
 * whole number with a unit: {@code 250ms}, {@code 10s}, {@code 5m}, {@code 1h}. Booleans are {@code true} or
 * {@code false}.
 *
 * <p>Any key can instead be given as {@code <key>-file}: the path of a file whose content (without its trailing line
 * break) is the value, read once when the key is read. That is how a secret mounted as a file (a Kubernetes secret
 * volume) reaches a transport without appearing in its configuration. Giving both forms of one key is an error.
 *
 * <p>Every key read is remembered, so {@link #rejectUnknown()} can refuse a misspelt key instead of silently
 * ignoring it. Values of keys that may hold a secret (names containing {@code password}, {@code secret},
 * {@code token}, {@code uri}, {@code url} or {@code server}) are never shown in messages.
 *
 * <p>Not thread-safe; used once, while a transport is being built.
 */
public final class TransportProperties {
  private static final String FILE_SUFFIX = "-file";

  private final String transportName;
  private final Map<String, String> values;
  private final Set<String> read = new TreeSet<>();

  private TransportProperties(String transportName, Map<String, String> values) {
    this.transportName = transportName;
    this.values = values;
  }

  /**
   * @param transportName the transport's name, for error messages (for example {@code rabbitmq})
   * @param properties the properties; copied
   * @return a reader
   * @throws NullPointerException if an argument, a key or a value is {@code null}
   */
  public static TransportProperties of(String transportName, Map<String, String> properties) {
    Objects.requireNonNull(transportName, "transportName");
    Map<String, String> copy = new TreeMap<>();
    properties.forEach((key, value) -> copy.put(Objects.requireNonNull(key, "key").trim(),
        Objects.requireNonNull(value, () -> "value of " + key).trim()));
    return new TransportProperties(transportName, Collections.unmodifiableMap(copy));
  }

  /**
   * @param key the key
   * @return the value, if the key is present
   */
  public Optional<String> string(String key) {
    read.add(key);
    String fileKey = key + FILE_SUFFIX;
    read.add(fileKey);
    String value = values.get(key);
    String file = values.get(fileKey);
    if (value != null && file != null) {
      throw new IllegalArgumentException(transportName + " properties '" + key + "' and '" + fileKey
          + "' exclude each other");
    }
    if (file == null) {
      return Optional.ofNullable(value);
    }
    return Optional.of(SecretFile.read(file, transportName + " property '" + fileKey + "'"));
  }

  /** @return the transport's name, for messages */
  public String name() {
    return transportName;
  }

  /**
   * @param key the key
   * @return the value
   * @throws IllegalArgumentException naming the key when it is missing or blank
   */
  public String requiredString(String key) {
    String value = string(key).orElse("");
    if (value.isEmpty()) {
      throw new IllegalArgumentException(transportName + " property '" + key + "' is required");
    }
    return value;
  }

  /**
   * @param key the key
   * @return the value as an integer, if present
   * @throws IllegalArgumentException naming the key when the value is not an integer
   */
  public Optional<Integer> integer(String key) {
    return string(key).map(value -> {
      try {
        return Integer.parseInt(value);
      } catch (NumberFormatException e) {
        throw invalid(key, value, "an integer");
      }
    });
  }

  /**
   * @param key the key
   * @return the value as a boolean, if present
   * @throws IllegalArgumentException naming the key when the value is neither {@code true} nor {@code false}
   */
  public Optional<Boolean> bool(String key) {
    return string(key).map(value -> {
      String lower = value.toLowerCase(Locale.ROOT);
      if (!lower.equals("true") && !lower.equals("false")) {
        throw invalid(key, value, "true or false");
      }
      return Boolean.valueOf(lower);
    });
  }

  /**
   * @param key the key
   * @return the value as a duration, if present
   * @throws IllegalArgumentException naming the key when the value is not a duration
   */
  public Optional<Duration> duration(String key) {
    return string(key).map(value -> parseDuration(key, value));
  }

  /**
   * Every key starting with {@code prefix}, with the prefix removed, for families such as {@code endpoint.orders=...}.
   *
   * @param prefix the prefix, for example {@code endpoint.}
   * @return the matching entries in key order, unmodifiable
   */
  public Map<String, String> withPrefix(String prefix) {
    Map<String, String> result = new LinkedHashMap<>();
    values.forEach((key, value) -> {
      if (key.startsWith(prefix) && key.length() > prefix.length()) {
        read.add(key);
        result.put(key.substring(prefix.length()), value);
      }
    });
    return Collections.unmodifiableMap(result);
  }

  /**
   * Refuses keys that no read asked for: a misspelt key would otherwise be ignored in silence.
   *
   * @throws IllegalArgumentException naming the unknown keys (never their values)
   */
  public void rejectUnknown() {
    Set<String> unknown = new TreeSet<>(values.keySet());
    unknown.removeAll(read);
    if (!unknown.isEmpty()) {
      throw new IllegalArgumentException("unknown " + transportName + " properties: " + unknown);
    }
  }

  private Duration parseDuration(String key, String value) {
    String lower = value.toLowerCase(Locale.ROOT);
    try {
      if (lower.startsWith("pt") || lower.startsWith("p")) {
        return Duration.parse(value);
      }
      int split = 0;
      while (split < lower.length() && Character.isDigit(lower.charAt(split))) {
        split++;
      }
      if (split == 0) {
        throw invalid(key, value, "a duration such as 250ms, 10s, 5m or PT10S");
      }
      long amount = Long.parseLong(lower.substring(0, split));
      switch (lower.substring(split)) {
        case "ms":
          return Duration.ofMillis(amount);
        case "s":
          return Duration.ofSeconds(amount);
        case "m":
          return Duration.ofMinutes(amount);
        case "h":
          return Duration.ofHours(amount);
        default:
          throw invalid(key, value, "a duration such as 250ms, 10s, 5m or PT10S");
      }
    } catch (DateTimeParseException | NumberFormatException e) {
      throw invalid(key, value, "a duration such as 250ms, 10s, 5m or PT10S");
    }
  }

  private IllegalArgumentException invalid(String key, String value, String expected) {
    boolean secret = key.contains("password") || key.contains("secret") || key.contains("token")
        || key.contains("uri") || key.contains("url") || key.contains("server");
    return new IllegalArgumentException(transportName + " property '" + key + "' must be " + expected
        + (secret ? "" : ", was '" + value + "'"));
  }
}
