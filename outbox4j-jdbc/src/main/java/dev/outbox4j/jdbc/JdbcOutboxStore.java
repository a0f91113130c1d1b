package dev.outbox4j.jdbc;

import dev.outbox4j.DuplicateMessageException;
import dev.outbox4j.EntryNotFoundException;
import dev.outbox4j.EntryStatus;
import dev.outbox4j.Message;
import dev.outbox4j.MessageLimits;
import dev.outbox4j.OptimisticConflictException;
import dev.outbox4j.OutboxEntry;
import dev.outbox4j.OutboxException;
import dev.outbox4j.QuarantineKind;
import dev.outbox4j.QuarantineReason;
import dev.outbox4j.internal.EntryTransitions;
import dev.outbox4j.jdbc.internal.ConnectionWork;
import dev.outbox4j.jdbc.internal.LazyDialect;
import dev.outbox4j.jdbc.internal.StatementTimeouts;
import dev.outbox4j.spi.Claim;
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
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * An {@link OutboxStore} in a relational database (PostgreSQL, MariaDB/MySQL or H2) reached through a
 * {@link DataSource}. Its tables come from the migration files under {@code db/outbox4j/<dialect>/} (apply them with
 * {@link #migrate()} or your own migration tool); see {@code docs/schema.md}.
 *
 * <h2>Why the claim looks the way it does</h2>
 * An entry is claimable when it is pending or failed, available, not under an unexpired lease, and the head of its key:
 * no earlier undelivered entry of the same key exists (quarantined entries count as undelivered, so they block their
 * key). Because only the head of a key can qualify, at most one entry per key is ever claimed.
 *
 * <p>A claim first <em>finds candidates</em> with reads that take no locks (one consistent snapshot each): the first
 * waiting entries in {@code seq} order (the window), and only when that window is full of entries that cannot be
 * claimed, every key's head through one index descent per key plus the unkeyed entries from their own index. So a
 * backlog queued behind a few keys costs nothing: entries behind a head are never read. It then <em>locks the
 * candidates by primary key</em> with {@code FOR UPDATE SKIP LOCKED} (concurrent relays skip each other's rows, never
 * wait), re-checking each row's own state as last committed, and claims them. A candidate that was its key's head in the
 * snapshot is still the head when locked, because a key's entries are numbered in commit order: this holds on every
 * database, including MariaDB, whose locking reads see rows committed after the snapshot. The statements and the full
 * argument are in {@link ClaimSql} and {@code docs/schema.md}.
 *
 * <h2>Claim strategies</h2>
 * What is described here and under "Fencing" is the default, {@link ClaimStrategy#LEASED_ROWS}. On PostgreSQL 14+,
 * {@link ClaimStrategy#SESSION_LOCKS} finds candidates the same way but holds claims as advisory locks of one connection
 * the store keeps, writing nothing per claim (see {@code SessionClaims} and {@code docs/stores.md}); close such a store
 * after its relays.
 *
 * <h2>Rows it cannot read</h2>
 * Another application may write a row this store cannot turn into a {@link Message} (headers that are not a JSON object
 * of strings, a blank destination, content type, ordering key or header name). Candidates are found by columns that
 * are always readable, so such a row is only found out when its claimed row is read: it is then quarantined as
 * {@link QuarantineKind#UNREADABLE}, fenced by its version, and left out of the claim, so it never stops a claim and
 * blocks only its own key (see {@link OutboxRows#read} and {@code docs/stores.md}). Under leased rows on PostgreSQL
 * that happens just after the claim statement committed; without RETURNING, in the claim's transaction; under session
 * locks, after the re-read, its lock released at once. {@link #findPending} and {@link #findRetryReady} do the same;
 * {@link #find} and {@link #quarantined} show it with placeholders, and {@link #rawColumns} shows its text.
 *
 * <h2>Fencing</h2>
 * Each claim stores a fresh token in {@code claim_token}; every claim-face mutation is
 * {@code ... WHERE id = ? AND claim_token = ?}, so a relay whose claim was taken over (or cancelled by an entry-face
 * mutation, which clears the token) changes nothing and learns the claim was lost. A claim that merely expired with
 * nobody taking it over still applies: the token is still there. {@link #markDelivered(Collection, Instant)} retires a
 * whole batch in one statement per token.
 *
 * <h2>Entry face</h2>
 * Each mutation locks the row ({@code SELECT ... FOR UPDATE}), compares the caller's version, checks that the entry's
 * status allows the transition, writes, and commits: a stale version raises {@link OptimisticConflictException}, a
 * missing row {@link EntryNotFoundException}, a refused transition {@link dev.outbox4j.EntryTransitionException}.
 * {@link #save} inserts only a version-0 entry, so a stale copy of a deleted entry is never inserted again. These are
 * tool paths, so they favour exactness over round trips. The operator's bulk {@link #requeueAll} / {@link #discardAll}
 * lock and change at most 500 selected rows per transaction, as do {@link #parkWaiting} / {@link #discardWaiting}
 * (whose statements are in {@link OperatorSql}); a selection by {@linkplain dev.outbox4j.spi.QuarantineGroup group} is
 * narrowed in SQL and decided in Java over a few short columns per row (why: {@link OperatorSql}). Destination pauses
 * live in the table {@code outbox_destination_pause}, the audit log of operator actions in {@code operator_audit}.
 *
 * <h2>Round trips</h2>
 * On PostgreSQL a claim is two statements in auto-commit (the window, then lock-and-claim with RETURNING; three when
 * the heads must be looked up), and a batch completion is one ({@code DELETE/UPDATE ... RETURNING id}, per 500
 * claims). Without RETURNING (MariaDB/MySQL, H2) a claim is the reads, a locking SELECT, an UPDATE and COMMIT in one
 * transaction, and a batch completion is one statement + COMMIT when no claim was lost (a second, locking pass finds out which were lost only when the row count falls short).
 * {@link #markFailed}, {@link #postpone} and {@link #quarantine} are one auto-commit statement each.
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
  /** Attempts of one store unit of work that the database keeps choosing as a deadlock victim. */
  private static final int DEADLOCK_ATTEMPTS = 8;

  /** The component name of the outbox migrations ({@code db/outbox4j/<dialect>/}). */
  public static final String COMPONENT = "outbox4j";
  /** The outbox migration files, in version order. */
  public static final List<String> MIGRATIONS =
      List.of("V1__outbox.sql", "V2__claim_heads.sql", "V3__entry_states.sql",
          "V4__key_numbering_plan.sql", "V5__session_claims.sql", "V6__first_failure.sql",
          "V7__destination_pauses.sql", "V8__operator_audit.sql");
  /** The default {@link Builder#withQueryTimeout query timeout}, in seconds. */
  public static final int DEFAULT_QUERY_TIMEOUT_SECONDS = 30;

  private static final int MAX_IDS_PER_STATEMENT = 500;
  /** The most one claim returns, whatever limit is asked: keeps its statements within every driver's parameter limit. */
  static final int MAX_CLAIM = 10_000;
  private static final String WAITING = "status IN ('PENDING', 'FAILED')";
  /** The statuses that wait for an operator: listed, requeued and discarded by the operator face. */
  private static final String AWAITING_OPERATOR = OperatorSql.AWAITING_OPERATOR;

  private final DataSource dataSource;
  private final JdbcDialect dialect;
  private final TableNames names;
  private final Clock clock;
  private final Retention retention;
  private final MessageLimits limits;
  private final OutboxRows rows;
  private final String table;
  private final StatementTimeouts timeouts;
  /** The strategy asked for, or {@code null} for the database's default (known once the dialect is). */
  private final @Nullable ClaimStrategy claimStrategy;
  /** The claim's two reads, built on first use: the dialect may be detected only then. */
  private volatile @Nullable ClaimReads claimReads;
  /** Whether the last claim found the window clogged by a backlog behind few keys: see {@link #candidates}. */
  private volatile boolean headsFirst;
  /** The claim face under {@link ClaimStrategy#LEASED_BATCHES}, and the first step of a leased-row claim, on PostgreSQL. */
  private final LeasedBatchClaims batchClaims;

  private JdbcOutboxStore(Builder builder) {
    this.dataSource = Objects.requireNonNull(builder.dataSource, "dataSource");
    this.dialect = builder.dialect != null ? builder.dialect : new LazyDialect(dataSource);
    this.timeouts = new StatementTimeouts(builder.queryTimeout);
    this.names = builder.names;
    this.clock = builder.clock;
    this.retention = builder.retention;
    this.limits = builder.limits;
    this.claimStrategy = builder.claimStrategy;
    this.rows = new OutboxRows(dialect, names);
    this.table = rows.table;
    this.batchClaims = new LeasedBatchClaims(new LeasedBatchClaims.Connections() {
      @Override
      public <R> R inTransaction(String what, ConnectionWork<R> work) {
        return JdbcOutboxStore.this.inTransaction(what, work);
      }

      @Override
      public <R> R autoCommit(String what, ConnectionWork<R> work) {
        return JdbcOutboxStore.this.autoCommit(what, work);
      }
    }, this::headsAndUnkeyed, rows, table, names.qualified("outbox_claim"));
  }

  private record ClaimReads(String window, String headsAndUnkeyed) {}

  private ClaimReads claimReads() {
    ClaimReads reads = claimReads;
    if (reads == null) {
      reads = new ClaimReads(dialect.claimWindow(names), dialect.claimHeadsAndUnkeyed(names));
      claimReads = reads;
    }
    return reads;
  }

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
    return new SchemaMigrator(dataSource, dialect(), names).migrate(COMPONENT, MIGRATIONS);
  }

  /**
   * @return the write side over the same tables, dialect, clock and limits; LISTEN/NOTIFY wake-up off (see
   *     {@link JdbcOutbox.Builder#withWakeUpNotify})
   */
  public JdbcOutbox outbox() {
    return outboxBuilder().build();
  }

  /**
   * @return a writer builder preset with this store's table names, clock and limits, and its dialect when known (a
   *     dialect not yet detected is detected by the writer from the caller's own connection, never from another one)
   */
  public JdbcOutbox.Builder outboxBuilder() {
    JdbcOutbox.Builder builder = JdbcOutbox.builder().withTableNames(names).withClock(clock).withLimits(limits);
    JdbcDialect known = dialect instanceof LazyDialect lazy ? lazy.detectedOrNull() : dialect;
    return known == null ? builder : builder.withDialect(known);
  }

  /**
   * @return the dialect in use
   * @throws OutboxException if it must still be detected and the database cannot be reached
   */
  public JdbcDialect dialect() {
    return dialect instanceof LazyDialect lazy ? lazy.resolved() : dialect;
  }

  /** @return the query timeout every statement carries; {@link Duration#ZERO} for none */
  public Duration queryTimeout() {
    return timeouts.queryTimeout();
  }

  /** @return the table names in use */
  public TableNames tableNames() {
    return names;
  }

  /**
   * @return how this store holds its claims: the strategy given to the builder, else the database's default
   *     ({@link ClaimStrategy#LEASED_BATCHES} on PostgreSQL, {@link ClaimStrategy#LEASED_ROWS} elsewhere; detecting
   *     the dialect may connect)
   * @throws IllegalStateException when {@link ClaimStrategy#LEASED_BATCHES} was asked for on another database
   */
  public ClaimStrategy claimStrategy() {
    if (claimStrategy == ClaimStrategy.LEASED_ROWS) {
      return claimStrategy;
    }
    boolean postgres = isPostgres();
    if (claimStrategy == null) {
      return postgres ? ClaimStrategy.LEASED_BATCHES : ClaimStrategy.LEASED_ROWS;
    }
    if (claimStrategy == ClaimStrategy.LEASED_BATCHES && !postgres) {
      throw new IllegalStateException("ClaimStrategy.LEASED_BATCHES needs PostgreSQL; this store's database is "
          + dialect.name() + " (use ClaimStrategy.LEASED_ROWS, its default there)");
    }
    return claimStrategy;
  }

  /** Holds nothing: every claim lives in the database. Kept so that code closing a store goes on compiling. */
  @Override
  public void close() {}

  // ------------------------------------------------------------------------------------------ claim face

  @Override
  public List<Claim> claim(int limit, Instant now, Duration lease) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be positive, was " + limit);
    }
    if (lease.isNegative() || lease.isZero()) {
      throw new IllegalArgumentException("lease must be positive, was " + lease);
    }
    int wanted = Math.min(limit, MAX_CLAIM);
    Instant leaseUntil = JdbcDialect.storable(now.plus(lease));
    if (batches()) {
      return batchClaims.claim(wanted, now, lease, leaseUntil);
    }
    UUID token = UUID.randomUUID();
    List<OutboxEntry> claimed = isPostgres()
        ? inTransaction("claim", c -> {
          LeasedBatchClaims.Locked locked = batchClaims.lock(c, wanted, now, lease);
          if (locked.seqs().isEmpty()) {
            return List.of();
          }
          if (locked.takeOver()) {
            batchClaims.takeOver(c, locked.seqs(), now);
          }
          return claimLocked(c, locked.seqs(), now, leaseUntil, token);
        })
        : inTransaction("claim", c -> {
          List<Long> candidates = candidates(c, wanted, now);
          return candidates.isEmpty() ? List.of() : claimLockThenUpdate(c, candidates, wanted, now, leaseUntil, token);
        });
    List<Claim> claims = new ArrayList<>(claimed.size());
    claimed.stream().sorted(Comparator.comparingLong(OutboxEntry::sequence))
        .forEach(entry -> claims.add(new Claim(entry, token, leaseUntil)));
    return claims;
  }

  /**
   * Finds up to {@code 2 × limit} candidates (the spare ones let concurrent relays that found the same candidates
   * share them instead of one of them coming back empty). Reads only, no locks; see {@link ClaimSql}.
   *
   * <p>The heads-and-unkeyed statement alone is always a complete answer (every claimable entry is a key's head or
   * unkeyed); the window is a cheaper way to the same answer while the oldest waiting entries are mostly claimable.
   * So the window goes first, and the heads only when the window was full yet short; once that happened, the next
   * claims go to the heads directly (a backlog behind a few keys stays clogged for a while) until the heads alone
   * yield a full batch again, a sign that the window would do. This is only a hint shared by the callers of this
   * store; correctness never depends on it.
   *
   * @return candidate {@code seq}s, ascending
   */
  private List<Long> candidates(Connection connection, int limit, Instant now) throws SQLException {
    int spare = 2 * limit;
    if (headsFirst) {
      List<Long> heads = headsAndUnkeyed(connection, spare, now);
      headsFirst = heads.size() < limit;
      return heads;
    }
    List<Long> found = new ArrayList<>();
    int windowRows = 0;
    try (PreparedStatement window = connection.prepareStatement(claimReads().window())) {
      dialect.setInstant(window, 1, now);
      dialect.setInstant(window, 2, now);
      window.setInt(3, spare);
      try (ResultSet rows = window.executeQuery()) {
        while (rows.next()) {
          windowRows++;
          if (rows.getInt("claimable") == 1) {
            found.add(rows.getLong("seq"));
          }
        }
      }
    }
    if (windowRows < spare || found.size() >= limit) {
      return found;
    }
    List<Long> heads = headsAndUnkeyed(connection, spare, now);
    headsFirst = heads.size() < limit;
    return heads;
  }

  /** @return the seqs of up to {@code max} claimable key heads and unkeyed entries, ascending */
  private List<Long> headsAndUnkeyed(Connection connection, int max, Instant now) throws SQLException {
    List<Long> found = new ArrayList<>();
    try (PreparedStatement heads = connection.prepareStatement(claimReads().headsAndUnkeyed())) {
      dialect.setInstant(heads, 1, now);
      dialect.setInstant(heads, 2, now);
      dialect.setInstant(heads, 3, now);
      dialect.setInstant(heads, 4, now);
      heads.setInt(5, max);
      heads.setInt(6, max);
      try (ResultSet rows = heads.executeQuery()) {
        while (rows.next()) {
          found.add(rows.getLong("seq"));
        }
      }
    }
    return found;
  }

  /**
   * A leased-row claim on PostgreSQL, after {@link LeasedBatchClaims#lock} took the candidates' advisory locks in this
   * transaction: writes the token and lease into those that, read afresh (after the locks, so after the commit of any
   * claim that held them before), still wait, are ready and are in no batch row of {@link ClaimStrategy#LEASED_BATCHES}.
   */
  private List<OutboxEntry> claimLocked(Connection connection, List<Long> locked, Instant now, Instant leaseUntil,
      UUID token) throws SQLException {
    String sql = "UPDATE " + table + " o SET claim_token = ?, lease_until = ?, version = o.version + 1"
        + " WHERE o.seq = ANY(?) AND o." + WAITING + " AND " + ClaimSql.ready("o") + " AND o.seq NOT IN (SELECT"
        + " unnest(b.seqs) FROM " + names.qualified("outbox_claim") + " b) RETURNING " + OutboxRows.columns("o");
    try (PreparedStatement claim = connection.prepareStatement(sql)) {
      dialect.setUuid(claim, 1, token);
      dialect.setInstant(claim, 2, leaseUntil);
      claim.setArray(3, connection.createArrayOf("bigint", locked.toArray()));
      dialect.setInstant(claim, 4, now);
      dialect.setInstant(claim, 5, now);
      // A row that cannot be read is quarantined in this transaction, so it never stops the claim.
      return rows.quarantineUnreadable(connection, readRows(claim));
    }
  }

  /** The leased-row claim on MariaDB/MySQL and H2, without RETURNING: a locking SELECT by primary key, then an UPDATE by it. */
  private List<OutboxEntry> claimLockThenUpdate(Connection connection, List<Long> candidates, int limit,
      Instant now, Instant leaseUntil, UUID token) throws SQLException {
    String select = "SELECT " + OutboxRows.columns("c") + " FROM " + dialect.byPrimaryKey(table + " c")
        + " WHERE c.seq IN "
        + placeholders(candidates.size()) + " AND c." + WAITING + " AND " + ClaimSql.ready("c")
        + " ORDER BY c.seq LIMIT ? FOR UPDATE SKIP LOCKED";
    List<OutboxEntry> picked;
    try (PreparedStatement lock = connection.prepareStatement(select)) {
      int next = bindSeqs(lock, 1, candidates);
      dialect.setInstant(lock, next, now);
      dialect.setInstant(lock, next + 1, now);
      lock.setInt(next + 2, limit);
      picked = rows.quarantineUnreadable(connection, readRows(lock)); // locked: quarantined in this transaction
    }
    if (picked.isEmpty()) {
      return picked;
    }
    List<Long> seqs = picked.stream().map(OutboxEntry::sequence).toList();
    try (PreparedStatement claim = connection.prepareStatement("UPDATE " + dialect.byPrimaryKey(table)
        + " SET claim_token = ?, lease_until = ?, version = version + 1 WHERE seq IN " + placeholders(seqs.size()))) {
      dialect.setUuid(claim, 1, token);
      dialect.setInstant(claim, 2, leaseUntil);
      bindSeqs(claim, 3, seqs);
      claim.executeUpdate();
    }
    List<OutboxEntry> claimed = new ArrayList<>(picked.size());
    for (OutboxEntry e : picked) {
      claimed.add(new OutboxEntry(e.message(), e.sequence(), e.status(), e.attempts(), e.lastError(),
          e.quarantineReason(), e.createdAt(), e.availableAt(), e.deliveredAt(), e.deliveryResult(),
          e.version() + 1, e.quarantineKind(), e.firstFailedAt()));
    }
    return claimed;
  }

  /** @return the next free parameter index */
  private static int bindSeqs(PreparedStatement statement, int first, List<Long> seqs) throws SQLException {
    for (int i = 0; i < seqs.size(); i++) {
      statement.setLong(first + i, seqs.get(i));
    }
    return first + seqs.size();
  }

  @Override
  public List<Claim> markDelivered(Collection<Claim> claims, Instant now) {
    if (batches()) {
      return inChunks(claims, chunk -> retention.deletesOnDelivery()
          ? batchClaims.complete("markDelivered", chunk, "DELETE FROM " + table + " o", (s, first) -> first)
          : batchClaims.complete("markDelivered", chunk, "UPDATE " + table + " o SET status = 'DELIVERED',"
              + " delivered_at = ?, version = o.version + 1", (s, first) -> {
                dialect.setInstant(s, first, now);
                return first + 1;
              }));
    }
    return byTokenInChunks(claims, (token, chunk) -> retire(token, chunk, now));
  }

  @Override
  public List<Claim> release(Collection<Claim> claims) {
    if (batches()) {
      // The entry is not changed: leaving its batch row makes it claimable again.
      return inChunks(claims, chunk -> batchClaims.complete("release", chunk, "SELECT o.seq FROM " + table + " o",
          (s, first) -> first));
    }
    String set = "UPDATE " + dialect.byPrimaryKey(table) + " SET claim_token = NULL, lease_until = NULL,"
        + " version = version + 1";
    return byTokenInChunks(claims, (token, chunk) -> fencedByToken("release", token, chunk, set, s -> 1));
  }

  /** Applies {@code apply} to the claims in chunks a statement can bind; returns the lost claims. */
  private static List<Claim> inChunks(Collection<Claim> claims,
      Function<List<Claim>, List<Claim>> apply) {
    List<Claim> all = List.copyOf(claims);
    List<Claim> lost = new ArrayList<>();
    for (int from = 0; from < all.size(); from += MAX_IDS_PER_STATEMENT) {
      lost.addAll(apply.apply(all.subList(from, Math.min(all.size(), from + MAX_IDS_PER_STATEMENT))));
    }
    return lost;
  }

  /** Applies {@code apply} to the claims grouped by token, in chunks a statement can bind; returns the lost claims. */
  private static List<Claim> byTokenInChunks(Collection<Claim> claims,
      java.util.function.BiFunction<UUID, List<Claim>, Set<UUID>> apply) {
    Map<UUID, List<Claim>> byToken = new LinkedHashMap<>();
    for (Claim claim : claims) {
      byToken.computeIfAbsent(claim.token(), t -> new ArrayList<>()).add(claim);
    }
    List<Claim> lost = new ArrayList<>();
    for (Map.Entry<UUID, List<Claim>> group : byToken.entrySet()) {
      List<Claim> all = group.getValue();
      for (int from = 0; from < all.size(); from += MAX_IDS_PER_STATEMENT) {
        List<Claim> chunk = all.subList(from, Math.min(all.size(), from + MAX_IDS_PER_STATEMENT));
        Set<UUID> applied = apply.apply(group.getKey(), chunk);
        chunk.stream().filter(c -> !applied.contains(c.id())).forEach(lost::add);
      }
    }
    return lost;
  }

  /** Retires confirmed claims: deletes them or marks them delivered; returns the ids that still carried the token. */
  private Set<UUID> retire(UUID token, List<Claim> claims, Instant now) {
    if (retention.deletesOnDelivery()) {
      return fencedByToken("markDelivered", token, claims, dialect.deleteByPrimaryKey(table), s -> 1);
    }
    return fencedByToken("markDelivered", token, claims, "UPDATE " + dialect.byPrimaryKey(table)
        + " SET status = 'DELIVERED', delivered_at = ?, claim_token = NULL, lease_until = NULL,"
        + " version = version + 1", s -> {
          dialect.setInstant(s, 1, now);
          return 2;
        });
  }

  /**
   * Applies a DELETE or an UPDATE to the claims' rows that still carry the token and wait, found by primary key
   * ({@code seq} on MariaDB/MySQL; the waiting-entries index on PostgreSQL), so the statement locks exactly the
   * claimed rows and never a range that writers insert into.
   *
   * @param statement {@code DELETE FROM …} or {@code UPDATE … SET …}; the WHERE clause is added
   * @param binder binds the statement's own parameters from index 1
   * @return the ids that still carried the token and were changed
   */
  private Set<UUID> fencedByToken(String what, UUID token, List<Claim> claims, String statement, Binder binder) {
    List<UUID> ids = claims.stream().map(Claim::id).toList();
    List<Long> seqs = claims.stream().map(claim -> claim.entry().sequence()).toList();
    String where = " WHERE claim_token = ? AND " + WAITING + " AND seq IN " + placeholders(ids.size());
    String sql = statement + where;
    if (dialect.supportsReturning()) {
      return autoCommit(what, c -> {
        try (PreparedStatement prepared = c.prepareStatement(sql + " RETURNING id")) {
          bindFenced(prepared, binder, token, seqs);
          Set<UUID> applied = new HashSet<>();
          try (ResultSet result = prepared.executeQuery()) {
            while (result.next()) {
              applied.add(dialect.getUuid(result, "id"));
            }
          }
          return applied;
        }
      });
    }
    // No RETURNING: optimistic single statement; only when some claims were lost, redo it learning which.
    Boolean allApplied = inTransaction(what, c -> {
      try (PreparedStatement prepared = c.prepareStatement(sql)) {
        bindFenced(prepared, binder, token, seqs);
        if (prepared.executeUpdate() == ids.size()) {
          return true;
        }
        c.rollback();
        return false;
      }
    });
    if (allApplied) {
      return new HashSet<>(ids);
    }
    return inTransaction(what, c -> {
      Set<UUID> held = new HashSet<>();
      try (PreparedStatement lock = c.prepareStatement(
          "SELECT id FROM " + dialect.byPrimaryKey(table) + where + " FOR UPDATE")) {
        dialect.setUuid(lock, 1, token);
        bindSeqs(lock, 2, seqs);
        try (ResultSet result = lock.executeQuery()) {
          while (result.next()) {
            held.add(dialect.getUuid(result, "id"));
          }
        }
      }
      try (PreparedStatement prepared = c.prepareStatement(sql)) {
        bindFenced(prepared, binder, token, seqs);
        prepared.executeUpdate();
      }
      return held;
    });
  }

  private void bindFenced(PreparedStatement statement, Binder binder, UUID token, List<Long> seqs)
      throws SQLException {
    int next = binder.bind(statement);
    dialect.setUuid(statement, next, token);
    bindSeqs(statement, next + 1, seqs);
  }

  @Override
  public boolean markFailed(Claim claim, String error, Instant nextAttemptAt) {
    return fencedUpdate("markFailed", "status = 'FAILED', attempts = attempts + 1, last_error = ?, available_at = ?,"
        + " first_failed_at = COALESCE(first_failed_at, ?)", claim, (s, first) -> {
          s.setString(first, OutboxRows.clip(error));
          dialect.setInstant(s, first + 1, nextAttemptAt);
          dialect.setInstant(s, first + 2, clock.instant());
          return first + 3;
        });
  }

  @Override
  public boolean postpone(Claim claim, String reason, Instant nextAttemptAt) {
    return fencedUpdate("postpone", "last_error = ?, available_at = ?", claim, (s, first) -> {
      s.setString(first, OutboxRows.clip(reason));
      dialect.setInstant(s, first + 1, nextAttemptAt);
      return first + 2;
    });
  }

  @Override
  public List<Claim> postpone(Collection<Claim> claims, String reason, Instant nextAttemptAt) {
    String clipped = OutboxRows.clip(reason);
    if (batches()) {
      return inChunks(claims, chunk -> batchClaims.complete("postpone", chunk, "UPDATE " + table
          + " o SET last_error = ?, available_at = ?, version = o.version + 1", (s, first) -> {
            s.setString(first, clipped);
            dialect.setInstant(s, first + 1, nextAttemptAt);
            return first + 2;
          }));
    }
    String set = "UPDATE " + dialect.byPrimaryKey(table) + " SET last_error = ?, available_at = ?,"
        + " claim_token = NULL, lease_until = NULL, version = version + 1";
    return byTokenInChunks(claims, (token, chunk) -> fencedByToken("postpone", token, chunk, set, s -> {
      s.setString(1, clipped);
      dialect.setInstant(s, 2, nextAttemptAt);
      return 3;
    }));
  }

  @Override
  public boolean quarantine(Claim claim, QuarantineReason reason, Instant lateCopiesLandBy) {
    // The claim fences the row, so its available time is still the claimed one: the later of the two is kept.
    Instant claimed = claim.entry().availableAt();
    Instant availableAt = lateCopiesLandBy.isAfter(claimed) ? lateCopiesLandBy : claimed;
    return fencedUpdate("quarantine", "status = 'QUARANTINED', attempts = attempts + 1, last_error = ?,"
        + " quarantine_reason = ?, quarantine_kind = ?, available_at = ?", claim, (s, first) -> {
          s.setString(first, OutboxRows.clip(reason.text()));
          s.setString(first + 1, OutboxRows.clip(reason.text()));
          s.setString(first + 2, reason.kind().name());
          dialect.setInstant(s, first + 3, availableAt);
          return first + 4;
        });
  }

  private boolean fencedUpdate(String what, String set, Claim claim, LeasedBatchClaims.Binder binder) {
    if (batches()) {
      return batchClaims.complete(what, List.of(claim), "UPDATE " + table + " o SET " + set
          + ", version = o.version + 1", binder).isEmpty();
    }
    String sql = "UPDATE " + table + " SET " + set + ", claim_token = NULL, lease_until = NULL, version = version + 1"
        + " WHERE id = ? AND claim_token = ?";
    return autoCommit(what, c -> {
      try (PreparedStatement statement = c.prepareStatement(sql)) {
        int next = binder.bind(statement, 1);
        dialect.setUuid(statement, next, claim.id());
        dialect.setUuid(statement, next + 1, claim.token());
        return statement.executeUpdate() == 1;
      }
    });
  }

  @Override
  public List<OutboxEntry> quarantined(QuarantineQuery query) {
    Long after = query.afterSequence();
    return autoCommit("quarantined", c -> {
      try (PreparedStatement select = c.prepareStatement("SELECT " + OutboxRows.columns("") + " FROM " + table
          + " WHERE " + AWAITING_OPERATOR + " AND seq > ? ORDER BY seq LIMIT ?")) {
        select.setLong(1, after == null ? Long.MIN_VALUE : after);
        select.setInt(2, query.limit());
        return readAll(select);
      }
    });
  }

  /**
   * {@inheritDoc}
   *
   * <p>Any row of the outbox table, readable or not, by its id; timestamps as the driver renders them.
   */
  @Override
  public Optional<Map<String, @Nullable String>> rawColumns(UUID id) {
    return autoCommit("rawColumns", c -> {
      try (PreparedStatement select = c.prepareStatement("SELECT " + OutboxRows.columns("") + " FROM " + table
          + " WHERE id = ?")) {
        dialect.setUuid(select, 1, id);
        try (ResultSet row = select.executeQuery()) {
          return row.next() ? Optional.of(OutboxRows.raw(row)) : Optional.empty();
        }
      }
    });
  }

  @Override
  public boolean requeue(UUID id, Instant now) {
    return autoCommit("requeue", c -> {
      try (PreparedStatement update = c.prepareStatement(requeueSet() + " WHERE id = ? AND " + AWAITING_OPERATOR)) {
        dialect.setInstant(update, 1, now);
        dialect.setInstant(update, 2, now);
        dialect.setUuid(update, 3, id);
        return update.executeUpdate() == 1;
      }
    });
  }

  @Override
  public boolean discard(UUID id) {
    return inTransaction("discard", c -> discardLocked(c, List.of(id)) == 1);
  }

  /**
   * Deletes the listed entries that wait for an operator and passes each one's available time (the bound by which a
   * copy of its last send lands, see {@link #quarantine(Claim, QuarantineReason, Instant)}) on to its key's next
   * undelivered entry when that one would be available earlier: the key's new head must not overtake a late copy.
   * Runs inside the caller's transaction.
   *
   * @return how many were deleted
   */
  private int discardLocked(Connection c, List<UUID> ids) throws SQLException {
    List<OutboxEntry> doomed;
    try (PreparedStatement select = c.prepareStatement("SELECT " + OutboxRows.columns("") + " FROM " + table
        + " WHERE " + AWAITING_OPERATOR + " AND id IN " + placeholders(ids.size()) + " ORDER BY seq FOR UPDATE")) {
      bindIds(select, 1, ids);
      doomed = readAll(select);
    }
    if (doomed.isEmpty()) {
      return 0;
    }
    int deleted;
    try (PreparedStatement delete = c.prepareStatement("DELETE FROM " + table + " WHERE " + AWAITING_OPERATOR
        + " AND id IN " + placeholders(doomed.size()))) {
      bindIds(delete, 1, doomed.stream().map(OutboxEntry::id).toList());
      deleted = delete.executeUpdate();
    }
    for (OutboxEntry gone : doomed) {
      String key = gone.message().orderingKey().orElse(null);
      if (key == null) {
        continue;
      }
      Long next = null;
      try (PreparedStatement select = c.prepareStatement("SELECT MIN(seq) FROM " + table
          + " WHERE ordering_key = ? AND seq > ? AND status <> 'DELIVERED'")) {
        select.setString(1, key);
        select.setLong(2, gone.sequence());
        try (ResultSet found = select.executeQuery()) {
          if (found.next()) {
            long seq = found.getLong(1);
            next = found.wasNull() ? null : seq;
          }
        }
      }
      if (next != null) {
        try (PreparedStatement update = c.prepareStatement("UPDATE " + table
            + " SET available_at = ?, version = version + 1 WHERE seq = ? AND available_at < ?")) {
          dialect.setInstant(update, 1, gone.availableAt());
          update.setLong(2, next);
          dialect.setInstant(update, 3, gone.availableAt());
          update.executeUpdate();
        }
      }
    }
    return deleted;
  }

  /** Requeue: the available time is {@code now} (bound twice) or the stored one when later. */
  private String requeueSet() {
    return "UPDATE " + table + " SET status = 'PENDING', attempts = 0, quarantine_reason = NULL,"
        + " quarantine_kind = NULL, first_failed_at = NULL,"
        + " available_at = CASE WHEN available_at > ? THEN available_at ELSE ? END,"
        + " claim_token = NULL, lease_until = NULL, version = version + 1";
  }

  @Override
  public int requeueAll(QuarantineSelector selector, Instant now, int limit) {
    return bulk("requeueAll", selector, limit, (c, ids) -> {
      try (PreparedStatement update = c.prepareStatement(requeueSet() + " WHERE " + AWAITING_OPERATOR
          + " AND id IN " + placeholders(ids.size()))) {
        dialect.setInstant(update, 1, now);
        dialect.setInstant(update, 2, now);
        bindIds(update, 3, ids);
        return update.executeUpdate();
      }
    });
  }

  @Override
  public int discardAll(QuarantineSelector selector, int limit) {
    return bulk("discardAll", selector, limit, this::discardLocked);
  }

  @FunctionalInterface
  private interface BulkChange {
    int apply(Connection connection, List<UUID> ids) throws SQLException;
  }

  /**
   * Changes up to {@code limit} selected entries, oldest first, in transactions of at most
   * {@value #MAX_IDS_PER_STATEMENT}: each reads and locks the next rows that the SQL narrowing matches (a superset of
   * the selection, see {@link OperatorSql}), keeps those the selector selects, and changes them. The batch bound keeps
   * lock time and statement size small however many entries match.
   */
  private int bulk(String what, QuarantineSelector selector, int limit, BulkChange change) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be positive, was " + limit);
    }
    OperatorSql.Narrowing narrowing = narrowing(selector);
    String read = OperatorSql.members(table, narrowing, true);
    int done = 0;
    long after = Long.MIN_VALUE;
    while (done < limit) {
      int wanted = limit - done;
      long from = after;
      long[] last = {from};
      int[] scanned = {0};
      int changed = inTransaction(what, c -> {
        List<UUID> ids = new ArrayList<>();
        try (PreparedStatement select = c.prepareStatement(read)) {
          int index = bindNarrowing(select, narrowing);
          select.setLong(index, from);
          select.setInt(index + 1, MAX_IDS_PER_STATEMENT);
          try (ResultSet found = select.executeQuery()) {
            while (found.next()) {
              scanned[0]++;
              last[0] = found.getLong(1);
              if (selector.matches(rows.member(found)) && ids.size() < wanted) {
                ids.add(dialect.getUuid(found, 2));
              }
            }
          }
        }
        return ids.isEmpty() ? 0 : change.apply(c, ids);
      });
      done += changed;
      after = last[0];
      if (scanned[0] < MAX_IDS_PER_STATEMENT) {
        break;
      }
    }
    return done;
  }

  /** Looks at one row of a members read; returns whether the scan should go on. */
  @FunctionalInterface
  private interface MemberVisitor {
    boolean visit(ResultSet member) throws SQLException;
  }

  /**
   * Reads the operator columns of the rows the SQL narrowing matches, after {@code after} in sequence order, a chunk
   * of {@value QuarantineQuery#MAX_LIMIT} at a time, until they run out or the visitor says stop.
   */
  private void scanMembers(Connection c, OperatorSql.Narrowing narrowing, long after, MemberVisitor visitor)
      throws SQLException {
    int chunk = QuarantineQuery.MAX_LIMIT;
    long next = after;
    try (PreparedStatement select = c.prepareStatement(OperatorSql.members(table, narrowing, false))) {
      for (int scanned = chunk; scanned == chunk; ) {
        int index = bindNarrowing(select, narrowing);
        select.setLong(index, next);
        select.setInt(index + 1, chunk);
        scanned = 0;
        try (ResultSet found = select.executeQuery()) {
          while (found.next()) {
            scanned++;
            next = found.getLong(1);
            if (!visitor.visit(found)) {
              return;
            }
          }
        }
      }
    }
  }

  private OperatorSql.Narrowing narrowing(QuarantineSelector selector) {
    return OperatorSql.narrowing(selector, MAX_IDS_PER_STATEMENT, OutboxRows.UNREADABLE_NAME);
  }

  /** @return the next free parameter index */
  private int bindNarrowing(PreparedStatement statement, OperatorSql.Narrowing narrowing) throws SQLException {
    int index = 1;
    for (String text : narrowing.texts()) {
      statement.setString(index++, text);
    }
    for (UUID id : narrowing.ids()) {
      dialect.setUuid(statement, index++, id);
    }
    return index;
  }

  /**
   * {@inheritDoc}
   *
   * <p>Reads the operator columns of the rows the SQL narrowing matches, after the page's sequence, until the page is
   * full, then the full rows of those selected.
   */
  @Override
  public List<OutboxEntry> quarantined(QuarantineSelector selector, QuarantineQuery query) {
    OperatorSql.Narrowing narrowing = narrowing(selector);
    Long afterSequence = query.afterSequence();
    return autoCommit("quarantined", c -> {
      List<Long> picked = new ArrayList<>();
      scanMembers(c, narrowing, afterSequence == null ? Long.MIN_VALUE : afterSequence, found -> {
        if (selector.matches(rows.member(found))) {
          picked.add(found.getLong(1));
        }
        return picked.size() < query.limit();
      });
      if (picked.isEmpty()) {
        return List.of();
      }
      try (PreparedStatement select = c.prepareStatement("SELECT " + OutboxRows.columns("") + " FROM " + table
          + " WHERE seq IN " + placeholders(picked.size()) + " ORDER BY seq")) {
        for (int i = 0; i < picked.size(); i++) {
          select.setLong(i + 1, picked.get(i));
        }
        return readAll(select).stream().filter(selector::matches).toList();
      }
    });
  }

  /**
   * {@inheritDoc}
   *
   * <p>One {@code COUNT(*)} when SQL can decide the whole selection (no group, at most
   * {@value #MAX_IDS_PER_STATEMENT} ids); otherwise a read of the operator columns of the rows the SQL narrowing
   * matches.
   */
  @Override
  public int countQuarantined(QuarantineSelector selector) {
    OperatorSql.Narrowing narrowing = narrowing(selector);
    boolean exact = selector.group() == null && (selector.ids() == null || !narrowing.ids().isEmpty())
        && !OutboxRows.UNREADABLE_NAME.equals(selector.destination());
    return autoCommit("countQuarantined", c -> {
      if (exact) {
        try (PreparedStatement select = c.prepareStatement(OperatorSql.countAwaiting(table, narrowing))) {
          bindNarrowing(select, narrowing);
          try (ResultSet row = select.executeQuery()) {
            row.next();
            return row.getInt(1);
          }
        }
      }
      int[] count = {0};
      scanMembers(c, narrowing, Long.MIN_VALUE, found -> {
        if (selector.matches(rows.member(found))) {
          count[0]++;
        }
        return true;
      });
      return count[0];
    });
  }

  /**
   * {@inheritDoc}
   *
   * <p>Two statements: the operator columns of the oldest {@code limit} entries waiting for an operator (never the
   * payload), and their count.
   */
  @Override
  public QuarantineGroups quarantineGroups(int limit) {
    if (limit < 1 || limit > QuarantineGroups.MAX_GROUPED) {
      throw new IllegalArgumentException("limit must be 1.." + QuarantineGroups.MAX_GROUPED + ", was " + limit);
    }
    return autoCommit("quarantineGroups", c -> {
      List<QuarantineGroups.Member> members = new ArrayList<>();
      try (PreparedStatement select = c.prepareStatement(OperatorSql.oldestMembers(table))) {
        select.setInt(1, limit);
        try (ResultSet found = select.executeQuery()) {
          while (found.next()) {
            members.add(rows.member(found));
          }
        }
      }
      long total;
      try (PreparedStatement select = c.prepareStatement("SELECT COUNT(*) FROM " + table + " WHERE "
          + AWAITING_OPERATOR)) {
        try (ResultSet row = select.executeQuery()) {
          row.next();
          total = row.getLong(1);
        }
      }
      return QuarantineGroups.of(members, total);
    });
  }

  @Override
  public void recordOperatorAction(OperatorAction action) {
    OperatorAction kept = OperatorAction.of(action.at(), action.actor(), action.action(), action.target(),
        action.entries(), action.detail());
    autoCommit("recordOperatorAction", c -> {
      try (PreparedStatement insert = c.prepareStatement(OperatorSql.insertAction(auditTable()))) {
        dialect.setInstant(insert, 1, kept.at());
        insert.setString(2, kept.actor());
        insert.setString(3, kept.action());
        insert.setString(4, kept.target());
        insert.setLong(5, kept.entries());
        insert.setString(6, kept.detail());
        return insert.executeUpdate();
      }
    });
  }

  @Override
  public List<OperatorAction> operatorActions(int limit) {
    if (limit < 1 || limit > QuarantineQuery.MAX_LIMIT) {
      throw new IllegalArgumentException("limit must be 1.." + QuarantineQuery.MAX_LIMIT + ", was " + limit);
    }
    return autoCommit("operatorActions", c -> {
      try (PreparedStatement select = c.prepareStatement(OperatorSql.selectActions(auditTable()))) {
        select.setInt(1, limit);
        List<OperatorAction> actions = new ArrayList<>();
        try (ResultSet row = select.executeQuery()) {
          while (row.next()) {
            actions.add(new OperatorAction(Objects.requireNonNull(dialect.getInstant(row, 1)), row.getString(2),
                row.getString(3), row.getString(4), row.getLong(5), row.getString(6)));
          }
        }
        return actions;
      }
    });
  }

  private String auditTable() {
    return names.qualified("operator_audit");
  }

  @Override
  public int countWaiting(WaitingSelector selector, Instant now) {
    OperatorSql.Condition condition = OperatorSql.waiting(names, isPostgres(), selector, false);
    return autoCommit("countWaiting", c -> {
      try (PreparedStatement select = c.prepareStatement(OperatorSql.countWaiting(table, condition))) {
        bindCondition(select, condition, now);
        try (ResultSet row = select.executeQuery()) {
          row.next();
          return row.getInt(1);
        }
      }
    });
  }

  @Override
  public int parkWaiting(WaitingSelector selector, Instant now, int limit) {
    return bulkWaiting("parkWaiting", selector, now, limit, (c, ids) -> {
      try (PreparedStatement update = c.prepareStatement(OperatorSql.park(table, placeholders(ids.size())))) {
        dialect.setInstant(update, 1, now);
        bindIds(update, 2, ids);
        return update.executeUpdate();
      }
    });
  }

  @Override
  public int discardWaiting(WaitingSelector selector, Instant now, int limit) {
    return bulkWaiting("discardWaiting", selector, now, limit, (c, ids) -> {
      try (PreparedStatement delete = c.prepareStatement(OperatorSql.discard(table, placeholders(ids.size())))) {
        dialect.setInstant(delete, 1, now);
        bindIds(delete, 2, ids);
        return delete.executeUpdate();
      }
    });
  }

  /** As {@link #bulk}, over waiting entries under no unexpired claim. */
  private int bulkWaiting(String what, WaitingSelector selector, Instant now, int limit, BulkChange change) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be positive, was " + limit);
    }
    OperatorSql.Condition condition = OperatorSql.waiting(names, isPostgres(), selector, true);
    String lock = OperatorSql.lockWaiting(table, condition);
    int done = 0;
    while (done < limit) {
      int size = Math.min(MAX_IDS_PER_STATEMENT, limit - done);
      int changed = inTransaction(what, c -> {
        List<UUID> ids = new ArrayList<>();
        try (PreparedStatement select = c.prepareStatement(lock)) {
          int next = bindCondition(select, condition, now);
          select.setInt(next, size);
          try (ResultSet found = select.executeQuery()) {
            while (found.next()) {
              ids.add(dialect.getUuid(found, "id"));
            }
          }
        }
        return ids.isEmpty() ? 0 : change.apply(c, ids);
      });
      done += changed;
      if (changed < size) {
        break;
      }
    }
    return done;
  }

  /** @return the next free parameter index */
  private int bindCondition(PreparedStatement statement, OperatorSql.Condition condition, Instant now)
      throws SQLException {
    int index = 1;
    for (int i = 0; i < condition.instants(); i++) {
      dialect.setInstant(statement, index++, now);
    }
    for (String text : condition.texts()) {
      statement.setString(index++, text);
    }
    return index;
  }

  private boolean isPostgres() {
    return "postgresql".equals(dialect().name());
  }

  /** @return whether claims are held as leased batches (see {@link #claimStrategy()}) */
  private boolean batches() {
    return claimStrategy() == ClaimStrategy.LEASED_BATCHES;
  }

  @Override
  public boolean pauseDestination(String destination, String by, String reason, Instant now) {
    OperatorPause pause = OperatorPause.of(destination, by, reason, now);
    return autoCommit("pauseDestination", c -> {
      try (PreparedStatement insert = c.prepareStatement(OperatorSql.insertPause(pauseTable()))) {
        insert.setString(1, pause.destination());
        dialect.setInstant(insert, 2, pause.pausedAt());
        insert.setString(3, pause.pausedBy());
        insert.setString(4, pause.reason());
        return insert.executeUpdate() == 1;
      } catch (SQLException e) {
        if (dialect.isUniqueViolation(e)) {
          return false; // paused already: the first pause stands
        }
        throw e;
      }
    });
  }

  @Override
  public boolean resumeDestination(String destination) {
    return autoCommit("resumeDestination", c -> {
      try (PreparedStatement delete = c.prepareStatement(OperatorSql.deletePause(pauseTable()))) {
        delete.setString(1, destination);
        return delete.executeUpdate() > 0;
      }
    });
  }

  @Override
  public List<OperatorPause> operatorPauses() {
    return autoCommit("operatorPauses", c -> {
      try (PreparedStatement select = c.prepareStatement(OperatorSql.selectPauses(pauseTable()));
          ResultSet row = select.executeQuery()) {
        List<OperatorPause> pauses = new ArrayList<>();
        while (row.next()) {
          pauses.add(new OperatorPause(row.getString(1), Objects.requireNonNull(dialect.getInstant(row, 2)),
              row.getString(3), row.getString(4)));
        }
        return pauses;
      }
    });
  }

  private String pauseTable() {
    return names.qualified("outbox_destination_pause");
  }

  @Override
  public int purgeDelivered(Instant now, int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be positive, was " + limit);
    }
    Optional<Duration> keep = retention.keepPeriod();
    if (keep.isEmpty()) {
      return 0;
    }
    String sql = dialect.deleteLimited(table, "status = 'DELIVERED' AND delivered_at <= ?", "delivered_at");
    return autoCommit("purgeDelivered", c -> {
      try (PreparedStatement delete = c.prepareStatement(sql)) {
        dialect.setInstant(delete, 1, now.minus(keep.get()));
        delete.setInt(2, limit);
        return delete.executeUpdate();
      }
    });
  }

  @Override
  public OutboxStats stats(Instant now) {
    boolean postgres = isPostgres();
    String sql = StatsSql.overall(names, postgres);
    return autoCommit("stats", c -> {
      try (PreparedStatement select = c.prepareStatement(sql)) {
        bindStatsNow(select, postgres, now);
        try (ResultSet row = select.executeQuery()) {
          row.next();
          return statsOf(row);
        }
      }
    });
  }

  @Override
  public List<DestinationStats> destinationStats(Instant now, int limit) {
    DestinationStats.checkLimit(limit);
    boolean postgres = isPostgres();
    String sql = StatsSql.byDestination(names, postgres);
    return autoCommit("destinationStats", c -> {
      try (PreparedStatement select = c.prepareStatement(sql)) {
        select.setInt(bindStatsNow(select, postgres, now), limit);
        // A blank destination (a row the store cannot read) is shown under one placeholder name; NULL and blanks of
        // different lengths are separate groups in the database, merged here in the order they came.
        Map<String, OutboxStats> rows = new LinkedHashMap<>();
        try (ResultSet row = select.executeQuery()) {
          while (row.next()) {
            String destination = row.getString("destination");
            if (destination == null || destination.isBlank()) {
              destination = DestinationStats.UNREADABLE;
            }
            rows.merge(destination, statsOf(row), OutboxStats::plus);
          }
        }
        List<DestinationStats> result = new ArrayList<>();
        rows.forEach((destination, stats) -> result.add(new DestinationStats(destination, stats)));
        return List.copyOf(result);
      }
    });
  }

  /** Binds the stats statements' {@code now} parameters; returns the index of the next parameter. */
  private int bindStatsNow(PreparedStatement select, boolean postgres, Instant now) throws SQLException {
    dialect.setInstant(select, 1, now);
    if (postgres) {
      dialect.setInstant(select, 2, now);
      return 3;
    }
    return 2;
  }

  private OutboxStats statsOf(ResultSet row) throws SQLException {
    return new OutboxStats(row.getLong("waiting"), row.getLong("blocked"), row.getLong("in_flight"),
        row.getLong("quarantined"), dialect.getInstant(row, "oldest_waiting"),
        dialect.getInstant(row, "oldest_blocked"));
  }

  @Override
  public Retention retention() {
    return retention;
  }

  // ------------------------------------------------------------------------------------------ entry face

  @Override
  public OutboxEntry enqueue(Message message) {
    limits.check(message);
    OutboxEntry entry = OutboxEntry.pending(message, clock.instant());
    inTransaction("enqueue", c -> {
      insert(c, entry, e -> new DuplicateMessageException(message.id(), e));
      return null;
    });
    // Read back after commit: on PostgreSQL a keyed entry's sequence is assigned at commit. A running relay may have
    // delivered and deleted it in between: then answer with the entry as written (version 1, as the insert stored it),
    // so a later entry-face change of it finds no row instead of bringing it back.
    return find(message.id()).orElseGet(() -> new OutboxEntry(message, entry.sequence(), entry.status(),
        entry.attempts(), null, null, entry.createdAt(), entry.availableAt(), null, null, 1));
  }

  @Override
  public Optional<OutboxEntry> find(UUID id) {
    return autoCommit("find", c -> Optional.ofNullable(select(c, id, false)));
  }

  @Override
  public List<OutboxEntry> findPending(int max) {
    EntryTransitions.checkMax(max);
    if (max == 0) {
      return List.of();
    }
    return autoCommit("findPending", c -> {
      try (PreparedStatement select = c.prepareStatement("SELECT " + OutboxRows.columns("") + " FROM " + table
          + " WHERE status = 'PENDING' ORDER BY seq LIMIT ?")) {
        select.setInt(1, max);
        return rows.quarantineUnreadable(c, readRows(select));
      }
    });
  }

  @Override
  public List<OutboxEntry> findRetryReady(Instant now, int max) {
    EntryTransitions.checkMax(max);
    if (max == 0) {
      return List.of();
    }
    return autoCommit("findRetryReady", c -> {
      try (PreparedStatement select = c.prepareStatement("SELECT " + OutboxRows.columns("") + " FROM " + table
          + " WHERE status = 'FAILED' AND available_at <= ? ORDER BY seq LIMIT ?")) {
        dialect.setInstant(select, 1, now);
        select.setInt(2, max);
        return rows.quarantineUnreadable(c, readRows(select));
      }
    });
  }

  @Override
  public OutboxEntry markDelivered(OutboxEntry entry, @Nullable String result) {
    Instant now = clock.instant();
    return mutate("markDelivered", entry, e -> {
      EntryTransitions.checkMarkDelivered(e);
      return new OutboxEntry(e.message(), e.sequence(), EntryStatus.DELIVERED, e.attempts(), e.lastError(), null,
          e.createdAt(), e.availableAt(), now, OutboxRows.clip(result), e.version(), null, e.firstFailedAt());
    });
  }

  @Override
  public OutboxEntry markFailed(OutboxEntry entry, String error, @Nullable Instant nextRetryAt) {
    return mutate("markFailed", entry, e -> {
      EntryTransitions.checkMarkFailed(e);
      return new OutboxEntry(e.message(), e.sequence(), nextRetryAt != null ? EntryStatus.FAILED : EntryStatus.PARKED,
          e.attempts() + 1, OutboxRows.clip(error), null, e.createdAt(),
          nextRetryAt != null ? nextRetryAt : e.availableAt(), null, null, e.version(), null,
          e.firstFailedAt() != null ? e.firstFailedAt() : clock.instant());
    });
  }

  @Override
  public OutboxEntry markDeadLettered(OutboxEntry entry, String error, @Nullable String reason) {
    return mutate("markDeadLettered", entry, e -> {
      EntryTransitions.checkMarkDeadLettered(e);
      return new OutboxEntry(e.message(), e.sequence(), EntryStatus.QUARANTINED, e.attempts(), OutboxRows.clip(error),
          OutboxRows.clip(reason != null ? reason : error), e.createdAt(), e.availableAt(), null, null, e.version(),
          QuarantineKind.DEAD_LETTERED, e.firstFailedAt());
    });
  }

  @Override
  public OutboxEntry save(OutboxEntry given) {
    limits.check(given.message());
    OutboxEntry entry = EntryTransitions.normalizeSaved(given);
    OutboxEntry saved = inTransaction("save", c -> {
      OutboxEntry stored = select(c, entry.id(), true);
      if (stored == null && entry.version() != 0) {
        throw new EntryNotFoundException(entry.id()); // read earlier, row gone since: never bring it back
      }
      if (stored == null) {
        insert(c, entry, e -> conflict(entry, e));
        if (entry.status() == EntryStatus.DELIVERED && retention.deletesOnDelivery()) {
          OutboxEntry inserted = Objects.requireNonNull(select(c, entry.id(), false));
          delete(c, entry.id());
          return inserted;
        }
        return null; // read back after commit
      }
      if (stored.version() != entry.version()) {
        throw new OptimisticConflictException(entry.id(), entry.version());
      }
      EntryTransitions.checkSave(stored, entry);
      return write(c, new OutboxEntry(stored.message(), stored.sequence(), entry.status(), entry.attempts(),
          OutboxRows.clip(entry.lastError()), OutboxRows.clip(entry.quarantineReason()), stored.createdAt(),
          entry.availableAt(), entry.deliveredAt(), OutboxRows.clip(entry.deliveryResult()), stored.version(),
          entry.quarantineKind(), entry.firstFailedAt()));
    });
    return saved != null ? saved : find(entry.id()).orElseThrow(() -> new EntryNotFoundException(entry.id()));
  }

  /** Locks the entry, checks the caller's version, applies the change (version bumped here) and commits. */
  private OutboxEntry mutate(String what, OutboxEntry entry, UnaryOperator<OutboxEntry> change) {
    return inTransaction(what, c -> {
      OutboxEntry stored = select(c, entry.id(), true);
      if (stored == null) {
        throw new EntryNotFoundException(entry.id());
      }
      if (stored.version() != entry.version()) {
        throw new OptimisticConflictException(entry.id(), entry.version());
      }
      return write(c, change.apply(stored));
    });
  }

  /**
   * Stores a changed entry whose version is still the stored one: deletes it when it is delivered and the retention
   * deletes on delivery, else updates its state and clears any claim.
   *
   * @return the entry as stored, with its version bumped
   */
  private OutboxEntry write(Connection connection, OutboxEntry e) throws SQLException {
    OutboxEntry bumped = new OutboxEntry(e.message(), e.sequence(), e.status(), e.attempts(), e.lastError(),
        e.quarantineReason(), e.createdAt(), e.availableAt(), e.deliveredAt(), e.deliveryResult(), e.version() + 1,
        e.quarantineKind(), e.firstFailedAt());
    if (e.status() == EntryStatus.DELIVERED && retention.deletesOnDelivery()) {
      delete(connection, e.id());
      return bumped;
    }
    try (PreparedStatement update = connection.prepareStatement("UPDATE " + table + " SET status = ?, attempts = ?,"
        + " last_error = ?, quarantine_reason = ?, available_at = ?, delivered_at = ?, delivery_result = ?,"
        + " quarantine_kind = ?, first_failed_at = ?, claim_token = NULL, lease_until = NULL, version = version + 1"
        + " WHERE id = ?")) {
      update.setString(1, e.status().name());
      update.setInt(2, e.attempts());
      update.setString(3, e.lastError());
      update.setString(4, e.quarantineReason());
      dialect.setInstant(update, 5, e.availableAt());
      dialect.setInstant(update, 6, e.deliveredAt());
      update.setString(7, e.deliveryResult());
      update.setString(8, e.quarantineKind() == null ? null : e.quarantineKind().name());
      dialect.setInstant(update, 9, e.firstFailedAt());
      dialect.setUuid(update, 10, e.id());
      update.executeUpdate();
    }
    return Objects.requireNonNull(select(connection, e.id(), false));
  }

  private void delete(Connection connection, UUID id) throws SQLException {
    try (PreparedStatement delete = connection.prepareStatement("DELETE FROM " + table + " WHERE id = ?")) {
      dialect.setUuid(delete, 1, id);
      delete.executeUpdate();
    }
  }

  private void insert(Connection connection, OutboxEntry entry, Function<SQLException, OutboxException> onDuplicate)
      throws SQLException {
    try (PreparedStatement insert = connection.prepareStatement(rows.insert)) {
      rows.bindInsert(insert, entry);
      insert.executeUpdate();
    } catch (SQLException e) {
      if (dialect.isUniqueViolation(e)) {
        throw onDuplicate.apply(e);
      }
      throw e;
    }
  }

  private @Nullable OutboxEntry select(Connection connection, UUID id, boolean forUpdate) throws SQLException {
    try (PreparedStatement select = connection.prepareStatement("SELECT " + OutboxRows.columns("") + " FROM " + table
        + " WHERE id = ?" + (forUpdate ? " FOR UPDATE" : ""))) {
      dialect.setUuid(select, 1, id);
      List<OutboxEntry> found = readAll(select);
      return found.isEmpty() ? null : found.get(0);
    }
  }

  // ------------------------------------------------------------------------------------------ plumbing

  private static OptimisticConflictException conflict(OutboxEntry entry, SQLException cause) {
    OptimisticConflictException conflict = new OptimisticConflictException(entry.id(), entry.version());
    conflict.addSuppressed(cause);
    return conflict;
  }

  /** @return the entries read, an unreadable row's with its placeholders (see {@link OutboxRows#read}) */
  private List<OutboxEntry> readAll(PreparedStatement statement) throws SQLException {
    List<OutboxEntry> entries = new ArrayList<>();
    try (ResultSet result = statement.executeQuery()) {
      while (result.next()) {
        entries.add(rows.entry(result));
      }
    }
    return entries;
  }

  private List<OutboxRows.Read> readRows(PreparedStatement statement) throws SQLException {
    List<OutboxRows.Read> read = new ArrayList<>();
    try (ResultSet result = statement.executeQuery()) {
      while (result.next()) {
        read.add(rows.read(result));
      }
    }
    return read;
  }

  private void bindIds(PreparedStatement statement, int first, List<UUID> ids) throws SQLException {
    for (int i = 0; i < ids.size(); i++) {
      dialect.setUuid(statement, first + i, ids.get(i));
    }
  }

  private static String placeholders(int count) {
    return "(" + "?, ".repeat(count - 1) + "?)";
  }

  @FunctionalInterface
  private interface Binder {
    /** @return the next free parameter index */
    int bind(PreparedStatement statement) throws SQLException;
  }

  private <R> R autoCommit(String what, ConnectionWork<R> work) {
    return retryingDeadlocks(() -> ConnectionWork.inAutoCommit(dataSource, c -> work.run(ready(c)),
        e -> failure(what, e)));
  }

  /** Prepares a borrowed connection: detects the dialect from it on first use, and bounds its statements. */
  private Connection ready(Connection borrowed) throws SQLException {
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
  private <R> R retryingDeadlocks(java.util.function.Supplier<R> unit) {
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

  private static boolean isDeadlock(@Nullable Throwable error) {
    return error instanceof SQLException sql
        && ("40001".equals(sql.getSQLState()) || "40P01".equals(sql.getSQLState()));
  }

  private <R> R inTransaction(String what, ConnectionWork<R> work) {
    return retryingDeadlocks(() -> inTransactionOnce(what, work));
  }

  private <R> R inTransactionOnce(String what, ConnectionWork<R> work) {
    try (Connection borrowed = dataSource.getConnection()) {
      Connection connection = ready(borrowed);
      connection.setAutoCommit(false);
      try {
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
      }
    } catch (SQLException e) {
      throw failure(what, e);
    }
  }

  private OutboxException failure(String what, SQLException e) {
    String claimTable = names.qualified("outbox_claim");
    String missing = "42P01".equals(e.getSQLState()) && String.valueOf(e.getMessage()).contains(claimTable)
        ? " (every PostgreSQL claim reads " + claimTable + ", created by migration V5__session_claims.sql:"
            + " apply every migration of db/outbox4j/postgresql, or call migrate())"
        : "";
    return new OutboxException("outbox " + what + " failed on " + table + ": " + e.getMessage() + missing, e);
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
