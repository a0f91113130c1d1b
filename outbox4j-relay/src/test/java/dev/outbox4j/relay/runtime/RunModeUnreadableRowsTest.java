package dev.outbox4j.relay.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox4j.jdbc.testing.RunDatabases;
import dev.outbox4j.relay.cli.CliRunner;
import dev.outbox4j.relay.config.ConfigReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code run} mode over rows another application wrote with plain SQL (docs/schema.md), three of which the store cannot
 * read: every readable row is delivered, each key in order, and the three are listed by {@code quarantined} as
 * {@code UNREADABLE}, naming their column.
 */
class RunModeUnreadableRowsTest {
  private static final int KEYS = 6;
  private static final int PER_KEY = 10;
  private static final int UNKEYED = 10;

  @TempDir Path dir;

  @Test
  void on_postgresql_every_readable_row_is_delivered_and_the_unreadable_ones_are_listed_as_quarantined()
      throws Exception {
    deliversTheReadableAndListsTheUnreadable(RunDatabases.postgresUrl(), false);
  }

  @Test
  void on_mariadb_every_readable_row_is_delivered_and_the_unreadable_ones_are_listed_as_quarantined()
      throws Exception {
    deliversTheReadableAndListsTheUnreadable(RunDatabases.mariadbUrl(), true);
  }

  private void deliversTheReadableAndListsTheUnreadable(String url, boolean idAsText) throws Exception {
    String prefix = "unread" + Integer.toHexString(UUID.randomUUID().hashCode() & 0xfffff) + "_";
    String table = prefix + "outbox";
    try (RecordingWebhook webhook = new RecordingWebhook(Duration.ZERO)) {
      Path file = dir.resolve("relay.yaml");
      Files.writeString(file, String.join("\n",
          "database:",
          "  url: '" + url + "'",
          "  table-prefix: " + prefix,
          "relay:",
          "  batch-size: 20",
          "  poll-max: 200ms",
          "server:",
          "  enabled: false",
          String.join("\n", webhook.ordersConfig())));
      assertThat(CliRunner.run("migrate", "--config", file.toString())).isZero();
      List<UUID> unreadable = new ArrayList<>();
      try (Connection connection = DriverManager.getConnection(url)) {
        int written = 0;
        for (int n = 0; n < PER_KEY; n++) {
          for (int k = 0; k < KEYS; k++) {
            insert(connection, table, idAsText, "orders", "order-" + k, "order-" + k + ":" + n,
                "{\"traceparent\":\"" + PlainSqlRows.TRACEPARENT + "\"}");
            written++;
            if (written == 10) {
              unreadable.add(insert(connection, table, idAsText, "orders", "lost-1", "bad-headers", "[1,2,3]"));
            } else if (written == 30) {
              unreadable.add(insert(connection, table, idAsText, " ", null, "blank-destination", "{}"));
            } else if (written == 50) {
              unreadable.add(insert(connection, table, idAsText, "orders", "", "blank-key", "{}"));
            }
          }
          insert(connection, table, idAsText, "orders", null, "free:" + n, "{}");
        }
      }
      int readable = KEYS * PER_KEY + UNKEYED;
      try (RelayRuntime runtime = RelayRuntime.start(ConfigReader.read(file, List.of(), Map.of()))) {
        await().atMost(Duration.ofSeconds(60)).until(() -> webhook.confirmed().size() >= readable);
        await().atMost(Duration.ofSeconds(10)).until(() -> PlainSqlRows.rows(url, table) == unreadable.size());
        // the relay counts a delivery once its completion is recorded, a moment after the row changes
        await().atMost(Duration.ofSeconds(10)).until(() -> runtime.deliveredCount() >= readable);
        assertThat(runtime.deliveredCount()).isEqualTo(readable);
      }
      assertThat(webhook.received()).hasSize(readable)
          .noneMatch(payload -> payload.startsWith("bad") || payload.startsWith("blank"));
      assertKeyOrder(webhook.received());

      String listed = CliRunner.output("quarantined", "--config", file.toString());
      for (UUID id : unreadable) {
        assertThat(listed).contains(id.toString());
      }
      assertThat(listed.lines().filter(line -> line.contains("UNREADABLE"))).hasSize(unreadable.size());
      assertThat(listed).contains("column headers is not a JSON object of strings: [1,2,3]",
          "column destination is blank", "column ordering_key is blank", "headers='[1,2,3]'",
          "showing 3 of 3 quarantined entries").doesNotContain("bad-headers", "blank-destination", "blank-key");
    }
  }

  private static UUID insert(Connection connection, String table, boolean idAsText, String destination,
      @Nullable String key, String payload, String headers) throws SQLException {
    UUID id = UUID.randomUUID();
    // docs/schema.md, "Writing an outbox row from another application", with every value bound
    try (PreparedStatement insert = connection.prepareStatement("INSERT INTO " + table
        + " (id, destination, ordering_key, payload, content_type, headers) VALUES (?, ?, ?, ?, 'application/json', ?)")) {
      if (idAsText) {
        insert.setString(1, id.toString());
      } else {
        insert.setObject(1, id);
      }
      insert.setString(2, destination);
      insert.setString(3, key);
      insert.setBytes(4, payload.getBytes(StandardCharsets.UTF_8));
      insert.setString(5, headers);
      insert.executeUpdate();
    }
    return id;
  }

  /** Asserts that each key's payloads (and the unkeyed ones, in any order) arrived complete, keyed ones in order. */
  private static void assertKeyOrder(List<String> payloads) {
    Map<String, List<Integer>> byKey = new LinkedHashMap<>();
    for (String payload : payloads) {
      String[] parts = payload.split(":");
      byKey.computeIfAbsent(parts[0], k -> new ArrayList<>()).add(Integer.parseInt(parts[1]));
    }
    assertThat(byKey).hasSize(KEYS + 1);
    List<Integer> expected = new ArrayList<>();
    for (int n = 0; n < PER_KEY; n++) {
      expected.add(n);
    }
    byKey.forEach((key, ns) -> {
      if (key.equals("free")) {
        assertThat(ns).containsExactlyInAnyOrderElementsOf(expected);
      } else {
        assertThat(ns).as(key).containsExactlyElementsOf(expected);
      }
    });
  }
}
