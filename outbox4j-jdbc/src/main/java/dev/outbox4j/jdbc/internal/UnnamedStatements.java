package dev.outbox4j.jdbc.internal;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import org.postgresql.PGConnection;
import org.postgresql.PGStatement;

/**
 * Keeps every statement outbox4j runs on PostgreSQL unnamed, so that it works through a transaction-pooling proxy
 * (PgBouncer in transaction mode before 1.21, which keeps no prepared statements) with pgjdbc's default settings. Not
 * API.
 *
 * <p>Why: with its default {@code prepareThreshold} (5), pgjdbc prepares a statement it has run five times on a
 * connection as a named server-side statement ({@code S_1}, {@code S_2}, ...) and from then on only binds it; it does
 * the same with its own {@code COMMIT} and {@code ROLLBACK}. Through a transaction-mode proxy the next transaction may
 * run on another server connection, where that name does not exist or names another client's statement
 * ({@code prepared statement "S_3" does not exist}, {@code ... already exists}, {@code bind message supplies 0
 * parameters}). With a threshold of 0 every statement is sent unnamed (parse, bind and execute in one round trip, as
 * before its fifth run), which costs a parse per execution and nothing else.
 *
 * <p>On a connection outbox4j borrows for itself, {@link #keep} sets the connection's threshold (which the statements
 * it creates inherit, and which decides how {@code COMMIT} is sent) and {@link #giveBack} restores it before the
 * connection returns to its pool, so an application sharing the pool keeps its own setting; both are in-process field
 * changes, no round trip. On the caller's connection (the writer's, the inbox's) only the statements outbox4j creates
 * are made unnamed ({@link #unnamed}). Other drivers and databases are left as they are.
 *
 * <p>Stateless and thread-safe.
 */
public final class UnnamedStatements {
  /** {@link #keep}'s answer when nothing was changed. */
  public static final int UNCHANGED = Integer.MIN_VALUE;

  private static final boolean PGJDBC = present();

  private UnnamedStatements() {}

  private static boolean present() {
    try {
      Class.forName("org.postgresql.PGConnection", false, UnnamedStatements.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }

  /**
   * @param connection a connection, possibly a pool's proxy
   * @return whether pgjdbc is on the class path and {@code connection} unwraps to its {@link PGConnection}
   * @throws SQLException if the driver fails
   */
  public static boolean isPgjdbc(Connection connection) throws SQLException {
    return PGJDBC && connection.isWrapperFor(PGConnection.class);
  }

  /**
   * Makes the statements of a pgjdbc connection unnamed while outbox4j holds it.
   *
   * @param connection a connection outbox4j borrowed for itself
   * @return the threshold to give back, or {@link #UNCHANGED}
   * @throws SQLException if the driver fails
   */
  public static int keep(Connection connection) throws SQLException {
    if (!isPgjdbc(connection)) {
      return UNCHANGED;
    }
    PGConnection postgres = connection.unwrap(PGConnection.class);
    int previous = postgres.getPrepareThreshold();
    if (previous == 0) {
      return UNCHANGED;
    }
    postgres.setPrepareThreshold(0);
    return previous;
  }

  /**
   * Restores what {@link #keep} changed; call it before the connection is closed.
   *
   * @param connection the connection
   * @param previous {@link #keep}'s answer
   * @throws SQLException if the driver fails
   */
  public static void giveBack(Connection connection, int previous) throws SQLException {
    if (previous != UNCHANGED) {
      connection.unwrap(PGConnection.class).setPrepareThreshold(previous);
    }
  }

  /**
   * Makes one statement unnamed, on a connection outbox4j does not own.
   *
   * @param statement a statement outbox4j created
   * @param <S> its type
   * @return the statement
   * @throws SQLException if the driver fails
   */
  public static <S extends Statement> S unnamed(S statement) throws SQLException {
    if (PGJDBC && statement.isWrapperFor(PGStatement.class)) {
      statement.unwrap(PGStatement.class).setPrepareThreshold(0);
    }
    return statement;
  }
}
