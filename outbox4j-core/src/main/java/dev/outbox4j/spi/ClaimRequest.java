package dev.outbox4j.spi;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Set;

/**
 * What a claim asks for: the arguments of {@link OutboxStore#claim(int, Instant, Duration, int, Set)}, as one value, for
 * the calls that claim as one of their steps ({@link OutboxStore#markDeliveredAndClaim}). Immutable and thread-safe.
 *
 * @param limit the most entries to claim; positive
 * @param now the current time: it decides which old claims have expired and when the new ones expire
 * @param lease how long the claims hold; positive
 * @param maxRun the most entries of one key; positive ({@code 1}: heads only)
 * @param skippedDestinations destinations whose entries need not be claimed; may be empty
 */
public record ClaimRequest(int limit, Instant now, Duration lease, int maxRun, Set<String> skippedDestinations) {
  /**
   * @throws IllegalArgumentException if limit, lease or maxRun is not positive
   * @throws NullPointerException if now, lease or skippedDestinations is {@code null}
   */
  public ClaimRequest {
    Objects.requireNonNull(now, "now");
    Objects.requireNonNull(lease, "lease");
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be positive, was " + limit);
    }
    if (lease.isNegative() || lease.isZero()) {
      throw new IllegalArgumentException("lease must be positive, was " + lease);
    }
    if (maxRun < 1) {
      throw new IllegalArgumentException("maxRun must be positive, was " + maxRun);
    }
    skippedDestinations = Set.copyOf(skippedDestinations);
  }

  /**
   * A claim of heads only, leaving no destination out.
   *
   * @param limit the most entries to claim; positive
   * @param now the current time
   * @param lease how long the claims hold; positive
   */
  public ClaimRequest(int limit, Instant now, Duration lease) {
    this(limit, now, lease, 1, Set.of());
  }
}
