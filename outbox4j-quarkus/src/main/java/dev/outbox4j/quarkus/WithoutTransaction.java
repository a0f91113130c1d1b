package dev.outbox4j.quarkus;

/** What {@link TransactionalOutbox} does with a write when no JTA transaction is in progress. */
public enum WithoutTransaction {
  /** Refuse it with {@link OutboxTransactionRequiredException} (the default): the write must share a transaction. */
  REFUSE,
  /**
   * Open a transaction of the outbox's own around the write ({@code QuarkusTransaction}) and commit it: the message is
   * then independent of any business change.
   */
  OWN_TRANSACTION
}
