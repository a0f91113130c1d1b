package dev.outbox4j.chaos;

import dev.outbox4j.Message;
import dev.outbox4j.spi.DeliveryOutcome;
import dev.outbox4j.spi.Transport;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A destination that refuses everything, as a webhook endpoint answering 503 does, beside the healthy ones: while the
 * suite's flag file exists, every message to that destination is answered retryable at once, without reaching the
 * consumer; once the suite deletes the file (the destination "recovers"), its messages go through the wrapped
 * transport like every other. Messages to other destinations always go through. Each refusal prints
 * {@code REFUSED <destination> <id>} for the suite to count. Thread-safe.
 */
final class RefusingDestinationTransport implements Transport {
  private final Transport delegate;
  private final String destination;
  private final Path flag;

  RefusingDestinationTransport(Transport delegate, String destination, Path flag) {
    this.delegate = delegate;
    this.destination = destination;
    this.flag = flag;
  }

  @Override
  public CompletionStage<DeliveryOutcome> deliver(Message message) {
    if (message.destination().equals(destination) && Files.exists(flag)) {
      System.out.println("REFUSED " + destination + " " + message.id());
      return CompletableFuture.completedFuture(
          DeliveryOutcome.retryable("HTTP 503 from destination '" + destination + "' (chaos: refusing everything)"));
    }
    return delegate.deliver(message);
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
