package dev.outbox4j.jdbc.doctor;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalInt;

/** H2's readings: the session's isolation, and whether the database lives in memory only. */
final class H2Checks implements DialectChecks {

  @Override
  public Finding isolation(Connection connection, Examination exam) throws SQLException {
    int level = connection.getTransactionIsolation();
    String name = switch (level) {
      case Connection.TRANSACTION_READ_UNCOMMITTED -> "READ UNCOMMITTED";
      case Connection.TRANSACTION_READ_COMMITTED -> "READ COMMITTED";
      case Connection.TRANSACTION_REPEATABLE_READ -> "REPEATABLE READ";
      case Connection.TRANSACTION_SERIALIZABLE -> "SERIALIZABLE";
      default -> "level " + level;
    };
    if (level == Connection.TRANSACTION_READ_COMMITTED) {
      return Finding.ok("isolation", "transaction isolation " + name);
    }
    return Finding.info("isolation", "transaction isolation " + name + ": handled by the store, which sets the"
        + " isolation of each claim itself (a completion is one statement, right at any level)", "the connection pool's or the JDBC URL's isolation setting"
        + " (H2's default is READ COMMITTED)");
  }

  @Override
  public List<Finding> durability(Connection connection) throws SQLException {
    String url = connection.getMetaData().getURL().toLowerCase(Locale.ROOT);
    if (url.startsWith("jdbc:h2:mem:")) {
      return List.of(Finding.info("commit-durability", "an in-memory H2 database: every entry is lost when the"
          + " process that holds it ends", "a file database (jdbc:h2:file:...) or a database server"));
    }
    return List.of(Finding.ok("commit-durability", "an H2 file database"));
  }

  @Override
  public Finding sequenceCache(Connection connection, Examination exam) {
    return Finding.ok("sequence-cache", "H2 numbers each key's entries under the key's lock (trigger)");
  }

  @Override
  public Finding idleTimeout(Connection connection, Examination exam) {
    return Finding.ok("idle-timeout", "H2 has no idle-transaction timeout");
  }

  @Override
  public String sessionIdQuery() {
    return "SELECT SESSION_ID()";
  }

  @Override
  public OptionalInt serverPort(Connection connection) {
    return OptionalInt.empty();
  }

  @Override
  public int defaultPort() {
    return 9092;
  }

  @Override
  public Optional<Finding> throughTransactionPooler(Connection connection, Examination exam) {
    return Optional.empty();
  }

  @Override
  public Instant now(Connection connection) throws SQLException {
    return DialectChecks.timestamp(connection, "SELECT CURRENT_TIMESTAMP(6)");
  }
}
