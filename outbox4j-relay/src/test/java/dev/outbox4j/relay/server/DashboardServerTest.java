package dev.outbox4j.relay.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox4j.EntryStatus;
import dev.outbox4j.Message;
import dev.outbox4j.OutboxEntry;
import dev.outbox4j.jdbc.JdbcOutboxStore;
import dev.outbox4j.jdbc.testing.RunDatabases;
import dev.outbox4j.relay.config.ConfigReader;
import dev.outbox4j.relay.config.RelayConfig;
import dev.outbox4j.relay.runtime.RelayRuntime;
import dev.outbox4j.testkit.TcpProxy;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The dashboard's API, admin token, metrics and health, on a real relay. */
class DashboardServerTest {
  private static final String TOKEN = "test-admin-token-0123456789";

  @TempDir Path dir;

  private RelayConfig config(String url, String extra) throws IOException {
    Path file = dir.resolve("relay.yaml");
    String prefix = url.startsWith("jdbc:postgresql") ? "  table-prefix: ready_\n" : "";
    Files.writeString(file, "database:\n  url: '" + url + "'\n  migrate: true\n" + prefix
        + "server:\n  port: 0\n  admin-token: " + TOKEN + "\n"
        + "transports:\n  hooks:\n    type: http\n    endpoint.orders: http://127.0.0.1:9/never\n"
        + "destinations:\n  orders: hooks\n" + extra);
    return ConfigReader.read(file, List.of(), Map.of());
  }

  private static OutboxEntry quarantined(JdbcOutboxStore store) {
    OutboxEntry entry = store.enqueue(Message.builder().withDestination("unrouted").withOrderingKey("k-1")
        .withPayload("{\"secret\":\"payload-text\"}".getBytes(StandardCharsets.UTF_8)).build());
    await().atMost(Duration.ofSeconds(30))
        .until(() -> store.find(entry.id()).orElseThrow().status() == EntryStatus.QUARANTINED);
    return store.find(entry.id()).orElseThrow();
  }

  @Test
  void admin_actions_without_the_token_or_with_a_wrong_one_are_refused_and_change_nothing() throws IOException {
    try (RelayRuntime runtime = RelayRuntime.start(config("jdbc:h2:file:" + dir.resolve("db"), ""))) {
      JdbcOutboxStore store = runtime.store();
      OutboxEntry entry = quarantined(store);
      String base = runtime.baseUrl() + "/api/entries/" + entry.id();
      for (String action : List.of("requeue", "discard")) {
        HttpResponse<String> none = Http.post(base + "/" + action, null);
        assertThat(none.statusCode()).isEqualTo(401);
        assertThat(none.headers().firstValue("WWW-Authenticate")).hasValueSatisfying(v -> assertThat(v)
            .startsWith("Bearer"));
        assertThat(Http.post(base + "/" + action, "Bearer wrong-token-0123456789").statusCode()).isEqualTo(403);
        assertThat(Http.post(base + "/" + action, "Basic " + TOKEN).statusCode()).isEqualTo(401);
        assertThat(Http.get(base + "/" + action).statusCode()).isEqualTo(405);
      }
      OutboxEntry unchanged = store.find(entry.id()).orElseThrow();
      assertThat(unchanged.status()).isEqualTo(EntryStatus.QUARANTINED);
      assertThat(unchanged.version()).isEqualTo(entry.version());
      assertThat(unchanged.attempts()).isEqualTo(entry.attempts());

      HttpResponse<String> unconfirmed = Http.post(base + "/discard", "Bearer " + TOKEN);
      assertThat(unconfirmed.statusCode()).isEqualTo(400);
      assertThat(unconfirmed.body()).contains("dryRun=true", "confirm=N");
      HttpResponse<String> dryRun = Http.post(base + "/discard?dryRun=true", "Bearer " + TOKEN);
      assertThat(dryRun.statusCode()).isEqualTo(200);
      assertThat(dryRun.body()).contains("\"count\":1", "\"dryRun\":true");
      assertThat(store.find(entry.id())).isPresent();
      HttpResponse<String> discarded = Http.post(base + "/discard?confirm=1", "Bearer " + TOKEN);
      assertThat(discarded.statusCode()).isEqualTo(200);
      assertThat(discarded.body()).contains("\"changed\":1");
      assertThat(store.find(entry.id())).isEmpty();
      assertThat(Http.post(base + "/discard?confirm=1", "Bearer " + TOKEN).statusCode()).isEqualTo(404);
    }
  }

