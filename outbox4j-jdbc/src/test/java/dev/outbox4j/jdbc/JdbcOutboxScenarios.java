package dev.outbox4j.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.outbox4j.DuplicateMessageException;
import dev.outbox4j.Message;
import dev.outbox4j.MessageLimits;
import dev.outbox4j.MessageRejectedException;
import dev.outbox4j.OutboxException;
import dev.outbox4j.Relay;
import dev.outbox4j.RelayResult;
import dev.outbox4j.memory.InProcessTransport;
import dev.outbox4j.spi.Claim;
import dev.outbox4j.spi.Retention;
import dev.outbox4j.spi.Transport;
import dev.outbox4j.testkit.SettableClock;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * JDBC-specific guarantees beyond the shared contract suites, run on each database by a small subclass: rollback,
 * refusal before writing, commit-order keys under concurrent writers, two relays on two pools, and fencing of a relay
 * whose connection died.
 */
abstract class JdbcOutboxScenarios {
  protected SettableClock clock;
  protected JdbcOutboxStore store;
  protected JdbcOutbox outbox;

  /** @return the database under test */
  protected abstract TestDatabase database();

  /** @return this class's own table prefix */
  protected abstract String prefix();

  /** Ends every server session of a pool abruptly, as a crash or a network cut would. */
  protected abstract void killSessions(HikariDataSource pool) throws SQLException;

  @BeforeEach
  final void emptyStore() {
    clock = SettableClock.atFixedStart();
    store = database().emptyStore(prefix(), clock, Retention.deleteOnDelivery());
    outbox = store.outbox();
  }

  protected final DataSource pool() {
    return database().pool(prefix());
  }

  protected static Message keyed(String key, String payload) {
    return Message.builder().withDestination("orders").withOrderingKey(key).withPayload(payload).build();
  }

  protected static String text(Message message) {
    return new String(message.payload(), StandardCharsets.UTF_8);
  }

  protected final List<String> drainInOrder(String key) {
    List<String> delivered = new ArrayList<>();
    Transport transport = InProcessTransport.consuming(m -> delivered.add(text(m)));
    Relay.builder(store, transport).withClock(clock).build().drain(1000);
    assertThat(store.stats(clock.instant()).pending()).as("left undelivered").isZero();
    return delivered;
  }

  @Test
  final void a_rolled_back_transactions_messages_are_never_claimed_or_delivered() throws SQLException {
    try (Connection c = pool().getConnection()) {
      c.setAutoCommit(false);
      outbox.write(c, keyed("k", "rolled-back"));
      outbox.write(c, Message.builder().withDestination("d").withPayload("rolled-back too").build());
      c.rollback();
      outbox.write(c, keyed("k", "committed"));
      c.commit();
    }

    assertThat(store.claim(10, clock.instant(), Duration.ofSeconds(30))).extracting(cl -> text(cl.message()))
        .containsExactly("committed");
    assertThat(store.stats(clock.instant()).pending()).isEqualTo(1);
  }

  @Test
  final void bad_input_is_refused_before_anything_is_written_and_the_transaction_stays_usable() throws SQLException {
    JdbcOutbox strict = store.outboxBuilder().withLimits(new MessageLimits(16, 2, 8)).build();
    try (Connection c = pool().getConnection()) {
      c.setAutoCommit(false);
      strict.write(c, keyed("k", "first"));

      assertThatThrownBy(() -> strict.write(c, keyed("k", "a payload over sixteen bytes")))
          .isInstanceOfSatisfying(MessageRejectedException.class, e -> assertThat(e.field()).isEqualTo("payload"));
      assertThatThrownBy(() -> strict.write(c, Message.builder().withDestination("d")
          .withHeader("a", "1").withHeader("b", "2").withHeader("c", "3").build()))
          .isInstanceOfSatisfying(MessageRejectedException.class, e -> assertThat(e.field()).isEqualTo("headers"));
      assertThatThrownBy(() -> strict.write(c, Message.builder().withDestination("d")
          .withHeader("big", "more than eight bytes").build()))
          .isInstanceOfSatisfying(MessageRejectedException.class, e -> assertThat(e.field()).isEqualTo("headers[big]"));
      assertThatThrownBy(() -> strict.writeAll(c, List.of(keyed("k", "ok"), keyed("k", "x".repeat(17)))))
          .isInstanceOf(MessageRejectedException.class);
      assertThatThrownBy(() -> keyed("k".repeat(Message.MAX_NAME_LENGTH + 1), "long key"))
          .isInstanceOfSatisfying(MessageRejectedException.class, e -> assertThat(e.field()).isEqualTo("orderingKey"));
      assertThatThrownBy(() -> Message.builder().withDestination(" ").build())
          .isInstanceOfSatisfying(MessageRejectedException.class, e -> assertThat(e.field()).isEqualTo("destination"));
      Message twice = keyed("k", "twice");
      assertThatThrownBy(() -> strict.writeAll(c, List.of(twice, twice))).isInstanceOf(DuplicateMessageException.class);

      strict.write(c, keyed("k", "second")); // the transaction is still usable
      c.commit();
    }

    assertThat(drainInOrder("k")).containsExactly("first", "second");
  }

