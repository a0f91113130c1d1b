package dev.outbox4j.jdbc;

import dev.outbox4j.OutboxEntry;
import dev.outbox4j.QuarantineKind;
import dev.outbox4j.spi.Claim;
import dev.outbox4j.spi.ClaimRequest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * The claim of a {@link JdbcOutboxStore}: which strategy holds claims ({@link ClaimStrategy}), and the claim itself.
 * Under {@link ClaimStrategy#LEASED_BATCHES} (PostgreSQL only) it is {@link LeasedBatchClaims}'s; under
 * {@link ClaimStrategy#LEASED_ROWS} it is here, on every database.
 *
 * <h2>Why the leased-row claim looks the way it does</h2>
 * An entry is claimable when it is pending or failed, available, not under an unexpired lease (on PostgreSQL, nor in a
 * leased-batch claim's unexpired batch row), and the head of its key: no earlier undelivered entry of the same key
 * exists (quarantined entries count as undelivered, so they block their key). Because only the head of a key can
 * qualify, at most one entry per key is claimed, unless runs are asked for (below).
 *
 * <p>The candidates come from the window (the first waiting entries in {@code seq} order) and, only when that window
 * is full of entries that cannot be claimed, from every key's head through one index descent per key plus the unkeyed
 * entries from their own index. So a backlog queued behind a few keys costs nothing: entries behind a head are never
 * read. How they are then locked and claimed depends on the database:
 * <ul>
 *   <li><b>MariaDB/MySQL and H2</b>: the candidates are found with reads that take no locks (one consistent snapshot
 *       each, {@link #candidates}; on MariaDB/MySQL the window starts at the {@link ClaimFloor}), then <em>locked by primary key</em> with {@code FOR UPDATE SKIP LOCKED} (concurrent
 *       relays skip each other's rows, never wait), re-checking each row's own state as last committed, and given the
 *       token and lease by an {@code UPDATE} by primary key, in one transaction ({@link #claimLockThenUpdate}).
 *   <li><b>PostgreSQL</b>: the claim starts as a leased-batch claim does, in {@link LeasedBatchClaims#lock}: the
 *       window statement, which starts reading at the {@link ClaimFloor}, takes a transaction-scoped advisory lock
 *       ({@code pg_try_advisory_xact_lock}) on each claimable entry in no unexpired batch row as it reads it, and the
 *       heads, when needed, are read without locks and locked the same way by a second statement; no entry is locked
 *       with {@code FOR UPDATE}. Expired claims among the locked entries are taken over
 *       ({@link LeasedBatchClaims#takeOver}); then one {@code UPDATE ... RETURNING}, reading the entries afresh after
 *       the locks, writes the token and lease into those still waiting, ready and in no batch row, so it also skips
 *       what a leased-batch claim took meanwhile ({@link #claimLocked}). The transaction sets
 *       {@code idle_in_transaction_session_timeout} to the lease, as a leased-batch claim's does.
 * </ul>
 * A candidate that was its key's head in the snapshot it was found in is still the head when it is locked and claimed,
 * because a key's entries are numbered in commit order: this holds on every database, including MariaDB, whose locking
 * reads see rows committed after the snapshot. The statements and the full argument are in {@link ClaimSql} and
 * {@code docs/schema.md}.
 *
 * <h2>Runs and entries in doubt</h2>
 * With {@code maxRun > 1} the runs behind the locked heads are read and taken with the same re-checks
 * ({@link KeyRuns}); with {@code maxRun} 1 none of that runs. The claim's UPDATE records the claim's time
 * ({@code claimed_at}) and marks a row it takes over from an expired claim in doubt ({@link OutboxRows#inDoubtOnClaim});
 * see {@code docs/stores.md}, "Runs of a key" and "Entries in doubt".
 *
 * <h2>Rows it cannot read</h2>
 * A row another application wrote that cannot be turned into a message is quarantined as
 * {@link dev.outbox4j.QuarantineKind#UNREADABLE} in the claim's transaction and left out of the claim (see
 * {@link OutboxRows#read} and {@code docs/stores.md}).
 */
final class ClaimFace extends StoreJdbc {

  /** The strategy asked for, or {@code null} for the database's default (known once the dialect is). */
  private final @Nullable ClaimStrategy claimStrategy;
  /** The claim face under {@link ClaimStrategy#LEASED_BATCHES}, and the first step of a leased-row claim, on PostgreSQL. */
  final LeasedBatchClaims batchClaims;

  ClaimFace(StoreJdbc store, @Nullable ClaimStrategy claimStrategy) {
    super(store);
    this.claimStrategy = claimStrategy;
    this.batchClaims = new LeasedBatchClaims(this, this::headsAndUnkeyed, rows, table, names.qualified("outbox_claim"));
    this.lanes = new UnkeyedLanes(dialect, names, System::nanoTime);
  }
  /** The heads-and-unkeyed read of a claim that leaves destinations out. */
  private final UnkeyedLanes lanes;
  /** The claim's two reads, built on first use: the dialect may be detected only then. */
  private volatile @Nullable ClaimReads claimReads;
  /** Whether the last claim found the window clogged by a backlog behind few keys: see {@link #candidates}. */
  private volatile boolean headsFirst;
  /** See {@link #runs()}. */
  private volatile @Nullable KeyRuns runs;
  /** Where MariaDB/MySQL's window starts reading; built on first use. */
  private volatile @Nullable ClaimFloor floor;
  /**
   * How long after a number was handed out MariaDB/MySQL's floor may pass it ({@link ClaimFloor.MariaDbSource}), for
   * the stores built from then on; tests shorten it.
   */
  static volatile long mariaDbSettleNanos = ClaimFloor.MariaDbSource.SETTLE_NANOS;

  private record ClaimReads(String window, String headsAndUnkeyed) {}

  ClaimReads claimReads() {
    ClaimReads reads = claimReads;
    if (reads == null) {
      reads = new ClaimReads(dialect.claimWindow(names), dialect.claimHeadsAndUnkeyed(names));
      claimReads = reads;
    }
    return reads;
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
          + resolvedDialect().name() + " (use ClaimStrategy.LEASED_ROWS, its default there)");
    }
    return claimStrategy;
  }

  public List<Claim> claim(int limit, Instant now, Duration lease) {
    return claim(limit, now, lease, 1);
  }

  /** See {@link dev.outbox4j.spi.OutboxStore#claim(int, Instant, Duration, int)}; {@code maxRun} 1 claims heads only. */
  public List<Claim> claim(int limit, Instant now, Duration lease, int maxRun) {
    return claim(limit, now, lease, maxRun, Set.of());
  }

  /** See {@link dev.outbox4j.spi.OutboxStore#claim(int, Instant, Duration, int, Set)}. */
  public List<Claim> claim(int limit, Instant now, Duration lease, int maxRun, Set<String> skipped) {
    return claim(limit, now, lease, maxRun, skipped, null);
  }

  /** Work a leased-row claim runs first in its transaction. */
  @FunctionalInterface
  interface First {
    void run(Connection connection) throws SQLException;
  }

  /**
   * A claim that runs {@code first} in its transaction before its own statements (after, on PostgreSQL, the
   * transaction's settings): the combined step's retirement ({@link Completions#markDeliveredAndClaim}), so that both
   * commit together or not at all, and the claim sees what {@code first} changed. Leased rows only: a leased-batch
   * claim does this in {@link LeasedBatchClaims#completeAndClaim}, which keeps its batches' books.
   *
   * @param first the work, run again with the claim should the database abort the transaction as a deadlock victim;
   *     {@code null} for none
   */
  List<Claim> claim(int limit, Instant now, Duration lease, int maxRun, Set<String> skipped, @Nullable First first) {
    new ClaimRequest(limit, now, lease, maxRun, skipped); // checks the arguments
    int wanted = Math.min(limit, JdbcOutboxStore.MAX_CLAIM);
    Instant leaseUntil = JdbcDialect.storable(now.plus(lease));
    if (batches()) {
      if (first != null) {
        throw new IllegalStateException("a leased-batch claim runs its first work in LeasedBatchClaims");
      }
      return batchClaims.claim(wanted, now, lease, leaseUntil, maxRun, skipped);
    }
    UUID token = UUID.randomUUID();
    String what = first == null ? "claim" : "markDeliveredAndClaim";
    // After work of its own in the transaction, what the claim learns about where to read holds only once it commits
    // (LeasedBatchClaims#lock): kept until then.
    List<Runnable> floorChanges = new ArrayList<>();
    java.util.function.Consumer<Runnable> floorChange = first == null ? Runnable::run : floorChanges::add;
    List<OutboxRows.Read> claimed = isPostgres()
        ? inTransaction(what, c -> {
          floorChanges.clear(); // a deadlock victim runs this again
          LeasedBatchClaims.begin(c, lease);
          if (first != null) {
            first.run(c);
          }
          LeasedBatchClaims.Locked locked = batchClaims.lock(c, wanted, now, lease, skipped, floorChange);
          if (locked.seqs().isEmpty()) {
            return List.of();
          }
          if (maxRun == 1) {
            if (locked.takeOver()) {
              batchClaims.takeOver(c, locked.seqs(), now);
            }
            return claimLocked(c, locked.seqs(), now, leaseUntil, token);
          }
          KeyRuns.Plan plan = runs().followPostgres(c, locked.seqs(), maxRun, wanted, now);
          if (locked.takeOver() || plan.stale()) {
            batchClaims.takeOver(c, plan.seqs(), now);
          }
          return claimLockedRuns(c, plan, now, leaseUntil, token);
        })
        : inClaimTransaction(what, c -> {
          floorChanges.clear();
          if (first != null) {
            first.run(c);
          }
          List<Long> candidates = candidates(c, wanted, now, skipped, floorChange);
          return candidates.isEmpty() ? List.of()
              : claimLockThenUpdate(c, candidates, wanted, now, leaseUntil, token, maxRun);
        });
    floorChanges.forEach(Runnable::run); // committed
    List<Claim> claims = new ArrayList<>(claimed.size());
    claimed.stream().sorted(Comparator.comparingLong(read -> read.entry().sequence()))
        .forEach(read -> claims.add(new Claim(read.entry(), token, leaseUntil, read.inDoubtSince())));
    return claims;
  }

  /** @return the runs' statements, built on first use (the dialect may be detected only then) */
  KeyRuns runs() {
    KeyRuns built = runs;
    if (built == null) {
      built = new KeyRuns(dialect, table, names.qualified("outbox_claim"));
      runs = built;
    }
    return built;
  }

  /**
   * Finds up to {@code 2 × limit} candidates (the spare ones let concurrent relays that found the same candidates
   * share them instead of one of them coming back empty). Reads only, no locks; see {@link ClaimSql}.
   *
   * <p>The heads-and-unkeyed statement alone is always a complete answer (every claimable entry is a key's head or
   * unkeyed); the window is a cheaper way to the same answer while the oldest waiting entries are mostly claimable.
   * So the window goes first, and the heads only when the window was full yet short; once that happened, the next
   * claims go to the heads directly (a backlog behind a few keys stays clogged for a while) until the heads alone
   * yield a full batch again, a sign that the window would do; while destinations are left out, a paused destination's
   * backlog keeps clogging the window, so the claims stay with the heads. This is only a hint shared by the callers of
   * this store; correctness never depends on it.
   *
   * <p>Entries of {@code skipped} destinations are never candidates: the window counts them (they clog it like any
   * entry that cannot be claimed), and the heads read leaves them out ({@link UnkeyedLanes}).
   *
   * @return candidate {@code seq}s, ascending
   */
  List<Long> candidates(Connection connection, int limit, Instant now, Set<String> skipped,
      java.util.function.Consumer<Runnable> floorChanges) throws SQLException {
    int spare = 2 * limit;
    if (headsFirst) {
      List<Long> heads = headsAndUnkeyed(connection, spare, now, skipped);
      headsFirst = heads.size() < limit || !skipped.isEmpty();
      return heads;
    }
    List<Long> found = new ArrayList<>();
    int windowRows = 0;
    ClaimFloor windowFloor = floor();
    ClaimFloor.Reading reading = null;
    if (windowFloor != null) {
      windowFloor.rescanIfDue(this);
      reading = windowFloor.sample(connection);
    }
    long firstWaiting = 0;
    try (PreparedStatement window = connection.prepareStatement(claimReads().window())) {
      dialect.setInstant(window, 1, now);
      dialect.setInstant(window, 2, now);
      window.setLong(3, reading == null ? 0 : reading.floor());
      window.setInt(4, spare);
      try (ResultSet rows = window.executeQuery()) {
        while (rows.next()) {
          if (windowRows++ == 0) {
            firstWaiting = rows.getLong("seq");
          }
          if (rows.getInt("claimable") == 1 && !skipped.contains(rows.getString("destination"))) {
            found.add(rows.getLong("seq"));
          }
        }
      }
    }
    if (windowFloor != null && reading != null) {
      ClaimFloor.Reading sampled = reading;
      long first = firstWaiting;
      floorChanges.accept(() -> windowFloor.advance(sampled, first));
    }
    if (windowRows < spare || found.size() >= limit) {
      return found;
    }
    List<Long> heads = headsAndUnkeyed(connection, spare, now, skipped);
    headsFirst = heads.size() < limit || !skipped.isEmpty();
    return heads;
  }

  /**
   * @return where MariaDB/MySQL's window starts reading ({@link ClaimFloor}), built on first use, or {@code null} on
   *     H2 (whose claim reads no dead index entries worth skipping)
   */
  private @Nullable ClaimFloor floor() {
    ClaimFloor built = floor;
    if (built == null && "mariadb".equals(resolvedDialect().name())) {
      synchronized (this) {
        built = floor;
        if (built == null) {
          built = new ClaimFloor(table, WAITING, new ClaimFloor.MariaDbSource(names.schema(),
              names.unqualified("outbox"), mariaDbSettleNanos, System::nanoTime), System::nanoTime);
          floor = built;
        }
      }
    }
    return built;
  }

  /** Forgets where the claim window starts (an entry came back to waiting, for instance by a requeue). */
  void waitingChanged() {
    batchClaims.waitingChanged();
    ClaimFloor built = floor;
    if (built != null) {
      built.reset();
    }
  }

  /** @return where the claim window starts reading ({@link ClaimFloor}) on PostgreSQL and MariaDB/MySQL, else 0 */
  long claimFloor() {
    ClaimFloor built = floor;
    return isPostgres() ? batchClaims.claimFloor() : built == null ? 0 : built.floor();
  }

  /**
   * @param skipped destinations whose entries are left out (through {@link UnkeyedLanes}, so their backlog is not read)
   * @return the seqs of up to {@code max} claimable key heads and unkeyed entries, ascending
   */
  List<Long> headsAndUnkeyed(Connection connection, int max, Instant now, Set<String> skipped) throws SQLException {
    if (!skipped.isEmpty()) {
      List<Long> found = lanes.read(connection, max, now, skipped);
      if (found != null) {
        return found;
      }
    }
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
   *
   * @return the claimed rows, as updated
   */
  List<OutboxRows.Read> claimLocked(Connection connection, List<Long> locked, Instant now, Instant leaseUntil,
      UUID token) throws SQLException {
    String sql = "UPDATE " + table + " o SET " + claimedBy("o") + " WHERE o.seq = ANY(?) AND o." + WAITING + " AND "
        + ClaimSql.ready("o") + " AND o.seq NOT IN (" + LeasedBatchClaims.inBatchRows(names.qualified("outbox_claim"))
        + ") RETURNING " + PostgresPayloads.columns("o");
    try (PreparedStatement claim = connection.prepareStatement(sql)) {
      int next = bindClaimedBy(claim, 1, token, leaseUntil, now);
      claim.setArray(next, connection.createArrayOf("bigint", locked.toArray()));
      dialect.setInstant(claim, next + 1, now);
      dialect.setInstant(claim, next + 2, now);
      claim.setArray(next + 3, connection.createArrayOf("bigint", locked.toArray()));
      // A row that cannot be read is quarantined in this transaction, so it never stops the claim.
      return rows.quarantineUnreadableRows(connection, PostgresPayloads.readRows(connection, claim, rows, table));
    }
  }

  /**
   * {@link #claimLocked} with runs: the same fresh re-checks, a run member must be pending too, and a member is taken
   * only with the member before it (a recursive walk from the heads), so a key's claims never have a gap. A member the
   * UPDATE still drops (changed by a concurrent writer) or that cannot be read takes the rest of its run with it: those
   * are handed back at once, in this transaction.
   */
  private List<OutboxRows.Read> claimLockedRuns(Connection connection, KeyRuns.Plan plan, Instant now,
      Instant leaseUntil, UUID token) throws SQLException {
    String claimTable = names.qualified("outbox_claim");
    String sql = "WITH RECURSIVE candidate AS MATERIALIZED (SELECT o.seq, p.prev FROM " + table + " o"
        + " JOIN unnest(?::bigint[], ?::bigint[]) AS p(seq, prev) ON p.seq = o.seq WHERE o.seq = ANY(?) AND o."
        + WAITING + " AND (p.prev = 0 OR o.status = 'PENDING') AND " + ClaimSql.ready("o") + " AND o.seq NOT IN"
        + " (" + LeasedBatchClaims.inBatchRows(claimTable) + ")),"
        + " run (seq, prev) AS (SELECT candidate.seq, candidate.prev FROM candidate WHERE candidate.prev = 0"
        + " UNION ALL SELECT candidate.seq, candidate.prev FROM candidate JOIN run ON candidate.prev = run.seq)"
        + " UPDATE " + table + " o SET " + claimedBy("o") + " FROM run r WHERE o.seq = r.seq AND o.seq = ANY(?)"
        + " AND o." + WAITING + " AND (r.prev = 0 OR o.status = 'PENDING') AND " + ClaimSql.ready("o")
        + " RETURNING " + PostgresPayloads.columns("o");
    List<Long> seqs = plan.seqs();
    Object[] previous = seqs.stream().map(plan::previousOf).toArray();
    List<OutboxRows.Read> claimed;
    try (PreparedStatement claim = connection.prepareStatement(sql)) {
      claim.setArray(1, connection.createArrayOf("bigint", seqs.toArray()));
      claim.setArray(2, connection.createArrayOf("bigint", previous));
      claim.setArray(3, connection.createArrayOf("bigint", seqs.toArray()));
      dialect.setInstant(claim, 4, now);
      dialect.setInstant(claim, 5, now);
      claim.setArray(6, connection.createArrayOf("bigint", seqs.toArray()));
      int next = bindClaimedBy(claim, 7, token, leaseUntil, now);
      claim.setArray(next, connection.createArrayOf("bigint", seqs.toArray()));
      dialect.setInstant(claim, next + 1, now);
      dialect.setInstant(claim, next + 2, now);
      claimed = rows.quarantineUnreadableRows(connection,
          PostgresPayloads.readRows(connection, claim, rows, table));
    }
    return withoutBrokenRuns(connection, plan, claimed, token);
  }

  /**
   * Drops from {@code claimed} the members whose run lost an earlier member, and releases them in this transaction
   * (no extra statement when none did).
   */
  private List<OutboxRows.Read> withoutBrokenRuns(Connection connection, KeyRuns.Plan plan,
      List<OutboxRows.Read> claimed, UUID token) throws SQLException {
    Set<Long> broken = KeyRuns.broken(plan.previous(),
        claimed.stream().map(read -> read.entry().sequence()).toList());
    if (broken.isEmpty()) {
      return claimed;
    }
    List<Long> released = new ArrayList<>(broken);
    try (PreparedStatement release = connection.prepareStatement("UPDATE " + dialect.byPrimaryKey(table)
        + " SET claim_token = NULL, lease_until = NULL, version = version + 1 WHERE claim_token = ? AND seq IN "
        + placeholders(released.size()))) {
      dialect.setUuid(release, 1, token);
      bindSeqs(release, 2, released);
      release.executeUpdate();
    }
    return claimed.stream().filter(read -> !broken.contains(read.entry().sequence())).toList();
  }

  /**
   * @param alias the outbox table's alias in the UPDATE, or empty for none
   * @return the assignments of a leased-row claim: the entry is marked in doubt when it is taken over (first: MariaDB
   *     assigns left to right), then the claim's time, token and lease. Parameters: token, lease until, now
   */
  private static String claimedBy(String alias) {
    String version = alias.isEmpty() ? "version" : alias + ".version";
    return "in_doubt_since = " + OutboxRows.inDoubtOnClaim(alias) + ", claim_token = ?, lease_until = ?,"
        + " claimed_at = ?, version = " + version + " + 1";
  }

  /** Binds the parameters of {@link #claimedBy} from {@code first}; returns the next free index. */
  private int bindClaimedBy(PreparedStatement statement, int first, UUID token, Instant leaseUntil, Instant now)
      throws SQLException {
    dialect.setUuid(statement, first, token);
    dialect.setInstant(statement, first + 1, leaseUntil);
    dialect.setInstant(statement, first + 2, now);
    return first + 3;
  }

  /**
   * The leased-row claim on MariaDB/MySQL and H2, without RETURNING: a locking SELECT by primary key, then an UPDATE by
   * it. With runs ({@code maxRun > 1}) the runs behind the locked heads are read, locked by primary key too and
   * re-checked, between the two.
   *
   * @return the claimed rows, with the version and in-doubt mark the UPDATE wrote
   */
  List<OutboxRows.Read> claimLockThenUpdate(Connection connection, List<Long> candidates, int limit,
      Instant now, Instant leaseUntil, UUID token, int maxRun) throws SQLException {
    String select = "SELECT " + OutboxRows.columnsAsClaimed("c") + " FROM " + dialect.byPrimaryKey(table + " c")
        + " WHERE c.seq IN "
        + placeholders(candidates.size()) + " AND c." + WAITING + " AND " + ClaimSql.ready("c")
        + " ORDER BY c.seq LIMIT ? FOR UPDATE SKIP LOCKED";
    List<OutboxRows.Read> picked;
    try (PreparedStatement lock = connection.prepareStatement(select)) {
      int next = bindSeqs(lock, 1, candidates);
      dialect.setInstant(lock, next, now);
      dialect.setInstant(lock, next + 1, now);
      lock.setInt(next + 2, limit);
      picked = rows.quarantineUnreadableRows(connection, readRows(lock)); // locked: quarantined in this transaction
    }
    if (maxRun > 1 && !picked.isEmpty()) {
      picked = withRuns(connection, picked, limit, now, maxRun);
    }
    if (picked.isEmpty()) {
      return picked;
    }
    List<Long> seqs = picked.stream().map(read -> read.entry().sequence()).toList();
    try (PreparedStatement claim = connection.prepareStatement("UPDATE " + dialect.byPrimaryKey(table)
        + " SET " + claimedBy("") + " WHERE seq IN " + placeholders(seqs.size()))) {
      int next = bindClaimedBy(claim, 1, token, leaseUntil, now);
      bindSeqs(claim, next, seqs);
      claim.executeUpdate();
    }
    List<OutboxRows.Read> claimed = new ArrayList<>(picked.size());
    for (OutboxRows.Read read : picked) {
      OutboxEntry e = read.entry();
      claimed.add(new OutboxRows.Read(new OutboxEntry(e.message(), e.sequence(), e.status(), e.attempts(),
          e.lastError(), e.quarantineReason(), e.createdAt(), e.availableAt(), e.deliveredAt(), e.deliveryResult(),
          e.version() + 1, e.quarantineKind(), e.firstFailedAt()), null, read.inDoubtSince(), read.keySeq()));
    }
    return claimed;
  }

  /**
   * The locked heads with their runs (MariaDB/MySQL and H2), cut to {@code limit}: the runs are read, their members
   * locked by primary key ({@code FOR UPDATE SKIP LOCKED}) and re-checked (pending, available, no unexpired lease) as
   * the heads were, and a member that fails takes the rest of its run with it. Heads cut by the limit stay unclaimed
   * (their locks go with the commit).
   */
  private List<OutboxRows.Read> withRuns(Connection connection, List<OutboxRows.Read> heads, int limit, Instant now,
      int maxRun) throws SQLException {
    List<Long> headSeqs = new ArrayList<>();
    List<KeyRuns.Head> keyed = new ArrayList<>();
    for (OutboxRows.Read head : heads) {
      headSeqs.add(head.entry().sequence());
      head.entry().message().orderingKey()
          .ifPresent(key -> keyed.add(new KeyRuns.Head(head.entry().sequence(), key, head.keySeq())));
    }
    if (keyed.isEmpty()) {
      return heads;
    }
    KeyRuns.Plan plan = runs().followByKey(connection, headSeqs, keyed, maxRun, limit, now);
    Set<Long> planned = new HashSet<>(plan.seqs());
    Map<Long, OutboxRows.Read> taken = new TreeMap<>();
    heads.stream().filter(head -> planned.contains(head.entry().sequence()))
        .forEach(head -> taken.put(head.entry().sequence(), head));
    List<Long> members = plan.seqs().stream().filter(plan.previous()::containsKey).toList();
    if (!members.isEmpty()) {
      try (PreparedStatement lock = connection.prepareStatement("SELECT " + OutboxRows.columnsAsClaimed("c")
          + " FROM " + dialect.byPrimaryKey(table + " c") + " WHERE c.seq IN " + placeholders(members.size())
          + " AND c.status = 'PENDING' AND " + ClaimSql.ready("c") + " ORDER BY c.seq FOR UPDATE SKIP LOCKED")) {
        int next = bindSeqs(lock, 1, members);
        dialect.setInstant(lock, next, now);
        dialect.setInstant(lock, next + 1, now);
        rows.quarantineUnreadableRows(connection, readRows(lock))
            .forEach(member -> taken.put(member.entry().sequence(), member));
      }
    }
    taken.keySet().removeAll(KeyRuns.broken(plan.previous(), taken.keySet()));
    return new ArrayList<>(taken.values());
  }

  /** @return whether claims are held as leased batches (see {@link #claimStrategy()}) */
  boolean batches() {
    return claimStrategy() == ClaimStrategy.LEASED_BATCHES;
  }
}
