package dev.outbox4j.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import dev.outbox4j.Relay;
import dev.outbox4j.jdbc.testing.PostgresTestOutbox;
import dev.outbox4j.memory.InProcessTransport;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/** JDBC scenarios on PostgreSQL (session time zone Pacific/Chatham), plus the PostgreSQL-only guarantees. */
class PostgresScenariosTest extends JdbcOutboxScenarios {
  @Override
  protected TestDatabase database() {
    return TestDatabase.POSTGRES;
  }

  @Override
  protected String prefix() {
    return "pgscen_";
  }

  @Override
  protected void killSessions(HikariDataSource pool) throws SQLException {
    killSessions(pool, pool());
  }

  /** Ends the server session of the pool's connection (a pool of one) from an admin connection of another pool. */
  static void killSessions(HikariDataSource pool, DataSource admins) throws SQLException {
    int pid;
    try (Connection c = pool.getConnection(); Statement s = c.createStatement();
        ResultSet r = s.executeQuery("SELECT pg_backend_pid()")) {
      r.next();
      pid = r.getInt(1);
    }
    try (Connection admin = admins.getConnection(); Statement s = admin.createStatement()) {
      s.execute("SELECT pg_terminate_backend(" + pid + ")");
    }
  }

  @Test
  void the_sessions_run_in_a_non_utc_time_zone_and_instants_survive_it() throws SQLException {
    try (Connection c = pool().getConnection(); Statement s = c.createStatement();
        ResultSet r = s.executeQuery("SHOW TimeZone")) {
      r.next();
      assertThat(r.getString(1)).isEqualTo("Pacific/Chatham");
    }
    dev.outbox4j.Message message = dev.outbox4j.Message.builder().withDestination("d")
        .withNotBefore(clock.instant().minusSeconds(1)).build();
    store.enqueue(message);
    assertThat(store.find(message.id()).orElseThrow().createdAt()).isEqualTo(clock.instant());
    assertThat(store.find(message.id()).orElseThrow().message()).isEqualTo(message);
  }

  /**
   * The deferred key trigger numbers entries at commit, so neither writer waits at insert time and the one that
   * commits first is delivered first, although it inserted second.
   */
  @Test
  void a_transaction_that_inserted_first_but_committed_last_is_delivered_last() throws SQLException {
    try (Connection a = pool().getConnection(); Connection b = pool().getConnection()) {
      a.setAutoCommit(false);
      b.setAutoCommit(false);
      outbox.write(a, keyed("k", "A")); // A inserts first
      outbox.write(b, keyed("k", "B")); // B inserts second, without waiting for A
      b.commit(); // B commits first
      a.commit(); // A commits last
    }

    assertThat(drainInOrder("k")).containsExactly("B", "A");
  }

  /**
   * A keyed commit locks its key's row and changes nothing in it: while a transaction elsewhere holds the horizon back,
   * a version per commit could not be removed, and every later commit of the key would walk them.
   */
  @Test
  void a_keyed_commit_locks_its_keys_row_without_writing_a_new_version_of_it() throws SQLException {
    write(keyed("v", "1"));
    String version = keyRowVersion("v");
    for (int i = 2; i <= 5; i++) {
      write(keyed("v", String.valueOf(i)));
    }

    assertThat(keyRowVersion("v")).as("the key row's xmin and ctid after four more commits").isEqualTo(version);
    assertThat(drainInOrder("v")).containsExactly("1", "2", "3", "4", "5");
  }

  /**
   * A REPEATABLE READ writer whose snapshot predates another writer's commit of the same key commits too, after it:
   * the key's row is only locked by each commit, never updated, so the later writer finds no concurrent update.
   */
  @Test
  void a_repeatable_read_writer_commits_after_another_writer_of_its_key_committed_since_its_snapshot()
      throws SQLException {
    write(keyed("rr", "first"));
    try (Connection a = pool().getConnection(); Connection b = pool().getConnection()) {
      a.setAutoCommit(false);
      a.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
      try (Statement s = a.createStatement()) {
        s.execute("SELECT 1"); // a's snapshot is taken here
      }
      b.setAutoCommit(false);
      outbox.write(b, keyed("rr", "B"));
      b.commit();
      outbox.write(a, keyed("rr", "A"));
      a.commit();
    }

    assertThat(drainInOrder("rr")).containsExactly("first", "B", "A");
  }

  /**
   * Entries numbered by V1's per-key counter and still waiting when V12 is applied keep their place: the outbox
   * sequence has numbered every entry ever inserted, so its next value is above every counter value.
   */
  @Test
  void entries_numbered_before_v12_are_delivered_before_those_numbered_after_it() throws SQLException {
    TableNames names = TableNames.withPrefix("pgv12_");
    DataSource pool = TestDatabase.POSTGRES.pool("pgv12_");
    try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
      PostgresTestOutbox.dropOutboxSchema(s, names);
    }
    SchemaMigrator migrator = new SchemaMigrator(pool, PostgresDialect.INSTANCE, names);
    migrator.migrate(JdbcOutboxStore.COMPONENT, JdbcOutboxStore.MIGRATIONS.subList(0, 11));
    JdbcOutboxStore store = JdbcOutboxStore.builder(pool).withTableNames(names).withClock(clock).build();
    for (int i = 1; i <= 3; i++) {
      try (Connection c = pool.getConnection()) {
        store.outbox().write(c, keyed("k", "before-" + i)); // autocommit: each its own transaction
      }
    }

    assertThat(migrator.migrate(JdbcOutboxStore.COMPONENT, JdbcOutboxStore.MIGRATIONS))
        .isEqualTo(JdbcOutboxStore.MIGRATIONS.size() - 11); // V12 and whatever came after it
    for (int i = 1; i <= 3; i++) {
      try (Connection c = pool.getConnection()) {
        store.outbox().write(c, keyed("k", "after-" + i));
      }
    }

