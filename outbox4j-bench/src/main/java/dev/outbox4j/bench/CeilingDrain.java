package dev.outbox4j.bench;

import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;

/**
 * Scenario 1, the ceiling: one thread drains N pre-inserted outbox-shaped rows with hand-written JDBC, 500 at a time,
 * {@code SELECT … FOR UPDATE SKIP LOCKED} then one {@code DELETE} or {@code UPDATE} for the batch, one transaction per
 * batch. No delivery, no claim bookkeeping: the fastest a drain of this table can go on this database.
 */
final class CeilingDrain implements Scenario {
  static final int BATCH = 500;

  private final BenchDatabase database;
  private final RawOutboxTable.Completion completion;
  private final RawOutboxTable table = new RawOutboxTable("bench_ceiling");
  private final HikariDataSource pool;

  CeilingDrain(BenchDatabase database, RawOutboxTable.Completion completion) throws Exception {
    this.database = database;
    this.completion = completion;
    table.create(database);
    this.pool = database.pool("ceiling", 1, false);
  }

  @Override
  public String id() {
    return completion == RawOutboxTable.Completion.DELETE ? "ceiling-delete" : "ceiling-update";
  }

  @Override
  public String title() {
    return "1 ceiling: raw JDBC drain, batches of " + BATCH + ", "
        + (completion == RawOutboxTable.Completion.DELETE ? "DELETE" : "UPDATE to DELIVERED");
  }

  @Override
  public void prepare(int messages) throws Exception {
    table.fill(database, messages);
  }

  @Override
  public Outcome execute(int messages) throws Exception {
    long drained = 0;
    try (Connection connection = pool.getConnection()) {
      for (int batch = table.drainBatch(connection, completion, BATCH); batch > 0;
          batch = table.drainBatch(connection, completion, BATCH)) {
        drained += batch;
      }
    }
    if (drained != messages) {
      throw new IllegalStateException(id() + " drained " + drained + " of " + messages);
    }
    return Outcome.of(drained);
  }

  @Override
  public void close() {
    pool.close();
  }
}
