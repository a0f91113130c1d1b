package dev.outbox4j.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox4j.Message;
import dev.outbox4j.QuarantineReason;
import dev.outbox4j.spi.Claim;
import dev.outbox4j.spi.Retention;
import dev.outbox4j.testkit.SettableClock;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The claim window's floor ({@link ClaimFloor}) on a real server: the window starts above the entries already
 * retired, and still finds every entry that commits late below it, and every entry that comes back to waiting. The
 * background re-check runs every 30 s, longer than any wait here: each test fails if only that re-check finds the
 * entry. One subclass per database with a floor.
 */
abstract class ClaimFloorTests {
  private static final Duration LEASE = Duration.ofSeconds(30);

  final SettableClock clock = SettableClock.atFixedStart();
  JdbcOutboxStore store;
  private final List<Connection> open = new ArrayList<>();

  /** @return the database under test */
  abstract TestDatabase database();

  /** @return this class's table prefix */
  abstract String prefix();

  /**
   * @return how long to wait between claims so that each one's sample is kept and what was numbered before it can
   *     raise the floor (MariaDB pairs each list of writers with a number read half a second before)
   */
  abstract Duration pause();

  /**
   * Called first by the tests whose writer stays open over several claims: on MariaDB the floor passes a number once
   * it is old enough, so those tests hold their writer for less than that.
   */
  void writerStaysOpen() {}

  /** Sets the outbox's numbering back to 1; the outbox is empty. */
  abstract void numberFromOne(Statement statement) throws SQLException;

  @BeforeEach
  void store() {
    store = database().emptyStore(prefix(), clock, Retention.deleteOnDelivery());
  }

  @AfterEach
  void closeOpen() throws SQLException {
    for (Connection c : open) {
      c.rollback();
      c.close();
    }
  }

  private DataSource pool() {
    return database().pool(prefix());
  }

  static Message message(String key) {
    return Message.builder().withDestination("d").withOrderingKey(key).build();
  }

  /** A writer's transaction that inserted one entry and has not committed: its number is taken, its row invisible. */
  private Connection writeAndHold(String key) throws SQLException {
    Connection c = pool().getConnection();
    c.setAutoCommit(false);
    open.add(c);
    store.outbox().write(c, message(key));
    return c;
  }

