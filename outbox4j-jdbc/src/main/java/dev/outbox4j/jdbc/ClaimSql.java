package dev.outbox4j.jdbc;

/**
 * The text of the claim's statements, assembled from the pieces each dialect supplies (how a key's head is found, how
 * the unkeyed lane is indexed). Package-private: the dialects build the window and heads-and-unkeyed statements with
 * it and {@link ClaimFace} runs them; {@link LeasedBatchClaims} builds PostgreSQL's window statement from
 * {@link #claimable} and {@link #ready}.
 *
 * <h2>Why the claim is three looks and not one scan</h2>
 * A single scan of waiting entries in {@code seq} order that keeps the heads of keys is cheap while most waiting
 * entries are heads, and ruinous when a few keys have long queues: every entry behind a head is read and rejected, on
 * every claim. So the claim looks in up to three places, each bounded by what it returns rather than by the backlog:
 * <ol>
 *   <li><b>the window</b>: the first {@code W} waiting entries by {@code seq} (oldest first), each marked claimable or
 *       not; when fewer than {@code W} entries wait, or the window already holds enough claimable ones, this is the
 *       whole answer;
 *   <li><b>the heads</b>: otherwise, one index descent per key with undelivered entries finds each key's head, and the
 *       claimable heads are kept (cost: the number of such keys, never the entries behind them);
 *   <li><b>the unkeyed lane</b>: with the heads, claimable unkeyed entries in {@code seq} order from an index of
 *       their own, so unkeyed work behind a keyed backlog is not starved.
 * </ol>
 * The heads and the unkeyed lane together are a complete answer on their own; a store goes to them directly while the
 * window keeps being clogged ({@link ClaimFace#candidates}; on PostgreSQL {@link LeasedBatchClaims#lock}).
 *
 * <h2>How the candidates are locked on each database</h2>
 * <ul>
 *   <li><b>MariaDB/MySQL and H2</b> (leased rows): the window ({@link #window}) and the heads-and-unkeyed statement
 *       only <em>find candidates</em>. They take no locks; each is one statement, so it reads one consistent snapshot.
 *       The candidates are then locked by primary key with {@code FOR UPDATE SKIP LOCKED}, which re-reads each row as
 *       last committed and re-checks its own state (waiting, available, no unexpired lease), and claimed by an
 *       {@code UPDATE} by primary key in the same transaction.
 *   <li><b>PostgreSQL</b> (leased batches and leased rows alike): the window is {@link LeasedBatchClaims}'s own
 *       statement, not {@link #window}'s: as it reads each entry that is claimable and in no unexpired batch row, it
 *       takes the entry's transaction-scoped advisory lock ({@code pg_try_advisory_xact_lock}), skipping one another
 *       claim holds. The heads-and-unkeyed statement is read without locks, and its candidates are locked the same way
 *       by a second statement. No entry is locked with {@code FOR UPDATE}. A later statement of the claim's
 *       transaction, whose snapshot is taken after the locks, re-checks each locked entry (still waiting, ready, in no
 *       batch row) and writes the claim: one batch row under leased batches, the token and lease in each entry under
 *       leased rows.
 * </ul>
 *
 * <h2>Why a candidate found in a snapshot is still its key's head when it is claimed</h2>
 * A key's numbers ({@code key_seq}) are allocated in commit order under the key's lock (docs/schema.md), so every
 * earlier entry of a key committed before the candidate did, and is therefore in any snapshot that holds the
 * candidate. In that snapshot it was delivered or gone, and neither ever becomes waiting again through the claim face.
 * So a candidate that was the head in the snapshot is the head when it is locked and claimed, on every database,
 * whatever commits in between; and the re-check rejects it if meanwhile another relay claimed or finished it. The head
 * must be decided in a snapshot, never by a locking scan: on MariaDB a single statement that locked rows as it checked
 * their heads would read rows committed after its subquery's snapshot, and could claim an entry whose earlier entry
 * of the same key committed during the scan. PostgreSQL's window statement checks and locks in one statement safely,
 * because an advisory lock reads no row: the whole statement sees one snapshot.
 */
final class ClaimSql {
  /** A waiting entry's own claimability: available and not under an unexpired lease. Parameters: now, now. */
  static String ready(String alias) {
    return alias + ".available_at <= ? AND (" + alias + ".lease_until IS NULL OR " + alias + ".lease_until <= ?)";
  }

  private ClaimSql() {}

  /**
   * @param table the qualified outbox table
   * @param seqOrderHint text after the window's table alias that makes the database read {@code seq} order from an
   *     index (H2 needs one), or empty
   * @param undeliveredOfKey a condition over {@code h} (the table again) and {@code c} (the window's entry): {@code h}
   *     is an undelivered entry of {@code c}'s key, answerable from an index on {@code (key, key_seq)}
   * @return the window statement. Parameters: now, now, the first {@code seq} to read (the {@link ClaimFloor}, or 0),
   *     window size. Rows: {@code seq}, {@code destination}, {@code claimable} (1 or 0), in {@code seq} order
   */
  static String window(String table, String seqOrderHint, String undeliveredOfKey) {
    return "SELECT c.seq, c.destination, CASE WHEN " + claimable("c", table, undeliveredOfKey)
        + " THEN 1 ELSE 0 END AS claimable FROM (" + waitingInSeqOrder(table, seqOrderHint) + ") c ORDER BY c.seq";
  }

