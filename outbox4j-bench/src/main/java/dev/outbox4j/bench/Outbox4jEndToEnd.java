package dev.outbox4j.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.outbox4j.Relay;
import dev.outbox4j.jdbc.ClaimStrategy;
import dev.outbox4j.jdbc.JdbcOutbox;
import dev.outbox4j.spi.Retention;
import java.time.Duration;

/**
 * Scenario 5, outbox4j: writer threads commit business row + {@code outbox.write} transactions and poke the relay
 * after each commit (the in-process wake-up); one background relay, batches of 500, no-op transport, delete on
 * delivery. Measured until every message was delivered.
 */
final class Outbox4jEndToEnd implements Scenario {
  private final BenchDatabase database;
  private final int writers;
  private final Outbox4jTables tables;
  private final HikariDataSource writerPool;
  private final HikariDataSource relayPool;
  private final JdbcOutbox outbox;
  private final DeliveryCounter delivered = new DeliveryCounter();
  private final BatchTimings timings = new BatchTimings();
  private final dev.outbox4j.jdbc.JdbcOutboxStore store;
  private final ClaimStrategy claims;
  private final int payloadSize;

  Outbox4jEndToEnd(BenchDatabase database, int writers) throws Exception {
    this(database, writers, ClaimNames.REFERENCE);
  }

  /** @param claims how the relay's store holds its claims */
  Outbox4jEndToEnd(BenchDatabase database, int writers, ClaimStrategy claims) throws Exception {
    this(database, writers, claims, Payloads.SIZE);
  }

  /** @param payloadSize the bytes of every message's payload (a large-message row's N is derived from it) */
  Outbox4jEndToEnd(BenchDatabase database, int writers, ClaimStrategy claims, int payloadSize) throws Exception {
    this.claims = claims;
    this.payloadSize = payloadSize;
    this.database = database;
    this.writers = writers;
    this.tables = new Outbox4jTables(database, "bench_o4j_");
    BusinessTable.reset(database);
    this.writerPool = database.pool("o4j-e2e-writers", writers, false);
    this.relayPool = database.pool("o4j-e2e-relay", 2, true);
    tables.recreate(relayPool);
    this.store = tables.store(relayPool, Retention.deleteOnDelivery(), claims);
    this.outbox = store.outbox();
  }

  @Override
  public String id() {
    return "e2e-outbox4j" + ClaimNames.idSuffix(claims) + Payloads.idSuffix(payloadSize);
  }

  @Override
  public String title() {
    return "5 outbox4j: " + writers + " writers (business row + outbox.write) + 1 relay, in-process wake-up"
        + ClaimNames.titleSuffix(claims)
        + (payloadSize == Payloads.SIZE ? "" : ", " + Payloads.words(payloadSize) + " payloads");
  }

  @Override
  public int payloadBytes() {
    return payloadSize;
  }

  @Override
  public void prepare(int messages) throws Exception {
    BusinessTable.truncate(database);
    tables.truncate();
    database.analyze(BusinessTable.NAME, tables.outbox());
    delivered.reset(messages);
    timings.reset();
  }

  /**
   * The relay's batch linger; the library default unless the experiment property {@code outbox4j.bench.batchLinger}
   * (an ISO-8601 duration such as {@code PT0S}) overrides it.
   */
  static final Duration BATCH_LINGER = Duration.parse(System.getProperty("outbox4j.bench.batchLinger",
      dev.outbox4j.RelayBuilder.DEFAULT_BATCH_LINGER.toString()));

  @Override
  public Outcome execute(int messages) throws Exception {
    try (Relay relay = Relay.builder(store, new NoOpTransport(delivered)).withBatchSize(Outbox4jDrain.BATCH)
        .withBatchLinger(BATCH_LINGER).onEvent(timings).build()) {
      relay.start();
      Writers.run(writerPool, writers, messages, index -> {}, (connection, index) -> {
        BusinessTable.insert(connection, index);
        outbox.write(connection, Outbox4jTables.message(null, payloadSize));
      }, index -> relay.wakeUp());
      delivered.await(Duration.ofMinutes(10));
    }
    System.out.print(" " + timings.summary());
    return Outcome.of(delivered.count());
  }

  @Override
  public void close() {
    writerPool.close();
    store.close();
    relayPool.close();
  }
}
