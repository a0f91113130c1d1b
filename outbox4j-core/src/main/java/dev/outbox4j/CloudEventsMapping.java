package dev.outbox4j;

import java.util.Objects;

/**
 * How the relay presents the messages of one destination as CloudEvents 1.0 (opt-in, per destination, with
 * {@link RelayBuilder#withCloudEvents}). The attribute mapping is fixed (see {@link dev.outbox4j.spi.CloudEvent}); what
 * a destination chooses is the event's {@code source} and {@code type}, which a message may override with the
 * {@value dev.outbox4j.spi.CloudEvent#SOURCE_HEADER} and {@value dev.outbox4j.spi.CloudEvent#TYPE_HEADER} headers, and
 * the content mode.
 *
 * <p>Immutable and thread-safe.
 *
 * @param source the default {@code source} attribute, a URI-reference such as {@code /orders-service}; non-blank, at
 *     most {@value Message#MAX_NAME_LENGTH} characters
 * @param type the default {@code type} attribute, such as {@code com.example.order.placed}; non-blank, at most
 *     {@value Message#MAX_NAME_LENGTH} characters
 * @param mode binary (attributes in broker headers, payload untouched) or structured (one JSON event)
 */
public record CloudEventsMapping(String source, String type, Mode mode) {

  /** Where the event's attributes travel. */
  public enum Mode {
    /** Attributes as broker headers under the binding's prefix; the payload is the body, byte for byte. */
    BINARY,
    /** The whole event, attributes and data, as one JSON document ({@code application/cloudevents+json}). */
    STRUCTURED
  }

  /** @throws IllegalArgumentException naming the attribute that is blank or too long */
  public CloudEventsMapping {
    requireText("source", source);
    requireText("type", type);
    Objects.requireNonNull(mode, "mode");
  }

  /**
   * @param source the default {@code source}
   * @param type the default {@code type}
   * @return a binary-mode mapping
   * @throws IllegalArgumentException naming the attribute that is blank or too long
   */
  public static CloudEventsMapping binary(String source, String type) {
    return new CloudEventsMapping(source, type, Mode.BINARY);
  }

  /**
   * @param source the default {@code source}
   * @param type the default {@code type}
   * @return a structured-mode mapping
   * @throws IllegalArgumentException naming the attribute that is blank or too long
   */
  public static CloudEventsMapping structured(String source, String type) {
    return new CloudEventsMapping(source, type, Mode.STRUCTURED);
  }

  static void requireText(String name, String value) {
    Objects.requireNonNull(value, name);
    if (value.isBlank()) {
      throw new IllegalArgumentException("CloudEvents " + name + " must not be blank");
    }
    if (value.length() > Message.MAX_NAME_LENGTH) {
      throw new IllegalArgumentException("CloudEvents " + name + " must be at most " + Message.MAX_NAME_LENGTH
          + " characters, was " + value.length());
    }
  }
}
