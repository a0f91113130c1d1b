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
  public @Nullable UUID getUuid(ResultSet row, String column) throws SQLException {
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

  @Override
  public String toString() {
    return "H2Dialect";
  }
}
