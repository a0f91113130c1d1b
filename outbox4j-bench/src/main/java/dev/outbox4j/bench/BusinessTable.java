package dev.outbox4j.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/** The application's own table: one small row per business transaction, the change a message announces. */
final class BusinessTable {
  static final String NAME = "bench_business";

  private BusinessTable() {}

  static void truncate(BenchDatabase database) throws SQLException {
    database.truncate(NAME);
  }

  static void reset(BenchDatabase database) throws SQLException {
    database.execute(
        "DROP TABLE IF EXISTS " + NAME,
        database.mariaDb()
            ? "CREATE TABLE " + NAME + " (id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY, account VARCHAR(64) NOT NULL,"
                + " amount BIGINT NOT NULL, created_at DATETIME(6) NOT NULL DEFAULT (UTC_TIMESTAMP(6))) ENGINE = InnoDB"
            : "CREATE TABLE " + NAME + " (id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, account VARCHAR(64)"
                + " NOT NULL, amount BIGINT NOT NULL, created_at TIMESTAMPTZ NOT NULL DEFAULT now())");
  }

  /** Inserts one row on the caller's connection, inside the caller's transaction. */
  static void insert(Connection connection, int index) throws SQLException {
    try (PreparedStatement insert = connection.prepareStatement(
        "INSERT INTO " + NAME + " (account, amount) VALUES (?, ?)")) {
      insert.setString(1, "account-" + (index % 1_000));
      insert.setLong(2, index);
      insert.executeUpdate();
    }
  }
}
