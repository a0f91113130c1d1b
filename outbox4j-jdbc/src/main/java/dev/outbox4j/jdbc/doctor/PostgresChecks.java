package dev.outbox4j.jdbc.doctor;

import dev.outbox4j.jdbc.TableNames;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import org.jspecify.annotations.Nullable;

/**
 * PostgreSQL's readings. Settings are read from {@code pg_settings}, whose {@code source} says where a value comes
 * from ({@code database}, {@code user}, {@code configuration file}, {@code session} for a pool's own setting), so a
 * fix names the place to change.
 */
final class PostgresChecks implements DialectChecks {

  /** A setting's value and where it was set. */
  private record Setting(String value, String source) {}

  private static Setting setting(Connection connection, String name) throws SQLException {
    try (PreparedStatement read = connection.prepareStatement(
        "SELECT setting, source FROM pg_settings WHERE name = ?")) {
      read.setString(1, name);
      try (ResultSet row = read.executeQuery()) {
        if (!row.next()) {
          throw new SQLException("the server has no setting " + name);
        }
        return new Setting(row.getString(1), row.getString(2));
      }
    }
  }

  private static String single(Connection connection, String sql) throws SQLException {
    try (Statement statement = connection.createStatement(); ResultSet row = statement.executeQuery(sql)) {
      row.next();
      return row.getString(1);
    }
  }

  /** Where to change a setting, given where it was set. */
  private static String where(Connection connection, String name, Setting setting, String wanted)
      throws SQLException {
    return switch (setting.source()) {
      case "database" -> "ALTER DATABASE " + single(connection, "SELECT quote_ident(current_database())") + " SET "
          + name + " = " + wanted;
      case "user" -> "ALTER ROLE " + single(connection, "SELECT quote_ident(current_user)") + " SET " + name + " = "
          + wanted;
      case "session", "client" -> "the connection pool's or the JDBC URL's setting for it (" + name + " = "
          + setting.value() + " is set by the client)";
      default -> name + " = " + wanted + " in postgresql.conf (or ALTER SYSTEM), then reload";
    };
  }

  @Override
  public Finding isolation(Connection connection, Examination exam) throws SQLException {
    Setting isolation = setting(connection, "default_transaction_isolation");
    String shown = "default_transaction_isolation = '" + isolation.value() + "' (from " + isolation.source() + ")";
    if (isolation.value().equals("read committed")) {
      return Finding.ok("isolation", shown);
    }
    String handled = shown + ": handled by the store, which runs each claim at READ COMMITTED itself (a completion is"
        + " one statement, right at any level); the application's writers run at '" + isolation.value() + "'";
    String fix = where(connection, "default_transaction_isolation", isolation, "'read committed'");
    if (!isolation.value().equals("serializable")) {
      return Finding.info("isolation", handled, fix);
    }
    if (keysNumberedAtInsert(connection, exam.names())) {
      return Finding.info("isolation", handled + " and must retry a commit refused with SQLSTATE 40001; keys are"
          + " numbered at insert, which adds no such refusal but the first write of a new key's", fix);
    }
    return Finding.slow("isolation", handled + " and must retry a commit refused with SQLSTATE 40001; keys are"
        + " numbered at commit, whose write-back has PostgreSQL refuse many keyed writers' commits (40-80 % under"
        + " contention, docs/schema.md \"Writers under SERIALIZABLE\")", "database.key-numbering: insert (the"
        + " starter's outbox4j.key-numbering=at-insert, JdbcOutboxStore.useKeyNumbering(KeyNumbering.AT_INSERT)), or "
        + fix);
  }

  /** @return whether the outbox's key numbering trigger runs before the insert (not the schema's default) */
  private static boolean keysNumberedAtInsert(Connection connection, TableNames names) throws SQLException {
    try (PreparedStatement read = connection.prepareStatement("SELECT tgtype & 2 FROM pg_trigger WHERE tgrelid ="
        + " to_regclass(?) AND tgname = ? AND NOT tgisinternal")) {
      read.setString(1, names.qualified("outbox"));
      read.setString(2, names.unqualified("tg_outbox_key_seq").toLowerCase(java.util.Locale.ROOT));
      try (ResultSet row = read.executeQuery()) {
        return row.next() && row.getInt(1) != 0;
      }
    }
  }

  @Override
  public List<Finding> durability(Connection connection) throws SQLException {
    List<Finding> findings = new ArrayList<>();
    Setting synchronous = setting(connection, "synchronous_commit");
    String shown = "synchronous_commit = " + synchronous.value() + " (from " + synchronous.source() + ")";
    if (synchronous.value().equals("off")) {
      findings.add(Finding.info("commit-durability", shown + ": handled by the store, which commits its claims with"
          + " synchronous_commit = on itself; a writer's commit lost in a crash takes its message with it, never one"
          + " without the other", where(connection, "synchronous_commit", synchronous, "on")));
    } else {
      findings.add(Finding.ok("commit-durability", shown));
    }
    for (String name : List.of("fsync", "full_page_writes")) {
      Setting flush = setting(connection, name);
      if (flush.value().equals("off")) {
        findings.add(Finding.unsafe("commit-durability", name + " = off (from " + flush.source() + "): a crash of"
            + " the database's host can lose or corrupt committed transactions, the relay's claims among them (two"
            + " relays may then send an entry twice, out of order); no session setting makes up for it",
            name + " = on in postgresql.conf (or ALTER SYSTEM), then reload"));
      } else {
        findings.add(Finding.ok("commit-durability", name + " = on"));
      }
    }
    return findings;
  }

