package dev.outbox4j.jdbc;

import dev.outbox4j.spi.OutboxStore;
import dev.outbox4j.spi.Retention;
import dev.outbox4j.testkit.RelayContract;
import java.time.Clock;

/** The relay contract over the MariaDb store. */
class MariaDbRelayTest extends RelayContract {
  @Override
  protected OutboxStore newStore(Clock clock) {
    return TestDatabase.MARIADB.emptyStore("myrelay_", clock, Retention.deleteOnDelivery());
  }

  @Override
  protected OutboxStore secondStore(Clock clock) {
    return TestDatabase.MARIADB.secondStore("myrelay_", clock, Retention.deleteOnDelivery());
  }
}
