package dev.outbox4j;

import java.time.Duration;
import java.time.Instant;

/**
 * Receives what a relay does, for metrics, logs and dashboards. Every method has an empty default; implement the ones
 * you need. Register with {@link RelayBuilder#onEvent(RelayListener)}.
 *
 * <p>Called on relay threads, possibly several at once: implementations must be thread-safe and quick. An exception
 * thrown by a listener is logged and otherwise ignored. Entries carry payloads: do not log them unless you mean to.
 */
public interface RelayListener {

  /**
   * @param entry the delivered entry, as claimed
   * @param deliveryTime from the send to the transport's confirmation
   */
  default void onDelivered(OutboxEntry entry, Duration deliveryTime) {}

  /**
   * @param entry the entry, as claimed
   * @param error what failed
   * @param nextAttemptAt when it will be tried again
   */
  default void onFailed(OutboxEntry entry, String error, Instant nextAttemptAt) {}

  /**
   * The transport as a whole was failing (an outage): the entry was handed back without being charged an attempt and
   * is tried again from {@code nextAttemptAt}.
   *
   * @param entry the entry, as claimed
   * @param reason what the transport answered
   * @param nextAttemptAt when it may be claimed again
   */
  default void onPostponed(OutboxEntry entry, String reason, Instant nextAttemptAt) {}

  /**
   * @param entry the entry, as claimed
   * @param reason why it stopped being retried
   */
  default void onQuarantined(OutboxEntry entry, String reason) {}

  /**
   * The relay could not record an outcome because its claim was lost (it expired and another relay took the entry).
   *
   * @param entry the entry, as claimed
   */
  default void onClaimLost(OutboxEntry entry) {}

  /**
   * A destination's deliveries all failed alike (an outage of that destination, or of the connection serving it): the
   * relay paused it. Its entries are held back uncharged and probed at capped intervals; other destinations go on.
   * Called once per pause, not per probe.
   *
   * @param status the destination, since when, its next probe and what it answered
   */
  default void onDestinationPaused(DestinationStatus status) {}

  /**
   * A paused destination confirmed a delivery again: its entries flow at full rate.
   *
   * @param destination the destination
   * @param pausedFor how long it was paused
   */
  default void onDestinationResumed(String destination, Duration pausedFor) {}

  /** @param report the timings of a pass that claimed at least one entry */
  default void onBatch(BatchReport report) {}

  /**
   * A failure that is not an outcome of a delivery: a background pass that failed (for example the database is
   * unreachable; the relay backs off and keeps going), an outcome the store could not record (the entry stays claimed
   * until its lease expires), or an {@link Error} that ended a background worker (the relay then stops:
   * {@link Relay#isRunning()} turns {@code false}).
   *
   * @param error what failed
   */
  default void onError(Throwable error) {}
}
