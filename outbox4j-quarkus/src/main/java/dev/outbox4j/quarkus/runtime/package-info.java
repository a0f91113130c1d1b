/**
 * The extension's wiring, not API to call: the configuration under {@code outbox4j.*}
 * ({@link dev.outbox4j.quarkus.runtime.Outbox4jConfig}), the beans ({@link dev.outbox4j.quarkus.runtime.Outbox4jProducers}),
 * the relay run on {@code StartupEvent} and closed on {@code ShutdownEvent}
 * ({@link dev.outbox4j.quarkus.runtime.RelayRuntime}), the observer that writes {@code @OutboxEvent} CDI events
 * ({@link dev.outbox4j.quarkus.runtime.OutboxEventWriter}), and the optional health checks, meters, JSON event
 * serializer and trace propagation, which the deployment module registers only when the application has SmallRye
 * Health, Micrometer, Jackson or OpenTelemetry.
 */
@NullMarked
package dev.outbox4j.quarkus.runtime;

import org.jspecify.annotations.NullMarked;
