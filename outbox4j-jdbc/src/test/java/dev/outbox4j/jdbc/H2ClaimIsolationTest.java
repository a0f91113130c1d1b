package dev.outbox4j.jdbc;

/** {@link SessionIsolationTests} on H2; its claim's marker is its locking read. */
class H2ClaimIsolationTest extends SessionIsolationTests {
  @Override
  TestDatabase database() {
    return TestDatabase.H2;
  }

  @Override
  String prefix() {
    return "h2_claim_isolation_";
  }

  @Override
  String claimMarker() {
    return "FOR UPDATE SKIP LOCKED";
  }

  @Override
  String probe() {
    return SessionProbe.JDBC_ISOLATION;
  }

  @Override
  String expectedInClaim() {
    return "READ COMMITTED";
  }
}
