package dev.outbox4j.jdbc;

import dev.outbox4j.MessageLimits;
import dev.outbox4j.OptimisticConflictException;
import dev.outbox4j.OutboxEntry;
import dev.outbox4j.OutboxException;
import dev.outbox4j.jdbc.internal.ConnectionWork;
import dev.outbox4j.jdbc.internal.LazyDialect;
import dev.outbox4j.jdbc.internal.StatementTimeouts;
import dev.outbox4j.jdbc.internal.UnnamedStatements;
import dev.outbox4j.spi.Retention;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * What every part of a {@link JdbcOutboxStore} shares: its configuration and the way it runs a unit of work on one of
 * its own short-lived connections (bounded statements, a detected dialect, deadlock victims run again, failures named).
 * The parts ({@link ClaimFace}, {@link Completions}, {@link EntryFace}, {@link OperatorFace}) extend it; immutable and
 * thread-safe.
 */
abstract class StoreJdbc implements LeasedBatchClaims.Connections {
  /** Attempts of one store unit of work that the database keeps choosing as a deadlock victim. */
  static final int DEADLOCK_ATTEMPTS = 8;

  static final int MAX_IDS_PER_STATEMENT = 500;
  static final String WAITING = "status IN ('PENDING', 'FAILED')";

  final DataSource dataSource;
  final JdbcDialect dialect;
  final TableNames names;
  final Clock clock;
  final Retention retention;
  final MessageLimits limits;
  final OutboxRows rows;
  final String table;
  final StatementTimeouts timeouts;
  /**
   * Whether pgjdbc may prepare the store's statements on the server as its {@code prepareThreshold} decides; when
   * false (the default), every statement is sent unnamed ({@link UnnamedStatements}). Statements that must be planned
   * for the table as it is ({@link LeasedBatchClaims#planEachTime}) stay unnamed either way.
   */
  final boolean preparedStatements;

  StoreJdbc(DataSource dataSource, @Nullable JdbcDialect dialect, TableNames names, Clock clock, Retention retention,
      MessageLimits limits, Duration queryTimeout, boolean preparedStatements) {
    this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    this.dialect = dialect != null ? dialect : new LazyDialect(dataSource);
    this.timeouts = new StatementTimeouts(queryTimeout);
    this.names = names;
    this.clock = clock;
    this.retention = retention;
    this.limits = limits;
    this.rows = new OutboxRows(this.dialect, names);
    this.table = rows.table;
    this.preparedStatements = preparedStatements;
  }

  /** A part of the same store: the same configuration. */
  StoreJdbc(StoreJdbc store) {
    this.dataSource = store.dataSource;
    this.dialect = store.dialect;
    this.timeouts = store.timeouts;
    this.names = store.names;
    this.clock = store.clock;
    this.retention = store.retention;
    this.limits = store.limits;
    this.rows = store.rows;
    this.table = store.table;
    this.preparedStatements = store.preparedStatements;
  }

  /**
   * @return the dialect in use
   * @throws OutboxException if it must still be detected and the database cannot be reached
   */
  JdbcDialect resolvedDialect() {
    return dialect instanceof LazyDialect lazy ? lazy.resolved() : dialect;
  }

  /** @return the next free parameter index */
  static int bindSeqs(PreparedStatement statement, int first, List<Long> seqs) throws SQLException {
    for (int i = 0; i < seqs.size(); i++) {
      statement.setLong(first + i, seqs.get(i));
    }
    return first + seqs.size();
  }

  boolean isPostgres() {
    return "postgresql".equals(resolvedDialect().name());
  }

  // ------------------------------------------------------------------------------------------ plumbing

  static OptimisticConflictException conflict(OutboxEntry entry, SQLException cause) {
    OptimisticConflictException conflict = new OptimisticConflictException(entry.id(), entry.version());
    conflict.addSuppressed(cause);
    return conflict;
  }

  /** @return the entries read, an unreadable row's with its placeholders (see {@link OutboxRows#read}) */
  List<OutboxEntry> readAll(PreparedStatement statement) throws SQLException {
    List<OutboxEntry> entries = new ArrayList<>();
    try (ResultSet result = statement.executeQuery()) {
      while (result.next()) {
        entries.add(rows.entry(result));
      }
    }
    return entries;
  }

  List<OutboxRows.Read> readRows(PreparedStatement statement) throws SQLException {
    List<OutboxRows.Read> read = new ArrayList<>();
    try (ResultSet result = statement.executeQuery()) {
      while (result.next()) {
        read.add(rows.read(result));
      }
    }
    return read;
  }

