package dev.outbox4j.internal;

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
 */
final class Delivery {
  /** Dispatched to the executor, send not begun. */
  static final int QUEUED = 0;
  /** The send began: a copy may land until the transport's answer bound after {@link #sendStartedAt}. */
  static final int STARTED = 1;
  /** Never sent: its send cutoff or its deadline came while it waited for the executor. */
  static final int NOT_SENT = 2;

  final Claim claim;
  final CompletableFuture<DeliveryOutcome> outcome = new CompletableFuture<>();
  /** When it was dispatched, on {@link System#nanoTime()}: deadlines and delivery times. */
  final long sentAt;
  /** When the relay stops waiting for an answer, on {@link System#nanoTime()}. */
  final long deadline;
  /** {@link #QUEUED}, {@link #STARTED} or {@link #NOT_SENT}. */
  final AtomicInteger state = new AtomicInteger(QUEUED);
  /**
   * When the send began, on the relay's clock: the earliest next attempt is this plus the transport's answer bound. Set
   * before {@link #state} becomes {@link #STARTED}; {@code null} while queued and for a delivery never sent.
   */
  volatile @Nullable Instant sendStartedAt;
  volatile long answeredAt;

  Delivery(Claim claim, long sentAt, long deadline) {
    this.claim = claim;
    this.sentAt = sentAt;
    this.deadline = deadline;
  }

  /** @return {@code true} when the relay gave up on it before its send began: nothing was sent */
  boolean notSent() {
    return state.get() == NOT_SENT;
  }
}
