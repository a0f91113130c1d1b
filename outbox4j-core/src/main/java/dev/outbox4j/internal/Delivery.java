package dev.outbox4j.internal;

import dev.outbox4j.spi.Claim;
import dev.outbox4j.spi.DeliveryOutcome;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;

/**
 * One claimed entry on its way to the transport; its outcome arrives in {@link #outcome}. Not API. The timestamps are
 * set by the relay thread before the send starts; the outcome and {@link #answeredAt} by whichever thread answers.
 */
final class Delivery {
  final Claim claim;
  final CompletableFuture<DeliveryOutcome> outcome = new CompletableFuture<>();
  /** When the send began, on {@link System#nanoTime()}: deadlines and delivery times. */
  final long sentAt;
  /** When the send began, on the relay's clock: the earliest next attempt is this plus the transport's answer bound. */
  final Instant sendStartedAt;
  /** When the relay stops waiting for an answer, on {@link System#nanoTime()}. */
  final long deadline;
  volatile long answeredAt;

  Delivery(Claim claim, long sentAt, Instant sendStartedAt, long deadline) {
    this.claim = claim;
    this.sentAt = sentAt;
    this.sendStartedAt = sendStartedAt;
    this.deadline = deadline;
  }
}
