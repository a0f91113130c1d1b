package dev.outbox4j.testkit;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A clock that stands still until a test moves it, so leases, retry schedules and TTLs are tested without sleeping.
 * Give it to the store and the relay under test, then {@link #advance(Duration)}.
 *
 * <p>Thread-safe.
 */
public final class SettableClock extends Clock {
  private final AtomicReference<Instant> now;
  private final ZoneId zone;

  private SettableClock(AtomicReference<Instant> now, ZoneId zone) {
    this.now = now;
    this.zone = zone;
  }

  /**
   * @param start the initial time
   * @return a clock standing at {@code start}, in UTC
   */
  public static SettableClock at(Instant start) {
    return new SettableClock(new AtomicReference<>(Objects.requireNonNull(start, "start")), ZoneOffset.UTC);
  }

  /**
   * @return a clock standing at a fixed, whole-millisecond instant (2030-01-01T00:00:00Z), so database timestamp
   *     precision never truncates it
   */
  public static SettableClock atFixedStart() {
    return at(Instant.parse("2030-01-01T00:00:00Z"));
  }

  /**
   * @param amount how far to move forward; may be negative to move back
   * @return the new time
   */
  public Instant advance(Duration amount) {
    return now.updateAndGet(current -> current.plus(amount));
  }

  /** @param instant the new time */
  public void set(Instant instant) {
    now.set(Objects.requireNonNull(instant, "instant"));
  }

  @Override
  public Instant instant() {
    return now.get();
  }

  @Override
  public ZoneId getZone() {
    return zone;
  }

  /** The returned clock shares this clock's time: moving one moves both. */
  @Override
  public Clock withZone(ZoneId newZone) {
    return new SettableClock(now, newZone);
  }
}
