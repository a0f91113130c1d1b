package dev.outbox4j.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.outbox4j.Message;
import dev.outbox4j.OutboxEntry;
import dev.outbox4j.QuarantineReason;
import dev.outbox4j.Relay;
import dev.outbox4j.RelayListener;
import dev.outbox4j.jdbc.inbox.JdbcInbox;
import dev.outbox4j.spi.QuarantineQuery;
import dev.outbox4j.spi.WaitingSelector;
import dev.outbox4j.jdbc.testing.PgBouncerProcess;
import dev.outbox4j.jdbc.testing.RunDatabases;
import dev.outbox4j.spi.Claim;
import dev.outbox4j.testkit.SettableClock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The default PostgreSQL claim through PgBouncer in transaction mode (Debian's {@code pgbouncer}, started here on a free
 * port with a configuration of this test's own): every transaction of a store may run on a different server
 * connection, so nothing may live in a session. The driver runs with its default settings: PgBouncer 1.18 keeps no
 * named prepared statements across transactions, so the store must send every statement unnamed by itself
 * ({@link dev.outbox4j.jdbc.internal.UnnamedStatements}); each face's statements run more often than pgjdbc's
 * {@code prepareThreshold} (5) on connections that PgBouncer's three server connections serve in turn.
 */
class PostgresThroughPgBouncerTest {
  private static final String PREFIX = "pgbouncer_";
  private static final Duration LEASE = Duration.ofSeconds(30);

  @TempDir
  static Path directory;

  private static PgBouncerProcess bouncer;
  private static HikariDataSource throughBouncer;
  private static HikariDataSource secondThroughBouncer;

  @BeforeAll
  static void startPgBouncer() {
    TestDatabase.POSTGRES.pool(PREFIX); // this JVM's database, migrated directly (DDL needs no pooler)
    // Fewer server connections than the stores' pools together: transactions of different clients share them.
    bouncer = PgBouncerProcess.start(directory, 3);
    throughBouncer = pool(6);
    secondThroughBouncer = pool(6);
  }

  private static HikariDataSource pool(int size) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(bouncer.url());
    config.setMaximumPoolSize(size);
    return new HikariDataSource(config);
  }

  @AfterAll
  static void stopPgBouncer() {
    if (throughBouncer != null) {
      throughBouncer.close();
      secondThroughBouncer.close();
    }
    if (bouncer != null) {
      bouncer.close();
    }
  }

  private static JdbcOutboxStore store(HikariDataSource pool, SettableClock clock) {
    return JdbcOutboxStore.builder(pool).withTablePrefix(PREFIX).withClock(clock).build();
  }

  private static void drainUntilEmpty(Relay relay, JdbcOutboxStore store, SettableClock clock) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (store.stats(clock.instant()).pending() > 0 && System.nanoTime() < deadline) {
      relay.flush();
    }
  }

  @Test
  void two_relays_drain_through_pgbouncer_in_key_order_and_a_dead_relays_claims_are_fenced_and_taken_over()
      throws Exception {
    SettableClock clock = SettableClock.atFixedStart();
    TestDatabase.truncate(TestDatabase.POSTGRES.pool(PREFIX), TableNames.withPrefix(PREFIX));
    JdbcOutboxStore first = store(throughBouncer, clock);
    JdbcOutboxStore second = store(secondThroughBouncer, clock);
    assertThat(first.claimStrategy()).isEqualTo(ClaimStrategy.LEASED_BATCHES);

    // A relay that dies holding claims: nothing is completed; its entries wait for the lease, then move on.
    for (int i = 0; i < 5; i++) {
      first.enqueue(Message.builder().withDestination("d").withOrderingKey("dead-" + i).build());
    }
    List<Claim> abandoned = first.claim(5, clock.instant(), LEASE);
    assertThat(abandoned).hasSize(5);
    assertThat(second.claim(10, clock.instant(), LEASE)).as("within the lease").isEmpty();
    clock.advance(LEASE.plusSeconds(1));
    List<Claim> takenOver = second.claim(10, clock.instant(), LEASE);
    assertThat(takenOver).hasSize(5);
    assertThat(first.markDelivered(abandoned, clock.instant())).as("the late completion is fenced")
        .hasSize(5);
    assertThat(second.markDelivered(takenOver, clock.instant())).isEmpty();

    int perKey = 40;
    for (int i = 0; i < perKey * 10; i++) {
      first.enqueue(Message.builder().withDestination("d").withOrderingKey("k" + (i % 10))
          .withPayload(Integer.toString(i / 10).getBytes(java.nio.charset.StandardCharsets.UTF_8)).build());
    }
    List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
    List<UUID> lost = Collections.synchronizedList(new ArrayList<>());
    RelayListener counting = new RelayListener() {
      @Override
      public void onError(Throwable error) {
        failures.add(error);
      }

      @Override
      public void onClaimLost(dev.outbox4j.OutboxEntry entry) {
        lost.add(entry.id());
      }
    };
    Map<String, List<Integer>> received = Collections.synchronizedMap(new HashMap<>());
    dev.outbox4j.spi.Transport transport = dev.outbox4j.memory.InProcessTransport.consuming(message ->
        received.computeIfAbsent(message.orderingKey().orElseThrow(), k -> Collections.synchronizedList(new ArrayList<>()))
            .add(Integer.parseInt(new String(message.payload(), java.nio.charset.StandardCharsets.UTF_8))));
    try (Relay one = Relay.builder(first, transport).withBatchSize(7).withClock(clock).onEvent(counting).build();
        Relay two = Relay.builder(second, transport).withBatchSize(7).withClock(clock).onEvent(counting)
            .build()) {
      Thread other = new Thread(() -> drainUntilEmpty(two, first, clock));
      other.start();
      drainUntilEmpty(one, first, clock);
      other.join(60_000);
    }
    assertThat(failures).as("claim and statement failures").isEmpty();
    assertThat(lost).as("claims lost").isEmpty();
    assertThat(first.stats(clock.instant()).pending()).isZero();
    assertThat(received).hasSize(10);
    received.values().forEach(sequence -> assertThat(sequence).isSorted().doesNotHaveDuplicates()
        .hasSize(perKey));
  }

  /**
   * Two relay processes, each with a pool of its own through PgBouncer (pool size 3) with the driver's default settings,
   * drain 600 keyed entries: no relay error and no claim lost in either process's output, every entry received once,
   * each key in order (the transports record arrivals over a direct connection, in one sequence).
   */
  @Test
  void two_relay_processes_through_pgbouncer_with_the_drivers_defaults_log_no_claim_failure() throws Exception {
    DataSource direct = TestDatabase.POSTGRES.pool(PREFIX);
    TestDatabase.truncate(direct, TableNames.withPrefix(PREFIX));
    try (java.sql.Connection c = direct.getConnection(); java.sql.Statement s = c.createStatement()) {
      s.execute("DROP TABLE IF EXISTS " + PREFIX + "received");
      s.execute("CREATE TABLE " + PREFIX + "received (arrival bigserial PRIMARY KEY, ordering_key text NOT NULL,"
          + " position int NOT NULL)");
    }
    JdbcOutboxStore writer = JdbcOutboxStore.builder(direct).withTablePrefix(PREFIX).build();
    int keys = 12;
    int perKey = 50;
    try (java.sql.Connection c = direct.getConnection()) {
      c.setAutoCommit(false);
      for (int i = 0; i < perKey; i++) {
        for (int k = 0; k < keys; k++) {
          writer.outbox().write(c, Message.builder().withDestination("d").withOrderingKey("k" + k)
              .withPayload(Integer.toString(i).getBytes(java.nio.charset.StandardCharsets.UTF_8)).build());
        }
        c.commit();
      }
    }
    String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    List<Process> relays = new ArrayList<>();
    List<Path> outputs = new ArrayList<>();
    for (int r = 0; r < 2; r++) {
      Path output = directory.resolve("relay-" + r + ".log");
      outputs.add(output);
      relays.add(new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
          classPath, PgBouncerRelay.class.getName(), bouncer.url(), RunDatabases.postgresUrl(), PREFIX)
          .redirectErrorStream(true).redirectOutput(output.toFile()).start());
    }
    try {
      for (Process relay : relays) {
        assertThat(relay.waitFor(150, TimeUnit.SECONDS)).as("the relay process ended").isTrue();
      }
    } finally {
      relays.forEach(Process::destroyForcibly);
    }
    for (Path output : outputs) {
      List<String> lines = Files.readAllLines(output);
      assertThat(lines).as("the output of " + output.getFileName()).contains("DONE")
          .noneMatch(line -> line.startsWith("ERROR") || line.startsWith("CLAIM LOST"));
    }
    Map<String, List<Integer>> received = new HashMap<>();
    try (java.sql.Connection c = direct.getConnection(); java.sql.Statement s = c.createStatement();
        java.sql.ResultSet rows = s.executeQuery("SELECT ordering_key, position FROM " + PREFIX + "received"
            + " ORDER BY arrival")) {
      while (rows.next()) {
        received.computeIfAbsent(rows.getString(1), k -> new ArrayList<>()).add(rows.getInt(2));
      }
    }
    assertThat(received).hasSize(keys);
    received.forEach((key, order) -> assertThat(order).as("the arrivals of key " + key)
        .isEqualTo(java.util.stream.IntStream.range(0, perKey).boxed().toList()));
  }

  /**
   * Every face of the store, the writer and the inbox, each statement run more often than pgjdbc's prepare threshold,
   * from two pools whose transactions PgBouncer spreads over its three server connections: with the driver's default
   * settings, nothing fails.
   */
  @Test
  void every_face_runs_through_pgbouncer_with_the_drivers_default_settings() throws Exception {
    TestDatabase.truncate(TestDatabase.POSTGRES.pool(PREFIX), TableNames.withPrefix(PREFIX));
    JdbcInbox.builder(TestDatabase.POSTGRES.pool(PREFIX)).withTableNames(TableNames.withPrefix(PREFIX)).build()
        .migrate(); // DDL directly
    for (HikariDataSource pool : List.of(throughBouncer, secondThroughBouncer)) {
      JdbcOutboxStore store = JdbcOutboxStore.builder(pool).withTablePrefix(PREFIX).build();
      JdbcOutbox outbox = store.outbox();
      JdbcInbox inbox = JdbcInbox.builder(pool).withTableNames(TableNames.withPrefix(PREFIX)).build();
      for (int i = 0; i < 12; i++) {
        UUID written;
        try (java.sql.Connection c = pool.getConnection()) { // the writer in the caller's auto-commit transaction
          Message message = Message.builder().withDestination("faces").withOrderingKey("w" + i).build();
          outbox.write(c, message);
          written = message.id();
          inbox.receive(c, "consumer", written);
        }
        OutboxEntry entry = store.enqueue(Message.builder().withDestination("faces").build());
        Instant now = Instant.now();
        assertThat(store.find(entry.id())).isPresent();
        assertThat(store.findPending(5)).isNotEmpty();
        assertThat(store.findRetryReady(now, 5)).isNotNull();
        store.markDelivered(entry, "ok");
        List<Claim> claims = store.claim(2, now, LEASE);
        assertThat(claims).isNotEmpty();
        store.quarantine(claims.get(0), QuarantineReason.permanentFailure("pgbouncer test"));
        store.release(claims.subList(1, claims.size()));
        assertThat(store.quarantined(QuarantineQuery.first(10))).isNotEmpty();
        assertThat(store.requeue(claims.get(0).id(), now)).isTrue();
        List<Claim> again = store.claim(10, now, LEASE);
        assertThat(store.markDelivered(again, now)).isEmpty();
        store.stats(now);
        store.destinationStats(now, 10);
        store.countWaiting(WaitingSelector.ofKey("w" + i), now);
        store.purgeDelivered(now, 10);
        inbox.purge(now.plusSeconds(60), 10);
      }
    }
  }

  /**
   * Payloads on either side of {@link PostgresPayloads#INLINE_LIMIT} up to 1 MiB come back byte for byte through
   * PgBouncer from every PostgreSQL claim face (the large ones through a binary {@code COPY}, which PgBouncer passes
   * in transaction mode), with the driver's default settings, on both pools in turn.
   */
  @Test
  void large_payloads_come_back_byte_exact_through_pgbouncer_from_every_claim_face() {
    SettableClock clock = SettableClock.atFixedStart();
    int pass = 0;
    for (ClaimStrategy strategy : ClaimStrategy.values()) {
      for (int maxRun : new int[] {1, 4}) {
        for (boolean combined : new boolean[] {false, true}) {
          TestDatabase.truncate(TestDatabase.POSTGRES.pool(PREFIX), TableNames.withPrefix(PREFIX));
          JdbcOutboxStore store = JdbcOutboxStore.builder(pass++ % 2 == 0 ? throughBouncer : secondThroughBouncer)
              .withTablePrefix(PREFIX).withClock(clock).withClaimStrategy(strategy).build();
          PostgresLargePayloadsTest.assertEverySizeComesBackByteExact(store, clock.instant(), maxRun, combined);
        }
      }
    }
  }

  /**
   * A relay process SIGKILLed through PgBouncer while inside a claim's transaction, with a committed batch in flight:
   * PgBouncer drops the dirty server connection, so the locks of the open transaction go at once, while the committed
   * batch waits for its lease; PgBouncer goes on serving every other client.
   */
  @Test
  void a_relay_killed_inside_a_claim_through_pgbouncer_leaves_no_lock_and_its_batch_waits_for_its_lease()
      throws Exception {
    TestDatabase.truncate(TestDatabase.POSTGRES.pool(PREFIX), TableNames.withPrefix(PREFIX));
    JdbcOutboxStore survivor = JdbcOutboxStore.builder(throughBouncer).withTablePrefix(PREFIX).build();
    for (int i = 0; i < 10; i++) {
      survivor.enqueue(Message.builder().withDestination("d").withOrderingKey("k" + i).build());
    }
    String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    Process relay = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
        classPath, PgBouncerClaimer.class.getName(), bouncer.url(), PREFIX, "5", "10").redirectErrorStream(true)
        .start();
    try (java.io.BufferedReader out = new java.io.BufferedReader(
        new java.io.InputStreamReader(relay.getInputStream(), java.nio.charset.StandardCharsets.UTF_8))) {
      List<String> lines = new ArrayList<>();
      for (String line = out.readLine(); line != null && !line.startsWith("LOCKED"); line = out.readLine()) {
        lines.add(line);
      }
      assertThat(lines).as("the relay's output").contains("CLAIMED 5");
      relay.destroyForcibly().waitFor(30, TimeUnit.SECONDS); // SIGKILL, inside the claim's transaction
    } finally {
      relay.destroyForcibly();
    }
    List<Claim> free = new ArrayList<>();
    await().atMost(Duration.ofSeconds(8)).until(() -> {
      free.addAll(survivor.claim(10, Instant.now(), LEASE)); // the dead transaction's locks go with its connection
      return free.size() >= 5;
    });
    assertThat(free).as("the entries the killed transaction had locked, and only those").hasSize(5);
    assertThat(survivor.stats(Instant.now()).inFlight()).as("with the killed relay's committed batch").isEqualTo(10);
    assertThat(survivor.markDelivered(free, Instant.now())).isEmpty();
    List<Claim> takenOver = new ArrayList<>();
    await().atMost(Duration.ofSeconds(30)).until(() -> {
      takenOver.addAll(survivor.claim(10, Instant.now(), LEASE)); // once the 10 s lease has passed
      return takenOver.size() >= 5;
    });
    assertThat(takenOver).hasSize(5);
    assertThat(survivor.markDelivered(takenOver, Instant.now())).isEmpty();
    assertThat(survivor.stats(Instant.now()).pending()).isZero();
  }
}
