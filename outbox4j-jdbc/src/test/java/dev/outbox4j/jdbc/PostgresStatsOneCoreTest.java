package dev.outbox4j.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.outbox4j.Message;
import dev.outbox4j.spi.Retention;
import dev.outbox4j.testkit.SettableClock;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * A stats read on PostgreSQL plans without parallel workers, in its own transaction, and leaves the session as it was:
 * a reading of a large backlog takes one core of the database, never every core the claims need.
 */
class PostgresStatsOneCoreTest {
  private static final String PREFIX = "pg_stats_core_";

  @Test
  void stats_reads_run_without_parallel_workers_and_leave_the_session_as_it_was() throws Exception {
    TestDatabase.POSTGRES.pool(PREFIX); // the tables, migrated
    try (HikariDataSource pool = TestDatabase.POSTGRES.newPool(PREFIX, 1)) {
      SessionProbe probe = new SessionProbe(pool, "AS oldest_blocked",
          "SELECT current_setting('max_parallel_workers_per_gather')");
      SettableClock clock = SettableClock.atFixedStart();
      JdbcOutboxStore store = JdbcOutboxStore.builder(probe.dataSource()).withTablePrefix(PREFIX).withClock(clock)
          .withRetention(Retention.deleteOnDelivery()).build();
      store.enqueue(Message.builder().withDestination("d").withPayload("x").build());
      Instant now = clock.instant();

      assertThat(store.stats(now).waiting()).isPositive();
      assertThat(store.destinationStats(now, 10)).isNotEmpty();

      assertThat(probe.seen()).as("each stats read, inside its transaction").containsExactly("0", "0");
      try (Connection connection = pool.getConnection(); Statement statement = connection.createStatement();
          ResultSet setting = statement.executeQuery("SHOW max_parallel_workers_per_gather")) {
        setting.next();
        assertThat(setting.getString(1)).as("the pool's connection afterwards").isNotEqualTo("0");
      }
    }
  }
}
