package dev.outbox4j.relay.cli;

import dev.outbox4j.OutboxException;
import dev.outbox4j.relay.config.RelayAssembly;
import java.io.PrintWriter;
import java.sql.SQLException;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * How a failure at run time reads on the command line: one line an operator can act on, not a driver's paragraph.
 * Drivers put the SQL statement (H2: {@code ; SQL statement: SELECT ...}) or a position (PostgreSQL) after the first
 * line of their message; those go, and so does a repeated cause. A missing table adds what fixes it ({@code migrate},
 * {@code --table-prefix}, {@code --schema}). With {@code --verbose} the whole chain follows, with stack traces.
 *
 * <p>Stateless and thread-safe.
 */
final class ErrorReport {
  /** SQLSTATEs of "no such table": standard and MariaDB/MySQL, H2 on an empty database, PostgreSQL. */
  private static final Set<String> TABLE_MISSING = Set.of("42S02", "42S04", "42P01");

  private ErrorReport() {}

  /**
   * @param error the failure
   * @return one line: what failed (an {@link OutboxException}'s message) and the root cause's reason, plus what fixes
   *     a missing table
   */
  static String summary(Throwable error) {
    String message = error.getMessage() == null ? "" : firstLine(error.getMessage());
    String cause = firstLine(RelayAssembly.rootMessage(error));
    String line = !(error instanceof OutboxException) || message.isEmpty() ? cause
        : message.contains(cause) ? message : message + " (" + cause + ")";
    SQLException sql = sqlCause(error);
    if (sql != null && sql.getSQLState() != null && TABLE_MISSING.contains(sql.getSQLState())) {
      line += "; the outbox tables are not there: run 'migrate', or check --table-prefix and --schema";
    }
    return line;
  }

  /**
   * Prints the failure: its summary, and with {@code verbose} every cause with its stack trace.
   *
   * @param err where to print
   * @param error the failure
   * @param verbose whether the operator asked for the whole chain
   */
  static void print(PrintWriter err, Throwable error, boolean verbose) {
    err.println("error: " + summary(error));
    if (verbose) {
      error.printStackTrace(err);
    }
  }

  /** @return the text up to its first line break, and before an SQL statement a driver appended */
  static String firstLine(String text) {
    String line = text.strip();
    int statement = line.indexOf("; SQL statement:");
    if (statement >= 0) {
      line = line.substring(0, statement);
    }
    int newline = line.indexOf('\n');
    if (newline >= 0) {
      line = line.substring(0, newline);
    }
    return line.strip();
  }

  private static @Nullable SQLException sqlCause(Throwable error) {
    for (Throwable cause = error; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
      if (cause instanceof SQLException sql) {
        return sql;
      }
    }
    return null;
  }
}
