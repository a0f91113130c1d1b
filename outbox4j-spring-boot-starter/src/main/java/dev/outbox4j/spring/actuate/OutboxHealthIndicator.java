package dev.outbox4j.spring.actuate;

import dev.outbox4j.DestinationStatus;
import dev.outbox4j.spi.OutboxStats;
import dev.outbox4j.spi.OutboxStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

/**
 * The outbox's health: UP with the counts (pending, waiting, blocked, in flight, quarantined), the lag (age of the
 * oldest waiting entry) and the age of the oldest blocked entry; DOWN when the store cannot be read (the database is
 * unreachable); OUT_OF_SERVICE when a maximum lag is configured and the lag exceeds it (the relay is not keeping up,
 * or not running).
 *
 * <p>Entries blocked behind a quarantined or parked entry of their key are not lag: no relay can move them until an
 * operator acts, and restarting the application would not help. They are shown ({@code blocked},
 * {@code oldestBlockedAge}) next to {@code quarantined}, which is what to alert on for them.
 *
 * <p>Paused destinations (the relay paused them because all of their deliveries fail alike) are named in the detail
 * {@code pausedDestinations}, with {@code degraded: true}. The status stays UP by default: the application and the
 * relay's other destinations work, and restarting the instance would not bring a remote endpoint back. With
 * {@code failWhenDestinationPaused} a paused destination makes it OUT_OF_SERVICE, which Boot answers with 503.
 *
 * <p>Each check runs one stats query. Thread-safe.
 */
public final class OutboxHealthIndicator extends AbstractHealthIndicator {
  private final OutboxStore store;
  private final Clock clock;
  private final @Nullable Duration maxLag;
  private final Supplier<List<DestinationStatus>> pausedDestinations;
  private final boolean failWhenDestinationPaused;

  /**
   * Without a relay: no destination is ever reported paused.
   *
   * @param store the outbox store
   * @param clock the time the lag is measured against
   * @param maxLag the lag above which the outbox is out of service, or {@code null} for no limit
   */
  public OutboxHealthIndicator(OutboxStore store, Clock clock, @Nullable Duration maxLag) {
    this(store, clock, maxLag, List::of, false);
  }

  /**
   * @param store the outbox store
   * @param clock the time the lag is measured against
   * @param maxLag the lag above which the outbox is out of service, or {@code null} for no limit
   * @param pausedDestinations the relay's paused destinations ({@code relay::pausedDestinations}); empty without one
   * @param failWhenDestinationPaused whether a paused destination makes the outbox OUT_OF_SERVICE rather than UP
   */
  public OutboxHealthIndicator(OutboxStore store, Clock clock, @Nullable Duration maxLag,
      Supplier<List<DestinationStatus>> pausedDestinations, boolean failWhenDestinationPaused) {
    super("outbox4j health check failed");
    this.store = Objects.requireNonNull(store, "store");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.maxLag = maxLag;
    this.pausedDestinations = Objects.requireNonNull(pausedDestinations, "pausedDestinations");
    this.failWhenDestinationPaused = failWhenDestinationPaused;
  }

  @Override
  protected void doHealthCheck(Health.Builder builder) {
    Instant now = clock.instant();
    OutboxStats stats = store.stats(now);
    Duration lag = stats.lag(now);
    List<String> paused = pausedDestinations.get().stream().map(DestinationStatus::destination).toList();
    boolean lagging = maxLag != null && lag.compareTo(maxLag) > 0;
    boolean failing = failWhenDestinationPaused && !paused.isEmpty();
    builder.status(lagging || failing ? Status.OUT_OF_SERVICE : Status.UP)
        .withDetail("pending", stats.pending())
        .withDetail("waiting", stats.waiting())
        .withDetail("blocked", stats.blocked())
        .withDetail("inFlight", stats.inFlight())
        .withDetail("quarantined", stats.quarantined())
        .withDetail("lag", lag.toString())
        .withDetail("oldestBlockedAge", stats.blockedAge(now).toString());
    if (maxLag != null) {
      builder.withDetail("maxLag", maxLag.toString());
    }
    if (!paused.isEmpty()) {
      builder.withDetail("degraded", true).withDetail("pausedDestinations", paused);
    }
  }
}