  @Test
  void the_quarantined_list_carries_reason_and_error_but_no_payload_unless_enabled() throws IOException {
    try (RelayRuntime runtime = RelayRuntime.start(config("jdbc:h2:file:" + dir.resolve("db"), ""))) {
      OutboxEntry entry = quarantined(runtime.store());
      String list = Http.get(runtime.baseUrl() + "/api/quarantined").body();
      assertThat(list).contains(entry.id().toString(), "\"key\":\"k-1\"", "\"destination\":\"unrouted\"",
          "\"attempts\":1", "\"kind\":\"PERMANENT_FAILURE\"",
          "no transport is configured for destination 'unrouted'");
      assertThat(list).doesNotContain("payload");
    }
    try (RelayRuntime runtime = RelayRuntime.start(showingPayloads(config("jdbc:h2:file:" + dir.resolve("db"),
        "")))) {
      assertThat(Http.get(runtime.baseUrl() + "/api/quarantined").body()).contains("\\\"secret\\\"", "payload-text");
    }
  }

  private static RelayConfig showingPayloads(RelayConfig config) {
    RelayConfig.Server server = config.server();
    return new RelayConfig(config.source(), config.database(), config.relay(), config.retry(),
        new RelayConfig.Server(server.enabled(), server.bind(), server.port(), server.adminToken(), true),
        config.transports(), config.destinations());
  }

  @Test
  void the_first_scrape_after_start_has_real_numbers_and_no_NaN() throws IOException {
    try (RelayRuntime runtime = RelayRuntime.start(config("jdbc:h2:file:" + dir.resolve("db"), ""))) {
      String metrics = Http.get(runtime.baseUrl() + "/metrics").body(); // no waiting for readiness first

      assertThat(metrics).contains("outbox4j_pending{outbox=\"default\"} 0.0",
          "outbox4j_waiting{outbox=\"default\"} 0.0", "outbox4j_blocked{outbox=\"default\"} 0.0",
          "outbox4j_lag_seconds{outbox=\"default\"} 0.0");
      assertThat(metrics.lines().filter(line -> !line.startsWith("#")))
          .isNotEmpty().noneMatch(line -> line.endsWith(" NaN"));
      assertThat(Http.get(runtime.baseUrl() + "/api/status").body()).contains("\"pending\":0,");
    }
  }

  @Test
  void the_page_metrics_and_health_are_served_without_any_outside_resource() throws IOException {
    try (RelayRuntime runtime = RelayRuntime.start(config("jdbc:h2:file:" + dir.resolve("db"), ""))) {
      await().atMost(Duration.ofSeconds(10)).until(() -> Http.get(runtime.baseUrl() + "/health/ready")
          .statusCode() == 200);
      HttpResponse<String> page = Http.get(runtime.baseUrl() + "/");
      assertThat(page.statusCode()).isEqualTo(200);
      assertThat(page.headers().firstValue("Content-Security-Policy")).hasValueSatisfying(csp ->
          assertThat(csp).contains("default-src 'self'"));
      assertThat(page.body() + Http.get(runtime.baseUrl() + "/dashboard.js").body()
          + Http.get(runtime.baseUrl() + "/dashboard.css").body())
          .doesNotContain("src=\"http", "href=\"http", "url(http", "fetch('http", "//cdn", "googleapis", "unpkg",
              "jsdelivr", "import ");
      assertThat(Http.get(runtime.baseUrl() + "/health/live").statusCode()).isEqualTo(200);
      HttpResponse<String> metrics = Http.get(runtime.baseUrl() + "/metrics");
      assertThat(metrics.headers().firstValue("Content-Type")).hasValueSatisfying(type ->
          assertThat(type).startsWith("text/plain"));
      assertThat(metrics.body()).contains("# TYPE outbox4j_delivered_total counter", "outbox4j_pending{",
          "outbox4j_lag_seconds{", "outbox4j_quarantine_size{");
      assertThat(Http.get(runtime.baseUrl() + "/api/status").body()).contains("\"ready\":true", "\"pending\":");
    }
  }

