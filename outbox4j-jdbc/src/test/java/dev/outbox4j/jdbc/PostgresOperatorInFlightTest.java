package dev.outbox4j.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox4j.EntryStatus;
import dev.outbox4j.Message;
import dev.outbox4j.OutboxEntry;
import dev.outbox4j.spi.Claim;
import dev.outbox4j.spi.Retention;
import dev.outbox4j.spi.WaitingSelector;
import dev.outbox4j.testkit.SettableClock;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * An operator's park or discard of waiting entries against PostgreSQL's default claim ({@link ClaimStrategy#LEASED_BATCHES})
 * in the interleaving that the contract's concurrent test meets only by chance: the operator's statement has begun
 * (its snapshot taken) when a relay commits a batch holding an entry the statement has not reached yet. To hold the
 * statement there, the test's own transaction holds the row lock of an earlier selected entry: the operator's
 * statement locks the rows it picks ({@code FOR UPDATE}) in {@code seq} order, so it waits on that row, snapshot
 * taken, until the test lets it go. Before the fix the statement went on with its snapshot and changed the entry the
 * relay was sending. The operator's sessions default to REPEATABLE READ: its transactions must set READ COMMITTED
 * themselves, or their re-check would read the same old snapshot.
 */
class PostgresOperatorInFlightTest {
  private static final String PREFIX = "pgopflight_";
  private static final Duration LEASE = Duration.ofSeconds(30);

  private final SettableClock clock = SettableClock.atFixedStart();
  private final ExecutorService operator = Executors.newSingleThreadExecutor();
  private JdbcOutboxStore store;
  private DataSource pool;
  /**
   * The operator's store: the same tables through sessions that default to REPEATABLE READ and plan as for a large
   * outbox ({@link TestDatabase#operatorStore}). Only with that plan does the operator's statement reach an entry after
   * waiting on an earlier one's row, which is what the test needs to hold it at the right moment.
   */
  private JdbcOutboxStore operatorStore;

  @BeforeEach
  void store() {
    store = TestDatabase.POSTGRES.emptyStore(PREFIX, clock, Retention.deleteOnDelivery());
    pool = TestDatabase.POSTGRES.pool(PREFIX);
    assertThat(store.claimStrategy()).isEqualTo(ClaimStrategy.LEASED_BATCHES);
    operatorStore = TestDatabase.POSTGRES.operatorStore(PREFIX, clock, Retention.deleteOnDelivery());
  }

  @AfterEach
  void stop() {
    operator.shutdownNow();
  }

  private Instant now() {
    return clock.instant();
  }

  private UUID write(String destination, String key) {
    return store.enqueue(Message.builder().withDestination(destination).withOrderingKey(key).build()).id();
  }

  @Test
  void a_discard_skips_an_entry_whose_batch_committed_after_the_discard_began() throws Exception {
    UUID held = write("d", "A");
    UUID sent = write("d", "B");

    List<Claim> claims = whileTheOperatorWaitsOn(held,
        () -> operatorStore.discardWaiting(WaitingSelector.ofDestination("d"), now(), 10), 1,
        () -> store.claim(10, now(), LEASE));

    assertThat(ids(claims)).containsExactly(sent);
    assertThat(store.find(held)).as("discarded").isEmpty();
    assertThat(store.markDelivered(claims, now())).as("the relay's completion").isEmpty();
  }

  @Test
  void a_park_skips_an_entry_whose_batch_committed_after_the_park_began() throws Exception {
    UUID held = write("d", "A");
    UUID sent = write("d", "B");

    List<Claim> claims = whileTheOperatorWaitsOn(held,
        () -> operatorStore.parkWaiting(WaitingSelector.ofDestination("d"), now(), 10), 1,
        () -> store.claim(10, now(), LEASE));

    assertThat(ids(claims)).containsExactly(sent);
    assertThat(store.find(held).map(OutboxEntry::status)).contains(EntryStatus.PARKED);
    assertThat(store.markDelivered(claims, now())).as("the relay's completion").isEmpty();
  }

  @Test
  void a_run_leaves_out_a_member_an_operator_is_parking() throws Exception {
    UUID head = write("a", "K");
    UUID member = write("b", "K");
    UUID held = write("b", "L");

    // The operator picks and locks the member, then waits on the later entry's row.
    List<Claim> claims = whileTheOperatorWaitsOn(held,
        () -> operatorStore.parkWaiting(WaitingSelector.ofDestination("b"), now(), 10), 2,
        () -> store.claim(10, now(), LEASE, 5));

    assertThat(ids(claims)).as("the head, without the member being parked").containsExactly(head);
    assertThat(store.find(member).map(OutboxEntry::status)).contains(EntryStatus.PARKED);
    assertThat(store.markDelivered(claims, now())).as("the relay's completion").isEmpty();
  }

  /**
   * Holds {@code rowOf}'s row lock in a transaction of the test's own, starts the operator's action, waits until its
   * statement waits on that lock, runs the relay's claim (committed when it returns), then lets the operator go.
   *
   * @param changed how many entries the operator's action must report
   * @return the claim's result
   */
  private List<Claim> whileTheOperatorWaitsOn(UUID rowOf, IntSupplier action, int changed,
      java.util.function.Supplier<List<Claim>> claim) throws Exception {
    String table = TableNames.withPrefix(PREFIX).qualified("outbox");
    try (Connection holder = pool.getConnection()) {
      holder.setAutoCommit(false);
      try (PreparedStatement lock = holder.prepareStatement("SELECT 1 FROM " + table + " WHERE id = ? FOR UPDATE")) {
        lock.setObject(1, rowOf);
        lock.executeQuery().close();
      }
      Future<Integer> acting = operator.submit(action::getAsInt);
      await().atMost(Duration.ofSeconds(20)).until(() -> waitsOnALock(table));
      List<Claim> claims = claim.get();
      assertThat(claims).as("the relay's claim, made while the operator waits").isNotEmpty();
      holder.rollback();
      assertThat(acting.get(20, TimeUnit.SECONDS)).as("entries the operator changed").isEqualTo(changed);
      return claims;
    }
  }

  /** @return whether a session's statement on the table is waiting for a lock (the operator's, on the held row) */
  private boolean waitsOnALock(String table) throws SQLException {
    try (Connection c = pool.getConnection(); PreparedStatement select = c.prepareStatement("SELECT count(*) FROM"
        + " pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
        + " AND query LIKE ? AND pid <> pg_backend_pid()")) {
      select.setString(1, "%FROM " + table + " WHERE%FOR UPDATE%");
      try (ResultSet row = select.executeQuery()) {
        row.next();
        return row.getInt(1) > 0;
      }
    }
  }

  private static List<UUID> ids(List<Claim> claims) {
    return claims.stream().map(Claim::id).toList();
  }
}
