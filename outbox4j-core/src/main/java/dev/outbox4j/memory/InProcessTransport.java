package dev.outbox4j.memory;

import dev.outbox4j.Message;
import dev.outbox4j.spi.DeliveryOutcome;
import dev.outbox4j.spi.Transport;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * A transport that hands each message to a callback in this JVM, for tests and single-process applications. The
 * callback runs on the thread that delivers (the relay's, or its executor's); the delivery is confirmed when the
 * callback returns.
 *
 * <p>Thread-safe if the callback is.
 */
public final class InProcessTransport implements Transport {
  private final Function<Message, DeliveryOutcome> handler;

  private InProcessTransport(Function<Message, DeliveryOutcome> handler) {
    this.handler = Objects.requireNonNull(handler, "handler");
  }

  /**
   * @param handler decides each message's outcome; an exception it throws counts as a retryable failure
   * @return the transport
   */
  public static InProcessTransport of(Function<Message, DeliveryOutcome> handler) {
    return new InProcessTransport(handler);
  }

  /**
   * @param consumer receives each message; returning confirms it, throwing makes it a retryable failure
   * @return the transport
   */
  public static InProcessTransport consuming(Consumer<Message> consumer) {
    Objects.requireNonNull(consumer, "consumer");
    return new InProcessTransport(message -> {
      consumer.accept(message);
      return DeliveryOutcome.delivered();
    });
  }

  @Override
  public CompletionStage<DeliveryOutcome> deliver(Message message) {
    try {
      return CompletableFuture.completedFuture(handler.apply(message));
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }
}