  @Test
  final void a_closed_connection_is_refused_with_a_clear_exception() throws SQLException {
    Connection c = pool().getConnection();
    c.close();

    assertThatThrownBy(() -> outbox.write(c, keyed("k", "x")))
        .isInstanceOf(OutboxException.class).hasMessageContaining("connection is closed");
  }

  @Test
  final void writing_an_existing_id_raises_a_duplicate_message_exception() throws SQLException {
    Message message = keyed("k", "once");
    store.enqueue(message);
    try (Connection c = pool().getConnection()) {
      c.setAutoCommit(false);
      assertThatThrownBy(() -> outbox.write(c, message))
          .isInstanceOfSatisfying(DuplicateMessageException.class, e -> assertThat(e.messageId()).isEqualTo(message.id()));
      c.rollback();
    }
    assertThat(store.stats(clock.instant()).pending()).isEqualTo(1);
  }

  @Test
  final void a_batch_write_keeps_list_order_within_a_key() throws SQLException {
    try (Connection c = pool().getConnection()) {
      c.setAutoCommit(false);
      outbox.writeAll(c, List.of(keyed("k", "1"), keyed("j", "a"), keyed("k", "2"), keyed("k", "3")));
      c.commit();
    }
    assertThat(drainInOrder("k")).containsSubsequence("1", "2", "3").contains("a");
  }

  @Test
  final void a_keys_delivery_order_equals_commit_order_when_a_second_writer_races_the_first() throws Exception {
    List<String> commitOrder = Collections.synchronizedList(new ArrayList<>());
    Object monitor = new Object();
    ExecutorService second = Executors.newSingleThreadExecutor();
    try (Connection a = pool().getConnection(); Connection b = pool().getConnection()) {
      a.setAutoCommit(false);
      b.setAutoCommit(false);
      outbox.write(a, keyed("k", "A"));
      Future<?> writerB = second.submit(() -> {
        outbox.write(b, keyed("k", "B")); // may wait for A's key lock, depending on the database
        synchronized (monitor) {
          b.commit();
          commitOrder.add("B");
        }
        return null;
      });
      synchronized (monitor) {
        a.commit();
        commitOrder.add("A");
      }
      writerB.get(60, TimeUnit.SECONDS);
    } finally {
      second.shutdownNow();
    }

    assertThat(drainInOrder("k")).isEqualTo(commitOrder);
  }

  /**
   * Eight writers, fifty keys, inserts interleaved at random and commits delayed at random. Same-key commits are
   * ordered by the database's key lock; the test records each commit, under a per-key monitor held across
   * {@code commit()} and the recording, so the recorded order is exactly the commit order. Delivery must match it.
   */
  @Test
  final void every_keys_delivery_order_equals_its_commit_order_under_concurrent_writers() throws Exception {
    int writers = 8;
    int perWriter = 40;
    int keys = 50;
    Object[] monitors = new Object[keys];
    Map<String, List<String>> committed = commitRecord(monitors);
    ExecutorService threads = Executors.newFixedThreadPool(writers);
    try {
      List<Future<?>> runs = new ArrayList<>();
      for (int w = 0; w < writers; w++) {
        int writer = w;
        runs.add(threads.submit(() -> {
          Random random = new Random(writer);
          for (int i = 0; i < perWriter; i++) {
            int k = random.nextInt(keys);
            String key = "key-" + k;
            String payload = key + "/w" + writer + "/" + i;
            try (Connection c = pool().getConnection()) {
              c.setAutoCommit(false);
              outbox.write(c, keyed(key, payload));
              LockSupport.parkNanos(random.nextInt(3_000_000)); // let other writers insert and commit meanwhile
              synchronized (monitors[k]) {
                c.commit();
                committed.get(key).add(payload);
              }
            }
          }
          return null;
        }));
      }
      for (Future<?> run : runs) {
        run.get(120, TimeUnit.SECONDS);
      }
    } finally {
      threads.shutdownNow();
    }

    Map<String, List<String>> delivered = new HashMap<>();
    Transport transport = InProcessTransport.consuming(
        m -> delivered.computeIfAbsent(m.orderingKey().orElseThrow(), x -> new ArrayList<>()).add(text(m)));
    Relay.builder(store, transport).withClock(clock).build().drain(10_000);

    committed.values().removeIf(List::isEmpty);
    assertThat(delivered).isEqualTo(committed);
  }

