package dev.outbox4j.memory;

import dev.outbox4j.spi.OutboxStore;
import dev.outbox4j.spi.Retention;
import dev.outbox4j.testkit.OutboxStoreContract;
import java.time.Clock;

class InMemoryOutboxStoreTest extends OutboxStoreContract {
  @Override
  protected OutboxStore newStore(Clock clock, Retention retention) {
    return InMemoryOutboxStore.builder().withClock(clock).withRetention(retention).build();
  }
}
