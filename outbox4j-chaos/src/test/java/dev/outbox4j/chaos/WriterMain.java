package dev.outbox4j.chaos;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.outbox4j.Message;
import dev.outbox4j.jdbc.JdbcOutbox;
import dev.outbox4j.jdbc.JdbcOutboxStore;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A writer process: application threads that each write one keyed message per transaction, as fast as they can, with
 * a random pause before the commit so that transactions of one key overlap (the later-inserted often commits first),
 * and about one in ten rolled back. There is no application-level lock per key: ordering is the library's job.
 *
 * <p>Keys: {@code hot} hot keys take {@code hotShare} of the messages (the backlog on a handful of keys), the rest
 * spread over {@code keys} keys. Each commit is recorded in the side table of {@link CommitRecord} in the same
 * transaction; each rollback prints {@code ROLLED_BACK <id>}. A failure (the database crashed) rolls back, waits a
 * little and carries on. Runs for {@code duration}, then prints {@code WRITER_DONE} and exits.
 */
public final class WriterMain {
  private static final PrintStream OUT = new PrintStream(System.out, true, StandardCharsets.UTF_8);

  private WriterMain() {}

  /** @param arguments {@code name=value}: see {@link ChaosRun} for the names */
  public static void main(String[] arguments) throws Exception {
    ChildWatchdog.haltWhenParentExits();
    ChildArguments args = ChildArguments.parse(arguments);
    CommitRecord commits = CommitRecord.valueOf(args.text("commitRecord"));
    int threads = args.integer("threads");
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(args.text("url"));
    config.setMaximumPoolSize(threads);
    config.setConnectionTimeout(2_000);
    config.setInitializationFailTimeout(-1);
    config.setPoolName("writer");
    try (HikariDataSource pool = new HikariDataSource(config)) {
      JdbcOutbox outbox = JdbcOutboxStore.builder(pool).withTablePrefix(args.text("prefix")).build().outbox();
      long end = System.nanoTime() + args.duration("duration").toNanos();
      AtomicLong committed = new AtomicLong();
      AtomicLong rolledBack = new AtomicLong();
      AtomicLong failures = new AtomicLong();
      List<Thread> workers = new ArrayList<>();
      SplittableRandom seeds = new SplittableRandom(args.integer("seed"));
      for (int t = 0; t < threads; t++) {
        SplittableRandom random = seeds.split();
        String name = args.text("name") + "-" + t;
        Thread worker = new Thread(() -> {
          long n = 0;
          while (System.nanoTime() < end) {
            String key = pickKey(random, args);
            Message message = Message.builder().withDestination(args.text("destination")).withOrderingKey(key)
                .withPayload(name + "-" + n++).build();
            boolean rollBack = random.nextDouble() < args.decimal("rollbackShare");
            try (Connection connection = pool.getConnection()) {
              connection.setAutoCommit(false);
              try {
                outbox.write(connection, message);
                pause(random, args.duration("maxPause"));
                if (rollBack) {
                  connection.rollback();
                  OUT.println("ROLLED_BACK " + message.id());
                  rolledBack.incrementAndGet();
                } else {
                  commits.record(connection, message.id(), key);
                  connection.commit();
                  committed.incrementAndGet();
                }
              } catch (SQLException | RuntimeException e) {
                rollBackQuietly(connection);
                throw e;
              }
            } catch (SQLException | RuntimeException e) {
              if (failures.incrementAndGet() % 100 == 1) {
                OUT.println("WRITE_FAILED " + e);
              }
              pause(random, Duration.ofMillis(200));
            }
          }
        }, name);
        worker.start();
        workers.add(worker);
      }
      for (Thread worker : workers) {
        worker.join();
      }
      OUT.println("WRITER_DONE committed=" + committed + " rolledBack=" + rolledBack + " failures=" + failures);
    }
  }

  private static String pickKey(SplittableRandom random, ChildArguments args) {
    String prefix = args.optional("keyPrefix") == null ? "" : args.optional("keyPrefix");
    if (random.nextDouble() < args.decimal("hotShare")) {
      return prefix + "hot-" + random.nextInt(args.integer("hot"));
    }
    return prefix + "key-" + random.nextInt(args.integer("keys"));
  }

  private static void pause(SplittableRandom random, Duration max) {
    try {
      Thread.sleep(random.nextLong(max.toMillis() + 1)); // the application's think time, the point of the test
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void rollBackQuietly(Connection connection) {
    try {
      connection.rollback();
    } catch (SQLException ignored) {
      // the connection is broken; the pool discards it
    }
  }
}
