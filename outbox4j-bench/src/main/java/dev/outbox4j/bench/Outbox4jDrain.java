package dev.outbox4j.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.outbox4j.Relay;
import dev.outbox4j.RelayResult;
import dev.outbox4j.jdbc.ClaimStrategy;
import dev.outbox4j.jdbc.JdbcOutboxStore;
import dev.outbox4j.spi.Retention;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Scenario 2: outbox4j's relay drains the same N backlog with a no-op transport, through {@code Relay.drain}: claim
 * 500 under a lease (one statement), hand each to the transport, retire the batch (one statement). Variants: delete or
 * keep delivered entries (compared with the ceiling's DELETE or UPDATE), one or two relays (each with its own store
 * and pool, as two processes would have), unkeyed or spread over 1,000 ordering keys, claims held by each
 * {@link ClaimStrategy} ({@link ClaimNames}).
 */
final class Outbox4jDrain implements Scenario {
  static final int BATCH = CeilingDrain.BATCH;

  private final Outbox4jTables tables;
  private final boolean keep;
  private final int relays;
  private final boolean keyed;
  private final boolean asyncCommit;
  private final ClaimStrategy claims;
  private final int payloadSize;
  private final List<JdbcOutboxStore> stores = new ArrayList<>();
  private final List<HikariDataSource> pools = new ArrayList<>();
  private final List<Relay> relayList = new ArrayList<>();
  private final DeliveryCounter delivered = new DeliveryCounter();
  private final BatchTimings timings = new BatchTimings();
  /** Set by {@link #oneCommitPerBatch}: an experiment, not the default configuration. */
  private boolean oneCommit;
  /** Set by {@link #statementsPrepared}: an option, not the default configuration. */
  private boolean prepared;
  private final boolean postgres;

  Outbox4jDrain(BenchDatabase database, boolean keep, int relays, boolean keyed) throws Exception {
    this(database, keep, relays, keyed, false);
  }

  /**
   * @param asyncCommit an experiment, not a default: the relay's connections run with
   *     {@code synchronous_commit = off}, so claims and completions do not wait for the WAL flush (a crash may then
   *     forget the last claims or completions, which only causes redeliveries)
   */
  Outbox4jDrain(BenchDatabase database, boolean keep, int relays, boolean keyed, boolean asyncCommit)
      throws Exception {
    this(database, keep, relays, keyed, asyncCommit, ClaimNames.REFERENCE);
  }

  /** @param claims how the relays' stores hold their claims */
  Outbox4jDrain(BenchDatabase database, boolean keep, int relays, boolean keyed, boolean asyncCommit,
      ClaimStrategy claims) throws Exception {
    this(database, keep, relays, keyed, asyncCommit, claims, Payloads.SIZE);
  }

  /**
   * @param payloadSize the bytes of every entry's payload (unkeyed only; a large-message row's N is derived from it)
   */
  Outbox4jDrain(BenchDatabase database, boolean keep, int relays, boolean keyed, boolean asyncCommit,
      ClaimStrategy claims, int payloadSize) throws Exception {
    if (asyncCommit && database.mariaDb()) {
      throw new IllegalArgumentException("synchronous_commit is PostgreSQL's; MariaDB's commit durability is the"
          + " server's (innodb_flush_log_at_trx_commit)");
    }
    this.payloadSize = payloadSize;
    this.tables = new Outbox4jTables(database, "bench_o4j_");
    this.keep = keep;
    this.relays = relays;
    this.keyed = keyed;
    this.asyncCommit = asyncCommit;
    this.claims = claims;
    this.postgres = !database.mariaDb();
    for (int i = 0; i < relays; i++) {
      HikariDataSource pool = database.pool("o4j-drain-" + i, 2, true,
          asyncCommit ? "SET synchronous_commit = off" : null);
      pools.add(pool);
      if (i == 0) {
        tables.recreate(pool);
      }
    }
    buildRelays();
  }

  /** (Re)builds a store and a relay on each pool, as {@link #prepared} says. */
  private void buildRelays() {
    relayList.forEach(Relay::close);
    stores.forEach(JdbcOutboxStore::close);
    relayList.clear();
    stores.clear();
    Retention retention = keep ? Retention.keepFor(Duration.ofDays(1)) : Retention.deleteOnDelivery();
    for (HikariDataSource pool : pools) {
      JdbcOutboxStore store = tables.store(pool, retention, claims, prepared);
      stores.add(store);
      relayList.add(Relay.builder(store, new NoOpTransport(delivered))
          .withBatchSize(BATCH)
          .onEvent(timings)
          .build());
    }
  }

