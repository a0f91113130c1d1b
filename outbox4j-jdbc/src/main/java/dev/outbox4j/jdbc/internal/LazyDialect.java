package dev.outbox4j.jdbc.internal;

import dev.outbox4j.OutboxException;
import dev.outbox4j.jdbc.JdbcDialect;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Objects;
import java.util.UUID;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * A {@link JdbcDialect} detected from the database on first use rather than when a component is built, so a store
 * built while the database is down still builds (its first calls fail like any call during an outage, and it works
 * once the database is back). A failed detection is not remembered; the next call tries again. Not API.
 *
 * <p>Every method of {@link JdbcDialect}, defaults included, is delegated ({@code LazyDialectTest} checks that none is
 * missed when the interface grows). Thread-safe.
 */
public final class LazyDialect implements JdbcDialect {
  private final DataSource dataSource;
  private volatile @Nullable JdbcDialect detected;

  /** @param dataSource the database to detect the dialect of, on first use */
  public LazyDialect(DataSource dataSource) {
    this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
  }

  /**
   * @return the detected dialect, detecting it now if needed
   * @throws OutboxException if the database cannot be reached or is not supported
   */
  public JdbcDialect resolved() {
    JdbcDialect dialect = detected;
    if (dialect == null) {
      synchronized (this) {
        dialect = detected;
        if (dialect == null) {
          dialect = JdbcDialect.detect(dataSource);
          detected = dialect;
        }
      }
    }
    return dialect;
  }

  /** @return the dialect when it has been detected, else {@code null}; never connects */
  public @Nullable JdbcDialect detectedOrNull() {
    return detected;
  }

  /**
   * Detects the dialect from a connection the caller already holds, when it is not known yet: no second connection
   * is borrowed (which, on a pool of one, would wait for the pool's timeout).
   *
   * @param connection an open connection to the database
   * @throws SQLException if the driver fails
   * @throws OutboxException if the database is not supported
   */
  public void detectFrom(java.sql.Connection connection) throws SQLException {
    if (detected == null) {
      JdbcDialect dialect = JdbcDialect.of(connection.getMetaData());
      synchronized (this) {
        if (detected == null) {
          detected = dialect;
        }
      }
    }
  }

  @Override
  public String name() {
    return resolved().name();
  }

  @Override
  public String migrationFolder(String component) {
    return resolved().migrationFolder(component);
  }

  @Override
  public void setInstant(PreparedStatement statement, int index, @Nullable Instant value) throws SQLException {
    resolved().setInstant(statement, index, value);
  }

  @Override
  public @Nullable Instant getInstant(ResultSet row, String column) throws SQLException {
    return resolved().getInstant(row, column);
  }

  @Override
  public @Nullable Instant getInstant(ResultSet row, int column) throws SQLException {
    return resolved().getInstant(row, column);
  }

  @Override
  public void setUuid(PreparedStatement statement, int index, @Nullable UUID value) throws SQLException {
    resolved().setUuid(statement, index, value);
  }

  @Override
  public @Nullable UUID getUuid(ResultSet row, String column) throws SQLException {
    return resolved().getUuid(row, column);
  }

  @Override
  public @Nullable UUID getUuid(ResultSet row, int column) throws SQLException {
    return resolved().getUuid(row, column);
  }

  @Override
  public boolean isUniqueViolation(SQLException failure) {
    return resolved().isUniqueViolation(failure);
  }

  @Override
  public boolean supportsReturning() {
    return resolved().supportsReturning();
  }

  @Override
  public String deleteLimited(String table, String where, String orderBy) {
    return resolved().deleteLimited(table, where, orderBy);
  }

  @Override
  public String byPrimaryKey(String tableAndAlias) {
    return resolved().byPrimaryKey(tableAndAlias);
  }

  @Override
  public String deleteByPrimaryKey(String table) {
    return resolved().deleteByPrimaryKey(table);
  }

  @Override
  public String claimWindow(dev.outbox4j.jdbc.TableNames names) {
    return resolved().claimWindow(names);
  }

  @Override
  public String claimHeadsAndUnkeyed(dev.outbox4j.jdbc.TableNames names) {
    return resolved().claimHeadsAndUnkeyed(names);
  }

  @Override
  public @Nullable String claimUnkeyedDestinations(dev.outbox4j.jdbc.TableNames names) {
    return resolved().claimUnkeyedDestinations(names);
  }

  @Override
  public String claimHeadsAndLanes(dev.outbox4j.jdbc.TableNames names, int skipped, int lanes) {
    return resolved().claimHeadsAndLanes(names, skipped, lanes);
  }

  @Override
  public @Nullable String wakeUpStatement() {
    return resolved().wakeUpStatement();
  }

  @Override
  public String toString() {
    JdbcDialect dialect = detected;
    return dialect == null ? "LazyDialect{not yet detected}" : dialect.toString();
  }
}
