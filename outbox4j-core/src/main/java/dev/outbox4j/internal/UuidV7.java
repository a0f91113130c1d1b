package dev.outbox4j.internal;

import java.security.SecureRandom;
import java.time.Clock;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Time-ordered UUIDs (RFC 9562, version 7): 48 bits of Unix milliseconds, then a counter seeded from the random bits,
 * so ids generated in one process sort in generation order even within one millisecond. Not API.
 *
 * <p>Thread-safe.
 */
public final class UuidV7 {
  private static final SecureRandom RANDOM = new SecureRandom();
  /** The last (millis << 12 | sequence) handed out; ensures monotonic ids within this process. */
  private static final AtomicLong LAST = new AtomicLong();

  private UuidV7() {}

  /** @return a new time-ordered id, using the system clock */
  public static UUID next() {
    return next(Clock.systemUTC());
  }

  /**
   * @param clock the source of the millisecond timestamp
   * @return a new time-ordered id
   */
  public static UUID next(Clock clock) {
    long candidate = clock.millis() << 12;
    long stamp = LAST.updateAndGet(last -> Math.max(last + 1, candidate));
    long millis = stamp >>> 12;
    long sequence = stamp & 0xFFF;
    long msb = (millis << 16) | 0x7000L | sequence;
    long lsb = (RANDOM.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L;
    return new UUID(msb, lsb);
  }
}
