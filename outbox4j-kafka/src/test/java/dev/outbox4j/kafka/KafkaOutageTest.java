package dev.outbox4j.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox4j.Message;
import dev.outbox4j.OutboxEntry;
import dev.outbox4j.Relay;
import dev.outbox4j.RelayListener;
import dev.outbox4j.RetryPolicy;
import dev.outbox4j.memory.InMemoryOutboxStore;
import dev.outbox4j.spi.QuarantineQuery;
import dev.outbox4j.testkit.TcpProxy;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.junit.jupiter.api.Test;

/**
 * The broker goes away mid-run and comes back: a TCP proxy between the relay's producer and the broker is cut and
 * restored. Nothing may be lost, failed deliveries are retried with backoff, and nothing is quarantined.
 */
class KafkaOutageTest {
  private final EmbeddedKafka kafka = EmbeddedKafka.shared();

  @Test
  void a_broker_outage_mid_run_loses_nothing_and_quarantines_nothing() {
    String topic = "outage-" + UUID.randomUUID();
    kafka.createTopic(topic, 4);
    List<Message> messages = Arrivals.messages(topic, 2000, 20);
    InMemoryOutboxStore store = InMemoryOutboxStore.create();
    Arrivals.writeAll(store, messages);
    AtomicInteger delivered = new AtomicInteger();
    AtomicInteger failed = new AtomicInteger();
    AtomicInteger quarantined = new AtomicInteger();
    AtomicLong longestBackoffMillis = new AtomicLong();
    Clock clock = Clock.systemUTC();
    RelayListener counting = new RelayListener() {
      @Override
      public void onDelivered(OutboxEntry entry, Duration deliveryTime) {
        delivered.incrementAndGet();
      }

      @Override
      public void onFailed(OutboxEntry entry, String error, Instant nextAttemptAt) {
        failed.incrementAndGet();
        long backoff = Duration.between(clock.instant(), nextAttemptAt).toMillis();
        longestBackoffMillis.accumulateAndGet(backoff, Math::max);
      }

      @Override
      public void onPostponed(OutboxEntry entry, String reason, Instant nextAttemptAt) {
        onFailed(entry, reason, nextAttemptAt); // an outage, recognised: retried later, uncharged
      }

      @Override
      public void onQuarantined(OutboxEntry entry, String reason) {
        quarantined.incrementAndGet();
      }
    };
    TcpProxy proxy = kafka.proxy();
    Arrivals arrivals = new Arrivals();
    try (KafkaTransport transport = KafkaTransport.builder()
            .withBootstrapServers(kafka.proxiedBootstrapServers())
            .withMaxBlock(Duration.ofSeconds(2))
            .withRequestTimeout(Duration.ofSeconds(2))
            .withDeliveryTimeout(Duration.ofSeconds(3))
            .build();
        Relay relay = Relay.builder(store, transport)
            .withLease(Duration.ofSeconds(20))
            .withDeliveryTimeout(Duration.ofSeconds(8))
            .withRetryPolicy(RetryPolicy.exponential().withBase(Duration.ofMillis(50)).withCap(Duration.ofMillis(500))
                .withMaxAttempts(10_000).build())
            .withOutageBackoff(Duration.ofMillis(50), Duration.ofMillis(500))
            .withClock(clock)
            .onEvent(counting)
            .build();
        KafkaConsumer<byte[], byte[]> consumer = kafka.consumerFromStart(topic)) {
      relay.start();
      await().atMost(Duration.ofSeconds(180)).until(() -> delivered.get() >= 300);

      proxy.cut();
      try {
        await().atMost(Duration.ofSeconds(180)).until(() -> failed.get() >= 40);
      } finally {
        proxy.restore();
      }
      int deliveredDuringOutage = delivered.get();

      arrivals.pollUntilAll(consumer, messages.size(), Duration.ofSeconds(90));
      assertThat(delivered.get()).as("deliveries resumed after the outage").isGreaterThan(deliveredDuringOutage);
    } finally {
      proxy.restore();
    }

    arrivals.assertAllArrivedInKeyOrder(messages);
    assertThat(failed.get()).as("failed attempts retried").isGreaterThanOrEqualTo(40);
    assertThat(longestBackoffMillis.get()).as("failed entries were rescheduled into the future (backoff)")
        .isPositive();
    assertThat(quarantined.get()).isZero();
    assertThat(store.quarantined(QuarantineQuery.first(10))).isEmpty();
    await().atMost(Duration.ofSeconds(30)).until(() -> store.pendingCount() == 0);
  }
}
