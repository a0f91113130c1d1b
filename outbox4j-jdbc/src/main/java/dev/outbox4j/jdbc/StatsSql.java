package dev.outbox4j.jdbc;

/**
 * The text of the stats statements ({@link JdbcOutboxStore#stats}, {@link JdbcOutboxStore#destinationStats}), the same
 * on every database. Package-private: {@link JdbcOutboxStore} runs what it returns, binding every value as a
 * parameter; only validated table names ({@link TableNames}) and fixed text are concatenated.
 *
 * <h2>Why these statements read what they read</h2>
 * <ul>
 *   <li><b>Never delivered history.</b> Both read the pending and failed entries through the claim's index on
 *       {@code status} (PostgreSQL: the partial index {@code ix_outbox_claim}; MariaDB/MySQL and H2: the
 *       {@code (status, seq)} index) and the quarantined and parked ones through the operator's index. Delivered
 *       entries kept for retention are never touched: a condition such as {@code status <> 'DELIVERED'} would match
 *       no partial index on PostgreSQL and read the whole table.
 *   <li><b>Blocked in one pass.</b> An entry is blocked when an earlier entry of its key (smaller {@code key_seq})
 *       is quarantined or parked. The quarantined and parked entries are few and already read for their count, so
 *       they are grouped by key into "from which {@code key_seq} on this key is held", and the pending entries are
 *       joined to that by key: one hash join, however long the queues behind the held keys are. The cost is that of
 *       reading the undelivered entries.
 *   <li><b>One core.</b> On PostgreSQL a stats read runs in a transaction of its own with {@link #ONE_CORE}: the
 *       scan of a large backlog would otherwise get parallel workers and take every core of the database for its
 *       time, and the claims of every outbox on that server would wait for a core meanwhile.
 *   <li><b>In flight.</b> An entry under an unexpired lease; on PostgreSQL also one in an unexpired batch row of
 *       leased-batch claims ({@code outbox_claim}), whose entries carry no lease. An entry in flight counts as waiting,
 *       never as blocked.
 * </ul>
 */
final class StatsSql {
  /**
   * Run first in a PostgreSQL stats read's transaction: the stats statements plan without parallel workers, so one
   * reading takes one core of the database, never all of them (see {@link StatsFace}).
   */
  static final String ONE_CORE = "SET LOCAL max_parallel_workers_per_gather = 0";

  private StatsSql() {}

  /**
   * @param names the table names
   * @param postgres whether batch rows of leased-batch claims may exist (PostgreSQL)
   * @return one row per pending or failed entry with its {@code destination}, {@code created_at}, {@code in_flight}
   *     (1 or 0) and {@code blocked} (1 or 0). Parameters: now (and on PostgreSQL a second now)
   */
  private static String pendingEntries(TableNames names, boolean postgres) {
    String table = names.qualified("outbox");
    String inFlight = "w.lease_until > ?";
    if (postgres) {
      inFlight = "(" + inFlight + " OR w.seq IN (" + LeasedBatchClaims.inUnexpiredBatches(names.qualified("outbox_claim"))
          + "))";
    }
    return "SELECT e.destination, e.created_at, e.in_flight,"
        + " CASE WHEN e.behind_held = 1 AND e.in_flight = 0 THEN 1 ELSE 0 END AS blocked FROM ("
        + "SELECT w.destination, w.created_at, CASE WHEN " + inFlight + " THEN 1 ELSE 0 END AS in_flight,"
        + " CASE WHEN h.from_key_seq IS NULL THEN 0 ELSE 1 END AS behind_held"
        + " FROM " + table + " w LEFT JOIN ("
        + "SELECT q.ordering_key, MIN(q.key_seq) AS from_key_seq FROM " + table + " q"
        + " WHERE q.status IN ('QUARANTINED', 'PARKED') AND q.ordering_key IS NOT NULL GROUP BY q.ordering_key) h"
        + " ON h.ordering_key = w.ordering_key AND w.key_seq > h.from_key_seq"
        + " WHERE w.status IN ('PENDING', 'FAILED')) e";
  }

  /** The aggregates of {@link #pendingEntries} rows named {@code p}. */
  private static final String COUNTS = "SUM(1 - p.blocked) AS waiting, SUM(p.blocked) AS blocked,"
      + " SUM(p.in_flight) AS in_flight,"
      + " MIN(CASE WHEN p.blocked = 0 THEN p.created_at END) AS oldest_waiting,"
      + " MIN(CASE WHEN p.blocked = 1 THEN p.created_at END) AS oldest_blocked";

  /**
   * @param names the table names
   * @param postgres as for {@link #pendingEntries}
   * @return one row: {@code waiting, blocked, in_flight, oldest_waiting, oldest_blocked, quarantined} (counts NULL
   *     when nothing is pending). Parameters: now (and on PostgreSQL a second now)
   */
  static String overall(TableNames names, boolean postgres) {
    return "SELECT " + COUNTS + ", (SELECT COUNT(*) FROM " + names.qualified("outbox")
        + " WHERE status IN ('QUARANTINED', 'PARKED')) AS quarantined FROM (" + pendingEntries(names, postgres) + ") p";
  }

  /**
   * @param names the table names
   * @param postgres as for {@link #pendingEntries}
   * @return up to {@code ?} rows, one per destination with undelivered entries:
   *     {@code destination, waiting, blocked, in_flight, oldest_waiting, oldest_blocked, quarantined}, the one with
   *     the oldest waiting or blocked entry first, those with only quarantined or parked entries last, ties by
   *     destination. Parameters: now (and on PostgreSQL a second now), limit
   */
  static String byDestination(TableNames names, boolean postgres) {
    // The second branch's NULLs take their type from the first branch's timestamps (every database resolves a
    // UNION's column types across branches), so no vendor cast is needed.
    return "SELECT x.destination, SUM(x.waiting) AS waiting, SUM(x.blocked) AS blocked,"
        + " SUM(x.in_flight) AS in_flight, MIN(x.oldest_waiting) AS oldest_waiting,"
        + " MIN(x.oldest_blocked) AS oldest_blocked, SUM(x.quarantined) AS quarantined FROM ("
        + "SELECT p.destination, " + COUNTS + ", MIN(p.created_at) AS oldest_pending, 0 AS quarantined"
        + " FROM (" + pendingEntries(names, postgres) + ") p GROUP BY p.destination"
        + " UNION ALL SELECT q.destination, 0, 0, 0, NULL, NULL, NULL, COUNT(*) FROM " + names.qualified("outbox")
        + " q WHERE q.status IN ('QUARANTINED', 'PARKED') GROUP BY q.destination) x GROUP BY x.destination"
        + " ORDER BY CASE WHEN MIN(x.oldest_pending) IS NULL THEN 1 ELSE 0 END, MIN(x.oldest_pending), x.destination"
        + " LIMIT ?";
  }
}
