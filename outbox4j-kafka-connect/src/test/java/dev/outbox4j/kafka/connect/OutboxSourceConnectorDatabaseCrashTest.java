package dev.outbox4j.kafka.connect;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.outbox4j.Message;
import dev.outbox4j.jdbc.JdbcOutboxStore;
import dev.outbox4j.kafka.EmbeddedKafka;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * The outbox's PostgreSQL server crashes ({@code pg_ctl stop -m immediate}) and restarts under a draining connector (two
 * workers, {@code tasks.max=2}, exactly once), {@code outbox4j.connect.database.crashes} times (default build: 1;
 * profile {@code connect-chaos}: 3; {@code connect-chaos-long}: 10): the tasks' polls fail and retry, a batch Kafka
 * committed while the database was down is retired once it is back, a claim whose commit the crash left unanswered
 * comes back after its lease, and a {@code read_committed} judge finds every entry once, in key order. The server is
 * one of the test's own ({@link PrivatePostgres}).
 */
class OutboxSourceConnectorDatabaseCrashTest {
  private static final EmbeddedKafka KAFKA = EmbeddedKafka.shared();
  private static final String PREFIX = "connect_crash_";

  @Test
  void postgresql_crash_restarts_under_the_connector_lose_and_duplicate_nothing() throws Exception {
    String topic = "connect-crash-" + UUID.randomUUID();
    KAFKA.createTopic(topic, 4);
    int crashes = Integer.getInteger("outbox4j.connect.database.crashes", 1);
    List<Message> messages = OutboxSourceConnectorExactlyOnceTest.messages(2_000 * (crashes + 1), 40, "k");
    try (PrivatePostgres database = PrivatePostgres.start();
        HikariDataSource pool = pool(database.jdbcUrl());
        Judge judge = new Judge(KAFKA, topic);
        ConnectWorkers workers = ConnectWorkers.start(KAFKA, 2, true)) {
      JdbcOutboxStore store = JdbcOutboxStore.builder(pool).withTablePrefix(PREFIX).build();
      store.migrate();
      write(store, pool, messages.subList(0, 2_000));
      Map<String, String> config = OutboxSourceConnectorExactlyOnceTest.connectorConfig(PREFIX, topic, 2);
      config.put(OutboxSourceConfig.JDBC_URL, database.jdbcUrl());
      config.put("producer.override.transaction.timeout.ms", "10000");
      config.put(OutboxSourceConfig.LEASE_MS, "40000");
      ConnectRest rest = workers.rest();
      rest.putConnector("crash", config);
      rest.awaitRunning("crash", 2);

      for (int crash = 1; crash <= crashes; crash++) {
        // 300 of the 2,000 written since the last crash: the crash lands while the rest are being drained, and the
        // target is reachable however fast the tasks are (a target counted from what had arrived was not, on CI).
        judge.awaitAtLeast("draining before crash " + crash, 2_000 * (crash - 1) + 300, Duration.ofSeconds(120));
        database.crashRestart();
        write(store, pool, messages.subList(2_000 * crash, 2_000 * (crash + 1)));
      }

      Awaitility.await("every entry delivered and retired").atMost(Duration.ofMinutes(3))
          .pollInterval(Duration.ofMillis(50)).ignoreExceptions()
          .until(() -> judge.poll() >= messages.size() && store.stats(Instant.now()).pending() == 0);
      rest.awaitRunning("crash", 2); // no task failed
      judge.poll();
      Judge.Verdict verdict = judge.verdict(OutboxSourceConnectorExactlyOnceTest.payloads(messages));
      System.out.printf("PostgreSQL crash-restarted %d times: %s%n", crashes, verdict);
      assertThat(verdict).isEqualTo(new Judge.Verdict(messages.size(), 0, 0, 0, 0));
    }
  }

  private static HikariDataSource pool(String url) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    config.setMaximumPoolSize(2);
    config.setPoolName("outbox4j-crash-test-writer");
    return new HikariDataSource(config);
  }

  /** Writes the messages in transactions of 500, as the application would. */
  private static void write(JdbcOutboxStore store, HikariDataSource pool, List<Message> messages) throws SQLException {
    try (Connection connection = pool.getConnection()) {
      connection.setAutoCommit(false);
      for (int from = 0; from < messages.size(); from += 500) {
        store.outbox().writeAll(connection, messages.subList(from, Math.min(from + 500, messages.size())));
        connection.commit();
      }
    }
  }
}
