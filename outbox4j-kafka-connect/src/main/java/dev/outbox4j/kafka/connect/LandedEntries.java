package dev.outbox4j.kafka.connect;

import dev.outbox4j.EntryNotFoundException;
import dev.outbox4j.EntryStatus;
import dev.outbox4j.EntryTransitionException;
import dev.outbox4j.OptimisticConflictException;
import dev.outbox4j.OutboxEntry;
import dev.outbox4j.spi.OutboxStore;
import java.util.Optional;
import java.util.UUID;

/**
 * Retires entries known to have landed in Kafka (listed in a committed source offset) whose claim is gone: the task
 * crashed between Kafka's commit and the outbox's, or its lease was taken over before it recorded the delivery.
 *
 * <p>It uses the store's entry face (a version-checked {@code markDelivered}, which also cancels any claim on the
 * entry). That is safe because whoever holds a claim on such an entry got it in doubt and reads the same committed
 * offset before sending (see {@link SourceOffsets}): it finds the entry listed and retires it instead of sending it.
 * An entry an operator quarantined or parked meanwhile is left to the operator.
 *
 * <p>Thread-safe when the store is.
 */
final class LandedEntries {
  private static final int ATTEMPTS_ON_CONFLICT = 5;
  static final String RESULT = "kafka-connect: landed (committed source offset)";

  private final OutboxStore store;

  LandedEntries(OutboxStore store) {
    this.store = store;
  }

  /** What {@link #retire} did. */
  enum Outcome {
    /** The entry was waiting and is retired now. */
    RETIRED,
    /** The entry needs nothing more: gone, delivered, or waiting for an operator. */
    NOTHING_TO_DO,
    /** The entry kept changing under the call (claims, takeovers); try again later. */
    TRY_AGAIN
  }

  /**
   * @param id an entry that landed
   * @return what was done
   * @throws dev.outbox4j.OutboxException when the store fails; the caller retries later
   */
  Outcome retire(UUID id) {
    for (int attempt = 0; attempt < ATTEMPTS_ON_CONFLICT; attempt++) {
      Optional<OutboxEntry> found = store.find(id);
      if (found.isEmpty() || !waiting(found.get().status())) {
        return Outcome.NOTHING_TO_DO;
      }
      try {
        store.markDelivered(found.get(), RESULT);
        return Outcome.RETIRED;
      } catch (EntryNotFoundException e) {
        return Outcome.NOTHING_TO_DO;
      } catch (OptimisticConflictException | EntryTransitionException e) {
        // changed under us (a claim, a takeover, an operator): read it again
      }
    }
    return Outcome.TRY_AGAIN;
  }

  private static boolean waiting(EntryStatus status) {
    return status == EntryStatus.PENDING || status == EntryStatus.FAILED;
  }
}
