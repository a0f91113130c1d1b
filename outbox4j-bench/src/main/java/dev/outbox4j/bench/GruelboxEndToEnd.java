package dev.outbox4j.bench;

import java.time.Duration;

/**
 * Scenario 3b and the gruelbox row of scenario 5: its normal path end to end. Four writer threads each commit business
 * transactions (one business row + one {@code schedule(...)}); after each commit gruelbox submits the entry to its
 * worker pool, which invokes the no-op method and deletes the entry. Measured until every entry was processed.
 */
final class GruelboxEndToEnd implements Scenario {
  private final BenchDatabase database;
  private final BenchOptions options;
  private final GruelboxSetup gruelbox;

  GruelboxEndToEnd(BenchDatabase database, BenchOptions options) throws Exception {
    this.database = database;
    this.options = options;
    BusinessTable.reset(database);
    this.gruelbox = new GruelboxSetup(database, options.gruelboxThreads(), options.writers());
  }

  @Override
  public String id() {
    return "e2e-gruelbox";
  }

  @Override
  public String title() {
    return "5 gruelbox: " + options.writers() + " writers, post-commit submit, end to end";
  }

  @Override
  public void prepare(int messages) throws Exception {
    gruelbox.clear(database);
    BusinessTable.truncate(database);
    database.execute("VACUUM ANALYZE " + GruelboxSetup.TABLE, "VACUUM ANALYZE " + BusinessTable.NAME);
    gruelbox.delivered().reset(messages);
  }

  @Override
  public Outcome execute(int messages) throws Exception {
    String payload = Payloads.text200();
    Writers.runTasks(options.writers(), messages, index -> gruelbox.transactions().inTransaction(tx -> {
      try {
        BusinessTable.insert(tx.connection(), index);
      } catch (java.sql.SQLException e) {
        throw new IllegalStateException(e);
      }
      gruelbox.outbox().schedule(GruelboxHandler.class).send(payload);
    }));
    gruelbox.delivered().await(Duration.ofMinutes(10));
    return Outcome.of(gruelbox.delivered().count());
  }

  @Override
  public void close() throws Exception {
    gruelbox.close();
  }
}
