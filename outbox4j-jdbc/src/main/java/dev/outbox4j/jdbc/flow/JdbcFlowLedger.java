package dev.outbox4j.jdbc.flow;

import dev.outbox4j.OutboxException;
import dev.outbox4j.flow.FlowLedger;
import dev.outbox4j.flow.FlowState;
import dev.outbox4j.flow.FlowStateCodec;
import dev.outbox4j.flow.FlowStateFormat;
import dev.outbox4j.flow.LeaseObservation;
import dev.outbox4j.jdbc.JdbcDialect;
import dev.outbox4j.jdbc.SchemaMigrator;
import dev.outbox4j.jdbc.TableNames;
import dev.outbox4j.jdbc.internal.ConnectionWork;
import dev.outbox4j.jdbc.internal.DuplicateTolerantInsert;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * A {@link FlowLedger} in one database table, on its own autocommit connections from a {@link DataSource}.
 *
 * <p>Why every operation is one guarded statement: each compare-and-set (revision, lease owner, lease expiry, time to
 * live) is a condition in the WHERE clause of a single UPDATE, so the database's row lock makes it atomic and a zero
 * row count is the answer "no". Concurrent updates of one row queue on its lock and re-check the condition against the
 * committed winner (PostgreSQL and H2 re-evaluate, InnoDB reads the latest version), so exactly one of them wins.
 * Creation is insert-if-absent on the primary key, after deleting an expired row of the same id, so an expired flow
 * can be created again and two creators can never both succeed.
 *
 * <p>"Now" is always a bound parameter taken from the injected clock, never the database's clock, so replicas and
 * tests agree on what has expired; instants are stored as UTC with microsecond precision (see {@link JdbcDialect}).
 * The stored content is the codec's bytes verbatim in a binary column, so malformed content survives to be reported
 * as unreadable rather than being refused or normalised by the database.
 *
 * <p>Immutable and thread-safe.
 *
 * @param <B> the body type
 */
public final class JdbcFlowLedger<B> implements FlowLedger<B> {
  private static final String COMPONENT = "outbox4j";
  private static final String SCRIPT = "V101__flow_ledger.sql";

  private final DataSource dataSource;
  private final JdbcDialect dialect;
  private final TableNames names;
  private final Clock clock;
  private final FlowStateFormat<B> format;
  private final String table;
  private final String insert;
  private final boolean insertIgnoresDuplicates;

  private JdbcFlowLedger(Builder<B> builder, JdbcDialect dialect) {
    this.dataSource = builder.dataSource;
    this.dialect = dialect;
    this.names = builder.names;
    this.clock = builder.clock;
    this.format = FlowStateFormat.of(builder.codec, builder.maxStateBytes);
    this.table = names.qualified("flow_ledger");
    DuplicateTolerantInsert insertIfAbsent = DuplicateTolerantInsert.into(dialect, table,
        " (flow_id, revision, content, expires_at, updated_at) VALUES (?, ?, ?, ?, ?)");
    this.insert = insertIfAbsent.sql();
    this.insertIgnoresDuplicates = insertIfAbsent.ignoresDuplicates();
  }

  /**
   * @param dataSource the database
   * @param codec how states are serialized (for example {@code JsonFlowStateCodec.of(MyState.class)})
   * @param <B> the body type
   * @return a builder with the defaults: dialect detected, default table names, system UTC clock,
   *     {@value FlowLedger#DEFAULT_MAX_STATE_BYTES} bytes budget
   */
  public static <B> Builder<B> builder(DataSource dataSource, FlowStateCodec<B> codec) {
    return new Builder<>(dataSource, codec);
  }

  /**
   * Creates the flow-ledger table if this library's migration record says it is missing (runs
   * {@code V101__flow_ledger.sql} for the dialect, renamed for the configured table names). Teams that run Flyway or
   * Liquibase copy the file instead.
   *
   * @return {@code true} when the table was created now
   * @throws OutboxException if the migration fails
   */
  public boolean migrate() {
    return new SchemaMigrator(dataSource, dialect, names).migrate(COMPONENT, List.of(SCRIPT)) > 0;
  }

  /** @return the qualified name of the flow-ledger table */
  public String tableName() {
    return table;
  }

  @Override
  public void validateCreate(String flowId, FlowState<B> state, Duration ttl) {
    FlowLedger.checkFlowId(flowId);
    FlowLedger.checkPositive("ttl", ttl);
    format.encode(flowId, state);
  }

  @Override
  public boolean tryCreate(String flowId, FlowState<B> state, Duration ttl) {
    FlowLedger.checkFlowId(flowId);
    FlowLedger.checkPositive("ttl", ttl);
    byte[] content = format.encode(flowId, state);
    Instant now = clock.instant();
    return run("create", flowId, connection -> {
      try (PreparedStatement expired =
          connection.prepareStatement("DELETE FROM " + table + " WHERE flow_id = ? AND expires_at <= ?")) {
        expired.setString(1, flowId);
        dialect.setInstant(expired, 2, now);
        expired.executeUpdate();
      }
      try (PreparedStatement statement = connection.prepareStatement(insert)) {
        statement.setString(1, flowId);
        statement.setLong(2, state.revision());
        statement.setBytes(3, content);
        dialect.setInstant(statement, 4, now.plus(ttl));
        dialect.setInstant(statement, 5, now);
        return statement.executeUpdate() == 1;
      } catch (SQLException e) {
        if (!insertIgnoresDuplicates && dialect.isUniqueViolation(e)) {
          return false;
        }
        throw e;
      }
    });
  }

