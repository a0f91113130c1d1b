package dev.outbox4j.bench;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The message every scenario sends: a 200-byte JSON-ish payload, the same bytes everywhere; and, for the large-message
 * rows, payloads of other sizes made of random bytes (fixed seed), which neither PostgreSQL's TOAST compression nor any
 * other layer can shrink, so the bytes a row carries are the bytes that move.
 */
final class Payloads {
  /** Payload size in bytes. */
  static final int SIZE = 200;
  /** The destination every message goes to. */
  static final String DESTINATION = "bench.orders";
  /** The sizes of the large-message rows: 16 KiB and 256 KiB. */
  static final int[] LARGE_SIZES = {16 * 1024, 256 * 1024};

  private static final String TEXT = text();
  private static final byte[] BYTES = TEXT.getBytes(StandardCharsets.US_ASCII);
  private static final Map<Integer, byte[]> RANDOM = new ConcurrentHashMap<>();

  private Payloads() {}

  private static String text() {
    StringBuilder text = new StringBuilder("{\"order\":\"bench\",\"lines\":[");
    while (text.length() < SIZE - 3) {
      text.append('x');
    }
    text.append("\"]}");
    return text.substring(0, SIZE - 3) + "\"]}";
  }

  /** @return the payload bytes (shared; do not modify) */
  static byte[] bytes() {
    return BYTES;
  }

  /**
   * @param size the payload's size in bytes
   * @return the 200-byte payload for {@value #SIZE}, else {@code size} random bytes, the same for every call (shared;
   *     do not modify)
   */
  static byte[] bytes(int size) {
    if (size == SIZE) {
      return BYTES;
    }
    if (size < 1) {
      throw new IllegalArgumentException("payload size must be positive, was " + size);
    }
    return RANDOM.computeIfAbsent(size, n -> {
      byte[] random = new byte[n];
      new Random(n).nextBytes(random);
      return random;
    });
  }

  /** @return an id part for a payload size: {@code ""} for the 200-byte payload, else {@code "-16k"} */
  static String idSuffix(int size) {
    return size == SIZE ? "" : "-" + size / 1024 + "k";
  }

  /** @return the size in words: {@code "200-byte"}, {@code "16 KiB"} */
  static String words(int size) {
    return size == SIZE ? SIZE + "-byte" : size / 1024 + " KiB";
  }

  /** @return the payload as text, for libraries that take strings */
  static String text200() {
    return TEXT;
  }
}
