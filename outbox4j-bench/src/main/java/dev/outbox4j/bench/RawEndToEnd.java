package dev.outbox4j.bench;

import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * Scenario 5, the raw loop: writer threads commit business row + outbox-shaped row transactions while one thread
 * drains the table with the ceiling's batched {@code SELECT … FOR UPDATE SKIP LOCKED} + {@code DELETE}, polling every
 * millisecond when it finds nothing. Measured until all N rows were written and drained.
 */
final class RawEndToEnd implements Scenario {
  private final BenchDatabase database;
  private final int writers;
  private final RawOutboxTable table;
  private final int payloadSize;
  private final HikariDataSource pool;

  RawEndToEnd(BenchDatabase database, int writers) throws Exception {
    this(database, writers, Payloads.SIZE);
  }

  /** @param payloadSize the bytes of every message's payload (a large-message row's N is derived from it) */
  RawEndToEnd(BenchDatabase database, int writers, int payloadSize) throws Exception {
    this.database = database;
    this.writers = writers;
    this.payloadSize = payloadSize;
    this.table = RawOutboxTable.on(database, "bench_raw_e2e", payloadSize);
    BusinessTable.reset(database);
    table.create(database);
    this.pool = database.pool("raw-e2e", writers + 1, false);
  }

  @Override
  public String id() {
    return "e2e-raw" + Payloads.idSuffix(payloadSize);
  }

  @Override
  public String title() {
    return "5 raw loop: " + writers + " writers (business row + outbox row) + 1 raw drain"
        + (payloadSize == Payloads.SIZE ? "" : ", " + Payloads.words(payloadSize) + " payloads");
  }

  @Override
  public int payloadBytes() {
    return payloadSize;
  }

  @Override
  public void prepare(int messages) throws Exception {
    BusinessTable.truncate(database);
    table.fill(database, 0);
    database.analyze(BusinessTable.NAME);
  }

  @Override
  public Outcome execute(int messages) throws Exception {
    AtomicLong drained = new AtomicLong();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Thread drain = new Thread(() -> {
      try (Connection connection = table.forDrain(pool.getConnection())) {
        connection.setAutoCommit(false);
        while (drained.get() < messages) {
          int batch = table.drainBatch(connection, RawOutboxTable.Completion.DELETE, CeilingDrain.BATCH);
          drained.addAndGet(batch);
          if (batch == 0) {
            LockSupport.parkNanos(1_000_000);
          }
        }
      } catch (Throwable e) {
        failure.set(e);
      }
    }, "bench-raw-drain");
    drain.start();
    try {
      Writers.run(pool, writers, messages, (connection, index) -> {
        BusinessTable.insert(connection, index);
        table.insert(connection);
      });
    } finally {
      drain.join(600_000);
    }
    if (failure.get() != null) {
      throw new IllegalStateException("raw drain failed", failure.get());
    }
    if (drained.get() != messages) {
      throw new IllegalStateException("raw drain delivered " + drained.get() + " of " + messages);
    }
    return Outcome.of(messages);
  }

  @Override
  public void close() {
    pool.close();
  }
}
