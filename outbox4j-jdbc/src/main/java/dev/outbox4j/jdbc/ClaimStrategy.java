package dev.outbox4j.jdbc;

/**
 * How a {@link JdbcOutboxStore} holds the entries a relay has claimed. Every relay of one outbox table should use the
 * same strategy; a table may still be served by both at once (during a rolling switch), since each skips what the
 * other holds. See {@code docs/stores.md}, "Claim strategies".
 */
public enum ClaimStrategy {
  /**
   * The default, on every database: a claim writes a token and a lease expiry into each claimed row and commits;
   * completions are fenced by the token. A dead or frozen relay's claims are taken over once their lease has passed.
   */
  LEASED_ROWS,

  /**
   * PostgreSQL 14 or later only: a claim is a session-level advisory lock per claimed entry, held by one connection
   * the store keeps for its claims, so claiming rewrites no entry (it notes each batch in one narrow row). Its
   * performance work is not finished: with that batch row it drains at about the rate of leased rows for now (see
   * {@code docs/benchmarks.md}). Completions run on that connection and are fenced by it and by the entry's version. Each claimed
   * batch is also noted in one narrow row (table {@code outbox_claim}, migration V5) until it is completed, so that
   * the entries of a relay that died wait for their lease before another relay sends them again, as with leased rows.
   * The connection is given an {@code idle_session_timeout} equal to the lease, so the server ends the session of a
   * frozen relay (a process stopped with its TCP connection open included). Needs a direct or
   * session-pooled connection (not a transaction-pooling proxy such as PgBouncer in transaction mode), and one
   * lock-table slot per entry in flight (see {@code max_locks_per_transaction}).
   */
  SESSION_LOCKS
}
