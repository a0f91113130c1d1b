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
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Arrays;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * Scenario 6: latency from commit to the transport call at a fixed offered rate. Writer threads start transaction
 * {@code i} at {@code start + i / rate} (open loop: a slow commit does not lower the offered rate), record the time
 * right after their commit returns, and the transport records when the relay hands it the message (found by an index
 * header). Wake-up by LISTEN/NOTIFY (the writer's outbox sends {@code pg_notify} in the transaction; a listener
 * wakes the relay), in-process ({@code relay.wakeUp()} after the commit), or by the opt-in notify trigger: the writer
 * inserts the outbox row with plain SQL, as an application in another language would, and the trigger notifies.
 * Background relay with default polling.
 */
final class Outbox4jLatency implements Scenario {
  private static final String INDEX_HEADER = "bench-index";

  /** How a commit reaches the relay. */
  enum Wake {
    /** The Java writer's {@code pg_notify}, heard by a listener. */
    NOTIFY,
    /** {@code relay.wakeUp()} in the writer's process after its commit. */
    IN_PROCESS,
    /** A plain SQL insert; the notify trigger's notification, heard by a listener. */
    TRIGGER
  }

  private final BenchDatabase database;
  private final BenchOptions options;
  private final Wake wake;
  private final boolean prepared;
  private final Outbox4jTables tables;
  private final HikariDataSource writerPool;
  private final HikariDataSource relayPool;
  private final @Nullable HikariDataSource listenerPool;
  private final JdbcOutboxStore store;
  private final JdbcOutbox outbox;
  private final DeliveryCounter delivered = new DeliveryCounter();
  private long[] committedAt = new long[0];
  private long[] calledAt = new long[0];

  /**
   * @param prepared whether the store (and the Java writer) let pgjdbc prepare their statements
   *     ({@code JdbcOutboxStore.Builder.withPreparedStatements}, the relay app's {@code database.prepared-statements})
   *     instead of sending them unnamed
   * @throws IllegalArgumentException for a LISTEN/NOTIFY wake-up on MariaDB, which has no notifications
   */
  Outbox4jLatency(BenchDatabase database, BenchOptions options, Wake wake, boolean prepared) throws Exception {
    if (wake != Wake.IN_PROCESS && database.mariaDb()) {
      throw new IllegalArgumentException("MariaDB has no LISTEN/NOTIFY: only the in-process wake-up runs there");
    }
    this.database = database;
    this.options = options;
    this.wake = wake;
    this.prepared = prepared;
    this.tables = new Outbox4jTables(database, "bench_o4j_");
    BusinessTable.reset(database);
    this.writerPool = database.pool("o4j-latency-writers", options.writers(), false);
    this.relayPool = database.pool("o4j-latency-relay", 2, true);
    this.listenerPool = wake == Wake.IN_PROCESS ? null : database.pool("o4j-latency-listener", 1, true);
    tables.recreate(relayPool);
    this.store = tables.store(relayPool, Retention.deleteOnDelivery(), ClaimNames.REFERENCE, prepared);
    this.outbox = store.outboxBuilder().withWakeUpNotify(wake == Wake.NOTIFY).build();
    if (wake == Wake.TRIGGER) {
      store.installNotifyTrigger();
    }
  }

  @Override
  public String id() {
    return switch (wake) {
      case NOTIFY -> "latency-outbox4j";
      case IN_PROCESS -> "latency-outbox4j-inprocess";
      case TRIGGER -> "latency-outbox4j-trigger";
    } + (prepared ? "-prepared" : "");
  }

  @Override
  public String title() {
    return String.format("6 outbox4j latency commit → transport at %,d msgs/s for %d s, %s wake-up",
        options.offeredRate(), options.latencySeconds(), switch (wake) {
          case NOTIFY -> "LISTEN/NOTIFY";
          case IN_PROCESS -> "in-process";
          case TRIGGER -> "plain SQL inserts, notify trigger";
        } + (prepared ? ", statements prepared" : ""));
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
    database.analyze(BusinessTable.NAME, tables.outbox());
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
      if (wake != Wake.IN_PROCESS) {
        listener = PostgresWakeUpListener.start(java.util.Objects.requireNonNull(listenerPool), store.tableNames(),
            relay::wakeUp);
      }
      long start = System.nanoTime() + 10_000_000;
      Writers.run(writerPool, options.writers(), messages, index -> {
        long due = start + index * interval;
        for (long wait = due - System.nanoTime(); wait > 0; wait = due - System.nanoTime()) {
          LockSupport.parkNanos(wait);
        }
      }, (connection, index) -> {
        BusinessTable.insert(connection, index);
        if (wake == Wake.TRIGGER) {
          insertPlain(connection, index);
        } else {
          outbox.write(connection, Outbox4jTables.message(null).toBuilder()
              .withHeader(INDEX_HEADER, Integer.toString(index)).build());
        }
      }, index -> {
        committed[index] = System.nanoTime();
        if (wake == Wake.IN_PROCESS) {
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
    if (listenerPool != null) {
      listenerPool.close();
    }
  }

  /** The row another application writes with plain SQL (docs/schema.md), carrying the index header. */
  private void insertPlain(Connection connection, int index) throws SQLException {
    try (PreparedStatement insert = connection.prepareStatement("INSERT INTO " + tables.outbox()
        + " (id, destination, payload, content_type, headers) VALUES (?, ?, ?, 'application/json', ?)")) {
      insert.setObject(1, UUID.randomUUID());
      insert.setString(2, Payloads.DESTINATION);
      insert.setBytes(3, Payloads.bytes());
      insert.setString(4, "{\"" + INDEX_HEADER + "\":\"" + index + "\"}");
      insert.executeUpdate();
    }
  }
}
