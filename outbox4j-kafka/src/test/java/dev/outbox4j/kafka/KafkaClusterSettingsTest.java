package dev.outbox4j.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox4j.Message;
import dev.outbox4j.spi.BatchOutcome;
import dev.outbox4j.spi.DeliveryOutcome;
import dev.outbox4j.spi.Outgoing;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * The transactional mode reads the brokers' transaction settings at start and names the one that keeps it from
 * working, instead of timing out in InitTransactions.
 */
class KafkaClusterSettingsTest {
  private static final KafkaTransactions DEFAULTS = KafkaTransactions.builder().build();

  @Test
  void a_replication_factor_above_the_number_of_brokers_is_refused_while_the_transaction_log_does_not_exist() {
    Map<String, String> config = Map.of(ClusterSettingsCheck.REPLICATION_FACTOR, "3", ClusterSettingsCheck.MIN_ISR,
        "2");
    assertThat(ClusterSettingsCheck.check(DEFAULTS, 1, config, false))
        .extracting(ProgressTopicCheck.Finding::setting)
        .containsExactly(ClusterSettingsCheck.REPLICATION_FACTOR, ClusterSettingsCheck.MIN_ISR);
    assertThat(ClusterSettingsCheck.check(DEFAULTS, 1, config, false).get(0).text()).contains(
        "transaction.state.log.replication.factor=3 on a cluster of 1 broker", "set it to at most 1");
    assertThat(ClusterSettingsCheck.check(DEFAULTS, 3, config, false)).as("three brokers").isEmpty();
    assertThat(ClusterSettingsCheck.check(DEFAULTS, 1, config, true)).as("the log exists: settled").isEmpty();
  }

  @Test
  void a_max_timeout_below_the_transaction_timeout_is_refused_and_a_slower_abort_sweep_warned() {
    List<ProgressTopicCheck.Finding> findings = ClusterSettingsCheck.check(DEFAULTS, 1, Map.of(
        ClusterSettingsCheck.MAX_TIMEOUT, "4000", ClusterSettingsCheck.ABORT_SWEEP, "60000"), false);
    assertThat(findings).extracting(ProgressTopicCheck.Finding::severity).containsExactly(
        ProgressTopicCheck.Severity.REFUSED, ProgressTopicCheck.Severity.WARNING);
    assertThat(findings.get(0).text()).contains("transaction.max.timeout.ms=4000",
        "transactions.timeout (5000 ms)");
    assertThat(findings.get(1).text()).contains(
        "transaction.abort.timed.out.transaction.cleanup.interval.ms=60000", "transactions.abort-sweep (10000 ms)");
    assertThat(ClusterSettingsCheck.check(DEFAULTS, 1, Map.of(ClusterSettingsCheck.MAX_TIMEOUT, "900000",
        ClusterSettingsCheck.ABORT_SWEEP, "10000", ClusterSettingsCheck.REPLICATION_FACTOR, "1",
        ClusterSettingsCheck.MIN_ISR, "1"), false)).as("Kafka's defaults on one broker at factor 1").isEmpty();
  }

  @Test
  void a_single_broker_left_at_replication_factor_3_is_named_at_start_and_in_every_batch() throws Exception {
    EmbeddedKafka broker = EmbeddedKafka.startAlone(Map.of(ClusterSettingsCheck.REPLICATION_FACTOR, "3",
        ClusterSettingsCheck.MIN_ISR, "2"));
    Logger logger = Logger.getLogger("dev.outbox4j.kafka");
    List<String> lines = new CopyOnWriteArrayList<>();
    Handler capture = new Handler() {
      @Override
      public void publish(LogRecord record) {
        lines.add(record.getLevel() + " " + record.getMessage());
      }

      @Override
      public void flush() {}

      @Override
      public void close() {}
    };
    logger.addHandler(capture);
    try (KafkaTransport transport = KafkaTransport.builder().withBootstrapServers(broker.bootstrapServers())
        .withTransactions(KafkaTransactions.builder().withProgressTopic("progress-" + UUID.randomUUID()).build())
        .build()) {
      Awaitility.await("the start check's line").atMost(Duration.ofSeconds(30))
          .until(() -> lines.stream().anyMatch(line -> line.contains("cannot run transactions on this cluster")));
      assertThat(lines).anySatisfy(line -> assertThat(line).startsWith("SEVERE ").contains(
          "transaction.state.log.replication.factor=3 on a cluster of 1 broker",
          "transaction.state.log.min.isr=2"));

      Message message = Message.builder().withDestination("orders").withPayload("p").build();
      BatchOutcome outcome = transport.atomicBatches("orders").deliverAll(List.of(new Outgoing(message, null)),
          Instant.now()).toCompletableFuture().get(60, TimeUnit.SECONDS);
      assertThat(outcome).isInstanceOfSatisfying(BatchOutcome.Aborted.class, aborted -> assertThat(
          ((DeliveryOutcome.Retryable) aborted.failure()).reason()).as("named, not InitTransactions timing out")
              .contains("transaction.state.log.replication.factor=3"));
    } finally {
      logger.removeHandler(capture);
      broker.stopAlone();
    }
  }
}
