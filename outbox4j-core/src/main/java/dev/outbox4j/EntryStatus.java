package dev.outbox4j;

/**
 * Where an outbox entry stands in its delivery. The full state machine, with the operation behind each arrow, is in
 * {@code docs/stores.md}; in short:
 *
 * <pre>
 *   PENDING ──claim, fail with a retry time──▶ FAILED ──(its time comes, claimed again)──▶ …
 *   PENDING | FAILED ──delivered──▶ DELIVERED (deleted, or kept under Retention.keepFor)
 *   PENDING | FAILED ──entry-face markFailed without a retry time──▶ PARKED
 *   PENDING | FAILED ──quarantine (relay gave up) / markDeadLettered──▶ QUARANTINED   (PARKED may be dead-lettered too)
 *   PARKED | QUARANTINED ──requeue──▶ PENDING;   ──discard──▶ (gone)
 * </pre>
 *
 * Every status but {@link #DELIVERED} blocks the entries behind it in its ordering key; only {@link #PENDING} and
 * {@link #FAILED} are ever claimed.
 */
public enum EntryStatus {
  /** Written and never attempted; claimable once its not-before time has passed. */
  PENDING,
  /** Attempted and failed with a retry scheduled ("retryable failed"): claimable again at its next attempt time. */
  FAILED,
  /**
   * Failed with no retry scheduled (the entry face's {@code markFailed} without a next-retry time): never claimed and
   * never retry-ready, it blocks its ordering key, is listed with the quarantined entries, and waits for an operator's
   * requeue or discard.
   */
  PARKED,
  /** Confirmed by the transport; kept only while the store's retention says so. */
  DELIVERED,
  /**
   * Stopped being retried (a permanent error, the retry budget exhausted, dead-lettered through the entry face, or
   * set by an operator; see {@link QuarantineKind}). Blocks its ordering key until an operator requeues or discards
   * it.
   */
  QUARANTINED;

  /** @return {@code true} for {@link #PENDING} and {@link #FAILED}: the states a relay may claim */
  public boolean isDeliverable() {
    return this == PENDING || this == FAILED;
  }

  /**
   * @return {@code true} for {@link #PARKED} and {@link #QUARANTINED}: the states that wait for an operator (listed by
   *     {@code OutboxStore.quarantined}, accepted by {@code requeue} and {@code discard})
   */
  public boolean awaitsOperator() {
    return this == PARKED || this == QUARANTINED;
  }
}
