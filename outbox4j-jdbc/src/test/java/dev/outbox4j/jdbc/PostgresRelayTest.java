package dev.outbox4j.jdbc;

import dev.outbox4j.spi.OutboxStore;
import dev.outbox4j.spi.Retention;
import dev.outbox4j.testkit.RelayContract;
import java.time.Clock;

/** The relay contract over the Postgres store. */
class PostgresRelayTest extends RelayContract {
  @Override
  protected OutboxStore newStore(Clock clock) {
    return TestDatabase.POSTGRES.emptyStore("pgrelay_", clock, Retention.deleteOnDelivery());
  }

  @Override
  protected OutboxStore secondStore(Clock clock) {
    return TestDatabase.POSTGRES.secondStore("pgrelay_", clock, Retention.deleteOnDelivery());
  }
}
