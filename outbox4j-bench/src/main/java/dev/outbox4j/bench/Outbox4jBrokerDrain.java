package dev.outbox4j.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.outbox4j.BatchReport;
import dev.outbox4j.Relay;
import dev.outbox4j.RelayListener;
import dev.outbox4j.RelayResult;
import dev.outbox4j.jdbc.JdbcOutboxStore;
import dev.outbox4j.spi.Retention;
import dev.outbox4j.spi.Transport;
import java.time.Duration;
import java.util.concurrent.TimeoutException;

/**
 * Broker end to end, outbox4j's side: a relay drains a backlog of N entries of outbox4j's own table through the
 * broker's real outbox4j transport: claim {@value #BATCH} under a lease, send them all, wait for the broker's
 * confirmations, retire the confirmed ones in one statement. Compared with {@link RawBrokerDrain} on the same rows, the
 * same kind of broker destination and the same batch size.
 *
 * <p>With one worker the drain is {@code Relay.drain} on the calling thread, pass after pass, like the baseline's one
 * thread. With more, it is {@code Relay.start()} with that many background workers (a relay as a service runs it), so
 * one worker's claim overlaps another's wait for confirmations; timed until the last entry is confirmed and retired.
 */
final class Outbox4jBrokerDrain implements Scenario {
  static final int BATCH = CeilingDrain.BATCH;
  static final String TABLE_PREFIX = "bench_broker_";

  private final BenchBroker broker;
  private final int keys;
  private final int workers;
  private final boolean started;
  private final Outbox4jTables tables;
  private final HikariDataSource pool;
  private final Transport transport;
  private final JdbcOutboxStore store;
  private final dev.outbox4j.jdbc.ClaimStrategy claims;
  private final BatchTimings timings = new BatchTimings();
  private final DeliveryCounter retired = new DeliveryCounter();

  /** @param broker the broker, owned (closed) by this scenario */
  Outbox4jBrokerDrain(BenchDatabase database, BenchBroker broker, boolean keyed) throws Exception {
    this(database, broker, keyed, 1);
  }

  /**
   * @param broker the broker, owned (closed) by this scenario
   * @param workers 1 for {@code Relay.drain} on the calling thread; more for {@code Relay.start()} with that many
   */
  Outbox4jBrokerDrain(BenchDatabase database, BenchBroker broker, boolean keyed, int workers) throws Exception {
    this(database, broker, keyed, workers, ClaimNames.REFERENCE);
  }

  /** @param claims how the relay's store holds its claims */
  Outbox4jBrokerDrain(BenchDatabase database, BenchBroker broker, boolean keyed, int workers,
      dev.outbox4j.jdbc.ClaimStrategy claims) throws Exception {
    this(database, broker, keyed ? Outbox4jTables.KEYS : 0, workers, claims);
  }

  /**
   * @param keys how many keys the backlog is spread over round-robin; {@code 0} for unkeyed entries
   * @param claims how the relay's store holds its claims
   */
  Outbox4jBrokerDrain(BenchDatabase database, BenchBroker broker, int keys, int workers,
      dev.outbox4j.jdbc.ClaimStrategy claims) throws Exception {
    this(database, broker, keys, workers, claims, workers > 1);
  }

  /**
   * A relay as a service runs it, {@code Relay.start()} with one worker, timed until every entry is retired: for the
   * webhook rows, where a delivery may be retried (a connection the receiver closed), which {@code Relay.drain} would
   * leave behind for its backoff.
   */
  static Outbox4jBrokerDrain started(BenchDatabase database, BenchBroker broker, boolean keyed) throws Exception {
    return new Outbox4jBrokerDrain(database, broker, keyed ? Outbox4jTables.KEYS : 0, 1, ClaimNames.REFERENCE, true);
  }

  private Outbox4jBrokerDrain(BenchDatabase database, BenchBroker broker, int keys, int workers,
      dev.outbox4j.jdbc.ClaimStrategy claims, boolean started) throws Exception {
    this.claims = claims;
    this.broker = broker;
    this.keys = keys;
    this.workers = workers;
    this.started = started;
    this.tables = new Outbox4jTables(database, TABLE_PREFIX);
    try {
      this.pool = database.pool("o4j-" + broker.name(), workers + 1, true);
      tables.recreate(pool);
      this.transport = broker.transport();
    } catch (Exception e) {
      broker.close();
      throw e;
    }
    this.store = tables.store(pool, Retention.deleteOnDelivery(), claims);
  }

  /** A relay for one run: the store and the transport (and its broker connection) stay open across runs. */
  private Relay relay() {
    return Relay.builder(store, transport)
        .withBatchSize(BATCH)
        // Every entry of a batch in flight at once, as in the baseline: the default (256) is below the batch.
        .withMaxInFlight(BATCH * workers)
        .withWorkers(workers)
        .onEvent(timings)
        .onEvent(new RelayListener() {
          @Override
          public void onBatch(BatchReport report) {
            retired.add(report.result().delivered());
          }
        })
        .build();
  }

  @Override
  public String id() {
    return broker.name() + "-outbox4j-" + keysId()
        + (workers > 1 ? "-" + workers + "workers" : "")
        + ClaimNames.idSuffix(claims);
  }

  /** @return {@code unkeyed}, {@code keyed} (the usual 1,000 keys) or {@code <n>keys} */
  private String keysId() {
    return keys == 0 ? "unkeyed" : keys == Outbox4jTables.KEYS ? "keyed" : keys + "keys";
  }

  @Override
  public String title() {
    return "8 outbox4j relay" + (workers > 1 ? " (started, " + workers + " workers; informational)"
        : started ? " (started, 1 worker)" : "") + " → "
        + broker.describe() + ", batches of " + BATCH + ", "
        + (keys == 0 ? "unkeyed" : "keyed (" + String.format("%,d", keys) + (keys == 1 ? " key)" : " keys)"))
        + ClaimNames.titleSuffix(claims);
  }

  @Override
  public void prepare(int messages) throws Exception {
    tables.fill(messages, keys);
    broker.purge();
    timings.reset();
    retired.reset(messages);
  }

  @Override
  public Outcome execute(int messages) throws InterruptedException, TimeoutException {
    try (Relay relay = relay()) {
      if (!started) {
        RelayResult result = relay.drain(Integer.MAX_VALUE);
        if (result.delivered() != messages || result.claimed() != messages) {
          throw new IllegalStateException(id() + " claimed " + result.claimed() + " and delivered "
              + result.delivered() + " of " + messages + " (failed " + result.failed() + ")");
        }
      } else {
        relay.start();
        retired.await(Duration.ofMinutes(5));
      }
    }
    if (retired.count() != messages) {
      throw new IllegalStateException(id() + " delivered " + retired.count() + " of " + messages);
    }
    System.out.print(" " + timings.summary());
    return Outcome.of(messages);
  }

  @Override
  public void close() throws Exception {
    try (broker; transport) {
      store.close();
      pool.close();
    }
  }
}
