package dev.outbox4j;

import dev.outbox4j.internal.UuidV7;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * What an application wants sent: an id, a destination, an optional ordering key, payload bytes, a content type,
 * headers and an optional not-before time. Built with {@link #builder()}, validated at {@link Builder#build()}.
 *
 * <p>The payload is kept byte-for-byte: it is never decoded or re-encoded, so it may hold any bytes, including bytes
 * that are not valid UTF-8. {@link #payload()} returns a copy.
 *
 * <p>Immutable and thread-safe. Two messages are equal when every field, payload bytes included, is equal.
 */
public final class Message {
  /** Longest destination, ordering key, content type or header name, in characters (the column width). */
  public static final int MAX_NAME_LENGTH = 255;
  /** Content type used when none is given. */
  public static final String DEFAULT_CONTENT_TYPE = "application/octet-stream";

  private static final byte[] EMPTY = new byte[0];

  private final UUID id;
  private final String destination;
  private final @Nullable String orderingKey;
  private final byte[] payload;
  private final String contentType;
  private final Map<String, String> headers;
  private final @Nullable Instant notBefore;

  private Message(Builder builder) {
    this.id = builder.id != null ? builder.id : UuidV7.next();
    this.destination = requireName("destination", builder.destination);
    if (builder.orderingKey != null) {
      requireName("orderingKey", builder.orderingKey);
    }
    this.orderingKey = builder.orderingKey;
    this.payload = builder.payload;
    this.contentType = requireName("contentType", builder.contentType);
    Map<String, String> copy = new LinkedHashMap<>();
    builder.headers.forEach((name, value) -> copy.put(requireName("headers", name), value));
    this.headers = Collections.unmodifiableMap(copy);
    this.notBefore = builder.notBefore;
  }

  private static String requireName(String field, @Nullable String value) {
    if (value == null || value.isBlank()) {
      throw new MessageRejectedException(field, "non-blank", value == null ? "null" : "blank");
    }
    if (value.length() > MAX_NAME_LENGTH) {
      throw new MessageRejectedException(
          field, "at most " + MAX_NAME_LENGTH + " characters", value.length() + " characters");
    }
    return value;
  }

  /** @return a new builder; not thread-safe */
  public static Builder builder() {
    return new Builder();
  }

  /** @return the message id: time-ordered (UUID v7) unless the caller supplied one; never {@code null} */
  public UUID id() {
    return id;
  }

  /** @return where the message goes: a topic, an exchange and routing key, a subject, an endpoint alias */
  public String destination() {
    return destination;
  }

  /** @return the ordering key; messages with the same key are delivered one at a time, in commit order */
  public Optional<String> orderingKey() {
    return Optional.ofNullable(orderingKey);
  }

  /** @return a copy of the payload bytes, exactly as given */
  public byte[] payload() {
    return payload.clone();
  }

  /** @return the payload length in bytes */
  public int payloadSize() {
    return payload.length;
  }

  /** @return the content type, {@value #DEFAULT_CONTENT_TYPE} unless given */
  public String contentType() {
    return contentType;
  }

  /** @return the headers, unmodifiable, in the order they were added */
  public Map<String, String> headers() {
    return headers;
  }

  /** @return the earliest time the message may be delivered, if any */
  public Optional<Instant> notBefore() {
    return Optional.ofNullable(notBefore);
  }

  /**
   * @return a builder holding this message's fields, to derive a changed copy
   */
  public Builder toBuilder() {
    Builder builder = new Builder()
        .withId(id)
        .withDestination(destination)
        .withPayload(payload)
        .withContentType(contentType)
        .withHeaders(headers)
        .withNotBefore(notBefore);
    return builder.withOrderingKey(orderingKey);
  }

  @Override
  public boolean equals(@Nullable Object other) {
    return other instanceof Message that
        && id.equals(that.id)
        && destination.equals(that.destination)
        && Objects.equals(orderingKey, that.orderingKey)
        && Arrays.equals(payload, that.payload)
        && contentType.equals(that.contentType)
        && headers.equals(that.headers)
        && Objects.equals(notBefore, that.notBefore);
  }

  @Override
  public int hashCode() {
    return id.hashCode();
  }

  /** Never includes the payload, which may hold personal data. */
  @Override
  public String toString() {
    return "Message{id=" + id + ", destination=" + destination
        + (orderingKey == null ? "" : ", orderingKey=" + orderingKey)
        + ", contentType=" + contentType + ", payload=" + payload.length + " bytes, headers=" + headers.keySet() + "}";
  }

  /**
   * Builds a {@link Message}. Not thread-safe; {@link #build()} copies everything into an immutable message.
   */
  public static final class Builder {
    private @Nullable UUID id;
    private @Nullable String destination;
    private @Nullable String orderingKey;
    private byte[] payload = EMPTY;
    private String contentType = DEFAULT_CONTENT_TYPE;
    private final Map<String, String> headers = new LinkedHashMap<>();
    private @Nullable Instant notBefore;

    private Builder() {}

    /**
     * @param id the message id; {@code null} (the default) generates a time-ordered UUID v7 at build
     * @return this builder
     */
    public Builder withId(@Nullable UUID id) {
      this.id = id;
      return this;
    }

    /**
     * @param destination required; non-blank, at most {@value Message#MAX_NAME_LENGTH} characters
     * @return this builder
     */
    public Builder withDestination(String destination) {
      this.destination = destination;
      return this;
    }

    /**
     * @param orderingKey the ordering key, or {@code null} (the default) for none; non-blank, at most
     *     {@value Message#MAX_NAME_LENGTH} characters
     * @return this builder
     */
    public Builder withOrderingKey(@Nullable String orderingKey) {
      this.orderingKey = orderingKey;
      return this;
    }

    /**
     * @param payload the bytes to send, copied; never {@code null} (use an empty array for none)
     * @return this builder
     */
    public Builder withPayload(byte[] payload) {
      this.payload = Objects.requireNonNull(payload, "payload").clone();
      return this;
    }

    /**
     * @param text the payload as text, encoded as UTF-8
     * @return this builder
     */
    public Builder withPayload(String text) {
      this.payload = text.getBytes(StandardCharsets.UTF_8);
      return this;
    }

    /**
     * @param contentType the payload's content type; default {@value Message#DEFAULT_CONTENT_TYPE}
     * @return this builder
     */
    public Builder withContentType(String contentType) {
      this.contentType = contentType;
      return this;
    }

    /**
     * Adds or replaces one header. A W3C {@code traceparent} header is stored and sent on unchanged.
     *
     * @param name non-blank, at most {@value Message#MAX_NAME_LENGTH} characters
     * @param value never {@code null}
     * @return this builder
     */
    public Builder withHeader(String name, String value) {
      headers.put(name, Objects.requireNonNull(value, () -> "value of header " + name));
      return this;
    }

    /**
     * @param headers headers to add, replacing any of the same names
     * @return this builder
     */
    public Builder withHeaders(Map<String, String> headers) {
      headers.forEach(this::withHeader);
      return this;
    }

    /**
     * @param notBefore the earliest delivery time, or {@code null} (the default) for as soon as possible
     * @return this builder
     */
    public Builder withNotBefore(@Nullable Instant notBefore) {
      this.notBefore = notBefore;
      return this;
    }

    /**
     * @return the message
     * @throws MessageRejectedException naming the field when the destination is missing or blank, or a name is
     *     longer than {@value Message#MAX_NAME_LENGTH} characters
     */
    public Message build() {
      return new Message(this);
    }
  }
}
