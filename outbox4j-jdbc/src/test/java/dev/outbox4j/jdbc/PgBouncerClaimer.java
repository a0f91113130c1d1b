package dev.outbox4j.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.outbox4j.spi.Claim;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * A relay process for {@link PostgresThroughPgBouncerTest}, killed by the test: through the given URL it claims one
 * batch (committed), then opens the next claim's transaction, takes its locks and waits inside it, printing what it
 * holds. Arguments: JDBC URL, table prefix, batch size, lease in seconds.
 */
final class PgBouncerClaimer {
  private PgBouncerClaimer() {}

  public static void main(String[] args) throws Exception {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(args[0]);
    config.setMaximumPoolSize(2);
    try (HikariDataSource pool = new HikariDataSource(config)) {
      JdbcOutboxStore store = JdbcOutboxStore.builder(pool).withTablePrefix(args[1]).build();
      int batch = Integer.parseInt(args[2]);
      Duration lease = Duration.ofSeconds(Long.parseLong(args[3]));
      List<Claim> claimed = store.claim(batch, Instant.now(), lease);
      System.out.println("CLAIMED " + claimed.size());
      TableNames names = TableNames.withPrefix(args[1]);
      LeasedBatchClaims next = new LeasedBatchClaims(null, (c, max, now, skipped) -> List.of(),
          new OutboxRows(PostgresDialect.INSTANCE, names), names.qualified("outbox"), names.qualified("outbox_claim"));
      try (Connection c = pool.getConnection()) {
        c.setAutoCommit(false);
        LeasedBatchClaims.begin(c, lease);
        System.out.println("LOCKED " + next.lock(c, batch, Instant.now(), lease, java.util.Set.of()).seqs().size());
        System.out.flush();
        Thread.sleep(Duration.ofMinutes(5).toMillis()); // killed here, inside the transaction
      }
    }
  }
}
