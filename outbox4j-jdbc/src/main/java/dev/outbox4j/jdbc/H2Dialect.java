package dev.outbox4j.jdbc;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.OffsetDateTime;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * H2 2.x (the embedded default): {@code TIMESTAMP(6) WITH TIME ZONE} bound as UTC {@link OffsetDateTime}, native
 * {@code UUID}; no RETURNING, so claims and completions take a locking SELECT plus an UPDATE in one transaction.
 *
 * <p>Stateless and thread-safe; use {@link #INSTANCE}.
 */
public final class H2Dialect implements JdbcDialect {
  /** The one instance. */
  public static final H2Dialect INSTANCE = new H2Dialect();

  private H2Dialect() {}

  @Override
  public String name() {
    return "h2";
  }

  @Override
  public void setUuid(PreparedStatement statement, int index, @Nullable UUID value) throws SQLException {
    if (value == null) {
      statement.setNull(index, Types.OTHER);
    } else {
      statement.setObject(index, value);
    }
  }

  @Override
  public @Nullable UUID getUuid(ResultSet row, int column) throws SQLException {
    return row.getObject(column, UUID.class);
  }

  @Override
  public boolean isUniqueViolation(SQLException failure) {
    return "23505".equals(failure.getSQLState());
  }

  @Override
  public boolean supportsReturning() {
    return false;
  }

  @Override
  public String deleteLimited(String table, String where, String orderBy) {
    return "DELETE FROM " + table + " WHERE " + where + " FETCH FIRST ? ROWS ONLY";
  }

  /**
   * The window reads the unique index on {@code seq} in order (named, because H2 would otherwise read every waiting
   * row through {@code (status, seq)} and sort them); the head check is one probe of {@code (head_key, key_seq)}.
   */
  @Override
  public String claimWindow(TableNames names) {
    return ClaimSql.window(names.qualified("outbox"), " USE INDEX (" + names.unqualified("ix_outbox_seq") + ")",
        "h.head_key = c.ordering_key");
  }

  /**
   * Heads by a recursive skip scan over {@code (head_key, key_seq)}: each step seeks the first entry at or after
   * {@code key || CHAR(0)}, the smallest string greater than {@code key} (H2 positions a {@code >} range at the key
   * itself and would read every entry of it), which is the next key's head. Unkeyed entries from
   * {@code (unkeyed_waiting, seq)}.
   */
  @Override
  public String claimHeadsAndUnkeyed(TableNames names) {
    String table = names.qualified("outbox");
    return ClaimSql.headsAndUnkeyed(table, headsWith(table), heads(table), "u.unkeyed_waiting = 1");
  }

  /** @return the heads found by {@link #headsWith}, as the row source {@code heads} */
  private static String heads(String table) {
    return "(SELECT h.seq, h.destination, h.status, h.available_at, h.lease_until FROM active JOIN " + table
        + " h ON h.seq = active.s) heads";
  }

  private static String headsWith(String table) {
    String next = " FROM " + table + " h WHERE h.head_key >= active.k || CHAR(0) ORDER BY h.head_key, h.key_seq LIMIT 1)";
    String with = "WITH RECURSIVE active (k, s) AS ("
        + "SELECT f.head_key, f.seq FROM (SELECT h.head_key, h.seq FROM " + table + " h WHERE h.head_key IS NOT NULL"
        + " ORDER BY h.head_key, h.key_seq LIMIT 1) f"
        + " UNION ALL SELECT (SELECT h.head_key" + next + ", (SELECT h.seq" + next
        + " FROM active WHERE active.k IS NOT NULL) ";
    return with;
  }

  /**
   * A recursive skip scan over {@code (unkeyed_waiting, destination, seq)} (migration V13): each step seeks the first
   * entry at or after {@code destination || CHAR(0)}, as the heads' scan does.
   */
  @Override
  public String claimUnkeyedDestinations(TableNames names) {
    String table = names.qualified("outbox");
    String index = " USE INDEX (" + names.unqualified("ix_outbox_unkeyed_destination") + ")";
    String first = "SELECT u.destination FROM " + table + " u" + index + " WHERE u.unkeyed_waiting = 1";
    return "WITH RECURSIVE d (destination) AS (SELECT f.destination FROM (" + first
        + " ORDER BY u.unkeyed_waiting, u.destination LIMIT 1) f UNION ALL SELECT (" + first
        + " AND u.destination >= d.destination || CHAR(0) ORDER BY u.unkeyed_waiting, u.destination LIMIT 1)"
        + " FROM d WHERE d.destination IS NOT NULL) SELECT d.destination FROM d WHERE d.destination IS NOT NULL"
        + " LIMIT ?";
  }

  /** Heads as {@link #claimHeadsAndUnkeyed}; each destination's unkeyed lane from the index of migration V13. */
  @Override
  public String claimHeadsAndLanes(TableNames names, int skipped, int lanes) {
    String table = names.qualified("outbox");
    return ClaimSql.headsAndLanes(headsWith(table), heads(table), table + " u USE INDEX ("
        + names.unqualified("ix_outbox_unkeyed_destination") + ")", "u.unkeyed_waiting = 1", skipped, lanes);
  }

  @Override
  public String toString() {
    return "H2Dialect";
  }
}
