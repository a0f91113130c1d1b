package dev.outbox4j.jdbc;

import dev.outbox4j.spi.OutboxStore;
import dev.outbox4j.spi.Retention;
import dev.outbox4j.testkit.RelayContract;
import java.time.Clock;

/** The relay contract over the H2 store. */
class H2RelayTest extends RelayContract {
  @Override
  protected OutboxStore newStore(Clock clock) {
    return TestDatabase.H2.emptyStore("h2relay_", clock, Retention.deleteOnDelivery());
  }

  @Override
  protected OutboxStore secondStore(Clock clock) {
    return TestDatabase.H2.secondStore("h2relay_", clock, Retention.deleteOnDelivery());
  }
}
