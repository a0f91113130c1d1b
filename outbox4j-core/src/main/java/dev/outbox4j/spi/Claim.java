package dev.outbox4j.spi;

import dev.outbox4j.Message;
import dev.outbox4j.OutboxEntry;
import java.time.Instant;
import java.util.Objects;
import java.util.UUID;

/**
 * A relay's time-limited hold on one entry, returned by {@link OutboxStore#claim}. The {@link #token()} fences every
 * later mutation: once the claim has expired and another relay claimed the entry, a mutation carrying this token
 * changes nothing and is reported as lost.
 *
 * <p>Immutable and thread-safe.
 *
 * @param entry the entry as it was claimed (its attempts are the failures before this claim)
 * @param token the fencing token; every claim call issues a new one
 * @param leaseUntil when the hold expires and the entry becomes claimable again
 */
public record Claim(OutboxEntry entry, UUID token, Instant leaseUntil) {
  /** @throws NullPointerException if a field is {@code null} */
  public Claim {
    Objects.requireNonNull(entry, "entry");
    Objects.requireNonNull(token, "token");
    Objects.requireNonNull(leaseUntil, "leaseUntil");
  }

  /** @return the claimed entry's id */
  public UUID id() {
    return entry.id();
  }

  /** @return the claimed message */
  public Message message() {
    return entry.message();
  }
}
