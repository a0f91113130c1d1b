package dev.outbox4j.jdbc;

import dev.outbox4j.OutboxException;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Locale;
import java.util.UUID;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * The narrow seam between outbox4j's portable JDBC code and one database: how instants and UUIDs are bound and read,
 * how a unique violation is recognised, which statements the database can fuse (UPDATE/DELETE with RETURNING), how a
 * bounded delete is written, and where its migration files live. Everything else is standard SQL shared by all
 * dialects.
 *
 * <p>Why so narrow: each extra method is one more place where three databases can drift apart; the stores' behaviour
 * must be identical on all of them (one contract suite proves it), so only syntax and type mapping vary here.
 *
 * <p>Instants are always stored as UTC and bound with microsecond precision (truncated), the finest precision all three
 * databases keep, so a value read back equals the value written whatever the session time zone.
 *
 * <p>Implementations are stateless and thread-safe.
 */
public interface JdbcDialect {

  /**
   * @return the dialect's short name, also the folder of its migration files: {@code postgresql}, {@code mariadb} or
   *     {@code h2}
   */
  String name();

  /**
   * @param component the component whose migrations are wanted, for example {@code outbox4j}
   * @return the class-path folder of that component's migration files for this database, for example
   *     {@code db/outbox4j/postgresql}
   */
  default String migrationFolder(String component) {
    return "db/" + component + "/" + name();
  }

  /**
   * Binds an instant (or SQL NULL) as a UTC timestamp, truncated to microseconds.
   *
   * @param statement the statement
   * @param index the 1-based parameter index
   * @param value the instant, or {@code null}
   * @throws SQLException if the driver fails
   */
  default void setInstant(PreparedStatement statement, int index, @Nullable Instant value) throws SQLException {
    // The default suits databases with a timestamp-with-time-zone type (PostgreSQL, H2): bind an offset date-time.
    if (value == null) {
      statement.setNull(index, java.sql.Types.TIMESTAMP_WITH_TIMEZONE);
    } else {
      statement.setObject(index, java.time.OffsetDateTime.ofInstant(storable(value), java.time.ZoneOffset.UTC));
    }
  }

  /**
   * @param row the result set, positioned on a row
   * @param column the column label
   * @return the instant stored in that column, or {@code null} for SQL NULL
   * @throws SQLException if the driver fails
   */
  default @Nullable Instant getInstant(ResultSet row, String column) throws SQLException {
    return getInstant(row, row.findColumn(column));
  }

  /**
   * @param row the result set, positioned on a row
   * @param column the 1-based column index
   * @return the instant stored in that column, or {@code null} for SQL NULL
   * @throws SQLException if the driver fails
   */
  default @Nullable Instant getInstant(ResultSet row, int column) throws SQLException {
    java.time.OffsetDateTime value = row.getObject(column, java.time.OffsetDateTime.class);
    return value == null ? null : value.toInstant();
  }

  /**
   * @param statement the statement
   * @param index the 1-based parameter index
   * @param value the UUID, or {@code null}
   * @throws SQLException if the driver fails
   */
  void setUuid(PreparedStatement statement, int index, @Nullable UUID value) throws SQLException;

  /**
   * @param row the result set, positioned on a row
   * @param column the column label
   * @return the UUID stored in that column, or {@code null} for SQL NULL
   * @throws SQLException if the driver fails
   */
  default @Nullable UUID getUuid(ResultSet row, String column) throws SQLException {
    return getUuid(row, row.findColumn(column));
  }

  /**
   * @param row the result set, positioned on a row
   * @param column the 1-based column index
   * @return the UUID stored in that column, or {@code null} for SQL NULL
   * @throws SQLException if the driver fails
   */
  @Nullable UUID getUuid(ResultSet row, int column) throws SQLException;

  /**
   * @param failure a driver exception
   * @return {@code true} when it reports a primary-key or unique-constraint violation
   */
  boolean isUniqueViolation(SQLException failure);

  /**
   * @return {@code true} when {@code UPDATE ... RETURNING} and {@code DELETE ... RETURNING} exist, so a claim and a
   *     batch completion each take one statement
   */
  boolean supportsReturning();

  /**
   * @param table the qualified table name
   * @param where a condition over the table's columns, with {@code ?} parameters
   * @param orderBy the column to delete in the order of
   * @return a DELETE of at most {@code ?} rows matching {@code where}; the limit is the last parameter
   */
  String deleteLimited(String table, String where, String orderBy);

  /**
   * The target of an UPDATE, or the source of a locking SELECT, that picks rows by primary key
   * ({@code seq IN (...)}): the relay's claims and completions. Such a statement must lock only the rows it names; a
   * database that might scan the table instead (MariaDB/MySQL choose a full scan whenever their row estimate is small,
   * as it is for a nearly empty outbox, and a scan under REPEATABLE READ locks every row it passes, deadlocking
   * concurrent relays) is told to use the primary key here.
   *
   * @param tableAndAlias the table, optionally followed by an alias
   * @return the table reference to put after {@code UPDATE} or {@code FROM}
   */
  default String byPrimaryKey(String tableAndAlias) {
    return tableAndAlias;
  }

