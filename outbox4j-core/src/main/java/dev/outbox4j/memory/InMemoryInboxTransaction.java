package dev.outbox4j.memory;

import dev.outbox4j.OutboxException;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A consumer's unit of work for {@link InMemoryInbox}: ids received in it are recorded at {@link #commit()} and
 * forgotten at {@link #rollback()}. While it is open, its ids are held against other transactions, which wait for it
 * to end, as a database row lock would make them. Stands in for the consumer's database transaction in tests and
 * single-process applications.
 *
 * <p>Not thread-safe: one transaction belongs to one thread, like a JDBC connection. Always end it (commit, rollback
 * or close), or other transactions receiving the same ids wait for the inbox's lock timeout.
 */
public final class InMemoryInboxTransaction implements AutoCloseable {
  private final InMemoryInbox inbox;
  private final Map<InMemoryInbox.Key, Instant> received = new LinkedHashMap<>();
  private boolean open = true;

  InMemoryInboxTransaction(InMemoryInbox inbox) {
    this.inbox = inbox;
  }

  InMemoryInbox inbox() {
    return inbox;
  }

  Map<InMemoryInbox.Key, Instant> received() {
    return received;
  }

  void requireOpen() {
    if (!open) {
      throw new OutboxException("the in-memory inbox transaction has already ended");
    }
  }

  /**
   * Records every id received in this transaction, atomically.
   *
   * @throws OutboxException if the transaction has already ended
   */
  public void commit() {
    requireOpen();
    open = false;
    inbox.end(this, true);
  }

  /** Forgets every id received in this transaction. Does nothing when already ended. */
  public void rollback() {
    if (open) {
      open = false;
      inbox.end(this, false);
    }
  }

  /** @return {@code true} until commit or rollback */
  public boolean isOpen() {
    return open;
  }

  /** Rolls back unless committed. */
  @Override
  public void close() {
    rollback();
  }
}
