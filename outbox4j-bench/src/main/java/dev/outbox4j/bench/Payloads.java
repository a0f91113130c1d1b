package dev.outbox4j.bench;

import java.nio.charset.StandardCharsets;

/** The message every scenario sends: a 200-byte JSON-ish payload, the same bytes everywhere. */
final class Payloads {
  /** Payload size in bytes. */
  static final int SIZE = 200;
  /** The destination every message goes to. */
  static final String DESTINATION = "bench.orders";

  private static final String TEXT = text();
  private static final byte[] BYTES = TEXT.getBytes(StandardCharsets.US_ASCII);

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

  /** @return the payload as text, for libraries that take strings */
  static String text200() {
    return TEXT;
  }
}
