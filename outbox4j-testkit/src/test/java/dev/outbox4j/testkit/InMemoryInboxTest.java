package dev.outbox4j.testkit;

import dev.outbox4j.inbox.Inbox;
import dev.outbox4j.memory.InMemoryInbox;
import dev.outbox4j.memory.InMemoryInboxTransaction;
import java.time.Clock;

class InMemoryInboxTest extends InboxContract<InMemoryInboxTransaction> {
  private InMemoryInbox inbox = InMemoryInbox.create();

  @Override
  protected Inbox<InMemoryInboxTransaction> newInbox(Clock clock) {
    inbox = InMemoryInbox.builder().withClock(clock).build();
    return inbox;
  }

  @Override
  protected InMemoryInboxTransaction begin() {
    return inbox.begin();
  }

  @Override
  protected void commit(InMemoryInboxTransaction transaction) {
    transaction.commit();
  }

  @Override
  protected void rollback(InMemoryInboxTransaction transaction) {
    transaction.rollback();
  }
}
