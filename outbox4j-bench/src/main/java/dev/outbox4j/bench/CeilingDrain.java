package dev.outbox4j.bench;

import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.util.List;
import java.util.UUID;

/**
 * Scenario 1, the ceiling: one thread drains N pre-inserted outbox-shaped rows with hand-written JDBC, 500 at a time,
 * {@code SELECT … FOR UPDATE SKIP LOCKED} then one {@code DELETE} or {@code UPDATE} for the batch, one transaction per
 * batch. No delivery, no claim bookkeeping: the fastest a drain of this table can go on this database.
 */
final class CeilingDrain implements Scenario {
  static final int BATCH = 500;

  private final BenchDatabase database;
  private final RawOutboxTable.Completion completion;
  private final boolean leased;
  private final RawOutboxTable table = new RawOutboxTable("bench_ceiling");
  private final HikariDataSource pool;

  /**
   * @param leased {@code false} for the ceiling proper (lock, retire, one commit per batch); {@code true} for the
   *     reference row of a lease-based relay (claim by UPDATE and commit, then DELETE and commit), DELETE only
   */
  CeilingDrain(BenchDatabase database, RawOutboxTable.Completion completion, boolean leased) throws Exception {
    this.database = database;
    this.completion = completion;
    this.leased = leased;
    table.create(database);
    this.pool = database.pool("ceiling", 1, false);
  }

  @Override
  public String id() {
    if (leased) {
      return "ceiling-leased-delete";
    }
    return completion == RawOutboxTable.Completion.DELETE ? "ceiling-delete" : "ceiling-update";
  }

  @Override
  public String title() {
    if (leased) {
      return "1 reference: raw leased claim of " + BATCH + " (UPDATE … RETURNING, commit), then DELETE (commit)";
    }
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
      if (leased) {
        for (List<UUID> ids = table.claimBatch(connection, BATCH); !ids.isEmpty();
            ids = table.claimBatch(connection, BATCH)) {
          drained += table.deleteIds(connection, ids);
        }
      } else {
        for (int batch = table.drainBatch(connection, completion, BATCH); batch > 0;
            batch = table.drainBatch(connection, completion, BATCH)) {
          drained += batch;
        }
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
