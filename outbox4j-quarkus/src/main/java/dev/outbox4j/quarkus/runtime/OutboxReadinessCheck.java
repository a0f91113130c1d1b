package dev.outbox4j.quarkus.runtime;

import dev.outbox4j.DestinationStatus;
import dev.outbox4j.Relay;
import dev.outbox4j.jdbc.JdbcOutboxStore;
import dev.outbox4j.spi.OutboxStats;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Readiness;

/**
 * The outbox's readiness, judged as the Spring Boot starter's health indicator judges it: UP with the counts (pending,
 * waiting, blocked, in flight, quarantined), the lag (age of the oldest waiting entry) and the age of the oldest blocked
 * entry; DOWN when the store cannot be read, when {@code outbox4j.health.max-lag} is set and exceeded, or when
 * {@code outbox4j.health.fail-when-destination-paused} is set and a destination is paused. MicroProfile Health has no
 * OUT_OF_SERVICE: where the starter says OUT_OF_SERVICE, this check says DOWN (HTTP 503 either way).
 *
 * <p>Quarantined and blocked entries are reported, not judged: no restart would move them, an operator must act. A
 * paused destination is named ({@code pausedDestinations}, {@code degraded: true}) and, by default, leaves readiness
 * UP: the application and its other destinations work.
 *
 * <p>Registered when the application has {@code quarkus-smallrye-health}. Each check runs one stats query.
 * Thread-safe.
 */
@Readiness
@Singleton
public class OutboxReadinessCheck implements HealthCheck {
  /** The check's name in {@code /q/health}. */
  public static final String NAME = "outbox4j";

  private final JdbcOutboxStore store;
  private final RelayRuntime relay;
  private final Outbox4jConfig config;
  private final Clock clock = Clock.systemUTC();

  /**
   * @param store the outbox store
   * @param relay the relay's runtime, for its paused destinations
   * @param config the health settings
   */
  @Inject
  public OutboxReadinessCheck(JdbcOutboxStore store, RelayRuntime relay, Outbox4jConfig config) {
    this.store = store;
    this.relay = relay;
    this.config = config;
  }

  @Override
  public HealthCheckResponse call() {
    HealthCheckResponseBuilder response = HealthCheckResponse.named(NAME);
    Instant now = clock.instant();
    OutboxStats stats;
    try {
      stats = store.stats(now);
    } catch (RuntimeException e) {
      return response.down().withData("error", String.valueOf(e.getMessage())).build();
    }
    Duration lag = stats.lag(now);
    List<String> paused = relay.relay().map(Relay::pausedDestinations).orElse(List.of()).stream()
        .map(DestinationStatus::destination).toList();
    Optional<Duration> maxLag = config.health().maxLag();
    boolean lagging = maxLag.isPresent() && lag.compareTo(maxLag.get()) > 0;
    boolean failing = config.health().failWhenDestinationPaused() && !paused.isEmpty();
    response.status(!lagging && !failing)
        .withData("pending", stats.pending())
        .withData("waiting", stats.waiting())
        .withData("blocked", stats.blocked())
        .withData("inFlight", stats.inFlight())
        .withData("quarantined", stats.quarantined())
        .withData("lag", lag.toString())
        .withData("oldestBlockedAge", stats.blockedAge(now).toString());
    maxLag.ifPresent(limit -> response.withData("maxLag", limit.toString()));
    if (!paused.isEmpty()) {
      response.withData("degraded", true).withData("pausedDestinations", String.join(",", paused));
    }
    return response.build();
  }
}
