package dev.outbox4j.jdbc;

/** The claim-protocol property on H2. */
class H2ClaimProtocolTest extends JdbcClaimProtocolProperty {
  H2ClaimProtocolTest() {
    super(TestDatabase.H2, "h2prop_", null);
  }
}
