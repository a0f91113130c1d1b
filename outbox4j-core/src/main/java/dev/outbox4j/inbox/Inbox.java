package dev.outbox4j.inbox;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

/**
 * Records which messages a consumer has applied, inside the consumer's own transaction, so a redelivered message is
 * recognised and skipped (SPEC §6).
 *
 * <p>Records are keyed by consumer name and message id: two consumers (two services, or two independent handlers in
 * one service) each see a message once. A record written in a transaction that rolls back never existed, so a message
 * whose handling failed is handled again when it is redelivered. An inbox never begins, commits or rolls back the
 * caller's transaction.
 *
 * <p>When two transactions receive the same id concurrently, the second waits for the first to end (like a database
 * row lock): if the first commits, the second sees {@link Receipt#DUPLICATE}; if it rolls back, the second sees
 * {@link Receipt#FIRST}. Exactly one of them is ever first.
 *
 * <p>Implementations are thread-safe; a transaction handle belongs to one thread.
 *
 * @param <T> the consumer's transaction handle: a {@link java.sql.Connection} for the JDBC inbox
 */
public interface Inbox<T> {

  /** The longest consumer name accepted, in characters. */
  int MAX_CONSUMER_NAME_LENGTH = 255;

  /**
   * Records that {@code consumerName} received {@code messageId}, in the caller's transaction.
   *
   * @param transaction the consumer's open transaction; the record commits or rolls back with it
   * @param consumerName who consumes: non-blank, at most {@value #MAX_CONSUMER_NAME_LENGTH} characters
   * @param messageId the message id (the outbox4j message-id header)
   * @return {@link Receipt#FIRST} when the id was not yet recorded for this consumer, else {@link Receipt#DUPLICATE}
   * @throws IllegalArgumentException if the consumer name is blank or too long; nothing was recorded
   * @throws dev.outbox4j.OutboxException if the record cannot be written (a closed connection, a database error)
   */
  Receipt receive(T transaction, String consumerName, UUID messageId);

  /**
   * Runs {@code handler} only if this is the first time {@code consumerName} receives {@code messageId}: records the
   * id, then runs the handler in the same transaction. The caller commits afterwards (and only then acknowledges the
   * message to its broker); if the handler throws, the caller rolls back, which also forgets the record.
   *
   * @param transaction the consumer's open transaction
   * @param consumerName who consumes (see {@link #receive})
   * @param messageId the message id
   * @param handler the effect; never run for a duplicate
   * @param <R> the handler's result
   * @param <X> the handler's checked exception
   * @return the handler's result, or empty for a duplicate
   * @throws X whatever the handler throws, unchanged
   * @throws NullPointerException if the handler returns {@code null}
   */
  default <R, X extends Exception> Optional<R> handleOnce(
      T transaction, String consumerName, UUID messageId, InboxHandler<R, X> handler) throws X {
    Objects.requireNonNull(handler, "handler");
    if (!receive(transaction, consumerName, messageId).isFirst()) {
      return Optional.empty();
    }
    return Optional.of(Objects.requireNonNull(handler.handle(), "the inbox handler returned null"));
  }

  /**
   * Deletes up to {@code limit} records received strictly before {@code olderThan}, in its own short unit of work
   * (never the caller's transaction). Call it repeatedly until it returns less than {@code limit}.
   *
   * <p>Keep records at least as long as a message can still be redelivered (the broker's redelivery window plus the
   * relay's retry schedule): a purged id is {@link Receipt#FIRST} again.
   *
   * @param olderThan the cut-off; records received at or after it stay
   * @param limit the most records deleted by this call, positive
   * @return how many records were deleted
   * @throws IllegalArgumentException if {@code limit} is not positive
   */
  int purge(Instant olderThan, int limit);

  /**
   * Checks a consumer name; for implementations.
   *
   * @param consumerName the name
   * @return the name
   * @throws IllegalArgumentException if it is blank or longer than {@value #MAX_CONSUMER_NAME_LENGTH} characters
   */
  static String checkConsumerName(String consumerName) {
    Objects.requireNonNull(consumerName, "consumerName");
    if (consumerName.isBlank()) {
      throw new IllegalArgumentException("consumerName must not be blank");
    }
    if (consumerName.length() > MAX_CONSUMER_NAME_LENGTH) {
      throw new IllegalArgumentException("consumerName is " + consumerName.length()
          + " characters long; the limit is " + MAX_CONSUMER_NAME_LENGTH);
    }
    return consumerName;
  }

  /**
   * Checks a purge batch size; for implementations.
   *
   * @param limit the batch size
   * @return the limit
   * @throws IllegalArgumentException if it is not positive
   */
  static int checkPurgeLimit(int limit) {
    if (limit <= 0) {
      throw new IllegalArgumentException("limit must be positive, was " + limit);
    }
    return limit;
  }
}
