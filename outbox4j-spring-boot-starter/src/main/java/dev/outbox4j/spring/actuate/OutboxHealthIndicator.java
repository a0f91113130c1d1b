package dev.outbox4j.spring.actuate;

import dev.outbox4j.spi.OutboxStats;
import dev.outbox4j.spi.OutboxStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

/**
 * The outbox's health: UP with the counts (pending, in flight, quarantined) and the lag (age of the oldest waiting
 * entry); DOWN when the store cannot be read (the database is unreachable); OUT_OF_SERVICE when a maximum lag is
 * configured and the lag exceeds it (the relay is not keeping up, or not running).
 *
 * <p>Each check runs one stats query. Thread-safe.
 */
public final class OutboxHealthIndicator extends AbstractHealthIndicator {
  private final OutboxStore store;
  private final Clock clock;
  private final @Nullable Duration maxLag;

  /**
   * @param store the outbox store
   * @param clock the time the lag is measured against
   * @param maxLag the lag above which the outbox is out of service, or {@code null} for no limit
   */
  public OutboxHealthIndicator(OutboxStore store, Clock clock, @Nullable Duration maxLag) {
    super("outbox4j health check failed");
    this.store = Objects.requireNonNull(store, "store");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.maxLag = maxLag;
  }

  @Override
  protected void doHealthCheck(Health.Builder builder) {
    Instant now = clock.instant();
    OutboxStats stats = store.stats(now);
    Duration lag = stats.oldestPending().map(oldest -> Duration.between(oldest, now)).orElse(Duration.ZERO);
    if (lag.isNegative()) {
      lag = Duration.ZERO;
    }
    builder.status(maxLag != null && lag.compareTo(maxLag) > 0 ? Status.OUT_OF_SERVICE : Status.UP)
        .withDetail("pending", stats.pending())
        .withDetail("inFlight", stats.inFlight())
        .withDetail("quarantined", stats.quarantined())
        .withDetail("lag", lag.toString());
    if (maxLag != null) {
      builder.withDetail("maxLag", maxLag.toString());
    }
  }
}
