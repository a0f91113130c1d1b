package dev.outbox4j.jdbc;

import dev.outbox4j.OutboxEntry;
import dev.outbox4j.QuarantineKind;
import dev.outbox4j.spi.Claim;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * The claim of a {@link JdbcOutboxStore}: which strategy holds claims ({@link ClaimStrategy}), and the claim itself.
 * Under {@link ClaimStrategy#LEASED_BATCHES} it is {@link LeasedBatchClaims}'s; under {@link ClaimStrategy#LEASED_ROWS}
 * it is here.
 *
 * <h2>Why the leased-row claim looks the way it does</h2>
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
 * argument are in {@link ClaimSql} and {@code docs/schema.md}. On PostgreSQL the candidates are locked as
 * {@link LeasedBatchClaims#lock} locks them, and the claim's UPDATE reads them afresh after the locks, so it also skips
 * what a leased-batch claim took meanwhile.
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
  }
  /** The claim's two reads, built on first use: the dialect may be detected only then. */
  private volatile @Nullable ClaimReads claimReads;
  /** Whether the last claim found the window clogged by a backlog behind few keys: see {@link #candidates}. */
  private volatile boolean headsFirst;

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
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be positive, was " + limit);
    }
    if (lease.isNegative() || lease.isZero()) {
      throw new IllegalArgumentException("lease must be positive, was " + lease);
    }
    int wanted = Math.min(limit, JdbcOutboxStore.MAX_CLAIM);
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
  List<Long> candidates(Connection connection, int limit, Instant now) throws SQLException {
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
  List<Long> headsAndUnkeyed(Connection connection, int max, Instant now) throws SQLException {
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
  List<OutboxEntry> claimLocked(Connection connection, List<Long> locked, Instant now, Instant leaseUntil,
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
  List<OutboxEntry> claimLockThenUpdate(Connection connection, List<Long> candidates, int limit,
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

  /** @return whether claims are held as leased batches (see {@link #claimStrategy()}) */
  boolean batches() {
    return claimStrategy() == ClaimStrategy.LEASED_BATCHES;
  }
}
