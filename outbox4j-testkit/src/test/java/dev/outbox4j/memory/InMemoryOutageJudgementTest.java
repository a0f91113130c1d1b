package dev.outbox4j.memory;

import dev.outbox4j.spi.OutboxStore;
import dev.outbox4j.testkit.OutageJudgementContract;
import java.time.Clock;

class InMemoryOutageJudgementTest extends OutageJudgementContract {
  @Override
  protected OutboxStore newStore(Clock clock) {
    return InMemoryOutboxStore.builder().withClock(clock).build();
  }
}
