package dev.outbox4j;

import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What a relay knows of a destination it holds back, as of the moment it was read: why ({@link Cause}), since when,
 * when its entries are next sent, whether a probe is under way, and the reason in words.
 *
 * <p>A destination is paused by an {@linkplain Cause#OUTAGE outage} when all of its deliveries fail alike (an outage of
 * that destination, or of the transport connection that serves it). While paused, its entries are held back uncharged,
 * a few are sent as a probe at capped, jittered intervals, and every other destination keeps its full rate. One
 * confirmation resumes it.
 *
 * <p>A destination is paused by an {@linkplain Cause#OPERATOR operator} through the store
 * ({@code OutboxStore.pauseDestination}, the relay app's {@code pause} command): its entries are held back uncharged
 * with no probe until the operator resumes it. When both apply, the operator's pause is the one shown.
 *
 * @param destination the destination, as messages name it
 * @param cause why it is paused
 * @param pausedSince when the relay judged it down, or when the operator paused it
 * @param nextProbeAt the earliest its next probe may be sent; {@code null} exactly for an operator's pause (no probes).
 *     Once this has passed with no probe sent, no entry of the destination was there to send: see nextSendAt
 * @param lastError for an outage, what its last failing delivery answered (never a payload); for an operator's pause,
 *     {@code paused by <who>: <reason>}
 * @param failedProbes probes that failed since the pause began; 0 for an operator's pause
 * @param nextSendAt when the relay next sends entries of it, never in the past when read: its next probe while that
 *     is ahead; once the probe is due with nothing sent, when the first of the entries the relay holds back comes back
 *     (entries written meanwhile go sooner, with the next pass). {@code null} while a probe is under way, when the
 *     probe is due and the relay holds back nothing of it (it goes with the next entry written), and for an operator's
 *     pause (sent once resumed)
 * @param probing whether a probe of it was sent and its answers are awaited; always {@code false} for an operator's
 *     pause
 */
public record DestinationStatus(String destination, Cause cause, Instant pausedSince, @Nullable Instant nextProbeAt,
    String lastError, int failedProbes, @Nullable Instant nextSendAt, boolean probing) {

  /** Why a destination is paused. */
  public enum Cause {
    /** All of its deliveries failed alike: the relay probes it and resumes it on the first confirmation. */
    OUTAGE,
    /** An operator paused it by hand: no probes; it flows again when the operator resumes it. */
    OPERATOR
  }

  /**
   * Validates the fields.
   *
   * @throws IllegalArgumentException if failedProbes is negative, or nextProbeAt is missing for an outage, or an
   *     operator's pause has a next probe or failed probes
   */
  public DestinationStatus {
    Objects.requireNonNull(destination, "destination");
    Objects.requireNonNull(cause, "cause");
    Objects.requireNonNull(pausedSince, "pausedSince");
    Objects.requireNonNull(lastError, "lastError");
    if (failedProbes < 0) {
      throw new IllegalArgumentException("failedProbes must not be negative, was " + failedProbes);
    }
    if (cause == Cause.OUTAGE && nextProbeAt == null) {
      throw new IllegalArgumentException("an outage's nextProbeAt is required");
    }
    if (cause == Cause.OPERATOR && (nextProbeAt != null || failedProbes != 0 || nextSendAt != null || probing)) {
      throw new IllegalArgumentException("an operator's pause has no probes");
    }
  }

  /**
   * A status read with no probe under way, whose entries are next sent at its next probe.
   *
   * @param destination the destination, as messages name it
   * @param cause why it is paused
   * @param pausedSince when the relay judged it down, or when the operator paused it
   * @param nextProbeAt when its next probe may be sent; {@code null} exactly for an operator's pause
   * @param lastError what its last failing delivery answered, or {@code paused by <who>: <reason>}
   * @param failedProbes probes that failed since the pause began; 0 for an operator's pause
   * @throws IllegalArgumentException as the canonical constructor
   */
  public DestinationStatus(String destination, Cause cause, Instant pausedSince, @Nullable Instant nextProbeAt,
      String lastError, int failedProbes) {
    this(destination, cause, pausedSince, nextProbeAt, lastError, failedProbes, nextProbeAt, false);
  }
}
