package dev.outbox4j.chaos;

import dev.outbox4j.Message;
import dev.outbox4j.spi.DeliveryOutcome;
import dev.outbox4j.spi.Transport;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletionStage;

/**
 * The relay process's transport, wrapped so that the suite can freeze the process at the one moment a freeze matters:
 * right after the broker confirmed a delivery and before the relay recorded it. When the flag file exists, the first
 * delivery confirmed after that deletes it and stops its own process with {@code kill -STOP} (every thread stops;
 * the orchestrator resumes it with SIGCONT). A freeze at a random instant usually finds a relay that keeps up idle
 * between passes, holding nothing, and proves nothing. Thread-safe.
 */
final class SelfFreezingTransport implements Transport {
  private final Transport delegate;
  private final Path flag;

  SelfFreezingTransport(Transport delegate, Path flag) {
    this.delegate = delegate;
    this.flag = flag;
  }

  @Override
  public CompletionStage<DeliveryOutcome> deliver(Message message) {
    return delegate.deliver(message).thenApply(outcome -> {
      if (outcome instanceof DeliveryOutcome.Delivered && claimFlag()) {
        System.out.println("FREEZING_SELF after the confirmation of " + message.id());
        System.out.flush();
        ChildProcesses.signal("STOP", ProcessHandle.current().pid());
      }
      return outcome;
    });
  }

  private boolean claimFlag() {
    try {
      return Files.deleteIfExists(flag);
    } catch (IOException e) {
      return false;
    }
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
