package dev.outbox4j.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox4j.Message;
import dev.outbox4j.spi.Claim;
import dev.outbox4j.spi.Retention;
import dev.outbox4j.testkit.SettableClock;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The claim table's indexes stay the size of what is in flight between two vacuums, however many entries have passed
 * through before: vacuum makes the space of retired batch rows reusable. (A GIN index on {@code seqs} kept a key for every entry ever claimed
 * and grew without end: 61 MB in 17 minutes at 1,000 msgs/s for a table of one live row.)
 */
class PostgresClaimTableSizeTest {
  private static final String PREFIX = "pgclaimsize_";
  private static final int PER_ROUND = 10_000;

  private final SettableClock clock = SettableClock.atFixedStart();
  private final JdbcOutboxStore store = TestDatabase.POSTGRES.emptyStore(PREFIX, clock, Retention.deleteOnDelivery());

  @Test
  // 50,000 entries through the claim: 3-4 min alone on 2 cores, past the build's default 5 min beside other builds.
  @Timeout(value = 20, unit = TimeUnit.MINUTES)
  void the_claim_tables_indexes_do_not_grow_with_the_entries_that_passed_through() throws SQLException {
    round();
    long afterOne = vacuumedIndexBytes();
    long afterFive = 0;
    for (int i = 0; i < 4; i++) { // each round followed by a vacuum, as autovacuum would between them
      round();
      afterFive = vacuumedIndexBytes();
    }
    assertThat(afterFive).as("index bytes after 5 rounds of %,d entries (after 1: %,d; %s)", PER_ROUND, afterOne,
            indexes())
        .isLessThanOrEqualTo(afterOne * 2);
  }

  /** Writes {@value #PER_ROUND} entries, then claims them 5 at a time (one batch row each) and delivers them. */
  private void round() throws SQLException {
    try (Connection c = TestDatabase.POSTGRES.pool(PREFIX).getConnection()) {
      c.setAutoCommit(false);
      for (int i = 0; i < PER_ROUND; i++) {
        store.outbox().write(c, Message.builder().withDestination("d").build());
      }
      c.commit();
    }
    for (List<Claim> claims = store.claim(5, clock.instant(), Duration.ofSeconds(30)); !claims.isEmpty();
        claims = store.claim(5, clock.instant(), Duration.ofSeconds(30))) {
      assertThat(store.markDelivered(claims, clock.instant())).isEmpty();
    }
  }

  private String indexes() throws SQLException {
    StringBuilder out = new StringBuilder();
    try (Connection c = TestDatabase.POSTGRES.pool(PREFIX).getConnection(); Statement statement = c.createStatement();
        ResultSet rows = statement.executeQuery("SELECT indexrelid::regclass, pg_relation_size(indexrelid)"
            + " FROM pg_index WHERE indrelid = '" + PREFIX + "outbox_claim'::regclass ORDER BY 1")) {
      while (rows.next()) {
        out.append(rows.getString(1)).append(' ').append(rows.getLong(2)).append("; ");
      }
    }
    return out.toString();
  }

  private long vacuumedIndexBytes() throws SQLException {
    try (Connection c = TestDatabase.POSTGRES.pool(PREFIX).getConnection(); Statement statement = c.createStatement()) {
      c.setAutoCommit(true);
      statement.execute("VACUUM " + PREFIX + "outbox_claim");
      try (ResultSet bytes = statement.executeQuery("SELECT sum(pg_relation_size(indexrelid)) FROM pg_index"
          + " WHERE indrelid = '" + PREFIX + "outbox_claim'::regclass")) {
        bytes.next();
        return bytes.getLong(1);
      }
    }
  }
}
