/**
 * The Kafka transport: {@link dev.outbox4j.kafka.KafkaTransport} delivers outbox messages to Kafka topics with an
 * idempotent, {@code acks=all} producer, the ordering key as the record key, the payload verbatim as the value, and the
 * message id, content type and message headers as record headers. Configured with
 * {@link dev.outbox4j.kafka.KafkaTransport#builder()} or
 * {@link dev.outbox4j.kafka.KafkaTransport#fromProperties(java.util.Map)}; see {@code docs/transport-kafka.md}.
 */
@NullMarked
package dev.outbox4j.kafka;

import org.jspecify.annotations.NullMarked;
