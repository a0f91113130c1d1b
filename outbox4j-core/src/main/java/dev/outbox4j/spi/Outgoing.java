package dev.outbox4j.spi;

import dev.outbox4j.Message;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One message of a batch handed to {@link AtomicBatches#deliverAll}, with its CloudEvents attributes when its
 * destination sends CloudEvents.
 *
 * @param message the message
 * @param event its CloudEvents attributes, or {@code null} to send it as {@link Transport#deliver(Message)} would
 */
public record Outgoing(Message message, @Nullable CloudEvent event) {
  /** @throws NullPointerException if message is {@code null} */
  public Outgoing {
    Objects.requireNonNull(message, "message");
  }
}
