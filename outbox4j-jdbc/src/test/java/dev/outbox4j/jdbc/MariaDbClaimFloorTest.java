package dev.outbox4j.jdbc;

import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * The claim floor on MariaDB: samples from the table's {@code AUTO_INCREMENT} as read a while before
 * ({@link ClaimFloor.MariaDbSource}), shortened here to a second.
 */
class MariaDbClaimFloorTest extends ClaimFloorTests {
  private static final Duration SETTLE = Duration.ofSeconds(1);

  @BeforeEach
  void settleFast() {
    ClaimFace.mariaDbSettleNanos = SETTLE.toNanos();
  }

  @AfterEach
  void settleAsBuilt() {
    ClaimFace.mariaDbSettleNanos = ClaimFloor.MariaDbSource.SETTLE_NANOS;
  }

  @Override
  TestDatabase database() {
    return TestDatabase.MARIADB;
  }

  @Override
  String prefix() {
    return "mdfloor_";
  }

  @Override
  Duration pause() {
    return SETTLE.plusMillis(100);
  }

  /** The writer stays open for seconds: it commits well within the settling time, as the floor needs. */
  @Override
  void writerStaysOpen() {
    ClaimFace.mariaDbSettleNanos = TimeUnit.SECONDS.toNanos(30);
  }

  @Override
  void numberFromOne(Statement statement) throws SQLException {
    statement.execute("ALTER TABLE " + prefix() + "outbox AUTO_INCREMENT = 1");
  }
}
