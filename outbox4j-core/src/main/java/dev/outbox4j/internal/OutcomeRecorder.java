package dev.outbox4j.internal;

import dev.outbox4j.DurationFormat;
import dev.outbox4j.OutboxEntry;
import dev.outbox4j.QuarantineReason;
import dev.outbox4j.RelayResult;
import dev.outbox4j.RetryPolicy;
import dev.outbox4j.spi.Claim;
import dev.outbox4j.spi.DeliveredAndClaimed;
import dev.outbox4j.spi.DeliveryOutcome;
import dev.outbox4j.spi.OutboxStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Writes the outcomes of a pass's deliveries to the store. Not API.
 *
 * <h2>Why it is built this way</h2>
 * <ul>
 *   <li><b>Unknown is left alone.</b> A delivery whose atomic batch's outcome is unknown is not recorded at all: its
 *       lease hands it on, in doubt, and the claim that takes it over asks the transport what landed.
 *   <li><b>Nothing sent, nothing charged.</b> A delivery the relay gave up on before its send began (it waited in the
 *       executor's queue past its cutoff or deadline) is handed back at once ({@link OutboxStore#release}), uncharged.
 *   <li><b>Only a confirmation retires an entry</b>, and confirmations are recorded first, in one store call per wave:
 *       they are the outcomes whose loss costs a duplicate delivery. Nothing recorded after them can undo them.
 *   <li><b>Each other outcome on its own.</b> A failure while recording one entry's failure (a value the store cannot
 *       hold, a constraint) is reported and the others are still recorded. Three store failures in a row mean the
 *       store itself is failing: the rest are left claimed for their leases to hand on, and the exception goes up.
 *   <li><b>Retryable failures wait for the end of the pass</b>, so the {@link DestinationGates} can judge them together
 *       with the evidence of earlier passes ({@link DestinationHealth}): an outage of a destination is charged to no
 *       entry ({@link OutboxStore#postpone}); a failure of one message is charged an attempt
 *       ({@link OutboxStore#markFailed}), or quarantines the entry once the retry policy gives up; a failure not yet
 *       shown to be either is charged to nobody and tried again after the retry policy's next delay.
 *   <li><b>A late copy never overtakes.</b> A retryable failure (a timeout above all) may leave a copy of the send on
 *       its way until the transport's {@code maxAnswerTime} after the send began; the entry is not claimable before
 *       then, so nobody can send the key's next message ahead of that copy. A quarantine passes the same bound to the
 *       store, which keeps it through the operator's requeue or discard.
 *   <li><b>The retry budget counts from the first charged failure</b> ({@link OutboxEntry#firstFailedAt()}), not from
 *       when the entry became deliverable: an entry that waited through an outage, or for a relay, still gets its whole
 *       budget.
 *   <li><b>Delays are capped.</b> A delay the other side asks for ({@code Retry-After}) is honoured up to the retry
 *       policy's cap, so a huge value can neither overflow a timestamp nor park an entry for years.
 * </ul>
 *
 * <p>Thread-safe: stateless apart from its collaborators, which are thread-safe.
 */
final class OutcomeRecorder {
  private static final int MAX_ERROR_LENGTH = 2000;
  /** Store failures in a row, while recording single outcomes, after which the store counts as failing. */
  private static final int STORE_FAILURES_TOLERATED = 3;

  private final RelaySettings settings;
  private final OutboxStore store;
  private final RelayEvents events;
  private final DestinationGates gates;

  OutcomeRecorder(RelaySettings settings, RelayEvents events, DestinationGates gates) {
    this.settings = settings;
    this.store = settings.store();
    this.events = events;
    this.gates = gates;
  }

  /** What a pass learnt so far: confirmations by destination, and the retryable failures kept for its end. */
  static final class PassOutcomes {
    /** When each destination's latest confirmation in the pass arrived, on the relay's clock. */
    final Map<String, Instant> confirmed = new HashMap<>();
    final List<Delivery> retryable = new ArrayList<>();
    private int storeFailuresInARow;
  }

  /**
   * Records a wave: its confirmations in one call, then its permanent failures one by one; keeps its retryable failures
   * in {@code outcomes} for {@link #recordRetryable}.
   *
   * @return the counts recorded
   */
  /**
   * The next batch's claim, to make with a wave's confirmations in one step of the store
   * ({@link ClaimStep#retireAndClaim}); the claims go to {@code ahead} for the next pass.
   *
   * @param limit the most entries to claim
   */
  record ClaimWithConfirmations(ClaimStep claimStep, ClaimAhead ahead, int limit) {}

  /**
   * Records a wave: its confirmations in one call, then its permanent failures one by one; keeps its retryable failures
   * in {@code outcomes} for {@link #recordRetryable}. With {@code next}, the confirmations are retired together with the
   * claim of the next batch, when the wave confirmed something.
   *
   * @param next the next batch's claim, or {@code null} to claim nothing here
   * @return the counts recorded
   */
  RelayResult recordWave(List<Delivery> answered, PassOutcomes outcomes, @Nullable ClaimWithConfirmations next) {
    List<Delivery> confirmed = new ArrayList<>();
    List<Delivery> permanent = new ArrayList<>();
    List<Delivery> unsent = new ArrayList<>();
    int inDoubt = 0;
    for (Delivery delivery : answered) {
      DeliveryOutcome outcome = AnswerCollector.outcomeOf(delivery);
      if (delivery.notSent()) {
        unsent.add(delivery);
      } else if (delivery.inDoubt()) {
        inDoubt++; // its batch may still land: nothing is recorded, its lease hands it on to a claim that asks
      } else if (outcome instanceof DeliveryOutcome.Delivered) {
        confirmed.add(delivery);
      } else if (outcome instanceof DeliveryOutcome.Permanent) {
        permanent.add(delivery);
      } else {
        outcomes.retryable.add(delivery);
      }
    }
    if (inDoubt > 0) {
      RelayLog.LOGGER.log(System.Logger.Level.WARNING, inDoubt + " entries left claimed: their batch's outcome is"
          + " unknown; once their lease ends, the claim that takes them over asks the transport what landed");
    }
    for (Delivery delivery : confirmed) {
      Instant arrived = delivery.answeredOn;
      outcomes.confirmed.merge(delivery.claim.message().destination(),
          arrived != null ? arrived : settings.clock().instant(), (a, b) -> a.isAfter(b) ? a : b);
    }
    RelayResult result = confirmed.isEmpty() ? RelayResult.EMPTY : retire(confirmed, next);
    if (!unsent.isEmpty()) {
      result = result.plus(handBack(unsent));
    }
    for (Delivery delivery : permanent) {
      DeliveryOutcome.Permanent outcome = (DeliveryOutcome.Permanent) AnswerCollector.outcomeOf(delivery);
      if (outcome.destinationGone()) {
        result = result.plus(isolated(outcomes, delivery.claim, () -> stopGoneDestination(delivery, outcome)));
        continue;
      }
      result = result.plus(isolated(outcomes, delivery.claim,
          () -> quarantine(delivery,
              QuarantineReason.permanentFailure(truncate("permanent failure: " + outcome.reason())))));
    }
    return result;
  }

  /**
   * Records the pass's retryable failures, after asking the destination gates which of them are outages.
   *
   * @return the counts recorded
   */
  RelayResult recordRetryable(PassOutcomes outcomes) {
    if (outcomes.retryable.isEmpty()) {
      gates.judge(outcomes.confirmed, List.of());
      return RelayResult.EMPTY;
    }
    List<DestinationGates.Failure> failures = new ArrayList<>();
    for (Delivery delivery : outcomes.retryable) {
      failures.add(new DestinationGates.Failure(delivery.claim.id(), delivery.claim.message().destination(),
          delivery.claim.entry().firstFailedAt(), retryableOutcome(delivery)));
    }
    DestinationHealth.Verdicts verdicts = gates.judge(outcomes.confirmed, failures);
    Instant now = settings.clock().instant();
    RelayResult result = RelayResult.EMPTY;
    for (int i = 0; i < failures.size(); i++) {
      Delivery delivery = outcomes.retryable.get(i);
      DestinationGates.Failure failure = failures.get(i);
      if (verdicts.down().contains(failure.destination()) || failure.outcome().transportUnavailable()) {
        Instant until = gates.outageUntil(failure.destination(), now);
        result = result.plus(isolated(outcomes, delivery.claim, () -> postpone(delivery, failure.outcome(), until)));
      } else if (verdicts.charged().contains(failure.entryId())) {
        result = result.plus(isolated(outcomes, delivery.claim, () -> charge(delivery, failure.outcome())));
      } else {
        Instant until = now.plus(retryDelay(delivery.claim.entry().attempts() + 1, failure.outcome()));
        result = result.plus(isolated(outcomes, delivery.claim, () -> postpone(delivery, failure.outcome(), until)));
      }
    }
    return result;
  }

  /**
   * Hands back, uncharged and unsent, the claims of a paused destination that a pass did not send.
   *
   * @return the counts recorded
   */
  RelayResult holdBack(DestinationGates.HeldBack held) {
    List<Claim> lost = store.postpone(held.claims(), truncate(held.reason()), held.until());
    Set<UUID> lostIds = new HashSet<>();
    for (Claim claim : lost) {
      lostIds.add(claim.id());
      events.emit(l -> l.onClaimLost(claim.entry()));
    }
    for (Claim claim : held.claims()) {
      if (!lostIds.contains(claim.id())) {
        events.emit(l -> l.onPostponed(claim.entry(), held.reason(), held.until()));
      }
    }
    return new RelayResult(0, 0, 0, 0, held.claims().size() - lost.size(), 0, lost.size());
  }

  private RelayResult retire(List<Delivery> confirmed, @Nullable ClaimWithConfirmations next) {
    List<Claim> claims = new ArrayList<>(confirmed.size());
    for (Delivery delivery : confirmed) {
      claims.add(delivery.claim);
    }
    List<Claim> lostClaims = next == null ? store.markDelivered(claims, settings.clock().instant())
        : retireAndClaim(claims, next);
    Set<UUID> lostIds = new HashSet<>();
    for (Claim claim : lostClaims) {
      lostIds.add(claim.id());
      events.emit(l -> l.onClaimLost(claim.entry()));
    }
    for (Delivery delivery : confirmed) {
      if (!lostIds.contains(delivery.claim.id())) {
        Duration took = Duration.ofNanos(Math.max(0, delivery.answeredAt - delivery.sentAt));
        events.emit(l -> l.onDelivered(delivery.claim.entry(), took));
      }
    }
    return new RelayResult(0, 0, claims.size() - lostClaims.size(), 0, 0, 0, lostClaims.size());
  }

  /**
   * Retires confirmed claims and claims the next batch in one step of the store, and keeps that batch for the next
   * pass. Should the step fail, the confirmations are retired on their own (a store that does the step in one
   * transaction changed nothing), and the next pass claims for itself, meeting the failure if it lasts.
   *
   * @return the confirmed claims that were lost
   */
  private List<Claim> retireAndClaim(List<Claim> claims, ClaimWithConfirmations next) {
    long started = System.nanoTime();
    Instant now = settings.clock().instant();
    DeliveredAndClaimed done;
    try {
      done = next.claimStep().retireAndClaim(claims, now, next.limit(), now);
    } catch (RuntimeException e) {
      RelayLog.LOGGER.log(System.Logger.Level.DEBUG, "retiring the confirmations with the next claim failed; they are"
          + " retired on their own, and the next pass claims for itself", e);
      return store.markDelivered(claims, now);
    }
    next.ahead().hold(done.claims(), started, now);
    return done.lost();
  }

  /**
   * Hands back deliveries the relay gave up on before their send began ({@link OutboxStore#release}): nothing was sent,
   * so no attempt is charged and no late copy can land; the entries are claimable again at once.
   *
   * @return the counts: they were dispatched but not attempted after all (a negative correction of {@code attempted}),
   *     plus the claims lost
   */
  private RelayResult handBack(List<Delivery> unsent) {
    List<Claim> claims = new ArrayList<>(unsent.size());
    for (Delivery delivery : unsent) {
      claims.add(delivery.claim);
    }
    List<Claim> lost = List.of();
    try {
      lost = store.release(claims);
    } catch (RuntimeException e) {
      RelayLog.LOGGER.log(System.Logger.Level.WARNING, "could not hand back " + claims.size()
          + " entries never sent; they are claimable again when their lease ends: " + RelayLog.describe(e));
    }
    for (Claim claim : lost) {
      events.emit(l -> l.onClaimLost(claim.entry()));
    }
    return new RelayResult(0, -claims.size(), 0, 0, 0, 0, lost.size());
  }

  private RelayResult postpone(Delivery delivery, DeliveryOutcome.Retryable outcome, Instant until) {
    Claim claim = delivery.claim;
    Instant next = notBeforeLateCopies(delivery, until);
    String reason = truncate(outcome.reason());
    if (store.postpone(claim, reason, next)) {
      events.emit(l -> l.onPostponed(claim.entry(), reason, next));
      return new RelayResult(0, 0, 0, 0, 1, 0, 0);
    }
    events.emit(l -> l.onClaimLost(claim.entry()));
    return new RelayResult(0, 0, 0, 0, 0, 0, 1);
  }

  private RelayResult charge(Delivery delivery, DeliveryOutcome.Retryable outcome) {
    Claim claim = delivery.claim;
    OutboxEntry entry = claim.entry();
    RetryPolicy policy = settings.retryPolicy();
    Instant now = settings.clock().instant();
    int attempts = entry.attempts() + 1;
    // The budget counts from the first charged failure: this one, when the entry has none recorded.
    Instant firstFailed = entry.firstFailedAt();
    Duration failingFor = firstFailed == null || firstFailed.isAfter(now) ? Duration.ZERO
        : Duration.between(firstFailed, now);
    if (policy.givesUp(attempts, failingFor)) {
      return quarantine(delivery,
          QuarantineReason.retriesExhausted(truncate(gaveUp(attempts, failingFor, policy, outcome.reason()))));
    }
    Instant next = notBeforeLateCopies(delivery, now.plus(retryDelay(attempts, outcome)));
    String error = truncate(outcome.reason());
    if (store.markFailed(claim, error, next)) {
      events.emit(l -> l.onFailed(entry, error, next));
      return new RelayResult(0, 0, 0, 1, 0, 0, 0);
    }
    events.emit(l -> l.onClaimLost(entry));
    return new RelayResult(0, 0, 0, 0, 0, 0, 1);
  }

  /**
   * @return the retry policy's delay after the given attempt, or the delay the other side asked for when that is longer
   *     (capped at the policy's cap)
   */
  private Duration retryDelay(int attempts, DeliveryOutcome.Retryable outcome) {
    RetryPolicy policy = settings.retryPolicy();
    Duration delay = policy.delayAfter(attempts, settings.random().nextDouble());
    Duration requested = outcome.retryAfter();
    if (requested != null) {
      Duration capped = requested.compareTo(policy.cap()) > 0 ? policy.cap() : requested;
      if (capped.compareTo(delay) > 0) {
        delay = capped;
      }
    }
    return delay;
  }

  /**
   * The reason of a quarantine by the retry policy, as a sentence an operator reads: {@code gave up after 3 attempts
   * over 3m 7s (retry policy: linear, step 1s, cap 5s, at most 3 attempts, give up after 24h); last error: HTTP 503
   * from ...}. The time counts from the entry's first charged failure; it is left out after a single attempt.
   */
  static String gaveUp(int attempts, Duration failingFor, RetryPolicy policy, String lastError) {
    return "gave up after " + attempts + (attempts == 1 ? " attempt" : " attempts")
        + (attempts == 1 ? "" : " over " + DurationFormat.format(failingFor))
        + " (retry policy: " + policy.describe() + "); last error: " + lastError;
  }

  /** Quarantines the delivery's entry, keeping the bound by which a copy of its send lands through requeue and discard. */
  private RelayResult quarantine(Delivery delivery, QuarantineReason reason) {
    Claim claim = delivery.claim;
    if (store.quarantine(claim, reason, notBeforeLateCopies(delivery, settings.clock().instant()))) {
      events.emit(l -> l.onQuarantined(claim.entry(), reason.text()));
      return new RelayResult(0, 0, 0, 0, 0, 1, 0);
    }
    events.emit(l -> l.onClaimLost(claim.entry()));
    return new RelayResult(0, 0, 0, 0, 0, 0, 1);
  }

  /**
   * A destination that said it is gone: pause it for every relay first (so its other entries are held back, not sent),
   * then quarantine the entry that met the answer with its own kind.
   */
  private RelayResult stopGoneDestination(Delivery delivery, DeliveryOutcome.Permanent outcome) {
    String reason = truncate("destination gone: " + outcome.reason());
    Instant now = settings.clock().instant();
    if (store.pauseDestination(delivery.claim.message().destination(), DeliveryOutcome.GONE_PAUSED_BY, reason, now)) {
      RelayLog.LOGGER.log(System.Logger.Level.WARNING, "paused destination '"
          + delivery.claim.message().destination() + "' until an operator resumes it: " + reason);
    }
    return quarantine(delivery, QuarantineReason.destinationGone(reason));
  }

  /** Records one outcome; a failure to do so is reported and the others carry on, unless the store keeps failing. */
  private RelayResult isolated(PassOutcomes outcomes, Claim claim, Supplier<RelayResult> recording) {
    try {
      RelayResult result = recording.get();
      outcomes.storeFailuresInARow = 0;
      return result;
    } catch (RuntimeException e) {
      if (++outcomes.storeFailuresInARow >= STORE_FAILURES_TOLERATED) {
        throw e;
      }
      RelayLog.LOGGER.log(System.Logger.Level.WARNING,
          "could not record the outcome of entry " + claim.id() + "; it stays claimed until its lease expires", e);
      events.error(e);
      return RelayResult.EMPTY;
    }
  }

  /** @return {@code next}, or later: not before any copy of the delivery's send can have landed */
  private Instant notBeforeLateCopies(Delivery delivery, Instant next) {
    Instant started = delivery.sendStartedAt;
    if (started == null) {
      return next; // never sent: no copy can land
    }
    Instant landed = started.plus(settings.maxAnswerTime());
    return next.isBefore(landed) ? landed : next;
  }

  private static DeliveryOutcome.Retryable retryableOutcome(Delivery delivery) {
    DeliveryOutcome outcome = AnswerCollector.outcomeOf(delivery);
    return outcome instanceof DeliveryOutcome.Retryable retryable
        ? retryable
        : new DeliveryOutcome.Retryable("unexpected outcome " + outcome, null);
  }

  private static String truncate(String text) {
    return text.length() <= MAX_ERROR_LENGTH ? text : text.substring(0, MAX_ERROR_LENGTH);
  }
}
