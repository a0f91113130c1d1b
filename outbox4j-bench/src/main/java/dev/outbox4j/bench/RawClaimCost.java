package dev.outbox4j.bench;

import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;

/**
 * Scenario 7, reference row: the cost of one raw leased claim of 500 rows (one {@code UPDATE … WHERE id IN (SELECT …
 * FOR UPDATE SKIP LOCKED) RETURNING …}) with a given number of rows pending. Each run tops the backlog up to the
 * pending count, times {@value #CLAIMS} claims, and deletes the claimed rows between them (untimed).
 */
final class RawClaimCost implements Scenario {
  static final int CLAIMS = 10;

  private final BenchDatabase database;
  private final int pending;
  private final String size;
  private final RawOutboxTable table;
  private final HikariDataSource pool;
  private boolean filled;

  /** @param size {@code small} or {@code large}, for the id the ratios use */
  RawClaimCost(BenchDatabase database, int pending, String size) throws Exception {
    this.database = database;
    this.pending = pending;
    this.size = size;
    this.table = new RawOutboxTable("bench_claim_raw");
    table.create(database);
    this.pool = database.pool("claim-raw", 1, false);
  }

  @Override
  public String id() {
    return "claim-raw-" + size;
  }

  @Override
  public String title() {
    return String.format("7 raw claim of %d with %,d pending", CeilingDrain.BATCH, pending);
  }

  @Override
  public void prepare(int messages) throws Exception {
    if (!filled) {
      table.fill(database, pending);
      filled = true;
    } else {
      table.insertMore(database, (int) (pending - database.count(table.name())));
    }
  }

  @Override
  public Outcome execute(int messages) throws Exception {
    long claimed = 0;
    long nanos = 0;
    try (Connection connection = pool.getConnection()) {
      for (int i = 0; i < CLAIMS; i++) {
        long start = System.nanoTime();
        claimed += table.claimBatch(connection, CeilingDrain.BATCH).size();
        nanos += System.nanoTime() - start;
        table.deleteClaimed(connection);
      }
    }
    return new Outcome(claimed, CLAIMS, nanos, null);
  }

  @Override
  public void close() {
    pool.close();
  }
}
