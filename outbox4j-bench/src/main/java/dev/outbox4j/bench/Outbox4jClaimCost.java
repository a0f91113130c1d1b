package dev.outbox4j.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.outbox4j.jdbc.ClaimStrategy;
import dev.outbox4j.jdbc.JdbcOutboxStore;
import dev.outbox4j.spi.Claim;
import dev.outbox4j.spi.Retention;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * Scenario 7: the cost of one {@code JdbcOutboxStore.claim(500, now, 30 s)} with a small and a large backlog pending,
 * claims held by each {@link ClaimStrategy}. Each run tops the backlog up, times {@value RawClaimCost#CLAIMS} claims,
 * and retires each claimed batch (untimed) before the next.
 */
final class Outbox4jClaimCost implements Scenario {
  private final BenchDatabase database;
  private final int pending;
  private final String size;
  private final ClaimStrategy claims;
  private final Outbox4jTables tables;
  private final HikariDataSource pool;
  private final JdbcOutboxStore store;
  private boolean filled;

  Outbox4jClaimCost(BenchDatabase database, int pending, String size, ClaimStrategy claims) throws Exception {
    this.database = database;
    this.pending = pending;
    this.size = size;
    this.claims = claims;
    this.tables = new Outbox4jTables(database, "bench_o4jc_");
    this.pool = database.pool("o4j-claim", 2, true);
    tables.recreate(pool);
    this.store = tables.store(pool, Retention.deleteOnDelivery(), claims);
  }

  @Override
  public String id() {
    return "claim-outbox4j" + ClaimNames.idSuffix(claims) + "-" + size;
  }

  @Override
  public String title() {
    return String.format("7 outbox4j claim of %d with %,d pending%s", Outbox4jDrain.BATCH, pending,
        ClaimNames.titleSuffix(claims));
  }

  @Override
  public void prepare(int messages) throws Exception {
    if (!filled) {
      tables.fill(pending, false);
      filled = true;
    } else {
      tables.insertMore((int) (pending - database.count(tables.outbox())), false);
    }
  }

  @Override
  public Outcome execute(int messages) throws Exception {
    long claimed = 0;
    long nanos = 0;
    for (int i = 0; i < RawClaimCost.CLAIMS; i++) {
      long start = System.nanoTime();
      List<Claim> claims = store.claim(Outbox4jDrain.BATCH, Instant.now(), Duration.ofSeconds(30));
      nanos += System.nanoTime() - start;
      claimed += claims.size();
      store.markDelivered(claims, Instant.now());
    }
    return new Outcome(claimed, RawClaimCost.CLAIMS, nanos, null);
  }

  @Override
  public void close() {
    store.close();
    pool.close();
  }
}
