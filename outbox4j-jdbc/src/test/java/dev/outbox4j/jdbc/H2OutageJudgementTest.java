package dev.outbox4j.jdbc;

import dev.outbox4j.spi.OutboxStore;
import dev.outbox4j.spi.Retention;
import dev.outbox4j.testkit.OutageJudgementContract;
import java.time.Clock;

/** The relay's judgement of an outage over the H2 store. */
class H2OutageJudgementTest extends OutageJudgementContract {
  @Override
  protected OutboxStore newStore(Clock clock) {
    return TestDatabase.H2.emptyStore("h2outage_", clock, Retention.deleteOnDelivery());
  }
}