  @Override
  public Optional<FlowState<B>> load(String flowId) {
    FlowLedger.checkFlowId(flowId);
    Instant now = clock.instant();
    @Nullable StoredRow row = run("load", flowId, connection -> {
      try (PreparedStatement statement = connection.prepareStatement(
          "SELECT revision, content FROM " + table + " WHERE flow_id = ? AND expires_at > ?")) {
        statement.setString(1, flowId);
        dialect.setInstant(statement, 2, now);
        try (ResultSet rows = statement.executeQuery()) {
          return rows.next() ? new StoredRow(rows.getLong("revision"), rows.getBytes("content")) : null;
        }
      }
    });
    return row == null ? Optional.empty() : Optional.of(format.decode(flowId, row.revision(), row.content()));
  }

  @Override
  public boolean tryUpdate(
      String flowId, FlowState<B> state, long expectedRevision, Duration ttl, @Nullable String leaseId) {
    FlowLedger.checkFlowId(flowId);
    FlowLedger.checkPositive("ttl", ttl);
    FlowLedger.checkNextRevision(state, expectedRevision);
    if (leaseId != null) {
      FlowLedger.checkLeaseId(leaseId);
    }
    byte[] content = format.encode(flowId, state);
    Instant now = clock.instant();
    String sql = "UPDATE " + table + " SET content = ?, revision = ?, expires_at = ?, updated_at = ?"
        + " WHERE flow_id = ? AND revision = ? AND expires_at > ?"
        + (leaseId == null ? "" : " AND lease_owner = ? AND lease_until > ?");
    return run("update", flowId, connection -> {
      try (PreparedStatement statement = connection.prepareStatement(sql)) {
        statement.setBytes(1, content);
        statement.setLong(2, state.revision());
        dialect.setInstant(statement, 3, now.plus(ttl));
        dialect.setInstant(statement, 4, now);
        statement.setString(5, flowId);
        statement.setLong(6, expectedRevision);
        dialect.setInstant(statement, 7, now);
        if (leaseId != null) {
          statement.setString(8, leaseId);
          dialect.setInstant(statement, 9, now);
        }
        return statement.executeUpdate() == 1;
      }
    });
  }

  @Override
  public boolean tryAcquireLease(String flowId, String leaseId, Duration leaseDuration) {
    FlowLedger.checkFlowId(flowId);
    FlowLedger.checkLeaseId(leaseId);
    FlowLedger.checkPositive("leaseDuration", leaseDuration);
    Instant now = clock.instant();
    return run("acquire the lease of", flowId, connection -> {
      try (PreparedStatement statement = connection.prepareStatement("UPDATE " + table
          + " SET lease_owner = ?, lease_until = ? WHERE flow_id = ? AND expires_at > ?"
          + " AND (lease_owner IS NULL OR lease_until <= ?)")) {
        statement.setString(1, leaseId);
        dialect.setInstant(statement, 2, now.plus(leaseDuration));
        statement.setString(3, flowId);
        dialect.setInstant(statement, 4, now);
        dialect.setInstant(statement, 5, now);
        return statement.executeUpdate() == 1;
      }
    });
  }

  @Override
  public boolean tryRenewLease(String flowId, String leaseId, Duration leaseDuration) {
    FlowLedger.checkFlowId(flowId);
    FlowLedger.checkLeaseId(leaseId);
    FlowLedger.checkPositive("leaseDuration", leaseDuration);
    Instant now = clock.instant();
    return run("renew the lease of", flowId, connection -> {
      try (PreparedStatement statement = connection.prepareStatement("UPDATE " + table
          + " SET lease_until = ? WHERE flow_id = ? AND expires_at > ? AND lease_owner = ? AND lease_until > ?")) {
        dialect.setInstant(statement, 1, now.plus(leaseDuration));
        statement.setString(2, flowId);
        dialect.setInstant(statement, 3, now);
        statement.setString(4, leaseId);
        dialect.setInstant(statement, 5, now);
        return statement.executeUpdate() == 1;
      }
    });
  }

  @Override
  public boolean releaseLease(String flowId, String leaseId) {
    FlowLedger.checkFlowId(flowId);
    FlowLedger.checkLeaseId(leaseId);
    Instant now = clock.instant();
    return run("release the lease of", flowId, connection -> {
      try (PreparedStatement statement = connection.prepareStatement("UPDATE " + table
          + " SET lease_owner = NULL, lease_until = NULL WHERE flow_id = ? AND expires_at > ? AND lease_owner = ?")) {
        statement.setString(1, flowId);
        dialect.setInstant(statement, 2, now);
        statement.setString(3, leaseId);
        return statement.executeUpdate() == 1;
      }
    });
  }

