package dev.outbox4j.jdbc.doctor;

import dev.outbox4j.OutboxException;
import dev.outbox4j.jdbc.TableNames;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * Examines a database as a relay reaches it and reports what in its settings makes the outbox unsafe or slow, each
 * with the setting that fixes it: the default isolation and commit durability, a pooler in front and its mode, the
 * outbox sequence's cache, the idle-transaction timeout against the lease, clock skew between the relay and the
 * database, and the schema version applied.
 *
 * <p>Why settings the store overrides are still reported: the store sets the isolation and commit durability of its own
 * claims and completions, so a database default of REPEATABLE READ or {@code synchronous_commit = off} is reported as
 * {@link Finding.Level#INFO} (the application's writers still run at it), while settings no session can override
 * ({@code fsync}, {@code innodb_flush_log_at_trx_commit}) are {@link Finding.Level#UNSAFE}.
 *
 * <p>It only reads: nothing is written, no setting is changed. A check that cannot read what it needs (a missing
 * privilege, an older server) reports itself {@link Finding.Level#INFO} "not checked" with the reason, and the others
 * still run. Thread-safe; each {@link #examine()} takes its own connections (two at once, for the pooler check).
 */
public final class DatabaseDoctor {
  private final Examination exam;

  /**
   * @param dataSource the database as the relay reaches it: the same pool, URL and driver properties
   * @param names the outbox's schema and table prefix
   * @param lease how long the relay's claims hold ({@code RelayBuilder.DEFAULT_LEASE} unless configured)
   * @param clock the relay's clock
   */
  public DatabaseDoctor(DataSource dataSource, TableNames names, Duration lease, Clock clock) {
    this(dataSource, names, lease, clock, false);
  }

  /**
   * @param dataSource the database as the relay reaches it: the same pool, URL and driver properties
   * @param names the outbox's schema and table prefix
   * @param lease how long the relay's claims hold ({@code RelayBuilder.DEFAULT_LEASE} unless configured)
   * @param clock the relay's clock
   * @param preparedStatements whether the store lets the driver prepare its statements on the server
   *     ({@code JdbcOutboxStore.preparedStatements()}): unsafe through a transaction pooler, where the pooler check
   *     then says so
   */
  public DatabaseDoctor(DataSource dataSource, TableNames names, Duration lease, Clock clock,
      boolean preparedStatements) {
    this.exam = new Examination(Objects.requireNonNull(dataSource, "dataSource"), Objects.requireNonNull(names,
        "names"), Objects.requireNonNull(lease, "lease"), Objects.requireNonNull(clock, "clock"), preparedStatements);
    if (lease.isNegative() || lease.isZero()) {
      throw new IllegalArgumentException("lease must be positive, was " + lease);
    }
  }

  /** A check that may fail to read what it needs. */
  private interface Check {
    List<Finding> run() throws SQLException;
  }

  /**
   * @return every finding, in check order
   * @throws OutboxException if the database cannot be reached, or is not one outbox4j supports
   */
  public DoctorReport examine() {
    DialectChecks dialect;
    String database;
    try (Connection connection = exam.dataSource().getConnection()) {
      DatabaseMetaData meta = connection.getMetaData();
      database = meta.getDatabaseProductName() + " " + meta.getDatabaseProductVersion();
      dialect = dialectOf(meta.getDatabaseProductName());
    } catch (SQLException e) {
      throw new OutboxException("cannot connect to the database: " + e.getMessage(), e);
    }
    List<Finding> findings = new ArrayList<>();
    findings.addAll(guarded("isolation", () -> List.of(this.<Finding>withConnection(c -> dialect.isolation(c, exam)))));
    findings.addAll(guarded("commit-durability", () -> withConnection(dialect::durability)));
    findings.addAll(guarded("pooler", () -> PoolerCheck.run(exam, dialect)));
    findings.addAll(guarded("sequence-cache",
        () -> List.of(this.<Finding>withConnection(c -> dialect.sequenceCache(c, exam)))));
    findings.addAll(guarded("idle-timeout",
        () -> List.of(this.<Finding>withConnection(c -> dialect.idleTimeout(c, exam)))));
    findings.addAll(guarded("clock-skew", () -> List.of(ClockSkewCheck.run(exam, dialect))));
    findings.addAll(guarded("schema", () -> List.of(SchemaVersionCheck.run(exam))));
    return new DoctorReport(database, findings);
  }

  private static DialectChecks dialectOf(String product) {
    String name = product.toLowerCase(Locale.ROOT);
    if (name.contains("postgres")) {
      return new PostgresChecks();
    }
    if (name.contains("mariadb") || name.contains("mysql")) {
      return new MariaDbChecks();
    }
    if (name.contains("h2")) {
      return new H2Checks();
    }
    throw new OutboxException("no doctor checks for database '" + product + "'; supported: PostgreSQL, MariaDB,"
        + " MySQL, H2");
  }

  /** Work on one connection. */
  private interface OnConnection<T> {
    T apply(Connection connection) throws SQLException;
  }

  private <T> T withConnection(OnConnection<T> work) throws SQLException {
    try (Connection connection = exam.dataSource().getConnection()) {
      return work.apply(connection);
    }
  }

  private static List<Finding> guarded(String name, Check check) {
    try {
      return check.run();
    } catch (SQLException | RuntimeException e) {
      return List.of(Finding.info(name, "not checked: " + e.getMessage(), ""));
    }
  }
}
