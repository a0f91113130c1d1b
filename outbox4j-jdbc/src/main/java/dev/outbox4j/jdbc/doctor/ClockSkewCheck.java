package dev.outbox4j.jdbc.doctor;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;

/**
 * The relay's clock against the database's. Each relay decides with its own clock when a claim expires, so relays
 * whose clocks differ by a good part of the lease take over claims still alive (UNSAFE at half the lease); rows
 * written with the database's clock ({@code DEFAULT CURRENT_TIMESTAMP}) become claimable only once the relay's clock
 * reaches them (SLOW from a second). The database's clock stands in for the other relays': they are judged against it
 * too. Three readings, the one with the shortest round trip kept; the skew counts only beyond half that round trip.
 */
final class ClockSkewCheck {
  /** A skew the check lets pass. */
  static final Duration TOLERATED = Duration.ofSeconds(1);

  private ClockSkewCheck() {}

  static Finding run(Examination exam, DialectChecks dialect) throws SQLException {
    Duration bestTrip = null;
    Duration skew = Duration.ZERO;
    try (Connection connection = exam.dataSource().getConnection()) {
      for (int i = 0; i < 3; i++) {
        Instant before = exam.clock().instant();
        Instant database = dialect.now(connection);
        Instant after = exam.clock().instant();
        Duration trip = Duration.between(before, after);
        if (bestTrip == null || trip.compareTo(bestTrip) < 0) {
          bestTrip = trip;
          skew = Duration.between(before.plus(trip.dividedBy(2)), database);
        }
      }
    }
    Duration beyond = skew.abs().minus(bestTrip.dividedBy(2));
    String shown = "the database's clock is " + skew.abs().toMillis() + " ms " + (skew.isNegative() ? "behind"
        : "ahead of") + " the relay's (round trip " + bestTrip.toMillis() + " ms)";
    String fix = "synchronise the relay's and the database's hosts with NTP (chrony, systemd-timesyncd)";
    if (beyond.compareTo(exam.lease().dividedBy(2)) >= 0) {
      return Finding.unsafe("clock-skew", shown + ": at half the lease (" + exam.lease().toMillis() + " ms) or more,"
          + " relays whose clocks differ like this take over claims that are still alive, and an entry is sent"
          + " twice, out of order", fix);
    }
    if (beyond.compareTo(TOLERATED) > 0) {
      return Finding.slow("clock-skew", shown + ": rows stamped by the database become claimable only when the"
          + " relay's clock reaches their time", fix);
    }
    return Finding.ok("clock-skew", shown);
  }
}
