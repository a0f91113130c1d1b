package dev.outbox4j.internal;

import dev.outbox4j.EntryStatus;
import dev.outbox4j.EntryTransitionException;
import dev.outbox4j.OutboxEntry;
import dev.outbox4j.QuarantineKind;
import java.util.EnumSet;
import java.util.Set;

/**
 * The entry face's transition rules, in one place so every store refuses exactly the same transitions (the contract
 * suite proves they do). Not API.
 *
 * <p>Why these rules: an entry-face call names an entry as the caller read it and says what happened to it; it must
 * never move an entry out of a state that only an operator may end (parked, quarantined) or out of delivered, because
 * either would silently send, or send again, a message somebody decided to hold. {@code requeue} and {@code discard}
 * are the only ways out of the operator states.
 */
public final class EntryTransitions {
  private static final Set<EntryStatus> DELIVERABLE = EnumSet.of(EntryStatus.PENDING, EntryStatus.FAILED);
  private static final Set<EntryStatus> NOT_FINISHED =
      EnumSet.of(EntryStatus.PENDING, EntryStatus.FAILED, EntryStatus.PARKED);

  private EntryTransitions() {}

  /**
   * @param stored the entry as stored
   * @throws EntryTransitionException unless it is pending or failed
   */
  public static void checkMarkDelivered(OutboxEntry stored) {
    check(stored, DELIVERABLE, "markDelivered");
  }

  /**
   * @param stored the entry as stored
   * @throws EntryTransitionException unless it is pending or failed
   */
  public static void checkMarkFailed(OutboxEntry stored) {
    check(stored, DELIVERABLE, "markFailed");
  }

  /**
   * @param stored the entry as stored
   * @throws EntryTransitionException unless it is pending, failed or parked
   */
  public static void checkMarkDeadLettered(OutboxEntry stored) {
    check(stored, NOT_FINISHED, "markDeadLettered");
  }

  /**
   * @param stored the entry as stored
   * @param saved the state a caller saves over it
   * @throws EntryTransitionException if a delivered entry would become anything but delivered, a quarantined entry
   *     anything but quarantined, or a parked entry anything but parked or quarantined (as {@code markDeadLettered}
   *     may): only {@code requeue} and {@code discard} leave the operator states
   */
  public static void checkSave(OutboxEntry stored, OutboxEntry saved) {
    Set<EntryStatus> allowed = switch (stored.status()) {
      case DELIVERED -> EnumSet.of(EntryStatus.DELIVERED);
      case QUARANTINED -> EnumSet.of(EntryStatus.QUARANTINED);
      case PARKED -> EnumSet.of(EntryStatus.PARKED, EntryStatus.QUARANTINED);
      default -> EnumSet.allOf(EntryStatus.class);
    };
    if (!allowed.contains(saved.status())) {
      throw new EntryTransitionException(stored.id(), stored.status(), "save as " + saved.status());
    }
  }

  /**
   * The quarantine reason and kind a saved entry is stored with: both cleared unless it is quarantined; a quarantined
   * entry saved without a kind gets {@link QuarantineKind#OPERATOR}.
   *
   * @param saved the state a caller saves
   * @return the state to store
   */
  public static OutboxEntry normalizeSaved(OutboxEntry saved) {
    if (saved.status() != EntryStatus.QUARANTINED) {
      return saved.quarantineKind() == null && saved.quarantineReason() == null ? saved : saved.withQuarantine(null);
    }
    if (saved.quarantineKind() != null) {
      return saved;
    }
    String text = saved.quarantineReason();
    if (text == null || text.isBlank()) {
      text = saved.lastError() != null && !saved.lastError().isBlank() ? saved.lastError() : "set by an operator";
    }
    return saved.withQuarantine(new dev.outbox4j.QuarantineReason(QuarantineKind.OPERATOR, text));
  }

  /**
   * @param max a find method's {@code max}
   * @throws IllegalArgumentException if it is negative
   */
  public static void checkMax(int max) {
    if (max < 0) {
      throw new IllegalArgumentException("max must not be negative, was " + max);
    }
  }

  private static void check(OutboxEntry stored, Set<EntryStatus> allowed, String operation) {
    if (!allowed.contains(stored.status())) {
      throw new EntryTransitionException(stored.id(), stored.status(), operation);
    }
  }
}
