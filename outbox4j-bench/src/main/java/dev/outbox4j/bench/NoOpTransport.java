package dev.outbox4j.bench;

import dev.outbox4j.Message;
import dev.outbox4j.spi.DeliveryOutcome;
import dev.outbox4j.spi.Transport;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A transport that confirms every message at once and counts it: the relay is measured doing its own work only
 * (claim, hand-off, batched completion), as the ceiling does none of a broker's.
 */
final class NoOpTransport implements Transport {
  private static final CompletableFuture<DeliveryOutcome> DELIVERED =
      CompletableFuture.completedFuture(DeliveryOutcome.delivered());

  private final DeliveryCounter counter;

  NoOpTransport(DeliveryCounter counter) {
    this.counter = counter;
  }

  @Override
  public CompletionStage<DeliveryOutcome> deliver(Message message) {
    counter.increment();
    return DELIVERED;
  }
}
