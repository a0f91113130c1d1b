package dev.outbox4j.relay.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox4j.jdbc.testing.RunDatabases;
import dev.outbox4j.relay.config.ConfigReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two relay processes configured with overlapping sets of outboxes — one drains {@code a} and {@code b}, the other
 * {@code b} and {@code c} — share {@code b} through its claims alone: every row of every outbox delivered once, each
 * key in order.
 */
class OverlappingOutboxesTest {
  private static final int KEYS = 10;
  private static final int PER_KEY = 30;

  @TempDir Path dir;

  @Test
  void two_relays_with_overlapping_outboxes_deliver_every_row_of_each_once_in_key_order() throws Exception {
    String url = RunDatabases.postgresUrl();
    try (RecordingWebhook webhook = new RecordingWebhook(Duration.ofMillis(2))) {
      Path first = config("first.yaml", url, webhook, "a", "b");
      Path second = config("second.yaml", url, webhook, "b", "c");
      try (RelayRuntime one = RelayRuntime.start(ConfigReader.read(first, List.of(), Map.of()));
          RelayRuntime two = RelayRuntime.start(ConfigReader.read(second, List.of(), Map.of()))) {
        for (String outbox : List.of("a", "b", "c")) {
          OutboxWrites.write(url, null, "ov" + outbox + "_", "orders", outbox + "-", KEYS, PER_KEY, 0);
        }
        await().atMost(Duration.ofSeconds(120)).until(() -> one.deliveredCount() + two.deliveredCount()
            >= 3L * KEYS * PER_KEY);
        long sharedDelivered = one.lane("b").orElseThrow().deliveredCount() + two.lane("b").orElseThrow()
            .deliveredCount();
        assertThat(sharedDelivered).as("b's rows, once between the two relays").isEqualTo((long) KEYS * PER_KEY);
        assertThat(one.lane("a").orElseThrow().deliveredCount()).isEqualTo((long) KEYS * PER_KEY);
        assertThat(two.lane("c").orElseThrow().deliveredCount()).isEqualTo((long) KEYS * PER_KEY);
        assertThat(one.lane("c")).isEmpty();
        assertThat(two.lane("a")).isEmpty();
      }
      List<String> received = webhook.received();
      assertThat(new HashSet<>(received)).hasSize(3 * KEYS * PER_KEY);
      assertThat(received).hasSize(3 * KEYS * PER_KEY);
      for (String outbox : List.of("a", "b", "c")) {
        OutboxWrites.assertKeyOrder(OutboxWrites.of(received, outbox + "-"), outbox + "-", KEYS, PER_KEY);
      }
    }
  }

  private Path config(String name, String url, RecordingWebhook webhook, String... outboxes) throws Exception {
    StringBuilder yaml = new StringBuilder(String.join("\n",
        "relay:",
        "  batch-size: 25",
        "server:",
        "  enabled: false",
        "transports:",
        "  webhooks:",
        "    type: http",
        "    endpoint.orders: " + webhook.url("/orders"),
        "destinations:",
        "  orders: webhooks",
        "outboxes:",
        ""));
    for (String outbox : outboxes) {
      yaml.append("  ").append(outbox).append(":\n")
          .append("    database:\n")
          .append("      url: '").append(url).append("'\n")
          .append("      table-prefix: ov").append(outbox).append("_\n")
          .append("      migrate: true\n");
    }
    Path file = dir.resolve(name);
    Files.writeString(file, yaml.toString());
    return file;
  }
}
