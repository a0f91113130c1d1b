package dev.outbox4j.memory;

import dev.outbox4j.Message;
import dev.outbox4j.OutboxException;
import java.util.ArrayList;
import java.util.List;

/**
 * A unit of work for {@link InMemoryOutbox}: messages written in it become visible to relays together, at
 * {@link #commit()}, and vanish at {@link #rollback()}. Stands in for the caller's database transaction in tests and
 * demos. Not thread-safe: one transaction belongs to one thread, like a JDBC connection.
 */
public final class InMemoryTransaction implements AutoCloseable {
  private final InMemoryOutboxStore store;
  private final List<Message> written = new ArrayList<>();
  private boolean open = true;

  InMemoryTransaction(InMemoryOutboxStore store) {
    this.store = store;
  }

  void add(Message message) {
    requireOpen();
    written.add(message);
  }

  boolean holds(java.util.UUID id) {
    for (Message message : written) {
      if (message.id().equals(id)) {
        return true;
      }
    }
    return false;
  }

  InMemoryOutboxStore store() {
    return store;
  }

  /**
   * Makes every message written in this transaction visible, atomically and after every earlier commit.
   *
   * @throws dev.outbox4j.DuplicateMessageException if another transaction committed one of the ids first; nothing
   *     was applied
   * @throws OutboxException if the transaction is no longer open
   */
  public void commit() {
    requireOpen();
    open = false;
    store.commit(written);
  }

  /** Forgets every message written in this transaction. Does nothing when already ended. */
  public void rollback() {
    open = false;
    written.clear();
  }

  /** @return {@code true} until commit or rollback */
  public boolean isOpen() {
    return open;
  }

  /** Rolls back unless committed. */
  @Override
  public void close() {
    if (open) {
      rollback();
    }
  }

  private void requireOpen() {
    if (!open) {
      throw new OutboxException("the in-memory transaction has already ended");
    }
  }
}
