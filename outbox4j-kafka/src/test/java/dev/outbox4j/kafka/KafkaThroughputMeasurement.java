package dev.outbox4j.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox4j.Message;
import dev.outbox4j.Relay;
import dev.outbox4j.RelayResult;
import dev.outbox4j.jdbc.testing.PostgresTestOutbox;
import dev.outbox4j.memory.InMemoryOutboxStore;
import dev.outbox4j.spi.OutboxStore;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * Measures (never asserts) end-to-end throughput: a backlog of 20,000 entries in a PostgreSQL outbox (and, for
 * comparison, the in-memory store) drained by one relay into the embedded broker, counted as delivered once the broker confirmed and the store recorded it.
 *
 * <p>Not part of the normal test run (its name does not match Surefire's test patterns). Run it with:
 * <pre>
 * mvn -pl outbox4j-kafka -am test -Dtest=KafkaThroughputMeasurement -Dsurefire.failIfNoSpecifiedTests=false
 * </pre>
 * Options: {@code -Doutbox4j.measure.messages=20000}, {@code -Doutbox4j.measure.payload=256} (bytes).
 */
class KafkaThroughputMeasurement {
  private final EmbeddedKafka kafka = EmbeddedKafka.shared();
  private final int count = Integer.getInteger("outbox4j.measure.messages", 20_000);
  private final int payloadSize = Integer.getInteger("outbox4j.measure.payload", 256);

  @Test
  void measure_unkeyed_postgres_backlog() {
    try (PostgresTestOutbox outbox = PostgresTestOutbox.fresh("kafka_bench_")) {
      measure("PostgreSQL, unkeyed, batch 1000", outbox.store(), outbox::write, 0, 1000);
    }
  }

  @Test
  void measure_postgres_backlog_over_1000_keys() {
    try (PostgresTestOutbox outbox = PostgresTestOutbox.fresh("kafka_bench_")) {
      measure("PostgreSQL, 1000 ordering keys, batch 1000", outbox.store(), outbox::write, 1000, 1000);
    }
  }

  @Test
  void measure_postgres_backlog_over_50_keys() {
    try (PostgresTestOutbox outbox = PostgresTestOutbox.fresh("kafka_bench_")) {
      measure("PostgreSQL, 50 ordering keys, batch 200", outbox.store(), outbox::write, 50, 200);
    }
  }

  @Test
  void measure_unkeyed_in_memory_backlog() {
    InMemoryOutboxStore store = InMemoryOutboxStore.create();
    measure("in-memory, unkeyed, batch 1000", store, messages -> Arrivals.writeAll(store, messages), 0, 1000);
  }

  private void measure(String label, OutboxStore store, Consumer<List<Message>> writer, int keys, int batchSize) {
    String topic = "throughput-" + UUID.randomUUID();
    kafka.createTopic(topic, 8);
    List<Message> messages = Arrivals.messages(topic, count, keys).stream()
        .map(m -> m.toBuilder().withPayload(new byte[payloadSize]).build()).toList();
    writer.accept(messages);

    RelayResult result;
    long started;
    long finished;
    try (KafkaTransport transport = KafkaTransport.builder().withBootstrapServers(kafka.bootstrapServers()).build();
        Relay relay = Relay.builder(store, transport).withBatchSize(batchSize).withMaxInFlight(batchSize).build()) {
      relay.flush(); // warm up: connection, metadata, producer id
      started = System.nanoTime();
      result = relay.drain(Integer.MAX_VALUE);
      finished = System.nanoTime();
    }
    long records;
    try (KafkaConsumer<byte[], byte[]> consumer = kafka.consumerFromStart(topic)) {
      Map<TopicPartition, Long> ends = consumer.endOffsets(consumer.assignment(), Duration.ofSeconds(30));
      records = ends.values().stream().mapToLong(Long::longValue).sum();
    }
    double seconds = (finished - started) / 1e9;
    System.out.printf("KAFKA THROUGHPUT [%s]: %d messages of %d bytes delivered in %.2f s = %.0f msg/s "
            + "(%d in the warm-up pass; %d records in the topic; failed %d)%n",
        label, result.delivered(), payloadSize, seconds, result.delivered() / seconds,
        count - result.delivered(), records, result.failed());
    assertThat(records).isEqualTo(count);
  }
}
