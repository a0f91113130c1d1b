package dev.outbox4j.jdbc;

import dev.outbox4j.EntryStatus;
import dev.outbox4j.Message;
import dev.outbox4j.OutboxEntry;
import dev.outbox4j.QuarantineKind;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Objects;
import java.util.StringJoiner;
import org.jspecify.annotations.Nullable;

/**
 * The outbox table's row format for one dialect and set of table names: the column list, the INSERT, and the mapping
 * between a row and an {@link OutboxEntry}. Shared by the writer ({@link JdbcOutbox}) and the store
 * ({@link JdbcOutboxStore}) so both write exactly the same rows.
 *
 * <p>Immutable and thread-safe.
 */
final class OutboxRows {
  /** Width of the free-text columns (errors, reasons, results). */
  static final int MAX_TEXT = 2000;

  private static final String[] COLUMNS = {
    "id", "seq", "destination", "ordering_key", "key_seq", "payload", "content_type", "headers", "not_before",
    "status", "attempts", "last_error", "quarantine_reason", "created_at", "available_at", "delivered_at",
    "delivery_result", "claim_token", "lease_until", "version", "quarantine_kind", "first_failed_at"
  };

  final JdbcDialect dialect;
  final TableNames names;
  /** The qualified outbox table. */
  final String table;
  final String insert;

  OutboxRows(JdbcDialect dialect, TableNames names) {
    this.dialect = Objects.requireNonNull(dialect, "dialect");
    this.names = Objects.requireNonNull(names, "names");
    this.table = names.qualified("outbox");
    this.insert = "INSERT INTO " + table + " (id, destination, ordering_key, payload, content_type, headers,"
        + " not_before, status, attempts, last_error, quarantine_reason, created_at, available_at, delivered_at,"
        + " delivery_result, quarantine_kind, first_failed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,"
        + " ?)";
  }

  /**
   * @param alias a table alias, or an empty string for none
   * @return every column, each prefixed by the alias
   */
  static String columns(String alias) {
    StringJoiner joiner = new StringJoiner(", ");
    for (String column : COLUMNS) {
      joiner.add(alias.isEmpty() ? column : alias + "." + column);
    }
    return joiner.toString();
  }

  /** Binds the parameters of {@link #insert} for an entry. */
  void bindInsert(PreparedStatement insert, OutboxEntry entry) throws SQLException {
    Message message = entry.message();
    dialect.setUuid(insert, 1, message.id());
    insert.setString(2, message.destination());
    insert.setString(3, message.orderingKey().orElse(null));
    insert.setBytes(4, message.payload());
    insert.setString(5, message.contentType());
    insert.setString(6, HeaderJson.encode(message.headers()));
    dialect.setInstant(insert, 7, message.notBefore().orElse(null));
    insert.setString(8, entry.status().name());
    insert.setInt(9, entry.attempts());
    insert.setString(10, clip(entry.lastError()));
    insert.setString(11, clip(entry.quarantineReason()));
    dialect.setInstant(insert, 12, entry.createdAt());
    dialect.setInstant(insert, 13, entry.availableAt());
    dialect.setInstant(insert, 14, entry.deliveredAt());
    insert.setString(15, clip(entry.deliveryResult()));
    insert.setString(16, entry.quarantineKind() == null ? null : entry.quarantineKind().name());
    dialect.setInstant(insert, 17, entry.firstFailedAt());
  }

  /**
   * Reads the entry on the current row of a result set whose columns are exactly {@link #columns}, in that order: by
   * position, since looking 21 labels up for every row cost more than converting the values.
   */
  OutboxEntry entry(ResultSet row) throws SQLException {
    byte[] payload = row.getBytes(6);
    Message message = Message.builder()
        .withId(dialect.getUuid(row, 1))
        .withDestination(row.getString(3))
        .withOrderingKey(row.getString(4))
        .withPayload(payload == null ? new byte[0] : payload)
        .withContentType(row.getString(7))
        .withHeaders(HeaderJson.decode(row.getString(8)))
        .withNotBefore(dialect.getInstant(row, 9))
        .build();
    return new OutboxEntry(message, row.getLong(2), EntryStatus.valueOf(row.getString(10)), row.getInt(11),
        row.getString(12), row.getString(13), required(row, 14), required(row, 15), dialect.getInstant(row, 16),
        row.getString(17), row.getLong(20), kind(row.getString(21)), dialect.getInstant(row, 22));
  }

  private Instant required(ResultSet row, int column) throws SQLException {
    Instant value = dialect.getInstant(row, column);
    if (value == null) {
      throw new SQLException("outbox column " + COLUMNS[column - 1] + " is NULL");
    }
    return value;
  }

  private static @Nullable QuarantineKind kind(@Nullable String stored) {
    return stored == null ? null : QuarantineKind.valueOf(stored);
  }

  static @Nullable String clip(@Nullable String text) {
    return text == null || text.length() <= MAX_TEXT ? text : text.substring(0, MAX_TEXT);
  }
}