  @Test
  final void two_relays_on_separate_pools_deliver_every_entry_exactly_once_in_key_order() throws Exception {
    int total = 10_000;
    int keys = 100;
    Map<String, List<String>> written = new HashMap<>();
    try (Connection c = pool().getConnection()) {
      c.setAutoCommit(false);
      List<Message> batch = new ArrayList<>();
      for (int i = 0; i < total; i++) {
        String key = "key-" + (i % keys);
        String payload = key + "#" + i;
        batch.add(keyed(key, payload));
        written.computeIfAbsent(key, x -> new ArrayList<>()).add(payload);
        if (batch.size() == 500) {
          outbox.writeAll(c, batch);
          c.commit();
          batch.clear();
        }
      }
    }
    Map<UUID, AtomicInteger> deliveries = new ConcurrentHashMap<>();
    Map<String, List<String>> delivered = new ConcurrentHashMap<>();
    Transport transport = InProcessTransport.consuming(m -> {
      deliveries.computeIfAbsent(m.id(), x -> new AtomicInteger()).incrementAndGet();
      delivered.computeIfAbsent(m.orderingKey().orElseThrow(), x -> Collections.synchronizedList(new ArrayList<>()))
          .add(text(m));
    });
    ExecutorService relays = Executors.newFixedThreadPool(2);
    try (HikariDataSource poolA = database().newPool(prefix(), 4);
        HikariDataSource poolB = database().newPool(prefix(), 4)) {
      List<Relay> both = new ArrayList<>();
      for (HikariDataSource pool : List.of(poolA, poolB)) {
        JdbcOutboxStore own = JdbcOutboxStore.builder(pool).withTablePrefix(prefix()).withClock(clock).build();
        both.add(Relay.builder(own, transport).withClock(clock).withBatchSize(200).build());
      }
      List<Future<RelayResult>> runs = new ArrayList<>();
      for (Relay relay : both) {
        runs.add(relays.submit(() -> relay.drain(100_000)));
      }
      int sum = 0;
      for (Future<RelayResult> run : runs) {
        sum += run.get(180, TimeUnit.SECONDS).delivered();
      }
      sum += both.get(0).drain(100_000).delivered(); // whatever the other relay still held when one stopped
      assertThat(sum).isEqualTo(total);
    } finally {
      relays.shutdownNow();
    }

    assertThat(deliveries).hasSize(total);
    assertThat(deliveries.values()).allSatisfy(count -> assertThat(count.get()).as("deliveries of one id").isOne());
    assertThat(delivered).isEqualTo(written);
  }

