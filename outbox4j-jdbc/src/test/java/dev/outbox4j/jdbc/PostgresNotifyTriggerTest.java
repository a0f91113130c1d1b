package dev.outbox4j.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox4j.Message;
import dev.outbox4j.jdbc.testing.RunDatabases;
import dev.outbox4j.spi.Retention;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * The opt-in notify trigger ({@link JdbcOutboxStore#installNotifyTrigger()}): PostgreSQL notifies the wake-up channel
 * at the commit of any transaction that inserted outbox rows, whoever wrote them.
 *
 * <p>Absence is checked without waiting a fixed time: each check ends with a marker notification committed after the
 * transactions under test, and PostgreSQL delivers notifications in commit order, so everything the listener has
 * before the marker is everything those transactions sent.
 */
class PostgresNotifyTriggerTest {
  private static final String PREFIX = "PgTrig_";
  private static final String MARKER = "marker";

  @Test
  void a_plain_sql_insert_by_another_application_notifies_once_per_transaction_and_a_rollback_not_at_all()
      throws Exception {
    JdbcOutboxStore store = TestDatabase.POSTGRES.emptyStore(PREFIX, Clock.systemUTC(), Retention.deleteOnDelivery());
    store.installNotifyTrigger();
    store.installNotifyTrigger(); // idempotent
    assertThat(store.hasNotifyTrigger()).isTrue();
    try (Listener listener = new Listener("PgTrig_outbox")) {
      try (Connection other = DriverManager.getConnection(RunDatabases.postgresUrl())) {
        other.setAutoCommit(false);
        insertPlain(other, "order-1");
        insertPlain(other, "order-1");
        insertPlain(other, null);
        other.commit(); // three statements, one transaction: one notification

        insertPlain(other, "order-2");
        other.rollback(); // nothing

        other.setAutoCommit(true);
        insertPlain(other, "order-3"); // a transaction of its own
      }

      assertThat(listener.payloadsUntilMarker()).containsExactly("", "");
    }
    assertThat(store.claim(10, java.time.Instant.now(), Duration.ofSeconds(30))).hasSize(3);
  }

  @Test
  void a_java_writer_that_also_notifies_sends_one_notification_per_transaction() throws Exception {
    JdbcOutboxStore store = TestDatabase.POSTGRES.emptyStore(PREFIX, Clock.systemUTC(), Retention.deleteOnDelivery());
    store.installNotifyTrigger();
    JdbcOutbox notifying = store.outboxBuilder().withWakeUpNotify(true).build();
    DataSource pool = TestDatabase.POSTGRES.pool(PREFIX);
    try (Listener listener = new Listener("PgTrig_outbox")) {
      try (Connection c = pool.getConnection()) {
        c.setAutoCommit(false);
        notifying.writeAll(c, List.of(Message.builder().withDestination("d").build(),
            Message.builder().withDestination("d").withOrderingKey("k").build()));
        c.commit();
        c.setAutoCommit(true);
      }
      assertThat(listener.payloadsUntilMarker()).containsExactly("");
    }
  }

  @Test
  void once_removed_an_insert_notifies_nothing_and_no_object_is_left() throws Exception {
    JdbcOutboxStore store = TestDatabase.POSTGRES.emptyStore(PREFIX, Clock.systemUTC(), Retention.deleteOnDelivery());
    store.installNotifyTrigger();
    store.removeNotifyTrigger();
    store.removeNotifyTrigger(); // idempotent
    assertThat(store.hasNotifyTrigger()).isFalse();
    try (Listener listener = new Listener("PgTrig_outbox")) {
      try (Connection other = DriverManager.getConnection(RunDatabases.postgresUrl())) {
        insertPlain(other, "order-9");
        try (var rows = other.createStatement().executeQuery(
            "SELECT count(*) FROM pg_proc WHERE proname = 'pgtrig_outbox_notify'")) {
          rows.next();
          assertThat(rows.getLong(1)).isZero();
        }
      }
      assertThat(listener.payloadsUntilMarker()).isEmpty();
    }
  }

  @Test
  void the_trigger_notifies_the_channel_of_a_schema_and_a_prefix_with_capitals() throws Exception {
    String schema = "pgtrig_tenant";
    try (Connection admin = DriverManager.getConnection(RunDatabases.postgresUrl());
        Statement statement = admin.createStatement()) {
      statement.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
      statement.execute("CREATE SCHEMA " + schema);
    }
    DataSource pool = TestDatabase.POSTGRES.pool(PREFIX);
    JdbcOutboxStore store = JdbcOutboxStore.builder(pool).withSchema(schema).withTablePrefix("Tenant_").build();
    store.migrate();
    store.installNotifyTrigger();
    try (Listener listener = new Listener("Tenant_outbox")) {
      try (Connection other = DriverManager.getConnection(RunDatabases.postgresUrl());
          PreparedStatement insert = other.prepareStatement("INSERT INTO " + schema + ".tenant_outbox"
              + " (id, destination, payload, content_type, headers) VALUES (?, 'd', '\\x7b7d'::bytea,"
              + " 'application/json', '{}')")) {
        insert.setObject(1, UUID.randomUUID());
        insert.executeUpdate();
      }
      assertThat(listener.payloadsUntilMarker()).containsExactly("");
    }
  }

  @Test
  void other_databases_are_told_the_trigger_needs_postgresql() {
    JdbcOutboxStore store = TestDatabase.H2.emptyStore("h2trig_", Clock.systemUTC(), Retention.deleteOnDelivery());
    assertThatThrownBy(store::installNotifyTrigger).isInstanceOf(UnsupportedOperationException.class)
        .hasMessageContaining("needs PostgreSQL");
  }

  private static void insertPlain(Connection connection, String key) throws SQLException {
    try (PreparedStatement insert = connection.prepareStatement("INSERT INTO pgtrig_outbox"
        + " (id, destination, ordering_key, payload, content_type, headers)"
        + " VALUES (?, 'orders', ?, '\\x7b7d'::bytea, 'application/json', '{}')")) {
      insert.setObject(1, UUID.randomUUID());
      insert.setString(2, key);
      insert.executeUpdate();
    }
  }

  /** A LISTEN on a connection of its own, read with the driver's blocking wait. */
  private static final class Listener implements AutoCloseable {
    private final String channel;
    private final Connection connection;

    Listener(String channel) throws SQLException {
      this.channel = channel;
      this.connection = DriverManager.getConnection(RunDatabases.postgresUrl());
      try (Statement statement = connection.createStatement()) {
        statement.execute("LISTEN \"" + channel + "\"");
      }
    }

    /** Commits a marker notification and returns the payloads heard before it, in order. */
    List<String> payloadsUntilMarker() throws SQLException {
      try (Connection other = DriverManager.getConnection(RunDatabases.postgresUrl());
          PreparedStatement notify = other.prepareStatement("SELECT pg_notify(?, ?)")) {
        notify.setString(1, channel);
        notify.setString(2, MARKER);
        notify.execute();
      }
      List<String> payloads = new ArrayList<>();
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (System.nanoTime() < deadline) {
        PGNotification[] heard = connection.unwrap(PGConnection.class).getNotifications(500);
        for (PGNotification notification : heard == null ? new PGNotification[0] : heard) {
          if (notification.getParameter().equals(MARKER)) {
            return payloads;
          }
          payloads.add(notification.getParameter());
        }
      }
      throw new AssertionError("the marker notification did not arrive within 30 s; heard " + payloads);
    }

    @Override
    public void close() throws SQLException {
      connection.close();
    }
  }
}
