package dev.outbox4j.jdbc;

import dev.outbox4j.DuplicateMessageException;
import dev.outbox4j.Message;
import dev.outbox4j.MessageLimits;
import dev.outbox4j.Outbox;
import dev.outbox4j.OutboxEntry;
import dev.outbox4j.OutboxException;
import dev.outbox4j.jdbc.internal.UnnamedStatements;
import java.sql.BatchUpdateException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * The JDBC write side: inserts outbox rows with the caller's {@link Connection}, inside the caller's transaction. It
 * never begins, commits, rolls back or closes anything, and never changes the connection's settings: the message
 * exists exactly when the caller's transaction commits.
 *
 * <p>Why it is this simple: every guarantee the row needs lives in the database, not here. A plain INSERT is all any
 * writer (this one, or an application in another language following {@code docs/schema.md}) has to do; the per-key
 * trigger installed by the migration numbers keyed rows under a per-key lock held until commit, so per-key order is
 * commit order for every writer alike. Unkeyed rows take no lock.
 *
 * <p>Everything is validated before the first statement reaches the database (limits, duplicate ids within one
 * batch, an open connection), so a refused write leaves the caller's transaction untouched and usable. A duplicate id
 * already in the table is reported by the database as a unique violation; PostgreSQL then marks the transaction
 * failed (see {@link DuplicateMessageException}).
 *
 * <p>Round trips: one per {@link #write}, one per {@link #writeAll} (a JDBC batch), plus one when the PostgreSQL
 * wake-up NOTIFY is on.
 *
 * <p>Immutable and thread-safe; each connection belongs to its caller's thread.
 */
public final class JdbcOutbox implements Outbox<Connection> {
  private final @Nullable JdbcDialect configuredDialect;
  private final TableNames names;
  private final Clock clock;
  private final MessageLimits limits;
  private final boolean wakeUpNotify;
  private final boolean preparedStatements;
  private volatile @Nullable OutboxRows detected;

  private JdbcOutbox(Builder builder) {
    this.configuredDialect = builder.dialect;
    this.names = builder.names;
    this.clock = builder.clock;
    this.limits = builder.limits;
    this.wakeUpNotify = builder.wakeUpNotify;
    this.preparedStatements = builder.preparedStatements;
    this.detected = builder.dialect == null ? null : new OutboxRows(builder.dialect, names);
  }

  /**
   * @return a builder with the defaults: dialect detected from the first connection, prefix
   *     {@value TableNames#DEFAULT_PREFIX}, UTC system clock, default limits, no NOTIFY
   */
  public static Builder builder() {
    return new Builder();
  }

  /** @return the LISTEN/NOTIFY channel this outbox notifies on PostgreSQL: the unqualified {@code <prefix>outbox} */
  public String wakeUpChannel() {
    return channel(names);
  }

  static String channel(TableNames names) {
    return names.unqualified("outbox");
  }

  @Override
  public void write(Connection transaction, Message message) {
    writeAll(transaction, List.of(message));
  }

  @Override
  public void writeAll(Connection transaction, List<Message> messages) {
    Objects.requireNonNull(transaction, "transaction");
    Objects.requireNonNull(messages, "messages");
    if (messages.isEmpty()) {
      return;
    }
    Set<UUID> ids = new HashSet<>();
    for (Message message : messages) {
      limits.check(Objects.requireNonNull(message, "message"));
      if (!ids.add(message.id())) {
        throw new DuplicateMessageException(message.id(), null);
      }
    }
    try {
      if (transaction.isClosed()) {
        throw new OutboxException("cannot write to the outbox: the caller's connection is closed");
      }
      OutboxRows rows = rows(transaction);
      Instant now = clock.instant();
      try (PreparedStatement insert = prepare(transaction, rows.insert)) {
        if (messages.size() == 1) {
          rows.bindInsert(insert, OutboxEntry.pending(messages.get(0), now));
          insert.executeUpdate();
        } else {
          for (Message message : messages) {
            rows.bindInsert(insert, OutboxEntry.pending(message, now));
            insert.addBatch();
          }
          insert.executeBatch();
        }
      } catch (SQLException e) {
        if (rows.dialect.isUniqueViolation(e) || isUniqueViolation(rows.dialect, e.getNextException())) {
          throw new DuplicateMessageException(messages.get(failedIndex(e, messages.size())).id(), e);
        }
        throw e;
      }
      String notify = rows.dialect.wakeUpStatement();
      if (wakeUpNotify && notify != null) {
        try (PreparedStatement statement = prepare(transaction, notify)) {
          statement.setString(1, channel(names));
          statement.execute();
        }
      }
    } catch (SQLException e) {
      throw new OutboxException("outbox write failed: " + e.getMessage(), e);
    }
  }

  private static boolean isUniqueViolation(JdbcDialect dialect, @Nullable SQLException e) {
    return e != null && dialect.isUniqueViolation(e);
  }

  private static int failedIndex(SQLException e, int size) {
    if (e instanceof BatchUpdateException batch && batch.getUpdateCounts() != null) {
      return Math.min(batch.getUpdateCounts().length, size - 1);
    }
    return 0;
  }

  private OutboxRows rows(Connection connection) throws SQLException {
    OutboxRows rows = detected;
    if (rows == null) {
      JdbcDialect dialect = configuredDialect != null ? configuredDialect : JdbcDialect.of(connection.getMetaData());
      rows = new OutboxRows(dialect, names);
      detected = rows;
    }
    return rows;
  }

  /** A statement on the caller's connection: unnamed on pgjdbc unless prepared statements were allowed. */
  private PreparedStatement prepare(Connection transaction, String sql) throws SQLException {
    PreparedStatement statement = transaction.prepareStatement(sql);
    return preparedStatements ? statement : UnnamedStatements.unnamed(statement);
  }

  /** Configures a {@link JdbcOutbox}. Not thread-safe; {@link #build()} returns an immutable writer. */
  public static final class Builder {
    private @Nullable JdbcDialect dialect;
    private TableNames names = TableNames.defaults();
    private Clock clock = Clock.systemUTC();
    private MessageLimits limits = MessageLimits.defaults();
    private boolean wakeUpNotify;
    private boolean preparedStatements;

    private Builder() {}

    /**
     * @param dialect the database dialect; default detected from the first caller connection's metadata
     * @return this builder
     */
    public Builder withDialect(JdbcDialect dialect) {
      this.dialect = Objects.requireNonNull(dialect, "dialect");
      return this;
    }

    /**
     * @param names the schema and table prefix; default no schema, prefix {@value TableNames#DEFAULT_PREFIX}
     * @return this builder
     */
    public Builder withTableNames(TableNames names) {
      this.names = Objects.requireNonNull(names, "names");
      return this;
    }

    /**
     * @param clock the source of {@code created_at}; default the UTC system clock
     * @return this builder
     */
    public Builder withClock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * @param limits payload, header count and header size limits; default {@link MessageLimits#defaults()}
     * @return this builder
     */
    public Builder withLimits(MessageLimits limits) {
      this.limits = Objects.requireNonNull(limits, "limits");
      return this;
    }

    /**
     * On PostgreSQL, also run {@code pg_notify('<prefix>outbox', '')} in the caller's transaction, so a
     * {@link PostgresWakeUpListener} wakes a relay when it commits. Costs one round trip per write, and NOTIFY
     * serialises the commits of notifying transactions briefly (see {@code docs/schema.md}). Ignored on other
     * databases.
     *
     * @param enabled {@code true} to notify; default {@code false}
     * @return this builder
     */
    public Builder withWakeUpNotify(boolean enabled) {
      this.wakeUpNotify = enabled;
      return this;
    }

    /**
     * On PostgreSQL with pgjdbc, let the driver prepare the writer's statements as the caller's connection decides
     * ({@code prepareThreshold}, 5 by default: a named server-side statement from its fifth run on a connection),
     * instead of sending them unnamed. That saves PostgreSQL a parse and a plan per write (about 60–70 µs of CPU per
     * write on the project's benchmark machine, {@code docs/benchmark-findings.md}). Only for applications that reach
     * PostgreSQL directly or through a pooler that keeps prepared statements per client (PgBouncer 1.21 or later with
     * {@code max_prepared_statements}): through PgBouncer in transaction mode before 1.21 a named statement can meet
     * another client's server connection ({@code prepared statement "S_1" does not exist}). Ignored with other
     * drivers. The relay's own statements stay unnamed either way.
     *
     * @param enabled {@code true} to let the driver prepare; default {@code false} (every statement unnamed, which
     *     works through any pooler)
     * @return this builder
     */
    public Builder withPreparedStatements(boolean enabled) {
      this.preparedStatements = enabled;
      return this;
    }

    /** @return the writer */
    public JdbcOutbox build() {
      return new JdbcOutbox(this);
    }
  }
}
