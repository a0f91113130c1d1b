package dev.outbox4j.bench;

import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.util.List;
import java.util.UUID;

/**
 * Scenario 1, the ceiling: one thread drains N pre-inserted outbox-shaped rows with hand-written JDBC, 500 at a time,
 * {@code SELECT … FOR UPDATE SKIP LOCKED} then one {@code DELETE} or {@code UPDATE} for the batch, one transaction per
 * batch. No delivery, no claim bookkeeping: the fastest a drain of this table can go on this database (PostgreSQL or
 * MariaDB, in its own SQL, see {@link RawOutboxTable}), with 200-byte payloads or the large ones.
 */
final class CeilingDrain implements Scenario {
  static final int BATCH = 500;

  /** How a batch is claimed and retired. */
  enum Mode {
    /** lock, retire, one commit per batch: the ceiling proper */
    LOCKED,
    /** claim by UPDATE and commit, then DELETE and commit: a lease-based relay */
    LEASED,
    /** session-level advisory locks, then DELETE and unlock, auto-commit: a claim held by the session (experiment) */
    SESSION
  }

  private final BenchDatabase database;
  private final RawOutboxTable.Completion completion;
  private final Mode mode;
  private final RawOutboxTable table;
  private final int payloadSize;
  private final HikariDataSource pool;

  /**
   * @param completion how {@link Mode#LOCKED} retires a row; the other modes delete
   * @param mode how a batch is claimed and retired
   */
  CeilingDrain(BenchDatabase database, RawOutboxTable.Completion completion, Mode mode) throws Exception {
    this(database, completion, mode, Payloads.SIZE);
  }

  /**
   * @param payloadSize the bytes of every row's payload (a large-message row's N is derived from it)
   * @throws IllegalArgumentException for {@link Mode#SESSION} on MariaDB (PostgreSQL's advisory locks)
   */
  CeilingDrain(BenchDatabase database, RawOutboxTable.Completion completion, Mode mode, int payloadSize)
      throws Exception {
    if (mode == Mode.SESSION && database.mariaDb()) {
      throw new IllegalArgumentException("the session claim uses PostgreSQL's advisory locks; not on MariaDB");
    }
    this.database = database;
    this.completion = completion;
    this.mode = mode;
    this.payloadSize = payloadSize;
    this.table = RawOutboxTable.on(database, "bench_ceiling", payloadSize);
    table.create(database);
    this.pool = database.pool("ceiling", 1, mode == Mode.SESSION);
  }

  @Override
  public String id() {
    String size = Payloads.idSuffix(payloadSize);
    if (mode == Mode.LEASED) {
      return "ceiling-leased-delete" + size;
    }
    if (mode == Mode.SESSION) {
      return "ceiling-session-delete" + size;
    }
    return (completion == RawOutboxTable.Completion.DELETE ? "ceiling-delete" : "ceiling-update") + size;
  }

  @Override
  public String title() {
    String size = payloadSize == Payloads.SIZE ? "" : ", " + Payloads.words(payloadSize) + " payloads";
    if (mode == Mode.LEASED) {
      return "1 reference: raw leased claim of " + BATCH + (database.mariaDb()
          ? " (SELECT … FOR UPDATE SKIP LOCKED, UPDATE by primary key, commit)" : " (UPDATE … RETURNING, commit)")
          + ", then DELETE (commit)" + size;
    }
    if (mode == Mode.SESSION) {
      return "1 experiment: raw session claim of " + BATCH + " (advisory locks, fresh read), then DELETE + unlock";
    }
    return "1 ceiling: raw JDBC drain, batches of " + BATCH + ", "
        + (completion == RawOutboxTable.Completion.DELETE ? "DELETE" : "UPDATE to DELIVERED") + size;
  }

  @Override
  public int payloadBytes() {
    return payloadSize;
  }

  @Override
  public void prepare(int messages) throws Exception {
    table.fill(database, messages);
  }

  @Override
  public Outcome execute(int messages) throws Exception {
    long drained = 0;
    try (Connection connection = table.forDrain(pool.getConnection())) {
      if (mode == Mode.LEASED && database.mariaDb()) {
        for (int batch = table.leasedBatchMariaDb(connection, BATCH); batch > 0;
            batch = table.leasedBatchMariaDb(connection, BATCH)) {
          drained += batch;
        }
      } else if (mode == Mode.LEASED) {
        for (List<UUID> ids = table.claimBatch(connection, BATCH); !ids.isEmpty();
            ids = table.claimBatch(connection, BATCH)) {
          drained += table.deleteIds(connection, ids);
        }
      } else if (mode == Mode.SESSION) {
        for (List<UUID> ids = table.sessionClaimBatch(connection, BATCH); !ids.isEmpty();
            ids = table.sessionClaimBatch(connection, BATCH)) {
          drained += table.deleteIdsAndUnlock(connection, ids);
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