  @Override
  public LeaseObservation observeLease(String flowId) {
    FlowLedger.checkFlowId(flowId);
    Instant now = clock.instant();
    return run("observe the lease of", flowId, connection -> {
      try (PreparedStatement statement = connection.prepareStatement(
          "SELECT lease_owner, lease_until FROM " + table + " WHERE flow_id = ? AND expires_at > ?")) {
        statement.setString(1, flowId);
        dialect.setInstant(statement, 2, now);
        try (ResultSet rows = statement.executeQuery()) {
          if (!rows.next()) {
            return LeaseObservation.unheld();
          }
          String owner = rows.getString("lease_owner");
          Instant until = dialect.getInstant(rows, "lease_until");
          return owner == null || until == null ? LeaseObservation.unheld() : LeaseObservation.held(owner, until);
        }
      }
    });
  }

  @Override
  public boolean tryDelete(String flowId) {
    FlowLedger.checkFlowId(flowId);
    Instant now = clock.instant();
    return run("delete", flowId, connection -> {
      boolean present;
      try (PreparedStatement live =
          connection.prepareStatement("DELETE FROM " + table + " WHERE flow_id = ? AND expires_at > ?")) {
        live.setString(1, flowId);
        dialect.setInstant(live, 2, now);
        present = live.executeUpdate() == 1;
      }
      if (!present) {
        try (PreparedStatement expired = connection.prepareStatement("DELETE FROM " + table + " WHERE flow_id = ?")) {
          expired.setString(1, flowId);
          expired.executeUpdate();
        }
      }
      return present;
    });
  }

  @Override
  public int purgeExpired(int limit) {
    if (limit <= 0) {
      throw new IllegalArgumentException("limit must be positive, was " + limit);
    }
    Instant now = clock.instant();
    String sql = dialect.deleteLimited(table, "expires_at <= ?", "expires_at");
    return run("purge", "(expired flows)", connection -> {
      try (PreparedStatement statement = connection.prepareStatement(sql)) {
        dialect.setInstant(statement, 1, now);
        statement.setInt(2, limit);
        return statement.executeUpdate();
      }
    });
  }

  private record StoredRow(long revision, byte[] content) {}

  private <R extends @Nullable Object> R run(String action, String flowId, ConnectionWork<R> work) {
    return ConnectionWork.inAutoCommit(dataSource, work, e -> new OutboxException(
        "the flow ledger could not " + action + " flow '" + flowId + "': " + e.getMessage(), e));
  }

  /**
   * Configures a {@link JdbcFlowLedger}. Not thread-safe; {@link #build()} produces an immutable ledger.
   *
   * @param <B> the body type
   */
  public static final class Builder<B> {
    private final DataSource dataSource;
    private final FlowStateCodec<B> codec;
    private @Nullable JdbcDialect dialect;
    private TableNames names = TableNames.defaults();
    private Clock clock = Clock.system(ZoneOffset.UTC);
    private int maxStateBytes = FlowLedger.DEFAULT_MAX_STATE_BYTES;

    private Builder(DataSource dataSource, FlowStateCodec<B> codec) {
      this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
      this.codec = Objects.requireNonNull(codec, "codec");
    }

    /**
     * @param dialect the database's dialect; default detected from the database at {@link #build()}
     * @return this builder
     */
    public Builder<B> withDialect(JdbcDialect dialect) {
      this.dialect = Objects.requireNonNull(dialect, "dialect");
      return this;
    }

    /**
     * @param names the schema and table prefix; default {@link TableNames#defaults()} (table
     *     {@code outbox4j_flow_ledger})
     * @return this builder
     */
    public Builder<B> withTableNames(TableNames names) {
      this.names = Objects.requireNonNull(names, "names");
      return this;
    }

    /**
     * @param clock the source of "now" for TTLs and leases; default the system UTC clock. Every replica should use
     *     a synchronised clock: leases and TTLs are compared with the writer's time.
     * @return this builder
     */
    public Builder<B> withClock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * @param maxStateBytes the budget for one serialized state, in bytes; default
     *     {@value FlowLedger#DEFAULT_MAX_STATE_BYTES}
     * @return this builder
     * @throws IllegalArgumentException if not positive
     */
    public Builder<B> withMaxStateBytes(int maxStateBytes) {
      if (maxStateBytes <= 0) {
        throw new IllegalArgumentException("maxStateBytes must be positive, was " + maxStateBytes);
      }
      this.maxStateBytes = maxStateBytes;
      return this;
    }

    /**
     * @return the ledger
     * @throws OutboxException if the dialect must be detected and the database cannot be reached or is unsupported
     */
    public JdbcFlowLedger<B> build() {
      return new JdbcFlowLedger<>(this, dialect != null ? dialect : JdbcDialect.detect(dataSource));
    }
  }
}