  /**
   * As {@link #byPrimaryKey}, for a DELETE.
   *
   * @param table the table
   * @return the statement up to its WHERE clause, for example {@code DELETE FROM outbox4j_outbox}
   */
  default String deleteByPrimaryKey(String table) {
    return "DELETE FROM " + table;
  }

  /**
   * The claim's first look (see {@code docs/schema.md}, "Claims"): the first waiting entries in {@code seq} order,
   * each marked claimable when it is available, under no unexpired lease, and its key's oldest undelivered entry.
   * Used by {@link JdbcOutboxStore}; not for applications.
   *
   * @param names the table names
   * @return a SELECT with the parameters now, now, window size, and the columns {@code seq} and {@code claimable} (1
   *     or 0), in {@code seq} order
   */
  String claimWindow(TableNames names);

  /**
   * The claim's second look, run when the window was full yet held too few claimable entries (a backlog behind a few
   * keys): the claimable head of every key with undelivered entries, found with one index descent per such key, plus
   * claimable unkeyed entries in {@code seq} order from their own index. Used by {@link JdbcOutboxStore}; not for
   * applications.
   *
   * @param names the table names
   * @return a SELECT with the parameters now, now, now, now, unkeyed limit, limit, and the column {@code seq},
   *     ascending
   */
  String claimHeadsAndUnkeyed(TableNames names);

  /**
   * The destinations with waiting unkeyed entries, for a claim that leaves some destinations out (see
   * {@code docs/schema.md}, "Claims"): one index descent per such destination, never a read of their entries. Used
   * by {@link JdbcOutboxStore}; not for applications.
   *
   * @param names the table names
   * @return a SELECT with the parameter limit and the column {@code destination}, or {@code null} when this dialect
   *     has no index of unkeyed entries by destination (its claims then read the unkeyed entries in {@code seq} order,
   *     and the relay holds back those of a paused destination)
   */
  default @Nullable String claimUnkeyedDestinations(TableNames names) {
    return null;
  }

  /**
   * {@link #claimHeadsAndUnkeyed} for a claim that leaves some destinations out: the claimable heads of keys whose head
   * goes to none of them, and the claimable unkeyed entries of the given other destinations, each from its own lane
   * in {@code seq} order, so that a left-out destination's backlog is never read. Used by {@link JdbcOutboxStore}; not
   * for applications; called only when {@link #claimUnkeyedDestinations} is not {@code null}.
   *
   * @param names the table names
   * @param skipped how many destinations are left out; positive
   * @param lanes how many destinations' unkeyed lanes are read; zero or more
   * @return a SELECT with the parameters now, now, each left-out destination, then per lane its destination twice,
   *     now, now, limit, and last the limit; the column {@code seq}, ascending
   */
  default String claimHeadsAndLanes(TableNames names, int skipped, int lanes) {
    throw new UnsupportedOperationException(name() + " has no unkeyed lanes by destination");
  }

  /**
   * @return the SQL that wakes listeners when the current transaction commits, with the channel as its one
   *     parameter, or {@code null} when the database has no such mechanism
   */
  default @Nullable String wakeUpStatement() {
    return null;
  }

  /**
   * Truncates an instant to the precision every supported database keeps.
   *
   * @param value an instant
   * @return the instant truncated to microseconds
   */
  static Instant storable(Instant value) {
    return value.truncatedTo(ChronoUnit.MICROS);
  }

  /**
   * Picks the dialect from the database's product name.
   *
   * @param metaData the connection's metadata
   * @return the matching dialect
   * @throws SQLException if the driver fails
   * @throws OutboxException if the database is none of PostgreSQL, MariaDB, MySQL or H2
   */
  static JdbcDialect of(DatabaseMetaData metaData) throws SQLException {
    String product = metaData.getDatabaseProductName().toLowerCase(Locale.ROOT);
    if (product.contains("postgres")) {
      return PostgresDialect.INSTANCE;
    }
    if (product.contains("mariadb") || product.contains("mysql")) {
      return MariaDbDialect.INSTANCE;
    }
    if (product.contains("h2")) {
      return H2Dialect.INSTANCE;
    }
    throw new OutboxException("no outbox4j dialect for database '" + metaData.getDatabaseProductName()
        + "'; supported: PostgreSQL, MariaDB, MySQL, H2 (pass a JdbcDialect explicitly to override)");
  }

  /**
   * Opens one connection to detect the dialect.
   *
   * @param dataSource the data source
   * @return the matching dialect
   * @throws OutboxException if the database cannot be reached or is not supported
   */
  static JdbcDialect detect(DataSource dataSource) {
    try (Connection connection = dataSource.getConnection()) {
      return of(connection.getMetaData());
    } catch (SQLException e) {
      throw new OutboxException("could not detect the database dialect: " + e.getMessage(), e);
    }
  }
}
