package dev.outbox4j.chaos;

import dev.outbox4j.Message;
import dev.outbox4j.spi.AtomicBatches;
import dev.outbox4j.spi.BatchOutcome;
import dev.outbox4j.spi.DeliveryOutcome;
import dev.outbox4j.spi.Outgoing;
import dev.outbox4j.spi.Transport;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.Nullable;

/**
 * A relay process's transport, wrapped so that something happens to the process at the one moment of a delivery where
 * a fault matters: the broker has confirmed it and the relay has not recorded it yet. The hook runs before the outcome
 * reaches the relay, after a {@link DeliveryOutcome.Delivered} of a single message and after a
 * {@link BatchOutcome.Committed} of an atomic batch (the transport's {@link #atomicBatches} lane is wrapped too, so a
 * transactional transport stays transactional behind this decorator). Everything else passes through unchanged.
 * Thread-safe if the hook is.
 */
abstract class AfterConfirmationTransport implements Transport {
  private final Transport delegate;

  AfterConfirmationTransport(Transport delegate) {
    this.delegate = delegate;
  }

  /**
   * Runs on the thread that completes the confirmation, before the relay learns of it; it may stop or end the process.
   *
   * @param what the confirmed delivery, described for the relay's log (ids only, never payloads)
   * @param atomicBatch whether it is the commit of a whole atomic batch, rather than one message's confirmation
   */
  abstract void confirmed(String what, boolean atomicBatch);

  @Override
  public CompletionStage<DeliveryOutcome> deliver(Message message) {
    return delegate.deliver(message).thenApply(outcome -> {
      if (outcome instanceof DeliveryOutcome.Delivered) {
        confirmed("the confirmation of " + message.id(), false);
      }
      return outcome;
    });
  }

  @Override
  public @Nullable AtomicBatches atomicBatches(String destination) {
    AtomicBatches lane = delegate.atomicBatches(destination);
    if (lane == null) {
      return null;
    }
    return new AtomicBatches() {
      @Override
      public CompletionStage<BatchOutcome> deliverAll(List<Outgoing> batch, Instant claimedAt) {
        return lane.deliverAll(batch, claimedAt).thenApply(outcome -> {
          if (outcome instanceof BatchOutcome.Committed) {
            confirmed("the commit of a batch of " + batch.size() + " to " + destination, true);
          }
          return outcome;
        });
      }

      @Override
      public CompletionStage<Set<UUID>> deliveredEarlier(Collection<Message> messages, Instant since) {
        return lane.deliveredEarlier(messages, since);
      }
    };
  }

  @Override
  public Duration maxAnswerTime() {
    return delegate.maxAnswerTime();
  }

  @Override
  public void close() {
    delegate.close();
  }
}
