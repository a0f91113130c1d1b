package dev.outbox4j.bench;

import com.gruelbox.transactionoutbox.DefaultPersistor;
import com.gruelbox.transactionoutbox.Dialect;
import com.gruelbox.transactionoutbox.Persistor;
import com.gruelbox.transactionoutbox.Submitter;
import com.gruelbox.transactionoutbox.ThreadLocalContextTransactionManager;
import com.gruelbox.transactionoutbox.TransactionManager;
import com.gruelbox.transactionoutbox.TransactionOutbox;
import com.gruelbox.transactionoutbox.TransactionOutboxEntry;
import com.gruelbox.transactionoutbox.TransactionOutboxListener;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * gruelbox transaction-outbox 4.2.268 in the configuration we consider fair and tuned, shared by its two scenarios.
 *
 * <ul>
 *   <li>{@code DefaultPersistor} with {@code Dialect.POSTGRESQL_9} (so it claims with {@code SKIP LOCKED}), on our own
 *       table {@code bench_txno_outbox} created with exactly the schema its migrations produce (migrations off, so
 *       it does not create its fixed-name tables in a shared database);
 *   <li>{@code TransactionManager.fromDataSource} over a HikariCP pool with auto-commit off (no toggling per
 *       transaction);
 *   <li>a submitter on a fixed pool of worker threads (default 8: each entry costs a commit, so several in flight
 *       let PostgreSQL group their WAL flushes) over a bounded queue whose overflow blocks the submitting thread
 *       instead of dropping work (dropped work would wait {@code attemptFrequency} for the next flush);
 *   <li>{@code flushBatchSize} 4096 (its default and our largest useful batch) and {@code attemptFrequency} 2 minutes,
 *       so no entry is flushed twice during a run;
 *   <li>an invoked method that does nothing ({@link GruelboxHandler}), and logging at WARN.
 * </ul>
 */
final class GruelboxSetup implements AutoCloseable {
  static final String TABLE = "bench_txno_outbox";
  static final int FLUSH_BATCH = 4096;

  private final HikariDataSource pool;
  private final ThreadPoolExecutor workers;
  private final ThreadLocalContextTransactionManager transactions;
  private final TransactionOutbox outbox;
  private final TransactionOutbox backlogWriter;
  private final DeliveryCounter delivered = new DeliveryCounter();

  GruelboxSetup(BenchDatabase database, int threads, int writers) throws SQLException {
    database.execute(
        "DROP TABLE IF EXISTS " + TABLE,
        "CREATE TABLE " + TABLE + " (id VARCHAR(36) PRIMARY KEY, invocation TEXT, nextAttemptTime TIMESTAMP(6),"
            + " attempts INT, blocked BOOLEAN, version INT, uniqueRequestId VARCHAR(250) NULL UNIQUE,"
            + " processed BOOLEAN, lastAttemptTime TIMESTAMP(6))",
        "CREATE INDEX " + TABLE + "_ix_1 ON " + TABLE + " (processed, blocked, nextAttemptTime)");
    this.pool = database.pool("gruelbox", threads + writers + 2, false);
    this.workers = new ThreadPoolExecutor(threads, threads, 0, TimeUnit.MILLISECONDS,
        new ArrayBlockingQueue<>(16_384), runnable -> {
          Thread thread = new Thread(runnable, "gruelbox-worker");
          thread.setDaemon(true);
          return thread;
        }, (runnable, executor) -> {
          try {
            executor.getQueue().put(runnable);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RejectedExecutionException(e);
          }
        });
    this.transactions = TransactionManager.fromDataSource(pool);
    Persistor persistor = DefaultPersistor.builder().dialect(Dialect.POSTGRESQL_9).tableName(TABLE).migrate(false)
        .build();
    this.outbox = TransactionOutbox.builder()
        .transactionManager(transactions)
        .persistor(persistor)
        .submitter(Submitter.withExecutor(workers))
        .flushBatchSize(FLUSH_BATCH)
        .attemptFrequency(Duration.ofMinutes(2))
        .listener(new TransactionOutboxListener() {
          @Override
          public void success(TransactionOutboxEntry entry) {
            delivered.increment();
          }
        })
        .build();
    // Writes the backlog for the drain scenario: its submitter drops the post-commit submission, so the entries wait
    // in the table for flush() (writeBacklog then makes them due at once).
    this.backlogWriter = TransactionOutbox.builder()
        .transactionManager(transactions)
        .persistor(persistor)
        .submitter((entry, local) -> {})
        .attemptFrequency(Duration.ofMinutes(1))
        .build();
  }

  TransactionOutbox outbox() {
    return outbox;
  }

  ThreadLocalContextTransactionManager transactions() {
    return transactions;
  }

  DeliveryCounter delivered() {
    return delivered;
  }

  void clear(BenchDatabase database) throws SQLException {
    database.execute("TRUNCATE " + TABLE);
  }

  /**
   * Schedules {@code messages} entries through gruelbox's own API, 1,000 per transaction, makes them due now (gruelbox
   * insists that a new entry's next attempt lies in the future) and vacuums.
   */
  void writeBacklog(BenchDatabase database, int messages) throws SQLException {
    for (int done = 0; done < messages; ) {
      int batch = Math.min(1_000, messages - done);
      transactions.inTransaction(() -> {
        for (int i = 0; i < batch; i++) {
          backlogWriter.schedule(GruelboxHandler.class).send(Payloads.text200());
        }
      });
      done += batch;
    }
    database.execute("UPDATE " + TABLE + " SET nextAttemptTime = now() - interval '1 second'",
        "VACUUM ANALYZE " + TABLE);
  }

  @Override
  public void close() throws InterruptedException {
    workers.shutdown();
    workers.awaitTermination(30, TimeUnit.SECONDS);
    pool.close();
  }
}
