package dev.outbox4j.relay.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox4j.jdbc.testing.RunDatabases;
import dev.outbox4j.relay.config.ConfigReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * PostgreSQL schema-per-tenant: one tenants entry becomes one outbox per matching schema, idle ones woken by the notify
 * trigger through one listening connection for all of them (their poll is ten minutes), a new tenant schema is picked
 * up without a restart and a dropped one is let go.
 */
class TenantOutboxesTest {
  private static final int KEYS = 3;

  @TempDir Path dir;

  @Test
  void each_tenant_schema_is_an_outbox_woken_through_one_listener_and_new_tenants_join_without_a_restart()
      throws Exception {
    String url = RunDatabases.postgresUrl();
    String prefix = "mt" + Long.toString(System.nanoTime() % 100_000, 36) + "_";
    for (String tenant : List.of("a", "b", "c")) {
      execute(url, "CREATE SCHEMA " + prefix + tenant);
    }
    execute(url, "CREATE SCHEMA " + prefix + "ignored_1");
    try (RecordingWebhook webhook = new RecordingWebhook(Duration.ZERO)) {
      Path file = dir.resolve("relay.yaml");
      Files.writeString(file, String.join("\n",
          "server:",
          "  port: 0",
          "transports:",
          "  webhooks:",
          "    type: http",
          "    endpoint.orders: " + webhook.url("/orders"),
          "outboxes:",
          "  tenants:",
          "    database:",
          "      url: '" + url + "'",
          "      table-prefix: mt_",
          "      migrate: true",
          "      notify-trigger: true",
          "    relay:",
          "      listen-notify: true",
          "      poll-min: 10m",
          "      poll-max: 10m",
          "    tenants:",
          "      schemas: '" + prefix + "[a-z]'",
          "      rediscover: 1s",
          "    destinations:",
          "      orders: webhooks",
          ""));
      try (RelayRuntime runtime = RelayRuntime.start(ConfigReader.read(file, List.of(), Map.of()))) {
        await().atMost(Duration.ofSeconds(60)).until(() -> runtime.lanes().stream()
            .filter(lane -> lane.state() == OutboxLane.State.RUNNING).count() == 3);
        assertThat(runtime.lanes()).extracting(OutboxLane::name)
            .containsExactly("tenants:" + prefix + "a", "tenants:" + prefix + "b", "tenants:" + prefix + "c");
        await().atMost(Duration.ofSeconds(30)).until(() -> listeners(url, "mt_outbox") == 1);
        // written after the relays' first passes: only a notification can bring them before the ten-minute poll
        OutboxWrites.write(url, prefix + "b", "mt_", "orders", "b-", KEYS, 5, 0);
        await().atMost(Duration.ofSeconds(30)).until(() -> OutboxWrites.of(webhook.received(), "b-").size()
            >= KEYS * 5);

        execute(url, "CREATE SCHEMA " + prefix + "d");
        await().atMost(Duration.ofSeconds(60)).until(() -> runtime.lane("tenants:" + prefix + "d")
            .map(lane -> lane.state() == OutboxLane.State.RUNNING).orElse(false));
        OutboxWrites.write(url, prefix + "d", "mt_", "orders", "d-", KEYS, 5, 0);
        await().atMost(Duration.ofSeconds(30)).until(() -> OutboxWrites.of(webhook.received(), "d-").size()
            >= KEYS * 5);
        assertThat(listeners(url, "mt_outbox")).as("one listening connection for every tenant").isEqualTo(1);

        execute(url, "DROP SCHEMA " + prefix + "a CASCADE");
        await().atMost(Duration.ofSeconds(60)).until(() -> runtime.lane("tenants:" + prefix + "a").isEmpty());
        assertThat(runtime.lanes()).hasSize(3);
      }
      OutboxWrites.assertKeyOrder(OutboxWrites.of(webhook.received(), "b-"), "b-", KEYS, 5);
      OutboxWrites.assertKeyOrder(OutboxWrites.of(webhook.received(), "d-"), "d-", KEYS, 5);
    }
  }

  private static void execute(String url, String sql) throws Exception {
    try (Connection connection = DriverManager.getConnection(url); Statement statement = connection.createStatement()) {
      statement.execute(sql);
    }
  }

  /** @return how many sessions last ran the LISTEN on {@code channel} (the wake-up listeners) */
  private static long listeners(String url, String channel) throws Exception {
    try (Connection connection = DriverManager.getConnection(url);
        PreparedStatement statement = connection.prepareStatement(
            "SELECT count(*) FROM pg_stat_activity WHERE query = ? AND datname = current_database()")) {
      statement.setString(1, "LISTEN \"" + channel + "\"");
      try (ResultSet rows = statement.executeQuery()) {
        rows.next();
        return rows.getLong(1);
      }
    }
  }
}
