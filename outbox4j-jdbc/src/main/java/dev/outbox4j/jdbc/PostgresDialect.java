package dev.outbox4j.jdbc;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.OffsetDateTime;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * PostgreSQL 15+: {@code timestamptz} bound as UTC {@link OffsetDateTime} (an absolute instant, immune to the session
 * {@code TimeZone}), native {@code uuid}, {@code RETURNING} on UPDATE and DELETE (one-statement claims and
 * completions), {@code pg_notify} for the LISTEN/NOTIFY wake-up.
 *
 * <p>Stateless and thread-safe; use {@link #INSTANCE}.
 */
public final class PostgresDialect implements JdbcDialect {
  /** The one instance. */
  public static final PostgresDialect INSTANCE = new PostgresDialect();

  /**
   * {@code h} is an undelivered entry of {@code c}'s key: answered from the partial index on
   * {@code (ordering_key, key_seq)}.
   */
  static final String UNDELIVERED_OF_KEY = "h.ordering_key = c.ordering_key AND h.status <> 'DELIVERED'";

  /** {@code u} is a waiting unkeyed entry: in the partial indexes of the unkeyed lanes. */
  private static final String UNKEYED_WAITING = "u.status IN ('PENDING', 'FAILED') AND u.ordering_key IS NULL";

  private PostgresDialect() {}

  @Override
  public String name() {
    return "postgresql";
  }

  @Override
  public void setUuid(PreparedStatement statement, int index, @Nullable UUID value) throws SQLException {
    statement.setObject(index, value, Types.OTHER);
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
    return true;
  }

  @Override
  public String deleteLimited(String table, String where, String orderBy) {
    return "DELETE FROM " + table + " WHERE ctid = ANY(ARRAY(SELECT ctid FROM " + table + " WHERE " + where
        + " ORDER BY " + orderBy + " LIMIT ?))";
  }

  @Override
  public String wakeUpStatement() {
    return "SELECT pg_notify(?, '')";
  }

  /** The window; the head check is one probe of the partial index on {@code (ordering_key, key_seq)}. */
  @Override
  public String claimWindow(TableNames names) {
    return ClaimSql.window(names.qualified("outbox"), "", UNDELIVERED_OF_KEY);
  }

  /**
   * Heads by a recursive skip scan: each step descends the partial index on {@code (ordering_key, key_seq)} (only
   * undelivered keyed rows are in it) to the next key, and a LATERAL probe reads that key's first entry. Unkeyed
   * entries come from the partial index {@code ix_outbox_claim_unkeyed}.
   */
  private static String headsWith(TableNames names) {
    String table = names.qualified("outbox");
    String keyed = "h.status <> 'DELIVERED' AND h.ordering_key IS NOT NULL";
    String with = "WITH RECURSIVE active (k) AS ("
        + "(SELECT h.ordering_key FROM " + table + " h WHERE " + keyed + " ORDER BY h.ordering_key LIMIT 1)"
        + " UNION ALL SELECT (SELECT h.ordering_key FROM " + table + " h WHERE " + keyed
        + " AND h.ordering_key > active.k ORDER BY h.ordering_key LIMIT 1) FROM active WHERE active.k IS NOT NULL),"
        + " heads AS (SELECT f.seq, f.destination, f.status, f.available_at, f.lease_until FROM active CROSS JOIN"
        + " LATERAL (SELECT h.seq, h.destination, h.status, h.available_at, h.lease_until FROM " + table + " h"
        + " WHERE h.ordering_key = active.k AND h.status <> 'DELIVERED' ORDER BY h.key_seq LIMIT 1) f) ";
    return with;
  }

  @Override
  public String claimHeadsAndUnkeyed(TableNames names) {
    return ClaimSql.headsAndUnkeyed(names.qualified("outbox"), headsWith(names), "heads", UNKEYED_WAITING);
  }

  /**
   * A recursive skip scan of the partial index on {@code (destination, seq)} of waiting unkeyed entries (migration
   * V13): each step descends to the next destination.
   */
  @Override
  public String claimUnkeyedDestinations(TableNames names) {
    String table = names.qualified("outbox");
    String lane = " FROM " + table + " u WHERE " + UNKEYED_WAITING;
    return "WITH RECURSIVE d (destination) AS ((SELECT u.destination" + lane + " ORDER BY u.destination LIMIT 1)"
        + " UNION ALL SELECT (SELECT u.destination" + lane + " AND u.destination > d.destination"
        + " ORDER BY u.destination LIMIT 1) FROM d WHERE d.destination IS NOT NULL)"
        + " SELECT d.destination FROM d WHERE d.destination IS NOT NULL LIMIT ?";
  }

  /** Heads as {@link #claimHeadsAndUnkeyed}; each destination's unkeyed lane from the index of migration V13. */
  @Override
  public String claimHeadsAndLanes(TableNames names, int skipped, int lanes) {
    return ClaimSql.headsAndLanes(headsWith(names), "heads", names.qualified("outbox") + " u", UNKEYED_WAITING,
        skipped, lanes);
  }

  @Override
  public String toString() {
    return "PostgresDialect";
  }
}
