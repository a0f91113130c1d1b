package dev.outbox4j.relay.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox4j.jdbc.testing.RunDatabases;
import dev.outbox4j.relay.config.ConfigReader;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A fault stays in its lane, as an operator of the runnable relay sees it: one webhook endpoint answers 503, another
 * 204, on PostgreSQL. The healthy destination's entries are all delivered while the failing one is shown paused by
 * the dashboard's API, readiness and the Prometheus metrics, and leaves them all once it answers again.
 */
class RunModePausedDestinationTest {
  private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @TempDir Path dir;

  private Path config(String url, String prefix, RecordingWebhook webhook, String extra) throws IOException {
    Path file = dir.resolve(prefix + "relay.yaml");
    Files.writeString(file, String.join("\n",
        "database:",
        "  url: '" + url + "'",
        "  migrate: true",
        "  table-prefix: " + prefix,
        "server:",
        "  port: 0",
        "transports:",
        "  webhooks:",
        "    type: http",
        "    endpoint:",
        "      orders: " + webhook.url("/orders"),
        "      erp: " + webhook.url("/erp"),
        "destinations:",
        "  orders: webhooks",
        "  erp: webhooks",
        extra,
        ""));
    return file;
  }

  private static HttpResponse<String> get(String url) throws IOException, InterruptedException {
    return CLIENT.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void a_refusing_endpoint_is_shown_paused_by_api_health_and_metrics_while_the_healthy_one_delivers() throws Exception {
    String url = RunDatabases.postgresUrl();
    try (RecordingWebhook webhook = new RecordingWebhook(Duration.ZERO)) {
      webhook.refuse("/erp");
      Path file = config(url, "paused_", webhook, "");
      try (RelayRuntime runtime = RelayRuntime.start(ConfigReader.read(file, List.of(), Map.of()))) {
        String base = runtime.baseUrl();
        await().atMost(Duration.ofSeconds(10)).until(() -> get(base + "/health/ready").body().contains("\"UP\""));
        assertThat(get(base + "/api/destinations").body()).contains("\"paused\":[]");

        PlainSqlRows.insert(url, "paused_outbox", "erp", "invoice-", 3, 5, 0, false);
        PlainSqlRows.insert(url, "paused_outbox", "orders", 3, 10, 0, false);

        // erp has three keys, so three entries to try at a time: it is judged down once it has confirmed nothing for
        // the window (30 s) while failing
        await().atMost(Duration.ofSeconds(90)).until(() -> webhook.received().size() >= 30
            && !runtime.relay().pausedDestinations().isEmpty());
        PlainSqlRows.assertKeyOrder(webhook.received(), 3, 10);
        assertThat(webhook.refusals()).isPositive();

        String destinations = get(base + "/api/destinations").body();
        String paused = destinations.substring(0, destinations.indexOf("\"destinations\":"));
        assertThat(paused).contains("\"destination\":\"erp\"", "\"pausedSince\":", "\"nextSend\":",
            "\"failedProbes\":", "\"lastError\":\"HTTP 503 from " + webhook.url("/erp") + "\"")
            .containsPattern("\"state\":\"(paused|probing)\"")
            .doesNotContain("\"destination\":\"orders\"", "invoice-0:");
        // the destinations table: every configured destination, the paused one with its state and pause
        assertThat(destinations).containsPattern("\\{\"destination\":\"erp\",\"transport\":\"webhooks \\(http\\)\","
            + "\"state\":\"(paused|probing)\",\"cause\":\"OUTAGE\",")
            .contains("{\"destination\":\"orders\",\"transport\":\"webhooks (http)\",\"state\":\"flowing\","
                + "\"cause\":null,")
            .doesNotContain("invoice-0:");
        assertThat(get(base + "/api/status").body()).contains("\"pausedDestinations\":1");

        HttpResponse<String> ready = get(base + "/health/ready");
        assertThat(ready.statusCode()).as("degraded is ready by default").isEqualTo(200);
        assertThat(ready.body()).contains("\"status\":\"DEGRADED\"", "\"pausedDestinations\":[\"erp\"]",
            "destination paused: erp");
        assertThat(get(base + "/health/live").statusCode()).isEqualTo(200);

        // The per-destination gauges come from the stats sampler's last sample: wait for one taken after the healthy
        // destination drained (it can drain within one sampling interval).
        await().atMost(Duration.ofSeconds(30)).until(() -> !get(base + "/metrics").body()
            .contains("destination=\"orders\""));
        List<String> metrics = Arrays.asList(get(base + "/metrics").body().split("\n"));
        assertThat(metrics).anySatisfy(line -> assertThat(line)
            .startsWith("outbox4j_destination_paused{").contains("destination=\"erp\"").endsWith(" 1.0"));
        assertThat(metrics).anySatisfy(line -> assertThat(line)
            .startsWith("outbox4j_destination_paused_duration_seconds{").contains("destination=\"erp\""));
        assertThat(metrics).filteredOn(line -> line.startsWith("outbox4j_destination"))
            .noneSatisfy(line -> assertThat(line).contains("NaN"))
            .noneSatisfy(line -> assertThat(line).contains("destination=\"orders\""));
        // the CLI, reading the database, asks the running relay for its outage pauses
        String status = dev.outbox4j.relay.cli.CliRunner.output("status", "--config", file.toString(), "--relay",
            base);
        assertThat(status).containsPattern("paused       erp  outage, (paused|probing) since .*; next send: .*; last"
            + " error: HTTP 503 from " + webhook.url("/erp")).doesNotContain("none");
        // an outage charges nothing: no entry of the paused destination is quarantined
        assertThat(runtime.store().stats(java.time.Instant.now()).quarantined()).isZero();

        webhook.accept("/erp");
        await().atMost(Duration.ofSeconds(60)).until(() -> runtime.relay().pausedDestinations().isEmpty());
        assertThat(get(base + "/health/ready").body()).isEqualTo("{\"status\":\"UP\"}");
        assertThat(dev.outbox4j.relay.cli.CliRunner.output("status", "--config", file.toString(), "--relay", base))
            .contains("paused       none (every destination of the relay at " + base + " flowing)");
        assertThat(get(base + "/api/destinations").body()).contains("\"paused\":[]");
        assertThat(get(base + "/metrics").body()).doesNotContain("outbox4j_destination_paused{");
      }
    }
  }

  @Test
  void readiness_answers_503_while_a_destination_is_paused_when_so_configured() throws Exception {
    String url = RunDatabases.postgresUrl();
    try (RecordingWebhook webhook = new RecordingWebhook(Duration.ZERO)) {
      webhook.refuse("/erp");
      Path file = config(url, "strict_", webhook, "health:\n  fail-readiness-when-degraded: true");
      try (RelayRuntime runtime = RelayRuntime.start(ConfigReader.read(file, List.of(), Map.of()))) {
        assertThat(runtime.config().server().failReadinessWhenDegraded()).isTrue();
        PlainSqlRows.insert(url, "strict_outbox", "erp", "invoice-", 3, 2, 0, false);
        await().atMost(Duration.ofSeconds(90)).until(() -> get(runtime.baseUrl() + "/health/ready").statusCode()
            == 503); // judged down once it has confirmed nothing for the window (30 s)
        assertThat(get(runtime.baseUrl() + "/health/ready").body()).contains("\"status\":\"DEGRADED\"", "erp");
        assertThat(get(runtime.baseUrl() + "/health/live").statusCode()).isEqualTo(200);
      }
    }
  }
}
