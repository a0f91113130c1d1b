/**
 * The extension's wiring, not API to call: the configuration under {@code outbox4j.*}
 * ({@link dev.outbox4j.quarkus.runtime.Outbox4jConfig}), the beans ({@link dev.outbox4j.quarkus.runtime.Outbox4jProducers}),
 * the relay run on {@code StartupEvent} and closed on {@code ShutdownEvent}
 * ({@link dev.outbox4j.quarkus.runtime.RelayRuntime}), and the optional health checks and meters, which the deployment
 * module registers only when the application has SmallRye Health or Micrometer.
 */
@NullMarked
package dev.outbox4j.quarkus.runtime;

import org.jspecify.annotations.NullMarked;
