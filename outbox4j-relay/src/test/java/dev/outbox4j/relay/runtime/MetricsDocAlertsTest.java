package dev.outbox4j.relay.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.outbox4j.jdbc.testing.RunDatabases;
import dev.outbox4j.relay.config.ConfigReader;
import dev.outbox4j.relay.config.RelayConfig;
import dev.outbox4j.testkit.SettableClock;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/metrics.md's alert examples, held to a real scrape: every {@code promql} block of the page is evaluated on the
 * {@code /metrics} of a running relay in the state the page describes (erp paused, five orders entries blocked behind
 * a quarantined head, ten minutes on), and must return what its {@code # tested:} line says.
 */
class MetricsDocAlertsTest {
  private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private static final Pattern BLOCK = Pattern.compile("```promql\n(.*?)```", Pattern.DOTALL);
  private static final Pattern TESTED = Pattern.compile("# tested: fires for (nothing|\\{.*})");

  @TempDir Path dir;

  /** One alert of the page: its expression (comments included) and the label sets it should return. */
  record Alert(String expression, Set<String> expected) {}

  static List<Alert> alerts() throws IOException {
    String page = Files.readString(Path.of("..", "docs", "metrics.md"));
    List<Alert> alerts = new ArrayList<>();
    Matcher block = BLOCK.matcher(page);
    while (block.find()) {
      Matcher tested = TESTED.matcher(block.group(1));
      assertThat(tested.find()).as("a '# tested: fires for ...' line in\n%s", block.group(1)).isTrue();
      Set<String> expected = new TreeSet<>();
      if (!tested.group(1).equals("nothing")) {
        expected.add(tested.group(1));
      }
      alerts.add(new Alert(block.group(1), expected));
    }
    return alerts;
  }

  private static String get(String url) throws IOException, InterruptedException {
    return CLIENT.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).GET().build(),
        HttpResponse.BodyHandlers.ofString()).body();
  }

  @Test
  void every_alert_example_of_docs_metrics_returns_what_the_page_says_on_a_scrape_of_a_relay_in_that_state()
      throws Exception {
    List<Alert> alerts = alerts();
    assertThat(alerts).hasSizeGreaterThanOrEqualTo(5);
    String url = RunDatabases.postgresUrl();
    SettableClock clock = SettableClock.at(Instant.now());
    try (RecordingWebhook webhook = new RecordingWebhook(Duration.ZERO)) {
      webhook.refuse("/erp");
      Path file = dir.resolve("relay.yaml");
      Files.writeString(file, String.join("\n",
          "database:",
          "  url: '" + url + "'",
          "  migrate: true",
          "  table-prefix: alerts_",
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
          ""));
      RelayConfig config = ConfigReader.read(file, List.of(), Map.of());
      try (RelayRuntime runtime = RelayRuntime.start(config.server(), port -> config, RelayRuntime.Extras.none(),
          clock)) {
        String base = runtime.baseUrl();
        PlainSqlRows.insert(url, "alerts_outbox", "unrouted", "order-", 1, 1, 0, false); // a head no transport takes
        PlainSqlRows.insert(url, "alerts_outbox", "orders", "order-", 1, 5, 1, false); // blocked behind it
        // refused: erp pauses once twenty different entries failed with nothing confirmed (the relay's clock stands
        // still here, so the other rule, nothing confirmed for the window, never comes due)
        PlainSqlRows.insert(url, "alerts_outbox", "erp", "invoice-", 20, 1, 0, false);
        await().atMost(Duration.ofSeconds(30)).until(() -> !runtime.relay().pausedDestinations().isEmpty()
            && get(base + "/api/status").contains("\"blocked\":5,"));

        clock.advance(Duration.ofMinutes(10));

        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
          PromQlSubset scrape = new PromQlSubset(get(base + "/metrics"));
          for (Alert alert : alerts) {
            assertThat(scrape.evaluate(alert.expression())).as(alert.expression()).isEqualTo(alert.expected());
          }
        });
      }
    }
  }

  @Test
  void an_example_naming_a_metric_or_label_the_scrape_does_not_have_is_refused() {
    PromQlSubset scrape = new PromQlSubset("""
        # TYPE outbox4j_destination_paused gauge
        outbox4j_destination_paused{destination="erp",outbox="default"} 1.0
        outbox4j_lag_seconds{outbox="default"} 0.0
        """);

    assertThat(scrape.evaluate("outbox4j_destination_paused == 1"))
        .containsExactly("{destination=\"erp\",outbox=\"default\"}");
    assertThat(scrape.evaluate("max by (destination) (outbox4j_destination_paused) > 0"))
        .containsExactly("{destination=\"erp\"}");
    assertThat(scrape.evaluate("outbox4j_lag_seconds > 60")).isEmpty();
    assertThatThrownBy(() -> scrape.evaluate("outbox4j_destination_pause == 1")).hasMessageContaining("no metric");
    assertThatThrownBy(() -> scrape.evaluate("outbox4j_lag_seconds{destination=\"erp\"} > 1"))
        .hasMessageContaining("no label destination");
    assertThatThrownBy(() -> scrape.evaluate("max by (dest) (outbox4j_destination_paused) > 0"))
        .hasMessageContaining("dest");
    assertThatThrownBy(() -> scrape.evaluate("rate(outbox4j_lag_seconds[5m]) > 0")).isInstanceOf(
        IllegalArgumentException.class);
  }
}
