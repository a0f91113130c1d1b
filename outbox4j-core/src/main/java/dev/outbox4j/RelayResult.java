package dev.outbox4j;

/**
 * What one or more relay passes did.
 *
 * @param claimed entries claimed
 * @param delivered entries confirmed by the transport and retired
 * @param failed entries that failed and were scheduled for another attempt
 * @param quarantined entries that stopped being retried
 * @param claimsLost entries whose claim was lost before the relay could record the outcome
 */
public record RelayResult(int claimed, int delivered, int failed, int quarantined, int claimsLost) {
  /** Nothing happened. */
  public static final RelayResult EMPTY = new RelayResult(0, 0, 0, 0, 0);

  /**
   * @param other another result
   * @return the sum of both
   */
  public RelayResult plus(RelayResult other) {
    return new RelayResult(claimed + other.claimed, delivered + other.delivered, failed + other.failed,
        quarantined + other.quarantined, claimsLost + other.claimsLost);
  }
}
