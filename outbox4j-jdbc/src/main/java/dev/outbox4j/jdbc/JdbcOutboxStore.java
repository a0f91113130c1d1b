package dev.outbox4j.jdbc;

import dev.outbox4j.Message;
import dev.outbox4j.MessageLimits;
import dev.outbox4j.OutboxEntry;
import dev.outbox4j.OutboxException;
import dev.outbox4j.QuarantineReason;
import dev.outbox4j.jdbc.internal.LazyDialect;
import dev.outbox4j.jdbc.internal.StatementTimeouts;
import dev.outbox4j.spi.Claim;
import dev.outbox4j.spi.ClaimRequest;
import dev.outbox4j.spi.DeliveredAndClaimed;
import dev.outbox4j.spi.OperatorAction;
import dev.outbox4j.spi.OperatorPause;
import dev.outbox4j.spi.DestinationStats;
import dev.outbox4j.spi.OutboxStats;
import dev.outbox4j.spi.OutboxStore;
import dev.outbox4j.spi.QuarantineGroups;
import dev.outbox4j.spi.QuarantineQuery;
import dev.outbox4j.spi.QuarantineSelector;
import dev.outbox4j.spi.Retention;
import dev.outbox4j.spi.WaitingSelector;
import java.sql.Connection;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * An {@link OutboxStore} in a relational database (PostgreSQL, MariaDB/MySQL or H2) reached through a
 * {@link DataSource}. Its tables come from the migration files under {@code db/outbox4j/<dialect>/} (apply them with
 * {@link #migrate()} or your own migration tool); see {@code docs/schema.md}.
 *
 * <p>A thin facade over its parts, each in a class of its own with the SQL it runs beside its dialect's pieces:
 * {@link ClaimFace} (which {@link ClaimStrategy} holds claims, and the leased-row claim), {@link LeasedBatchClaims}
 * (PostgreSQL's default claim and its fenced completions), {@link Completions} (the outcomes of claims, fenced by the
 * strategy that made them), {@link EntryFace} (find, save and the version-checked transitions for tools and hosts that
 * drive delivery themselves), {@link OperatorFace} (quarantine, waiting entries, pauses, audit, purge) and
 * {@link StatsFace} (the stats). What they share, a unit of work on one of the store's own connections, is
 * {@link StoreJdbc}. Its length is the SPI's surface, each method one line handing over to a part, and its
 * {@link Builder}: no SQL lives here.
 *
 * <h2>Round trips</h2>
 * On PostgreSQL (leased batches) a claim is one short transaction of two or three statements and a durable commit, then
 * one read of the claimed entries; a completion is one statement. Under leased rows a claim is the reads, a locking
 * statement and the claim (one transaction), and a batch completion one statement per token and 500 claims.
 * {@link #markFailed}, {@link #postpone} and {@link #quarantine} are one auto-commit statement each.
 * A claim with runs ({@code maxRun > 1}) adds one read of the entries behind the heads, and on MariaDB/MySQL and H2
 * one locking read of them.
 *
 * <h2>Timeouts</h2>
 * No call may wait on the database for ever: every statement carries a query timeout
 * ({@link Builder#withQueryTimeout}, default {@value #DEFAULT_QUERY_TIMEOUT_SECONDS} s), which the server enforces, and
 * every borrowed connection a network timeout a little longer, which the driver enforces on its socket reads, so even a
 * half-open connection (a failover without a TCP reset) fails the call instead of blocking a relay for hours.
 *
 * <h2>Starting while the database is down</h2>
 * The dialect, when not given, is detected on the first call that needs the database, not in {@link Builder#build()}:
 * a relay process started during an outage starts, its passes fail, and it carries on once the database is back.
 *
 * <p>The store uses its own connections, one short transaction per call. They should run at READ COMMITTED (the
 * default of PostgreSQL and H2); the default REPEATABLE READ of MariaDB/MySQL also works: each claim transaction
 * starts with its candidate read, so its snapshot is taken at the claim, and its locks are taken by primary key on
 * rows that exist, so they lock no gaps. Thread-safe.
 */
public final class JdbcOutboxStore implements OutboxStore, AutoCloseable {

  /** The component name of the outbox migrations ({@code db/outbox4j/<dialect>/}). */
  public static final String COMPONENT = "outbox4j";
  /** The outbox migration files, in version order. */
  public static final List<String> MIGRATIONS =
      List.of("V1__outbox.sql", "V2__claim_heads.sql", "V3__entry_states.sql",
          "V4__key_numbering_plan.sql", "V5__session_claims.sql", "V6__first_failure.sql",
          "V7__destination_pauses.sql", "V8__operator_audit.sql", "V9__in_doubt.sql",
          "V10__claim_table_indexes.sql", "V11__claim_last_seq_index.sql",
          "V12__key_lock_without_versions.sql", "V13__unkeyed_lanes_by_destination.sql",
          "V14__late_copies_of_discarded_keys.sql");
  /** The default {@link Builder#withQueryTimeout query timeout}, in seconds. */
  public static final int DEFAULT_QUERY_TIMEOUT_SECONDS = 30;
  /** The most one claim returns, whatever limit is asked: keeps its statements within every driver's parameter limit. */
  static final int MAX_CLAIM = 10_000;

  /**
   * @param dataSource where the outbox tables live; the store takes short-lived connections from it
   * @return a builder with the defaults: dialect detected on first use, prefix {@value TableNames#DEFAULT_PREFIX},
   *     UTC system clock, delete on delivery, default message limits, query timeout
   *     {@value #DEFAULT_QUERY_TIMEOUT_SECONDS} s
   */
  public static Builder builder(DataSource dataSource) {
    return new Builder(dataSource);
  }

  /**
   * Applies the outbox migrations with the default table names; does nothing when they are applied.
   *
   * @param dataSource the database
   * @return how many migration files were applied now
   * @throws OutboxException if a migration fails
   */
  public static int migrate(DataSource dataSource) {
    return new SchemaMigrator(dataSource, JdbcDialect.detect(dataSource), TableNames.defaults())
        .migrate(COMPONENT, MIGRATIONS);
  }

  /**
   * Applies the outbox migrations for this store's dialect and table names; idempotent.
   *
   * @return how many migration files were applied now
   * @throws OutboxException if a migration fails
   */
  public int migrate() {
    return new SchemaMigrator(claims.dataSource, dialect(), claims.names).migrate(COMPONENT, MIGRATIONS);
  }

  /**
   * PostgreSQL only, opt-in: installs a statement-level trigger on the outbox table that notifies the wake-up channel
   * ({@code <prefix>outbox}) at the commit of every transaction that inserted rows, whoever wrote them (another
   * application's plain SQL included), so a relay listening with {@link PostgresWakeUpListener} hears them at once.
   * Idempotent; needs the right to create functions and triggers on the outbox table. Writers pay the notification
   * queue's lock at commit (docs/schema.md, "PostgreSQL wake-up").
   *
   * @throws UnsupportedOperationException on a database other than PostgreSQL
   * @throws OutboxException if the statements fail
   */
  public void installNotifyTrigger() {
    notifyTrigger().install();
  }

  /**
   * Removes what {@link #installNotifyTrigger()} installed; does nothing when it is not there.
   *
   * @throws UnsupportedOperationException on a database other than PostgreSQL
   * @throws OutboxException if the statements fail
   */
  public void removeNotifyTrigger() {
    notifyTrigger().remove();
  }

  /**
   * @return whether the outbox table has the notify trigger of {@link #installNotifyTrigger()}
   * @throws UnsupportedOperationException on a database other than PostgreSQL
   */
  public boolean hasNotifyTrigger() {
    return notifyTrigger().installed();
  }

  private PostgresNotifyTrigger notifyTrigger() {
    postgresOnly("the notify trigger (LISTEN/NOTIFY)", "relays there wake up by their poll");
    return new PostgresNotifyTrigger(claims.dataSource, claims.names);
  }

  private void postgresOnly(String what, String elsewhere) {
    JdbcDialect dialect = dialect();
    if (!(dialect instanceof PostgresDialect)) {
      throw new UnsupportedOperationException(what + " needs PostgreSQL; this database's dialect is "
          + dialect.getClass().getSimpleName() + ": " + elsewhere);
    }
  }

  /**
   * Has PostgreSQL number keyed entries at insert or at commit (the default), for writers of every language. Numbering
   * at insert is for writers that run at SERIALIZABLE: the default's commit-time write-back makes PostgreSQL refuse
   * many of their keyed commits with {@code 40001}; at insert a key's writers wait for each other from the insert to
   * the end of the transaction instead of only while committing. Key order is commit order either way, and the relays
   * need no change: switching is safe while they and the writers run (it waits for open writers to end). Idempotent;
   * needs the right to create functions and triggers on the outbox table. See docs/schema.md, "Writers at
   * SERIALIZABLE".
   *
   * @param numbering when keyed entries are numbered
   * @throws UnsupportedOperationException on a database other than PostgreSQL (the MariaDB/MySQL and H2 schemas always
   *     number at insert)
   * @throws OutboxException if the statements fail
   */
  public void useKeyNumbering(KeyNumbering numbering) {
    keyNumbering().use(Objects.requireNonNull(numbering, "numbering"));
  }

  /**
   * @return when the outbox table's trigger numbers keyed entries now
   * @throws UnsupportedOperationException on a database other than PostgreSQL
   */
  public KeyNumbering keyNumberingInUse() {
    return keyNumbering().current();
  }

  private PostgresKeyNumbering keyNumbering() {
    postgresOnly("choosing when keys are numbered", "their schema numbers keys at insert");
    return new PostgresKeyNumbering(claims.dataSource, claims.names);
  }

  /**
   * @return the write side over the same tables, dialect, clock and limits; LISTEN/NOTIFY wake-up off (see
   *     {@link JdbcOutbox.Builder#withWakeUpNotify})
   */
  public JdbcOutbox outbox() {
    return outboxBuilder().build();
  }

  /**
   * @return a writer builder preset with this store's table names, clock, limits and prepared-statements setting
   *     ({@link Builder#withPreparedStatements}), and its dialect when known (a
   *     dialect not yet detected is detected by the writer from the caller's own connection, never from another one)
   */
  public JdbcOutbox.Builder outboxBuilder() {
    JdbcOutbox.Builder builder = JdbcOutbox.builder().withTableNames(claims.names).withClock(claims.clock)
        .withLimits(claims.limits).withPreparedStatements(claims.preparedStatements);
    JdbcDialect known = claims.dialect instanceof LazyDialect lazy ? lazy.detectedOrNull() : claims.dialect;
    return known == null ? builder : builder.withDialect(known);
  }

  /**
   * @return the dialect in use
   * @throws OutboxException if it must still be detected and the database cannot be reached
   */
  public JdbcDialect dialect() {
    return claims.resolvedDialect();
  }

  /** @return the query timeout every statement carries; {@link Duration#ZERO} for none */
  public Duration queryTimeout() {
    return claims.timeouts.queryTimeout();
  }

  /** @return whether the driver may prepare the store's statements on the server ({@link Builder#withPreparedStatements}) */
  public boolean preparedStatements() {
    return claims.preparedStatements;
  }

  /** @return the table names in use */
  public TableNames tableNames() {
    return claims.names;
  }

  /** Holds nothing: every claim lives in the database. Kept so that code closing a store goes on compiling. */
  @Override
  public void close() {}

  @Override
  public Retention retention() {
    return claims.retention;
  }

  private final ClaimFace claims;
  private final Completions completions;
  private final EntryFace entries;
  private final OperatorFace operator;
  private final StatsFace statsFace;
  private volatile boolean oneCommitPerBatch;

  private JdbcOutboxStore(Builder builder) {
    StoreJdbc store = new StoreJdbc(builder.dataSource, builder.dialect, builder.names, builder.clock,
        builder.retention, builder.limits, builder.queryTimeout, builder.preparedStatements) {};
    this.claims = new ClaimFace(store, builder.claimStrategy);
    this.completions = new Completions(claims);
    this.entries = new EntryFace(store);
    this.operator = new OperatorFace(store);
    this.statsFace = new StatsFace(store);
  }

  /**
   * @return how this store holds its claims: the strategy given to the builder, else the database's default
   *     ({@link ClaimStrategy#LEASED_BATCHES} on PostgreSQL, {@link ClaimStrategy#LEASED_ROWS} elsewhere; detecting
   *     the dialect may connect)
   * @throws IllegalStateException when {@link ClaimStrategy#LEASED_BATCHES} was asked for on another database
   */
  public ClaimStrategy claimStrategy() {
    return claims.claimStrategy();
  }

  @Override
  public List<Claim> claim(int limit, Instant now, Duration lease) {
    return claims.claim(limit, now, lease);
  }

  @Override
  public List<Claim> claim(int limit, Instant now, Duration lease, int maxRun) {
    return claims.claim(limit, now, lease, maxRun);
  }

  /**
   * Leaves out the entries of {@code skippedDestinations} without reading their backlog: the unkeyed entries of every
   * other destination are read from an index by destination (migration V13), see {@code docs/schema.md}, "Claims".
   */
  @Override
  public List<Claim> claim(int limit, Instant now, Duration lease, int maxRun, Set<String> skippedDestinations) {
    return claims.claim(limit, now, lease, maxRun, Set.copyOf(skippedDestinations));
  }

  @Override
  public List<Claim> markDelivered(Collection<Claim> claims, Instant now) {
    return completions.markDelivered(claims, now);
  }

  /**
   * Has the relay retire a full batch's last confirmations in its next claim's transaction (one commit per batch
   * instead of two; see {@code docs/relay.md}, "One commit per batch"). Off by default: on PostgreSQL the step measured
   * slower than the two calls. Set it before the relay starts.
   *
   * @param enabled whether the relay takes the combined step
   */
  public void useOneCommitPerBatch(boolean enabled) {
    this.oneCommitPerBatch = enabled;
  }

  @Override
  public boolean combinesDeliveredAndClaim() {
    return oneCommitPerBatch;
  }

  /**
   * Retires the confirmed claims inside the claim's own transaction, so that one durable commit takes both (see
   * {@code docs/relay.md}, "One commit per batch"); on PostgreSQL, MariaDB/MySQL and H2, with either claim strategy.
   */
  @Override
  public DeliveredAndClaimed markDeliveredAndClaim(Collection<Claim> delivered, Instant deliveredAt,
      ClaimRequest next) {
    return completions.markDeliveredAndClaim(delivered, deliveredAt, next);
  }

  @Override
  public List<Claim> release(Collection<Claim> claims) {
    return completions.release(claims);
  }

  @Override
  public boolean markFailed(Claim claim, String error, Instant nextAttemptAt) {
    return completions.markFailed(claim, error, nextAttemptAt);
  }

  @Override
  public boolean postpone(Claim claim, String reason, Instant nextAttemptAt) {
    return completions.postpone(claim, reason, nextAttemptAt);
  }

  @Override
  public List<Claim> postpone(Collection<Claim> claims, String reason, Instant nextAttemptAt) {
    return completions.postpone(claims, reason, nextAttemptAt);
  }

  @Override
  public boolean quarantine(Claim claim, QuarantineReason reason, Instant lateCopiesLandBy) {
    return completions.quarantine(claim, reason, lateCopiesLandBy);
  }

  @Override
  public OutboxEntry enqueue(Message message) {
    return entries.enqueue(message);
  }

  @Override
  public Optional<OutboxEntry> find(UUID id) {
    return entries.find(id);
  }

  @Override
  public List<OutboxEntry> findPending(int max) {
    return entries.findPending(max);
  }

  @Override
  public List<OutboxEntry> findRetryReady(Instant now, int max) {
    return entries.findRetryReady(now, max);
  }

  @Override
  public OutboxEntry markDelivered(OutboxEntry entry, @Nullable String result) {
    return entries.markDelivered(entry, result);
  }

  @Override
  public OutboxEntry markFailed(OutboxEntry entry, String error, @Nullable Instant nextRetryAt) {
    return entries.markFailed(entry, error, nextRetryAt);
  }

  @Override
  public OutboxEntry markDeadLettered(OutboxEntry entry, String error, @Nullable String reason) {
    return entries.markDeadLettered(entry, error, reason);
  }

  /** @return where the claim window starts reading ({@link ClaimFloor}); for tests */
  long claimFloor() {
    return claims.claimFloor();
  }

  /** @return how many leased batches this store remembers ({@link LeasedBatchClaims}); for tests */
  int rememberedBatches() {
    return claims.batchClaims.rememberedBatches();
  }

  @Override
  public OutboxEntry save(OutboxEntry given) {
    OutboxEntry saved = entries.save(given);
    claims.waitingChanged(); // the entry may wait again below the claim's floor
    return saved;
  }

  @Override
  public List<OutboxEntry> quarantined(QuarantineQuery query) {
    return operator.quarantined(query);
  }

  @Override
  public Optional<Map<String, @Nullable String>> rawColumns(UUID id) {
    return operator.rawColumns(id);
  }

  @Override
  public boolean requeue(UUID id, Instant now) {
    boolean requeued = operator.requeue(id, now);
    claims.waitingChanged(); // it waits again, below the claim's floor
    return requeued;
  }

  @Override
  public boolean discard(UUID id) {
    return operator.discard(id);
  }

  @Override
  public int requeueAll(QuarantineSelector selector, Instant now, int limit) {
    int requeued = operator.requeueAll(selector, now, limit);
    claims.waitingChanged();
    return requeued;
  }

  @Override
  public int discardAll(QuarantineSelector selector, int limit) {
    return operator.discardAll(selector, limit);
  }

  @Override
  public List<OutboxEntry> quarantined(QuarantineSelector selector, QuarantineQuery query) {
    return operator.quarantined(selector, query);
  }

  @Override
  public int countQuarantined(QuarantineSelector selector) {
    return operator.countQuarantined(selector);
  }

  @Override
  public QuarantineGroups quarantineGroups(int limit) {
    return operator.quarantineGroups(limit);
  }

  @Override
  public void recordOperatorAction(OperatorAction action) {
    operator.recordOperatorAction(action);
  }

  @Override
  public List<OperatorAction> operatorActions(int limit) {
    return operator.operatorActions(limit);
  }

  @Override
  public int countWaiting(WaitingSelector selector, Instant now) {
    return operator.countWaiting(selector, now);
  }

  @Override
  public int parkWaiting(WaitingSelector selector, Instant now, int limit) {
    return operator.parkWaiting(selector, now, limit);
  }

  @Override
  public int discardWaiting(WaitingSelector selector, Instant now, int limit) {
    return operator.discardWaiting(selector, now, limit);
  }

  @Override
  public boolean pauseDestination(String destination, String by, String reason, Instant now) {
    return operator.pauseDestination(destination, by, reason, now);
  }

  @Override
  public boolean resumeDestination(String destination) {
    return operator.resumeDestination(destination);
  }

  @Override
  public List<OperatorPause> operatorPauses() {
    return operator.operatorPauses();
  }

  @Override
  public int purgeDelivered(Instant now, int limit) {
    return operator.purgeDelivered(now, limit);
  }

  @Override
  public OutboxStats stats(Instant now) {
    return statsFace.stats(now);
  }

  @Override
  public List<DestinationStats> destinationStats(Instant now, int limit) {
    return statsFace.destinationStats(now, limit);
  }

  /** Configures a {@link JdbcOutboxStore}. Not thread-safe; {@link #build()} returns an immutable store. */
  public static final class Builder {
    private final DataSource dataSource;
    private @Nullable JdbcDialect dialect;
    private TableNames names = TableNames.defaults();
    private Clock clock = Clock.systemUTC();
    private Retention retention = Retention.deleteOnDelivery();
    private MessageLimits limits = MessageLimits.defaults();
    private Duration queryTimeout = Duration.ofSeconds(DEFAULT_QUERY_TIMEOUT_SECONDS);
    private @Nullable ClaimStrategy claimStrategy;
    private boolean preparedStatements;

    private Builder(DataSource dataSource) {
      this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    }

    /**
     * @param dialect the database dialect; default detected from the database's metadata on first use
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
     * @param prefix the table prefix (schema unchanged)
     * @return this builder
     * @throws IllegalArgumentException if the prefix is not a plain identifier
     */
    public Builder withTablePrefix(String prefix) {
      this.names = new TableNames(names.schema(), prefix);
      return this;
    }

    /**
     * @param schema the schema (a database on MariaDB/MySQL), or {@code null} for the connection's default
     * @return this builder
     * @throws IllegalArgumentException if the schema is not a plain identifier
     */
    public Builder withSchema(@Nullable String schema) {
      this.names = new TableNames(schema, names.prefix());
      return this;
    }

    /**
     * @param clock the time of creation and of entry-face changes; default the UTC system clock
     * @return this builder
     */
    public Builder withClock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * @param retention what to do with delivered entries; default {@link Retention#deleteOnDelivery()}
     * @return this builder
     */
    public Builder withRetention(Retention retention) {
      this.retention = Objects.requireNonNull(retention, "retention");
      return this;
    }

    /**
     * @param limits the limits {@link JdbcOutboxStore#enqueue} and {@link JdbcOutboxStore#save} check; default {@link MessageLimits#defaults()}
     * @return this builder
     */
    public Builder withLimits(MessageLimits limits) {
      this.limits = Objects.requireNonNull(limits, "limits");
      return this;
    }

    /**
     * How long any one statement of the store may run. The server cancels a statement that runs longer (JDBC's
     * {@link java.sql.Statement#setQueryTimeout}, whole seconds, rounded up), and each borrowed connection gets a
     * network timeout of this plus {@value StatementTimeouts#NETWORK_MARGIN_SECONDS} s
     * ({@link Connection#setNetworkTimeout}), so a call on a half-open connection fails instead of hanging. Keep it
     * well below the relay's lease. Connection pools reset the network timeout when the connection is returned.
     *
     * @param timeout the bound; default {@value #DEFAULT_QUERY_TIMEOUT_SECONDS} s; {@link Duration#ZERO} for none
     * @return this builder
     * @throws IllegalArgumentException if the timeout is negative or finer than whole seconds would express
     */
    public Builder withQueryTimeout(Duration timeout) {
      Objects.requireNonNull(timeout, "queryTimeout");
      if (timeout.isNegative()) {
        throw new IllegalArgumentException("queryTimeout must not be negative, was " + timeout);
      }
      if (!timeout.isZero() && timeout.compareTo(Duration.ofSeconds(1)) < 0) {
        throw new IllegalArgumentException("queryTimeout must be zero (none) or at least 1 second, was " + timeout);
      }
      this.queryTimeout = timeout;
      return this;
    }

    /**
     * @param strategy how claims are held; default {@link ClaimStrategy#LEASED_BATCHES} on PostgreSQL and
     *     {@link ClaimStrategy#LEASED_ROWS} elsewhere. {@link ClaimStrategy#LEASED_BATCHES} needs PostgreSQL: claiming
     *     on another database fails with an {@link IllegalStateException}
     * @return this builder
     */
    public Builder withClaimStrategy(ClaimStrategy strategy) {
      this.claimStrategy = Objects.requireNonNull(strategy, "strategy");
      return this;
    }

    /**
     * On PostgreSQL, lets pgjdbc prepare the store's statements (the claims, completions and operator statements, and
     * the writer {@link JdbcOutboxStore#outboxBuilder()} presets) as the connection's {@code prepareThreshold}
     * decides, instead of sending each one unnamed. A prepared statement saves PostgreSQL a parse and a plan per
     * execution: about 3 ms of a relay's p50 latency per pass on a busy 2-core machine ({@code docs/benchmarks.md}).
     * Only where each pooled connection keeps its server session: directly, through a session-mode pooler, or through
     * PgBouncer 1.21+ with {@code max_prepared_statements}. Through a transaction-mode pooler without that, a named
     * statement may be missing or another client's on the next transaction's server connection ({@code prepared
     * statement "S_3" does not exist}), and the store's calls fail; the relay's {@code doctor} reports that as
     * unsafe. The statements that must be planned for the table as it is (those outside the claim's transaction)
     * stay unnamed either way. Other databases and drivers ignore it.
     *
     * @param enabled whether the driver may prepare the statements; default false (every statement unnamed, safe
     *     through any pooler; see {@code docs/stores.md}, "The session contract")
     * @return this builder
     */
    public Builder withPreparedStatements(boolean enabled) {
      this.preparedStatements = enabled;
      return this;
    }

    /**
     * Builds the store without connecting: when no dialect was given, it is detected on the first call that reaches
     * the database, so a store (and a relay over it) can be built while the database is down.
     *
     * @return the store
     */
    public JdbcOutboxStore build() {
      return new JdbcOutboxStore(this);
    }
  }
}
