package dev.outbox4j.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox4j.Message;
import dev.outbox4j.OutboxEntry;
import dev.outbox4j.Relay;
import dev.outbox4j.RelayListener;
import dev.outbox4j.memory.InMemoryOutboxStore;
import dev.outbox4j.spi.QuarantineQuery;
import dev.outbox4j.testkit.OutageWatch;
import dev.outbox4j.testkit.TcpProxy;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.junit.jupiter.api.Test;

/**
 * The broker goes away mid-run for longer than the relay's whole retry budget and comes back: a TCP proxy between the
 * relay's producer and the broker is cut and restored. The relay pauses instead of charging attempts, so nothing is
 * quarantined, nothing is lost and every key keeps its order.
 */
class KafkaOutageTest {
  private final EmbeddedKafka kafka = EmbeddedKafka.shared();

  @Test
  void a_broker_away_longer_than_the_whole_retry_budget_quarantines_nothing_and_everything_arrives_in_key_order() {
    String topic = "outage-" + UUID.randomUUID();
    kafka.createTopic(topic, 4);
    List<Message> messages = Arrivals.messages(topic, 2000, 20);
    InMemoryOutboxStore store = InMemoryOutboxStore.create();
    Arrivals.writeAll(store, messages);
    AtomicInteger delivered = new AtomicInteger();
    OutageWatch watch = new OutageWatch();
    TcpProxy proxy = kafka.proxy();
    Arrivals arrivals = new Arrivals();
    try (KafkaTransport transport = KafkaTransport.builder()
            .withBootstrapServers(kafka.proxiedBootstrapServers())
            .withMaxBlock(Duration.ofSeconds(2))
            .withRequestTimeout(Duration.ofSeconds(2))
            .withDeliveryTimeout(Duration.ofSeconds(3))
            .build();
        Relay relay = Relay.builder(store, transport)
            .withRetryPolicy(OutageWatch.shortRetryBudget())
            .withOutageBackoff(Duration.ofMillis(50), Duration.ofMillis(500))
            .onEvent(watch)
            .onEvent(new RelayListener() {
              @Override
              public void onDelivered(OutboxEntry entry, Duration deliveryTime) {
                delivered.incrementAndGet();
              }
            })
            .build();
        KafkaConsumer<byte[], byte[]> consumer = kafka.consumerFromStart(topic)) {
      relay.start();
      await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(5)).until(() -> delivered.get() >= 300);

      watch.holdOutage(proxy, OutageWatch.RETRY_BUDGET.multipliedBy(2));

      arrivals.pollUntilAll(consumer, messages.size(), Duration.ofSeconds(60));
      await().atMost(Duration.ofSeconds(30)).until(() -> store.pendingCount() == 0);
    } finally {
      proxy.restore();
    }

    arrivals.assertAllArrivedInKeyOrder(messages);
    assertThat(watch.postponed()).as("the outage was met and charged to nobody").isPositive();
    assertThat(watch.quarantined()).isZero();
    assertThat(store.quarantined(QuarantineQuery.first(10))).isEmpty();
  }
}
