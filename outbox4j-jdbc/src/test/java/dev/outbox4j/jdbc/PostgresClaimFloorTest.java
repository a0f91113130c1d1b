package dev.outbox4j.jdbc;

import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

/** The claim floor on PostgreSQL: samples from the sequence and {@code pg_locks}. */
class PostgresClaimFloorTest extends ClaimFloorTests {
  @Override
  TestDatabase database() {
    return TestDatabase.POSTGRES;
  }

  @Override
  String prefix() {
    return "pgfloor_";
  }

  @Override
  Duration pause() {
    return Duration.ofMillis(30);
  }

  @Override
  void numberFromOne(Statement statement) throws SQLException {
    statement.execute("SELECT setval(pg_get_serial_sequence('" + prefix() + "outbox', 'seq'), 1, false)");
  }
}
