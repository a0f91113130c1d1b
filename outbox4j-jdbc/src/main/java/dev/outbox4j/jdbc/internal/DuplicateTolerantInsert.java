package dev.outbox4j.jdbc.internal;

import dev.outbox4j.jdbc.JdbcDialect;
import java.util.Objects;

/**
 * An insert-if-absent on a table's primary key, in the form the database supports best: PostgreSQL
 * {@code ON CONFLICT DO NOTHING} and MariaDB/MySQL {@code INSERT IGNORE} report a duplicate as zero rows inserted and
 * never fail the transaction; on other databases it is a plain {@code INSERT}, and the caller must treat a unique-key
 * violation ({@link JdbcDialect#isUniqueViolation}) as the duplicate, guarding the transaction with a savepoint where
 * it matters. Not API.
 *
 * @param sql the statement
 * @param ignoresDuplicates {@code true} when a duplicate inserts zero rows; {@code false} when it fails instead
 */
public record DuplicateTolerantInsert(String sql, boolean ignoresDuplicates) {
  /**
   * @param sql the statement
   * @param ignoresDuplicates {@code true} when a duplicate inserts zero rows; {@code false} when it fails instead
   */
  public DuplicateTolerantInsert {
    Objects.requireNonNull(sql, "sql");
  }

  /**
   * @param dialect the database's dialect
   * @param table the qualified table name
   * @param columnsAndValues the rest of the statement, for example {@code " (a, b) VALUES (?, ?)"}
   * @return the insert for that database
   */
  public static DuplicateTolerantInsert into(JdbcDialect dialect, String table, String columnsAndValues) {
    return switch (dialect.name()) {
      case "postgresql" ->
          new DuplicateTolerantInsert("INSERT INTO " + table + columnsAndValues + " ON CONFLICT DO NOTHING", true);
      case "mariadb" -> new DuplicateTolerantInsert("INSERT IGNORE INTO " + table + columnsAndValues, true);
      default -> new DuplicateTolerantInsert("INSERT INTO " + table + columnsAndValues, false);
    };
  }
}
