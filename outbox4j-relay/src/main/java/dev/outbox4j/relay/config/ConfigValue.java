package dev.outbox4j.relay.config;

import java.util.Objects;

/**
 * One configuration value as text, with where it came from.
 *
 * @param key the dotted key, for example {@code relay.batch-size}
 * @param text the value, trimmed; empty when the file gives the key no value
 * @param origin where it came from, for messages: {@code relay.yaml line 12}, {@code environment OUTBOX4J_X},
 *     {@code option --url}
 */
public record ConfigValue(String key, String text, String origin) {
  /** @throws NullPointerException if a component is {@code null} */
  public ConfigValue {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(text, "text");
    Objects.requireNonNull(origin, "origin");
  }

  /** Never shows the text: it may be a secret. */
  @Override
  public String toString() {
    return "ConfigValue{" + key + " from " + origin + "}";
  }
}
