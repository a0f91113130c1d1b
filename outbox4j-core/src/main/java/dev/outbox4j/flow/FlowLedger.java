package dev.outbox4j.flow;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Durable state for long-running asynchronous work, with the atomic operations that keep many replicas correct:
 * insert-if-absent creation, revision-checked updates, and renewable, owner-fenced execution leases (SPEC §7).
 *
 * <p><b>Absent versus unreadable.</b> {@link #load} reports a flow that is genuinely gone (never created, deleted, or
 * past its time to live) as empty. A flow whose stored content cannot be interpreted is <em>not</em> absent: it throws
 * {@link FlowStateUnreadableException}, because callers acknowledge and forget absent flows.
 *
 * <p><b>Time to live.</b> Every write sets the flow's expiry to now + ttl. From its expiry on, a flow is absent to
 * every operation (it can be created again) and {@link #purgeExpired} deletes it.
 *
 * <p><b>Leases.</b> A lease names one worker (by a lease id of its choosing) as the flow's executor until an expiry.
 * It is acquired only when unowned or expired, renewed only by its unexpired owner, and released only by its owner;
 * {@link #tryUpdate} with a lease id succeeds only while that lease is held and unexpired, so a worker that lost its
 * lease cannot overwrite the new owner's work. {@link #observeLease} reports the persisted lease verbatim, so a waiter
 * can tell a live holder (its owner or expiry changes as it renews) from a dead one (nothing changes; wait until the
 * persisted expiry, then acquire).
 *
 * <p>"Now" always comes from the ledger's injected {@link java.time.Clock}. Implementations are thread-safe.
 *
 * @param <B> the body type of the states this ledger stores
 */
public interface FlowLedger<B> {

  /** The longest flow id accepted, in characters. */
  int MAX_FLOW_ID_LENGTH = 255;

  /** The longest lease id accepted, in characters. */
  int MAX_LEASE_ID_LENGTH = 255;

  /** The default budget for one serialized state: 64 KiB. */
  int DEFAULT_MAX_STATE_BYTES = 64 * 1024;

  /**
   * Checks the deterministic creation limits (arguments and the serialized-state size budget) without writing
   * anything or contacting the database. Not a reservation: the real write checks again.
   *
   * @param flowId the flow id
   * @param state the initial state; its flow id must be {@code flowId}
   * @param ttl how long the flow lives, positive
   * @throws FlowStateTooLargeException if the serialized state exceeds the budget
   * @throws IllegalArgumentException if an argument is invalid
   */
  void validateCreate(String flowId, FlowState<B> state, Duration ttl);

  /**
   * Creates a flow if no flow with this id is present (an expired one counts as absent and is replaced).
   *
   * @param flowId the flow id
   * @param state the initial state; its flow id must be {@code flowId}
   * @param ttl how long the flow lives, positive
   * @return {@code true} when created, {@code false} when a flow with this id is present (readable or not)
   * @throws FlowStateTooLargeException if the serialized state exceeds the budget; nothing was written
   * @throws IllegalArgumentException if an argument is invalid
   * @throws dev.outbox4j.OutboxException if the store fails
   */
  boolean tryCreate(String flowId, FlowState<B> state, Duration ttl);

  /**
   * @param flowId the flow id
   * @return the flow's state, or empty when the flow is absent (unknown, deleted or expired)
   * @throws FlowStateUnreadableException if the flow is present but its content is malformed, has an unknown schema
   *     version, or disagrees with its stored revision or key
   * @throws dev.outbox4j.OutboxException if the store fails
   */
  Optional<FlowState<B>> load(String flowId);

  /**
   * Replaces a flow's state when its stored revision is {@code expectedRevision} and, when {@code leaseId} is given,
   * that lease holds the flow and has not expired. Sets the expiry to now + ttl.
   *
   * @param flowId the flow id
   * @param state the new state, carrying the new revision (greater than {@code expectedRevision})
   * @param expectedRevision the revision the caller read
   * @param ttl the flow's new time to live, positive
   * @param leaseId the caller's lease, or {@code null} to update without a lease check
   * @return {@code true} when replaced; {@code false} when the flow is absent, its revision differs, or the lease is
   *     not held by {@code leaseId} or has expired
   * @throws FlowStateTooLargeException if the serialized state exceeds the budget; nothing was written
   * @throws IllegalArgumentException if an argument is invalid
   * @throws dev.outbox4j.OutboxException if the store fails
   */
  boolean tryUpdate(String flowId, FlowState<B> state, long expectedRevision, Duration ttl, @Nullable String leaseId);

  /**
   * Takes the flow's execution lease when it is unowned or its lease has expired (a lease still held, even by
   * {@code leaseId} itself, is not taken: renew it instead).
   *
   * @param flowId the flow id
   * @param leaseId the new owner
   * @param leaseDuration how long the lease lasts from now, positive
   * @return {@code true} when acquired; {@code false} when the flow is absent or the lease is held and unexpired
   */
  boolean tryAcquireLease(String flowId, String leaseId, Duration leaseDuration);

  /**
   * Extends the lease to now + {@code leaseDuration}, only while {@code leaseId} holds it and it has not expired.
   *
   * @param flowId the flow id
   * @param leaseId the owner
   * @param leaseDuration the new duration from now, positive
   * @return {@code true} when renewed
   */
  boolean tryRenewLease(String flowId, String leaseId, Duration leaseDuration);

  /**
   * Releases the lease if {@code leaseId} owns it (expired or not); otherwise changes nothing.
   *
   * @param flowId the flow id
   * @param leaseId the owner
   * @return {@code true} when a lease owned by {@code leaseId} was released
   */
  boolean releaseLease(String flowId, String leaseId);

  /**
   * Reports the lease as persisted, owner and expiry verbatim, without judging whether it has lapsed.
   *
   * @param flowId the flow id
   * @return {@link LeaseObservation.Held} with the stored owner and expiry, or {@link LeaseObservation#unheld()} when
   *     no lease is held or the flow is absent
   */
  LeaseObservation observeLease(String flowId);

  /**
   * Deletes a flow.
   *
   * @param flowId the flow id
   * @return {@code true} when a present flow was deleted; {@code false} when it was absent (an expired flow not yet
   *     purged is deleted too, and reported as absent)
   */
  boolean tryDelete(String flowId);

  /**
   * Deletes up to {@code limit} expired flows. Call it repeatedly until it returns less than {@code limit}.
   *
   * @param limit the most flows deleted by this call, positive
   * @return how many were deleted
   */
  int purgeExpired(int limit);

  /**
   * Checks a flow id; for implementations.
   *
   * @param flowId the id
   * @return the id
   * @throws IllegalArgumentException if blank or longer than {@value #MAX_FLOW_ID_LENGTH} characters
   */
  static String checkFlowId(String flowId) {
    return checkName("flowId", flowId, MAX_FLOW_ID_LENGTH);
  }

  /**
   * Checks a lease id; for implementations.
   *
   * @param leaseId the id
   * @return the id
   * @throws IllegalArgumentException if blank or longer than {@value #MAX_LEASE_ID_LENGTH} characters
   */
  static String checkLeaseId(String leaseId) {
    return checkName("leaseId", leaseId, MAX_LEASE_ID_LENGTH);
  }

  /**
   * Checks a time to live or lease duration; for implementations.
   *
   * @param name the option's name, for the message
   * @param duration the duration
   * @return the duration
   * @throws IllegalArgumentException if it is zero or negative
   */
  static Duration checkPositive(String name, Duration duration) {
    Objects.requireNonNull(duration, name);
    if (duration.isNegative() || duration.isZero()) {
      throw new IllegalArgumentException(name + " must be positive, was " + duration);
    }
    return duration;
  }

  /**
   * Checks that a state belongs to the flow it is written under; for implementations.
   *
   * @param flowId the key
   * @param state the state
   * @throws IllegalArgumentException if the state's flow id differs
   */
  static void checkBelongs(String flowId, FlowState<?> state) {
    Objects.requireNonNull(state, "state");
    if (!state.flowId().equals(flowId)) {
      throw new IllegalArgumentException(
          "the state's flowId '" + state.flowId() + "' differs from the flowId '" + flowId + "' it is written under");
    }
  }

  /**
   * Checks that an update moves the revision forward; for implementations.
   *
   * @param state the new state
   * @param expectedRevision the revision the caller read
   * @throws IllegalArgumentException if the new revision is not greater
   */
  static void checkNextRevision(FlowState<?> state, long expectedRevision) {
    if (state.revision() <= expectedRevision) {
      throw new IllegalArgumentException("the new state's revision " + state.revision()
          + " must be greater than the expected revision " + expectedRevision);
    }
  }

  private static String checkName(String name, String value, int max) {
    Objects.requireNonNull(value, name);
    if (value.isBlank()) {
      throw new IllegalArgumentException(name + " must not be blank");
    }
    if (value.length() > max) {
      throw new IllegalArgumentException(name + " is " + value.length() + " characters long; the limit is " + max);
    }
    return value;
  }
}
