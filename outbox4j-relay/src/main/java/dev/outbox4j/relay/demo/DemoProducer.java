package dev.outbox4j.relay.demo;

import dev.outbox4j.Message;
import dev.outbox4j.jdbc.JdbcOutbox;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.random.RandomGenerator;
import javax.sql.DataSource;

/**
 * The demo's application: it keeps orders in a table of its own and, in the same transaction as each change, writes
 * the order's event to the outbox, keyed by the order, so each order's events are delivered in commit order. One
 * transaction in eight is rolled back (a declined payment): its order change and its event vanish together. One
 * committed change in twenty also sends an invoice to the {@code legacy-erp} destination, which refuses the larger ones.
 *
 * <p>Thread-safe; runs on its own scheduler thread.
 */
public final class DemoProducer implements AutoCloseable {
  private static final String[] STEPS = {"created", "paid", "packed", "shipped", "delivered"};

  private final DataSource dataSource;
  private final JdbcOutbox outbox;
  private final Runnable afterCommit;
  private final RandomGenerator random;
  private final ScheduledExecutorService scheduler;
  private final List<long[]> open = new ArrayList<>();
  private final AtomicLong committed = new AtomicLong();
  private final AtomicLong rolledBack = new AtomicLong();
  private long nextOrder;
  private long transactions;

  /**
   * @param dataSource the demo database
   * @param outbox the outbox writer
   * @param afterCommit run after each commit (the relay's wake-up)
   * @param random decides rollbacks and which order changes next
   */
  public DemoProducer(DataSource dataSource, JdbcOutbox outbox, Runnable afterCommit, RandomGenerator random) {
    this.dataSource = dataSource;
    this.outbox = outbox;
    this.afterCommit = afterCommit;
    this.random = random;
    this.scheduler = Executors.newSingleThreadScheduledExecutor(runnable -> {
      Thread thread = new Thread(runnable, "outbox4j-demo-producer");
      thread.setDaemon(true);
      return thread;
    });
  }

  /**
   * Creates the demo's table if needed, picks up the open orders of an earlier run and starts writing.
   *
   * @param perSecond transactions per second
   * @throws SQLException if the table cannot be prepared
   */
  public void start(int perSecond) throws SQLException {
    try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
      statement.execute("CREATE TABLE IF NOT EXISTS demo_orders (id BIGINT PRIMARY KEY, step INT NOT NULL, "
          + "status VARCHAR(20) NOT NULL, total DECIMAL(10,2) NOT NULL)");
      try (ResultSet rows = statement.executeQuery("SELECT COALESCE(MAX(id), 0) FROM demo_orders")) {
        rows.next();
        nextOrder = rows.getLong(1) + 1;
      }
      try (ResultSet rows = statement.executeQuery("SELECT id, step FROM demo_orders WHERE step < "
          + STEPS.length + " ORDER BY id")) {
        while (rows.next()) {
          open.add(new long[] {rows.getLong(1), rows.getInt(2)});
        }
      }
    }
    scheduler.scheduleAtFixedRate(this::oneTransaction, 0, 1_000_000 / perSecond, TimeUnit.MICROSECONDS);
  }

  private void oneTransaction() {
    transactions++;
    boolean fresh = open.size() < 40 && (open.isEmpty() || random.nextInt(3) == 0);
    long[] order = fresh ? new long[] {nextOrder, 0} : open.get(random.nextInt(open.size()));
    int step = (int) order[1] + 1;
    boolean rollback = transactions % 8 == 0;
    boolean invoice = !rollback && transactions % 20 == 0;
    try (Connection connection = dataSource.getConnection()) {
      connection.setAutoCommit(false);
      try {
        String total = String.format(Locale.ROOT, "%.2f", 10 + (order[0] * 7919 % 9000) / 100.0);
        if (step == 1) {
          try (PreparedStatement insert = connection.prepareStatement(
              "INSERT INTO demo_orders (id, step, status, total) VALUES (?, 1, ?, ?)")) {
            insert.setLong(1, order[0]);
            insert.setString(2, STEPS[0]);
            insert.setBigDecimal(3, new java.math.BigDecimal(total));
            insert.executeUpdate();
          }
        } else {
          try (PreparedStatement update = connection.prepareStatement(
              "UPDATE demo_orders SET step = ?, status = ? WHERE id = ?")) {
            update.setInt(1, step);
            update.setString(2, STEPS[step - 1]);
            update.setLong(3, order[0]);
            update.executeUpdate();
          }
        }
        String json = "{\"order\":" + order[0] + ",\"event\":\"" + STEPS[step - 1] + "\",\"step\":" + step
            + ",\"total\":" + total + "}";
        outbox.write(connection, Message.builder().withDestination("orders")
            .withOrderingKey("order-" + order[0]).withContentType("application/json")
            .withPayload(json.getBytes(StandardCharsets.UTF_8)).build());
        if (invoice) {
          outbox.write(connection, Message.builder().withDestination("legacy-erp")
              .withOrderingKey("invoice-" + order[0]).withContentType("application/json")
              .withPayload(("{\"invoice\":" + order[0] + ",\"total\":" + total + "}")
                  .getBytes(StandardCharsets.UTF_8)).build());
        }
        if (rollback) {
          connection.rollback();
          rolledBack.incrementAndGet();
          return;
        }
        connection.commit();
        committed.incrementAndGet();
      } catch (SQLException | RuntimeException e) {
        connection.rollback();
        throw e;
      }
    } catch (SQLException | RuntimeException e) {
      System.getLogger(DemoProducer.class.getName()).log(System.Logger.Level.WARNING,
          "demo transaction failed: " + e.getMessage());
      return;
    }
    if (fresh) {
      nextOrder++;
      open.add(order);
    }
    order[1] = step;
    if (step >= STEPS.length) {
      open.remove(order);
    }
    afterCommit.run();
  }

  /** @return transactions committed */
  public long committed() {
    return committed.get();
  }

  /** @return transactions rolled back on purpose */
  public long rolledBack() {
    return rolledBack.get();
  }

  /** Stops writing; a transaction under way finishes first. */
  @Override
  public void close() {
    scheduler.shutdown();
    try {
      scheduler.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
