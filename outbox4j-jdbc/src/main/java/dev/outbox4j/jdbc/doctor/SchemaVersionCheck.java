package dev.outbox4j.jdbc.doctor;

import dev.outbox4j.jdbc.JdbcOutboxStore;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * The outbox migrations applied, as {@code <prefix>schema_version} records them, against the ones this version of the
 * library ships. A team that copies the files into its own Flyway or Liquibase migrations has no such table; the check
 * then says so and that it cannot tell.
 */
final class SchemaVersionCheck {
  private SchemaVersionCheck() {}

  /** @return the version of the last outbox migration this library ships */
  static int shipped() {
    List<String> scripts = JdbcOutboxStore.MIGRATIONS;
    String last = scripts.get(scripts.size() - 1);
    return Integer.parseInt(last.substring(1, last.indexOf("__")));
  }

  static Finding run(Examination exam) throws SQLException {
    int shipped = shipped();
    String fix = "outbox4j-relay migrate --config relay.yaml (or database.migrate: true; Spring: outbox4j.migrate)";
    try (Connection connection = exam.dataSource().getConnection()) {
      connection.setAutoCommit(true);
      Integer applied = applied(connection, exam);
      if (applied == null) {
        if (!exists(connection, exam.names().qualified("outbox"))) {
          return Finding.unsafe("schema", "the outbox table " + exam.names().qualified("outbox") + " does not exist:"
              + " nothing can be written or delivered", fix);
        }
        return Finding.info("schema", "the outbox table exists but " + exam.names().qualified("schema_version")
            + " records no outbox migration (applied by another tool?): cannot tell whether V" + shipped
            + " is applied", "apply every outbox migration up to V" + shipped);
      }
      if (applied < shipped) {
        return Finding.unsafe("schema", "schema version " + applied + " applied; this relay needs " + shipped, fix);
      }
      if (applied > shipped) {
        return Finding.info("schema", "schema version " + applied + " applied, newer than this relay's " + shipped
            + " (a newer relay migrated it)", "run the same outbox4j version everywhere");
      }
      return Finding.ok("schema", "schema version " + applied + " (the latest)");
    }
  }

  private static Integer applied(Connection connection, Examination exam) {
    try (PreparedStatement read = connection.prepareStatement("SELECT MAX(version) FROM "
        + exam.names().qualified("schema_version") + " WHERE component = ?")) {
      read.setString(1, JdbcOutboxStore.COMPONENT);
      try (ResultSet row = read.executeQuery()) {
        row.next();
        int version = row.getInt(1);
        return row.wasNull() ? null : version;
      }
    } catch (SQLException e) {
      return null; // no version table
    }
  }

  private static boolean exists(Connection connection, String table) {
    try (Statement statement = connection.createStatement()) {
      statement.executeQuery("SELECT 1 FROM " + table + " WHERE 1 = 0").close();
      return true;
    } catch (SQLException e) {
      return false;
    }
  }
}
