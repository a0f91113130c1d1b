package dev.outbox4j.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox4j.Message;
import dev.outbox4j.spi.BatchOutcome;
import dev.outbox4j.spi.Outgoing;
import dev.outbox4j.testkit.TcpProxy;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Look-ups of entries in doubt ({@code deliveredEarlier}) against the in-process broker: one waiting behind an open
 * transaction does not delay another, and one the relay stops waiting for is cancelled and frees its consumer and its
 * thread at once, whether it waits behind a transaction or on a stalled network.
 */
class KafkaProgressLookupTest {
  private static final Duration WAIT = Duration.ofSeconds(60);
  /** Far beyond any wait of these tests, so a transaction held open stays open until the test releases it. */
  private static final Duration LONG_TIMEOUT = Duration.ofSeconds(90);

  private final EmbeddedKafka kafka = EmbeddedKafka.shared();

  private static KafkaTransactions settings() {
    return KafkaTransactions.builder().withProgressTopic("progress-" + UUID.randomUUID()).withTimeout(LONG_TIMEOUT)
        .withProducers(2).build();
  }

  private static Message message(String topic, String key, String payload) {
    return Message.builder().withDestination(topic).withOrderingKey(key).withPayload(payload).build();
  }

  private static CompletableFuture<BatchOutcome> deliverAll(TransactionalLane lane, List<Message> batch,
      Instant claimedAt) {
    return lane.deliverAll(batch.stream().map(m -> new Outgoing(m, null)).toList(), claimedAt).toCompletableFuture();
  }

  private TransactionalLane lane(KafkaTransport transport, String topic) throws Exception {
    kafka.createTopic(topic, 1);
    return transport.lane();
  }

  private static KafkaTransport transport(String servers) {
    return KafkaTransport.builder().withBootstrapServers(servers).withTransactions(settings()).build();
  }

  private static Instant committed(TransactionalLane lane, List<Message> batch) throws Exception {
    Instant claimedAt = Instant.now();
    assertThat(deliverAll(lane, batch, claimedAt).get(WAIT.toSeconds(), TimeUnit.SECONDS))
        .isEqualTo(BatchOutcome.committed());
    return claimedAt;
  }

  @Test
  void a_lookup_stuck_behind_an_open_transaction_does_not_delay_a_second_one() throws Exception {
    String topic = "lookup-two-" + UUID.randomUUID();
    try (KafkaTransport transport = transport(kafka.bootstrapServers())) {
      TransactionalLane lane = lane(transport, topic);
      List<Message> landed = List.of(message(topic, "a", "landed"));
      Instant landedAt = committed(lane, landed);
      List<Message> open = List.of(message(topic, "b", "open"));
      Instant openAt = Instant.now();
      try (HeldCommit held = new HeldCommit(lane, open, openAt)) {
        CompletableFuture<Set<UUID>> stuck = lane.deliveredEarlier(open, openAt).toCompletableFuture();

        CompletableFuture<Set<UUID>> second = lane.deliveredEarlier(landed, landedAt).toCompletableFuture();

        assertThat(second.get(10, TimeUnit.SECONDS)).as("answered while the other look-up waits")
            .containsExactly(landed.get(0).id());
        assertThat(stuck).as("waits for the open transaction's outcome").isNotDone();
        held.close();
        assertThat(held.outcome.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo(BatchOutcome.committed());
        assertThat(stuck.get(WAIT.toSeconds(), TimeUnit.SECONDS)).containsExactly(open.get(0).id());
      }
    }
  }

  @Test
  void a_lookup_cancelled_behind_an_open_transaction_closes_its_consumer_at_once() throws Exception {
    String topic = "lookup-cancel-" + UUID.randomUUID();
    try (KafkaTransport transport = transport(kafka.bootstrapServers())) {
      TransactionalLane lane = lane(transport, topic);
      List<Message> open = List.of(message(topic, "b", "open"));
      Instant openAt = Instant.now();
      try (HeldCommit held = new HeldCommit(lane, open, openAt)) {
        CompletableFuture<Set<UUID>> stuck = lane.deliveredEarlier(open, openAt).toCompletableFuture();
        await("the look-up reads the progress topic").atMost(WAIT).until(() -> lane.openProgressReaders() == 1);

        stuck.cancel(true);

        await("its consumer closed and its thread free").atMost(Duration.ofSeconds(10))
            .until(() -> lane.openProgressReaders() == 0 && lane.lookupsUnderway() == 0);
        assertThat(held.outcome).as("while the transaction it waited behind is still open").isNotDone();
      }
    }
  }

  @Test
  void a_lookup_cancelled_while_the_network_is_stalled_frees_its_thread_at_once() throws Exception {
    String topic = "lookup-stall-" + UUID.randomUUID();
    TcpProxy proxy = kafka.proxy();
    Duration requestTimeout = Duration.ofSeconds(40);
    try (KafkaTransport transport = KafkaTransport.builder().withBootstrapServers(kafka.proxiedBootstrapServers())
        .withRequestTimeout(requestTimeout).withDeliveryTimeout(requestTimeout.plusSeconds(1))
        .withTransactions(settings()).build()) {
      TransactionalLane lane = lane(transport, topic);
      List<Message> landed = List.of(message(topic, "a", "landed"));
      Instant landedAt = committed(lane, landed);
      proxy.stall();
      try {
        CompletableFuture<Set<UUID>> stuck = lane.deliveredEarlier(landed, landedAt).toCompletableFuture();
        await("the look-up started").atMost(WAIT).until(() -> lane.lookupsUnderway() == 1);

        stuck.cancel(true);

        await("its thread free, long before the request timeout").atMost(Duration.ofSeconds(10))
            .until(() -> lane.lookupsUnderway() == 0 && lane.openProgressReaders() == 0);
      } finally {
        proxy.resume();
      }
    }
  }
}
