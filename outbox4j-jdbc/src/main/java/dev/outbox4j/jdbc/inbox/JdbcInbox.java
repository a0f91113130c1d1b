package dev.outbox4j.jdbc.inbox;

import dev.outbox4j.OutboxException;
import dev.outbox4j.inbox.Inbox;
import dev.outbox4j.inbox.Receipt;
import dev.outbox4j.jdbc.JdbcDialect;
import dev.outbox4j.jdbc.SchemaMigrator;
import dev.outbox4j.jdbc.TableNames;
import dev.outbox4j.jdbc.internal.ConnectionWork;
import dev.outbox4j.jdbc.internal.DuplicateTolerantInsert;
import dev.outbox4j.jdbc.internal.UnnamedStatements;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * An {@link Inbox} whose transaction handle is the consumer's JDBC {@link Connection}: {@link #receive} inserts one row
 * keyed by (consumer name, message id) with that connection, inside whatever transaction it has open, and never
 * begins, commits or rolls it back.
 *
 * <p>Why an insert-if-absent and not a SELECT then INSERT: the primary key is the only arbiter that cannot race. The
 * insert of a key that another open transaction inserted waits on that transaction's row lock; when it commits the
 * insert finds the row and reports a duplicate, when it rolls back the insert succeeds. So exactly one of several
 * concurrent consumers is first, and a rolled-back consumer leaves no record. The insert never fails the caller's
 * transaction on a duplicate: PostgreSQL uses {@code ON CONFLICT DO NOTHING} (an error would abort the whole
 * transaction), MariaDB/MySQL {@code INSERT IGNORE}, and other databases a plain insert guarded by a savepoint.
 *
 * <p>{@link #purge} runs on its own connection from the {@link DataSource}, in autocommit mode.
 *
 * <p>Immutable and thread-safe; a connection belongs to the calling thread.
 */
public final class JdbcInbox implements Inbox<Connection> {
  /** The migration component folder and script of the inbox table. */
  private static final String COMPONENT = "outbox4j";
  private static final String SCRIPT = "V100__inbox.sql";

  private final DataSource dataSource;
  private final JdbcDialect dialect;
  private final TableNames names;
  private final Clock clock;
  private final String table;
  private final String insert;
  private final boolean guardWithSavepoint;
  private final String purge;

  private JdbcInbox(Builder builder, JdbcDialect dialect) {
    this.dataSource = builder.dataSource;
    this.dialect = dialect;
    this.names = builder.names;
    this.clock = builder.clock;
    this.table = names.qualified("inbox");
    DuplicateTolerantInsert insertIfAbsent = DuplicateTolerantInsert.into(dialect, table,
        " (consumer_name, message_id, received_at) VALUES (?, ?, ?)");
    this.insert = insertIfAbsent.sql();
    this.guardWithSavepoint = !insertIfAbsent.ignoresDuplicates();
    this.purge = dialect.deleteLimited(table, "received_at < ?", "received_at");
  }

  /**
   * @param dataSource the database; used for {@link #purge}, {@link #migrate} and dialect detection, never for
   *     {@link #receive}
   * @return a builder with the defaults: dialect detected, default table names, system UTC clock
   */
  public static Builder builder(DataSource dataSource) {
    return new Builder(dataSource);
  }

  /**
   * Creates the inbox table if this library's migration record says it is missing (runs {@code V100__inbox.sql} for
   * the dialect, renamed for the configured table names). Teams that run Flyway or Liquibase copy the file instead.
   *
   * @return {@code true} when the table was created now
   * @throws OutboxException if the migration fails
   */
  public boolean migrate() {
    return new SchemaMigrator(dataSource, dialect, names).migrate(COMPONENT, List.of(SCRIPT)) > 0;
  }

  /** @return the qualified name of the inbox table */
  public String tableName() {
    return table;
  }

  @Override
  public Receipt receive(Connection transaction, String consumerName, UUID messageId) {
    Objects.requireNonNull(transaction, "transaction");
    Inbox.checkConsumerName(consumerName);
    Objects.requireNonNull(messageId, "messageId");
    Instant now = clock.instant();
    try {
      return guardWithSavepoint ? insertGuarded(transaction, consumerName, messageId, now)
          : insert(transaction, consumerName, messageId, now) == 1 ? Receipt.FIRST : Receipt.DUPLICATE;
    } catch (SQLException e) {
      throw new OutboxException("the inbox could not record message " + messageId + " for consumer '" + consumerName
          + "': " + e.getMessage(), e);
    }
  }

  private int insert(Connection connection, String consumerName, UUID messageId, Instant now) throws SQLException {
    try (PreparedStatement statement = UnnamedStatements.unnamed(connection.prepareStatement(insert))) {
      statement.setString(1, consumerName);
      dialect.setUuid(statement, 2, messageId);
      dialect.setInstant(statement, 3, now);
      return statement.executeUpdate();
    }
  }

  private Receipt insertGuarded(Connection connection, String consumerName, UUID messageId, Instant now)
      throws SQLException {
    @Nullable Savepoint savepoint = connection.getAutoCommit() ? null : connection.setSavepoint();
    try {
      insert(connection, consumerName, messageId, now);
      if (savepoint != null) {
        connection.releaseSavepoint(savepoint);
      }
      return Receipt.FIRST;
    } catch (SQLException e) {
      if (!dialect.isUniqueViolation(e)) {
        throw e;
      }
      if (savepoint != null) {
        connection.rollback(savepoint);
      }
      return Receipt.DUPLICATE;
    }
  }

  @Override
  public int purge(Instant olderThan, int limit) {
    Objects.requireNonNull(olderThan, "olderThan");
    Inbox.checkPurgeLimit(limit);
    return ConnectionWork.inAutoCommit(dataSource, connection -> {
      try (PreparedStatement statement = connection.prepareStatement(purge)) {
        dialect.setInstant(statement, 1, olderThan);
        statement.setInt(2, limit);
        return statement.executeUpdate();
      }
    }, e -> new OutboxException("the inbox purge failed: " + e.getMessage(), e));
  }

  /** Configures a {@link JdbcInbox}. Not thread-safe; {@link #build()} produces an immutable inbox. */
  public static final class Builder {
    private final DataSource dataSource;
    private @Nullable JdbcDialect dialect;
    private TableNames names = TableNames.defaults();
    private Clock clock = Clock.system(ZoneOffset.UTC);

    private Builder(DataSource dataSource) {
      this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    }

    /**
     * @param dialect the database's dialect; default detected from the database at {@link #build()}
     * @return this builder
     */
    public Builder withDialect(JdbcDialect dialect) {
      this.dialect = Objects.requireNonNull(dialect, "dialect");
      return this;
    }

    /**
     * @param names the schema and table prefix; default {@link TableNames#defaults()} (table {@code outbox4j_inbox})
     * @return this builder
     */
    public Builder withTableNames(TableNames names) {
      this.names = Objects.requireNonNull(names, "names");
      return this;
    }

    /**
     * @param clock the source of receive times (which retention compares); default the system UTC clock
     * @return this builder
     */
    public Builder withClock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * @return the inbox
     * @throws OutboxException if the dialect must be detected and the database cannot be reached or is unsupported
     */
    public JdbcInbox build() {
      return new JdbcInbox(this, dialect != null ? dialect : JdbcDialect.detect(dataSource));
    }
  }
}
