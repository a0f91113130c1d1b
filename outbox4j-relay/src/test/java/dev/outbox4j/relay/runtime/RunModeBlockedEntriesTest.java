package dev.outbox4j.relay.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox4j.OutboxEntry;
import dev.outbox4j.jdbc.testing.RunDatabases;
import dev.outbox4j.relay.config.ConfigReader;
import dev.outbox4j.spi.QuarantineQuery;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What an operator of the runnable relay sees when a quarantined entry blocks its key, on PostgreSQL: a key's first
 * entry goes to a destination no transport serves (quarantined at once), its later entries go to {@code orders}, which
 * flows. The dashboard's API, its destinations table and the Prometheus metrics show those entries as blocked on
 * {@code orders}, not waiting, and the lag stays at zero while the oldest blocked entry ages; once the operator discards
 * the quarantined head, they are delivered in order and nothing is blocked.
 */
class RunModeBlockedEntriesTest {
  private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private static final String TOKEN = "blocked-test-admin-token-0123456789";

  @TempDir Path dir;

  private static HttpResponse<String> get(String url) throws IOException, InterruptedException {
    return CLIENT.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static HttpResponse<String> post(String url) throws IOException, InterruptedException {
    return CLIENT.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10))
        .header("Authorization", "Bearer " + TOKEN).POST(HttpRequest.BodyPublishers.noBody()).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** @return the JSON object of one destination's row in {@code /api/destinations} */
  private static String row(String destinations, String name) {
    int start = destinations.indexOf("{\"destination\":\"" + name + "\",\"transport\"");
    assertThat(start).as("a row for %s in %s", name, destinations).isNotNegative();
    return destinations.substring(start, destinations.indexOf("}", start) + 1);
  }

  @Test
  void entries_behind_a_quarantined_head_are_shown_blocked_on_their_destination_until_the_head_is_discarded()
      throws Exception {
    String url = RunDatabases.postgresUrl();
    try (RecordingWebhook webhook = new RecordingWebhook(Duration.ZERO)) {
      Path file = dir.resolve("relay.yaml");
      Files.writeString(file, String.join("\n",
          "database:",
          "  url: '" + url + "'",
          "  migrate: true",
          "  table-prefix: blocked_",
          "server:",
          "  port: 0",
          "  admin-token: " + TOKEN,
          "transports:",
          "  webhooks:",
          "    type: http",
          "    endpoint.orders: " + webhook.url("/orders"),
          "destinations:",
          "  orders: webhooks",
          ""));
      try (RelayRuntime runtime = RelayRuntime.start(ConfigReader.read(file, List.of(), Map.of()))) {
        String base = runtime.baseUrl();
        await().atMost(Duration.ofSeconds(10)).until(() -> get(base + "/health/ready").statusCode() == 200);

        PlainSqlRows.insert(url, "blocked_outbox", "unrouted", "order-", 1, 1, 0, false); // order-0's head
        PlainSqlRows.insert(url, "blocked_outbox", "orders", "order-", 1, 5, 1, false); // order-0:1..5, behind it
        PlainSqlRows.insert(url, "blocked_outbox", "orders", "flowing-", 3, 4, 0, false);

        await().atMost(Duration.ofSeconds(30)).until(() -> webhook.received().size() >= 12
            && get(base + "/api/status").body().contains("\"blocked\":5,"));
        assertThat(webhook.received()).noneMatch(payload -> payload.startsWith("order-0"));
        // the oldest blocked entry ages past a second while the lag stays at zero
        await().atMost(Duration.ofSeconds(10)).until(() -> get(base + "/api/status").body()
            .matches(".*\"blockedSeconds\":[1-9].*"));
        String status = get(base + "/api/status").body();
        assertThat(status).contains("\"pending\":5,\"waiting\":0,\"blocked\":5,\"inFlight\":0,\"quarantined\":1,",
            "\"lagSeconds\":0,").containsPattern("\"blockedSeconds\":[1-9]");

        String destinations = get(base + "/api/destinations").body();
        assertThat(row(destinations, "orders")).contains("\"transport\":\"webhooks (http)\"", "\"state\":\"flowing\"",
            "\"waiting\":0,\"blocked\":5,\"inFlight\":0,\"quarantined\":0,", "\"lagSeconds\":0,");
        assertThat(row(destinations, "unrouted")).contains("\"transport\":null", "\"state\":\"flowing\"",
            "\"waiting\":0,\"blocked\":0,\"inFlight\":0,\"quarantined\":1,");
        assertThat(destinations).contains("\"paused\":[]");

        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
          List<String> metrics = Arrays.asList(get(base + "/metrics").body().split("\n"));
          assertThat(metrics).contains("outbox4j_blocked{outbox=\"default\"} 5.0",
              "outbox4j_waiting{outbox=\"default\"} 0.0", "outbox4j_lag_seconds{outbox=\"default\"} 0.0",
              "outbox4j_destination_blocked{destination=\"orders\",outbox=\"default\"} 5.0",
              "outbox4j_destination_waiting{destination=\"orders\",outbox=\"default\"} 0.0");
          assertThat(metrics).anySatisfy(line -> assertThat(line)
              .matches("outbox4j_blocked_age_seconds\\{outbox=\"default\"} [1-9][0-9.]*"));
        });
        assertThat(runtime.store().stats(Instant.now()).blocked()).isEqualTo(5);

        OutboxEntry head = runtime.store().quarantined(QuarantineQuery.first(10)).get(0);
        assertThat(post(base + "/api/entries/" + head.id() + "/discard?confirm=1").statusCode()).isEqualTo(200);

        await().atMost(Duration.ofSeconds(30)).until(() -> webhook.received().size() >= 17
            && get(base + "/api/status").body().contains("\"blocked\":0,"));
        assertThat(webhook.received().stream().filter(payload -> payload.startsWith("order-0")).toList())
            .containsExactly("order-0:1", "order-0:2", "order-0:3", "order-0:4", "order-0:5");
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(
            row(get(base + "/api/destinations").body(), "orders")).contains("\"waiting\":0,\"blocked\":0,"));
      }
    }
  }
}
