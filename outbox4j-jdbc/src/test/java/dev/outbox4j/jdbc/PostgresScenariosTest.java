package dev.outbox4j.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import dev.outbox4j.Relay;
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
    int pid;
    try (Connection c = pool.getConnection(); Statement s = c.createStatement();
        ResultSet r = s.executeQuery("SELECT pg_backend_pid()")) {
      r.next();
      pid = r.getInt(1);
    }
    try (Connection admin = pool().getConnection(); Statement s = admin.createStatement()) {
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
