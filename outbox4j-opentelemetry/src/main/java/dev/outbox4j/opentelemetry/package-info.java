/**
 * OpenTelemetry trace propagation through the outbox, as decorators around the core interfaces (no hook in core):
 *
 * <ul>
 *   <li>{@link dev.outbox4j.opentelemetry.TracingOutbox} stores the writer's current trace context as W3C
 *       {@code traceparent} and {@code tracestate} headers, unless the caller set a {@code traceparent} itself;
 *   <li>{@link dev.outbox4j.opentelemetry.TracingTransport} opens a PRODUCER span per delivery, parented on the stored
 *       context, and hands the message on with its headers unchanged;
 *   <li>{@link dev.outbox4j.opentelemetry.TracingInbox} opens a CONSUMER span from a received message's headers around
 *       {@code handleOnce}.
 * </ul>
 *
 * <p>Depends on the OpenTelemetry API only: without an SDK (or the Java agent) every span is a no-op and nothing is
 * stored.
 */
@NullMarked
package dev.outbox4j.opentelemetry;

import org.jspecify.annotations.NullMarked;
