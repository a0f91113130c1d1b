package dev.outbox4j.inbox;

/** What {@link Inbox#receive} found: whether this consumer sees the message for the first time. */
public enum Receipt {
  /** The id was not recorded for this consumer; it is recorded now, in the caller's transaction. Apply the message. */
  FIRST,
  /** The id is already recorded for this consumer (committed, or earlier in this same transaction). Skip it. */
  DUPLICATE;

  /** @return {@code true} for {@link #FIRST} */
  public boolean isFirst() {
    return this == FIRST;
  }
}
