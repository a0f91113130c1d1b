package dev.outbox4j.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import dev.outbox4j.Message;
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
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What only {@link ClaimStrategy#SESSION_LOCKS} promises, on the real server: a relay's claims live exactly as long
 * as its session, whether the session ends because the relay died, because the server ended it after the lease of
 * idleness (a frozen relay), or because the store was closed; and leased rows and session locks never hand out the
 * same entry.
 */
class PostgresSessionClaimsTest {
  private static final String PREFIX = "pgsessx_";
  private static final Duration LEASE = Duration.ofSeconds(30);

  private final SettableClock clock = SettableClock.atFixedStart();
  private final List<JdbcOutboxStore> opened = new ArrayList<>();
  private JdbcOutboxStore first;
  private JdbcOutboxStore second;

  @BeforeEach
  void stores() {
    first = open(TestDatabase.POSTGRES.emptyStore(PREFIX, clock, Retention.deleteOnDelivery(),
        ClaimStrategy.SESSION_LOCKS));
    second = open(TestDatabase.POSTGRES.secondStore(PREFIX, clock, Retention.deleteOnDelivery(),
        ClaimStrategy.SESSION_LOCKS));
  }

  @AfterEach
  void closeSessions() {
    opened.forEach(JdbcOutboxStore::close);
  }

  private JdbcOutboxStore open(JdbcOutboxStore store) {
    opened.add(store);
    return store;
  }

  private UUID write(String key) {
    return first.enqueue(Message.builder().withDestination("d").withOrderingKey(key).build()).id();
  }

  private Instant now() {
    return clock.instant();
  }

  @Test
  void another_session_cannot_claim_what_a_live_session_holds_even_after_the_lease() {
    write("a");
    write(null);
    assertThat(first.claim(10, now(), LEASE)).hasSize(2);

    assertThat(second.claim(10, now().plus(LEASE).plusSeconds(1), LEASE)).isEmpty();
    assertThat(second.stats(now()).inFlight()).isEqualTo(2);
  }

  /**
   * A lock taken on an entry that is not handed out would never be released, and the server's lock table would fill
   * up. A delivered entry's lock is released by the session's next claim; a failed entry's at once.
   */
  @Test
  void the_session_holds_one_lock_per_entry_handed_out_and_releases_them_all() throws Exception {
    for (int i = 0; i < 60; i++) {
      write(i % 3 == 0 ? null : "k" + (i % 7));
    }
    List<Claim> claims = first.claim(10, now(), LEASE);
    assertThat(claims).hasSize(10);
    assertThat(locksHeld()).isEqualTo(10);
    List<Claim> more = first.claim(10, now(), LEASE);
    assertThat(locksHeld()).isEqualTo(claims.size() + more.size());

    first.markFailed(more.get(0), "e", now());
    assertThat(locksHeld()).as("a failed entry waits again: released at once")
        .isEqualTo(claims.size() + more.size() - 1);
    first.markDelivered(claims, now());
    List<Claim> third = first.claim(10, now(), LEASE);
    assertThat(locksHeld()).as("delivered ones released by the next claim").isEqualTo(more.size() - 1 + third.size());

    first.markDelivered(more.subList(1, more.size()), now());
    first.markDelivered(third, now());
    for (List<Claim> next = first.claim(100, now(), LEASE); !next.isEmpty(); next = first.claim(100, now(), LEASE)) {
      assertThat(first.markDelivered(next, now())).isEmpty();
    }
    assertThat(first.stats(now()).pending()).isZero();
    assertThat(locksHeld()).as("a claim that finds nothing releases what was delivered").isZero();
  }

  private long sessionsWithPid(int pid) throws SQLException {
    try (Connection admin = TestDatabase.POSTGRES.pool(PREFIX).getConnection(); Statement s = admin.createStatement();
        ResultSet r = s.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE pid = " + pid)) {
      r.next();
      return r.getLong(1);
    }
  }

  /** @return the advisory locks the first store's session holds */
  private long locksHeld() throws SQLException {
    try (Connection admin = TestDatabase.POSTGRES.pool(PREFIX).getConnection(); Statement s = admin.createStatement();
        ResultSet r = s.executeQuery("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = "
            + first.claimSessionPid())) {
      r.next();
      return r.getLong(1);
    }
  }

  /**
   * A dead relay's locks vanish with its session, but sends it had on their way may still land: its entries wait
   * for their lease, as leased rows do, so a copy of them never overtakes the next message of their key.
   */
  @Test
  void a_dead_sessions_claims_are_taken_over_once_their_lease_passed_and_its_completions_are_lost() throws Exception {
    UUID head = write("a");
    write("a");
    List<Claim> claims = first.claim(10, now(), LEASE);
    assertThat(claims).extracting(Claim::id).containsExactly(head);

    terminateSessionsHoldingClaims();

    assertThat(second.claim(10, now().plus(LEASE).minusMillis(1), LEASE)).as("within the dead relay's lease").isEmpty();
    List<Claim> takenOver = second.claim(10, now().plus(LEASE), LEASE);
    assertThat(takenOver).extracting(Claim::id).containsExactly(head);
    assertThat(first.markDelivered(claims, now())).as("lost with its session").containsExactly(claims.get(0));
    assertThat(first.find(head)).isPresent();
    assertThat(second.markDelivered(takenOver, now())).isEmpty();
    assertThat(first.find(head)).isEmpty();
    assertThat(first.claim(10, now().plus(LEASE), LEASE)).as("a new session, the key's next entry").hasSize(1);
  }

  @Test
  void the_server_ends_a_session_idle_for_longer_than_the_lease_and_its_claims_are_taken_over() throws Exception {
    UUID id = write("frozen");
    Duration shortLease = Duration.ofMillis(800);
    List<Claim> claims = first.claim(10, now(), shortLease);
    assertThat(claims).hasSize(1);
    assertThat(second.claim(10, now(), shortLease)).isEmpty();

    // The first relay is "frozen": its session says nothing, and the server ends it once it was idle for the lease.
    int frozen = first.claimSessionPid();
    await().atMost(Duration.ofSeconds(10)).until(() -> sessionsWithPid(frozen) == 0);

    List<Claim> takenOver = second.claim(10, now().plus(shortLease), LEASE);
    assertThat(takenOver).extracting(Claim::id).containsExactly(id);
    assertThat(first.markFailed(claims.get(0), "late", now())).isFalse();
    assertThat(second.markDelivered(takenOver, now())).isEmpty();
  }

  @Test
  void closing_the_store_releases_its_locks_and_its_unfinished_claims_wait_for_their_lease() {
    write(null);
    UUID done = write(null);
    List<Claim> claims = first.claim(10, now(), LEASE);
    assertThat(claims).hasSize(2);
    first.markDelivered(claims.subList(1, 2), now());
    UUID finished = write(null);
    assertThat(first.markDelivered(first.claim(10, now(), LEASE), now())).isEmpty();

    first.close();

    assertThat(first.find(done)).isEmpty();
    assertThat(first.find(finished)).isEmpty();
    assertThat(second.claim(10, now(), LEASE)).as("the unfinished one, within its lease").isEmpty();
    assertThat(second.claim(10, now().plus(LEASE), LEASE)).hasSize(1);
  }

  @Test
  void closing_the_store_gives_the_connection_back_as_it_was_lent() throws SQLException {
    try (HikariDataSource pool = TestDatabase.POSTGRES.newPool(PREFIX, 1); Connection lent = pool.getConnection()) {
      String before = settings(lent);
      JdbcOutboxStore store = JdbcOutboxStore.builder(OneConnection.dataSource(lent)).withTablePrefix(PREFIX)
          .withClock(clock).withClaimStrategy(ClaimStrategy.SESSION_LOCKS).build();
      UUID id = write(null);
      assertThat(store.claim(10, now(), LEASE)).extracting(Claim::id).containsExactly(id);
      assertThat(settings(lent)).as("the session's own settings while it claims").isNotEqualTo(before);

      store.close();

      assertThat(settings(lent)).isEqualTo(before);
      try (Statement s = lent.createStatement();
          ResultSet r = s.executeQuery("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'"
              + " AND pid = pg_backend_pid()")) {
        r.next();
        assertThat(r.getLong(1)).as("advisory locks still held").isZero();
      }
    }
  }

  private static String settings(Connection connection) throws SQLException {
    try (Statement s = connection.createStatement();
        ResultSet r = s.executeQuery("SELECT current_setting('idle_session_timeout') || ' '"
            + " || current_setting('plan_cache_mode')")) {
      r.next();
      return r.getString(1);
    }
  }

  @Test
  void leased_rows_and_session_locks_never_hand_out_the_same_entry() {
    JdbcOutboxStore leased = TestDatabase.POSTGRES.secondStore(PREFIX, clock, Retention.deleteOnDelivery());
    UUID sessionClaimed = write(null);
    assertThat(first.claim(1, now(), LEASE)).extracting(Claim::id).containsExactly(sessionClaimed);
    UUID leaseClaimed = write(null);

    assertThat(leased.claim(10, now(), LEASE)).extracting(Claim::id).containsExactly(leaseClaimed);
    assertThat(second.claim(10, now(), LEASE)).isEmpty();
  }

  /** During a switch-over a leased-row relay must not re-send what a dead session-lock relay may still have on its way. */
  @Test
  void a_leased_row_relay_waits_for_the_lease_of_a_dead_sessions_batch() throws Exception {
    JdbcOutboxStore leased = TestDatabase.POSTGRES.secondStore(PREFIX, clock, Retention.deleteOnDelivery());
    UUID id = write("a");
    assertThat(first.claim(10, now(), LEASE)).extracting(Claim::id).containsExactly(id);

    terminateSessionsHoldingClaims();

    assertThat(leased.claim(10, now().plus(LEASE).minusMillis(1), LEASE)).as("within the dead relay's lease").isEmpty();
    assertThat(leased.claim(10, now().plus(LEASE), LEASE)).extracting(Claim::id).containsExactly(id);
  }

  @Test
  void an_entry_face_change_of_a_claimed_entry_cancels_the_claim_and_its_lock_is_released_on_completion() {
    UUID id = write("k");
    Claim claim = first.claim(10, now(), LEASE).get(0);

    first.markFailed(first.find(id).orElseThrow(), "operator retry", now());

    assertThat(first.markDelivered(List.of(claim), now())).containsExactly(claim);
    assertThat(second.claim(10, now(), LEASE)).extracting(Claim::id).containsExactly(id);
  }

  @Test
  void session_locks_on_another_database_fail_clearly() {
    JdbcOutboxStore h2 = open(TestDatabase.H2.emptyStore("h2sess_", clock, Retention.deleteOnDelivery(),
        ClaimStrategy.SESSION_LOCKS));

    assertThatThrownBy(() -> h2.claim(10, now(), LEASE)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("PostgreSQL 14").hasMessageContaining("LEASED_ROWS");
  }

  /**
   * Batch rows are committed without waiting for the WAL flush, so a server crash can lose them while the sends of the
   * relays it disconnected are still landing: a session on a server younger than the lease claims nothing.
   */
  @Test
  void nothing_is_claimed_while_the_server_is_younger_than_the_lease() throws SQLException {
    UUID id = write(null);
    Duration uptime;
    try (Connection admin = TestDatabase.POSTGRES.pool(PREFIX).getConnection(); Statement s = admin.createStatement();
        ResultSet r = s.executeQuery("SELECT (extract(epoch FROM clock_timestamp() - pg_postmaster_start_time())"
            + " * 1000)::bigint")) {
      r.next();
      uptime = Duration.ofMillis(r.getLong(1));
    }
    Duration longerThanUptime = uptime.plusHours(1);

    assertThat(first.claim(10, now(), longerThanUptime)).as("the server is younger than this lease").isEmpty();
    assertThat(first.claim(10, now().plus(Duration.ofHours(2)), longerThanUptime))
        .as("the server's age is measured, not read from the claims' clock").isEmpty();
    assertThat(first.claim(10, now(), LEASE)).as("the server is older than this lease")
        .extracting(Claim::id).containsExactly(id);
  }

  /**
   * A completion must find its rows through the claim index, whatever the statistics say: planned as a join with the
   * list of entries, it hashed the whole outbox once the table had been analysed with a backlog in it.
   */
  @Test
  void a_completion_reads_its_entries_by_index_when_the_statistics_show_a_backlog() throws SQLException {
    String table = first.tableNames().qualified("outbox");
    try (Connection admin = TestDatabase.POSTGRES.pool(PREFIX).getConnection(); Statement s = admin.createStatement()) {
      s.execute("INSERT INTO " + table + " (id, destination, payload)"
          + " SELECT gen_random_uuid(), 'd', '\\x00'::bytea FROM generate_series(1, 20000)");
      s.execute("ANALYZE " + table);
      Long[] seqs;
      try (ResultSet r = s.executeQuery("SELECT array_agg(seq) FROM (SELECT seq FROM " + table
          + " ORDER BY seq LIMIT 500) first")) {
        r.next();
        seqs = (Long[]) r.getArray(1).getArray();
      }
      Long[] versions = java.util.Collections.nCopies(seqs.length, 1L).toArray(Long[]::new);
      for (String retire : List.of("DELETE FROM " + table + " o",
          "UPDATE " + table + " o SET status = 'DELIVERED', version = o.version + 1")) {
        StringBuilder plan = new StringBuilder();
        try (var explain = admin.prepareStatement("EXPLAIN " + SessionClaims.fenced(retire))) {
          explain.setArray(1, admin.createArrayOf("bigint", seqs));
          explain.setArray(2, admin.createArrayOf("bigint", seqs));
          explain.setArray(3, admin.createArrayOf("bigint", versions));
          try (ResultSet r = explain.executeQuery()) {
            while (r.next()) {
              plan.append(r.getString(1)).append('\n');
            }
          }
        }
        assertThat(plan.toString()).as(retire).doesNotContain("Seq Scan on " + table);
      }
    }
  }

  /** Ends the sessions holding this table's claims, as a relay's death does, and waits until the server freed them. */
  private void terminateSessionsHoldingClaims() throws SQLException {
    String held = " FROM pg_locks WHERE locktype = 'advisory' AND classid = "
        + SessionClaims.namespace(first.tableNames().qualified("outbox"))
        + "::int::oid AND database = (SELECT oid FROM pg_database WHERE datname = current_database())";
    try (Connection admin = TestDatabase.POSTGRES.pool(PREFIX).getConnection(); Statement s = admin.createStatement()) {
      try (ResultSet r = s.executeQuery("SELECT count(pg_terminate_backend(pid)) FROM (SELECT DISTINCT pid" + held
          + ") holders")) {
        r.next();
        assertThat(r.getInt(1)).isEqualTo(1);
      }
      await().atMost(Duration.ofSeconds(10)).until(() -> {
        try (ResultSet r = s.executeQuery("SELECT count(*)" + held)) {
          r.next();
          return r.getLong(1) == 0;
        }
      });
    }
  }
}
