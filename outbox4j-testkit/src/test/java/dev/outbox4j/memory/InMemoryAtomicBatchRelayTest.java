package dev.outbox4j.memory;

import dev.outbox4j.spi.OutboxStore;
import dev.outbox4j.testkit.AtomicBatchRelayContract;
import java.time.Clock;

class InMemoryAtomicBatchRelayTest extends AtomicBatchRelayContract {
  @Override
  protected OutboxStore newStore(Clock clock) {
    return InMemoryOutboxStore.builder().withClock(clock).build();
  }
}
