package dev.outbox4j.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.outbox4j.Message;
import dev.outbox4j.Relay;
import dev.outbox4j.jdbc.testing.RunDatabases;
import dev.outbox4j.spi.Claim;
import dev.outbox4j.spi.Retention;
import dev.outbox4j.testkit.SettableClock;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The default PostgreSQL claim through PgBouncer in transaction mode (Debian's {@code pgbouncer}, started here on a free
 * port with a configuration of this test's own): every transaction of a store may run on a different server
 * connection, so nothing may live in a session. The driver runs with {@code prepareThreshold=0} (PgBouncer 1.18 keeps
 * no named prepared statements across transactions).
 */
class PostgresThroughPgBouncerTest {
  private static final String PREFIX = "pgbouncer_";
  private static final Duration LEASE = Duration.ofSeconds(30);

  @TempDir
  static Path directory;

  private static Process bouncer;
  private static HikariDataSource throughBouncer;
  private static HikariDataSource secondThroughBouncer;

  @BeforeAll
  static void startPgBouncer() throws Exception {
    TestDatabase.POSTGRES.pool(PREFIX); // this JVM's database, migrated directly (DDL needs no pooler)
    int port;
    try (ServerSocket free = new ServerSocket(0)) {
      port = free.getLocalPort();
    }
    Files.writeString(directory.resolve("pgbouncer.ini"), String.join("\n",
        "[databases]",
        RunDatabases.name() + " = host=127.0.0.1 port=5432 dbname=" + RunDatabases.name() + " user=postgres",
        "[pgbouncer]",
        "listen_addr = 127.0.0.1",
        "listen_port = " + port,
        "unix_socket_dir =",
        "auth_type = trust",
        "auth_file = " + directory.resolve("users.txt"),
        "pool_mode = transaction",
        // Fewer server connections than the stores' pools together: transactions of different clients share them.
        "default_pool_size = 3",
        "max_client_conn = 100",
        "ignore_startup_parameters = extra_float_digits,options",
        "logfile = " + directory.resolve("pgbouncer.log"),
        ""));
    Files.writeString(directory.resolve("users.txt"), "\"postgres\" \"\"\n");
    List<String> command = new ArrayList<>();
    if ("root".equals(System.getProperty("user.name"))) {
      // PgBouncer refuses to run as root.
      new ProcessBuilder("chown", "-R", "postgres", directory.toString()).inheritIO().start().waitFor();
      command.addAll(List.of("runuser", "-u", "postgres", "--"));
    }
    command.addAll(List.of("/usr/sbin/pgbouncer", directory.resolve("pgbouncer.ini").toString()));
    bouncer = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(directory.resolve("stdout.log").toFile()).start();
    awaitListening(port);
    throughBouncer = pool(port, 6);
    secondThroughBouncer = pool(port, 6);
  }

  private static HikariDataSource pool(int port, int size) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl("jdbc:postgresql://127.0.0.1:" + port + "/" + RunDatabases.name()
        + "?user=postgres&prepareThreshold=0");
    config.setMaximumPoolSize(size);
    return new HikariDataSource(config);
  }

  private static void awaitListening(int port) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (true) {
      try (Socket probe = new Socket("127.0.0.1", port)) {
        return;
      } catch (IOException e) {
        if (!bouncer.isAlive() || System.nanoTime() > deadline) {
          throw new IllegalStateException("pgbouncer did not start: "
              + Files.readString(directory.resolve("stdout.log")), e);
        }
        Thread.sleep(100);
      }
    }
  }

  @AfterAll
  static void stopPgBouncer() {
    if (throughBouncer != null) {
      throughBouncer.close();
      secondThroughBouncer.close();
    }
    if (bouncer != null) {
      bouncer.destroy();
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
    Map<String, List<Integer>> received = Collections.synchronizedMap(new HashMap<>());
    dev.outbox4j.spi.Transport transport = dev.outbox4j.memory.InProcessTransport.consuming(message ->
        received.computeIfAbsent(message.orderingKey().orElseThrow(), k -> Collections.synchronizedList(new ArrayList<>()))
            .add(Integer.parseInt(new String(message.payload(), java.nio.charset.StandardCharsets.UTF_8))));
    try (Relay one = Relay.builder(first, transport).withBatchSize(7).withClock(clock).build();
        Relay two = Relay.builder(second, transport).withBatchSize(7).withClock(clock).build()) {
      Thread other = new Thread(() -> drainUntilEmpty(two, first, clock));
      other.start();
      drainUntilEmpty(one, first, clock);
      other.join(60_000);
    }
    assertThat(first.stats(clock.instant()).pending()).isZero();
    assertThat(received).hasSize(10);
    received.values().forEach(sequence -> assertThat(sequence).isSorted().doesNotHaveDuplicates()
        .hasSize(perKey));
  }
}
