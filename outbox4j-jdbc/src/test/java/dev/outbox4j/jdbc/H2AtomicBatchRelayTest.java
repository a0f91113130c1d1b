package dev.outbox4j.jdbc;

import dev.outbox4j.spi.OutboxStore;
import dev.outbox4j.spi.Retention;
import dev.outbox4j.testkit.AtomicBatchRelayContract;
import java.time.Clock;

/** The relay contract for atomic batches (runs of a key, entries in doubt) over this store. */
class H2AtomicBatchRelayTest extends AtomicBatchRelayContract {
  @Override
  protected OutboxStore newStore(Clock clock) {
    return TestDatabase.H2.emptyStore("h2atomic_", clock, Retention.deleteOnDelivery());
  }
}
