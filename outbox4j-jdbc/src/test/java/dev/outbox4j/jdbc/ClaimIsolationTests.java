package dev.outbox4j.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.outbox4j.Message;
import dev.outbox4j.spi.Claim;
import dev.outbox4j.spi.Retention;
import dev.outbox4j.testkit.SettableClock;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * The claim enforces its own session contract ({@link ClaimSession}): with the relays' connections defaulting to each
 * isolation level the database offers (and, on PostgreSQL, {@code synchronous_commit = off}), concurrent relays on
 * pools of their own drain keyed entries with no entry claimed twice while its claim is unexpired, no key out of
 * order and nothing lost; and each claim transaction, read from inside just before its commit, runs at READ COMMITTED
 * (and, on PostgreSQL, with {@code synchronous_commit} on). One subclass per database.
 */
abstract class ClaimIsolationTests {
  static final int KEYS = 12;
  static final int PER_KEY = 25;
  static final int RELAYS = 3;
  private static final Duration LEASE = Duration.ofSeconds(120);

  /** @return the database under test */
  abstract TestDatabase database();

  /** @return this class's table prefix */
  abstract String prefix();

  /**
   * @param isolation a level's JDBC constant
   * @return a new pool whose connections default to that level (the caller closes it)
   */
  abstract HikariDataSource relayPool(int isolation);

  /** @return text only a claim transaction's statements contain */
  abstract String claimMarker();

  /** @return a query answering what the current transaction runs under, as {@link #expectedInClaim()} spells it */
  abstract String probe();

  /** @return the probe's answer inside a claim transaction */
  abstract String expectedInClaim();

  /**
   * Drains {@value #KEYS} × {@value #PER_KEY} keyed entries with {@value #RELAYS} relays, each on a pool of its own
   * whose connections default to {@code isolation}, and asserts the claims.
   */
  final void relays_drain_keyed_entries_safely_and_every_claim_runs_at_read_committed(int isolation,
      @Nullable ClaimStrategy strategy) throws Exception {
    DataSource shared = database().pool(prefix());
    TestDatabase.truncate(shared, TableNames.withPrefix(prefix()));
    JdbcOutbox outbox = JdbcOutboxStore.builder(shared).withTablePrefix(prefix()).build().outbox();
    try (Connection c = shared.getConnection()) {
      c.setAutoCommit(false);
      for (int i = 0; i < PER_KEY; i++) {
        for (int k = 0; k < KEYS; k++) {
          outbox.write(c, Message.builder().withDestination("d").withOrderingKey("k" + k)
              .withPayload(Integer.toString(i).getBytes(StandardCharsets.UTF_8)).build());
        }
        c.commit();
      }
    }
    int total = KEYS * PER_KEY;
    Set<UUID> claimed = ConcurrentHashMap.newKeySet();
    List<UUID> claimedTwice = new CopyOnWriteArrayList<>();
    Map<String, List<Integer>> sent = new ConcurrentHashMap<>();
    AtomicInteger lost = new AtomicInteger();
    List<SessionProbe> probes = new ArrayList<>();
    List<HikariDataSource> pools = new ArrayList<>();
    ExecutorService threads = Executors.newFixedThreadPool(RELAYS);
    try {
      List<Future<?>> relays = new ArrayList<>();
      for (int r = 0; r < RELAYS; r++) {
        HikariDataSource pool = relayPool(isolation);
        pools.add(pool);
        SessionProbe probe = new SessionProbe(pool, claimMarker(), probe());
        probes.add(probe);
        JdbcOutboxStore.Builder builder = JdbcOutboxStore.builder(probe.dataSource()).withTablePrefix(prefix())
            .withClock(SettableClock.atFixedStart()).withRetention(Retention.deleteOnDelivery());
        if (strategy != null) {
          builder.withClaimStrategy(strategy);
        }
        JdbcOutboxStore store = builder.build();
        relays.add(threads.submit(() -> {
          long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
          while (claimed.size() < total && System.nanoTime() < deadline) {
            List<Claim> claims = store.claim(4, Instant.now(), LEASE);
            for (Claim claim : claims) {
              if (!claimed.add(claim.id())) {
                claimedTwice.add(claim.id());
              }
              sent.computeIfAbsent(claim.entry().message().orderingKey().orElseThrow(),
                  k -> Collections.synchronizedList(new ArrayList<>()))
                  .add(Integer.parseInt(new String(claim.entry().message().payload(), StandardCharsets.UTF_8)));
            }
            lost.addAndGet(store.markDelivered(claims, Instant.now()).size());
          }
          return null;
        }));
      }
      for (Future<?> relay : relays) {
        relay.get(120, TimeUnit.SECONDS);
      }
    } finally {
      threads.shutdownNow();
      pools.forEach(HikariDataSource::close);
    }
    assertThat(claimedTwice).as("entries claimed twice within their lease").isEmpty();
    assertThat(lost.get()).as("completions fenced out").isZero();
    assertThat(claimed).as("entries claimed").hasSize(total);
    assertThat(sent).hasSize(KEYS);
    sent.forEach((key, order) -> assertThat(order).as("the order key " + key + " was sent in")
        .isEqualTo(java.util.stream.IntStream.range(0, PER_KEY).boxed().toList()));
    // A probe that answers no row says nothing either way.
    List<String> seen = probes.stream().flatMap(p -> p.seen().stream()).filter(v -> !v.equals(SessionProbe.NO_ROW))
        .toList();
    assertThat(seen).as("what each claim transaction ran under").isNotEmpty()
        .allSatisfy(value -> assertThat(value).isEqualTo(expectedInClaim()));
  }
}
