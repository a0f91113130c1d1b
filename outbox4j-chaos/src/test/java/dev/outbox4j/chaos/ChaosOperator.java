package dev.outbox4j.chaos;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.outbox4j.jdbc.JdbcOutboxStore;
import dev.outbox4j.jdbc.TableNames;
import dev.outbox4j.spi.QuarantineSelector;
import dev.outbox4j.spi.WaitingSelector;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;

/**
 * An operator at work during a chaos run: a thread of the suite's JVM that, at a steady pace, parks, requeues and
 * discards entries of one destination through the store's operator face, directly on the database (not through the
 * relays' pooler), while the relays drain it: waiting entries parked and discarded by selection (the destination, or
 * one key), parked entries requeued and discarded by id and requeued by a selection of ids. Parked entries go back in
 * line within a few seconds, so no key stays blocked for long; when {@link #finish} is called it stops and requeues
 * everything still parked.
 *
 * <p>What it did is recorded for the judge: every id it parked (the entries whose status turned {@code PARKED} in one
 * of its calls; only an operator parks), how many it requeued, and the time window of every call that may delete. The
 * ids deleted come from the database itself (a trigger writes each deleted outbox row's id and time into
 * {@code chaos_deleted}, see {@link #recordDeletions}); the judge accepts as discarded exactly those deleted within one
 * of these windows. Not thread-safe: one thread runs the loop, {@link #finish} joins it.
 */
final class ChaosOperator {
  /** A time span within which the operator's call ran, as read from the clock before and after it. */
  record Window(Instant from, Instant to) {
    /** @return whether {@code at} falls within this window */
    boolean contains(Instant at) {
      return !at.isBefore(from) && !at.isAfter(to);
    }
  }

  /**
   * What the operator did.
   *
   * @param parked every id it parked
   * @param requeued entries it requeued, the final requeue included
   * @param deleting the windows of its calls that may delete entries
   * @param actions operator calls made
   * @param failures calls that failed (the database was down)
   * @param stillParked entries still parked after the final requeue (should be none)
   */
  record Record(Set<UUID> parked, long requeued, List<Window> deleting, long actions, long failures,
      long stillParked) {}

  private static final Duration PACE = Duration.ofMillis(300);
  /** How long a parked entry stays parked at most before the loop requeues it by id. */
  private static final Duration PARKED_AT_MOST = Duration.ofSeconds(3);

  private final HikariDataSource pool;
  private final JdbcOutboxStore store;
  private final String outbox;
  private final String destination;
  private final List<String> keys;
  private final Random random;
  private final Clock clock;
  private final Thread thread;
  private volatile boolean stopping;

  private final Set<UUID> parkedEver = Collections.synchronizedSet(new LinkedHashSet<>());
  private final Map<UUID, Instant> parkedNow = new LinkedHashMap<>();
  private final List<Window> deleting = Collections.synchronizedList(new ArrayList<>());
  private long requeued;
  private long actions;
  private long failures;

