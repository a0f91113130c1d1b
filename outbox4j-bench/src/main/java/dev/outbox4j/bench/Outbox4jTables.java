package dev.outbox4j.bench;

import dev.outbox4j.Message;
import dev.outbox4j.jdbc.JdbcOutboxStore;
import dev.outbox4j.spi.Retention;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * outbox4j's own tables under a benchmark prefix, created by the store's own migrations (dropped first, so a changed
 * schema is always picked up), and filled for the drain and claim scenarios with set-based SQL that writes exactly the
 * rows {@link dev.outbox4j.jdbc.JdbcOutbox} would, on PostgreSQL or MariaDB.
 *
 * <p>The stores it makes claim with {@link ClaimNames#REFERENCE} on PostgreSQL (its default); on MariaDB, which has
 * only leased rows, a store asked for the reference strategy gets the database's default, so the rows without a
 * strategy in their id measure the default configuration on either database.
 */
final class Outbox4jTables {
  /** Keys in the ordered scenarios. */
  static final int KEYS = 1_000;

  private final BenchDatabase database;
  private final String prefix;

  /** @param prefix the table prefix, a fixed identifier such as {@code bench_o4j_} */
  Outbox4jTables(BenchDatabase database, String prefix) {
    this.database = database;
    this.prefix = prefix;
  }

  String outbox() {
    return prefix + "outbox";
  }

  /** Drops every object of this prefix and runs the store's migrations. */
  void recreate(DataSource pool) throws SQLException {
    if (database.mariaDb()) {
      for (String table : java.util.List.of("outbox", "outbox_key", "outbox_destination_pause", "operator_audit",
          "schema_version")) {
        database.execute("DROP TABLE IF EXISTS " + prefix + table);
      }
      store(pool, Retention.deleteOnDelivery()).migrate();
      return;
    }
    database.execute(
        "DROP TABLE IF EXISTS " + prefix + "outbox, " + prefix + "outbox_key, " + prefix + "outbox_claim, " + prefix
            + "outbox_destination_pause, " + prefix + "operator_audit, " + prefix + "schema_version CASCADE",
        "DROP FUNCTION IF EXISTS " + prefix + "outbox_assign_key_seq() CASCADE",
        "DROP FUNCTION IF EXISTS " + prefix + "outbox_claim_last_seq(bigint[]) CASCADE",
        "DROP FUNCTION IF EXISTS " + prefix + "outbox_notify() CASCADE");
    store(pool, Retention.deleteOnDelivery()).migrate();
    int fillfactor = database.options().outboxFillfactor();
    if (fillfactor != 0) {
      database.execute("ALTER TABLE " + outbox() + " SET (fillfactor = " + fillfactor + ")");
    }
  }

  JdbcOutboxStore store(DataSource pool, Retention retention) {
    return store(pool, retention, ClaimNames.REFERENCE);
  }

  /** @return a store over these tables claiming with {@code claims}; the caller closes it */
  JdbcOutboxStore store(DataSource pool, Retention retention, dev.outbox4j.jdbc.ClaimStrategy claims) {
    return store(pool, retention, claims, false);
  }

  /**
   * @param prepared whether pgjdbc may prepare the store's statements ({@code withPreparedStatements})
   * @return a store over these tables claiming with {@code claims}; the caller closes it
   */
  JdbcOutboxStore store(DataSource pool, Retention retention, dev.outbox4j.jdbc.ClaimStrategy claims,
      boolean prepared) {
    var builder = JdbcOutboxStore.builder(pool).withTablePrefix(prefix).withRetention(retention)
        .withPreparedStatements(prepared);
    if (!(database.mariaDb() && claims == ClaimNames.REFERENCE)) {
      builder.withClaimStrategy(claims);
    }
    return builder.build();
  }

  /**
   * Empties the tables. On MariaDB the outbox's {@code AUTO_INCREMENT} is set back to where it was: a relay's claim
   * window starts at a floor sampled from it (docs/stores.md, "The floor on MariaDB/MySQL"), and numbers that start
   * again at 1 would sit below a floor a store kept from the previous run.
   */
  void truncate() throws SQLException {
    if (database.mariaDb()) {
      long next;
      try (var connection = java.sql.DriverManager.getConnection(database.options().jdbcUrl(),
              database.options().user(), "");
          var statement = connection.prepareStatement("SELECT AUTO_INCREMENT FROM information_schema.TABLES"
              + " WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?")) {
        statement.setString(1, outbox());
        try (var rows = statement.executeQuery()) {
          next = rows.next() ? rows.getLong(1) : 1;
        }
      }
      database.truncate(outbox(), prefix + "outbox_key");
      database.execute("ALTER TABLE " + outbox() + " AUTO_INCREMENT = " + Math.max(1, next));
      return;
    }
    database.truncate(prefix + "outbox", prefix + "outbox_key");
  }

  /**
   * Empties the tables and inserts {@code rows} pending entries, unkeyed or spread round-robin over {@value #KEYS}
   * keys, then vacuums. Keyed rows get their per-key numbers directly (the deferred trigger that numbers them at commit
   * is bypassed for this bulk load, and the key table is filled to match).
   */
  void fill(int rows, boolean keyed) throws SQLException {
    fill(rows, keyed ? KEYS : 0);
  }

  /** As {@link #fill(int, boolean)}, over {@code keys} keys ({@code 0}: unkeyed). */
  void fill(int rows, int keys) throws SQLException {
    fill(rows, keys, Payloads.SIZE);
  }

  /** As {@link #fill(int, int)}, with payloads of {@code payloadSize} bytes. */
  void fill(int rows, int keys, int payloadSize) throws SQLException {
    truncate();
    insertMore(rows, keys, payloadSize);
  }

  /** Adds {@code rows} pending unkeyed (or keyed) entries and vacuums. */
  void insertMore(int rows, boolean keyed) throws SQLException {
    insertMore(rows, keyed ? KEYS : 0);
  }

  /** Adds {@code rows} pending entries over {@code keys} keys ({@code 0}: unkeyed) and vacuums. */
  void insertMore(int rows, int keys) throws SQLException {
    insertMore(rows, keys, Payloads.SIZE);
  }

  /**
   * Adds {@code rows} pending entries over {@code keys} keys ({@code 0}: unkeyed) with payloads of
   * {@code payloadSize} bytes, and vacuums (analyses). On MariaDB the store's insert trigger numbers keyed entries
   * itself (bypassing it would need its text here); a payload other than PostgreSQL's 200 bytes is bound once and
   * copied into every row of a statement.
   */
  void insertMore(int rows, int keys, int payloadSize) throws SQLException {
    if (database.mariaDb()) {
      insertMoreMariaDb(rows, keys, payloadSize);
      return;
    }
    String payload = "convert_to(repeat('x', " + Payloads.SIZE + "), 'UTF8')";
    if (rows > 0 && keys == 0 && payloadSize != Payloads.SIZE) {
      int chunk = RawOutboxTable.chunk(payloadSize);
      for (int from = 1; from <= rows; from += chunk) {
        database.executeWith("INSERT INTO " + outbox() + " (id, destination, payload) SELECT gen_random_uuid(), ?, ?"
            + " FROM " + database.series(from, Math.min(rows, from + chunk - 1L)) + " ORDER BY g",
            Payloads.DESTINATION, Payloads.bytes(payloadSize));
      }
    } else if (rows > 0 && keys == 0) {
      database.execute("INSERT INTO " + outbox() + " (id, destination, payload) SELECT gen_random_uuid(), '"
          + Payloads.DESTINATION + "', " + payload + " FROM generate_series(1, " + rows + ") g ORDER BY g");
    } else if (rows > 0) {
      if (payloadSize != Payloads.SIZE) {
        throw new IllegalArgumentException("keyed backlogs have 200-byte payloads, not " + payloadSize);
      }
      database.execute(
          "SET session_replication_role = replica",
          "INSERT INTO " + outbox() + " (id, destination, ordering_key, key_seq, payload) SELECT gen_random_uuid(), '"
              + Payloads.DESTINATION + "', 'key-' || (g % " + keys + "), (g / " + keys + ") + 1, " + payload
              + " FROM generate_series(0, " + (rows - 1) + ") g ORDER BY g",
          "INSERT INTO " + prefix + "outbox_key (ordering_key) SELECT DISTINCT ordering_key FROM " + outbox()
              + " WHERE ordering_key IS NOT NULL",
          "SET session_replication_role = origin");
    }
    // Every table the claim reads, the claim table (one row per batch, written and deleted at the drain's pace)
    // included: each run starts as autovacuum would leave them (this test server runs with autovacuum off).
    database.execute("VACUUM ANALYZE " + outbox(), "VACUUM ANALYZE " + prefix + "outbox_key",
        "VACUUM ANALYZE " + prefix + "outbox_claim");
  }

  private void insertMoreMariaDb(int rows, int keys, int payloadSize) throws SQLException {
    int chunk = RawOutboxTable.chunk(payloadSize);
    for (int from = 0; from < rows; from += chunk) {
      String source = database.series(from, Math.min(rows, (long) from + chunk) - 1);
      if (keys == 0) {
        database.executeWith("INSERT INTO " + outbox() + " (id, destination, payload) SELECT UUID(), ?, ? FROM "
            + source + " ORDER BY g", Payloads.DESTINATION, Payloads.bytes(payloadSize));
      } else {
        database.executeWith("INSERT INTO " + outbox() + " (id, destination, ordering_key, payload) SELECT UUID(), ?,"
            + " CONCAT('key-', g % " + keys + "), ? FROM " + source + " ORDER BY g", Payloads.DESTINATION,
            Payloads.bytes(payloadSize));
      }
    }
    database.analyze(outbox(), prefix + "outbox_key");
  }

  /** The message writers send: 200 bytes, optionally keyed. */
  static Message message(@Nullable String key) {
    return message(key, Payloads.SIZE);
  }

  /** The message writers send, with a payload of {@code payloadSize} bytes ({@link Payloads#bytes(int)}). */
  static Message message(@Nullable String key, int payloadSize) {
    return Message.builder().withDestination(Payloads.DESTINATION).withOrderingKey(key)
        .withPayload(Payloads.bytes(payloadSize)).withContentType("application/json").build();
  }
}
