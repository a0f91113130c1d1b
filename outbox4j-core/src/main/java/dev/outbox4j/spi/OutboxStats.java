package dev.outbox4j.spi;

import java.time.Instant;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A snapshot of an outbox, for gauges and dashboards.
 *
 * @param pending entries waiting for delivery (pending or failed), claimed ones included
 * @param inFlight of those, entries under an unexpired claim
 * @param quarantined entries waiting for an operator: quarantined, and parked (failed with no retry scheduled)
 * @param oldestPendingCreatedAt the creation time of the oldest waiting entry, or {@code null} when none waits
 */
public record OutboxStats(long pending, long inFlight, long quarantined, @Nullable Instant oldestPendingCreatedAt) {
  /** @return the creation time of the oldest waiting entry, if any */
  public Optional<Instant> oldestPending() {
    return Optional.ofNullable(oldestPendingCreatedAt);
  }
}
