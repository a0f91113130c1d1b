package dev.outbox4j.spi;

import dev.outbox4j.Message;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.Nullable;

/**
 * Takes a message to its destination: a Kafka topic, a RabbitMQ exchange, a NATS subject, an HTTP endpoint, or an
 * in-process handler.
 *
 * <p>Contract for implementers:
 * <ul>
 *   <li>Complete the stage with {@link DeliveryOutcome#delivered()} only after the broker confirmed the message
 *       (acks, publisher confirm, publish ack, 2xx). The relay marks the entry delivered on that word alone; an early
 *       "delivered" turns a failed publish into a lost message.
 *   <li>Send the payload bytes verbatim, and the message id and every header (a W3C {@code traceparent} among them)
 *       as broker headers.
 *   <li>Classify failures: {@link DeliveryOutcome#retryable} for anything that may pass later (timeouts, broker
 *       unavailable, throttling), {@link DeliveryOutcome#permanent} for what never will (unknown destination, payload
 *       refused). A stage completed exceptionally, or an exception thrown by {@link #deliver}, counts as retryable.
 *   <li>Return quickly: {@link #deliver} should start the send and return; the relay sends a whole batch before it
 *       waits, so a transport whose broker confirms asynchronously delivers a batch in about one round trip. Bound
 *       every wait by a timeout below the relay's lease.
 *   <li>Never log payloads or secrets.
 * </ul>
 *
 * <p>Implementations must be thread-safe: the relay calls {@link #deliver} for many messages at once (never for two
 * messages of one ordering key at once).
 */
public interface Transport extends AutoCloseable {

  /**
   * Starts delivering one message.
   *
   * @param message the message, never {@code null}
   * @return a stage completed with the outcome once the broker answered
   */
  CompletionStage<DeliveryOutcome> deliver(Message message);

  /**
   * Starts delivering one message as a CloudEvent: the relay calls this instead of {@link #deliver(Message)} for a
   * destination configured with {@link dev.outbox4j.RelayBuilder#withCloudEvents}. A transport writes the event in its
   * protocol binding (binary or structured, as {@link CloudEvent#mode()} says) and otherwise behaves as
   * {@link #deliver(Message)}; headers named by {@link CloudEvent#isOverrideHeader} are not sent under their own names.
   *
   * <p>The default completes with a permanent failure saying that this transport does not write CloudEvents, so a
   * misconfigured destination is quarantined with that reason rather than delivered without its attributes.
   *
   * @param message the message, never {@code null}
   * @param event its CloudEvents attributes, never {@code null}
   * @return a stage completed with the outcome once the broker answered
   */
  default CompletionStage<DeliveryOutcome> deliver(Message message, CloudEvent event) {
    return CompletableFuture.completedFuture(DeliveryOutcome.permanent(getClass().getName()
        + " does not write CloudEvents (destination '" + message.destination() + "')"));
  }

  /**
   * The longest a delivery can take, from the call to {@link #deliver} until the message has certainly either landed
   * at the broker or failed for good: after this, no copy of that send can arrive any more. A transport configures its
   * client so that this holds (Kafka: {@code max.block.ms + delivery.timeout.ms}; the others their equivalents,
   * blocked connections included).
   *
   * <p>The relay relies on it so that a late copy never overtakes the next message of its key: its delivery deadline
   * and its lease must be at least this long (the relay's builder refuses shorter ones), and an entry whose delivery
   * timed out is not claimed again before this has passed since its send began.
   *
   * <p>The default, {@link Duration#ZERO}, fits transports whose stage completes only once the outcome is final and
   * that send nothing afterwards (in-process callbacks); every broker transport overrides it.
   *
   * @return the bound, zero or positive
   */
  default Duration maxAnswerTime() {
    return Duration.ZERO;
  }

  /**
   * The side of this transport that delivers a batch of this destination atomically and in order, when it has one (a
   * transactional Kafka transport): the relay then claims runs of a key and sends them, with the rest of the batch's
   * messages for the same {@link AtomicBatches}, in one {@link AtomicBatches#deliverAll} call. A transport that routes
   * destinations to other transports answers for the one it routes to.
   *
   * <p>The default, {@code null}, means one message at a time through {@link #deliver}, with one entry of a key in
   * flight.
   *
   * @param destination a destination
   * @return its atomic batches, or {@code null}
   */
  default @Nullable AtomicBatches atomicBatches(String destination) {
    return null;
  }

  /** Releases the broker connection. The default does nothing. Must not throw checked exceptions. */
  @Override
  default void close() {}
}
