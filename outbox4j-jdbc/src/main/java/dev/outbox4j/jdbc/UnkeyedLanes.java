package dev.outbox4j.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.LongSupplier;
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
 * <h2>Why the destinations are remembered for a moment</h2>
 * A busy relay beside a paused destination claims many times a second, and the destinations with waiting unkeyed
 * entries rarely change between two claims; reading them every time was one more round trip per claim, which showed in
 * the other destinations' throughput. So they are read again only after {@link #REFRESH}, or at once after a claim
 * that found less than it could take (there may be a destination it did not read). A destination whose first unkeyed
 * entries arrive while the others fill every claim is read within that second; no entry depends on it for
 * correctness, only for how soon it is claimed.
 *
 * <p>Thread-safe: the remembered destinations are one immutable value, replaced whole.
 */
final class UnkeyedLanes {
  /** The most destinations whose lanes one claim reads. */
  static final int MAX_LANES = 64;
  /** How long the destinations read are used before they are read again (while every claim is full). */
  static final Duration REFRESH = Duration.ofSeconds(1);

  /** The destinations with waiting unkeyed entries as last read, when ({@code System.nanoTime()}), and if complete. */
  private record Known(List<String> destinations, long readAt, boolean complete) {}

  private final JdbcDialect dialect;
  private final TableNames names;
  private final LongSupplier nanoTime;
  private volatile @Nullable Known known;

  UnkeyedLanes(JdbcDialect dialect, TableNames names, LongSupplier nanoTime) {
    this.dialect = dialect;
    this.names = names;
    this.nanoTime = nanoTime;
  }

  /**
   * @param skipped the destinations left out; not empty
   * @return the seqs of up to {@code max} claimable key heads and unkeyed entries of destinations not in
   *     {@code skipped}, ascending; or {@code null} when lanes cannot be used (no such index in this dialect, or more
   *     than {@link #MAX_LANES} destinations)
   */
  @Nullable List<Long> read(Connection connection, int max, Instant now, Set<String> skipped) throws SQLException {
    Known destinations = destinations(connection, skipped.size());
    if (destinations == null) {
      return null;
    }
    List<String> lanes = new ArrayList<>();
    for (String destination : destinations.destinations()) {
      if (!skipped.contains(destination)) {
        lanes.add(destination);
      }
    }
    if (lanes.size() > MAX_LANES || !destinations.complete()) {
      known = null;
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
    if (found.size() < max) {
      known = null; // room left: the next claim reads the destinations again, in case one was missing
    }
    return found;
  }

  /** @return the destinations with waiting unkeyed entries, remembered or read now; {@code null} without the index */
  private @Nullable Known destinations(Connection connection, int skipped) throws SQLException {
    Known remembered = known;
    long now = nanoTime.getAsLong();
    if (remembered != null && now - remembered.readAt() < REFRESH.toNanos()) {
      return remembered;
    }
    String sql = dialect.claimUnkeyedDestinations(names);
    if (sql == null) {
      return null;
    }
    List<String> read = new ArrayList<>();
    int most = MAX_LANES + skipped + 1;
    try (PreparedStatement statement = connection.prepareStatement(sql)) {
      statement.setInt(1, most);
      try (ResultSet rows = statement.executeQuery()) {
        while (rows.next()) {
          read.add(rows.getString(1));
        }
      }
    }
    Known fresh = new Known(List.copyOf(read), now, read.size() < most);
    known = fresh;
    return fresh;
  }
}
