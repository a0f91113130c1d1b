package dev.outbox4j.relay.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox4j.jdbc.testing.RunDatabases;
import dev.outbox4j.relay.cli.CliRunner;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SIGTERM while deliveries are in flight, to a real child JVM running {@code run --config}: it stops within the
 * shutdown grace period, and every message the receiver confirmed is marked (deleted), so a restart would not send
 * it again.
 */
class SigtermTest {
  private static final Duration GRACE = Duration.ofSeconds(4);

  @TempDir Path dir;

  @Test
  void sigterm_during_delivery_stops_within_the_grace_period_and_leaves_nothing_confirmed_unmarked()
      throws Exception {
    String url = RunDatabases.postgresUrl();
    String table = "term_outbox";
    try (RecordingWebhook webhook = new RecordingWebhook(Duration.ofMillis(150))) {
      Path file = dir.resolve("relay.yaml");
      Files.writeString(file, String.join("\n",
          "database:",
          "  url: '" + url + "'",
          "  table-prefix: term_",
          "relay:",
          "  shutdown-grace: " + GRACE.toSeconds() + "s",
          "  batch-size: 20",
          "server:",
          "  port: 0",
          String.join("\n", webhook.ordersConfig())));
      assertThat(CliRunner.run("migrate", "--config", file.toString())).isZero();
      PlainSqlRows.insert(url, table, "orders", 20, 15, 0, false);

      String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
      Path log = dir.resolve("relay.log");
      Process relay = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
          "dev.outbox4j.relay.Main", "run", "--config", file.toString())
          .redirectErrorStream(true).redirectOutput(log.toFile()).start();
      try {
        await().atMost(Duration.ofSeconds(60)).until(() -> webhook.confirmed().size() >= 40);
        Instant signalled = Instant.now();
        relay.destroy(); // SIGTERM
        assertThat(relay.waitFor(GRACE.toSeconds() + 10, TimeUnit.SECONDS))
            .as("exited; log:%n%s", Files.readString(log)).isTrue();
        Duration stopping = Duration.between(signalled, Instant.now());
        assertThat(stopping).as("time from SIGTERM to exit").isLessThan(GRACE.plusSeconds(3));
        assertThat(relay.exitValue()).isEqualTo(143);
        String printed = Files.readString(log, StandardCharsets.UTF_8);
        assertThat(printed).contains("stopping (grace 4s)", "stopped");
        assertThat(printed).as("the dashboard link carries the generated admin token")
            .containsPattern("dashboard  http://127\\.0\\.0\\.1:\\d+/#token=[0-9a-f]{32}\\R");
      } finally {
        relay.destroyForcibly();
      }

      List<String> confirmed = webhook.confirmed();
      List<String> remaining = new ArrayList<>();
      try (Connection connection = DriverManager.getConnection(url);
          PreparedStatement select = connection.prepareStatement("SELECT payload FROM " + table);
          ResultSet rows = select.executeQuery()) {
        while (rows.next()) {
          remaining.add(new String(rows.getBytes(1), StandardCharsets.UTF_8));
        }
      }
      assertThat(remaining).as("stopped mid-backlog").isNotEmpty();
      assertThat(remaining).as("confirmed entries left unmarked").doesNotContainAnyElementsOf(confirmed);
      assertThat(confirmed.size() + remaining.size()).isEqualTo(20 * 15);
    }
  }

}
