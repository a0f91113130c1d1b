package dev.outbox4j.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.outbox4j.Message;
import dev.outbox4j.OutboxException;
import dev.outbox4j.QuarantineReason;
import dev.outbox4j.spi.Claim;
import dev.outbox4j.spi.Retention;
import dev.outbox4j.testkit.SettableClock;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What the default PostgreSQL claim ({@link ClaimStrategy#LEASED_BATCHES}) promises beyond the contract suites, on the
 * real server: each test states one interleaving that could break the guarantee (a rolling switch of strategies, two
 * spellings of one table, several relays holding batches, a relay frozen inside its claim, a failure at any step, a
 * schema without the claim table) and checks that it does not.
 */
class PostgresLeasedBatchesTest {
  private static final String PREFIX = "pgbatch_";
  private static final Duration LEASE = Duration.ofSeconds(30);

  private final SettableClock clock = SettableClock.atFixedStart();
  private JdbcOutboxStore batches;

  @BeforeEach
  void store() {
    batches = TestDatabase.POSTGRES.emptyStore(PREFIX, clock, Retention.deleteOnDelivery());
    assertThat(batches.claimStrategy()).isEqualTo(ClaimStrategy.LEASED_BATCHES);
  }

  private JdbcOutboxStore second(ClaimStrategy claims) {
    return TestDatabase.POSTGRES.secondStore(PREFIX, clock, Retention.deleteOnDelivery(), claims);
  }

  private UUID write(String key) {
    return batches.enqueue(Message.builder().withDestination("d").withOrderingKey(key).build()).id();
  }

  private Instant now() {
    return clock.instant();
  }

  private DataSource pool() {
    return TestDatabase.POSTGRES.pool(PREFIX);
  }

  /**
   * A rolling switch: a leased-row relay paused past its lease must not complete an entry another relay has
   * since claimed as a batch (the next entry of the key would be sent while the first copy is on its way), and the
   * batch relay's completion must apply. And the other way round.
   */
  @Test
  void a_leased_row_claim_past_its_lease_is_fenced_out_by_a_batch_claim_that_took_it_over_and_back() {
    JdbcOutboxStore rows = second(ClaimStrategy.LEASED_ROWS);
    write("k");
    write("k");
    Claim leased = rows.claim(10, now(), LEASE).get(0);

    assertThat(batches.claim(10, now(), LEASE)).as("the lease holds").isEmpty();
    clock.advance(LEASE.plusSeconds(1));
    Claim taken = batches.claim(10, now(), LEASE).get(0);
    assertThat(taken.id()).isEqualTo(leased.id());

    assertThat(rows.markDelivered(List.of(leased), now())).as("the paused relay's completion").containsExactly(leased);
    assertThat(rows.quarantine(leased, QuarantineReason.permanentFailure("late"), now())).isFalse();
    assertThat(rows.markFailed(leased, "late", now())).isFalse();
    assertThat(rows.claim(10, now(), LEASE)).as("the key's next entry waits behind the batch").isEmpty();
    assertThat(batches.markDelivered(List.of(taken), now())).as("the live relay's completion").isEmpty();

    Claim second = batches.claim(10, now(), LEASE).get(0);
    clock.advance(LEASE.plusSeconds(1));
    Claim retaken = rows.claim(10, now(), LEASE).get(0);
    assertThat(retaken.id()).isEqualTo(second.id());
    assertThat(batches.markDelivered(List.of(second), now())).containsExactly(second);
    assertThat(batches.release(List.of(second))).containsExactly(second);
    assertThat(rows.markDelivered(List.of(retaken), now())).isEmpty();
    assertThat(batches.stats(now()).pending()).isZero();
  }

  /**
   * The lock namespace belongs to the table, not to its spelling. Two stores naming one table differently
   * ({@code public.pgbatch_outbox} and {@code pgbatch_outbox}) claim it from many threads at once; no entry is handed
   * out twice.
   */
  @Test
  void stores_spelling_the_table_differently_never_claim_one_entry_twice() throws Exception {
    int entries = 1_500;
    for (int i = 0; i < entries; i++) {
      write(i % 2 == 0 ? null : "k" + i);
    }
    JdbcOutboxStore qualified = JdbcOutboxStore.builder(TestDatabase.POSTGRES.newPool(PREFIX, 6))
        .withTablePrefix(PREFIX).withSchema("public").withClock(clock).build();
    JdbcOutboxStore plain = second(ClaimStrategy.LEASED_BATCHES);
    Map<UUID, Integer> handedOut = Collections.synchronizedMap(new HashMap<>());
    ExecutorService threads = Executors.newFixedThreadPool(6);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < 6; t++) {
        JdbcOutboxStore store = t % 2 == 0 ? qualified : plain;
        done.add(threads.submit(() -> {
          for (List<Claim> claims = store.claim(7, now(), LEASE); !claims.isEmpty();
              claims = store.claim(7, now(), LEASE)) {
            claims.forEach(claim -> handedOut.merge(claim.id(), 1, Integer::sum));
            assertThat(store.markDelivered(claims, now())).isEmpty();
          }
          return null;
        }));
      }
      for (Future<?> each : done) {
        each.get(2, TimeUnit.MINUTES);
      }
    } finally {
      threads.shutdownNow();
    }
    assertThat(handedOut).hasSize(entries);
    assertThat(handedOut.values()).allMatch(times -> times == 1);
  }

  /**
   * Relays see every relay's claims in the claim table, and the claim window is widened by the entries in flight, so
   * three or more relays holding batches never crowd each other out of it: none comes back empty while entries wait.
   */
  @Test
  void five_relays_holding_their_batches_each_get_a_full_batch_while_entries_wait() {
    for (int i = 0; i < 1_000; i++) {
      write(i % 3 == 0 ? null : "k" + i);
    }
    List<JdbcOutboxStore> relays = new ArrayList<>(List.of(batches));
    for (int i = 1; i < 5; i++) {
      relays.add(second(ClaimStrategy.LEASED_BATCHES));
    }
    int claimed = 0;
    for (int round = 0; round < 4; round++) {
      for (JdbcOutboxStore relay : relays) {
        List<Claim> claims = relay.claim(50, now(), LEASE);
        assertThat(claims).as("round %d", round).hasSize(50);
        claimed += claims.size();
      }
    }
    assertThat(batches.stats(now()).inFlight()).isEqualTo(claimed);
  }

  /**
   * A relay frozen inside its claim (SIGSTOP, a long pause) holds its transaction's locks only until the server
   * ends it, a lease after it went idle; then another relay claims those entries.
   */
  @Test
  void a_relay_frozen_inside_its_claim_loses_it_a_lease_later() throws Exception {
    write("a");
    write(null);
    Duration shortLease = Duration.ofSeconds(1);
    LeasedBatchClaims frozenClaims = new LeasedBatchClaims(null, (c, max, at, skipped) -> List.of(),
        new OutboxRows(PostgresDialect.INSTANCE, TableNames.withPrefix(PREFIX)),
        TableNames.withPrefix(PREFIX).qualified("outbox"), TableNames.withPrefix(PREFIX).qualified("outbox_claim"));
    try (Connection frozen = pool().getConnection()) {
      frozen.setAutoCommit(false);
      LeasedBatchClaims.begin(frozen, shortLease); // the claim's own settings, its bound on idling included
      assertThat(frozenClaims.lock(frozen, 10, now(), shortLease, java.util.Set.of()).seqs()).hasSize(2);
      assertThat(batches.claim(10, now(), LEASE)).as("locked by the frozen claim").isEmpty();

      await().atMost(Duration.ofSeconds(20)).until(() -> batches.claim(10, now(), LEASE).size() == 2);
      assertThatThrownBy(frozen::commit).isInstanceOf(SQLException.class);
    }
  }

  /**
   * A statement failing at any step of a claim or a completion leaves no lock, no stuck entry and a working
   * store. Each step is made to fail by a connection that refuses its n-th statement.
   */
  @Test
  void a_failure_at_any_step_of_a_claim_or_completion_leaves_no_lock_and_no_stuck_entry() throws SQLException {
    for (int i = 0; i < 6; i++) {
      write(i % 2 == 0 ? null : "k" + i);
    }
    for (int failAt = 1; failAt <= 6; failAt++) {
      FailingDataSource failing = new FailingDataSource(pool(), failAt);
      JdbcOutboxStore flaky = JdbcOutboxStore.builder(failing).withTablePrefix(PREFIX).withClock(clock).build();
      List<Claim> claims;
      try {
        claims = flaky.claim(3, now(), LEASE);
      } catch (OutboxException e) {
        claims = List.of();
      }
      if (!claims.isEmpty()) {
        try {
          flaky.markDelivered(claims, now());
        } catch (OutboxException e) {
          assertThat(flaky.markDelivered(claims, now())).as("the completion again, failAt %d", failAt).isEmpty();
        }
      }
      assertThat(failing.failed()).as("failAt %d failed a statement", failAt).isTrue();
      assertThat(advisoryLocks()).as("failAt %d", failAt).isZero();
      assertThat(batches.stats(now()).inFlight()).as("failAt %d: nothing left claimed", failAt).isZero();
      List<Claim> rest = batches.claim(100, now(), LEASE);
      assertThat(rest).as("failAt %d: every entry claimable", failAt).hasSize((int) batches.stats(now()).pending());
      assertThat(batches.release(rest)).isEmpty();
    }
    for (List<Claim> claims = batches.claim(100, now(), LEASE); !claims.isEmpty();
        claims = batches.claim(100, now(), LEASE)) {
      assertThat(batches.markDelivered(claims, now())).isEmpty();
    }
    assertThat(batches.stats(now()).pending()).as("nothing stuck").isZero();
  }

  /**
   * Every PostgreSQL claim reads the claim table of migration V5; a schema without it fails each claim with a
   * message that names the migration, not with a bare "relation does not exist".
   */
  @Test
  void a_schema_without_the_claim_table_fails_the_claim_naming_the_migration() throws SQLException {
    String prefix = "pgnov5_";
    DataSource pool = TestDatabase.POSTGRES.pool(prefix);
    try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
      s.execute("DROP TABLE " + TableNames.withPrefix(prefix).qualified("outbox_claim"));
    }
    for (ClaimStrategy claims : ClaimStrategy.values()) {
      JdbcOutboxStore store = JdbcOutboxStore.builder(pool).withTablePrefix(prefix).withClaimStrategy(claims).build();
      assertThatThrownBy(() -> store.claim(1, now(), LEASE)).isInstanceOf(OutboxException.class)
          .hasMessageContaining("pgnov5_outbox_claim").hasMessageContaining("V5__session_claims.sql");
    }
  }

  @Test
  void leased_batches_on_another_database_fail_clearly() {
    JdbcOutboxStore h2 = TestDatabase.H2.emptyStore("h2batch_", clock, Retention.deleteOnDelivery(),
        ClaimStrategy.LEASED_BATCHES);
    assertThatThrownBy(() -> h2.claim(1, now(), LEASE)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("LEASED_BATCHES needs PostgreSQL").hasMessageContaining("LEASED_ROWS");
    assertThat(TestDatabase.H2.emptyStore("h2batch_", clock, Retention.deleteOnDelivery()).claimStrategy())
        .isEqualTo(ClaimStrategy.LEASED_ROWS);
  }

  private long advisoryLocks() throws SQLException {
    try (Connection c = pool().getConnection(); Statement s = c.createStatement();
        ResultSet r = s.executeQuery("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 2"
            + " AND classid::bigint = (('" + PREFIX + "outbox'::regclass)::oid::bigint & 2147483647)")) {
      r.next();
      return r.getLong(1);
    }
  }
}
