package dev.outbox4j.relay.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox4j.Message;
import dev.outbox4j.jdbc.JdbcOutbox;
import dev.outbox4j.jdbc.TableNames;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** Writes keyed messages into an outbox of any database through the library's writer, and checks what arrived. */
final class OutboxWrites {
  private OutboxWrites() {}

  /**
   * Writes {@code keys × perKey} messages, payload {@code <keyPrefix><k>:<n>}, ordering key {@code <keyPrefix><k>}, one
   * transaction per round of keys.
   */
  static void write(String url, @Nullable String schema, String prefix, String destination, String keyPrefix,
      int keys, int perKey, int startAt) throws SQLException {
    JdbcOutbox outbox = JdbcOutbox.builder().withTableNames(new TableNames(schema, prefix)).build();
    try (Connection connection = DriverManager.getConnection(url)) {
      connection.setAutoCommit(false);
      for (int n = startAt; n < startAt + perKey; n++) {
        for (int k = 0; k < keys; k++) {
          outbox.write(connection, Message.builder().withDestination(destination).withOrderingKey(keyPrefix + k)
              .withPayload(keyPrefix + k + ":" + n).build());
        }
        connection.commit();
      }
    }
  }

  /** @return the payloads that start with the prefix, in the order received */
  static List<String> of(List<String> received, String keyPrefix) {
    return received.stream().filter(payload -> payload.startsWith(keyPrefix)).toList();
  }

  /**
   * Asserts that each key's payloads arrived in order, every one from 0 to {@code perKey - 1} at least once: a
   * redelivery (at least once) may repeat an entry, but never after a later one of its key was delivered.
   */
  static void assertKeyOrder(List<String> payloads, String keyPrefix, int keys, int perKey) {
    Map<String, Integer> highest = new HashMap<>();
    for (String payload : payloads) {
      int colon = payload.lastIndexOf(':');
      String key = payload.substring(0, colon);
      int n = Integer.parseInt(payload.substring(colon + 1));
      int before = highest.getOrDefault(key, -1);
      assertThat(n).as("%s after %s:%d", payload, key, before).isBetween(before, before + 1);
      highest.put(key, Math.max(before, n));
    }
    for (int k = 0; k < keys; k++) {
      assertThat(highest.get(keyPrefix + k)).as("last of %s%d", keyPrefix, k).isEqualTo(perKey - 1);
    }
  }
}
