package dev.outbox4j.jdbc;

import dev.outbox4j.testkit.KnownFindings;
import java.util.Set;

/** The claim-protocol property on PostgreSQL with its default claim, {@link ClaimStrategy#LEASED_BATCHES}. */
class PostgresClaimProtocolTest extends JdbcClaimProtocolProperty {
  PostgresClaimProtocolTest() {
    super(TestDatabase.POSTGRES, "pgprop_", null);
  }

  /** Leased batches also refuse the completion of a batch's entries nobody took over after a takeover of part of it. */
  @Override
  protected Set<String> knownFindings() {
    return Set.of(KnownFindings.LATE_COPY_AFTER_DISCARD, KnownFindings.REFUSED_UNTAKEN_COMPLETION);
  }
}
