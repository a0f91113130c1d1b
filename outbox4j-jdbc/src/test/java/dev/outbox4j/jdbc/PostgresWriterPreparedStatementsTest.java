package dev.outbox4j.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.outbox4j.Message;
import dev.outbox4j.spi.Retention;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * {@link JdbcOutbox.Builder#withPreparedStatements}: by default the writer's insert is sent unnamed whatever the
 * caller's connection would do (so it works through PgBouncer in transaction mode before 1.21); with the option the
 * driver's own {@code prepareThreshold} (5, left at pgjdbc's default here) makes it a named server-side statement.
 * The server's {@code pg_prepared_statements} view of the writing session tells which happened.
 */
class PostgresWriterPreparedStatementsTest {
  private static final String PREFIX = "PgPrep_";
  private static final int WRITES = 12;

  @Test
  void the_default_writer_leaves_no_prepared_statement_on_the_callers_connection() throws SQLException {
    assertThat(preparedInsertsAfterWrites(false)).isZero();
  }

  @Test
  void with_prepared_statements_the_driver_prepares_the_insert_after_its_threshold() throws SQLException {
    assertThat(preparedInsertsAfterWrites(true)).isEqualTo(1);
  }

  private static long preparedInsertsAfterWrites(boolean prepared) throws SQLException {
    JdbcOutboxStore store = TestDatabase.POSTGRES.emptyStore(PREFIX, Clock.systemUTC(), Retention.deleteOnDelivery());
    JdbcOutbox writer = store.outboxBuilder().withPreparedStatements(prepared).build();
    try (HikariDataSource pool = TestDatabase.POSTGRES.newPool(PREFIX, 1);
        Connection c = pool.getConnection()) {
      c.setAutoCommit(false);
      for (int i = 0; i < WRITES; i++) {
        writer.write(c, Message.builder().withDestination("d").withOrderingKey(i % 2 == 0 ? "key-" + i : null).build());
        c.commit();
      }
      c.setAutoCommit(true);
      assertThat(store.claim(100, Instant.now(), Duration.ofSeconds(30))).hasSize(WRITES);
      try (Statement query = c.createStatement();
          ResultSet rows = query.executeQuery("SELECT count(*) FROM pg_prepared_statements"
              + " WHERE statement ILIKE '%insert into%pgprep_outbox%'")) {
        rows.next();
        return rows.getLong(1);
      }
    }
  }
}