  /**
   * @param jdbcUrl the database, directly
   * @param prefix the outbox tables' prefix
   * @param destination the destination whose entries it acts on
   * @param keys the ordering keys written to that destination
   * @param seed fixes the sequence of actions
   */
  ChaosOperator(String jdbcUrl, String prefix, String destination, List<String> keys, long seed, Clock clock) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(jdbcUrl);
    config.setMaximumPoolSize(2);
    config.setConnectionTimeout(2_000);
    config.setInitializationFailTimeout(-1);
    config.setPoolName("chaos-operator");
    this.pool = new HikariDataSource(config);
    this.store = JdbcOutboxStore.builder(pool).withTablePrefix(prefix).build();
    this.outbox = TableNames.withPrefix(prefix).qualified("outbox");
    this.destination = destination;
    this.keys = List.copyOf(keys);
    this.random = new Random(seed);
    this.clock = clock;
    this.thread = new Thread(this::loop, "chaos-operator");
  }

  /**
   * Makes the database record every deleted outbox row: id, status and the time of the deletion (the server's clock,
   * the machine clock every process of the run reads), in {@code chaos_deleted}, in the deleting transaction.
   *
   * @param connection a connection to the suite's database, after the outbox's migration
   * @param prefix the outbox tables' prefix
   */
  static void recordDeletions(Connection connection, String prefix) throws SQLException {
    try (Statement statement = connection.createStatement()) {
      statement.execute("CREATE TABLE chaos_deleted (id UUID NOT NULL, status VARCHAR(16) NOT NULL,"
          + " deleted_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp())");
      statement.execute("CREATE FUNCTION chaos_record_deletion() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
          + " INSERT INTO chaos_deleted (id, status) VALUES (OLD.id, OLD.status); RETURN OLD; END $$");
      statement.execute("CREATE TRIGGER chaos_deleted AFTER DELETE ON " + TableNames.withPrefix(prefix)
          .qualified("outbox") + " FOR EACH ROW EXECUTE FUNCTION chaos_record_deletion()");
    }
  }

  /**
   * @param connection a connection to the suite's database
   * @return every outbox row deleted so far: id to the time of its deletion (the first, should a row be deleted twice)
   */
  static Map<UUID, Instant> deletions(Connection connection) throws SQLException {
    Map<UUID, Instant> deleted = new LinkedHashMap<>();
    try (Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery("SELECT id, deleted_at FROM chaos_deleted ORDER BY deleted_at")) {
      while (rows.next()) {
        deleted.putIfAbsent(rows.getObject(1, UUID.class), rows.getTimestamp(2).toInstant());
      }
    }
    return deleted;
  }

  /** Starts the loop. */
  void start() {
    thread.start();
  }

  /**
   * Stops the loop, then requeues (by id) every entry still parked, retrying while the database refuses (bounded).
   *
   * @return what the operator did
   */
  Record finish() {
    stopping = true;
    try {
      thread.join(Duration.ofSeconds(60).toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    Set<UUID> left = Set.of();
    while (System.nanoTime() < deadline) {
      try {
        left = parkedIds();
        if (left.isEmpty()) {
          break;
        }
        for (UUID id : left) {
          if (store.requeue(id, clock.instant())) {
            requeued++;
          }
        }
      } catch (RuntimeException e) {
        failures++;
        ChaosRun.pause(Duration.ofMillis(500)); // the database is down; an operator tries again
      }
    }
    Record record = new Record(Set.copyOf(parkedEver), requeued, List.copyOf(deleting), actions, failures,
        left.size());
    pool.close();
    return record;
  }

  private void loop() {
    while (!stopping) {
      try {
        act();
      } catch (RuntimeException e) {
        failures++; // the database is down or restarting: the next call tries again
      }
      ChaosRun.pause(PACE); // an operator's pace, not a wait for a condition
    }
  }

  private void act() {
    Instant now = clock.instant();
    String key = keys.get(random.nextInt(keys.size()));
    switch (random.nextInt(7)) {
      case 0 -> park(() -> store.parkWaiting(WaitingSelector.ofDestination(destination), now, 4));
      case 1 -> park(() -> store.parkWaiting(WaitingSelector.ofKey(key), now, 2));
      case 2 -> delete(() -> store.discardWaiting(WaitingSelector.ofDestination(destination), now, 2));
      case 3 -> delete(() -> store.discardWaiting(WaitingSelector.ofKey(key), now, 2));
      case 4 -> pickParked().ifPresent(id -> delete(() -> store.discard(id) ? 1 : 0));
      case 5 -> {
        List<UUID> some = parkedNow.keySet().stream().limit(10).toList();
        if (!some.isEmpty()) {
          actions++;
          requeued += store.requeueAll(QuarantineSelector.ofIds(some), now, 10);
        }
      }
      default -> pickParked().ifPresent(id -> {
        actions++;
        if (store.requeue(id, now)) {
          requeued++;
        }
      });
    }
    refreshParked();
    for (Map.Entry<UUID, Instant> parked : List.copyOf(parkedNow.entrySet())) {
      if (parked.getValue().plus(PARKED_AT_MOST).isBefore(clock.instant())) {
        actions++;
        if (store.requeue(parked.getKey(), clock.instant())) {
          requeued++;
        }
      }
    }
    refreshParked();
  }

  private java.util.Optional<UUID> pickParked() {
    List<UUID> ids = List.copyOf(parkedNow.keySet());
    return ids.isEmpty() ? java.util.Optional.empty() : java.util.Optional.of(ids.get(random.nextInt(ids.size())));
  }

  private void park(java.util.function.IntSupplier call) {
    actions++;
    call.getAsInt();
    refreshParked();
  }

  private void delete(java.util.function.IntSupplier call) {
    actions++;
    Instant from = clock.instant();
    try {
      call.getAsInt();
    } finally {
      deleting.add(new Window(from, clock.instant()));
    }
  }

  /** Reads which entries are parked now; those not seen parked before were parked by this operator's last call. */
  private void refreshParked() {
    Set<UUID> now = parkedIds();
    parkedNow.keySet().retainAll(now);
    for (UUID id : now) {
      if (parkedNow.putIfAbsent(id, clock.instant()) == null) {
        parkedEver.add(id);
      }
    }
  }

  private Set<UUID> parkedIds() {
    Set<UUID> ids = new LinkedHashSet<>();
    try (Connection connection = pool.getConnection();
        Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery("SELECT id FROM " + outbox + " WHERE status = 'PARKED'")) {
      while (rows.next()) {
        ids.add(rows.getObject(1, UUID.class));
      }
    } catch (SQLException e) {
      throw new IllegalStateException("cannot read the parked entries", e);
    }
    return ids;
  }
}
