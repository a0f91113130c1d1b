package dev.outbox4j.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox4j.Message;
import dev.outbox4j.spi.AtomicBatches;
import dev.outbox4j.spi.BatchOutcome;
import dev.outbox4j.spi.DeliveryOutcome;
import dev.outbox4j.spi.DeliveryRecordGoneException;
import dev.outbox4j.spi.Outgoing;
import dev.outbox4j.testkit.TcpProxy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * The transactional mode against the real in-process broker: what {@code read_committed} and {@code read_uncommitted}
 * consumers see for committed, aborted, late and zombie batches, the progress topic, and the configuration.
 */
class KafkaTransactionalModeTest {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private final EmbeddedKafka kafka = EmbeddedKafka.shared();

  private KafkaTransport transport(KafkaTransactions.Builder settings) {
    return KafkaTransport.builder().withBootstrapServers(kafka.bootstrapServers())
        .withTransactions(settings.build()).build();
  }

  private static KafkaTransactions.Builder settings() {
    return KafkaTransactions.builder().withProgressTopic("progress-" + UUID.randomUUID());
  }

  private static Message message(String topic, String key, String payload) {
    return Message.builder().withDestination(topic).withOrderingKey(key).withPayload(payload)
        .withContentType("text/plain").withHeader("traceparent", "00-" + key).build();
  }

  private static BatchOutcome deliverAll(AtomicBatches lane, List<Message> messages, Instant claimedAt)
      throws Exception {
    List<Outgoing> batch = messages.stream().map(m -> new Outgoing(m, null)).toList();
    return lane.deliverAll(batch, claimedAt).toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
  }

  private static List<UUID> ids(List<Message> messages) {
    return messages.stream().map(Message::id).toList();
  }

  private static String header(ConsumerRecord<byte[], byte[]> record, String name) {
    return new String(record.headers().lastHeader(name).value(), StandardCharsets.UTF_8);
  }

  private static UUID idOf(ConsumerRecord<byte[], byte[]> record) {
    return UUID.fromString(header(record, KafkaTransport.DEFAULT_MESSAGE_ID_HEADER));
  }

  private List<ConsumerRecord<byte[], byte[]>> readSettled(String topic, String isolation) throws Exception {
    return SettledReads.read(kafka, topic, isolation);
  }

  private Map<TopicPartition, Long> offsets(List<TopicPartition> partitions, IsolationLevel isolation)
      throws Exception {
    return SettledReads.offsets(kafka, partitions, isolation);
  }

