package dev.outbox4j;

import java.util.UUID;

/**
 * An entry-face operation was refused because the entry's current status does not allow it: for example marking a
 * delivered entry failed, or {@code markFailed} on a quarantined entry (which would silently un-quarantine it). The
 * entry is unchanged. The allowed transitions are listed on {@link EntryStatus} and in {@code docs/stores.md}.
 */
public final class EntryTransitionException extends OutboxException {
  private static final long serialVersionUID = 1L;

  private final UUID entryId;
  private final EntryStatus from;
  private final String operation;

  /**
   * @param entryId the entry
   * @param from its current status
   * @param operation the refused operation, for example {@code markFailed}
   */
  public EntryTransitionException(UUID entryId, EntryStatus from, String operation) {
    super(operation + " is not allowed on outbox entry " + entryId + " in status " + from);
    this.entryId = entryId;
    this.from = from;
    this.operation = operation;
  }

  /** @return the entry the operation named */
  public UUID entryId() {
    return entryId;
  }

  /** @return the entry's status, which the operation may not leave */
  public EntryStatus from() {
    return from;
  }

  /** @return the refused operation's name */
  public String operation() {
    return operation;
  }
}
