package dev.outbox4j.chaos;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * How the suite learns <em>commit order</em> without asking the library: every writer records each message it commits
 * in a side table, {@code chaos_committed}, as the last statement of the same transaction, and the order is read back
 * by the database's own means. A rolled-back transaction leaves no record; a commit whose answer was lost in a crash
 * is recorded exactly when it happened. So the side table is also the list of what was committed.
 */
enum CommitRecord {
  /**
   * PostgreSQL with {@code track_commit_timestamp = on}: the row is inserted once and never updated, so its
   * {@code xmin} is the writer's transaction id and {@code pg_xact_commit_timestamp(xmin)} the time its commit record
   * was written. Two transactions of one key reach their commit records one after the other (the second one's commit
   * cannot be stamped before the first's is), so the stamps order them; ties, if two stamps ever fell in the same
   * microsecond, are broken by transaction id.
   */
  POSTGRESQL {
    @Override
    void create(Connection connection) throws SQLException {
      try (Statement statement = connection.createStatement()) {
        statement.execute("CREATE TABLE chaos_committed (id UUID PRIMARY KEY, ordering_key VARCHAR(255) NOT NULL)");
      }
    }

    @Override
    void record(Connection transaction, UUID id, String key) throws SQLException {
      try (PreparedStatement insert = transaction.prepareStatement(
          "INSERT INTO chaos_committed (id, ordering_key) VALUES (?, ?)")) {
        insert.setObject(1, id);
        insert.setString(2, key);
        insert.executeUpdate();
      }
    }

    @Override
    Map<String, List<UUID>> order(Connection connection) throws SQLException {
      Map<String, List<UUID>> order = new LinkedHashMap<>();
      try (Statement statement = connection.createStatement();
          ResultSet rows = statement.executeQuery("SELECT ordering_key, id FROM chaos_committed"
              + " ORDER BY ordering_key, pg_xact_commit_timestamp(xmin), xmin::text::bigint")) {
        while (rows.next()) {
          order.computeIfAbsent(rows.getString(1), key -> new ArrayList<>()).add(rows.getObject(2, UUID.class));
        }
      }
      return order;
    }
  },

  /**
   * MariaDB: no commit timestamps, and an {@code AUTO_INCREMENT} value is handed out at insert time without a lock held
   * to the commit (a transaction that inserts first may commit last). Instead the writer's last statement takes a
   * <em>commit ticket</em>, {@code UPDATE chaos_clock SET tick = tick + 1} on a single row, and stores it with the
   * message. The update's row lock is held until the transaction ends, so the next writer gets the next ticket only
   * after this one has committed (or rolled back, which undoes the increment and leaves no record): among committed
   * transactions, ticket order is commit order. No deadlock can come of it: the ticket is the last lock a writer takes,
   * and its holder then waits for nothing but its own commit. The cost is that all writers' commits pass through that
   * row one at a time, which a test can afford.
   */
  MARIADB {
    @Override
    void create(Connection connection) throws SQLException {
      try (Statement statement = connection.createStatement()) {
        statement.execute("CREATE TABLE chaos_clock (id INT PRIMARY KEY, tick BIGINT NOT NULL) ENGINE=InnoDB");
        statement.execute("INSERT INTO chaos_clock (id, tick) VALUES (1, 0)");
        statement.execute("CREATE TABLE chaos_committed (id CHAR(36) PRIMARY KEY,"
            + " ordering_key VARCHAR(255) NOT NULL, tick BIGINT NOT NULL UNIQUE) ENGINE=InnoDB");
      }
    }

    @Override
    void record(Connection transaction, UUID id, String key) throws SQLException {
      try (Statement tick = transaction.createStatement();
          PreparedStatement insert = transaction.prepareStatement(
              "INSERT INTO chaos_committed (id, ordering_key, tick) VALUES (?, ?, LAST_INSERT_ID())")) {
        tick.executeUpdate("UPDATE chaos_clock SET tick = LAST_INSERT_ID(tick + 1) WHERE id = 1");
        insert.setString(1, id.toString());
        insert.setString(2, key);
        insert.executeUpdate();
      }
    }

    @Override
    Map<String, List<UUID>> order(Connection connection) throws SQLException {
      Map<String, List<UUID>> order = new LinkedHashMap<>();
      try (Statement statement = connection.createStatement();
          ResultSet rows = statement.executeQuery(
              "SELECT ordering_key, id FROM chaos_committed ORDER BY ordering_key, tick")) {
        while (rows.next()) {
          order.computeIfAbsent(rows.getString(1), key -> new ArrayList<>())
              .add(UUID.fromString(rows.getString(2)));
        }
      }
      return order;
    }
  };

  /** Creates the side table(s), on an auto-commit connection. */
  abstract void create(Connection connection) throws SQLException;

  /** Records the message as committed with the writer's open transaction; the last statements before its commit. */
  abstract void record(Connection transaction, UUID id, String key) throws SQLException;

  /** @return every committed message per ordering key, in commit order */
  abstract Map<String, List<UUID>> order(Connection connection) throws SQLException;
}
