package dev.outbox4j.kafka.connect;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox4j.Message;
import dev.outbox4j.jdbc.testing.PostgresTestOutbox;
import dev.outbox4j.jdbc.testing.RunDatabases;
import dev.outbox4j.kafka.EmbeddedKafka;
import dev.outbox4j.testkit.TcpProxy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * A batch whose records and offset Kafka committed but whose entries the outbox never retired (the database went away
 * between the two commits, then the workers stopped) is settled from the committed source offset when the connector
 * starts again: no second copy reaches a {@code read_committed} consumer, and no progress topic is involved.
 */
class OutboxSourceConnectorRestartTest {
  private static final EmbeddedKafka KAFKA = EmbeddedKafka.shared();
  private static final String PREFIX = "connect_restart_";
  private static final int MAX_INJECTIONS = 5;

  @Test
  void a_batch_committed_in_kafka_but_not_in_the_outbox_is_settled_from_the_offsets_on_restart() {
    String topic = "connect-restart-" + UUID.randomUUID();
    KAFKA.createTopic(topic, 2);
    List<Message> messages = OutboxSourceConnectorExactlyOnceTest.messages(4_000, 200, "k");
    Map<String, String> cluster = ConnectWorkers.workerSettings(KAFKA, true);
    String directUrl = RunDatabases.postgresUrl();
    try (PostgresTestOutbox outbox = PostgresTestOutbox.fresh(PREFIX);
        TcpProxy database = TcpProxy.start("127.0.0.1", 5432);
        Judge judge = new Judge(KAFKA, topic)) {
      outbox.write(messages);
      Map<String, String> config = OutboxSourceConnectorExactlyOnceTest.connectorConfig(PREFIX, topic, 1);
      config.put(OutboxSourceConfig.JDBC_URL, directUrl.replace("127.0.0.1:5432", "127.0.0.1:" + database.port()));
      config.put(OutboxSourceConfig.BATCH_SIZE, "100");
      // A batch the stopped worker claimed but never committed comes back after its lease: keep the wait short.
      config.put("producer.override.transaction.timeout.ms", "10000");
      config.put(OutboxSourceConfig.LEASE_MS, "40000");

      int caught = 0;
      for (int injection = 0; injection < MAX_INJECTIONS && caught == 0; injection++) {
        try (ConnectWorkers workers = ConnectWorkers.start(cluster, 1)) {
          ConnectRest rest = workers.rest();
          if (injection == 0) {
            rest.putConnector("restart", config);
          }
          rest.awaitRunning("restart", 1);
          int before = judge.poll();
          // Up to a lease: entries the previous workers claimed and never sent wait for it.
          Awaitility.await("the connector delivering").atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(5))
              .until(() -> judge.poll() >= before + 150);
          database.cut();
          awaitQuiet(judge);
          caught = receivedButWaiting(judge, outbox);
          System.out.printf("injection %d: received %d, received but waiting in the outbox %d%n", injection,
              judge.poll(), caught);
        }
        database.restore();
      }
      assertThat(caught).as("batches caught between Kafka's commit and the outbox's").isPositive();

      try (ConnectWorkers workers = ConnectWorkers.start(cluster, 1)) {
        workers.rest().awaitRunning("restart", 1);
        Awaitility.await("every entry delivered").atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(20))
            .until(() -> judge.poll() >= messages.size() && outbox.pending() == 0);
        awaitQuiet(judge);
      }
      Set<String> written = OutboxSourceConnectorExactlyOnceTest.payloads(messages);
      assertThat(judge.verdict(written)).isEqualTo(new Judge.Verdict(messages.size(), 0, 0, 0, 0));
    }
  }

  /** Waits until nothing new has arrived for a second: the last transaction before the cut has committed. */
  private static void awaitQuiet(Judge judge) {
    int[] last = {judge.poll()};
    long[] since = {System.nanoTime()};
    Awaitility.await("no more records").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
        .until(() -> {
          int now = judge.poll();
          if (now != last[0]) {
            last[0] = now;
            since[0] = System.nanoTime();
          }
          return System.nanoTime() - since[0] > Duration.ofSeconds(1).toNanos();
        });
  }

  /** @return how many entries a consumer received that still wait in the outbox (read directly, not via the proxy) */
  private static int receivedButWaiting(Judge judge, PostgresTestOutbox outbox) {
    Set<String> received = Set.copyOf(judge.payloads());
    return (int) outbox.store().findPending(10_000).stream()
        .filter(entry -> received.contains(new String(entry.message().payload(), StandardCharsets.UTF_8))).count();
  }
}