  void bindIds(PreparedStatement statement, int first, List<UUID> ids) throws SQLException {
    for (int i = 0; i < ids.size(); i++) {
      dialect.setUuid(statement, first + i, ids.get(i));
    }
  }

  static String placeholders(int count) {
    return "(" + "?, ".repeat(count - 1) + "?)";
  }

  @FunctionalInterface
  interface Binder {
    /** @return the next free parameter index */
    int bind(PreparedStatement statement) throws SQLException;
  }

  @Override
  public <R> R autoCommit(String what, ConnectionWork<R> work) {
    return retryingDeadlocks(() -> ConnectionWork.inAutoCommit(dataSource, !preparedStatements,
        c -> work.run(ready(c)), e -> failure(what, e)));
  }

  /** Prepares a borrowed connection: detects the dialect from it on first use, and bounds its statements. */
  Connection ready(Connection borrowed) throws SQLException {
    if (dialect instanceof LazyDialect lazy) {
      lazy.detectFrom(borrowed);
    }
    return timeouts.bound(borrowed);
  }

  /**
   * Runs one of the store's own units of work, again when the database aborted it as a deadlock victim (SQLState
   * {@code 40001}, or {@code 40P01} on PostgreSQL). Safe because the unit is the store's, not the caller's: an aborted
   * unit changed nothing, and every unit is fenced (claim token) or version-checked, so running it again is exactly
   * what a lone attempt would have done. The relay's statements lock rows by primary key only, so deadlocks are rare;
   * they remain possible on MariaDB/MySQL, whose locking reads also take gap locks under REPEATABLE READ.
   */
  <R> R retryingDeadlocks(java.util.function.Supplier<R> unit) {
    for (int attempt = 1; ; attempt++) {
      try {
        return unit.get();
      } catch (OutboxException e) {
        if (attempt >= DEADLOCK_ATTEMPTS || !isDeadlock(e.getCause())) {
          throw e;
        }
      }
    }
  }

  static boolean isDeadlock(@Nullable Throwable error) {
    return error instanceof SQLException sql
        && ("40001".equals(sql.getSQLState()) || "40P01".equals(sql.getSQLState()));
  }

  @Override
  public <R> R inTransaction(String what, ConnectionWork<R> work) {
    return retryingDeadlocks(() -> inTransactionOnce(what, work));
  }

  /**
   * As {@link #inTransaction}, for a claim on MariaDB/MySQL or H2: the transaction runs at the isolation its claim needs
   * ({@link ClaimSession}), and the connection goes back as it came. (A PostgreSQL claim sets its own, in its first
   * statement.)
   */
  <R> R inClaimTransaction(String what, ConnectionWork<R> work) {
    return retryingDeadlocks(() -> inTransactionOnce(what, true, work));
  }

  <R> R inTransactionOnce(String what, ConnectionWork<R> work) {
    return inTransactionOnce(what, false, work);
  }

  private <R> R inTransactionOnce(String what, boolean claim, ConnectionWork<R> work) {
    try (Connection borrowed = dataSource.getConnection()) {
      Connection connection = ready(borrowed);
      int threshold = preparedStatements ? UnnamedStatements.UNCHANGED : UnnamedStatements.keep(borrowed);
      connection.setAutoCommit(false);
      int isolation = -1;
      try {
        if (claim) {
          isolation = ClaimSession.begin(connection);
        }
        R result = work.run(connection);
        connection.commit();
        return result;
      } catch (SQLException | RuntimeException | Error e) {
        try {
          connection.rollback();
        } catch (SQLException suppressed) {
          e.addSuppressed(suppressed);
        }
        throw e;
      } finally {
        connection.setAutoCommit(true);
        ClaimSession.end(connection, isolation);
        UnnamedStatements.giveBack(borrowed, threshold);
      }
    } catch (SQLException e) {
      throw failure(what, e);
    }
  }

  OutboxException failure(String what, SQLException e) {
    String claimTable = names.qualified("outbox_claim");
    String missing = "42P01".equals(e.getSQLState()) && String.valueOf(e.getMessage()).contains(claimTable)
        ? " (every PostgreSQL claim reads " + claimTable + ", created by migration V5__session_claims.sql:"
            + " apply every migration of db/outbox4j/postgresql, or call migrate())"
        : "";
    return new OutboxException("outbox " + what + " failed on " + table + ": " + e.getMessage() + missing, e);
  }
}
