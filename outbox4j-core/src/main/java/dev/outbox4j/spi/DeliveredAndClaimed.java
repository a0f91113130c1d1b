package dev.outbox4j.spi;

import java.util.List;

/**
 * What {@link OutboxStore#markDeliveredAndClaim} did. Immutable and thread-safe.
 *
 * @param lost the confirmed claims that were lost and so changed nothing; empty when all applied
 * @param claims the new claims, as {@link OutboxStore#claim(int, java.time.Instant, java.time.Duration, int,
 *     java.util.Set)} returns them; empty when nothing was claimable
 */
public record DeliveredAndClaimed(List<Claim> lost, List<Claim> claims) {
  /** @throws NullPointerException if a list is {@code null} */
  public DeliveredAndClaimed {
    lost = List.copyOf(lost);
    claims = List.copyOf(claims);
  }
}
