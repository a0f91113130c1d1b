package dev.outbox4j.memory;

import dev.outbox4j.spi.OutboxStore;
import dev.outbox4j.testkit.RelayContract;
import java.time.Clock;

class InMemoryRelayTest extends RelayContract {
  @Override
  protected OutboxStore newStore(Clock clock) {
    return InMemoryOutboxStore.builder().withClock(clock).build();
  }
}
