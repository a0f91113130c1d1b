package dev.outbox4j.quarkus.runtime;

import dev.outbox4j.Outbox;
import dev.outbox4j.opentelemetry.TracingOutbox;
import dev.outbox4j.opentelemetry.TracingTransport;
import dev.outbox4j.spi.Transport;
import io.opentelemetry.api.OpenTelemetry;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.sql.Connection;

/**
 * {@link OutboxTracing} by {@code outbox4j-opentelemetry}'s decorators, with the {@link OpenTelemetry} of the Quarkus
 * OpenTelemetry extension: {@link TracingOutbox} stores the writer's current context (the request's server span, or
 * any span the application opened) as W3C {@code traceparent}/{@code tracestate} headers; {@link TracingTransport}
 * opens a PRODUCER span per delivery, parented on that stored context, and sends the message with its headers
 * unchanged.
 *
 * <p>Registered when the application has {@code quarkus-opentelemetry} (its tracer) and {@code outbox4j-opentelemetry};
 * {@code outbox4j.tracing.enabled=false} leaves the writer and transport undecorated. Thread-safe.
 */
@Singleton
public class OpenTelemetryTracing implements OutboxTracing {
  private final OpenTelemetry openTelemetry;

  /** @param openTelemetry the application's, as the Quarkus extension configured it */
  @Inject
  public OpenTelemetryTracing(OpenTelemetry openTelemetry) {
    this.openTelemetry = openTelemetry;
  }

  @Override
  public Outbox<Connection> traced(Outbox<Connection> writer) {
    return TracingOutbox.wrap(writer);
  }

  @Override
  public Transport traced(Transport transport, String system) {
    return TracingTransport.wrap(transport, openTelemetry, system);
  }
}
