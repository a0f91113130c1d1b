/**
 * The consumer side: an {@link dev.outbox4j.inbox.Inbox} makes at-least-once delivery harmless.
 *
 * <p>Delivery from the relay is at least once: a crash between the broker's confirmation and the outbox's bookkeeping
 * sends a message again. A consumer therefore records each message id it applies, <em>inside the same transaction as
 * the effect</em>, and skips an id it has already recorded. The record and the effect commit together or not at all,
 * so the effect happens once.
 *
 * <ul>
 *   <li>{@link dev.outbox4j.inbox.Inbox#receive} records an id and reports a {@link dev.outbox4j.inbox.Receipt}:
 *       {@code FIRST} or {@code DUPLICATE}.
 *   <li>{@link dev.outbox4j.inbox.Inbox#handleOnce} runs a {@link dev.outbox4j.inbox.InboxHandler} only the first
 *       time.
 *   <li>{@link dev.outbox4j.inbox.Inbox#purge} forgets old records in bounded batches.
 * </ul>
 */
@NullMarked
package dev.outbox4j.inbox;

import org.jspecify.annotations.NullMarked;
