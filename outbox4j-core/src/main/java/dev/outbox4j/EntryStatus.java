package dev.outbox4j;

/** Where an outbox entry stands in its delivery. */
public enum EntryStatus {
  /** Written and never attempted; claimable once its not-before time has passed. */
  PENDING,
  /** Attempted and failed; claimable again at its next attempt time. */
  FAILED,
  /** Confirmed by the transport; kept only while the store's retention says so. */
  DELIVERED,
  /**
   * Stopped being retried (attempts exhausted, a permanent error, or dead-lettered through the entry face). Blocks its
   * ordering key until an operator requeues or discards it.
   */
  QUARANTINED;

  /** @return {@code true} for {@link #PENDING} and {@link #FAILED}: the states a relay may claim */
  public boolean isDeliverable() {
    return this == PENDING || this == FAILED;
  }
}
