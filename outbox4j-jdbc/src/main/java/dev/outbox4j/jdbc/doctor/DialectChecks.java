package dev.outbox4j.jdbc.doctor;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/** The checks and readings that differ per database; one class per database, as the store's dialects are. */
interface DialectChecks {
  /** @return the session's isolation as the relay's connections get it, and where it comes from */
  Finding isolation(Connection connection, Examination exam) throws SQLException;

  /** @return what a commit survives: a crash of the database process, of its host */
  List<Finding> durability(Connection connection) throws SQLException;

  /** @return whether the sequence that numbers the outbox hands its numbers out in order */
  Finding sequenceCache(Connection connection, Examination exam) throws SQLException;

  /** @return the idle-in-transaction timeout against the lease */
  Finding idleTimeout(Connection connection, Examination exam) throws SQLException;

  /** @return a query answering one row and column: the id of the server session that runs it */
  String sessionIdQuery();

  /** @return the port the database server itself listens on, when it says */
  OptionalInt serverPort(Connection connection) throws SQLException;

  /** @return the port a URL of this database names when it names none */
  int defaultPort();

  /**
   * @param connection a connection through a transaction pooler
   * @param exam what is examined (whether the store lets the driver prepare its statements)
   * @return what the driver's settings break through it, when anything
   */
  Optional<Finding> throughTransactionPooler(Connection connection, Examination exam) throws SQLException;

  /** @return the database server's clock, read now */
  Instant now(Connection connection) throws SQLException;

  /**
   * @param connection where to ask
   * @param sql a query answering one timestamp with its time zone
   * @return that instant
   */
  static Instant timestamp(Connection connection, String sql) throws SQLException {
    try (Statement statement = connection.createStatement(); ResultSet row = statement.executeQuery(sql)) {
      row.next();
      return row.getObject(1, OffsetDateTime.class).toInstant();
    }
  }
}
