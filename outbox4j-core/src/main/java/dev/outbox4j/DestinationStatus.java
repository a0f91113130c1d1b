package dev.outbox4j;

import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What a relay knows of a destination it holds back: why ({@link Cause}), since when, when it probes next, and the
 * reason in words.
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
 * @param nextProbeAt when its next probe may be sent; {@code null} exactly for an operator's pause (no probes)
 * @param lastError for an outage, what its last failing delivery answered (never a payload); for an operator's pause,
 *     {@code paused by <who>: <reason>}
 * @param failedProbes probes that failed since the pause began; 0 for an operator's pause
 */
public record DestinationStatus(String destination, Cause cause, Instant pausedSince, @Nullable Instant nextProbeAt,
    String lastError, int failedProbes) {

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
    if (cause == Cause.OPERATOR && (nextProbeAt != null || failedProbes != 0)) {
      throw new IllegalArgumentException("an operator's pause has no probes");
    }
  }
}
