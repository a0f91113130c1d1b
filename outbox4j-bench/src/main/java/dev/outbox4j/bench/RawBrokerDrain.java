package dev.outbox4j.bench;

import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;

/**
 * Broker end to end, the baseline: the same N rows of outbox4j's table drained by hand-written JDBC and the broker's
 * client library used directly, one transaction per batch of {@value #BATCH}: {@code SELECT … ORDER BY seq LIMIT 500
 * FOR UPDATE SKIP LOCKED}, publish every row, wait for every confirmation, {@code DELETE} the batch, commit. No lease,
 * no attempts, no per-key bookkeeping: the least a relay with the same delivery guarantee must do. One thread, so keyed
 * rows keep their order through the broker's own per-connection ordering.
 */
final class RawBrokerDrain implements Scenario {
  static final int BATCH = Outbox4jBrokerDrain.BATCH;

  private final BenchBroker broker;
  private final boolean keyed;
  private final Outbox4jTables tables;
  private final HikariDataSource pool;
  private final BenchBroker.Publisher publisher;
  private long batches;
  private long readNanos;
  private long publishNanos;
  private long deleteNanos;

  /** @param broker the broker, owned (closed) by this scenario */
  RawBrokerDrain(BenchDatabase database, BenchBroker broker, boolean keyed) throws Exception {
    this.broker = broker;
    this.keyed = keyed;
    this.tables = new Outbox4jTables(database, Outbox4jBrokerDrain.TABLE_PREFIX);
    try {
      this.pool = database.pool("raw-" + broker.name(), 1, false);
      tables.recreate(pool);
      this.publisher = broker.publisher();
    } catch (Exception e) {
      broker.close();
      throw e;
    }
  }

  @Override
  public String id() {
    return broker.name() + "-raw-" + (keyed ? "keyed" : "unkeyed");
  }

  @Override
  public String title() {
    return "8 baseline: JDBC SKIP LOCKED + client library → " + broker.describe() + ", batches of " + BATCH + ", "
        + (keyed ? "keyed (" + Outbox4jTables.KEYS + " keys)" : "unkeyed");
  }

  @Override
  public void prepare(int messages) throws Exception {
    tables.fill(messages, keyed);
    broker.purge();
    batches = 0;
    readNanos = 0;
    publishNanos = 0;
    deleteNanos = 0;
  }

  @Override
  public Outcome execute(int messages) throws Exception {
    long drained = 0;
    try (Connection connection = pool.getConnection();
        PreparedStatement select = connection.prepareStatement(
            "SELECT id, ordering_key, payload, content_type FROM " + tables.outbox()
                + " WHERE status IN ('PENDING', 'FAILED') ORDER BY seq LIMIT " + BATCH + " FOR UPDATE SKIP LOCKED");
        PreparedStatement delete = connection.prepareStatement(
            "DELETE FROM " + tables.outbox() + " WHERE id = ANY(?)")) {
      while (true) {
        long started = System.nanoTime();
        List<BenchBroker.Row> rows = new ArrayList<>(BATCH);
        List<UUID> ids = new ArrayList<>(BATCH);
        try (ResultSet result = select.executeQuery()) {
          while (result.next()) {
            UUID id = result.getObject(1, UUID.class);
            ids.add(id);
            rows.add(new BenchBroker.Row(id.toString(), result.getString(2), result.getBytes(3),
                result.getString(4)));
          }
        }
        long read = System.nanoTime();
        if (rows.isEmpty()) {
          connection.commit();
          break;
        }
        publisher.publishAll(rows);
        long published = System.nanoTime();
        delete.setArray(1, connection.createArrayOf("uuid", ids.toArray()));
        drained += retire(connection, delete, ids.size());
        long deleted = System.nanoTime();
        batches++;
        readNanos += read - started;
        publishNanos += published - read;
        deleteNanos += deleted - published;
      }
    }
    if (drained != messages) {
      throw new IllegalStateException(id() + " drained " + drained + " of " + messages);
    }
    long count = Math.max(1, batches);
    System.out.printf(Locale.ROOT, " [%d batches; per batch: read %.2f ms, publish + confirms %.2f ms,"
        + " delete + commit %.2f ms]", batches, readNanos / 1e6 / count, publishNanos / 1e6 / count,
        deleteNanos / 1e6 / count);
    return Outcome.of(drained);
  }

  private static int retire(Connection connection, PreparedStatement delete, int expected) throws SQLException {
    int deleted = delete.executeUpdate();
    connection.commit();
    if (deleted != expected) {
      throw new IllegalStateException("deleted " + deleted + " of " + expected + " locked rows");
    }
    return deleted;
  }

  @Override
  public void close() throws Exception {
    try (broker; pool) {
      publisher.close();
    }
  }
}