  /**
   * Makes this row the relay with its store's statements prepared by pgjdbc
   * ({@code JdbcOutboxStore.Builder.withPreparedStatements(true)}, for applications that reach PostgreSQL directly):
   * what the unnamed statements of the default configuration cost a drain. Default claims, one relay, unordered only.
   *
   * @return this drain
   */
  Outbox4jDrain statementsPrepared() {
    if (!postgres || claims != ClaimNames.REFERENCE || relays != 1 || keyed || asyncCommit || oneCommit
        || payloadSize != Payloads.SIZE) {
      throw new IllegalStateException("prepared statements are measured on PostgreSQL's plain one-relay rows only");
    }
    prepared = true;
    buildRelays();
    return this;
  }

  /**
   * Makes this row the experiment of {@code JdbcOutboxStore.useOneCommitPerBatch(true)}: the relays retire a full
   * batch's last confirmations in the next claim's transaction. Default claims, one relay, unordered only.
   *
   * @return this drain
   */
  Outbox4jDrain oneCommitPerBatch() {
    if (claims != ClaimNames.REFERENCE || relays != 1 || keyed || asyncCommit || prepared
        || payloadSize != Payloads.SIZE) {
      throw new IllegalStateException("one commit per batch is measured on the plain one-relay rows only");
    }
    stores.forEach(store -> store.useOneCommitPerBatch(true));
    oneCommit = true;
    return this;
  }

  /** @return the relays' pools, one per relay (for tests) */
  List<HikariDataSource> pools() {
    return List.copyOf(pools);
  }

  @Override
  public String id() {
    return baseId() + Payloads.idSuffix(payloadSize);
  }

  private String baseId() {
    if (claims != ClaimNames.REFERENCE) {
      return "outbox4j-drain" + ClaimNames.idSuffix(claims) + "-"
          + (keyed ? "ordered" : relays > 1 ? "2relays" : keep ? "keep" : "delete");
    }
    if (asyncCommit) {
      return "outbox4j-drain-async-commit";
    }
    if (oneCommit) {
      return keep ? "outbox4j-drain-one-commit-keep" : "outbox4j-drain-one-commit-delete";
    }
    if (prepared) {
      return keep ? "outbox4j-drain-prepared-keep" : "outbox4j-drain-prepared-delete";
    }
    if (keyed) {
      return "outbox4j-drain-ordered";
    }
    if (relays > 1) {
      return "outbox4j-drain-2relays";
    }
    return keep ? "outbox4j-drain-keep" : "outbox4j-drain-delete";
  }

  @Override
  public String title() {
    return "2 outbox4j drain, no-op transport, " + relays + (relays == 1 ? " relay, " : " relays, ")
        + (keyed ? "ordered (" + Outbox4jTables.KEYS + " keys), " : "unordered, ")
        + (keep ? "keep (UPDATE)" : "delete")
        + (asyncCommit ? "; experiment: relay connections with synchronous_commit off" : "")
        + (oneCommit ? "; experiment: one commit per batch (useOneCommitPerBatch)" : "")
        + (prepared ? "; statements prepared (withPreparedStatements)" : "")
        + (claims == ClaimNames.REFERENCE ? "" : "; claims as " + ClaimNames.words(claims))
        + (payloadSize == Payloads.SIZE ? "" : ", " + Payloads.words(payloadSize) + " payloads");
  }

  @Override
  public int payloadBytes() {
    return payloadSize;
  }

  @Override
  public void prepare(int messages) throws Exception {
    tables.fill(messages, keyed ? Outbox4jTables.KEYS : 0, payloadSize);
    delivered.reset(messages);
    timings.reset();
  }

  @Override
  public Outcome execute(int messages) throws Exception {
    AtomicReference<Throwable> failure = new AtomicReference<>();
    List<Thread> threads = new ArrayList<>();
    long[] retired = new long[relays];
    for (int i = 0; i < relays; i++) {
      int index = i;
      Thread thread = new Thread(() -> {
        try {
          RelayResult result = relayList.get(index).drain(Integer.MAX_VALUE);
          retired[index] = result.delivered();
        } catch (Throwable e) {
          failure.compareAndSet(null, e);
        }
      }, "bench-o4j-drain-" + i);
      thread.start();
      threads.add(thread);
    }
    for (Thread thread : threads) {
      thread.join();
    }
    if (failure.get() != null) {
      throw new IllegalStateException(id() + " failed", failure.get());
    }
    long total = 0;
    for (long count : retired) {
      total += count;
    }
    if (total != messages || delivered.count() != messages) {
      throw new IllegalStateException(id() + " retired " + total + " and sent " + delivered.count() + " of "
          + messages);
    }
    System.out.print(" " + timings.summary());
    return Outcome.of(total);
  }

  @Override
  public void close() {
    relayList.forEach(Relay::close);
    stores.forEach(JdbcOutboxStore::close);
    pools.forEach(HikariDataSource::close);
  }
}
