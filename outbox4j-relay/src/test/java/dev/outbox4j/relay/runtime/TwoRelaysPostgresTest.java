package dev.outbox4j.relay.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox4j.jdbc.testing.RunDatabases;
import dev.outbox4j.relay.cli.CliRunner;
import dev.outbox4j.relay.config.ConfigReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Two relays started from one configuration file share one database: everything once, each key in order. */
class TwoRelaysPostgresTest {
  @TempDir Path dir;

  @Test
  void two_relays_on_one_database_deliver_every_row_once_in_key_order() throws Exception {
    String url = RunDatabases.postgresUrl();
    try (RecordingWebhook webhook = new RecordingWebhook(Duration.ofMillis(2))) {
      Path file = dir.resolve("relay.yaml");
      Files.writeString(file, String.join("\n",
          "database:",
          "  url: '" + url + "'",
          "  table-prefix: pair_",
          "relay:",
          "  batch-size: 25",
          "server:",
          "  enabled: false",
          String.join("\n", webhook.ordersConfig())));
      assertThat(CliRunner.run("migrate", "--config", file.toString())).isZero();
      PlainSqlRows.insert(url, "pair_outbox", "orders", 10, 30, 0, false);
      try (RelayRuntime first = RelayRuntime.start(ConfigReader.read(file, List.of(), Map.of()));
          RelayRuntime second = RelayRuntime.start(ConfigReader.read(file, List.of(), Map.of()))) {
        await().atMost(Duration.ofSeconds(90)).until(() -> webhook.received().size() >= 300);
        await().atMost(Duration.ofSeconds(10)).until(() -> PlainSqlRows.rows(url, "pair_outbox") == 0);
        // the relay counts a delivery once its completion is recorded, a moment after the row changes
        await().atMost(Duration.ofSeconds(10)).until(() -> first.deliveredCount() + second.deliveredCount() >= 300);
        assertThat(first.deliveredCount() + second.deliveredCount()).isEqualTo(300);
        assertThat(first.baseUrl()).isEmpty();
      }
      assertThat(new HashSet<>(webhook.received())).hasSize(300);
      PlainSqlRows.assertKeyOrder(webhook.received(), 10, 30);
    }
  }
}