  @Test
  final void a_relay_whose_connection_died_is_reclaimed_after_its_lease_and_its_late_completion_is_fenced()
      throws Exception {
    for (int i = 0; i < 5; i++) {
      store.enqueue(keyed("key-" + i, "m" + i));
    }
    Duration lease = Duration.ofSeconds(30);
    try (HikariDataSource deadPool = database().newPool(prefix(), 1)) {
      JdbcOutboxStore dying = JdbcOutboxStore.builder(deadPool).withTablePrefix(prefix()).withClock(clock).build();
      List<Claim> held = dying.claim(10, clock.instant(), lease);
      assertThat(held).hasSize(5);

      killSessions(deadPool); // mid-batch: claimed, nothing confirmed

      assertThat(store.claim(10, clock.instant(), lease)).as("still leased").isEmpty();
      clock.advance(lease.plusSeconds(1));
      List<Claim> reclaimed = store.claim(10, clock.instant(), lease);
      assertThat(reclaimed).extracting(Claim::id).containsExactlyInAnyOrderElementsOf(
          held.stream().map(Claim::id).toList());

      // The dead relay comes back (the pool replaces its connection) and reports what it had delivered: fenced.
      List<Claim> lost = retrying(() -> dying.markDelivered(held, clock.instant()));
      assertThat(lost).containsExactlyInAnyOrderElementsOf(held);
      assertThat(dying.markFailed(held.get(0), "late", clock.instant())).isFalse();

      assertThat(store.markDelivered(reclaimed, clock.instant())).isEmpty();
      assertThat(store.stats(clock.instant()).pending()).isZero();
      for (Claim claim : held) {
        assertThat(store.find(claim.id())).isEmpty();
      }
    }
  }

  /**
   * Same-key pairs committed while a claim is scanning: a standing backlog behind ten leased heads keeps a scan that
   * walks waiting entries busy, and a writer commits entry N and then N+1 of a fresh key over and over meanwhile. Every
   * entry a claim hands out must be the oldest undelivered of its key at that moment, and no key may ever have two
   * entries claimed at once. Nothing is delivered during the test and N always commits before N+1, so any claimed
   * N+1 (or any backlog entry, whose heads are leased for an hour) was handed out while an earlier entry of its key
   * was undelivered: the check needs no query.
   */
  @Test
  final void a_claim_never_hands_out_an_entry_whose_earlier_same_key_entry_committed_during_its_scan()
      throws Exception {
    Duration lease = Duration.ofHours(1);
    try (Connection c = pool().getConnection()) {
      c.setAutoCommit(false);
      List<Message> batch = new ArrayList<>();
      for (int i = 0; i < 20_000; i++) {
        batch.add(keyed("backlog-" + (i % 10), "b" + i));
        if (batch.size() == 1_000) {
          outbox.writeAll(c, batch);
          c.commit();
          batch.clear();
        }
      }
    }
    assertThat(store.claim(100, clock.instant(), lease)).as("the backlog's heads, now in flight").hasSize(10);

    java.util.concurrent.atomic.AtomicBoolean claiming = new java.util.concurrent.atomic.AtomicBoolean(true);
    AtomicInteger pairs = new AtomicInteger();
    ExecutorService writer = Executors.newSingleThreadExecutor();
    Future<?> writing = writer.submit(() -> {
      try (Connection c = pool().getConnection()) {
        c.setAutoCommit(false);
        for (int pair = 0; claiming.get(); pair++) {
          outbox.write(c, keyed("pair-" + pair, "N"));
          c.commit();
          outbox.write(c, keyed("pair-" + pair, "N+1"));
          c.commit();
          pairs.incrementAndGet();
        }
      }
      return null;
    });
    Map<String, UUID> inFlight = new HashMap<>();
    List<String> violations = new ArrayList<>();
    try {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(8);
      for (int round = 0; round < 200 && System.nanoTime() < deadline; round++) {
        for (Claim claim : store.claim(1_000, clock.instant(), lease)) {
          String key = claim.message().orderingKey().orElseThrow();
          UUID earlier = inFlight.putIfAbsent(key, claim.id());
          if (earlier != null) {
            violations.add(key + ": " + text(claim.message()) + " claimed while " + earlier + " was in flight");
          }
          if (!text(claim.message()).equals("N")) {
            violations.add(key + ": " + text(claim.message()) + " claimed while an earlier entry was undelivered");
          }
        }
      }
    } finally {
      claiming.set(false);
      writing.get(60, TimeUnit.SECONDS);
      writer.shutdownNow();
    }
    assertThat(pairs.get()).as("pairs committed during the claims").isGreaterThan(10);
    assertThat(violations).isEmpty();
  }

