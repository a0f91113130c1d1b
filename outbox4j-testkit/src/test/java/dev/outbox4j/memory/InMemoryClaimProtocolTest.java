package dev.outbox4j.memory;

import dev.outbox4j.Message;
import dev.outbox4j.spi.OutboxStore;
import dev.outbox4j.spi.Retention;
import dev.outbox4j.testkit.ClaimProtocolProperty;
import java.time.Clock;
import java.util.List;

/** The claim-protocol property on the in-memory store. */
class InMemoryClaimProtocolTest extends ClaimProtocolProperty {
  @Override
  protected OutboxStore newStore(Clock clock, Retention retention) {
    return InMemoryOutboxStore.builder().withClock(clock).withRetention(retention).build();
  }

  @Override
  protected void writeInTransaction(OutboxStore store, List<Message> messages, boolean commit) {
    InMemoryOutboxStore memory = (InMemoryOutboxStore) store;
    try (InMemoryTransaction transaction = memory.begin()) {
      memory.outbox().writeAll(transaction, messages);
      if (commit) {
        transaction.commit();
      } else {
        transaction.rollback();
      }
    }
  }

  /** The in-memory store is fast: more chains in the same time. */
  @Override
  protected int defaultTries() {
    return 300;
  }
}
