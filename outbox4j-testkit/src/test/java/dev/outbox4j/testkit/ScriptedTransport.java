package dev.outbox4j.testkit;

import dev.outbox4j.Message;
import dev.outbox4j.spi.DeliveryOutcome;
import dev.outbox4j.spi.Transport;
import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * The transport of one relay in {@link RelayProtocolPropertyTest}: every delivery is answered by the world, which
 * decides from the chain's script and the destinations' outages what the destination does with it.
 *
 * <p>Thread-safe as far as its function is.
 */
final class ScriptedTransport implements Transport {
  private final Function<Message, CompletionStage<DeliveryOutcome>> answer;
  private final Duration maxAnswerTime;

  /**
   * @param answer answers a delivery: at once, or never (the relay then gives up at its delivery timeout)
   * @param maxAnswerTime the bound by which any copy of a send has landed, as the world keeps it
   */
  ScriptedTransport(Function<Message, CompletionStage<DeliveryOutcome>> answer, Duration maxAnswerTime) {
    this.answer = answer;
    this.maxAnswerTime = maxAnswerTime;
  }

  @Override
  public CompletionStage<DeliveryOutcome> deliver(Message message) {
    return answer.apply(message);
  }

  @Override
  public Duration maxAnswerTime() {
    return maxAnswerTime;
  }
}
