package dev.outbox4j.memory;

import dev.outbox4j.OutboxException;
import dev.outbox4j.inbox.Inbox;
import dev.outbox4j.inbox.Receipt;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A process-local reference {@link Inbox} whose transactions are {@link InMemoryInboxTransaction}s.
 *
 * <p>It behaves like the database inboxes, including under concurrency: an id received in an open transaction is held
 * by it; another transaction receiving the same id waits until the holder ends (commit: the waiter sees a duplicate;
 * rollback: the waiter is first), or fails with an {@link OutboxException} after the lock timeout. Answering
 * "duplicate" at once instead would be wrong: if the holder then rolled back, the waiter would have skipped a message
 * that nobody applied.
 *
 * <p>Thread-safe: every operation runs under one lock.
 */
public final class InMemoryInbox implements Inbox<InMemoryInboxTransaction> {

  /** A record's key. */
  record Key(String consumerName, UUID messageId) {}

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition ended = lock.newCondition();
  private final Clock clock;
  private final Duration lockTimeout;
  /** Committed records and when they were received, oldest first. Guarded by {@link #lock}. */
  private final Map<Key, Instant> records = new LinkedHashMap<>();
  /** Ids received by transactions still open. Guarded by {@link #lock}. */
  private final Map<Key, InMemoryInboxTransaction> held = new LinkedHashMap<>();

  private InMemoryInbox(Builder builder) {
    this.clock = builder.clock;
    this.lockTimeout = builder.lockTimeout;
  }

  /** @return a builder with the defaults: system UTC clock, 10 seconds lock timeout */
  public static Builder builder() {
    return new Builder();
  }

  /** @return an inbox with the defaults */
  public static InMemoryInbox create() {
    return builder().build();
  }

  /** @return a new consumer transaction on this inbox */
  public InMemoryInboxTransaction begin() {
    return new InMemoryInboxTransaction(this);
  }

  /**
   * @param consumerName the consumer
   * @param messageId the message id
   * @return {@code true} when a committed record exists
   */
  public boolean contains(String consumerName, UUID messageId) {
    lock.lock();
    try {
      return records.containsKey(new Key(consumerName, messageId));
    } finally {
      lock.unlock();
    }
  }

  /**
   * {@inheritDoc}
   *
   * @throws OutboxException also when another transaction holds the id for longer than the lock timeout, or the
   *     transaction belongs to another inbox or has ended
   */
  @Override
  public Receipt receive(InMemoryInboxTransaction transaction, String consumerName, UUID messageId) {
    Objects.requireNonNull(transaction, "transaction");
    Inbox.checkConsumerName(consumerName);
    Objects.requireNonNull(messageId, "messageId");
    if (transaction.inbox() != this) {
      throw new IllegalArgumentException("the transaction belongs to another in-memory inbox");
    }
    transaction.requireOpen();
    Key key = new Key(consumerName, messageId);
    long remaining = lockTimeout.toNanos();
    lock.lock();
    try {
      while (true) {
        if (records.containsKey(key)) {
          return Receipt.DUPLICATE;
        }
        InMemoryInboxTransaction holder = held.get(key);
        if (holder == transaction) {
          return Receipt.DUPLICATE;
        }
        if (holder == null) {
          held.put(key, transaction);
          transaction.received().put(key, clock.instant());
          return Receipt.FIRST;
        }
        if (remaining <= 0) {
          throw new OutboxException("timed out after " + lockTimeout + " waiting for another transaction that holds"
              + " message " + messageId + " for consumer '" + consumerName + "'");
        }
        remaining = ended.awaitNanos(remaining);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new OutboxException("interrupted while waiting for another transaction that holds message " + messageId,
          e);
    } finally {
      lock.unlock();
    }
  }

  void end(InMemoryInboxTransaction transaction, boolean commit) {
    lock.lock();
    try {
      for (Map.Entry<Key, Instant> entry : transaction.received().entrySet()) {
        held.remove(entry.getKey());
        if (commit) {
          records.put(entry.getKey(), entry.getValue());
        }
      }
      transaction.received().clear();
      ended.signalAll();
    } finally {
      lock.unlock();
    }
  }

  @Override
  public int purge(Instant olderThan, int limit) {
    Objects.requireNonNull(olderThan, "olderThan");
    Inbox.checkPurgeLimit(limit);
    lock.lock();
    try {
      int purged = 0;
      Iterator<Instant> receivedAt = records.values().iterator();
      while (purged < limit && receivedAt.hasNext()) {
        if (receivedAt.next().isBefore(olderThan)) {
          receivedAt.remove();
          purged++;
        }
      }
      return purged;
    } finally {
      lock.unlock();
    }
  }

  /** Configures an {@link InMemoryInbox}. Not thread-safe; {@link #build()} copies into an immutable inbox. */
  public static final class Builder {
    private Clock clock = Clock.system(ZoneOffset.UTC);
    private Duration lockTimeout = Duration.ofSeconds(10);

    private Builder() {}

    /**
     * @param clock the source of receive times; default the system UTC clock
     * @return this builder
     */
    public Builder withClock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * @param lockTimeout how long a receive waits for another transaction holding the same id; default 10 seconds
     * @return this builder
     * @throws IllegalArgumentException if not positive
     */
    public Builder withLockTimeout(Duration lockTimeout) {
      Objects.requireNonNull(lockTimeout, "lockTimeout");
      if (lockTimeout.isNegative() || lockTimeout.isZero()) {
        throw new IllegalArgumentException("lockTimeout must be positive, was " + lockTimeout);
      }
      this.lockTimeout = lockTimeout;
      return this;
    }

    /** @return the inbox */
    public InMemoryInbox build() {
      return new InMemoryInbox(this);
    }
  }
}
