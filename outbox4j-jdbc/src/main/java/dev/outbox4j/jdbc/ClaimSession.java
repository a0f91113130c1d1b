package dev.outbox4j.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;

/**
 * What a claim's transaction sets for itself, so that no pool, role, database or server default can take away what
 * its safety needs (see {@code docs/schema.md}, "Connections and isolation"). Every claim, of either strategy, on every
 * database, runs inside one of these settings; nothing outlives the claim's transaction, so a connection goes back to
 * its pool as it came.
 *
 * <ul>
 *   <li><b>PostgreSQL</b> ({@link #postgres}, the first statement of the transaction, which it already was: no extra
 *       round trip): {@code SET TRANSACTION ISOLATION LEVEL READ COMMITTED}, because the statement that writes the claim
 *       must see every claim committed before this one got its advisory locks (under REPEATABLE READ or SERIALIZABLE
 *       it would read the snapshot of the transaction's first statement, and two relays could take one entry);
 *       {@code SET LOCAL synchronous_commit = on}, because the claim's commit must be durable (a batch row or a
 *       token lost in a crash of the server frees entries whose sends may still land, and a completion is made
 *       durable by the next claim's flush: {@link LeasedBatchClaims}); plus the claim's own
 *       {@code idle_in_transaction_session_timeout} and {@code enable_seqscan}. All are transaction-scoped.
 *   <li><b>MariaDB/MySQL</b> ({@link #begin} and {@link #end}, around the transaction): the connection's isolation is
 *       set to READ COMMITTED for the claim when it is another, and set back afterwards (one statement each; none
 *       when the connection already runs at READ COMMITTED). Not {@code SET TRANSACTION} for the next transaction
 *       only: that works, but the server shows no trace of it, so nothing could check it. The claim
 *       decides heads with lock-free reads that must not see uncommitted rows (READ UNCOMMITTED would let a claim take
 *       the next entry of a key whose head's completion then rolls back), and must not turn into locking reads
 *       (SERIALIZABLE makes every read in a transaction a shared-locking read, which blocks writers and deadlocks
 *       relays); of the two levels that work, READ COMMITTED takes no gap locks. Commit durability
 *       ({@code innodb_flush_log_at_trx_commit}) is a server-wide setting there, not the session's.
 *   <li><b>H2</b> ({@link #begin} and {@link #end}, before and after the transaction): the connection's isolation is
 *       set to READ COMMITTED for the claim and set back afterwards, in process, without a round trip.
 * </ul>
 *
 * <p>A completion is one statement and needs none of this: it commits in auto-commit, so its snapshot is its own
 * whatever the level; a concurrent change that READ COMMITTED would re-evaluate makes it fail with {@code 40001} under
 * REPEATABLE READ or SERIALIZABLE instead, and the store runs it again ({@link StoreJdbc#retryingDeadlocks}), with the
 * same fenced outcome. On PostgreSQL it sets {@code synchronous_commit = off} itself.
 *
 * <p>Stateless.
 */
final class ClaimSession {
  private ClaimSession() {}

  /**
   * @param lease the claim's lease
   * @return the settings of a PostgreSQL claim's transaction, one statement, to run first in it
   */
  static String postgres(Duration lease) {
    // Never shorter than a few seconds: a lease shorter than the claim's own pauses between statements (tests use a
    // millisecond) would have the server end the claim's session between its statements.
    // And no sequential scan: the claim table is read through its indexes (V10, V11), whatever its statistics say (a
    // table of few live rows and many dead ones, never analysed, looks small enough to read whole).
    return "SET TRANSACTION ISOLATION LEVEL READ COMMITTED; SET LOCAL synchronous_commit = on;"
        + " SET LOCAL idle_in_transaction_session_timeout = "
        + Math.max(LeasedBatchClaims.MIN_IDLE_IN_CLAIM.toMillis(), lease.toMillis())
        + "; SET LOCAL enable_seqscan = off";
  }

  /**
   * Sets a MariaDB/MySQL or H2 claim's isolation on its connection, which is in manual commit and has run nothing yet.
   *
   * @return the isolation to give back in {@link #end}, or {@code -1} for nothing to give back
   */
  static int begin(Connection connection) throws SQLException {
    int previous = connection.getTransactionIsolation();
    if (previous == Connection.TRANSACTION_READ_COMMITTED) {
      return -1;
    }
    connection.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
    return previous;
  }

  /** Gives back what {@link #begin} changed, once the transaction ended. */
  static void end(Connection connection, int previous) throws SQLException {
    if (previous != -1) {
      connection.setTransactionIsolation(previous);
    }
  }
}
