package dev.outbox4j.jdbc;

import dev.outbox4j.spi.OutboxStore;
import dev.outbox4j.spi.Retention;
import dev.outbox4j.testkit.RelayContract;
import java.time.Clock;

/** The relay contract over the PostgreSQL store with {@link ClaimStrategy#LEASED_ROWS} (not its default there). */
class PostgresLeasedRowsRelayTest extends RelayContract {
  @Override
  protected OutboxStore newStore(Clock clock) {
    return TestDatabase.POSTGRES.emptyStore("pgrowsrelay_", clock, Retention.deleteOnDelivery(),
        ClaimStrategy.LEASED_ROWS);
  }

  @Override
  protected OutboxStore secondStore(Clock clock) {
    return TestDatabase.POSTGRES.secondStore("pgrowsrelay_", clock, Retention.deleteOnDelivery(),
        ClaimStrategy.LEASED_ROWS);
  }
}
