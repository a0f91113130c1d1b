package dev.outbox4j.jdbc;

import dev.outbox4j.QuarantineReason;
import dev.outbox4j.spi.Claim;
import dev.outbox4j.spi.ClaimRequest;
import dev.outbox4j.spi.DeliveredAndClaimed;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The completions of claims (delivered, released, failed, postponed, quarantined), each fenced by the strategy that
 * made the claim: under {@link ClaimStrategy#LEASED_BATCHES} by the batch row and the entry's version
 * ({@link LeasedBatchClaims#complete}); under {@link ClaimStrategy#LEASED_ROWS} by the claim token in the row.
 *
 * <h2>Fencing under leased rows</h2>
 * Each claim stores a fresh token in {@code claim_token}; every completion is {@code ... WHERE id = ? AND claim_token =
 * ?}, so a relay whose claim was taken over (or cancelled by an entry-face mutation, which clears the token) changes
 * nothing and learns the claim was lost. A claim that merely expired with nobody taking it over still applies: the
 * token is still there. A batch is retired in one statement per token and 500 claims ({@code DELETE/UPDATE ...
 * RETURNING id} on PostgreSQL; without RETURNING one statement + COMMIT when no claim was lost, and a second, locking
 * pass to find out which were lost only when the row count falls short).
 *
 * <h2>The step between two batches</h2>
 * {@link #markDeliveredAndClaim} retires a batch's confirmations inside the next claim's transaction, fenced exactly as
 * on their own; see {@code docs/relay.md}, "One commit per batch".
 *
 * <h2>Entries in doubt</h2>
 * {@link #markFailed}, {@link #postpone} and {@link #quarantine} record an outcome, so they clear {@code in_doubt_since}
 * (see {@link dev.outbox4j.spi.OutboxStore}, "Entries in doubt"); {@link #release} keeps it (the claim sent nothing, so
 * an earlier claim's send may still have landed); {@link #markDelivered} retires the entry, and clears it on an entry
 * kept for retention.
 */
final class Completions extends StoreJdbc {

  private final ClaimFace claimFace;

  Completions(ClaimFace claimFace) {
    super(claimFace);
    this.claimFace = claimFace;
  }

  public List<Claim> markDelivered(Collection<Claim> claims, Instant now) {
    if (claimFace.batches()) {
      return inChunks(claims, chunk -> claimFace.batchClaims.complete("markDelivered", chunk, retiredBatchEntries(),
          retiredBinder(now)));
    }
    return byTokenInChunks(claims, (token, chunk) -> retire(token, chunk, now));
  }

  /**
   * See {@link dev.outbox4j.spi.OutboxStore#markDeliveredAndClaim}: the confirmed claims are retired inside the claim's
   * own transaction, as its first change after the transaction's settings, so that one commit (the claim's, durable)
   * takes both, and the claim sees the retirement. Every fence of a completion holds there as it does on its own: under
   * leased batches the batch row's change gates the outcome and the entries' versions fence it
   * ({@link LeasedBatchClaims#completeAndClaim}); under leased rows the token does ({@link #retireIn}).
   *
   * <p>Done separately, as two calls, when the confirmed claims come from more than one claim or are more than one
   * statement binds (a relay's confirmations come from one claim), and, on a database without {@code RETURNING}
   * (MariaDB/MySQL, H2), when a confirmed claim was lost: the step is rolled back whole and the retirement done on its
   * own learns which.
   */
  public DeliveredAndClaimed markDeliveredAndClaim(Collection<Claim> delivered, Instant deliveredAt,
      ClaimRequest next) {
    List<Claim> done = List.copyOf(delivered);
    if (done.isEmpty() || done.size() > MAX_IDS_PER_STATEMENT
        || done.stream().map(Claim::token).distinct().count() > 1) {
      return separately(done, deliveredAt, next);
    }
    if (claimFace.batches()) {
      return claimFace.batchClaims.completeAndClaim(done, retiredBatchEntries(), retiredBinder(deliveredAt),
          Math.min(next.limit(), JdbcOutboxStore.MAX_CLAIM), next.now(), next.lease(),
          JdbcDialect.storable(next.now().plus(next.lease())), next.maxRun(), next.skippedDestinations());
    }
    UUID token = done.get(0).token();
    AtomicReference<Set<UUID>> retired = new AtomicReference<>(Set.of());
    List<Claim> claims;
    try {
      claims = claimFace.claim(next.limit(), next.now(), next.lease(), next.maxRun(), next.skippedDestinations(),
          c -> retired.set(retireIn(c, token, done, deliveredAt)));
    } catch (ClaimsLost e) {
      return separately(done, deliveredAt, next);
    }
    Set<UUID> applied = retired.get();
    return new DeliveredAndClaimed(done.stream().filter(claim -> !applied.contains(claim.id())).toList(), claims);
  }

  private DeliveredAndClaimed separately(List<Claim> done, Instant deliveredAt, ClaimRequest next) {
    List<Claim> lost = done.isEmpty() ? List.of() : markDelivered(done, deliveredAt);
    return new DeliveredAndClaimed(lost, claimFace.claim(next.limit(), next.now(), next.lease(), next.maxRun(),
        next.skippedDestinations()));
  }

  /** A confirmed claim of the combined step was lost, on a database that cannot tell which in one statement. */
  private static final class ClaimsLost extends RuntimeException {
    ClaimsLost() {
      super("a confirmed claim was lost", null, false, false);
    }
  }

  /**
   * Retires confirmed leased-row claims of one token on the caller's connection, in its transaction: the same fenced
   * statement as {@link #retire}.
   *
   * @return the ids retired
   * @throws ClaimsLost on a database without {@code RETURNING} when fewer rows changed than were confirmed (the caller's
   *     transaction is then rolled back)
   */
  private Set<UUID> retireIn(Connection c, UUID token, List<Claim> claims, Instant now) throws SQLException {
    List<Long> seqs = claims.stream().map(claim -> claim.entry().sequence()).toList();
    String sql = retiredRows() + " WHERE claim_token = ? AND " + WAITING + " AND seq IN " + placeholders(seqs.size());
    if (dialect.supportsReturning()) {
      try (PreparedStatement prepared = c.prepareStatement(sql + " RETURNING id")) {
        bindFenced(prepared, retiredRowsBinder(now), token, seqs);
        Set<UUID> applied = new HashSet<>();
        try (ResultSet result = prepared.executeQuery()) {
          while (result.next()) {
            applied.add(dialect.getUuid(result, "id"));
          }
        }
        return applied;
      }
    }
    try (PreparedStatement prepared = c.prepareStatement(sql)) {
      bindFenced(prepared, retiredRowsBinder(now), token, seqs);
      if (prepared.executeUpdate() != claims.size()) {
        throw new ClaimsLost();
      }
    }
    return claims.stream().map(Claim::id).collect(Collectors.toSet());
  }

  /** @return the outcome of confirmed leased-batch claims, for {@link LeasedBatchClaims#complete} */
  private String retiredBatchEntries() {
    return retention.deletesOnDelivery() ? "DELETE FROM " + table + " o"
        : "UPDATE " + table + " o SET status = 'DELIVERED', delivered_at = ?, in_doubt_since = NULL,"
            + " version = o.version + 1";
  }

  /** Binds {@link #retiredBatchEntries()}'s parameters. */
  private LeasedBatchClaims.Binder retiredBinder(Instant now) {
    return retention.deletesOnDelivery() ? (s, first) -> first : (s, first) -> {
      dialect.setInstant(s, first, now);
      return first + 1;
    };
  }

  /** @return the outcome of confirmed leased-row claims, without its WHERE clause */
  private String retiredRows() {
    return retention.deletesOnDelivery() ? dialect.deleteByPrimaryKey(table) : "UPDATE " + dialect.byPrimaryKey(table)
        + " SET status = 'DELIVERED', delivered_at = ?, in_doubt_since = NULL, claim_token = NULL, lease_until = NULL,"
        + " version = version + 1";
  }

  /** Binds {@link #retiredRows()}'s parameters. */
  private Binder retiredRowsBinder(Instant now) {
    return retention.deletesOnDelivery() ? s -> 1 : s -> {
      dialect.setInstant(s, 1, now);
      return 2;
    };
  }

  public List<Claim> release(Collection<Claim> claims) {
    if (claimFace.batches()) {
      // The entry is not changed: leaving its batch row makes it claimable again.
      return inChunks(claims, chunk -> claimFace.batchClaims.complete("release", chunk, "SELECT o.seq FROM " + table + " o",
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
  Set<UUID> retire(UUID token, List<Claim> claims, Instant now) {
    return fencedByToken("markDelivered", token, claims, retiredRows(), retiredRowsBinder(now));
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
  Set<UUID> fencedByToken(String what, UUID token, List<Claim> claims, String statement, Binder binder) {
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

  void bindFenced(PreparedStatement statement, Binder binder, UUID token, List<Long> seqs)
      throws SQLException {
    int next = binder.bind(statement);
    dialect.setUuid(statement, next, token);
    bindSeqs(statement, next + 1, seqs);
  }

  public boolean markFailed(Claim claim, String error, Instant nextAttemptAt) {
    return fencedUpdate("markFailed", "status = 'FAILED', attempts = attempts + 1, last_error = ?, available_at = ?,"
        + " first_failed_at = COALESCE(first_failed_at, ?), in_doubt_since = NULL", claim, (s, first) -> {
          s.setString(first, OutboxRows.clip(error));
          dialect.setInstant(s, first + 1, nextAttemptAt);
          dialect.setInstant(s, first + 2, clock.instant());
          return first + 3;
        });
  }

  public boolean postpone(Claim claim, String reason, Instant nextAttemptAt) {
    return fencedUpdate("postpone", "last_error = ?, available_at = ?, in_doubt_since = NULL", claim, (s, first) -> {
      s.setString(first, OutboxRows.clip(reason));
      dialect.setInstant(s, first + 1, nextAttemptAt);
      return first + 2;
    });
  }

  public List<Claim> postpone(Collection<Claim> claims, String reason, Instant nextAttemptAt) {
    String clipped = OutboxRows.clip(reason);
    if (claimFace.batches()) {
      return inChunks(claims, chunk -> claimFace.batchClaims.complete("postpone", chunk, "UPDATE " + table
          + " o SET last_error = ?, available_at = ?, in_doubt_since = NULL, version = o.version + 1", (s, first) -> {
            s.setString(first, clipped);
            dialect.setInstant(s, first + 1, nextAttemptAt);
            return first + 2;
          }));
    }
    String set = "UPDATE " + dialect.byPrimaryKey(table) + " SET last_error = ?, available_at = ?,"
        + " in_doubt_since = NULL, claim_token = NULL, lease_until = NULL, version = version + 1";
    return byTokenInChunks(claims, (token, chunk) -> fencedByToken("postpone", token, chunk, set, s -> {
      s.setString(1, clipped);
      dialect.setInstant(s, 2, nextAttemptAt);
      return 3;
    }));
  }

  public boolean quarantine(Claim claim, QuarantineReason reason, Instant lateCopiesLandBy) {
    // The claim fences the row, so its available time is still the claimed one: the later of the two is kept.
    Instant claimed = claim.entry().availableAt();
    Instant availableAt = lateCopiesLandBy.isAfter(claimed) ? lateCopiesLandBy : claimed;
    return fencedUpdate("quarantine", "status = 'QUARANTINED', attempts = attempts + 1, last_error = ?,"
        + " quarantine_reason = ?, quarantine_kind = ?, available_at = ?, in_doubt_since = NULL", claim, (s, first) -> {
          s.setString(first, OutboxRows.clip(reason.text()));
          s.setString(first + 1, OutboxRows.clip(reason.text()));
          s.setString(first + 2, reason.kind().name());
          dialect.setInstant(s, first + 3, availableAt);
          return first + 4;
        });
  }

  boolean fencedUpdate(String what, String set, Claim claim, LeasedBatchClaims.Binder binder) {
    if (claimFace.batches()) {
      return claimFace.batchClaims.complete(what, List.of(claim), "UPDATE " + table + " o SET " + set
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
}
