package dev.outbox4j.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import dev.outbox4j.jdbc.testing.RunDatabases;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@link ClaimIsolationTests} on PostgreSQL, both claim strategies, with this JVM's database defaulting to each
 * isolation level ({@code ALTER DATABASE ... SET default_transaction_isolation}) and to {@code synchronous_commit = off}.
 */
class PostgresClaimIsolationTest extends ClaimIsolationTests {
  @Override
  TestDatabase database() {
    return TestDatabase.POSTGRES;
  }

  @Override
  String prefix() {
    return "pg_claim_isolation_";
  }

  @Override
  HikariDataSource relayPool(int isolation) {
    return database().newPool(prefix(), 3);
  }

  @Override
  String claimMarker() {
    return "pg_try_advisory_xact_lock";
  }

  @Override
  String probe() {
    return "SELECT current_setting('transaction_isolation') || ', synchronous_commit ' "
        + "|| current_setting('synchronous_commit')";
  }

  @Override
  String expectedInClaim() {
    return "read committed, synchronous_commit on";
  }

  @ParameterizedTest(name = "database default {0}, synchronous_commit off, {1}")
  @CsvSource({"read uncommitted, LEASED_BATCHES", "read committed, LEASED_BATCHES", "repeatable read, LEASED_BATCHES",
      "serializable, LEASED_BATCHES", "read uncommitted, LEASED_ROWS", "read committed, LEASED_ROWS",
      "repeatable read, LEASED_ROWS", "serializable, LEASED_ROWS"})
  void relays_drain_safely_whatever_the_databases_default_isolation_and_commit_durability(String level,
      ClaimStrategy strategy) throws Exception {
    database().pool(prefix()); // created and migrated under the server's defaults
    alterDatabase("SET default_transaction_isolation = '" + level + "'");
    alterDatabase("SET synchronous_commit = off");
    try {
      relays_drain_keyed_entries_safely_and_every_claim_runs_at_read_committed(Connection.TRANSACTION_NONE, strategy);
    } finally {
      alterDatabase("RESET default_transaction_isolation");
      alterDatabase("RESET synchronous_commit");
    }
  }

  /** @return Hikari's name of a JDBC isolation constant */
  static String jdbcName(int isolation) {
    return switch (isolation) {
      case Connection.TRANSACTION_READ_UNCOMMITTED -> "TRANSACTION_READ_UNCOMMITTED";
      case Connection.TRANSACTION_READ_COMMITTED -> "TRANSACTION_READ_COMMITTED";
      case Connection.TRANSACTION_REPEATABLE_READ -> "TRANSACTION_REPEATABLE_READ";
      case Connection.TRANSACTION_SERIALIZABLE -> "TRANSACTION_SERIALIZABLE";
      default -> throw new IllegalArgumentException("isolation " + isolation);
    };
  }

  private void alterDatabase(String setting) throws SQLException {
    try (Connection c = database().pool(prefix()).getConnection(); Statement s = c.createStatement()) {
      s.execute("ALTER DATABASE " + RunDatabases.name() + " " + setting);
    }
  }
}
