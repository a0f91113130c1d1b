package dev.outbox4j.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.outbox4j.Relay;
import dev.outbox4j.RelayResult;
import dev.outbox4j.spi.Retention;
import dev.outbox4j.spi.Transport;

/**
 * Broker end to end, outbox4j's side: one relay drains a backlog of N entries of outbox4j's own table through the
 * broker's real outbox4j transport ({@code Relay.drain}): claim {@value #BATCH} under a lease, send them all, wait for
 * the broker's confirmations, retire the confirmed ones in one statement. Compared with {@link RawBrokerDrain} on the
 * same rows, the same broker destination and the same batch size.
 */
final class Outbox4jBrokerDrain implements Scenario {
  static final int BATCH = CeilingDrain.BATCH;
  static final String TABLE_PREFIX = "bench_broker_";

  private final BenchBroker broker;
  private final boolean keyed;
  private final Outbox4jTables tables;
  private final HikariDataSource pool;
  private final Transport transport;
  private final Relay relay;
  private final BatchTimings timings = new BatchTimings();

  /** @param broker the broker, owned (closed) by this scenario */
  Outbox4jBrokerDrain(BenchDatabase database, BenchBroker broker, boolean keyed) throws Exception {
    this.broker = broker;
    this.keyed = keyed;
    this.tables = new Outbox4jTables(database, TABLE_PREFIX);
    try {
      this.pool = database.pool("o4j-" + broker.name(), 2, true);
      tables.recreate(pool);
      this.transport = broker.transport();
    } catch (Exception e) {
      broker.close();
      throw e;
    }
    // Every entry of a batch in flight at once, as the baseline has: the in-flight default (256) is below the batch.
    this.relay = Relay.builder(tables.store(pool, Retention.deleteOnDelivery()), transport)
        .withBatchSize(BATCH)
        .withMaxInFlight(BATCH)
        .onEvent(timings)
        .build();
  }

  @Override
  public String id() {
    return broker.name() + "-outbox4j-" + (keyed ? "keyed" : "unkeyed");
  }

  @Override
  public String title() {
    return "8 outbox4j relay → " + broker.describe() + ", batches of " + BATCH + ", "
        + (keyed ? "keyed (" + Outbox4jTables.KEYS + " keys)" : "unkeyed");
  }

  @Override
  public void prepare(int messages) throws Exception {
    tables.fill(messages, keyed);
    broker.purge();
    timings.reset();
  }

  @Override
  public Outcome execute(int messages) {
    RelayResult result = relay.drain(Integer.MAX_VALUE);
    if (result.delivered() != messages || result.claimed() != messages) {
      throw new IllegalStateException(id() + " claimed " + result.claimed() + " and delivered " + result.delivered()
          + " of " + messages + " (failed " + result.failed() + ")");
    }
    System.out.print(" " + timings.summary());
    return Outcome.of(result.delivered());
  }

  @Override
  public void close() throws Exception {
    try (broker; pool; transport) {
      relay.close();
    }
  }
}
