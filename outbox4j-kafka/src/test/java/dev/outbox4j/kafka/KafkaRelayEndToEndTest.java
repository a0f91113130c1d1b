package dev.outbox4j.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox4j.Message;
import dev.outbox4j.Relay;
import dev.outbox4j.RetryPolicy;
import dev.outbox4j.jdbc.JdbcOutboxStore;
import dev.outbox4j.jdbc.testing.PostgresTestOutbox;
import dev.outbox4j.spi.QuarantineQuery;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.junit.jupiter.api.Test;

/** PostgreSQL outbox (the JDBC store) → relay → real Kafka broker → real consumer. */
class KafkaRelayEndToEndTest {
  private final EmbeddedKafka kafka = EmbeddedKafka.shared();

  @Test
  void every_one_of_5000_messages_arrives_with_a_unique_id_and_each_key_in_write_order() {
    String topic = "e2e-" + UUID.randomUUID();
    kafka.createTopic(topic, 4);
    List<Message> messages = Arrivals.messages(topic, 5000, 50);
    Arrivals arrivals = new Arrivals();
    try (PostgresTestOutbox outbox = PostgresTestOutbox.fresh("kafka_e2e_")) {
      JdbcOutboxStore store = outbox.store();
      outbox.write(messages);
      try (KafkaTransport transport = KafkaTransport.builder().withBootstrapServers(kafka.bootstrapServers()).build();
          Relay relay = Relay.builder(store, transport)
              .withRetryPolicy(RetryPolicy.exponential().withBase(Duration.ofMillis(50))
                  .withCap(Duration.ofSeconds(1)).withMaxAttempts(100).build())
              .build();
          KafkaConsumer<byte[], byte[]> consumer = kafka.consumerFromStart(topic)) {
        relay.start();
        arrivals.pollUntilAll(consumer, messages.size(), Duration.ofSeconds(90));
      }
      assertThat(store.stats(Instant.now()).pending()).isZero();
      assertThat(store.quarantined(QuarantineQuery.first(10))).isEmpty();
    }

    arrivals.assertAllArrivedInKeyOrder(messages);
    assertThat(arrivals.records()).as("records, duplicates included: none expected without failures")
        .isEqualTo(messages.size());
  }
}
