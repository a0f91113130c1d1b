/**
 * The NATS JetStream transport: {@link dev.outbox4j.nats.NatsTransport} publishes each message to a subject with the
 * message id as {@code Nats-Msg-Id}, so the stream drops duplicates inside its window, and reports success only on the
 * stream's publish ack. See {@code docs/transport-nats.md}.
 */
@NullMarked
package dev.outbox4j.nats;

import org.jspecify.annotations.NullMarked;
