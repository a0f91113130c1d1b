package dev.outbox4j.relay.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import dev.outbox4j.EntryStatus;
import dev.outbox4j.OutboxEntry;
import dev.outbox4j.jdbc.testing.RunDatabases;
import dev.outbox4j.relay.config.ConfigReader;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The relay's judgement of "down", as a user of the runnable relay meets it, with rows written by plain SQL into
 * PostgreSQL and a real webhook endpoint on localhost: an endpoint that answers 503 to everything, fed by one key, is
 * paused and quarantines nothing however short the retry budget; an endpoint that takes small invoices and answers 503
 * to big ones (the demo's {@code legacy-erp}) is never paused, and the big invoices are quarantined after their
 * attempts while the small ones keep arriving.
 */
class RunModeOutageJudgementTest {
  /** Three attempts, 200 ms apart: a message failing on its own is quarantined within about a second. */
  private static final String SHORT_RETRY_BUDGET = String.join("\n", "retry:", "  policy: linear", "  base: 200ms",
      "  cap: 1s", "  max-attempts: 3");

  @TempDir Path dir;

  private Path config(String url, String prefix, String endpoint) throws IOException {
    Path file = dir.resolve(prefix + "relay.yaml");
    Files.writeString(file, String.join("\n",
        "database:",
        "  url: '" + url + "'",
        "  migrate: true",
        "  table-prefix: " + prefix,
        "server:",
        "  port: 0",
        SHORT_RETRY_BUDGET,
        "transports:",
        "  webhooks:",
        "    type: http",
        "    endpoint:",
        "      legacy-erp: " + endpoint,
        "destinations:",
        "  legacy-erp: webhooks",
        ""));
    return file;
  }

  @Test
  void one_key_refused_with_503_by_an_endpoint_that_is_down_is_paused_and_never_quarantined() throws Exception {
    String url = RunDatabases.postgresUrl();
    try (RecordingWebhook webhook = new RecordingWebhook(Duration.ZERO)) {
      webhook.refuse("/erp");
      Path file = config(url, "onekey_", webhook.url("/erp"));
      try (RelayRuntime runtime = RelayRuntime.start(ConfigReader.read(file, List.of(), Map.of()))) {
        List<UUID> ids = PlainSqlRows.insert(url, "onekey_outbox", "legacy-erp", "aggregate-", 1, 20, 0, false);

        // Down for far longer than its retry budget (3 attempts, 200 ms apart), one entry to try at a time: it is
        // judged down once it has confirmed nothing for the window (30 s) while failing.
        await().atMost(Duration.ofSeconds(90)).until(() -> !runtime.relay().pausedDestinations().isEmpty());
        // (each try waits out the transport's answer bound after the previous one: a try every few seconds)
        assertThat(webhook.refusals()).as("tried more often than the retry budget allows").isGreaterThan(3);
        assertThat(runtime.store().stats(Instant.now()).quarantined()).as("an outage quarantines nothing").isZero();
        OutboxEntry head = runtime.store().find(ids.get(0)).orElseThrow();
        assertThat(head.attempts()).as("an outage is charged to nobody").isZero();
        assertThat(head.status()).isNotEqualTo(EntryStatus.QUARANTINED);
        assertThat(runtime.relay().pausedDestinations().get(0).lastError()).contains("HTTP 503");

        webhook.accept("/erp");
        await().atMost(Duration.ofSeconds(90)).until(() -> webhook.confirmed().size() >= 20);
        PlainSqlRows.assertKeyOrder(webhook.confirmed(), 1, 20);
        assertThat(runtime.store().stats(Instant.now()).quarantined()).isZero();
      }
    }
  }

  @Test
  void an_endpoint_refusing_big_invoices_is_never_paused_and_they_are_quarantined_after_their_attempts()
      throws Exception {
    String url = RunDatabases.postgresUrl();
    Map<String, Instant> written = new ConcurrentHashMap<>();
    List<Duration> lags = new CopyOnWriteArrayList<>();
    AtomicInteger refusals = new AtomicInteger();
    HttpServer erp = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 64);
    erp.setExecutor(Executors.newFixedThreadPool(8));
    erp.createContext("/erp", exchange -> {
      try (exchange) {
        String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        if (body.contains("\"total\":80.00")) {
          refusals.incrementAndGet();
          exchange.sendResponseHeaders(503, -1); // as the demo's legacy-erp answers invoices of 50.00 and more
          return;
        }
        Instant at = written.get(body);
        if (at != null) {
          lags.add(Duration.between(at, Instant.now()));
        }
        exchange.sendResponseHeaders(204, -1);
      }
    });
    erp.start();
    AtomicBoolean everPaused = new AtomicBoolean();
    List<UUID> big = new ArrayList<>();
    try {
      Path file = config(url, "invoices_", "http://127.0.0.1:" + erp.getAddress().getPort() + "/erp");
      try (RelayRuntime runtime = RelayRuntime.start(ConfigReader.read(file, List.of(), Map.of()));
          Connection connection = DriverManager.getConnection(url)) {
        // For 6 s, every 100 ms a small invoice and a big one; every third time two big ones and no small one, so some
        // passes hold refusals only. Then small ones only, as a shop that keeps selling, until the big ones are all
        // quarantined. A pause lasts at least half the first outage pause (0.5 s): checking every 25 ms cannot miss one.
        int tick = 0;
        Instant until = Instant.now().plusSeconds(60);
        while (Instant.now().isBefore(until) && (tick < 60 || !allQuarantined(runtime, big))) {
          if (tick >= 60) {
            invoice(connection, "invoices_outbox", "s" + tick, "20.00", written);
          } else if (tick % 3 == 2) {
            big.add(invoice(connection, "invoices_outbox", "b" + tick, "80.00", written));
            big.add(invoice(connection, "invoices_outbox", "c" + tick, "80.00", written));
          } else {
            invoice(connection, "invoices_outbox", "s" + tick, "20.00", written);
            big.add(invoice(connection, "invoices_outbox", "b" + tick, "80.00", written));
          }
          tick++;
          for (int i = 0; i < 4; i++) {
            everPaused.compareAndSet(false, !runtime.relay().pausedDestinations().isEmpty());
            Thread.sleep(25); // the writer's pace, not a wait for a condition
          }
        }

        assertThat(everPaused).as("a destination that keeps confirming some messages is never paused").isFalse();
        assertThat(allQuarantined(runtime, big)).as("every refused invoice is quarantined after its attempts")
            .isTrue();
        for (UUID id : big) {
          OutboxEntry entry = runtime.store().find(id).orElseThrow();
          assertThat(entry.attempts()).isEqualTo(3);
          assertThat(entry.quarantineReason()).startsWith("gave up after 3 attempts").contains("HTTP 503");
        }
        assertThat(lags).as("the small invoices arrived").hasSizeGreaterThanOrEqualTo(40);
        assertThat(lags.stream().max(Duration::compareTo).orElseThrow()).as("their lag stays bounded")
            .isLessThan(Duration.ofSeconds(10));
      }
    } finally {
      erp.stop(0);
    }
  }

  private static boolean allQuarantined(RelayRuntime runtime, List<UUID> ids) {
    return ids.stream().allMatch(id -> runtime.store().find(id).map(e -> e.status() == EntryStatus.QUARANTINED)
        .orElse(false));
  }

  /** Writes an invoice row as another application would (docs/schema.md, PostgreSQL, keyed). */
  private static UUID invoice(Connection connection, String table, String name, String total,
      Map<String, Instant> written) throws SQLException {
    UUID id = UUID.randomUUID();
    String payload = "{\"invoice\":\"" + name + "\",\"total\":" + total + "}";
    try (PreparedStatement insert = connection.prepareStatement("INSERT INTO " + table
        + " (id, destination, ordering_key, payload, content_type) VALUES (?, 'legacy-erp', ?, ?, 'application/json')")) {
      insert.setObject(1, id);
      insert.setString(2, "invoice-" + name);
      insert.setBytes(3, payload.getBytes(StandardCharsets.UTF_8));
      written.put(payload, Instant.now());
      insert.executeUpdate();
    }
    return id;
  }
}
