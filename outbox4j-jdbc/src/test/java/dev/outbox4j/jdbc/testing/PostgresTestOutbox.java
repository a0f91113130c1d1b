package dev.outbox4j.jdbc.testing;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.outbox4j.Message;
import dev.outbox4j.Relay;
import dev.outbox4j.RelayBuilder;
import dev.outbox4j.RetryPolicy;
import dev.outbox4j.jdbc.JdbcOutbox;
import dev.outbox4j.jdbc.JdbcOutboxStore;
import dev.outbox4j.jdbc.TableNames;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import dev.outbox4j.spi.Transport;
import dev.outbox4j.testkit.ConsumerLedger;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * A real PostgreSQL outbox (127.0.0.1:5432, this JVM's own database from {@link RunDatabases}, user
 * {@code postgres}) for other modules'
 * end-to-end tests and throughput mains: messages are written in committed transactions through {@link JdbcOutbox},
 * as an application would, and a relay drains them through {@link #store()}.
 *
 * <p>Each outbox lives in tables of its own prefix, so a module never meets another module's rows. {@link #fresh}
 * drops the prefix's outbox objects and migrates them afresh, so every run starts empty and on the current schema.
 *
 * <p>Shipped in outbox4j-jdbc's test-jar; a module uses it with a {@code test-jar} dependency and brings the
 * PostgreSQL driver and HikariCP itself (test dependencies are not transitive). Thread-safe; the caller closes it.
 */
public final class PostgresTestOutbox implements AutoCloseable {
  private static final int TRANSACTION_SIZE = 500;

  private final HikariDataSource pool;
  private final JdbcOutboxStore store;

  private PostgresTestOutbox(String tablePrefix, boolean fresh) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(RunDatabases.postgresUrl());
    config.setMaximumPoolSize(8);
    // Hold connections only while used: a test JVM keeps many pools open, and builds running side by side share the
    // server's connection limit (PostgreSQL's default max_connections is 100).
    config.setMinimumIdle(0);
    config.setIdleTimeout(10_000);
    config.setPoolName("outbox4j-test-" + tablePrefix + (fresh ? "" : "-attached"));
    pool = new HikariDataSource(config);
    if (fresh) {
      try (Connection connection = pool.getConnection(); Statement statement = connection.createStatement()) {
        dropOutboxSchema(statement, TableNames.withPrefix(tablePrefix));
      } catch (SQLException e) {
        pool.close();
        throw new IllegalStateException("cannot reset the " + tablePrefix + " outbox tables", e);
      }
    }
    store = JdbcOutboxStore.builder(pool).withTablePrefix(tablePrefix).build();
    if (fresh) {
      store.migrate();
    }
  }

  /**
   * Opens a pool and an empty outbox, migrated afresh, in the prefix's tables.
   *
   * @param tablePrefix the table prefix, a plain identifier such as {@code e2e_http_}; one per test class
   * @return the outbox; close it to close its pool
   * @throws IllegalStateException if the tables cannot be dropped
   */
  public static PostgresTestOutbox fresh(String tablePrefix) {
    return new PostgresTestOutbox(tablePrefix, true);
  }

  /**
   * Opens a second pool and store over tables that {@link #fresh} already made, touching nothing: what a second relay
   * process sees, for tests of several relays sharing one outbox.
   *
   * @param tablePrefix the prefix given to {@link #fresh}
   * @return the outbox; close it to close its pool
   */
  public static PostgresTestOutbox attach(String tablePrefix) {
    return new PostgresTestOutbox(tablePrefix, false);
  }

  /**
   * Drops every PostgreSQL object the outbox migration creates under these names (tables, key-sequence function,
   * sequence), if present.
   *
   * @param statement a statement on an autocommit connection
   * @param names the schema and prefix
   * @throws SQLException if a drop fails
   */
  public static void dropOutboxSchema(Statement statement, TableNames names) throws SQLException {
    statement.execute("DROP TABLE IF EXISTS " + names.qualified("outbox") + ", " + names.qualified("outbox_key") + ", "
        + names.qualified("outbox_claim") + ", " + names.qualified("outbox_destination_pause") + ", "
        + names.qualified("operator_audit") + ", " + names.qualified("schema_version") + " CASCADE");
    statement.execute("DROP FUNCTION IF EXISTS " + names.qualified("outbox_assign_key_seq") + "()");
    statement.execute("DROP FUNCTION IF EXISTS " + names.qualified("outbox_claim_last_seq") + "(bigint[])");
    statement.execute("DROP SEQUENCE IF EXISTS " + names.qualified("outbox_seq"));
  }

  /** @return the store over this outbox's tables, for a relay */
  public JdbcOutboxStore store() {
    return store;
  }

  /**
   * Writes the messages in list order, committing every 500 as the application's own transactions would.
   *
   * @param messages the messages
   * @throws IllegalStateException if a write fails
   */
  public void write(List<Message> messages) {
    JdbcOutbox outbox = store.outbox();
    try (Connection connection = pool.getConnection()) {
      connection.setAutoCommit(false);
      for (int from = 0; from < messages.size(); from += TRANSACTION_SIZE) {
        outbox.writeAll(connection, messages.subList(from, Math.min(from + TRANSACTION_SIZE, messages.size())));
        connection.commit();
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * Starts a relay over this outbox that recovers quickly: failed deliveries are retried soon (exponential backoff from
   * 50 ms, capped at 500 ms; the default time budget), an outage pauses it 50 ms doubling to at most 500 ms, and it
   * polls every 5 to 100 ms.
   *
   * @param transport the transport under test
   * @return a builder with those settings, for the test to add listeners or timeouts and build
   */
  public RelayBuilder relayWithFastRetries(Transport transport) {
    return Relay.builder(store, transport)
        .withRetryPolicy(RetryPolicy.exponential().withBase(Duration.ofMillis(50)).withCap(Duration.ofMillis(500))
            .build())
        .withOutageBackoff(Duration.ofMillis(50), Duration.ofMillis(500))
        .withPollInterval(Duration.ofMillis(5), Duration.ofMillis(100));
  }

  /**
   * For throughput mains (never tests): starts the relay and polls until the consumer has received {@code count}
   * distinct messages and the outbox has recorded every delivery, or five minutes have passed.
   *
   * @param relay a relay over this outbox, not yet started
   * @param ledger what the consumer received
   * @param count how many messages were written
   * @return the wall-clock time from starting the relay until then
   * @throws InterruptedException if interrupted while polling
   */
  public Duration timeToDeliver(Relay relay, ConsumerLedger ledger, int count) throws InterruptedException {
    long start = System.nanoTime();
    relay.start();
    long deadline = start + Duration.ofMinutes(5).toNanos();
    while (ledger.uniqueCount() < count && System.nanoTime() < deadline) {
      Thread.sleep(5); // a benchmark's poll, not test logic
    }
    while (pending() > 0 && System.nanoTime() < deadline) {
      Thread.sleep(5); // until the last confirmations are recorded
    }
    return Duration.ofNanos(System.nanoTime() - start);
  }

  /** @return entries not yet delivered or quarantined, now */
  public long pending() {
    return store.stats(Instant.now()).pending();
  }

  /** Closes the pool. */
  @Override
  public void close() {
    pool.close();
  }
}
