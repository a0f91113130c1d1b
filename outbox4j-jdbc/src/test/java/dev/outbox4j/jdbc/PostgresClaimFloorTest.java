package dev.outbox4j.jdbc;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox4j.spi.Retention;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The claim floor on PostgreSQL: samples from the sequence and {@code pg_locks}. */
class PostgresClaimFloorTest extends ClaimFloorTests {
  @Override
  TestDatabase database() {
    return TestDatabase.POSTGRES;
  }

  @Override
  String prefix() {
    return "pgfloor_";
  }

  @Override
  Duration pause() {
    return Duration.ofMillis(30);
  }

  @Override
  void numberFromOne(Statement statement) throws SQLException {
    statement.execute("SELECT setval(pg_get_serial_sequence('" + prefix() + "outbox', 'seq'), 1, false)");
  }

  /** A key's entries are numbered from the sequence in commit order; with a cache each session has its own range. */
  @Test
  void a_sequence_with_a_cache_is_refused_with_the_statement_that_fixes_it() throws SQLException {
    JdbcOutboxStore fresh = database().emptyStore("pgcache_", clock, Retention.deleteOnDelivery());
    try (Connection c = database().pool("pgcache_").getConnection(); Statement s = c.createStatement()) {
      s.execute("ALTER SEQUENCE pgcache_outbox_seq CACHE 20");
      fresh.enqueue(message("k"));

      assertThatThrownBy(() -> fresh.claim(10, clock.instant(), Duration.ofSeconds(30)))
          .hasMessageContaining("has CACHE 20").hasMessageContaining("pgcache_outbox_seq CACHE 1");
      s.execute("ALTER SEQUENCE pgcache_outbox_seq CACHE 1");
    }
  }
}
