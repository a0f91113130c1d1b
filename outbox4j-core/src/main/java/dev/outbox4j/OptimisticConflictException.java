package dev.outbox4j;

import java.util.UUID;

/**
 * A non-claim mutation of an entry (through the entry face of {@link dev.outbox4j.spi.OutboxStore}) found the entry
 * changed by another writer since the caller read it: its version is no longer the one the caller holds.
 *
 * <p>Nothing was changed and nothing is retried behind the caller's back. Reload the entry with {@code find} and
 * decide again.
 */
public final class OptimisticConflictException extends OutboxException {
  private static final long serialVersionUID = 1L;

  private final UUID entryId;
  private final long expectedVersion;

  /**
   * @param entryId the entry that changed
   * @param expectedVersion the version the caller held
   */
  public OptimisticConflictException(UUID entryId, long expectedVersion) {
    super("outbox entry " + entryId + " changed since it was read (expected version " + expectedVersion + ")");
    this.entryId = entryId;
    this.expectedVersion = expectedVersion;
  }

  /** @return the entry that changed */
  public UUID entryId() {
    return entryId;
  }

  /** @return the version the caller held when it tried the mutation */
  public long expectedVersion() {
    return expectedVersion;
  }
}