  @Test
  void a_committed_batch_is_seen_once_in_key_order_with_its_progress_record_and_is_reported_as_delivered()
      throws Exception {
    String topic = "tx-commit-" + UUID.randomUUID();
    kafka.createTopic(topic, 3);
    KafkaTransactions.Builder settings = settings();
    String progressTopic = settings.build().progressTopic();
    try (KafkaTransport transport = transport(settings)) {
      AtomicBatches lane = transport.atomicBatches(topic);
      assertThat(lane).isNotNull();
      List<Message> batch = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        batch.add(message(topic, "a", "a" + i));
        batch.add(message(topic, "b", "b" + i));
      }
      Instant claimedAt = Instant.now().truncatedTo(ChronoUnit.MILLIS);

      assertThat(deliverAll(lane, batch, claimedAt)).isEqualTo(BatchOutcome.committed());

      List<ConsumerRecord<byte[], byte[]>> records = readSettled(topic, "read_committed");
      assertThat(records).extracting(KafkaTransactionalModeTest::idOf).containsExactlyInAnyOrderElementsOf(ids(batch));
      for (String key : List.of("a", "b")) {
        assertThat(records.stream().filter(r -> new String(r.key(), StandardCharsets.UTF_8).equals(key))
            .map(r -> new String(r.value(), StandardCharsets.UTF_8)))
            .containsExactly(key + "0", key + "1", key + "2", key + "3");
      }
      ConsumerRecord<byte[], byte[]> first = records.stream().filter(r -> idOf(r).equals(batch.get(0).id()))
          .findFirst().orElseThrow();
      assertThat(header(first, "content-type")).isEqualTo("text/plain");
      assertThat(header(first, "traceparent")).isEqualTo("00-a");

      List<ConsumerRecord<byte[], byte[]>> progress = readSettled(progressTopic, "read_committed");
      assertThat(progress).hasSize(1);
      assertThat(progress.get(0).timestamp()).isEqualTo(claimedAt.toEpochMilli());
      assertThat(ProgressLog.idsOf(progress.get(0).value())).containsExactlyElementsOf(ids(batch));

      Message neverSent = message(topic, "a", "never");
      List<Message> asked = new ArrayList<>(batch);
      asked.add(neverSent);
      Set<UUID> landed = lane.deliveredEarlier(asked, claimedAt).toCompletableFuture()
          .get(WAIT.toSeconds(), TimeUnit.SECONDS);
      assertThat(landed).containsExactlyInAnyOrderElementsOf(ids(batch)).doesNotContain(neverSent.id());
    }
  }

  @Test
  void a_single_delivery_is_a_batch_of_one() throws Exception {
    String topic = "tx-single-" + UUID.randomUUID();
    kafka.createTopic(topic, 1);
    try (KafkaTransport transport = transport(settings())) {
      Message message = message(topic, "k", "one");

      DeliveryOutcome outcome = transport.deliver(message).toCompletableFuture().get(WAIT.toSeconds(),
          TimeUnit.SECONDS);

      assertThat(outcome).isEqualTo(DeliveryOutcome.delivered());
      assertThat(readSettled(topic, "read_committed")).extracting(KafkaTransactionalModeTest::idOf)
          .containsExactly(message.id());
    }
  }

  @Test
  void a_producer_whose_initialisation_outlasts_max_block_is_kept_and_a_later_batch_commits_through_it()
      throws Exception {
    String topic = "tx-slow-init-" + UUID.randomUUID();
    kafka.createTopic(topic, 1);
    TcpProxy proxy = kafka.proxy();
    // Every answer comes 800 ms late. A new producer needs four answers before its transactions are initialised (API
    // versions, its coordinator, API versions on the coordinator's connection, its producer id): 3.2 s, past max.block
    // (2 s) every time. Only a producer that goes on waiting across calls gets through.
    proxy.delay(Duration.ZERO, Duration.ofMillis(800));
    List<Message> batch = List.of(message(topic, "a", "a0"), message(topic, "a", "a1"));
    List<BatchOutcome> outcomes = new ArrayList<>();
    try (KafkaTransport transport = KafkaTransport.builder().withBootstrapServers(kafka.proxiedBootstrapServers())
        .withMaxBlock(Duration.ofSeconds(2)).withRequestTimeout(Duration.ofSeconds(10))
        .withDeliveryTimeout(Duration.ofSeconds(20)).withTransactions(settings().build()).build()) {
      AtomicBatches lane = transport.atomicBatches(topic);
      long deadline = System.nanoTime() + Duration.ofSeconds(40).toNanos();
      do {
        outcomes.add(deliverAll(lane, batch, Instant.now().truncatedTo(ChronoUnit.MILLIS)));
      } while (!outcomes.get(outcomes.size() - 1).equals(BatchOutcome.committed()) && System.nanoTime() < deadline);
    } finally {
      proxy.delay(Duration.ZERO, Duration.ZERO);
    }

    assertThat(outcomes.get(outcomes.size() - 1)).as("the outcomes, in order: %s", outcomes)
        .isEqualTo(BatchOutcome.committed());
    assertThat(readSettled(topic, "read_committed")).extracting(KafkaTransactionalModeTest::idOf)
        .containsExactlyElementsOf(ids(batch));
  }

  @Test
  void a_batch_with_a_record_the_topic_refuses_is_aborted_by_that_record_and_nothing_of_it_is_committed()
      throws Exception {
    String topic = "tx-large-" + UUID.randomUUID();
    kafka.createTopic(topic, 1, Map.of("max.message.bytes", "10000"));
    try (KafkaTransport transport = transport(settings())) {
      AtomicBatches lane = transport.atomicBatches(topic);
      Message before = message(topic, "k", "before");
      Message large = Message.builder().withDestination(topic).withOrderingKey("k").withPayload(new byte[20_000])
          .build();
      Message after = message(topic, "k", "after");
      List<Message> batch = List.of(before, large, after);
      Instant claimedAt = Instant.now();

      BatchOutcome outcome = deliverAll(lane, batch, claimedAt);

      assertThat(outcome).isInstanceOf(BatchOutcome.AbortedBy.class);
      BatchOutcome.AbortedBy abortedBy = (BatchOutcome.AbortedBy) outcome;
      assertThat(abortedBy.culprit()).isEqualTo(large.id());
      assertThat(abortedBy.failure()).isInstanceOf(DeliveryOutcome.Permanent.class)
          .asString().contains("RecordTooLargeException");
      assertThat(readSettled(topic, "read_committed")).isEmpty();
      assertThat(readSettled(topic, "read_uncommitted")).extracting(KafkaTransactionalModeTest::idOf)
          .contains(before.id());
      assertThat(lane.deliveredEarlier(batch, claimedAt).toCompletableFuture().get(WAIT.toSeconds(),
          TimeUnit.SECONDS)).isEmpty();
    }
  }

  @Test
  void the_broker_refuses_a_batch_whose_claim_is_older_than_the_start_bound() throws Exception {
    String topic = "tx-late-" + UUID.randomUUID();
    kafka.createTopic(topic, 1);
    try (KafkaTransport transport = transport(settings())) {
      TransactionalLane lane = transport.lane();
      List<Message> batch = List.of(message(topic, "k", "late-1"), message(topic, "k", "late-2"));
      Instant claimedAt = Instant.now().minus(Duration.ofMinutes(1));

      assertThat(deliverAll(lane, batch, claimedAt)).isInstanceOf(BatchOutcome.NotDelivered.class)
          .asString().contains("not started");

      lane.refuseLateStarts(false);
      BatchOutcome outcome = deliverAll(lane, batch, claimedAt);

      assertThat(outcome).isInstanceOf(BatchOutcome.NotDelivered.class)
          .asString().contains("refused the progress record");
      assertThat(readSettled(topic, "read_committed")).isEmpty();
      assertThat(readSettled(topic, "read_uncommitted")).extracting(KafkaTransactionalModeTest::idOf)
          .as("the batch's records were appended, then aborted").contains(batch.get(0).id());
    }
  }

  @Test
  void a_transaction_whose_commit_comes_after_its_timeout_and_the_abort_sweep_cannot_commit() throws Exception {
    String topic = "tx-zombie-" + UUID.randomUUID();
    kafka.createTopic(topic, 1);
    KafkaTransactions.Builder settings = settings().withTimeout(Duration.ofSeconds(1))
        .withAbortSweep(Duration.ofMillis(500)).withProducers(1);
    try (KafkaTransport transport = transport(settings)) {
      TransactionalLane lane = transport.lane();
      String transactionalId = lane.transactionalIds().get(0);
      List<Message> batch = List.of(message(topic, "k", "zombie-1"), message(topic, "k", "zombie-2"));
      Instant claimedAt = Instant.now();

      HeldCommit held = new HeldCommit(lane, batch, claimedAt);
      Awaitility.await("the coordinator aborted the transaction").atMost(WAIT).pollInterval(Duration.ofMillis(100))
          .until(() -> kafka.admin().describeTransactions(List.of(transactionalId)).description(transactionalId)
              .get(10, TimeUnit.SECONDS).state() != TransactionState.ONGOING);
      held.close();

      assertThat(held.outcome.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isInstanceOf(BatchOutcome.NotDelivered.class)
          .asString().contains("aborted by its coordinator");
      assertThat(readSettled(topic, "read_committed")).isEmpty();
      assertThat(readSettled(topic, "read_uncommitted")).extracting(KafkaTransactionalModeTest::idOf)
          .containsAll(ids(batch));
      assertThat(lane.deliveredEarlier(batch, claimedAt).toCompletableFuture().get(WAIT.toSeconds(),
          TimeUnit.SECONDS)).isEmpty();
    }
  }

  @Test
  void once_retention_deleted_the_progress_records_of_the_time_asked_about_the_answer_is_that_they_are_gone()
      throws Exception {
    String topic = "tx-gone-" + UUID.randomUUID();
    kafka.createTopic(topic, 1);
    KafkaTransactions.Builder settings = settings();
    String progressTopic = settings.build().progressTopic();
    try (KafkaTransport transport = transport(settings)) {
      AtomicBatches lane = transport.atomicBatches(topic);
      Instant earlier = Instant.now().minusSeconds(3);
      List<Message> first = List.of(message(topic, "k", "first"));
      assertThat(deliverAll(lane, first, earlier)).isEqualTo(BatchOutcome.committed());
      TopicPartition partition = new TopicPartition(progressTopic, 0);
      // The commit marker is written after the commit returns: wait for it, so that it is deleted with its batch (a
      // marker left at the log's start, stamped now, would make every later question look older than the log)
      Awaitility.await("the first batch's commit marker").atMost(WAIT).pollInterval(Duration.ofMillis(20))
          .until(() -> offsets(List.of(partition), IsolationLevel.READ_COMMITTED)
              .equals(offsets(List.of(partition), IsolationLevel.READ_UNCOMMITTED)));
      long end = offsets(List.of(partition), IsolationLevel.READ_UNCOMMITTED).get(partition);
      kafka.admin().deleteRecords(Map.of(partition, RecordsToDelete.beforeOffset(end))).all()
          .get(30, TimeUnit.SECONDS);

      assertThatThrownBy(() -> lane.deliveredEarlier(first, earlier).toCompletableFuture()
          .get(WAIT.toSeconds(), TimeUnit.SECONDS))
          .hasCauseInstanceOf(DeliveryRecordGoneException.class).hasMessageContaining(progressTopic);

      List<Message> second = List.of(message(topic, "k", "second"));
      assertThat(deliverAll(lane, second, Instant.now().minusSeconds(2))).isEqualTo(BatchOutcome.committed());
      List<Message> third = List.of(message(topic, "k", "third"));
      Instant now = Instant.now();
      assertThat(deliverAll(lane, third, now)).isEqualTo(BatchOutcome.committed());

      assertThat(lane.deliveredEarlier(third, now).toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS))
          .as("the earliest remaining record is older than the time asked about").containsExactly(third.get(0).id());
      assertThatThrownBy(() -> lane.deliveredEarlier(first, earlier).toCompletableFuture()
          .get(WAIT.toSeconds(), TimeUnit.SECONDS))
          .as("the earliest remaining record is newer than the time asked about")
          .hasCauseInstanceOf(DeliveryRecordGoneException.class);
    }
  }

  @Test
  void an_existing_progress_topic_with_log_append_time_or_a_wider_bound_is_refused_naming_the_setting()
      throws Exception {
    String topic = "tx-verify-" + UUID.randomUUID();
    kafka.createTopic(topic, 1);
    String appendTime = "progress-append-" + UUID.randomUUID();
    kafka.createTopic(appendTime, 1, Map.of("message.timestamp.type", "LogAppendTime"));
    String wide = "progress-wide-" + UUID.randomUUID();
    kafka.createTopic(wide, 1, Map.of("message.timestamp.before.max.ms", "60000"));

    try (KafkaTransport transport = transport(KafkaTransactions.builder().withProgressTopic(appendTime))) {
      BatchOutcome outcome = deliverAll(transport.atomicBatches(topic), List.of(message(topic, "k", "x")),
          Instant.now());
      assertThat(outcome).isInstanceOf(BatchOutcome.Aborted.class).asString()
          .contains("message.timestamp.type=LogAppendTime", appendTime);
    }
    try (KafkaTransport transport = transport(KafkaTransactions.builder().withProgressTopic(wide))) {
      BatchOutcome outcome = deliverAll(transport.atomicBatches(topic), List.of(message(topic, "k", "x")),
          Instant.now());
      assertThat(outcome).isInstanceOf(BatchOutcome.Aborted.class).asString()
          .contains("message.timestamp.before.max.ms=60000", "10000 ms");
    }
    assertThat(readSettled(topic, "read_uncommitted")).as("nothing was sent").isEmpty();
  }

  @Test
  void the_properties_form_reads_every_transactions_key() {
    KafkaTransactions settings = KafkaTransactions.fromProperties(Map.of(
        "enabled", "true", "id-prefix", "billing-relay", "progress-topic", "billing.progress",
        "progress-retention", "3d", "start-bound", "20s", "timeout", "8s", "abort-sweep", "2s",
        "clock-skew", "500ms", "producers", "4"));

    assertThat(settings).isNotNull();
    assertThat(settings.idPrefix()).isEqualTo("billing-relay");
    assertThat(settings.progressTopic()).isEqualTo("billing.progress");
    assertThat(settings.progressRetention()).isEqualTo(Duration.ofDays(3));
    assertThat(settings.startBound()).isEqualTo(Duration.ofSeconds(20));
    assertThat(settings.timeout()).isEqualTo(Duration.ofSeconds(8));
    assertThat(settings.abortSweep()).isEqualTo(Duration.ofSeconds(2));
    assertThat(settings.clockSkew()).isEqualTo(Duration.ofMillis(500));
    assertThat(settings.producers()).isEqualTo(4);
    assertThat(KafkaTransactions.fromProperties(Map.of("producers", "4"))).as("not enabled").isNull();

    try (KafkaTransport transactional = KafkaTransport.fromProperties(Map.of(
            "bootstrap.servers", kafka.bootstrapServers(), "transactions.enabled", "true",
            "transactions.start-bound", "20s", "transactions.timeout", "8s"));
        KafkaTransport plain = KafkaTransport.fromProperties(Map.of(
            "bootstrap.servers", kafka.bootstrapServers(), "transactions.enabled", "false"))) {
      assertThat(transactional.atomicBatches("any")).isNotNull();
      assertThat(transactional.maxAnswerTime()).isEqualTo(Duration.ofSeconds(20 + 8 + 10 + 1));
      assertThat(plain.atomicBatches("any")).isNull();
      assertThat(plain.maxAnswerTime()).isEqualTo(Duration.ofSeconds(14));
    }
  }

  @Test
  void bad_transactions_values_are_rejected_naming_the_key() {
    Map<String, String> bad = Map.of(
        "transactions.enabled", "yes",
        "transactions.id-prefix", "has space",
        "transactions.progress-topic", "",
        "transactions.progress-retention", "0s",
        "transactions.start-bound", "soon",
        "transactions.timeout", "-1s",
        "transactions.abort-sweep", "0",
        "transactions.clock-skew", "-5ms",
        "transactions.producers", "0");
    bad.forEach((key, value) -> assertThatThrownBy(() -> KafkaTransport.fromProperties(Map.of(
        "bootstrap.servers", kafka.bootstrapServers(), key, value)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(key));
    assertThatThrownBy(() -> KafkaTransport.fromProperties(Map.of("bootstrap.servers", kafka.bootstrapServers(),
        "transactions.enabled", "true", "transactions.colour", "blue")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("transactions.colour");
    assertThatThrownBy(() -> KafkaTransport.fromProperties(Map.of("bootstrap.servers", kafka.bootstrapServers(),
        "transactions.start-bound", "1s", "transactions.clock-skew", "1s")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("clockSkew").hasMessageContaining(
            "startBound");
    assertThatThrownBy(() -> KafkaTransport.builder().withBootstrapServers(kafka.bootstrapServers())
        .withProducerProperty("transaction.timeout.ms", "1000").build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("transactions.timeout");
  }

  @Test
  void the_bound_is_start_bound_plus_timeout_plus_abort_sweep_plus_clock_skew() {
    try (KafkaTransport transport = transport(KafkaTransactions.builder().withStartBound(Duration.ofSeconds(7))
        .withTimeout(Duration.ofSeconds(3)).withAbortSweep(Duration.ofSeconds(4))
        .withClockSkew(Duration.ofMillis(250)))) {
      assertThat(transport.maxAnswerTime()).isEqualTo(Duration.ofMillis(7_000 + 3_000 + 4_000 + 250));
    }
    assertThat(KafkaTransactions.ofDefaults().maxAnswerTime()).isEqualTo(Duration.ofSeconds(10 + 5 + 10 + 1));
  }
}