  /** Claims and delivers until a claim comes back empty; returns the ids delivered, in claim order. */
  /**
   * Drains three times, pausing before each ({@link #pause}), so that the floor rises as far as it may.
   *
   * @return the ids delivered, in claim order
   */
  List<UUID> drainPaced() throws InterruptedException {
    List<UUID> delivered = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      TimeUnit.NANOSECONDS.sleep(pause().toNanos());
      delivered.addAll(drain());
    }
    return delivered;
  }

  List<UUID> drain() {
    List<UUID> delivered = new ArrayList<>();
    for (List<Claim> claims = store.claim(100, clock.instant(), LEASE); !claims.isEmpty();
        claims = store.claim(100, clock.instant(), LEASE)) {
      assertThat(store.markDelivered(claims, clock.instant())).isEmpty();
      claims.forEach(claim -> delivered.add(claim.id()));
    }
    return delivered;
  }

  @Test
  void the_floor_rises_past_delivered_entries() throws InterruptedException {
    for (int i = 0; i < 20; i++) {
      store.enqueue(message(i % 2 == 0 ? null : "k" + i));
    }
    assertThat(drain()).hasSize(20);
    assertThat(drainPaced()).isEmpty(); // a claim after every writer of an earlier sample has ended raises the floor
    assertThat(store.claimFloor()).as("above the 20 retired entries").isGreaterThan(20);
  }

  @Test
  void an_entry_committed_after_later_entries_were_delivered_is_claimed_at_once() throws Exception {
    writerStaysOpen();
    Connection slow = writeAndHold(null); // takes the smaller number
    List<UUID> later = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      later.add(store.enqueue(message(null)).id());
    }
    assertThat(drain()).containsExactlyElementsOf(later);
    assertThat(drainPaced()).as("the slow writer's entry is invisible").isEmpty();
    slow.commit();

    assertThat(drain()).as("claimed by the next claim, not by the 30 s re-check").hasSize(1);
  }

  @Test
  void a_keyed_entry_committed_late_is_claimed_at_once_and_its_key_keeps_its_order() throws Exception {
    writerStaysOpen();
    Connection slow = writeAndHold("a");
    store.enqueue(message("b"));
    assertThat(drain()).hasSize(1);
    drainPaced();
    slow.commit();
    UUID next = store.enqueue(message("a")).id();

    List<UUID> delivered = drain();
    assertThat(delivered).hasSize(2);
    assertThat(delivered.get(1)).as("the key's later entry after the late one").isEqualTo(next);
  }

  @Test
  void an_entry_requeued_below_the_floor_is_claimed_at_once() throws InterruptedException {
    UUID poisoned = store.enqueue(message("k")).id();
    Claim claim = store.claim(10, clock.instant(), LEASE).get(0);
    assertThat(store.quarantine(claim, QuarantineReason.permanentFailure("bad"), clock.instant())).isTrue();
    for (int i = 0; i < 10; i++) {
      store.enqueue(message(null));
    }
    assertThat(drain()).hasSize(10);
    drainPaced();
    assertThat(store.claimFloor()).isGreaterThan(claim.entry().sequence());

    assertThat(store.requeue(poisoned, clock.instant())).isTrue();
    assertThat(drain()).containsExactly(poisoned);
  }

  @Test
  void the_floor_starts_again_when_the_numbering_goes_back() throws Exception {
    for (int i = 0; i < 10; i++) {
      store.enqueue(message(null));
    }
    drain();
    drainPaced();
    assertThat(store.claimFloor()).isGreaterThan(10);
    try (Connection c = pool().getConnection(); Statement s = c.createStatement()) {
      numberFromOne(s);
    }
    UUID renumbered = store.enqueue(message(null)).id();

    assertThat(drain()).containsExactly(renumbered);
  }

  /**
   * Eight writers (half their entries keyed over 10 keys, half unkeyed), each transaction holding its entry a random
   * 0–40 ms before it commits (so numbers commit out of order all the time), against one relay claiming and delivering
   * as fast as it can. Every entry is delivered once, every key in order, and the last one within seconds of its
   * commit: none waited for the background re-check.
   */
  @Test
  void writers_committing_out_of_order_lose_nothing_and_keep_every_key_in_order() throws Exception {
    int writers = 8;
    int perWriter = 150;
    Map<String, List<UUID>> committedOrder = new ConcurrentHashMap<>();
    ExecutorService threads = Executors.newFixedThreadPool(writers);
    List<Future<?>> done = new ArrayList<>();
    for (int w = 0; w < writers; w++) {
      done.add(threads.submit(() -> {
        for (int i = 0; i < perWriter; i++) {
          int k = ThreadLocalRandom.current().nextInt(200);
          // half unkeyed, the other half over enough keys that the window seldom clogs (the heads read, which starts
          // at no floor, would find what the window skipped)
          String key = k < 100 ? "k" + k : null;
          try (Connection c = pool().getConnection()) {
            c.setAutoCommit(false);
            Message message = message(key);
            // the key's row lock orders same-key commits; record the order under it, as the relay must keep it
            store.outbox().write(c, message);
            Thread.sleep(ThreadLocalRandom.current().nextInt(40));
            synchronized (committedOrder) {
              c.commit();
              if (key != null) {
                committedOrder.computeIfAbsent(key, x -> Collections.synchronizedList(new ArrayList<>()))
                    .add(message.id());
              }
            }
          }
        }
        return null;
      }));
    }
    Map<String, List<UUID>> deliveredOrder = new HashMap<>();
    Set<UUID> delivered = ConcurrentHashMap.newKeySet();
    int total = writers * perWriter;
    long deadline = 0;
    while (delivered.size() < total) {
      List<Claim> claims = store.claim(50, clock.instant(), LEASE);
      for (Claim claim : claims) {
        assertThat(delivered.add(claim.id())).as("delivered once").isTrue();
        claim.entry().message().orderingKey()
            .ifPresent(key -> deliveredOrder.computeIfAbsent(key, k -> new ArrayList<>()).add(claim.id()));
      }
      assertThat(store.markDelivered(claims, clock.instant())).isEmpty();
      if (deadline == 0 && done.stream().allMatch(Future::isDone)) {
        deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      }
      assertThat(deadline == 0 || System.nanoTime() < deadline)
          .as("every entry delivered within 10 s of the last commit; %d of %d", delivered.size(), total).isTrue();
    }
    threads.shutdown();
    for (Future<?> f : done) {
      f.get();
    }
    assertThat(delivered).hasSize(total);
    for (Map.Entry<String, List<UUID>> key : committedOrder.entrySet()) {
      assertThat(deliveredOrder.get(key.getKey())).as("key %s in commit order", key.getKey())
          .containsExactlyElementsOf(key.getValue());
    }
    assertThat(store.claimFloor()).as("the floor rose while writers kept committing").isGreaterThan(0);
  }
}