  /**
   * @param table the qualified outbox table
   * @param seqOrderHint as for {@link #window}
   * @return the window's rows, without their claimability: the first waiting entries by {@code seq} from a given one.
   *     Parameters: the first {@code seq} to read, the window size. Columns:
   *     {@code seq, destination, ordering_key, key_seq, available_at, lease_until}, in {@code seq} order
   */
  static String waitingInSeqOrder(String table, String seqOrderHint) {
    return "SELECT w.seq, w.destination, w.ordering_key, w.key_seq, w.available_at, w.lease_until FROM " + table + " w"
        + seqOrderHint + " WHERE w.status IN ('PENDING', 'FAILED') AND w.seq >= ? ORDER BY w.seq LIMIT ?";
  }

  /**
   * @param alias a row of {@link #waitingInSeqOrder}; {@code undeliveredOfKey} must name it {@code c}
   * @param table the qualified outbox table
   * @param undeliveredOfKey as for {@link #window}
   * @return the condition "{@code alias} may be claimed": available, not under an unexpired lease, and unkeyed or its
   *     key's head (one index probe). Parameters: now, now
   */
  static String claimable(String alias, String table, String undeliveredOfKey) {
    // "c is its key's first undelivered entry" as ORDER BY ... LIMIT 1, never NOT EXISTS (... key_seq < ...): with one
    // huge key, PostgreSQL's planner costed the NOT EXISTS probe as a sequential scan (it expects a match at once).
    return ready(alias) + " AND (" + alias + ".ordering_key IS NULL OR " + alias + ".key_seq = (SELECT h.key_seq FROM "
        + table + " h WHERE " + undeliveredOfKey + " ORDER BY h.key_seq LIMIT 1))";
  }

  /**
   * @param table the qualified outbox table
   * @param with a {@code WITH} clause the heads source needs, or empty
   * @param heads a row source (a name from {@code with}, or a parenthesised derived table), aliased {@code heads},
   *     with the columns {@code seq, destination, status, available_at, lease_until} of every key's head (its undelivered entry
   *     with the smallest {@code key_seq}), one row per key with undelivered entries
   * @param unkeyedWaiting a condition over {@code u} selecting waiting unkeyed entries through an index in
   *     {@code seq} order
   * @return the heads-and-unkeyed statement. Parameters: now, now (heads), now, now, limit (unkeyed), limit. Rows:
   *     {@code seq}, ascending
   */
  static String headsAndUnkeyed(String table, String with, String heads, String unkeyedWaiting) {
    return with + "SELECT x.seq FROM ("
        + "SELECT heads.seq FROM " + heads + " WHERE heads.status IN ('PENDING', 'FAILED') AND " + ready("heads")
        + " UNION ALL SELECT u.seq FROM (SELECT u.seq FROM " + table + " u WHERE " + unkeyedWaiting + " AND "
        + ready("u") + " ORDER BY u.seq LIMIT ?) u"
        + ") x ORDER BY x.seq LIMIT ?";
  }

  /**
   * The heads-and-unkeyed statement of a claim that leaves {@code skipped} destinations out. A key whose head goes to
   * a left-out destination yields nothing (its head blocks it, as always). Unkeyed entries come from one lane per
   * destination that is not left out ({@code lanes} of them), each read from an index on the destination and
   * {@code seq}: a left-out destination's entries are never read, however many wait.
   *
   * @param with as for {@link #headsAndUnkeyed}
   * @param heads as for {@link #headsAndUnkeyed}
   * @param laneSource the table aliased {@code u}, with whatever hint makes the database read a destination's entries
   *     in {@code seq} order from the index on {@code (destination, seq)} of waiting unkeyed entries
   * @param unkeyedWaiting a condition over {@code u}: a waiting unkeyed entry, as that index holds them
   * @return the statement. Parameters: now, now (heads), the {@code skipped} destinations, then per lane its
   *     destination twice, now, now, limit, and last the limit. Rows: {@code seq}, ascending
   */
  static String headsAndLanes(String with, String heads, String laneSource, String unkeyedWaiting, int skipped,
      int lanes) {
    if (skipped < 1) {
      throw new IllegalArgumentException("skipped must be positive, was " + skipped);
    }
    StringBuilder sql = new StringBuilder(with).append("SELECT x.seq FROM (SELECT heads.seq FROM ").append(heads)
        .append(" WHERE heads.status IN ('PENDING', 'FAILED') AND ").append(ready("heads"))
        .append(" AND heads.destination NOT IN (").append("?, ".repeat(skipped - 1)).append("?)");
    for (int lane = 0; lane < lanes; lane++) {
      // "destination >= ? AND destination <= ?" (both the lane's), ordered by destination and seq, not "= ?" ordered
      // by seq: with an equality PostgreSQL drops the destination from the order and, expecting the lane's entries
      // spread evenly over seq, reads the seq-ordered lane past the whole paused backlog (820 ms against 1.8 ms over
      // 200,000 entries). Only the index on (destination, seq) gives this order without a sort.
      sql.append(" UNION ALL SELECT u.seq FROM (SELECT u.seq FROM ").append(laneSource).append(" WHERE ")
          .append(unkeyedWaiting).append(" AND u.destination >= ? AND u.destination <= ? AND ").append(ready("u"))
          .append(" ORDER BY u.destination, u.seq LIMIT ?) u");
    }
    return sql.append(") x ORDER BY x.seq LIMIT ?").toString();
  }
}