    List<String> delivered = new java.util.ArrayList<>();
    Relay.builder(store, InProcessTransport.consuming(m -> delivered.add(text(m)))).withClock(clock).build()
        .drain(1000);
    assertThat(delivered).containsExactly("before-1", "before-2", "before-3", "after-1", "after-2", "after-3");
  }

  private void write(dev.outbox4j.Message message) throws SQLException {
    try (Connection c = pool().getConnection()) {
      c.setAutoCommit(false);
      outbox.write(c, message);
      c.commit();
    }
  }

  private String keyRowVersion(String key) throws SQLException {
    try (Connection c = pool().getConnection(); Statement s = c.createStatement();
        ResultSet r = s.executeQuery("SELECT xmin::text || ' ' || ctid::text FROM pgscen_outbox_key"
            + " WHERE ordering_key = '" + key + "'")) {
      assertThat(r.next()).as("the key's row").isTrue();
      return r.getString(1);
    }
  }

  /**
   * A writer session that numbers keyed entries while the outbox is analysed as empty (as autovacuum leaves a healthy
   * outbox) must not number them by sequential scan as the backlog builds: 300 keyed entries read 45,150 rows that way
   * before V4. The numbering triggers run at {@code SET CONSTRAINTS ALL IMMEDIATE}, so this transaction's own
   * statistics count what they read.
   */
  @Test
  void keyed_entries_are_numbered_by_primary_key_after_the_outbox_was_analysed_empty() throws Exception {
    // A table of its own, which no other test has written to.
    JdbcOutboxStore numbering = TestDatabase.POSTGRES.emptyStore("pgnum_", clock,
        dev.outbox4j.spi.Retention.deleteOnDelivery());
    DataSource pool = TestDatabase.POSTGRES.pool("pgnum_");
    try (Connection admin = pool.getConnection(); Statement s = admin.createStatement()) {
      s.execute("VACUUM ANALYZE pgnum_outbox");
    }
    try (Connection writer = pool.getConnection()) {
      writer.setAutoCommit(false);
      JdbcOutbox writes = numbering.outbox();
      for (int i = 0; i < 300; i++) {
        writes.write(writer, keyed("k" + (i % 10), "m" + i));
      }
      try (Statement s = writer.createStatement()) {
        s.execute("SET CONSTRAINTS ALL IMMEDIATE");
        try (ResultSet r = s.executeQuery("SELECT coalesce(seq_tup_read, 0) FROM pg_stat_xact_user_tables"
            + " WHERE relname = 'pgnum_outbox'")) {
          assertThat(r.next()).isTrue();
          assertThat(r.getLong(1)).as("rows read by sequential scans").isLessThan(300);
        }
      }
      writer.commit();
    }
    List<String> delivered = new java.util.ArrayList<>();
    Relay.builder(numbering, InProcessTransport.consuming(m -> delivered.add(text(m)))).withClock(clock).build()
        .drain(1000);
    assertThat(delivered).hasSize(300);
    assertThat(delivered.stream().filter(m -> Integer.parseInt(m.substring(1)) % 10 == 3).toList())
        .isEqualTo(java.util.stream.IntStream.range(0, 30).mapToObj(i -> "m" + (i * 10 + 3)).toList());
  }

  @Test
  void a_plain_sql_insert_from_another_application_gets_the_same_commit_order() throws SQLException {
    String insert = "INSERT INTO pgscen_outbox (id, destination, ordering_key, payload, headers)"
        + " VALUES (gen_random_uuid(), 'orders', 'k', convert_to(?, 'UTF8'), '{\"traceparent\":\"00-x\"}')";
    try (Connection a = pool().getConnection(); Connection b = pool().getConnection()) {
      a.setAutoCommit(false);
      b.setAutoCommit(false);
      try (var s = a.prepareStatement(insert)) {
        s.setString(1, "A");
        s.executeUpdate();
      }
      try (var s = b.prepareStatement(insert)) {
        s.setString(1, "B");
        s.executeUpdate();
      }
      b.commit();
      a.commit();
    }

    assertThat(drainInOrder("k")).containsExactly("B", "A");
  }

  @Test
  void a_notify_on_commit_wakes_an_idle_relay_whose_poll_is_thirty_seconds() throws Exception {
    List<String> delivered = new CopyOnWriteArrayList<>();
    JdbcOutbox notifying = store.outboxBuilder().withWakeUpNotify(true).build();
    AtomicInteger wakeUps = new AtomicInteger();
    try (Relay relay = Relay.builder(store, InProcessTransport.consuming(m -> delivered.add(text(m))))
        .withClock(clock).withPollInterval(Duration.ofSeconds(30), Duration.ofSeconds(30)).build()) {
      relay.start();
      try (PostgresWakeUpListener listener = PostgresWakeUpListener.start(pool(), store.tableNames(), () -> {
        wakeUps.incrementAndGet();
        relay.wakeUp();
      })) {
        await().atMost(Duration.ofSeconds(20)).until(() -> wakeUps.get() >= 1); // listening; relay now idle
        try (Connection c = pool().getConnection()) {
          c.setAutoCommit(false);
          notifying.write(c, keyed("k", "wake up"));
          c.commit();
        }

        await().atMost(Duration.ofSeconds(10)).until(() -> delivered.contains("wake up"));
        assertThat(wakeUps.get()).isGreaterThanOrEqualTo(2);
        assertThat(listener.channel()).isEqualTo("pgscen_outbox");
      }
    }
  }
}
