package dev.outbox4j.spi;

import dev.outbox4j.OutboxException;

/**
 * Thrown (as the failure of {@link AtomicBatches#deliveredEarlier}'s stage) when whether an earlier send landed can
 * never be told any more: the record that would say so is gone (for Kafka, the progress topic's retention deleted it).
 * The relay quarantines such entries rather than guess: sending again may deliver a second copy, not sending may lose
 * the message, and only an operator can weigh that.
 */
public class DeliveryRecordGoneException extends OutboxException {
  private static final long serialVersionUID = 1L;

  /** @param message what is gone and since when; never a payload */
  public DeliveryRecordGoneException(String message) {
    super(message);
  }
}
