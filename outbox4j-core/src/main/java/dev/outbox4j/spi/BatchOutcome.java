package dev.outbox4j.spi;

import java.util.Objects;
import java.util.UUID;

/**
 * What {@link AtomicBatches#deliverAll} reports for a whole batch. Immutable and thread-safe.
 */
public sealed interface BatchOutcome {

  /** @return every message of the batch landed */
  static BatchOutcome committed() {
    return Committed.INSTANCE;
  }

  /**
   * @param failure what failed, for every message of the batch (a broker outage, a failed commit)
   * @return none landed, for a reason that is no single message's: the relay treats {@code failure} as a failure of the
   *     destination, charged to no entry (a permanent one included), unless it says the destination is gone
   */
  static BatchOutcome aborted(DeliveryOutcome failure) {
    return new Aborted(failure);
  }

  /**
   * @param culprit the id of the message whose send failed
   * @param failure its failure, never {@link DeliveryOutcome#delivered()}
   * @return none landed because of one message: its entry gets {@code failure}, the others go back uncharged; a culprit
   *     that is not in the batch makes this an {@link #aborted} batch, charged to none
   */
  static BatchOutcome abortedBy(UUID culprit, DeliveryOutcome failure) {
    return new AbortedBy(culprit, failure);
  }

  /**
   * @param reason why
   * @return none landed, and none was at fault (for example the claim was too old to start the batch): all go back
   *     uncharged
   */
  static BatchOutcome notDelivered(String reason) {
    return new NotDelivered(reason);
  }

  /**
   * @param reason why the outcome is not known (a commit that timed out)
   * @return the batch may or may not land: nothing is recorded, the claims are left to their leases
   */
  static BatchOutcome inDoubt(String reason) {
    return new InDoubt(reason);
  }

  /** Every message landed. */
  enum Committed implements BatchOutcome { INSTANCE }

  /** @param failure the failure of every message */
  record Aborted(DeliveryOutcome failure) implements BatchOutcome {
    /** @throws IllegalArgumentException if the failure is a delivery */
    public Aborted {
      Objects.requireNonNull(failure, "failure");
      if (failure instanceof DeliveryOutcome.Delivered) {
        throw new IllegalArgumentException("an aborted batch's failure cannot be a delivery");
      }
    }
  }

  /**
   * @param culprit the id of the message whose send failed
   * @param failure its failure
   */
  record AbortedBy(UUID culprit, DeliveryOutcome failure) implements BatchOutcome {
    /** @throws IllegalArgumentException if the failure is a delivery */
    public AbortedBy {
      Objects.requireNonNull(culprit, "culprit");
      Objects.requireNonNull(failure, "failure");
      if (failure instanceof DeliveryOutcome.Delivered) {
        throw new IllegalArgumentException("an aborted batch's failure cannot be a delivery");
      }
    }
  }

  /** @param reason why nothing landed */
  record NotDelivered(String reason) implements BatchOutcome {
    /** @throws NullPointerException if reason is {@code null} */
    public NotDelivered {
      Objects.requireNonNull(reason, "reason");
    }
  }

  /** @param reason why the outcome is unknown */
  record InDoubt(String reason) implements BatchOutcome {
    /** @throws NullPointerException if reason is {@code null} */
    public InDoubt {
      Objects.requireNonNull(reason, "reason");
    }
  }
}