  @Override
  public Finding sequenceCache(Connection connection, Examination exam) throws SQLException {
    String table = exam.names().qualified("outbox");
    try (PreparedStatement read = connection.prepareStatement("SELECT s.seqname, q.seqcache FROM"
        + " (SELECT pg_get_serial_sequence(?, 'seq') AS seqname) s"
        + " LEFT JOIN pg_sequence q ON q.seqrelid = s.seqname::regclass")) {
      read.setString(1, table);
      try (ResultSet row = read.executeQuery()) {
        row.next();
        String name = row.getString(1);
        long cache = row.getLong(2);
        if (name == null) {
          return Finding.unsafe("sequence-cache", "the column seq of " + table + " is not numbered by a sequence it"
              + " owns", "apply the outbox migrations (outbox4j-relay migrate, or V1__outbox.sql)");
        }
        if (cache > 1) {
          return Finding.unsafe("sequence-cache", "the outbox sequence " + name + " has CACHE " + cache + ": each"
              + " session numbers from its own range, so a key's entries are not numbered in commit order; the"
              + " leased-batch claim refuses to run on it", "ALTER SEQUENCE " + name + " CACHE 1");
        }
        return Finding.ok("sequence-cache", "the outbox sequence " + name + " has CACHE 1");
      }
    }
  }

  @Override
  public Finding idleTimeout(Connection connection, Examination exam) throws SQLException {
    Setting timeout = setting(connection, "idle_in_transaction_session_timeout");
    Duration value = Duration.ofMillis(Long.parseLong(timeout.value()));
    return IdleTimeouts.judge("idle_in_transaction_session_timeout = " + value.toMillis() + " ms (from "
        + timeout.source() + ")", value, exam.lease(),
        where(connection, "idle_in_transaction_session_timeout", timeout, "'" + IdleTimeouts.wanted(exam.lease())
            .toSeconds() + "s'"));
  }

  @Override
  public String sessionIdQuery() {
    return "SELECT pg_backend_pid()";
  }

  @Override
  public OptionalInt serverPort(Connection connection) throws SQLException {
    String port = single(connection, "SELECT inet_server_port()");
    return port == null ? OptionalInt.empty() : OptionalInt.of(Integer.parseInt(port));
  }

  @Override
  public int defaultPort() {
    return 5432;
  }

  @Override
  public Optional<Finding> throughTransactionPooler(Connection connection, Examination exam) throws SQLException {
    int threshold = prepareThreshold(connection);
    if (threshold <= 0) {
      return Optional.empty();
    }
    if (exam.preparedStatements()) {
      return Optional.of(Finding.unsafe("pooler", "the store lets the driver prepare its statements on the server"
          + " (prepared statements on) and the driver does so after " + threshold + " uses (prepareThreshold="
          + threshold + "): through a transaction pooler without prepared-statement support, a claim or completion"
          + " names a statement the next server connection does not have, or has as another client's ('prepared"
          + " statement \"S_3\" does not exist'), and fails", "turn prepared statements off (relay:"
          + " database.prepared-statements: false, the default; JdbcOutboxStore.Builder.withPreparedStatements(false))"
          + ", or prepareThreshold=0 in the JDBC URL; safe only through PgBouncer 1.21+ with max_prepared_statements"
          + " > 0, which this check cannot tell apart"));
    }
    // INFO: the store itself sends every statement unnamed on the connections it borrows, whatever the threshold
    return Optional.of(Finding.info("pooler", "the driver prepares a statement on the server after " + threshold
        + " uses (prepareThreshold=" + threshold + "); the outbox's own statements are sent unnamed whatever this"
        + " says, but the application's other statements on this pool would be bound to another client's of the"
        + " same name through a transaction pooler without prepared-statement support ('prepared statement \"S_3\""
        + " does not exist')", "prepareThreshold=0 in the JDBC URL (relay: database.properties.prepareThreshold: 0)"
        + " for pools the application shares, or PgBouncer 1.21+ with max_prepared_statements > 0"));
  }

  private static int prepareThreshold(Connection connection) throws SQLException {
    @Nullable Class<?> type;
    try {
      type = Class.forName("org.postgresql.PGConnection");
    } catch (ClassNotFoundException e) {
      return 0;
    }
    if (!connection.isWrapperFor(type)) {
      return 0;
    }
    return ((org.postgresql.PGConnection) connection.unwrap(type)).getPrepareThreshold();
  }

  @Override
  public Instant now(Connection connection) throws SQLException {
    return DialectChecks.timestamp(connection, "SELECT clock_timestamp()");
  }
}
