package dev.outbox4j.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The heads-and-unkeyed read of a claim that leaves some destinations out (the relay's paused ones): every other
 * destination's unkeyed entries from a lane of its own.
 *
 * <h2>Why lanes by destination</h2>
 * A paused destination's entries are not claimed, so they stay waiting: a backlog of 200,000 of them sits at the start
 * of the unkeyed entries in {@code seq} order. A claim reading that one lane, filtering them out, would read all of them
 * on every claim, and the other destinations would starve behind it. So when destinations are left out, the unkeyed
 * entries are read per destination from an index on the destination and {@code seq} (migration V13): first the
 * destinations with waiting unkeyed entries (one index descent each), then for each one not left out its oldest
 * claimable entries, merged in {@code seq} order. A left-out destination's entries are never read; the claim's cost is
 * the number of destinations and the batch, never a backlog. A key whose head goes to a left-out destination is
 * blocked as always (its head is not claimable); the heads are read as without lanes (one descent per key).
 *
 * <p>With more than {@link #MAX_LANES} destinations the statement would grow past reason: the claim then reads the
 * unkeyed entries in {@code seq} order as without lanes, and the relay holds back what it should not send.
 *
 * <p>Stateless and thread-safe.
 */
final class UnkeyedLanes {
  /** The most destinations whose lanes one claim reads. */
  static final int MAX_LANES = 64;

  private final JdbcDialect dialect;
  private final TableNames names;

  UnkeyedLanes(JdbcDialect dialect, TableNames names) {
    this.dialect = dialect;
    this.names = names;
  }

  /**
   * @param skipped the destinations left out; not empty
   * @return the seqs of up to {@code max} claimable key heads and unkeyed entries of destinations not in
   *     {@code skipped}, ascending; or {@code null} when lanes cannot be used (no such index in this dialect, or more
   *     than {@link #MAX_LANES} destinations)
   */
  @Nullable List<Long> read(Connection connection, int max, Instant now, Set<String> skipped) throws SQLException {
    String destinationsSql = dialect.claimUnkeyedDestinations(names);
    if (destinationsSql == null) {
      return null;
    }
    List<String> lanes = new ArrayList<>();
    int destinations = 0;
    try (PreparedStatement read = connection.prepareStatement(destinationsSql)) {
      read.setInt(1, MAX_LANES + skipped.size() + 1);
      try (ResultSet rows = read.executeQuery()) {
        while (rows.next()) {
          destinations++;
          String destination = rows.getString(1);
          if (!skipped.contains(destination)) {
            lanes.add(destination);
          }
        }
      }
    }
    if (lanes.size() > MAX_LANES || destinations > MAX_LANES + skipped.size()) {
      return null;
    }
    List<Long> found = new ArrayList<>();
    try (PreparedStatement heads = connection.prepareStatement(
        dialect.claimHeadsAndLanes(names, skipped.size(), lanes.size()))) {
      int i = 1;
      dialect.setInstant(heads, i++, now);
      dialect.setInstant(heads, i++, now);
      for (String destination : skipped) {
        heads.setString(i++, destination);
      }
      for (String destination : lanes) {
        heads.setString(i++, destination);
        dialect.setInstant(heads, i++, now);
        dialect.setInstant(heads, i++, now);
        heads.setInt(i++, max);
      }
      heads.setInt(i, max);
      try (ResultSet rows = heads.executeQuery()) {
        while (rows.next()) {
          found.add(rows.getLong("seq"));
        }
      }
    }
    return found;
  }
}
