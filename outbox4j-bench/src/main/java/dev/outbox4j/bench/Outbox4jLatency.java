package dev.outbox4j.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.outbox4j.Message;
import dev.outbox4j.Relay;
import dev.outbox4j.jdbc.JdbcOutbox;
import dev.outbox4j.jdbc.JdbcOutboxStore;
import dev.outbox4j.jdbc.PostgresWakeUpListener;
import dev.outbox4j.spi.DeliveryOutcome;
import dev.outbox4j.spi.Retention;
import dev.outbox4j.spi.Transport;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * Scenario 6: latency from commit to the transport call at a fixed offered rate. Writer threads start transaction
 * {@code i} at {@code start + i / rate} (open loop: a slow commit does not lower the offered rate), record the time
 * right after their commit returns, and the transport records when the relay hands it the message (found by an index
 * header). Wake-up either by LISTEN/NOTIFY (the writer's outbox sends {@code pg_notify} in the transaction; a listener
 * wakes the relay) or in-process ({@code relay.wakeUp()} after the commit). Background relay with default polling.
 */
final class Outbox4jLatency implements Scenario {
  private static final String INDEX_HEADER = "bench-index";

  private final BenchDatabase database;
  private final BenchOptions options;
  private final boolean notify;
  private final Outbox4jTables tables;
  private final HikariDataSource writerPool;
  private final HikariDataSource relayPool;
  private final HikariDataSource listenerPool;
  private final JdbcOutboxStore store;
  private final JdbcOutbox outbox;
  private final DeliveryCounter delivered = new DeliveryCounter();
  private long[] committedAt = new long[0];
  private long[] calledAt = new long[0];

  Outbox4jLatency(BenchDatabase database, BenchOptions options, boolean notify) throws Exception {
    this.database = database;
    this.options = options;
    this.notify = notify;
    this.tables = new Outbox4jTables(database, "bench_o4j_");
    BusinessTable.reset(database);
    this.writerPool = database.pool("o4j-latency-writers", options.writers(), false);
    this.relayPool = database.pool("o4j-latency-relay", 2, true);
    this.listenerPool = database.pool("o4j-latency-listener", 1, true);
    tables.recreate(relayPool);
    this.store = tables.store(relayPool, Retention.deleteOnDelivery());
    this.outbox = store.outboxBuilder().withWakeUpNotify(notify).build();
  }

  @Override
  public String id() {
    return notify ? "latency-outbox4j" : "latency-outbox4j-inprocess";
  }

  @Override
  public String title() {
    return String.format("6 outbox4j latency commit → transport at %,d msgs/s for %d s, %s wake-up",
        options.offeredRate(), options.latencySeconds(), notify ? "LISTEN/NOTIFY" : "in-process");
  }

  @Override
  public int messages(int messages, boolean warmUp) {
    int seconds = warmUp ? Math.min(5, options.latencySeconds()) : options.latencySeconds();
    return options.offeredRate() * seconds;
  }

  @Override
  public void prepare(int messages) throws Exception {
    BusinessTable.truncate(database);
    tables.truncate();
    database.execute("VACUUM ANALYZE " + BusinessTable.NAME, "VACUUM ANALYZE " + tables.outbox());
    delivered.reset(messages);
    committedAt = new long[messages];
    calledAt = new long[messages];
  }

  @Override
  public Outcome execute(int messages) throws Exception {
    long[] committed = committedAt;
    long[] called = calledAt;
    Transport transport = new Transport() {
      @Override
      public CompletionStage<DeliveryOutcome> deliver(Message message) {
        called[Integer.parseInt(message.headers().get(INDEX_HEADER))] = System.nanoTime();
        delivered.increment();
        return CompletableFuture.completedFuture(DeliveryOutcome.delivered());
      }
    };
    long interval = 1_000_000_000L / options.offeredRate();
    @Nullable PostgresWakeUpListener listener = null;
    try (Relay relay = Relay.builder(store, transport).withBatchSize(Outbox4jDrain.BATCH).build()) {
      relay.start();
      if (notify) {
        listener = PostgresWakeUpListener.start(listenerPool, store.tableNames(), relay::wakeUp);
      }
      long start = System.nanoTime() + 10_000_000;
      Writers.run(writerPool, options.writers(), messages, index -> {
        long due = start + index * interval;
        for (long wait = due - System.nanoTime(); wait > 0; wait = due - System.nanoTime()) {
          LockSupport.parkNanos(wait);
        }
      }, (connection, index) -> {
        BusinessTable.insert(connection, index);
        outbox.write(connection, Outbox4jTables.message(null).toBuilder()
            .withHeader(INDEX_HEADER, Integer.toString(index)).build());
      }, index -> {
        committed[index] = System.nanoTime();
        if (!notify) {
          relay.wakeUp();
        }
      });
      delivered.await(Duration.ofMinutes(5));
    } finally {
      if (listener != null) {
        listener.close();
      }
    }
    long[] latencies = new long[messages];
    for (int i = 0; i < messages; i++) {
      latencies[i] = Math.max(0, called[i] - committed[i]);
    }
    Arrays.sort(latencies);
    return new Outcome(messages, 0, 0, latencies);
  }

  @Override
  public void close() {
    writerPool.close();
    relayPool.close();
    listenerPool.close();
  }
}
