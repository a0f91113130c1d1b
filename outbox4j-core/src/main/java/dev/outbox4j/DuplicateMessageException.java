package dev.outbox4j;

import java.util.UUID;

/**
 * A message was written with an id that the outbox already holds. Thrown by {@link Outbox#write} and by
 * {@code enqueue}; {@code save} updates the existing entry instead. On a database the caller's transaction may be
 * marked failed by the driver (PostgreSQL aborts the transaction on a unique violation), so catch it and roll back, or
 * use a savepoint.
 */
public final class DuplicateMessageException extends OutboxException {
  private static final long serialVersionUID = 1L;

  private final UUID messageId;

  /**
   * @param messageId the id that already exists
   * @param cause the driver's exception, may be {@code null}
   */
  public DuplicateMessageException(UUID messageId, @org.jspecify.annotations.Nullable Throwable cause) {
    super("an outbox entry with id " + messageId + " already exists", cause);
    this.messageId = messageId;
  }

  /** @return the id that already exists */
  public UUID messageId() {
    return messageId;
  }
}
