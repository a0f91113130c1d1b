package dev.outbox4j.relay.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** Writes outbox rows the way another application would: the plain SQL of docs/schema.md, one transaction each. */
final class PlainSqlRows {
  static final String TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

  private PlainSqlRows() {}

  /**
   * @return the ids written, in order
   */
  static List<UUID> insert(String url, String table, String destination, int keys, int perKey, int startAt,
      boolean notify) throws SQLException {
    return insert(url, table, destination, "order-", keys, perKey, startAt, notify);
  }

  /**
   * @param keyPrefix the ordering keys' prefix (keys are prefix + 0, 1, ...; payloads key + ":" + n)
   * @return the ids written, in order
   */
  static List<UUID> insert(String url, String table, String destination, String keyPrefix, int keys, int perKey,
      int startAt, boolean notify) throws SQLException {
    List<UUID> ids = new ArrayList<>();
    try (Connection connection = DriverManager.getConnection(url)) {
      connection.setAutoCommit(false);
      for (int n = startAt; n < startAt + perKey; n++) {
        for (int k = 0; k < keys; k++) {
          UUID id = UUID.randomUUID();
          // docs/schema.md, "Writing an outbox row from another application", PostgreSQL, keyed:
          try (PreparedStatement insert = connection.prepareStatement(
              "INSERT INTO " + table + " (id, destination, ordering_key, payload, content_type, headers)\n"
                  + "VALUES (?, '" + destination + "', '" + keyPrefix + k + "', ?, 'application/json',\n"
                  + "        '{\"traceparent\":\"" + TRACEPARENT + "\"}')")) {
            insert.setObject(1, id);
            insert.setBytes(2, (keyPrefix + k + ":" + n).getBytes(StandardCharsets.UTF_8));
            insert.executeUpdate();
          }
          if (notify) {
            try (Statement statement = connection.createStatement()) {
              statement.execute("SELECT pg_notify('" + table + "', '')");
            }
          }
          connection.commit();
          ids.add(id);
        }
      }
    }
    return ids;
  }

  /** Asserts that every key's payloads arrived as n = 0, 1, 2, ... with nothing missing. */
  static void assertKeyOrder(List<String> payloads, int keys, int perKey) {
    Map<String, List<Integer>> byKey = new LinkedHashMap<>();
    for (String payload : payloads) {
      String[] parts = payload.split(":");
      byKey.computeIfAbsent(parts[0], k -> new ArrayList<>()).add(Integer.parseInt(parts[1]));
    }
    assertThat(byKey).hasSize(keys);
    List<Integer> expected = new ArrayList<>();
    for (int n = 0; n < perKey; n++) {
      expected.add(n);
    }
    byKey.forEach((key, ns) -> assertThat(ns).as(key).containsExactlyElementsOf(expected));
  }

  static long rows(String url, String table) throws SQLException {
    try (Connection connection = DriverManager.getConnection(url);
        Statement statement = connection.createStatement();
        var result = statement.executeQuery("SELECT count(*) FROM " + table)) {
      result.next();
      return result.getLong(1);
    }
  }
}
