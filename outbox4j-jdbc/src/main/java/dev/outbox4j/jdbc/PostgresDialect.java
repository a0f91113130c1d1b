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
  public @Nullable UUID getUuid(ResultSet row, String column) throws SQLException {
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

  @Override
  public String toString() {
    return "PostgresDialect";
  }
}
