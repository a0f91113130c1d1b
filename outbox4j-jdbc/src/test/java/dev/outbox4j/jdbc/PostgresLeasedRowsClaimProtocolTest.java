package dev.outbox4j.jdbc;

/** The claim-protocol property on PostgreSQL with {@link ClaimStrategy#LEASED_ROWS}. */
class PostgresLeasedRowsClaimProtocolTest extends JdbcClaimProtocolProperty {
  PostgresLeasedRowsClaimProtocolTest() {
    super(TestDatabase.POSTGRES, "pgrowsprop_", ClaimStrategy.LEASED_ROWS);
  }
}