  @Test
  void listen_notify_on_a_database_other_than_postgresql_is_a_configuration_error() throws IOException {
    RelayConfig config = config("jdbc:h2:file:" + dir.resolve("db"), "relay:\n  listen-notify: true\n");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> RelayRuntime.start(config))
        .isInstanceOf(dev.outbox4j.relay.config.ConfigException.class)
        .hasMessageContaining("'relay.listen-notify' needs PostgreSQL; this database is h2");
  }

  @Test
  void readiness_drops_while_the_database_is_unreachable_and_returns_with_it() throws IOException {
    String url = RunDatabases.postgresUrl();
    try (TcpProxy proxy = TcpProxy.start("127.0.0.1", 5432)) {
      String proxied = url.replace("127.0.0.1:5432", "127.0.0.1:" + proxy.port())
          .replace("localhost:5432", "127.0.0.1:" + proxy.port());
      assertThat(proxied).contains(":" + proxy.port() + "/");
      try (RelayRuntime runtime = RelayRuntime.start(config(proxied,
          ""))) {
        String ready = runtime.baseUrl() + "/health/ready";
        await().atMost(Duration.ofSeconds(10)).until(() -> Http.get(ready).statusCode() == 200);
        proxy.cut();
        await().atMost(Duration.ofSeconds(30)).until(() -> Http.get(ready).statusCode() == 503);
        assertThat(Http.get(runtime.baseUrl() + "/health/live").statusCode()).isEqualTo(200);
        proxy.restore();
        await().atMost(Duration.ofSeconds(60)).until(() -> Http.get(ready).statusCode() == 200);
      }
    }
  }

  @Test
  void reads_are_refused_to_a_host_name_that_is_not_allowed_so_a_rebinding_page_reads_nothing() throws IOException {
    try (RelayRuntime runtime = RelayRuntime.start(config("jdbc:h2:file:" + dir.resolve("db"), ""))) {
      quarantined(runtime.store());
      int port = runtime.port();
      for (String path : List.of("/api/quarantined", "/api/audit", "/api/status", "/")) {
        RawHttp evil = RawHttp.get(port, path, "evil.example:" + port);
        assertThat(evil.status()).as(path).isEqualTo(421);
        assertThat(evil.text()).doesNotContain("unrouted", "no transport is configured");
      }
      assertThat(RawHttp.get(port, "/api/quarantined", "127.0.0.1:" + port).text()).contains("unrouted");
      assertThat(RawHttp.get(port, "/api/quarantined", "localhost:" + port).status()).isEqualTo(200);
      assertThat(RawHttp.get(port, "/api/quarantined", "[::1]:" + port).status()).isEqualTo(200);
      assertThat(RawHttp.get(port, "/api/quarantined", "relay.internal.example").status()).isEqualTo(421);
    }
    try (RelayRuntime runtime = RelayRuntime.start(allowing(config("jdbc:h2:file:" + dir.resolve("db"), ""),
        "relay.internal.example"))) {
      assertThat(RawHttp.get(runtime.port(), "/api/quarantined", "Relay.Internal.Example:443").status())
          .isEqualTo(200);
      assertThat(RawHttp.get(runtime.port(), "/api/quarantined", "evil.example").status()).isEqualTo(421);
    }
  }

  @Test
  void the_doctor_answers_only_with_the_admin_token_since_it_shows_the_databases_settings() throws IOException {
    try (RelayRuntime runtime = RelayRuntime.start(config("jdbc:h2:file:" + dir.resolve("db"), ""))) {
      String doctor = runtime.baseUrl() + "/api/doctor";
      assertThat(Http.get(doctor).statusCode()).isEqualTo(401);

      HttpResponse<String> answer = Http.send(doctor, "Bearer " + TOKEN);
      assertThat(answer.statusCode()).isEqualTo(200);
      assertThat(answer.body()).contains("\"unsafe\":false", "\"check\":\"schema\"", "\"level\":\"OK\"",
          "\"check\":\"isolation\"");
    }
  }

  private static RelayConfig allowing(RelayConfig config, String host) {
    RelayConfig.Server s = config.server();
    return new RelayConfig(config.source(), config.database(), config.relay(), config.retry(),
        new RelayConfig.Server(s.enabled(), s.bind(), s.port(), s.adminToken(), s.showPayloads(),
            s.failReadinessWhenDegraded(), s.adminTokenName(), s.tls(), List.of(host)),
        config.transports(), config.destinations());
  }
}
