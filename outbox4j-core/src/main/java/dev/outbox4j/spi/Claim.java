package dev.outbox4j.spi;

import dev.outbox4j.Message;
import dev.outbox4j.OutboxEntry;
import java.time.Instant;
import java.util.Objects;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

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
 * @param inDoubtSince {@code null} when every earlier claim of the entry ended with a recorded outcome; otherwise an
 *     earlier claim expired with nothing recorded (its relay died, froze or gave up waiting), so a send made under it
 *     may have landed, and this is the time of the earliest such claim since the last recorded outcome. A transport
 *     that can tell which sends landed ({@link AtomicBatches#deliveredEarlier}) is asked before the entry is sent again.
 *     See {@link OutboxStore} ("Entries in doubt").
 */
public record Claim(OutboxEntry entry, UUID token, Instant leaseUntil, @Nullable Instant inDoubtSince) {
  /** @throws NullPointerException if a field other than {@code inDoubtSince} is {@code null} */
  public Claim {
    Objects.requireNonNull(entry, "entry");
    Objects.requireNonNull(token, "token");
    Objects.requireNonNull(leaseUntil, "leaseUntil");
  }

  /**
   * A claim of an entry that is not in doubt.
   *
   * @param entry the entry as it was claimed
   * @param token the fencing token
   * @param leaseUntil when the hold expires
   */
  public Claim(OutboxEntry entry, UUID token, Instant leaseUntil) {
    this(entry, token, leaseUntil, null);
  }

  /** @return the claimed entry's id */
  public UUID id() {
    return entry.id();
  }

  /** @return the claimed message */
  public Message message() {
    return entry.message();
  }

  /** @return {@code true} when a send under an earlier claim of this entry may have landed: see {@link #inDoubtSince} */
  public boolean inDoubt() {
    return inDoubtSince != null;
  }
}
