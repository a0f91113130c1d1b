package dev.outbox4j.spi;

import dev.outbox4j.DuplicateMessageException;
import dev.outbox4j.EntryNotFoundException;
import dev.outbox4j.Message;
import dev.outbox4j.MessageRejectedException;
import dev.outbox4j.OptimisticConflictException;
import dev.outbox4j.OutboxEntry;
import dev.outbox4j.OutboxException;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * Where outbox entries live, with two faces over the same entries.
 *
 * <h2>Claim face (used by the relay)</h2>
 * {@link #claim} hands out entries under expiring leases. An entry is claimable when it is pending or failed, its
 * {@link OutboxEntry#availableAt() available time} is not after {@code now}, it has no unexpired claim, and it is the
 * oldest undelivered entry of its ordering key. At most one entry per key is claimed at a time, and a quarantined entry
 * blocks its own key (and no other) until {@link #requeue} or {@link #discard}. Every later mutation carries the
 * claim's token: when the claim was lost (it expired and another relay claimed the entry, or the entry face changed the
 * entry), the mutation changes nothing and reports the loss. A mutation whose claim expired but was not taken over still
 * applies: nobody else holds the entry, and refusing a confirmed delivery would only cause a duplicate.
 *
 * <h2>Entry face (for hosts that drive delivery themselves, and for tools)</h2>
 * {@link #enqueue}, {@link #find}, {@link #findPending}, {@link #findRetryReady} return candidates, not claims. The
 * mutations take the entry as the caller read it and fail with {@link OptimisticConflictException} when its version
 * changed since; nothing is retried behind the caller's back. An entry-face mutation also cancels any claim on the
 * entry.
 *
 * <p>Implementations must be thread-safe and safe to use from many processes at once (where they are durable). Every
 * method may throw {@link OutboxException} when the underlying storage fails.
 */
public interface OutboxStore {

  // ---------------------------------------------------------------------------------------------- claim face

  /**
   * Claims up to {@code limit} claimable entries, oldest first, holding each until {@code now + lease}.
   *
   * <p>{@code now} is a parameter, not read from a clock inside, so one instant decides both which old claims have
   * expired and when the new ones expire.
   *
   * @param limit the most entries to claim; positive
   * @param now the current time
   * @param lease how long the claims hold; positive
   * @return the claims, all sharing one new token, at most one per ordering key; empty when nothing is claimable
   * @throws IllegalArgumentException if limit or lease is not positive
   */
  List<Claim> claim(int limit, Instant now, Duration lease);

  /**
   * Retires entries whose delivery the transport confirmed: deletes them or marks them delivered, as the store's
   * {@link Retention} says. Completes all of them in as few round trips as the store allows.
   *
   * @param claims the confirmed claims
   * @param now the confirmation time, recorded as the delivery time
   * @return the claims that were lost and so changed nothing; empty when all applied
   */
  List<Claim> markDelivered(Collection<Claim> claims, Instant now);

  /**
   * Records a failed attempt: counts it, keeps the error, releases the claim and schedules the next attempt.
   *
   * @param claim the claim
   * @param error what failed (never the payload); truncated to the store's column width
   * @param nextAttemptAt when the entry becomes claimable again
   * @return {@code false} when the claim was lost and nothing changed
   */
  boolean markFailed(Claim claim, String error, Instant nextAttemptAt);

  /**
   * Hands a claimed entry back without counting an attempt: keeps its status and attempts, records {@code reason} as
   * its last error, releases the claim and makes it claimable again at {@code nextAttemptAt}. The relay calls it when
   * the transport as a whole failed (an outage), which says nothing about the entry itself, so an outage, however
   * long, never brings an entry closer to quarantine.
   *
   * @param claim the claim
   * @param reason what failed (never the payload); truncated to the store's column width
   * @param nextAttemptAt when the entry becomes claimable again
   * @return {@code false} when the claim was lost and nothing changed
   */
  boolean postpone(Claim claim, String reason, Instant nextAttemptAt);

  /**
   * Stops retrying an entry: counts the attempt, keeps the reason, and leaves it visible in {@link #quarantined}, where
   * it blocks its ordering key.
   *
   * @param claim the claim
   * @param reason why the entry is quarantined; truncated to the store's column width
   * @return {@code false} when the claim was lost and nothing changed
   */
  boolean quarantine(Claim claim, String reason);

  /**
   * Lists quarantined entries in sequence order, one page at a time.
   *
   * @param query the page
   * @return the page; fewer than {@code query.limit()} entries on the last page
   */
  List<OutboxEntry> quarantined(QuarantineQuery query);

  /**
   * Puts a quarantined entry back in line: pending, attempts reset, available at {@code now}.
   *
   * @param id the entry id
   * @param now the time from which it is available
   * @return {@code false} if no quarantined entry has that id
   */
  boolean requeue(UUID id, Instant now);

  /**
   * Deletes a quarantined entry for good, unblocking its key.
   *
   * @param id the entry id
   * @return {@code false} if no quarantined entry has that id
   */
  boolean discard(UUID id);

  /**
   * Deletes delivered entries older than the retention period, at most {@code limit} per call, so a large purge never
   * holds long locks. Does nothing when the store deletes on delivery.
   *
   * @param now the current time
   * @param limit the most entries to delete in this call; positive
   * @return how many entries were deleted; call again while it returns {@code limit}
   */
  int purgeDelivered(Instant now, int limit);

  /**
   * @param now the current time, to tell unexpired claims from expired ones
   * @return counts and the oldest waiting entry's age
   */
  OutboxStats stats(Instant now);

  /** @return what the store does with delivered entries */
  Retention retention();

  // ---------------------------------------------------------------------------------------------- entry face

  /**
   * Writes a new pending entry in its own unit of work (the store's, not a caller's transaction).
   *
   * @param message the message
   * @return the stored entry, with its sequence and version
   * @throws MessageRejectedException if the message breaks the store's limits
   * @throws DuplicateMessageException if an entry with the message's id exists
   */
  OutboxEntry enqueue(Message message);

  /**
   * @param id the entry id
   * @return the entry, or empty when the store holds none with that id
   */
  Optional<OutboxEntry> find(UUID id);

  /**
   * @param max the most entries to return; positive
   * @return never-attempted pending entries in delivery order (candidates, not claims)
   */
  List<OutboxEntry> findPending(int max);

  /**
   * @param now the current time
   * @param max the most entries to return; positive
   * @return failed entries whose next attempt time is not after {@code now}, in delivery order (candidates, not
   *     claims)
   */
  List<OutboxEntry> findRetryReady(Instant now, int max);

  /**
   * Marks an entry delivered (or deletes it, per {@link #retention()}).
   *
   * @param entry the entry as the caller read it
   * @param result what the delivery produced (a broker offset, a response code), or {@code null}
   * @return the updated entry (as it was just before deletion when the store deletes on delivery)
   * @throws OptimisticConflictException if the entry changed since it was read
   * @throws EntryNotFoundException if the entry is gone
   */
  OutboxEntry markDelivered(OutboxEntry entry, @Nullable String result);

  /**
   * Records a failed attempt of an entry.
   *
   * @param entry the entry as the caller read it
   * @param error what failed
   * @param nextRetryAt when it becomes retry-ready, or {@code null} for at once
   * @return the updated entry
   * @throws OptimisticConflictException if the entry changed since it was read
   * @throws EntryNotFoundException if the entry is gone
   */
  OutboxEntry markFailed(OutboxEntry entry, String error, @Nullable Instant nextRetryAt);

  /**
   * Stops retrying an entry: it becomes quarantined, exactly as the claim face's {@link #quarantine} leaves it.
   *
   * @param entry the entry as the caller read it
   * @param error the last error
   * @param reason why it is dead-lettered, or {@code null} to use the error
   * @return the updated entry
   * @throws OptimisticConflictException if the entry changed since it was read
   * @throws EntryNotFoundException if the entry is gone
   */
  OutboxEntry markDeadLettered(OutboxEntry entry, String error, @Nullable String reason);

  /**
   * Upserts by id: inserts the entry when its id is unknown, otherwise replaces the stored state (status, attempts,
   * errors, times) when the stored version equals the entry's. Never creates a second entry for one id; the message
   * itself and the sequence of a stored entry are kept.
   *
   * @param entry the state to store
   * @return the stored entry, with its new version
   * @throws OptimisticConflictException if the stored version differs from the entry's, or another writer inserted
   *     the same id concurrently
   * @throws MessageRejectedException if the message breaks the store's limits
   */
  OutboxEntry save(OutboxEntry entry);
}
