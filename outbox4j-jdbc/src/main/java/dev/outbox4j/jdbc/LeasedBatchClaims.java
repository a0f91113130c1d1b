package dev.outbox4j.jdbc;

import dev.outbox4j.OutboxEntry;
import dev.outbox4j.jdbc.internal.ConnectionWork;
import dev.outbox4j.jdbc.internal.UnnamedStatements;
import dev.outbox4j.spi.Claim;
import dev.outbox4j.spi.DeliveredAndClaimed;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * The PostgreSQL claim of a {@link JdbcOutboxStore} under {@link ClaimStrategy#LEASED_BATCHES}: one narrow row per
 * claimed batch, no rewrite of the claimed entries, nothing held by a session.
 *
 * <h2>The claim: one short transaction</h2>
 * <ol>
 *   <li><b>Lock</b> (after the {@code SET LOCAL}s and the two reads of the {@link ClaimFloor}'s sample, one statement;
 *       three more when the window is clogged): over the claim window, read from the floor, each claimable entry that
 *       is in no unexpired batch gets a transaction-scoped advisory lock,
 *       {@code pg_try_advisory_xact_lock(table, seq)}; an entry another claim is taking right now is skipped. The
 *       window is widened by the number of entries in flight, which the claim table shows for every relay, so relays
 *       never crowd each other out of it. When the window is full of entries that cannot be claimed, the keys' heads
 *       are read without locks and locked the same way. A leased-row claim on PostgreSQL takes the same steps
 *       ({@link ClaimFace}).
 *   <li><b>Take over</b> (only when the lock saw an expired leased-row claim among the locked entries, or one more
 *       statement finds an expired batch row holding one): the locked entries are trimmed from the expired batch rows
 *       holding them, skipping any row a completion holds at this moment, and get a new version; a leased-row claim
 *       whose lease passed is cleared from its row (its token and a new version). So the relay that held either can
 *       no longer complete the entries taken over, and still completes the others of its batch. Every entry so taken
 *       over is marked in doubt, and expired rows left without a waiting entry are deleted ({@link #takeOver}).
 *   <li><b>Note</b> (one statement with a fresh snapshot, taken after the locks): the locked entries still waiting, ready
 *       and in no batch row are kept and written as one row (token, seqs, lease, the claim's time); their
 *       {@code (seq, version)} pairs come back.
 *   <li><b>Runs</b> (only with {@code maxRun > 1}): between the lock and the takeover, one read finds the entries right
 *       behind the locked heads ({@link KeyRuns}); the note then keeps a run member only with the one before it, and
 *       a member left out after the commit (changed, unreadable) takes the rest of its run out of the batch with it.
 *   <li><b>Commit</b>, waiting for the WAL flush (the transaction sets {@code synchronous_commit = on} and READ
 *       COMMITTED itself, {@link ClaimSession}): the batch row is as durable as the entries, so neither a crash of the
 *       server nor a promoted synchronous standby forgets it. The advisory locks go with the commit.
 * </ol>
 * Then the entries are read in auto-commit by {@code seq}; an entry whose version moved meanwhile (an entry-face change
 * cancels a claim) or whose row cannot be read is taken out of the batch.
 *
 * <p>Why two claims never take one entry: a claim that got an entry's lock after another claim released it (at its
 * commit) reads the claim table afterwards, with a snapshot that contains that commit, so it sees the other batch's row.
 * Why a candidate is still its key's head: see {@link ClaimSql}. The transaction sets
 * {@code idle_in_transaction_session_timeout} to the lease (at least {@link #MIN_IDLE_IN_CLAIM}), so a relay frozen
 * between statements (SIGSTOP, a long pause) loses its locks by the server's hand; every statement's answer is small,
 * so the server never waits on a frozen client's socket inside the transaction. Nothing is kept in a session, so the
 * claim runs through a transaction-pooling proxy (PgBouncer in transaction mode).
 *
 * <h2>Completions: one statement each</h2>
 * A completion changes the batch row first (trims the completed entries from it, or deletes it with its last entry),
 * in a data-modifying {@code WITH}, and applies the outcome to the entries only if that row was still there, to the
 * entries whose version is still the claimed one. A takeover trims the entries it takes from an expired batch row and
 * gives each a new version, under the row's lock: the two serialise on it, so a completion either lands before the
 * takeover (which then sees the outcome) or lands after it and changes only the entries nobody took over (the taken
 * ones' versions moved: their claims are lost). An expired row is deleted once no waiting entry is left in it. A
 * leased-row claim (of a relay on the same table under {@link ClaimStrategy#LEASED_ROWS}) is fenced by its token,
 * which a takeover clears.
 *
 * <p>A completion commits without waiting for the WAL flush: a crash of the server can only undo it whole, and then its
 * entries are back in their batch, under the lease, and are sent again after it: duplicates, as at-least-once allows,
 * never an early copy. Nothing can be sent on the strength of a lost completion either: the claim that hands out the
 * next entry of a key commits waiting for the flush, and the WAL is flushed in order, so the completion before it is
 * durable by then (and, with a synchronous standby, on the standby).
 *
 * <p>The step between two batches ({@link #completeAndClaim}) runs a completion statement inside the next claim's
 * transaction, after the claim's settings and without the asynchronous commit: one durable commit takes both, or a
 * rollback neither.
 *
 * <p>One piece on purpose: the claim and its completions are the two halves of one fencing protocol on the batch row
 * (a completion applies only while the row its claim wrote is there; a takeover deletes it), and each statement's
 * correctness argument refers to the other's. Where the claim starts reading is apart, in {@link ClaimFloor}.
 *
 * <p>Thread-safe. The batches this store claimed are remembered (their entries not completed yet), so that a completion
 * knows whether it finishes its batch, until their lease has passed (each claim forgets those); completions of one
 * batch are serialised in this store.
 */
final class LeasedBatchClaims {
  /** Runs a unit of work on one of the store's connections, in a transaction or in auto-commit. */
  interface Connections {
    <R> R inTransaction(String what, ConnectionWork<R> work);

    <R> R autoCommit(String what, ConnectionWork<R> work);
  }

  /** The store's heads-and-unkeyed read: up to {@code max} claimable key heads and unkeyed entries, ascending. */
  interface Heads {
    List<Long> read(Connection connection, int max, Instant now, Set<String> skipped) throws SQLException;
  }

  /** Binds the parameters of a change from index {@code first}; returns the next free index. */
  interface Binder {
    int bind(PreparedStatement statement, int first) throws SQLException;
  }

  /** The entries of one claimed batch that this store has not completed yet, and until when it holds them. */
  private static final class Batch {
    final Set<Long> open;
    final Instant leaseUntil;

    Batch(Set<Long> open, Instant leaseUntil) {
      this.open = open;
      this.leaseUntil = leaseUntil;
    }
  }

  /** Entries locked by the first statement, and whether a takeover is needed before they are noted. */
  record Locked(List<Long> seqs, boolean takeOver) {
    static final Locked NONE = new Locked(List.of(), false);
  }

  private static final String WAITING = "status IN ('PENDING', 'FAILED')";
  /** The shortest time the server lets a claim's transaction sit idle before it ends it (a frozen relay's). */
  static final Duration MIN_IDLE_IN_CLAIM = Duration.ofSeconds(5);
  /** A version that matches any: for entries that only leave their batch, whatever their state. */
  private static final long UNVERSIONED = -1;

  private final Connections connections;
  private final Heads heads;
  private final OutboxRows rows;
  private final String table;
  private final String claimTable;
  private final String namespace;
  /** Whether window entry {@code c} may be claimed; its key's head probe starts at {@code c.key_floor} ({@link #keyFloor}). */
  private final String claimable;
  private final Map<UUID, Batch> batches = new ConcurrentHashMap<>();
  /** As the leased-row claim's hint: the window was full of entries that cannot be claimed, so go to the heads. */
  private volatile boolean headsFirst;
  private final KeyRuns runs;
  private final ClaimFloor floor;

  LeasedBatchClaims(Connections connections, Heads heads, OutboxRows rows, String table, String claimTable) {
    this.runs = new KeyRuns(PostgresDialect.INSTANCE, table, claimTable);
    this.connections = connections;
    this.heads = heads;
    this.rows = rows;
    this.table = table;
    this.claimTable = claimTable;
    this.namespace = namespace(table);
    this.claimable = ClaimSql.claimable("c", table,
        PostgresDialect.UNDELIVERED_OF_KEY + " AND h.key_seq >= c.key_floor");
    this.floor = new ClaimFloor(table, WAITING, new ClaimFloor.PostgresSource(table), System::nanoTime);
  }

  /** Forgets where the claim window starts (an entry came back to waiting, for instance by a requeue). */
  void waitingChanged() {
    floor.reset();
  }

  /** @return where the claim window starts reading */
  long claimFloor() {
    return floor.floor();
  }

  /**
   * @param table the qualified outbox table, as configured
   * @return the SQL expression of the first key of this table's advisory locks: its OID's low 31 bits, the same for
   *     every spelling of the table's name ({@code public.outbox4j_outbox} and {@code outbox4j_outbox} are one table),
   *     folded to a constant when the statement is planned
   */
  static String namespace(String table) {
    return "(('" + table + "'::regclass)::oid::bigint & 2147483647)::int";
  }

  /** @return the SQL expression of the second key of {@code seqExpression}'s lock: its low 31 bits */
  static String lockKey(String seqExpression) {
    return "(" + seqExpression + " & 2147483647)::int";
  }

  /**
   * @param claimTable the qualified claim table
   * @return a subquery (parameter: now) of the entries in claimed batches whose lease has not passed
   */
  static String inUnexpiredBatches(String claimTable) {
    return "SELECT unnest(b.seqs) FROM " + claimTable + " b WHERE b.lease_until > ?";
  }

  /**
   * @param claimTable the qualified claim table
   * @return a subquery (parameter: a {@code bigint[]} of candidates) of the entries of every batch row, expired or not,
   *     that holds one of the candidates: read through the index on each row's last {@code seq} (migration V11) from
   *     the smallest candidate on, so its cost is the rows claimed since that entry was written, never the rows
   *     retired since the oldest open transaction began
   */
  static String inBatchRows(String claimTable) {
    return "SELECT unnest(b.seqs) FROM (SELECT ?::bigint[] AS a) p JOIN " + claimTable + " b ON "
        + lastSeq(claimTable, "b") + " >= (SELECT min(x) FROM unnest(p.a) AS x) AND b.seqs && p.a";
  }

  /**
   * @param claimTable the qualified claim table
   * @param alias the alias of a batch row
   * @return the largest {@code seq} of the row, as its index (migration V11) computes it: a row holds an entry only if
   *     this is at least the entry's {@code seq}, whatever the order of its {@code seqs}
   */
  static String lastSeq(String claimTable, String alias) {
    return claimTable + "_last_seq(" + alias + ".seqs)";
  }

  /**
   * @param maxRun the most entries of one key ({@code 1}: heads only, the statements of a claim without runs)
   * @return the claims, in {@code seq} order
   */
  List<Claim> claim(int limit, Instant now, Duration lease, Instant leaseUntil, int maxRun, Set<String> skipped) {
    forgetExpired(now);
    UUID token = UUID.randomUUID();
    Map<Long, Long> previous = new HashMap<>();
    Map<Long, Long> noted = connections.inTransaction("claim", c -> {
      begin(c, lease);
      return claimIn(c, token, previous, limit, now, lease, leaseUntil, maxRun, skipped, Runnable::run);
    });
    return handOut(token, noted, previous, leaseUntil);
  }

  /**
   * Sets a PostgreSQL claim's transaction up ({@link ClaimSession#postgres}): its first statement, before any other.
   */
  static void begin(Connection c, Duration lease) throws SQLException {
    try (Statement set = c.createStatement()) {
      set.execute(ClaimSession.postgres(lease)); // isolation, durability and bounds of this transaction: first
    }
  }

  /**
   * The claim's statements, in its transaction after {@link #begin}: lock, take over, note.
   *
   * @param previous filled with each run member's previous member (runs only)
   * @return the noted entries' versions by {@code seq}
   */
  private Map<Long, Long> claimIn(Connection c, UUID token, Map<Long, Long> previous, int limit, Instant now,
      Duration lease, Instant leaseUntil, int maxRun, Set<String> skipped,
      java.util.function.Consumer<Runnable> floorChanges) throws SQLException {
    previous.clear(); // a deadlock victim runs this again
    Locked locked = lock(c, limit, now, lease, skipped, floorChanges);
    if (locked.seqs().isEmpty()) {
      return Map.of();
    }
    if (maxRun == 1) {
      if (locked.takeOver()) {
        takeOver(c, locked.seqs(), now);
      }
      return note(c, locked.seqs(), token, leaseUntil, now);
    }
    KeyRuns.Plan plan = runs.followPostgres(c, locked.seqs(), maxRun, limit, now);
    previous.putAll(plan.previous());
    if (locked.takeOver() || plan.stale()) {
      takeOver(c, plan.seqs(), now);
    }
    return noteRuns(c, plan, token, leaseUntil, now);
  }

  /**
   * Retires confirmed claims of one batch and claims the next batch in one transaction, with one commit (the claim's,
   * which waits for the WAL flush): the step between two batches of a busy relay
   * ({@link dev.outbox4j.spi.OutboxStore#markDeliveredAndClaim}). The transaction runs the claim's settings first, then
   * the completion statement exactly as {@link #complete} runs it (the batch row's change gating the outcome, the
   * entries' versions fencing it) but without choosing an asynchronous commit, then the claim's statements, which see
   * the completion (a retired head lets its key's next entry be claimed). Either both commit, durably, or neither.
   *
   * @param done confirmed claims of one batch, at most {@link StoreJdbc#MAX_IDS_PER_STATEMENT}
   * @param change the outcome, as for {@link #complete}
   * @return the lost claims of {@code done}, and the new claims
   */
  DeliveredAndClaimed completeAndClaim(List<Claim> done, String change, Binder binder, int limit, Instant now,
      Duration lease, Instant leaseUntil, int maxRun, Set<String> skipped) {
    forgetExpired(now);
    UUID doneToken = done.get(0).token();
    Map<Long, Long> versions = new HashMap<>();
    for (Claim claim : done) {
      if (!claim.token().equals(doneToken)) {
        throw new IllegalArgumentException("the confirmed claims must come from one batch");
      }
      versions.put(claim.entry().sequence(), claim.entry().version());
    }
    Batch batch = batches.get(doneToken);
    UUID token = UUID.randomUUID();
    Map<Long, Long> previous = new HashMap<>();
    Map<Long, Long> noted;
    Set<Long> applied;
    // Completions of one batch are serialised in this store (a batch it does not know needs no lock of its own).
    synchronized (batch != null ? batch : versions) {
      Set<Long> remaining = batch == null ? new HashSet<>() : new HashSet<>(batch.open);
      remaining.removeAll(versions.keySet());
      boolean last = batch != null && remaining.isEmpty();
      String sql = completion(last ? "DELETE FROM " + claimTable + " WHERE token = ? RETURNING 1" : trim(), true,
          change, false);
      Set<Long> seqsParameter = last ? null : versions.keySet();
      record Both(Set<Long> applied, Map<Long, Long> noted) {}
      List<Runnable> floorChanges = new ArrayList<>();
      Both both = connections.inTransaction("markDeliveredAndClaim", c -> {
        floorChanges.clear(); // a deadlock victim runs this again
        begin(c, lease);
        Set<Long> retired = applyOn(c, sql, doneToken, seqsParameter, versions, binder);
        return new Both(retired,
            claimIn(c, token, previous, limit, now, lease, leaseUntil, maxRun, skipped, floorChanges::add));
      });
      floorChanges.forEach(Runnable::run); // committed: what the claim learnt holds
      applied = both.applied();
      noted = both.noted();
      if (batch != null) {
        batch.open.removeAll(versions.keySet());
        if (last) {
          batches.remove(doneToken);
        }
      }
    }
    List<Claim> lost = done.stream().filter(claim -> !applied.contains(claim.entry().sequence())).toList();
    return new DeliveredAndClaimed(lost, handOut(token, noted, previous, leaseUntil));
  }

  /**
   * After a claim's commit: remembers the batch, reads its entries in auto-commit, and takes out of it the entries
   * changed through the entry face since the claim, unreadable ones, and a run's members behind one taken out.
   *
   * @return the claims, in {@code seq} order
   */
  private List<Claim> handOut(UUID token, Map<Long, Long> noted, Map<Long, Long> previous, Instant leaseUntil) {
    if (noted.isEmpty()) {
      return List.of();
    }
    batches.put(token, new Batch(new HashSet<>(noted.keySet()), leaseUntil));
    List<OutboxRows.Read> read;
    try {
      read = connections.autoCommit("claim", c -> read(c, new ArrayList<>(noted.keySet())));
    } catch (RuntimeException e) {
      giveBack(token, e); // nothing was handed out: the entries must not wait for the lease
      throw e;
    }
    Map<Long, OutboxRows.Read> kept = new LinkedHashMap<>();
    List<OutboxRows.Read> unreadable = new ArrayList<>();
    Set<Long> dropped = new HashSet<>(noted.keySet());
    for (OutboxRows.Read row : read) {
      OutboxEntry entry = row.entry();
      Long version = noted.get(entry.sequence());
      if (version == null || version != entry.version()) {
        continue; // changed through the entry face since the claim: the claim is cancelled
      }
      if (!row.readable()) {
        unreadable.add(row);
        continue;
      }
      kept.put(entry.sequence(), row);
    }
    // A run member behind one left out is left out too: a key's claims are its head and a gap-free run behind it.
    kept.keySet().removeAll(KeyRuns.broken(previous, kept.keySet()));
    List<Claim> claims = new ArrayList<>(kept.size());
    for (OutboxRows.Read row : kept.values()) {
      dropped.remove(row.entry().sequence());
      claims.add(new Claim(row.entry(), token, leaseUntil, row.inDoubtSince()));
    }
    if (!dropped.isEmpty()) {
      // Unreadable rows are quarantined while still in the batch (nobody else can touch them), then every entry not
      // handed out leaves the batch, so others may claim it.
      if (!unreadable.isEmpty()) {
        connections.autoCommit("claim", c -> {
          rows.quarantineUnreadable(c, unreadable);
          return null;
        });
      }
      Map<Long, Long> leaving = new HashMap<>();
      dropped.forEach(seq -> leaving.put(seq, UNVERSIONED));
      complete("claim", token, leaving, "SELECT o.seq FROM " + table + " o", (s, first) -> first);
    }
    return claims;
  }

  /**
   * Forgets the batches whose lease has passed by {@code now} (entries in doubt, past their cutoff, whose completion
   * failed or never came), so that what this store remembers is bounded by what it claimed within one lease. A late
   * completion of a forgotten batch is applied as one of a batch this store does not know ({@link #completeUnknown}):
   * fenced in the same way, only without deleting the row, which a takeover deletes once it is empty and expired.
   */
  private void forgetExpired(Instant now) {
    batches.values().removeIf(batch -> !batch.leaseUntil.isAfter(now));
  }

  /** @return how many claimed batches this store remembers (not completed yet, lease not passed at the last claim) */
  int rememberedBatches() {
    return batches.size();
  }

  /** Deletes a batch row that was never handed out; should that fail too, the batch waits for its lease. */
  private void giveBack(UUID token, RuntimeException failure) {
    batches.remove(token);
    try {
      connections.autoCommit("claim", c -> {
        try (PreparedStatement delete = c.prepareStatement("DELETE FROM " + claimTable + " WHERE token = ?")) {
          delete.setObject(1, token);
          return delete.executeUpdate();
        }
      });
    } catch (RuntimeException suppressed) {
      failure.addSuppressed(suppressed);
    }
  }

  /**
   * The first statement of a claim, in the claim's transaction: locks up to {@code limit} claimable entries in no
   * unexpired batch, first over the claim window, and through the keys' heads when the window was full of entries
   * that cannot be claimed (a backlog behind a few keys). Entries of {@code skipped} destinations are never locked:
   * the window counts them as entries that cannot be claimed, and the heads read leaves them out without reading
   * them ({@link UnkeyedLanes}).
   */
  Locked lock(Connection c, int limit, Instant now, Duration lease, Set<String> skipped) throws SQLException {
    return lock(c, limit, now, lease, skipped, Runnable::run);
  }

  /**
   * {@link #lock(Connection, int, Instant, Duration, Set)}, handing what it learnt about where claims start reading
   * ({@link ClaimFloor#advance}, {@link ClaimFloor#learnHead}) to {@code floorChanges} rather than applying it: a claim
   * whose transaction changed entries before it (the combined step's retirement) sees its own uncommitted changes, so
   * what it learnt holds only once it commits, and is applied then (or never, when it rolls back). A head learnt from a
   * retirement that rolled back would let the key's next entry be claimed while the retired one waits again.
   *
   * @param floorChanges runs, or keeps for after the commit, each change of the floor
   */
  Locked lock(Connection c, int limit, Instant now, Duration lease, Set<String> skipped,
      java.util.function.Consumer<Runnable> floorChanges) throws SQLException {
    floor.rescanIfDue(connections);
    ClaimFloor.Reading reading = floor.sample(c);
    List<Long> locked = new ArrayList<>();
    boolean stale;
    if (headsFirst) {
      Locked heads = lockHeads(c, limit, now, List.of(), skipped);
      // While destinations are left out, a paused destination's backlog keeps clogging the window: stay with the heads.
      headsFirst = !heads.seqs().isEmpty() && (heads.seqs().size() < limit || !skipped.isEmpty());
      locked.addAll(heads.seqs());
      stale = heads.takeOver();
    } else {
      Window window = lockWindow(c, limit, now, reading.floor(), skipped, floorChanges);
      floorChanges.accept(() -> floor.advance(reading, window.firstWaiting()));
      locked.addAll(window.locked());
      stale = window.stale();
      // Done when the batch is full, or the window held every waiting entry (the heads read could find nothing more).
      if (locked.size() < limit && !window.wholeBacklogSeen()) {
        Locked more = lockHeads(c, limit - locked.size(), now, locked, skipped);
        locked.addAll(more.seqs());
        stale |= more.takeOver();
        headsFirst = !locked.isEmpty() && (locked.size() < limit || !skipped.isEmpty());
      }
    }
    if (!stale && !locked.isEmpty()) {
      // An entry of an expired batch row (nobody took it over yet) is a candidate like any other: the row must go first.
      try (PreparedStatement overlap = c.prepareStatement("SELECT EXISTS (SELECT 1 FROM " + claimTable
          + " b WHERE " + lastSeq(claimTable, "b") + " >= ? AND b.seqs && ?::bigint[])")) {
        overlap.setLong(1, Collections.min(locked));
        overlap.setArray(2, seqs(c, locked));
        try (ResultSet result = overlap.executeQuery()) {
          result.next();
          stale = result.getBoolean(1);
        }
      }
    }
    return new Locked(locked, stale);
  }

  /**
   * @param alias a waiting entry, in a statement whose {@code WITH} has {@code kf(floors)}, the
   *     {@link ClaimFloor#keyFloorsJson key floors} as jsonb
   * @return where the head probe of {@code alias}'s key starts: the key's floor, or 0 (its first entry) when it has
   *     none, or when another undelivered entry of the key has the floor's number (a number handed out again);
   *     one index probe
   */
  private String keyFloor(String alias) {
    String value = "((SELECT kf.floors FROM kf) ->> " + alias + ".ordering_key)";
    String keySeq = "split_part(" + value + ", ',', 1)::bigint";
    return "CASE WHEN " + alias + ".ordering_key IS NULL OR " + value + " IS NULL THEN 0 WHEN EXISTS (SELECT 1 FROM "
        + table + " r WHERE r.ordering_key = " + alias + ".ordering_key AND r.status <> 'DELIVERED' AND r.key_seq = "
        + keySeq + " AND r.seq <> split_part(" + value + ", ',', 2)::bigint) THEN 0 ELSE " + keySeq + " END";
  }

  /** The window's locked entries, whether one carries a leased-row claim, and what the window saw. */
  private record Window(List<Long> locked, boolean stale, boolean wholeBacklogSeen, long firstWaiting) {}

  /**
   * Locks up to {@code limit} claimable entries of the claim window, read from {@code from} (the {@link ClaimFloor}).
   * No ORDER BY, aggregate, DISTINCT or window function above the lock: the LIMIT must pull rows through the filter one
   * by one, or the filter would lock rows that are never returned; and the window is read only as far as the LIMIT
   * pulls. Every condition is the CASE's, checked per row, cheapest first, and only then the lock. The window is
   * widened by the entries in flight (every relay's, from the claim table's unexpired rows), which it skips. The
   * UNION ALL's first branch is one row with seq -1: the first waiting entry at or above the floor (for
   * {@link ClaimFloor#advance}). Only when the batch is not full does it go on to its last branch: one row with seq 0,
   * how many rows the window held (same snapshot) and how many it could have held.
   */
  private Window lockWindow(Connection c, int limit, Instant now, long from, Set<String> skipped,
      java.util.function.Consumer<Runnable> floorChanges) throws SQLException {
    int size = Math.min(2 * JdbcOutboxStore.MAX_CLAIM, 2 * limit);
    String inFlight = "(SELECT coalesce(sum(cardinality(f.seqs)), 0) FROM " + claimTable + " f"
        + " WHERE f.lease_until > ?)";
    String window = " FROM " + table + " w WHERE w." + WAITING + " AND w.seq >= ? ORDER BY w.seq LIMIT ? + " + inFlight;
    String sql = "WITH kf AS MATERIALIZED (SELECT ?::jsonb AS floors)"
        + " SELECT x.seq, x.stale, x.held, x.room, x.ordering_key, x.key_seq FROM ((SELECT -1::bigint AS seq,"
        + " false AS stale, coalesce((SELECT v.seq FROM " + table + " v WHERE v." + WAITING + " AND v.seq >= ?"
        + " ORDER BY v.seq LIMIT 1), 0) AS held, 0::bigint AS room, NULL::varchar AS ordering_key, 0::bigint AS key_seq)"
        + " UNION ALL (SELECT c.seq, c.lease_until IS NOT NULL, 0::bigint, 0::bigint, c.ordering_key, c.key_seq FROM"
        + " (SELECT w.seq, w.destination, w.ordering_key, w.key_seq, w.available_at, w.lease_until, " + keyFloor("w")
        + " AS key_floor" + window + ") c"
        + " WHERE CASE WHEN c.destination <> ALL(?::varchar[]) AND c.seq NOT IN (" + inUnexpiredBatches(claimTable) + ") AND " + claimable
        + " THEN pg_try_advisory_xact_lock(" + namespace + ", " + lockKey("c.seq") + ") ELSE false END)"
        + " UNION ALL (SELECT 0, false, count(*), ? + " + inFlight + ", NULL, 0 FROM (SELECT w.seq" + window + ") z))"
        + " x LIMIT ? + 1";
    List<Long> locked = new ArrayList<>();
    boolean stale = false;
    boolean wholeBacklogSeen = false;
    long firstWaiting = 0;
    try (PreparedStatement statement = c.prepareStatement(sql)) {
      int i = 1;
      statement.setString(i++, floor.keyFloorsJson());
      statement.setLong(i++, from);
      statement.setLong(i++, from);
      statement.setInt(i++, size);
      statement.setObject(i++, utc(now));
      statement.setArray(i++, c.createArrayOf("varchar", skipped.toArray()));
      statement.setObject(i++, utc(now));
      statement.setObject(i++, utc(now));
      statement.setObject(i++, utc(now));
      statement.setInt(i++, size);
      statement.setObject(i++, utc(now));
      statement.setLong(i++, from);
      statement.setInt(i++, size);
      statement.setObject(i++, utc(now));
      statement.setInt(i, limit);
      try (ResultSet result = statement.executeQuery()) {
        while (result.next()) {
          long seq = result.getLong(1);
          if (seq > 0) {
            locked.add(seq);
            stale |= result.getBoolean(2);
            String key = result.getString(5);
            if (key != null) {
              long keySeq = result.getLong(6);
              floorChanges.accept(() -> floor.learnHead(key, keySeq, seq));
            }
          } else if (seq < 0) {
            firstWaiting = result.getLong(3);
          } else {
            wholeBacklogSeen = result.getLong(3) < result.getLong(4);
          }
        }
      }
    }
    return new Window(locked, stale, wholeBacklogSeen, firstWaiting);
  }

  /** Locks up to {@code limit} of the keys' heads and the unkeyed entries that are in no unexpired batch. */
  private Locked lockHeads(Connection c, int limit, Instant now, List<Long> skip, Set<String> skipped)
      throws SQLException {
    long inFlight;
    try (PreparedStatement count = c.prepareStatement("SELECT coalesce(sum(cardinality(f.seqs)), 0) FROM "
        + claimTable + " f WHERE f.lease_until > ?")) {
      count.setObject(1, utc(now));
      try (ResultSet result = count.executeQuery()) {
        result.next();
        inFlight = result.getLong(1);
      }
    }
    Set<Long> excluded = new HashSet<>(skip);
    List<Long> candidates = new ArrayList<>();
    for (long seq : heads.read(c, (int) Math.min(Integer.MAX_VALUE, 2L * limit + inFlight + skip.size()), now,
        skipped)) {
      if (!excluded.contains(seq)) {
        candidates.add(seq);
      }
    }
    if (candidates.isEmpty()) {
      return Locked.NONE;
    }
    String sql = "SELECT l.seq, l.stale FROM (SELECT c.seq, c.lease_until IS NOT NULL AS stale FROM " + table + " c"
        + " WHERE c.seq = ANY(?) AND c." + WAITING + " AND " + ClaimSql.ready("c") + " AND c.seq NOT IN ("
        + inUnexpiredBatches(claimTable) + ") ORDER BY c.seq OFFSET 0) l"
        + " WHERE pg_try_advisory_xact_lock(" + namespace + ", " + lockKey("l.seq") + ") LIMIT ?";
    List<Long> locked = new ArrayList<>();
    boolean stale = false;
    try (PreparedStatement statement = c.prepareStatement(sql)) {
      statement.setArray(1, seqs(c, candidates));
      statement.setObject(2, utc(now));
      statement.setObject(3, utc(now));
      statement.setObject(4, utc(now));
      statement.setInt(5, limit);
      try (ResultSet result = statement.executeQuery()) {
        while (result.next()) {
          locked.add(result.getLong(1));
          stale |= result.getBoolean(2);
        }
      }
    }
    return new Locked(locked, stale);
  }

  /**
   * Takes the locked entries over from the claims that expired holding them, so the relays that held those claims are
   * fenced out of exactly these entries. In the claim's transaction, after {@link #lock}.
   *
   * <ul>
   *   <li>An expired batch row holding a locked entry, and no completion holds right now, gives up the locked entries
   *       only: they are trimmed from its {@code seqs}, and each gets a new version, which its old claim no longer
   *       matches. The row keeps its other entries, so a late completion of one that nobody took over still applies
   *       (refusing it would only send the message again). A row a completion holds is skipped, and its entries are
   *       then left out of this claim by {@link #note}.
   *   <li>A leased-row claim whose lease passed is cleared from its locked entry (its token, and a new version).
   *   <li>Expired rows that no longer hold a waiting entry (taken over, completed or gone) are deleted.
   * </ul>
   *
   * <p>Every entry so taken over is marked in doubt (see {@link dev.outbox4j.spi.OutboxStore}, "Entries in doubt"):
   * since its batch row's {@code claimed_at} (its {@code created_at} for a row noted before migration V9), or since a
   * cleared leased-row claim's own {@code claimed_at}; an earlier mark is kept. The two sets never share an entry: a
   * batch notes only entries without a leased-row token, and a leased-row claim skips entries in a batch row.
   */
  void takeOver(Connection c, List<Long> locked, Instant now) throws SQLException {
    try (PreparedStatement statement = c.prepareStatement("WITH taken AS MATERIALIZED (SELECT e.token, e.seqs,"
        + " e.claimed_at FROM " + claimTable + " e WHERE e.lease_until <= ? AND " + lastSeq(claimTable, "e")
        + " >= (SELECT min(x) FROM unnest(?::bigint[]) AS x) AND e.seqs && ?::bigint[] FOR UPDATE SKIP LOCKED),"
        + " trimmed AS (UPDATE " + claimTable + " b SET seqs = ARRAY(SELECT x FROM unnest(b.seqs) AS x"
        + " WHERE x <> ALL(?::bigint[])) FROM taken t WHERE b.token = t.token),"
        + " doubted AS (UPDATE " + table + " d SET in_doubt_since = coalesce(d.in_doubt_since, g.claimed_at,"
        + " d.created_at), version = d.version + 1 FROM (SELECT unnest(t.seqs) AS seq, t.claimed_at FROM taken t) g"
        + " WHERE d.seq = g.seq AND d.seq = ANY(?::bigint[]) AND d." + WAITING + ")"
        + " UPDATE " + table + " o SET in_doubt_since = " + OutboxRows.inDoubtOnClaim("o") + ", claim_token = NULL,"
        + " lease_until = NULL, version = o.version + 1 WHERE o.seq = ANY(?) AND o." + WAITING
        + " AND o.lease_until <= ?")) {
      statement.setObject(1, utc(now));
      for (int i = 2; i <= 6; i++) {
        statement.setArray(i, seqs(c, locked));
      }
      statement.setObject(7, utc(now));
      statement.executeUpdate();
    }
    try (PreparedStatement statement = c.prepareStatement("DELETE FROM " + claimTable + " WHERE token IN (SELECT"
        + " e.token FROM " + claimTable + " e WHERE e.lease_until <= ? AND NOT EXISTS (SELECT 1 FROM " + table + " o"
        + " WHERE o.seq = ANY(e.seqs) AND o." + WAITING + ") FOR UPDATE SKIP LOCKED)")) {
      statement.setObject(1, utc(now));
      statement.executeUpdate();
    }
  }

  /**
   * Keeps the locked entries that, read afresh, still wait, are ready, carry no leased-row claim and are in no batch
   * row, and notes them as one batch row. In the claim's transaction, after {@link #lock} (and {@link #takeOver}).
   *
   * @return the kept entries' versions by {@code seq}
   */
  private Map<Long, Long> note(Connection c, List<Long> locked, UUID token, Instant leaseUntil, Instant now)
      throws SQLException {
    String sql = "WITH kept AS MATERIALIZED (SELECT o.seq, o.version FROM " + table + " o WHERE o.seq = ANY(?)"
        + " AND o." + WAITING + " AND o.available_at <= ? AND o.claim_token IS NULL"
        + " AND o.seq NOT IN (" + inBatchRows(claimTable) + ")),"
        + " noted AS (INSERT INTO " + claimTable + " (token, seqs, lease_until, claimed_at)"
        + " SELECT ?, array_agg(k.seq), ?, ? FROM kept k HAVING count(*) > 0)"
        + " SELECT seq, version FROM kept";
    Map<Long, Long> kept = new LinkedHashMap<>();
    try (PreparedStatement statement = c.prepareStatement(sql)) {
      statement.setArray(1, seqs(c, locked));
      statement.setObject(2, utc(now));
      statement.setArray(3, seqs(c, locked));
      statement.setObject(4, token);
      statement.setObject(5, utc(leaseUntil));
      statement.setObject(6, utc(now));
      try (ResultSet result = statement.executeQuery()) {
        while (result.next()) {
          kept.put(result.getLong(1), result.getLong(2));
        }
      }
    }
    return kept;
  }

  /**
   * {@link #note} with runs: the same fresh re-checks, a run member must be pending too, and a member is kept only with
   * the member before it (a recursive walk from the heads), so the batch row never holds a key's entry without the
   * ones before it in its run. A member is also kept only if its advisory lock is free, and it is then held to the
   * commit, as a head's is: an operator's change of waiting entries holds the locks of the entries it changes
   * ({@link OperatorSql}), so the two never take one entry at once. A member whose operator change committed just
   * before its lock was taken has a new version or is gone, and leaves the batch when the claim reads its entries.
   *
   * @return the kept entries' versions by {@code seq}
   */
  private Map<Long, Long> noteRuns(Connection c, KeyRuns.Plan plan, UUID token, Instant leaseUntil, Instant now)
      throws SQLException {
    String sql = "WITH RECURSIVE candidate AS MATERIALIZED (SELECT o.seq, o.version, p.prev FROM " + table + " o"
        + " JOIN unnest(?::bigint[], ?::bigint[]) AS p(seq, prev) ON p.seq = o.seq WHERE o.seq = ANY(?)"
        + " AND o." + WAITING + " AND (p.prev = 0 OR o.status = 'PENDING') AND o.available_at <= ?"
        + " AND o.claim_token IS NULL AND o.seq NOT IN (" + inBatchRows(claimTable) + ")"
        + " AND (p.prev = 0 OR pg_try_advisory_xact_lock(" + namespace + ", " + lockKey("o.seq") + "))),"
        + " kept (seq, version) AS (SELECT candidate.seq, candidate.version FROM candidate WHERE candidate.prev = 0"
        + " UNION ALL SELECT candidate.seq, candidate.version FROM candidate JOIN kept ON candidate.prev = kept.seq),"
        + " noted AS (INSERT INTO " + claimTable + " (token, seqs, lease_until, claimed_at)"
        + " SELECT ?, array_agg(k.seq), ?, ? FROM kept k HAVING count(*) > 0)"
        + " SELECT seq, version FROM kept";
    List<Long> seqs = plan.seqs();
    Map<Long, Long> kept = new LinkedHashMap<>();
    try (PreparedStatement statement = c.prepareStatement(sql)) {
      statement.setArray(1, seqs(c, seqs));
      statement.setArray(2, c.createArrayOf("bigint", seqs.stream().map(plan::previousOf).toArray()));
      statement.setArray(3, seqs(c, seqs));
      statement.setObject(4, utc(now));
      statement.setArray(5, seqs(c, seqs));
      statement.setObject(6, token);
      statement.setObject(7, utc(leaseUntil));
      statement.setObject(8, utc(now));
      try (ResultSet result = statement.executeQuery()) {
        while (result.next()) {
          kept.put(result.getLong(1), result.getLong(2));
        }
      }
    }
    return kept;
  }

  /** @return the waiting entries among {@code seqs}, large payloads read apart ({@link PostgresPayloads}) */
  private List<OutboxRows.Read> read(Connection c, List<Long> seqs) throws SQLException {
    try (PreparedStatement select = planEachTime(c.prepareStatement("SELECT " + PostgresPayloads.columns("o")
        + " FROM " + table + " o WHERE o.seq = ANY(?) AND o." + WAITING + " ORDER BY o.seq"))) {
      select.setArray(1, seqs(c, seqs));
      return PostgresPayloads.readRows(c, select, rows, table);
    }
  }

  /**
   * Applies an outcome to claims of this strategy: for each batch, in one statement, the batch row is trimmed (or
   * deleted with its last entry) and, only if it was still there, {@code change} is applied to the entries whose
   * version is still the claimed one.
   *
   * @param change {@code DELETE FROM <table> o}, {@code UPDATE <table> o SET ...} or {@code SELECT o.seq FROM <table>
   *     o} (an outcome that changes no entry); the fence and {@code RETURNING o.seq} are added; {@code binder} binds
   *     its own parameters from index 1
   * @return the claims that were lost
   */
  List<Claim> complete(String what, Collection<Claim> claims, String change, Binder binder) {
    Map<UUID, List<Claim>> byToken = new LinkedHashMap<>();
    for (Claim claim : claims) {
      byToken.computeIfAbsent(claim.token(), t -> new ArrayList<>()).add(claim);
    }
    List<Claim> lost = new ArrayList<>();
    for (Map.Entry<UUID, List<Claim>> group : byToken.entrySet()) {
      List<Claim> batch = group.getValue();
      Map<Long, Long> versions = new HashMap<>();
      batch.forEach(claim -> versions.put(claim.entry().sequence(), claim.entry().version()));
      Set<Long> applied = complete(what, group.getKey(), versions, change, binder);
      batch.stream().filter(claim -> !applied.contains(claim.entry().sequence())).forEach(lost::add);
    }
    return lost;
  }

  /** @return the {@code seq}s the change was applied to */
  private Set<Long> complete(String what, UUID token, Map<Long, Long> versions, String change, Binder binder) {
    Batch batch = batches.get(token);
    if (batch == null) {
      return completeUnknown(what, token, versions, change, binder);
    }
    synchronized (batch) {
      Set<Long> remaining = new HashSet<>(batch.open);
      remaining.removeAll(versions.keySet());
      boolean last = remaining.isEmpty();
      // Not the seqs this store thinks remain: a takeover may have trimmed entries from the row meanwhile.
      Set<Long> applied = last
          ? apply(what, "DELETE FROM " + claimTable + " WHERE token = ? RETURNING 1", token, null, versions, change,
              binder)
          : apply(what, trim(), token, versions.keySet(), versions, change, binder);
      batch.open.removeAll(versions.keySet());
      if (last) {
        batches.remove(token);
      }
      return applied;
    }
  }

  /** A batch this store did not claim (or forgot): trimmed in SQL, and left for a takeover when empty. */
  private Set<Long> completeUnknown(String what, UUID token, Map<Long, Long> versions, String change,
      Binder binder) {
    return apply(what, trim(), token, versions.keySet(), versions, change, binder);
  }

  /** @return the change of a batch row that trims the given entries from it. Parameters: the entries, the token */
  private String trim() {
    return "UPDATE " + claimTable + " SET seqs = ARRAY(SELECT x FROM unnest(seqs) AS x WHERE x <> ALL(?))"
        + " WHERE token = ? RETURNING 1";
  }

  private Set<Long> apply(String what, String mine, UUID token, @Nullable Set<Long> seqsParameter,
      Map<Long, Long> versions, String change, Binder binder) {
    boolean versioned = versions.values().stream().noneMatch(v -> v == UNVERSIONED);
    String sql = completion(mine, versioned, change, true);
    return connections.autoCommit(what, c -> applyOn(c, sql, token, seqsParameter, versions, binder));
  }

  /**
   * @param mine the batch row's change ({@link #trim()}, or its {@code DELETE} with the batch's last entries)
   * @param versioned whether the entries' versions fence the outcome (every outcome but an entry leaving its batch
   *     whatever its state)
   * @param change the outcome, as for {@link #complete}
   * @param asynchronous whether the statement commits without waiting for the WAL flush: on its own, yes; inside a
   *     claim's transaction never, for the claim's commit must be durable
   * @return a completion statement: the batch row's change first, gating the outcome as a one-time filter
   */
  private String completion(String mine, boolean versioned, String change, boolean asynchronous) {
    // The entries are found through "seq = ANY" (the claim index, one probe per entry) and only then matched with their
    // versions (a join with the unnest let the planner hash the whole outbox when its statistics showed a backlog).
    // On its own, the completion commits without waiting for the WAL flush (this transaction only; see the class
    // comment): a completion lost in a crash is undone as a whole, batch row included, so its entries are sent again
    // after the lease, never early; and any later claim, which waits for the flush, makes it durable first.
    return "WITH mine AS (" + mine + ") " + change + " WHERE o.seq = ANY(?::bigint[])"
        + (versioned ? " AND o." + WAITING + " AND (o.seq, o.version) IN (SELECT v.seq, v.version"
            + " FROM unnest(?::bigint[], ?::bigint[]) AS v(seq, version))" : "")
        + " AND EXISTS (SELECT 1 FROM mine)"
        + (asynchronous ? " AND (SELECT set_config('synchronous_commit', 'off', true)) IS NOT NULL" : "")
        + (change.startsWith("SELECT") ? "" : " RETURNING o.seq");
  }

  /** Runs a {@link #completion} statement on {@code c}; returns the {@code seq}s the outcome was applied to. */
  private Set<Long> applyOn(Connection c, String sql, UUID token, @Nullable Set<Long> seqsParameter,
      Map<Long, Long> versions, Binder binder) throws SQLException {
    List<Long> seqs = new ArrayList<>(versions.keySet());
    boolean versioned = versions.values().stream().noneMatch(v -> v == UNVERSIONED);
    try (PreparedStatement statement = planEachTime(c.prepareStatement(sql))) {
      int next = 1;
      if (seqsParameter != null) {
        statement.setArray(next++, seqs(c, new ArrayList<>(seqsParameter)));
      }
      statement.setObject(next++, token);
      next = binder.bind(statement, next);
      statement.setArray(next++, seqs(c, seqs));
      if (versioned) {
        statement.setArray(next++, seqs(c, seqs));
        statement.setArray(next, c.createArrayOf("bigint", seqs.stream().map(versions::get).toArray()));
      }
      Set<Long> applied = new HashSet<>();
      try (ResultSet result = statement.executeQuery()) {
        while (result.next()) {
          applied.add(result.getLong(1));
        }
      }
      return applied;
    }
  }

  /**
   * Has the server plan {@code statement} at each execution (with pgjdbc: never as a server-side prepared statement,
   * whose generic plan is kept). A plan cached while the outbox was a few pages (a sequential scan, or the whole claim
   * index read in order to save a sort) stays cached while a transaction held open elsewhere swells the table with
   * dead rows, and then reads them all at each execution; a plan made for the table as it is probes the index by
   * {@code seq}. Used for the statements outside the claim's transaction, which cannot set {@code enable_seqscan}.
   */
  static PreparedStatement planEachTime(PreparedStatement statement) throws SQLException {
    return UnnamedStatements.unnamed(statement);
  }

  private static OffsetDateTime utc(Instant instant) {
    return OffsetDateTime.ofInstant(instant, ZoneOffset.UTC);
  }

  private static Array seqs(Connection connection, List<Long> seqs) throws SQLException {
    return connection.createArrayOf("bigint", seqs.toArray());
  }
}
