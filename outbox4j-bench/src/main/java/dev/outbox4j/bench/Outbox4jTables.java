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
 * rows {@link dev.outbox4j.jdbc.JdbcOutbox} would.
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
    return JdbcOutboxStore.builder(pool).withTablePrefix(prefix).withRetention(retention).withClaimStrategy(claims)
        .build();
  }

  void truncate() throws SQLException {
    database.execute("TRUNCATE " + prefix + "outbox, " + prefix + "outbox_key");
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
    truncate();
    insertMore(rows, keys);
  }

  /** Adds {@code rows} pending unkeyed (or keyed) entries and vacuums. */
  void insertMore(int rows, boolean keyed) throws SQLException {
    insertMore(rows, keyed ? KEYS : 0);
  }

  /** Adds {@code rows} pending entries over {@code keys} keys ({@code 0}: unkeyed) and vacuums. */
  void insertMore(int rows, int keys) throws SQLException {
    String payload = "convert_to(repeat('x', " + Payloads.SIZE + "), 'UTF8')";
    if (rows > 0 && keys == 0) {
      database.execute("INSERT INTO " + outbox() + " (id, destination, payload) SELECT gen_random_uuid(), '"
          + Payloads.DESTINATION + "', " + payload + " FROM generate_series(1, " + rows + ") g ORDER BY g");
    } else if (rows > 0) {
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

  /** The message writers send: 200 bytes, optionally keyed. */
  static Message message(@Nullable String key) {
    return Message.builder().withDestination(Payloads.DESTINATION).withOrderingKey(key).withPayload(Payloads.bytes())
        .withContentType("application/json").build();
  }
}
