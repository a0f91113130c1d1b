package dev.outbox4j.jdbc;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * MariaDB 10.6+ and MySQL 8: instants as {@code DATETIME(6)} holding UTC wall-clock time, bound as a
 * {@link LocalDateTime} in UTC (never {@code TIMESTAMP}, whose values the server shifts by the session
 * {@code time_zone} and which ends in 2038); UUIDs as {@code CHAR(36)} text, which every language can write; no
 * RETURNING on UPDATE in either database, so claims and completions take a locking SELECT plus an UPDATE in one
 * transaction.
 *
 * <p>Stateless and thread-safe; use {@link #INSTANCE}.
 */
public final class MariaDbDialect implements JdbcDialect {
  /** The one instance. */
  public static final MariaDbDialect INSTANCE = new MariaDbDialect();

  private MariaDbDialect() {}

  @Override
  public String name() {
    return "mariadb";
  }

  @Override
  public void setInstant(PreparedStatement statement, int index, @Nullable Instant value) throws SQLException {
    if (value == null) {
      statement.setNull(index, Types.TIMESTAMP);
    } else {
      statement.setObject(index, LocalDateTime.ofInstant(JdbcDialect.storable(value), ZoneOffset.UTC));
    }
  }

  @Override
  public @Nullable Instant getInstant(ResultSet row, int column) throws SQLException {
    LocalDateTime value = row.getObject(column, LocalDateTime.class);
    return value == null ? null : value.toInstant(ZoneOffset.UTC);
  }

  @Override
  public void setUuid(PreparedStatement statement, int index, @Nullable UUID value) throws SQLException {
    if (value == null) {
      statement.setNull(index, Types.CHAR);
    } else {
      statement.setString(index, value.toString());
    }
  }

  @Override
  public @Nullable UUID getUuid(ResultSet row, int column) throws SQLException {
    String value = row.getString(column);
    return value == null ? null : UUID.fromString(value);
  }

  @Override
  public boolean isUniqueViolation(SQLException failure) {
    return failure.getErrorCode() == 1062 || failure.getErrorCode() == 1586;
  }

  @Override
  public boolean supportsReturning() {
    return false;
  }

  /** Names the primary key: with a small row estimate both servers would otherwise scan, locking every row. */
  @Override
  public String byPrimaryKey(String tableAndAlias) {
    return tableAndAlias + " FORCE INDEX (PRIMARY)";
  }

  /** The multi-table form, the only DELETE of MariaDB that takes an index hint. */
  @Override
  public String deleteByPrimaryKey(String table) {
    return "DELETE " + table + " FROM " + table + " FORCE INDEX (PRIMARY)";
  }

  @Override
  public String deleteLimited(String table, String where, String orderBy) {
    return "DELETE FROM " + table + " WHERE " + where + " ORDER BY " + orderBy + " LIMIT ?";
  }

  /**
   * The window walks the primary key ({@code seq}) in order; the head check is one probe of
   * {@code (head_key, key_seq)}, where {@code head_key} is the ordering key of undelivered rows only.
   */
  @Override
  public String claimWindow(TableNames names) {
    return ClaimSql.window(names.qualified("outbox"), "", "h.head_key = c.ordering_key");
  }

  /**
   * Heads by a loose index scan ("Using index for group-by": {@code MIN(key_seq) ... GROUP BY head_key} jumps from
   * key to key in {@code (head_key, key_seq)}), then one probe per head. Unkeyed entries from
   * {@code (unkeyed_waiting, seq)}.
   */
  @Override
  public String claimHeadsAndUnkeyed(TableNames names) {
    String table = names.qualified("outbox");
    return ClaimSql.headsAndUnkeyed(table, "", heads(table), "u.unkeyed_waiting = 1");
  }

  private static String heads(String table) {
    return "(SELECT h.seq, h.destination, h.status, h.available_at, h.lease_until FROM (SELECT g.head_key,"
        + " MIN(g.key_seq) AS key_seq FROM " + table + " g WHERE g.head_key IS NOT NULL GROUP BY g.head_key) a"
        + " JOIN " + table + " h ON h.head_key = a.head_key AND h.key_seq = a.key_seq) heads";
  }

  /**
   * A loose index scan ("Using index for group-by") of {@code (unkeyed_waiting, destination, seq)} (migration V13):
   * one jump per destination.
   */
  @Override
  public String claimUnkeyedDestinations(TableNames names) {
    return "SELECT u.destination FROM " + names.qualified("outbox") + " u FORCE INDEX ("
        + names.unqualified("ix_outbox_unkeyed_destination") + ") WHERE u.unkeyed_waiting = 1"
        + " GROUP BY u.destination LIMIT ?";
  }

  /** Heads as {@link #claimHeadsAndUnkeyed}; each destination's unkeyed lane from the index of migration V13. */
  @Override
  public String claimHeadsAndLanes(TableNames names, int skipped, int lanes) {
    String table = names.qualified("outbox");
    return ClaimSql.headsAndLanes("", heads(table), table + " u FORCE INDEX ("
        + names.unqualified("ix_outbox_unkeyed_destination") + ")", "u.unkeyed_waiting = 1", skipped, lanes);
  }

  @Override
  public String toString() {
    return "MariaDbDialect";
  }
}
