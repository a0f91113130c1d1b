package dev.outbox4j.quarkus;

import dev.outbox4j.OutboxException;

/**
 * A message was written with no JTA transaction in progress. Nothing was written: writing outside the caller's
 * transaction would let the message exist without the business change, or the change without the message. Run the
 * write inside a {@code @Transactional} method (or {@code QuarkusTransaction}), or set
 * {@code outbox4j.write.without-transaction=own-transaction} to let the outbox open a transaction of its own.
 *
 * <p>The Spring Boot starter's exception of the same name says the same for a Spring-managed transaction.
 */
public class OutboxTransactionRequiredException extends OutboxException {
  private static final long serialVersionUID = 1L;

  /** @param detail what was missing */
  public OutboxTransactionRequiredException(String detail) {
    super("no JTA transaction on the outbox's datasource is in progress (" + detail + "); nothing was written. "
        + "Write inside a @Transactional method, or set outbox4j.write.without-transaction=own-transaction");
  }
}
