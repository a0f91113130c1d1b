package dev.outbox4j.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.outbox4j.Message;
import dev.outbox4j.OutboxException;
import dev.outbox4j.jdbc.testing.RunDatabases;
import dev.outbox4j.testkit.TcpProxy;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * What the PostgreSQL store does when the network or the database misbehaves: a stalled (half-open) connection, a
 * database that is down when the store is built, and the LISTEN/NOTIFY wake-up under a prefix with capitals.
 */
class PostgresFaultsTest {
  private static final String PREFIX = "pgfault_";

  /** The URL of this JVM's database, through the proxy's port instead of PostgreSQL's. */
  private static String throughProxy(TcpProxy proxy) {
    return RunDatabases.postgresUrl().replace("127.0.0.1:5432", "127.0.0.1:" + proxy.port());
  }

  @Test
  void a_claim_on_a_stalled_connection_fails_within_the_query_timeout_instead_of_hanging() throws Exception {
    TestDatabase.POSTGRES.emptyStore(PREFIX, java.time.Clock.systemUTC(), dev.outbox4j.spi.Retention.deleteOnDelivery())
        .enqueue(Message.builder().withDestination("d").build());
    try (TcpProxy proxy = TcpProxy.start("127.0.0.1", 5432);
        Connection held = DriverManager.getConnection(throughProxy(proxy))) {
      JdbcOutboxStore store = JdbcOutboxStore.builder(OneConnection.dataSource(held)).withTablePrefix(PREFIX)
          .withQueryTimeout(Duration.ofSeconds(1)).build();
      assertThat(store.stats(Instant.now()).pending()).isEqualTo(1); // the connection works through the proxy

      proxy.stall();
      long started = System.nanoTime();
      assertTimeoutPreemptively(Duration.ofSeconds(30), () -> assertThatThrownBy(
          () -> store.claim(10, Instant.now(), Duration.ofSeconds(30))).isInstanceOf(OutboxException.class));
      Duration took = Duration.ofNanos(System.nanoTime() - started);

      // With the driver's defaults: the query timeout (1 s) fires and pgjdbc waits up to its cancelSignalTimeout
      // (10 s) for the cancel it sends over the stalled path; the network timeout (1 s + 5 s) ends the read. Without
      // the store's timeouts the claim never returns.
      assertThat(took).isLessThan(Duration.ofSeconds(1 + 10 + 5));
    }
  }

  @Test
  void a_store_built_while_the_database_is_down_builds_fails_its_calls_and_works_once_the_database_is_back() {
    TestDatabase.POSTGRES.emptyStore(PREFIX, java.time.Clock.systemUTC(), dev.outbox4j.spi.Retention.deleteOnDelivery());
    try (TcpProxy proxy = TcpProxy.start("127.0.0.1", 5432)) {
      proxy.cut();
      HikariConfig config = new HikariConfig();
      config.setJdbcUrl(throughProxy(proxy));
      config.setMaximumPoolSize(2);
      config.setConnectionTimeout(1_000);
      config.setInitializationFailTimeout(-1); // the pool too must start while the database is down
      try (HikariDataSource pool = new HikariDataSource(config)) {
        JdbcOutboxStore store = JdbcOutboxStore.builder(pool).withTablePrefix(PREFIX).build();

        assertThatThrownBy(() -> store.claim(10, Instant.now(), Duration.ofSeconds(30)))
            .isInstanceOf(OutboxException.class);

        proxy.restore();
        await().atMost(Duration.ofSeconds(20)).ignoreExceptions()
            .until(() -> store.enqueue(Message.builder().withDestination("d").build()) != null);
        assertThat(store.claim(10, Instant.now(), Duration.ofSeconds(30))).hasSize(1);
        assertThat(store.dialect()).isSameAs(PostgresDialect.INSTANCE);
      }
    }
  }

  @Test
  void the_wake_up_listener_hears_the_notify_of_a_prefix_with_capitals() throws Exception {
    String prefix = "PgWake_";
    JdbcOutboxStore store = TestDatabase.POSTGRES.emptyStore(prefix, java.time.Clock.systemUTC(),
        dev.outbox4j.spi.Retention.deleteOnDelivery());
    DataSource pool = TestDatabase.POSTGRES.pool(prefix);
    JdbcOutbox notifying = store.outboxBuilder().withWakeUpNotify(true).build();
    AtomicInteger wakeUps = new AtomicInteger();
    try (PostgresWakeUpListener listener = PostgresWakeUpListener.start(pool, store.tableNames(),
        wakeUps::incrementAndGet)) {
      await().atMost(Duration.ofSeconds(20)).until(() -> wakeUps.get() >= 1); // its catch-up call: now listening
      int before = wakeUps.get();
      try (Connection c = pool.getConnection()) {
        c.setAutoCommit(false);
        notifying.write(c, Message.builder().withDestination("d").withOrderingKey("k").build());
        c.commit();
      }

      await().atMost(Duration.ofSeconds(10)).until(() -> wakeUps.get() > before);
      assertThat(listener.channel()).isEqualTo("PgWake_outbox");
    }
  }
}
