package dev.outbox4j.spi;

import dev.outbox4j.QuarantineKind;
import org.jspecify.annotations.Nullable;

/**
 * Which entries waiting for an operator (quarantined or parked) a bulk {@link OutboxStore#requeueAll} or
 * {@link OutboxStore#discardAll} acts on. Every criterion that is set must match; {@link #all()} sets none.
 *
 * <p>Immutable and thread-safe.
 *
 * @param orderingKey only entries of this ordering key, or {@code null} for any
 * @param destination only entries for this destination, or {@code null} for any
 * @param reasonContains only entries whose reason contains this text (case-sensitive; for a parked entry, which has
 *     no quarantine reason, its last error), or {@code null} for any
 * @param kind only quarantined entries of this kind (parked entries have none, so never match), or {@code null} for
 *     any
 */
public record QuarantineSelector(@Nullable String orderingKey, @Nullable String destination,
    @Nullable String reasonContains, @Nullable QuarantineKind kind) {

  /** @throws IllegalArgumentException if a text criterion is empty */
  public QuarantineSelector {
    if (orderingKey != null && orderingKey.isEmpty()) {
      throw new IllegalArgumentException("orderingKey must not be empty (use null for any key)");
    }
    if (destination != null && destination.isEmpty()) {
      throw new IllegalArgumentException("destination must not be empty (use null for any destination)");
    }
    if (reasonContains != null && reasonContains.isEmpty()) {
      throw new IllegalArgumentException("reasonContains must not be empty (use null for any reason)");
    }
  }

  /** @return every entry waiting for an operator */
  public static QuarantineSelector all() {
    return new QuarantineSelector(null, null, null, null);
  }

  /**
   * @param key the ordering key
   * @return the entries of that key
   */
  public static QuarantineSelector ofKey(String key) {
    return new QuarantineSelector(key, null, null, null);
  }

  /**
   * @param destination the destination
   * @return the entries for that destination
   */
  public static QuarantineSelector ofDestination(String destination) {
    return new QuarantineSelector(null, destination, null, null);
  }

  /**
   * @param text a fragment of the reason
   * @return the entries whose reason contains it
   */
  public static QuarantineSelector reasonContaining(String text) {
    return new QuarantineSelector(null, null, text, null);
  }

  /**
   * @param kind a quarantine kind
   * @return the quarantined entries of that kind
   */
  public static QuarantineSelector ofKind(QuarantineKind kind) {
    return new QuarantineSelector(null, null, null, kind);
  }

  /**
   * @param kind a quarantine kind, or {@code null} for any
   * @return a copy that also requires that kind
   */
  public QuarantineSelector withKind(@Nullable QuarantineKind kind) {
    return new QuarantineSelector(orderingKey, destination, reasonContains, kind);
  }
}
