package dev.outbox4j;

/**
 * Why an entry stopped being retried, as a value a tool can act on without parsing the reason's text: a dashboard can
 * requeue every {@link #RETRIES_EXHAUSTED} entry after an outage and leave {@link #PERMANENT_FAILURE} entries for a
 * person to look at.
 */
public enum QuarantineKind {
  /** The transport said the message can never succeed as it is (a rejected payload, an unknown destination). */
  PERMANENT_FAILURE,
  /**
   * The destination said it is gone for good (HTTP {@code 410 Gone}, {@link dev.outbox4j.spi.DeliveryOutcome#gone}): the
   * relay quarantined the entry that met the answer and paused the whole destination for every relay
   * ({@code OutboxStore.pauseDestination}, by {@value dev.outbox4j.spi.DeliveryOutcome#GONE_PAUSED_BY}). Once the
   * receiver is back (or the destination was re-pointed), an operator resumes the destination and requeues the entry.
   */
  DESTINATION_GONE,
  /**
   * The relay's retry budget ran out: the attempt limit, or any other bound on retrying (for example a retry time
   * budget), was reached while failures stayed retryable.
   */
  RETRIES_EXHAUSTED,
  /** A host dead-lettered the entry through the entry face ({@code OutboxStore.markDeadLettered}). */
  DEAD_LETTERED,
  /** An operator or tool quarantined the entry by writing its state ({@code OutboxStore.save}). */
  OPERATOR,
  /**
   * The store could not read the entry's row: another application wrote it with plain SQL and some column breaks the
   * format (headers that are not a JSON object of strings, a blank destination, ordering key, content type or header
   * name). The reason names the column and the problem, never the payload. Such a row is quarantined by the claim
   * that meets it instead of stopping that claim; its entry carries placeholders for the unreadable parts, and
   * {@code OutboxStore.rawColumns} shows what the row holds. A requeued row that is still unreadable is quarantined
   * again by the next claim, so fix the row (or discard it) first.
   */
  UNREADABLE
}
