package dev.outbox4j.jdbc.doctor;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * MariaDB's and MySQL's readings: server variables, the session's value (what the relay's connections run with) beside
 * the global one (what the server gives a new session), so a fix names the place to change.
 */
final class MariaDbChecks implements DialectChecks {

  private static String[] read(Connection connection, String sql) throws SQLException {
    try (Statement statement = connection.createStatement(); ResultSet row = statement.executeQuery(sql)) {
      row.next();
      String[] values = new String[row.getMetaData().getColumnCount()];
      for (int i = 0; i < values.length; i++) {
        values[i] = row.getString(i + 1);
      }
      return values;
    }
  }

  @Override
  public Finding isolation(Connection connection, Examination exam) throws SQLException {
    String[] levels;
    try {
      levels = read(connection, "SELECT @@session.transaction_isolation, @@global.transaction_isolation");
    } catch (SQLException e) {
      levels = read(connection, "SELECT @@session.tx_isolation, @@global.tx_isolation"); // MariaDB before 11.1
    }
    String session = levels[0];
    String shown = "transaction isolation " + session + " (server default " + levels[1] + ")";
    if (session.equals("READ-COMMITTED") || session.equals("REPEATABLE-READ")) {
      return Finding.ok("isolation", shown);
    }
    return Finding.info("isolation", shown + ": handled by the store, which sets the isolation of each claim itself"
        + " (a completion is one statement, right at any level); the application's writers run at " + session,
        session.equals(levels[1]) ? "SET GLOBAL transaction_isolation = 'REPEATABLE-READ' (and in the server's"
            + " configuration file)" : "the connection pool's or the JDBC URL's isolation setting");
  }

  @Override
  public List<Finding> durability(Connection connection) throws SQLException {
    List<Finding> findings = new ArrayList<>();
    String[] flush = read(connection, "SELECT @@global.innodb_flush_log_at_trx_commit");
    if (flush[0].equals("1")) {
      findings.add(Finding.ok("commit-durability", "innodb_flush_log_at_trx_commit = 1"));
    } else {
      findings.add(Finding.unsafe("commit-durability", "innodb_flush_log_at_trx_commit = " + flush[0] + ": a"
          + " committed claim can be lost in a crash of " + (flush[0].equals("2") ? "the database's host" : "the"
          + " database") + ", and two relays may then send an entry twice, out of order; it is a server-wide"
          + " setting no session can override", "SET GLOBAL innodb_flush_log_at_trx_commit = 1 (and in the"
          + " server's configuration file)"));
    }
    String[] binlog = read(connection, "SELECT @@global.log_bin, @@global.sync_binlog");
    boolean logging = binlog[0].equals("1") || binlog[0].equalsIgnoreCase("ON");
    if (logging && !binlog[1].equals("1")) {
      findings.add(Finding.info("commit-durability", "binary log on with sync_binlog = " + binlog[1] + ": after a"
          + " crash the binary log can lack committed transactions, so a replica promoted then may lack claims the"
          + " relays acted on (unsafe only where replicas are promoted)", "SET GLOBAL sync_binlog = 1 (and in the"
          + " server's configuration file)"));
    } else {
      findings.add(Finding.ok("commit-durability", logging ? "sync_binlog = 1" : "binary log off"));
    }
    return findings;
  }

  @Override
  public Finding sequenceCache(Connection connection, Examination exam) {
    return Finding.ok("sequence-cache", "the outbox is numbered by AUTO_INCREMENT, which has no per-session cache");
  }

  @Override
  public Finding idleTimeout(Connection connection, Examination exam) throws SQLException {
    String[] timeouts;
    try {
      timeouts = read(connection, "SELECT @@session.idle_transaction_timeout,"
          + " @@session.idle_write_transaction_timeout");
    } catch (SQLException e) {
      return Finding.ok("idle-timeout", "the server has no idle-transaction timeout"); // MySQL
    }
    long shortest = 0;
    for (String value : timeouts) {
      long seconds = new BigDecimal(value).longValue();
      if (seconds > 0 && (shortest == 0 || seconds < shortest)) {
        shortest = seconds;
      }
    }
    return IdleTimeouts.judge("idle_transaction_timeout = " + timeouts[0] + " s, idle_write_transaction_timeout = "
        + timeouts[1] + " s", Duration.ofSeconds(shortest), exam.lease(), "SET GLOBAL idle_transaction_timeout = "
        + IdleTimeouts.wanted(exam.lease()).toSeconds() + " (and idle_write_transaction_timeout; or the pool's"
        + " session variables)");
  }

  @Override
  public String sessionIdQuery() {
    return "SELECT CONNECTION_ID()";
  }

  @Override
  public OptionalInt serverPort(Connection connection) throws SQLException {
    return OptionalInt.of(Integer.parseInt(read(connection, "SELECT @@port")[0]));
  }

  @Override
  public int defaultPort() {
    return 3306;
  }

  @Override
  public Optional<Finding> throughTransactionPooler(Connection connection, Examination exam) {
    return Optional.empty(); // the driver prepares on the client unless told otherwise
  }

  @Override
  public Instant now(Connection connection) throws SQLException {
    BigDecimal seconds = new BigDecimal(read(connection, "SELECT UNIX_TIMESTAMP(SYSDATE(6))")[0]);
    return Instant.ofEpochSecond(0, seconds.movePointRight(9).longValueExact());
  }
}
