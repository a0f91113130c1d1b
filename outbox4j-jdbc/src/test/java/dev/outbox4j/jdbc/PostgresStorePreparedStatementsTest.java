package dev.outbox4j.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.outbox4j.Message;
import dev.outbox4j.spi.Claim;
import dev.outbox4j.spi.Retention;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link JdbcOutboxStore.Builder#withPreparedStatements}: by default the store sends every statement unnamed on the
 * connections it borrows, whatever pgjdbc's {@code prepareThreshold} (so it works through PgBouncer in transaction
 * mode before 1.21); with the option the driver's threshold (5, pgjdbc's default here) makes the claims a named
 * server-side statement, while the completions that must be planned for the table as it is
 * ({@code LeasedBatchClaims.planEachTime}: {@code WITH mine AS ...}) stay unnamed. The store runs on a pool of one
 * connection, so the server's {@code pg_prepared_statements} of that session shows what every call left there.
 */
class PostgresStorePreparedStatementsTest {
  private static final String PREFIX = "PgStorePrep_";
  private static final int ENTRIES = 12;

  @ParameterizedTest
  @EnumSource(ClaimStrategy.class)
  void the_default_store_leaves_no_prepared_statement_on_its_connections(ClaimStrategy claims) throws SQLException {
    assertThat(preparedAfterDraining(claims, false)).isEmpty();
  }

  @ParameterizedTest
  @EnumSource(ClaimStrategy.class)
  void with_prepared_statements_the_driver_prepares_the_claims_but_not_what_is_planned_each_time(ClaimStrategy claims)
      throws SQLException {
    List<String> prepared = preparedAfterDraining(claims, true);
    assertThat(prepared).isNotEmpty();
    assertThat(prepared).noneMatch(statement -> statement.startsWith("WITH mine AS"));
  }

  /** @return the text of every statement the store's one session holds prepared, after draining the outbox one by one */
  private static List<String> preparedAfterDraining(ClaimStrategy claims, boolean prepared) throws SQLException {
    JdbcOutboxStore writerStore = TestDatabase.POSTGRES.emptyStore(PREFIX, Clock.systemUTC(),
        Retention.deleteOnDelivery(), claims);
    JdbcOutbox writer = writerStore.outbox();
    try (HikariDataSource pool = TestDatabase.POSTGRES.newPool(PREFIX, 1);
        HikariDataSource writers = TestDatabase.POSTGRES.newPool(PREFIX, 1);
        Connection c = writers.getConnection()) {
      c.setAutoCommit(false);
      for (int i = 0; i < ENTRIES; i++) {
        writer.write(c, Message.builder().withDestination("d").withOrderingKey(i % 2 == 0 ? "key-" + i : null).build());
        c.commit();
      }
      JdbcOutboxStore store = JdbcOutboxStore.builder(pool).withTablePrefix(PREFIX).withClaimStrategy(claims)
          .withPreparedStatements(prepared).build();
      assertThat(store.preparedStatements()).isEqualTo(prepared);
      int delivered = 0;
      for (List<Claim> batch = store.claim(1, Instant.now(), Duration.ofSeconds(30)); !batch.isEmpty();
          batch = store.claim(1, Instant.now(), Duration.ofSeconds(30))) {
        assertThat(store.markDelivered(batch, Instant.now())).isEmpty();
        delivered += batch.size();
      }
      assertThat(delivered).isEqualTo(ENTRIES);
      List<String> statements = new ArrayList<>();
      try (Connection session = pool.getConnection(); Statement query = session.createStatement();
          ResultSet rows = query.executeQuery("SELECT statement FROM pg_prepared_statements ORDER BY statement")) {
        while (rows.next()) {
          statements.add(rows.getString(1));
        }
      }
      return statements;
    }
  }
}
