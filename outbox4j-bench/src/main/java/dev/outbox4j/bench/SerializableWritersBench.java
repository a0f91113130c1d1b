package dev.outbox4j.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.outbox4j.Message;
import dev.outbox4j.Relay;
import dev.outbox4j.jdbc.JdbcOutbox;
import dev.outbox4j.jdbc.JdbcOutboxStore;
import dev.outbox4j.jdbc.KeyNumbering;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Writers under SERIALIZABLE on PostgreSQL: how many of the application's transactions fail with {@code 40001}
 * because they also write an outbox row. The database defaults to SERIALIZABLE; N writer threads each run, for a fixed
 * time, transactions that insert one order row of a random account (of 100) and then, depending on the variant, write
 * nothing more ({@code none}, the reference), one unkeyed outbox entry ({@code unkeyed}), or one entry keyed by the
 * account ({@code keyed}); a relay drains meanwhile (no-op transport), as in production. Each failed transaction is
 * counted once, whichever statement failed, and not retried.
 *
 * <pre>
 * mvn -q -pl outbox4j-bench -am test-compile exec:java -Dexec.args="serializable-writers --writers 8 --seconds 10"
 * mvn -q -pl outbox4j-bench -am test-compile exec:java -Dexec.args="serializable-writers --numbering insert"
 * </pre>
 * It creates a database of its own ({@code o4j_<epoch>_<pid>_bench}) and drops it at the end.
 */
public final class SerializableWritersBench {
  private static final String PREFIX = "bench_ser_";
  private static final int ACCOUNTS = 100;

  private SerializableWritersBench() {}

  /**
   * @param args {@code --writers N} (default 8), {@code --seconds N} per variant (default 10), {@code --numbering
   *     commit|insert} (when keys are numbered, default commit: {@link JdbcOutboxStore#useKeyNumbering})
   */
  public static void main(String[] args) throws Exception {
    int writers = 8;
    int seconds = 10;
    KeyNumbering numbering = KeyNumbering.AT_COMMIT;
    for (int i = 0; i + 1 < args.length; i += 2) {
      switch (args[i]) {
        case "--writers" -> writers = Integer.parseInt(args[i + 1]);
        case "--seconds" -> seconds = Integer.parseInt(args[i + 1]);
        case "--numbering" -> numbering = KeyNumbering.fromConfigName(args[i + 1]);
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    String name = "o4j_" + Instant.now().getEpochSecond() + "_" + ProcessHandle.current().pid() + "_bench";
    String server = "jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres";
    try (Connection c = DriverManager.getConnection(server); Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE " + name);
      s.execute("ALTER DATABASE " + name + " SET default_transaction_isolation = 'serializable'");
    }
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl("jdbc:postgresql://127.0.0.1:5432/" + name + "?user=postgres");
    config.setMaximumPoolSize(writers + 4);
    try (HikariDataSource pool = new HikariDataSource(config)) {
      JdbcOutboxStore store = JdbcOutboxStore.builder(pool).withTablePrefix(PREFIX).build();
      store.migrate();
      store.useKeyNumbering(numbering);
      try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
        s.execute("CREATE TABLE bench_order (id bigserial PRIMARY KEY, account int NOT NULL, amount int NOT NULL)");
      }
      System.out.printf("serializable writers: %d writers, %d s per variant, %d accounts, keys numbered at %s, a relay"
          + " draining%n", writers, seconds, ACCOUNTS, numbering.configName());
      System.out.println("| variant | transactions | failed with 40001 | failure rate |");
      System.out.println("| --- | --- | --- | --- |");
      for (String variant : List.of("none", "unkeyed", "keyed", "none", "unkeyed", "keyed")) {
        run(pool, store, variant, writers, Duration.ofSeconds(seconds));
      }
    } finally {
      try (Connection c = DriverManager.getConnection(server); Statement s = c.createStatement()) {
        s.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
      }
    }
  }

  private static void run(HikariDataSource pool, JdbcOutboxStore store, String variant, int writers, Duration time)
      throws Exception {
    JdbcOutbox outbox = store.outbox();
    AtomicLong committed = new AtomicLong();
    AtomicLong failed = new AtomicLong();
    long end = System.nanoTime() + time.toNanos();
    ExecutorService threads = Executors.newFixedThreadPool(writers);
    try (Relay relay = Relay.builder(store, new NoOpTransport(new DeliveryCounter())).build()) {
      relay.start();
      List<Future<?>> running = new ArrayList<>();
      for (int w = 0; w < writers; w++) {
        running.add(threads.submit(() -> {
          while (System.nanoTime() < end) {
            int account = ThreadLocalRandom.current().nextInt(ACCOUNTS);
            try (Connection c = pool.getConnection()) {
              c.setAutoCommit(false);
              try {
                try (PreparedStatement order = c.prepareStatement(
                    "INSERT INTO bench_order (account, amount) VALUES (?, ?)")) {
                  order.setInt(1, account);
                  order.setInt(2, 1 + ThreadLocalRandom.current().nextInt(100));
                  order.executeUpdate();
                }
                if (!variant.equals("none")) {
                  Message.Builder message = Message.builder().withDestination("orders").withPayload("o");
                  if (variant.equals("keyed")) {
                    message.withOrderingKey("account-" + account);
                  }
                  outbox.write(c, message.build());
                }
                c.commit();
                committed.incrementAndGet();
              } catch (SQLException | RuntimeException e) {
                c.rollback();
                if (!isSerializationFailure(e)) {
                  throw e;
                }
                failed.incrementAndGet();
              }
            }
          }
          return null;
        }));
      }
      for (Future<?> writer : running) {
        writer.get(time.toSeconds() + 60, TimeUnit.SECONDS);
      }
    } finally {
      threads.shutdownNow();
    }
    long total = committed.get() + failed.get();
    System.out.printf("| %s | %,d | %,d | %.2f %% |%n", variant, total, failed.get(),
        total == 0 ? 0.0 : 100.0 * failed.get() / total);
  }

  private static boolean isSerializationFailure(Throwable error) {
    for (Throwable t = error; t != null; t = t.getCause()) {
      if (t instanceof SQLException sql && "40001".equals(sql.getSQLState())) {
        return true;
      }
    }
    return false;
  }
}
