package dev.outbox4j.quarkus.runtime;

import dev.outbox4j.RelayListener;
import dev.outbox4j.jdbc.JdbcOutboxStore;
import dev.outbox4j.micrometer.OutboxMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import jakarta.enterprise.inject.Typed;
import jakarta.inject.Singleton;

/**
 * The outbox's meters through {@code outbox4j-micrometer}, on the registry of the Quarkus Micrometer extension: the
 * same meter names as every other binding ({@code outbox4j.delivered}, {@code outbox4j.lag}, ...; {@code outbox4j_*}
 * in Prometheus). The meters are bound here, once, and the bean is typed as a {@link RelayListener} only (not a
 * {@code MeterBinder}), so the relay feeds its counters and no registry binds it a second time.
 *
 * <p>Registered when the application has {@code quarkus-micrometer} and {@code outbox4j-micrometer}.
 */
@Singleton
public class OutboxMetersProducer {
  /** Creates the producer; called by CDI. */
  public OutboxMetersProducer() {}

  /**
   * @param store the outbox whose gauges are published
   * @param registry the application's registry
   * @return the meters, bound, as a relay listener
   */
  @Produces
  @Singleton
  @Typed(RelayListener.class)
  public OutboxMetrics outbox4jMetrics(JdbcOutboxStore store, MeterRegistry registry) {
    OutboxMetrics metrics = OutboxMetrics.builder(store).build();
    metrics.bindTo(registry);
    return metrics;
  }

  /** @param metrics stops the gauges' background refresh */
  public void close(@Disposes RelayListener metrics) {
    if (metrics instanceof OutboxMetrics meters) {
      meters.close();
    }
  }
}
