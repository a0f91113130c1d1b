package dev.outbox4j.spi;

import dev.outbox4j.DuplicateMessageException;
import dev.outbox4j.EntryNotFoundException;
import dev.outbox4j.EntryStatus;
import dev.outbox4j.EntryTransitionException;
import dev.outbox4j.Message;
import dev.outbox4j.MessageRejectedException;
import dev.outbox4j.OptimisticConflictException;
import dev.outbox4j.OutboxEntry;
import dev.outbox4j.OutboxException;
import dev.outbox4j.QuarantineKind;
import dev.outbox4j.QuarantineReason;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * Where outbox entries live, with two faces over the same entries.
 *
 * <h2>Claim face (used by the relay)</h2>
 * {@link #claim} hands out entries under expiring leases. An entry is claimable when it is pending or failed, its
 * {@link OutboxEntry#availableAt() available time} is not after {@code now}, it has no unexpired claim, and it is the
 * oldest undelivered entry of its ordering key. At most one entry per key is claimed at a time, and a parked or
 * quarantined entry is never claimed and blocks its own key (and no other) until {@link #requeue} or {@link #discard}:
 * every status but {@link EntryStatus#DELIVERED} counts as undelivered. Every later mutation carries the
 * claim's token: when the claim was lost (it expired and another relay claimed the entry, or the entry face changed the
 * entry), the mutation changes nothing and reports the loss. A mutation whose claim expired but was not taken over still
 * applies: nobody else holds the entry, and refusing a confirmed delivery would only cause a duplicate.
 *
 * <h3>Runs of a key</h3>
 * {@link #claim(int, Instant, Duration, int)} may hand out, with a key's head, the entries right behind it: a run,
 * for a transport that delivers a batch atomically and in order ({@link AtomicBatches}). A run is the head (claimable
 * by the rules above) followed by the key's next undelivered entries in commit order, each pending (never failed,
 * quarantined or parked), available and under no unexpired claim; it ends before the first entry that is not. Nothing
 * behind a run's end is handed out. All claims of one call share a token, and the store completes each on its own.
 *
 * <h3>Entries in doubt</h3>
 * A claim that expires with nothing recorded (no delivery, failure, postponement, quarantine or release: its relay
 * died, froze, or left the outcome unknown) may have sent its entries. When another claim takes such an entry over,
 * the store marks it in doubt: {@link Claim#inDoubtSince()} is the time of the earliest claim since the entry's last
 * recorded outcome, and stays so through further takeovers. {@link #markFailed}, {@link #postpone} and
 * {@link #quarantine} record an outcome and clear the mark; {@link #markDelivered} retires the entry; {@link #release}
 * (the claim sent nothing) keeps it. The relay asks a transport that can tell ({@link AtomicBatches#deliveredEarlier})
 * which entries in doubt already landed before it records anything about them.
 *
 * <h2>Entry face (for hosts that drive delivery themselves, and for tools)</h2>
 * {@link #enqueue}, {@link #find}, {@link #findPending}, {@link #findRetryReady} return candidates, not claims. The
 * mutations take the entry as the caller read it and fail with {@link OptimisticConflictException} when its version
 * changed since; nothing is retried behind the caller's back. An entry-face mutation also cancels any claim on the
 * entry. Transitions are checked: an operation that the entry's status does not allow (see {@link EntryStatus} and
 * {@code docs/stores.md}) throws {@link EntryTransitionException} and changes nothing.
 *
 * <h2>Operator face</h2>
 * Entries that wait for an operator ({@link EntryStatus#QUARANTINED} and {@link EntryStatus#PARKED}) are listed by
 * {@link #quarantined}, put back in line by {@link #requeue} / {@link #requeueAll} and deleted by {@link #discard} /
 * {@link #discardAll}; the bulk forms work in bounded batches. Waiting entries (pending or failed, not under an
 * unexpired claim) of a destination or a key can be counted, parked and discarded in bounded batches too
 * ({@link #countWaiting}, {@link #parkWaiting}, {@link #discardWaiting}), and a destination can be paused by hand for
 * every relay ({@link #pauseDestination}, {@link #resumeDestination}, {@link #operatorPauses}).
 *
 * <p>An operator sees the entries waiting for them grouped by failure ({@link #quarantineGroups}: same destination,
 * kind and {@linkplain ReasonPattern reason pattern}), pages through a group's entries
 * ({@link #quarantined(QuarantineSelector, QuarantineQuery)}), counts what a bulk action would change before applying
 * it ({@link #countQuarantined}, {@link #countWaiting}), and acts on a group narrowed to the ids they saw
 * ({@link QuarantineSelector#withIds}). The tools that act for an operator keep an audit log in the store
 * ({@link #recordOperatorAction}, {@link #operatorActions}).
 *
 * <p>One interface on purpose: the faces share their entries and rules (an entry-face change cancels a claim, an
 * operator's discard passes a late-copy bound to the claim face), and a store implements them together. Most of its
 * length is the contract's prose.
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
   * Claims as {@link #claim(int, Instant, Duration)} does, and may add to each key's head the run of entries right
   * behind it, up to {@code maxRun} entries of a key in all (see "Runs of a key" above). {@code limit} counts every
   * claim, runs included: the heads come first (those {@link #claim(int, Instant, Duration)} would return), and the
   * runs fill the room they leave, their oldest entries first.
   *
   * <p>The default ignores {@code maxRun} and claims one entry per key: a run is allowed, never required. The stores of
   * this project hand out runs.
   *
   * @param limit the most entries to claim; positive
   * @param now the current time
   * @param lease how long the claims hold; positive
   * @param maxRun the most entries of one key; positive ({@code 1}: heads only)
   * @return the claims in {@code seq} order, all sharing one new token; a key's claims are its head and the entries
   *     right behind it, without a gap
   * @throws IllegalArgumentException if limit, lease or maxRun is not positive
   */
  default List<Claim> claim(int limit, Instant now, Duration lease, int maxRun) {
    if (maxRun < 1) {
      throw new IllegalArgumentException("maxRun must be positive, was " + maxRun);
    }
    return claim(limit, now, lease);
  }

  /**
   * Claims as {@link #claim(int, Instant, Duration, int)} does, leaving out the entries of {@code skippedDestinations}:
   * the destinations whose entries the relay would not send now (paused by an outage between its probes, or by an
   * operator). Their entries stay waiting, untouched, and cost the claim nothing beyond a bounded look: the entries of
   * every other destination are found as if the skipped ones had none (see "Claims" in {@code docs/schema.md}). Every
   * other rule holds as for {@link #claim(int, Instant, Duration, int)}: a skipped destination's head of a key still
   * blocks its key, and a run ends before an entry of a skipped destination.
   *
   * <p>The default ignores {@code skippedDestinations} (the relay holds back what it should not send): leaving them out
   * is allowed, never required. The stores of this project leave them out.
   *
   * @param limit the most entries to claim; positive
   * @param now the current time
   * @param lease how long the claims hold; positive
   * @param maxRun the most entries of one key; positive ({@code 1}: heads only)
   * @param skippedDestinations destinations whose entries need not be claimed; may be empty
   * @return the claims as {@link #claim(int, Instant, Duration, int)} returns them
   * @throws IllegalArgumentException if limit, lease or maxRun is not positive
   */
  default List<Claim> claim(int limit, Instant now, Duration lease, int maxRun, Set<String> skippedDestinations) {
    return claim(limit, now, lease, maxRun);
  }

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
   * Retires confirmed claims as {@link #markDelivered(Collection, Instant)} does, then claims as
   * {@link #claim(int, Instant, Duration, int, Set)} does: the relay's step between one batch and the next, when it has
   * confirmations to record at the moment it claims. The claim sees the retirement: a key whose head was just retired
   * may hand out its next entry.
   *
   * <p>Each half keeps its own rules: the retirement applies only to claims not lost (see "Claim face" above), and the
   * claim is committed as durably as {@link #claim} commits before this returns. A store that can do both in one
   * transaction should (one commit instead of two per batch; see {@code docs/relay.md}, "One commit per batch"): then
   * both apply or neither does. The default calls the two methods one after the other.
   *
   * @param delivered the confirmed claims; may be empty
   * @param deliveredAt the confirmation time, recorded as the delivery time
   * @param next the claim to make
   * @return the claims lost of {@code delivered}, and the new claims
   * @throws OutboxException when the store failed: a store that does both in one transaction then changed nothing; the
   *     default may have retired the entries before its claim failed (a caller that then retires them again with
   *     {@link #markDelivered(Collection, Instant)} finds them lost, and nothing is delivered twice because of it)
   */
  default DeliveredAndClaimed markDeliveredAndClaim(Collection<Claim> delivered, Instant deliveredAt,
      ClaimRequest next) {
    List<Claim> lost = delivered.isEmpty() ? List.of() : markDelivered(delivered, deliveredAt);
    return new DeliveredAndClaimed(lost, claim(next.limit(), next.now(), next.lease(), next.maxRun(),
        next.skippedDestinations()));
  }

  /**
   * Whether the relay should use {@link #markDeliveredAndClaim} between full batches. {@code false} by default, and
   * then the relay retires confirmations and claims its next batch with the two calls, as before: on PostgreSQL the
   * combined step measured slower than the two calls (its completion commits without waiting for the flush on its
   * own, see {@code docs/relay.md}, "One commit per batch"), so a store says {@code true} only where it is asked to or
   * where the step costs nothing.
   *
   * @return {@code true} when the relay should take the combined step
   */
  default boolean combinesDeliveredAndClaim() {
    return false;
  }

  /**
   * Records a failed attempt: counts it, keeps the error, releases the claim and schedules the next attempt. The first
   * such failure since the entry was written or requeued also records its {@linkplain OutboxEntry#firstFailedAt() first
   * failure time} (the store's clock), from which the retry policy's time budget counts.
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
   * {@link #postpone(Claim, String, Instant)} for many claims at once, all with the same reason and time. The relay
   * calls it for the entries of a paused destination that a claim returned and that it does not send (they are held
   * back while that destination is paused, so that the claims of every other destination keep their size). The
   * default postpones one claim at a time; a store should do it in as few round trips as it allows.
   *
   * @param claims claims of this store
   * @param reason what failed (never the payload); truncated to the store's column width
   * @param nextAttemptAt when the entries become claimable again
   * @return the claims that were lost and so changed nothing; empty when all applied
   */
  default List<Claim> postpone(Collection<Claim> claims, String reason, Instant nextAttemptAt) {
    List<Claim> lost = new java.util.ArrayList<>();
    for (Claim claim : claims) {
      if (!postpone(claim, reason, nextAttemptAt)) {
        lost.add(claim);
      }
    }
    return lost;
  }

  /**
   * Hands back claims whose entries were never sent: releases them and records nothing (status, attempts, last error
   * and schedule stay as they were), so the entries are claimable again at once. The relay calls it for the batch it
   * claimed ahead while the previous one waited for its answers, when it does not send that batch after all (it is
   * stopping, the transport went down, or too much of the batch's lease has passed). Completes all of them in as few
   * round trips as the store allows.
   *
   * @param claims claims of this store whose entries were not handed to a transport
   * @return the claims that were lost and so changed nothing; empty when all applied
   */
  List<Claim> release(Collection<Claim> claims);

  /**
   * Stops retrying an entry, as {@link #quarantine(Claim, QuarantineReason, Instant)} with no bound beyond the entry's
   * current available time: for a quarantine whose last send has certainly ended.
   *
   * @param claim the claim
   * @param reason why the entry is quarantined; its text is truncated to the store's column width
   * @return {@code false} when the claim was lost and nothing changed
   */
  default boolean quarantine(Claim claim, QuarantineReason reason) {
    return quarantine(claim, reason, claim.entry().availableAt());
  }

  /**
   * Stops retrying an entry: counts the attempt, keeps the reason as both its quarantine reason and its last error,
   * records the reason's kind, and leaves it visible in {@link #quarantined}, where it blocks its ordering key.
   *
   * <p>A copy of the entry's last send may still land until {@code lateCopiesLandBy} (a send that timed out: its start
   * plus the transport's {@code maxAnswerTime}). The store keeps that bound as the entry's available time (when it is
   * later than the current one), so that it survives the operator's way out: {@link #requeue} does not make the entry
   * claimable before it, and {@link #discard} passes it on to the key's next undelivered entry, which becomes claimable
   * no earlier.
   *
   * @param claim the claim
   * @param reason why the entry is quarantined; its text is truncated to the store's column width
   * @param lateCopiesLandBy when any copy of the entry's last send has certainly landed or failed
   * @return {@code false} when the claim was lost and nothing changed
   */
  boolean quarantine(Claim claim, QuarantineReason reason, Instant lateCopiesLandBy);

  /**
   * Lists the entries waiting for an operator (quarantined and parked) in sequence order, one page at a time.
   *
   * @param query the page
   * @return the page; fewer than {@code query.limit()} entries on the last page
   */
  List<OutboxEntry> quarantined(QuarantineQuery query);

  /**
   * The entry's row as the store holds it, every column but the payload as text, for an operator looking at an entry
   * quarantined as {@link QuarantineKind#UNREADABLE}: its {@link OutboxEntry} shows placeholders where the row could not
   * be read, and this shows what is really there. The payload is never included (its size is).
   *
   * <p>The default answers empty: a store that keeps entries only as typed values (such as the in-memory store) cannot
   * hold an unreadable row, and has no other text to show.
   *
   * @param id the entry id
   * @return column name to the column's text ({@code null} values for SQL NULL), in the table's column order; empty
   *     when the store holds no entry with that id or keeps no raw row
   */
  default Optional<Map<String, @Nullable String>> rawColumns(UUID id) {
    return Optional.empty();
  }

  /**
   * Puts an entry that waits for an operator (quarantined or parked) back in line: pending, attempts reset, first
   * failure and quarantine reason cleared (the last error is kept), available at {@code now}, or at its stored available
   * time when that is later (the bound by which a copy of its last send lands, see
   * {@link #quarantine(Claim, QuarantineReason, Instant)}, or a not-before time it had not reached).
   *
   * @param id the entry id
   * @param now the time from which it is available
   * @return {@code false} if no quarantined or parked entry has that id
   */
  boolean requeue(UUID id, Instant now);

  /**
   * Deletes an entry that waits for an operator (quarantined or parked) for good, unblocking its key. Its stored
   * available time, when later, becomes the available time of the key's next undelivered entry in key order (the order
   * its messages committed in): a copy of the discarded entry's last send may still land until then, and the key's next
   * message must not overtake it.
   *
   * @param id the entry id
   * @return {@code false} if no quarantined or parked entry has that id
   */
  boolean discard(UUID id);

  /**
   * {@link #requeue Requeues} up to {@code limit} of the selected entries, oldest first, in one short unit of work, so a
   * large requeue after an outage never holds long locks.
   *
   * @param selector which quarantined or parked entries
   * @param now the time from which they are available
   * @param limit the most entries to requeue in this call; positive
   * @return how many were requeued; call again while it returns {@code limit}
   * @throws IllegalArgumentException if limit is not positive
   */
  int requeueAll(QuarantineSelector selector, Instant now, int limit);

  /**
   * {@link #discard Discards} up to {@code limit} of the selected entries, oldest first, in one short unit of work.
   *
   * @param selector which quarantined or parked entries
   * @param limit the most entries to discard in this call; positive
   * @return how many were deleted; call again while it returns {@code limit}
   * @throws IllegalArgumentException if limit is not positive
   */
  int discardAll(QuarantineSelector selector, int limit);

  /**
   * Lists the selected entries waiting for an operator in sequence order, one page at a time: the entries of one
   * {@linkplain QuarantineGroup group}, of one destination, of one key.
   *
   * <p>The default pages through {@link #quarantined(QuarantineQuery)} and keeps the entries {@link
   * QuarantineSelector#matches} selects; a store should do better where it can.
   *
   * @param selector which entries
   * @param query the page: up to {@code query.limit()} selected entries after {@code query.afterSequence()}
   * @return the page; fewer than {@code query.limit()} entries on the last page
   */
  default List<OutboxEntry> quarantined(QuarantineSelector selector, QuarantineQuery query) {
    List<OutboxEntry> page = new java.util.ArrayList<>();
    QuarantineQuery next = new QuarantineQuery(QuarantineQuery.MAX_LIMIT, query.afterSequence());
    while (true) {
      List<OutboxEntry> read = quarantined(next);
      for (OutboxEntry entry : read) {
        if (selector.matches(entry)) {
          page.add(entry);
          if (page.size() == query.limit()) {
            return page;
          }
        }
      }
      if (read.size() < next.limit()) {
        return page;
      }
      next = next.after(read.get(read.size() - 1).sequence());
    }
  }

  /**
   * Counts the selected entries waiting for an operator: what {@link #requeueAll} or {@link #discardAll} would act on
   * now. For an operator's dry run and confirmation.
   *
   * <p>The default pages through {@link #quarantined(QuarantineQuery)}; a store should count where its data is.
   *
   * @param selector which entries
   * @return how many match
   */
  default int countQuarantined(QuarantineSelector selector) {
    int count = 0;
    QuarantineQuery next = QuarantineQuery.first(QuarantineQuery.MAX_LIMIT);
    while (true) {
      List<OutboxEntry> read = quarantined(next);
      for (OutboxEntry entry : read) {
        if (selector.matches(entry)) {
          count++;
        }
      }
      if (read.size() < next.limit()) {
        return count;
      }
      next = next.after(read.get(read.size() - 1).sequence());
    }
  }

  /**
   * Groups the entries waiting for an operator by failure: same destination, status, {@linkplain QuarantineKind kind}
   * and {@linkplain ReasonPattern reason pattern}, so that 55 entries that failed alike are one line with a count
   * (see {@link QuarantineGroups#of}, which every store uses).
   *
   * <p>Bounded: it groups at most the oldest {@code limit} entries (a short read of a few columns each, never payloads)
   * and counts all of them; {@link QuarantineGroups#complete()} says whether every entry was grouped. The default reads
   * whole entries through {@link #quarantined(QuarantineQuery)}; a store should read only the columns grouping needs.
   *
   * @param limit the most entries to group, 1 to {@value QuarantineGroups#MAX_GROUPED}
   * @return the groups, largest first, and the total
   * @throws IllegalArgumentException if limit is out of range
   */
  default QuarantineGroups quarantineGroups(int limit) {
    if (limit < 1 || limit > QuarantineGroups.MAX_GROUPED) {
      throw new IllegalArgumentException("limit must be 1.." + QuarantineGroups.MAX_GROUPED + ", was " + limit);
    }
    List<QuarantineGroups.Member> members = new java.util.ArrayList<>();
    QuarantineQuery next = QuarantineQuery.first(Math.min(limit, QuarantineQuery.MAX_LIMIT));
    while (members.size() < limit) {
      List<OutboxEntry> read = quarantined(next);
      read.stream().limit(limit - members.size()).map(QuarantineGroups.Member::of).forEach(members::add);
      if (read.size() < next.limit()) {
        break;
      }
      next = next.after(read.get(read.size() - 1).sequence());
    }
    return QuarantineGroups.of(members, countQuarantined(QuarantineSelector.all()));
  }

  /**
   * Adds a line to the audit log of operator actions. The tools that act for an operator call it after each action
   * they applied; it is its own short unit of work.
   *
   * @param action what was done
   */
  void recordOperatorAction(OperatorAction action);

  /**
   * Reads the audit log, newest first.
   *
   * @param limit the most lines to return, 1 to {@value QuarantineQuery#MAX_LIMIT}
   * @return the latest actions, newest first (among actions recorded in the same instant, the last recorded first)
   * @throws IllegalArgumentException if limit is out of range
   */
  List<OperatorAction> operatorActions(int limit);

  /**
   * Counts the waiting entries (pending or failed) the selector matches that are not under an unexpired claim: what
   * {@link #parkWaiting} or {@link #discardWaiting} would act on now. For an operator's dry run and confirmation.
   *
   * @param selector which waiting entries
   * @param now the current time, to tell unexpired claims from expired ones
   * @return how many match
   */
  int countWaiting(WaitingSelector selector, Instant now);

  /**
   * Parks up to {@code limit} of the selected waiting entries, oldest first, in one short unit of work: each becomes
   * {@link EntryStatus#PARKED} (attempts, last error and times kept), is no longer claimed, is listed by
   * {@link #quarantined}, and blocks its ordering key until {@link #requeue} / {@link #requeueAll} or
   * {@link #discard} / {@link #discardAll}. An entry under an unexpired claim (a relay may be sending it) is never
   * touched, judged when the entry is changed (a claim that commits while this call runs included, and every member
   * of a claimed run); where claims are held outside the entry (PostgreSQL's leased batches, a row per claimed batch),
   * an entry counts as claimed until its batch's lease has passed. Order is kept: a parked entry is still its key's head, so
   * nothing of its key overtakes it, including entries of the same key for other destinations.
   *
   * @param selector which waiting entries
   * @param now the current time, to tell unexpired claims from expired ones
   * @param limit the most entries to park in this call; positive
   * @return how many were parked; call again while it returns {@code limit}
   * @throws IllegalArgumentException if limit is not positive
   */
  int parkWaiting(WaitingSelector selector, Instant now, int limit);

  /**
   * Deletes up to {@code limit} of the selected waiting entries for good, oldest first, in one short unit of work,
   * never one under an unexpired claim (judged as {@link #parkWaiting} judges it). Deleting a key's waiting entries
   * drops those messages from its stream: the operator's explicit choice; the key's later entries flow as before. As
   * with {@link #discard}, each deleted entry's available time (for a failed entry, a time by which a copy of its last
   * send has landed) moves onto its key's next undelivered entry in key order when later than that one's, so the key's
   * new head never overtakes a late copy.
   *
   * @param selector which waiting entries
   * @param now the current time, to tell unexpired claims from expired ones
   * @param limit the most entries to delete in this call; positive
   * @return how many were deleted; call again while it returns {@code limit}
   * @throws IllegalArgumentException if limit is not positive
   */
  int discardWaiting(WaitingSelector selector, Instant now, int limit);

  /**
   * Pauses a destination by hand, for every relay on this store (across processes): until {@link #resumeDestination},
   * relays hold its claimed entries back, uncharged and without probes, while every other destination flows. Relays
   * read the pauses about once a second. Pausing a destination that is paused already changes nothing.
   *
   * @param destination the destination, as messages name it; not blank, at most 255 characters
   * @param by who pauses it (not blank); truncated to 255 characters
   * @param reason why, in words (may be empty); truncated to 2000 characters
   * @param now the time recorded as the pause's start
   * @return {@code true} when it was paused now, {@code false} when it was paused already
   * @throws IllegalArgumentException if destination or by is blank, or destination is longer than 255 characters
   */
  boolean pauseDestination(String destination, String by, String reason, Instant now);

  /**
   * Ends a pause of {@link #pauseDestination}. Relays notice within about a second; the entries they held back come
   * back within a few seconds more.
   *
   * @param destination the destination
   * @return {@code false} when it was not paused by an operator
   */
  boolean resumeDestination(String destination);

  /** @return the destinations an operator paused, by name */
  List<OperatorPause> operatorPauses();

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
   * The outbox at a glance: waiting, blocked, in flight and quarantined entries, and the creation times of the oldest
   * waiting (the lag) and oldest blocked entries; see {@link OutboxStats} for what each means.
   *
   * <p>Cost: one read of the undelivered entries (never of delivered history kept for retention), bounded like the
   * operator's list; meant for a sampler or gauge that runs it about once a second, not per message.
   *
   * @param now the current time, to tell unexpired claims from expired ones
   * @return the counts and oldest times
   */
  OutboxStats stats(Instant now);

  /**
   * The same counts as {@link #stats}, per destination, for an operator who needs to see <em>where</em> entries wait
   * or are stuck. One row per destination with undelivered entries (waiting, blocked or quarantined); a destination
   * with none has no row. The destinations most behind come first: by the creation time of their oldest waiting or
   * blocked entry, those with only quarantined entries after them, ties by name.
   *
   * <p>Cost: as {@link #stats}, plus grouping by destination; the answer is at most {@code limit} rows however many
   * destinations there are.
   *
   * @param now the current time, to tell unexpired claims from expired ones
   * @param limit the most rows to return, 1 to {@value DestinationStats#MAX_LIMIT}
   * @return the destinations' counts, most behind first
   * @throws IllegalArgumentException if limit is out of range
   */
  List<DestinationStats> destinationStats(Instant now, int limit);

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
   * @param max the most entries to return; {@code 0} returns an empty list
   * @return never-attempted pending entries in delivery order (candidates, not claims)
   * @throws IllegalArgumentException if max is negative
   */
  List<OutboxEntry> findPending(int max);

  /**
   * @param now the current time
   * @param max the most entries to return; {@code 0} returns an empty list
   * @return failed entries with a retry scheduled ({@link EntryStatus#FAILED}) whose next attempt time is not after
   *     {@code now}, in delivery order (candidates, not claims); parked entries are never retry-ready
   * @throws IllegalArgumentException if max is negative
   */
  List<OutboxEntry> findRetryReady(Instant now, int max);

  /**
   * Marks a pending or failed entry delivered: deletes it, or under {@link Retention#keepFor} keeps it with its
   * delivery time and {@code result}, readable through {@link #find} until purged.
   *
   * @param entry the entry as the caller read it
   * @param result what the delivery produced (a broker offset, a response code), or {@code null}
   * @return the updated entry (as it was just before deletion when the store deletes on delivery)
   * @throws OptimisticConflictException if the entry changed since it was read
   * @throws EntryNotFoundException if the entry is gone
   * @throws EntryTransitionException if the entry is parked, quarantined or already delivered (requeue it first)
   */
  OutboxEntry markDelivered(OutboxEntry entry, @Nullable String result);

  /**
   * Records a failed attempt of a pending or failed entry: counts it, keeps the error and, on its first failure since it
   * was written or requeued, records its {@linkplain OutboxEntry#firstFailedAt() first failure time} (the store's clock).
   *
   * <p>With a next-retry time the entry becomes {@link EntryStatus#FAILED} ("retryable failed"): retry-ready, and
   * claimable, at that time. Without one it becomes {@link EntryStatus#PARKED} ("failed"): never retry-ready nor
   * claimable, still blocking its ordering key, listed by {@link #quarantined}, until an operator requeues or discards
   * it.
   *
   * @param entry the entry as the caller read it
   * @param error what failed; truncated to the store's column width
   * @param nextRetryAt when it becomes retry-ready, or {@code null} for no retry until an operator acts
   * @return the updated entry
   * @throws OptimisticConflictException if the entry changed since it was read
   * @throws EntryNotFoundException if the entry is gone
   * @throws EntryTransitionException if the entry is parked, quarantined or delivered (this never un-quarantines)
   */
  OutboxEntry markFailed(OutboxEntry entry, String error, @Nullable Instant nextRetryAt);

  /**
   * Stops retrying a pending, failed or parked entry: it becomes quarantined with kind
   * {@link QuarantineKind#DEAD_LETTERED}, blocks its key and is listed by {@link #quarantined}. Unlike the claim face's
   * {@link #quarantine}, it does not count an attempt (the caller reports no new delivery attempt here); it keeps
   * {@code error} as the last error.
   *
   * @param entry the entry as the caller read it
   * @param error the last error
   * @param reason why it is dead-lettered, or {@code null} to use {@code error} as the reason too
   * @return the updated entry
   * @throws OptimisticConflictException if the entry changed since it was read
   * @throws EntryNotFoundException if the entry is gone
   * @throws EntryTransitionException if the entry is already quarantined or delivered
   */
  OutboxEntry markDeadLettered(OutboxEntry entry, String error, @Nullable String reason);

  /**
   * Upserts by id, never bringing back an entry whose row is gone.
   *
   * <ul>
   *   <li>An entry with {@linkplain OutboxEntry#version() version} {@code 0} is new (never stored, for example
   *       {@link OutboxEntry#pending}): it is inserted, or, when its id exists, refused with
   *       {@link OptimisticConflictException} (of two concurrent saves of one new id, exactly one inserts).
   *   <li>Any other version names an entry read from this store: its stored state (status, attempts, errors, reason
   *       and kind, times, result) is replaced when the stored version equals the entry's; the message itself and the
   *       sequence are kept. When its row is gone (delivered and deleted, discarded, purged) nothing is written and
   *       {@link EntryNotFoundException} is thrown: the message is never delivered a second time.
   * </ul>
   *
   * A stored delivered entry may not be changed back to another status, nor may an entry that waits for an operator
   * leave that state through {@code save} (a quarantined one stays quarantined, a parked one stays parked or becomes
   * quarantined): only {@link #requeue} and {@link #discard} put them back in line or remove them. A quarantined entry
   * saved without a kind gets {@link QuarantineKind#OPERATOR}.
   *
   * @param entry the state to store
   * @return the stored entry, with its new version
   * @throws OptimisticConflictException if the stored version differs from the entry's, including a version-0 entry
   *     whose id exists
   * @throws EntryNotFoundException if the entry's version is not 0 and its row is gone
   * @throws EntryTransitionException if the stored entry is delivered and the saved one is not, or the stored entry is
   *     quarantined or parked and the saved one would leave that state (other than parked to quarantined)
   * @throws MessageRejectedException if the message breaks the store's limits
   */
  OutboxEntry save(OutboxEntry entry);
}
