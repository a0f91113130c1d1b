package dev.outbox4j.jdbc.internal;

import dev.outbox4j.OutboxException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.function.Function;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * One unit of JDBC work on a connection the caller provides, which may throw {@link SQLException}; and the one way the
 * JDBC components run such work on a pooled connection of their own. Not API.
 *
 * @param <R> the result type
 */
@FunctionalInterface
public interface ConnectionWork<R extends @Nullable Object> {
  /**
   * @param connection the connection to work on; the work neither closes it nor changes its auto-commit mode
   * @return the result
   * @throws SQLException if a statement fails
   */
  R run(Connection connection) throws SQLException;

  /**
   * Runs the work on a connection borrowed from the data source in auto-commit mode (each statement commits on its
   * own), its statements unnamed on PostgreSQL ({@link UnnamedStatements}), returns the connection, and translates any {@link SQLException} into the caller's {@link OutboxException}.
   *
   * @param dataSource where to borrow the connection
   * @param work the work
   * @param failure makes the exception to throw from the {@link SQLException}; it should name what failed
   * @param <R> the result type
   * @return the work's result
   * @throws OutboxException from {@code failure}, when borrowing the connection or the work fails
   */
  static <R extends @Nullable Object> R inAutoCommit(DataSource dataSource, ConnectionWork<R> work,
      Function<SQLException, ? extends OutboxException> failure) {
    return inAutoCommit(dataSource, true, work, failure);
  }

  /**
   * As {@link #inAutoCommit(DataSource, ConnectionWork, Function)}, leaving the driver's prepared statements as they
   * are when {@code unnamed} is false.
   *
   * @param dataSource where to borrow the connection
   * @param unnamed whether the statements are sent unnamed on PostgreSQL
   * @param work the work
   * @param failure makes the exception to throw from the {@link SQLException}
   * @param <R> the result type
   * @return the work's result
   * @throws OutboxException from {@code failure}, when borrowing the connection or the work fails
   */
  static <R extends @Nullable Object> R inAutoCommit(DataSource dataSource, boolean unnamed, ConnectionWork<R> work,
      Function<SQLException, ? extends OutboxException> failure) {
    try (Connection connection = dataSource.getConnection()) {
      if (!connection.getAutoCommit()) {
        connection.setAutoCommit(true);
      }
      int threshold = unnamed ? UnnamedStatements.keep(connection) : UnnamedStatements.UNCHANGED;
      try {
        return work.run(connection);
      } finally {
        UnnamedStatements.giveBack(connection, threshold);
      }
    } catch (SQLException e) {
      throw failure.apply(e);
    }
  }
}
