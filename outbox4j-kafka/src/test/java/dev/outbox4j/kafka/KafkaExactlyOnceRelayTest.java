package dev.outbox4j.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox4j.Message;
import dev.outbox4j.Relay;
import dev.outbox4j.RelayResult;
import dev.outbox4j.memory.InMemoryOutboxStore;
import dev.outbox4j.spi.AtomicBatches;
import dev.outbox4j.spi.BatchOutcome;
import dev.outbox4j.spi.DeliveryOutcome;
import dev.outbox4j.spi.Outgoing;
import dev.outbox4j.spi.Transport;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/**
 * A relay over the transactional Kafka transport, against the real in-process broker: hot keys drain in runs, one
 * transaction per batch, and a batch whose commit the relay never heard of is found in the progress topic by the relay
 * that takes its entries over, so a {@code read_committed} consumer sees every message once, in key order.
 */
class KafkaExactlyOnceRelayTest {
  private static final Duration LEASE = Duration.ofSeconds(30);
  private final EmbeddedKafka kafka = EmbeddedKafka.shared();
  private final String topic = "exactly-once-" + UUID.randomUUID();
  private final ShiftedClock clock = new ShiftedClock();
  private final InMemoryOutboxStore store = InMemoryOutboxStore.builder().withClock(clock).build();

  /** The system clock moved forward by a settable amount: leases pass without waiting, the broker sees real time. */
  private static final class ShiftedClock extends Clock {
    private volatile Duration shift = Duration.ZERO;

    void advance(Duration by) {
      shift = shift.plus(by);
    }

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      throw new UnsupportedOperationException();
    }

    @Override
    public Instant instant() {
      return Instant.now().plus(shift);
    }
  }

  /** A relay that never hears how its batches ended: as if it died between the broker's commit and the outbox. */
  private static final class DeafToCommits implements Transport {
    private final Transport delegate;

    DeafToCommits(Transport delegate) {
      this.delegate = delegate;
    }

    @Override
    public CompletionStage<DeliveryOutcome> deliver(Message message) {
      return delegate.deliver(message);
    }

    @Override
    public AtomicBatches atomicBatches(String destination) {
      AtomicBatches lane = delegate.atomicBatches(destination);
      return new AtomicBatches() {
        @Override
        public CompletionStage<BatchOutcome> deliverAll(List<Outgoing> batch, Instant claimedAt) {
          return lane.deliverAll(batch, claimedAt).thenApply(outcome -> BatchOutcome.inDoubt("never heard"));
        }

        @Override
        public CompletionStage<Set<UUID>> deliveredEarlier(Collection<Message> messages, Instant since) {
          return lane.deliveredEarlier(messages, since);
        }
      };
    }

    @Override
    public Duration maxAnswerTime() {
      return delegate.maxAnswerTime();
    }
  }

  private KafkaTransport transactional() {
    return KafkaTransport.builder().withBootstrapServers(kafka.bootstrapServers())
        .withTransactions(KafkaTransactions.builder().withProgressTopic("progress-" + UUID.randomUUID()).build())
        .build();
  }

  private Relay relay(Transport transport) {
    return Relay.builder(store, transport).withClock(clock).withLease(LEASE).withBatchSize(200).build();
  }

  private void write(int count, int keys) {
    for (int i = 0; i < count; i++) {
      store.enqueue(Message.builder().withDestination(topic).withOrderingKey("key-" + (i % keys))
          .withPayload(Integer.toString(i / keys)).build());
    }
  }

  /** @return the payloads a read_committed consumer sees, by key, in order; asserts no message id twice */
  private Map<String, List<Integer>> committedByKey() throws Exception {
    List<ConsumerRecord<byte[], byte[]>> records = SettledReads.read(kafka, topic, "read_committed");
    assertThat(records).extracting(r -> new String(r.headers().lastHeader(KafkaTransport.DEFAULT_MESSAGE_ID_HEADER)
        .value(), StandardCharsets.UTF_8)).doesNotHaveDuplicates();
    Map<String, List<Integer>> keys = new HashMap<>();
    for (ConsumerRecord<byte[], byte[]> record : records) {
      keys.computeIfAbsent(new String(record.key(), StandardCharsets.UTF_8), k -> new ArrayList<>())
          .add(Integer.parseInt(new String(record.value(), StandardCharsets.UTF_8)));
    }
    return keys;
  }

  private static List<Integer> upTo(int count) {
    List<Integer> numbers = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      numbers.add(i);
    }
    return numbers;
  }

  @Test
  void hot_keys_drain_in_runs_each_message_once_in_key_order() throws Exception {
    kafka.createTopic(topic, 3);
    write(600, 3);
    try (KafkaTransport transport = transactional(); Relay relay = relay(transport)) {
      RelayResult result = relay.drain(20);

      assertThat(result.delivered()).isEqualTo(600);
      // one pass meets the destination with the heads; then each key's run goes 200 at a time, 3 keys a batch
      assertThat(result.claimed()).isEqualTo(600);
    }
    Map<String, List<Integer>> keys = committedByKey();
    for (int k = 0; k < 3; k++) {
      assertThat(keys.get("key-" + k)).containsExactlyElementsOf(upTo(200));
    }
  }

  @Test
  void a_commit_its_relay_never_heard_of_is_found_by_the_next_claim_and_not_sent_again() throws Exception {
    kafka.createTopic(topic, 3);
    store.enqueue(Message.builder().withDestination(topic).withOrderingKey("warm-up").withPayload("0").build());
    try (KafkaTransport transport = transactional()) {
      Relay deaf = relay(new DeafToCommits(transport));
      deaf.flush(); // meets the destination (heads only); from now on it claims runs
      write(60, 3);
      RelayResult unheard = deaf.flush();
      assertThat(unheard.attempted()).as("three runs of 20 in one batch").isEqualTo(60);
      assertThat(unheard.delivered()).isZero();
      assertThat(store.pendingCount()).as("left claimed").isEqualTo(61);

      clock.advance(LEASE.plusSeconds(1));
      RelayResult settled = relay(transport).drain(5);

      assertThat(settled.delivered()).isEqualTo(61);
      assertThat(store.pendingCount()).isZero();
    }
    Map<String, List<Integer>> keys = committedByKey();
    assertThat(keys.get("warm-up")).containsExactly(0);
    for (int k = 0; k < 3; k++) {
      assertThat(keys.get("key-" + k)).containsExactlyElementsOf(upTo(20));
    }
  }

  @Test
  void a_batch_that_never_committed_and_was_never_heard_of_is_sent_once_after_its_lease() throws Exception {
    kafka.createTopic(topic, 3);
    write(30, 3);
    try (KafkaTransport transport = transactional()) {
      // a relay that froze before its batch could start: the claim is left to its lease, nothing was sent
      assertThat(store.claim(30, clock.instant(), LEASE, 30)).hasSize(30);

      clock.advance(LEASE.plusSeconds(1));
      RelayResult settled = relay(transport).drain(5);

      assertThat(settled.delivered()).isEqualTo(30);
    }
    Map<String, List<Integer>> keys = committedByKey();
    for (int k = 0; k < 3; k++) {
      assertThat(keys.get("key-" + k)).containsExactlyElementsOf(upTo(10));
    }
  }
}
