package dev.outbox4j.bench;

import com.zaxxer.hikari.HikariDataSource;

/**
 * Scenario 4, write overhead: writer threads commit N one-row business transactions, with or without an outbox write
 * in the same transaction. Nothing drains; only the writers' cost is measured.
 */
final class WriteScenario implements Scenario {
  /** Empties whatever outbox table the variant writes to. */
  @FunctionalInterface
  interface Reset {
    void reset() throws Exception;
  }

  private final BenchDatabase database;
  private final int writers;
  private final String id;
  private final String title;
  private final Reset reset;
  private final Writers.Work extra;
  private final HikariDataSource pool;

  /**
   * @param extra what the transaction writes besides the business row (nothing for the baseline)
   */
  WriteScenario(BenchDatabase database, int writers, String id, String title, Reset reset, Writers.Work extra)
      throws Exception {
    this.database = database;
    this.writers = writers;
    this.id = id;
    this.title = title;
    this.reset = reset;
    this.extra = extra;
    this.pool = database.pool("write", writers, false);
  }

  @Override
  public String id() {
    return id;
  }

  @Override
  public String title() {
    return title;
  }

  @Override
  public void prepare(int messages) throws Exception {
    BusinessTable.truncate(database);
    reset.reset();
    database.analyze(BusinessTable.NAME);
  }

  @Override
  public Outcome execute(int messages) throws Exception {
    Writers.run(pool, writers, messages, (connection, index) -> {
      BusinessTable.insert(connection, index);
      extra.write(connection, index);
    });
    return Outcome.of(messages);
  }

  @Override
  public void close() {
    pool.close();
  }
}
