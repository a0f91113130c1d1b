package dev.outbox4j.testkit;

import dev.outbox4j.Message;
import java.nio.charset.StandardCharsets;

/** A message's payload as text, for the assertions of {@link AtomicBatchRelayContract}. */
final class AtomicBatchRelayContractTexts {
  private AtomicBatchRelayContractTexts() {}

  static String of(Message message) {
    return new String(message.payload(), StandardCharsets.UTF_8);
  }
}
