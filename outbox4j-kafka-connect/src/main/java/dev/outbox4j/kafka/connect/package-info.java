/**
 * A Kafka Connect source connector for outbox4j: {@link dev.outbox4j.kafka.connect.OutboxSourceConnector} drains an
 * outbox4j JDBC outbox into Kafka through the store's claim face, one slot per task, keeping each key's commit order
 * and, on workers with exactly-once source support, delivering each entry exactly once (its record and the task's
 * source offset commit in one Kafka transaction; the offset lists the entries, so a restarted task settles what
 * landed instead of sending it again). Settings: {@link dev.outbox4j.kafka.connect.OutboxSourceConfig}; design and
 * crash points: {@code docs/kafka-connect.md}.
 */
@NullMarked
package dev.outbox4j.kafka.connect;

import org.jspecify.annotations.NullMarked;
