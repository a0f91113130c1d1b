package dev.outbox4j.jdbc;

import dev.outbox4j.EntryStatus;
import dev.outbox4j.Message;
import dev.outbox4j.OutboxEntry;
import dev.outbox4j.OutboxException;
import dev.outbox4j.QuarantineKind;
import dev.outbox4j.spi.QuarantineGroups;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
    "delivery_result", "claim_token", "lease_until", "version", "quarantine_kind", "first_failed_at", "claimed_at",
    "in_doubt_since"
  };

  /** How many columns {@link #columns} lists. */
  static final int COLUMN_COUNT = COLUMNS.length;

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
   * @return the expression a claim writes into {@code in_doubt_since}: when the row still carries a token, its previous
   *     claim expired with nothing recorded (a claim only takes a row whose lease has passed), so the entry is in doubt
   *     since the earliest such claim: the mark it has, else that claim's {@code claimed_at}, else (a claim made before
   *     migration V9) its {@code created_at}. A row without a token keeps its mark. On MariaDB/MySQL, whose UPDATE
   *     assigns left to right, it must come before the assignment of {@code claim_token}.
   */
  static String inDoubtOnClaim(String alias) {
    String a = alias.isEmpty() ? "" : alias + ".";
    return "CASE WHEN " + a + "claim_token IS NOT NULL THEN COALESCE(" + a + "in_doubt_since, " + a + "claimed_at, "
        + a + "created_at) ELSE " + a + "in_doubt_since END";
  }

  /**
   * @param alias a table alias
   * @return {@link #columns}, but with {@code in_doubt_since} as a claim of the row now would write it
   *     ({@link #inDoubtOnClaim}): for a claim that reads its rows before it updates them
   */
  static String columnsAsClaimed(String alias) {
    String all = columns(alias);
    return all.substring(0, all.length() - (alias + ".in_doubt_since").length()) + inDoubtOnClaim(alias);
  }

  /**
   * @param alias a table alias, or an empty string for none
   * @return every column, each prefixed by the alias
   */
  static String columns(String alias) {
    return columns(alias, alias.isEmpty() ? "payload" : alias + ".payload");
  }

  /**
   * @param alias a table alias, or an empty string for none
   * @param payload the expression read in the payload's place (as {@link #read} reads it: {@code bytea}, a
   *     {@code NULL} read as an empty payload)
   * @return every column, each prefixed by the alias, the payload replaced by {@code payload}
   */
  static String columns(String alias, String payload) {
    StringJoiner joiner = new StringJoiner(", ");
    for (String column : COLUMNS) {
      joiner.add(column.equals("payload") ? payload : alias.isEmpty() ? column : alias + "." + column);
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
   * A row as read: its entry, and, when some of its columns break the format (it was written by another application),
   * why, naming the columns. The entry of an unreadable row carries placeholders for the unreadable parts (see
   * {@link #UNREADABLE_NAME}), so it can be listed and acted on, never sent.
   *
   * @param entry the entry
   * @param unreadable the problems, for the quarantine reason, or {@code null} when the row is readable
   * @param inDoubtSince the row's {@code in_doubt_since} (see {@link dev.outbox4j.spi.Claim#inDoubtSince()})
   * @param keySeq the entry's number within its ordering key ({@code key_seq}); {@code 0} when it has none
   */
  record Read(OutboxEntry entry, @Nullable String unreadable, @Nullable Instant inDoubtSince, long keySeq) {
    Read {
      Objects.requireNonNull(entry, "entry");
    }

    boolean readable() {
      return unreadable == null;
    }

    /** @return this row with its entry's payload replaced (for a payload read apart from the row's other columns) */
    Read withPayload(byte[] payload) {
      OutboxEntry e = entry;
      Message message = e.message().toBuilder().withPayload(payload).build();
      return new Read(new OutboxEntry(message, e.sequence(), e.status(), e.attempts(), e.lastError(),
          e.quarantineReason(), e.createdAt(), e.availableAt(), e.deliveredAt(), e.deliveryResult(), e.version(),
          e.quarantineKind(), e.firstFailedAt()), unreadable, inDoubtSince, keySeq);
    }
  }

  /** Stands for an unreadable destination or content type in the entry of an unreadable row. */
  static final String UNREADABLE_NAME = "(unreadable)";
  /** Longest excerpt of a bad column's text in a quarantine reason. */
  private static final int EXCERPT = 200;

  /**
   * Reads the entry on the current row of a result set whose columns are exactly {@link #columns}, in that order: by
   * position, since looking 21 labels up for every row cost more than converting the values.
   *
   * <p>Never fails on a row's contents that another application could have written badly: a blank destination,
   * ordering key, content type or header name, or headers that are not a JSON object of strings, make the row
   * unreadable ({@link Read#unreadable()}) and are replaced in its entry: the destination and content type by
   * {@link #UNREADABLE_NAME}, a blank key by none, unreadable headers by none. The raw text stays in the row.
   */
  Read read(ResultSet row) throws SQLException {
    byte[] payload = row.getBytes(6);
    List<String> problems = new ArrayList<>();
    String destination = name(row.getString(3), "destination", problems);
    String key = row.getString(4);
    if (key != null && key.isBlank()) {
      problems.add("column ordering_key is blank");
      key = null;
    }
    String contentType = name(row.getString(7), "content_type", problems);
    Map<String, String> headers = headers(row.getString(8), problems);
    Message message = Message.builder()
        .withId(dialect.getUuid(row, 1))
        .withDestination(destination)
        .withOrderingKey(key)
        .withPayload(payload == null ? new byte[0] : payload)
        .withContentType(contentType)
        .withHeaders(headers)
        .withNotBefore(dialect.getInstant(row, 9))
        .build();
    OutboxEntry entry = new OutboxEntry(message, row.getLong(2), EntryStatus.valueOf(row.getString(10)),
        row.getInt(11), row.getString(12), row.getString(13), required(row, 14), required(row, 15),
        dialect.getInstant(row, 16), row.getString(17), row.getLong(20), kind(row.getString(21)), dialect.getInstant(row, 22));
    return new Read(entry, problems.isEmpty() ? null : "unreadable row: " + String.join("; ", problems),
        dialect.getInstant(row, 24), row.getLong(5));
  }

  /**
   * Reads the operator columns on the current row of a result set whose columns are {@link OperatorSql#MEMBER_COLUMNS},
   * with the placeholders {@link #read} puts in an entry: an unreadable destination is {@link #UNREADABLE_NAME}, a
   * blank key is none. So a group read this way and the entries it lists agree.
   */
  QuarantineGroups.Member member(ResultSet row) throws SQLException {
    String destination = name(row.getString(4), "destination", new ArrayList<>());
    String key = row.getString(3);
    return new QuarantineGroups.Member(Objects.requireNonNull(dialect.getUuid(row, 2), "id"),
        key == null || key.isBlank() ? null : key, destination, EntryStatus.valueOf(row.getString(5)),
        kind(row.getString(6)), row.getString(7));
  }

  /** As {@link #read}, for callers that only meet rows already known readable or that show placeholders as they are. */
  OutboxEntry entry(ResultSet row) throws SQLException {
    return read(row).entry();
  }

  private static String name(@Nullable String value, String column, List<String> problems) {
    if (value == null) {
      problems.add("column " + column + " is NULL");
      return UNREADABLE_NAME;
    }
    if (value.isBlank()) {
      problems.add("column " + column + " is blank");
      return UNREADABLE_NAME;
    }
    if (value.length() > Message.MAX_NAME_LENGTH) {
      problems.add("column " + column + " is longer than " + Message.MAX_NAME_LENGTH + " characters");
      return UNREADABLE_NAME;
    }
    return value;
  }

  private static Map<String, String> headers(@Nullable String json, List<String> problems) {
    if (json == null) {
      problems.add("column headers is NULL");
      return Map.of();
    }
    Map<String, String> headers;
    try {
      headers = HeaderJson.decode(json);
    } catch (OutboxException e) {
      problems.add("column headers is not a JSON object of strings: " + excerpt(json));
      return Map.of();
    }
    for (String name : headers.keySet()) {
      if (name.isBlank() || name.length() > Message.MAX_NAME_LENGTH) {
        problems.add("column headers has a " + (name.isBlank() ? "blank" : "too long") + " header name: "
            + excerpt(json));
        return Map.of();
      }
    }
    return headers;
  }

  private static String excerpt(String text) {
    return text.length() <= EXCERPT ? text : text.substring(0, EXCERPT) + "...";
  }

  /**
   * Reads every column of the current row but the payload as text (the payload as its size), for
   * {@link JdbcOutboxStore#rawColumns}.
   */
  static Map<String, @Nullable String> raw(ResultSet row) throws SQLException {
    Map<String, @Nullable String> raw = new LinkedHashMap<>();
    for (int i = 0; i < COLUMNS.length; i++) {
      if (COLUMNS[i].equals("payload")) {
        byte[] payload = row.getBytes(i + 1);
        raw.put("payload", payload == null ? null : payload.length + " bytes (not shown)");
      } else {
        raw.put(COLUMNS[i], row.getString(i + 1));
      }
    }
    return Collections.unmodifiableMap(raw);
  }

  private Instant required(ResultSet row, int column) throws SQLException {
    Instant value = dialect.getInstant(row, column);
    if (value == null) {
      throw new SQLException("outbox column " + COLUMNS[column - 1] + " is NULL");
    }
    return value;
  }

  /** @return the stored kind, or {@code null} for none or for a name this version does not know */
  private static @Nullable QuarantineKind kind(@Nullable String stored) {
    if (stored == null) {
      return null;
    }
    try {
      return QuarantineKind.valueOf(stored);
    } catch (IllegalArgumentException unknown) {
      return null;
    }
  }

  /**
   * The statement that quarantines an unreadable row met by a claim or an entry-face read, as
   * {@link QuarantineKind#UNREADABLE}: it counts no attempt (nothing was sent) and clears any claim. Fenced by the
   * version read and by the row still waiting, so it never overwrites a change made since. Parameters: the reason, the
   * {@code seq}, the version.
   */
  String quarantineUnreadable() {
    return "UPDATE " + dialect.byPrimaryKey(table) + " SET status = 'QUARANTINED', quarantine_kind = '"
        + QuarantineKind.UNREADABLE.name() + "', quarantine_reason = ?, claim_token = NULL, lease_until = NULL,"
        + " version = version + 1 WHERE seq = ? AND version = ? AND status IN ('PENDING', 'FAILED')";
  }

  /**
   * Quarantines the unreadable rows among {@code read} in one JDBC batch on {@code connection} (in its transaction,
   * or each in auto-commit) and returns the readable entries, in their order.
   */
  List<OutboxEntry> quarantineUnreadable(java.sql.Connection connection, List<Read> read) throws SQLException {
    List<OutboxEntry> readable = new ArrayList<>(read.size());
    quarantineUnreadableRows(connection, read).forEach(row -> readable.add(row.entry()));
    return readable;
  }

  /** As {@link #quarantineUnreadable}, returning the readable rows as read. */
  List<Read> quarantineUnreadableRows(java.sql.Connection connection, List<Read> read) throws SQLException {
    List<Read> readable = new ArrayList<>(read.size());
    List<Read> unreadable = new ArrayList<>();
    for (Read row : read) {
      if (row.readable()) {
        readable.add(row);
      } else {
        unreadable.add(row);
      }
    }
    if (!unreadable.isEmpty()) {
      try (PreparedStatement quarantine = connection.prepareStatement(quarantineUnreadable())) {
        for (Read row : unreadable) {
          quarantine.setString(1, clip(row.unreadable()));
          quarantine.setLong(2, row.entry().sequence());
          quarantine.setLong(3, row.entry().version());
          quarantine.addBatch();
        }
        quarantine.executeBatch();
      }
    }
    return readable;
  }

  static @Nullable String clip(@Nullable String text) {
    return text == null || text.length() <= MAX_TEXT ? text : text.substring(0, MAX_TEXT);
  }
}
