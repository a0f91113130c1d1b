package dev.outbox4j.kafka.connect;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.outbox4j.Message;
import dev.outbox4j.jdbc.JdbcOutboxStore;
import dev.outbox4j.jdbc.testing.RunDatabases;
import dev.outbox4j.kafka.EmbeddedKafka;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.h2.tools.Server;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The connector on the other databases it ships drivers for: MariaDB (the shared service) and H2 (a TCP server this
 * test starts, so the worker processes reach it). Two workers, each a process of its own, drain 4,000 entries over 200
 * keys with exactly-once support; one worker is SIGKILLed mid-drain and started again. A {@code read_committed} judge
 * then finds nothing lost, invented, duplicated or out of key order.
 */
@Timeout(value = 20, unit = TimeUnit.MINUTES) // worker processes take minutes to start on a loaded machine
class OutboxSourceConnectorOtherDatabasesTest {
  private static final EmbeddedKafka KAFKA = EmbeddedKafka.shared();
  private static final int ENTRIES = 4_000;

  @Test
  void on_mariadb_a_sigkilled_worker_loses_nothing_and_duplicates_nothing() throws Exception {
    drainWithAKill("mariadb", RunDatabases.mariadbUrl());
  }

  @Test
  void on_h2_a_sigkilled_worker_loses_nothing_and_duplicates_nothing() throws Exception {
    Server server = Server.createTcpServer("-tcpPort", "0", "-tcpAllowOthers", "-ifNotExists").start();
    try {
      drainWithAKill("h2", "jdbc:h2:tcp://127.0.0.1:" + server.getPort() + "/mem:connect-" + UUID.randomUUID()
          + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=20000");
    } finally {
      server.stop();
    }
  }

  private static void drainWithAKill(String database, String url) throws Exception {
    String prefix = "connect_other_";
    String topic = "connect-" + database + "-" + UUID.randomUUID();
    KAFKA.createTopic(topic, 4);
    List<Message> messages = OutboxSourceConnectorExactlyOnceTest.messages(ENTRIES, 200, "k");
    HikariConfig pool = new HikariConfig();
    pool.setJdbcUrl(url);
    pool.setMaximumPoolSize(4);
    long started = System.nanoTime();
    try (HikariDataSource dataSource = new HikariDataSource(pool);
        Judge judge = new Judge(KAFKA, topic);
        WorkerProcesses workers = WorkerProcesses.start(ConnectWorkers.workerSettings(KAFKA, true), 2)) {
      JdbcOutboxStore store = JdbcOutboxStore.builder(dataSource).withTablePrefix(prefix).build();
      store.migrate();
      write(store, dataSource, messages.subList(0, ENTRIES / 2));
      Map<String, String> config = OutboxSourceConnectorExactlyOnceTest.shortLeaseConfig(prefix, topic, 2);
      config.put(OutboxSourceConfig.JDBC_URL, url);
      workers.rest(0).putConnector(database, config);
      workers.rest(0).awaitRunning(database, 2);
      write(store, dataSource, messages.subList(ENTRIES / 2, ENTRIES)); // while the tasks drain

      judge.awaitProgress("progress before the kill", 300, ENTRIES, Duration.ofMinutes(3));
      int atKill = judge.poll();
      workers.kill(1);
      workers.restart(1);
      Awaitility.await("every entry delivered").atMost(Duration.ofMinutes(5)).pollInterval(Duration.ofMillis(50))
          .until(() -> judge.poll() >= ENTRIES && store.stats(Instant.now()).pending() == 0);
      judge.poll();

      Judge.Verdict verdict = judge.verdict(OutboxSourceConnectorExactlyOnceTest.payloads(messages));
      System.out.printf(Locale.ROOT, "connect on %s: workers=2 tasks=2, SIGKILL with %d of %d arrived%s; %d s; %s%n",
          database, atKill, ENTRIES, atKill >= ENTRIES ? " (after the drain: nothing in flight to lose)" : "",
          Duration.ofNanos(System.nanoTime() - started).toSeconds(), verdict);
      assertThat(verdict).isEqualTo(new Judge.Verdict(ENTRIES, 0, 0, 0, 0));
    }
  }

  private static void write(JdbcOutboxStore store, HikariDataSource dataSource, List<Message> messages)
      throws SQLException {
    try (Connection connection = dataSource.getConnection()) {
      connection.setAutoCommit(false);
      for (int from = 0; from < messages.size(); from += 500) {
        store.outbox().writeAll(connection, messages.subList(from, Math.min(from + 500, messages.size())));
        connection.commit();
      }
    }
  }
}
