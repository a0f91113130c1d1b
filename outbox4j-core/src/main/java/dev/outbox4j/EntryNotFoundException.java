package dev.outbox4j;

import java.util.UUID;

/**
 * An entry-face mutation named an entry that the store does not hold (never written, deleted on delivery, purged or
 * discarded).
 */
public final class EntryNotFoundException extends OutboxException {
  private static final long serialVersionUID = 1L;

  private final UUID entryId;

  /** @param entryId the id that was not found */
  public EntryNotFoundException(UUID entryId) {
    super("no outbox entry with id " + entryId);
    this.entryId = entryId;
  }

  /** @return the id that was not found */
  public UUID entryId() {
    return entryId;
  }
}