  /**
   * Four writers commit transactions of one to three keyed messages (keys taken in sorted order, so writers never
   * deadlock one another) while three relays, each with its own pool, drain the table. The relays must never make a
   * writer's own transaction fail (a deadlock victim, a lock timeout), and every key's delivery order must be its
   * commit order.
   */
  @Test
  final void writers_and_three_relays_run_together_and_no_writer_transaction_fails_because_of_them()
      throws Exception {
    int writers = 4;
    int perWriter = 150;
    int keys = 20;
    Object[] monitors = new Object[keys];
    Map<String, List<String>> committed = commitRecord(monitors);
    Map<String, List<String>> delivered = new ConcurrentHashMap<>();
    Transport transport = InProcessTransport.consuming(m -> delivered
        .computeIfAbsent(m.orderingKey().orElseThrow(), x -> Collections.synchronizedList(new ArrayList<>()))
        .add(text(m)));
    List<Throwable> writerFailures = Collections.synchronizedList(new ArrayList<>());
    AtomicInteger total = new AtomicInteger();
    List<HikariDataSource> pools = new ArrayList<>();
    List<Relay> relays = new ArrayList<>();
    ExecutorService threads = Executors.newFixedThreadPool(writers);
    try {
      for (int r = 0; r < 3; r++) {
        HikariDataSource relayPool = database().newPool(prefix(), 3);
        pools.add(relayPool);
        JdbcOutboxStore own = JdbcOutboxStore.builder(relayPool).withTablePrefix(prefix()).withClock(clock).build();
        Relay relay = Relay.builder(own, transport).withClock(clock).withBatchSize(50)
            .withPollInterval(Duration.ofMillis(1), Duration.ofMillis(20)).build();
        relays.add(relay);
        relay.start();
      }
      List<Future<?>> runs = new ArrayList<>();
      for (int w = 0; w < writers; w++) {
        int writer = w;
        runs.add(threads.submit(() -> {
          Random random = new Random(writer);
          for (int i = 0; i < perWriter; i++) {
            java.util.TreeSet<Integer> chosen = new java.util.TreeSet<>();
            int count = 1 + random.nextInt(3);
            while (chosen.size() < count) {
              chosen.add(random.nextInt(keys));
            }
            try (Connection c = pool().getConnection()) {
              c.setAutoCommit(false);
              try {
                List<String> payloads = new ArrayList<>();
                for (int k : chosen) {
                  String payload = "key-" + k + "/w" + writer + "/" + i;
                  outbox.write(c, keyed("key-" + k, payload));
                  payloads.add(payload);
                }
                LockSupport.parkNanos(random.nextInt(2_000_000));
                commitRecording(c, chosen, payloads, monitors, committed);
                total.addAndGet(count);
              } catch (SQLException | OutboxException e) {
                writerFailures.add(e);
                c.rollback();
              }
            }
          }
          return null;
        }));
      }
      for (Future<?> run : runs) {
        run.get(180, TimeUnit.SECONDS);
      }
      org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(120))
          .until(() -> delivered.values().stream().mapToInt(List::size).sum() >= total.get());
    } finally {
      threads.shutdownNow();
      relays.forEach(Relay::close);
      pools.forEach(HikariDataSource::close);
    }

    assertThat(writerFailures).as("writer transactions that failed").isEmpty();
    committed.values().removeIf(List::isEmpty);
    assertThat(delivered).isEqualTo(committed);
  }

  /** @return an empty commit record per key ({@code key-0}, ...), filling {@code monitors} with one monitor per key */
  private static Map<String, List<String>> commitRecord(Object[] monitors) {
    Map<String, List<String>> committed = new ConcurrentHashMap<>();
    for (int k = 0; k < monitors.length; k++) {
      monitors[k] = new Object();
      committed.put("key-" + k, Collections.synchronizedList(new ArrayList<>()));
    }
    return committed;
  }

  /** Commits while holding the monitors of every key written (in key order), so the recorded order is commit order. */
  private static void commitRecording(Connection c, java.util.NavigableSet<Integer> keys, List<String> payloads,
      Object[] monitors, Map<String, List<String>> committed) throws SQLException {
    if (keys.isEmpty()) {
      c.commit();
      for (String payload : payloads) {
        committed.get(payload.substring(0, payload.indexOf('/'))).add(payload);
      }
      return;
    }
    synchronized (monitors[keys.first()]) {
      commitRecording(c, keys.tailSet(keys.first(), false), payloads, monitors, committed);
    }
  }

  /** The first use of a pool whose connection was killed may fail once before the pool replaces the connection. */
  private static <T> T retrying(java.util.function.Supplier<T> action) {
    try {
      return action.get();
    } catch (OutboxException first) {
      return action.get();
    }
  }

}
