package dev.outbox4j.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.outbox4j.Message;
import dev.outbox4j.spi.Claim;
import dev.outbox4j.spi.Retention;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * When PostgreSQL numbers keyed entries ({@link JdbcOutboxStore#useKeyNumbering}): key order is commit order at insert
 * as at commit, switching back and forth is safe, and numbering at insert lets writers at SERIALIZABLE write keyed
 * entries without the serialization failures the commit-time write-back causes.
 */
class PostgresKeyNumberingTest {
  private static final String PREFIX = "PgNum_";

  @Test
  void at_insert_a_second_writer_of_the_key_waits_at_its_insert_so_numbers_follow_commit_order() throws Exception {
    JdbcOutboxStore store = TestDatabase.POSTGRES.emptyStore(PREFIX, Clock.systemUTC(), Retention.deleteOnDelivery());
    store.useKeyNumbering(KeyNumbering.AT_COMMIT); // the schema's default (the tables are shared by these tests)
    assertThat(store.keyNumberingInUse()).isEqualTo(KeyNumbering.AT_COMMIT);
    store.useKeyNumbering(KeyNumbering.AT_INSERT);
    store.useKeyNumbering(KeyNumbering.AT_INSERT); // idempotent
    assertThat(store.keyNumberingInUse()).isEqualTo(KeyNumbering.AT_INSERT);
    DataSource pool = TestDatabase.POSTGRES.pool(PREFIX);
    JdbcOutbox outbox = store.outbox();
    ExecutorService second = Executors.newSingleThreadExecutor();
    try (Connection first = pool.getConnection(); Connection other = pool.getConnection()) {
      first.setAutoCommit(false);
      other.setAutoCommit(false);
      UUID firstId = write(outbox, first, keyed("k", "first"));
      int otherPid = backendPid(other);
      Future<UUID> otherId = second.submit(() -> write(outbox, other, keyed("k", "second")));
      await().atMost(Duration.ofSeconds(30)).until(() -> waitsOnALock(pool, otherPid));
      // an unkeyed writer and a writer of another key are not held up
      try (Connection bystander = pool.getConnection()) {
        outbox.write(bystander, Message.builder().withDestination("d").build());
        outbox.write(bystander, keyed("other-key", "x"));
      }
      assertThat(otherId).isNotDone();
      first.commit();
      UUID secondId = otherId.get(30, TimeUnit.SECONDS);
      other.commit();

      assertThat(keySeq(pool, secondId)).isGreaterThan(keySeq(pool, firstId));
      List<Claim> claims = store.claim(10, Instant.now(), Duration.ofSeconds(30));
      assertThat(claims).extracting(c -> c.entry().id()).contains(firstId).doesNotContain(secondId);
    } finally {
      second.shutdownNow();
    }
  }

  @Test
  void switching_back_and_forth_keeps_each_key_in_commit_order() throws Exception {
    JdbcOutboxStore store = TestDatabase.POSTGRES.emptyStore(PREFIX, Clock.systemUTC(), Retention.deleteOnDelivery());
    DataSource pool = TestDatabase.POSTGRES.pool(PREFIX);
    JdbcOutbox outbox = store.outbox();
    List<UUID> commitOrder = new ArrayList<>();
    for (KeyNumbering numbering : List.of(KeyNumbering.AT_INSERT, KeyNumbering.AT_COMMIT, KeyNumbering.AT_INSERT)) {
      store.useKeyNumbering(numbering);
      assertThat(store.keyNumberingInUse()).isEqualTo(numbering);
      commitOrder.addAll(writeTwoThatCommitInTurn(pool, outbox, numbering));
    }
    store.useKeyNumbering(KeyNumbering.AT_COMMIT);
    try (Connection c = pool.getConnection();
        ResultSet rows = c.createStatement().executeQuery("SELECT count(*) FROM pg_proc WHERE proname ="
            + " 'pgnum_outbox_number_key_at_insert'")) {
      rows.next();
      assertThat(rows.getLong(1)).as("the insert-time function is gone").isZero();
    }

    List<UUID> delivered = new ArrayList<>();
    for (List<Claim> claims; !(claims = store.claim(1, Instant.now(), Duration.ofSeconds(30))).isEmpty(); ) {
      Claim claim = claims.get(0);
      delivered.add(claim.entry().id());
      store.markDelivered(claims, Instant.now());
    }
    assertThat(delivered).containsExactlyElementsOf(commitOrder);
  }

  /**
   * Writers at SERIALIZABLE, each inserting a row of its own table and a keyed entry, many at once: numbering at insert
   * adds no serialization failure once the keys exist (at commit, 50–80 % of these transactions fail with 40001 on
   * this machine: docs/schema.md, "Writers at SERIALIZABLE").
   */
  @Test
  void at_insert_serializable_writers_of_existing_keys_commit_without_serialization_failures() throws Exception {
    JdbcOutboxStore store = TestDatabase.POSTGRES.emptyStore(PREFIX, Clock.systemUTC(), Retention.deleteOnDelivery());
    store.useKeyNumbering(KeyNumbering.AT_INSERT);
    DataSource pool = TestDatabase.POSTGRES.pool(PREFIX);
    JdbcOutbox outbox = store.outbox();
    try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
      s.execute("DROP TABLE IF EXISTS pgnum_order");
      s.execute("CREATE TABLE pgnum_order (id bigserial PRIMARY KEY, account int NOT NULL)");
      for (int account = 0; account < 20; account++) {
        outbox.write(c, keyed("account-" + account, "opening")); // the keys exist before the writers start
      }
    }
    int writers = 8;
    int each = 60;
    AtomicInteger failures = new AtomicInteger();
    ExecutorService threads = Executors.newFixedThreadPool(writers);
    try {
      List<CompletableFuture<Void>> running = new ArrayList<>();
      for (int w = 0; w < writers; w++) {
        int writer = w;
        running.add(CompletableFuture.runAsync(() -> {
          for (int i = 0; i < each; i++) {
            int account = (writer * 7 + i * 3) % 20;
            try (Connection c = pool.getConnection()) {
              c.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE);
              c.setAutoCommit(false);
              try (PreparedStatement order = c.prepareStatement("INSERT INTO pgnum_order (account) VALUES (?)")) {
                order.setInt(1, account);
                order.executeUpdate();
                outbox.write(c, keyed("account-" + account, "w" + writer + "-" + i));
                c.commit();
              } catch (SQLException | RuntimeException e) {
                c.rollback();
                if (!isSerializationFailure(e)) {
                  throw e;
                }
                failures.incrementAndGet();
              } finally {
                c.setAutoCommit(true);
                c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
              }
            } catch (SQLException e) {
              throw new IllegalStateException(e);
            }
          }
        }, threads));
      }
      CompletableFuture.allOf(running.toArray(CompletableFuture[]::new)).get(5, TimeUnit.MINUTES);
    } finally {
      threads.shutdownNow();
    }
    assertThat(failures).as("transactions refused with 40001 of " + writers * each).hasValue(0);
  }

  @Test
  void other_databases_are_told_they_number_at_insert_already() {
    JdbcOutboxStore store = TestDatabase.H2.emptyStore("h2num_", Clock.systemUTC(), Retention.deleteOnDelivery());
    assertThatThrownBy(() -> store.useKeyNumbering(KeyNumbering.AT_INSERT))
        .isInstanceOf(UnsupportedOperationException.class)
        .hasMessageContaining("needs PostgreSQL").hasMessageContaining("numbers keys at insert");
  }

  @Test
  void the_config_names_are_commit_and_insert() {
    assertThat(KeyNumbering.fromConfigName(" Insert ")).isEqualTo(KeyNumbering.AT_INSERT);
    assertThat(KeyNumbering.fromConfigName("commit")).isEqualTo(KeyNumbering.AT_COMMIT);
    assertThatThrownBy(() -> KeyNumbering.fromConfigName("begin")).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("key numbering must be 'commit' or 'insert', not 'begin'");
  }

  /**
   * Two writers of one key, the one that inserts first committing last where the numbering lets it (at commit); at
   * insert the second waits at its insert, so it commits second.
   *
   * @return the two entries' ids in the order they committed
   */
  private static List<UUID> writeTwoThatCommitInTurn(DataSource pool, JdbcOutbox outbox, KeyNumbering numbering)
      throws Exception {
    try (Connection early = pool.getConnection(); Connection late = pool.getConnection()) {
      early.setAutoCommit(false);
      late.setAutoCommit(false);
      UUID earlyId = write(outbox, early, keyed("k", numbering + "-early"));
      if (numbering == KeyNumbering.AT_COMMIT) {
        UUID lateId = write(outbox, late, keyed("k", numbering + "-late"));
        late.commit();
        early.commit();
        return List.of(lateId, earlyId);
      }
      int latePid = backendPid(late);
      ExecutorService second = Executors.newSingleThreadExecutor();
      try {
        Future<UUID> lateId = second.submit(() -> write(outbox, late, keyed("k", numbering + "-late")));
        await().atMost(Duration.ofSeconds(30)).until(() -> waitsOnALock(pool, latePid));
        early.commit();
        UUID id = lateId.get(30, TimeUnit.SECONDS);
        late.commit();
        return List.of(earlyId, id);
      } finally {
        second.shutdownNow();
      }
    }
  }

  private static UUID write(JdbcOutbox outbox, Connection transaction, Message message) {
    outbox.write(transaction, message);
    return message.id();
  }

  private static boolean isSerializationFailure(Throwable error) {
    for (Throwable t = error; t != null; t = t.getCause()) {
      if (t instanceof SQLException sql && "40001".equals(sql.getSQLState())) {
        return true;
      }
    }
    return false;
  }

  private static Message keyed(String key, String payload) {
    return Message.builder().withDestination("d").withOrderingKey(key).withPayload(payload).build();
  }

  private static int backendPid(Connection connection) throws SQLException {
    try (ResultSet row = connection.createStatement().executeQuery("SELECT pg_backend_pid()")) {
      row.next();
      return row.getInt(1);
    }
  }

  private static boolean waitsOnALock(DataSource pool, int pid) throws SQLException {
    try (Connection c = pool.getConnection(); PreparedStatement select = c.prepareStatement(
        "SELECT count(*) FROM pg_stat_activity WHERE pid = ? AND wait_event_type = 'Lock'")) {
      select.setInt(1, pid);
      try (ResultSet row = select.executeQuery()) {
        row.next();
        return row.getInt(1) > 0;
      }
    }
  }

  private static long keySeq(DataSource pool, UUID id) throws SQLException {
    try (Connection c = pool.getConnection();
        PreparedStatement select = c.prepareStatement("SELECT key_seq FROM pgnum_outbox WHERE id = ?")) {
      select.setObject(1, id);
      try (ResultSet row = select.executeQuery()) {
        row.next();
        return row.getLong(1);
      }
    }
  }
}
