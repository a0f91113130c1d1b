package dev.outbox4j.spring;

import dev.outbox4j.OutboxException;

/**
 * A message (or an outbox event) was written with no Spring-managed transaction on the outbox's {@code DataSource}
 * in progress. Nothing was written: writing outside the caller's transaction would let the message exist without the
 * business change, or the change without the message. Run the write inside a {@code @Transactional} method, or set
 * {@code outbox4j.write.without-transaction=own-transaction} ({@code outbox4j.outboxes.<name>.write.without-transaction}
 * for one of several outboxes) to let the outbox open a transaction of its own.
 */
public class OutboxTransactionRequiredException extends OutboxException {
  private static final long serialVersionUID = 1L;

  /** @param detail what was missing */
  public OutboxTransactionRequiredException(String detail) {
    super("no Spring-managed transaction on the outbox's DataSource is in progress (" + detail + "); nothing was "
        + "written. Write inside a @Transactional method, or set outbox4j.write.without-transaction=own-transaction");
  }

  /**
   * For one of several outboxes ({@code outbox4j.outboxes.<name>}).
   *
   * @param detail what was missing
   * @param outbox the outbox's name
   */
  public OutboxTransactionRequiredException(String detail, String outbox) {
    super("no Spring-managed transaction on the DataSource of outbox '" + outbox + "' is in progress (" + detail
        + "); nothing was written. Write inside a transaction of that DataSource's transaction manager "
        + "(@Transactional(\"<its transaction manager>\")), or set outbox4j.outboxes." + outbox
        + ".write.without-transaction=own-transaction");
  }
}
