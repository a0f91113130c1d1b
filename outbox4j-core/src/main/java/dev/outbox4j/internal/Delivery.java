package dev.outbox4j.internal;

import dev.outbox4j.spi.AtomicBatches;
import dev.outbox4j.spi.Claim;
import dev.outbox4j.spi.DeliveryOutcome;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * One claimed entry on its way to the transport; its outcome arrives in {@link #outcome}. Not API. The relay thread
 * dispatches it; the thread that runs the send (the executor's) stamps the send start, unless the relay gave up on the
 * delivery first; the outcome and {@link #answeredAt} are set by whichever thread answers.
 *
 * <p>Its {@link #state} moves once, from {@link #QUEUED} to either {@link #STARTED} (the send began) or
 * {@link #NOT_SENT} (it was given up before the send began: handed back uncharged), whichever thread gets there first.
 * A delivery in an atomic batch ({@link #lane} set) moves once more, from {@link #STARTED} to {@link #ANSWERED} (its
 * batch's outcome arrived), {@link #NOT_SENT} (the batch was aborted or refused: nothing of it landed) or
 * {@link #IN_DOUBT} (its batch's outcome is unknown, or it was not known by the deadline).
 */
final class Delivery {
  /** Dispatched to the executor, send not begun. */
  static final int QUEUED = 0;
  /** The send began: a copy may land until the transport's answer bound after {@link #sendStartedAt}. */
  static final int STARTED = 1;
  /** Never sent: its send cutoff or its deadline came while it waited for the executor. */
  static final int NOT_SENT = 2;
  /** In an atomic batch whose outcome is unknown: nothing is recorded, the claim is left to its lease. */
  static final int IN_DOUBT = 3;
  /** In an atomic batch whose outcome arrived in time. */
  static final int ANSWERED = 4;

  final Claim claim;
  /** The atomic batches it is sent in, or {@code null} when it is sent on its own. */
  final @Nullable AtomicBatches lane;
  final CompletableFuture<DeliveryOutcome> outcome = new CompletableFuture<>();
  /** When it was dispatched, on {@link System#nanoTime()}: deadlines and delivery times. */
  final long sentAt;
  /** When the relay stops waiting for an answer, on {@link System#nanoTime()}. */
  final long deadline;
  /** {@link #QUEUED}, {@link #STARTED}, {@link #NOT_SENT}, {@link #IN_DOUBT} or {@link #ANSWERED}. */
  final AtomicInteger state = new AtomicInteger(QUEUED);
  /**
   * When the send began, on the relay's clock: the earliest next attempt is this plus the transport's answer bound. Set
   * before {@link #state} becomes {@link #STARTED}; {@code null} while queued and for a delivery never sent.
   */
  volatile @Nullable Instant sendStartedAt;
  volatile long answeredAt;
  /**
   * When the answer arrived, on the relay's clock: what a confirmation counts from in the outage judgement, however
   * long the pass then takes to record it; {@code null} until then.
   */
  volatile @Nullable Instant answeredOn;

  Delivery(Claim claim, long sentAt, long deadline, @Nullable AtomicBatches lane) {
    this.claim = claim;
    this.lane = lane;
    this.sentAt = sentAt;
    this.deadline = deadline;
  }

  /** @return {@code true} when the relay gave up on it before its send began: nothing was sent */
  boolean notSent() {
    return state.get() == NOT_SENT;
  }

  /** @return {@code true} when its atomic batch's outcome is unknown: nothing may be recorded for it */
  boolean inDoubt() {
    return state.get() == IN_DOUBT;
  }
}
