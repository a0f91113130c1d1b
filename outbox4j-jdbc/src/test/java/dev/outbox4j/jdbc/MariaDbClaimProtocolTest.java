package dev.outbox4j.jdbc;

/** The claim-protocol property on MariaDB. */
class MariaDbClaimProtocolTest extends JdbcClaimProtocolProperty {
  MariaDbClaimProtocolTest() {
    super(TestDatabase.MARIADB, "myprop_", null);
  }
}
