package dev.outbox4j;

import java.util.List;

/**
 * The write side: stores messages as outbox entries inside the caller's own transaction, so a message exists exactly
 * when the business change that produced it committed.
 *
 * <p>An outbox never begins, commits or rolls back the caller's transaction. When that transaction rolls back, the
 * messages written in it never existed. Messages with the same ordering key are delivered in the order their
 * transactions committed.
 *
 * <p>Implementations are thread-safe; the transaction handle is not, and belongs to the calling thread.
 *
 * @param <T> the caller's transaction handle: a {@link java.sql.Connection} for the JDBC outbox
 */
public interface Outbox<T> {

  /**
   * Writes one message inside the caller's transaction.
   *
   * @param transaction the caller's open transaction
   * @param message the message
   * @throws MessageRejectedException if the message breaks a limit; nothing was written and the transaction is usable
   * @throws DuplicateMessageException if an entry with the message's id exists
   * @throws OutboxException if the write fails (a closed connection, a database error)
   */
  void write(T transaction, Message message);

  /**
   * Writes several messages inside the caller's transaction, in list order. Every message is validated before any is
   * written.
   *
   * @param transaction the caller's open transaction
   * @param messages the messages; an empty list writes nothing
   * @throws MessageRejectedException if any message breaks a limit; nothing was written
   * @throws DuplicateMessageException if an entry with one of the ids exists
   * @throws OutboxException if the write fails
   */
  void writeAll(T transaction, List<Message> messages);
}
