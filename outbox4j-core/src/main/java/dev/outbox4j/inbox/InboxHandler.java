package dev.outbox4j.inbox;

/**
 * The consumer's effect for one message, run by {@link Inbox#handleOnce} inside the caller's transaction, only the
 * first time that consumer receives the message.
 *
 * @param <R> what the handler returns; never {@code null}
 * @param <X> the checked exception the handler may throw ({@link RuntimeException} when none), passed through
 *     unchanged
 */
@FunctionalInterface
public interface InboxHandler<R, X extends Exception> {

  /**
   * Applies the message.
   *
   * @return a non-null result, handed back by {@link Inbox#handleOnce}
   * @throws X when the effect fails; the caller should then roll back its transaction, which also forgets the record
   *     of the message id, so a redelivery is handled again
   */
  R handle() throws X;
}
