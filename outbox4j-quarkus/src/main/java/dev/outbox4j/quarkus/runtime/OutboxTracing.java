package dev.outbox4j.quarkus.runtime;

import dev.outbox4j.Outbox;
import dev.outbox4j.spi.Transport;
import java.sql.Connection;

/**
 * Trace propagation around the writer and the relay's transport. Its one implementation, {@link OpenTelemetryTracing},
 * is a bean only when the application has {@code quarkus-opentelemetry} and {@code outbox4j-opentelemetry}; this
 * interface names no OpenTelemetry type, so the beans that look it up load without them.
 */
public interface OutboxTracing {

  /**
   * @param writer the outbox's writer
   * @return a writer that stores the caller's current trace context in each message's headers
   */
  Outbox<Connection> traced(Outbox<Connection> writer);

  /**
   * @param transport the relay's transport
   * @param system its {@code messaging.system}: {@code rabbitmq}, {@code kafka}, {@code nats}, {@code http}, ...
   * @return a transport that opens a PRODUCER span per delivery, continuing the trace stored with the message
   */
  Transport traced(Transport transport, String system);
}
