package dev.outbox4j.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link ClaimIsolationTests} on a database without a per-database default isolation (MariaDB/MySQL, H2): each
 * relay's pool sets it on its connections (Hikari's {@code transactionIsolation}, a session-wide level), to each of the
 * four JDBC levels.
 */
abstract class SessionIsolationTests extends ClaimIsolationTests {
  @Override
  final HikariDataSource relayPool(int isolation) {
    return database().newPool(prefix(), 3,
        config -> config.setTransactionIsolation(PostgresClaimIsolationTest.jdbcName(isolation)));
  }

  @ParameterizedTest(name = "relays' sessions at {0}")
  @ValueSource(ints = {Connection.TRANSACTION_READ_UNCOMMITTED, Connection.TRANSACTION_READ_COMMITTED,
      Connection.TRANSACTION_REPEATABLE_READ, Connection.TRANSACTION_SERIALIZABLE})
  final void relays_drain_safely_whatever_the_sessions_isolation(int isolation) throws Exception {
    relays_drain_keyed_entries_safely_and_every_claim_runs_at_read_committed(isolation, null);
  }
}
