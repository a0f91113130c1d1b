package dev.outbox4j;

import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * The configurable limits a message must respect before an outbox writes it. The structural limits every message
 * obeys (a destination, key, content type and header names of at most {@value Message#MAX_NAME_LENGTH}
 * characters) are checked by {@link Message.Builder#build()}; these are the ones a deployment may tune.
 *
 * <p>Immutable and thread-safe.
 *
 * @param maxPayloadBytes largest payload in bytes; default {@value #DEFAULT_MAX_PAYLOAD_BYTES} (1 MiB)
 * @param maxHeaders most headers on one message; default {@value #DEFAULT_MAX_HEADERS}
 * @param maxHeaderValueBytes largest header value in UTF-8 bytes; default {@value #DEFAULT_MAX_HEADER_VALUE_BYTES}
 */
public record MessageLimits(int maxPayloadBytes, int maxHeaders, int maxHeaderValueBytes) {
  /** Default payload limit: 1 MiB. */
  public static final int DEFAULT_MAX_PAYLOAD_BYTES = 1024 * 1024;
  /** Default number of headers per message. */
  public static final int DEFAULT_MAX_HEADERS = 64;
  /** Default size of one header value, in UTF-8 bytes. */
  public static final int DEFAULT_MAX_HEADER_VALUE_BYTES = 8192;

  /**
   * @throws IllegalArgumentException if a limit is not positive
   */
  public MessageLimits {
    requirePositive("maxPayloadBytes", maxPayloadBytes);
    requirePositive("maxHeaders", maxHeaders);
    requirePositive("maxHeaderValueBytes", maxHeaderValueBytes);
  }

  /** @return the default limits: 1 MiB payload, 64 headers, 8 KiB per header value */
  public static MessageLimits defaults() {
    return new MessageLimits(DEFAULT_MAX_PAYLOAD_BYTES, DEFAULT_MAX_HEADERS, DEFAULT_MAX_HEADER_VALUE_BYTES);
  }

  /**
   * @param bytes the new payload limit, in bytes
   * @return a copy with that payload limit
   */
  public MessageLimits withMaxPayloadBytes(int bytes) {
    return new MessageLimits(bytes, maxHeaders, maxHeaderValueBytes);
  }

  /**
   * Checks a message against these limits.
   *
   * @param message the message to check
   * @throws MessageRejectedException naming the first field that breaks a limit
   */
  public void check(Message message) {
    if (message.payloadSize() > maxPayloadBytes) {
      throw new MessageRejectedException(
          "payload", "at most " + maxPayloadBytes + " bytes", message.payloadSize() + " bytes");
    }
    Map<String, String> headers = message.headers();
    if (headers.size() > maxHeaders) {
      throw new MessageRejectedException("headers", "at most " + maxHeaders + " entries", headers.size() + " entries");
    }
    for (Map.Entry<String, String> header : headers.entrySet()) {
      int size = header.getValue().getBytes(StandardCharsets.UTF_8).length;
      if (size > maxHeaderValueBytes) {
        throw new MessageRejectedException(
            "headers[" + header.getKey() + "]", "at most " + maxHeaderValueBytes + " UTF-8 bytes", size + " bytes");
      }
    }
  }

  private static void requirePositive(String name, int value) {
    if (value <= 0) {
      throw new IllegalArgumentException(name + " must be positive, was " + value);
    }
  }
}
