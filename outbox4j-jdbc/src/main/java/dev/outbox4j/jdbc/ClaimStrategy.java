package dev.outbox4j.jdbc;

/**
 * How a {@link JdbcOutboxStore} holds the entries a relay has claimed. The default depends on the database:
 * {@link #LEASED_BATCHES} on PostgreSQL, {@link #LEASED_ROWS} on MariaDB/MySQL and H2. A table may be served by both
 * at once (during a switch), since each skips what the other holds and fences the other's completions once it has
 * taken an entry over. See {@code docs/stores.md}, "Claim strategies".
 */
public enum ClaimStrategy {
  /**
   * Every database; the default on MariaDB/MySQL and H2: a claim writes a token and a lease expiry into each claimed
   * row and commits; completions are fenced by the token. A dead or frozen relay's claims are taken over once their
   * lease has passed.
   */
  LEASED_ROWS,

  /**
   * PostgreSQL only, and its default: a claim writes one narrow row per claimed batch (token, entries, lease; table
   * {@code outbox_claim}, migration V5) instead of rewriting each entry, in one short transaction that takes
   * transaction-scoped advisory locks on the entries while it decides; the row is committed durably before anything
   * is sent. Completions are fenced by that row and by each entry's version. A dead or frozen relay's batches are
   * taken over once their lease has passed. Nothing lives in a database session, so it works through a
   * transaction-pooling proxy such as PgBouncer in transaction mode.
   */
  LEASED_BATCHES
}
