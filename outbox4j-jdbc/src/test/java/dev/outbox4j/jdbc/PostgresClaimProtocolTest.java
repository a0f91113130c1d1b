package dev.outbox4j.jdbc;

/** The claim-protocol property on PostgreSQL with its default claim, {@link ClaimStrategy#LEASED_BATCHES}. */
class PostgresClaimProtocolTest extends JdbcClaimProtocolProperty {
  PostgresClaimProtocolTest() {
    super(TestDatabase.POSTGRES, "pgprop_", null);
  }
}
