package dev.outbox4j.bench;

import dev.outbox4j.Message;
import dev.outbox4j.Relay;
import dev.outbox4j.jdbc.JdbcOutboxStore;
import dev.outbox4j.spi.DeliveryOutcome;
import dev.outbox4j.spi.Transport;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The other destinations' throughput beside a paused destination's waiting backlog (issue 37), a phase of
 * {@link ClaimBacklogBench} ({@code --only paused}) on PostgreSQL or MariaDB.
 *
 * <p>Each round fills fresh tables set-based: with the backlog, {@code paused} unkeyed entries to {@code webhooks}
 * first (the oldest), then {@code healthy} unkeyed entries to {@code orders}; without it, only the latter. One relay
 * with the defaults (batch 200, one worker, outage back-off 1 s to 30 s) starts; its transport answers every
 * {@code webhooks} message {@link DeliveryOutcome#unavailable unavailable} (the relay pauses that destination after
 * its first pass and probes it from then on, as with an endpoint answering 503) and confirms every other at once. The
 * figure is {@code healthy} divided by the time from the start until the last {@code orders} entry was confirmed. The
 * two cases alternate, with and without first in turn, and the medians are compared.
 */
final class PausedBacklogRun {
  /** Drops and migrates the bench's tables. */
  @FunctionalInterface
  interface Fresh {
    JdbcOutboxStore store() throws SQLException;
  }

  /** Runs statements on the bench's database. */
  @FunctionalInterface
  interface Execute {
    void run(String... statements) throws SQLException;
  }

  private static final Duration TIMEOUT = Duration.ofMinutes(3);

  private final String db;
  private final String outbox;
  private final Fresh fresh;
  private final Execute execute;

  PausedBacklogRun(String db, String outbox, Fresh fresh, Execute execute) {
    this.db = db;
    this.outbox = outbox;
    this.fresh = fresh;
    this.execute = execute;
  }

  void run(int paused, int healthy, int rounds) throws Exception {
    double[] without = new double[rounds];
    double[] with = new double[rounds];
    long probes = 0;
    for (int round = 0; round < rounds; round++) {
      for (boolean backlog : round % 2 == 0 ? new boolean[] {false, true} : new boolean[] {true, false}) {
        Measured measured = measure(backlog ? paused : 0, healthy);
        (backlog ? with : without)[round] = measured.rate();
        probes += backlog ? measured.pausedSends() : 0;
        System.out.printf("round %d, %s: %,.0f msgs/s%n", round + 1,
            backlog ? String.format("beside %,d paused", paused) : "alone", measured.rate());
      }
    }
    Arrays.sort(without);
    Arrays.sort(with);
    double ratio = with[rounds / 2] / without[rounds / 2];
    System.out.println("| other destination's backlog | paused destination | msgs/s (median) | rounds | ratio |");
    System.out.println("| --- | --- | --- | --- | --- |");
    System.out.printf("| %,d unkeyed | none | %,.0f | %s | 1 |%n", healthy, without[rounds / 2],
        Arrays.toString(Arrays.stream(without).mapToLong(Math::round).toArray()));
    System.out.printf("| %,d unkeyed | %,d unkeyed waiting, paused | %,.0f | %s | **%.2f ×** |%n", healthy, paused,
        with[rounds / 2], Arrays.toString(Arrays.stream(with).mapToLong(Math::round).toArray()), ratio);
    System.out.printf("sends to the paused destination over the %d rounds with it (its first batch, then probes):"
        + " %,d%n", rounds, probes);
  }

  private record Measured(double rate, long pausedSends) {}

  private Measured measure(int paused, int healthy) throws Exception {
    JdbcOutboxStore store = fresh.store();
    if (paused > 0) {
      fill("webhooks", paused);
    }
    fill("orders", healthy);
    analyze();
    DeliveryCounter counter = new DeliveryCounter();
    counter.reset(healthy);
    AtomicLong refused = new AtomicLong();
    Transport transport = new Transport() {
      @Override
      public CompletionStage<DeliveryOutcome> deliver(Message message) {
        if (message.destination().equals("webhooks")) {
          refused.incrementAndGet();
          return CompletableFuture.completedFuture(DeliveryOutcome.unavailable("503 Service Unavailable"));
        }
        counter.increment();
        return CompletableFuture.completedFuture(DeliveryOutcome.delivered());
      }
    };
    Relay relay = Relay.builder(store, transport).build();
    long start = System.nanoTime();
    relay.start();
    try {
      counter.await(TIMEOUT);
    } catch (TimeoutException e) {
      System.out.printf("starved: %,d of %,d delivered in %s%n", counter.count(), healthy, TIMEOUT);
    } finally {
      relay.close();
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    return new Measured(counter.count() / seconds, refused.get());
  }

  /** Inserts {@code rows} waiting unkeyed entries to {@code destination}, set-based, after every earlier one. */
  private void fill(String destination, int rows) throws SQLException {
    String columns = " (id, destination, payload, created_at, available_at) ";
    switch (db) {
      case "postgresql" -> execute.run("INSERT INTO " + outbox + columns + "SELECT gen_random_uuid(), '" + destination
          + "', convert_to(repeat('x', 200), 'UTF8'), '2000-01-01T00:00:00Z', '2000-01-01T00:00:00Z'"
          + " FROM generate_series(1, " + rows + ") g ORDER BY g");
      case "mariadb" -> {
        for (int from = 0; from < rows; from += 100_000) {
          int to = Math.min(rows, from + 100_000) - 1;
          execute.run("INSERT INTO " + outbox + columns + "SELECT UUID(), '" + destination + "', REPEAT('x', 200),"
              + " '2000-01-01 00:00:00', '2000-01-01 00:00:00' FROM seq_" + from + "_to_" + to + " ORDER BY seq");
        }
      }
      default -> throw new IllegalArgumentException("the paused-backlog phase runs on postgresql or mariadb, not "
          + db);
    }
  }

  private void analyze() throws SQLException {
    execute.run(db.equals("postgresql") ? "VACUUM ANALYZE " + outbox : "ANALYZE TABLE " + outbox);
  }
}
