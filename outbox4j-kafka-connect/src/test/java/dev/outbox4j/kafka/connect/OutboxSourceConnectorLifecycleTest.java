package dev.outbox4j.kafka.connect;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox4j.Message;
import dev.outbox4j.jdbc.testing.PostgresTestOutbox;
import dev.outbox4j.kafka.EmbeddedKafka;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What operators do to a running connector, mid-drain, on a distributed cluster with exactly-once support: pause and
 * resume it, stop and resume it, change {@code tasks.max}, add and remove a worker. After each, a
 * {@code read_committed} judge finds every entry once and every key in order.
 */
class OutboxSourceConnectorLifecycleTest {
  private static final EmbeddedKafka KAFKA = EmbeddedKafka.shared();
  private static final Duration PROGRESS = Duration.ofSeconds(120);
  private static ConnectWorkers workers;

  @BeforeAll
  static void startWorkers() {
    workers = ConnectWorkers.start(KAFKA, 2, true);
  }

  @AfterAll
  static void stopWorkers() {
    workers.close();
  }

  /** A connector whose claims come back soon should a task go away holding one (a lease of 40 s). */
  private static Map<String, String> config(String prefix, String topic, int tasks) {
    Map<String, String> config = OutboxSourceConnectorExactlyOnceTest.connectorConfig(prefix, topic, tasks);
    config.put("producer.override.transaction.timeout.ms", "10000");
    config.put(OutboxSourceConfig.LEASE_MS, "40000");
    return config;
  }

  @Test
  void pausing_stopping_and_resuming_the_connector_mid_drain_loses_and_duplicates_nothing() {
    String prefix = "connect_pause_";
    String topic = "connect-pause-" + UUID.randomUUID();
    KAFKA.createTopic(topic, 4);
    List<Message> messages = OutboxSourceConnectorExactlyOnceTest.messages(4_000, 40, "k");
    try (PostgresTestOutbox outbox = PostgresTestOutbox.fresh(prefix);
        Judge judge = new Judge(KAFKA, topic)) {
      outbox.write(messages.subList(0, 2_000));
      ConnectRest rest = workers.rest();
      rest.putConnector("pause", config(prefix, topic, 2));
      rest.awaitRunning("pause", 2);
      judge.awaitAtLeast("draining before the pause", 300, PROGRESS);

      rest.pause("pause");
      rest.awaitState("pause", "PAUSED", 2);
      outbox.write(messages.subList(2_000, 3_000)); // written while paused
      // A paused task holds no claim: its last batch committed and was retired, nothing new is claimed.
      Awaitility.await("no claims held while paused").atMost(Duration.ofSeconds(30))
          .until(() -> outbox.store().stats(Instant.now()).inFlight() == 0);
      assertThat(outbox.pending()).isPositive();

      int atResume = judge.poll();
      rest.resume("pause");
      rest.awaitRunning("pause", 2);
      judge.awaitAtLeast("draining after the resume", Math.min(atResume + 300, 3_000), PROGRESS);

      rest.stop("pause");
      rest.awaitState("pause", "STOPPED", 0);
      outbox.write(messages.subList(3_000, messages.size())); // written while stopped
      Awaitility.await("no claims held while stopped").atMost(Duration.ofSeconds(60))
          .until(() -> outbox.store().stats(Instant.now()).inFlight() == 0);
      rest.resume("pause");
      rest.awaitRunning("pause", 2);

      awaitDrained(judge, outbox, messages.size());
      Judge.Verdict verdict = judge.verdict(OutboxSourceConnectorExactlyOnceTest.payloads(messages));
      System.out.printf("pause, stop, resume: %s%n", verdict);
      assertThat(verdict).isEqualTo(new Judge.Verdict(messages.size(), 0, 0, 0, 0));
    }
  }

  @Test
  void changing_tasks_max_and_adding_and_removing_a_worker_mid_drain_keeps_every_key_in_order() {
    String prefix = "connect_rebalance_";
    String topic = "connect-rebalance-" + UUID.randomUUID();
    KAFKA.createTopic(topic, 4);
    List<Message> messages = OutboxSourceConnectorExactlyOnceTest.messages(6_000, 60, "k");
    try (PostgresTestOutbox outbox = PostgresTestOutbox.fresh(prefix);
        Judge judge = new Judge(KAFKA, topic)) {
      outbox.write(messages.subList(0, 3_000));
      ConnectRest rest = workers.rest();
      rest.putConnector("rebalance", config(prefix, topic, 2));
      rest.awaitRunning("rebalance", 2);
      judge.awaitAtLeast("draining with 2 tasks", 300, PROGRESS);

      rest.putConnector("rebalance", config(prefix, topic, 3));
      rest.awaitRunning("rebalance", 3);
      judge.awaitProgress("draining with 3 tasks", 300, 3_000, PROGRESS);

      workers.addWorker();
      outbox.write(messages.subList(3_000, 4_500));
      judge.awaitProgress("draining on 3 workers", 300, 4_500, PROGRESS);
      rest.awaitRunning("rebalance", 3);

      workers.removeWorker();
      rest.awaitRunning("rebalance", 3);
      judge.awaitProgress("draining after a worker left", 300, 4_500, PROGRESS);

      rest.putConnector("rebalance", config(prefix, topic, 1));
      rest.awaitRunning("rebalance", 1);
      outbox.write(messages.subList(4_500, messages.size()));

      awaitDrained(judge, outbox, messages.size());
      Judge.Verdict verdict = judge.verdict(OutboxSourceConnectorExactlyOnceTest.payloads(messages));
      System.out.printf("tasks.max 2 -> 3 -> 1, a worker added and removed: %s%n", verdict);
      assertThat(verdict).isEqualTo(new Judge.Verdict(messages.size(), 0, 0, 0, 0));
    }
  }

  /** Waits until every entry arrived and the outbox retired them all; a claim left behind comes back after 40 s. */
  static void awaitDrained(Judge judge, PostgresTestOutbox outbox, int count) {
    Awaitility.await("every entry delivered and retired").atMost(Duration.ofMinutes(3))
        .pollInterval(Duration.ofMillis(50)).until(() -> judge.poll() >= count && outbox.pending() == 0);
    judge.poll();
  }
}
