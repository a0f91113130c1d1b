package dev.outbox4j.memory;

import dev.outbox4j.DuplicateMessageException;
import dev.outbox4j.Message;
import dev.outbox4j.Outbox;
import java.util.List;

/**
 * The write side of an {@link InMemoryOutboxStore}: messages written in an {@link InMemoryTransaction} become entries
 * when it commits. Validates each message at write time, so a refused message leaves the transaction usable.
 *
 * <p>Thread-safe; each transaction belongs to one thread.
 */
public final class InMemoryOutbox implements Outbox<InMemoryTransaction> {
  private final InMemoryOutboxStore store;

  InMemoryOutbox(InMemoryOutboxStore store) {
    this.store = store;
  }

  @Override
  public void write(InMemoryTransaction transaction, Message message) {
    writeAll(transaction, List.of(message));
  }

  @Override
  public void writeAll(InMemoryTransaction transaction, List<Message> messages) {
    if (transaction.store() != store) {
      throw new IllegalArgumentException("the transaction belongs to another in-memory store");
    }
    for (Message message : messages) {
      store.limits().check(message);
      if (store.contains(message.id()) || transaction.holds(message.id())) {
        throw new DuplicateMessageException(message.id(), null);
      }
    }
    for (Message message : messages) {
      transaction.add(message);
    }
  }
}
