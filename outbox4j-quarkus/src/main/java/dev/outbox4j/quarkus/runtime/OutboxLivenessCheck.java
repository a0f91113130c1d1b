package dev.outbox4j.quarkus.runtime;

import dev.outbox4j.Relay;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.util.Optional;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Liveness;

/**
 * The relay's liveness: DOWN when this application started a relay and its background worker is no longer running
 * (it stopped on an error it could not survive), which a restart repairs; UP otherwise, with {@code relay} saying
 * whether this application runs one. Outages, paused destinations and quarantined entries never fail liveness: a
 * restart would not bring a broker back (readiness reports them).
 *
 * <p>Registered when the application has {@code quarkus-smallrye-health}. Thread-safe.
 */
@Liveness
@Singleton
public class OutboxLivenessCheck implements HealthCheck {
  private final RelayRuntime relay;

  /** @param relay the relay's runtime */
  @Inject
  public OutboxLivenessCheck(RelayRuntime relay) {
    this.relay = relay;
  }

  @Override
  public HealthCheckResponse call() {
    Optional<Relay> running = relay.relay();
    boolean alive = running.map(r -> r.isRunning() || relay.stopping()).orElse(true);
    return HealthCheckResponse.named(OutboxReadinessCheck.NAME + "-relay")
        .status(alive)
        .withData("relay", running.isPresent() ? (alive ? "running" : "stopped") : "none")
        .build();
  }
}
