package dev.outbox4j;

/**
 * What one or more relay passes did. Every claimed entry ends in exactly one of: delivered, failed, postponed,
 * quarantined, claim lost, or not attempted ({@code claimed - attempted}: unsent, either left claimed because the pass
 * ran out of lease or shutdown gave up, for its lease to hand on, or handed back at once, uncharged, because its send
 * cutoff or deadline came while it waited for the relay's executor), or is still unanswered when shutdown gave up (left
 * claimed).
 *
 * @param claimed entries claimed
 * @param attempted entries handed to the transport (whose send began)
 * @param delivered entries confirmed by the transport and retired
 * @param failed entries that failed for a reason of their own and were charged an attempt and scheduled again
 * @param postponed entries handed back uncharged because the transport as a whole was failing (an outage)
 * @param quarantined entries that stopped being retried
 * @param claimsLost entries whose claim was lost before the relay could record the outcome
 */
public record RelayResult(
    int claimed, int attempted, int delivered, int failed, int postponed, int quarantined, int claimsLost) {
  /** Nothing happened. */
  public static final RelayResult EMPTY = new RelayResult(0, 0, 0, 0, 0, 0, 0);

  /**
   * The shape before {@code attempted} and {@code postponed} were reported: every claimed entry counts as attempted,
   * none as postponed.
   *
   * @param claimed entries claimed, all of them attempted
   * @param delivered entries confirmed
   * @param failed entries failed and scheduled again
   * @param quarantined entries that stopped being retried
   * @param claimsLost entries whose claim was lost
   */
  public RelayResult(int claimed, int delivered, int failed, int quarantined, int claimsLost) {
    this(claimed, claimed, delivered, failed, 0, quarantined, claimsLost);
  }

  /**
   * @param other another result
   * @return the sum of both
   */
  public RelayResult plus(RelayResult other) {
    return new RelayResult(claimed + other.claimed, attempted + other.attempted, delivered + other.delivered,
        failed + other.failed, postponed + other.postponed, quarantined + other.quarantined,
        claimsLost + other.claimsLost);
  }
}
