/**
 * The Kafka transport: {@link dev.outbox4j.kafka.KafkaTransport} delivers outbox messages to Kafka topics with an
 * idempotent, {@code acks=all} producer, the ordering key as the record key, the payload verbatim as the value, and the
 * message id, content type and message headers as record headers. Configured with
 * {@link dev.outbox4j.kafka.KafkaTransport#builder()} or
 * {@link dev.outbox4j.kafka.KafkaTransport#fromProperties(java.util.Map)}; see {@code docs/transport-kafka.md}.
 *
 * <p>With {@link dev.outbox4j.kafka.KafkaTransactions} (the transactional mode), each batch the relay hands over is one
 * Kafka transaction carrying a progress record, so consumers that read committed data see every message exactly once,
 * and a batch whose relay froze can never land after its lease.
 */
@NullMarked
package dev.outbox4j.kafka;

import org.jspecify.annotations.NullMarked;
