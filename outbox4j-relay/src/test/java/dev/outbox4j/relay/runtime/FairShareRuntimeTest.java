package dev.outbox4j.relay.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import dev.outbox4j.jdbc.testing.RunDatabases;
import dev.outbox4j.relay.config.ConfigReader;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two outboxes of one relay on the real PostgreSQL, sharing the process through {@link FairShare} on a ticker that
 * stands still (so no turn ends and no wait runs out by time: only the quiet outbox's pass ending lets the busy one
 * go on). The busy outbox drains a backlog; the quiet one is woken by its notification and sends one row, whose answer
 * the test holds back. The busy outbox then waits for the quiet one, and once the quiet one's pass ends it delivers
 * every row, once, each key in order: the sharing is scheduling only.
 */
class FairShareRuntimeTest {
  private static final int KEYS = 20;
  private static final int PER_KEY = 60;

  @TempDir Path dir;

  @Test
  void a_busy_outbox_waits_while_a_woken_quiet_outbox_sends_and_then_delivers_every_row_once_in_key_order()
      throws Exception {
    String url = RunDatabases.postgresUrl();
    List<String> busyReceived = new ArrayList<>();
    List<String> quietReceived = new ArrayList<>();
    CountDownLatch quietAnswer = new CountDownLatch(1);
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 64);
    server.setExecutor(Executors.newFixedThreadPool(16));
    server.createContext("/", exchange -> {
      try (exchange) {
        String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        if (exchange.getRequestURI().getPath().equals("/quiet")) {
          synchronized (quietReceived) {
            quietReceived.add(body);
          }
          awaitQuietly(quietAnswer);
        } else {
          synchronized (busyReceived) {
            busyReceived.add(body);
          }
          LockSupport.parkNanos(Duration.ofMillis(10).toNanos()); // keeps the backlog draining for a few seconds
        }
        exchange.sendResponseHeaders(204, -1);
      }
    });
    server.start();
    AtomicLong ticker = new AtomicLong(); // stands still
    FairShare share = new FairShare(ticker::get, FairShare.TURN, FairShare.MAX_HOLD, FairShare.WINDOW,
        FairShare.HALF_LIFE, FairShare.CONTENDED_IN_FLIGHT);
    try (RelayRuntime runtime = RelayRuntime.start(ConfigReader.read(config(url, server), List.of(), Map.of()),
        share)) {
      // Whatever woke either outbox while it started (a listener's first wake-up) has long ended its turn.
      ticker.addAndGet(Duration.ofHours(1).toNanos());
      OutboxWrites.write(url, null, "fsb_", "busy", "b", KEYS, PER_KEY, 0);
      await().atMost(Duration.ofSeconds(60)).until(() -> count(busyReceived) >= 30);
      OutboxWrites.write(url, null, "fsq_", "quiet", "q", 1, 1, 0);
      await().atMost(Duration.ofSeconds(60)).until(() -> count(quietReceived) == 1);
      await("the busy outbox waits for the quiet one's pass").atMost(Duration.ofSeconds(60))
          .until(() -> share.waiting("busy") >= 1);
      assertThat(count(busyReceived)).as("the busy outbox was still draining").isLessThan(KEYS * PER_KEY);

      quietAnswer.countDown();
      await().atMost(Duration.ofSeconds(120)).until(() -> runtime.lane("busy").orElseThrow().deliveredCount()
          >= (long) KEYS * PER_KEY && runtime.lane("quiet").orElseThrow().deliveredCount() == 1);
    } finally {
      quietAnswer.countDown();
      server.stop(0);
    }
    List<String> busy;
    synchronized (busyReceived) {
      busy = List.copyOf(busyReceived);
    }
    assertThat(new HashSet<>(busy)).hasSize(KEYS * PER_KEY);
    OutboxWrites.assertKeyOrder(busy, "b", KEYS, PER_KEY);
    assertThat(quietReceived).containsExactly("q0:0");
  }

  private Path config(String url, HttpServer server) throws Exception {
    String base = "http://127.0.0.1:" + server.getAddress().getPort();
    Path file = dir.resolve("relay.yaml");
    Files.writeString(file, String.join("\n",
        "server:",
        "  enabled: false",
        "relay:",
        "  listen-notify: true",
        "  poll-max: 200ms",
        "transports:",
        "  hooks:",
        "    type: http",
        "    endpoint.quiet: " + base + "/quiet",
        "    endpoint.busy: " + base + "/busy",
        "outboxes:",
        "  quiet:",
        "    database:",
        "      url: '" + url + "'",
        "      table-prefix: fsq_",
        "      migrate: true",
        "      notify-trigger: true",
        "    destinations:",
        "      quiet: hooks",
        "  busy:",
        "    database:",
        "      url: '" + url + "'",
        "      table-prefix: fsb_",
        "      migrate: true",
        "    relay:",
        "      batch-size: 10",
        "    destinations:",
        "      busy: hooks",
        ""));
    return file;
  }

  private static int count(List<String> received) {
    synchronized (received) {
      return received.size();
    }
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await(120, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
