package dev.outbox4j.relay.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.outbox4j.OutboxException;
import dev.outbox4j.jdbc.testing.RunDatabases;
import dev.outbox4j.relay.cli.CliRunner;
import dev.outbox4j.relay.config.ConfigReader;
import dev.outbox4j.relay.config.RelayConfig;
import dev.outbox4j.testkit.TcpProxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code run} started before its database is reachable (through a {@link TcpProxy} in front of PostgreSQL, cut):
 * it waits, retrying, for {@code database.startup-wait}, starts as soon as the database answers and delivers; a
 * database that stays away fails the start once the wait is over, naming the setting.
 */
class RelayStartupWaitTest {
  @TempDir Path dir;

  private Path config(String url, String startupWait, RecordingWebhook webhook) throws Exception {
    Path file = dir.resolve("relay-" + startupWait + ".yaml");
    Files.writeString(file, String.join("\n",
        "database:",
        "  url: '" + url + "'",
        "  table-prefix: waits_",
        "  startup-wait: " + startupWait,
        "server:",
        "  enabled: false",
        String.join("\n", webhook.ordersConfig())));
    return file;
  }

  @Test
  void a_relay_started_before_its_database_answers_starts_once_it_does_and_delivers() throws Exception {
    String url = RunDatabases.postgresUrl();
    try (TcpProxy database = TcpProxy.start("127.0.0.1", 5432);
        RecordingWebhook webhook = new RecordingWebhook(Duration.ZERO)) {
      assertThat(CliRunner.run("migrate", "--config", config(url, "60s", webhook).toString())).isZero();
      RelayConfig proxied = ConfigReader.read(config(url.replace(":5432/", ":" + database.port() + "/"), "60s",
          webhook), List.of(), Map.of());
      database.cut();
      CompletableFuture<RelayRuntime> starting = CompletableFuture.supplyAsync(() -> RelayRuntime.start(proxied));
      await("the start still waiting for the database").during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3))
          .until(() -> !starting.isDone());
      database.restore();
      try (RelayRuntime relay = starting.get(30, TimeUnit.SECONDS)) {
        PlainSqlRows.insert(url, "waits_outbox", "orders", 2, 5, 0, false);
        // the completions recorded, not only the webhooks received: the relay marks a batch after its confirmations
        await().atMost(Duration.ofSeconds(30)).until(() -> relay.deliveredCount() >= 10);
        assertThat(relay.deliveredCount()).isEqualTo(10);
        assertThat(webhook.received()).hasSizeGreaterThanOrEqualTo(10);
      }
    }
  }

  @Test
  void a_database_that_stays_away_fails_the_start_once_the_wait_is_over() throws Exception {
    String url = RunDatabases.postgresUrl();
    try (TcpProxy database = TcpProxy.start("127.0.0.1", 5432);
        RecordingWebhook webhook = new RecordingWebhook(Duration.ZERO)) {
      database.cut();
      RelayConfig proxied = ConfigReader.read(config(url.replace(":5432/", ":" + database.port() + "/"), "2s",
          webhook), List.of(), Map.of());
      long started = System.nanoTime();
      assertThatThrownBy(() -> RelayRuntime.start(proxied)).isInstanceOf(OutboxException.class)
          .hasMessageContaining("cannot connect to the database")
          .hasMessageContaining("database.startup-wait 2 s");
      assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(Duration.ofSeconds(2));

      RelayConfig failFast = ConfigReader.read(config(url.replace(":5432/", ":" + database.port() + "/"), "0",
          webhook), List.of(), Map.of());
      assertThat(failFast.database().startupWait()).isZero();
      assertThatThrownBy(() -> RelayRuntime.start(failFast)).isInstanceOf(OutboxException.class)
          .hasMessageContaining("cannot connect to the database").hasMessageNotContaining("startup-wait");
    }
  }
}
