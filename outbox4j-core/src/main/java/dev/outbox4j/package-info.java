/**
 * The outbox4j API: what applications touch.
 *
 * <ul>
 *   <li>{@link dev.outbox4j.Message}: what to send (id, destination, optional ordering key, payload bytes, content
 *       type, headers, optional not-before time), validated when built.
 *   <li>{@link dev.outbox4j.Outbox}: writes messages inside the caller's own transaction; a rollback means the messages
 *       never existed.
 *   <li>{@link dev.outbox4j.Relay}: drains the outbox through a {@link dev.outbox4j.spi.Transport}, at least once, one
 *       entry per ordering key at a time in commit order, with retries on a {@link dev.outbox4j.RetryPolicy} and
 *       quarantine for what cannot succeed.
 *   <li>{@link dev.outbox4j.OutboxEntry}: the durable record of a message and its delivery state.
 *   <li>{@link dev.outbox4j.OutboxException} and its subclasses: everything outbox4j throws is unchecked and
 *       carries the ids involved.
 * </ul>
 *
 * <p>Values are immutable; components are built by builders into immutable, thread-safe objects.
 */
@NullMarked
package dev.outbox4j;

import org.jspecify.annotations.NullMarked;
