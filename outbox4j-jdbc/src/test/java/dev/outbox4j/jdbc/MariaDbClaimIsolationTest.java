package dev.outbox4j.jdbc;

/** {@link SessionIsolationTests} on MariaDB; its claim's marker is its locking read. */
class MariaDbClaimIsolationTest extends SessionIsolationTests {
  @Override
  TestDatabase database() {
    return TestDatabase.MARIADB;
  }

  @Override
  String prefix() {
    return "maria_claim_isolation_";
  }

  @Override
  String claimMarker() {
    return "FOR UPDATE SKIP LOCKED";
  }

  @Override
  String probe() {
    return "SELECT @@session.tx_isolation";
  }

  @Override
  String expectedInClaim() {
    return "READ-COMMITTED";
  }
}
