package dev.outbox4j.jdbc;

import dev.outbox4j.jdbc.internal.UnnamedStatements;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Locale;
import java.util.OptionalInt;
import javax.sql.DataSource;

/**
 * What the opt-in PostgreSQL triggers ({@link PostgresNotifyTrigger}, {@link PostgresKeyNumbering}) share: running
 * their DDL in one transaction, and reading a trigger of the outbox table.
 *
 * <p>Stateless.
 */
final class PostgresTriggers {
  private PostgresTriggers() {}

  /** Runs the statements in one transaction on a connection of its own, rolled back whole if one fails. */
  static void inOneTransaction(DataSource dataSource, List<String> statements) throws SQLException {
    try (Connection connection = dataSource.getConnection()) {
      boolean autoCommit = connection.getAutoCommit();
      connection.setAutoCommit(false);
      try (Statement statement = connection.createStatement()) {
        for (String sql : statements) {
          statement.execute(sql);
        }
        connection.commit();
      } catch (SQLException e) {
        connection.rollback();
        throw e;
      } finally {
        connection.setAutoCommit(autoCommit);
      }
    }
  }

  /**
   * @param table the qualified table
   * @param trigger the trigger's (unqualified) name
   * @return the trigger's {@code pg_trigger.tgtype}, or empty when the table has no such trigger
   */
  static OptionalInt type(DataSource dataSource, String table, String trigger) throws SQLException {
    String sql = "SELECT tgtype FROM pg_trigger WHERE tgrelid = ?::regclass AND tgname = ? AND NOT tgisinternal";
    try (Connection connection = dataSource.getConnection();
        PreparedStatement statement = UnnamedStatements.unnamed(connection.prepareStatement(sql))) {
      statement.setString(1, table);
      statement.setString(2, trigger.toLowerCase(Locale.ROOT));
      try (ResultSet rows = statement.executeQuery()) {
        return rows.next() ? OptionalInt.of(rows.getInt(1)) : OptionalInt.empty();
      }
    }
  }
}
