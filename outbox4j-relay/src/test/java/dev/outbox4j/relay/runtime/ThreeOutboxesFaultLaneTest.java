package dev.outbox4j.relay.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox4j.jdbc.testing.RunDatabases;
import dev.outbox4j.relay.config.ConfigReader;
import dev.outbox4j.testkit.TcpProxy;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three outboxes in one relay process — two PostgreSQL databases and a MariaDB — with the second PostgreSQL database
 * reached through a {@link TcpProxy}: cut at start, cut again while running, then stalled (connections open, nothing
 * answered: a slow database). The other two keep delivering, readiness stays 200 and names the cut outbox, and the cut
 * outbox catches up once its database is back, each key in order.
 */
class ThreeOutboxesFaultLaneTest {
  private static final int KEYS = 4;
  private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @TempDir Path dir;

  @Test
  void one_outbox_whose_database_is_cut_off_changes_nothing_for_the_others_and_catches_up_when_it_is_back()
      throws Exception {
    String billingUrl = RunDatabases.postgresUrl();
    String stockUrl = RunDatabases.mariadbUrl();
    String second = RunDatabases.name() + "_ship";
    try (Connection admin = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres");
        Statement statement = admin.createStatement()) {
      statement.execute("DROP DATABASE IF EXISTS " + second);
      statement.execute("CREATE DATABASE " + second);
    }
    String shippingDirect = "jdbc:postgresql://127.0.0.1:5432/" + second + "?user=postgres";
    try (TcpProxy proxy = TcpProxy.start("127.0.0.1", 5432);
        RecordingWebhook webhook = new RecordingWebhook(Duration.ZERO)) {
      String shippingUrl = "jdbc:postgresql://127.0.0.1:" + proxy.port() + "/" + second
          + "?user=postgres&connectTimeout=2&socketTimeout=5";
      Path file = dir.resolve("relay.yaml");
      Files.writeString(file, String.join("\n",
          "relay:",
          "  poll-max: 200ms",
          "server:",
          "  port: 0",
          "transports:",
          "  webhooks:",
          "    type: http",
          "    endpoint.orders: " + webhook.url("/orders"),
          "destinations:",
          "  orders: webhooks",
          "outboxes:",
          "  billing:",
          "    database:",
          "      url: '" + billingUrl + "'",
          "      table-prefix: bill_",
          "      migrate: true",
          "  shipping:",
          "    database:",
          "      url: '" + shippingUrl + "'",
          "      migrate: true",
          "  stock:",
          "    database:",
          "      url: '" + stockUrl + "'",
          "      table-prefix: stock_",
          "      migrate: true",
          "    relay:",
          "      batch-size: 50",
          ""));
      proxy.cut();
      try (RelayRuntime runtime = RelayRuntime.start(ConfigReader.read(file, List.of(), Map.of()))) {
        // started and serving while shipping's database cannot be reached
        assertThat(runtime.lane("shipping").orElseThrow().state()).isEqualTo(OutboxLane.State.STARTING);
        assertThat(runtime.lane("shipping").orElseThrow().lastError()).isNotBlank();
        OutboxWrites.write(billingUrl, null, "bill_", "orders", "billing-", KEYS, 10, 0);
        OutboxWrites.write(stockUrl, null, "stock_", "orders", "stock-", KEYS, 10, 0);
        await().atMost(Duration.ofSeconds(60)).until(() -> delivered(webhook, "billing-") >= KEYS * 10
            && delivered(webhook, "stock-") >= KEYS * 10);
        HttpResponse<String> ready = get(runtime.baseUrl() + "/health/ready");
        assertThat(ready.statusCode()).isEqualTo(200);
        assertThat(ready.body()).contains("\"status\":\"DEGRADED\"").contains("outbox database down: shipping")
            .contains("\"billing\":{\"status\":\"UP\"}").contains("\"stock\":{\"status\":\"UP\"}");
        assertThat(get(runtime.baseUrl() + "/api/status?outbox=shipping").statusCode()).isEqualTo(503);
        assertThat(get(runtime.baseUrl() + "/api/outboxes").body()).contains("\"outbox\":\"shipping\",\"state\":"
            + "\"STARTING\"");

        proxy.restore();
        await().atMost(Duration.ofSeconds(60))
            .until(() -> runtime.lane("shipping").orElseThrow().state() == OutboxLane.State.RUNNING);
        OutboxWrites.write(shippingDirect, null, "outbox4j_", "orders", "shipping-", KEYS, 10, 0);
        await().atMost(Duration.ofSeconds(60)).until(() -> delivered(webhook, "shipping-") >= KEYS * 10);
        await().atMost(Duration.ofSeconds(30)).until(() -> get(runtime.baseUrl() + "/health/ready").body()
            .startsWith("{\"status\":\"UP\""));

        // cut while running: shipping's rows wait, the others keep flowing
        proxy.cut();
        OutboxWrites.write(shippingDirect, null, "outbox4j_", "orders", "shipping-", KEYS, 10, 10);
        OutboxWrites.write(billingUrl, null, "bill_", "orders", "billing-", KEYS, 10, 10);
        OutboxWrites.write(stockUrl, null, "stock_", "orders", "stock-", KEYS, 10, 10);
        await().atMost(Duration.ofSeconds(60)).until(() -> delivered(webhook, "billing-") >= KEYS * 20
            && delivered(webhook, "stock-") >= KEYS * 20);
        await().atMost(Duration.ofSeconds(30)).until(() -> get(runtime.baseUrl() + "/health/ready").body()
            .contains("outbox database down: shipping"));
        assertThat(get(runtime.baseUrl() + "/health/ready").statusCode()).isEqualTo(200);
        assertThat(get(runtime.baseUrl() + "/metrics").body()).contains("outbox=\"billing\"")
            .contains("outbox=\"stock\"");

        proxy.restore();
        await().atMost(Duration.ofSeconds(90)).until(() -> delivered(webhook, "shipping-") >= KEYS * 20);

        // stalled: shipping's connections stay open and nothing answers on them; the others keep flowing
        proxy.stall();
        OutboxWrites.write(shippingDirect, null, "outbox4j_", "orders", "shipping-", KEYS, 10, 20);
        OutboxWrites.write(billingUrl, null, "bill_", "orders", "billing-", KEYS, 10, 20);
        OutboxWrites.write(stockUrl, null, "stock_", "orders", "stock-", KEYS, 10, 20);
        await().atMost(Duration.ofSeconds(60)).until(() -> delivered(webhook, "billing-") >= KEYS * 30
            && delivered(webhook, "stock-") >= KEYS * 30);
        await().atMost(Duration.ofSeconds(30)).until(() -> get(runtime.baseUrl() + "/health/ready").body()
            .contains("outbox database down: shipping"));
        proxy.resume();
        await().atMost(Duration.ofSeconds(90)).until(() -> delivered(webhook, "shipping-") >= KEYS * 30);
      }
      OutboxWrites.assertKeyOrder(OutboxWrites.of(webhook.received(), "billing-"), "billing-", KEYS, 30);
      OutboxWrites.assertKeyOrder(OutboxWrites.of(webhook.received(), "stock-"), "stock-", KEYS, 30);
      OutboxWrites.assertKeyOrder(OutboxWrites.of(webhook.received(), "shipping-"), "shipping-", KEYS, 30);
    } finally {
      try (Connection admin = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres");
          Statement statement = admin.createStatement()) {
        statement.execute("DROP DATABASE IF EXISTS " + second + " WITH (FORCE)");
      }
    }
  }

  private static long delivered(RecordingWebhook webhook, String keyPrefix) {
    return OutboxWrites.of(webhook.received(), keyPrefix).stream().distinct().count();
  }

  private static HttpResponse<String> get(String url) throws Exception {
    return CLIENT.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(20)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
