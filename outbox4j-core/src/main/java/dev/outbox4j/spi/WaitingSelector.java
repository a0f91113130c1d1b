package dev.outbox4j.spi;

import org.jspecify.annotations.Nullable;

/**
 * Which waiting entries (pending or failed, the ones a relay would claim) an operator's {@link OutboxStore#countWaiting},
 * {@link OutboxStore#parkWaiting} or {@link OutboxStore#discardWaiting} acts on. Every criterion that is set must
 * match, and at least one must be set: there is deliberately no "every waiting entry".
 *
 * <p>Immutable and thread-safe.
 *
 * @param orderingKey only entries of this ordering key, or {@code null} for any
 * @param destination only entries for this destination, or {@code null} for any
 */
public record WaitingSelector(@Nullable String orderingKey, @Nullable String destination) {

  /** @throws IllegalArgumentException if both criteria are {@code null}, or one is empty */
  public WaitingSelector {
    if (orderingKey == null && destination == null) {
      throw new IllegalArgumentException("select waiting entries by destination, ordering key or both");
    }
    if (orderingKey != null && orderingKey.isEmpty()) {
      throw new IllegalArgumentException("orderingKey must not be empty (use null for any key)");
    }
    if (destination != null && destination.isEmpty()) {
      throw new IllegalArgumentException("destination must not be empty (use null for any destination)");
    }
  }

  /**
   * @param key the ordering key
   * @return the waiting entries of that key
   */
  public static WaitingSelector ofKey(String key) {
    return new WaitingSelector(key, null);
  }

  /**
   * @param destination the destination
   * @return the waiting entries for that destination
   */
  public static WaitingSelector ofDestination(String destination) {
    return new WaitingSelector(null, destination);
  }
}
