package dev.outbox4j.kafka.connect;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox4j.Message;
import dev.outbox4j.jdbc.testing.PostgresTestOutbox;
import dev.outbox4j.jdbc.testing.RunDatabases;
import dev.outbox4j.kafka.EmbeddedKafka;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * A batch whose records and offset Kafka committed but whose entries the outbox never retired is settled from the
 * committed source offset when the connector starts again: no second copy reaches a {@code read_committed} consumer,
 * and no progress topic is involved.
 *
 * <p>The gap between the two commits is made certain, not hoped for: a trigger refuses every delete from the outbox
 * table (the store retires entries by deleting them), so the batch Kafka commits next cannot be retired; the worker
 * is stopped in that state, the trigger dropped, and a new worker started.
 */
class OutboxSourceConnectorRestartTest {
  private static final EmbeddedKafka KAFKA = EmbeddedKafka.shared();
  private static final String PREFIX = "connect_restart_";

  @Test
  void a_batch_committed_in_kafka_but_not_in_the_outbox_is_settled_from_the_offsets_on_restart() throws Exception {
    String topic = "connect-restart-" + UUID.randomUUID();
    KAFKA.createTopic(topic, 2);
    List<Message> messages = OutboxSourceConnectorExactlyOnceTest.messages(2_000, 200, "k");
    Map<String, String> cluster = ConnectWorkers.workerSettings(KAFKA, true);
    try (PostgresTestOutbox outbox = PostgresTestOutbox.fresh(PREFIX);
        Judge judge = new Judge(KAFKA, topic)) {
      outbox.write(messages);
      Map<String, String> config = OutboxSourceConnectorExactlyOnceTest.connectorConfig(PREFIX, topic, 1);
      config.put(OutboxSourceConfig.BATCH_SIZE, "100");
      // Should a batch be claimed and never committed, it comes back after its lease: keep that short.
      config.put("producer.override.transaction.timeout.ms", "10000");
      config.put(OutboxSourceConfig.LEASE_MS, "40000");

      int caught;
      try (ConnectWorkers workers = ConnectWorkers.start(cluster, 1)) {
        ConnectRest rest = workers.rest();
        rest.putConnector("restart", config);
        rest.awaitRunning("restart", 1);
        Awaitility.await("the connector delivering").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(5))
            .until(() -> judge.poll() >= 300);
        refuseRetiring(PREFIX, true);
        Awaitility.await("a batch committed in Kafka and not retired").atMost(Duration.ofSeconds(60))
            .pollInterval(Duration.ofMillis(50)).until(() -> receivedButWaiting(judge, outbox) > 0);
        caught = receivedButWaiting(judge, outbox);
      }
      refuseRetiring(PREFIX, false);
      assertThat(caught).as("entries caught between Kafka's commit and the outbox's").isPositive();

      try (ConnectWorkers workers = ConnectWorkers.start(cluster, 1)) {
        workers.rest().awaitRunning("restart", 1);
        Awaitility.await("every entry delivered").atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(20))
            .until(() -> judge.poll() >= messages.size() && outbox.pending() == 0);
        judge.poll();
      }
      Set<String> written = OutboxSourceConnectorExactlyOnceTest.payloads(messages);
      Judge.Verdict verdict = judge.verdict(written);
      System.out.printf("restart: caught %d entries committed in Kafka and not retired; %s%n", caught, verdict);
      assertThat(verdict).isEqualTo(new Judge.Verdict(messages.size(), 0, 0, 0, 0));
    }
  }

  /** Installs (or drops) a trigger that makes every delete from the outbox table of this prefix fail. */
  static void refuseRetiring(String prefix, boolean refuse) throws SQLException {
    String table = prefix + "outbox";
    try (Connection connection = DriverManager.getConnection(RunDatabases.postgresUrl());
        Statement statement = connection.createStatement()) {
      if (refuse) {
        statement.execute("CREATE OR REPLACE FUNCTION " + prefix + "refuse_delete() RETURNS trigger LANGUAGE plpgsql"
            + " AS $$ BEGIN RAISE EXCEPTION 'the test refuses to retire entries'; END $$");
        statement.execute("CREATE TRIGGER " + prefix + "refuse_delete BEFORE DELETE ON " + table
            + " FOR EACH ROW EXECUTE FUNCTION " + prefix + "refuse_delete()");
      } else {
        statement.execute("DROP TRIGGER " + prefix + "refuse_delete ON " + table);
        statement.execute("DROP FUNCTION " + prefix + "refuse_delete()");
      }
    }
  }

  /** @return how many entries a consumer received that still wait in the outbox */
  static int receivedButWaiting(Judge judge, PostgresTestOutbox outbox) {
    judge.poll();
    Set<String> received = Set.copyOf(judge.payloads());
    return (int) outbox.store().findPending(10_000).stream()
        .filter(entry -> received.contains(new String(entry.message().payload(), StandardCharsets.UTF_8))).count();
  }
}
