package dev.outbox4j.jdbc;

import dev.outbox4j.spi.OutboxStore;
import dev.outbox4j.spi.Retention;
import dev.outbox4j.testkit.OutageJudgementContract;
import java.time.Clock;

/** The relay's judgement of an outage over the Postgres store. */
class PostgresOutageJudgementTest extends OutageJudgementContract {
  @Override
  protected OutboxStore newStore(Clock clock) {
    return TestDatabase.POSTGRES.emptyStore("pgoutage_", clock, Retention.deleteOnDelivery());
  }
}
