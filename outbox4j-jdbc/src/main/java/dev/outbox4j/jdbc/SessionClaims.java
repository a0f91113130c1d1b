package dev.outbox4j.jdbc;

import dev.outbox4j.spi.Claim;
import dev.outbox4j.OutboxEntry;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * The claim face of a {@link JdbcOutboxStore} under {@link ClaimStrategy#SESSION_LOCKS} (PostgreSQL 14+).
 *
 * <h2>How a claim is held</h2>
 * The store keeps one connection, the <em>session</em>, for its claims. Claiming an entry takes a session-level
 * advisory lock on it, {@code pg_try_advisory_lock(namespace, seq)}, where the namespace is derived from the table
 * name; nothing is written. Other sessions' claims skip entries whose lock they cannot take; the entries stay
 * {@code PENDING} or {@code FAILED} in the table, so key order works as for leased rows: a claimed head is still its
 * key's oldest undelivered entry, so nothing behind it is a candidate.
 *
 * <p>A claim is two reads in auto-commit, neither of which writes. The first takes the locks: over the same claim
 * window as leased rows (the first waiting entries in {@code seq} order, each marked claimable when it is its key's
 * head), computed in a subquery that the planner cannot merge with the outer query (it has a window function), so
 * {@code pg_try_advisory_lock} runs only on the claimable rows it returns, up to the limit. When that window is full of
 * entries that cannot be claimed (a backlog behind a few keys, or entries other relays hold), the keys' heads are read
 * instead, as for leased rows, and locked in a subquery fenced by {@code OFFSET 0}. The second read fetches the locked
 * entries with a fresh snapshot: a row whose completion another session committed between the first statement's
 * snapshot and its lock is no longer waiting there, and is unlocked at once by that same statement.
 *
 * <h2>After a relay dies</h2>
 * The server releases a dead session's locks at once, but sends the relay had on their way may still land, so its
 * entries must wait for their lease (a copy landing after the next message of its key would overtake it). Each claimed
 * batch is therefore noted in one row of the claim table (token, entries, lease) by the claim's second statement,
 * committed before the claim returns; the first statement of every claim skips the entries of other sessions'
 * unexpired rows. The completion that finishes a batch deletes its row in the same statement; an entry that waits
 * again (failed, postponed, cancelled) while its batch goes on is taken out of the row. Expired rows are deleted by
 * the next claim of any session.
 *
 * <p>The batch row is committed without waiting for the WAL flush (measured: 0.7–1 ms less per batch). It is visible to
 * every session at once and outlives the session that wrote it; only a crash of the server can lose it, and a crash
 * ends every session with it. So a session opened on a server that started less than a lease ago claims nothing until
 * that lease has passed: the sends of the relays whose sessions died in the crash may still land until then.
 *
 * <h2>Fencing</h2>
 * A completion is applied only through the session that holds the claim, only if the store still holds the claim
 * under the claim's token, and only if the entry's version is the one claimed (an entry-face mutation changes it, and
 * so cancels the claim). The retiring statement commits before its locks are released, so no other relay can lock an
 * entry whose completion it could not yet see. When the session dies (the relay process died, the database restarted,
 * or the server ended a session idle for longer than {@code idle_session_timeout}, which the store sets to the lease),
 * every lock it held is released by the server and its claims are reported lost by this store; other relays take
 * the entries over once the batches' leases have passed.
 *
 * <p>Within this store a lease still counts: a claim whose lease has passed is handed out again by this store (under a
 * new token, which makes the old claim lost) when it is among the next candidates, and until then its completion still
 * applies, as with leased rows. Other relays see it as claimed until this session releases it or ends.
 *
 * <p>Thread-safe: every operation holds the session for its statements.
 */
final class SessionClaims implements AutoCloseable {
  /** Opens a connection for the session, its statements bounded like the store's own. */
  interface Connector {
    Connection open() throws SQLException;
  }

  /** The store's heads-and-unkeyed read: up to {@code max} claimable key heads and unkeyed entries, ascending. */
  interface Heads {
    List<Long> read(Connection connection, int max, Instant now) throws SQLException;
  }

  /** Binds the parameters of a SET clause from index 1; returns the next free index. */
  interface Binder {
    int bind(PreparedStatement statement) throws SQLException;
  }

  private record Held(UUID token, Instant leaseUntil, long version) {}

  private static final class Session {
    final Connection connection;
    final int pid;
    final Map<Long, Held> held = new HashMap<>();
    /** Retired entries whose locks are still held: released by the next re-read, or at once when a claim finds none. */
    final List<Long> toRelease = new ArrayList<>();
    /** The entries of each claimed batch not completed yet, by token: its row in the claim table lives as long. */
    final Map<UUID, Set<Long>> batches = new HashMap<>();
    Duration idleTimeout;
    /** The server's uptime when the session opened, by the server's clock. */
    private final Duration uptimeAtOpen;
    /** {@link System#nanoTime()} when the session opened. */
    private final long openedAt;

    Session(Connection connection, int pid, Duration idleTimeout, Duration uptimeAtOpen) {
      this.connection = connection;
      this.pid = pid;
      this.idleTimeout = idleTimeout;
      this.uptimeAtOpen = uptimeAtOpen;
      this.openedAt = System.nanoTime();
    }

    /**
     * @return how long the server has been up: measured by elapsed time, not by the claims' {@code now}, which was
     *     read before the session opened (opening may have waited for a restarting server) and may be a test's clock
     */
    Duration serverUptime() {
      return uptimeAtOpen.plusNanos(System.nanoTime() - openedAt);
    }
  }

  private static final String WAITING = "status IN ('PENDING', 'FAILED')";

  private final Connector connector;
  /** The lock statement's read of the window (parameter: its size) and its claimability (parameters: now, now). */
  private final String window;
  private final String claimable;
  private final Heads heads;
  private final OutboxRows rows;
  private final String table;
  private final String claimTable;
  private final String columns;
  /** The advisory lock's first key: the table's, so two outbox tables' entries of equal seq never collide. */
  private final int namespace;
  private final ReentrantLock lock = new ReentrantLock();
  private @Nullable Session session;
  /** As the leased-row claim's hint: the window was full of entries that cannot be claimed, so go to the heads. */
  private boolean headsFirst;

  /** @param heads the store's heads-and-unkeyed read */
  SessionClaims(Connector connector, Heads heads, OutboxRows rows, String table, String claimTable) {
    this.claimTable = claimTable;
    this.connector = connector;
    this.window = ClaimSql.waitingInSeqOrder(table, "");
    this.claimable = ClaimSql.claimable("c", table, PostgresDialect.UNDELIVERED_OF_KEY);
    this.heads = heads;
    this.rows = rows;
    this.table = table;
    this.columns = OutboxRows.columns("o");
    this.namespace = namespace(table);
  }

  /** @return the first key of this table's advisory locks: a non-negative hash of its qualified name */
  static int namespace(String table) {
    return table.hashCode() & Integer.MAX_VALUE;
  }

  /** @return the SQL expression of the second key of {@code seqExpression}'s lock: its low 31 bits */
  static String lockKey(String seqExpression) {
    return "(" + seqExpression + " & 2147483647)::int";
  }

  /** @return the claims, in {@code seq} order */
  List<Claim> claim(int limit, Instant now, Duration lease, Instant leaseUntil) throws SQLException {
    lock.lock();
    try {
      try {
        return claimOn(session(lease), limit, now, lease, leaseUntil);
      } catch (SQLException e) {
        if (!dropIfDead()) {
          throw e;
        }
        return claimOn(session(lease), limit, now, lease, leaseUntil); // a session the server had ended: again
      }
    } finally {
      lock.unlock();
    }
  }

  private List<Claim> claimOn(Session s, int limit, Instant now, Duration lease, Instant leaseUntil)
      throws SQLException {
    if (s.serverUptime().compareTo(lease) < 0) {
      return List.of(); // a crash may have lost batch rows whose sends can still land: see the class comment
    }
    // This session's own claims whose lease passed are handed out again: it still holds them, nobody else can.
    List<Long> locked = s.held.entrySet().stream().filter(e -> !e.getValue().leaseUntil().isAfter(now))
        .map(Map.Entry::getKey).sorted().limit(limit).collect(java.util.stream.Collectors.toCollection(ArrayList::new));
    int reused = locked.size();
    if (reused < limit) {
      locked.addAll(lockFresh(s, limit - reused, now));
    }
    if (locked.isEmpty()) {
      if (!s.toRelease.isEmpty()) {
        release(s, s.toRelease);
        s.toRelease.clear();
      }
      return List.of();
    }
    UUID token = UUID.randomUUID();
    List<Claim> claims = new ArrayList<>();
    Set<Long> kept = new HashSet<>();
    for (long seq : locked.subList(0, reused)) { // handed out again: no longer part of the batch that had them
      forgetFromBatch(s, s.held.get(seq).token(), seq);
    }
    List<OutboxRows.Read> read = rereadUnlockingRejects(s.connection, locked, s.toRelease, token, leaseUntil, now);
    s.toRelease.clear();
    List<OutboxEntry> reread = quarantineUnreadable(s, token, read);
    for (OutboxEntry entry : reread) {
      kept.add(entry.sequence());
      s.held.put(entry.sequence(), new Held(token, leaseUntil, entry.version()));
      claims.add(new Claim(entry, token, leaseUntil));
    }
    if (!kept.isEmpty()) {
      s.batches.put(token, new HashSet<>(kept));
    }
    locked.subList(0, reused).stream().filter(seq -> !kept.contains(seq)).forEach(s.held::remove); // unlocked above
    claims.sort(Comparator.comparingLong(claim -> claim.entry().sequence()));
    return claims;
  }

  /**
   * Locks up to {@code limit} claimable entries that no session holds: first in one statement over the claim window,
   * and through the keys' heads when the window was full of entries that cannot be claimed (a backlog behind a few
   * keys, or entries other relays hold). The candidate reads cannot see locks, so the window is widened by as many
   * entries as this session holds.
   */
  private List<Long> lockFresh(Session s, int limit, Instant now) throws SQLException {
    Array held = seqs(s.connection, new ArrayList<>(s.held.keySet()));
    int size = (int) Math.min(2L * JdbcOutboxStore.MAX_CLAIM, 2L * limit + s.held.size());
    if (!headsFirst) {
      // No ORDER BY, aggregate, DISTINCT or window function above the lock: the LIMIT must pull rows through the
      // filter one by one, or the filter would lock rows that are never returned; and the window is read only as far
      // as the LIMIT pulls (a window function over it would read all of it first). The window's rows arrive in seq
      // order already. Every condition is the CASE's, checked per row, cheapest first, and only then the lock: a
      // key's head probe runs on the rows read until the batch is full, not on the whole window (measured: 719
      // probes instead of 1,500 for a batch of 500 over 1,000 keys, 5.3 ms to 3.1 ms; and an unkeyed claim of 500
      // reads 500 window rows instead of 1,000, 1.0 ms to 0.3 ms).
      // "Not held by this session" is a hashed subquery, not "NOT (seq = ANY(array))": the driver prepares the
      // statement on the server after a few runs, and in the server's generic plan an array comparison is a linear
      // search on every window row (a claim of 500 with 500 held, median of 40: 8.2-9.8 ms keyed, 6.4-8.4 ms
      // unkeyed with the array; 6.3-7.3 ms and 4.8-6.2 ms hashed).
      // Only when the batch is not full does the UNION ALL go on to its second branch, which counts the window (same
      // snapshot) and returns the count as one row of zero or less: seqs are positive.
      String sql = "SELECT x.seq FROM ((SELECT c.seq FROM (" + window + ") c"
          + " WHERE CASE WHEN c.seq NOT IN (SELECT unnest(?::bigint[])) AND c.seq NOT IN (" + inFlightElsewhere()
          + ") AND " + claimable + " THEN pg_try_advisory_lock(?, " + lockKey("c.seq") + ") ELSE false END)"
          + " UNION ALL (SELECT -count(*) FROM (" + window + ") z)) x LIMIT ?";
      List<Long> locked = new ArrayList<>();
      long seen = size;
      try (PreparedStatement statement = s.connection.prepareStatement(sql)) {
        statement.setInt(1, size);
        statement.setArray(2, held);
        statement.setObject(3, utc(now));
        statement.setArray(4, tokens(s));
        statement.setObject(5, utc(now));
        statement.setObject(6, utc(now));
        statement.setInt(7, namespace);
        statement.setInt(8, size);
        statement.setInt(9, limit);
        try (ResultSet result = statement.executeQuery()) {
          while (result.next()) {
            long seq = result.getLong(1);
            if (seq > 0) {
              locked.add(seq);
            } else {
              seen = -seq;
            }
          }
        }
      }
      // Done when the batch is full, or the window held fewer entries than asked: it held every waiting entry, and
      // the heads read could find nothing it did not see.
      if (locked.size() >= limit || seen < size) {
        return locked;
      }
      List<Long> more = lockHeads(s, held, limit - locked.size(), now, locked);
      locked.addAll(more);
      headsFirst = !locked.isEmpty() && locked.size() < limit;
      return locked;
    }
    List<Long> locked = lockHeads(s, held, limit, now, List.of());
    headsFirst = locked.size() < limit && !locked.isEmpty();
    return locked;
  }

  /** Locks up to {@code limit} of the keys' heads and the unkeyed entries, skipping {@code skip}. */
  private List<Long> lockHeads(Session s, Array held, int limit, Instant now, List<Long> skip) throws SQLException {
    Set<Long> excluded = new HashSet<>(s.held.keySet());
    excluded.addAll(skip);
    List<Long> candidates = new ArrayList<>();
    for (long seq : heads.read(s.connection, 2 * limit + excluded.size(), now)) {
      if (!excluded.contains(seq)) {
        candidates.add(seq);
      }
    }
    if (candidates.isEmpty()) {
      return List.of();
    }
    String sql = "SELECT l.seq FROM (SELECT c.seq FROM " + table + " c WHERE c.seq = ANY(?) AND c." + WAITING
        + " AND " + ClaimSql.ready("c") + " AND c.seq NOT IN (" + inFlightElsewhere() + ") ORDER BY c.seq OFFSET 0) l"
        + " WHERE pg_try_advisory_lock(?, " + lockKey("l.seq") + ") LIMIT ?";
    List<Long> locked = new ArrayList<>();
    try (PreparedStatement statement = s.connection.prepareStatement(sql)) {
      statement.setArray(1, seqs(s.connection, candidates));
      statement.setObject(2, utc(now));
      statement.setObject(3, utc(now));
      statement.setObject(4, utc(now));
      statement.setArray(5, tokens(s));
      statement.setInt(6, namespace);
      statement.setInt(7, limit);
      try (ResultSet result = statement.executeQuery()) {
        while (result.next()) {
          locked.add(result.getLong(1));
        }
      }
    }
    return locked;
  }

  /**
   * @return a subquery (parameters: now, this session's tokens) of the entries in another session's claimed batch
   *     whose lease has not passed: that session may have died with sends on their way, so they wait for the lease
   */
  private String inFlightElsewhere() {
    return inUnexpiredBatches(claimTable) + " AND NOT (b.token = ANY(?))";
  }

  /**
   * @param claimTable the qualified claim table
   * @return a subquery (parameter: now) of the entries in claimed batches whose lease has not passed, for a session
   *     claim (other sessions' batches) and a leased-row claim (every batch) alike
   */
  static String inUnexpiredBatches(String claimTable) {
    return "SELECT unnest(b.seqs) FROM " + claimTable + " b WHERE b.lease_until > ?";
  }

  private static Array tokens(Session s) throws SQLException {
    return s.connection.createArrayOf("uuid", s.batches.keySet().toArray());
  }

  /** Removes a completed or re-claimed entry from its batch; returns whether the batch is now empty (and forgotten). */
  private static boolean forgetFromBatch(Session s, UUID token, long seq) {
    Set<Long> batch = s.batches.get(token);
    if (batch == null) {
      return false;
    }
    batch.remove(seq);
    if (batch.isEmpty()) {
      s.batches.remove(token);
      return true;
    }
    return false;
  }

  private static java.time.OffsetDateTime utc(Instant instant) {
    return java.time.OffsetDateTime.ofInstant(instant, java.time.ZoneOffset.UTC);
  }

  /**
   * Reads the locked entries with a fresh snapshot; those no longer waiting and ready are unlocked by the same
   * statement (the {@code CASE} makes the unlock run only for them) and not returned.
   */
  private List<OutboxRows.Read> rereadUnlockingRejects(Connection connection, List<Long> locked, List<Long> toRelease,
      UUID token, Instant leaseUntil, Instant now) throws SQLException {
    // "kept" is read once with this statement's fresh snapshot; the batch row lists exactly those entries and is
    // committed with the statement, before anything is sent, without waiting for the WAL flush (this transaction
    // only; see the class comment). The last two branches release the locks of rejected
    // entries and of entries retired since the last claim; they return no row, and UNION ALL with no LIMIT above runs
    // them to the end.
    String sql = "WITH kept AS MATERIALIZED (SELECT o.* FROM unnest(?::bigint[]) AS l(seq) JOIN " + table + " o"
        + " ON o.seq = l.seq AND o." + WAITING + " AND " + ClaimSql.ready("o") + "),"
        + " noted AS (INSERT INTO " + claimTable + " (token, seqs, lease_until)"
        + " SELECT ?, array_agg(k.seq), ? FROM kept k"
        + " HAVING count(*) > 0 AND set_config('synchronous_commit', 'off', true) IS NOT NULL),"
        + " expired AS (DELETE FROM " + claimTable + " WHERE lease_until <= ?)"
        + " SELECT " + columns + " FROM kept o"
        // A CASE, not "o.seq IS NULL AND NOT unlock": that would become an anti-join with the unlock pushed below it,
        // unlocking kept entries too.
        + " UNION ALL SELECT " + columns + " FROM unnest(?::bigint[]) AS l(seq) LEFT JOIN kept o ON o.seq = l.seq"
        + " WHERE CASE WHEN o.seq IS NULL THEN NOT pg_advisory_unlock(?, " + lockKey("l.seq") + ") ELSE false END"
        + " UNION ALL SELECT " + columns + " FROM unnest(?::bigint[]) AS r(seq) LEFT JOIN " + table + " o ON false"
        + " WHERE NOT pg_advisory_unlock(?, " + lockKey("r.seq") + ")";
    List<OutboxRows.Read> entries = new ArrayList<>();
    try (PreparedStatement statement = connection.prepareStatement(sql)) {
      statement.setArray(1, seqs(connection, locked));
      statement.setObject(2, utc(now));
      statement.setObject(3, utc(now));
      statement.setObject(4, token);
      statement.setObject(5, utc(leaseUntil));
      statement.setObject(6, utc(now));
      statement.setArray(7, seqs(connection, locked));
      statement.setInt(8, namespace);
      statement.setArray(9, seqs(connection, toRelease));
      statement.setInt(10, namespace);
      try (ResultSet result = statement.executeQuery()) {
        while (result.next()) {
          entries.add(rows.read(result));
        }
      }
    }
    return entries;
  }

  /**
   * Quarantines the rows of a fresh batch that cannot be read (so they never stop a claim), takes them out of the
   * batch's row in the claim table and releases their locks, each step committed before the next.
   *
   * @return the readable entries, in their order
   */
  private List<OutboxEntry> quarantineUnreadable(Session s, UUID token, List<OutboxRows.Read> read)
      throws SQLException {
    List<Long> unreadable = read.stream().filter(r -> !r.readable()).map(r -> r.entry().sequence()).toList();
    if (unreadable.isEmpty()) {
      return read.stream().map(OutboxRows.Read::entry).toList();
    }
    List<OutboxEntry> readable = rows.quarantineUnreadable(s.connection, read);
    try (PreparedStatement trim = s.connection.prepareStatement("UPDATE " + claimTable
        + " SET seqs = ARRAY(SELECT x FROM unnest(seqs) AS x WHERE x <> ALL(?)) WHERE token = ?")) {
      trim.setArray(1, seqs(s.connection, unreadable));
      trim.setObject(2, token);
      trim.executeUpdate();
    }
    release(s, unreadable);
    return readable;
  }

  /**
   * Retires the claims this session still holds under their tokens and versions, then releases them.
   *
   * @param retire {@code DELETE FROM <table> o} or {@code UPDATE <table> o SET ...}, to which the version check and
   *     {@code RETURNING o.seq} are added; its own parameters are bound by {@code binder}
   * @return the claims that were lost
   */
  List<Claim> retire(Collection<Claim> claims, String retire, Binder binder) throws SQLException {
    return retire(claims, retire, binder, true);
  }

  /**
   * @param deferRelease whether the locks of the retired entries may be released by the session's next read
   *     (markDelivered) rather than at once (an outcome after which the entry waits again)
   */
  private List<Claim> retire(Collection<Claim> claims, String retire, Binder binder, boolean deferRelease)
      throws SQLException {
    lock.lock();
    try {
      Session s = session;
      List<Claim> held = new ArrayList<>();
      List<Claim> lost = new ArrayList<>();
      for (Claim claim : claims) {
        (holds(s, claim) ? held : lost).add(claim);
      }
      if (held.isEmpty() || s == null) {
        return lost;
      }
      // Batches completed by this call lose their row in the same statement (the tokens are this store's own UUIDs,
      // written as literals so that the caller's parameters keep their positions); an entry still in a batch that
      // goes on is taken out of its row below when it waits again.
      List<String> done = new ArrayList<>();
      Map<UUID, List<Long>> goingOn = new HashMap<>();
      for (Claim claim : held) {
        if (forgetFromBatch(s, claim.token(), claim.entry().sequence())) {
          done.add("'" + claim.token() + "'");
        } else if (s.batches.containsKey(claim.token())) {
          goingOn.computeIfAbsent(claim.token(), t -> new ArrayList<>()).add(claim.entry().sequence());
        }
      }
      String forget = done.isEmpty() ? ""
          : "WITH forget AS (DELETE FROM " + claimTable + " WHERE token IN (" + String.join(", ", done) + ")) ";
      String sql = forget + fenced(retire);
      Set<Long> retired = new HashSet<>();
      try (PreparedStatement statement = s.connection.prepareStatement(sql)) {
        int next = binder.bind(statement);
        Array heldSeqs = seqs(s.connection, held.stream().map(c -> c.entry().sequence()).toList());
        statement.setArray(next, heldSeqs);
        statement.setArray(next + 1, heldSeqs);
        statement.setArray(next + 2, s.connection.createArrayOf("bigint",
            held.stream().map(c -> s.held.get(c.entry().sequence()).version()).toArray()));
        try (ResultSet result = statement.executeQuery()) {
          while (result.next()) {
            retired.add(result.getLong(1));
          }
        }
      } catch (SQLException e) {
        if (dropIfDead()) {
          lost.addAll(held); // released by the server with the session; the statement did not answer
          return lost;
        }
        throw e;
      }
      List<Long> releaseNow = new ArrayList<>();
      for (Claim claim : held) {
        long seq = claim.entry().sequence();
        s.held.remove(seq);
        if (!retired.contains(seq)) {
          lost.add(claim);
          releaseNow.add(seq);
        } else if (deferRelease) {
          // Gone from the waiting entries for good (deleted, or delivered and kept): nobody can claim it again, so its
          // lock may wait for this session's next claim.
          s.toRelease.add(seq);
        } else {
          releaseNow.add(seq);
        }
      }
      if (!releaseNow.isEmpty()) {
        try {
          // Entries that wait again leave the batch row that goes on, so other relays may claim them.
          List<Long> waitAgain = new ArrayList<>(releaseNow);
          for (Map.Entry<UUID, List<Long>> batch : goingOn.entrySet()) {
            List<Long> leaving = batch.getValue().stream().filter(waitAgain::contains).toList();
            if (!leaving.isEmpty()) {
              try (PreparedStatement trim = s.connection.prepareStatement("UPDATE " + claimTable
                  + " SET seqs = ARRAY(SELECT x FROM unnest(seqs) AS x WHERE x <> ALL(?)) WHERE token = ?")) {
                trim.setArray(1, seqs(s.connection, leaving));
                trim.setObject(2, batch.getKey());
                trim.executeUpdate();
              }
            }
          }
          release(s, releaseNow);
        } catch (SQLException e) {
          if (!dropIfDead()) {
            throw e;
          }
        }
      }
      return lost;
    } finally {
      lock.unlock();
    }
  }

  /**
   * @param retire {@code DELETE FROM <table> o} or {@code UPDATE <table> o SET ...}
   * @return the statement applied to the entries whose seq and version are given (parameters after the statement's
   *     own: the seqs, the seqs again, the versions) while they still wait, returning their seqs
   */
  static String fenced(String retire) {
    // The rows are found through "seq = ANY" (the claim index, one probe per entry) and only then matched with their
    // versions. A join with the unnest instead let the planner hash the whole outbox when its statistics showed a
    // backlog: a sequential scan of every row for each completion (measured: 4.5 ms instead of 1.5 ms per 500).
    return retire + " WHERE o.seq = ANY(?::bigint[]) AND o." + WAITING + " AND (o.seq, o.version) IN"
        + " (SELECT c.seq, c.version FROM unnest(?::bigint[], ?::bigint[]) AS c(seq, version)) RETURNING o.seq";
  }

  /**
   * Applies one claim's outcome if this session still holds it under its token and version, then releases it.
   *
   * @param update {@code UPDATE <table> o SET ...}; the version check is added; {@code binder} binds its SET clause
   * @return whether it was applied
   */
  boolean update(Claim claim, String update, Binder binder) throws SQLException {
    List<Claim> lost = retire(List.of(claim), update, binder, false);
    return lost.isEmpty();
  }

  /**
   * Applies one outcome to many claims, each if this session still holds it under its token and version, then
   * releases them at once (their entries wait again).
   *
   * @param update {@code UPDATE <table> o SET ...}; the version check is added; {@code binder} binds its SET clause
   * @return the claims that were lost
   */
  List<Claim> updateAll(Collection<Claim> claims, String update, Binder binder) throws SQLException {
    return retire(claims, update, binder, false);
  }

  /**
   * Hands back claims that were never sent: applies {@code update} (which changes nothing the entry's next attempt
   * depends on) under the usual fence, takes the entries out of their batch rows and releases their locks at once.
   *
   * @param update {@code UPDATE <table> o SET ...} without parameters
   * @return the claims that were lost
   */
  List<Claim> release(Collection<Claim> claims, String update) throws SQLException {
    return retire(claims, update, statement -> 1, false);
  }

  /** Releases the given entries' locks; runs after the statement that retired them committed. */
  private void release(Session s, List<Long> seqs) throws SQLException {
    try (PreparedStatement unlock = s.connection.prepareStatement(
        "SELECT count(*) FILTER (WHERE pg_advisory_unlock(?, " + lockKey("u.seq") + "))"
            + " FROM unnest(?::bigint[]) AS u(seq)")) {
      unlock.setInt(1, namespace);
      unlock.setArray(2, seqs(s.connection, seqs));
      unlock.executeQuery().close();
    }
  }

  private static boolean holds(@Nullable Session s, Claim claim) {
    if (s == null) {
      return false;
    }
    Held held = s.held.get(claim.entry().sequence());
    return held != null && held.token().equals(claim.token());
  }

  /** @return the server process of the session, or -1 when none is open (for tests) */
  int sessionPid() {
    lock.lock();
    try {
      Session s = session;
      return s == null ? -1 : s.pid;
    } finally {
      lock.unlock();
    }
  }

  /** The session, opened when there is none; its idle timeout follows the lease of the latest claim. */
  private Session session(Duration lease) throws SQLException {
    Session s = session;
    if (s == null) {
      Connection connection = connector.open();
      try {
        connection.setAutoCommit(true);
        int pid;
        Duration uptime;
        try (Statement statement = connection.createStatement()) {
          try (ResultSet version = statement.executeQuery("SELECT current_setting('server_version_num')::int,"
              + " pg_backend_pid(),"
              + " (extract(epoch FROM clock_timestamp() - pg_postmaster_start_time()) * 1000)::bigint")) {
            version.next();
            if (version.getInt(1) < 140000) {
              throw new IllegalStateException("ClaimStrategy.SESSION_LOCKS needs PostgreSQL 14 or later"
                  + " (idle_session_timeout); this server is version " + version.getInt(1));
            }
            pid = version.getInt(2);
            uptime = Duration.ofMillis(version.getLong(3));
          }
        }
        s = new Session(connection, pid, Duration.ZERO, uptime);
      } catch (SQLException | RuntimeException e) {
        closeQuietly(connection, e);
        throw e;
      }
      session = s;
    }
    if (!s.idleTimeout.equals(lease)) {
      try (Statement statement = s.connection.createStatement()) {
        statement.execute("SET idle_session_timeout = " + Math.max(1, lease.toMillis()));
      }
      s.idleTimeout = lease;
    }
    return s;
  }

  /** @return whether the session had died (and is now dropped, its claims lost); it stays if it is alive */
  private boolean dropIfDead() {
    Session s = session;
    if (s == null) {
      return false;
    }
    boolean alive;
    try {
      alive = s.connection.isValid(2);
    } catch (SQLException e) {
      alive = false;
    }
    if (!alive) {
      session = null;
      closeQuietly(s.connection, null);
    }
    return !alive;
  }

  private static void closeQuietly(Connection connection, @Nullable Throwable cause) {
    try {
      connection.close();
    } catch (SQLException suppressed) {
      if (cause != null) {
        cause.addSuppressed(suppressed);
      }
    }
  }

  private static Array seqs(Connection connection, List<Long> seqs) throws SQLException {
    return connection.createArrayOf("bigint", seqs.toArray());
  }

  /**
   * Releases every claim the session holds (they become claimable by other relays at once) and gives its connection
   * back. A pool keeps the connection's session alive, so the locks and the idle timeout are undone first.
   */
  @Override
  public void close() {
    lock.lock();
    try {
      Session s = session;
      session = null;
      if (s != null) {
        try (Statement statement = s.connection.createStatement()) {
          statement.execute("SELECT pg_advisory_unlock_all()");
          statement.execute("RESET idle_session_timeout");
        } catch (SQLException e) {
          // a dead session holds nothing any more
        }
        closeQuietly(s.connection, null);
      }
    } finally {
      lock.unlock();
    }
  }
}
