package dev.outbox4j;

import java.time.Instant;
import java.util.Objects;

/**
 * What a relay knows of a destination it has paused: since when, when it probes next, and why.
 *
 * <p>A destination is paused when all of its deliveries fail alike (an outage of that destination, or of the
 * transport connection that serves it). While paused, its entries are held back uncharged, a few are sent as a probe
 * at capped, jittered intervals, and every other destination keeps its full rate. One confirmation resumes it.
 *
 * @param destination the destination, as messages name it
 * @param pausedSince when the relay judged it down
 * @param nextProbeAt when its next probe may be sent
 * @param lastError what its last failing delivery answered (never a payload)
 * @param failedProbes probes that failed since the pause began
 */
public record DestinationStatus(
    String destination, Instant pausedSince, Instant nextProbeAt, String lastError, int failedProbes) {

  /** Validates the fields; every one is required. */
  public DestinationStatus {
    Objects.requireNonNull(destination, "destination");
    Objects.requireNonNull(pausedSince, "pausedSince");
    Objects.requireNonNull(nextProbeAt, "nextProbeAt");
    Objects.requireNonNull(lastError, "lastError");
    if (failedProbes < 0) {
      throw new IllegalArgumentException("failedProbes must not be negative, was " + failedProbes);
    }
  }
}
